//! One connection's executor: where every request's work runs, whatever the transport.
//!
//! It owns the in-flight bound, the look-ahead of requests waiting for a slot, cancellation,
//! panic isolation and the drain at shutdown:
//!
//! - A request that runs user code takes a slot (a semaphore permit) before it starts and
//!   holds it until its response is in the output queue (a batch member: in its batch's
//!   buffer). A client that stops reading fills the queue, the slots stay taken, the
//!   look-ahead fills and the transport stops reading: memory stays bounded.
//! - An async handler is polled once where the request was read; ready, it answers with no
//!   task hand-off. Still pending, or a plain `fn` handler, it runs as a task of its own (so a
//!   slow one cannot stall `ping` or cancellations). The request's future is the handler's one
//!   box; nothing here boxes it again.
//! - The map from request ids to running tasks belongs to the reading loop: no lock, and an
//!   entry exists before the task can finish.

use std::collections::{HashMap, VecDeque};
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context as TaskContext, Poll, Waker};
use std::time::Duration;

use tokio::sync::{Notify, OwnedSemaphorePermit, Semaphore, mpsc, oneshot};
use tokio::task::AbortHandle;
use tracing::Instrument;

use crate::context::asking::{Interrupt, PendingRequests};
use crate::context::outlet::{Outgoing, Outlet};
use crate::context::slot::SlotLease;
use crate::context::{CancelToken, Context, LogLimiter};
use crate::declare::handler::HandlerFn;
use crate::declare::handler::{HandlerSpec, RunKind};
use crate::protocol::RequestId;
use crate::serve::reply::{Reply, ReplyTo, Started};
use crate::serve::request::{CallLink, Request};
use crate::server::core::ServerCore;
use crate::server::local::LocalJob;

/// Requests that may wait for a free slot while reading goes on (so notifications, cancels
/// and `ping` keep flowing); once this many wait, the transport stops reading.
pub(crate) const LOOK_AHEAD: usize = 16;

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

/// What runs a method's user code, given the request and a slot to run it in (the route
/// table's `Work` rows).
pub(crate) type WorkFn = fn(&Request<'_>, Start<'_>) -> Started;

/// Keeps the drain waiting while it lives (one per task and per open batch).
#[derive(Debug)]
pub(crate) struct DrainGuard(Arc<DrainCount>);

/// How many [`DrainGuard`]s live; the last one to go wakes the drain. (A counter and a
/// `Notify`: a few dozen bytes per connection, where a channel would take half a kilobyte.)
#[derive(Debug, Default)]
struct DrainCount {
    live: AtomicUsize,
    none_left: Notify,
}

impl DrainGuard {
    fn new(count: &Arc<DrainCount>) -> Self {
        count.live.fetch_add(1, Ordering::AcqRel);
        DrainGuard(Arc::clone(count))
    }
}

impl Clone for DrainGuard {
    fn clone(&self) -> Self {
        DrainGuard::new(&self.0)
    }
}

impl Drop for DrainGuard {
    fn drop(&mut self) {
        if self.0.live.fetch_sub(1, Ordering::AcqRel) == 1 {
            // Stores a permit when the drain is not waiting yet: it then sees the count.
            self.0.none_left.notify_one();
        }
    }
}

/// A connection's executor (see the module documentation).
pub(crate) struct Executor {
    core: Arc<ServerCore>,
    out: mpsc::Sender<Vec<u8>>,
    slots: Arc<Semaphore>,
    /// Requests waiting for a slot, owning their params, with the method that will run them.
    parked: VecDeque<(Request<'static>, WorkFn)>,
    running: HashMap<RequestId, Running>,
    /// The connection's budget of log messages.
    limiter: Arc<LogLimiter>,
    /// The server's questions waiting for the client's answer (handshake connections).
    pending: Arc<PendingRequests>,
    /// Counts the guards of tasks and open batches, for the drain to wait on.
    drain: Arc<DrainCount>,
    /// Set once draining started: no guard is handed out after it.
    draining: bool,
}

impl std::fmt::Debug for Executor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Executor")
            .field("free_slots", &self.slots.available_permits())
            .field("parked", &self.parked.len())
            .field("running", &self.running.len())
            .finish()
    }
}

impl Executor {
    /// An executor writing responses to `out`, running at most the server's `max_in_flight`
    /// requests at once.
    pub(crate) fn new(core: Arc<ServerCore>, out: mpsc::Sender<Vec<u8>>) -> Self {
        let slots = Arc::new(Semaphore::new(core.config.max_in_flight));
        Executor {
            core,
            out,
            slots,
            parked: VecDeque::new(),
            running: HashMap::new(),
            limiter: Arc::default(),
            pending: Arc::default(),
            drain: Arc::default(),
            draining: false,
        }
    }

    /// The server's questions waiting for this connection's client.
    pub(crate) fn pending(&self) -> &Arc<PendingRequests> {
        &self.pending
    }

    /// The connection's output queue.
    pub(crate) fn output(&self) -> &mpsc::Sender<Vec<u8>> {
        &self.out
    }

    /// A guard that keeps the drain waiting (for work outside this executor's tasks, such as
    /// a batch's buffer); `None` once draining started.
    pub(crate) fn drain_guard(&self) -> Option<DrainGuard> {
        (!self.draining).then(|| DrainGuard::new(&self.drain))
    }

    /// Whether the transport may read another message: the look-ahead has room.
    pub(crate) fn can_read(&self) -> bool {
        self.parked.len() < LOOK_AHEAD
    }

    /// Whether requests wait for a slot.
    pub(crate) fn has_parked(&self) -> bool {
        !self.parked.is_empty()
    }

    /// Waits for a free slot (for the first parked request).
    pub(crate) async fn next_slot(&self) -> Option<OwnedSemaphorePermit> {
        Arc::clone(&self.slots).acquire_owned().await.ok()
    }

    /// Starts a request now if a slot is free and none waits before it; otherwise parks it.
    pub(crate) fn submit(&mut self, request: Request<'_>, work: WorkFn) -> Started {
        if self.parked.is_empty()
            && let Ok(slot) = Arc::clone(&self.slots).try_acquire_owned()
        {
            return self.start(request, work, slot);
        }
        self.parked.push_back((request.into_owned(), work));
        Started::Later
    }

    /// Starts the first parked request with `slot`.
    pub(crate) fn resume(&mut self, slot: OwnedSemaphorePermit) -> Started {
        match self.parked.pop_front() {
            Some((request, work)) => self.start(request, work, slot),
            None => Started::Later,
        }
    }

    /// Links the request to the connection (its output, log budget, slot, cancellation) and
    /// runs its method, once.
    fn start(&mut self, mut request: Request<'_>, work: WorkFn, slot: OwnedSemaphorePermit) -> Started {
        let span = tracing::debug_span!(
            "request",
            method = request.method,
            id = %request.id,
            revision = %request.negotiated.revision,
            traceparent = tracing::field::Empty
        );
        // A W3C trace context the client sent (HTTP) ties this request's logs to its trace.
        if let Some((_, traceparent)) = request
            .extras
            .as_ref()
            .and_then(|e| e.headers.iter().find(|(name, _)| name.eq_ignore_ascii_case("traceparent")))
        {
            span.record("traceparent", traceparent.as_str());
        }
        let cancel = CancelToken::default();
        let lease = SlotLease::new(Arc::clone(&self.slots), slot);
        let out = match &request.reply_to {
            ReplyTo::Stream(stream) => Outlet::Request(stream.clone()),
            ReplyTo::Connection | ReplyTo::Batch(_) => Outlet::Connection(self.out.clone()),
        };
        request.link = Some(CallLink {
            out,
            limiter: Arc::clone(&self.limiter),
            lease: Arc::clone(&lease),
            pending: Arc::clone(&self.pending),
            cancel: cancel.clone(),
        });
        let reply_to = request.reply_to.clone();
        let start = Start { executor: self, id: request.id.clone(), lease, reply_to, span, cancel };
        work(&request, start)
    }

    /// `notifications/cancelled`: a running request's task is aborted (nothing is sent for
    /// it); a waiting one is dropped. `false`: no such request (finished, or never seen).
    pub(crate) fn cancel(&mut self, id: &RequestId) -> bool {
        if let Some(at) = self.parked.iter().position(|(request, _)| &request.id == id) {
            self.parked.remove(at);
            return true;
        }
        match self.running.remove(id) {
            Some(task) if !task.abort.is_finished() => {
                task.stop();
                true
            }
            _ => false,
        }
    }

    /// Ends every request at once, running or waiting: the output is gone, or the drain
    /// deadline passed.
    pub(crate) fn abort_all(&mut self) {
        self.parked.clear();
        for (_, task) in self.running.drain() {
            task.stop();
        }
    }

    /// Waits until every started request has delivered its response (call once no request
    /// waits for a slot: nothing may start after this).
    pub(crate) async fn drained(&mut self) {
        self.draining = true;
        while self.drain.live.load(Ordering::Acquire) > 0 {
            self.drain.none_left.notified().await;
        }
    }

    /// Forgets finished tasks once the map holds twice the bound (lazily, so that finishing
    /// needs no access to the map).
    fn remember(&mut self, id: RequestId, task: Running) {
        if self.running.len() >= 2 * self.core.config.max_in_flight {
            self.running.retain(|_, task| !task.abort.is_finished());
        }
        self.running.insert(id, task);
    }
}

/// A request running as a task: how to stop it.
#[derive(Debug)]
struct Running {
    abort: AbortHandle,
    cancel: CancelToken,
}

impl Running {
    /// Drops the task, then tells the request's context (for work handed to other threads).
    /// In this order, the context waking the handler cannot let it answer.
    fn stop(self) {
        self.abort.abort();
        self.cancel.cancel();
    }
}

/// The right to run one request, given to its handler with a slot already taken.
pub(crate) struct Start<'a> {
    executor: &'a mut Executor,
    id: RequestId,
    lease: Arc<SlotLease>,
    reply_to: ReplyTo,
    span: tracing::Span,
    cancel: CancelToken,
}

impl Start<'_> {
    /// Answers at once (an error found before any user code ran, or a ready result).
    pub(crate) fn reply(self, line: Outgoing) -> Started {
        deliver_now(self.reply_to, line, &self.lease)
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
        let spec = HandlerSpec { timeout: spec.timeout.or(self.executor.core.config.default_timeout), ..spec };
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
    /// until the response is queued.
    pub(crate) fn run<F, T, Fin>(self, spec: HandlerSpec, context: &Context, mut work: F, finish: Fin) -> Started
    where
        F: Future<Output = T> + Send + Unpin + 'static,
        T: Send + 'static,
        Fin: FnOnce(Result<T, Failure>) -> Outgoing + Send + 'static,
    {
        if spec.kind == RunKind::Async {
            let first = {
                let _entered = self.span.enter();
                let mut cx = TaskContext::from_waker(Waker::noop());
                crate::context::log_layer::REQUEST.sync_scope(context.clone(), || {
                    std::panic::catch_unwind(AssertUnwindSafe(|| Pin::new(&mut work).poll(&mut cx)))
                })
            };
            let failure = match first {
                Ok(Poll::Ready(value)) => return deliver_now(self.reply_to, finish(Ok(value)), &self.lease),
                Err(panic) => Some(Failure::Panicked(panic_message(panic))),
                // It stopped at once to ask the client: no need for a task.
                Ok(Poll::Pending) => context.take_interrupt().map(Failure::Interrupted),
            };
            if let Some(failure) = failure {
                return deliver_now(self.reply_to, finish(Err(failure)), &self.lease);
            }
            // Still pending: a correct future registers the task's waker at its next poll.
        }
        let work = crate::context::log_layer::REQUEST.scope(context.clone(), work);
        self.spawn(spec.timeout, context, work, finish)
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
        let (tx, rx) = oneshot::channel::<Result<T, Failure>>();
        let context_for_wait = context.clone();
        let job: LocalJob = Box::new(move || {
            Box::pin(async move {
                let mut tx = tx;
                let made = crate::context::log_layer::REQUEST
                    .sync_scope(context.clone(), || std::panic::catch_unwind(AssertUnwindSafe(make)));
                let outcome = match made {
                    Ok(work) => tokio::select! {
                        outcome = crate::context::log_layer::REQUEST.scope(context, guarded(work)) => outcome,
                        // The request was cancelled, timed out, or the connection ended.
                        () = tx.closed() => return,
                    },
                    Err(panic) => Err(Failure::Panicked(panic_message(panic))),
                };
                let _ = tx.send(outcome);
            })
        });
        if !self.executor.core.local.spawn(job) {
            tracing::error!("a local handler could not run: its thread is not available");
        }
        let answer = async move {
            rx.await.unwrap_or_else(|_| {
                Err(Failure::Panicked("the thread of local handlers stopped before answering".to_owned()))
            })
        };
        self.spawn(timeout, &context_for_wait, answer, move |outcome| finish(outcome.and_then(|inner| inner)))
    }

    /// Runs `work` as a task of its own that holds the slot until the response is queued,
    /// within `timeout` if there is one (past it, the request's context is cancelled and the
    /// work dropped).
    fn spawn<F, T, Fin>(self, timeout: Option<Duration>, context: &Context, work: F, finish: Fin) -> Started
    where
        F: Future<Output = T> + Send + 'static,
        T: Send + 'static,
        Fin: FnOnce(Result<T, Failure>) -> Outgoing + Send + 'static,
    {
        let Start { executor, id, lease, reply_to, span, cancel } = self;
        let out = executor.out.clone();
        let guard = executor.drain_guard();
        let token = cancel.clone();
        // Only a 2026-07-28 request that may ask the client can be interrupted.
        let interruptible = context.can_interrupt().then(|| context.clone());
        // Boxed to one type: the runtime's task code is compiled once, not once per kind of
        // handler (a smaller, faster-building crate; one allocation per task more).
        let task: Pin<Box<dyn Future<Output = ()> + Send>> = Box::pin(
            async move {
                let _guard = guard;
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
                let outcome = match interruptible {
                    None => limited.await,
                    Some(context) => tokio::select! {
                        outcome = limited => outcome,
                        interrupt = context.interrupted() => Err(Failure::Interrupted(interrupt)),
                    },
                };
                let line = finish(outcome);
                deliver(&out, reply_to, line).await;
                lease.release();
            }
            .instrument(span),
        );
        let task = tokio::spawn(task);
        executor.remember(id, Running { abort: task.abort_handle(), cancel });
        Started::Later
    }
}

/// A response ready on the reading loop: the connection's goes back to the loop (with its
/// slot, until it is queued), a batch member's into its batch's buffer.
fn deliver_now(reply_to: ReplyTo, message: Outgoing, lease: &SlotLease) -> Started {
    match reply_to {
        ReplyTo::Connection => Started::Answered(Reply { message, stream: None, _slot: lease.take() }),
        ReplyTo::Stream(stream) => Started::Answered(Reply { message, stream: Some(stream), _slot: lease.take() }),
        ReplyTo::Batch(batch) => {
            let _ = batch.send(message.line);
            lease.release();
            Started::Later
        }
    }
}

/// Queues a response from a task; waits while the queue is full (the client is not reading).
async fn deliver(out: &mpsc::Sender<Vec<u8>>, reply_to: ReplyTo, message: Outgoing) {
    match reply_to {
        // The queue is closed only when the output is gone: nothing is left to tell.
        ReplyTo::Connection => {
            let _ = out.send(message.line).await;
        }
        ReplyTo::Stream(stream) => {
            let _ = stream.send(message).await;
        }
        ReplyTo::Batch(batch) => {
            let _ = batch.send(message.line);
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

/// Collects a batch's responses and sends them as one array once every member delivered
/// (members that were cancelled deliver nothing); nothing at all when none answered.
pub(crate) fn collect_batch(out: Outlet, guard: Option<DrainGuard>) -> mpsc::UnboundedSender<Vec<u8>> {
    let (tx, mut rx) = mpsc::unbounded_channel::<Vec<u8>>();
    tokio::spawn(async move {
        let _guard = guard;
        let mut array = Vec::new();
        while let Some(mut line) = rx.recv().await {
            array.push(if array.is_empty() { b'[' } else { b',' });
            if line.last() == Some(&b'\n') {
                line.pop();
            }
            array.extend_from_slice(&line);
        }
        if !array.is_empty() {
            array.extend_from_slice(b"]\n");
            // The array is the batch's one response (batches are handshake-era: no caching).
            let _ = match out {
                Outlet::Connection(out) => out.send(array).await.is_ok(),
                Outlet::Request(stream) => stream.send(Outgoing::success(array, None)).await.is_ok(),
            };
        }
    });
    tx
}

/// Runs a future, turning a panic inside it into [`Failure::Panicked`].
pub(crate) async fn guarded<F: Future + Unpin>(work: F) -> Result<F::Output, Failure> {
    CatchUnwind(work).await.map_err(|panic| Failure::Panicked(panic_message(panic)))
}
