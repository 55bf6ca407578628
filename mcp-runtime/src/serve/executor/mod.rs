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
//!   task hand-off. Still pending, it runs as a task of its own (so a slow one cannot stall
//!   `ping` or cancellations). A plain `fn` handler runs in place, on its task's worker (no
//!   hand-off for a quick body); one that runs long gets another worker woken for the
//!   connection (`in_place`), and with a time limit, or on a current-thread runtime, it runs on
//!   another thread (`hot_thread` when it is free, else the blocking pool), a task waiting
//!   for it. The request's future is the
//!   handler's one box; nothing here boxes it again.
//! - The map from request ids to running tasks belongs to the reading loop: no lock, and an
//!   entry exists before the task can finish.

mod blocking_pool;
mod hot_thread;
mod in_place;
mod outcome;
mod start;

pub(crate) use outcome::{Failure, guarded, panic_message};
pub(crate) use start::{Runner, Start, detached, within};

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use tokio::sync::{Notify, OwnedSemaphorePermit, Semaphore, mpsc};
use tokio::task::AbortHandle;

use crate::context::asking::PendingRequests;
use crate::context::outlet::{Outgoing, Outlet};
use crate::context::slot::SlotLease;
use crate::context::{CancelToken, LogLimiter};
use crate::protocol::RequestId;
use crate::serve::reply::Started;
use crate::serve::request::{CallLink, Request};
use crate::server::core::ServerCore;

/// Requests that may wait for a free slot while reading goes on (so notifications, cancels
/// and `ping` keep flowing); once this many wait, the transport stops reading.
pub(crate) const LOOK_AHEAD: usize = 16;

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

/// What the method of a request in the layers runs with, from its connection's executor.
pub(crate) struct HereParts {
    pub(crate) slots: Arc<Semaphore>,
    pub(crate) limiter: Arc<LogLimiter>,
    pub(crate) pending: Arc<PendingRequests>,
    /// Keeps the connection's drain waiting until the request's task ends.
    pub(crate) guard: Option<DrainGuard>,
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

    /// What a request running its method in its layers' task takes from here: the slots it
    /// waits for, the connection's log budget and questions, a guard on the drain.
    pub(crate) fn here_parts(&self) -> HereParts {
        HereParts {
            slots: Arc::clone(&self.slots),
            limiter: Arc::clone(&self.limiter),
            pending: Arc::clone(&self.pending),
            guard: self.drain_guard(),
        }
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
        let span = request_span(&request);
        let cancel = CancelToken::default();
        let lease = SlotLease::new(Arc::clone(&self.slots), slot);
        let out = request.reply_to.outlet(&self.out);
        request.link = Some(CallLink {
            out,
            limiter: Arc::clone(&self.limiter),
            lease: Arc::clone(&lease),
            pending: Some(Arc::clone(&self.pending)),
            cancel: cancel.clone(),
        });
        let reply_to = request.reply_to.clone();
        let start = Start { runner: Runner::Executor(self), id: request.id.clone(), lease, reply_to, span, cancel };
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

    /// Drops the handlers kept for a 2026-07-28 retry on this connection: it has ended.
    pub(crate) fn release_kept(&self) {
        self.core.parking.release(|context| context.sends_to(&self.out));
    }

    /// Waits until every started request has delivered its response (call once no request
    /// waits for a slot: nothing may start after this).
    pub(crate) async fn drained(&mut self) {
        self.draining = true;
        while self.drain.live.load(Ordering::Acquire) > 0 {
            self.drain.none_left.notified().await;
        }
    }

    /// Keeps how to stop a request that runs as a task outside this executor (inside the
    /// layers), so that its cancellation or the connection's end stops it (`cancel` is
    /// cancelled after the abort).
    pub(crate) fn track(&mut self, id: RequestId, task: AbortHandle, cancel: CancelToken) {
        self.remember(id, Running { abort: task, cancel });
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

/// The span a request's work runs in (and its handler's own spans below it).
pub(crate) fn request_span(request: &Request<'_>) -> tracing::Span {
    let span = tracing::debug_span!(
        "request",
        method = request.method,
        id = %request.id,
        revision = %request.negotiated.revision,
        traceparent = tracing::field::Empty
    );
    // Under telemetry, the span (and the handler's own spans inside it) joins the trace of
    // the request's server span.
    #[cfg(feature = "telemetry")]
    let span = match &request.trace {
        None => span,
        Some(trace) => {
            let traced = tracing::info_span!(target: "mcp_runtime::handler", "handler", method = request.method);
            let _ = tracing_opentelemetry::OpenTelemetrySpanExt::set_parent(&traced, trace.clone());
            traced
        }
    };
    // A W3C trace context the client sent (HTTP) ties this request's logs to its trace.
    if let Some(traceparent) = request.extras.as_ref().and_then(|e| e.header("traceparent")) {
        span.record("traceparent", traceparent);
    }
    span
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
                // Batches are handshake-era: never served where they arrive.
                Outlet::OnUse(_) => false,
                Outlet::Nowhere => false,
            };
        }
    });
    tx
}
