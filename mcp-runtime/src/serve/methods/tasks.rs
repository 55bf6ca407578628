//! The tasks extension's methods (2026-07-28): a `tools/call` that runs as a task, and
//! `tasks/get`, `tasks/update`, `tasks/cancel`. Each needs the client's per-request opt-in
//! (`_meta` client capabilities naming the extension); without it the methods answer -32021
//! and calls run as plain calls (or, for a tool that requires a task, -32021 too).

use std::sync::Arc;

use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::context::Negotiated;
use crate::declare::handler::{HandlerSpec, RunKind};
use crate::declare::tool::ToolCall;
use crate::protocol::{CallToolResult, ErrorObject, code};
use crate::serve::executor::{Failure, Start, detached, guarded, panic_message, within};
use crate::serve::reply::{Empty, Started, TaskCreated};
use crate::serve::request::Request;
use crate::server::registry::ToolEntry;
use crate::tasks::EXTENSION;
use crate::tasks::live::{Ending, LinkOf, TaskError};
use crate::util::BoxFuture;

/// Whether the request's client opted in to the tasks extension.
pub(crate) fn opted_in(negotiated: &Negotiated) -> bool {
    negotiated.client_capabilities.get("extensions").and_then(|extensions| extensions.get(EXTENSION)).is_some()
}

/// -32021 for a request that needs the extension the client did not declare.
pub(crate) fn needs_extension(what: &str) -> ErrorObject {
    ErrorObject::new(
        code::MISSING_REQUIRED_CLIENT_CAPABILITY,
        format!("{what} needs the client capability `extensions.{EXTENSION}`, which this request did not declare"),
    )
    .with_data(json!({ "requiredCapabilities": { "extensions": { EXTENSION: {} } } }))
}

/// A `tools/call` that runs as a task: the task is kept, then the call is answered with it
/// and the handler goes on detached. A tool whose task starts after its first questions is
/// polled once here first: its questions are answered as in any call, and it becomes a task
/// at its first other wait.
pub(crate) fn call(request: &Request<'_>, start: Start<'_>, entry: &ToolEntry, tool_call: ToolCall) -> Started {
    let core = Arc::clone(&request.core);
    let task = core.tasks.prepare(request.principal().map(str::to_owned));
    let after_input = entry.task.after_input && entry.parts.spec.kind != RunKind::Blocking;
    let (context, asker) = match request.task_context(&entry.parts, after_input, task.cancel.clone()) {
        Ok(made) => made,
        Err(e) => return start.reply(request.error(&e)),
    };
    let tool_call = ToolCall { context: context.clone(), ..tool_call };
    let spec = HandlerSpec { timeout: entry.parts.spec.timeout.or(core.config.default_timeout), ..entry.parts.spec };
    let (name, revision, wrap_output) = (Arc::clone(&entry.name), request.revision(), entry.wrap_output);
    let work = match (&entry.handler, after_input) {
        (crate::declare::handler::HandlerFn::Send(handler), true) => {
            let created = crate::context::log_layer::REQUEST.sync_scope(context.clone(), || {
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| handler(tool_call)))
            });
            let mut work: BoxFuture<'static, CallToolResult> = match created {
                Ok(work) => Box::pin(crate::context::log_layer::REQUEST.scope(context.clone(), work)),
                Err(panic) => {
                    let failed: BoxFuture<'static, _> =
                        Box::pin(std::future::ready(Err(Failure::Panicked(panic_message(panic)))));
                    return made(request, start, task, ending_of(&name, revision, wrap_output, failed));
                }
            };
            let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
            let first = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| work.as_mut().poll(&mut cx)));
            let outcome: BoxFuture<'static, Result<CallToolResult, Failure>> = match first {
                Ok(std::task::Poll::Ready(result)) => Box::pin(std::future::ready(Ok(result))),
                Err(panic) => Box::pin(std::future::ready(Err(Failure::Panicked(panic_message(panic))))),
                Ok(std::task::Poll::Pending) => {
                    if let Some(interrupt) = context.take_interrupt() {
                        // A question before the task: answered as in any call.
                        return start.reply(request.responder(&context).interrupted(interrupt));
                    }
                    within(spec.timeout, Box::pin(guarded(work)))
                }
            };
            outcome
        }
        _ => detached(&core.local, &entry.handler, spec, &context, tool_call),
    };
    let _ = asker.task.set(Arc::new(LinkOf(Arc::clone(&task))));
    made(request, start, task, ending_of(&name, revision, wrap_output, work))
}

/// How the call's outcome ends its task: a result (an error result included) completes it; a
/// panic or a time limit fails it with a JSON-RPC error.
fn ending_of(
    name: &Arc<str>,
    revision: crate::protocol::Revision,
    wrap_output: bool,
    work: BoxFuture<'static, Result<CallToolResult, Failure>>,
) -> BoxFuture<'static, Ending> {
    let name = Arc::clone(name);
    Box::pin(async move {
        match work.await {
            Ok(result) => {
                let result = result.for_revision(revision, wrap_output);
                Ending::Completed(serde_json::to_value(&result).unwrap_or_else(|_| json!({"content": []})))
            }
            Err(failure) => {
                let message = match &failure {
                    Failure::Panicked(panic) => {
                        tracing::error!(tool = %name, panic, "a tool running as a task panicked");
                        format!("Tool `{name}` failed unexpectedly; the server logged the details")
                    }
                    other => format!("Tool `{name}` {other}"),
                };
                Ending::Failed(json!({ "code": code::INTERNAL_ERROR, "message": message }))
            }
        }
    })
}

/// Keeps the task, then answers the call with it and runs `work` as its work.
fn made(
    request: &Request<'_>,
    start: Start<'_>,
    task: Arc<crate::tasks::live::LiveTask>,
    work: BoxFuture<'static, Ending>,
) -> Started {
    let tasks = Arc::clone(&request.core.tasks);
    // The call's answer must not end the task's context (its questions go on after it): the
    // answer is made under a context of its own.
    let answering = crate::context::Context::detached();
    let responder = request.responder(&answering);
    let creating = Box::pin(async move {
        tasks.create(&task).await?;
        let created = task.snapshot().create_result();
        tasks.run(task, work);
        Ok::<_, crate::tasks::TaskStoreError>(created)
    });
    start.run(HandlerSpec::default(), &answering, creating, move |outcome| match outcome {
        Ok(Ok(created)) => responder.answer(None, TaskCreated(created)),
        Ok(Err(refused)) => {
            tracing::warn!(error = %refused, "a task could not be made");
            let answer = responder.error(&ErrorObject::internal(format!("The task could not be made: {refused}")));
            match refused {
                crate::tasks::TaskStoreError::Unavailable(_) => answer.retry_later(),
                crate::tasks::TaskStoreError::Full { .. } => answer,
            }
        }
        Err(failure) => responder.error(&ErrorObject::internal(format!("The task could not be made: {failure}"))),
    })
}

/// The params of `tasks/get`, `tasks/update` and `tasks/cancel`.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct TaskParams {
    task_id: String,
    #[serde(default)]
    input_responses: Option<Map<String, Value>>,
}

/// What a `tasks/*` method does with its task.
#[derive(Clone, Copy)]
enum Action {
    Get,
    Update,
    Cancel,
}

impl Action {
    fn method(self) -> &'static str {
        match self {
            Action::Get => "tasks/get",
            Action::Update => "tasks/update",
            Action::Cancel => "tasks/cancel",
        }
    }
}

/// `tasks/get`: the task as it is now, with its questions, result or error.
pub(crate) fn get(request: &Request<'_>, start: Start<'_>) -> Started {
    serve(request, start, Action::Get)
}

/// `tasks/update`: answers to the task's questions; an empty acknowledgement.
pub(crate) fn update(request: &Request<'_>, start: Start<'_>) -> Started {
    serve(request, start, Action::Update)
}

/// `tasks/cancel`: the task ends `cancelled` unless it ended already; an empty
/// acknowledgement either way.
pub(crate) fn cancel(request: &Request<'_>, start: Start<'_>) -> Started {
    serve(request, start, Action::Cancel)
}

fn serve(request: &Request<'_>, start: Start<'_>, action: Action) -> Started {
    if !opted_in(&request.negotiated) {
        return start.reply(request.error(&needs_extension(&format!("`{}`", action.method()))));
    }
    let params: TaskParams = match request.params(action.method()) {
        Ok(params) => params,
        Err(e) => return start.reply(request.error(&e)),
    };
    if matches!(action, Action::Update) && params.input_responses.is_none() {
        let message = "Invalid `tasks/update` params: `inputResponses` must be an object";
        return start.reply(request.error(&ErrorObject::invalid_params(message)));
    }
    let context = match request.context(None) {
        Ok(context) => context,
        Err(e) => return start.reply(request.error(&e)),
    };
    let tasks = Arc::clone(&request.core.tasks);
    let caller = request.principal().map(str::to_owned);
    let responder = request.responder(&context);
    let id = params.task_id;
    let work = Box::pin(async move {
        let caller = caller.as_deref();
        let done = match action {
            Action::Get => {
                return tasks.get(&id, caller).await.map(|record| Some(record.detailed())).map_err(|e| (e, id));
            }
            Action::Update => tasks.update(&id, caller, params.input_responses.unwrap_or_default()).await,
            Action::Cancel => tasks.cancel(&id, caller).await,
        };
        done.map(|()| None).map_err(|e| (e, id))
    });
    start.run(HandlerSpec::default(), &context, work, move |outcome| match outcome {
        Ok(Ok(Some(detailed))) => responder.answer(None, detailed),
        Ok(Ok(None)) => responder.answer(None, Empty {}),
        Ok(Err((TaskError::Unknown, id))) => {
            let id = crate::protocol::excerpt(&id);
            responder
                .error(&ErrorObject::invalid_params(format!("Unknown task `{id}`")).with_data(json!({"taskId": id})))
        }
        Ok(Err((TaskError::Store(e), _))) => {
            tracing::error!(error = %e, "the task store cannot be reached");
            responder.error(&ErrorObject::internal("The task store cannot be reached; try again")).retry_later()
        }
        Err(failure) => responder.error(&ErrorObject::internal(format!("The task request failed: {failure}"))),
    })
}
