//! The server builder: who the server is, what it offers, how it serves. [`build`](super::build)
//! turns it into the core connections share.

use std::sync::Arc;

use crate::error::Error;
use crate::protocol::{CachePolicy, Cacheable};
use crate::server::changes::{Bus, ChangeBus};
use crate::server::core::Config;
use std::future::Future;
use std::time::Duration;

use serde_json::Map;

use crate::context::state::States;
use crate::declare::prompt::PromptDescriptor;
use crate::declare::resource::ResourceDescriptor;
use crate::declare::selection::Selection;
use crate::declare::tool::ToolDescriptor;
use crate::middleware::Layers;
use crate::protocol::Implementation;
use crate::server::handle::ServerHandle;
use crate::util::BoxFuture;

/// An MCP server: who it is, what it offers, and how it serves.
///
/// [`Server::new`] offers every item declared with the attribute macros anywhere in the
/// program; [`Server::builder`] offers only what is added to it explicitly.
///
/// ```no_run
/// use mcp_runtime::Server;
///
/// #[tokio::main]
/// async fn main() -> mcp_runtime::Result<()> {
///     Server::new("gift-genius", env!("CARGO_PKG_VERSION"))
///         .instructions("Suggests gifts.")
///         .serve_stdio()
///         .await
/// }
/// ```
#[derive(Debug)]
pub struct Server {
    pub(super) info: Implementation,
    pub(super) instructions: Option<String>,
    pub(super) tools: Vec<ToolDescriptor>,
    pub(super) resources: Vec<ResourceDescriptor>,
    pub(super) prompts: Vec<PromptDescriptor>,
    /// What `.tool(..)` and the like were given but could not take, reported by `build`.
    pub(super) refused: Vec<Error>,
    /// The extensions declared, by identifier, with their settings.
    pub(super) extensions: Map<String, serde_json::Value>,
    pub(super) include_declared: bool,
    pub(super) dynamic_lists: bool,
    pub(super) handle: ServerHandle,
    pub(super) config: Config,
    pub(super) shutdown: Option<ShutdownSignal>,
    pub(super) states: States,
    pub(super) request_state_key: Option<[u8; 32]>,
    pub(super) request_state_ttl: Duration,
    /// How many handlers stopped to ask a 2026-07-28 client are kept for the retry, and how long.
    pub(super) kept_handlers: (usize, Duration),
    pub(super) event_backlog: usize,
    pub(super) bus: Bus,
    pub(super) layers: Layers,
    /// Where tasks are kept (a [`MemoryTaskStore`](crate::tasks::MemoryTaskStore) unless set).
    pub(super) task_store: Option<crate::tasks::store::SharedTaskStore>,
    /// How long a task is kept after it was made.
    pub(super) task_ttl: Duration,
    /// How often task clients are asked to poll.
    pub(super) task_poll_interval: Duration,
    /// The skills served (the skills extension).
    pub(super) skills: Vec<crate::skills::Skill>,
    /// Only the items with one of these tags are offered (`Server::only_tags`).
    pub(super) only_tags: Option<Vec<String>>,
    /// The name of the Server Card (`Server::server_card`).
    pub(super) card_name: Option<String>,
    /// The servers mounted in this one (`Server::mount`).
    pub(super) mounts: Vec<crate::server::mounts::Mount>,
    #[cfg(feature = "telemetry")]
    pub(crate) telemetry: Option<crate::middleware::telemetry::Telemetry>,
}

/// How long a task is kept unless [`Server::task_ttl`] says otherwise.
const DEFAULT_TASK_TTL: Duration = Duration::from_secs(60 * 60);

/// How often task clients are asked to poll unless [`Server::task_poll_interval`] says.
const DEFAULT_TASK_POLL_INTERVAL: Duration = Duration::from_secs(1);

/// The future that tells a serving server to stop.
pub(crate) struct ShutdownSignal(pub(crate) BoxFuture<'static, ()>);

impl std::fmt::Debug for ShutdownSignal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ShutdownSignal")
    }
}

impl Server {
    /// A server named `name` at `version` offering every item declared with the macros.
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        Server { include_declared: true, ..Server::builder(name, version) }
    }

    /// A server named `name` at `version` offering only the items added with
    /// [`tool`](Self::tool) and the like: for tests, or several servers in one program.
    pub fn builder(name: impl Into<String>, version: impl Into<String>) -> Self {
        Server {
            info: Implementation::new(name, version),
            instructions: None,
            tools: Vec::new(),
            resources: Vec::new(),
            prompts: Vec::new(),
            refused: Vec::new(),
            extensions: Map::new(),
            include_declared: false,
            dynamic_lists: false,
            handle: ServerHandle::new(),
            config: Config::default(),
            shutdown: None,
            states: States::default(),
            request_state_key: None,
            request_state_ttl: crate::context::request_state::DEFAULT_TTL,
            kept_handlers: (crate::context::parking::DEFAULT_LIMIT, crate::context::parking::DEFAULT_WINDOW),
            event_backlog: EVENT_BACKLOG,
            bus: Bus::default(),
            layers: Layers::default(),
            task_store: None,
            task_ttl: DEFAULT_TASK_TTL,
            task_poll_interval: DEFAULT_TASK_POLL_INTERVAL,
            skills: Vec::new(),
            only_tags: None,
            card_name: None,
            mounts: Vec::new(),
            #[cfg(feature = "telemetry")]
            telemetry: None,
        }
    }

    /// Lets the lists change while the server runs: a [`ServerHandle`] may add, remove,
    /// enable and disable items, and clients are told (`listChanged` is declared for tools,
    /// resources and prompts).
    #[must_use]
    pub fn dynamic_lists(mut self) -> Self {
        self.dynamic_lists = true;
        self
    }

    /// A handle on this server once it runs: tell subscribers a resource changed, change the
    /// lists (with [`dynamic_lists`](Self::dynamic_lists)). Take it before serving.
    pub fn handle(&self) -> ServerHandle {
        self.handle.clone()
    }

    /// Adds a tool: a [`ToolDescriptor`], or a function declared with `#[mcp_tool]`, named as
    /// itself (`.tool(my_function)`). Anything else is refused when the server is built.
    #[must_use]
    pub fn tool(mut self, tool: impl Selection<ToolDescriptor>) -> Self {
        match tool.select() {
            Ok(tool) => self.tools.push(tool),
            Err(refused) => self.refused.push(refused),
        }
        self
    }

    /// Adds a resource or resource template: a [`ResourceDescriptor`], or a function declared
    /// with `#[mcp_resource]` (`.resource(my_function)`). Anything else is refused when the
    /// server is built.
    #[must_use]
    pub fn resource(mut self, resource: impl Selection<ResourceDescriptor>) -> Self {
        match resource.select() {
            Ok(resource) => self.resources.push(resource),
            Err(refused) => self.refused.push(refused),
        }
        self
    }

    /// Adds a prompt: a [`PromptDescriptor`], or a function declared with `#[mcp_prompt]`
    /// (`.prompt(my_function)`). Anything else is refused when the server is built.
    #[must_use]
    pub fn prompt(mut self, prompt: impl Selection<PromptDescriptor>) -> Self {
        match prompt.select() {
            Ok(prompt) => self.prompts.push(prompt),
            Err(refused) => self.refused.push(refused),
        }
        self
    }

    /// Declares that the server supports the extension `id` (`io.modelcontextprotocol/ui`
    /// for MCP Apps, say) with `settings` (an object; `{}` for none), in the `extensions` of
    /// its capabilities, where the revision defines them (2026-07-28). What an extension adds
    /// to items (a tool's `_meta.ui`, say) is declared on the items. An identifier without a
    /// prefix (`vendor.example/name`) stops the server at start-up.
    ///
    /// ```
    /// use mcp_runtime::Server;
    /// let server = Server::builder("shop", "1.0.0")
    ///     .extension("io.modelcontextprotocol/ui", serde_json::json!({}));
    /// assert!(server.validate().is_ok());
    /// let wrong = Server::builder("shop", "1.0.0").extension("ui", serde_json::json!({}));
    /// assert!(wrong.validate().unwrap_err().to_string().contains("`ui`"));
    /// ```
    #[must_use]
    pub fn extension(mut self, id: impl Into<String>, settings: serde_json::Value) -> Self {
        self.extensions.insert(id.into(), settings);
        self
    }

    /// Also offers every item declared with the macros (what [`Server::new`] does).
    #[must_use]
    pub fn declared_items(mut self) -> Self {
        self.include_declared = true;
        self
    }

    /// Sets the display name sent in `serverInfo` (2025-06-18+).
    #[must_use]
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.info.title = Some(title.into());
        self
    }

    /// Sets the description sent in `serverInfo` (2025-11-25+).
    #[must_use]
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.info.description = Some(description.into());
        self
    }

    /// Sets the home page sent in `serverInfo` (2025-11-25+).
    #[must_use]
    pub fn website_url(mut self, url: impl Into<String>) -> Self {
        self.info.website_url = Some(url.into());
        self
    }

    /// Adds an icon to `serverInfo` (2025-11-25+).
    #[must_use]
    pub fn icon(mut self, icon: crate::protocol::Icon) -> Self {
        self.info.icons.get_or_insert_with(Vec::new).push(icon);
        self
    }

    /// Publishes a Server Card (SEP-2127, `io.modelcontextprotocol/server-card`) named `name`:
    /// over HTTP at `GET <endpoint>/server-card`, and printed by `--card`. `name` is
    /// `namespace/name`, the namespace a reverse domain the publisher controls; the card's
    /// version, title, description (required), website and icons are the `serverInfo`'s.
    /// Checked when the server starts: a name or a description the card's schema refuses is
    /// an error saying what to write.
    ///
    /// ```no_run
    /// use mcp_runtime::Server;
    ///
    /// Server::new("gift-genius", "1.0.0")
    ///     .description("Suggests gifts from a small catalog")
    ///     .server_card("io.github.alice/gift-genius")
    ///     .run()
    /// # .unwrap();
    /// ```
    #[must_use]
    pub fn server_card(mut self, name: impl Into<String>) -> Self {
        self.card_name = Some(name.into());
        self
    }

    /// Sets the instructions sent to the client at start (a hint for the model).
    #[must_use]
    pub fn instructions(mut self, instructions: impl Into<String>) -> Self {
        self.instructions = Some(instructions.into());
        self
    }

    /// Sets how many items a page of a list result holds (default 100).
    #[must_use]
    pub fn page_size(mut self, items: usize) -> Self {
        self.config.page_size = items.max(1);
        self
    }

    /// Sets how many requests a connection runs at once (default 64); past that the server
    /// stops reading requests until one finishes.
    #[must_use]
    pub fn max_in_flight(mut self, requests: usize) -> Self {
        self.config.max_in_flight = requests.max(1);
        self
    }

    /// Sets the largest message accepted, in bytes (default 4 MiB); a larger one is answered
    /// with an error and skipped without being buffered whole.
    #[must_use]
    pub fn max_message_size(mut self, bytes: usize) -> Self {
        self.config.max_message_size = bytes.max(64);
        self
    }

    /// Sets how long 2026-07-28 clients may cache a kind of result (`ttlMs`, `cacheScope`);
    /// the default is one minute, public.
    #[must_use]
    pub fn cache(mut self, kind: Cacheable, policy: CachePolicy) -> Self {
        self.config.cache.set(kind, policy);
        self
    }

    /// Registers `value` as application state: every handler taking a [`State<T>`](crate::State)
    /// parameter of its type gets it (registering a type again replaces the value).
    ///
    /// ```
    /// use mcp_runtime::Server;
    /// struct Config { greeting: String }
    /// let server = Server::new("demo", "1.0.0").state(Config { greeting: "Hello".into() });
    /// # drop(server);
    /// ```
    #[must_use]
    pub fn state<T: Send + Sync + 'static>(mut self, value: T) -> Self {
        self.states.insert(value);
        self
    }

    /// Lets handlers send the client log messages (`notifications/message`, through
    /// [`Context::log`](crate::Context::log) or the [`ClientLogLayer`](crate::ClientLogLayer)):
    /// the server declares the `logging` capability and answers `logging/setLevel`.
    #[must_use]
    pub fn client_logging(mut self) -> Self {
        self.config.client_logging = true;
        self
    }

    /// Sets the time limit of handlers that set none (`timeout = "..."` on the macros,
    /// `.timeout(..)` on descriptors); none by default. Past it a tool call ends with an
    /// `isError` result saying so, a resource read or prompt with an internal error (-32603),
    /// and the request's [context](crate::Context::is_cancelled) is cancelled.
    #[must_use]
    pub fn default_timeout(mut self, limit: Duration) -> Self {
        self.config.default_timeout = Some(limit);
        self
    }

    /// Sets how long a handler waits for the client to answer a question
    /// ([`Context::elicit`](crate::Context::elicit), `sample`, `roots`; handshake revisions)
    /// before the wait ends with [`AskError::TimedOut`](crate::asking::AskError::TimedOut); 5 minutes by
    /// default, since a person may be answering.
    #[must_use]
    pub fn client_request_timeout(mut self, limit: Duration) -> Self {
        self.config.client_request_timeout = limit;
        self
    }

    /// Sets the key that seals the `requestState` of input-required results (2026-07-28).
    /// Every instance behind a load balancer must share it; by default each process draws a
    /// random one, so a retry must reach the process that asked.
    #[must_use]
    pub fn request_state_key(mut self, key: [u8; 32]) -> Self {
        self.request_state_key = Some(key);
        self
    }

    /// Sets how many handlers stopped to ask a 2026-07-28 client are kept for the client's
    /// retry (256 by default), and for how long (5 minutes by default).
    ///
    /// A 2026-07-28 request that asks its client is answered with an input-required result,
    /// and the client retries it with the answer. When the retry reaches the process that
    /// asked within `window`, the handler goes on from its question, as in the handshake
    /// revisions: what it did before the question is not done again. A retry that reaches
    /// another process (behind a load balancer), comes later, or finds `limit` handlers
    /// already kept runs the handler again from the start with the answers so far: a question
    /// already answered returns at once. `limit` 0 always runs it again.
    ///
    /// ```
    /// use std::time::Duration;
    /// let server = mcp_runtime::Server::new("s", "1.0.0").kept_handlers(32, Duration::from_secs(60));
    /// # let _ = server;
    /// ```
    #[must_use]
    pub fn kept_handlers(mut self, limit: usize, window: Duration) -> Self {
        self.kept_handlers = (limit, window);
        self
    }

    /// Sets how many change events (list changes, resource updates) are kept for connections
    /// that fall behind (1024 by default). A connection further behind is told that
    /// everything it subscribed to may have changed, rather than missing a change.
    #[must_use]
    pub fn event_backlog(mut self, events: usize) -> Self {
        self.event_backlog = events.max(1);
        self
    }

    /// Sets the bus that carries change events between servers: resource updates, list
    /// changes, and items enabled, disabled or removed through a [`ServerHandle`]. Servers
    /// sharing a bus hear each other, so that a client subscribed on one instance hears of a
    /// change made on another. By default each server has a bus of its own, in memory.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use mcp_runtime::Server;
    /// use mcp_runtime::changes::MemoryChangeBus;
    ///
    /// let bus = Arc::new(MemoryChangeBus::default());
    /// let first = Server::builder("a", "1.0.0").change_bus(Arc::clone(&bus));
    /// let second = Server::builder("b", "1.0.0").change_bus(bus);
    /// # let _ = (first, second);
    /// ```
    #[must_use]
    pub fn change_bus(mut self, bus: impl ChangeBus) -> Self {
        self.bus = Bus(Arc::new(bus));
        self
    }

    /// Keeps tasks (the tasks extension, see [`TaskSupport`](crate::tasks::TaskSupport)) in `store`
    /// instead of the process's memory ([`MemoryTaskStore`](crate::tasks::MemoryTaskStore), at most
    /// [`DEFAULT_TASK_LIMIT`](crate::tasks::DEFAULT_TASK_LIMIT) tasks).
    #[must_use]
    pub fn task_store(mut self, store: impl crate::tasks::TaskStore) -> Self {
        self.task_store = Some(crate::tasks::store::SharedTaskStore(Arc::new(store)));
        self
    }

    /// Sets how long a task is kept after it was made, whether it ended or not (an hour by
    /// default): its `ttlMs`. Past it, a task still running is stopped, and `tasks/get`
    /// answers as for a task that never existed.
    #[must_use]
    pub fn task_ttl(mut self, ttl: Duration) -> Self {
        self.task_ttl = ttl;
        self
    }

    /// Sets how often clients are asked to poll a task (`pollIntervalMs`; a second by
    /// default).
    #[must_use]
    pub fn task_poll_interval(mut self, interval: Duration) -> Self {
        self.task_poll_interval = interval;
        self
    }

    /// Serves `skill` (the skills extension, a draft: experimental): its files become
    /// resources under `skill://`, readable with `resources/read` (its `SKILL.md` listed by
    /// `resources/list`), its entry listed by `skills/list` and given by `skills/get`, its
    /// folders listed by `resources/directory/read`. The extension is declared (with
    /// `directoryRead`) when the server has a skill.
    #[must_use]
    pub fn skill(mut self, skill: crate::skills::Skill) -> Self {
        self.skills.push(skill);
        self
    }

    /// Serves every skill under `dir`, read now: each folder holding a `SKILL.md` is a skill
    /// (named as its folder), and a folder without one is a prefix of the skills inside it
    /// (`dir/acme/refunds/SKILL.md` is served as `skill://acme/refunds`). A skill that cannot
    /// be read fails the server's start, naming the file and the fault.
    ///
    /// ```no_run
    /// let server = mcp_runtime::Server::new("support", "1.0.0").skills_dir("skills");
    /// # let _ = server;
    /// ```
    #[cfg(feature = "skills")]
    #[cfg_attr(docsrs, doc(cfg(feature = "skills")))]
    #[must_use]
    pub fn skills_dir(mut self, dir: impl AsRef<std::path::Path>) -> Self {
        match crate::skills::read_dir(dir.as_ref()) {
            Ok(skills) => self.skills.extend(skills),
            Err(e) => self.refused.push(Error::Skill(e.to_string())),
        }
        self
    }

    /// Serves the skills a binary carries, made by [`embed_skills!`](crate::embed_skills)
    /// (checked when the binary was built):
    /// `Server::new("support", "1.0.0").skills(mcp_runtime::embed_skills!("skills"))`.
    #[cfg(feature = "skills")]
    #[cfg_attr(docsrs, doc(cfg(feature = "skills")))]
    #[must_use]
    pub fn skills(mut self, skills: crate::skills::EmbeddedSkills) -> Self {
        match skills.to_skills() {
            Ok(skills) => self.skills.extend(skills),
            Err(e) => self.refused.push(Error::Skill(e.to_string())),
        }
        self
    }

    /// Sets how long a `requestState` stays valid (15 minutes by default).
    #[must_use]
    pub fn request_state_ttl(mut self, ttl: Duration) -> Self {
        self.request_state_ttl = ttl;
        self
    }

    /// Stops serving when `signal` completes, as axum's graceful shutdown does: reading
    /// stops, requests in flight get the [drain timeout](Self::drain_timeout) to finish and
    /// answer, the rest are aborted, and serving returns `Ok`. The library installs no signal
    /// handler of its own; [`run`] stops on SIGINT and SIGTERM unless a signal was
    /// given here.
    ///
    /// ```
    /// use std::time::Duration;
    /// use mcp_runtime::Server;
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> mcp_runtime::Result<()> {
    /// let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    /// let server = Server::builder("demo", "1.0.0")
    ///     .drain_timeout(Duration::from_secs(2))
    ///     .with_graceful_shutdown(async move { let _ = stopped.await; });
    /// let (_client, server_side) = tokio::io::duplex(4096);
    /// let (input, output) = tokio::io::split(server_side);
    /// let serving = tokio::spawn(server.serve(input, output));
    /// stop.send(()).unwrap();
    /// serving.await.unwrap()?; // stopped although the client never closed its side
    /// # Ok(())
    /// # }
    /// ```
    #[cfg_attr(feature = "stdio", doc = "", doc = "[`run`]: Self::run")]
    #[cfg_attr(
        not(feature = "stdio"),
        doc = "",
        doc = "[`run`]: https://docs.rs/mcp-runtime/latest/mcp_runtime/struct.Server.html#method.run"
    )]
    #[must_use]
    pub fn with_graceful_shutdown(mut self, signal: impl Future<Output = ()> + Send + 'static) -> Self {
        self.shutdown = Some(ShutdownSignal(Box::pin(signal)));
        self
    }

    /// Sets how long requests in flight may take to finish after the shutdown signal
    /// (default 5 s); those still running then are aborted without an answer.
    #[must_use]
    pub fn drain_timeout(mut self, timeout: Duration) -> Self {
        self.config.drain_timeout = timeout;
        self
    }

    /// Wraps every request the server answers in `layer`, a tower [`Layer`] over
    /// [`McpService`] (see [`middleware`](crate::middleware)): in both eras, on every
    /// transport. Requests pass the layers in the order they were added, the first outermost.
    ///
    /// ```
    /// use std::time::Duration;
    /// use mcp_runtime::Server;
    /// use mcp_runtime::middleware::{Audit, RateLimit};
    ///
    /// let server = Server::builder("gifts", "1.0.0")
    ///     .layer(Audit::new()) // sees refusals of the rate limit too
    ///     .layer(RateLimit::per_caller(10, Duration::from_secs(1)));
    /// # let _ = server;
    /// ```
    ///
    /// A function `(McpRequest, Next) -> Result<McpResponse, BoxError>` becomes a layer through
    /// [`from_fn`](crate::middleware::from_fn); given alone, it is refused with that advice
    /// (see [`McpLayer`](crate::middleware::McpLayer)).
    ///
    /// [`Layer`]: crate::middleware::Layer
    /// [`McpService`]: crate::middleware::McpService
    #[must_use]
    pub fn layer<L: crate::middleware::McpLayer>(mut self, layer: L) -> Self {
        self.layers.push(layer);
        self
    }

    /// Adds telemetry (feature `telemetry`) as a layer at this place: a SERVER span per
    /// request and the `mcp.server.operation.duration` histogram, and
    /// `mcp.server.session.duration` when a session ends. [`run`](Self::run) adds one made
    /// from `OTEL_*` by itself, outermost, when none was added.
    #[cfg(feature = "telemetry")]
    #[cfg_attr(docsrs, doc(cfg(feature = "telemetry")))]
    #[must_use]
    pub fn telemetry(mut self, telemetry: crate::middleware::telemetry::Telemetry) -> Self {
        self.layers.push_telemetry(telemetry.clone());
        self.telemetry = Some(telemetry);
        self
    }

    /// [`telemetry`](Self::telemetry), outside every layer added so far.
    #[cfg(all(feature = "telemetry", feature = "stdio"))]
    pub(crate) fn telemetry_outermost(mut self, telemetry: crate::middleware::telemetry::Telemetry) -> Self {
        self.layers.push_outermost(telemetry.clone());
        self.telemetry = Some(telemetry);
        self
    }

    /// Offers only the tools, resources and prompts carrying at least one of `tags`
    /// (declared with `tags("…")` in the macros or `.tag("…")` on a descriptor); the others
    /// are left out as if never declared. Called again, the tags add up.
    ///
    /// ```
    /// use mcp_runtime::{Server, ToolDescriptor};
    ///
    /// let public = Server::builder("gifts", "1.0.0")
    ///     .tool(ToolDescriptor::new("suggest").tag("public").handler(|_: serde_json::Value| async { "a scarf" }))
    ///     .tool(ToolDescriptor::new("wipe").tag("admin").handler(|_: serde_json::Value| async { "wiped" }))
    ///     .only_tags(["public"]);
    /// assert!(public.describe().unwrap().contains("suggest"));
    /// ```
    #[must_use]
    pub fn only_tags<I, T>(mut self, tags: I) -> Self
    where
        I: IntoIterator<Item = T>,
        T: Into<String>,
    {
        self.only_tags.get_or_insert_with(Vec::new).extend(tags.into_iter().map(Into::into));
        self
    }

    /// The name and version the server introduces itself with.
    #[cfg(feature = "stdio")]
    pub(crate) fn info(&self) -> &Implementation {
        &self.info
    }

    /// Whether a shutdown signal was given.
    #[cfg(feature = "stdio")]
    pub(crate) fn has_shutdown_signal(&self) -> bool {
        self.shutdown.is_some()
    }
}

/// Events a connection may have to tell its client about, kept until every connection read
/// them; a connection that falls further behind is told everything it subscribed to may have
/// changed.
const EVENT_BACKLOG: usize = 1024;
