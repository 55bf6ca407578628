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

    /// The events of `last_event_id`'s stream that came after it, oldest first, as (id, data);
    /// `None` when the id names no stream kept here.
    fn after<'a>(&'a self, last_event_id: &'a str) -> BoxFuture<'a, Result<Option<StoredEvents>, StoreError>>;

    /// The stream an event id belongs to.
    fn stream_of<'a>(&self, event_id: &'a str) -> Option<&'a str> {
        event_id.rsplit_once('_').map(|(stream, _)| stream)
    }
}

impl<E: EventStore + ?Sized> EventStore for std::sync::Arc<E> {
    fn append<'a>(&'a self, stream: &'a str, data: &'a [u8]) -> BoxFuture<'a, Result<String, StoreError>> {
        (**self).append(stream, data)
    }

    fn after<'a>(&'a self, last_event_id: &'a str) -> BoxFuture<'a, Result<Option<StoredEvents>, StoreError>> {
        (**self).after(last_event_id)
    }

    fn stream_of<'a>(&self, event_id: &'a str) -> Option<&'a str> {
        (**self).stream_of(event_id)
    }
}

/// Events kept per stream in the in-memory store.
const EVENTS_PER_STREAM: usize = 1_024;
/// Streams kept in the in-memory store; the oldest go first.
const STREAMS: usize = 4_096;

/// The in-process [`EventStore`]: the last 1,024 events of the last 4,096 streams.
#[derive(Debug, Default)]
pub struct MemoryEventStore {
    streams: Mutex<Streams>,
}

#[derive(Debug, Default)]
struct Streams {
    by_id: HashMap<String, VecDeque<(u64, Vec<u8>)>>,
    /// Stream ids, oldest first.
    order: VecDeque<String>,
    next: HashMap<String, u64>,
}

impl EventStore for MemoryEventStore {
    fn append<'a>(&'a self, stream: &'a str, data: &'a [u8]) -> BoxFuture<'a, Result<String, StoreError>> {
        Box::pin(async move {
            let mut streams = self.streams.lock().unwrap_or_else(|e| e.into_inner());
            if !streams.by_id.contains_key(stream) {
                if streams.order.len() >= STREAMS
                    && let Some(oldest) = streams.order.pop_front()
                {
                    streams.by_id.remove(&oldest);
                    streams.next.remove(&oldest);
                }
                streams.order.push_back(stream.to_owned());
                streams.by_id.insert(stream.to_owned(), VecDeque::new());
            }
            let seq = {
                let next = streams.next.entry(stream.to_owned()).or_insert(0);
                let seq = *next;
                *next += 1;
                seq
            };
            if let Some(events) = streams.by_id.get_mut(stream) {
                if events.len() >= EVENTS_PER_STREAM {
                    events.pop_front();
                }
                events.push_back((seq, data.to_vec()));
            }
            Ok(format!("{stream}_{seq}"))
        })
    }

    fn after<'a>(&'a self, last_event_id: &'a str) -> BoxFuture<'a, Result<Option<StoredEvents>, StoreError>> {
        Box::pin(async move { Ok(self.kept_after(last_event_id)) })
    }
}

impl MemoryEventStore {
    fn kept_after(&self, last_event_id: &str) -> Option<StoredEvents> {
        let (stream, seq) = last_event_id.rsplit_once('_')?;
        let seq: u64 = seq.parse().ok()?;
        let streams = self.streams.lock().unwrap_or_else(|e| e.into_inner());
        let events = streams.by_id.get(stream)?;
        Some(events.iter().filter(|(n, _)| *n > seq).map(|(n, data)| (format!("{stream}_{n}"), data.clone())).collect())
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
}
