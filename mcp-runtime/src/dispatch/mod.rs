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

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};
use tracing::Instrument;

use crate::cache::{CachePolicy, Cached};
use crate::context::Negotiated;
use crate::protocol::{
    ErrorObject, Feature, Implementation, Request, RequestId, Revision, code, error_line, success_line, to_raw,
};
use crate::server::ServerCore;
use crate::tool::BoxFuture;

mod prompts;
mod resources;
mod tools;

/// What handling one message produced.
pub(crate) enum Outcome {
    /// Nothing to send (a notification, a response).
    Silent,
    /// A response line, ready now.
    Reply(String),
    /// A response line once this future completes (`None`: nothing to send), for the request
    /// with this id (`None` for a batch).
    Deferred(Option<RequestId>, BoxFuture<'static, Option<String>>),
}

impl std::fmt::Debug for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Outcome::Silent => f.write_str("Silent"),
            Outcome::Reply(line) => f.debug_tuple("Reply").field(line).finish(),
            Outcome::Deferred(id, _) => f.debug_tuple("Deferred").field(id).finish(),
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
        Outcome::Deferred(
            None,
            Box::pin(async move {
                let mut pending = Vec::with_capacity(outcomes.len());
                for outcome in outcomes {
                    match outcome {
                        Outcome::Silent => {}
                        Outcome::Reply(line) => pending.push(Pending::Ready(line)),
                        Outcome::Deferred(_, future) => pending.push(Pending::Running(tokio::spawn(future))),
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
            }),
        )
    }
}

enum Pending {
    Ready(String),
    Running(tokio::task::JoinHandle<Option<String>>),
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

/// The view a request carrying 2026-07-28 `_meta` is served under, read from that request
/// alone; `Err` is the error to answer with.
pub(crate) fn stateless_view(request: &Request<'_>) -> Result<Arc<Negotiated>, ErrorObject> {
    let params: StatelessParams = match request.params.map(|p| serde_json::from_str(p.get())) {
        Some(Ok(params)) => params,
        Some(Err(e)) => return Err(ErrorObject::invalid_params(format!("Invalid `params._meta`: {e}"))),
        None => return Err(ErrorObject::invalid_params("Missing `params._meta`")),
    };
    let meta = params.meta;
    let Some(requested) = meta.protocol_version.as_str() else {
        return Err(ErrorObject::invalid_params(
            "`_meta.io.modelcontextprotocol/protocolVersion` must be a string such as \"2026-07-28\"",
        ));
    };
    let revision = match Revision::parse(requested) {
        Some(rev) if rev.supports(Feature::Stateless) => rev,
        _ => {
            let supported: Vec<&str> =
                Revision::ALL.iter().filter(|r| r.supports(Feature::Stateless)).map(|r| r.as_str()).collect();
            return Err(ErrorObject::new(
                code::UNSUPPORTED_PROTOCOL_VERSION,
                format!("Unsupported protocol version `{requested}`: use one of {}", supported.join(", ")),
            )
            .with_data(json!({ "supported": supported, "requested": requested })));
        }
    };
    let client_capabilities = match meta.client_capabilities {
        Some(Value::Object(caps)) => caps,
        Some(_) => {
            return Err(ErrorObject::invalid_params(
                "`_meta.io.modelcontextprotocol/clientCapabilities` must be an object",
            ));
        }
        None => {
            return Err(ErrorObject::invalid_params(
                "Missing `_meta.io.modelcontextprotocol/clientCapabilities` (send `{}` when the client has none)",
            ));
        }
    };
    if HANDSHAKE_ONLY.contains(&request.method.as_ref()) {
        return Err(ErrorObject::new(
            code::METHOD_NOT_FOUND,
            format!("Method not found: `{}` does not exist in protocol revision {revision}", request.method),
        ));
    }
    Ok(Arc::new(Negotiated { revision, client_capabilities, client_info: meta.client_info }))
}

/// Routes a request whose revision is known, inside a `tracing` span naming its method, id and
/// revision (work that outlives the call runs in the same span).
pub(crate) fn route(core: &Arc<ServerCore>, negotiated: &Arc<Negotiated>, request: Request<'_>) -> Outcome {
    let span =
        tracing::debug_span!("request", method = %request.method, id = %request.id, revision = %negotiated.revision);
    match span.in_scope(|| route_in_span(core, negotiated, request)) {
        Outcome::Deferred(id, work) => Outcome::Deferred(id, Box::pin(work.instrument(span))),
        done => done,
    }
}

/// Routes a request: methods of a capability the server did not declare are not found.
fn route_in_span(core: &Arc<ServerCore>, negotiated: &Arc<Negotiated>, request: Request<'_>) -> Outcome {
    let revision = negotiated.revision;
    let declared = &core.capabilities;
    let (tools, resources, prompts) =
        (declared.tools.is_some(), declared.resources.is_some(), declared.prompts.is_some());
    // Declared before shaping for a revision: 2024-11-05 had the method without a capability.
    let completions = declared.completions.is_some();
    let id = &request.id;
    let result = match request.method.as_ref() {
        "server/discover" => return discover(core, id, revision),
        "tools/list" if tools => tools::list(core, id, revision, request.params),
        "tools/call" if tools => return tools::call(core, negotiated, request),
        "resources/list" if resources => return resources::list(core, negotiated, request),
        "resources/templates/list" if resources => resources::list_templates(core, id, revision, request.params),
        "resources/read" if resources => return resources::read(core, negotiated, request),
        "prompts/list" if prompts => prompts::list(core, id, revision, request.params),
        "prompts/get" if prompts => return prompts::get(core, negotiated, request),
        "completion/complete" if completions => prompts::complete(core, id, revision, request.params),
        method => Err(ErrorObject::method_not_found(method)),
    };
    match result {
        Ok(line) => Outcome::Reply(line),
        Err(e) => reply_error(id, e),
    }
}

#[derive(Deserialize, Default)]
struct ListParams {
    #[serde(default)]
    cursor: Option<String>,
}

/// The `cursor` of a list request.
pub(super) fn list_cursor(params: Option<&RawValue>) -> Result<Option<String>, ErrorObject> {
    parse_params::<ListParams>(params).map(|p| p.cursor)
}

/// One page of a list result: `field` holds the page's items, `nextCursor` the next page's
/// cursor; 2026-07-28 results carry the list's caching fields.
pub(super) fn page_result<T: Serialize>(
    core: &ServerCore,
    id: &RequestId,
    revision: Revision,
    (field, items): (&str, Vec<T>),
    next: Option<String>,
    cached: Cached,
) -> String {
    let mut result = Map::new();
    result.insert(field.into(), serde_json::to_value(items).unwrap_or(Value::Null));
    if let Some(next) = next {
        result.insert("nextCursor".into(), Value::String(next));
    }
    respond(core, id, revision, Some(core.config.cache.get(cached)), &result)
}

/// Parses a request's params into `T` (absent params read as `T::default()`).
fn parse_params<'a, T: Deserialize<'a> + Default>(params: Option<&'a RawValue>) -> Result<T, ErrorObject> {
    match params {
        None => Ok(T::default()),
        Some(raw) => {
            serde_json::from_str(raw.get()).map_err(|e| ErrorObject::invalid_params(format!("Invalid params: {e}")))
        }
    }
}

/// Parses a request's required params into `T`; `method` names the request in errors.
pub(super) fn required_params<'a, T: Deserialize<'a>>(
    params: Option<&'a RawValue>,
    method: &str,
) -> Result<T, ErrorObject> {
    let raw = params.ok_or_else(|| ErrorObject::invalid_params(format!("`{method}` needs params")))?;
    serde_json::from_str(raw.get()).map_err(|e| ErrorObject::invalid_params(format!("Invalid `{method}` params: {e}")))
}

/// The `server/discover` result (a 2026-07-28 result, whichever era asks).
pub(crate) fn discover(core: &ServerCore, id: &RequestId, revision: Revision) -> Outcome {
    let mut result = Map::new();
    result
        .insert("supportedVersions".into(), Value::from(Revision::ALL.iter().map(|r| r.as_str()).collect::<Vec<_>>()));
    result.insert("capabilities".into(), to_value(&core.capabilities.for_revision(revision)));
    if let Some(instructions) = &core.instructions {
        result.insert("instructions".into(), Value::from(instructions.as_str()));
    }
    Outcome::Reply(respond(core, id, revision, Some(core.config.cache.get(Cached::Discover)), &result))
}

/// Finishes a result for its revision (2026-07-28: `resultType`, `serverInfo`, and the
/// caching fields of cacheable results) and writes the response line.
pub(super) fn respond<T: Serialize + ?Sized>(
    core: &ServerCore,
    id: &RequestId,
    revision: Revision,
    cache: Option<CachePolicy>,
    result: &T,
) -> String {
    if !revision.supports(Feature::Stateless) {
        return match to_raw(result) {
            Ok(raw) => success_line(id, raw.get()),
            Err(e) => error_line(Some(id), &e),
        };
    }
    let mut result = match serde_json::to_value(result) {
        Ok(Value::Object(map)) => map,
        _ => return error_line(Some(id), &ErrorObject::internal("Internal error: the result could not be serialized")),
    };
    result.insert("resultType".into(), Value::from("complete"));
    if let Some(cache) = cache {
        result.insert("ttlMs".into(), Value::from(cache.ttl_ms()));
        result.insert("cacheScope".into(), Value::from(cache.scope().as_str()));
    }
    let meta = result.entry("_meta").or_insert_with(|| Value::Object(Map::new()));
    if let Value::Object(meta) = meta {
        meta.insert("io.modelcontextprotocol/serverInfo".into(), to_value(&core.info.for_revision(revision)));
    }
    success_line(id, &Value::Object(result).to_string())
}

fn to_value<T: Serialize + ?Sized>(value: &T) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

pub(super) fn reply_error(id: &RequestId, error: ErrorObject) -> Outcome {
    Outcome::Reply(error_line(Some(id), &error))
}

/// Runs a handler's future; a panic while creating or polling it becomes `Err` with its
/// message, so one failing handler answers its own request and harms nothing else.
pub(super) async fn guarded<T>(start: impl FnOnce() -> BoxFuture<'static, T>) -> Result<T, String> {
    let result = match std::panic::catch_unwind(AssertUnwindSafe(start)) {
        Ok(future) => CatchUnwind(future).await,
        Err(panic) => Err(panic),
    };
    result.map_err(|panic| {
        panic
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "(no message)".to_owned())
    })
}

/// Polls a boxed future inside `catch_unwind`.
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
