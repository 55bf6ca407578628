//! What a handler knows about the request it serves.

use std::sync::Arc;

use serde_json::{Map, Value};

use crate::protocol::{Implementation, RequestId, Revision};

/// What was agreed with the client, whatever the era: through `initialize` (handshake
/// revisions) or from the request's own `_meta` (2026-07-28). Handlers see this one view.
#[derive(Debug, Clone)]
pub struct Negotiated {
    /// The revision in use.
    pub revision: Revision,
    /// What the client declared it can do.
    pub client_capabilities: Map<String, Value>,
    /// Who the client said it is.
    pub client_info: Option<Implementation>,
}

/// The context of one request, available to tools that take a `Context` parameter.
///
/// Cloning is cheap.
///
/// ```
/// use mcp_runtime::Context;
/// fn describe(ctx: &Context) -> String {
///     format!("served under {}", ctx.revision())
/// }
/// ```
#[derive(Debug, Clone)]
pub struct Context {
    inner: Arc<RequestInfo>,
}

#[derive(Debug)]
struct RequestInfo {
    negotiated: Arc<Negotiated>,
    request_id: RequestId,
}

impl Context {
    pub(crate) fn new(negotiated: Arc<Negotiated>, request_id: RequestId) -> Self {
        Context { inner: Arc::new(RequestInfo { negotiated, request_id }) }
    }

    /// The protocol revision this request is served under.
    pub fn revision(&self) -> Revision {
        self.inner.negotiated.revision
    }

    /// The id of the request being served.
    pub fn request_id(&self) -> &RequestId {
        &self.inner.request_id
    }

    /// Who the client said it is, if it said.
    pub fn client_info(&self) -> Option<&Implementation> {
        self.inner.negotiated.client_info.as_ref()
    }

    /// The client's declared capabilities.
    pub fn client_capabilities(&self) -> &Map<String, Value> {
        &self.inner.negotiated.client_capabilities
    }

    /// Whether the client declared the capability `name` (e.g. `"elicitation"`).
    pub fn client_supports(&self, name: &str) -> bool {
        self.inner.negotiated.client_capabilities.contains_key(name)
    }
}
