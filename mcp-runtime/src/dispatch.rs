//! Routing a request to its handler, and shaping the result for the revision in use.
//!
//! Handshake-era requests arrive with the connection's [`Negotiated`] view; 2026-07-28
//! requests build theirs from their own `_meta`. From there both take the same path, so
//! tools, resources and prompts are written once.

use std::any::Any;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context as TaskContext, Poll};

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};

use crate::context::{Context, Negotiated};
use crate::protocol::{
    CallToolResult, ErrorObject, Feature, Implementation, Request, RequestId, Revision, Shape, code, error_line,
    shape_of, success_line,
};
use crate::server::ServerCore;
use crate::tool::{BoxFuture, ToolCall};

/// What handling one message produced.
pub(crate) enum Outcome {
    /// Nothing to send (a notification, a response).
    Silent,
    /// A response line, ready now.
    Reply(String),
    /// A response line once this future completes (`None`: nothing to send).
    Deferred(BoxFuture<'static, Option<String>>),
}

impl std::fmt::Debug for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Outcome::Silent => f.write_str("Silent"),
            Outcome::Reply(line) => f.debug_tuple("Reply").field(line).finish(),
            Outcome::Deferred(_) => f.write_str("Deferred"),
        }
    }
}

impl Outcome {
    /// The answer to a batch: an array of the members' responses, sent once all are ready;
    /// nothing at all when every member was a notification.
    pub(crate) fn batch(outcomes: Vec<Outcome>) -> Outcome {
        if outcomes.iter().all(|o| matches!(o, Outcome::Silent)) {
            return Outcome::Silent;
        }
        Outcome::Deferred(Box::pin(async move {
            let mut pending = Vec::with_capacity(outcomes.len());
            for outcome in outcomes {
                match outcome {
                    Outcome::Silent => {}
                    Outcome::Reply(line) => pending.push(Pending::Ready(line)),
                    Outcome::Deferred(future) => pending.push(Pending::Running(tokio::spawn(future))),
                }
            }
            let mut lines = Vec::with_capacity(pending.len());
            for item in pending {
                match item {
                    Pending::Ready(line) => lines.push(line),
                    Pending::Running(handle) => match handle.await {
                        Ok(Some(line)) => lines.push(line),
                        Ok(None) => {}
                        Err(e) => tracing::error!(error = %e, "a batch member failed"),
                    },
                }
            }
            (!lines.is_empty()).then(|| format!("[{}]", lines.join(",")))
        }))
    }
}

enum Pending {
    Ready(String),
    Running(tokio::task::JoinHandle<Option<String>>),
}

/// A request of a connection that completed the handshake.
pub(crate) fn request(core: &Arc<ServerCore>, negotiated: &Arc<Negotiated>, request: Request<'_>) -> Outcome {
    route(core, negotiated, request)
}

/// The `_meta` fields of a 2026-07-28 request.
#[derive(Deserialize)]
struct StatelessParams {
    #[serde(rename = "_meta")]
    meta: StatelessMeta,
}

#[derive(Deserialize)]
struct StatelessMeta {
    #[serde(rename = "io.modelcontextprotocol/protocolVersion")]
    protocol_version: Value,
    #[serde(rename = "io.modelcontextprotocol/clientCapabilities", default)]
    client_capabilities: Option<Value>,
    #[serde(rename = "io.modelcontextprotocol/clientInfo", default)]
    client_info: Option<Implementation>,
}

/// Methods that exist only in the handshake era: a 2026-07-28 request for them is not found.
const HANDSHAKE_ONLY: [&str; 5] =
    ["initialize", "ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe"];

/// A request carrying 2026-07-28 `_meta`: served from that request alone.
pub(crate) fn stateless(core: &Arc<ServerCore>, request: Request<'_>) -> Outcome {
    let id = &request.id;
    let params: StatelessParams = match request.params.map(|p| serde_json::from_str(p.get())) {
        Some(Ok(params)) => params,
        Some(Err(e)) => {
            return reply_error(id, ErrorObject::invalid_params(format!("Invalid `params._meta`: {e}")));
        }
        None => return reply_error(id, ErrorObject::invalid_params("Missing `params._meta`")),
    };
    let meta = params.meta;
    let requested = meta.protocol_version.as_str().unwrap_or_default();
    let revision = match Revision::parse(requested) {
        Some(rev) if rev.supports(Feature::Stateless) => rev,
        _ => {
            let supported: Vec<&str> =
                Revision::ALL.iter().filter(|r| r.supports(Feature::Stateless)).map(|r| r.as_str()).collect();
            return reply_error(
                id,
                ErrorObject::new(
                    code::UNSUPPORTED_PROTOCOL_VERSION,
                    format!(
                        "Unsupported protocol version {}: use one of {}",
                        meta.protocol_version,
                        supported.join(", ")
                    ),
                )
                .with_data(json!({ "supported": supported, "requested": meta.protocol_version })),
            );
        }
    };
    let client_capabilities = match meta.client_capabilities {
        Some(Value::Object(caps)) => caps,
        Some(_) => {
            return reply_error(
                id,
                ErrorObject::invalid_params("`_meta.io.modelcontextprotocol/clientCapabilities` must be an object"),
            );
        }
        None => {
            return reply_error(
                id,
                ErrorObject::invalid_params(
                    "Missing `_meta.io.modelcontextprotocol/clientCapabilities` (send `{}` when the client has none)",
                ),
            );
        }
    };
    if HANDSHAKE_ONLY.contains(&request.method.as_ref()) {
        return reply_error(
            id,
            ErrorObject::new(
                code::METHOD_NOT_FOUND,
                format!("Method not found: `{}` does not exist in protocol revision {revision}", request.method),
            ),
        );
    }
    let negotiated = Arc::new(Negotiated { revision, client_capabilities, client_info: meta.client_info });
    route(core, &negotiated, request)
}

/// Routes a request whose revision is known.
fn route(core: &Arc<ServerCore>, negotiated: &Arc<Negotiated>, request: Request<'_>) -> Outcome {
    let revision = negotiated.revision;
    let id = &request.id;
    match request.method.as_ref() {
        "server/discover" if revision.supports(Feature::Stateless) => discover(core, id, revision),
        "tools/list" if core.registry.has_tools() => list_tools(core, id, revision, request.params),
        "tools/call" if core.registry.has_tools() => call_tool(core, negotiated, request),
        method => reply_error(id, ErrorObject::method_not_found(method)),
    }
}

#[derive(Deserialize, Default)]
struct ListParams {
    #[serde(default)]
    cursor: Option<String>,
}

fn parse_params<'a, T: Deserialize<'a> + Default>(params: Option<&'a RawValue>) -> Result<T, ErrorObject> {
    match params {
        None => Ok(T::default()),
        Some(raw) => {
            serde_json::from_str(raw.get()).map_err(|e| ErrorObject::invalid_params(format!("Invalid params: {e}")))
        }
    }
}

fn discover(core: &ServerCore, id: &RequestId, revision: Revision) -> Outcome {
    let mut result = Map::new();
    result
        .insert("supportedVersions".into(), Value::from(Revision::ALL.iter().map(|r| r.as_str()).collect::<Vec<_>>()));
    result.insert("capabilities".into(), to_value(&core.capabilities.for_revision(revision)));
    if let Some(instructions) = &core.instructions {
        result.insert("instructions".into(), Value::from(instructions.as_str()));
    }
    respond(core, id, revision, ResultKind::Cached, result)
}

fn list_tools(core: &ServerCore, id: &RequestId, revision: Revision, params: Option<&RawValue>) -> Outcome {
    let params: ListParams = match parse_params(params) {
        Ok(p) => p,
        Err(e) => return reply_error(id, e),
    };
    let (page, next) = match core.registry.tools_page(params.cursor.as_deref(), core.config.page_size) {
        Ok(page) => page,
        Err(e) => return reply_error(id, e),
    };
    let mut result = Map::new();
    result.insert("tools".into(), Value::Array(page.iter().map(|t| to_value(&t.listing(revision))).collect()));
    if let Some(next) = next {
        result.insert("nextCursor".into(), Value::String(next));
    }
    respond(core, id, revision, ResultKind::Cached, result)
}

#[derive(Deserialize)]
struct CallToolParams<'a> {
    name: String,
    #[serde(borrow, default)]
    arguments: Option<&'a RawValue>,
}

fn call_tool(core: &Arc<ServerCore>, negotiated: &Arc<Negotiated>, request: Request<'_>) -> Outcome {
    let id = request.id;
    let revision = negotiated.revision;
    let params: CallToolParams<'_> = match request.params.map(|p| serde_json::from_str(p.get())) {
        Some(Ok(params)) => params,
        Some(Err(e)) => {
            return reply_error(&id, ErrorObject::invalid_params(format!("Invalid `tools/call` params: {e}")));
        }
        None => {
            return reply_error(&id, ErrorObject::invalid_params("`tools/call` needs params with the tool's `name`"));
        }
    };
    let Some(entry) = core.registry.tool(&params.name) else {
        return reply_error(&id, ErrorObject::invalid_params(format!("Unknown tool `{}`", params.name)));
    };
    let arguments = match params.arguments {
        Some(raw) if raw.get() == "null" => None,
        Some(raw) if shape_of(raw.get()) != Shape::Object => {
            return reply_error(&id, ErrorObject::invalid_params("`arguments` must be an object"));
        }
        Some(raw) => Some(raw.to_owned()),
        None => None,
    };
    let call = ToolCall {
        name: Arc::clone(&entry.name),
        arguments,
        context: Context::new(Arc::clone(negotiated), id.clone()),
    };
    let handler = Arc::clone(&entry.handler);
    let wrap_output = entry.wrap_output;
    let name = Arc::clone(&entry.name);
    let core = Arc::clone(core);
    Outcome::Deferred(Box::pin(async move {
        let result = match std::panic::catch_unwind(AssertUnwindSafe(|| handler(call))) {
            Ok(future) => CatchUnwind(future).await,
            Err(panic) => Err(panic),
        };
        let result = result.unwrap_or_else(|panic| {
            tracing::error!(tool = %name, panic = panic_message(&panic), "tool panicked");
            CallToolResult::error(format!("Tool `{name}` failed unexpectedly; the server logged the details"))
        });
        let result = result.for_revision(revision, wrap_output);
        let map = match serde_json::to_value(&result) {
            Ok(Value::Object(map)) => map,
            _ => {
                return Some(error_line(
                    Some(&id),
                    &ErrorObject::internal("Internal error: the tool result could not be serialized"),
                ));
            }
        };
        match respond(&core, &id, revision, ResultKind::Plain, map) {
            Outcome::Reply(line) => Some(line),
            _ => None,
        }
    }))
}

/// Whether a result kind carries 2026-07-28 caching fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ResultKind {
    Plain,
    Cached,
}

/// How long 2026-07-28 clients may cache list and discovery results.
const DEFAULT_TTL_MS: u64 = 60_000;

/// Finishes a result for its revision (2026-07-28: `resultType`, `serverInfo`, caching
/// fields) and writes the response line.
fn respond(
    core: &ServerCore,
    id: &RequestId,
    revision: Revision,
    kind: ResultKind,
    mut result: Map<String, Value>,
) -> Outcome {
    if revision.supports(Feature::Stateless) {
        result.insert("resultType".into(), Value::from("complete"));
        if kind == ResultKind::Cached {
            result.insert("ttlMs".into(), Value::from(DEFAULT_TTL_MS));
            result.insert("cacheScope".into(), Value::from("public"));
        }
        let meta = result.entry("_meta").or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(meta) = meta {
            meta.insert("io.modelcontextprotocol/serverInfo".into(), to_value(&core.info.for_revision(revision)));
        }
    }
    Outcome::Reply(success_line(id, &Value::Object(result).to_string()))
}

fn to_value<T: serde::Serialize>(value: &T) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

fn reply_error(id: &RequestId, error: ErrorObject) -> Outcome {
    Outcome::Reply(error_line(Some(id), &error))
}

fn panic_message(panic: &Box<dyn Any + Send>) -> &str {
    panic
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| panic.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("(no message)")
}

/// Runs a boxed future, turning a panic while polling it into an `Err`: one failing handler
/// answers its own request with an error and harms nothing else.
struct CatchUnwind<T>(BoxFuture<'static, T>);

impl<T> Future for CatchUnwind<T> {
    type Output = Result<T, Box<dyn Any + Send>>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<Self::Output> {
        let future = self.0.as_mut();
        match std::panic::catch_unwind(AssertUnwindSafe(|| future.poll(cx))) {
            Ok(Poll::Pending) => Poll::Pending,
            Ok(Poll::Ready(value)) => Poll::Ready(Ok(value)),
            Err(panic) => Poll::Ready(Err(panic)),
        }
    }
}
