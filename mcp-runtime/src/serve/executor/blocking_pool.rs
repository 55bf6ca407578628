//! A plain `fn` handler's body off its runtime's threads: where it runs when it has a time
//! limit to keep, on a current-thread runtime, or for a task (see the executor's `start`).

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context as TaskContext, Poll, Waker};
use std::time::{Duration, Instant};

use tokio::runtime::RuntimeFlavor;
use tokio::sync::oneshot;

use super::hot_thread;
use crate::context::slot::SlotLease;

/// How long the request's task waits, awake, for a body given to the hot thread before it
/// lets its runtime run other tasks: a quick body's answer is back within it, with no
/// wake-up of this thread; a slow one costs its runtime this much once.
const WAIT_AWAKE: Duration = Duration::from_micros(50);

/// A plain `fn` handler's work, run on another thread (on a current-thread runtime the hot
/// thread when it is free; else tokio's blocking pool), so that a body that blocks its thread
/// (a sleep, a synchronous database call, a `std::sync::Mutex` held elsewhere) never holds up
/// a worker: the connection's reading loop, `ping`, cancellations and every async handler go
/// on. Awaited by the request's task, which keeps the time limit and answers.
///
/// A thread cannot be stopped: dropped before it returns (its time limit passed, the request
/// was cancelled, the connection ended), this hands the request's slot over to the thread,
/// which frees it when it returns and its result is dropped. So the in-flight bound also bounds
/// the threads a client can keep busy.
pub(super) struct OnBlockingPool<T> {
    /// The body's output, or its panic.
    answer: oneshot::Receiver<std::thread::Result<T>>,
    /// Whether the first poll waits awake (the hot thread took the body, and another CPU can
    /// run it meanwhile).
    wait_awake: bool,
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
        let runtime = tokio::runtime::Handle::current();
        let one_thread = runtime.runtime_flavor() == RuntimeFlavor::CurrentThread;
        let (sender, answer) = oneshot::channel();
        // The body of a plain `fn` runs at the first poll, so one poll is all it takes; the
        // thread enters the runtime (for what the body spawns), and `block_on` covers a
        // future that waits.
        let job: hot_thread::Job = Box::new(move || {
            let _kept = kept;
            let _entered = runtime.enter();
            let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                let mut work = std::pin::pin!(work);
                match work.as_mut().poll(&mut TaskContext::from_waker(Waker::noop())) {
                    Poll::Ready(value) => value,
                    Poll::Pending => runtime.block_on(work),
                }
            }));
            let _ = sender.send(outcome);
        });
        // Only a current-thread runtime gives its bodies to the hot thread: there, the
        // request's task and the client's often share the one thread that would otherwise park
        // twice per call; a multi-threaded runtime keeps its other workers for that.
        let offered = if one_thread { hot_thread::offer(job) } else { Err(job) };
        let wait_awake = match offered {
            Ok(()) => hot_thread::spinning_pays(),
            Err(job) => {
                drop(tokio::task::spawn_blocking(job));
                false
            }
        };
        OnBlockingPool { answer, wait_awake, lease, handover }
    }
}

impl<T> Future for OnBlockingPool<T> {
    type Output = T;

    fn poll(mut self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<T> {
        let outcome = match std::mem::take(&mut self.wait_awake).then(|| waited_awake(&mut self.answer)).flatten() {
            Some(outcome) => outcome,
            None => match Pin::new(&mut self.answer).poll(cx) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(Ok(outcome)) => outcome,
                Poll::Ready(Err(_)) => Err(Box::new("the thread of a plain fn stopped before it answered") as _),
            },
        };
        // Answered, the slot stays with the request until its response is queued.
        self.lease = None;
        match outcome {
            Ok(value) => Poll::Ready(value),
            // Rethrown here, inside the request's `catch_unwind`, it answers as any panic does
            // (the panic hook already reported it on its own thread).
            Err(panic) => std::panic::resume_unwind(panic),
        }
    }
}

/// The body's outcome if it comes within [`WAIT_AWAKE`].
fn waited_awake<T>(answer: &mut oneshot::Receiver<T>) -> Option<T> {
    let until = Instant::now() + WAIT_AWAKE;
    loop {
        match answer.try_recv() {
            Ok(outcome) => return Some(outcome),
            Err(oneshot::error::TryRecvError::Empty) if Instant::now() < until => std::hint::spin_loop(),
            Err(_) => return None,
        }
    }
}

impl<T> Drop for OnBlockingPool<T> {
    fn drop(&mut self) {
        // Dropped before the body answered, the slot goes with the thread.
        if let Some(permit) = self.lease.as_ref().and_then(|lease| lease.take()) {
            let _ = self.handover.set(permit);
        }
    }
}
