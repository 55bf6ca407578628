//! How a handler running as a task (the tasks extension, 2026-07-28) reaches its client: its
//! questions wait in the task's `inputRequests` for a `tasks/update`, and its progress
//! becomes the task's `statusMessage`. The task itself lives a layer up (`crate::tasks`); a
//! context only needs this much of it.

use std::sync::{Arc, OnceLock};

use serde_json::Value;
use tokio::sync::oneshot;

use crate::context::input_round::InputRound;

/// The running task a handler's context belongs to.
pub(crate) trait TaskLink: Send + Sync + std::fmt::Debug {
    /// Parks `request` (`{method, params}`) in the task's `inputRequests` under `key` (made
    /// unique within the task if it was used before); the receiver gets the client's answer.
    fn ask(&self, key: String, request: Value) -> oneshot::Receiver<Value>;

    /// The handler reported progress: the task's `statusMessage` becomes `message`.
    fn status(&self, message: String);
}

/// How a tool call that may become a task asks: through the request's input-required rounds
/// until the task exists (a tool whose task starts after its first questions), through the
/// task from then on.
#[derive(Debug)]
pub(crate) struct TaskAsker {
    /// The request's round, for questions asked before the task exists (`None`: the task
    /// existed before the handler started).
    pub(crate) round: Option<Arc<InputRound>>,
    /// The task, once it exists.
    pub(crate) task: OnceLock<Arc<dyn TaskLink>>,
}

impl TaskAsker {
    /// An asker whose task is set before the handler first runs.
    pub(crate) fn new() -> Self {
        TaskAsker { round: None, task: OnceLock::new() }
    }

    /// An asker that asks through `round` until [`TaskAsker::task`] is set.
    pub(crate) fn before(round: Arc<InputRound>) -> Self {
        TaskAsker { round: Some(round), task: OnceLock::new() }
    }
}

/// What progress says as a task's status message: its own message, else how far it got.
pub(crate) fn progress_text(progress: f64, total: Option<f64>, message: Option<&str>) -> String {
    match (message, total) {
        (Some(message), _) => message.to_owned(),
        (None, Some(total)) => format!("{progress} of {total}"),
        (None, None) => format!("{progress}"),
    }
}
