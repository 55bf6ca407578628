//! The requests a connection is running, so that `notifications/cancelled` can stop one.
//!
//! A cancelled request's task is aborted (its handler's future is dropped at its next
//! `.await`) and nothing is sent for it, as the protocol asks. A request still waiting for a
//! free slot is marked, and dropped instead of started. A cancellation for anything else (an
//! unknown or finished request) is ignored, so a later request may reuse the id.

use std::collections::HashMap;
use std::sync::Mutex;

use tokio::task::AbortHandle;

use crate::protocol::RequestId;

#[derive(Debug, Default)]
pub(crate) struct InFlight {
    running: Mutex<HashMap<RequestId, AbortHandle>>,
    /// Requests waiting for a slot, and whether they were cancelled meanwhile.
    waiting: Mutex<HashMap<RequestId, bool>>,
}

impl InFlight {
    /// Request `id` waits for a slot.
    pub(crate) fn wait(&self, id: &RequestId) {
        self.waiting.lock().unwrap_or_else(|e| e.into_inner()).insert(id.clone(), false);
    }

    /// Starts `task` for request `id` (if any) unless it was cancelled while it waited: the
    /// request is then dropped and `false` returned.
    pub(crate) fn start<F>(&self, id: Option<&RequestId>, task: F) -> bool
    where
        F: std::future::Future<Output = ()> + Send + 'static,
    {
        let Some(id) = id else {
            tokio::spawn(task);
            return true;
        };
        if self.waiting.lock().unwrap_or_else(|e| e.into_inner()).remove(id) == Some(true) {
            return false;
        }
        // The task removes itself when done, which needs this lock: it cannot do so before
        // it was inserted.
        let mut running = self.running.lock().unwrap_or_else(|e| e.into_inner());
        let handle = tokio::spawn(task);
        running.insert(id.clone(), handle.abort_handle());
        true
    }

    /// Request `id` finished.
    pub(crate) fn finish(&self, id: &RequestId) {
        self.running.lock().unwrap_or_else(|e| e.into_inner()).remove(id);
    }

    /// `notifications/cancelled` for request `id`.
    pub(crate) fn cancel(&self, id: &RequestId) {
        if let Some(handle) = self.running.lock().unwrap_or_else(|e| e.into_inner()).remove(id) {
            handle.abort();
        } else if let Some(cancelled) = self.waiting.lock().unwrap_or_else(|e| e.into_inner()).get_mut(id) {
            *cancelled = true;
        }
    }
}
