//! The requests a connection is running, so that `notifications/cancelled` can stop one.
//!
//! A cancelled request's task is aborted (its handler's future is dropped at its next
//! `.await`) and nothing is sent for it, as the protocol asks. A cancellation that arrives
//! before its request started (it waited for a free slot) is remembered, and the request is
//! then dropped instead of started.

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;

use tokio::task::AbortHandle;

use crate::protocol::RequestId;

/// How many early cancellations are remembered; older ones are forgotten.
const EARLY_CANCELS: usize = 256;

#[derive(Debug, Default)]
pub(crate) struct InFlight {
    running: Mutex<HashMap<RequestId, AbortHandle>>,
    early: Mutex<VecDeque<RequestId>>,
}

impl InFlight {
    /// Starts `task` for request `id` (if any) unless it was cancelled already: the request is
    /// then dropped and `false` returned.
    pub(crate) fn start<F>(&self, id: Option<&RequestId>, task: F) -> bool
    where
        F: std::future::Future<Output = ()> + Send + 'static,
    {
        let Some(id) = id else {
            tokio::spawn(task);
            return true;
        };
        {
            let mut early = self.early.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(at) = early.iter().position(|e| e == id) {
                early.remove(at);
                return false;
            }
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
        match self.running.lock().unwrap_or_else(|e| e.into_inner()).remove(id) {
            Some(handle) => handle.abort(),
            None => {
                let mut early = self.early.lock().unwrap_or_else(|e| e.into_inner());
                if early.len() == EARLY_CANCELS {
                    early.pop_front();
                }
                early.push_back(id.clone());
            }
        }
    }
}
