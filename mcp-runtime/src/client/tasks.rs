//! The client's side of the tasks extension (2026-07-28): calls that run as tasks, polled to
//! their end with the client's handlers answering their questions.

use std::collections::HashSet;
use std::time::Duration;

use serde_json::{Value, json};

use super::{Client, ClientError};

/// How often a task is polled when it does not say (`pollIntervalMs`).
const DEFAULT_POLL: Duration = Duration::from_millis(500);

/// The shortest wait between two polls, whatever the task asks.
const MIN_POLL: Duration = Duration::from_millis(5);

impl Client {
    fn require_tasks(&self, method: &str) -> Result<(), ClientError> {
        self.require_extension(method, crate::tasks::EXTENSION, "extensions.io.modelcontextprotocol/tasks")
    }

    /// Calls tool `name` (with the client's opt-in to tasks, see
    /// [`ClientBuilder::tasks`](super::ClientBuilder::tasks)) and returns what the call
    /// answers, raw: a task (`resultType: "task"`, its `taskId`) or, for a tool that runs as
    /// a plain call, its result.
    pub async fn start_tool_call(&self, name: &str, arguments: Value) -> Result<Value, ClientError> {
        self.request("tools/call", json!({"name": name, "arguments": arguments})).await
    }

    /// Calls tool `name` as a task and waits for the task to end (see
    /// [`wait_for_task`](Self::wait_for_task)). A call answered without a task is an error.
    pub async fn call_tool_as_task(&self, name: &str, arguments: Value) -> Result<Value, ClientError> {
        let created = self.start_tool_call(name, arguments).await?;
        let Some(id) = created.get("taskId").and_then(Value::as_str).filter(|_| created["resultType"] == "task") else {
            return Err(ClientError::Protocol(format!("tool `{name}` was not run as a task: {created}")));
        };
        self.wait_for_task(id, Duration::from_secs(3600)).await
    }

    /// `tasks/get`: the task as it is now.
    pub async fn get_task(&self, id: &str) -> Result<Value, ClientError> {
        self.require_tasks("tasks/get")?;
        self.typed("tasks/get", json!({"taskId": id})).await
    }

    /// `tasks/update`: answers to the task's questions, by key.
    pub async fn update_task(&self, id: &str, responses: Value) -> Result<Value, ClientError> {
        self.require_tasks("tasks/update")?;
        self.typed("tasks/update", json!({"taskId": id, "inputResponses": responses})).await
    }

    /// `tasks/cancel`.
    pub async fn cancel_task(&self, id: &str) -> Result<Value, ClientError> {
        self.require_tasks("tasks/cancel")?;
        self.typed("tasks/cancel", json!({"taskId": id})).await
    }

    /// Polls task `id` (as often as its `pollIntervalMs` asks) until it ends (completed,
    /// failed or cancelled) and returns it as `tasks/get` shows it then, failing after
    /// `patience`. A task waiting for input is answered with this client's handlers; one
    /// asking what no handler answers is returned as it is, `input_required`.
    pub async fn wait_for_task(&self, id: &str, patience: Duration) -> Result<Value, ClientError> {
        self.wait_for_task_every(id, patience, None).await
    }

    /// [`wait_for_task`](Self::wait_for_task), polling every `poll` when given (a test in
    /// memory polls far more often than a task asks: nothing but the test waits).
    pub(crate) async fn wait_for_task_every(
        &self,
        id: &str,
        patience: Duration,
        poll: Option<Duration>,
    ) -> Result<Value, ClientError> {
        let deadline = tokio::time::Instant::now() + patience;
        let mut answered = HashSet::new();
        loop {
            let task = self.get_task(id).await?;
            match task["status"].as_str() {
                Some("completed" | "failed" | "cancelled") => return Ok(task),
                Some("input_required") => {
                    // Each question once: a task asks again until its update is read.
                    let mut requests = task["inputRequests"].as_object().cloned().unwrap_or_default();
                    requests.retain(|key, _| !answered.contains(key));
                    let Some(responses) = self.answer_all(&Value::Object(requests)).await? else { return Ok(task) };
                    if !responses.is_empty() {
                        answered.extend(responses.keys().cloned());
                        self.update_task(id, Value::Object(responses)).await?;
                    }
                }
                Some("working") => {}
                _ => return Err(ClientError::Protocol(format!("task `{id}` has no known status: {task}"))),
            }
            if tokio::time::Instant::now() >= deadline {
                return Err(ClientError::Timeout { method: format!("task `{id}`"), after: patience });
            }
            let asked = task["pollIntervalMs"].as_u64().map_or(DEFAULT_POLL, Duration::from_millis);
            let poll = poll.unwrap_or(asked).max(MIN_POLL);
            tokio::time::sleep(poll).await;
        }
    }
}
