//! `tracing` events inside a handler, sent to its client as log messages.
//!
//! The executor makes the request's [`Context`] current while it polls the handler (a
//! task-local), so an event emitted there knows which request it belongs to, and goes out
//! before that request's response, under the same rules as [`Context::log`].

use std::collections::BTreeSet;
use std::fmt;

use serde_json::{Map, Value};
use tracing::field::{Field, Visit};
use tracing::{Event, Subscriber};

use crate::context::Context;
use crate::protocol::LogLevel;

tokio::task_local! {
    /// The request whose handler is being polled.
    pub(crate) static REQUEST: Context;
}

/// A [`tracing_subscriber::Layer`] that sends the events a handler emits (`tracing::info!`
/// and the like, inside a tool, resource or prompt) to the client as `notifications/message`,
/// when the server enabled [client logging](crate::Server::client_logging) and the client
/// asked for that level (see [`Context::log`]).
///
/// Only events of the crate that declared the handler are sent (its `tracing` target, from
/// the macros' `module_path!()`): other crates' internals (a database driver's, an HTTP
/// client's) stay on the server unless the application opts in with
/// [`forward_target`](Self::forward_target) or [`forward_all`](Self::forward_all). Handlers
/// built without the macros have no known crate: opt in for them.
///
/// [`Server::run`] installs it (beside a standard error logger) unless the
/// application installed a subscriber of its own; then add it there:
///
/// ```
/// use tracing_subscriber::layer::SubscriberExt;
/// let subscriber = tracing_subscriber::registry().with(mcp_runtime::ClientLogLayer::new());
/// # drop(subscriber);
/// ```
///
/// It reads events only. Alone without a filter, a layer enables every span as well, and the
/// runtime opens one per request: filtering the layer to events (as `run` does) saves that.
///
/// ```
/// use tracing_subscriber::Layer as _;
/// use tracing_subscriber::layer::SubscriberExt as _;
/// let events = tracing_subscriber::filter::filter_fn(|metadata| metadata.is_event());
/// let layer = mcp_runtime::ClientLogLayer::new().with_filter(events);
/// let subscriber = tracing_subscriber::registry().with(layer);
/// # drop(subscriber);
/// ```
#[cfg_attr(feature = "stdio", doc = "", doc = "[`Server::run`]: crate::Server::run")]
#[cfg_attr(
    not(feature = "stdio"),
    doc = "",
    doc = "[`Server::run`]: https://docs.rs/mcp-runtime/latest/mcp_runtime/struct.Server.html#method.run"
)]
#[derive(Debug, Clone, Default)]
pub struct ClientLogLayer {
    extra_targets: BTreeSet<String>,
    all: bool,
}

impl ClientLogLayer {
    /// A layer forwarding each handler's own crate's events.
    pub fn new() -> Self {
        ClientLogLayer::default()
    }

    /// Also forwards events whose target starts with `prefix` (a crate or module path).
    #[must_use]
    pub fn forward_target(mut self, prefix: impl Into<String>) -> Self {
        self.extra_targets.insert(prefix.into());
        self
    }

    /// Forwards every event emitted inside a handler, whatever its target.
    #[must_use]
    pub fn forward_all(mut self) -> Self {
        self.all = true;
        self
    }

    fn forwards(&self, target: &str, origin: Option<&str>) -> bool {
        let within =
            |prefix: &str| target == prefix || target.strip_prefix(prefix).is_some_and(|rest| rest.starts_with("::"));
        self.all
            || origin.and_then(|module| module.split("::").next()).is_some_and(within)
            || self.extra_targets.iter().any(|prefix| within(prefix))
    }
}

impl<S: Subscriber> tracing_subscriber::Layer<S> for ClientLogLayer {
    fn on_event(&self, event: &Event<'_>, _: tracing_subscriber::layer::Context<'_, S>) {
        let _ = REQUEST.try_with(|request| {
            let target = event.metadata().target();
            if !self.forwards(target, request.origin()) {
                return;
            }
            let level = LogLevel::from(*event.metadata().level());
            let mut fields = Fields::default();
            event.record(&mut fields);
            if let Some(line) = request.log_line(level, Some(target), &fields.into_data()) {
                // Never waits: a full output drops the message.
                request.try_send(line);
            }
        });
    }
}

/// An event's fields, as the message's `data`: its text alone, or an object of its fields.
#[derive(Default)]
struct Fields {
    message: Option<String>,
    others: Map<String, Value>,
}

impl Fields {
    fn into_data(mut self) -> Value {
        match (self.message, self.others.is_empty()) {
            (Some(message), true) => Value::String(message),
            (message, _) => {
                if let Some(message) = message {
                    self.others.insert("message".into(), Value::String(message));
                }
                Value::Object(self.others)
            }
        }
    }
}

impl Visit for Fields {
    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        let text = format!("{value:?}");
        if field.name() == "message" {
            self.message = Some(text);
        } else {
            self.others.insert(field.name().into(), Value::String(text));
        }
    }

    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "message" {
            self.message = Some(value.to_owned());
        } else {
            self.others.insert(field.name().into(), Value::from(value));
        }
    }

    fn record_i64(&mut self, field: &Field, value: i64) {
        self.others.insert(field.name().into(), Value::from(value));
    }

    fn record_u64(&mut self, field: &Field, value: u64) {
        self.others.insert(field.name().into(), Value::from(value));
    }

    fn record_f64(&mut self, field: &Field, value: f64) {
        self.others.insert(field.name().into(), Value::from(value));
    }

    fn record_bool(&mut self, field: &Field, value: bool) {
        self.others.insert(field.name().into(), Value::from(value));
    }
}

/// A `tracing` layer over the plain registry, boxed (what `run()` may add to its logger).
#[cfg(feature = "stdio")]
pub(crate) type BoxedLayer = Box<dyn tracing_subscriber::Layer<tracing_subscriber::Registry> + Send + Sync>;

/// Installs what [`Server::run`](crate::Server::run) logs with, unless the application
/// installed a subscriber: a standard error logger filtered by `RUST_LOG` (`target=level`
/// directives, e.g. `warn,my_server=debug`; `warn` when unset or unreadable), the
/// [`ClientLogLayer`], and `more` (the telemetry's, which sends the application's spans to
/// the traces), filtered as the standard error logger is.
#[cfg(feature = "stdio")]
pub(crate) fn install_default_subscriber(more: Option<BoxedLayer>) {
    use tracing_subscriber::Layer as _;
    use tracing_subscriber::layer::SubscriberExt as _;
    use tracing_subscriber::util::SubscriberInitExt as _;
    if tracing::dispatcher::has_been_set() {
        return;
    }
    let directives = std::env::var("RUST_LOG").ok();
    let parsed = directives.as_deref().map(str::parse::<tracing_subscriber::filter::Targets>);
    let (filter, unreadable) = match parsed {
        Some(Ok(filter)) => (filter, None),
        other => (tracing_subscriber::filter::Targets::new().with_default(tracing::Level::WARN), other),
    };
    // The telemetry's layer sees the handlers' spans the runtime opens, whatever the level.
    let spans = filter.clone().with_target("mcp_runtime::handler", tracing::Level::INFO);
    let more = more.map(|layer| layer.with_filter(spans).boxed());
    let stderr = tracing_subscriber::fmt::layer().with_writer(std::io::stderr).with_ansi(false).with_filter(filter);
    // The client layer reads events alone: spans enabled for it would cost every request one
    // (the executor's `request` span) although nothing uses it.
    let client = ClientLogLayer::new().with_filter(tracing_subscriber::filter::filter_fn(|m| m.is_event()));
    let layers: Vec<BoxedLayer> = [Some(stderr.boxed()), Some(client.boxed()), more].into_iter().flatten().collect();
    let _ = tracing_subscriber::registry().with(layers).try_init();
    if let Some(Err(e)) = unreadable {
        tracing::warn!(error = %e, "RUST_LOG could not be read; logging warnings and errors");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_handlers_crate_is_forwarded_unless_asked() {
        let layer = ClientLogLayer::new();
        assert!(layer.forwards("notes", Some("notes::tools")));
        assert!(layer.forwards("notes::search", Some("notes")));
        assert!(!layer.forwards("notesy", Some("notes")));
        assert!(!layer.forwards("sqlx::query", Some("notes")));
        assert!(!layer.forwards("notes", None));
        assert!(layer.clone().forward_target("sqlx").forwards("sqlx::query", Some("notes")));
        assert!(layer.forward_all().forwards("hyper", None));
    }
}
