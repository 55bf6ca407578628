//! How one request's work runs once it has its slot: a `Send` handler polled once where it
//! was read (answering with no task hand-off when ready), else as a task; a `local` one on the
//! local thread; within its time limit, its panics caught, its answer delivered once.

use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context as TaskContext, Poll, Waker};
use std::time::Duration;

use tokio::runtime::RuntimeFlavor;
use tokio::sync::oneshot;
use tracing::Instrument;

use super::blocking_pool::OnBlockingPool;
use super::in_place::InPlace;

use crate::context::asking::Interrupt;
use crate::context::outlet::Outgoing;
use crate::context::slot::SlotLease;
use crate::context::{CancelToken, Context};
use crate::declare::handler::HandlerFn;
use crate::declare::handler::{HandlerSpec, RunKind};
use crate::protocol::RequestId;
use crate::serve::reply::{ReplyTo, Started};
use crate::server::core::ServerCore;
use crate::server::local::{LocalJob, LocalThread};

use super::{Executor, Running};

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

/// The right to run one request, given to its handler with a slot already taken.
pub(crate) struct Start<'a> {
    pub(super) runner: Runner<'a>,
    pub(super) id: RequestId,
    pub(super) lease: Arc<SlotLease>,
    pub(super) reply_to: ReplyTo,
    pub(super) span: tracing::Span,
    pub(super) cancel: CancelToken,
}

/// Where a request's work runs once it does not answer at once.
pub(crate) enum Runner<'a> {
    /// As a task of its connection's executor, which can cancel it.
    Executor(&'a mut Executor),
    /// In the caller's own task (a 2026-07-28 request over HTTP, in its connection's task):
    /// the work comes back as [`Started::Here`], a future to await, and dropping it cancels
    /// the request.
    Here(&'a Arc<ServerCore>),
}

impl Runner<'_> {
    fn core(&self) -> &Arc<ServerCore> {
        match self {
            Runner::Executor(executor) => &executor.core,
            Runner::Here(core) => core,
        }
    }
}

impl<'a> Start<'a> {
    /// The right to run request `id` in the caller's task (see [`Runner::Here`]), holding
    /// `lease`; what it sends before its answer goes to `reply_to`.
    pub(crate) fn here(
        core: &'a Arc<ServerCore>,
        id: RequestId,
        lease: Arc<SlotLease>,
        reply_to: ReplyTo,
        span: tracing::Span,
        cancel: CancelToken,
    ) -> Self {
        Start { runner: Runner::Here(core), id, lease, reply_to, span, cancel }
    }
}

impl Start<'_> {
    /// Answers at once (an error found before any user code ran, or a ready result).
    pub(crate) fn reply(self, line: Outgoing) -> Started {
        self.reply_to.now(line, self.lease.take())
    }

    /// Calls `handler` with `input` where it belongs: a `Send` handler through
    /// [`run`](Self::run), a local one on the server's local thread, within the handler's
    /// time limit (or the server's). `finish` turns its output, or why there is none, into
    /// the response line. `context` is the request's context, current while the handler runs
    /// (for the log layer).
    pub(crate) fn call<I, O, Fin>(
        self,
        handler: &HandlerFn<I, O>,
        spec: HandlerSpec,
        context: &Context,
        input: I,
        finish: Fin,
    ) -> Started
    where
        I: Send + 'static,
        O: Send + 'static,
        Fin: FnOnce(Result<O, Failure>) -> Outgoing + Send + 'static,
    {
        let spec = HandlerSpec { timeout: spec.timeout.or(self.runner.core().config.default_timeout), ..spec };
        match handler {
            HandlerFn::Send(handler) => {
                let created = crate::context::log_layer::REQUEST
                    .sync_scope(context.clone(), || std::panic::catch_unwind(AssertUnwindSafe(|| handler(input))));
                match created {
                    Ok(work) => self.run(spec, context, work, finish),
                    Err(panic) => self.reply(finish(Err(Failure::Panicked(panic_message(panic))))),
                }
            }
            HandlerFn::Local(handler) => {
                let handler = Arc::clone(handler);
                self.run_local(spec.timeout, context.clone(), move || handler(input), finish)
            }
        }
    }

    /// Runs `work`, then `finish` turns its output, or why there is none, into the response
    /// line.
    ///
    /// An async handler's work is polled once here, inside the request's span, its context
    /// and `catch_unwind`; if it is ready, the response goes out with no task hand-off.
    /// Otherwise (and always for [`RunKind::Task`]) it runs as a task that holds the slot
    /// until the response is queued. A plain `fn`'s work ([`RunKind::Blocking`]) runs on the
    /// blocking pool, a task here waiting for it (see [`OnBlockingPool`]).
    pub(crate) fn run<F, T, Fin>(self, spec: HandlerSpec, context: &Context, mut work: F, finish: Fin) -> Started
    where
        F: Future<Output = T> + Send + Unpin + 'static,
        T: Send + 'static,
        Fin: FnOnce(Result<T, Failure>) -> Outgoing + Send + 'static,
    {
        if spec.kind == RunKind::Blocking {
            // Without a time limit, on a multi-threaded runtime, the body runs where its task
            // is, no hand-off, and a body that runs long gets another worker woken for the
            // connection (see `in_place`). A time limit must be kept while the body blocks,
            // and a current-thread runtime has no other thread: there, the body goes to the
            // blocking pool.
            let multi_thread = tokio::runtime::Handle::current().runtime_flavor() == RuntimeFlavor::MultiThread;
            if spec.timeout.is_none() && multi_thread {
                let work = crate::context::log_layer::REQUEST.scope(context.clone(), InPlace(work));
                return self.spawn(None, context, work, finish, Watcher::Task);
            }
            let work = crate::context::log_layer::REQUEST.scope(context.clone(), work).instrument(self.span.clone());
            let work = OnBlockingPool::start(work, Some(Arc::clone(&self.lease)));
            return self.spawn(spec.timeout, context, work, finish, Watcher::Task);
        }
        if spec.kind == RunKind::Async {
            let first = {
                let _entered = self.span.enter();
                let mut cx = TaskContext::from_waker(Waker::noop());
                crate::context::log_layer::REQUEST.sync_scope(context.clone(), || {
                    std::panic::catch_unwind(AssertUnwindSafe(|| Pin::new(&mut work).poll(&mut cx)))
                })
            };
            let failure = match first {
                Ok(Poll::Ready(value)) => return self.reply_to.now(finish(Ok(value)), self.lease.take()),
                Err(panic) => Some(Failure::Panicked(panic_message(panic))),
                // It stopped at once to ask the client: no need for a task.
                Ok(Poll::Pending) => context.take_interrupt().map(Failure::Interrupted),
            };
            if let Some(failure) = failure {
                return self.reply_to.now(finish(Err(failure)), self.lease.take());
            }
            // Still pending: a correct future registers the task's waker at its next poll.
        }
        let work = crate::context::log_layer::REQUEST.scope(context.clone(), work);
        self.spawn(spec.timeout, context, work, finish, Watcher::Task)
    }

    /// Runs the future `make` builds on the server's local thread (it need not be `Send`);
    /// a task here holds the slot and waits for its output. Cancelling the request, or its
    /// time limit, drops the local future too.
    fn run_local<M, F, T, Fin>(self, timeout: Option<Duration>, context: Context, make: M, finish: Fin) -> Started
    where
        M: FnOnce() -> F + Send + 'static,
        F: Future<Output = T> + Unpin + 'static,
        T: Send + 'static,
        Fin: FnOnce(Result<T, Failure>) -> Outgoing + Send + 'static,
    {
        let context_for_wait = context.clone();
        let answer = on_local_thread(&self.runner.core().local, context, make);
        let finish = move |outcome: Result<Result<T, Failure>, Failure>| finish(outcome.and_then(|inner| inner));
        // The local thread watches for the interrupt itself (see `on_local_thread`).
        self.spawn(timeout, &context_for_wait, answer, finish, Watcher::LocalThread)
    }

    /// Runs `work` as a task of its own that holds the slot until the response is queued (or,
    /// [`Runner::Here`], hands it back to await), within `timeout` if there is one (past it, the
    /// request's context is cancelled and the work dropped).
    fn spawn<F, T, Fin>(
        self,
        timeout: Option<Duration>,
        context: &Context,
        work: F,
        finish: Fin,
        watcher: Watcher,
    ) -> Started
    where
        F: Future<Output = T> + Send + 'static,
        T: Send + 'static,
        Fin: FnOnce(Result<T, Failure>) -> Outgoing + Send + 'static,
    {
        let Start { runner, id, lease, reply_to, span, cancel } = self;
        let token = cancel.clone();
        // Only a 2026-07-28 request that may ask the client can be interrupted (work on the
        // local thread is, there).
        let watched = watcher == Watcher::Task;
        let interruptible = (watched && context.can_interrupt()).then(|| context.clone());
        let answer = async move {
            // The work is dropped at the end of this block, before the slot is released
            // (a plain `fn` past its limit hands its slot over to its thread then).
            let outcome = {
                let work = std::pin::pin!(work);
                let limited = async {
                    match timeout {
                        None => guarded(work).await,
                        Some(limit) => match tokio::time::timeout(limit, guarded(work)).await {
                            Ok(outcome) => outcome,
                            Err(_) => {
                                token.cancel();
                                Err(Failure::TimedOut(limit))
                            }
                        },
                    }
                };
                match interruptible {
                    None => limited.await,
                    Some(context) => tokio::select! {
                        outcome = limited => outcome,
                        interrupt = context.interrupted() => Err(Failure::Interrupted(interrupt)),
                    },
                }
            };
            // A request the client cancelled is not answered. The abort alone does not
            // ensure it: a task being polled when it comes runs on to the end of that poll,
            // and the work may finish there (the client's answer to its question arrived
            // meanwhile, or its body blocked the task in place). A time limit cancels the
            // context too, and its answer goes out.
            let withdrawn = token.is_cancelled() && !matches!(outcome, Err(Failure::TimedOut(_)));
            (!withdrawn).then(|| finish(outcome))
        };
        match runner {
            Runner::Here(_) => {
                // Dropped before it answers (its client went away), it tells the request's
                // context, for work handed to other threads.
                let dropped = CancelOnDrop(Some(cancel));
                Started::Here(Box::pin(
                    async move {
                        // The whole guard moves in (not only its field): it drops with the future.
                        let mut dropped = dropped;
                        let line = answer.await;
                        lease.release();
                        dropped.disarm();
                        line
                    }
                    .instrument(span),
                ))
            }
            Runner::Executor(executor) => {
                let out = executor.out.clone();
                let guard = executor.drain_guard();
                // Boxed to one type: the runtime's task code is compiled once, not once per
                // kind of handler (a smaller, faster-building crate; one allocation per task more).
                let task: Pin<Box<dyn Future<Output = ()> + Send>> = Box::pin(
                    async move {
                        let _guard = guard;
                        if let Some(line) = answer.await {
                            reply_to.deliver(&out, line).await;
                        }
                        lease.release();
                    }
                    .instrument(span),
                );
                let task = tokio::spawn(task);
                executor.remember(id, Running { abort: task.abort_handle(), cancel });
                Started::Later
            }
        }
    }
}

/// Cancels a request's context when the future running it here is dropped before it answers.
struct CancelOnDrop(Option<CancelToken>);

impl CancelOnDrop {
    /// The request answered: nothing to cancel.
    fn disarm(&mut self) {
        self.0 = None;
    }
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        if let Some(cancel) = self.0.take() {
            cancel.cancel();
        }
    }
}

/// Runs the future `make` builds on the local thread (it need not be `Send`): the returned
/// future waits for its output, and dropping it drops the local future too.
fn on_local_thread<M, F, T>(
    local: &LocalThread,
    context: Context,
    make: M,
) -> impl Future<Output = Result<T, Failure>> + Send + 'static
where
    M: FnOnce() -> F + Send + 'static,
    F: Future<Output = T> + Unpin + 'static,
    T: Send + 'static,
{
    let (tx, rx) = oneshot::channel::<Result<T, Failure>>();
    let job: LocalJob = Box::new(move || {
        Box::pin(async move {
            let mut tx = tx;
            let made = crate::context::log_layer::REQUEST
                .sync_scope(context.clone(), || std::panic::catch_unwind(AssertUnwindSafe(make)));
            // A 2026-07-28 handler stopped to ask its client is dropped here, on its thread,
            // before the request is answered: dropped later, what it holds (a lock) would still
            // be held when the client's retry runs it again on this thread, which would wait
            // for it forever.
            // (A request that cannot be interrupted is never told.)
            let watching = context.clone();
            let outcome = match made {
                Ok(work) => tokio::select! {
                    outcome = crate::context::log_layer::REQUEST.scope(context, guarded(work)) => outcome,
                    // The request was cancelled, timed out, or the connection ended.
                    () = tx.closed() => return,
                    interrupt = watching.interrupted() => Err(Failure::Interrupted(interrupt)),
                },
                Err(panic) => Err(Failure::Panicked(panic_message(panic))),
            };
            let _ = tx.send(outcome);
        })
    });
    if !local.spawn(job) {
        tracing::error!("a local handler could not run: its thread is not available");
    }
    async move {
        rx.await.unwrap_or_else(|_| {
            Err(Failure::Panicked("the thread of local handlers stopped before answering".to_owned()))
        })
    }
}

/// A handler's work run detached from any request (a task's): an async handler as it is, a
/// plain `fn` on the blocking pool, a `local` one on the local thread; within `timeout` when
/// there is one; its panics caught. `context` is current while it runs (for the log layer).
pub(crate) fn detached<I, O>(
    local: &LocalThread,
    handler: &HandlerFn<I, O>,
    spec: HandlerSpec,
    context: &Context,
    input: I,
) -> crate::util::BoxFuture<'static, Result<O, Failure>>
where
    I: Send + 'static,
    O: Send + 'static,
{
    let work: crate::util::BoxFuture<'static, Result<O, Failure>> = match handler {
        HandlerFn::Send(handler) => {
            let created = crate::context::log_layer::REQUEST
                .sync_scope(context.clone(), || std::panic::catch_unwind(AssertUnwindSafe(|| handler(input))));
            match created {
                Err(panic) => return Box::pin(std::future::ready(Err(Failure::Panicked(panic_message(panic))))),
                Ok(work) => {
                    let work = crate::context::log_layer::REQUEST.scope(context.clone(), work);
                    match spec.kind {
                        RunKind::Blocking => Box::pin(guarded(Box::pin(OnBlockingPool::start(work, None)))),
                        RunKind::Async | RunKind::Task => Box::pin(guarded(Box::pin(work))),
                    }
                }
            }
        }
        HandlerFn::Local(handler) => {
            let handler = Arc::clone(handler);
            Box::pin(on_local_thread(local, context.clone(), move || handler(input)))
        }
    };
    within(spec.timeout, work)
}

/// `work` within `limit`, when there is one: past it, [`Failure::TimedOut`].
pub(crate) fn within<T: Send + 'static>(
    limit: Option<Duration>,
    work: crate::util::BoxFuture<'static, Result<T, Failure>>,
) -> crate::util::BoxFuture<'static, Result<T, Failure>> {
    match limit {
        None => work,
        Some(limit) => {
            Box::pin(async move { tokio::time::timeout(limit, work).await.unwrap_or(Err(Failure::TimedOut(limit))) })
        }
    }
}

/// Who watches for a 2026-07-28 interrupt (the handler stopped to ask its client) while a
/// task's work runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Watcher {
    /// The task, which drops the work and answers.
    Task,
    /// The local thread, which drops the handler there before the task answers.
    LocalThread,
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
