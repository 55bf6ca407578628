//! Change events between servers: what one server's [`ServerHandle`](crate::ServerHandle)
//! says (a resource changed; an item was enabled, disabled or removed) goes out through a
//! [`ChangeBus`], and every server sharing the bus, this one included, hears it and tells its
//! connections. One process needs nothing more than the in-memory default; several processes
//! behind a load balancer share a bus that crosses them.

use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};

use crate::error::ItemKind;

/// What a server's connections may have to tell their clients, whichever server of the bus the
/// change came from (the bus carries [`ChangeNotice`]s; a connection hears these).
#[derive(Debug, Clone)]
pub(crate) enum Announcement {
    /// A list of this kind changed.
    ListChanged(ItemKind),
    /// The resource at this URI changed.
    ResourceUpdated(Arc<str>),
    /// A task changed (the tasks extension): for the listen streams that named it.
    Task(Arc<TaskNotice>),
}

/// A task as its change notification (`notifications/tasks`) carries it.
#[derive(Debug)]
pub(crate) struct TaskNotice {
    pub(crate) task_id: String,
    /// Who may see it (`None`: whoever knows its id).
    pub(crate) owner: Option<String>,
    /// The task as `tasks/get` answers it.
    pub(crate) detailed: serde_json::Map<String, serde_json::Value>,
}

/// A change to an item of a server's lists, made by name (see
/// [`ServerHandle::disable`](crate::ServerHandle::disable)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ItemChange {
    /// Shown again after being disabled.
    Enable,
    /// Hidden until enabled.
    Disable,
    /// Removed, enabled or not.
    Remove,
}

/// What a server tells the others sharing its bus.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum ChangeEvent {
    /// A list of this kind changed (an item was added at run time, say).
    ListChanged {
        /// Which list.
        kind: ItemKind,
    },
    /// The resource at this URI changed: its subscribers are told.
    ResourceUpdated {
        /// The resource's URI.
        uri: String,
    },
    /// An item was enabled, disabled or removed by name: every other server applies the same
    /// change to its own lists (when it has that item), and its clients are told the list
    /// changed.
    ItemChanged {
        /// The item's kind.
        kind: ItemKind,
        /// Its name (a resource's URI, a template's URI template).
        key: String,
        /// What happened to it.
        change: ItemChange,
    },
    /// A handshake-era session was ended (`DELETE`) on one server: every server that serves
    /// it too (sharing a session store) stops serving it.
    SessionEnded {
        /// The session's id.
        session: String,
    },
    /// A handshake-era session's client sent a message that named nothing on the server it
    /// reached (its answer to a question another server asked, its cancellation of a request
    /// another server runs): every server serving that session (sharing a session store)
    /// tries it once.
    ClientMessage {
        /// The session's id.
        session: String,
        /// The message, as JSON text.
        message: String,
    },
    /// A task changed (the tasks extension), on whichever server: the listen streams that
    /// named it, on every server, are told (`notifications/tasks`).
    TaskChanged {
        /// The task's id.
        task_id: String,
        /// Who may see it (`None`: whoever knows its id).
        owner: Option<String>,
        /// The task as `tasks/get` answers it.
        task: serde_json::Map<String, serde_json::Value>,
    },
    /// A client answered a task's questions (`tasks/update`) through another server than the
    /// one running it: that server (`runner`) hands the answers to the waiting handler.
    TaskInput {
        /// The id of the server running the task.
        runner: String,
        /// The task's id.
        task_id: String,
        /// The answers, by question key.
        responses: serde_json::Map<String, serde_json::Value>,
    },
    /// A client cancelled a task (`tasks/cancel`) through another server than the one running
    /// it: that server (`runner`) stops the work.
    TaskCancelled {
        /// The id of the server running the task.
        runner: String,
        /// The task's id.
        task_id: String,
    },
}

/// A [`ChangeEvent`] on the bus, with the server it came from and its place among that
/// server's notices.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChangeNotice {
    /// The publishing server's id (random, drawn when it starts): a server does not apply its
    /// own item changes twice.
    pub origin: String,
    /// The notice's number among its origin's, from 1 (0: not numbered). `origin` and `seq`
    /// name a notice on the whole bus: a bus that delivers at least once drops what it
    /// delivered already, and a notice heard by several servers serving one session is kept
    /// once in that session's stream.
    #[serde(default)]
    pub seq: u64,
    /// What changed.
    pub event: ChangeEvent,
}

impl ChangeNotice {
    /// The notice's name on the bus (`origin.seq`), when it is numbered.
    pub(crate) fn name(&self) -> Option<Arc<str>> {
        (self.seq != 0).then(|| Arc::from(format!("{}.{}", self.origin, self.seq)))
    }
}

/// An [`Announcement`] as a server's connections hear it: with the name of the notice it came
/// from, if any (see [`ChangeNotice::seq`]).
#[derive(Debug, Clone)]
pub(crate) struct Heard {
    pub(crate) announcement: Announcement,
    pub(crate) notice: Option<Arc<str>>,
}

/// Where a server hands the notices it hears; `false` once that server is gone, so that the bus
/// may forget it.
pub type ChangeSink = Arc<dyn Fn(&ChangeNotice) -> bool + Send + Sync>;

/// How change events travel between servers. Each server subscribes once, when it starts, and
/// publishes what its handle says; every notice published by any server reaches every
/// subscriber, the publisher included, once, in the order each publisher sent them.
///
/// A bus over a broker should survive the broker's faults: queue what it could not send and
/// send it once the broker is back, and read from where it left off after reconnecting; a
/// notice it may deliver twice is known by its origin and number.
///
/// The in-process default is [`MemoryChangeBus`]; an implementation over a message broker lets
/// the servers of several processes hear each other.
pub trait ChangeBus: Send + Sync + 'static {
    /// Sends `notice` to every subscriber. It must not block: a bus that crosses processes
    /// queues the notice for a task of its own.
    fn publish(&self, notice: ChangeNotice);

    /// Delivers every notice published from now on to `sink`, until `sink` returns `false`.
    fn subscribe(&self, sink: ChangeSink);
}

/// The in-process [`ChangeBus`]: publishing calls every subscriber at once. One bus shared by
/// several servers of the same process (through an `Arc`) makes them hear each other.
///
/// ```
/// use std::sync::Arc;
/// use mcp_runtime::changes::{ChangeBus, ChangeEvent, ChangeNotice, MemoryChangeBus};
///
/// let bus = MemoryChangeBus::default();
/// let heard = Arc::new(std::sync::Mutex::new(Vec::new()));
/// let keep = Arc::clone(&heard);
/// bus.subscribe(Arc::new(move |notice: &ChangeNotice| {
///     keep.lock().unwrap().push(notice.event.clone());
///     true
/// }));
/// let event = ChangeEvent::ResourceUpdated { uri: "notes://1".into() };
/// bus.publish(ChangeNotice { origin: "a".into(), seq: 1, event });
/// assert_eq!(heard.lock().unwrap().len(), 1);
/// ```
#[derive(Debug, Default)]
pub struct MemoryChangeBus {
    sinks: Sinks,
}

impl ChangeBus for MemoryChangeBus {
    fn publish(&self, notice: ChangeNotice) {
        self.sinks.deliver(&notice);
    }

    fn subscribe(&self, sink: ChangeSink) {
        self.sinks.add(sink);
    }
}

/// The sinks subscribed to a bus, in this process.
#[derive(Default)]
pub(crate) struct Sinks(Mutex<Vec<ChangeSink>>);

impl Sinks {
    pub(crate) fn add(&self, sink: ChangeSink) {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).push(sink);
    }

    /// Hands `notice` to every sink, forgetting those that are gone. The sinks are called
    /// outside the lock: a sink may publish in turn.
    pub(crate) fn deliver(&self, notice: &ChangeNotice) {
        let current = self.0.lock().unwrap_or_else(|e| e.into_inner()).clone();
        let gone: Vec<ChangeSink> = current.into_iter().filter(|sink| !sink(notice)).collect();
        if !gone.is_empty() {
            let mut sinks = self.0.lock().unwrap_or_else(|e| e.into_inner());
            sinks.retain(|sink| !gone.iter().any(|g| Arc::ptr_eq(g, sink)));
        }
    }

    fn len(&self) -> usize {
        self.0.lock().map_or(0, |sinks| sinks.len())
    }
}

impl std::fmt::Debug for Sinks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sinks").field("subscribers", &self.len()).finish()
    }
}

impl<B: ChangeBus + ?Sized> ChangeBus for Arc<B> {
    fn publish(&self, notice: ChangeNotice) {
        (**self).publish(notice);
    }

    fn subscribe(&self, sink: ChangeSink) {
        (**self).subscribe(sink);
    }
}

/// A server's bus, as the server keeps it.
#[derive(Clone)]
pub(crate) struct Bus(pub(crate) Arc<dyn ChangeBus>);

impl Default for Bus {
    fn default() -> Self {
        Bus(Arc::new(MemoryChangeBus::default()))
    }
}

impl std::fmt::Debug for Bus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ChangeBus")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sink_that_is_gone_is_forgotten_and_the_others_still_hear() {
        let bus = MemoryChangeBus::default();
        let heard = Arc::new(Mutex::new(0));
        let count = Arc::clone(&heard);
        bus.subscribe(Arc::new(move |_: &ChangeNotice| {
            *count.lock().unwrap() += 1;
            true
        }));
        bus.subscribe(Arc::new(|_: &ChangeNotice| false));
        let notice =
            ChangeNotice { origin: "x".into(), seq: 1, event: ChangeEvent::ListChanged { kind: ItemKind::Tool } };
        bus.publish(notice.clone());
        bus.publish(notice);
        assert_eq!(*heard.lock().unwrap(), 2);
        assert_eq!(bus.sinks.len(), 1);
    }

    #[test]
    fn notices_travel_as_json() {
        let notice = ChangeNotice {
            origin: "a1".into(),
            seq: 7,
            event: ChangeEvent::ItemChanged { kind: ItemKind::Prompt, key: "p".into(), change: ItemChange::Disable },
        };
        let text = serde_json::to_string(&notice).unwrap();
        assert_eq!(
            text,
            r#"{"origin":"a1","seq":7,"event":{"type":"item_changed","kind":"prompt","key":"p","change":"disable"}}"#
        );
        assert_eq!(serde_json::from_str::<ChangeNotice>(&text).unwrap(), notice);
        assert_eq!(notice.name().as_deref(), Some("a1.7"));
        // A notice of a publisher that does not number them has no name.
        let unnumbered: ChangeNotice =
            serde_json::from_str(r#"{"origin":"b","event":{"type":"list_changed","kind":"tool"}}"#).unwrap();
        assert_eq!((unnumbered.seq, unnumbered.name()), (0, None));
    }
}
