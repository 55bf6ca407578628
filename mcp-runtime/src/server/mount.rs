//! Servers mounted in a server: another [`Server`]'s items served as this one's, tools and
//! prompts under a prefix, each item keeping the states, layers and handle of the server it
//! came from.
//!
//! A mounted server is taken apart when it is mounted: its items join this server's registry
//! (so that a mounted item is looked up and called as any other, at no cost), marked with the
//! mount they came from; its states become the mount's, which those items see; its layers are
//! built into one service, which the requests for those items pass inside this server's own
//! layers; its handle changes this server's lists.

use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context as TaskContext, Poll};

use tower_service::Service;

use crate::declare::prompt::PromptDescriptor;
use crate::declare::resource::ResourceDescriptor;
use crate::declare::tool::ToolDescriptor;
use crate::error::{Error, Result};
use crate::middleware::{BoxError, McpRequest, McpResponse, McpService};
use crate::server::builder::Server;
use crate::server::core::ServerCore;
use crate::server::handle::ServerHandle;
use crate::util::BoxFuture;

/// What joins the prefix of a mount and the name of a tool or prompt mounted under it:
/// `gifts` and `suggest` make `gifts_suggest`.
pub const MOUNT_SEPARATOR: &str = "_";

/// The name under which `name` is served when mounted under `prefix`.
pub(crate) fn mounted_name(prefix: &str, name: &str) -> String {
    format!("{prefix}{MOUNT_SEPARATOR}{name}")
}

/// A server mounted in this one: what is left of it once its items and states joined.
#[derive(Debug)]
pub(crate) struct Mount {
    prefix: Arc<str>,
    /// Its layers, built: the requests for its items pass them inside this server's.
    layers: Option<McpService>,
    /// Its handle, attached to this server once it is built.
    handle: ServerHandle,
}

impl Server {
    /// Serves `server`'s items as this server's: its tools and prompts named
    /// `prefix_name` (`prefix`, [`MOUNT_SEPARATOR`], their name), its resources and
    /// templates under their own URIs. Each item keeps what `server` gave it: its states (a
    /// `State<T>` or an [`instance`](Self::instance) is the mounted server's, so one
    /// declaration mounted twice under two prefixes serves two states), its layers (which its
    /// requests pass inside this server's own), its tags and scopes; and `server`'s
    /// [`handle`](Self::handle) changes these lists, under the prefix
    /// (`list_changed` reaches this server's clients). Two items under one name, between
    /// mounts or with this server's own, stop the start naming both.
    ///
    /// What makes `server` a server of its own (its name, instructions, skills, transport
    /// settings) is not used; a mounted server mounts nothing itself.
    ///
    /// ```
    /// use mcp_runtime::prelude::*;
    ///
    /// struct Shop {
    ///     region: &'static str,
    /// }
    ///
    /// #[mcp_server]
    /// impl Shop {
    ///     /// Says where the prices are from.
    ///     #[mcp_tool]
    ///     fn prices(&self) -> String {
    ///         format!("prices in {}", self.region)
    ///     }
    /// }
    ///
    /// let shop = |region| Server::builder("shop", "1.0.0").instance(Shop { region });
    /// let gateway = Server::builder("gateway", "1.0.0").mount("eu", shop("EU")).mount("us", shop("US"));
    /// let listing = gateway.describe().unwrap();
    /// assert!(listing.contains("tool eu_prices") && listing.contains("tool us_prices"));
    /// ```
    #[must_use]
    pub fn mount(mut self, prefix: impl Into<String>, server: Server) -> Self {
        let prefix = prefix.into();
        if let Err(refused) = self.take_mounted(&prefix, server) {
            self.refused.push(refused);
        }
        self
    }

    fn take_mounted(&mut self, prefix: &str, mut server: Server) -> Result<()> {
        let refuse = |why: &str| Err(Error::InvalidMount { prefix: prefix.to_owned(), why: why.to_owned() });
        if prefix.is_empty() || !prefix.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')) {
            return refuse("a prefix is one or more of `A-Z a-z 0-9 _ - .`, as tool names are");
        }
        if let Some(refused) = server.refused.drain(..).next() {
            return Err(refused);
        }
        if !server.mounts.is_empty() {
            return refuse("the server mounted has servers mounted in it: mount those on this server instead");
        }
        if !server.skills.is_empty() {
            return refuse("the server mounted serves skills, which a mount does not carry: add them to this server");
        }
        // Their states are checked with this server's items, each against its mount's.
        server.gather_items();
        let at = self.states.mount(std::mem::take(&mut server.states));
        let (mut tools, mut resources, mut prompts) = (server.tools, server.resources, server.prompts);
        adopt(prefix, at, &mut tools, &mut resources, &mut prompts);
        self.tools.extend(tools);
        self.resources.extend(resources);
        self.prompts.extend(prompts);
        self.dynamic_lists |= server.dynamic_lists;
        let layers = std::mem::take(&mut server.layers).build();
        self.mounts.push(Mount { prefix: Arc::from(prefix), layers, handle: server.handle });
        Ok(())
    }

    /// Attaches the mounted servers' handles to `core`, this server built.
    pub(crate) fn attach_mounts(mounts: Vec<Mount>, core: &Arc<ServerCore>) {
        for (at, mount) in mounts.into_iter().enumerate() {
            mount.handle.attach_mounted(core, at, mount.prefix);
        }
    }
}

/// Makes `tools`, `resources` and `prompts` items of mount `at`: tools and prompts renamed
/// under `prefix`, each item seeing the mount's states and saying where it came from.
pub(crate) fn adopt(
    prefix: &str,
    at: usize,
    tools: &mut [ToolDescriptor],
    resources: &mut [ResourceDescriptor],
    prompts: &mut [PromptDescriptor],
) {
    let mark = |parts: &mut crate::declare::item::ItemParts| {
        parts.mounted = Some(at);
        parts.defined_at = format!("{}, mounted under `{prefix}`", parts.defined_at).into();
    };
    for tool in tools {
        tool.tool.name = mounted_name(prefix, &tool.tool.name);
        mark(&mut tool.parts);
    }
    for prompt in prompts {
        prompt.prompt.name = mounted_name(prefix, &prompt.prompt.name);
        mark(&mut prompt.parts);
    }
    for resource in resources {
        mark(&mut resource.parts);
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
