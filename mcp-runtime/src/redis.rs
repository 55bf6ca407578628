//! Redis behind the four things several instances of a server share: the handshake-era
//! sessions ([`SessionStore`]), the events of resumable SSE streams ([`EventStore`]), the
//! change bus ([`ChangeBus`](crate::changes::ChangeBus)) and the tasks ([`RedisTaskStore`]).
//! With all of them on one Redis, any instance behind a load balancer serves any session, a
//! client resumes a broken stream on any instance, a change made on one instance (a resource
//! updated, an item disabled) reaches the clients of all of them, and any instance reads,
//! answers and cancels any task.
//!
//! Keys live under a prefix (`mcp` unless [`Redis::with_prefix`] says otherwise):
//! `{prefix}:session:{id}` (the session record, as JSON, expiring with the session's idle
//! timeout), `{prefix}:events:{stream}` (a Redis stream of at most about 1,024 events, kept an
//! hour after its last event), `{prefix}:named:{stream}` (the change notices that stream
//! keeps, by name, so that each is kept once however many instances tell it),
//! `{prefix}:sent:{stream}` (the last entry a connection reading it was sent), and the stream
//! `{prefix}:changes` (the change bus: about the last 10,000 notices).
//!
//! ```no_run
//! use mcp_runtime::redis::Redis;
//! use mcp_runtime::http::HttpOptions;
//! use mcp_runtime::Server;
//!
//! # async fn serve() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
//! let redis = Redis::connect("redis://127.0.0.1:6379/").await?;
//! let options = HttpOptions::default()
//!     .session_store(redis.session_store())
//!     .event_store(redis.event_store());
//! Server::new("notes", "1.0.0")
//!     .change_bus(redis.change_bus().await?)
//!     .serve_http_with("0.0.0.0:8080", options)
//!     .await?;
//! # Ok(())
//! # }
//! ```

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use ::redis::aio::ConnectionManager;
use ::redis::{Client, FromRedisValue, Script};

use crate::transport::http::event_store::{EventStore, StoredEvents};
use crate::transport::http::session_store::{SessionRecord, SessionStore};
use crate::util::BoxFuture;
use crate::util::StoreError;

mod bus;
mod tasks;

pub use bus::RedisChangeBus;
pub use tasks::RedisTaskStore;

/// Events kept per stream, about (Redis trims whole nodes: `MAXLEN ~`).
const EVENTS_PER_STREAM: usize = 1_024;
/// How long a stream's events are kept after its last one.
const EVENTS_KEPT: Duration = Duration::from_secs(3_600);
/// How long a command's second try may take, after its connection dropped (see `Redis::query`).
const RETRY_WITHIN: Duration = Duration::from_millis(250);

/// A connection to Redis (reconnecting by itself) and the key prefix: makes the four shared
/// pieces. Cloning is cheap and shares the connection.
#[derive(Clone)]
pub struct Redis {
    client: Client,
    connection: ConnectionManager,
    prefix: Arc<str>,
}

impl std::fmt::Debug for Redis {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Redis").field("prefix", &self.prefix).finish_non_exhaustive()
    }
}

impl Redis {
    /// Connects to the Redis at `url` (`redis://host:port/db`, `rediss://` without TLS
    /// support compiled in is refused).
    pub async fn connect(url: &str) -> Result<Redis, StoreError> {
        let client = Client::open(url)?;
        // One quick try to connect again when the connection drops: while Redis is down, a
        // request that needs it is refused within a fraction of a second (503, to retry) rather
        // than waiting out several seconds of attempts; the next command tries again.
        let config = ::redis::aio::ConnectionManagerConfig::new()
            .set_number_of_retries(1)
            .set_min_delay(Duration::from_millis(50))
            .set_max_delay(Duration::from_millis(200));
        let connection = client.get_connection_manager_with_config(config).await?;
        Ok(Redis { client, connection, prefix: Arc::from("mcp") })
    }

    /// Keeps every key under `prefix` (default `mcp`): servers that must not share their
    /// sessions use different prefixes on one Redis.
    #[must_use]
    pub fn with_prefix(mut self, prefix: &str) -> Redis {
        self.prefix = Arc::from(prefix);
        self
    }

    /// The handshake-era sessions, for [`HttpOptions::session_store`](crate::http::HttpOptions::session_store).
    pub fn session_store(&self) -> RedisSessionStore {
        RedisSessionStore { redis: self.clone() }
    }

    /// The events of resumable streams, for [`HttpOptions::event_store`](crate::http::HttpOptions::event_store).
    pub fn event_store(&self) -> RedisEventStore {
        RedisEventStore {
            redis: self.clone(),
            append_once: Arc::new(Script::new(APPEND_ONCE)),
            unsent: Arc::new(Script::new(UNSENT)),
        }
    }

    /// Pings the server: for the stores' readiness checks.
    async fn ping(&self) -> Result<(), StoreError> {
        let _pong: String = self.query(&::redis::cmd("PING")).await?;
        Ok(())
    }

    /// Runs `query` on the shared connection, and once more when it failed because the
    /// connection had dropped: the connection is made again on that first failure, so that a
    /// request arriving just after a network fault or a Redis restart is not failed for it.
    /// The second try gets [`RETRY_WITHIN`]: while Redis is down, the first error is the
    /// answer, at once. Only for what may run twice: a retried write whose answer was lost
    /// would be written twice.
    async fn query<T: FromRedisValue + Send>(&self, query: &impl Query) -> ::redis::RedisResult<T> {
        let mut connection = self.connection.clone();
        match query.run(&mut connection).await {
            Err(e) if e.is_unrecoverable_error() => {
                tokio::time::timeout(RETRY_WITHIN, query.run(&mut connection)).await.unwrap_or(Err(e))
            }
            done => done,
        }
    }

    fn key(&self, kind: &str, name: &str) -> String {
        format!("{}:{kind}:{name}", self.prefix)
    }
}

/// What [`Redis::query`] runs: a command, a pipeline or a script's call.
trait Query: Sync {
    fn run<'a, T: FromRedisValue + Send + 'a>(
        &'a self,
        connection: &'a mut ConnectionManager,
    ) -> BoxFuture<'a, ::redis::RedisResult<T>>;
}

impl Query for ::redis::Cmd {
    fn run<'a, T: FromRedisValue + Send + 'a>(
        &'a self,
        connection: &'a mut ConnectionManager,
    ) -> BoxFuture<'a, ::redis::RedisResult<T>> {
        Box::pin(self.query_async(connection))
    }
}

impl Query for ::redis::Pipeline {
    fn run<'a, T: FromRedisValue + Send + 'a>(
        &'a self,
        connection: &'a mut ConnectionManager,
    ) -> BoxFuture<'a, ::redis::RedisResult<T>> {
        Box::pin(self.query_async(connection))
    }
}

impl Query for ::redis::ScriptInvocation<'_> {
    fn run<'a, T: FromRedisValue + Send + 'a>(
        &'a self,
        connection: &'a mut ConnectionManager,
    ) -> BoxFuture<'a, ::redis::RedisResult<T>> {
        Box::pin(self.invoke_async(connection))
    }
}

/// The entries of a Redis stream as `XRANGE` gives them: each one's id and fields.
type StreamEntries = Vec<(String, HashMap<String, Vec<u8>>)>;

/// `SET key value PX ttl`: a value that expires.
fn set_expiring(key: &str, value: impl ::redis::ToRedisArgs, ttl: Duration) -> ::redis::Cmd {
    let mut set = ::redis::cmd("SET");
    set.arg(key).arg(value).arg("PX").arg(millis(ttl));
    set
}

/// Milliseconds for Redis, at least one (`PX 0` is an error).
fn millis(ttl: Duration) -> u64 {
    u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX).max(1)
}

/// [`SessionStore`] on Redis: one JSON value per session, expiring with it.
#[derive(Debug, Clone)]
pub struct RedisSessionStore {
    redis: Redis,
}

impl SessionStore for RedisSessionStore {
    fn save<'a>(
        &'a self,
        id: &'a str,
        record: &'a SessionRecord,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            let json = serde_json::to_string(record)?;
            let () = self.redis.query(&set_expiring(&self.redis.key("session", id), json, ttl)).await?;
            Ok(())
        })
    }

    fn load<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<SessionRecord>, StoreError>> {
        Box::pin(async move {
            let json: Option<String> = self.redis.query(::redis::cmd("GET").arg(self.redis.key("session", id))).await?;
            Ok(json.map(|json| serde_json::from_str(&json)).transpose()?)
        })
    }

    fn touch<'a>(&'a self, id: &'a str, ttl: Duration) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            let _kept: bool =
                self.redis.query(::redis::cmd("PEXPIRE").arg(self.redis.key("session", id)).arg(millis(ttl))).await?;
            Ok(())
        })
    }

    fn remove<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            let _removed: usize = self.redis.query(::redis::cmd("DEL").arg(self.redis.key("session", id))).await?;
            Ok(())
        })
    }

    fn check(&self) -> BoxFuture<'_, Result<(), StoreError>> {
        Box::pin(self.redis.ping())
    }
}

/// [`EventStore`] on Redis: a Redis stream per SSE stream; an event id is the SSE stream's id,
/// `_`, and the entry's Redis id.
#[derive(Debug, Clone)]
pub struct RedisEventStore {
    redis: Redis,
    append_once: Arc<Script>,
    unsent: Arc<Script>,
}

/// [`EventStore::unsent`]: the entries after the one noted sent, or all. KEYS: the stream,
/// the entry noted sent.
const UNSENT: &str = r"
local sent = redis.call('GET', KEYS[2])
if sent then return redis.call('XRANGE', KEYS[1], '(' .. sent, '+') end
return redis.call('XRANGE', KEYS[1], '-', '+')
";

/// [`EventStore::append_once`] in one step: the stream's entry for the name if it has one,
/// else a new entry, noted under the name. KEYS: the stream, its names; ARGV: the name, the
/// data, the events kept, how long (ms). Returns the entry's id and 1 when it is new.
const APPEND_ONCE: &str = r"
local kept = redis.call('HGET', KEYS[2], ARGV[1])
if kept then return {kept, 0} end
local id = redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[3], '*', 'd', ARGV[2])
redis.call('HSET', KEYS[2], ARGV[1], id)
redis.call('PEXPIRE', KEYS[1], ARGV[4])
if redis.call('HLEN', KEYS[2]) > 2 * tonumber(ARGV[3]) then
  -- Names far older than the events kept: forgotten, all but this one.
  redis.call('DEL', KEYS[2])
  redis.call('HSET', KEYS[2], ARGV[1], id)
end
redis.call('PEXPIRE', KEYS[2], ARGV[4])
return {id, 1}
";

impl EventStore for RedisEventStore {
    fn append<'a>(&'a self, stream: &'a str, data: &'a [u8]) -> BoxFuture<'a, Result<String, StoreError>> {
        Box::pin(async move {
            let key = self.redis.key("events", stream);
            // Not retried (see `Redis::query`): a lost answer would leave the event twice.
            let mut connection = self.redis.connection.clone();
            let (entry, _kept): (String, bool) = ::redis::pipe()
                .atomic()
                .cmd("XADD")
                .arg(&key)
                .arg("MAXLEN")
                .arg("~")
                .arg(EVENTS_PER_STREAM)
                .arg("*")
                .arg("d")
                .arg(data)
                .cmd("PEXPIRE")
                .arg(&key)
                .arg(millis(EVENTS_KEPT))
                .query_async(&mut connection)
                .await?;
            Ok(format!("{stream}_{entry}"))
        })
    }

    fn append_once<'a>(
        &'a self,
        stream: &'a str,
        name: &'a str,
        data: &'a [u8],
    ) -> BoxFuture<'a, Result<(String, bool), StoreError>> {
        Box::pin(async move {
            // Retried: the name makes a second call find the first one's event.
            let mut call = self.append_once.prepare_invoke();
            call.key(self.redis.key("events", stream))
                .key(self.redis.key("named", stream))
                .arg(name)
                .arg(data)
                .arg(EVENTS_PER_STREAM)
                .arg(millis(EVENTS_KEPT));
            let (entry, new): (String, i64) = self.redis.query(&call).await?;
            Ok((format!("{stream}_{entry}"), new == 1))
        })
    }

    fn mark_sent<'a>(&'a self, stream: &'a str, event_id: &'a str) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            let Some((_, entry)) = event_id.rsplit_once('_').filter(|(_, entry)| is_entry_id(entry)) else {
                return Ok(());
            };
            let () = self.redis.query(&set_expiring(&self.redis.key("sent", stream), entry, EVENTS_KEPT)).await?;
            Ok(())
        })
    }

    fn unsent<'a>(&'a self, stream: &'a str) -> BoxFuture<'a, Result<Option<StoredEvents>, StoreError>> {
        Box::pin(async move {
            let mut call = self.unsent.prepare_invoke();
            call.key(self.redis.key("events", stream)).key(self.redis.key("sent", stream));
            let entries: StreamEntries = self.redis.query(&call).await?;
            Ok(Some(stored(stream, entries)))
        })
    }

    fn after<'a>(&'a self, last_event_id: &'a str) -> BoxFuture<'a, Result<Option<StoredEvents>, StoreError>> {
        Box::pin(async move {
            let Some((stream, entry)) = last_event_id.rsplit_once('_') else { return Ok(None) };
            if !is_entry_id(entry) {
                return Ok(None);
            }
            let key = self.redis.key("events", stream);
            let mut read = ::redis::pipe();
            read.cmd("EXISTS").arg(&key);
            // `(` excludes the entry itself.
            read.cmd("XRANGE").arg(&key).arg(format!("({entry}")).arg("+");
            let (exists, entries): (bool, StreamEntries) = self.redis.query(&read).await?;
            if !exists {
                return Ok(None);
            }
            Ok(Some(stored(stream, entries)))
        })
    }
    fn forget<'a>(&'a self, streams: &'a [String]) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            let keys: Vec<String> = streams
                .iter()
                .flat_map(|stream| ["events", "named", "sent"].map(|kind| self.redis.key(kind, stream)))
                .collect();
            let _removed: usize = self.redis.query(::redis::cmd("DEL").arg(keys)).await?;
            Ok(())
        })
    }

    fn check(&self) -> BoxFuture<'_, Result<(), StoreError>> {
        Box::pin(self.redis.ping())
    }
}

/// A Redis stream's entries as the events of `stream`.
fn stored(stream: &str, entries: StreamEntries) -> StoredEvents {
    entries
        .into_iter()
        .map(|(entry, mut fields)| (format!("{stream}_{entry}"), fields.remove("d").unwrap_or_default()))
        .collect()
}

/// Whether `entry` is a Redis stream entry id (`millis-seq`): anything else from a client is
/// not sent to Redis.
fn is_entry_id(entry: &str) -> bool {
    entry.split_once('-').is_some_and(|(ms, seq)| {
        [ms, seq].iter().all(|part| !part.is_empty() && part.len() <= 20 && part.bytes().all(|b| b.is_ascii_digit()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_entry_ids_reach_redis() {
        assert!(is_entry_id("1712345678901-0"));
        assert!(!is_entry_id("1712345678901"));
        assert!(!is_entry_id("-0"));
        assert!(!is_entry_id("1-2 +"));
        assert!(!is_entry_id("1-x"));
    }
}
