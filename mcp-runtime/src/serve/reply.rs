//! An answer on its way out: where it goes ([`ReplyTo`]), what the loop queues ([`Reply`]), and
//! how a result is written for the revision in use, serialized once, straight into its line.

use serde::Serialize;
use serde_json::{Map, Value};
use tokio::sync::{OwnedSemaphorePermit, mpsc};

use crate::context::outlet::{Outgoing, Outlet, RequestStream};
use crate::protocol::{CachePolicy, CallToolResult, Feature, RequestId, Revision, response_line};
use crate::server::core::ServerCore;

/// Where a request's response goes.
#[derive(Debug, Clone)]
pub(crate) enum ReplyTo {
    /// The connection's output queue.
    Connection,
    /// A stream of the request's own (an HTTP response): its notifications, the server's
    /// questions about it, then its response.
    Stream(RequestStream),
    /// A batch's buffer, which sends the batch's answer once every member has delivered.
    Batch(mpsc::UnboundedSender<Vec<u8>>),
    /// Back to the caller, which runs the request in its own task and awaits its answer
    /// ([`Runner::Here`](crate::serve::executor::Runner::Here)).
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    Caller,
}

/// The way out: every response goes where its `ReplyTo` says through one of these two, at
/// once ([`now`](Self::now)) or from a task ([`deliver`](Self::deliver)).
impl ReplyTo {
    /// Sends a response ready where the request was read: for the connection's loop to queue
    /// (with `slot`, the request's in-flight slot, held until it is queued), or into its
    /// batch's buffer (the slot freed). A caller running the request here gets it back.
    pub(crate) fn now(self, message: Outgoing, slot: Option<OwnedSemaphorePermit>) -> Started {
        match self {
            ReplyTo::Connection | ReplyTo::Caller => Started::Answered(Reply { message, stream: None, _slot: slot }),
            ReplyTo::Stream(stream) => Started::Answered(Reply { message, stream: Some(stream), _slot: slot }),
            ReplyTo::Batch(batch) => {
                let _ = batch.send(message.line);
                Started::Later
            }
        }
    }

    /// Sends a response from a task, waiting while the connection's output `out` (or the
    /// request's stream) is full: the client is not reading.
    pub(crate) async fn deliver(self, out: &mpsc::Sender<Vec<u8>>, message: Outgoing) {
        match self {
            // The queue is closed only when the output is gone: nothing is left to tell.
            ReplyTo::Connection => {
                let _ = out.send(message.line).await;
            }
            ReplyTo::Stream(stream) => {
                let _ = stream.send(message).await;
            }
            ReplyTo::Batch(batch) => {
                let _ = batch.send(message.line);
            }
            // Its caller awaits the work that produced it: no task delivers it.
            ReplyTo::Caller => tracing::error!("a request answered to its caller was delivered by a task"),
        }
    }

    /// Where what the request sends before its answer goes: its own stream, or else the
    /// connection's output (`connection`), batch members included.
    pub(crate) fn outlet(&self, connection: &mpsc::Sender<Vec<u8>>) -> Outlet {
        match self {
            ReplyTo::Stream(stream) => Outlet::Request(stream.clone()),
            ReplyTo::Connection | ReplyTo::Batch(_) => Outlet::Connection(connection.clone()),
            ReplyTo::Caller => Outlet::Nowhere,
        }
    }
}

/// A response ready on the reading loop, with the slot it holds until it is queued.
#[derive(Debug)]
pub(crate) struct Reply {
    pub(crate) message: Outgoing,
    /// The request's own stream; `None`: the connection's output.
    pub(crate) stream: Option<RequestStream>,
    /// Its in-flight slot, held until the reply is queued.
    pub(crate) _slot: Option<OwnedSemaphorePermit>,
}

impl Reply {
    /// A response that held no slot (lifecycle and inline methods, errors).
    pub(crate) fn now(message: Outgoing) -> Self {
        Reply { message, stream: None, _slot: None }
    }
}

/// What handing a request over produced.
#[must_use]
pub(crate) enum Started {
    /// Its answer, ready now: for the loop to queue.
    Answered(Reply),
    /// Nothing to queue now: it runs, waits for a slot, or answered into its batch's buffer.
    Later,
    /// Its work, for the caller to await in its own task ([`Runner::Here`]): its answer,
    /// `None` when it has none to give. Dropping it cancels the request.
    ///
    /// [`Runner::Here`]: crate::serve::executor::Runner::Here
    Here(crate::util::BoxFuture<'static, Option<Outgoing>>),
}

impl std::fmt::Debug for Started {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Started::Answered(reply) => f.debug_tuple("Answered").field(reply).finish(),
            Started::Later => f.write_str("Later"),
            Started::Here(_) => f.write_str("Here"),
        }
    }
}

impl Started {
    /// The answer to queue now, if any.
    pub(crate) fn into_reply(self) -> Option<Reply> {
        match self {
            Started::Answered(reply) => Some(reply),
            Started::Later => None,
            // Only work started `Runner::Here` comes back as a future, and a connection's loop
            // starts its requests on its executor.
            Started::Here(_) => {
                tracing::error!("a request's work came back to a connection's loop, which cannot await it");
                None
            }
        }
    }
}

/// A result type: serializable, and able to hand over its own `_meta` so that 2026-07-28
/// fields join it in one object instead of a second `_meta` key.
pub(crate) trait WireResult: Serialize {
    /// Takes the result's own `_meta` out before it is serialized.
    fn take_meta(&mut self) -> Option<Map<String, Value>> {
        None
    }

    /// Its `resultType` in 2026-07-28.
    fn result_type(&self) -> &'static str {
        "complete"
    }

    /// Whether it is a tool's result reporting a failure (`isError: true`).
    fn is_tool_error(&self) -> bool {
        false
    }
}

/// An input-required result (2026-07-28).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct InputRequired {
    #[serde(rename = "inputRequests")]
    pub(crate) requests: Map<String, Value>,
    pub(crate) request_state: String,
}

impl WireResult for InputRequired {
    fn result_type(&self) -> &'static str {
        "input_required"
    }
}

impl WireResult for CallToolResult {
    fn take_meta(&mut self) -> Option<Map<String, Value>> {
        self.meta.take()
    }

    fn is_tool_error(&self) -> bool {
        self.is_error
    }
}

impl WireResult for Map<String, Value> {
    fn take_meta(&mut self) -> Option<Map<String, Value>> {
        match self.remove("_meta") {
            Some(Value::Object(meta)) => Some(meta),
            _ => None,
        }
    }

    fn is_tool_error(&self) -> bool {
        self.get("isError") == Some(&Value::Bool(true))
    }
}

/// A task made for a tool call (`CreateTaskResult`, the tasks extension): its result type is
/// `task`, the only result that has it.
#[derive(Debug, Serialize)]
#[serde(transparent)]
pub(crate) struct TaskCreated(pub(crate) Map<String, Value>);

impl WireResult for TaskCreated {
    fn result_type(&self) -> &'static str {
        "task"
    }
}

macro_rules! plain_results {
    ($($ty:ty),* $(,)?) => { $(impl WireResult for $ty {})* };
}
plain_results!(
    // A result serialized before (a cached list page), written as it is.
    &serde_json::value::RawValue,
    crate::protocol::ReadResourceResult,
    crate::protocol::GetPromptResult,
    crate::protocol::InitializeResult,
    Empty,
);

/// The empty result (`ping`, `resources/subscribe`, …).
#[derive(Debug, Serialize)]
pub(crate) struct Empty {}

/// Writes a result's response line for its revision, serializing once, straight into the
/// line: 2026-07-28 adds `resultType`, the caching fields of cacheable results, and
/// `serverInfo` in `_meta`, written into the same object after the result's own fields.
pub(crate) fn result_line<T: WireResult>(
    core: &ServerCore,
    id: &RequestId,
    revision: Revision,
    cache: Option<CachePolicy>,
    mut result: T,
) -> Outgoing {
    let stateless = revision.supports(Feature::Stateless);
    let meta = if stateless { result.take_meta() } else { None };
    let result_type = result.result_type();
    let tool_error = result.is_tool_error();
    let written = response_line(id, 128, &mut |out| {
        serde_json::to_writer(&mut *out, &result)?;
        if stateless { add_stateless_members(out, core, revision, cache, result_type, meta.as_ref()) } else { Ok(()) }
    });
    match written {
        // Caching hints are written (and so said) in 2026-07-28 only.
        Ok(line) => {
            let mut line = Outgoing::success(line, cache.filter(|_| stateless));
            if let Some(answer) = line.answer.as_mut() {
                answer.tool_error = tool_error;
            }
            line
        }
        Err(error) => Outgoing::error(Some(id), &error),
    }
}

/// Reopens the result object just written to `out` and adds the 2026-07-28 members: its
/// `resultType`, its caching hints, and `_meta` with the server's identity beside the result's
/// own `meta`. Not generic, so it is compiled once whatever the result's type.
fn add_stateless_members(
    out: &mut Vec<u8>,
    core: &ServerCore,
    revision: Revision,
    cache: Option<CachePolicy>,
    result_type: &str,
    meta: Option<&Map<String, Value>>,
) -> Result<(), serde_json::Error> {
    if out.pop() != Some(b'}') {
        return Err(serde::ser::Error::custom("a 2026-07-28 result must be an object"));
    }
    if out.last() != Some(&b'{') {
        out.push(b',');
    }
    out.extend_from_slice(b"\"resultType\":");
    serde_json::to_writer(&mut *out, result_type)?;
    if let Some(cache) = cache {
        out.extend_from_slice(b",\"ttlMs\":");
        serde_json::to_writer(&mut *out, &cache.ttl_ms())?;
        out.extend_from_slice(b",\"cacheScope\":");
        serde_json::to_writer(&mut *out, cache.scope().as_str())?;
    }
    out.extend_from_slice(b",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":");
    if revision.supports(Feature::Titles) && revision.supports(Feature::Icons) {
        out.extend_from_slice(&core.info_json);
    } else {
        serde_json::to_writer(&mut *out, &core.info.for_revision(revision))?;
    }
    for (key, value) in meta.into_iter().flatten().filter(|(k, _)| *k != SERVER_INFO) {
        out.push(b',');
        serde_json::to_writer(&mut *out, key)?;
        out.push(b':');
        serde_json::to_writer(&mut *out, value)?;
    }
    out.extend_from_slice(b"}}");
    Ok(())
}

const SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";

/// One page of a list: `field` holds the items; serialized as `{field: [...], nextCursor}`.
pub(crate) struct Page<'a, T> {
    pub(crate) field: &'static str,
    pub(crate) items: &'a [T],
    pub(crate) next: Option<String>,
}

impl<T: Serialize> Serialize for Page<'_, T> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(1 + usize::from(self.next.is_some())))?;
        map.serialize_entry(self.field, self.items)?;
        if let Some(next) = &self.next {
            map.serialize_entry("nextCursor", next)?;
        }
        map.end()
    }
}

impl<T: Serialize> WireResult for Page<'_, T> {}
