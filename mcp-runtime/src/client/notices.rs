//! What the server tells a client without being asked: list changes, resource updates, log
//! messages, progress. They arrive on a bounded stream each reader takes from
//! [`Client::notifications`](super::Client::notifications): a reader that falls behind loses
//! the oldest ones (and is told how many), so a flooding server cannot grow the client's
//! memory.

use std::sync::Arc;

use serde::Deserialize;
use serde_json::Value;
use tokio::sync::broadcast;

use crate::protocol::LogLevel;

/// How many notifications wait for a slow reader before the oldest are dropped.
pub const NOTIFICATION_BUFFER: usize = 1024;

/// A notification from the server.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Notification {
    /// `notifications/tools/list_changed` (the client's cached tool list is dropped first).
    ToolsChanged,
    /// `notifications/resources/list_changed`.
    ResourcesChanged,
    /// `notifications/prompts/list_changed`.
    PromptsChanged,
    /// `notifications/resources/updated`: the resource at `uri` changed.
    ResourceUpdated {
        /// The resource's URI.
        uri: String,
    },
    /// `notifications/message`: a log message.
    Log {
        /// Its severity.
        level: LogLevel,
        /// The logger's name, if given.
        logger: Option<String>,
        /// The message.
        data: Value,
    },
    /// `notifications/progress` of a request.
    Progress(Progress),
    /// Anything else, raw: `notifications/cancelled`, a task's status, an extension's.
    Other {
        /// The method.
        method: String,
        /// Its params (`null` when absent).
        params: Value,
    },
}

/// How far a request has come (`notifications/progress`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Progress {
    /// The request's progress token, as sent.
    pub progress_token: Value,
    /// How far it is.
    pub progress: f64,
    /// Out of how much, if known.
    #[serde(default)]
    pub total: Option<f64>,
    /// What it is doing.
    #[serde(default)]
    pub message: Option<String>,
}

impl Notification {
    /// Reads a notification from its method and params.
    pub(crate) fn read(method: &str, params: Value) -> Notification {
        let typed = match method {
            "notifications/tools/list_changed" => Some(Notification::ToolsChanged),
            "notifications/resources/list_changed" => Some(Notification::ResourcesChanged),
            "notifications/prompts/list_changed" => Some(Notification::PromptsChanged),
            "notifications/resources/updated" => {
                params["uri"].as_str().map(|uri| Notification::ResourceUpdated { uri: uri.to_owned() })
            }
            "notifications/message" => LogLevel::deserialize(&params["level"]).ok().map(|level| Notification::Log {
                level,
                logger: params["logger"].as_str().map(str::to_owned),
                data: params["data"].clone(),
            }),
            "notifications/progress" => Progress::deserialize(&params).ok().map(Notification::Progress),
            _ => None,
        };
        typed.unwrap_or_else(|| Notification::Other { method: method.to_owned(), params })
    }

    /// The method it arrived as.
    pub fn method(&self) -> &str {
        match self {
            Notification::ToolsChanged => "notifications/tools/list_changed",
            Notification::ResourcesChanged => "notifications/resources/list_changed",
            Notification::PromptsChanged => "notifications/prompts/list_changed",
            Notification::ResourceUpdated { .. } => "notifications/resources/updated",
            Notification::Log { .. } => "notifications/message",
            Notification::Progress(_) => "notifications/progress",
            Notification::Other { method, .. } => method,
        }
    }
}

/// A reader of the server's notifications, from the moment it was taken.
///
/// ```no_run
/// # async fn show(client: mcp_runtime::client::Client) {
/// use mcp_runtime::client::Notification;
/// let mut notifications = client.notifications();
/// while let Some(notification) = notifications.next().await {
///     if notification == Notification::ToolsChanged {
///         println!("{} tools now", client.list_tools().await.map(|t| t.len()).unwrap_or(0));
///     }
/// }
/// # }
/// ```
#[derive(Debug)]
pub struct Notifications {
    receiver: broadcast::Receiver<Arc<Raw>>,
    missed: u64,
}

/// A notification as it came: its method and params. Shared between readers, read into a
/// [`Notification`] by each.
#[derive(Debug)]
pub(crate) struct Raw {
    pub(crate) method: String,
    pub(crate) params: Value,
}

impl Notifications {
    pub(crate) fn new(receiver: broadcast::Receiver<Arc<Raw>>) -> Notifications {
        Notifications { receiver, missed: 0 }
    }

    /// The next notification; `None` once the connection is closed and every notification
    /// read.
    pub async fn next(&mut self) -> Option<Notification> {
        let raw = self.next_raw_shared().await?;
        Some(Notification::read(&raw.method, raw.params.clone()))
    }

    /// The next notification as it came, its method and params (`null` when absent): what a
    /// proxy forwards.
    pub async fn next_raw(&mut self) -> Option<(String, Value)> {
        let raw = self.next_raw_shared().await?;
        Some((raw.method.clone(), raw.params.clone()))
    }

    /// The next notification if one is waiting, without waiting.
    pub fn try_next(&mut self) -> Option<Notification> {
        loop {
            match self.receiver.try_recv() {
                Ok(raw) => return Some(Notification::read(&raw.method, raw.params.clone())),
                Err(broadcast::error::TryRecvError::Lagged(missed)) => self.missed += missed,
                Err(_) => return None,
            }
        }
    }

    /// The next notification as it came, if one is waiting, without waiting.
    pub fn try_next_raw(&mut self) -> Option<(String, Value)> {
        loop {
            match self.receiver.try_recv() {
                Ok(raw) => return Some((raw.method.clone(), raw.params.clone())),
                Err(broadcast::error::TryRecvError::Lagged(missed)) => self.missed += missed,
                Err(_) => return None,
            }
        }
    }

    async fn next_raw_shared(&mut self) -> Option<Arc<Raw>> {
        loop {
            match self.receiver.recv().await {
                Ok(raw) => return Some(raw),
                Err(broadcast::error::RecvError::Lagged(missed)) => self.missed += missed,
                Err(broadcast::error::RecvError::Closed) => return None,
            }
        }
    }

    /// How many notifications this reader lost by falling more than
    /// [`NOTIFICATION_BUFFER`] behind.
    pub fn missed(&self) -> u64 {
        self.missed
    }
}
