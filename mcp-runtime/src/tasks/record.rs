//! A task as it is kept and as it goes on the wire: its status and the transitions between
//! them, its times, what it waits for, and how it ended.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use crate::util::time::iso8601;

/// Where a task is in its life. `working` and `input_required` alternate; the other three
/// are terminal and final.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskStatus {
    /// The work goes on.
    Working,
    /// The work waits for the client's answers (`inputRequests`, answered by `tasks/update`).
    InputRequired,
    /// The work ended with a result (a tool's error result included).
    Completed,
    /// The work ended with a protocol error (the handler panicked, or its time ran out).
    Failed,
    /// The client cancelled it.
    Cancelled,
}

impl TaskStatus {
    /// Whether nothing can change any more.
    pub fn is_terminal(self) -> bool {
        matches!(self, TaskStatus::Completed | TaskStatus::Failed | TaskStatus::Cancelled)
    }

    /// The wire name (`working`, `input_required`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            TaskStatus::Working => "working",
            TaskStatus::InputRequired => "input_required",
            TaskStatus::Completed => "completed",
            TaskStatus::Failed => "failed",
            TaskStatus::Cancelled => "cancelled",
        }
    }
}

/// A task as a [`TaskStore`](crate::tasks::TaskStore) keeps it: serializable, so that a store shared
/// by several processes can keep it anywhere.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskRecord {
    pub(crate) task_id: String,
    /// The subject of the identity that made it, when the transport authenticates.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) owner: Option<String>,
    pub(crate) status: TaskStatus,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) status_message: Option<String>,
    /// Milliseconds since the Unix epoch.
    pub(crate) created_at: u64,
    pub(crate) last_updated_at: u64,
    /// How long after `created_at` it is kept (`None`: as long as the store keeps it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) ttl_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) poll_interval_ms: Option<u64>,
    /// The questions waiting for answers, by key (`{method, params}` each).
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub(crate) input_requests: Map<String, Value>,
    /// What the call returned (completed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) result: Option<Value>,
    /// The JSON-RPC error it ended with (failed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) error: Option<Value>,
    /// The id of the server instance running it.
    #[serde(default)]
    pub(crate) runner: String,
    /// Counts its changes: a store keeps the latest.
    #[serde(default)]
    pub(crate) version: u64,
}

impl TaskRecord {
    /// A task that starts now.
    pub(crate) fn new(task_id: String, owner: Option<String>, ttl_ms: Option<u64>, poll_ms: Option<u64>) -> Self {
        let now = crate::util::time::now_ms();
        TaskRecord {
            task_id,
            owner,
            status: TaskStatus::Working,
            status_message: None,
            created_at: now,
            last_updated_at: now,
            ttl_ms,
            poll_interval_ms: poll_ms,
            input_requests: Map::new(),
            result: None,
            error: None,
            runner: String::new(),
            version: 0,
        }
    }

    /// The task's id.
    pub fn task_id(&self) -> &str {
        &self.task_id
    }

    /// Its status.
    pub fn status(&self) -> TaskStatus {
        self.status
    }

    /// Who made it (see [`Identity::subject`](crate::Identity::subject)), when the transport
    /// authenticates: only they may see it.
    pub fn owner(&self) -> Option<&str> {
        self.owner.as_deref()
    }

    /// When it may be forgotten, in milliseconds since the Unix epoch (`None`: never).
    pub fn expires_at(&self) -> Option<u64> {
        self.ttl_ms.map(|ttl| self.created_at.saturating_add(ttl))
    }

    /// Whether it is past its time to live at `now` (milliseconds since the Unix epoch).
    pub(crate) fn expired(&self, now: u64) -> bool {
        self.expires_at().is_some_and(|at| now >= at)
    }

    /// The id of the server instance that runs it (the process whose
    /// [`TaskStore::runner_started`](crate::tasks::TaskStore::runner_started) named it).
    pub fn runner(&self) -> &str {
        &self.runner
    }

    /// Whether a store keeping `kept` replaces it with this record: never once `kept` ended;
    /// otherwise when this record is newer (a higher version) or ends the task.
    pub fn replaces(&self, kept: &TaskRecord) -> bool {
        !kept.status.is_terminal() && (self.version > kept.version || self.status.is_terminal())
    }

    /// A change: the update time and version move on.
    pub(crate) fn touch(&mut self) {
        self.last_updated_at = crate::util::time::now_ms().max(self.last_updated_at);
        self.version += 1;
    }

    /// Ends it with `status` (terminal) unless it ended already: `false` then.
    pub(crate) fn end(&mut self, status: TaskStatus, result: Option<Value>, error: Option<Value>) -> bool {
        if self.status.is_terminal() {
            return false;
        }
        self.status = status;
        self.result = result;
        self.error = error;
        self.input_requests.clear();
        self.touch();
        true
    }

    /// The fields every task result carries (`Task`).
    fn task_fields(&self) -> Map<String, Value> {
        let mut fields = Map::new();
        fields.insert("taskId".into(), json!(self.task_id));
        fields.insert("status".into(), json!(self.status.as_str()));
        if let Some(message) = &self.status_message {
            fields.insert("statusMessage".into(), json!(message));
        }
        fields.insert("createdAt".into(), json!(iso8601(self.created_at)));
        fields.insert("lastUpdatedAt".into(), json!(iso8601(self.last_updated_at)));
        fields.insert("ttlMs".into(), json!(self.ttl_ms));
        if let Some(poll) = self.poll_interval_ms {
            fields.insert("pollIntervalMs".into(), json!(poll));
        }
        fields
    }

    /// What `tools/call` answers once the task exists (`CreateTaskResult`, flat; the reply
    /// adds `resultType: "task"`).
    pub(crate) fn create_result(&self) -> Map<String, Value> {
        self.task_fields()
    }

    /// What `tasks/get` answers (`DetailedTask`): the task, and what its status brings (the
    /// questions waiting, the result, the error).
    pub(crate) fn detailed(&self) -> Map<String, Value> {
        let mut fields = self.task_fields();
        match self.status {
            TaskStatus::InputRequired => {
                fields.insert("inputRequests".into(), Value::Object(self.input_requests.clone()));
            }
            TaskStatus::Completed => {
                fields.insert("result".into(), self.result.clone().unwrap_or_else(|| json!({"content": []})));
            }
            TaskStatus::Failed => {
                let error = self.error.clone();
                fields.insert(
                    "error".into(),
                    error
                        .unwrap_or_else(|| json!({"code": crate::protocol::code::INTERNAL_ERROR, "message": "failed"})),
                );
            }
            TaskStatus::Working | TaskStatus::Cancelled => {}
        }
        fields
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_task_result_is_flat_and_a_detailed_task_says_what_its_status_brings() {
        let mut record = TaskRecord::new("t1".into(), None, Some(60_000), Some(500));
        let created = record.create_result();
        assert_eq!(created["status"], "working");
        assert_eq!(created["ttlMs"], 60_000);
        assert_eq!(created["pollIntervalMs"], 500);
        for absent in ["task", "ttl", "pollInterval", "requestState", "result", "error", "inputRequests"] {
            assert!(!created.contains_key(absent), "{absent}");
        }
        assert!(record.end(TaskStatus::Completed, Some(json!({"content": [{"type": "text", "text": "ok"}]})), None));
        assert!(!record.end(TaskStatus::Cancelled, None, None), "a terminal task stays as it ended");
        let detailed = record.detailed();
        assert_eq!(detailed["status"], "completed");
        assert_eq!(detailed["result"]["content"][0]["text"], "ok");
        assert_eq!(record.version, 1);
    }

    #[test]
    fn an_unlimited_task_says_so_with_null() {
        let record = TaskRecord::new("t2".into(), None, None, None);
        assert_eq!(record.create_result()["ttlMs"], Value::Null);
        assert!(!record.expired(u64::MAX));
    }
}
