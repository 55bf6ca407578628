//! The service layers wrap, type-erased so that a server is one type whatever its layers, and
//! the list of layers a server is built with.

use std::fmt;
use std::task::{Context as TaskContext, Poll};

use tower_layer::Layer;
use tower_service::Service;

use crate::util::BoxFuture;

use super::{McpRequest, McpResponse};

/// The error a layer may fail a request with: anything that can be boxed. The runtime answers
/// it as an internal error (-32603) carrying its message; a layer that wants another code
/// answers with [`McpResponse::error`] instead.
pub type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// A service that can be cloned behind a box.
trait CloneService: Send {
    fn poll_ready(&mut self, cx: &mut TaskContext<'_>) -> Poll<Result<(), BoxError>>;
    fn call(&mut self, request: McpRequest) -> BoxFuture<'static, Result<McpResponse, BoxError>>;
    fn clone_box(&self) -> Box<dyn CloneService>;
}

impl<S> CloneService for S
where
    S: Service<McpRequest, Response = McpResponse> + Clone + Send + 'static,
    S::Error: Into<BoxError>,
    S::Future: Send + 'static,
{
    fn poll_ready(&mut self, cx: &mut TaskContext<'_>) -> Poll<Result<(), BoxError>> {
        Service::poll_ready(self, cx).map_err(Into::into)
    }

    fn call(&mut self, request: McpRequest) -> BoxFuture<'static, Result<McpResponse, BoxError>> {
        let answer = Service::call(self, request);
        Box::pin(async move { answer.await.map_err(Into::into) })
    }

    fn clone_box(&self) -> Box<dyn CloneService> {
        Box::new(self.clone())
    }
}

/// The service every layer wraps: it answers MCP requests (the runtime's methods, inside
/// whatever layers were added after the one wrapping it).
///
/// A layer given to [`Server::layer`](crate::Server::layer) is a [`Layer`] over this type;
/// any tower layer whose service keeps the request and response types composes with it.
pub struct McpService(Box<dyn CloneService>);

impl McpService {
    /// Wraps any service of MCP requests.
    pub fn new<S>(service: S) -> Self
    where
        S: Service<McpRequest, Response = McpResponse> + Clone + Send + 'static,
        S::Error: Into<BoxError>,
        S::Future: Send + 'static,
    {
        McpService(Box::new(service))
    }

    /// Waits until it is ready, then calls it with `request` (what tower's `oneshot` does).
    pub async fn oneshot(mut self, request: McpRequest) -> Result<McpResponse, BoxError> {
        std::future::poll_fn(|cx| self.0.poll_ready(cx)).await?;
        self.0.call(request).await
    }

    /// The innermost service: the request's method, with the params the layers left it.
    fn methods() -> Self {
        McpService::new(Methods)
    }
}

impl Clone for McpService {
    fn clone(&self) -> Self {
        McpService(self.0.clone_box())
    }
}

impl fmt::Debug for McpService {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("McpService")
    }
}

impl Service<McpRequest> for McpService {
    type Response = McpResponse;
    type Error = BoxError;
    type Future = BoxFuture<'static, Result<McpResponse, BoxError>>;

    fn poll_ready(&mut self, cx: &mut TaskContext<'_>) -> Poll<Result<(), BoxError>> {
        self.0.poll_ready(cx)
    }

    fn call(&mut self, request: McpRequest) -> Self::Future {
        self.0.call(request)
    }
}

/// The runtime's methods, as the innermost service.
#[derive(Debug, Clone, Copy)]
struct Methods;

impl Service<McpRequest> for Methods {
    type Response = McpResponse;
    type Error = BoxError;
    type Future = BoxFuture<'static, Result<McpResponse, BoxError>>;

    fn poll_ready(&mut self, _cx: &mut TaskContext<'_>) -> Poll<Result<(), BoxError>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, mut request: McpRequest) -> Self::Future {
        match request.proceed.take() {
            Some(proceed) => proceed(super::Inward {
                params: request.params.take(),
                visible: request.visible.take(),
                #[cfg(feature = "telemetry")]
                trace: request.trace.take(),
            }),
            // A request is made with its way in and called inward once.
            None => Box::pin(async { Err("the request was already answered".into()) }),
        }
    }
}

/// What wraps the service built so far in one more layer.
type Wrap = Box<dyn FnOnce(McpService) -> McpService + Send>;

/// The layers a server is built with, in the order they were added.
#[derive(Default)]
pub(crate) struct Layers {
    wraps: Vec<Wrap>,
    /// How many of the first are telemetry (which sees what the runtime's own checks refuse).
    #[cfg_attr(not(any(feature = "http", feature = "telemetry")), allow(dead_code))]
    telemetry_first: usize,
    /// How many are the runtime's own checks.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    checks: usize,
}

impl fmt::Debug for Layers {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Layers({})", self.wraps.len())
    }
}

impl Layers {
    pub(crate) fn push<L: McpLayer>(&mut self, layer: L) {
        self.wraps.push(Box::new(move |inner| McpService::new(layer.layer(inner))));
    }

    /// Adds telemetry where the application asked: when first, it stays outside the runtime's
    /// own checks.
    #[cfg(feature = "telemetry")]
    pub(crate) fn push_telemetry<L>(&mut self, layer: L)
    where
        L: Layer<McpService> + Send + 'static,
        L::Service: Service<McpRequest, Response = McpResponse> + Clone + Send + 'static,
        <L::Service as Service<McpRequest>>::Error: Into<BoxError>,
        <L::Service as Service<McpRequest>>::Future: Send + 'static,
    {
        if self.wraps.len() == self.telemetry_first {
            self.telemetry_first += 1;
        }
        self.push(layer);
    }

    /// Adds one of the runtime's own checks (the scope check) outside every layer of the
    /// application's, inside leading telemetry.
    #[cfg(feature = "http")]
    pub(crate) fn push_check<L>(&mut self, layer: L)
    where
        L: Layer<McpService> + Send + 'static,
        L::Service: Service<McpRequest, Response = McpResponse> + Clone + Send + 'static,
        <L::Service as Service<McpRequest>>::Error: Into<BoxError>,
        <L::Service as Service<McpRequest>>::Future: Send + 'static,
    {
        self.wraps.insert(self.telemetry_first, Box::new(move |inner| McpService::new(layer.layer(inner))));
        self.checks += 1;
    }

    /// Whether every layer is one of the runtime's own checks: a request they have nothing to
    /// check need not pass them.
    pub(crate) fn only_checks(&self) -> bool {
        !self.wraps.is_empty() && self.wraps.len() == self.checks
    }

    /// Adds telemetry outside every layer added so far (the first a request passes).
    #[cfg(all(feature = "telemetry", feature = "stdio"))]
    pub(crate) fn push_outermost<L>(&mut self, layer: L)
    where
        L: Layer<McpService> + Send + 'static,
        L::Service: Service<McpRequest, Response = McpResponse> + Clone + Send + 'static,
        <L::Service as Service<McpRequest>>::Error: Into<BoxError>,
        <L::Service as Service<McpRequest>>::Future: Send + 'static,
    {
        self.wraps.insert(0, Box::new(move |inner| McpService::new(layer.layer(inner))));
        self.telemetry_first += 1;
    }

    /// The service a request enters: the first layer added is the outermost, so requests pass
    /// the layers in the order they were added. `None` without layers: requests go straight to
    /// their methods.
    pub(crate) fn build(self) -> Option<McpService> {
        if self.wraps.is_empty() {
            return None;
        }
        Some(self.wraps.into_iter().rev().fold(McpService::methods(), |inner, wrap| wrap(inner)))
    }
}

/// What [`Server::layer`](crate::Server::layer) takes: a tower [`Layer`] over [`McpService`],
/// `Send` and `'static`. Every such layer is one; a function or closure becomes one through
/// [`from_fn`](super::from_fn).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a layer: `Server::layer` takes a tower `Layer` over `McpService`",
    label = "not a `Layer<McpService>`",
    note = "for a function `async |request: McpRequest, next: Next| -> Result<McpResponse, BoxError>`, wrap it in `middleware::from_fn`: `.layer(from_fn(my_function))`, or `.layer(from_fn(|request, next| async move {{ next.run(request).await }}))`"
)]
pub trait McpLayer:
    Layer<
        McpService,
        Service: Service<McpRequest, Response = McpResponse, Error: Into<BoxError>, Future: Send + 'static>
                     + Clone
                     + Send
                     + 'static,
    > + Send
    + 'static
{
}

impl<L> McpLayer for L
where
    L: Layer<McpService> + Send + 'static,
    L::Service: Service<McpRequest, Response = McpResponse> + Clone + Send + 'static,
    <L::Service as Service<McpRequest>>::Error: Into<BoxError>,
    <L::Service as Service<McpRequest>>::Future: Send + 'static,
{
}
