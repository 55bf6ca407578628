//! A 2026-07-28 request served where it arrives: over HTTP, in the task of the connection that
//! read it, with no loop between (such a request needs nothing of those before it). Its view
//! comes from its own `_meta`, its row from the route table, and its work comes back as a
//! future the transport awaits: dropping that future (the client went away) cancels it.
//!
//! Through the server's layers it goes the same way, as one future: the innermost service the
//! layers call runs its method right there.

use std::cell::RefCell;
use std::sync::Arc;

use crate::context::outlet::{Outgoing, Outlet, RequestStream};
use crate::context::slot::SlotLease;
use crate::context::{CancelToken, Context, RequestExtras, RequestParts};
use crate::middleware::{BoxError, Inward, McpRequest, McpResponse, Proceed, Transport};
use crate::protocol::{ErrorObject, Request as Message};
use crate::serve::admit::{Reading, admit, skips_layers};
use crate::serve::executor::{Start, guarded, request_span};
use crate::serve::layered::{Unanswered, target_scopes, written};
use crate::serve::reply::{ReplyTo, Started};
use crate::serve::request::{CallLink, Logging, Request, StatelessViews};
use crate::serve::routes::Handler;
use crate::server::core::ServerCore;
use crate::util::BoxFuture;

/// What serving a request here produced.
pub(crate) enum Served {
    /// Its answer, now.
    Answered(Outgoing),
    /// Its work, to await: its answer (`None` when it has none to give).
    Running(BoxFuture<'static, Option<Outgoing>>),
    /// A method that lives on a connection's loop (`subscriptions/listen`, whose stream the
    /// loop feeds with change notices): the transport sends it there instead.
    OnLoop,
}

/// One 2026-07-28 request as the transport read it.
pub(crate) struct Arrived<'a> {
    pub(crate) message: Message<'a>,
    /// The text of its `params._meta` (which names its revision: it is there).
    pub(crate) meta: &'a str,
    pub(crate) extras: Arc<RequestExtras>,
    /// Where what it sends before its answer goes (progress, log messages).
    pub(crate) stream: RequestStream,
    /// Its share of the transport's request limit, held while it runs.
    pub(crate) lease: Arc<SlotLease>,
}

thread_local! {
    /// The views of the `_meta`s this thread read last: a client sends the same one on each
    /// request, and a thread serves a few clients at once.
    static VIEWS: RefCell<StatelessViews> = RefCell::default();
}

/// Serves `arrived` (see the module documentation).
pub(crate) fn serve(core: &Arc<ServerCore>, arrived: Arrived<'_>) -> Served {
    let Arrived { message, meta, extras, stream, lease } = arrived;
    let viewed = VIEWS.with_borrow_mut(|views| views.view(meta));
    let negotiated = match viewed {
        Ok((negotiated, read_now)) => {
            if read_now {
                core.met(&negotiated, Transport::Http);
            }
            negotiated
        }
        Err(e) => return Served::Answered(Outgoing::error(Some(&message.id), &e)),
    };
    let logging = if core.config.client_logging { Logging::PerRequest } else { Logging::Disabled };
    let reply_to = ReplyTo::Stream(stream);
    let reading = Reading { negotiated, fresh: false, meta: Some(meta), logging, extras: Some(extras), reply_to };
    let (request, handler) = match admit(core, message, reading) {
        Ok(admitted) => admitted,
        Err((error, _)) => return Served::Answered(error),
    };
    match core.layers.as_ref() {
        Some(layers) if !skips_layers(&request) => {
            let service = layers.lock().unwrap_or_else(|e| e.into_inner()).clone();
            through_layers(service, request.into_owned(), handler, lease)
        }
        _ => run(request, handler, lease),
    }
}

/// Runs `request`'s method here: an inline one answers now, work comes back to await.
fn run(mut request: Request<'_>, handler: Handler, lease: Arc<SlotLease>) -> Served {
    match handler {
        Handler::Inline(answer) => {
            let span = tracing::debug_span!("request", method = request.method, id = %request.id);
            Served::Answered(span.in_scope(|| answer(&request)))
        }
        Handler::Work(work) => {
            let ReplyTo::Stream(stream) = request.reply_to.clone() else {
                return Served::Answered(request.error(&ErrorObject::internal("A request served here has no stream")));
            };
            let span = request_span(&request);
            let cancel = CancelToken::default();
            request.link = Some(CallLink {
                out: Outlet::Request(stream),
                limiter: Arc::default(),
                lease: Arc::clone(&lease),
                pending: None,
                cancel: cancel.clone(),
            });
            let core = Arc::clone(&request.core);
            let start = Start::here(&core, request.id.clone(), lease, request.reply_to.clone(), span, cancel);
            match work(&request, start) {
                Started::Answered(reply) => Served::Answered(reply.message),
                Started::Here(work) => Served::Running(work),
                // A batch's member delivers into its batch; none is served here.
                Started::Later => Served::Running(Box::pin(std::future::ready(None))),
            }
        }
        Handler::Lifecycle(_) => Served::OnLoop,
        Handler::Notification(_) => {
            Served::Answered(request.error(&ErrorObject::invalid_request("Invalid request: a notification's method")))
        }
    }
}

/// Runs `request` through the layers, as one future whose innermost service runs its method
/// here.
fn through_layers(
    service: crate::middleware::McpService,
    mut request: Request<'static>,
    handler: Handler,
    lease: Arc<SlotLease>,
) -> Served {
    if matches!(handler, Handler::Lifecycle(_)) {
        return Served::OnLoop;
    }
    let params = request.params.take().map(std::borrow::Cow::into_owned);
    let context = Context::for_request(RequestParts {
        negotiated: Arc::clone(&request.negotiated),
        request_id: request.id.clone(),
        states: Arc::clone(&request.core.states),
        cancel: CancelToken::default(),
        link: None,
        extras: request.extras.clone(),
    });
    let (id, core, revision, method) =
        (request.id.clone(), Arc::clone(&request.core), request.revision(), request.method);
    let extras = request.extras.clone();
    let proceed: Proceed = Box::new(move |inward: Inward| {
        request.params = inward.params.map(std::borrow::Cow::Owned);
        request.visible = inward.visible;
        #[cfg(feature = "telemetry")]
        {
            request.trace = inward.trace;
        }
        let served = run(request, handler, lease);
        Box::pin(async move {
            let answer = match served {
                Served::Answered(answer) => Some(answer),
                Served::Running(work) => work.await,
                Served::OnLoop => None,
            };
            answer.map(McpResponse::written).ok_or_else(|| Box::new(Unanswered) as BoxError)
        })
    });
    let mut entering = McpRequest::new(method, params, Transport::Http, context, extras, proceed);
    entering.scopes = target_scopes(&core, &entering);
    Served::Running(Box::pin(async move {
        let through = Box::pin(service.oneshot(entering));
        match guarded(through).await {
            Ok(Ok(response)) => Some(written(&core, &id, revision, response)),
            Ok(Err(e)) if e.is::<Unanswered>() => None,
            Ok(Err(e)) => Some(Outgoing::error(Some(&id), &ErrorObject::internal(format!("Internal error: {e}")))),
            Err(failure) => Some(Outgoing::error(Some(&id), &ErrorObject::internal(format!("A layer {failure}")))),
        }
    }))
}
