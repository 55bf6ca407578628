//! From builder to core: what is refused, the registry, the capabilities derived from what is
//! declared, and the description `--list` prints.

use std::future::Future;
use std::sync::{Arc, RwLock};

use serde_json::Map;
use tokio::sync::broadcast;

use crate::context::parking::Parking;
use crate::context::request_state::Sealer;
use crate::declare::prompt::PromptDescriptor;
use crate::declare::resource::ResourceDescriptor;
use crate::declare::scopes::Scopes;
use crate::declare::selection::every_declared;
use crate::declare::task::TaskSupport;
use crate::declare::tool::ToolDescriptor;
use crate::error::{Error, Result};
use crate::protocol::{ListChangedCapability, ResourcesCapability, Revision, ServerCapabilities};
use crate::server::builder::{Server, ShutdownSignal};
use crate::server::changes::{ChangeEvent, ChangeNotice};
use crate::server::core::ServerCore;
use crate::server::local::LocalThread;
use crate::server::registry::{Registry, check_states};
use crate::tasks::live::{Forwarded, Tasks};

/// Whether `id` names an extension as the protocol requires: a prefix of dot-separated labels
/// (each starting with a letter), a `/`, and a name (`io.modelcontextprotocol/ui`).
fn is_extension_id(id: &str) -> bool {
    let Some((prefix, name)) = id.split_once('/') else { return false };
    let label = |l: &str| {
        l.starts_with(|c: char| c.is_ascii_alphabetic())
            && l.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
            && !l.ends_with('-')
    };
    prefix.split('.').all(label)
        && !name.is_empty()
        && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

impl Server {
    /// Builds the core and takes the shutdown signal (one that never comes when none was
    /// given).
    pub(crate) fn start(mut self) -> Result<(Arc<ServerCore>, impl Future<Output = ()> + Send)> {
        let signal = self.shutdown.take();
        let core = self.build()?;
        core.announce();
        Ok((core, async move {
            match signal {
                Some(ShutdownSignal(signal)) => signal.await,
                None => std::future::pending().await,
            }
        }))
    }

    /// Builds the immutable core: the registry, the derived capabilities. Fails on duplicate
    /// or invalid names and tools without handlers.
    pub(crate) fn build(mut self) -> Result<Arc<ServerCore>> {
        if let Some(refused) = self.refused.drain(..).next() {
            return Err(refused);
        }
        if let Some((id, settings)) =
            self.extensions.iter().find(|(id, settings)| !is_extension_id(id) || !settings.is_object())
        {
            return Err(Error::InvalidExtension { id: id.clone(), settings_are_an_object: settings.is_object() });
        }
        self.gather_items();
        check_states(&self.states, &self.tools, &self.resources, &self.prompts)?;
        let registry = Registry::build(self.tools, self.resources, self.prompts)?;
        // Items declared with scopes: the scope check, which HTTP with authorization applies.
        #[cfg(feature = "http")]
        if !registry.declared_scopes().is_empty() {
            self.layers.push_check(crate::auth::check::layer());
        }
        // Mounted servers with layers of their own: their items' requests pass them, innermost.
        if let Some(layers) = crate::server::mounts::mounts_layers(&self.mounts) {
            self.layers.push(layers);
        }
        // Tools that may run as tasks: the tasks extension is declared (2026-07-28).
        if registry.tools.iter().any(|tool| tool.task.support != TaskSupport::Never) {
            self.extensions.entry(crate::tasks::EXTENSION).or_insert_with(|| serde_json::json!({}));
        }
        let skills = crate::skills::Catalog::new(std::mem::take(&mut self.skills)).map_err(Error::Skill)?;
        if !skills.is_empty() {
            self.extensions
                .entry(crate::skills::EXTENSION)
                .or_insert_with(|| serde_json::json!({ "directoryRead": true }));
        }
        let dynamic = self.dynamic_lists;
        let list_changed = ListChangedCapability { list_changed: dynamic.then_some(true) };
        let capabilities = ServerCapabilities {
            tools: (dynamic || !registry.tools.is_empty()).then(|| list_changed.clone()),
            resources: (dynamic || registry.has_resources() || !skills.is_empty()).then(|| ResourcesCapability {
                subscribe: registry.has_subscribable_resources().then_some(true),
                list_changed: dynamic.then_some(true),
            }),
            prompts: (dynamic || !registry.prompts.is_empty()).then(|| list_changed.clone()),
            completions: registry.has_completions().then(Map::new),
            logging: self.config.client_logging.then(Map::new),
            extensions: (!self.extensions.is_empty()).then_some(self.extensions),
            ..ServerCapabilities::default()
        };
        let sealer = match self.request_state_key {
            Some(key) => Sealer::new(key, self.request_state_ttl),
            None => Sealer::random(self.request_state_ttl),
        };
        let origin = crate::util::random::random_id();
        let task_store =
            self.task_store.map_or_else(|| Arc::new(crate::tasks::MemoryTaskStore::default()) as _, |s| s.0);
        let tasks = Tasks::new(task_store, Some(self.task_ttl), Some(self.task_poll_interval), origin.clone());
        let core = Arc::new(ServerCore {
            tasks,
            skills,
            sealer: Arc::new(sealer),
            parking: Arc::new(Parking::new(self.kept_handlers.0, self.kept_handlers.1)),
            states: Arc::new(self.states),
            local: LocalThread::default(),
            info_json: serde_json::to_vec(&self.info).unwrap_or_default(),
            info: self.info,
            instructions: self.instructions,
            card_name: self.card_name,
            capabilities,
            dynamic_lists: dynamic,
            registry: RwLock::new(Arc::new(registry)),
            announcements: broadcast::channel(self.event_backlog).0,
            ended_sessions: broadcast::channel(self.event_backlog).0,
            client_messages: broadcast::channel(self.event_backlog).0,
            origin,
            published: Default::default(),
            bus: self.bus,
            config: self.config,
            layers_only_check: self.layers.only_checks(),
            layers: self.layers.build().map(std::sync::Mutex::new),
            met_clients: Default::default(),
            #[cfg(feature = "telemetry")]
            telemetry: self.telemetry,
        });
        let hearing = Arc::downgrade(&core);
        core.bus.0.subscribe(Arc::new(move |notice: &ChangeNotice| match hearing.upgrade() {
            Some(core) => {
                core.hear(notice);
                true
            }
            None => false,
        }));
        // Task changes go out on the bus, so that the listen streams that named the task hear
        // of them on every server; what a client asks of a task another server runs goes to
        // that server the same way.
        let telling = Arc::downgrade(&core);
        core.tasks.on_change(Box::new(move |record| {
            if let Some(core) = telling.upgrade() {
                core.publish(ChangeEvent::TaskChanged {
                    task_id: record.task_id().to_owned(),
                    owner: record.owner().map(str::to_owned),
                    task: record.detailed(),
                });
            }
        }));
        let forwarding = Arc::downgrade(&core);
        core.tasks.forward_with(Box::new(move |forwarded| {
            if let Some(core) = forwarding.upgrade() {
                core.publish(match forwarded {
                    Forwarded::Input { runner, task_id, responses } => {
                        ChangeEvent::TaskInput { runner, task_id, responses }
                    }
                    Forwarded::Cancel { runner, task_id } => ChangeEvent::TaskCancelled { runner, task_id },
                });
            }
        }));
        self.handle.attach(&core);
        crate::server::mounts::attach(self.mounts, &core);
        Ok(core)
    }

    /// Adds the items declared with the macros when the server offers them, then leaves out
    /// those `only_tags` does not keep.
    pub(super) fn gather_items(&mut self) {
        if self.include_declared {
            self.tools.extend(every_declared::<ToolDescriptor>());
            self.resources.extend(every_declared::<ResourceDescriptor>());
            self.prompts.extend(every_declared::<PromptDescriptor>());
            self.include_declared = false;
        }
        if let Some(only) = &self.only_tags {
            self.tools.retain(|item| item.parts.tags.any_of(only));
            self.resources.retain(|item| item.parts.tags.any_of(only));
            self.prompts.retain(|item| item.parts.tags.any_of(only));
        }
    }

    /// Checks the declaration without serving, as start-up does: two tools, resources or
    /// prompts under one name or URI (naming both definitions), a `State<T>` parameter whose
    /// state nobody registered, a schema that is not one. In a test of the server's own,
    /// `cargo test` catches them before a deployment does:
    ///
    /// ```no_run
    /// # use mcp_runtime::Server;
    /// // #[test]
    /// fn the_declaration_starts() {
    ///     Server::new("gifts", "1.0.0").validate().unwrap(); // the same states as `main` registers
    /// }
    /// # the_declaration_starts();
    /// ```
    pub fn validate(self) -> Result<()> {
        self.build().map(drop)
    }

    /// A description of what this server offers, one item per line with its schemas, as the
    /// latest revision ([`Revision::LATEST`](crate::protocol::Revision::LATEST)) lists them:
    /// for `--list` flags and for checking a declaration without a client.
    ///
    /// ```
    /// let listing = mcp_runtime::Server::builder("demo", "1.0.0").describe().unwrap();
    /// assert!(listing.starts_with("demo 1.0.0"));
    /// ```
    pub fn describe(self) -> Result<String> {
        self.describe_for(Revision::LATEST)
    }

    /// [`describe`](Self::describe), as a client speaking `revision` would see each item
    /// listed: fields that revision does not know are left out, and a tool whose structured
    /// output is not an object declares it wrapped as `{"result": …}` before 2026-07-28.
    ///
    /// ```
    /// use mcp_runtime::protocol::Revision;
    /// let listing = mcp_runtime::Server::builder("demo", "1.0.0").describe_for(Revision::V2025_06_18).unwrap();
    /// assert_eq!(listing, "demo 1.0.0 (as listed to a 2025-06-18 client)\n");
    /// ```
    pub fn describe_for(self, revision: Revision) -> Result<String> {
        let core = self.build()?;
        let mut out =
            format!("{} {} (as listed to a {} client)\n", core.info.name, core.info.version, revision.as_str());
        // `tool NAME: {listing}`, the item's scopes between the two when it declares any.
        let mut line = |kind: &str, key: &str, scopes: &Scopes, value: Result<String, serde_json::Error>| {
            let needs = match scopes.as_slice() {
                [] => String::new(),
                some => format!(" [scopes: {}]", some.join(" ")),
            };
            out.push_str(&format!("{kind} {key}{needs}: {}\n", value.unwrap_or_default()));
        };
        let registry = core.registry();
        for t in registry.tools.iter() {
            line("tool", &t.name, &t.parts.scopes, serde_json::to_string(&t.listing(revision)));
        }
        for r in registry.resources.iter() {
            line(
                "resource",
                &r.resource.uri,
                &r.parts.scopes,
                serde_json::to_string(&r.resource.for_revision(revision)),
            );
        }
        for t in registry.templates.iter() {
            let listing = serde_json::to_string(&t.template.for_revision(revision));
            line("template", &t.template.uri_template, &t.parts.scopes, listing);
        }
        for p in registry.prompts.iter() {
            line("prompt", &p.name, &p.parts.scopes, serde_json::to_string(&p.prompt.for_revision(revision)));
        }
        Ok(out)
    }
}
