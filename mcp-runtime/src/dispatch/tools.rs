//! `tools/list` and `tools/call`.

use std::sync::Arc;

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};

use super::{Outcome, guarded, list_cursor, page_result, reply_error, required_params, respond};
use crate::cache::Cached;
use crate::context::{Context, Negotiated};
use crate::protocol::{CallToolResult, ErrorObject, Feature, Request, RequestId, Revision, Shape, code, shape_of};
use crate::server::ServerCore;
use crate::tool::ToolCall;

pub(super) fn list(
    core: &ServerCore,
    id: &RequestId,
    revision: Revision,
    params: Option<&RawValue>,
) -> Result<String, ErrorObject> {
    let cursor = list_cursor(params)?;
    let registry = core.registry();
    let (page, next) = registry.tools.page(cursor.as_deref(), core.config.page_size)?;
    let tools = page.iter().map(|t| t.listing(revision)).collect();
    Ok(page_result(core, id, revision, ("tools", tools), next, Cached::ToolList))
}

#[derive(Deserialize)]
struct CallParams<'a> {
    name: String,
    #[serde(borrow, default)]
    arguments: Option<&'a RawValue>,
}

pub(super) fn call(core: &Arc<ServerCore>, negotiated: &Arc<Negotiated>, request: Request<'_>) -> Outcome {
    let id = request.id;
    let revision = negotiated.revision;
    let params: CallParams<'_> = match required_params(request.params, "tools/call") {
        Ok(params) => params,
        Err(e) => return reply_error(&id, e),
    };
    let registry = core.registry();
    let Some(entry) = registry.tools.get(&params.name) else {
        return reply_error(&id, ErrorObject::invalid_params(format!("Unknown tool `{}`", params.name)));
    };
    let missing: Vec<&str> = entry
        .required_client_capabilities
        .iter()
        .map(String::as_str)
        .filter(|name| !negotiated.client_capabilities.contains_key(*name))
        .collect();
    if !missing.is_empty() {
        let list = missing.iter().map(|m| format!("`{m}`")).collect::<Vec<_>>().join(", ");
        let message =
            format!("Tool `{}` needs the client capabilities {list}, which this client did not declare", entry.name);
        if revision.supports(Feature::Stateless) {
            let required: Map<String, Value> = missing.iter().map(|m| ((*m).to_owned(), json!({}))).collect();
            return reply_error(
                &id,
                ErrorObject::new(code::MISSING_REQUIRED_CLIENT_CAPABILITY, message)
                    .with_data(json!({ "requiredCapabilities": required })),
            );
        }
        // The handshake revisions have no error for this: the tool fails as a tool.
        let result = CallToolResult::error(message).for_revision(revision, false);
        return Outcome::Reply(respond(core, &id, revision, None, &result));
    }
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
    Outcome::Deferred(
        Some(id.clone()),
        Box::pin(async move {
            let result = guarded(|| handler(call)).await.unwrap_or_else(|panic| {
                tracing::error!(tool = %name, panic, "tool panicked");
                CallToolResult::error(format!("Tool `{name}` failed unexpectedly; the server logged the details"))
            });
            Some(respond(&core, &id, revision, None, &result.for_revision(revision, wrap_output)))
        }),
    )
}
