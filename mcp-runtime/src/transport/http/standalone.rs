//! A session's standalone stream (its GET): what its loop has for it outside any request
//! (list changes, resource updates), kept in the event store and sent to the connection
//! reading it, when one does.

use std::collections::VecDeque;
use std::sync::Arc;

use axum::body::Bytes;
use axum::response::Response;
use tokio::sync::mpsc;

use super::event_store::{EventStore, StoredEvents};
use super::sse::{keep_event, kept_or_logged, missed_events, priming_event, replayed, send_event, sse_event};
use crate::transport::connection::{self, NamedLine};
use crate::util::queue::QueueReceiver;

/// Connection-level messages kept while a session has no GET stream open.
const UNSENT_KEPT: usize = 64;

/// The prefix of a session's standalone stream id.
pub(super) const STANDALONE: &str = "get-";

/// The id of a session's standalone stream (`session` is random for the stateless loops).
pub(super) fn standalone_stream(session: &str) -> String {
    format!("{STANDALONE}{session}")
}

/// A session's standalone stream (GET). Every event goes to the event store under the
/// session's one stream id before it goes to the connection reading it, so a client that
/// reconnects with `Last-Event-ID` misses nothing. Several instances may serve one session
/// (sessions in a shared store) and write its stream: the one whose connection reads it sends
/// what the store holds, in the store's order, so that the live stream and a replay agree, and
/// notes in the store what it sent, so that a GET opened again without `Last-Event-ID`, on any
/// instance, gets what no connection was sent (see [`keep_standalone`]).
pub(super) struct Standalone {
    pub(super) id: String,
    /// The body of the GET response reading it now.
    reader: Option<mpsc::Sender<Bytes>>,
    /// The id of the last event the reader got (replayed, primed or sent).
    last_sent: Option<String>,
    /// The latest events kept while no GET stream was open (or not kept: the store failed),
    /// for the next one that opens without `Last-Event-ID` when the store cannot say what
    /// was not sent (a client opens its stream just after it subscribes).
    waiting: VecDeque<Waiting>,
}

/// An event waiting for a GET stream: its line, the notice it came from, its id if kept.
struct Waiting {
    line: Vec<u8>,
    notice: Option<Arc<str>>,
    event_id: Option<String>,
}

/// Keeps and sends what a session's loop has for its standalone stream: its own lines
/// (`outbox`) and the lines change notices became (`named`: kept once in the stream, whichever
/// instance serving the session keeps them first).
pub(super) async fn keep_standalone(
    standalone: Arc<tokio::sync::Mutex<Standalone>>,
    events: Arc<dyn EventStore>,
    mut outbox: mpsc::Receiver<Vec<u8>>,
    mut named: QueueReceiver<NamedLine>,
) {
    loop {
        let (notice, line) = tokio::select! {
            Some(line) = outbox.recv() => (None, line),
            Some(named) = named.recv() => {
                let (notice, line) = *named;
                (Some(notice), line)
            }
            else => return,
        };
        // Kept and sent under one lock, so a reconnection replays up to exactly here. Boxed:
        // this task waits idle most of its life, and an idle session should not hold the
        // room these steps take while they run.
        Box::pin(async {
            let mut standalone = standalone.lock().await;
            let kept = keep(&*events, &standalone.id, notice.as_deref(), &line).await;
            standalone.deliver(&*events, kept, notice, line).await;
        })
        .await;
    }
}

/// Keeps `line` in `stream`, once if it came from a notice: its id and whether this call kept
/// it (`None`: the store failed, logged).
async fn keep(events: &dyn EventStore, stream: &str, notice: Option<&str>, line: &[u8]) -> Option<(String, bool)> {
    let kept = match notice {
        Some(notice) => events.append_once(stream, notice, line).await,
        None => events.append(stream, line).await.map(|id| (id, true)),
    };
    kept_or_logged(kept, stream)
}

impl Standalone {
    pub(super) fn new(id: String) -> Standalone {
        Standalone { id, reader: None, last_sent: None, waiting: VecDeque::new() }
    }

    /// Sends the event `line` became to the connection reading the stream, or keeps it for the
    /// next one when none does. `kept`: its id in the store and whether this instance kept it
    /// (`None`: the store failed, and it goes without an id).
    async fn deliver(
        &mut self,
        events: &dyn EventStore,
        kept: Option<(String, bool)>,
        notice: Option<Arc<str>>,
        line: Vec<u8>,
    ) {
        let Some((event_id, kept_here)) = kept else {
            send_event(&mut self.reader, sse_event(None::<&str>, &line)).await;
            if self.reader.is_none() {
                self.wait(Waiting { line, notice, event_id: None });
            }
            return;
        };
        if self.reader.is_some() {
            // What the store holds after the last event sent: this one, and what the other
            // instances serving the session kept meanwhile, in the store's order (a replay's).
            // Nothing when it went out already (kept by another instance, then replayed).
            let unsent = match &self.last_sent {
                Some(last) => events.after(last).await.ok().flatten(),
                None => None,
            };
            let unsent = unsent.unwrap_or_else(|| vec![(event_id.clone(), line.clone())]);
            self.send(events, unsent).await;
        }
        // No connection reads it here: it waits for the next GET (which reads what was not
        // sent from the store, when the store can say). One another instance kept first
        // waits there.
        if self.reader.is_none() && kept_here {
            self.wait(Waiting { line, notice, event_id: Some(event_id) });
        }
    }

    /// Sends `kept` events to the reader (the empty data of priming events only advances
    /// the position), and notes the last as sent.
    async fn send(&mut self, events: &dyn EventStore, kept: StoredEvents) {
        let Some(last) = kept.last().map(|(id, _)| id.clone()) else { return };
        for event in replayed(&kept) {
            send_event(&mut self.reader, event).await;
        }
        if self.reader.is_some() {
            self.sent_through(events, last).await;
        }
    }

    /// Notes `event_id` as the last event the reader got, here and in the store.
    async fn sent_through(&mut self, events: &dyn EventStore, event_id: String) {
        if let Err(e) = events.mark_sent(&self.id, &event_id).await {
            // A GET opened again without `Last-Event-ID` may then repeat events.
            tracing::warn!(error = %e, stream = %self.id, "the event store could not note what a stream was sent");
        }
        self.last_sent = Some(event_id);
    }

    fn wait(&mut self, waiting: Waiting) {
        self.waiting.push_back(waiting);
        if self.waiting.len() > UNSENT_KEPT {
            self.waiting.pop_front();
        }
    }

    /// Attaches a new GET's connection: what it opens with (with `last`, when it is an event
    /// of this stream: what the store holds after it; else a priming event and what no
    /// connection was sent) and where what follows arrives. 503 when the store cannot replay.
    pub(super) async fn open(
        &mut self,
        events: &dyn EventStore,
        last: Option<&str>,
    ) -> Result<(Vec<Bytes>, mpsc::Receiver<Bytes>), Box<Response>> {
        let missed = match last.filter(|last| events.stream_of(last) == Some(self.id.as_str())) {
            Some(last) => missed_events(events, last).await?.map(|missed| (last, missed)),
            None => None,
        };
        let opening = match missed {
            Some((last, missed)) => {
                // What waited is among what is replayed.
                self.waiting.clear();
                let through = missed.last().map_or(last, |(id, _)| id.as_str()).to_owned();
                self.sent_through(events, through).await;
                replayed(&missed)
            }
            None => self.afresh(events).await,
        };
        let (reader, reading) = mpsc::channel::<Bytes>(connection::OUTGOING_CAPACITY);
        self.reader = Some(reader);
        Ok((opening, reading))
    }

    /// Opening without `Last-Event-ID`: a priming event, then what no connection was sent.
    async fn afresh(&mut self, events: &dyn EventStore) -> Vec<Bytes> {
        // What waits unkept (the store failed) is kept now, if the store is back; a notice
        // another instance kept meanwhile is found there.
        for waiting in self.waiting.iter_mut().filter(|w| w.event_id.is_none()) {
            waiting.event_id = keep(events, &self.id, waiting.notice.as_deref(), &waiting.line).await.map(|(id, _)| id);
        }
        // Primed before the store is asked what was not sent: whatever another instance keeps
        // meanwhile comes after what is read here.
        let priming = keep_event(events, &self.id, b"").await;
        let unsent = events.unsent(&self.id).await.unwrap_or_else(|e| {
            tracing::warn!(error = %e, stream = %self.id, "the event store could not say what a stream was not sent");
            None
        });
        let mut opening = vec![priming_event(priming.as_deref())];
        self.last_sent = priming;
        match unsent {
            Some(unsent) => {
                // The kept events that waited are among the unsent; those still unkept follow.
                let unkept: Vec<Waiting> = self.waiting.drain(..).filter(|w| w.event_id.is_none()).collect();
                opening.extend(replayed(&unsent));
                opening.extend(unkept.iter().map(|w| sse_event(None::<&str>, &w.line)));
                if let Some((last, _)) = unsent.last() {
                    self.sent_through(events, last.clone()).await;
                }
            }
            None => {
                opening.extend(self.waiting.drain(..).map(|w| sse_event(w.event_id.as_deref(), &w.line)));
            }
        }
        opening
    }
}
