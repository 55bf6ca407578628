//! Servers written as an `impl` block: `#[mcp_server]` makes its methods items, and the server
//! is given the instance they are called on.

use crate::declare::prompt::PromptDescriptor;
use crate::declare::resource::ResourceDescriptor;
use crate::declare::tool::ToolDescriptor;
use crate::server::builder::Server;

/// A type whose `impl` block is marked `#[mcp_server]` (feature `macros`): its
/// `#[mcp_tool]`, `#[mcp_resource]` and `#[mcp_prompt]` methods are items, called on the
/// instance given to [`Server::instance`] (or made per session by
/// [`Server::instance_per_session`]). Implemented by the macro; not meant to be implemented
/// by hand.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no items to serve: its `impl` block is not marked `#[mcp_server]`",
    label = "not an `#[mcp_server]` type",
    note = "put `#[mcp_server]` on `impl {Self} {{ .. }}` and `#[mcp_tool]` (or `#[mcp_resource]`, `#[mcp_prompt]`) on \
            the methods to serve"
)]
pub trait McpServer: Send + Sync + 'static {
    /// The items of the `impl` block, their handlers reaching the instance through the
    /// request's states.
    #[doc(hidden)]
    fn items() -> Items;
}

/// The items of an `#[mcp_server]` block.
#[doc(hidden)]
#[derive(Debug, Default)]
pub struct Items {
    pub tools: Vec<ToolDescriptor>,
    pub resources: Vec<ResourceDescriptor>,
    pub prompts: Vec<PromptDescriptor>,
}

impl Server {
    /// Serves the items of `instance`'s `#[mcp_server]` block, each method called on this
    /// one instance, which every session and request shares (keep what changes behind a
    /// `Mutex` or an atomic in a field). Free functions declared with the macros are served
    /// beside them ([`Server::new`]). A `State<T>` parameter of type `T` gets the instance
    /// too.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicI64, Ordering};
    /// use mcp_runtime::prelude::*;
    ///
    /// #[derive(Default)]
    /// struct Counter {
    ///     value: AtomicI64,
    /// }
    ///
    /// #[mcp_server]
    /// impl Counter {
    ///     /// Adds 1 to the counter and returns it.
    ///     #[mcp_tool]
    ///     fn increment(&self) -> String {
    ///         (self.value.fetch_add(1, Ordering::SeqCst) + 1).to_string()
    ///     }
    /// }
    ///
    /// let server = Server::builder("counter", "1.0.0").instance(Counter::default());
    /// assert!(server.describe().unwrap().contains("tool increment"));
    /// ```
    #[must_use]
    pub fn instance<T: McpServer>(mut self, instance: T) -> Self {
        self.states.insert(instance);
        self.items::<T>()
    }

    /// Serves the items of `T`'s `#[mcp_server]` block, each session calling them on an
    /// instance of its own, made by `factory` when the session starts (rmcp's per-session
    /// handler): a stdio or WebSocket connection, an HTTP session (`Mcp-Session-Id`), and a
    /// 2026-07-28 request over HTTP, which is a session of its own. A session served again on
    /// another process (sessions kept in Redis) gets a new instance there.
    ///
    /// ```
    /// use std::sync::Mutex;
    /// use mcp_runtime::prelude::*;
    ///
    /// #[derive(Default)]
    /// struct Cart {
    ///     items: Mutex<Vec<String>>,
    /// }
    ///
    /// #[mcp_server]
    /// impl Cart {
    ///     /// Adds an item to this session's cart; returns how many it holds.
    ///     #[mcp_tool]
    ///     fn add(&self, item: String) -> String {
    ///         let mut items = self.items.lock().unwrap();
    ///         items.push(item);
    ///         items.len().to_string()
    ///     }
    /// }
    ///
    /// let server = Server::builder("shop", "1.0.0").instance_per_session(Cart::default);
    /// assert!(server.validate().is_ok());
    /// ```
    #[must_use]
    pub fn instance_per_session<T: McpServer>(mut self, factory: impl Fn() -> T + Send + Sync + 'static) -> Self {
        self.states.insert_per_session(factory);
        self.items::<T>()
    }

    fn items<T: McpServer>(mut self) -> Self {
        let Items { tools, resources, prompts } = T::items();
        self.tools.extend(tools);
        self.resources.extend(resources);
        self.prompts.extend(prompts);
        self
    }
}
