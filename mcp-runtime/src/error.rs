//! Errors a server reports to its owner (start-up and transport failures).
//!
//! Errors a client caused are answered on the wire as [`ErrorObject`](crate::protocol::ErrorObject)s
//! and never end the server.

use std::fmt;

/// A failure to start or run a server.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// Two tools have the same name.
    DuplicateTool {
        /// The shared name.
        name: String,
        /// Where the first one is defined (`file:line`, or "builder").
        first: String,
        /// Where the second one is defined.
        second: String,
    },
    /// A tool was registered without a handler.
    MissingHandler {
        /// The tool's name.
        name: String,
    },
    /// A tool's name is not 1–128 characters of `A-Z a-z 0-9 _ - .`.
    InvalidToolName {
        /// The name.
        name: String,
    },
    /// The command line could not be understood.
    Usage(String),
    /// Reading or writing the transport failed.
    Io(std::io::Error),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::DuplicateTool { name, first, second } => write!(
                f,
                "two tools are named `{name}`: one defined at {first}, the other at {second}; rename one of them"
            ),
            Error::MissingHandler { name } => {
                write!(f, "tool `{name}` has no handler; call `.handler(...)` on its descriptor")
            }
            Error::InvalidToolName { name } => write!(
                f,
                "tool name `{name}` is invalid: use 1 to 128 characters among A-Z, a-z, 0-9, `_`, `-` and `.`"
            ),
            Error::Usage(message) => f.write_str(message),
            Error::Io(e) => write!(f, "transport I/O failed: {e}"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Io(e) => Some(e),
            _ => None,
        }
    }
}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        Error::Io(e)
    }
}

/// The result type of server set-up and serving.
pub type Result<T, E = Error> = std::result::Result<T, E>;
