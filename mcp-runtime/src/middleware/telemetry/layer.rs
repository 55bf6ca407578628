//! The telemetry layer: a SERVER span per request and one `mcp.server.operation.duration`
//! measurement, with the conventions' attributes.

use std::collections::HashMap;
use std::task::{Context as TaskContext, Poll};
use std::time::Instant;

use opentelemetry::propagation::TextMapPropagator as _;
use opentelemetry::trace::{Link, SpanKind, Status, TraceContextExt as _, Tracer as _};
use opentelemetry::{Context, KeyValue};
use opentelemetry_sdk::propagation::TraceContextPropagator;
use tower_layer::Layer;
use tower_service::Service;

use super::Telemetry;
use crate::middleware::{BoxError, McpRequest, McpResponse, McpService, Target};
use crate::protocol::{member, members, string_value};
use crate::util::BoxFuture;

impl Layer<McpService> for Telemetry {
    type Service = Traced;

    fn layer(&self, inner: McpService) -> Traced {
        Traced { telemetry: self.clone(), inner }
    }
}

/// The service of the telemetry layer.
#[derive(Debug, Clone)]
pub struct Traced {
    telemetry: Telemetry,
    inner: McpService,
}

impl Service<McpRequest> for Traced {
    type Response = McpResponse;
    type Error = BoxError;
    type Future = BoxFuture<'static, Result<McpResponse, BoxError>>;

    fn poll_ready(&mut self, cx: &mut TaskContext<'_>) -> Poll<Result<(), BoxError>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut request: McpRequest) -> Self::Future {
        let started = Instant::now();
        let method = request.method();
        let mut measured = vec![
            KeyValue::new("mcp.method.name", method),
            KeyValue::new("mcp.protocol.version", request.revision().as_str()),
            KeyValue::new("network.transport", request.transport().network_transport()),
        ];
        let mut described = Vec::new();
        let name = match request.target() {
            Some(Target::Tool(tool)) => {
                measured.push(KeyValue::new("gen_ai.tool.name", tool.to_owned()));
                measured.push(KeyValue::new("gen_ai.operation.name", "execute_tool"));
                format!("{method} {tool}")
            }
            Some(Target::Prompt(prompt)) => {
                measured.push(KeyValue::new("gen_ai.prompt.name", prompt.to_owned()));
                format!("{method} {prompt}")
            }
            // A URI is no low-cardinality name: an attribute of the span only.
            Some(Target::Resource(uri)) => {
                described.push(KeyValue::new("mcp.resource.uri", uri.to_owned()));
                method.to_owned()
            }
            None => method.to_owned(),
        };
        let span = self.telemetry.0.tracer.as_ref().map(|(_, tracer)| {
            described.push(KeyValue::new("jsonrpc.request.id", request.id().to_string()));
            if let Some(session) = request.session_id() {
                described.push(KeyValue::new("mcp.session.id", session.to_owned()));
            }
            described.extend(measured.iter().cloned());
            let (parent, links) = parents(&request);
            let span = tracer
                .span_builder(name)
                .with_kind(SpanKind::Server)
                .with_attributes(described)
                .with_links(links)
                .start_with_context(tracer, &parent);
            parent.with_span(span)
        });
        // The handler's own spans (and the runtime's span around it) are the server span's
        // children.
        request.trace = span.clone();
        let answer = self.inner.call(request);
        let telemetry = self.telemetry.clone();
        Box::pin(async move {
            let answer = answer.await;
            let failure = match &answer {
                Ok(response) if response.is_tool_error() => {
                    Some(("tool_error".to_owned(), None, "the tool reported an error".to_owned()))
                }
                Ok(response) => response.error_code().map(|code| {
                    let message = response.result().err().map(|e| e.message).unwrap_or_default();
                    (code.to_string(), Some(code.to_string()), message)
                }),
                Err(e) => Some(("_OTHER".to_owned(), None, e.to_string())),
            };
            if let Some((error_type, status_code, _)) = &failure {
                measured.push(KeyValue::new("error.type", error_type.clone()));
                if let Some(code) = status_code {
                    measured.push(KeyValue::new("rpc.response.status_code", code.clone()));
                }
            }
            telemetry.0.operation.record(started.elapsed().as_secs_f64(), &measured);
            if let Some(context) = span {
                let span = context.span();
                if let Some((error_type, status_code, message)) = failure {
                    span.set_attribute(KeyValue::new("error.type", error_type));
                    if let Some(code) = status_code {
                        span.set_attribute(KeyValue::new("rpc.response.status_code", code));
                    }
                    span.set_status(Status::error(message));
                }
                span.end();
            }
            answer
        })
    }
}

/// The span's parent and links, as the conventions say: a context in `params._meta` is the
/// parent; one in the HTTP headers is the parent only when `_meta` has none, and a link
/// otherwise.
fn parents(request: &McpRequest) -> (Context, Vec<Link>) {
    let propagator = TraceContextPropagator::new();
    let extract = |traceparent: Option<String>, tracestate: Option<String>| {
        let mut carrier = HashMap::new();
        carrier.insert("traceparent".to_owned(), traceparent?);
        if let Some(tracestate) = tracestate {
            carrier.insert("tracestate".to_owned(), tracestate);
        }
        let context = propagator.extract(&carrier);
        context.span().span_context().is_valid().then_some(context)
    };
    let meta = request.params().and_then(|params| member(params.get(), "_meta"));
    let [traceparent, tracestate] = meta.map(|meta| members(meta, ["traceparent", "tracestate"])).unwrap_or_default();
    let text = |value: Option<&str>| value.and_then(string_value).map(|v| v.into_owned());
    let from_meta = extract(text(traceparent), text(tracestate));
    let header = |name: &str| request.header(name).map(str::to_owned);
    let from_headers = extract(header("traceparent"), header("tracestate"));
    match (from_meta, from_headers) {
        (Some(meta), Some(headers)) => {
            let link = Link::with_context(headers.span().span_context().clone());
            (meta, vec![link])
        }
        (Some(parent), None) | (None, Some(parent)) => (parent, Vec::new()),
        (None, None) => (Context::new(), Vec::new()),
    }
}
