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
    F: Fn(McpRequest, Next) -> Fut + Clone + Send + 'static,
    Fut: Future<Output = Result<McpResponse, BoxError>> + Send + 'static,
{
    FromFnLayer(f)
}

/// The layer [`from_fn`] makes.
#[derive(Clone)]
pub struct FromFnLayer<F>(F);

impl<F> fmt::Debug for FromFnLayer<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("FromFnLayer")
    }
}

impl<F: Clone> Layer<McpService> for FromFnLayer<F> {
    type Service = FromFn<F>;

    fn layer(&self, inner: McpService) -> Self::Service {
        FromFn { f: self.0.clone(), inner }
    }
}

/// The service of a [`from_fn`] layer.
#[derive(Clone)]
pub struct FromFn<F> {
    f: F,
    inner: McpService,
}

impl<F> fmt::Debug for FromFn<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("FromFn")
    }
}

impl<F, Fut> Service<McpRequest> for FromFn<F>
where
    F: Fn(McpRequest, Next) -> Fut,
    Fut: Future<Output = Result<McpResponse, BoxError>> + Send + 'static,
{
    type Response = McpResponse;
    type Error = BoxError;
    type Future = BoxFuture<'static, Result<McpResponse, BoxError>>;

    /// Ready at once: what comes after is made ready when [`Next::run`] calls it.
    fn poll_ready(&mut self, _cx: &mut TaskContext<'_>) -> Poll<Result<(), BoxError>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: McpRequest) -> Self::Future {
        Box::pin((self.f)(request, Next(self.inner.clone())))
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
