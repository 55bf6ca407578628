//! `prompts/list`, `prompts/get` and `completion/complete`.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::{Outcome, guarded, list_cursor, page_result, reply_error, required_params, respond};
use crate::cache::Cached;
use crate::completion::CompletionContext;
use crate::context::{Context, Negotiated};
use crate::prompt::PromptGet;
use crate::protocol::{Completion, ErrorObject, Request, RequestId, Revision, error_line};
use crate::server::ServerCore;

pub(super) fn list(
    core: &ServerCore,
    id: &RequestId,
    revision: Revision,
    params: Option<&RawValue>,
) -> Result<String, ErrorObject> {
    let cursor = list_cursor(params)?;
    let registry = core.registry();
    let (items, next) = registry.prompts.page(cursor.as_deref(), core.config.page_size)?;
    let prompts = items.iter().map(|p| p.prompt.for_revision(revision)).collect();
    Ok(page_result(core, id, revision, ("prompts", prompts), next, Cached::PromptList))
}

#[derive(Deserialize)]
struct GetParams {
    name: String,
    #[serde(default)]
    arguments: BTreeMap<String, String>,
}

pub(super) fn get(core: &Arc<ServerCore>, negotiated: &Arc<Negotiated>, request: Request<'_>) -> Outcome {
    let id = request.id;
    let revision = negotiated.revision;
    let params: GetParams = match required_params(request.params, "prompts/get") {
        Ok(p) => p,
        Err(e) => return reply_error(&id, e),
    };
    let registry = core.registry();
    let Some(entry) = registry.prompts.get(&params.name) else {
        return reply_error(&id, ErrorObject::invalid_params(format!("Unknown prompt `{}`", params.name)));
    };
    let missing: Vec<&str> = entry
        .prompt
        .arguments
        .iter()
        .filter(|a| a.required == Some(true) && !params.arguments.contains_key(&a.name))
        .map(|a| a.name.as_str())
        .collect();
    if !missing.is_empty() {
        let list = missing.iter().map(|m| format!("`{m}`")).collect::<Vec<_>>().join(", ");
        return reply_error(
            &id,
            ErrorObject::invalid_params(format!("Prompt `{}` is missing the required arguments {list}", entry.name)),
        );
    }
    let get = PromptGet {
        name: Arc::clone(&entry.name),
        arguments: params.arguments,
        context: Context::new(Arc::clone(negotiated), id.clone()),
    };
    let handler = Arc::clone(&entry.handler);
    let name = Arc::clone(&entry.name);
    let core = Arc::clone(core);
    Outcome::Deferred(
        Some(id.clone()),
        Box::pin(async move {
            let outcome = guarded(|| handler(get)).await.unwrap_or_else(|panic| {
                tracing::error!(prompt = %name, panic, "prompt panicked");
                Err(ErrorObject::internal(format!(
                    "Prompt `{name}` failed unexpectedly; the server logged the details"
                )))
            });
            Some(match outcome {
                Ok(result) => respond(&core, &id, revision, None, &result.for_revision(revision)),
                Err(e) => error_line(Some(&id), &e),
            })
        }),
    )
}

#[derive(Deserialize)]
#[serde(tag = "type")]
enum Reference {
    #[serde(rename = "ref/prompt")]
    Prompt { name: String },
    #[serde(rename = "ref/resource")]
    Resource { uri: String },
}

#[derive(Deserialize)]
struct CompleteArgument {
    name: String,
    value: String,
}

#[derive(Deserialize, Default)]
struct CompleteContext {
    #[serde(default)]
    arguments: BTreeMap<String, String>,
}

#[derive(Deserialize)]
struct CompleteParams {
    #[serde(rename = "ref")]
    reference: Reference,
    argument: CompleteArgument,
    #[serde(default)]
    context: Option<CompleteContext>,
}

pub(super) fn complete(
    core: &ServerCore,
    id: &RequestId,
    revision: Revision,
    params: Option<&RawValue>,
) -> Result<String, ErrorObject> {
    let params: CompleteParams = required_params(params, "completion/complete")?;
    let registry = core.registry();
    let argument = params.argument.name.as_str();
    let (completions, known) = match &params.reference {
        Reference::Prompt { name } => {
            let prompt = registry
                .prompts
                .get(name)
                .ok_or_else(|| ErrorObject::invalid_params(format!("Unknown prompt `{name}`")))?;
            (&prompt.completions, prompt.prompt.arguments.iter().any(|a| a.name == argument))
        }
        Reference::Resource { uri } => {
            let template = registry
                .templates
                .get(uri)
                .ok_or_else(|| ErrorObject::invalid_params(format!("Unknown resource template `{uri}`")))?;
            (&template.completions, template.parsed.variables().any(|v| v == argument))
        }
    };
    if !known {
        return Err(ErrorObject::invalid_params(format!(
            "`{argument}` is not an argument of the referenced prompt or template"
        )));
    }
    let context = CompletionContext {
        argument: params.argument.name,
        value: params.argument.value,
        arguments: params.context.unwrap_or_default().arguments,
    };
    let values = match completions.get(&context.argument) {
        Some(completer) => std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| completer(&context)))
            .map_err(|_| ErrorObject::internal("Internal error: the completer failed unexpectedly"))?,
        None => Vec::new(),
    };
    let mut result = Map::new();
    result.insert("completion".into(), serde_json::to_value(Completion::from_values(values)).unwrap_or(Value::Null));
    Ok(respond(core, id, revision, None, &result))
}
