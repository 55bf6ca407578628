//! `prompts/list`, `prompts/get` and `completion/complete`.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::Deserialize;
use serde_json::{Map, Value};

use crate::context::outlet::Outgoing;
use crate::declare::completion::{CompletionContext, CompletionHandler};
use crate::declare::handler::{HandlerSpec, RunKind};
use crate::declare::prompt::PromptGet;
use crate::error::ItemKind;
use crate::protocol::{Completion, ErrorObject, excerpt};
use crate::serve::executor::{Failure, Start};
use crate::serve::methods::{list_cursor, page_result, shown};
use crate::serve::reply::Page;
use crate::serve::reply::Started;
use crate::serve::request::Request;
use crate::server::registry::page;

pub(crate) fn list(request: &Request<'_>) -> Outgoing {
    let listed = list_cursor(request).and_then(|cursor| {
        let registry = request.core.registry();
        let prompts = shown(request, registry.prompts.iter(), ItemKind::Prompt, |p| (&p.name, &p.parts));
        let (items, next) = page(&prompts, |p| &p.name, cursor.as_deref(), request.core.config.page_size)?;
        let prompts: Vec<_> = items.iter().map(|p| p.prompt.for_revision(request.revision())).collect();
        Ok(page_result(request, Page { field: "prompts", items: &prompts, next }))
    });
    listed.unwrap_or_else(|e| request.error(&e))
}

#[derive(Deserialize)]
struct GetParams {
    name: String,
    #[serde(default)]
    arguments: BTreeMap<String, String>,
}

pub(crate) fn get(request: &Request<'_>, start: Start<'_>) -> Started {
    let revision = request.revision();
    let params: GetParams = match request.params("prompts/get") {
        Ok(p) => p,
        Err(e) => return start.reply(request.error(&e)),
    };
    let registry = request.core.registry();
    let entry = registry.prompts.get(&params.name);
    let Some(entry) = entry.filter(|entry| request.shows(ItemKind::Prompt, &entry.name, &entry.parts)) else {
        let error = ErrorObject::invalid_params(format!("Unknown prompt `{}`", excerpt(&params.name)));
        return start.reply(request.error(&error));
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
        let error =
            ErrorObject::invalid_params(format!("Prompt `{}` is missing the required arguments {list}", entry.name));
        return start.reply(request.error(&error));
    }
    let context = match request.context(Some(&entry.parts)) {
        Ok(context) => context,
        Err(e) => return start.reply(request.error(&e)),
    };
    let responder = request.responder(&context);
    let get = PromptGet { name: Arc::clone(&entry.name), arguments: params.arguments, context: context.clone() };
    let name = Arc::clone(&entry.name);
    start.call(&entry.handler, entry.parts.spec, &context, get, move |outcome| {
        let outcome = match outcome {
            Err(Failure::Interrupted(interrupt)) => return responder.interrupted(interrupt),
            other => other,
        };
        let outcome = outcome.unwrap_or_else(|failure| {
            let message = match failure {
                Failure::Panicked(panic) => {
                    tracing::error!(prompt = %name, panic, "prompt panicked");
                    format!("Prompt `{name}` failed unexpectedly; the server logged the details")
                }
                other => format!("Prompt `{name}` {other}"),
            };
            Err(ErrorObject::internal(message))
        });
        match outcome {
            Ok(result) => responder.answer(None, result.for_revision(revision)),
            Err(e) => responder.error(&e),
        }
    })
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

/// `completion/complete`: a plain completer answers at once; one that waits (a proxy's) runs
/// as the request's work.
pub(crate) fn complete(request: &Request<'_>, start: Start<'_>) -> Started {
    let (completer, context) = match completer(request) {
        Ok(Some(found)) => found,
        Ok(None) => return start.reply(completed(request, Vec::new())),
        Err(e) => return start.reply(request.error(&e)),
    };
    match completer {
        CompletionHandler::Plain(complete) => {
            let values = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| complete(&context)));
            let answer = match values {
                Ok(values) => completed(request, values),
                Err(panic) => {
                    tracing::error!(panic = crate::serve::executor::panic_message(panic), "a completer panicked");
                    request.error(&ErrorObject::internal("Internal error: the completer failed unexpectedly"))
                }
            };
            start.reply(answer)
        }
        CompletionHandler::Waiting(complete) => {
            let handler_context = match request.context(None) {
                Ok(context) => context,
                Err(e) => return start.reply(request.error(&e)),
            };
            let responder = request.responder(&handler_context);
            let spec = HandlerSpec { kind: RunKind::Task, timeout: None };
            start.run(spec, &handler_context, complete(context), move |outcome| match outcome {
                Ok(Ok(values)) => responder.answer(None, completion_result(values)),
                Ok(Err(e)) => responder.error(&e),
                Err(failure) => {
                    responder.error(&ErrorObject::internal(format!("Internal error: completing {failure}")))
                }
            })
        }
    }
}

/// The `completion/complete` result offering `values`.
fn completion_result(values: Vec<String>) -> Map<String, Value> {
    let mut result = Map::new();
    let completion = Completion::from_values(values);
    result.insert("completion".into(), serde_json::to_value(completion).unwrap_or(Value::Null));
    result
}

fn completed(request: &Request<'_>, values: Vec<String>) -> Outgoing {
    request.respond(None, completion_result(values))
}

/// The completer of the argument `request` names, and what it is asked; `None` when the
/// argument has none.
fn completer(request: &Request<'_>) -> Result<Option<(CompletionHandler, CompletionContext)>, ErrorObject> {
    let params: CompleteParams = request.params("completion/complete")?;
    let registry = request.core.registry();
    let argument = params.argument.name.as_str();
    let (completions, known, item) = match &params.reference {
        Reference::Prompt { name } => {
            let prompt = registry
                .prompts
                .get(name)
                .filter(|p| request.shows(ItemKind::Prompt, &p.name, &p.parts))
                .ok_or_else(|| ErrorObject::invalid_params(format!("Unknown prompt `{}`", excerpt(name))))?;
            (&prompt.completions, prompt.prompt.arguments.iter().any(|a| a.name == argument), &prompt.parts)
        }
        Reference::Resource { uri } => {
            let template = registry
                .templates
                .get(uri)
                .filter(|t| request.shows(ItemKind::ResourceTemplate, &t.template.uri_template, &t.parts))
                .ok_or_else(|| ErrorObject::invalid_params(format!("Unknown resource template `{}`", excerpt(uri))))?;
            (&template.completions, template.parsed.variables().any(|v| v == argument), &template.parts)
        }
    };
    if !known {
        return Err(ErrorObject::invalid_params(format!(
            "`{}` is not an argument of the referenced prompt or template",
            excerpt(argument)
        )));
    }
    let Some(completer) = completions.get(argument).cloned() else { return Ok(None) };
    let context = CompletionContext {
        argument: params.argument.name,
        value: params.argument.value,
        arguments: params.context.unwrap_or_default().arguments,
        states: Arc::clone(request.states(Some(item))),
    };
    Ok(Some((completer, context)))
}
