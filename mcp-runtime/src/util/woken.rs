//! Futures polled only once they asked to be.
//!
//! A `select!` polls every branch each time it runs. The connection loop runs it once per
//! message, and three of its branches wait for what rarely happens (the shutdown signal, a
//! change event, the output closing), yet polling them cost more than a tenth of a small
//! request's work (the signal alone re-arms two watch channels). [`WhenWoken`] polls its
//! future the first time, then only after that future's waker was called.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll, Wake, Waker};

/// `future`, polled only when it was woken since its last poll (and on the first).
pub(crate) struct WhenWoken<F> {
    future: F,
    signal: Arc<Signal>,
}

/// What the wrapped future's waker sets, and the task that polls it.
struct Signal {
    woken: AtomicBool,
    /// The task to wake: the one that polled last.
    task: Mutex<Option<Waker>>,
}

impl Wake for Signal {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.woken.store(true, Ordering::Release);
        // Only ever held to swap or read the waker: a poisoned lock still holds a valid one.
        if let Some(task) = self.task.lock().unwrap_or_else(PoisonError::into_inner).as_ref() {
            task.wake_by_ref();
        }
    }
}

impl<F> WhenWoken<F> {
    pub(crate) fn new(future: F) -> Self {
        WhenWoken { future, signal: Arc::new(Signal { woken: AtomicBool::new(true), task: Mutex::new(None) }) }
    }
}

impl<F: Future + Unpin> Future for WhenWoken<F> {
    type Output = F::Output;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        {
            let mut task = self.signal.task.lock().unwrap_or_else(PoisonError::into_inner);
            if !task.as_ref().is_some_and(|task| task.will_wake(cx.waker())) {
                *task = Some(cx.waker().clone());
            }
        }
        // Set before the inner poll, a wake that comes during it is not lost: it is seen next time.
        if !self.signal.woken.swap(false, Ordering::AcqRel) {
            return Poll::Pending;
        }
        let waker = Waker::from(Arc::clone(&self.signal));
        Pin::new(&mut self.future).poll(&mut Context::from_waker(&waker))
    }
}

#[cfg(test)]
mod tests {
    use std::task::Poll;

    use super::*;

    #[tokio::test]
    async fn a_future_is_polled_again_only_after_its_waker_was_called() {
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<u8>();
        let polls = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let counted = Arc::clone(&polls);
        let mut gated = WhenWoken::new(Box::pin(std::future::poll_fn(move |cx| {
            counted.fetch_add(1, Ordering::Relaxed);
            rx.poll_recv(cx)
        })));
        let mut cx = Context::from_waker(Waker::noop());
        // First poll goes through; the next ones wait for a wake-up.
        assert!(Pin::new(&mut gated).poll(&mut cx).is_pending());
        assert!(Pin::new(&mut gated).poll(&mut cx).is_pending());
        assert!(Pin::new(&mut gated).poll(&mut cx).is_pending());
        assert_eq!(polls.load(Ordering::Relaxed), 1);
        // A message wakes it: the next poll reaches the future, which is ready.
        tx.send(7).unwrap();
        assert_eq!(Pin::new(&mut gated).poll(&mut cx), Poll::Ready(Some(7)));
        assert_eq!(polls.load(Ordering::Relaxed), 2);
    }

    #[tokio::test]
    async fn the_task_that_waits_is_woken() {
        let (tx, rx) = tokio::sync::oneshot::channel::<u8>();
        let waiting = tokio::spawn(WhenWoken::new(rx));
        tokio::task::yield_now().await;
        tx.send(3).unwrap();
        assert_eq!(waiting.await.unwrap(), Ok(3));
    }
}
