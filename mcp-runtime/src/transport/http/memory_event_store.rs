//! The in-process [`EventStore`]: a session's events kept in memory, within a byte budget.

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;

use super::event_store::{EventStore, StoredEvents};
use crate::util::BoxFuture;
use crate::util::StoreError;

/// Events kept per stream in the in-memory store.
const EVENTS_PER_STREAM: usize = 1_024;
/// Streams kept in the in-memory store; the oldest go first.
const STREAMS: usize = 4_096;

/// Bytes of event data the in-memory store keeps across all its streams, unless configured.
pub const DEFAULT_MAX_EVENT_BYTES: usize = 64 << 20;

/// What an event costs the in-memory store besides its data (its sequence number and place).
const EVENT_OVERHEAD: usize = 32;

/// The in-process [`EventStore`]: the last 1,024 events of the last 4,096 streams, within
/// [`DEFAULT_MAX_EVENT_BYTES`] in all (the oldest streams go first), and nothing of a
/// session once it ended.
///
/// ```
/// use mcp_runtime::http::MemoryEventStore;
/// let events = MemoryEventStore::with_max_bytes(8 << 20);
/// assert_eq!((events.kept_bytes(), events.kept_events()), (0, 0));
/// ```
#[derive(Debug)]
pub struct MemoryEventStore {
    streams: Mutex<Streams>,
    max_bytes: usize,
}

impl Default for MemoryEventStore {
    fn default() -> Self {
        MemoryEventStore::with_max_bytes(DEFAULT_MAX_EVENT_BYTES)
    }
}

#[derive(Debug, Default)]
struct Streams {
    by_id: HashMap<String, Kept>,
    /// Stream ids, oldest first (an id forgotten is skipped when its turn comes).
    order: VecDeque<String>,
    /// What all kept events cost, overhead included.
    bytes: usize,
    events: usize,
}

/// One stream's kept events and the sequence number of its next; the change notices among
/// them by name, and the last one sent.
#[derive(Debug, Default)]
struct Kept {
    events: VecDeque<(u64, Vec<u8>)>,
    next: u64,
    named: HashMap<String, u64>,
    sent: Option<u64>,
}

/// What one event costs the store.
fn cost(data: &[u8]) -> usize {
    data.len() + EVENT_OVERHEAD
}

impl Streams {
    fn remove(&mut self, stream: &str) {
        if let Some(kept) = self.by_id.remove(stream) {
            self.events -= kept.events.len();
            self.bytes -= kept.events.iter().map(|(_, data)| cost(data)).sum::<usize>();
        }
    }

    /// Drops `stream`'s oldest event; whether it had one.
    fn drop_oldest_event(&mut self, stream: &str) -> bool {
        let Some((_, data)) = self.by_id.get_mut(stream).and_then(|kept| kept.events.pop_front()) else {
            return false;
        };
        self.events -= 1;
        self.bytes -= cost(&data);
        true
    }

    /// Drops the oldest streams (never `keep`) until the store is within `max_bytes` and
    /// [`STREAMS`]; then `keep`'s own oldest events, if it alone is over.
    fn shrink(&mut self, max_bytes: usize, keep: &str) {
        while (self.bytes > max_bytes || self.by_id.len() > STREAMS) && self.by_id.len() > 1 {
            let Some(oldest) = self.order.pop_front() else { break };
            if oldest == keep {
                self.order.push_back(oldest);
                continue;
            }
            self.remove(&oldest);
        }
        while self.bytes > max_bytes && self.drop_oldest_event(keep) {}
        // Ids of forgotten streams linger in `order` until their turn: bounded all the same.
        if self.order.len() > 2 * STREAMS {
            let by_id = &self.by_id;
            self.order.retain(|stream| by_id.contains_key(stream));
        }
    }
}

impl MemoryEventStore {
    /// A store keeping at most `max_bytes` of events in all.
    pub fn with_max_bytes(max_bytes: usize) -> Self {
        MemoryEventStore { streams: Mutex::default(), max_bytes }
    }

    /// The bytes its events take now (their data, and a few bytes each besides).
    pub fn kept_bytes(&self) -> usize {
        self.streams.lock().unwrap_or_else(|e| e.into_inner()).bytes
    }

    /// How many events it keeps now, all streams together.
    pub fn kept_events(&self) -> usize {
        self.streams.lock().unwrap_or_else(|e| e.into_inner()).events
    }

    fn kept_after(&self, last_event_id: &str) -> Option<StoredEvents> {
        let (stream, seq) = last_event_id.rsplit_once('_')?;
        let seq: u64 = seq.parse().ok()?;
        let streams = self.streams.lock().unwrap_or_else(|e| e.into_inner());
        Some(streams.by_id.get(stream)?.after(stream, Some(seq)))
    }

    /// Keeps `data` as the next event of `stream`, unless it is named and an event of that name
    /// is kept: the event's sequence number, and whether this call kept it.
    fn keep(&self, stream: &str, data: &[u8], name: Option<&str>) -> (u64, bool) {
        let mut streams = self.streams.lock().unwrap_or_else(|e| e.into_inner());
        let streams = &mut *streams;
        if let Some(seq) = name.and_then(|name| streams.by_id.get(stream)?.named.get(name).copied()) {
            return (seq, false);
        }
        if !streams.by_id.contains_key(stream) {
            streams.order.push_back(stream.to_owned());
        }
        if streams.by_id.get(stream).is_some_and(|kept| kept.events.len() >= EVENTS_PER_STREAM) {
            streams.drop_oldest_event(stream);
        }
        let kept = streams.by_id.entry(stream.to_owned()).or_default();
        let seq = kept.next;
        kept.next += 1;
        kept.events.push_back((seq, data.to_vec()));
        if let Some(name) = name {
            // A name is kept as long as its event: those of dropped events go, now and then.
            if kept.named.len() >= 2 * kept.events.len().max(8) {
                let oldest = kept.events.front().map_or(seq, |(n, _)| *n);
                kept.named.retain(|_, n| *n >= oldest);
            }
            kept.named.insert(name.to_owned(), seq);
        }
        streams.events += 1;
        streams.bytes += cost(data);
        streams.shrink(self.max_bytes, stream);
        (seq, true)
    }
}

impl Kept {
    /// The events after `seq` (all of them for `None`), as (id, data).
    fn after(&self, stream: &str, seq: Option<u64>) -> StoredEvents {
        self.events
            .iter()
            .filter(|(n, _)| seq.is_none_or(|seq| *n > seq))
            .map(|(n, data)| (format!("{stream}_{n}"), data.clone()))
            .collect()
    }
}

impl EventStore for MemoryEventStore {
    fn append<'a>(&'a self, stream: &'a str, data: &'a [u8]) -> BoxFuture<'a, Result<String, StoreError>> {
        Box::pin(async move { Ok(format!("{stream}_{}", self.keep(stream, data, None).0)) })
    }

    fn append_once<'a>(
        &'a self,
        stream: &'a str,
        name: &'a str,
        data: &'a [u8],
    ) -> BoxFuture<'a, Result<(String, bool), StoreError>> {
        Box::pin(async move {
            let (seq, new) = self.keep(stream, data, Some(name));
            Ok((format!("{stream}_{seq}"), new))
        })
    }

    fn mark_sent<'a>(&'a self, stream: &'a str, event_id: &'a str) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            let seq = event_id.rsplit_once('_').and_then(|(_, seq)| seq.parse().ok());
            if let Some(kept) = self.streams.lock().unwrap_or_else(|e| e.into_inner()).by_id.get_mut(stream) {
                kept.sent = seq;
            }
            Ok(())
        })
    }

    fn unsent<'a>(&'a self, stream: &'a str) -> BoxFuture<'a, Result<Option<StoredEvents>, StoreError>> {
        Box::pin(async move {
            let streams = self.streams.lock().unwrap_or_else(|e| e.into_inner());
            Ok(Some(streams.by_id.get(stream).map(|kept| kept.after(stream, kept.sent)).unwrap_or_default()))
        })
    }

    fn after<'a>(&'a self, last_event_id: &'a str) -> BoxFuture<'a, Result<Option<StoredEvents>, StoreError>> {
        Box::pin(async move { Ok(self.kept_after(last_event_id)) })
    }

    fn forget<'a>(&'a self, streams: &'a [String]) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            let mut kept = self.streams.lock().unwrap_or_else(|e| e.into_inner());
            for stream in streams {
                kept.remove(stream);
            }
            Ok(())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn events_after_an_id_come_back_in_order() {
        let store = MemoryEventStore::default();
        let priming = store.append("s1", b"").await.unwrap();
        let first = store.append("s1", b"one").await.unwrap();
        store.append("s2", b"other").await.unwrap();
        store.append("s1", b"two").await.unwrap();
        assert_eq!(store.stream_of(&first), Some("s1"));
        let replay = store.after(&priming).await.unwrap().unwrap();
        let data: Vec<&[u8]> = replay.iter().map(|(_, d)| d.as_slice()).collect();
        assert_eq!(data, [b"one".as_slice(), b"two".as_slice()]);
        assert_eq!(store.after(&first).await.unwrap().unwrap().len(), 1);
        assert_eq!(store.after("nope_3").await.unwrap(), None);
    }

    #[tokio::test]
    async fn a_named_event_is_kept_once_and_what_was_not_sent_is_known() {
        let store = MemoryEventStore::default();
        assert_eq!(store.unsent("s").await.unwrap(), Some(Vec::new()), "an unknown stream: nothing unsent");
        let (first, new) = store.append_once("s", "o.1", b"one").await.unwrap();
        assert!(new);
        assert_eq!(store.append_once("s", "o.1", b"one").await.unwrap(), (first.clone(), false));
        let (second, _) = store.append_once("s", "o.2", b"two").await.unwrap();
        assert_ne!(first, second);
        // Nothing marked sent: all of it is unsent.
        let ids = |events: Vec<(String, Vec<u8>)>| events.into_iter().map(|(id, _)| id).collect::<Vec<_>>();
        assert_eq!(ids(store.unsent("s").await.unwrap().unwrap()), [first.clone(), second.clone()]);
        store.mark_sent("s", &first).await.unwrap();
        assert_eq!(ids(store.unsent("s").await.unwrap().unwrap()), std::slice::from_ref(&second));
        store.mark_sent("s", &second).await.unwrap();
        assert_eq!(store.unsent("s").await.unwrap(), Some(Vec::new()));
        // Forgotten with its stream: the name is new again.
        store.forget(&["s".to_owned()]).await.unwrap();
        assert!(store.append_once("s", "o.1", b"one").await.unwrap().1);
    }

    #[tokio::test]
    async fn names_go_with_their_events() {
        // Room for ten events: a thousand named ones leave about as many names as events.
        let store = MemoryEventStore::with_max_bytes(10 * (3 + EVENT_OVERHEAD));
        for n in 0..1_000 {
            store.append_once("s", &format!("o.{n}"), b"one").await.unwrap();
        }
        let streams = store.streams.lock().unwrap();
        let kept = &streams.by_id["s"];
        assert_eq!(kept.events.len(), 10);
        assert!(kept.named.len() <= 20, "{} names for 10 events", kept.named.len());
        let oldest = kept.events.front().unwrap().0;
        assert!(kept.named.values().filter(|n| **n >= oldest).count() == 10, "every kept event's name is kept");
    }

    /// The default store: 64 MiB in all, and a stream keeps its last 1,024 events.
    #[tokio::test]
    async fn the_default_store_keeps_64_mib_and_1024_events_a_stream() {
        let store = MemoryEventStore::default();
        assert_eq!(store.max_bytes, 64 << 20);
        for _ in 0..1_100 {
            store.append("s", b"x").await.unwrap();
        }
        assert_eq!(store.kept_events(), 1_024);
        // The 76 oldest went: what is kept starts at s_76.
        let kept = store.after("s_0").await.unwrap().expect("the stream is kept");
        assert_eq!((kept.len(), kept[0].0.as_str()), (1_024, "s_76"));
    }

    #[tokio::test]
    async fn the_store_keeps_within_its_bytes_and_forgets_ended_streams() {
        let store = MemoryEventStore::with_max_bytes(10 * (100 + EVENT_OVERHEAD));
        for stream in ["a", "b", "c"] {
            for _ in 0..4 {
                store.append(stream, &[b'x'; 100]).await.unwrap();
            }
        }
        // Twelve events do not fit in ten: the oldest stream went first.
        assert_eq!(store.kept_events(), 8);
        assert!(store.kept_bytes() <= 10 * (100 + EVENT_OVERHEAD));
        assert_eq!(store.after("a_0").await.unwrap(), None);
        assert_eq!(store.after("b_0").await.unwrap().map(|events| events.len()), Some(3));
        // One stream alone over the limit keeps its latest events.
        for _ in 0..20 {
            store.append("d", &[b'y'; 100]).await.unwrap();
        }
        assert_eq!(store.kept_events(), 10);
        assert_eq!(store.after("d_9").await.unwrap().map(|events| events.len()), Some(10));
        store.forget(&["d".to_owned(), "unknown".to_owned()]).await.unwrap();
        assert_eq!((store.kept_events(), store.kept_bytes()), (0, 0));
        assert_eq!(store.append("d", b"again").await.unwrap(), "d_0", "a forgotten stream starts over");
    }
}
