//! A request's method run in the caller's own task: an inline method answers at once, and a
//! method that runs user code comes back as a future to await, which cancels the request when
//! dropped. What serves a 2026-07-28 request over HTTP where it arrives, and the innermost
//! service of the layers (the method, run inside the task the layers run in).

use std::sync::Arc;

use crate::context::asking::PendingRequests;
use crate::context::outlet::{Outgoing, Outlet};
use crate::context::slot::SlotLease;
use crate::context::{CancelToken, LogLimiter};
use crate::serve::executor::{Start, WorkFn, request_span};
use crate::serve::reply::Started;
use crate::serve::request::{CallLink, Request};
use crate::util::BoxFuture;

/// A method that answers from the server's own data, at once.
pub(crate) type InlineFn = fn(&Request<'_>) -> Outgoing;

/// How a method runs, as what runs it outside its connection's loop sees it (the route
/// table's `Handler`, less what only a loop can run).
#[derive(Clone, Copy)]
pub(crate) enum Method {
    Inline(InlineFn),
    Work(WorkFn),
    /// A lifecycle method (it changes its connection), or a notification's.
    OnLoop,
}

/// What running a method here produced.
pub(crate) enum Served {
    /// Its answer, now.
    Answered(Outgoing),
    /// Its work, to await: its answer (`None` when it has none to give).
    Running(BoxFuture<'static, Option<Outgoing>>),
    /// A method that changes its connection's state (a lifecycle one): only the connection's
    /// loop runs it.
    OnLoop,
}

/// What a method running here may use of where it came from.
pub(crate) struct HereLink {
    /// Its in-flight slot, held while it runs.
    pub(crate) lease: Arc<SlotLease>,
    /// Where what it sends before its answer goes.
    pub(crate) out: Outlet,
    /// Its budget of log messages.
    pub(crate) limiter: Arc<LogLimiter>,
    /// The server's questions waiting for its connection's answers (handshake era).
    pub(crate) pending: Option<Arc<PendingRequests>>,
}

/// The answer of an inline method: at once, with no slot (it runs no user code).
pub(crate) fn inline(request: &Request<'_>, answer: InlineFn) -> Outgoing {
    let span = tracing::debug_span!("request", method = request.method, id = %request.id);
    span.in_scope(|| answer(request))
}

/// Runs `request`'s method here (see the module documentation).
pub(crate) fn run_here(mut request: Request<'_>, method: Method, link: HereLink) -> Served {
    match method {
        Method::Inline(answer) => Served::Answered(inline(&request, answer)),
        Method::Work(work) => {
            let HereLink { lease, out, limiter, pending } = link;
            let span = request_span(&request);
            let cancel = CancelToken::default();
            request.link = Some(CallLink { out, limiter, lease: Arc::clone(&lease), pending, cancel: cancel.clone() });
            let core = Arc::clone(&request.core);
            let start = Start::here(&core, request.id.clone(), lease, request.reply_to.clone(), span, cancel);
            match work(&request, start) {
                Started::Answered(reply) => Served::Answered(reply.message),
                Started::Here(work) => Served::Running(work),
                // Delivered into a batch's buffer: nothing is left to answer here.
                Started::Later => Served::Running(Box::pin(std::future::ready(None))),
            }
        }
        Method::OnLoop => Served::OnLoop,
    }
}
