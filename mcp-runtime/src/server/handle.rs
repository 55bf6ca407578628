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
    core: Arc<OnceLock<Weak<ServerCore>>>,
}

impl ServerHandle {
    pub(crate) fn new() -> Self {
        ServerHandle::default()
    }

    pub(crate) fn attach(&self, core: &Arc<ServerCore>) {
        // A server builds its core once; a second build (not possible through the public API)
        // would keep the first.
        let _ = self.core.set(Arc::downgrade(core));
    }

    fn core(&self) -> Result<Arc<ServerCore>> {
        self.core.get().and_then(Weak::upgrade).ok_or(Error::NotRunning)
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

    /// Adds a tool while the server runs (its states must be registered).
    pub fn add_tool(&self, tool: impl Selection<ToolDescriptor>) -> Result<()> {
        let tools = vec![tool.select()?];
        check_states(&self.core()?.states, &tools, &[], &[])?;
        self.add(ItemKind::Tool, Registry::build(tools, Vec::new(), Vec::new())?)
    }

    /// Adds a resource or template while the server runs (its states must be registered).
    pub fn add_resource(&self, resource: impl Selection<ResourceDescriptor>) -> Result<()> {
        let resources = vec![resource.select()?];
        check_states(&self.core()?.states, &[], &resources, &[])?;
        let items = Registry::build(Vec::new(), resources, Vec::new())?;
        let kind = if items.templates.is_empty() { ItemKind::Resource } else { ItemKind::ResourceTemplate };
        self.add(kind, items)
    }

    /// Adds a prompt while the server runs (its states must be registered).
    pub fn add_prompt(&self, prompt: impl Selection<PromptDescriptor>) -> Result<()> {
        let prompts = vec![prompt.select()?];
        check_states(&self.core()?.states, &[], &[], &prompts)?;
        self.add(ItemKind::Prompt, Registry::build(Vec::new(), Vec::new(), prompts)?)
    }

    fn change(&self, kind: ItemKind, key: &str, change: ItemChange) -> Result<()> {
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
