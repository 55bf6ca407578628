//! `tools/list` and `tools/call`.

use std::borrow::Cow;
use std::sync::Arc;

use serde_json::{Map, Value, json};

use crate::context::outlet::Outgoing;
use crate::declare::task::TaskSupport;
use crate::declare::tool::ToolCall;
use crate::error::ItemKind;
use crate::protocol::{CallToolResult, ErrorObject, Feature, Shape, code, excerpt, members, shape_of, string_value};
use crate::serve::executor::{Failure, Start};
use crate::serve::methods::{list_cursor, page_result, shown, tasks};
use crate::serve::reply::Page;
use crate::serve::reply::Started;
use crate::serve::request::Request;
use crate::server::registry::page;

/// A page of tools, serialized once per registry, revision and cursor (see `PageCache`): what a
/// server with many tools sends most is copied, not built again.
pub(crate) fn list(request: &Request<'_>) -> Outgoing {
    let listed = list_cursor(request).and_then(|cursor| {
        let registry = request.core.registry();
        let revision = request.revision();
        if request.visible.is_some() {
            // Filtered for this caller: built for it, not kept.
            let tools = shown(request, registry.tools.iter(), ItemKind::Tool, |t| (&t.name, &t.parts));
            let (page, next) = page(&tools, |t| &t.name, cursor.as_deref(), request.core.config.page_size)?;
            let tools: Vec<_> = page.iter().map(|t| t.listing(revision)).collect();
            return Ok(page_result(request, Page { field: "tools", items: &tools, next }));
        }
        let page = registry.tool_pages.get_or_build(revision, cursor.as_deref(), || {
            let (page, next) = registry.tools.page(cursor.as_deref(), request.core.config.page_size)?;
            let tools: Vec<_> = page.iter().map(|t| t.listing(revision)).collect();
            serde_json::value::to_raw_value(&Page { field: "tools", items: &tools, next })
                .map_err(|e| ErrorObject::internal(format!("the tool list could not be serialized: {e}")))
        })?;
        Ok(page_result(request, &*page))
    });
    listed.unwrap_or_else(|e| request.error(&e))
}

/// What `tools/call` reads of its params: the tool's name and the text of its arguments.
struct CallParams<'a> {
    name: Cow<'a, str>,
    arguments: Option<&'a str>,
}

impl<'a> CallParams<'a> {
    /// Found in the params' text (validated when the message was read) in one pass, so that
    /// what else they carry (a 2026-07-28 `_meta`, say) is stepped over, not parsed.
    fn read(request: &'a Request<'_>) -> Result<Self, ErrorObject> {
        let params = request.raw_params().ok_or_else(|| ErrorObject::invalid_params("`tools/call` needs params"))?;
        let [name, arguments] = members(params.get(), ["name", "arguments"]);
        let name = name
            .and_then(string_value)
            .ok_or_else(|| ErrorObject::invalid_params("Invalid `tools/call` params: `name` must be a string"))?;
        Ok(CallParams { name, arguments })
    }
}

pub(crate) fn call(request: &Request<'_>, start: Start<'_>) -> Started {
    let revision = request.revision();
    let params = match CallParams::read(request) {
        Ok(params) => params,
        Err(e) => return start.reply(request.error(&e)),
    };
    let registry = request.core.registry();
    let entry = registry.tools.get(params.name.as_ref());
    // A tool hidden from the caller is answered as one that does not exist.
    let Some(entry) = entry.filter(|entry| request.shows(ItemKind::Tool, &entry.name, &entry.parts)) else {
        return start
            .reply(request.error(&ErrorObject::invalid_params(format!("Unknown tool `{}`", excerpt(&params.name)))));
    };
    let missing: Vec<&str> = entry
        .required_client_capabilities
        .iter()
        .map(String::as_str)
        .filter(|name| !request.negotiated.client_capabilities.contains_key(*name))
        .collect();
    if !missing.is_empty() {
        let list = missing.iter().map(|m| format!("`{m}`")).collect::<Vec<_>>().join(", ");
        let message =
            format!("Tool `{}` needs the client capabilities {list}, which this client did not declare", entry.name);
        if revision.supports(Feature::Stateless) {
            let required: Map<String, Value> = missing.iter().map(|m| ((*m).to_owned(), json!({}))).collect();
            let error = ErrorObject::new(code::MISSING_REQUIRED_CLIENT_CAPABILITY, message)
                .with_data(json!({ "requiredCapabilities": required }));
            return start.reply(request.error(&error));
        }
        // The handshake revisions have no error for this: the tool fails as a tool.
        return start.reply(request.respond(None, CallToolResult::error(message).for_revision(revision, false)));
    }
    let arguments = match params.arguments {
        Some("null") | None => None,
        Some(text) if shape_of(text) != Shape::Object => {
            return start.reply(request.error(&ErrorObject::invalid_params("`arguments` must be an object")));
        }
        Some(text) => Some(Box::from(text)),
    };
    // The tasks extension (2026-07-28): a tool that allows tasks runs as one when the client
    // opted in on this request; one that requires a task refuses a client that did not.
    if revision.supports(Feature::Stateless) && entry.task.support != TaskSupport::Never {
        if tasks::opted_in(&request.negotiated) {
            let tool_call =
                ToolCall { name: Arc::clone(&entry.name), arguments, context: crate::context::Context::detached() };
            return tasks::call(request, start, entry, tool_call);
        }
        if entry.task.support == TaskSupport::Required {
            let what = format!("Tool `{}` runs only as a task: it", entry.name);
            return start.reply(request.error(&tasks::needs_extension(&what)));
        }
    }
    let context = match request.context(Some(&entry.parts)) {
        Ok(context) => context,
        Err(e) => return start.reply(request.error(&e)),
    };
    let responder = request.responder(&context);
    let tool_call = ToolCall { name: Arc::clone(&entry.name), arguments, context: context.clone() };
    let (name, wrap_output) = (Arc::clone(&entry.name), entry.wrap_output);
    start.call(&entry.handler, entry.parts.spec, &context, tool_call, move |outcome| {
        let outcome = match outcome {
            Err(Failure::Interrupted(interrupt)) => return responder.interrupted(interrupt),
            other => other,
        };
        let result = outcome.unwrap_or_else(|failure| match failure {
            Failure::Panicked(panic) => {
                tracing::error!(tool = %name, panic, "tool panicked");
                CallToolResult::error(format!("Tool `{name}` failed unexpectedly; the server logged the details"))
            }
            other => {
                tracing::warn!(tool = %name, failure = %other, "tool stopped");
                CallToolResult::error(format!("Tool `{name}` {other}"))
            }
        });
        responder.answer(None, result.for_revision(revision, wrap_output))
    })
}
