//! What a run of a handler ends with: why it produced no output, its panics caught, its time
//! limit, a request withdrawn meanwhile, and the cancellation owed when its future is dropped
//! unfinished.

use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::task::{Context as TaskContext, Poll};
use std::time::Duration;

use crate::context::input_round::Interrupt;
use crate::context::outlet::Outgoing;
use crate::context::{CancelToken, Context};

/// Why a handler produced no output.
#[derive(Debug, Clone)]
pub(crate) enum Failure {
    /// It panicked, with this message.
    Panicked(String),
    /// It did not finish within its time limit.
    TimedOut(Duration),
    /// It stopped to ask the client (2026-07-28): the request is answered with this instead.
    Interrupted(Interrupt),
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::Panicked(message) => write!(f, "panicked: {message}"),
            Failure::TimedOut(limit) => write!(f, "did not finish within {}", crate::util::duration::display(*limit)),
            Failure::Interrupted(_) => f.write_str("stopped to ask the client"),
        }
    }
}

/// The work of a handler that may be kept for a 2026-07-28 retry: boxed, its panics caught,
/// the handler's context current while it runs (for the log layer).
pub(crate) type Parked<T> = crate::util::BoxFuture<'static, Result<T, Failure>>;

/// `work` as [`Parked`] work of the handler holding `context`.
pub(super) fn parked<F>(context: &Context, work: F) -> Parked<F::Output>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    let work = crate::context::log_layer::REQUEST.scope(context.clone(), work);
    Box::pin(guarded(Box::pin(work)))
}

/// `work` within `limit`, when there is one: past it, the request's context (`token`) is
/// cancelled and the outcome is [`Failure::TimedOut`].
pub(super) async fn within_limit<T>(
    limit: Option<Duration>,
    token: &CancelToken,
    work: impl Future<Output = Result<T, Failure>>,
) -> Result<T, Failure> {
    match limit {
        None => work.await,
        Some(limit) => match tokio::time::timeout(limit, work).await {
            Ok(outcome) => outcome,
            Err(_) => {
                token.cancel();
                Err(Failure::TimedOut(limit))
            }
        },
    }
}

/// The response line for `outcome`, unless the client cancelled the request (`token`).
///
/// A request the client cancelled is not answered. The abort alone does not ensure it: a task
/// being polled when it comes runs on to the end of that poll, and the work may finish there
/// (the client's answer to its question arrived meanwhile, or its body blocked the task in
/// place). A time limit cancels the context too, and its answer goes out.
pub(super) fn answer_unless_withdrawn<T>(
    token: &CancelToken,
    outcome: Result<T, Failure>,
    finish: impl FnOnce(Result<T, Failure>) -> Outgoing,
) -> Option<Outgoing> {
    let withdrawn = token.is_cancelled() && !matches!(outcome, Err(Failure::TimedOut(_)));
    (!withdrawn).then(|| finish(outcome))
}

/// Cancels what it holds when dropped before it is disarmed: a request's context when the
/// future running it here is dropped before it answers (a [`CancelToken`]), or a kept
/// handler's context and those of the retries it served (a [`Context`]) when the future running
/// it is dropped before it answers or is kept again.
pub(super) struct CancelOnDrop<T: Cancel>(pub(super) Option<T>);

/// What [`CancelOnDrop`] can cancel.
pub(super) trait Cancel {
    fn cancel_now(&self);
}

impl Cancel for CancelToken {
    fn cancel_now(&self) {
        self.cancel();
    }
}

impl Cancel for Context {
    fn cancel_now(&self) {
        self.cancel_all();
    }
}

impl<T: Cancel> CancelOnDrop<T> {
    /// Nothing to cancel any more.
    pub(super) fn disarm(&mut self) {
        self.0 = None;
    }
}

impl<T: Cancel> Drop for CancelOnDrop<T> {
    fn drop(&mut self) {
        if let Some(held) = self.0.take() {
            held.cancel_now();
        }
    }
}

/// A panic's message, for the log and the error response.
pub(crate) fn panic_message(panic: Box<dyn std::any::Any + Send>) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "(no message)".to_owned())
}

/// Polls a future inside `catch_unwind`, so one failing handler answers its own request and
/// harms nothing else.
struct CatchUnwind<F>(F);

impl<F: Future + Unpin> Future for CatchUnwind<F> {
    type Output = Result<F::Output, Box<dyn std::any::Any + Send>>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<Self::Output> {
        let future = &mut self.0;
        match std::panic::catch_unwind(AssertUnwindSafe(|| Pin::new(future).poll(cx))) {
            Ok(Poll::Pending) => Poll::Pending,
            Ok(Poll::Ready(value)) => Poll::Ready(Ok(value)),
            Err(panic) => Poll::Ready(Err(panic)),
        }
    }
}

/// Runs a future, turning a panic inside it into [`Failure::Panicked`].
pub(crate) async fn guarded<F: Future + Unpin>(work: F) -> Result<F::Output, Failure> {
    CatchUnwind(work).await.map_err(|panic| Failure::Panicked(panic_message(panic)))
}
