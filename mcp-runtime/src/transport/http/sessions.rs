//! The session table: each handshake-era session (and the 2026-07-28 listen loop) is a connection loop
//! fed by its POSTs; sessions are found here, revived from the session store, kept there when
//! they change, and ended (when idle or ended elsewhere: see [`super::session_expiry`]).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::Bytes;
use axum::http::StatusCode;
use axum::response::Response;
use tokio::sync::{mpsc, watch};

use super::event_store::EventStore;
use super::options::{Allowed, ResponseMode};
use super::session_store::{SessionRecord, SessionStore};
use super::standalone::{Standalone, keep_standalone, standalone_stream};
use super::{busy, reject};
use crate::context::Identity;
use crate::protocol::{ErrorObject, RequestId};
use crate::serve::session::SessionState;
use crate::server::core::ServerCore;
use crate::transport::connection::{self, Frame, Inbox, LatestState};
use crate::util::StoreError;
use crate::util::queue::{QueueSender, queue};

/// What every handler of the endpoint shares.
pub(super) struct App {
    pub(super) core: Arc<ServerCore>,
    pub(super) mode: ResponseMode,
    pub(super) hosts: Allowed,
    pub(super) origins: Allowed,
    /// Handshake-era sessions by id.
    pub(super) sessions: Mutex<HashMap<String, Arc<SessionHandle>>>,
    /// How requests are authorized, when they are.
    pub(super) edge: Option<crate::auth::edge::Edge>,
    pub(super) max_sessions: usize,
    /// What starts the session ids this instance mints (`tag.`), if anything.
    pub(super) session_prefix: String,
    /// Where resumable streams' events are kept.
    pub(super) events: Arc<dyn EventStore>,
    /// Where sessions are kept, for any instance sharing it to serve.
    pub(super) store: Arc<dyn SessionStore>,
    /// How long a session may stay unused.
    pub(super) idle: Duration,
    /// How long a POST's body may take to arrive.
    pub(super) body_timeout: Duration,
    /// Requests being served, all sessions together.
    pub(super) requests: Arc<tokio::sync::Semaphore>,
    /// The loop of what 2026-07-28 clients send that is not served where it arrives: the
    /// `subscriptions/listen` streams (fed the change notices, under their server-wide limit),
    /// notifications, requests without `_meta`.
    pub(super) listening: Arc<SessionHandle>,
    pub(super) stopping: watch::Receiver<bool>,
    /// Kept here so that sessions of a mounted router run as long as the router.
    pub(super) _stop: Arc<watch::Sender<bool>>,
}

/// One loop's inbox, and where its connection-level messages go.
pub(super) struct SessionHandle {
    /// Its id (empty for the 2026-07-28 listen loop).
    pub(super) id: String,
    pub(super) inbound: QueueSender<Frame>,
    /// When a request last used it.
    pub(super) used: Mutex<Instant>,
    /// When the session store was last told it is in use.
    pub(super) touched: Mutex<Instant>,
    /// The principal that opened it: only it may use it.
    pub(super) owner: Option<String>,
    /// Its standalone stream: list changes, resource updates.
    pub(super) standalone: Arc<tokio::sync::Mutex<Standalone>>,
    /// The resumable streams of its requests still running, by stream id.
    pub(super) streams: Mutex<HashMap<String, Arc<LiveStream>>>,
    /// The ids of the latest [`MADE_STREAMS_KEPT`] resumable streams its requests opened,
    /// whose events go when the session ends.
    pub(super) made_streams: Mutex<std::collections::VecDeque<String>>,
    /// The session's state as its loop last changed it, until it is kept in the store.
    pub(super) states: Arc<LatestState>,
    /// Held while its state is kept, so that saves of one session go in order.
    pub(super) keeping: tokio::sync::Mutex<()>,
}

/// A handshake-era request's resumable SSE stream while its request runs: every event goes
/// to the event store and to the connection reading it now, if any.
pub(super) struct LiveStream {
    pub(super) id: String,
    /// The body of the HTTP response reading it now.
    pub(super) reader: tokio::sync::Mutex<Option<mpsc::Sender<Bytes>>>,
    /// `Context::close_sse_stream`: end the current connection; the client reconnects.
    pub(super) close: Arc<tokio::sync::Notify>,
}

/// How many of a session's request streams it remembers, to forget their events when it ends
/// (the event store drops older ones on its own long before).
pub(super) const MADE_STREAMS_KEPT: usize = 4_096;

/// What a new loop is: a session (its id, who opened it, and its state when it was started
/// elsewhere), or the stateless one (an empty id).
pub(super) struct LoopSeed {
    pub(super) id: String,
    pub(super) owner: Option<String>,
    pub(super) restore: Option<SessionState>,
    pub(super) listen_limit: usize,
}

/// Starts a loop (a session, or the stateless one) and returns its handle.
pub(super) fn start_loop(
    core: &Arc<ServerCore>,
    events: &Arc<dyn EventStore>,
    stopping: &watch::Receiver<bool>,
    seed: LoopSeed,
) -> Arc<SessionHandle> {
    let (inbound, inbox) = queue(crate::serve::executor::LOOK_AHEAD);
    let (out, outbox) = mpsc::channel::<Vec<u8>>(connection::OUTGOING_CAPACITY);
    // Named by the session, so that an instance that takes the session over (sharing the event
    // store) resumes its stream; the stateless loop has no such stream.
    let standalone = Arc::new(tokio::sync::Mutex::new(Standalone::new(match seed.id.as_str() {
        "" => standalone_stream(&crate::util::random::random_id()),
        session => standalone_stream(session),
    })));
    let (named_lines, named) = queue(connection::OUTGOING_CAPACITY);
    tokio::spawn(keep_standalone(Arc::clone(&standalone), Arc::clone(events), outbox, named));
    let alive = stopping.clone();
    let mut stopping = stopping.clone();
    let shutdown = async move {
        let _ = stopping.wait_for(|stop| *stop).await;
    };
    let states = Arc::new(LatestState::default());
    let options = connection::LoopOptions {
        listen_limit: seed.listen_limit,
        restore: seed.restore,
        states: Some(Arc::clone(&states)),
        transport: crate::middleware::Transport::Http,
        // The 2026-07-28 loops have no session.
        session_id: (!seed.id.is_empty()).then(|| Arc::from(seed.id.as_str())),
        // The loop holds a receiver of the stop signal until it ends: the endpoint counts them
        // to know when every loop has drained.
        drain_token: Some(alive),
        named_lines: Some(named_lines),
        announcements: Some(core.announcements.subscribe()),
    };
    tokio::spawn(connection::run(Arc::clone(core), Inbox(inbox), out, shutdown, options));
    Arc::new(SessionHandle {
        id: seed.id,
        inbound,
        used: Mutex::new(Instant::now()),
        touched: Mutex::new(Instant::now()),
        owner: seed.owner,
        standalone,
        streams: Mutex::default(),
        made_streams: Mutex::default(),
        states,
        keeping: tokio::sync::Mutex::new(()),
    })
}

impl SessionHandle {
    /// Notes a resumable stream one of its requests opened.
    pub(super) fn made_stream(&self, stream: &str) {
        let mut made = self.made_streams.lock().unwrap_or_else(|e| e.into_inner());
        if made.len() >= MADE_STREAMS_KEPT {
            made.pop_front();
        }
        made.push_back(stream.to_owned());
    }
}

impl App {
    /// Ends session `id` here (its loop finishes what runs, then stops) and forgets its events.
    pub(super) fn end_session(&self, id: &str) {
        let ended = self.sessions.lock().unwrap_or_else(|e| e.into_inner()).remove(id);
        if let Some(ended) = ended {
            self.forget_streams(&ended, true);
        }
    }

    /// Forgets the events of an ended session's request streams, and of its standalone
    /// stream when `standalone` (not when it only expired here: another instance sharing
    /// the event store may still serve it).
    pub(super) fn forget_streams(&self, session: &SessionHandle, standalone: bool) {
        let mut streams: Vec<String> =
            std::mem::take(&mut *session.made_streams.lock().unwrap_or_else(|e| e.into_inner())).into();
        if standalone {
            streams.push(standalone_stream(&session.id));
        }
        if streams.is_empty() {
            return;
        }
        let events = Arc::clone(&self.events);
        tokio::spawn(async move {
            if let Err(e) = events.forget(&streams).await {
                tracing::warn!(error = %e, "the event store failed to forget an ended session's events");
            }
        });
    }

    /// A new session's loop, counted against the session limit (`None` past it).
    pub(super) fn open_session(
        &self,
        id: &str,
        owner: Option<String>,
        restore: Option<SessionState>,
    ) -> Option<Arc<SessionHandle>> {
        let mut sessions = self.sessions.lock().unwrap_or_else(|e| e.into_inner());
        // Two requests may revive the same session at once: the first one's loop serves both.
        if let Some(running) = sessions.get(id) {
            return Some(Arc::clone(running));
        }
        if sessions.len() >= self.max_sessions {
            return None;
        }
        let seed = LoopSeed {
            id: id.to_owned(),
            owner,
            restore,
            listen_limit: crate::serve::subscriptions::MAX_LISTEN_STREAMS,
        };
        let handle = start_loop(&self.core, &self.events, &self.stopping, seed);
        sessions.insert(id.to_owned(), Arc::clone(&handle));
        Some(handle)
    }

    /// Saves `session`'s state in the session store if its loop changed it since the last
    /// save: before the reply that changed it leaves, so that any instance sharing the store
    /// serves the client's next request as this one would.
    pub(super) async fn keep(&self, session: &SessionHandle) -> Result<(), StoreError> {
        let _keeping = session.keeping.lock().await;
        let Some(state) = session.states.take_changed() else { return Ok(()) };
        let record = SessionRecord::new(&state, session.owner.as_deref());
        self.store.save(&session.id, &record, self.idle).await
    }
}

/// The session `id` names, if `identity` may use it: served here, or kept in the session
/// store (started by another instance, or before this endpoint's loop for it ended) and served
/// here from now on. `Err` is the answer to give instead.
pub(super) async fn find_session(
    app: &App,
    id: &str,
    identity: Option<&Identity>,
    request: Option<&RequestId>,
) -> Result<Arc<SessionHandle>, Box<Response>> {
    let subject = identity.map(Identity::subject);
    let not_found = || {
        let error = ErrorObject::invalid_request("Session not found: it ended or never existed; initialize again");
        Box::new(reject(StatusCode::NOT_FOUND, request, error))
    };
    let running = app.sessions.lock().unwrap_or_else(|e| e.into_inner()).get(id).cloned();
    let found = match running {
        Some(found) => found,
        None => {
            let record = app.store.load(id).await.map_err(|e| {
                tracing::error!(error = %e, "the session store failed to load a session");
                Box::new(busy(request, "The session store is unavailable: retry later"))
            })?;
            let Some(record) = record else { return Err(not_found()) };
            // Another principal's session is, to this one, a session that does not exist.
            if record.owner() != subject {
                return Err(not_found());
            }
            let Some(state) = record.state() else {
                tracing::warn!(revision = record.protocol_version(), "a kept session names a revision not served here");
                return Err(not_found());
            };
            let owner = record.owner().map(str::to_owned);
            app.open_session(id, owner, Some(state))
                .ok_or_else(|| Box::new(busy(request, "Too many open sessions: retry later")))?
        }
    };
    if found.owner.as_deref() != subject {
        return Err(not_found());
    }
    let now = Instant::now();
    *found.used.lock().unwrap_or_else(|e| e.into_inner()) = now;
    // The store hears of use now and then, not on every request.
    let due = {
        let mut touched = found.touched.lock().unwrap_or_else(|e| e.into_inner());
        let due = now.duration_since(*touched) >= app.idle / 4;
        if due {
            *touched = now;
        }
        due
    };
    if due {
        let store = Arc::clone(&app.store);
        let (id, idle) = (id.to_owned(), app.idle);
        tokio::spawn(async move {
            if let Err(e) = store.touch(&id, idle).await {
                tracing::warn!(error = %e, "the session store failed to keep a session alive");
            }
        });
    }
    Ok(found)
}
