//! A built server, shared by every connection: its configuration, its capabilities (fixed at
//! start), the current registry (swapped whole when it changes), and the change bus.

use std::sync::{Arc, RwLock};
use std::time::Duration;

use tokio::sync::broadcast;

use crate::context::request_state::Sealer;
use crate::context::state::States;
use crate::error::Error;
use crate::middleware::McpService;
use crate::protocol::{CachePolicies, Implementation, ServerCapabilities};
use crate::server::changes::{Announcement, Bus, ChangeEvent, ChangeNotice};
use crate::server::local::LocalThread;
use crate::server::registry::Registry;

/// Limits and sizes a server works with.
#[derive(Debug, Clone)]
pub(crate) struct Config {
    /// Items per page of a list result.
    pub(crate) page_size: usize,
    /// Requests a connection runs at once before it stops reading more.
    pub(crate) max_in_flight: usize,
    /// The largest message accepted, in bytes.
    pub(crate) max_message_size: usize,
    /// How long 2026-07-28 clients may cache each list.
    pub(crate) cache: CachePolicies,
    /// How long requests in flight may take to finish once the shutdown signal came.
    pub(crate) drain_timeout: Duration,
    /// The time limit of handlers that set none.
    pub(crate) default_timeout: Option<Duration>,
    /// Handlers may send log messages to the client (the `logging` capability).
    pub(crate) client_logging: bool,
    /// How long a handler waits for the client to answer its question.
    pub(crate) client_request_timeout: Duration,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            page_size: 100,
            max_in_flight: 64,
            max_message_size: 4 * 1024 * 1024,
            cache: CachePolicies::default(),
            drain_timeout: Duration::from_secs(5),
            default_timeout: None,
            client_logging: false,
            client_request_timeout: Duration::from_secs(300),
        }
    }
}

/// A built server, shared by every connection.
#[derive(Debug)]
pub(crate) struct ServerCore {
    /// Seals the `requestState` of input-required results.
    pub(crate) sealer: Arc<Sealer>,
    /// The application's states.
    pub(crate) states: Arc<States>,
    /// Where `local` handlers run.
    pub(crate) local: LocalThread,
    pub(crate) info: Implementation,
    /// `info` serialized whole (as every revision with titles and icons sees it), written into
    /// each 2026-07-28 result's `_meta` as it is.
    pub(crate) info_json: Vec<u8>,
    pub(crate) instructions: Option<String>,
    /// Declared once at start and never changed.
    pub(crate) capabilities: ServerCapabilities,
    pub(crate) dynamic_lists: bool,
    /// The current registry; a change swaps in a new one and requests already running keep
    /// the one they started with.
    pub(super) registry: RwLock<Arc<Registry>>,
    /// List and resource changes, for every connection.
    pub(crate) announcements: broadcast::Sender<Announcement>,
    /// Sessions ended on any server of the bus, for the HTTP endpoint.
    pub(crate) ended_sessions: broadcast::Sender<Arc<str>>,
    /// This server's id on its change bus.
    pub(super) origin: String,
    /// Carries change events to every server sharing it, this one included.
    pub(super) bus: Bus,
    pub(crate) config: Config,
    /// The service requests enter when layers were added (each connection takes a copy);
    /// `None`: requests go straight to their methods.
    pub(crate) layers: Option<std::sync::Mutex<McpService>>,
}

impl ServerCore {
    /// The registry as it is now.
    pub(crate) fn registry(&self) -> Arc<Registry> {
        Arc::clone(&self.registry.read().unwrap_or_else(|e| e.into_inner()))
    }

    /// Tells every server on the bus (this one included) of `event`.
    pub(crate) fn publish(&self, event: ChangeEvent) {
        self.bus.0.publish(ChangeNotice { origin: self.origin.clone(), event });
    }

    /// A notice from the bus: this server's connections are told, and another server's item
    /// change is applied here too.
    pub(super) fn hear(&self, notice: &ChangeNotice) {
        let event = match &notice.event {
            ChangeEvent::ListChanged { kind } => Announcement::ListChanged(*kind),
            ChangeEvent::ResourceUpdated { uri } => Announcement::ResourceUpdated(Arc::from(uri.as_str())),
            ChangeEvent::ItemChanged { kind, key, change } => {
                let ours = notice.origin == self.origin;
                // Another server's change applies here when this server has the item too.
                let applied = !ours
                    && self.dynamic_lists
                    && self
                        .update_registry(|current| Ok::<_, Error>(current.with_change(*kind, key, *change)))
                        .unwrap_or(false);
                if !ours && !applied {
                    return;
                }
                Announcement::ListChanged(*kind)
            }
            ChangeEvent::SessionEnded { session } => {
                // No endpoint listening (stdio) is not an error.
                let _ = self.ended_sessions.send(Arc::from(session.as_str()));
                return;
            }
        };
        // No connection listening is not an error.
        let _ = self.announcements.send(event);
    }

    /// Replaces the registry with what `change` makes of it (`None`: nothing changes).
    pub(crate) fn update_registry<E>(
        &self,
        change: impl FnOnce(&Registry) -> Result<Option<Registry>, E>,
    ) -> Result<bool, E> {
        let mut current = self.registry.write().unwrap_or_else(|e| e.into_inner());
        match change(&current)? {
            Some(next) => {
                *current = Arc::new(next);
                Ok(true)
            }
            None => Ok(false),
        }
    }
}
