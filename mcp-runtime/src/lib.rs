#![doc = include_str!("../README.md")]
// The README links to items some features bring; built without them, the links go to docs.rs.
#![cfg_attr(
    not(feature = "macros"),
    doc = "",
    doc = "[`mcp_tool`]: https://docs.rs/mcp-runtime/latest/mcp_runtime/attr.mcp_tool.html"
)]
#![cfg_attr(
    not(feature = "stdio"),
    doc = "",
    doc = "[`Server::run`]: https://docs.rs/mcp-runtime/latest/mcp_runtime/struct.Server.html#method.run",
    doc = "[`Server::run_stdio`]: https://docs.rs/mcp-runtime/latest/mcp_runtime/struct.Server.html#method.run_stdio",
    doc = "[`Server::serve_stdio`]: https://docs.rs/mcp-runtime/latest/mcp_runtime/struct.Server.html#method.serve_stdio"
)]
#![forbid(unsafe_code)]
// docs.rs builds with every feature and `--cfg docsrs` on nightly: each item then says which
// feature it needs.
#![cfg_attr(docsrs, feature(doc_cfg))]

// The crate's layers, each importing only from those before it:
//
//   error, protocol < util < context < declare < middleware < auth < tasks < server
//   < serve < transport < the facade
//
// - `protocol`: the wire types; `util`: small shared pieces;
// - `context`: what a handler sees of its request (and its questions to the client, states);
// - `declare`: descriptors, handlers, argument glue, the link-time declarations;
// - `middleware`: the seam tower layers wrap, and the built-in layers;
// - `auth`: authorization at the HTTP edge (verifiers, challenges, metadata) and the scope
//   check, a layer on the seam;
// - `tasks`: the tasks extension's records, their store, and the tasks this process runs;
//   `skills`: the skills extension's skills (read from folders) and the server's catalog;
// - `server`: the builder, the built core, the registry, the handle, the change bus, and the
//   servers mounted in a server;
// - `serve`: one connection: session intake, the route table, the executor, the methods;
// - `transport`: the connection loop, newline-delimited JSON, stdio, Streamable HTTP;
// - the facade: this file (modules and re-exports), `entry` (what puts a `Server` on a
//   transport, and `run()`), `__private` (for generated code), `diagnostics`, `client` (a
//   client of any server, and the proxy serving one through it), `testing` (the client with schema checks, in memory), `redis`,
//   `command_line`, `cli`.

#[doc(hidden)]
pub mod __private;
#[cfg(feature = "http")]
mod auth;
#[cfg(feature = "stdio")]
mod command_line;
mod context;
mod declare;
mod entry;
mod error;
pub mod middleware;
/// Telemetry (feature `telemetry`): OpenTelemetry spans and metrics as the conventions for
/// MCP name them, exported over OTLP, and Prometheus text for `/metrics`.
#[cfg(feature = "telemetry")]
#[cfg_attr(docsrs, doc(cfg(feature = "telemetry")))]
pub mod telemetry {
    pub use crate::middleware::telemetry::{OPERATION_BUCKETS, SESSION_BUCKETS, Telemetry, TelemetryError};
}
#[cfg(feature = "cli")]
#[cfg_attr(docsrs, doc(cfg(feature = "cli")))]
pub mod cli;
#[cfg(feature = "client")]
#[cfg_attr(docsrs, doc(cfg(feature = "client")))]
pub mod client;
pub mod protocol;
#[cfg(feature = "redis")]
#[cfg_attr(docsrs, doc(cfg(feature = "redis")))]
pub mod redis;
mod serve;
mod server;
pub mod skills;
pub mod tasks;
#[cfg(feature = "testing")]
#[cfg_attr(docsrs, doc(cfg(feature = "testing")))]
pub mod testing;
mod transport;
mod util;

/// The schemars (1.x) that argument and output schemas come from: derive `JsonSchema` from
/// this version (`schemars = "1"` in `Cargo.toml`, or `mcp_runtime::schemars`).
pub use schemars;
/// The serde_json that values travel as.
pub use serde_json;

pub use context::log_layer::ClientLogLayer;
pub use context::state::State;
pub use context::{CancelToken, Context, Identity, Input, LOG_MESSAGES_PER_SECOND, Negotiated};
pub use declare::bounded::{Bounded, OutOfRange};
pub use declare::completion::{CompletionContext, IntoCompleter, IntoCompletionValues, starting_with};
pub use declare::mounting::MOUNT_SEPARATOR;
pub use declare::prompt::{IntoPromptResult, PromptDescriptor, PromptGet};
pub use declare::resource::{IntoResourceContents, ReadError, ResourceDescriptor, ResourceNotFound, ResourceRead};
pub use declare::selection::Selection;
pub use declare::tool::{IntoToolResult, Json, Structured, ToolCall, ToolDescriptor};
#[cfg(feature = "stdio")]
#[cfg_attr(docsrs, doc(cfg(feature = "stdio")))]
pub use entry::program::termination_signal;
pub use error::{Error, ItemKind, Result};
pub use mcp_uri_template::{UriTemplate, UriTemplateError};
pub use protocol::{CachePolicy, CacheScope, Cacheable, CallToolResult, Content};
pub use server::builder::Server;
pub use server::handle::ServerHandle;
pub use server::instance::McpServer;
pub use util::schema::{input_schema_for, output_schema_for, schema_for};
pub use util::{BoxFuture, StoreError};

/// What a handler asks its client ([`Context::elicit`], [`Context::sample`],
/// [`Context::roots`]): the questions, their answers, and why an answer did not come.
pub mod asking {
    pub use crate::context::asking::{AskError, Elicitation, Root, SampledMessage, SamplingMessage, SamplingRequest};
}

/// Streamable HTTP: how the endpoint serves ([`HttpOptions`](http::HttpOptions)), its limits, its authorization ([`Authorization`](http::Authorization); the JWT and
/// introspection verifiers with feature `oauth`), and the two stores instances behind a load
/// balancer share (sessions, and the events of resumable streams).
#[cfg(feature = "http")]
#[cfg_attr(docsrs, doc(cfg(feature = "http")))]
pub mod http {
    pub use crate::transport::http::{
        Allowed, DEFAULT_BODY_TIMEOUT, DEFAULT_HEAD_TIMEOUT, DEFAULT_IDLE_TIMEOUT, DEFAULT_KEEP_ALIVE_TIMEOUT,
        DEFAULT_MAX_EVENT_BYTES, DEFAULT_MAX_LISTEN_STREAMS, DEFAULT_MAX_REQUESTS, DEFAULT_MAX_SESSIONS, EventStore,
        HttpOptions, MemoryEventStore, MemorySessionStore, RESERVED_FILES, ResponseMode, SessionRecord, SessionStore,
        StoredEvents,
    };

    #[cfg(feature = "oauth")]
    #[cfg_attr(docsrs, doc(cfg(feature = "oauth")))]
    pub use crate::auth::introspection::DEFAULT_INTROSPECTION_CACHE;
    #[cfg(feature = "oauth")]
    #[cfg_attr(docsrs, doc(cfg(feature = "oauth")))]
    pub use crate::auth::jwt::{DEFAULT_LEEWAY, DEFAULT_REFETCH_INTERVAL, DEFAULT_VERIFIED_CACHE};
    pub use crate::auth::{Authorization, Reject};
    #[cfg(feature = "oauth")]
    #[cfg_attr(docsrs, doc(cfg(feature = "oauth")))]
    pub use crate::auth::{IntrospectionVerifier, JwtVerifier};
}

/// The change bus between servers ([`Server::change_bus`]): resource updates, list changes,
/// and items enabled, disabled or removed through a [`ServerHandle`], heard by every server
/// sharing it.
pub mod changes {
    pub use crate::server::changes::{ChangeBus, ChangeEvent, ChangeNotice, ChangeSink, ItemChange, MemoryChangeBus};
}

#[cfg(feature = "macros")]
#[cfg_attr(docsrs, doc(cfg(feature = "macros")))]
#[doc = include_str!("docs/mcp_tool.md")]
pub use mcp_runtime_macros::mcp_tool;

#[cfg(feature = "macros")]
#[cfg_attr(docsrs, doc(cfg(feature = "macros")))]
#[doc = include_str!("docs/mcp_resource.md")]
pub use mcp_runtime_macros::mcp_resource;

#[cfg(feature = "macros")]
#[cfg_attr(docsrs, doc(cfg(feature = "macros")))]
#[doc = include_str!("docs/mcp_prompt.md")]
pub use mcp_runtime_macros::mcp_prompt;

#[cfg(feature = "macros")]
#[cfg_attr(docsrs, doc(cfg(feature = "macros")))]
#[doc = include_str!("docs/mcp_server.md")]
pub use mcp_runtime_macros::mcp_server;

#[cfg(all(feature = "macros", feature = "skills"))]
#[cfg_attr(docsrs, doc(cfg(all(feature = "macros", feature = "skills"))))]
#[doc = include_str!("docs/embed_skills.md")]
pub use mcp_runtime_macros::embed_skills;

pub mod diagnostics;

/// The items most servers need: `use mcp_runtime::prelude::*;`.
pub mod prelude {
    pub use crate::asking::{AskError, Elicitation};
    pub use crate::protocol::{CallToolResult, Content, LogLevel, PromptMessage, Resource, ResourceContents};
    pub use crate::{
        Bounded, Context, IntoToolResult, Json, PromptDescriptor, ReadError, ResourceDescriptor, ResourceNotFound,
        Server, State, Structured, ToolDescriptor, starting_with,
    };
    #[cfg(feature = "macros")]
    #[cfg_attr(docsrs, doc(cfg(feature = "macros")))]
    pub use crate::{mcp_prompt, mcp_resource, mcp_server, mcp_tool};
}
