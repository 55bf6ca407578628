//! A built server, shared by every connection: its configuration, its capabilities (fixed at
//! start), the current registry (swapped whole when it changes), and the change bus.

use std::sync::{Arc, RwLock};
use std::time::Duration;

use tokio::sync::broadcast;

use crate::context::parking::Parking;
use crate::context::request_state::Sealer;
use crate::context::state::States;
use crate::error::Error;
use crate::middleware::McpService;
use crate::protocol::{CachePolicies, Implementation, ServerCapabilities};
use crate::server::changes::{Announcement, Bus, ChangeEvent, ChangeNotice, Heard, TaskNotice};
use crate::server::local::LocalThread;
use crate::server::registry::Registry;
use crate::tasks::live::{Forwarded, Tasks};

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
    /// The tasks of the tasks extension (made only by tools that allow them).
    pub(crate) tasks: Arc<Tasks>,
    /// The skills served (the skills extension).
    pub(crate) skills: crate::skills::Catalog,
    /// Seals the `requestState` of input-required results.
    pub(crate) sealer: Arc<Sealer>,
    /// Handlers stopped to ask a 2026-07-28 client, kept for its retry.
    pub(crate) parking: Arc<Parking>,
    /// The application's states.
    pub(crate) states: Arc<States>,
    /// Where `local` handlers run.
    pub(crate) local: LocalThread,
    pub(crate) info: Implementation,
    /// `info` serialized whole (as every revision with titles and icons sees it), written into
    /// each 2026-07-28 result's `_meta` as it is.
    pub(crate) info_json: Vec<u8>,
    pub(crate) instructions: Option<String>,
    /// The Server Card's name, when one is published (read by the HTTP transport).
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) card_name: Option<String>,
    /// Declared once at start and never changed.
    pub(crate) capabilities: ServerCapabilities,
    pub(crate) dynamic_lists: bool,
    /// The current registry; a change swaps in a new one and requests already running keep
    /// the one they started with.
    pub(super) registry: RwLock<Arc<Registry>>,
    /// List and resource changes, for every connection.
    pub(crate) announcements: broadcast::Sender<Heard>,
    /// Sessions ended on any server of the bus, for the HTTP endpoint.
    pub(crate) ended_sessions: broadcast::Sender<Arc<str>>,
    /// Client messages another server could not place, by session: for this server's loops
    /// of those sessions (HTTP).
    pub(crate) client_messages: broadcast::Sender<(Arc<str>, Arc<str>)>,
    /// This server's id on its change bus.
    pub(super) origin: String,
    /// The number of the last notice this server published.
    pub(super) published: std::sync::atomic::AtomicU64,
    /// Carries change events to every server sharing it, this one included.
    pub(super) bus: Bus,
    pub(crate) config: Config,
    /// The service requests enter when layers were added (each connection takes a copy);
    /// `None`: requests go straight to their methods.
    pub(crate) layers: Option<std::sync::Mutex<McpService>>,
    /// The only layer is the scope check: requests the HTTP edge did not authorize skip it.
    pub(crate) layers_only_check: bool,
    /// Records sessions that end (feature `telemetry`).
    #[cfg(feature = "telemetry")]
    pub(crate) telemetry: Option<crate::middleware::telemetry::Telemetry>,
    /// The 2026-07-28 clients (name, version, revision) already logged as met.
    pub(crate) met_clients: std::sync::Mutex<std::collections::HashSet<(String, String, crate::protocol::Revision)>>,
}

/// How many 2026-07-28 clients the server remembers having logged.
const MET_CLIENTS: usize = 4096;

impl ServerCore {
    /// Says at `info` what the server declares, once it starts serving.
    pub(crate) fn announce(&self) {
        let registry = self.registry();
        let count = |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
        let capabilities = serde_json::to_value(&self.capabilities).unwrap_or_default();
        let declared: Vec<&str> = capabilities.as_object().into_iter().flatten().map(|(k, _)| k.as_str()).collect();
        tracing::info!(
            server = %self.info.name,
            version = %self.info.version,
            tools = registry.tools.len(),
            resources = registry.resources.len(),
            resource_templates = registry.templates.len(),
            prompts = registry.prompts.len(),
            capabilities = %declared.join(","),
            layers = self.layers.is_some(),
            "{} {} declares {}, {}, {} and {}",
            self.info.name,
            self.info.version,
            count(registry.tools.len(), "tool", "tools"),
            count(registry.resources.len(), "resource", "resources"),
            count(registry.templates.len(), "resource template", "resource templates"),
            count(registry.prompts.len(), "prompt", "prompts"),
        );
    }

    /// Says at `info` that a 2026-07-28 client reached the server for the first time (as
    /// far as the last few thousand clients go: past them, it starts again).
    pub(crate) fn met(&self, negotiated: &crate::context::Negotiated, transport: crate::middleware::Transport) {
        let client = negotiated.client_info.as_ref();
        let key = (
            client.map(|c| c.name.clone()).unwrap_or_default(),
            client.map(|c| c.version.clone()).unwrap_or_default(),
            negotiated.revision,
        );
        let mut met = self.met_clients.lock().unwrap_or_else(|e| e.into_inner());
        if met.len() >= MET_CLIENTS {
            met.clear();
        }
        if met.insert(key) {
            tracing::info!(
                client = client.map(|c| c.name.as_str()),
                client_version = client.map(|c| c.version.as_str()),
                requested = %negotiated.revision,
                served = %negotiated.revision,
                transport = transport.as_str(),
                "a client reached the server without a session ({})",
                negotiated.revision
            );
        }
    }

    /// The registry as it is now.
    pub(crate) fn registry(&self) -> Arc<Registry> {
        Arc::clone(&self.registry.read().unwrap_or_else(|e| e.into_inner()))
    }

    /// Tells every server on the bus (this one included) of `event`.
    pub(crate) fn publish(&self, event: ChangeEvent) {
        let seq = self.published.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
        self.bus.0.publish(ChangeNotice { origin: self.origin.clone(), seq, event });
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
            ChangeEvent::ClientMessage { session, message } => {
                // This server tried it already.
                if notice.origin != self.origin {
                    let _ = self.client_messages.send((Arc::from(session.as_str()), Arc::from(message.as_str())));
                }
                return;
            }
            ChangeEvent::TaskChanged { task_id, owner, task } => Announcement::Task(Arc::new(TaskNotice {
                task_id: task_id.clone(),
                owner: owner.clone(),
                detailed: task.clone(),
            })),
            ChangeEvent::TaskInput { runner, task_id, responses } => {
                let (runner, task_id, responses) = (runner.clone(), task_id.clone(), responses.clone());
                self.apply_forwarded(Forwarded::Input { runner, task_id, responses });
                return;
            }
            ChangeEvent::TaskCancelled { runner, task_id } => {
                self.apply_forwarded(Forwarded::Cancel { runner: runner.clone(), task_id: task_id.clone() });
                return;
            }
        };
        // No connection listening is not an error.
        let _ = self.announcements.send(Heard { announcement: event, notice: notice.name() });
    }

    /// Applies what a client asked of a task through another server, when this server runs it.
    fn apply_forwarded(&self, forwarded: Forwarded) {
        if forwarded.runner() != self.origin {
            return;
        }
        // Heard on the bus's own task, or inside a handler's publish: a runtime is there.
        let Ok(runtime) = tokio::runtime::Handle::try_current() else { return };
        let tasks = Arc::clone(&self.tasks);
        runtime.spawn(async move { tasks.apply_forwarded(forwarded).await });
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The README's figure for the largest message (`Server::max_message_size`).
    #[test]
    fn a_message_is_at_most_4_mib_by_default() {
        assert_eq!(Config::default().max_message_size, 4 << 20);
    }
}
