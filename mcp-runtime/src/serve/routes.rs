//! The one table of methods: for each, the revisions that serve it, the capability it needs,
//! and how it runs. Adding a method is one row here and one handler.

use serde_json::value::RawValue;

use crate::context::outlet::Outgoing;
use crate::protocol::{Cacheable, Feature, Revision, ServerCapabilities};
use crate::serve::arrival::Via;
use crate::serve::executor::WorkFn;
use crate::serve::here::{InlineFn, Method};
use crate::serve::methods::{lifecycle, prompts, resources, skills, tasks, tools};
use crate::serve::request::{Caching, Request};
use crate::serve::session::Session;

/// A handler that changes the connection's state.
pub(crate) type LifecycleFn = fn(&mut Session, &Request<'_>) -> Outgoing;
/// A notification's handler.
pub(crate) type NotifyFn = fn(&mut Session, Option<&RawValue>, Via);

/// How a method runs.
#[derive(Clone, Copy)]
pub(crate) enum Handler {
    /// Changes the connection's state: on the reading loop, in arrival order, so that
    /// `notifications/initialized` or a subscription cannot race the request after it.
    Lifecycle(LifecycleFn),
    /// Answered from the server's data, quickly: on the reading loop, with no in-flight slot.
    Inline(InlineFn),
    /// Runs user code: takes an in-flight slot, through the executor.
    Work(WorkFn),
    /// A notification: never answered.
    Notification(NotifyFn),
}

impl Handler {
    /// How it runs outside its connection's loop.
    pub(crate) fn method(self) -> Method {
        match self {
            Handler::Inline(answer) => Method::Inline(answer),
            Handler::Work(work) => Method::Work(work),
            Handler::Lifecycle(_) | Handler::Notification(_) => Method::OnLoop,
        }
    }
}

impl std::fmt::Debug for Handler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Handler::Lifecycle(_) => "Lifecycle",
            Handler::Inline(_) => "Inline",
            Handler::Work(_) => "Work",
            Handler::Notification(_) => "Notification",
        })
    }
}

/// The revisions that serve a method.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Served {
    /// The revisions negotiated through `initialize`.
    Handshake,
    /// The stateless revisions (2026-07-28).
    Stateless,
    /// Every revision.
    All,
}

impl Served {
    pub(crate) fn includes(self, revision: Revision) -> bool {
        match self {
            Served::Handshake => revision.supports(Feature::Handshake),
            Served::Stateless => revision.supports(Feature::Stateless),
            Served::All => true,
        }
    }
}

/// The declared capability a method needs: without it, the method does not exist.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Needs {
    Nothing,
    Tools,
    Resources,
    ResourceSubscriptions,
    Prompts,
    Completions,
    Logging,
    /// The tasks extension (declared when a tool allows tasks).
    Tasks,
    /// The skills extension (declared when the server has skills).
    Skills,
}

impl Needs {
    fn declared_in(self, capabilities: &ServerCapabilities) -> bool {
        match self {
            Needs::Nothing => true,
            Needs::Tools => capabilities.tools.is_some(),
            Needs::Resources => capabilities.resources.is_some(),
            Needs::ResourceSubscriptions => capabilities.resources.as_ref().and_then(|r| r.subscribe).unwrap_or(false),
            Needs::Prompts => capabilities.prompts.is_some(),
            // Checked on the capabilities as declared, before shaping for a revision:
            // 2024-11-05 had the method without the capability.
            Needs::Completions => capabilities.completions.is_some(),
            Needs::Logging => capabilities.logging.is_some(),
            Needs::Tasks => capabilities.extensions.as_ref().is_some_and(|e| e.contains_key(crate::tasks::EXTENSION)),
            Needs::Skills => capabilities.extensions.as_ref().is_some_and(|e| e.contains_key(crate::skills::EXTENSION)),
        }
    }
}

/// The field of a 2026-07-28 request's params its `Mcp-Name` header repeats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Named {
    /// The method names nothing: no `Mcp-Name`.
    Nothing,
    /// `name` (a tool, a prompt).
    Name,
    /// `uri` (a resource).
    Uri,
    /// `taskId` (the tasks extension).
    TaskId,
}

/// One method's row.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Route {
    pub(crate) method: &'static str,
    pub(crate) served: Served,
    /// Answered on a connection that has not sent `initialize` yet.
    pub(crate) before_initialize: bool,
    needs: Needs,
    pub(crate) handler: Handler,
    /// What its 2026-07-28 results say of caching (`ttlMs`, `cacheScope`): the one list of
    /// cacheable methods.
    pub(crate) caching: Caching,
    /// What its `Mcp-Name` header names (2026-07-28 over HTTP).
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) named: Named,
    /// Its handler may ask the client (2026-07-28: an input-required result).
    pub(crate) may_ask: bool,
    /// It opens a stream that lives on its connection's loop (`subscriptions/listen`): it is
    /// bounded by the listen limit, not the request limit.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) opens_stream: bool,
}

const fn row(method: &'static str, served: Served, needs: Needs, handler: Handler) -> Route {
    Route {
        method,
        served,
        before_initialize: false,
        needs,
        handler,
        caching: Caching::No,
        named: Named::Nothing,
        may_ask: false,
        opens_stream: false,
    }
}

const fn any_time(method: &'static str, served: Served, handler: Handler) -> Route {
    Route { before_initialize: true, ..row(method, served, Needs::Nothing, handler) }
}

/// A row whose 2026-07-28 results carry caching fields.
const fn cached(route: Route, caching: Caching) -> Route {
    Route { caching, ..route }
}

/// A row whose request names an item in `field`, which `Mcp-Name` repeats.
const fn naming(route: Route, field: Named) -> Route {
    Route { named: field, ..route }
}

/// A row whose handler runs user code that may ask the client, and names its item by `field`.
const fn asking(route: Route, field: Named) -> Route {
    Route { may_ask: true, named: field, ..route }
}

use Caching::{Configured, PerResource};
use Handler::{Inline, Lifecycle, Notification, Work};
use Served::{All, Handshake, Stateless};

/// Every method the runtime knows.
const TABLE: &[Route] = &[
    any_time("initialize", Handshake, Lifecycle(lifecycle::initialize)),
    any_time("ping", Handshake, Inline(lifecycle::ping)),
    cached(
        row("server/discover", Stateless, Needs::Nothing, Inline(lifecycle::discover)),
        Configured(Cacheable::Discover),
    ),
    row("notifications/initialized", Handshake, Needs::Nothing, Notification(lifecycle::initialized)),
    row("notifications/cancelled", All, Needs::Nothing, Notification(lifecycle::cancelled)),
    row("resources/subscribe", Handshake, Needs::ResourceSubscriptions, Lifecycle(lifecycle::subscribe)),
    row("resources/unsubscribe", Handshake, Needs::ResourceSubscriptions, Lifecycle(lifecycle::unsubscribe)),
    Route {
        opens_stream: true,
        ..row("subscriptions/listen", Stateless, Needs::Nothing, Lifecycle(lifecycle::listen))
    },
    row("logging/setLevel", Handshake, Needs::Logging, Lifecycle(lifecycle::set_level)),
    cached(row("tools/list", All, Needs::Tools, Inline(tools::list)), Configured(Cacheable::ToolList)),
    asking(row("tools/call", All, Needs::Tools, Work(tools::call)), Named::Name),
    cached(row("resources/list", All, Needs::Resources, Work(resources::list)), Configured(Cacheable::ResourceList)),
    cached(
        row("resources/templates/list", All, Needs::Resources, Inline(resources::list_templates)),
        Configured(Cacheable::ResourceTemplateList),
    ),
    asking(cached(row("resources/read", All, Needs::Resources, Work(resources::read)), PerResource), Named::Uri),
    cached(row("prompts/list", All, Needs::Prompts, Inline(prompts::list)), Configured(Cacheable::PromptList)),
    asking(row("prompts/get", All, Needs::Prompts, Work(prompts::get)), Named::Name),
    row("completion/complete", All, Needs::Completions, Work(prompts::complete)),
    naming(row("tasks/get", Stateless, Needs::Tasks, Work(tasks::get)), Named::TaskId),
    naming(row("tasks/update", Stateless, Needs::Tasks, Work(tasks::update)), Named::TaskId),
    naming(row("tasks/cancel", Stateless, Needs::Tasks, Work(tasks::cancel)), Named::TaskId),
    cached(row("skills/list", Stateless, Needs::Skills, Inline(skills::list)), Configured(Cacheable::Skills)),
    cached(row("skills/get", Stateless, Needs::Skills, Inline(skills::get)), Configured(Cacheable::Skills)),
    row("resources/directory/read", Stateless, Needs::Skills, Inline(skills::read_directory)),
];

/// The row of `method`, if the server declared the capability it needs: without it, the
/// method does not exist. (A scan of a few short rows costs less than hashing the name.)
pub(crate) fn route(method: &str, capabilities: &ServerCapabilities) -> Option<&'static Route> {
    TABLE.iter().find(|route| route.method == method).filter(|route| route.needs.declared_in(capabilities))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_method_has_one_row() {
        let mut methods: Vec<&str> = TABLE.iter().map(|r| r.method).collect();
        methods.sort_unstable();
        let before = methods.len();
        methods.dedup();
        assert_eq!(before, methods.len(), "a method is listed twice");
    }

    #[test]
    fn undeclared_capabilities_leave_their_methods_out() {
        let none = ServerCapabilities::default();
        assert!(route("tools/call", &none).is_none());
        assert!(route("resources/subscribe", &none).is_none());
        assert!(route("ping", &none).is_some());
        let tools = ServerCapabilities { tools: Some(Default::default()), ..Default::default() };
        assert!(route("tools/call", &tools).is_some());
        assert!(route("tools/cal", &tools).is_none());
    }

    /// The facts the HTTP edge reads of a method are the table's: what `Mcp-Name` repeats,
    /// which may ask the client, which opens a stream.
    #[test]
    fn the_edge_reads_names_questions_and_streams_from_the_table() {
        let named: Vec<(&str, Named)> =
            TABLE.iter().filter(|r| r.named != Named::Nothing).map(|r| (r.method, r.named)).collect();
        assert_eq!(
            named,
            [
                ("tools/call", Named::Name),
                ("resources/read", Named::Uri),
                ("prompts/get", Named::Name),
                ("tasks/get", Named::TaskId),
                ("tasks/update", Named::TaskId),
                ("tasks/cancel", Named::TaskId)
            ]
        );
        let asking: Vec<&str> = TABLE.iter().filter(|r| r.may_ask).map(|r| r.method).collect();
        assert_eq!(asking, ["tools/call", "resources/read", "prompts/get"]);
        let streams: Vec<&str> = TABLE.iter().filter(|r| r.opens_stream).map(|r| r.method).collect();
        assert_eq!(streams, ["subscriptions/listen"]);
    }

    #[test]
    fn the_cacheable_methods_are_the_lists_reads_and_discovery() {
        let cacheable: Vec<&str> = TABLE.iter().filter(|r| r.caching != Caching::No).map(|r| r.method).collect();
        assert_eq!(
            cacheable,
            [
                "server/discover",
                "tools/list",
                "resources/list",
                "resources/templates/list",
                "resources/read",
                "prompts/list",
                "skills/list",
                "skills/get"
            ]
        );
    }
}
