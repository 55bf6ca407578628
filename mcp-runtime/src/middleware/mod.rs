//! Middleware: tower layers around every request the server answers.
//!
//! [`Server::layer`](crate::Server::layer) wraps the server's methods in a [`Layer`] over
//! [`McpService`], a tower [`Service`] of [`McpRequest`]s answering [`McpResponse`]s. Layers
//! see every request for a method the server serves, in both eras and on every transport, in
//! the order they were added; one may answer without calling inward (a refusal, which can say
//! what HTTP answers with: 429 and `Retry-After`, 403 and `WWW-Authenticate`), change the
//! params or the result, or time the call. Tower's own layers (`tower::limit`,
//! `tower::timeout`, …) compose with them.
//!
//! Without a layer, requests go straight to their methods: the seam costs nothing.
//!
//! Built in: [`RateLimit`] (a token bucket per caller), [`ConcurrencyLimit`] (requests in
//! flight per caller) and [`Audit`] (one `tracing` event per request). [`from_fn`] turns an
//! async function into a layer:
//!
//! ```
//! use mcp_runtime::Server;
//! use mcp_runtime::middleware::{McpResponse, Target, from_fn};
//! use mcp_runtime::protocol::ErrorObject;
//!
//! let server = Server::builder("gifts", "1.0.0").layer(from_fn(|request, next| async move {
//!     if request.target() == Some(Target::Tool("delete_everything")) && request.identity().is_none() {
//!         return Ok(McpResponse::error(ErrorObject::new(-31403, "Sign in first")).with_http_status(403));
//!     }
//!     next.run(request).await
//! }));
//! # let _ = server;
//! ```

mod audit;
mod caller_limits;
mod from_fn;
mod request;
mod response;
mod service;
#[cfg(feature = "telemetry")]
pub(crate) mod telemetry;
mod visibility;

pub use audit::{Audit, Audited};
pub use caller_limits::{ConcurrencyLimit, ConcurrencyLimited, RateLimit, RateLimited};
pub use from_fn::{FromFn, FromFnLayer, MiddlewareAnswer, Next, from_fn};
pub use request::{Caller, McpRequest, Target, Transport};
pub(crate) use request::{Inward, Proceed};
pub use response::McpResponse;
pub(crate) use service::Layers;
pub use service::{BoxError, McpLayer, McpService};
pub use tower_layer::{Layer, layer_fn};
pub use tower_service::Service;
pub use visibility::Item;
pub(crate) use visibility::Visibility;
