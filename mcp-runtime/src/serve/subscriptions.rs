//! One connection's subscriptions, and which notifications an event becomes for it.
//!
//! Handshake revisions: `resources/subscribe` / `unsubscribe` name URIs, and list changes go
//! to every initialized client when the server declared `listChanged`. 2026-07-28: each
//! `subscriptions/listen` request opens a stream with its own filter; every message on it
//! carries the request's id as `io.modelcontextprotocol/subscriptionId`, and nothing the
//! client did not ask for is sent.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::context::outlet::{Outgoing, RequestStream};
use crate::error::ItemKind;
use crate::protocol::{ErrorObject, RequestId, code, notification_line, success_line};
use crate::server::changes::Announcement;
use crate::server::core::ServerCore;
use crate::server::registry::Registry;

const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";

/// Open `subscriptions/listen` streams a connection may have, unless its transport says
/// otherwise (the HTTP endpoint's stateless loop serves every client). Streams live long, so
/// they count against this limit rather than the in-flight bound of requests.
pub(crate) const MAX_LISTEN_STREAMS: usize = 32;

/// What a `subscriptions/listen` stream asks for (and, acknowledged, what it gets).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Filter {
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    tools_list_changed: bool,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    prompts_list_changed: bool,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    resources_list_changed: bool,
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    resource_subscriptions: BTreeSet<String>,
    /// Tasks whose changes the stream wants (the tasks extension).
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    task_ids: BTreeSet<String>,
}

#[derive(Deserialize)]
struct ListenParams {
    notifications: Filter,
}

#[derive(Debug)]
struct Listen {
    id: RequestId,
    filter: Filter,
    /// Who opened it, when the transport authenticates: only their tasks are told.
    caller: Option<String>,
    /// The listen request's own stream (an HTTP response); `None`: the connection's output.
    stream: Option<Stream>,
}

/// The most task ids one listen stream follows.
const MAX_TASK_IDS: usize = 256;

/// A `subscriptions/listen` request, as its stream opens.
pub(crate) struct Opening<'a> {
    pub(crate) id: &'a RequestId,
    pub(crate) params: &'a str,
    /// The request's own stream (an HTTP response); `None`: the connection's output.
    pub(crate) stream: Option<Stream>,
    /// Who opened it, when the transport authenticated them.
    pub(crate) caller: Option<&'a str>,
    /// Whether the request opted in to the tasks extension (needed for `taskIds`).
    pub(crate) tasks_opted_in: bool,
}

/// A stream of one request's own.
pub(crate) type Stream = RequestStream;

/// A message for the client, and where it goes: a request's own stream, or (`None`) the
/// connection's output.
pub(crate) type Routed = (Option<Stream>, Outgoing);

/// A connection's subscriptions of both eras.
#[derive(Debug)]
pub(crate) struct Subscriptions {
    /// How many listen streams may be open at once.
    limit: usize,
    /// URIs of `resources/subscribe` (handshake revisions).
    uris: BTreeSet<String>,
    /// Open `subscriptions/listen` streams (2026-07-28).
    listens: Vec<Listen>,
}

/// Whether `uri` names a resource clients may subscribe to: `Err` is the error to answer.
fn check_subscribable(registry: &Registry, uri: &str) -> Result<(), ErrorObject> {
    let subscribable = match (registry.resources.get(uri), registry.match_template(uri)) {
        (Some(resource), _) => resource.subscribe,
        (None, Some((template, _))) => template.subscribe,
        (None, None) => {
            return Err(ErrorObject::new(code::RESOURCE_NOT_FOUND, format!("Resource not found: `{uri}`"))
                .with_data(json!({ "uri": uri })));
        }
    };
    if subscribable {
        Ok(())
    } else {
        Err(ErrorObject::invalid_params(format!("Resource `{uri}` does not support subscriptions")))
    }
}

impl Default for Subscriptions {
    fn default() -> Self {
        Subscriptions::with_limit(MAX_LISTEN_STREAMS)
    }
}

impl Subscriptions {
    /// Subscriptions allowing `limit` open listen streams.
    pub(crate) fn with_limit(limit: usize) -> Self {
        Subscriptions { limit: limit.max(1), uris: BTreeSet::new(), listens: Vec::new() }
    }

    /// `resources/subscribe`: `Ok` when `uri` is a subscribable resource.
    pub(crate) fn subscribe(&mut self, core: &ServerCore, uri: &str) -> Result<(), ErrorObject> {
        check_subscribable(&core.registry(), uri)?;
        self.uris.insert(uri.to_owned());
        Ok(())
    }

    /// The URIs of `resources/subscribe`, in order.
    pub(crate) fn uris(&self) -> impl Iterator<Item = &str> {
        self.uris.iter().map(String::as_str)
    }

    /// Takes over the subscriptions of a session served elsewhere before (checked there).
    pub(crate) fn restore(&mut self, uris: Vec<String>) {
        self.uris = uris.into_iter().collect();
    }

    /// `resources/unsubscribe`: always succeeds.
    pub(crate) fn unsubscribe(&mut self, uri: &str) {
        self.uris.remove(uri);
    }

    /// `subscriptions/listen`: opens a stream and returns its acknowledgement, which honours
    /// only what the server can send.
    pub(crate) fn listen(&mut self, core: &ServerCore, opening: Opening<'_>) -> Result<Vec<u8>, ErrorObject> {
        let Opening { id, params, stream, caller, tasks_opted_in } = opening;
        let params: ListenParams = serde_json::from_str(params)
            .map_err(|e| ErrorObject::invalid_params(format!("Invalid `subscriptions/listen` params: {e}")))?;
        if !params.notifications.task_ids.is_empty() && !tasks_opted_in {
            return Err(crate::serve::methods::tasks::needs_extension("Listening to `taskIds`"));
        }
        if self.listens.len() >= self.limit {
            return Err(ErrorObject::invalid_request(format!(
                "Invalid request: {} streams are open, the most this connection may have; cancel one first",
                self.limit
            )));
        }
        if self.listens.iter().any(|l| &l.id == id) {
            return Err(ErrorObject::invalid_request(format!(
                "Invalid request: the id {id} is in use by another stream"
            )));
        }
        let declared = &core.capabilities;
        let dynamic = core.dynamic_lists;
        let registry = core.registry();
        let wanted = params.notifications;
        let filter = Filter {
            tools_list_changed: wanted.tools_list_changed && dynamic && declared.tools.is_some(),
            prompts_list_changed: wanted.prompts_list_changed && dynamic && declared.prompts.is_some(),
            resources_list_changed: wanted.resources_list_changed && dynamic && declared.resources.is_some(),
            resource_subscriptions: wanted
                .resource_subscriptions
                .into_iter()
                .filter(|uri| check_subscribable(&registry, uri).is_ok())
                .collect(),
            // Any id is taken: a task another caller made is simply never told.
            task_ids: wanted.task_ids.into_iter().take(MAX_TASK_IDS).collect(),
        };
        let ack = json!({ "notifications": filter, "_meta": { SUBSCRIPTION_ID: id } });
        self.listens.push(Listen { id: id.clone(), filter, caller: caller.map(str::to_owned), stream });
        Ok(notification_line("notifications/subscriptions/acknowledged", Some(&ack)))
    }

    /// `notifications/cancelled` for a listen stream: it ends, and nothing more is sent for it.
    pub(crate) fn cancel(&mut self, id: &RequestId) -> bool {
        let before = self.listens.len();
        self.listens.retain(|l| &l.id != id);
        before != self.listens.len()
    }

    /// The notifications `event` becomes on this connection. `handshake_ready`: the client
    /// completed the handshake (legacy notifications may flow).
    pub(crate) fn on_announcement(
        &self,
        core: &ServerCore,
        event: &Announcement,
        handshake_ready: bool,
    ) -> Vec<Routed> {
        let mut lines = Vec::new();
        match event {
            Announcement::ListChanged(kind) => {
                let (method, wanted): (&str, fn(&Filter) -> bool) = match kind {
                    ItemKind::Tool => ("notifications/tools/list_changed", |f| f.tools_list_changed),
                    ItemKind::Prompt => ("notifications/prompts/list_changed", |f| f.prompts_list_changed),
                    ItemKind::Resource | ItemKind::ResourceTemplate => {
                        ("notifications/resources/list_changed", |f| f.resources_list_changed)
                    }
                };
                if handshake_ready && core.dynamic_lists {
                    lines.push((None, Outgoing::interim(notification_line(method, None::<&Value>))));
                }
                for listen in self.listens.iter().filter(|l| wanted(&l.filter)) {
                    let params = json!({ "_meta": { SUBSCRIPTION_ID: listen.id } });
                    lines.push((listen.stream.clone(), Outgoing::interim(notification_line(method, Some(&params)))));
                }
            }
            Announcement::ResourceUpdated(uri) => {
                let method = "notifications/resources/updated";
                if handshake_ready && self.uris.contains(&**uri) {
                    lines.push((None, Outgoing::interim(notification_line(method, Some(&json!({ "uri": &**uri }))))));
                }
                for listen in self.listens.iter().filter(|l| l.filter.resource_subscriptions.contains(&**uri)) {
                    let params = json!({ "uri": &**uri, "_meta": { SUBSCRIPTION_ID: listen.id } });
                    lines.push((listen.stream.clone(), Outgoing::interim(notification_line(method, Some(&params)))));
                }
            }
            Announcement::Task(notice) => {
                let wanted = |l: &&Listen| {
                    l.filter.task_ids.contains(&notice.task_id) && l.caller.as_deref() == notice.owner.as_deref()
                };
                for listen in self.listens.iter().filter(wanted) {
                    let mut params = notice.detailed.clone();
                    params.insert("_meta".into(), json!({ SUBSCRIPTION_ID: listen.id }));
                    let line = notification_line("notifications/tasks", Some(&params));
                    lines.push((listen.stream.clone(), Outgoing::interim(line)));
                }
            }
        }
        lines
    }

    /// What to send when this connection fell behind and missed events it cannot name: every
    /// notification its subscriptions could have needed (each list change, each subscribed
    /// resource updated), once, so that its client reads again rather than misses a change.
    pub(crate) fn on_lag(&self, core: &ServerCore, handshake_ready: bool) -> Vec<Routed> {
        let kinds = [ItemKind::Tool, ItemKind::Prompt, ItemKind::Resource];
        let uris: BTreeSet<&String> =
            self.uris.iter().chain(self.listens.iter().flat_map(|l| &l.filter.resource_subscriptions)).collect();
        let events = kinds
            .into_iter()
            .map(Announcement::ListChanged)
            .chain(uris.into_iter().map(|uri| Announcement::ResourceUpdated(uri.as_str().into())));
        events.flat_map(|event| self.on_announcement(core, &event, handshake_ready)).collect()
    }

    /// The final responses of the open streams, when the server ends them.
    pub(crate) fn close(&mut self, core: &ServerCore) -> Vec<Routed> {
        self.listens
            .drain(..)
            .map(|listen| {
                let result: Value = json!({
                    "resultType": "complete",
                    "_meta": {
                        SUBSCRIPTION_ID: listen.id,
                        "io.modelcontextprotocol/serverInfo": core.info,
                    },
                });
                (listen.stream, Outgoing::success(success_line(&listen.id, &result.to_string()), None))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::declare::resource::{ResourceDescriptor, ResourceRead};
    use crate::server::builder::Server;

    #[test]
    fn a_lagging_connection_is_told_everything_it_subscribed_to() {
        let resource =
            ResourceDescriptor::fixed("test://a", "a").subscribable(true).reader(|_: ResourceRead| async { "a" });
        let core = Server::builder("t", "1").dynamic_lists().resource(resource).build().unwrap();
        let mut subscriptions = Subscriptions::default();
        subscriptions.subscribe(&core, "test://a").unwrap();
        let lines = subscriptions.on_lag(&core, true);
        let messages: Vec<Value> = lines.iter().map(|(_, l)| serde_json::from_slice(&l.line).unwrap()).collect();
        let methods: Vec<&str> = messages.iter().map(|m| m["method"].as_str().unwrap()).collect();
        assert_eq!(
            methods,
            [
                "notifications/tools/list_changed",
                "notifications/prompts/list_changed",
                "notifications/resources/list_changed",
                "notifications/resources/updated",
            ]
        );
        assert_eq!(messages[3]["params"]["uri"], "test://a");
        assert!(subscriptions.on_lag(&core, false).is_empty(), "nothing before `initialized`");
    }
}
