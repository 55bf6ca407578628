//! Errors a server reports to its owner (start-up and transport failures).
//!
//! Errors a client caused are answered on the wire as [`ErrorObject`](crate::protocol::ErrorObject)s
//! and never end the server.

use std::fmt;

/// The kinds of item a server offers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ItemKind {
    /// A tool, named by its name.
    Tool,
    /// A resource, named by its URI.
    Resource,
    /// A resource template, named by its URI template.
    ResourceTemplate,
    /// A prompt, named by its name.
    Prompt,
}

impl fmt::Display for ItemKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ItemKind::Tool => "tool",
            ItemKind::Resource => "resource",
            ItemKind::ResourceTemplate => "resource template",
            ItemKind::Prompt => "prompt",
        })
    }
}

impl ItemKind {
    /// The macro that declares items of this kind (`mcp_tool`, ...).
    pub(crate) fn attribute(self) -> &'static str {
        match self {
            ItemKind::Tool => "mcp_tool",
            ItemKind::Resource | ItemKind::ResourceTemplate => "mcp_resource",
            ItemKind::Prompt => "mcp_prompt",
        }
    }

    /// The builder method that takes items of this kind (`tool`, ...).
    pub(crate) fn method(self) -> &'static str {
        match self {
            ItemKind::Tool => "tool",
            ItemKind::Resource | ItemKind::ResourceTemplate => "resource",
            ItemKind::Prompt => "prompt",
        }
    }
}

/// A failure to start or run a server.
///
/// Its `Debug` output is its readable message, so that `fn main() -> mcp_runtime::Result<()>`
/// prints a sentence, not a structure.
///
/// ```
/// let e = mcp_runtime::Error::Usage("unknown argument `--nope`".into());
/// assert_eq!(format!("{e:?}"), "unknown argument `--nope`");
/// ```
#[non_exhaustive]
pub enum Error {
    /// Two items of one kind have the same name (tools, prompts) or URI (resources).
    Duplicate {
        /// What kind of item.
        kind: ItemKind,
        /// The shared name or URI.
        name: String,
        /// Where the first one is defined (`file:line`, or "the server builder").
        first: String,
        /// Where the second one is defined.
        second: String,
    },
    /// An item was registered without a handler.
    MissingHandler {
        /// What kind of item.
        kind: ItemKind,
        /// Its name.
        name: String,
    },
    /// A handler takes a [`State<T>`](crate::State) whose type nobody registered.
    MissingState {
        /// What kind of item.
        kind: ItemKind,
        /// Its name (a resource's URI).
        name: String,
        /// Where it is defined.
        defined_at: String,
        /// The state's type.
        type_name: String,
        /// A registered type that differs from it by a wrapper (`Arc<T>` registered, `State<T>`
        /// taken, or the other way round): the likely mistake.
        registered: Option<String>,
    },
    /// A tool argument declared as mirrored in an HTTP header cannot be.
    InvalidHeaderParam {
        /// The tool.
        tool: String,
        /// The argument.
        argument: String,
        /// Why.
        why: String,
    },
    /// A tool's input schema is not an object's (a `#[mcp(flatten)]` tuple struct, newtype or
    /// enum of unit variants; an `input_schema` override of another type): no call could
    /// send its arguments.
    InputSchemaNotObject {
        /// The tool.
        tool: String,
        /// The schema's root `type`.
        found: String,
    },
    /// A tool's name is not 1–128 characters of `A-Z a-z 0-9 _ - .`.
    InvalidToolName {
        /// The name.
        name: String,
    },
    /// `.tool(..)`, `.resource(..)` or `.prompt(..)` was given something that is neither a
    /// descriptor nor a function declared with the matching macro.
    NotDeclared {
        /// The kind the builder method takes.
        kind: ItemKind,
        /// The type of what was given (a function's path).
        given: &'static str,
        /// The kind the function is declared as, when it is declared with another macro.
        declared_as: Option<ItemKind>,
    },
    /// An extension was declared under an identifier without a prefix, or with settings that
    /// are not an object.
    InvalidExtension {
        /// The identifier.
        id: String,
        /// Whether its settings are an object (else they are what is wrong).
        settings_are_an_object: bool,
    },
    /// A server could not be mounted ([`Server::mount`](crate::Server::mount)).
    InvalidMount {
        /// The prefix it was to be mounted under.
        prefix: String,
        /// Why not.
        why: String,
    },
    /// A [`ServerHandle`](crate::ServerHandle) was used while its server is not running.
    NotRunning,
    /// A [`ServerHandle`](crate::ServerHandle) tried to change the lists of a server built
    /// without [`dynamic_lists`](crate::Server::dynamic_lists).
    StaticLists,
    /// No item of that kind has that name (or URI), or it already is as asked.
    NoSuchItem {
        /// What kind of item.
        kind: ItemKind,
        /// The name or URI asked for.
        name: String,
    },
    /// The command line could not be understood.
    Usage(String),
    /// A skill could not be read or served (the skills extension): what and why.
    Skill(String),
    /// The client closed the server's output (it stopped reading): the server stopped,
    /// aborting the requests in flight.
    OutputClosed(Option<std::io::Error>),
    /// Reading or writing the transport failed.
    Io(std::io::Error),
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Skill(why) => write!(f, "skills: {why}"),
            Error::Duplicate { kind, name, first, second } => write!(
                f,
                "two {kind}s are named `{name}`: one defined at {first}, the other at {second}; rename one of them"
            ),
            Error::MissingHandler { kind, name } => {
                write!(f, "{kind} `{name}` has no handler; give its descriptor one")
            }
            Error::MissingState { kind, name, defined_at, type_name, registered: None } => write!(
                f,
                "{kind} `{name}` (defined at {defined_at}) takes `State<{type_name}>`, but no `{type_name}` is \
                 registered: add `.state(value)` with a `{type_name}` to the server"
            ),
            Error::MissingState { kind, name, defined_at, type_name, registered: Some(near) } => write!(
                f,
                "{kind} `{name}` (defined at {defined_at}) takes `State<{type_name}>`, but the state registered \
                 is a `{near}`, another type: a state is found by its exact type, so register a `{type_name}` \
                 (`State` already shares it in an `Arc`: `.state(value)`, not `.state(Arc::new(value))`), or \
                 take `State<{near}>`"
            ),
            Error::InvalidHeaderParam { tool, argument, why } => {
                write!(f, "tool `{tool}` mirrors its argument `{argument}` in a header, but {why}")
            }
            Error::InputSchemaNotObject { tool, found } => write!(
                f,
                "tool `{tool}`: its input schema's type is {found}, not \"object\": a call's arguments are an \
                 object's properties; a `#[mcp(flatten)]` type must be a struct with named fields (or an enum \
                 of such structs), not a tuple struct, a newtype or an enum of unit variants"
            ),
            Error::InvalidToolName { name } => write!(
                f,
                "tool name `{name}` is invalid: use 1 to 128 characters among A-Z, a-z, 0-9, `_`, `-` and `.`"
            ),
            Error::NotDeclared { kind, given, declared_as: Some(other) } => write!(
                f,
                "`.{}({given})`: `{given}` is declared with `#[{}]`, not `#[{}]`; add it with `.{}(..)`",
                kind.method(),
                other.attribute(),
                kind.attribute(),
                other.method()
            ),
            Error::NotDeclared { kind, given, declared_as: None } => write!(
                f,
                "`.{}(..)` was given `{given}`, which is not a {kind}: pass a function declared with \
                 `#[{}]` (named as itself) or a descriptor",
                kind.method(),
                kind.attribute()
            ),
            Error::InvalidExtension { id, settings_are_an_object: true } => write!(
                f,
                "extension `{id}` needs a prefixed identifier, such as `io.modelcontextprotocol/ui` or `com.example/name`"
            ),
            Error::InvalidExtension { id, settings_are_an_object: false } => {
                write!(f, "the settings of extension `{id}` must be a JSON object (`{{}}` for none)")
            }
            Error::InvalidMount { prefix, why } => write!(f, "the server mounted under `{prefix}` cannot be: {why}"),
            Error::NotRunning => f.write_str("the server is not running: serve it before using its handle"),
            Error::StaticLists => f.write_str(
                "this server's lists are fixed: build it with `.dynamic_lists()` to change them while it runs",
            ),
            Error::NoSuchItem { kind, name } => write!(f, "no {kind} `{name}` to change, or it already is that way"),
            Error::Usage(message) => f.write_str(message),
            Error::OutputClosed(Some(e)) => {
                write!(
                    f,
                    "the client closed the server's output ({e}); stopped serving and aborted the requests in flight"
                )
            }
            Error::OutputClosed(None) => {
                f.write_str("the client closed the server's output; stopped serving and aborted the requests in flight")
            }
            Error::Io(e) => write!(f, "transport I/O failed: {e}"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Io(e) | Error::OutputClosed(Some(e)) => Some(e),
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
