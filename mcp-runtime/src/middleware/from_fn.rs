//! A layer made of an async function, for policies that take a few lines.

use std::fmt;
use std::future::Future;
use std::task::{Context as TaskContext, Poll};

use tower_layer::Layer;
use tower_service::Service;

use crate::util::BoxFuture;

use super::{BoxError, McpRequest, McpResponse, McpService};

/// A layer that runs `f` for each request: `f` gets the request and what comes after this
/// layer, and answers (by calling [`Next::run`], or not).
///
/// ```
/// use std::time::Instant;
/// use mcp_runtime::Server;
/// use mcp_runtime::middleware::from_fn;
///
/// let server = Server::builder("gifts", "1.0.0").layer(from_fn(|request, next| async move {
///     let method = request.method();
///     let started = Instant::now();
///     let response = next.run(request).await;
///     eprintln!("{method} took {:?}", started.elapsed());
///     response
/// }));
/// # let _ = server;
/// ```
pub fn from_fn<F, Fut>(f: F) -> FromFnLayer<F>
where
    F: Fn(McpRequest, Next) -> Fut + Clone + Send + 'static, // the arguments are `(request: McpRequest, next: Next)`, in this order
    Fut: Future<Output: MiddlewareAnswer> + Send + 'static,
{
    // The call is fixed here, where the bounds are checked, so that a function of another
    // shape is one error, at `from_fn`, and not a second one where the layer is added.
    fn call<F, Fut>(f: &F, request: McpRequest, next: Next) -> BoxFuture<'static, Result<McpResponse, BoxError>>
    where
        F: Fn(McpRequest, Next) -> Fut,
        Fut: Future<Output: MiddlewareAnswer> + Send + 'static,
    {
        let answer = f(request, next);
        Box::pin(async move { answer.await.into_answer() })
    }
    FromFnLayer { f, call: call::<F, Fut> }
}

/// How a [`FromFn`] calls its function.
type Call<F> = fn(&F, McpRequest, Next) -> BoxFuture<'static, Result<McpResponse, BoxError>>;

/// What a [`from_fn`] function answers: `Result<McpResponse, BoxError>`, which
/// [`Next::run`] returns.
#[diagnostic::on_unimplemented(
    message = "a `from_fn` middleware answers `Result<McpResponse, BoxError>`, not `{Self}`",
    label = "this is what the function's future gives",
    note = "the function is `async |request: McpRequest, next: Next| -> Result<McpResponse, BoxError>`: end it with `next.run(request).await` to pass the request on (keep its answer, or change it), or answer in its place with `Ok(McpResponse::error(..))`"
)]
pub trait MiddlewareAnswer: Sized {
    #[doc(hidden)]
    fn into_answer(self) -> Result<McpResponse, BoxError>;
}

impl MiddlewareAnswer for Result<McpResponse, BoxError> {
    fn into_answer(self) -> Result<McpResponse, BoxError> {
        self
    }
}

/// The layer [`from_fn`] makes.
pub struct FromFnLayer<F> {
    f: F,
    call: Call<F>,
}

impl<F: Clone> Clone for FromFnLayer<F> {
    fn clone(&self) -> Self {
        FromFnLayer { f: self.f.clone(), call: self.call }
    }
}

impl<F> fmt::Debug for FromFnLayer<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("FromFnLayer")
    }
}

impl<F: Clone> Layer<McpService> for FromFnLayer<F> {
    type Service = FromFn<F>;

    fn layer(&self, inner: McpService) -> Self::Service {
        FromFn { f: self.f.clone(), call: self.call, inner }
    }
}

/// The service of a [`from_fn`] layer.
pub struct FromFn<F> {
    f: F,
    call: Call<F>,
    inner: McpService,
}

impl<F: Clone> Clone for FromFn<F> {
    fn clone(&self) -> Self {
        FromFn { f: self.f.clone(), call: self.call, inner: self.inner.clone() }
    }
}

impl<F> fmt::Debug for FromFn<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("FromFn")
    }
}

impl<F> Service<McpRequest> for FromFn<F> {
    type Response = McpResponse;
    type Error = BoxError;
    type Future = BoxFuture<'static, Result<McpResponse, BoxError>>;

    /// Ready at once: what comes after is made ready when [`Next::run`] calls it.
    fn poll_ready(&mut self, _cx: &mut TaskContext<'_>) -> Poll<Result<(), BoxError>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: McpRequest) -> Self::Future {
        (self.call)(&self.f, request, Next(self.inner.clone()))
    }
}

/// What comes after a [`from_fn`] layer: the next layer, or the method.
#[derive(Debug)]
pub struct Next(McpService);

impl Next {
    /// Passes the request on and waits for its answer.
    pub async fn run(self, request: McpRequest) -> Result<McpResponse, BoxError> {
        self.0.oneshot(request).await
    }
}
