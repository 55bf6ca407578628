//! Servers mounted in a server: another [`Server`]'s items served as this one's, tools and
//! prompts under a prefix, each item keeping the states, layers and handle of the server it
//! came from.
//!
//! A mounted server is taken apart when it is mounted: its items join this server's registry
//! (so that a mounted item is looked up and called as any other, at no cost), marked with the
//! mount they came from; its states become the mount's, which those items see; its layers are
//! built into one service, which the requests for those items pass inside this server's own
//! layers; its handle changes this server's lists.

use std::sync::Arc;

use crate::declare::mounting::adopt;
use crate::error::{Error, Result};
use crate::server::builder::Server;
use crate::server::mounts::Mount;

impl Server {
    /// Serves `server`'s items as this server's: its tools and prompts named `prefix_name`
    /// (`prefix`, [`MOUNT_SEPARATOR`](crate::MOUNT_SEPARATOR), their name), its resources
    /// and templates under their own URIs. Each item keeps what `server` gave it: its states (a
    /// `State<T>` or an [`instance`](Self::instance) is the mounted server's, so one
    /// declaration mounted twice under two prefixes serves two states), its layers (which its
    /// requests pass inside this server's own), its tags and scopes; and `server`'s
    /// [`handle`](Self::handle) changes these lists, under the prefix
    /// (`list_changed` reaches this server's clients). Two items under one name, between
    /// mounts or with this server's own, stop the start naming both.
    ///
    /// What makes `server` a server of its own (its name, instructions, transport settings)
    /// is not used; a server with skills, or with servers mounted in it, is refused (mount
    /// those on this server).
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
}
