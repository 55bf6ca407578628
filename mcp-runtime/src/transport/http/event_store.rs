//! Resumable SSE streams of the handshake revisions: every event a stream carries is kept in
//! an [`EventStore`] under an id naming the stream, so that a client whose connection broke
//! (or whose server closed it on purpose) reconnects with `Last-Event-ID` and gets what it
//! missed, then what follows.

use crate::util::BoxFuture;
use crate::util::StoreError;

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
