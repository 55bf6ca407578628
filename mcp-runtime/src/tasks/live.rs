//! The server's tasks: the store that keeps them, the ones this process runs (their work
//! detached from the request and the connection that made them, their questions waiting for
//! `tasks/update`, their cancellation), and the reads, updates and cancels of the
//! `tasks/*` methods, each checked against the caller that made the task.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::time::Duration;

use serde_json::{Map, Value};
use tokio::sync::oneshot;

use crate::context::CancelToken;
use crate::context::task_link::TaskLink;
use crate::tasks::record::{TaskRecord, TaskStatus};
use crate::tasks::store::{TaskStore, TaskStoreError};
use crate::util::time::now_ms;
use crate::util::{BoxFuture, StoreError};

/// How a task's work ended.
#[derive(Debug)]
pub(crate) enum Ending {
    /// With the call's result (a tool's error result included).
    Completed(Value),
    /// With a JSON-RPC error (`{code, message, data?}`).
    Failed(Value),
}

/// Why a `tasks/*` request about a task cannot be served.
#[derive(Debug)]
pub(crate) enum TaskError {
    /// No such task for this caller: never made, expired, or another caller's (the same
    /// answer, so that an id reveals nothing).
    Unknown,
    /// The store could not be reached.
    Store(StoreError),
}

/// Called with every change of a task (for `notifications/tasks`).
pub(crate) type OnChange = Box<dyn Fn(&TaskRecord) + Send + Sync>;

/// What a client asked of a task that another process runs, handed to that process (see
/// [`Tasks::forward_with`]).
#[derive(Debug, Clone)]
pub(crate) enum Forwarded {
    /// Answers to the task's questions (`tasks/update`).
    Input {
        /// The process that runs the task.
        runner: String,
        task_id: String,
        responses: Map<String, Value>,
    },
    /// The task is cancelled (`tasks/cancel`): its work is to stop.
    Cancel {
        /// The process that runs the task.
        runner: String,
        task_id: String,
    },
}

impl Forwarded {
    /// The process that runs the task.
    pub(crate) fn runner(&self) -> &str {
        match self {
            Forwarded::Input { runner, .. } | Forwarded::Cancel { runner, .. } => runner,
        }
    }
}

/// Hands a [`Forwarded`] request to the process that runs the task.
pub(crate) type Forward = Box<dyn Fn(Forwarded) + Send + Sync>;

/// The error a task ends with when the process that ran it stopped before it ended.
fn runner_stopped() -> Value {
    serde_json::json!({
        "code": crate::protocol::code::INTERNAL_ERROR,
        "message": "The server instance running the task stopped before the task ended",
    })
}

/// The server's tasks (see the module documentation).
pub(crate) struct Tasks {
    store: Arc<dyn TaskStore>,
    /// How long a task is kept after it was made (`None`: as long as the store keeps it).
    ttl: Option<Duration>,
    /// How often clients are asked to poll.
    poll_interval: Option<Duration>,
    /// This process's id, recorded in the tasks it runs.
    runner: String,
    /// The tasks this process runs, by id, until they end.
    live: Mutex<HashMap<String, Arc<LiveTask>>>,
    on_change: OnceLock<OnChange>,
    forward: OnceLock<Forward>,
    /// Whether the store was told that this process runs tasks.
    running: std::sync::Once,
}

impl std::fmt::Debug for Tasks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tasks").field("ttl", &self.ttl).field("runner", &self.runner).finish_non_exhaustive()
    }
}

impl Tasks {
    pub(crate) fn new(
        store: Arc<dyn TaskStore>,
        ttl: Option<Duration>,
        poll_interval: Option<Duration>,
        runner: String,
    ) -> Arc<Self> {
        Arc::new(Tasks {
            store,
            ttl,
            poll_interval,
            runner,
            live: Mutex::default(),
            on_change: OnceLock::new(),
            forward: OnceLock::new(),
            running: std::sync::Once::new(),
        })
    }

    /// Calls `on_change` with every change of a task from now on (once; later calls are
    /// ignored).
    pub(crate) fn on_change(&self, on_change: OnChange) {
        let _ = self.on_change.set(on_change);
    }

    /// Hands what clients ask of tasks other processes run to `forward` (once; later calls
    /// are ignored). Without it, such answers and cancellations reach only the store.
    pub(crate) fn forward_with(&self, forward: Forward) {
        let _ = self.forward.set(forward);
    }

    /// Applies what a client asked, through another process, of a task this process runs;
    /// `forwarded` for a task that is not run here (or no longer) changes nothing.
    pub(crate) async fn apply_forwarded(&self, forwarded: Forwarded) {
        match forwarded {
            Forwarded::Input { task_id, responses, .. } => {
                let task = self.live().get(&task_id).cloned();
                let Some(task) = task else { return };
                if let Some(record) = task.answer(responses) {
                    task.persist(record).await;
                }
            }
            Forwarded::Cancel { task_id, .. } => {
                let task = self.live().get(&task_id).cloned();
                if let Some(task) = task {
                    task.stop().await;
                }
            }
        }
    }

    fn live(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<LiveTask>>> {
        self.live.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A new task for `owner`, not kept yet: its id is 128 bits from the OS's random source.
    pub(crate) fn prepare(self: &Arc<Self>, owner: Option<String>) -> Arc<LiveTask> {
        let millis = |d: Duration| u64::try_from(d.as_millis()).unwrap_or(u64::MAX);
        let mut record = TaskRecord::new(
            crate::util::random::random_id(),
            owner,
            self.ttl.map(millis),
            self.poll_interval.map(millis),
        );
        record.runner = self.runner.clone();
        Arc::new(LiveTask {
            tasks: Arc::downgrade(self),
            state: Mutex::new(LiveState { record, waiting: HashMap::new(), keys: HashSet::new() }),
            cancel: CancelToken::default(),
            saved: tokio::sync::Mutex::new(0),
        })
    }

    /// Keeps `task` (durably, as the store is): from now on `tasks/get` finds it.
    pub(crate) async fn create(&self, task: &Arc<LiveTask>) -> Result<(), TaskStoreError> {
        let record = task.snapshot();
        self.running.call_once(|| self.store.runner_started(&self.runner));
        self.store.create(&record).await?;
        self.live().insert(record.task_id.clone(), Arc::clone(task));
        Ok(())
    }

    /// Runs `work` as `task`'s work, detached: until it ends, the client cancels the task, or
    /// its time to live passes. Its end is saved before the task stops being live here.
    pub(crate) fn run(self: &Arc<Self>, task: Arc<LiveTask>, work: BoxFuture<'static, Ending>) {
        let tasks = Arc::clone(self);
        tokio::spawn(async move {
            let expiry = task.snapshot().expires_at().map(|at| Duration::from_millis(at.saturating_sub(now_ms())));
            let until_expiry = async move {
                match expiry {
                    Some(left) => tokio::time::sleep(left).await,
                    None => std::future::pending().await,
                }
            };
            let ending = tokio::select! {
                biased;
                () = task.cancel.cancelled() => None,
                () = until_expiry => Some(Ending::Failed(serde_json::json!({
                    "code": crate::protocol::code::INTERNAL_ERROR,
                    "message": "The task ran past its time to live",
                }))),
                ending = work => Some(ending),
            };
            if let Some(ending) = ending {
                let (status, result, error) = match ending {
                    Ending::Completed(result) => (TaskStatus::Completed, Some(result), None),
                    Ending::Failed(error) => (TaskStatus::Failed, None, Some(error)),
                };
                if let Some(record) = task.change(|record| record.end(status, result, error)) {
                    task.persist(record).await;
                }
            }
            let id = task.snapshot().task_id;
            tasks.live().remove(&id);
        });
    }

    /// Task `id` as `caller` may see it. A task another process ran, still unended although
    /// that process stopped, ends `failed` now, saying so.
    pub(crate) async fn get(&self, id: &str, caller: Option<&str>) -> Result<TaskRecord, TaskError> {
        let live = self.live().get(id).cloned();
        let mut record = match live {
            Some(task) => return self.visible(task.snapshot(), caller),
            None => self.store.load(id).await.map_err(TaskError::Store)?.ok_or(TaskError::Unknown)?,
        };
        record = self.visible(record, caller)?;
        let orphaned = !record.status.is_terminal()
            && record.runner != self.runner
            && !self.store.runner_alive(&record.runner).await.map_err(TaskError::Store)?;
        if orphaned && record.end(TaskStatus::Failed, None, Some(runner_stopped())) {
            record.status_message = Some("The server instance running this task stopped".into());
            self.store.save(&record).await.map_err(TaskError::Store)?;
            self.changed(&record);
            // Another reader may have ended it first: what is kept is the answer.
            record = self.store.load(id).await.map_err(TaskError::Store)?.ok_or(TaskError::Unknown)?;
        }
        Ok(record)
    }

    /// `record` if `caller` may see it and it has not expired.
    fn visible(&self, record: TaskRecord, caller: Option<&str>) -> Result<TaskRecord, TaskError> {
        if record.owner.as_deref() != caller || record.expired(now_ms()) {
            return Err(TaskError::Unknown);
        }
        Ok(record)
    }

    /// `tasks/update`: the answers in `responses` go to the questions they name; keys that
    /// name no waiting question are ignored, and a task with questions left stays
    /// `input_required`.
    pub(crate) async fn update(
        &self,
        id: &str,
        caller: Option<&str>,
        responses: Map<String, Value>,
    ) -> Result<(), TaskError> {
        let record = self.get(id, caller).await?;
        let Some(task) = self.live().get(id).cloned() else {
            // Run by another process: its questions wait there.
            if record.status == TaskStatus::InputRequired
                && let Some(forward) = self.forward.get()
            {
                forward(Forwarded::Input { runner: record.runner, task_id: record.task_id, responses });
            }
            return Ok(());
        };
        if let Some(record) = task.answer(responses) {
            task.persist(record).await;
        }
        Ok(())
    }

    /// `tasks/cancel`: a task still running ends `cancelled` and its work is dropped; one that
    /// ended already stays as it ended.
    pub(crate) async fn cancel(&self, id: &str, caller: Option<&str>) -> Result<(), TaskError> {
        let record = self.get(id, caller).await?;
        let live = self.live().get(id).cloned();
        match live {
            Some(task) => task.stop().await,
            None if !record.status.is_terminal() => {
                // Kept, not ended, but run by another process: the end is kept now (an ending
                // save wins over the runner's later changes), and the runner stops the work.
                let mut record = record;
                if record.end(TaskStatus::Cancelled, None, None) {
                    self.store.save(&record).await.map_err(TaskError::Store)?;
                    self.changed(&record);
                    if let Some(forward) = self.forward.get() {
                        forward(Forwarded::Cancel { runner: record.runner, task_id: record.task_id });
                    }
                }
            }
            None => {}
        }
        Ok(())
    }

    fn changed(&self, record: &TaskRecord) {
        if let Some(on_change) = self.on_change.get() {
            on_change(record);
        }
    }
}

/// A task this process runs.
#[derive(Debug)]
pub(crate) struct LiveTask {
    tasks: Weak<Tasks>,
    state: Mutex<LiveState>,
    /// Cancelled when the client cancels the task: its handler's context follows it.
    pub(crate) cancel: CancelToken,
    /// The version last saved: saves go out in order, and an older one never follows a newer.
    saved: tokio::sync::Mutex<u64>,
}

#[derive(Debug)]
struct LiveState {
    record: TaskRecord,
    /// The questions waiting for answers, by key.
    waiting: HashMap<String, oneshot::Sender<Value>>,
    /// Every key used in this task: never used twice.
    keys: HashSet<String>,
}

impl LiveTask {
    fn lock(&self) -> std::sync::MutexGuard<'_, LiveState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The record as it is now.
    pub(crate) fn snapshot(&self) -> TaskRecord {
        self.lock().record.clone()
    }

    /// Applies `change` to the record; when it changed something (returned `true`), the
    /// record moves on a version and the new record is returned, to persist.
    fn change(&self, change: impl FnOnce(&mut TaskRecord) -> bool) -> Option<TaskRecord> {
        let mut state = self.lock();
        change(&mut state.record).then(|| {
            state.record.touch();
            state.record.clone()
        })
    }

    /// Saves `record` (unless a newer one was saved meanwhile) and tells of the change.
    pub(crate) async fn persist(&self, record: TaskRecord) {
        let Some(tasks) = self.tasks.upgrade() else { return };
        {
            let mut saved = self.saved.lock().await;
            if record.version <= *saved && record.version != 0 {
                return;
            }
            if let Err(e) = tasks.store.save(&record).await {
                tracing::error!(task = %record.task_id, error = %e, "a task's change could not be saved");
                return;
            }
            *saved = record.version;
        }
        tasks.changed(&record);
    }

    /// Persists `record` from where no one can wait (a handler's question or progress).
    fn persist_later(self: &Arc<Self>, record: TaskRecord) {
        let task = Arc::clone(self);
        tokio::spawn(async move { task.persist(record).await });
    }

    /// The client's answers: each to its waiting question, which leaves `inputRequests`.
    fn answer(&self, responses: Map<String, Value>) -> Option<TaskRecord> {
        let mut state = self.lock();
        let mut answered = false;
        for (key, answer) in responses {
            // An answer is a result object; anything else answers nothing.
            if !answer.is_object() {
                continue;
            }
            if let Some(waiting) = state.waiting.remove(&key) {
                state.record.input_requests.remove(&key);
                let _ = waiting.send(answer);
                answered = true;
            }
        }
        if !answered {
            return None;
        }
        if state.record.status == TaskStatus::InputRequired && state.record.input_requests.is_empty() {
            state.record.status = TaskStatus::Working;
        }
        state.record.touch();
        Some(state.record.clone())
    }

    /// Ends the task `cancelled` (unless it ended already) and stops its work: its context is
    /// cancelled and its questions stop waiting.
    async fn stop(&self) {
        let changed = self.change(|record| record.end(TaskStatus::Cancelled, None, None));
        self.cancel.cancel();
        self.lock().waiting.clear();
        if let Some(record) = changed {
            self.persist(record).await;
        }
    }
}

/// A handle a handler's context holds: `Arc<LiveTask>` as its [`TaskLink`].
#[derive(Debug)]
pub(crate) struct LinkOf(pub(crate) Arc<LiveTask>);

impl TaskLink for LinkOf {
    fn ask(&self, key: String, request: Value) -> oneshot::Receiver<Value> {
        let (tx, rx) = oneshot::channel();
        let record = {
            let mut state = self.0.lock();
            if state.record.status.is_terminal() {
                return rx;
            }
            let mut unique = key.clone();
            let mut n = 1;
            while state.keys.contains(&unique) {
                n += 1;
                unique = format!("{key}-{n}");
            }
            state.keys.insert(unique.clone());
            state.record.input_requests.insert(unique.clone(), request);
            state.waiting.insert(unique, tx);
            state.record.status = TaskStatus::InputRequired;
            state.record.touch();
            state.record.clone()
        };
        self.0.persist_later(record);
        rx
    }

    fn status(&self, message: String) {
        let changed = self.0.change(|record| {
            if record.status.is_terminal() || record.status_message.as_deref() == Some(message.as_str()) {
                return false;
            }
            record.status_message = Some(message);
            true
        });
        if let Some(record) = changed {
            self.0.persist_later(record);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tasks::store::MemoryTaskStore;

    #[tokio::test]
    async fn a_task_is_seen_only_by_the_caller_that_made_it() {
        let tasks = Tasks::new(Arc::new(MemoryTaskStore::default()), None, None, "here".into());
        let task = tasks.prepare(Some("alice".into()));
        tasks.create(&task).await.unwrap();
        let id = task.snapshot().task_id;
        assert_eq!(tasks.get(&id, Some("alice")).await.unwrap().owner(), Some("alice"));
        for stranger in [Some("bob"), None] {
            assert!(matches!(tasks.get(&id, stranger).await, Err(TaskError::Unknown)));
            assert!(matches!(tasks.cancel(&id, stranger).await, Err(TaskError::Unknown)));
            assert!(matches!(tasks.update(&id, stranger, Map::new()).await, Err(TaskError::Unknown)));
        }
        assert_eq!(tasks.get(&id, Some("alice")).await.unwrap().status(), TaskStatus::Working, "untouched");
    }

    #[tokio::test]
    async fn a_question_key_is_never_used_twice_in_a_task() {
        let tasks = Tasks::new(Arc::new(MemoryTaskStore::default()), None, None, "here".into());
        let task = tasks.prepare(None);
        tasks.create(&task).await.unwrap();
        let link = LinkOf(Arc::clone(&task));
        let first = link.ask("name".into(), serde_json::json!({"method": "elicitation/create"}));
        let mut answers = Map::new();
        answers.insert("name".into(), serde_json::json!({"action": "accept"}));
        assert!(task.answer(answers).is_some());
        assert_eq!(first.await.unwrap()["action"], "accept");
        let _second = link.ask("name".into(), serde_json::json!({"method": "elicitation/create"}));
        let keys: Vec<String> = task.snapshot().input_requests.keys().cloned().collect();
        assert_eq!(keys, ["name-2"]);
    }
}
