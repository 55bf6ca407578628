//! Sessions end on their own: when unused for the idle timeout, and when another server of
//! the change bus ended them.

use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::broadcast;

use super::sessions::App;

/// Stops serving the sessions ended on another server of the change bus (or on this one: it
/// already forgot them).
pub(super) fn forget_ended_sessions(app: std::sync::Weak<App>, mut ended: broadcast::Receiver<Arc<str>>) {
    tokio::spawn(async move {
        loop {
            let session = match ended.recv().await {
                Ok(session) => session,
                Err(broadcast::error::RecvError::Lagged(_)) => continue,
                Err(broadcast::error::RecvError::Closed) => return,
            };
            let Some(app) = app.upgrade() else { return };
            app.end_session(&session);
        }
    });
}

/// Hands each client message another server could not place to this server's loop of its
/// session, if it has one; a loop that cannot place it either drops it.
pub(super) fn take_forwarded_messages(
    app: std::sync::Weak<App>,
    mut messages: broadcast::Receiver<(Arc<str>, Arc<str>)>,
) {
    tokio::spawn(async move {
        loop {
            let (session, message) = match messages.recv().await {
                Ok(forwarded) => forwarded,
                Err(broadcast::error::RecvError::Lagged(missed)) => {
                    tracing::warn!(missed, "client messages from other servers were missed");
                    continue;
                }
                Err(broadcast::error::RecvError::Closed) => return,
            };
            let Some(app) = app.upgrade() else { return };
            let target = app.sessions.lock().unwrap_or_else(|e| e.into_inner()).get(&*session).cloned();
            if let Some(target) = target {
                let _ = target
                    .inbound
                    .send(crate::transport::connection::Frame::Forwarded(message.as_bytes().to_vec()))
                    .await;
            }
        }
    });
}

/// Ends sessions unused for `idle`, checking every so often while the endpoint exists; their
/// request streams' events are forgotten (not their standalone stream's: another instance
/// sharing the event store may still serve the session).
pub(super) fn expire_idle_sessions(app: std::sync::Weak<App>, idle: Duration) {
    let every = (idle / 2).clamp(Duration::from_millis(50), Duration::from_secs(60));
    tokio::spawn(async move {
        loop {
            tokio::time::sleep(every).await;
            let Some(app) = app.upgrade() else { return };
            let now = Instant::now();
            let mut expired = Vec::new();
            app.sessions.lock().unwrap_or_else(|e| e.into_inner()).retain(|_, session| {
                let live = now.duration_since(*session.used.lock().unwrap_or_else(|e| e.into_inner())) < idle;
                if !live {
                    expired.push(Arc::clone(session));
                }
                live
            });
            for session in expired {
                app.forget_streams(&session, false);
            }
        }
    });
}
