//! A plain `fn` handler's body on tokio's blocking pool: where it runs when it has a time limit
//! to keep, on a current-thread runtime, or for a task (see the executor's `start`).

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context as TaskContext, Poll, Waker};

use crate::context::slot::SlotLease;

/// A plain `fn` handler's work, run on tokio's blocking pool, so that a body that blocks its
/// thread (a sleep, a synchronous database call, a `std::sync::Mutex` held elsewhere) never
/// holds up a worker: the connection's reading loop, `ping`, cancellations and every async
/// handler go on. Awaited by the request's task, which keeps the time limit and answers.
///
/// A thread cannot be stopped: dropped before it returns (its time limit passed, the request
/// was cancelled, the connection ended), this hands the request's slot over to the thread,
/// which frees it when it returns and its result is dropped. So the in-flight bound also bounds
/// the threads a client can keep busy.
pub(super) struct OnBlockingPool<T> {
    thread: tokio::task::JoinHandle<T>,
    /// The request's slot (`None` for a task's work, which holds none).
    lease: Option<Arc<SlotLease>>,
    /// Where the slot goes when this is dropped early; the thread holds the other reference,
    /// so the slot is free once both are gone.
    handover: Arc<std::sync::OnceLock<tokio::sync::OwnedSemaphorePermit>>,
}

impl<T: Send + 'static> OnBlockingPool<T> {
    pub(super) fn start<F: Future<Output = T> + Send + 'static>(work: F, lease: Option<Arc<SlotLease>>) -> Self {
        let handover = Arc::new(std::sync::OnceLock::new());
        let kept = Arc::clone(&handover);
        // The body of a plain `fn` runs at the first poll, so one poll is all it takes (the
        // blocking pool's threads are inside the runtime already); `block_on` covers a
        // future that waits.
        let thread = tokio::task::spawn_blocking(move || {
            let _kept = kept;
            let mut work = std::pin::pin!(work);
            match work.as_mut().poll(&mut TaskContext::from_waker(Waker::noop())) {
                Poll::Ready(value) => value,
                Poll::Pending => tokio::runtime::Handle::current().block_on(work),
            }
        });
        OnBlockingPool { thread, lease, handover }
    }
}

impl<T> Future for OnBlockingPool<T> {
    type Output = T;

    fn poll(mut self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<T> {
        match Pin::new(&mut self.thread).poll(cx) {
            Poll::Pending => Poll::Pending,
            Poll::Ready(Ok(value)) => Poll::Ready(value),
            // Rethrown here, inside the request's `catch_unwind`, it answers as any panic does
            // (the panic hook already reported it on its own thread).
            Poll::Ready(Err(error)) => match error.try_into_panic() {
                Ok(panic) => std::panic::resume_unwind(panic),
                Err(_) => std::panic::resume_unwind(Box::new("the blocking pool stopped before the handler ran")),
            },
        }
    }
}

impl<T> Drop for OnBlockingPool<T> {
    fn drop(&mut self) {
        if !self.thread.is_finished()
            && let Some(permit) = self.lease.as_ref().and_then(|lease| lease.take())
        {
            let _ = self.handover.set(permit);
        }
    }
}
