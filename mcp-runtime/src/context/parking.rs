//! Handlers kept waiting for a 2026-07-28 client's retry.
//!
//! A 2026-07-28 handler that asks its client stops there: the request is answered with an
//! input-required result and the client retries with the answers. Rather than run the handler
//! again from the start (repeating whatever it did before the question), the instance keeps the
//! stopped handler here under a ticket sealed into the `requestState`; a retry that reaches
//! this instance in time takes it back and the handler goes on from its question. A retry
//! that lands on another instance, or comes after the handler's window, or finds the table
//! was full, runs the handler again from the start, as before.

use std::any::Any;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::context::Context;
use crate::context::request_state::RequestState;

/// How many stopped handlers a server keeps at once unless configured.
pub(crate) const DEFAULT_LIMIT: usize = 256;

/// How long a stopped handler is kept for its retry unless configured.
pub(crate) const DEFAULT_WINDOW: Duration = Duration::from_secs(5 * 60);

/// The stopped handlers of one server, by ticket.
#[derive(Debug)]
pub(crate) struct Parking {
    kept: Mutex<HashMap<u64, Kept>>,
    next_ticket: AtomicU64,
    limit: usize,
    window: Duration,
}

/// A stopped handler: its work (a boxed future of the handler's output, erased), the request
/// it belongs to and the context it holds.
struct Kept {
    request: RequestState,
    context: Context,
    work: Box<dyn Any + Send>,
}

impl std::fmt::Debug for Kept {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Kept").field("request", &self.request).finish_non_exhaustive()
    }
}

/// A handler taken back for its retry.
pub(crate) struct Resumed<W> {
    /// The context the handler holds (the first request's).
    pub(crate) context: Context,
    /// Its work, where it stopped.
    pub(crate) work: W,
}

impl Parking {
    /// A table keeping at most `limit` handlers (none: every retry runs its handler again),
    /// each for `window`.
    pub(crate) fn new(limit: usize, window: Duration) -> Self {
        // Tickets start at a random point: a state sealed by another instance sharing the key
        // names a ticket this one is unlikely to hold (and the request is checked anyway).
        let mut seed = [0u8; 8];
        let _ = getrandom::fill(&mut seed);
        Parking {
            kept: Mutex::new(HashMap::new()),
            next_ticket: AtomicU64::new(u64::from_le_bytes(seed)),
            limit,
            window,
        }
    }

    /// Whether handlers are kept at all.
    pub(crate) fn keeps(&self) -> bool {
        self.limit > 0 && !self.window.is_zero()
    }

    /// A ticket for a handler about to stop.
    pub(crate) fn ticket(&self) -> u64 {
        self.next_ticket.fetch_add(1, Ordering::Relaxed)
    }

    /// Keeps `work` of the handler holding `context`, stopped for the request `request`, under
    /// `ticket` for the window; `false` (and `work` dropped) when the table is full. Past the
    /// window it is dropped and its context cancelled (for work it handed elsewhere).
    pub(crate) fn keep<W: Send + 'static>(
        self: &Arc<Self>,
        ticket: u64,
        request: RequestState,
        context: Context,
        work: W,
    ) -> bool {
        {
            let mut kept = self.lock();
            if kept.len() >= self.limit {
                tracing::debug!("no room to keep a stopped handler: its retry runs it again");
                return false;
            }
            kept.insert(ticket, Kept { request, context, work: Box::new(work) });
        }
        let parking = Arc::downgrade(self);
        let window = self.window;
        tokio::spawn(async move {
            tokio::time::sleep(window).await;
            let expired = parking.upgrade().and_then(|parking| parking.lock().remove(&ticket));
            if let Some(expired) = expired {
                expired.context.cancel_all();
            }
        });
        true
    }

    /// Takes back the handler kept under `ticket` for the request `request`, if this table
    /// holds it and its work is a `W`.
    pub(crate) fn take<W: 'static>(&self, ticket: u64, request: &RequestState) -> Option<Resumed<W>> {
        let mut kept = self.lock();
        if !kept.get(&ticket).is_some_and(|k| k.request.same_request(request) && k.work.is::<W>()) {
            return None;
        }
        let Kept { context, work, .. } = kept.remove(&ticket)?;
        let work = *work.downcast::<W>().ok()?;
        Some(Resumed { context, work })
    }

    /// Drops the kept handlers whose context `ended` says can no longer be served (their
    /// connection ended), cancelling their contexts.
    pub(crate) fn release(&self, ended: impl Fn(&Context) -> bool) {
        let released: Vec<Kept> =
            self.lock().extract_if(|_, kept| ended(&kept.context)).map(|(_, kept)| kept).collect();
        // Dropped outside the lock: a handler's drop may do anything.
        for kept in released {
            kept.context.cancel_all();
        }
    }

    /// How many handlers are kept now.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.lock().len()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<u64, Kept>> {
        crate::util::lock(&self.kept)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_kept_handler_is_taken_once_by_its_own_request_and_dropped_after_its_window() {
        let parking = Arc::new(Parking::new(2, Duration::from_millis(50)));
        let request = RequestState::for_request("tools/call", None, None);
        let other = RequestState::for_request("prompts/get", None, None);
        let context = Context::detached();
        let ticket = parking.ticket();
        assert!(parking.keep(ticket, request.clone(), context.clone(), 7_u32));
        // Another request, another type of work, another ticket: not taken.
        assert!(parking.take::<u32>(ticket, &other).is_none());
        assert!(parking.take::<u64>(ticket, &request).is_none());
        assert!(parking.take::<u32>(ticket + 1, &request).is_none());
        assert_eq!(parking.take::<u32>(ticket, &request).map(|resumed| resumed.work), Some(7));
        assert!(parking.take::<u32>(ticket, &request).is_none(), "taken once");

        // Full: the third is refused.
        let (one, two) = (Context::detached(), Context::detached());
        assert!(parking.keep(1, request.clone(), one.clone(), 1_u32));
        assert!(parking.keep(2, request.clone(), two.clone(), 2_u32));
        assert!(!parking.keep(3, request.clone(), context.clone(), 3_u32));
        // Past the window, each is dropped (then its context cancelled).
        let expired = tokio::time::timeout(Duration::from_secs(10), async {
            one.cancelled().await;
            two.cancelled().await;
        });
        assert!(expired.await.is_ok(), "the kept handlers' window passed");
        assert_eq!(parking.len(), 0);
        assert!(!context.is_cancelled(), "the one taken back is not the table's to cancel");
    }

    #[test]
    fn a_table_of_no_room_or_no_time_keeps_nothing() {
        assert!(!Parking::new(0, DEFAULT_WINDOW).keeps());
        assert!(!Parking::new(DEFAULT_LIMIT, Duration::ZERO).keeps());
        assert!(Parking::new(DEFAULT_LIMIT, DEFAULT_WINDOW).keeps());
    }
}
