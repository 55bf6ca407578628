//! The test client's side of the tasks extension (2026-07-28): calls that run as tasks,
//! polled to their end with the client's handlers answering their questions.

use std::time::Duration;

use serde_json::{Value, json};

use super::{TestClient, TestError};

/// How often a task is polled in memory: far more often than its `pollIntervalMs` asks,
/// since nothing but the test waits.
const POLL: Duration = Duration::from_millis(5);

/// How long a task may take before [`TestClient::wait_for_task`] gives up.
const PATIENCE: Duration = Duration::from_secs(60);

impl TestClient {
    /// Calls tool `name` with the client's opt-in to tasks (see
    /// [`TestClientBuilder::tasks`](super::TestClientBuilder::tasks)) and returns what the call
    /// answers: a task (`resultType: "task"`, its `taskId`) or, for a tool that runs as a plain
    /// call, its result.
    pub async fn start_tool_call(&self, name: &str, arguments: Value) -> Result<Value, TestError> {
        Ok(self.client.start_tool_call(name, arguments).await?)
    }

    /// Calls tool `name` as a task and waits for the task to end (see
    /// [`wait_for_task`](Self::wait_for_task)): the task as `tasks/get` shows it at its end,
    /// its `result` (completed) or `error` (failed) inside. A call answered without a task is
    /// an error.
    ///
    /// ```
    /// use mcp_runtime::prelude::*;
    /// use mcp_runtime::protocol::Revision;
    /// use mcp_runtime::testing::TestClient;
    ///
    /// /// Writes the report (slowly).
    /// #[mcp_tool(task = "optional")]
    /// async fn report(ctx: Context) -> String {
    ///     ctx.progress(1.0, Some(2.0), Some("halfway")).await;
    ///     "the report".into()
    /// }
    ///
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// let server = Server::builder("reports", "1.0.0").tool(report);
    /// let client = TestClient::builder().revision(Revision::V2026_07_28).tasks().connect(server).await.unwrap();
    /// let task = client.call_tool_as_task("report", serde_json::json!({})).await.unwrap();
    /// assert_eq!(task["status"], "completed");
    /// assert_eq!(task["result"]["content"][0]["text"], "the report");
    /// # });
    /// ```
    pub async fn call_tool_as_task(&self, name: &str, arguments: Value) -> Result<Value, TestError> {
        let created = self.start_tool_call(name, arguments).await?;
        let Some(id) = created.get("taskId").and_then(Value::as_str).filter(|_| created["resultType"] == "task") else {
            return Err(TestError::Protocol(format!("tool `{name}` was not run as a task: {created}")));
        };
        self.wait_for_task(id).await
    }

    /// `tasks/get`: the task as it is now.
    pub async fn get_task(&self, id: &str) -> Result<Value, TestError> {
        self.request("tasks/get", json!({"taskId": id})).await
    }

    /// `tasks/update`: answers to the task's questions, by key.
    pub async fn update_task(&self, id: &str, responses: Value) -> Result<Value, TestError> {
        self.request("tasks/update", json!({"taskId": id, "inputResponses": responses})).await
    }

    /// `tasks/cancel`.
    pub async fn cancel_task(&self, id: &str) -> Result<Value, TestError> {
        self.request("tasks/cancel", json!({"taskId": id})).await
    }

    /// Polls task `id` until it ends (completed, failed or cancelled) and returns it as
    /// `tasks/get` shows it then. A task waiting for input is answered with this client's
    /// handlers (and the questions recorded, see [`questions`](Self::questions)); one asking
    /// what no handler answers is returned as it is, `input_required`.
    pub async fn wait_for_task(&self, id: &str) -> Result<Value, TestError> {
        Ok(self.client.wait_for_task_every(id, PATIENCE, Some(POLL)).await?)
    }
}
