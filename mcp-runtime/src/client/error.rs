//! Why a client call failed: each failure names the request it concerns and what to do.

use std::fmt;
use std::time::Duration;

use crate::protocol::ErrorObject;

/// Why a [`Client`](super::Client) request (or the connection) failed.
///
/// ```
/// use mcp_runtime::client::ClientError;
/// use mcp_runtime::protocol::ErrorObject;
/// let e = ClientError::Rpc { method: "tools/call".into(), error: ErrorObject::invalid_params("no tool `nope`") };
/// assert_eq!(e.rpc().map(|e| e.code), Some(-32602));
/// assert!(e.to_string().contains("tools/call"));
/// ```
#[derive(Debug)]
#[non_exhaustive]
pub enum ClientError {
    /// The server answered the request with a JSON-RPC error.
    Rpc {
        /// The method that was called.
        method: String,
        /// The error the server answered.
        error: ErrorObject,
    },
    /// The method needs a capability the server did not declare: the request was not sent.
    NotDeclared {
        /// The method that was not called.
        method: String,
        /// The server capability it needs (`tools`, `resources.subscribe`, ...).
        capability: &'static str,
    },
    /// The server answered `initialize` with a revision this client does not speak: nothing
    /// more was sent.
    VersionMismatch {
        /// The revision the client asked for.
        asked: String,
        /// The revision the server chose.
        answered: String,
    },
    /// No answer came within the request's timeout (a `notifications/cancelled` was sent).
    Timeout {
        /// The method that was called.
        method: String,
        /// How long the client waited.
        after: Duration,
    },
    /// The connection is gone: the server exited, closed its output, or the client closed.
    /// Every pending request fails with this at once.
    Closed(String),
    /// The server sent something that is not valid MCP for this request (a result of the
    /// wrong shape, an HTTP answer that is not JSON-RPC).
    Protocol(String),
    /// The server could not be reached or started (a command that does not run, a refused
    /// connection, an HTTP status with no JSON-RPC answer).
    Transport(String),
    /// Authorization failed: no token could be obtained, or the server refused the one sent.
    Auth(String),
}

impl ClientError {
    /// The JSON-RPC error the server answered, if that is what this is.
    pub fn rpc(&self) -> Option<&ErrorObject> {
        match self {
            ClientError::Rpc { error, .. } => Some(error),
            _ => None,
        }
    }

    pub(crate) fn shape(method: &str, detail: impl fmt::Display) -> ClientError {
        ClientError::Protocol(format!("{method} returned a result of the wrong shape: {detail}"))
    }
}

impl fmt::Display for ClientError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ClientError::Rpc { method, error } => {
                write!(f, "the server answered {method} with error {}: {}", error.code, error.message)
            }
            ClientError::NotDeclared { method, capability } => {
                write!(f, "{method} was not sent: the server does not declare the `{capability}` capability")
            }
            ClientError::VersionMismatch { asked, answered } => write!(
                f,
                "protocol version mismatch: the client asked for {asked} and the server chose {answered}, \
                 which this client does not speak"
            ),
            ClientError::Timeout { method, after } => {
                write!(f, "{method} got no answer within {} ms (cancelled)", after.as_millis())
            }
            ClientError::Closed(why) => write!(f, "the connection is closed: {why}"),
            ClientError::Protocol(message) | ClientError::Transport(message) => f.write_str(message),
            ClientError::Auth(message) => write!(f, "authorization failed: {message}"),
        }
    }
}

impl std::error::Error for ClientError {}
