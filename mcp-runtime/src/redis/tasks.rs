//! [`TaskStore`] on Redis: the tasks of the tasks extension, shared by every instance, and a
//! sign of life per instance that runs tasks, so that the others can end its unended tasks
//! `failed` once it stopped.
//!
//! Keys: `{prefix}:task:{id}` (the record, as JSON, expiring with the task's time to live),
//! `{prefix}:tasks:index` (a sorted set of the kept ids, scored by expiry: the store's limit
//! counts it) and `{prefix}:runner:{id}` (an instance's sign of life, refreshed every second and
//! gone five seconds after it stopped).

use std::sync::{Arc, Weak};
use std::time::Duration;

use ::redis::Script;

use super::{Redis, set_expiring};
use crate::tasks::{DEFAULT_TASK_LIMIT, TaskRecord, TaskStore, TaskStoreError};
use crate::util::time::now_ms;
use crate::util::{BoxFuture, StoreError};

/// How often a running instance renews its sign of life.
const HEARTBEAT: Duration = Duration::from_secs(1);
/// How long a sign of life lasts unrenewed.
const HEARTBEAT_KEPT: Duration = Duration::from_secs(5);

/// Keeps a new task unless the store holds its limit of unexpired ones (a second call for the
/// same task, after a lost answer, finds it kept).
/// KEYS: index, task. ARGV: now, limit, record, ttl in ms (0: none), expiry score, id.
const CREATE: &str = r"
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZSCORE', KEYS[1], ARGV[6]) then return 1 end
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
if tonumber(ARGV[4]) > 0 then
  redis.call('SET', KEYS[2], ARGV[3], 'PX', ARGV[4])
else
  redis.call('SET', KEYS[2], ARGV[3])
end
redis.call('ZADD', KEYS[1], ARGV[5], ARGV[6])
return 1
";

/// Replaces a kept task as [`TaskRecord::replaces`] says: never once it ended; otherwise when
/// the new record is newer or ends it. KEYS: task. ARGV: record, version, whether it ends.
const SAVE: &str = r"
local kept = redis.call('GET', KEYS[1])
if not kept then return 0 end
local record = cjson.decode(kept)
local status = record['status']
if status == 'completed' or status == 'failed' or status == 'cancelled' then return 0 end
if ARGV[3] ~= '1' and (tonumber(record['version']) or 0) >= tonumber(ARGV[2]) then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'KEEPTTL')
return 1
";

/// [`TaskStore`] on Redis, made by [`Redis::task_store`]: any instance reads, updates and
/// cancels a task another one runs (the work stays where it started; answers and
/// cancellations reach it over the change bus, which must be Redis's too). Holds at most
/// [`DEFAULT_TASK_LIMIT`] unexpired tasks unless [`RedisTaskStore::with_limit`] says otherwise.
#[derive(Debug, Clone)]
pub struct RedisTaskStore {
    redis: Redis,
    limit: usize,
    /// Shared by the store's clones: the sign of life is renewed while one is left.
    scripts: Arc<Scripts>,
}

#[derive(Debug)]
struct Scripts {
    create: Script,
    save: Script,
}

impl Redis {
    /// The tasks of the tasks extension, for [`Server::task_store`](crate::Server::task_store).
    /// Pair it with [`Redis::change_bus`], which carries a client's answers and
    /// cancellations to the instance running the task.
    pub fn task_store(&self) -> RedisTaskStore {
        let scripts = Arc::new(Scripts { create: Script::new(CREATE), save: Script::new(SAVE) });
        RedisTaskStore { redis: self.clone(), limit: DEFAULT_TASK_LIMIT, scripts }
    }
}

impl RedisTaskStore {
    /// Holds at most `limit` unexpired tasks (at least one), across every instance: past it, a
    /// task-augmented call is refused until some expire.
    #[must_use]
    pub fn with_limit(mut self, limit: usize) -> Self {
        self.limit = limit.max(1);
        self
    }

    fn task_key(&self, id: &str) -> String {
        self.redis.key("task", id)
    }

    fn runner_key(&self, runner: &str) -> String {
        self.redis.key("runner", runner)
    }
}

impl TaskStore for RedisTaskStore {
    fn create<'a>(&'a self, record: &'a TaskRecord) -> BoxFuture<'a, Result<(), TaskStoreError>> {
        Box::pin(async move {
            let json = serde_json::to_string(record).map_err(|e| TaskStoreError::Unavailable(e.into()))?;
            let now = now_ms();
            let (ttl, score) = match record.expires_at() {
                Some(at) => (at.saturating_sub(now).max(1), at.to_string()),
                None => (0, "+inf".to_owned()),
            };
            // Retried after a dropped connection: a second call finds the task kept.
            let mut call = self.scripts.create.prepare_invoke();
            call.key(self.redis.key("tasks", "index"))
                .key(self.task_key(record.task_id()))
                .arg(now)
                .arg(self.limit)
                .arg(json)
                .arg(ttl)
                .arg(score)
                .arg(record.task_id());
            let kept: i64 = self.redis.query(&call).await.map_err(|e| TaskStoreError::Unavailable(e.into()))?;
            if kept == 0 {
                return Err(TaskStoreError::Full { limit: self.limit });
            }
            Ok(())
        })
    }

    fn save<'a>(&'a self, record: &'a TaskRecord) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            let json = serde_json::to_string(record)?;
            let ends = if record.status().is_terminal() { "1" } else { "0" };
            // Retried after a dropped connection: the version makes a second call a no-op.
            let mut call = self.scripts.save.prepare_invoke();
            call.key(self.task_key(record.task_id())).arg(json).arg(record.version).arg(ends);
            let _saved: i64 = self.redis.query(&call).await?;
            Ok(())
        })
    }

    fn load<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<TaskRecord>, StoreError>> {
        Box::pin(async move {
            let json: Option<String> = self.redis.query(::redis::cmd("GET").arg(self.task_key(id))).await?;
            let record: Option<TaskRecord> = json.map(|json| serde_json::from_str(&json)).transpose()?;
            Ok(record.filter(|record| !record.expired(now_ms())))
        })
    }

    fn runner_started(&self, runner: &str) {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            tracing::error!("the Redis task store was first used outside a Tokio runtime: no sign of life is kept");
            return;
        };
        runtime.spawn(keep_alive(self.redis.clone(), Arc::downgrade(&self.scripts), self.runner_key(runner)));
    }

    fn runner_alive<'a>(&'a self, runner: &'a str) -> BoxFuture<'a, Result<bool, StoreError>> {
        Box::pin(async move {
            let key = self.runner_key(runner);
            for attempt in 0..2 {
                let alive: bool = self.redis.query(::redis::cmd("EXISTS").arg(&key)).await?;
                if alive {
                    return Ok(true);
                }
                // Gone, or not renewed yet after a Redis outage: asked again after longer than
                // a renewal takes, before the tasks of a live instance are ended.
                if attempt == 0 {
                    tokio::time::sleep(HEARTBEAT * 2).await;
                }
            }
            Ok(false)
        })
    }
}

/// Renews `key`, this instance's sign of life, every [`HEARTBEAT`] until the store is dropped.
async fn keep_alive(redis: Redis, store: Weak<Scripts>, key: String) {
    let mut ticks = tokio::time::interval(HEARTBEAT);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut failing = false;
    loop {
        ticks.tick().await;
        if store.strong_count() == 0 {
            return;
        }
        let renewed: Result<(), ::redis::RedisError> = redis.query(&set_expiring(&key, 1, HEARTBEAT_KEPT)).await;
        match renewed {
            Ok(()) if failing => {
                tracing::info!("the task runner's sign of life is renewed on Redis again");
                failing = false;
            }
            Ok(()) => {}
            Err(e) if !failing => {
                tracing::warn!(error = %e, "the task runner's sign of life could not be renewed on Redis; retrying");
                failing = true;
            }
            Err(_) => {}
        }
    }
}
