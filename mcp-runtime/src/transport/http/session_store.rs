//! Handshake-era sessions kept apart from the loops serving them: what a session is (its
//! negotiated revision, the client's capabilities, its log level and subscriptions, who opened
//! it) goes to a [`SessionStore`] when it changes, so that an endpoint that does not serve a
//! session yet (another process behind the same load balancer, sharing the store) can take
//! it over.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::context::Negotiated;
use crate::protocol::{Implementation, LogLevel, Revision};
use crate::serve::session::SessionState;
use crate::util::BoxFuture;

use crate::util::StoreError;

/// A session as a [`SessionStore`] keeps it: serializable, so that a store shared by several
/// processes can write it anywhere.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionRecord {
    protocol_version: String,
    client_capabilities: Map<String, Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    client_info: Option<Implementation>,
    log_level: LogLevel,
    #[serde(default)]
    subscriptions: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    owner: Option<String>,
}

impl SessionRecord {
    pub(crate) fn new(state: &SessionState, owner: Option<&str>) -> Self {
        SessionRecord {
            protocol_version: state.negotiated.revision.as_str().to_owned(),
            client_capabilities: state.negotiated.client_capabilities.clone(),
            client_info: state.negotiated.client_info.clone(),
            log_level: state.log_level,
            subscriptions: state.subscriptions.clone(),
            owner: owner.map(str::to_owned),
        }
    }

    /// The session's state, `None` when the record names a revision this server does not
    /// speak (written by a newer version of the server, say).
    pub(crate) fn state(&self) -> Option<SessionState> {
        let revision = Revision::parse(&self.protocol_version)?;
        Some(SessionState {
            negotiated: Arc::new(Negotiated {
                revision,
                client_capabilities: self.client_capabilities.clone(),
                client_info: self.client_info.clone(),
            }),
            log_level: self.log_level,
            subscriptions: self.subscriptions.clone(),
        })
    }

    /// The subject of the identity that opened the session (see
    /// [`Identity::subject`](crate::Identity::subject)): only it may use the session.
    pub fn owner(&self) -> Option<&str> {
        self.owner.as_deref()
    }

    /// The revision the session negotiated.
    pub fn protocol_version(&self) -> &str {
        &self.protocol_version
    }
}

/// Where the sessions of the handshake revisions are kept. The endpoint saves a session when
/// `initialize` succeeds (before its response leaves) and whenever its log level or
/// subscriptions change; it loads one it does not serve yet when a request names it; it
/// removes one on DELETE. A record not saved or touched for `ttl` may be forgotten.
///
/// The default, [`MemorySessionStore`], keeps them in the process. A store shared by several
/// processes lets any of them serve any session.
pub trait SessionStore: Send + Sync + 'static {
    /// Keeps `record` as session `id` for `ttl` (replacing what was kept).
    fn save<'a>(
        &'a self,
        id: &'a str,
        record: &'a SessionRecord,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<(), StoreError>>;

    /// Session `id`, if it is kept and not expired.
    fn load<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<SessionRecord>, StoreError>>;

    /// Keeps session `id` for `ttl` more, from now.
    fn touch<'a>(&'a self, id: &'a str, ttl: Duration) -> BoxFuture<'a, Result<(), StoreError>>;

    /// Forgets session `id`.
    fn remove<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<(), StoreError>>;

    /// Whether the store can be reached now, for `/readyz`: a store kept elsewhere (Redis)
    /// answers a ping. The default is always reachable.
    fn check(&self) -> BoxFuture<'_, Result<(), StoreError>> {
        Box::pin(async { Ok(()) })
    }
}

impl<S: SessionStore + ?Sized> SessionStore for Arc<S> {
    fn save<'a>(
        &'a self,
        id: &'a str,
        record: &'a SessionRecord,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        (**self).save(id, record, ttl)
    }

    fn load<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<SessionRecord>, StoreError>> {
        (**self).load(id)
    }

    fn touch<'a>(&'a self, id: &'a str, ttl: Duration) -> BoxFuture<'a, Result<(), StoreError>> {
        (**self).touch(id, ttl)
    }

    fn remove<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<(), StoreError>> {
        (**self).remove(id)
    }

    fn check(&self) -> BoxFuture<'_, Result<(), StoreError>> {
        (**self).check()
    }
}

/// The in-process [`SessionStore`]. Shared through an `Arc` by several endpoints of one
/// process, it lets each serve the others' sessions.
///
/// ```
/// use std::sync::Arc;
/// use mcp_runtime::http::{HttpOptions, MemorySessionStore};
///
/// let store = Arc::new(MemorySessionStore::default());
/// let first = HttpOptions::default().session_store(Arc::clone(&store));
/// let second = HttpOptions::default().session_store(store);
/// # let _ = (first, second);
/// ```
#[derive(Debug, Default)]
pub struct MemorySessionStore {
    sessions: Mutex<HashMap<String, (SessionRecord, Instant)>>,
}

/// How many records the in-memory store holds before it looks for expired ones to drop.
const SWEEP_ABOVE: usize = 1_024;

impl MemorySessionStore {
    fn sessions(&self) -> std::sync::MutexGuard<'_, HashMap<String, (SessionRecord, Instant)>> {
        self.sessions.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl SessionStore for MemorySessionStore {
    fn save<'a>(
        &'a self,
        id: &'a str,
        record: &'a SessionRecord,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            let now = Instant::now();
            let mut sessions = self.sessions();
            if sessions.len() >= SWEEP_ABOVE {
                sessions.retain(|_, (_, until)| *until > now);
            }
            sessions.insert(id.to_owned(), (record.clone(), now + ttl));
            Ok(())
        })
    }

    fn load<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<SessionRecord>, StoreError>> {
        Box::pin(async move {
            let sessions = self.sessions();
            Ok(sessions.get(id).filter(|(_, until)| *until > Instant::now()).map(|(record, _)| record.clone()))
        })
    }

    fn touch<'a>(&'a self, id: &'a str, ttl: Duration) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            let now = Instant::now();
            // An expired record stays expired.
            if let Some((_, until)) = self.sessions().get_mut(id).filter(|(_, until)| *until > now) {
                *until = now + ttl;
            }
            Ok(())
        })
    }

    fn remove<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            self.sessions().remove(id);
            Ok(())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record() -> SessionRecord {
        let state = SessionState {
            negotiated: Arc::new(Negotiated {
                revision: Revision::V2025_06_18,
                client_capabilities: Map::new(),
                client_info: Some(Implementation::new("client", "1.0.0")),
            }),
            log_level: LogLevel::Warning,
            subscriptions: vec!["note://1".into()],
        };
        SessionRecord::new(&state, Some("alice"))
    }

    #[tokio::test]
    async fn records_come_back_until_they_expire_or_are_removed() {
        let store = MemorySessionStore::default();
        store.save("a", &record(), Duration::from_secs(60)).await.unwrap();
        store.save("b", &record(), Duration::ZERO).await.unwrap();
        assert_eq!(store.load("a").await.unwrap(), Some(record()));
        assert_eq!(store.load("b").await.unwrap(), None, "expired");
        store.touch("b", Duration::from_secs(60)).await.unwrap();
        assert_eq!(store.load("b").await.unwrap(), None, "a touch does not bring it back");
        store.touch("a", Duration::ZERO).await.unwrap();
        assert_eq!(store.load("a").await.unwrap(), None, "touched with no time left");
        store.save("a", &record(), Duration::from_secs(60)).await.unwrap();
        store.remove("a").await.unwrap();
        assert_eq!(store.load("a").await.unwrap(), None);
    }

    #[test]
    fn a_record_round_trips_through_json_and_back_to_a_state() {
        let text = serde_json::to_string(&record()).unwrap();
        let back: SessionRecord = serde_json::from_str(&text).unwrap();
        assert_eq!(back, record());
        let state = back.state().unwrap();
        assert_eq!(state.negotiated.revision, Revision::V2025_06_18);
        assert_eq!(
            (state.log_level, state.subscriptions.as_slice()),
            (LogLevel::Warning, ["note://1".to_owned()].as_slice())
        );
        assert_eq!(back.owner(), Some("alice"));
        let mut unknown = serde_json::to_value(record()).unwrap();
        unknown["protocolVersion"] = "1999-01-01".into();
        assert!(serde_json::from_value::<SessionRecord>(unknown).unwrap().state().is_none());
    }
}
