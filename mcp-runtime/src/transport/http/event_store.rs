//! Resumable SSE streams of the handshake revisions: every event a stream carries is kept in
//! an [`EventStore`] under an id naming the stream, so that a client whose connection broke
//! (or whose server closed it on purpose) reconnects with `Last-Event-ID` and gets what it
//! missed, then what follows.

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;

use super::session_store::StoreError;
use crate::util::BoxFuture;

/// A stream's kept events, oldest first: each one's id and data.
pub type StoredEvents = Vec<(String, Vec<u8>)>;

/// Where the events of resumable SSE streams are kept. The default keeps them in the
/// process; an implementation shared by several instances lets a client resume on any of
/// them.
///
/// A store that fails costs resumability, not messages: an event it could not keep is sent
/// without an id (and logged), and a resumption it cannot answer gets 503.
pub trait EventStore: Send + Sync + 'static {
    /// Keeps `data` (one JSON-RPC message, or empty for a priming event) as the next event of
    /// `stream`, and returns its event id (which must name the stream: see
    /// [`stream_of`](Self::stream_of)).
    fn append<'a>(&'a self, stream: &'a str, data: &'a [u8]) -> BoxFuture<'a, Result<String, StoreError>>;

    /// [`append`](Self::append), unless `stream` keeps an event named `name` already: then
    /// that event's id. Each instance serving a session hears the same change notice and
    /// tells the session of it; a store shared by the instances keeps it once, so that a
    /// replay holds it once. Returns the event id and whether this call kept the event.
    ///
    /// The default appends every time: right for a store that one instance writes.
    fn append_once<'a>(
        &'a self,
        stream: &'a str,
        name: &'a str,
        data: &'a [u8],
    ) -> BoxFuture<'a, Result<(String, bool), StoreError>> {
        let _ = name;
        Box::pin(async move { Ok((self.append(stream, data).await?, true)) })
    }

    /// The events of `last_event_id`'s stream that came after it, oldest first, as (id, data);
    /// `None` when the id names no stream kept here.
    fn after<'a>(&'a self, last_event_id: &'a str) -> BoxFuture<'a, Result<Option<StoredEvents>, StoreError>>;

    /// Notes that the connection reading `stream` was sent its events up to `event_id`, so
    /// that a GET opening the stream again without `Last-Event-ID`, on whichever instance, gets
    /// what came after ([`unsent`](Self::unsent)). The default notes nothing.
    fn mark_sent<'a>(&'a self, stream: &'a str, event_id: &'a str) -> BoxFuture<'a, Result<(), StoreError>> {
        let _ = (stream, event_id);
        Box::pin(async { Ok(()) })
    }

    /// The events of `stream` after the last one [marked sent](Self::mark_sent) (all of them
    /// when none was), oldest first; `None` when the store does not note what was sent (the
    /// default: the instance keeps what no connection read, which is enough while one
    /// instance serves each session).
    fn unsent<'a>(&'a self, stream: &'a str) -> BoxFuture<'a, Result<Option<StoredEvents>, StoreError>> {
        let _ = stream;
        Box::pin(async { Ok(None) })
    }

    /// The stream an event id belongs to.
    fn stream_of<'a>(&self, event_id: &'a str) -> Option<&'a str> {
        event_id.rsplit_once('_').map(|(stream, _)| stream)
    }

    /// Forgets the events of `streams`: their session ended, so none can be resumed. The
    /// default keeps them, for a store that expires events on its own.
    fn forget<'a>(&'a self, streams: &'a [String]) -> BoxFuture<'a, Result<(), StoreError>> {
        let _ = streams;
        Box::pin(async { Ok(()) })
    }

    /// Whether the store can be reached now, for `/readyz` (see
    /// [`SessionStore::check`](super::SessionStore::check)).
    fn check(&self) -> BoxFuture<'_, Result<(), StoreError>> {
        Box::pin(async { Ok(()) })
    }
}

impl<E: EventStore + ?Sized> EventStore for std::sync::Arc<E> {
    fn append<'a>(&'a self, stream: &'a str, data: &'a [u8]) -> BoxFuture<'a, Result<String, StoreError>> {
        (**self).append(stream, data)
    }

    fn append_once<'a>(
        &'a self,
        stream: &'a str,
        name: &'a str,
        data: &'a [u8],
    ) -> BoxFuture<'a, Result<(String, bool), StoreError>> {
        (**self).append_once(stream, name, data)
    }

    fn after<'a>(&'a self, last_event_id: &'a str) -> BoxFuture<'a, Result<Option<StoredEvents>, StoreError>> {
        (**self).after(last_event_id)
    }

    fn mark_sent<'a>(&'a self, stream: &'a str, event_id: &'a str) -> BoxFuture<'a, Result<(), StoreError>> {
        (**self).mark_sent(stream, event_id)
    }

    fn unsent<'a>(&'a self, stream: &'a str) -> BoxFuture<'a, Result<Option<StoredEvents>, StoreError>> {
        (**self).unsent(stream)
    }

    fn stream_of<'a>(&self, event_id: &'a str) -> Option<&'a str> {
        (**self).stream_of(event_id)
    }

    fn forget<'a>(&'a self, streams: &'a [String]) -> BoxFuture<'a, Result<(), StoreError>> {
        (**self).forget(streams)
    }

    fn check(&self) -> BoxFuture<'_, Result<(), StoreError>> {
        (**self).check()
    }
}

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

    /// Keeps `data` as the next event of `stream`: its sequence number.
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
            // Names far older than the events kept are forgotten.
            if kept.named.len() >= 2 * EVENTS_PER_STREAM {
                kept.named.clear();
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
