//! A request through the server's layers: it leaves the reading loop as an [`McpRequest`] and
//! runs through the layers as one task, whose innermost service is its method: once the
//! innermost layer calls inward, the method runs right there, in the same task, with an
//! in-flight slot of its connection's (see [`run_here`]); its answer goes back out through the
//! layers and then where it was going. Only a lifecycle method, which changes its connection,
//! comes back to the connection's loop to run, in arrival order.
//!
//! The loop keeps two counts of the requests in the layers: all of them, until their task ends
//! (reading stops once the look-ahead and the in-flight slots are all taken, as it does for
//! requests waiting for a slot; the loop ends only once none is left), and the handshake-era
//! lifecycle ones until they come back: reading waits for those, so that
//! `notifications/initialized` or a subscription is never handled before the `initialize`
//! ahead of it. A lifecycle request that came back is the executor's to bound.
//!
//! The counts are shared: the loop counts a request in, and its task counts itself out when it
//! ends, without a message. A message would wake the loop once per request, and a second wake
//! in the same turn of a worker (the answer's, then the loop's) makes tokio wake another worker
//! to share them: a thread hand-off per request. The loop is woken ([`Counts::changed`]) only
//! while it waits on the counts.

use std::borrow::Cow;
use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use tokio::sync::{Notify, mpsc};
use tokio::task::AbortHandle;

use crate::context::outlet::{Outgoing, Outlet};
use crate::context::slot::SlotLease;
use crate::context::{CancelToken, Context};
use crate::declare::scopes::Scopes;
use crate::error::ItemKind;
use crate::middleware::{BoxError, Inward, McpRequest, McpResponse, McpService, Proceed, Target, Transport};
use crate::protocol::{ErrorObject, RequestId};
use crate::serve::executor::{HereParts, LOOK_AHEAD, guarded};
use crate::serve::here::{HereLink, Method, Served, inline, run_here};
use crate::serve::reply::{ReplyTo, result_line};
use crate::serve::request::Request;
use crate::server::core::ServerCore;
use crate::util::BoxFuture;

/// How a request in the layers weighs on its loop's reading.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Hold {
    /// Reading waits until it comes back (a handshake-era lifecycle request).
    pub(crate) blocking: bool,
    /// It counts against the look-ahead. A 2026-07-28 request over HTTP does not: the HTTP
    /// edge bounds those (`max_requests`), and a loop serves many clients, whom one client's
    /// requests waiting in a layer must not hold up.
    pub(crate) counted: bool,
}

/// What a request in the layers tells its loop.
pub(crate) enum Back {
    /// The layers let a lifecycle request through: run its method on the loop.
    Admit(Box<Request<'static>>, Hold),
    /// A layer gave up on a lifecycle request after letting it through (a timeout): stop it.
    Cancel(RequestId),
}

/// The requests of one connection in the layers, counted in by its loop and out by their
/// tasks (or by the loop, for a lifecycle request that came back to it).
#[derive(Debug, Default)]
pub(crate) struct Counts {
    /// Requests in the layers that have not come back to run.
    inside: AtomicUsize,
    /// Those of them that count against the look-ahead.
    counted: AtomicUsize,
    /// Those of them reading waits for.
    blocking: AtomicUsize,
    /// Told when one leaves; it keeps the news for a loop that was not waiting yet.
    left: Notify,
}

impl Counts {
    fn count_in(&self, hold: Hold) {
        self.inside.fetch_add(1, Ordering::AcqRel);
        self.counted.fetch_add(usize::from(hold.counted), Ordering::AcqRel);
        self.blocking.fetch_add(usize::from(hold.blocking), Ordering::AcqRel);
    }

    fn count_out(&self, hold: Hold) {
        self.counted.fetch_sub(usize::from(hold.counted), Ordering::AcqRel);
        self.blocking.fetch_sub(usize::from(hold.blocking), Ordering::AcqRel);
        self.inside.fetch_sub(1, Ordering::AcqRel);
        self.left.notify_one();
    }

    /// Completes once a request has left since the last time it completed (at once if one
    /// left meanwhile).
    pub(crate) async fn changed(&self) {
        self.left.notified().await;
    }
}

/// A connection's copy of the layers, and the counts its loop reads by.
pub(crate) struct Layered {
    service: McpService,
    back: mpsc::UnboundedSender<Back>,
    counts: Arc<Counts>,
    /// How many counted requests may be inside at once: the look-ahead, and the slots their
    /// methods run in (a request runs its method inside, so it counts until it ends).
    room: usize,
}

impl std::fmt::Debug for Layered {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Layered").field("counts", &self.counts).finish()
    }
}

impl Layered {
    /// The layers' entry for one connection, and where its requests come back.
    pub(crate) fn new(service: McpService, max_in_flight: usize) -> (Self, mpsc::UnboundedReceiver<Back>) {
        let (back, returns) = mpsc::unbounded_channel();
        let room = LOOK_AHEAD + max_in_flight;
        (Layered { service, back, counts: Arc::default(), room }, returns)
    }

    /// Whether reading may go on: nothing blocks it, and the look-ahead has room.
    pub(crate) fn can_read(&self) -> bool {
        self.counts.blocking.load(Ordering::Acquire) == 0 && self.counts.counted.load(Ordering::Acquire) < self.room
    }

    /// Whether requests in the layers have not come back yet (the loop waits for them before
    /// it ends).
    pub(crate) fn busy(&self) -> bool {
        self.counts.inside.load(Ordering::Acquire) > 0
    }

    /// The counts, for the loop to wait on.
    pub(crate) fn counts(&self) -> Arc<Counts> {
        Arc::clone(&self.counts)
    }

    /// A lifecycle request came back to run: it no longer counts.
    pub(crate) fn done_with(&mut self, hold: Hold) {
        self.counts.count_out(hold);
    }

    /// Sends `request` into the layers as a task of its own, which runs its method too (a
    /// lifecycle one comes back to the loop); `out` is its connection's output. The task's
    /// handle and its token are for the loop to stop it with: the token is cancelled after
    /// the abort, and a task that ran on to the end of its work meanwhile sends nothing.
    pub(crate) fn enter(
        &mut self,
        mut request: Request<'_>,
        runs: Method,
        hold: Hold,
        transport: Transport,
        out: mpsc::Sender<Vec<u8>>,
        here: HereParts,
    ) -> (AbortHandle, CancelToken) {
        // Where it was going: its answer goes there once out of the layers, and what it sends
        // before its answer (progress, questions) on the way.
        let destination = std::mem::replace(&mut request.reply_to, ReplyTo::Connection);
        let interim = destination.outlet(&out);
        let admitted = Arc::new(AtomicBool::new(false));
        let back = self.back.clone();
        let HereParts { slots, limiter, pending, guard } = here;
        let method = {
            let admitted = Arc::clone(&admitted);
            move |request: Request<'static>| -> BoxFuture<'static, Result<McpResponse, BoxError>> {
                let work = match runs {
                    Method::OnLoop => return back_to_loop(request, hold, &back, &admitted, interim),
                    // Answered from the server's data, with no slot (as on a loop).
                    Method::Inline(answer) => {
                        let line = inline(&request, answer);
                        return Box::pin(std::future::ready(Ok(McpResponse::written(line))));
                    }
                    Method::Work(_) => runs,
                };
                Box::pin(async move {
                    // A slot first, as the executor would take one: the in-flight bound holds.
                    // The request leaves the loop's counts when its task ends (`Leaving`), not
                    // now: telling the loop now would wake it onto this worker's next-task slot,
                    // where a plain `fn` blocking this worker would strand it.
                    let Ok(permit) = Arc::clone(&slots).acquire_owned().await else {
                        return Err::<_, BoxError>(Box::new(Unanswered));
                    };
                    let lease = SlotLease::new(slots, permit);
                    let link = HereLink { lease, out: interim, limiter, pending: Some(pending) };
                    answered(run_here(request, work, link)).await
                })
            }
        };
        let through = through_layers(self.service.clone(), request, transport, method);
        let leaving = Leaving { counts: Arc::clone(&self.counts), hold, admitted };
        let stopped = CancelToken::default();
        let withdrawn = stopped.clone();
        let task = tokio::spawn(async move {
            let _leaving = leaving;
            let _guard = guard;
            if let Some(line) = through.await
                && !withdrawn.is_cancelled()
            {
                destination.deliver(&out, line).await;
            }
        });
        self.counts.count_in(hold);
        (task.abort_handle(), stopped)
    }
}

/// Runs `request` through the layers of `service` as one future, whose innermost service is
/// `method`, handed the request as the layers left it (its params, the items the caller sees,
/// its trace): the answer as written for its revision, `None` when the method ended without
/// one (cancelled).
pub(crate) fn through_layers<M>(
    service: McpService,
    mut request: Request<'_>,
    transport: Transport,
    method: M,
) -> impl Future<Output = Option<Outgoing>> + Send + 'static
where
    M: FnOnce(Request<'static>) -> BoxFuture<'static, Result<McpResponse, BoxError>> + Send + 'static,
{
    // Taken before the request owns its params: they are copied once, for the layers.
    let params = request.params.take().map(Cow::into_owned);
    let mut request = request.into_owned();
    let context = Context::for_request(request.context_parts(None, CancelToken::default(), None));
    let (id, core, revision, name) =
        (request.id.clone(), Arc::clone(&request.core), request.revision(), request.method);
    let extras = request.extras.clone();
    let proceed: Proceed = Box::new(move |inward: Inward| {
        request.params = inward.params.map(Cow::Owned);
        request.visible = inward.visible;
        #[cfg(feature = "telemetry")]
        {
            request.trace = inward.trace;
        }
        method(request)
    });
    let mut entering = McpRequest::new(name, params, transport, context, extras, proceed);
    if let Some((scopes, mounted)) = target_parts(&core, &entering) {
        entering.scopes = scopes;
        entering.mounted = mounted;
    }
    async move {
        let through = Box::pin(service.oneshot(entering));
        match guarded(through).await {
            Ok(Ok(response)) => Some(written(&core, &id, revision, response)),
            Ok(Err(e)) if e.is::<Unanswered>() => None,
            Ok(Err(e)) => Some(Outgoing::error(Some(&id), &ErrorObject::internal(format!("Internal error: {e}")))),
            Err(failure) => Some(Outgoing::error(Some(&id), &ErrorObject::internal(format!("A layer {failure}")))),
        }
    }
}

/// What a method run here produced, as the innermost service's response (`Unanswered` when it
/// ended without an answer).
pub(crate) async fn answered(served: Served) -> Result<McpResponse, BoxError> {
    let answer = match served {
        Served::Answered(answer) => Some(answer),
        Served::Running(work) => work.await,
        Served::OnLoop => None,
    };
    answer.map(McpResponse::written).ok_or_else(|| Box::new(Unanswered) as BoxError)
}

/// Sends a lifecycle request the layers let through back to its loop, to run there in arrival
/// order; the future waits for its answer (what it sends before goes to `interim`).
fn back_to_loop(
    mut request: Request<'static>,
    hold: Hold,
    back: &mpsc::UnboundedSender<Back>,
    admitted: &AtomicBool,
    interim: Outlet,
) -> BoxFuture<'static, Result<McpResponse, BoxError>> {
    let (stream, mut answers) = mpsc::channel::<Outgoing>(16);
    request.reply_to = ReplyTo::Stream(stream);
    admitted.store(true, Ordering::Release);
    let abandoned = Abandoned { back: back.clone(), id: Some(request.id.clone()) };
    let _ = back.send(Back::Admit(Box::new(request), hold));
    Box::pin(async move {
        // The whole guard moves in (not only its field): it drops with the future.
        let mut abandoned = abandoned;
        while let Some(message) = answers.recv().await {
            if message.is_answer() {
                abandoned.id = None;
                return Ok(McpResponse::written(message));
            }
            interim.send(message.line).await;
        }
        abandoned.id = None;
        Err::<_, BoxError>(Box::new(Unanswered))
    })
}

/// What the item `request` targets was declared with (its scopes, its mount), for the
/// layers to see.
pub(crate) fn target_parts(core: &ServerCore, request: &McpRequest) -> Option<(Scopes, Option<usize>)> {
    let target = request.target()?;
    let kind = match target {
        Target::Tool(_) => ItemKind::Tool,
        Target::Prompt(_) => ItemKind::Prompt,
        _ => ItemKind::Resource,
    };
    let registry = core.registry();
    let parts = registry.parts_of(kind, target.name())?;
    Some((parts.scopes.clone(), parts.mounted))
}

/// Counts a request out of the layers when it leaves them without coming back to run (its
/// method ran in its task, or it was refused, failed or cancelled), however its task ends
/// (aborted included).
struct Leaving {
    counts: Arc<Counts>,
    hold: Hold,
    admitted: Arc<AtomicBool>,
}

impl Drop for Leaving {
    fn drop(&mut self) {
        if !self.admitted.load(Ordering::Acquire) {
            self.counts.count_out(self.hold);
        }
    }
}

/// Stops a request's method when the layers drop it before its answer (a timeout layer gave
/// up): nobody is left to hear it.
struct Abandoned {
    back: mpsc::UnboundedSender<Back>,
    /// `None` once the method answered (or ended).
    id: Option<RequestId>,
}

impl Drop for Abandoned {
    fn drop(&mut self) {
        if let Some(id) = self.id.take() {
            let _ = self.back.send(Back::Cancel(id));
        }
    }
}

/// The request's method ended without answering it (it was cancelled, or its connection
/// ended): nothing is sent for it.
#[derive(Debug)]
pub(crate) struct Unanswered;

impl std::fmt::Display for Unanswered {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the request ended without an answer")
    }
}

impl std::error::Error for Unanswered {}

/// The answer a request's layers produced, as written for its revision.
pub(crate) fn written(
    core: &crate::server::core::ServerCore,
    id: &crate::protocol::RequestId,
    revision: crate::protocol::Revision,
    response: McpResponse,
) -> Outgoing {
    let McpResponse { written, replaced, http } = response;
    let mut line = match replaced {
        Some(Ok(result)) => {
            let cache = written.as_ref().and_then(|line| line.answer.as_ref()).and_then(|answer| answer.cache);
            result_line(core, id, revision, cache, result)
        }
        Some(Err(error)) => Outgoing::error(Some(id), &error),
        None => written.unwrap_or_else(|| Outgoing::error(Some(id), &ErrorObject::internal("No answer"))),
    };
    if let (Some(http), Some(answer)) = (http, line.answer.as_mut()) {
        answer.http = Some(Box::new(http));
    }
    line
}
