//! A request's in-flight slot, as its handler holds it: the executor hands it over with the
//! request, and a handler waiting for the client gives it back meanwhile (so that a question
//! the client takes long to answer does not hold up the connection's other requests).

use std::sync::Arc;

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// A request's in-flight slot, which its handler gives back while it waits for the client and
/// takes again once answered.
#[derive(Debug)]
pub(crate) struct SlotLease {
    slots: Arc<Semaphore>,
    permit: std::sync::Mutex<Option<OwnedSemaphorePermit>>,
}

impl SlotLease {
    pub(crate) fn new(slots: Arc<Semaphore>, permit: OwnedSemaphorePermit) -> Arc<Self> {
        Arc::new(SlotLease { slots, permit: std::sync::Mutex::new(Some(permit)) })
    }

    pub(crate) fn take(&self) -> Option<OwnedSemaphorePermit> {
        self.permit.lock().unwrap_or_else(|e| e.into_inner()).take()
    }

    /// Gives the slot back (a no-op when it is not held).
    pub(crate) fn release(&self) {
        drop(self.take());
    }

    /// Takes a slot again after [`release`](Self::release), waiting for one to be free.
    pub(crate) async fn reacquire(&self) {
        if self.permit.lock().unwrap_or_else(|e| e.into_inner()).is_some() {
            return;
        }
        if let Ok(permit) = Arc::clone(&self.slots).acquire_owned().await {
            *self.permit.lock().unwrap_or_else(|e| e.into_inner()) = Some(permit);
        }
    }
}
