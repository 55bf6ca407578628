//! Where tasks are kept: behind a trait, like sessions and events, so that a store shared by
//! several processes lets any of them read, update and cancel a task another one runs.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::tasks::record::TaskRecord;
use crate::util::time::now_ms;
use crate::util::{BoxFuture, StoreError};

/// Why a task could not be kept.
#[derive(Debug)]
pub enum TaskStoreError {
    /// The store holds as many tasks as it may: the call is refused until some expire.
    Full {
        /// The most tasks it holds.
        limit: usize,
    },
    /// The store could not be reached (its backend is down, say).
    Unavailable(StoreError),
}

impl std::fmt::Display for TaskStoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TaskStoreError::Full { limit } => {
                write!(f, "the server holds {limit} tasks, the most it keeps; try again once some have expired")
            }
            TaskStoreError::Unavailable(e) => write!(f, "the task store cannot be reached: {e}"),
        }
    }
}

impl std::error::Error for TaskStoreError {}

impl From<StoreError> for TaskStoreError {
    fn from(error: StoreError) -> Self {
        TaskStoreError::Unavailable(error)
    }
}

/// Where the tasks of the tasks extension are kept. The server creates a task's record before
/// it answers the call that made it (so an immediate `tasks/get` finds it), saves it at every
/// change (status, status message, questions, the end), and reads it for `tasks/get`. A record
/// past its time to live ([`TaskRecord::expires_at`]) may be forgotten, and is never returned.
///
/// The default, [`MemoryTaskStore`], keeps them in the process.
pub trait TaskStore: Send + Sync + 'static {
    /// Keeps a new task; [`TaskStoreError::Full`] when the store holds its limit.
    fn create<'a>(&'a self, record: &'a TaskRecord) -> BoxFuture<'a, Result<(), TaskStoreError>>;

    /// Replaces task `record.task_id()` with `record` unless what is kept ended already, or
    /// is newer (a higher version) while `record` does not end the task: an ending (a cancel
    /// kept by another process than the runner, say) wins over changes the runner made
    /// meanwhile. [`TaskRecord::replaces`] is the rule.
    fn save<'a>(&'a self, record: &'a TaskRecord) -> BoxFuture<'a, Result<(), StoreError>>;

    /// Task `id`, if it is kept and not expired.
    fn load<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<TaskRecord>, StoreError>>;

    /// Told once, before this process keeps its first task, that the process `runner` runs
    /// tasks ([`TaskRecord::runner`]) from now on. A store shared by several processes keeps
    /// a sign of life for it, so that the others can tell when it stopped; the default does
    /// nothing (a store in memory is seen by its own process only).
    fn runner_started(&self, runner: &str) {
        let _ = runner;
    }

    /// Whether the process `runner` still runs (see [`TaskStore::runner_started`]): a task it
    /// ran that has not ended then never will, and is ended `failed` when next read. The
    /// default says it does.
    fn runner_alive<'a>(&'a self, runner: &'a str) -> BoxFuture<'a, Result<bool, StoreError>> {
        let _ = runner;
        Box::pin(async { Ok(true) })
    }
}

impl<S: TaskStore + ?Sized> TaskStore for Arc<S> {
    fn create<'a>(&'a self, record: &'a TaskRecord) -> BoxFuture<'a, Result<(), TaskStoreError>> {
        (**self).create(record)
    }

    fn save<'a>(&'a self, record: &'a TaskRecord) -> BoxFuture<'a, Result<(), StoreError>> {
        (**self).save(record)
    }

    fn load<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<TaskRecord>, StoreError>> {
        (**self).load(id)
    }

    fn runner_started(&self, runner: &str) {
        (**self).runner_started(runner);
    }

    fn runner_alive<'a>(&'a self, runner: &'a str) -> BoxFuture<'a, Result<bool, StoreError>> {
        (**self).runner_alive(runner)
    }
}

/// A store as the server holds it.
#[derive(Clone)]
pub(crate) struct SharedTaskStore(pub(crate) Arc<dyn TaskStore>);

impl std::fmt::Debug for SharedTaskStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TaskStore")
    }
}

/// The tasks this process made, in memory, at most a limit of them (expired ones are dropped
/// first to make room).
///
/// ```
/// use mcp_runtime::tasks::MemoryTaskStore;
/// use mcp_runtime::Server;
///
/// let server = Server::builder("reports", "1.0.0").task_store(MemoryTaskStore::with_limit(100));
/// # let _ = server;
/// ```
#[derive(Debug)]
pub struct MemoryTaskStore {
    limit: usize,
    tasks: Mutex<HashMap<String, TaskRecord>>,
}

/// How many tasks a [`MemoryTaskStore`] holds unless told otherwise.
pub const DEFAULT_TASK_LIMIT: usize = 1024;

impl Default for MemoryTaskStore {
    fn default() -> Self {
        MemoryTaskStore::with_limit(DEFAULT_TASK_LIMIT)
    }
}

impl MemoryTaskStore {
    /// A store holding at most `limit` tasks (at least one).
    pub fn with_limit(limit: usize) -> Self {
        MemoryTaskStore { limit: limit.max(1), tasks: Mutex::default() }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, TaskRecord>> {
        self.tasks.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl TaskStore for MemoryTaskStore {
    fn create<'a>(&'a self, record: &'a TaskRecord) -> BoxFuture<'a, Result<(), TaskStoreError>> {
        let mut tasks = self.lock();
        if tasks.len() >= self.limit {
            let now = now_ms();
            tasks.retain(|_, task| !task.expired(now));
        }
        let outcome = if tasks.len() >= self.limit {
            Err(TaskStoreError::Full { limit: self.limit })
        } else {
            tasks.insert(record.task_id.clone(), record.clone());
            Ok(())
        };
        Box::pin(async move { outcome })
    }

    fn save<'a>(&'a self, record: &'a TaskRecord) -> BoxFuture<'a, Result<(), StoreError>> {
        let mut tasks = self.lock();
        if let Some(kept) = tasks.get_mut(&record.task_id)
            && record.replaces(kept)
        {
            *kept = record.clone();
        }
        Box::pin(async { Ok(()) })
    }

    fn load<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<TaskRecord>, StoreError>> {
        let mut tasks = self.lock();
        let found = match tasks.get(id) {
            Some(task) if task.expired(now_ms()) => {
                tasks.remove(id);
                None
            }
            other => other.cloned(),
        };
        Box::pin(async move { Ok(found) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tasks::record::TaskStatus;

    fn block<T>(future: BoxFuture<'_, T>) -> T {
        tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(future)
    }

    #[test]
    fn a_full_store_refuses_until_a_task_expires() {
        let store = MemoryTaskStore::with_limit(2);
        let mut short = TaskRecord::new("a".into(), None, Some(0), None);
        short.created_at = 0;
        block(store.create(&short)).unwrap();
        block(store.create(&TaskRecord::new("b".into(), None, None, None))).unwrap();
        // `a` expired: it makes room.
        block(store.create(&TaskRecord::new("c".into(), None, None, None))).unwrap();
        let refused = block(store.create(&TaskRecord::new("d".into(), None, None, None))).unwrap_err();
        assert!(matches!(refused, TaskStoreError::Full { limit: 2 }), "{refused}");
        assert!(block(store.load("a")).unwrap().is_none());
        assert!(block(store.load("d")).unwrap().is_none());
    }

    #[test]
    fn a_save_never_goes_back_in_time_nor_past_the_end() {
        let store = MemoryTaskStore::default();
        let mut record = TaskRecord::new("t".into(), None, None, None);
        block(store.create(&record)).unwrap();
        let stale = record.clone();
        record.end(TaskStatus::Completed, Some(serde_json::json!({"content": []})), None);
        block(store.save(&record)).unwrap();
        block(store.save(&stale)).unwrap();
        assert_eq!(block(store.load("t")).unwrap().unwrap().status(), TaskStatus::Completed);
        let mut later = record.clone();
        later.status = TaskStatus::Working;
        later.version += 1;
        block(store.save(&later)).unwrap();
        assert_eq!(block(store.load("t")).unwrap().unwrap().status(), TaskStatus::Completed);
    }
}
