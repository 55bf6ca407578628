//! How a client answers the server's questions: the handlers an application gives for
//! elicitation, sampling and roots (and any other method, raw), and the capabilities they
//! imply. The same handlers answer both eras: a request the server sends (handshake
//! revisions) and the `inputRequests` of an input-required result (2026-07-28).

use std::collections::HashMap;
use std::future::Future;
use std::sync::Arc;

use serde_json::{Map, Value, json};

use crate::protocol::{ErrorObject, Feature, Revision};
use crate::util::BoxFuture;

/// What a handler returns: the result to send, or the error to answer with.
pub type Answer = BoxFuture<'static, Result<Value, ErrorObject>>;

/// One handler: given the question's params, the answer.
pub(crate) type Handler = Arc<dyn Fn(Value) -> Answer + Send + Sync>;

/// Wraps an async function of the params into a [`Handler`].
pub(crate) fn handler<F, Fut>(f: F) -> Handler
where
    F: Fn(Value) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Value, ErrorObject>> + Send + 'static,
{
    Arc::new(move |params| Box::pin(f(params)) as Answer)
}

/// The client's handlers, by the question they answer.
#[derive(Clone, Default)]
pub(crate) struct Handlers {
    pub(crate) elicitation: Option<Handler>,
    pub(crate) sampling: Option<Handler>,
    pub(crate) roots: Option<Handler>,
    /// Any other server request, by method (what a proxy forwards).
    pub(crate) others: HashMap<String, Handler>,
    /// Extensions the client declares, by identifier (the tasks extension, say).
    pub(crate) extensions: Map<String, Value>,
}

impl std::fmt::Debug for Handlers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Handlers")
            .field("elicitation", &self.elicitation.is_some())
            .field("sampling", &self.sampling.is_some())
            .field("roots", &self.roots.is_some())
            .field("others", &self.others.keys().collect::<Vec<_>>())
            .field("extensions", &self.extensions)
            .finish()
    }
}

impl Handlers {
    /// The capabilities the handlers imply, as `revision` spells them (a client that answers
    /// elicitation answers both modes where the revision has modes).
    pub(crate) fn capabilities(&self, revision: Revision) -> Value {
        let mut capabilities = Map::new();
        if self.elicitation.is_some() {
            let modes = revision.supports(Feature::ElicitationModes);
            capabilities.insert("elicitation".into(), if modes { json!({"form": {}, "url": {}}) } else { json!({}) });
        }
        if self.sampling.is_some() {
            capabilities.insert("sampling".into(), json!({}));
        }
        if self.roots.is_some() {
            let changes = revision.supports(Feature::Handshake);
            capabilities.insert("roots".into(), if changes { json!({"listChanged": true}) } else { json!({}) });
        }
        if !self.extensions.is_empty() && revision.supports(Feature::Extensions) {
            capabilities.insert("extensions".into(), Value::Object(self.extensions.clone()));
        }
        Value::Object(capabilities)
    }

    /// The handler for a question of `method`, if there is one.
    pub(crate) fn for_method(&self, method: &str) -> Option<&Handler> {
        match method {
            "elicitation/create" => self.elicitation.as_ref(),
            "sampling/createMessage" => self.sampling.as_ref(),
            "roots/list" => self.roots.as_ref(),
            other => self.others.get(other),
        }
    }

    /// Whether any handler answers the server's questions.
    pub(crate) fn any(&self) -> bool {
        self.elicitation.is_some() || self.sampling.is_some() || self.roots.is_some() || !self.others.is_empty()
    }
}

/// The defaults an elicitation's `requestedSchema` gives its fields, by field: what a form
/// shows before the user types, and what an accepting answer without the user's input
/// carries.
///
/// ```
/// use mcp_runtime::client::schema_defaults;
/// let schema = serde_json::json!({"type": "object", "properties": {
///     "name": {"type": "string", "default": "Ada"}, "age": {"type": "integer"}}});
/// assert_eq!(serde_json::Value::Object(schema_defaults(&schema)), serde_json::json!({"name": "Ada"}));
/// ```
pub fn schema_defaults(requested_schema: &Value) -> Map<String, Value> {
    let Some(properties) = requested_schema.get("properties").and_then(Value::as_object) else {
        return Map::new();
    };
    properties
        .iter()
        .filter_map(|(name, field)| field.get("default").map(|default| (name.clone(), default.clone())))
        .collect()
}
