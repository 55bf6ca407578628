//! A session's standalone stream (its GET): what its loop has for it outside any request
//! (list changes, resource updates), kept in the event store and sent to the connection
//! reading it, when one does.

use std::sync::Arc;

use axum::body::Bytes;
use tokio::sync::mpsc;

use super::event_store::EventStore;
use super::sse::{keep_event, keep_event_once, send_event, sse_event};
use crate::transport::connection::NamedLine;

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
/// what the store holds, in the store's order, so that the live stream and a replay agree
/// (see [`keep_standalone`]).
pub(super) struct Standalone {
    pub(super) id: String,
    /// The body of the GET response reading it now.
    pub(super) reader: Option<mpsc::Sender<Bytes>>,
    /// The id of the last event the reader got (replayed, primed or sent).
    pub(super) last_sent: Option<String>,
    /// The latest events sent while no GET stream was open, for the next one that opens
    /// without `Last-Event-ID` (a client opens its stream just after it subscribes).
    pub(super) waiting: std::collections::VecDeque<Bytes>,
}

/// Keeps and sends what a session's loop has for its standalone stream: its own lines
/// (`outbox`) and the lines change notices became (`named`: kept once in the stream, whichever
/// instance serving the session keeps them first).
pub(super) async fn keep_standalone(
    standalone: Arc<tokio::sync::Mutex<Standalone>>,
    events: Arc<dyn EventStore>,
    mut outbox: mpsc::Receiver<Vec<u8>>,
    mut named: mpsc::Receiver<NamedLine>,
) {
    loop {
        let (notice, line) = tokio::select! {
            Some(line) = outbox.recv() => (None, line),
            Some((notice, line)) = named.recv() => (Some(notice), line),
            else => return,
        };
        // Kept and sent under one lock, so a reconnection replays up to exactly here.
        let mut standalone = standalone.lock().await;
        let kept = match &notice {
            Some(notice) => keep_event_once(&*events, &standalone.id, notice, &line).await,
            None => keep_event(&*events, &standalone.id, &line).await.map(|id| (id, true)),
        };
        standalone.deliver(&*events, kept, &line).await;
    }
}

impl Standalone {
    /// Sends the event `line` became to the connection reading the stream, or keeps it for the
    /// next one when none does. `kept`: its id in the store and whether this instance kept it
    /// (`None`: the store failed, and it goes without an id).
    async fn deliver(&mut self, events: &dyn EventStore, kept: Option<(String, bool)>, line: &[u8]) {
        let Some((event_id, kept_here)) = kept else {
            let event = sse_event(None::<&str>, line);
            send_event(&mut self.reader, event.clone()).await;
            if self.reader.is_none() {
                self.wait(event);
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
            let unsent = unsent.unwrap_or_else(|| vec![(event_id.clone(), line.to_vec())]);
            for (id, data) in unsent {
                if !data.is_empty() {
                    send_event(&mut self.reader, sse_event(Some(&id), &data)).await;
                }
                self.last_sent = Some(id);
            }
        }
        // Another instance kept it first: a reader there had it from there.
        if self.reader.is_none() && kept_here {
            self.wait(sse_event(Some(&event_id), line));
        }
    }

    /// Keeps `event` for the next GET that opens without `Last-Event-ID`.
    fn wait(&mut self, event: Bytes) {
        self.waiting.push_back(event);
        if self.waiting.len() > UNSENT_KEPT {
            self.waiting.pop_front();
        }
    }
}
