//! A 2026-07-28 request served where it arrives: over HTTP, in the task of the connection that
//! read it, with no loop between (such a request needs nothing of those before it). Its view
//! comes from its own `_meta`, its row from the route table, and its work comes back as a
//! future the transport awaits: dropping that future (the client went away) cancels it.
//!
//! Through the server's layers it goes the same way, as one future: the innermost service the
//! layers call runs its method right there.

use std::cell::RefCell;
use std::sync::Arc;

use crate::context::RequestExtras;
use crate::context::outlet::{Outgoing, Outlet, StreamOnUse};
use crate::context::slot::SlotLease;
use crate::middleware::{McpService, Transport};
use crate::protocol::Request as Message;
use crate::serve::admit::{Reading, admit, skips_layers};
use crate::serve::here::{HereLink, Method, Served, run_here};
use crate::serve::layered::{answered, through_layers};
use crate::serve::reply::ReplyTo;
use crate::serve::request::{Logging, Request, StatelessViews};
use crate::server::core::ServerCore;

/// One 2026-07-28 request as the transport read it.
pub(crate) struct Arrived<'a> {
    pub(crate) message: Message<'a>,
    /// The text of its `params._meta` (which names its revision: it is there).
    pub(crate) meta: &'a str,
    pub(crate) extras: Arc<RequestExtras>,
    /// Where what it sends before its answer goes (progress, log messages), made on first use.
    pub(crate) stream: Arc<StreamOnUse>,
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
    let here = link(lease, stream);
    let reply_to = ReplyTo::Caller;
    // A request served here is a session of its own: per-session instances are made for it.
    let states = core.states.for_session();
    let reading =
        Reading { negotiated, fresh: false, meta: Some(meta), logging, extras: Some(extras), reply_to, states };
    let (request, handler) = match admit(core, message, reading) {
        Ok(admitted) => admitted,
        Err((error, _)) => return Served::Answered(error),
    };
    match core.layers.as_ref() {
        Some(layers) if !skips_layers(&request) => {
            let service = layers.lock().unwrap_or_else(|e| e.into_inner()).clone();
            through_layers_here(service, request, handler.method(), here)
        }
        _ => run_here(request, handler.method(), here),
    }
}

/// What a request served here may use: its share of the request limit, its stream, a log
/// budget of its own; it asks through input-required results, not a connection.
fn link(lease: Arc<SlotLease>, stream: Arc<StreamOnUse>) -> HereLink {
    HereLink { lease, out: Outlet::OnUse(stream), limiter: Arc::default(), pending: None }
}

/// Runs `request` through the layers, as one future whose innermost service runs its method
/// here.
fn through_layers_here(service: McpService, request: Request<'_>, runs: Method, here: HereLink) -> Served {
    if matches!(runs, Method::OnLoop) {
        return Served::OnLoop;
    }
    let method = move |request: Request<'static>| Box::pin(answered(run_here(request, runs, here))) as _;
    Served::Running(Box::pin(through_layers(service, request, Transport::Http, method)))
}
