//! The change bus on a Redis stream (`{prefix}:changes`): each notice is an entry, and each
//! instance reads the stream from where it last read, so that what is published while it
//! reconnects (or while Redis restarts, for a Redis that keeps its data) reaches it once it is
//! back. A publisher keeps what Redis could not take and sends it, in order, when Redis is
//! back. Delivery is at least once (an entry whose acknowledgement was lost is sent again);
//! each notice's origin and number let the reader drop what it delivered already.

use std::collections::{BTreeSet, HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use ::redis::aio::{ConnectionManager, MultiplexedConnection};
use ::redis::{AsyncConnectionConfig, Client};
use tokio::sync::mpsc;

use super::{Redis, StreamEntries};
use crate::server::changes::{ChangeBus, ChangeNotice, ChangeSink, Sinks};
use crate::util::StoreError;

/// Notices the stream keeps, about (`MAXLEN ~`): an instance away from Redis while more than
/// this many are published misses the oldest of them.
const NOTICES_KEPT: usize = 10_000;
/// Notices a publisher keeps while Redis is away, at most; past it the oldest go (logged).
const UNPUBLISHED_KEPT: usize = 100_000;
/// Notices sent to Redis in one round trip, at most.
const PUBLISHED_AT_ONCE: usize = 64;
/// How long one read waits for a notice before asking again (a broken connection is seen at
/// the latest a few seconds after that).
const READ_WAIT: Duration = Duration::from_secs(5);
/// How long the reader waits before connecting again after losing its connection.
const RECONNECT_AFTER: Duration = Duration::from_secs(1);
/// How long a publisher waits between tries while Redis is away: at first, and at most.
const RETRY_FIRST: Duration = Duration::from_millis(50);
const RETRY_MOST: Duration = Duration::from_secs(1);
/// Publishers whose notices' numbers a reader remembers; the first heard is forgotten first.
const ORIGINS_KEPT: usize = 4_096;
/// Numbers remembered per publisher above the highest number below which all count as heard:
/// notices published concurrently may reach the bus slightly out of order.
const NUMBERS_KEPT: usize = 1_024;

impl Redis {
    /// The change bus, for [`Server::change_bus`](crate::Server::change_bus), on a Redis
    /// stream: it reads from the stream's end as it is when this returns, so that nothing
    /// published after is missed, even while its connection is down.
    pub async fn change_bus(&self) -> Result<RedisChangeBus, StoreError> {
        let key = format!("{}:changes", self.prefix);
        let mut reading = reading_connection(&self.client).await?;
        let last: StreamEntries =
            ::redis::cmd("XREVRANGE").arg(&key).arg("+").arg("-").arg("COUNT").arg(1).query_async(&mut reading).await?;
        let from = last.into_iter().next().map_or_else(|| "0-0".to_owned(), |(id, _)| id);
        let sinks: Arc<Sinks> = Arc::default();
        let delivered: Arc<Delivered> = Arc::default();
        tokio::spawn(hear(self.client.clone(), reading, key.clone(), from, Arc::clone(&sinks), Arc::clone(&delivered)));
        let (outgoing, queue) = mpsc::unbounded_channel();
        tokio::spawn(announce(self.connection.clone(), key, queue));
        Ok(RedisChangeBus { outgoing, sinks, delivered })
    }
}

/// A connection of its own for the blocking reads (they would hold up every other command on
/// a shared one), waiting for an answer longer than a read waits.
async fn reading_connection(client: &Client) -> Result<MultiplexedConnection, ::redis::RedisError> {
    let config = AsyncConnectionConfig::new().set_response_timeout(Some(READ_WAIT + Duration::from_secs(5)));
    client.get_multiplexed_async_connection_with_config(&config).await
}

/// [`ChangeBus`] on a Redis stream (see [`Redis::change_bus`]). A notice published here is
/// heard here at once (this instance's clients are told even while Redis is away) and by the
/// other instances through the stream; notices Redis could not take wait, in order, until it
/// is back (at most 100,000; the oldest go first, logged).
#[derive(Debug)]
pub struct RedisChangeBus {
    outgoing: mpsc::UnboundedSender<ChangeNotice>,
    sinks: Arc<Sinks>,
    delivered: Arc<Delivered>,
}

impl ChangeBus for RedisChangeBus {
    fn publish(&self, notice: ChangeNotice) {
        // A numbered notice is known again when it comes back through the stream; one that is
        // not is heard from there only.
        if notice.seq != 0 && self.delivered.first_time(&notice) {
            self.sinks.deliver(&notice);
        }
        // The task ends only with the runtime.
        let _ = self.outgoing.send(notice);
    }

    fn subscribe(&self, sink: ChangeSink) {
        self.sinks.add(sink);
    }
}

/// The notices a reader delivered already, by origin: what comes twice is dropped.
#[derive(Debug, Default)]
struct Delivered(Mutex<Origins>);

#[derive(Debug, Default)]
struct Origins {
    by_origin: HashMap<String, Numbers>,
    /// Origins, first heard first: the first forgotten.
    order: VecDeque<String>,
}

/// One origin's numbers heard: all up to `below`, and those in `above`.
#[derive(Debug, Default)]
struct Numbers {
    below: u64,
    above: BTreeSet<u64>,
}

impl Delivered {
    /// Whether `notice` is heard for the first time (an unnumbered one always is).
    fn first_time(&self, notice: &ChangeNotice) -> bool {
        if notice.seq == 0 {
            return true;
        }
        let mut origins = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let origins = &mut *origins;
        if !origins.by_origin.contains_key(&notice.origin) {
            while origins.by_origin.len() >= ORIGINS_KEPT {
                let Some(oldest) = origins.order.pop_front() else { break };
                origins.by_origin.remove(&oldest);
            }
            origins.order.push_back(notice.origin.clone());
        }
        let numbers = origins.by_origin.entry(notice.origin.clone()).or_default();
        if notice.seq <= numbers.below || !numbers.above.insert(notice.seq) {
            return false;
        }
        while numbers.above.len() > NUMBERS_KEPT {
            numbers.below = numbers.above.pop_first().unwrap_or(numbers.below);
        }
        true
    }
}

/// Appends the queued notices to the stream, in order; while Redis is away, keeps them and
/// tries again.
async fn announce(mut connection: ConnectionManager, key: String, mut queue: mpsc::UnboundedReceiver<ChangeNotice>) {
    let mut unsent: VecDeque<String> = VecDeque::new();
    let mut pause = RETRY_FIRST;
    let mut failing = false;
    loop {
        if unsent.is_empty() {
            let Some(notice) = queue.recv().await else { return };
            unsent.extend(as_json(&notice));
        }
        while let Ok(notice) = queue.try_recv() {
            unsent.extend(as_json(&notice));
        }
        if unsent.len() > UNPUBLISHED_KEPT {
            let dropped = unsent.len() - UNPUBLISHED_KEPT;
            unsent.drain(..dropped);
            tracing::warn!(dropped, "Redis stayed away: the oldest unpublished change notices were dropped");
        }
        let batch = unsent.len().min(PUBLISHED_AT_ONCE);
        let mut pipe = ::redis::pipe();
        for json in unsent.iter().take(batch) {
            pipe.cmd("XADD").arg(&key).arg("MAXLEN").arg("~").arg(NOTICES_KEPT).arg("*").arg("n").arg(json);
        }
        let sent: Result<Vec<String>, _> = pipe.query_async(&mut connection).await;
        match sent {
            Ok(_) => {
                unsent.drain(..batch);
                if failing {
                    tracing::info!(waiting = unsent.len(), "change notices are published on Redis again");
                    failing = false;
                    pause = RETRY_FIRST;
                }
            }
            Err(e) => {
                if !failing {
                    tracing::warn!(error = %e, waiting = unsent.len(), "change notices cannot be published on Redis; they wait until it is back");
                    failing = true;
                }
                tokio::time::sleep(pause).await;
                pause = (pause * 2).min(RETRY_MOST);
            }
        }
    }
}

fn as_json(notice: &ChangeNotice) -> Option<String> {
    serde_json::to_string(notice)
        .inspect_err(|e| tracing::warn!(error = %e, ?notice, "a change notice could not be written as JSON"))
        .ok()
}

/// The entries of one `XREAD`: by stream, each entry's id and fields.
type Entries = Vec<(String, StreamEntries)>;

/// Hands every notice appended to the stream after `from` to the sinks, once; connects again
/// when the connection breaks and reads on from the last entry it read.
async fn hear(
    client: Client,
    first: MultiplexedConnection,
    key: String,
    mut from: String,
    sinks: Arc<Sinks>,
    delivered: Arc<Delivered>,
) {
    let mut connection = Some(first);
    let mut failing = false;
    loop {
        let reading = match &mut connection {
            Some(reading) => reading,
            None => match reading_connection(&client).await {
                Ok(mut reading) => {
                    warn_if_trimmed(&mut reading, &key, &from).await;
                    connection.insert(reading)
                }
                Err(e) => {
                    if !failing {
                        tracing::warn!(error = %e, "reconnecting to Redis for change notices failed; retrying");
                        failing = true;
                    }
                    tokio::time::sleep(RECONNECT_AFTER).await;
                    continue;
                }
            },
        };
        let read: Result<Option<Entries>, _> = ::redis::cmd("XREAD")
            .arg("COUNT")
            .arg(PUBLISHED_AT_ONCE * 8)
            .arg("BLOCK")
            .arg(u64::try_from(READ_WAIT.as_millis()).unwrap_or(u64::MAX))
            .arg("STREAMS")
            .arg(&key)
            .arg(&from)
            .query_async(reading)
            .await;
        let entries = match read {
            Ok(entries) => entries.unwrap_or_default(),
            Err(e) => {
                if !failing {
                    tracing::warn!(error = %e, "the Redis connection for change notices broke; reading on when it is back");
                    failing = true;
                }
                connection = None;
                tokio::time::sleep(RECONNECT_AFTER).await;
                continue;
            }
        };
        if failing {
            tracing::info!("change notices are read from Redis again");
            failing = false;
        }
        for (id, mut fields) in entries.into_iter().flat_map(|(_, entries)| entries) {
            from = id;
            let notice: ChangeNotice = match serde_json::from_slice(&fields.remove("n").unwrap_or_default()) {
                Ok(notice) => notice,
                Err(e) => {
                    tracing::warn!(error = %e, entry = %from, "a change notice on Redis could not be read; skipped");
                    continue;
                }
            };
            if delivered.first_time(&notice) {
                sinks.deliver(&notice);
            }
        }
    }
}

/// Says (logged) when the stream dropped notices after `from` while this instance was away:
/// more than the stream keeps were published meanwhile. Redis 7 tells it (the largest id it
/// trimmed); an older Redis cannot, and nothing is said.
async fn warn_if_trimmed(reading: &mut MultiplexedConnection, key: &str, from: &str) {
    let Ok(::redis::Value::Array(fields)) = ::redis::cmd("XINFO").arg("STREAM").arg(key).query_async(reading).await
    else {
        return;
    };
    let trimmed = fields.chunks(2).find_map(|pair| match pair {
        [::redis::Value::BulkString(name), value] if name == b"max-deleted-entry-id" => {
            ::redis::from_redis_value_ref::<String>(value).ok()
        }
        _ => None,
    });
    if let Some(trimmed) = trimmed
        && entry_order(&trimmed) > entry_order(from)
    {
        tracing::warn!(
            from,
            trimmed,
            "change notices published while this instance was away were dropped by the stream before it could read them"
        );
    }
}

/// A stream entry id (`ms-seq`) as something to compare; anything else as the smallest.
fn entry_order(id: &str) -> (u64, u64) {
    let (ms, seq) = id.split_once('-').unwrap_or((id, "0"));
    (ms.parse().unwrap_or(0), seq.parse().unwrap_or(0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::changes::ChangeEvent;

    fn notice(origin: &str, seq: u64) -> ChangeNotice {
        ChangeNotice { origin: origin.into(), seq, event: ChangeEvent::ResourceUpdated { uri: "a://b".into() } }
    }

    #[test]
    fn entry_ids_compare_by_time_then_sequence() {
        assert!(entry_order("1700000000000-3") > entry_order("1700000000000-2"));
        assert!(entry_order("1700000000001-0") > entry_order("1700000000000-9"));
        assert!(entry_order("0-0") < entry_order("1-0"));
        assert_eq!(entry_order("junk"), (0, 0));
    }

    #[test]
    fn a_notice_heard_again_is_dropped_even_out_of_order() {
        let delivered = Delivered::default();
        assert!(delivered.first_time(&notice("a", 2)));
        assert!(delivered.first_time(&notice("a", 1)), "published concurrently, arrived second");
        assert!(!delivered.first_time(&notice("a", 2)));
        assert!(!delivered.first_time(&notice("a", 1)));
        assert!(delivered.first_time(&notice("b", 1)), "numbers are per origin");
        // Unnumbered notices cannot be told apart: each is delivered.
        assert!(delivered.first_time(&notice("c", 0)) && delivered.first_time(&notice("c", 0)));
    }

    #[test]
    fn what_is_remembered_stays_bounded() {
        let delivered = Delivered::default();
        for seq in 1..=(NUMBERS_KEPT as u64 * 3) {
            assert!(delivered.first_time(&notice("a", seq)));
        }
        {
            let origins = delivered.0.lock().unwrap();
            let numbers = &origins.by_origin["a"];
            assert_eq!(numbers.above.len(), NUMBERS_KEPT);
            assert_eq!(numbers.below, NUMBERS_KEPT as u64 * 2);
        }
        assert!(!delivered.first_time(&notice("a", 5)), "far below: counted as heard");
        for n in 0..ORIGINS_KEPT + 10 {
            delivered.first_time(&notice(&format!("o{n}"), 1));
        }
        assert_eq!(delivered.0.lock().unwrap().by_origin.len(), ORIGINS_KEPT);
    }
}
