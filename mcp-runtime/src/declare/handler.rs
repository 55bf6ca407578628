//! The type-erased handlers tools, resource readers and prompts are stored as.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use crate::util::{BoxFuture, LocalBoxFuture};

/// An async function of `I` producing `O`, type-erased. Its future is `Send` (it may run on
/// any worker thread), or, for a `local` handler, not: it is then created and run on the
/// server's thread for local handlers (see [`crate::server::local`]).
pub(crate) enum HandlerFn<I, O> {
    Send(Arc<dyn Fn(I) -> BoxFuture<'static, O> + Send + Sync>),
    Local(Arc<dyn Fn(I) -> LocalBoxFuture<'static, O> + Send + Sync>),
}

impl<I, O> Clone for HandlerFn<I, O> {
    fn clone(&self) -> Self {
        match self {
            HandlerFn::Send(f) => HandlerFn::Send(Arc::clone(f)),
            HandlerFn::Local(f) => HandlerFn::Local(Arc::clone(f)),
        }
    }
}

impl<I, O> HandlerFn<I, O> {
    /// A handler whose future is `Send`, from `f` (boxed once per call).
    pub(crate) fn sendable<F, Fut>(f: F) -> Self
    where
        F: Fn(I) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = O> + Send + 'static,
    {
        HandlerFn::Send(Arc::new(move |input| Box::pin(f(input))))
    }

    /// A handler whose future need not be `Send`, from `f` (boxed once per call).
    pub(crate) fn local<F, Fut>(f: F) -> Self
    where
        F: Fn(I) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = O> + 'static,
    {
        HandlerFn::Local(Arc::new(move |input| Box::pin(f(input))))
    }
}

/// How a handler's work may run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum RunKind {
    /// An async handler: polled once where it was read, a task of its own only if it waits.
    #[default]
    Async,
    /// Async work that must not run where the request was read (a resource lister, which
    /// may wait): always a task of its own.
    Task,
    /// A plain `fn` handler (its body runs at the first poll, and may block its thread): in
    /// place on a multi-threaded runtime, watched (another worker is woken for the connection
    /// once it runs long), else on another thread (one kept awake for them, or the blocking
    /// pool).
    Blocking,
}

/// How a handler runs: its [`RunKind`] and its time limit.
#[doc(hidden)]
#[derive(Debug, Clone, Copy, Default)]
pub struct HandlerSpec {
    pub(crate) kind: RunKind,
    pub(crate) timeout: Option<Duration>,
}
