//! A request's method run in the caller's own task: an inline method answers at once, and a
//! method that runs user code comes back as a future to await, which cancels the request when
//! dropped. What serves a 2026-07-28 request over HTTP where it arrives, and the innermost
//! service of the layers (the method, run inside the task the layers run in).

use std::sync::Arc;

use crate::context::asking::PendingRequests;
use crate::context::outlet::{Outgoing, Outlet};
use crate::context::slot::SlotLease;
use crate::context::{CancelToken, LogLimiter};
use crate::protocol::ErrorObject;
use crate::serve::executor::{Start, request_span};
use crate::serve::reply::Started;
use crate::serve::request::{CallLink, Request};
use crate::serve::routes::Handler;
use crate::util::BoxFuture;

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

/// Runs `request`'s method here (see the module documentation).
pub(crate) fn run_here(mut request: Request<'_>, handler: Handler, link: HereLink) -> Served {
    match handler {
        Handler::Inline(answer) => {
            let span = tracing::debug_span!("request", method = request.method, id = %request.id);
            Served::Answered(span.in_scope(|| answer(&request)))
        }
        Handler::Work(work) => {
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
        Handler::Lifecycle(_) => Served::OnLoop,
        Handler::Notification(_) => {
            Served::Answered(request.error(&ErrorObject::invalid_request("Invalid request: a notification's method")))
        }
    }
}
