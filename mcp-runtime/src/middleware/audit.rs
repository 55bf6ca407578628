//! An audit trail: one structured `tracing` event per request, saying who asked for what,
//! how it ended and how long it took.

use std::task::{Context as TaskContext, Poll};
use std::time::Instant;

use tower_layer::Layer;
use tower_service::Service;

use crate::util::BoxFuture;

use super::{BoxError, McpRequest, McpResponse, McpService, Target};

/// A layer writing one `tracing` event per request, at `info` under the target
/// `mcp_runtime::audit`: `caller`, `method`, `item` (the tool, prompt or resource),
/// `request_id`, `revision`, `transport`, `outcome` (`ok`, `error` or `tool_error`),
/// `error_code`, `duration_ms`. The arguments are left out unless
/// [`with_arguments`](Self::with_arguments) asks for them.
///
/// ```
/// use mcp_runtime::Server;
/// use mcp_runtime::middleware::Audit;
///
/// let server = Server::builder("gifts", "1.0.0").layer(Audit::new());
/// # let _ = server;
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct Audit {
    arguments: bool,
}

impl Audit {
    /// An audit layer that leaves the arguments out.
    pub fn new() -> Self {
        Audit::default()
    }

    /// Writes each request's params too (they may hold what should not be logged).
    #[must_use]
    pub fn with_arguments(self) -> Self {
        Audit { arguments: true }
    }
}

impl Layer<McpService> for Audit {
    type Service = Audited;

    fn layer(&self, inner: McpService) -> Audited {
        Audited { audit: *self, inner }
    }
}

/// The service of an [`Audit`] layer.
#[derive(Debug, Clone)]
pub struct Audited {
    audit: Audit,
    inner: McpService,
}

impl Service<McpRequest> for Audited {
    type Response = McpResponse;
    type Error = BoxError;
    type Future = BoxFuture<'static, Result<McpResponse, BoxError>>;

    fn poll_ready(&mut self, cx: &mut TaskContext<'_>) -> Poll<Result<(), BoxError>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: McpRequest) -> Self::Future {
        let caller = request.caller().to_string();
        let method = request.method();
        let item = request.target().map(Target::name).map(str::to_owned);
        let id = request.id().to_string();
        let revision = request.revision();
        let transport = request.transport();
        let arguments = self.audit.arguments.then(|| request.params().map(|p| p.get().to_owned())).flatten();
        let started = Instant::now();
        let answer = self.inner.call(request);
        Box::pin(async move {
            let answer = answer.await;
            let (outcome, error_code) = match &answer {
                Ok(response) if response.is_tool_error() => ("tool_error", None),
                Ok(response) => match response.error_code() {
                    Some(code) => ("error", Some(code)),
                    None => ("ok", None),
                },
                Err(_) => ("error", None),
            };
            tracing::info!(
                target: "mcp_runtime::audit",
                caller,
                method,
                item,
                request_id = id,
                revision = revision.as_str(),
                transport = transport.as_str(),
                outcome,
                error_code,
                duration_ms = started.elapsed().as_secs_f64() * 1e3,
                arguments,
                "request answered",
            );
            answer
        })
    }
}
