//! The servers mounted in a server, once taken apart ([`Server::mount`](crate::Server::mount)):
//! their prefixes, their handles, and their layers, which the requests for their items pass
//! inside the server's own.

use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context as TaskContext, Poll};

use tower_service::Service;

use crate::middleware::{BoxError, McpRequest, McpResponse, McpService};
use crate::server::core::ServerCore;
use crate::server::handle::ServerHandle;
use crate::util::BoxFuture;

/// A server mounted in this one: what is left of it once its items and states joined.
#[derive(Debug)]
pub(crate) struct Mount {
    pub(crate) prefix: Arc<str>,
    /// Its layers, built: the requests for its items pass them inside this server's.
    pub(crate) layers: Option<McpService>,
    /// Its handle, attached to this server once it is built.
    pub(crate) handle: ServerHandle,
}

/// Attaches the mounted servers' handles to `core`, the server they were mounted in, built.
pub(crate) fn attach(mounts: Vec<Mount>, core: &Arc<ServerCore>) {
    for (at, mount) in mounts.into_iter().enumerate() {
        mount.handle.attach_mounted(core, at, mount.prefix);
    }
}

/// The mounts' layers, by mount, when any has layers: the innermost of this server's layers,
/// which sends a request for a mounted item through its mount's.
pub(crate) fn mounts_layers(mounts: &[Mount]) -> Option<MountLayers> {
    let layers: Vec<_> = mounts.iter().map(|mount| mount.layers.clone().map(Mutex::new)).collect();
    layers.iter().any(Option::is_some).then(|| MountLayers { layers: Arc::from(layers) })
}

/// Each mount's layers, when it has some. (A service is `Send` but not `Sync`: each is shared
/// behind a lock, and a request takes a copy of the one it passes.)
type ByMount = Arc<[Option<Mutex<McpService>>]>;

/// The layer that sends a request for a mounted item through its mount's layers.
#[derive(Debug, Clone)]
pub(crate) struct MountLayers {
    layers: ByMount,
}

impl tower_layer::Layer<McpService> for MountLayers {
    type Service = ThroughMount;

    fn layer(&self, inner: McpService) -> ThroughMount {
        ThroughMount { layers: Arc::clone(&self.layers), inner }
    }
}

/// [`MountLayers`]' service.
#[derive(Debug, Clone)]
pub(crate) struct ThroughMount {
    layers: ByMount,
    inner: McpService,
}

impl Service<McpRequest> for ThroughMount {
    type Response = McpResponse;
    type Error = BoxError;
    type Future = Pin<Box<dyn std::future::Future<Output = Result<McpResponse, BoxError>> + Send>>;

    fn poll_ready(&mut self, _cx: &mut TaskContext<'_>) -> Poll<Result<(), BoxError>> {
        // Both ways in are made ready when a request takes them (`oneshot`).
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, mut request: McpRequest) -> Self::Future {
        let mount = request.mounted.and_then(|at| {
            let layers = self.layers.get(at)?.as_ref()?;
            Some((at, layers.lock().unwrap_or_else(PoisonError::into_inner).clone()))
        });
        let through: BoxFuture<'static, _> = match mount {
            Some((at, layers)) => {
                // The mount's layers see the states its items see.
                let states = Arc::clone(request.context.states().seen_by(Some(at)));
                request.context = request.context.with_states(states);
                Box::pin(layers.oneshot(request))
            }
            None => Box::pin(self.inner.clone().oneshot(request)),
        };
        through
    }
}
