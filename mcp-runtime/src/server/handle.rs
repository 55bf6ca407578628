//! A handle on a running server: what the user's code tells the server while it runs.

use std::sync::{Arc, OnceLock, Weak};

use crate::declare::prompt::PromptDescriptor;
use crate::declare::resource::ResourceDescriptor;
use crate::declare::selection::Selection;
use crate::declare::tool::ToolDescriptor;
use crate::error::{Error, ItemKind, Result};
use crate::server::changes::{ChangeEvent, ItemChange};
use crate::server::core::ServerCore;
use crate::server::registry::{Registry, check_states};

/// A handle on a server, taken with [`Server::handle`](crate::Server::handle) before it
/// serves: says that a resource changed, and (with
/// [`dynamic_lists`](crate::Server::dynamic_lists)) adds, removes, enables and disables
/// items. Subscribed clients are told; cloning is cheap.
///
/// ```
/// use mcp_runtime::{ItemKind, Server, ToolDescriptor};
///
/// let server = Server::builder("demo", "1.0.0").dynamic_lists();
/// let handle = server.handle();
/// // Not serving yet:
/// assert!(handle.disable(ItemKind::Tool, "echo").is_err());
/// ```
#[derive(Debug, Clone, Default)]
pub struct ServerHandle {
    attached: Arc<OnceLock<Attached>>,
}

/// The running server a handle changes: its own, or the one it was mounted in.
#[derive(Debug)]
struct Attached {
    core: Weak<ServerCore>,
    /// Where its server was mounted: what it adds is renamed and given the mount's states.
    mount: Option<Mounted>,
}

#[derive(Debug)]
struct Mounted {
    at: usize,
    prefix: Arc<str>,
}

impl ServerHandle {
    pub(crate) fn new() -> Self {
        ServerHandle::default()
    }

    pub(crate) fn attach(&self, core: &Arc<ServerCore>) {
        // A server builds its core once; a second build (not possible through the public API)
        // would keep the first.
        let _ = self.attached.set(Attached { core: Arc::downgrade(core), mount: None });
    }

    /// Attaches the handle of a server mounted in `core` as mount `at`, under `prefix`.
    pub(crate) fn attach_mounted(&self, core: &Arc<ServerCore>, at: usize, prefix: Arc<str>) {
        let _ = self.attached.set(Attached { core: Arc::downgrade(core), mount: Some(Mounted { at, prefix }) });
    }

    fn core(&self) -> Result<Arc<ServerCore>> {
        self.attached.get().and_then(|attached| attached.core.upgrade()).ok_or(Error::NotRunning)
    }

    fn mount(&self) -> Option<&Mounted> {
        self.attached.get().and_then(|attached| attached.mount.as_ref())
    }

    /// The name an item of this handle's server has where it is served.
    fn served_name(&self, kind: ItemKind, key: &str) -> String {
        match (self.mount(), kind) {
            (Some(mount), ItemKind::Tool | ItemKind::Prompt) => {
                crate::declare::mounting::mounted_name(&mount.prefix, key)
            }
            _ => key.to_owned(),
        }
    }

    /// Marks `items` as the mounted server's, for a mounted one's handle, and checks that the
    /// states they take are registered (in that server).
    fn adopt(
        &self,
        tools: &mut [ToolDescriptor],
        resources: &mut [ResourceDescriptor],
        prompts: &mut [PromptDescriptor],
    ) -> Result<()> {
        let core = self.core()?;
        if let Some(mount) = self.mount() {
            crate::declare::mounting::adopt(&mount.prefix, mount.at, tools, resources, prompts);
        }
        check_states(&core.states, tools, resources, prompts)
    }

    fn dynamic_core(&self) -> Result<Arc<ServerCore>> {
        let core = self.core()?;
        if core.dynamic_lists { Ok(core) } else { Err(Error::StaticLists) }
    }

    /// Tells the clients subscribed to `uri` that it changed
    /// (`notifications/resources/updated`).
    pub fn resource_updated(&self, uri: &str) -> Result<()> {
        self.core()?.publish(ChangeEvent::ResourceUpdated { uri: uri.to_owned() });
        Ok(())
    }

    fn add(&self, kind: ItemKind, items: Registry) -> Result<()> {
        let core = self.dynamic_core()?;
        core.update_registry(|current| current.with_added(items).map(Some))?;
        core.publish(ChangeEvent::ListChanged { kind });
        Ok(())
    }

    /// Adds a tool while the server runs (its states must be registered). Through the handle
    /// of a mounted server, the tool is served under the mount's prefix.
    pub fn add_tool(&self, tool: impl Selection<ToolDescriptor>) -> Result<()> {
        let mut tools = vec![tool.select()?];
        self.adopt(&mut tools, &mut [], &mut [])?;
        self.add(ItemKind::Tool, Registry::build(tools, Vec::new(), Vec::new())?)
    }

    /// Adds a resource or template while the server runs (its states must be registered).
    pub fn add_resource(&self, resource: impl Selection<ResourceDescriptor>) -> Result<()> {
        let mut resources = vec![resource.select()?];
        self.adopt(&mut [], &mut resources, &mut [])?;
        let items = Registry::build(Vec::new(), resources, Vec::new())?;
        let kind = if items.templates.is_empty() { ItemKind::Resource } else { ItemKind::ResourceTemplate };
        self.add(kind, items)
    }

    /// Adds a prompt while the server runs (its states must be registered). Through the
    /// handle of a mounted server, the prompt is served under the mount's prefix.
    pub fn add_prompt(&self, prompt: impl Selection<PromptDescriptor>) -> Result<()> {
        let mut prompts = vec![prompt.select()?];
        self.adopt(&mut [], &mut [], &mut prompts)?;
        self.add(ItemKind::Prompt, Registry::build(Vec::new(), Vec::new(), prompts)?)
    }

    /// Replaces every item of `kind` this handle's server has (resources and templates both,
    /// for either) with `tools`, `resources` and `prompts` (of that kind): what a proxy does
    /// when its remote's list changed. One change, one notification.
    #[cfg(feature = "client")]
    pub(crate) fn replace(
        &self,
        kind: ItemKind,
        mut tools: Vec<ToolDescriptor>,
        mut resources: Vec<ResourceDescriptor>,
        mut prompts: Vec<PromptDescriptor>,
    ) -> Result<()> {
        self.adopt(&mut tools, &mut resources, &mut prompts)?;
        let items = Registry::build(tools, resources, prompts)?;
        let core = self.dynamic_core()?;
        let mounted = self.mount().map(|mount| mount.at);
        core.update_registry(|current| current.with_replaced(kind, mounted, items).map(Some))?;
        core.publish(ChangeEvent::ListChanged { kind });
        Ok(())
    }

    /// Through the handle of a mounted server, `key` is the name in that server (without the
    /// mount's prefix).
    fn change(&self, kind: ItemKind, key: &str, change: ItemChange) -> Result<()> {
        let key = &self.served_name(kind, key);
        let core = self.dynamic_core()?;
        let changed = core.update_registry(|current| Ok::<_, Error>(current.with_change(kind, key, change)))?;
        if !changed {
            return Err(Error::NoSuchItem { kind, name: key.to_owned() });
        }
        core.publish(ChangeEvent::ItemChanged { kind, key: key.to_owned(), change });
        Ok(())
    }

    /// Hides an item (a tool or prompt by name, a resource by URI, a template by its URI
    /// template) until [`enable`](Self::enable).
    pub fn disable(&self, kind: ItemKind, key: &str) -> Result<()> {
        self.change(kind, key, ItemChange::Disable)
    }

    /// Shows a disabled item again.
    pub fn enable(&self, kind: ItemKind, key: &str) -> Result<()> {
        self.change(kind, key, ItemChange::Enable)
    }

    /// Removes an item, enabled or not.
    pub fn remove(&self, kind: ItemKind, key: &str) -> Result<()> {
        self.change(kind, key, ItemChange::Remove)
    }
}
