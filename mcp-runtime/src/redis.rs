//! Redis behind the three things several instances of a server share: the handshake-era
//! sessions ([`SessionStore`]), the events of resumable SSE streams ([`EventStore`]) and the
//! change bus ([`ChangeBus`]). With all three on one Redis, any instance behind a load balancer
//! serves any session, a client resumes a broken stream on any instance, and a change made on
//! one instance (a resource updated, an item disabled) reaches the clients of all of them.
//!
//! Keys live under a prefix (`mcp` unless [`Redis::with_prefix`] says otherwise):
//! `{prefix}:session:{id}` (the session record, as JSON, expiring with the session's idle
//! timeout), `{prefix}:events:{stream}` (a Redis stream of at most about 1,024 events, kept an
//! hour after its last event) and the pub/sub channel `{prefix}:changes`.
//!
//! ```no_run
//! use mcp_runtime::redis::Redis;
//! use mcp_runtime::{HttpOptions, Server};
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
use ::redis::{AsyncCommands as _, Client};
use futures_util::StreamExt as _;
use tokio::sync::mpsc;

use crate::server::changes::{ChangeBus, ChangeNotice, ChangeSink, Sinks};
use crate::transport::http::event_store::{EventStore, StoredEvents};
use crate::transport::http::session_store::{SessionRecord, SessionStore, StoreError};
use crate::util::BoxFuture;

mod tasks;

pub use tasks::RedisTaskStore;

/// Events kept per stream, about (Redis trims whole nodes: `MAXLEN ~`).
const EVENTS_PER_STREAM: usize = 1_024;
/// How long a stream's events are kept after its last one.
const EVENTS_KEPT: Duration = Duration::from_secs(3_600);
/// How long the change bus waits before subscribing again after losing its connection.
const RESUBSCRIBE_AFTER: Duration = Duration::from_secs(1);

/// A connection to Redis (reconnecting by itself) and the key prefix: makes the three shared
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
        let connection = client.get_connection_manager().await?;
        Ok(Redis { client, connection, prefix: Arc::from("mcp") })
    }

    /// Keeps every key under `prefix` (default `mcp`): servers that must not share their
    /// sessions use different prefixes on one Redis.
    #[must_use]
    pub fn with_prefix(mut self, prefix: &str) -> Redis {
        self.prefix = Arc::from(prefix);
        self
    }

    /// The handshake-era sessions, for [`HttpOptions::session_store`](crate::HttpOptions::session_store).
    pub fn session_store(&self) -> RedisSessionStore {
        RedisSessionStore { redis: self.clone() }
    }

    /// The events of resumable streams, for [`HttpOptions::event_store`](crate::HttpOptions::event_store).
    pub fn event_store(&self) -> RedisEventStore {
        RedisEventStore { redis: self.clone() }
    }

    /// The change bus, for [`Server::change_bus`](crate::Server::change_bus): subscribed
    /// before it returns, so that nothing published after is missed.
    pub async fn change_bus(&self) -> Result<RedisChangeBus, StoreError> {
        let channel = format!("{}:changes", self.prefix);
        let mut pubsub = self.client.get_async_pubsub().await?;
        pubsub.subscribe(&channel).await?;
        let sinks: Arc<Sinks> = Arc::default();
        tokio::spawn(hear(self.client.clone(), channel.clone(), pubsub, Arc::clone(&sinks)));
        let (outgoing, queue) = mpsc::unbounded_channel();
        tokio::spawn(announce(self.connection.clone(), channel, queue));
        Ok(RedisChangeBus { outgoing, sinks })
    }

    /// Pings the server: for the stores' readiness checks.
    async fn ping(&self) -> Result<(), StoreError> {
        let mut connection = self.connection.clone();
        let _pong: String = ::redis::cmd("PING").query_async(&mut connection).await?;
        Ok(())
    }

    fn key(&self, kind: &str, name: &str) -> String {
        format!("{}:{kind}:{name}", self.prefix)
    }
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
            let mut connection = self.redis.connection.clone();
            let () = connection.pset_ex(self.redis.key("session", id), json, millis(ttl)).await?;
            Ok(())
        })
    }

    fn load<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<SessionRecord>, StoreError>> {
        Box::pin(async move {
            let mut connection = self.redis.connection.clone();
            let json: Option<String> = connection.get(self.redis.key("session", id)).await?;
            Ok(json.map(|json| serde_json::from_str(&json)).transpose()?)
        })
    }

    fn touch<'a>(&'a self, id: &'a str, ttl: Duration) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            let mut connection = self.redis.connection.clone();
            let _kept: bool = connection.pexpire(self.redis.key("session", id), millis(ttl) as i64).await?;
            Ok(())
        })
    }

    fn remove<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            let mut connection = self.redis.connection.clone();
            let _removed: usize = connection.del(self.redis.key("session", id)).await?;
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
}

impl EventStore for RedisEventStore {
    fn append<'a>(&'a self, stream: &'a str, data: &'a [u8]) -> BoxFuture<'a, Result<String, StoreError>> {
        Box::pin(async move {
            let key = self.redis.key("events", stream);
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

    fn after<'a>(&'a self, last_event_id: &'a str) -> BoxFuture<'a, Result<Option<StoredEvents>, StoreError>> {
        Box::pin(async move {
            let Some((stream, entry)) = last_event_id.rsplit_once('_') else { return Ok(None) };
            if !is_entry_id(entry) {
                return Ok(None);
            }
            let key = self.redis.key("events", stream);
            let mut connection = self.redis.connection.clone();
            type Entries = Vec<(String, HashMap<String, Vec<u8>>)>;
            let (exists, entries): (bool, Entries) = ::redis::pipe()
                .cmd("EXISTS")
                .arg(&key)
                // `(` excludes the entry itself.
                .cmd("XRANGE")
                .arg(&key)
                .arg(format!("({entry}"))
                .arg("+")
                .query_async(&mut connection)
                .await?;
            if !exists {
                return Ok(None);
            }
            Ok(Some(
                entries
                    .into_iter()
                    .map(|(entry, mut fields)| (format!("{stream}_{entry}"), fields.remove("d").unwrap_or_default()))
                    .collect(),
            ))
        })
    }
    fn forget<'a>(&'a self, streams: &'a [String]) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            let keys: Vec<String> = streams.iter().map(|stream| self.redis.key("events", stream)).collect();
            let mut connection = self.redis.connection.clone();
            let _removed: usize = connection.del(keys).await?;
            Ok(())
        })
    }

    fn check(&self) -> BoxFuture<'_, Result<(), StoreError>> {
        Box::pin(self.redis.ping())
    }
}

/// Whether `entry` is a Redis stream entry id (`millis-seq`): anything else from a client is
/// not sent to Redis.
fn is_entry_id(entry: &str) -> bool {
    entry.split_once('-').is_some_and(|(ms, seq)| {
        [ms, seq].iter().all(|part| !part.is_empty() && part.len() <= 20 && part.bytes().all(|b| b.is_ascii_digit()))
    })
}

/// [`ChangeBus`] on Redis pub/sub: notices are published, in order, by a task of their own,
/// and heard by another that resubscribes when its connection breaks (notices published while
/// it is down are lost, as pub/sub does; each is logged where it fails).
#[derive(Debug)]
pub struct RedisChangeBus {
    outgoing: mpsc::UnboundedSender<ChangeNotice>,
    sinks: Arc<Sinks>,
}

impl ChangeBus for RedisChangeBus {
    fn publish(&self, notice: ChangeNotice) {
        // The task ends only with the runtime.
        let _ = self.outgoing.send(notice);
    }

    fn subscribe(&self, sink: ChangeSink) {
        self.sinks.add(sink);
    }
}

/// Publishes the queued notices one after the other.
async fn announce(
    mut connection: ConnectionManager,
    channel: String,
    mut queue: mpsc::UnboundedReceiver<ChangeNotice>,
) {
    while let Some(notice) = queue.recv().await {
        let sent: Result<usize, StoreError> = match serde_json::to_string(&notice) {
            Ok(json) => connection.publish(&channel, json).await.map_err(Into::into),
            Err(e) => Err(e.into()),
        };
        if let Err(e) = sent {
            tracing::warn!(error = %e, ?notice, "a change notice could not be published on Redis");
        }
    }
}

/// Hands every notice heard on `channel` to the sinks, subscribing again when the connection
/// breaks.
async fn hear(client: Client, channel: String, first: ::redis::aio::PubSub, sinks: Arc<Sinks>) {
    let mut pubsub = Some(first);
    loop {
        let Some(mut connected) = pubsub.take() else {
            tokio::time::sleep(RESUBSCRIBE_AFTER).await;
            pubsub = match client.get_async_pubsub().await {
                Ok(mut again) => match again.subscribe(&channel).await {
                    Ok(()) => Some(again),
                    Err(e) => {
                        tracing::warn!(error = %e, "subscribing to Redis change notices failed; retrying");
                        None
                    }
                },
                Err(e) => {
                    tracing::warn!(error = %e, "reconnecting to Redis for change notices failed; retrying");
                    None
                }
            };
            continue;
        };
        let mut messages = connected.on_message();
        while let Some(message) = messages.next().await {
            let notice: ChangeNotice = match serde_json::from_slice(message.get_payload_bytes()) {
                Ok(notice) => notice,
                Err(e) => {
                    tracing::warn!(error = %e, "a change notice on Redis could not be read; skipped");
                    continue;
                }
            };
            sinks.deliver(&notice);
        }
        tracing::warn!("the Redis connection for change notices closed; subscribing again");
    }
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
