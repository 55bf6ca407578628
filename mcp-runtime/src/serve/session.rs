//! One connection: which era it is in, what it subscribed to, its log level, and the
//! executor that runs its requests. The lifecycle methods change it; [`intake`](super::intake)
//! takes each incoming message in arrival order.

use std::sync::Arc;
use std::sync::atomic::AtomicU8;

use tokio::sync::mpsc;

use crate::context::Negotiated;
use crate::context::state::States;
use crate::middleware::Transport;
use crate::protocol::{LogLevel, Revision};
use crate::serve::arrival::Via;
use crate::serve::executor::Executor;
use crate::serve::layered::{Back, Counts, Layered};
use crate::serve::request::StatelessViews;
use crate::serve::subscriptions::{Routed, Subscriptions};
use crate::server::changes::Announcement;
use crate::server::core::ServerCore;

/// Where a connection is in its life.
#[derive(Debug)]
pub(crate) enum Era {
    /// Nothing negotiated yet.
    Fresh,
    /// `initialize` was answered.
    Handshake {
        negotiated: Arc<Negotiated>,
        /// `notifications/initialized` arrived: server-initiated traffic may flow.
        client_ready: bool,
    },
}

/// A connection's state, and the executor that runs its requests.
#[derive(Debug)]
pub(crate) struct Session {
    pub(crate) core: Arc<ServerCore>,
    /// The states its requests see when it has instances of its own (made by their factories
    /// when the session starts); else the server's.
    pub(crate) states: Option<Arc<States>>,
    pub(crate) era: Era,
    pub(crate) subscriptions: Subscriptions,
    pub(crate) executor: Executor,
    /// The view of the methods served before `initialize` (`ping`).
    pub(crate) fresh: Arc<Negotiated>,
    /// The views of the 2026-07-28 `_meta`s read last.
    pub(crate) stateless_views: StatelessViews,
    /// The least severe log message the client wants (`logging/setLevel`; handshake only).
    pub(crate) log_level: Arc<AtomicU8>,
    /// Counts changes to what [`state`](Self::state) returns, so that a transport keeping
    /// sessions elsewhere saves only when something changed.
    pub(crate) changes: u64,
    /// What carries this connection's messages (for the layers and the logs).
    pub(crate) transport: Transport,
    /// Its HTTP session's id (for the logs, and for what another instance serving the session
    /// is handed).
    pub(crate) session_id: Option<Arc<str>>,
    /// The server's layers, when it has any: this connection's copy.
    pub(crate) layered: Option<Layered>,
}

/// What a handshake-era session is, apart from its loop and what runs in it: enough to serve
/// the session again, on another loop or in another process.
#[derive(Debug, Clone)]
pub(crate) struct SessionState {
    pub(crate) negotiated: Arc<Negotiated>,
    pub(crate) log_level: LogLevel,
    /// The URIs of `resources/subscribe`.
    pub(crate) subscriptions: Vec<String>,
}

impl Session {
    /// Hands `message`, a client's message that names nothing here (an answer to a question
    /// another instance asked, a cancellation of a request another instance runs), to the
    /// other instances serving this session, over the change bus. Nothing is sent on for a
    /// connection that is not an HTTP session, or for a message that came that way.
    pub(crate) fn forward(&self, via: Via, message: String) {
        if via == Via::Instance {
            return;
        }
        if let Some(session) = &self.session_id {
            let event = crate::server::changes::ChangeEvent::ClientMessage { session: session.to_string(), message };
            self.core.publish(event);
        }
    }

    /// A new connection whose responses go to `out`.
    /// Its layers' requests come back on the receiver.
    pub(crate) fn new(
        core: Arc<ServerCore>,
        out: mpsc::Sender<Vec<u8>>,
        listen_limit: usize,
        transport: Transport,
    ) -> (Self, Option<mpsc::UnboundedReceiver<Back>>) {
        let fresh = Arc::new(Negotiated {
            revision: Revision::LATEST_HANDSHAKE,
            client_capabilities: Default::default(),
            client_info: None,
        });
        let executor = Executor::new(Arc::clone(&core), out);
        let log_level = Arc::new(AtomicU8::new(LogLevel::Info.index()));
        let layers = core.layers.as_ref().map(|layers| layers.lock().unwrap_or_else(|e| e.into_inner()).clone());
        let max_in_flight = core.config.max_in_flight;
        let (layered, returns) = layers.map(|layers| Layered::new(layers, max_in_flight)).unzip();
        let session = Session {
            states: core.states.for_session(),
            core,
            era: Era::Fresh,
            subscriptions: Subscriptions::with_limit(listen_limit),
            executor,
            fresh,
            stateless_views: StatelessViews::default(),
            log_level,
            changes: 0,
            transport,
            session_id: None,
            layered,
        };
        (session, returns)
    }

    /// Whether the transport may read another message: neither the executor's look-ahead nor
    /// the layers' is full, and no lifecycle request is still in the layers.
    pub(crate) fn can_read(&self) -> bool {
        self.executor.can_read() && self.layered.as_ref().is_none_or(Layered::can_read)
    }

    /// Whether requests are still in the layers.
    pub(crate) fn in_layers(&self) -> bool {
        self.layered.as_ref().is_some_and(Layered::busy)
    }

    /// Whether the loop waits for requests to leave the layers: to read again, or (`reading`
    /// over) to end. Otherwise their leaving need not wake it.
    pub(crate) fn waits_on_layers(&self, reading: bool) -> bool {
        self.layered.as_ref().is_some_and(|layered| layered.busy() && (!reading || !layered.can_read()))
    }

    /// The layers' counts of this session's requests, to wait on (`None` without layers).
    pub(crate) fn layer_counts(&self) -> Option<Arc<Counts>> {
        self.layered.as_ref().map(Layered::counts)
    }

    /// What this session is, once `initialize` was answered.
    pub(crate) fn state(&self) -> Option<SessionState> {
        let Era::Handshake { negotiated, .. } = &self.era else { return None };
        let level = self.log_level.load(std::sync::atomic::Ordering::Relaxed);
        Some(SessionState {
            negotiated: Arc::clone(negotiated),
            log_level: LogLevel::from_index(level).unwrap_or(LogLevel::Info),
            subscriptions: self.subscriptions.uris().map(str::to_owned).collect(),
        })
    }

    /// Serves a session that was started elsewhere as this one. Its client sent
    /// `notifications/initialized` before anything that reached here: it is ready.
    pub(crate) fn restore(&mut self, state: SessionState) {
        self.era = Era::Handshake { negotiated: state.negotiated, client_ready: true };
        self.log_level.store(state.log_level.index(), std::sync::atomic::Ordering::Relaxed);
        self.subscriptions.restore(state.subscriptions);
    }

    /// What this connection sends after missing announcements it cannot name (see
    /// [`Subscriptions::on_lag`]).
    pub(crate) fn on_lag(&self) -> Vec<Routed> {
        let ready = matches!(self.era, Era::Handshake { client_ready: true, .. });
        self.subscriptions.on_lag(&self.core, ready)
    }

    /// The notifications an event becomes on this connection.
    pub(crate) fn on_announcement(&self, announcement: &Announcement) -> Vec<Routed> {
        let ready = matches!(self.era, Era::Handshake { client_ready: true, .. });
        self.subscriptions.on_announcement(&self.core, announcement, ready)
    }

    /// The connection is ending: the responses that close what is still open. Questions still
    /// waiting for the client end with `AskError::Disconnected`.
    pub(crate) fn close(&mut self) -> Vec<Routed> {
        self.executor.pending().close();
        self.subscriptions.close(&self.core)
    }
}
