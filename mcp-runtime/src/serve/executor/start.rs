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

use crate::context::input_round::Interrupt;
use crate::context::outlet::Outgoing;
use crate::context::slot::SlotLease;
use crate::context::{CancelToken, Context};
use crate::declare::handler::HandlerFn;
use crate::declare::handler::{HandlerSpec, RunKind};
use crate::protocol::RequestId;
use crate::serve::reply::{ReplyTo, Started};
use crate::server::core::ServerCore;
use crate::server::local::{LocalJob, LocalThread};

use super::outcome::{
    CancelOnDrop, Failure, Parked, answer_unless_withdrawn, guarded, panic_message, parked, within_limit,
};
use super::{Executor, Running};

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
                // A 2026-07-28 retry whose handler was kept for it goes on with that handler;
                // otherwise the handler run here may be kept when it stops to ask.
                if spec.kind == RunKind::Async {
                    let parking = &self.runner.core().parking;
                    if let Some(kept) = context.take_kept::<Parked<O>>(parking) {
                        return self.spawn_parked(spec.timeout, &kept.context, kept.work, finish);
                    }
                    context.may_keep_in(parking);
                }
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
    /// blocking pool or a thread kept awake for it, a task here waiting for it (see
    /// [`OnBlockingPool`]).
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
            // and a current-thread runtime has no other thread: there, the body goes to another
            // thread (see `OnBlockingPool`).
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
                Ok(Poll::Pending) => context.take_interrupt().map(Failure::Interrupted),
            };
            if let Some(failure) = failure {
                // It stopped at once to ask the client: no need for a task (it is kept for the
                // retry when it can be).
                if matches!(failure, Failure::Interrupted(Interrupt::InputRequired { .. })) && context.may_be_kept() {
                    context.keep_stopped(parked(context, work));
                }
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
        // Only a 2026-07-28 request that may ask the client can be interrupted (work on the
        // local thread is, there); an async handler's work is boxed, to be kept for the retry.
        let interruptible = watcher == Watcher::Task && context.can_interrupt();
        if interruptible && context.may_be_kept() {
            return self.spawn_parked(timeout, context, parked(context, work), finish);
        }
        let interruptible = interruptible.then(|| context.clone());
        let token = self.cancel.clone();
        let answer = move || async move {
            // The work is dropped at the end of this block, before the slot is released
            // (a plain `fn` past its limit hands its slot over to its thread then).
            let outcome = {
                let work = std::pin::pin!(work);
                let limited = within_limit(timeout, &token, guarded(work));
                match interruptible {
                    None => limited.await,
                    Some(context) => tokio::select! {
                        outcome = limited => outcome,
                        interrupt = context.interrupted() => Err(Failure::Interrupted(interrupt)),
                    },
                }
            };
            answer_unless_withdrawn(&token, outcome, finish)
        };
        self.launch(answer)
    }

    /// Runs the work of a handler that may stop to ask its 2026-07-28 client, `context` being
    /// the context it holds (the first request's, when it was kept for this retry): it is
    /// kept for the client's retry when it stops, else dropped with the request.
    fn spawn_parked<T, Fin>(self, timeout: Option<Duration>, context: &Context, work: Parked<T>, finish: Fin) -> Started
    where
        T: Send + 'static,
        Fin: FnOnce(Result<T, Failure>) -> Outgoing + Send + 'static,
    {
        let token = self.cancel.clone();
        let context = context.clone();
        let answer = move || async move {
            let mut work = work;
            // Dropped unfinished (the request cancelled, timed out, its client gone), the
            // handler's own context and the retries it served are cancelled: a kept handler's
            // context is not this request's.
            let mut dropped = CancelOnDrop(Some(context.clone()));
            let outcome = tokio::select! {
                outcome = within_limit(timeout, &token, &mut work) => outcome,
                interrupt = context.interrupted() => Err(Failure::Interrupted(interrupt)),
            };
            let kept = matches!(outcome, Err(Failure::Interrupted(Interrupt::InputRequired { .. })))
                && context.keep_stopped(work);
            if kept || !token.is_cancelled() {
                dropped.disarm();
            }
            answer_unless_withdrawn(&token, outcome, finish)
        };
        self.launch(answer)
    }

    /// Runs the future `answer` makes (the request's work, then its response line unless it
    /// has none) where the runner says: as a task of the executor that delivers the line, or
    /// handed back to await here.
    ///
    /// The future is made inside the task's own future, not moved into it: a future moved in
    /// and then awaited is stored twice (as what was captured, and as what is awaited), which
    /// took the task past the size the allocator serves from its per-thread cache.
    fn launch<A, F>(self, answer: A) -> Started
    where
        A: FnOnce() -> F + Send + 'static,
        F: Future<Output = Option<Outgoing>> + Send + 'static,
    {
        let Start { runner, id, lease, reply_to, span, cancel } = self;
        match runner {
            Runner::Here(_) => {
                // Dropped before it answers (its client went away), it tells the request's
                // context, for work handed to other threads.
                let dropped = CancelOnDrop(Some(cancel));
                Started::Here(Box::pin(
                    async move {
                        // The whole guard moves in (not only its field): it drops with the future.
                        let mut dropped = dropped;
                        let line = answer().await;
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
                        if let Some(line) = answer().await {
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
/// plain `fn` on another thread (see [`OnBlockingPool`]), a `local` one on the local thread;
/// within `timeout` when there is one; its panics caught. `context` is current while it runs (for the log layer).
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
