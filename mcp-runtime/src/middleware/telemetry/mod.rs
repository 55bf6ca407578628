//! Telemetry as OpenTelemetry's semantic conventions for MCP describe it (status:
//! development): a SERVER span per request, the `mcp.server.operation.duration` and
//! `mcp.server.session.duration` histograms, exported over OTLP as the standard `OTEL_*`
//! environment variables say, and the same metrics as Prometheus text.
//!
//! [`Server::telemetry`](crate::Server::telemetry) adds it; [`Server::run`](crate::Server::run)
//! adds it by itself when the `telemetry` feature is built, exports what `OTEL_*` asks for,
//! serves `/metrics` with `--http`, and flushes what is pending when it stops.

mod config;
mod layer;
mod prometheus;

pub use config::TelemetryError;

use std::sync::Arc;
use std::time::Duration;

use opentelemetry::KeyValue;
use opentelemetry::metrics::{Histogram, MeterProvider as _};
use opentelemetry::trace::TracerProvider as _;
use opentelemetry_sdk::metrics::{ManualReader, SdkMeterProvider};
use opentelemetry_sdk::trace::{SdkTracer, SdkTracerProvider};

use super::Transport;
use crate::protocol::Revision;

/// The bucket boundaries, in seconds, the conventions give `mcp.server.operation.duration`.
pub const OPERATION_BUCKETS: [f64; 14] =
    [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0];

/// The bucket boundaries, in seconds, of `mcp.server.session.duration`.
pub const SESSION_BUCKETS: [f64; 15] =
    [0.01, 0.05, 0.1, 0.5, 1.0, 5.0, 10.0, 30.0, 60.0, 300.0, 900.0, 1800.0, 3600.0, 21600.0, 86400.0];

/// A server's telemetry: its spans (when traces are exported), its histograms, and what
/// reads them for `/metrics`. Cheap to clone: the clones share everything.
///
/// ```no_run
/// use mcp_runtime::Server;
/// use mcp_runtime::telemetry::Telemetry;
///
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// // Exports what OTEL_EXPORTER_OTLP_ENDPOINT (and the rest of OTEL_*) says; nothing when unset.
/// let telemetry = Telemetry::from_env("gifts")?;
/// let server = Server::builder("gifts", "1.0.0").telemetry(telemetry.clone());
/// // ... serve, then:
/// telemetry.shutdown();
/// # drop(server);
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct Telemetry(Arc<Inner>);

struct Inner {
    tracer: Option<(SdkTracerProvider, SdkTracer)>,
    meters: SdkMeterProvider,
    /// What `/metrics` reads.
    reader: SharedReader,
    operation: Histogram<f64>,
    session: Histogram<f64>,
    /// Where OTLP goes, for the start-up line.
    exporting: String,
    /// Spans or metrics go out over OTLP.
    exports: bool,
}

impl std::fmt::Debug for Telemetry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Telemetry").field("exporting", &self.0.exporting).finish_non_exhaustive()
    }
}

/// The pull reader `/metrics` renders from, shared between the meter provider and the
/// telemetry that serves it.
#[derive(Debug, Clone)]
struct SharedReader(Arc<ManualReader>);

impl opentelemetry_sdk::metrics::reader::MetricReader for SharedReader {
    fn register_pipeline(&self, pipeline: std::sync::Weak<opentelemetry_sdk::metrics::Pipeline>) {
        self.0.register_pipeline(pipeline);
    }

    fn collect(
        &self,
        rm: &mut opentelemetry_sdk::metrics::data::ResourceMetrics,
    ) -> opentelemetry_sdk::error::OTelSdkResult {
        self.0.collect(rm)
    }

    fn force_flush(&self) -> opentelemetry_sdk::error::OTelSdkResult {
        self.0.force_flush()
    }

    fn shutdown_with_timeout(&self, timeout: Duration) -> opentelemetry_sdk::error::OTelSdkResult {
        self.0.shutdown_with_timeout(timeout)
    }

    fn temporality(&self, kind: opentelemetry_sdk::metrics::InstrumentKind) -> opentelemetry_sdk::metrics::Temporality {
        self.0.temporality(kind)
    }
}

impl Telemetry {
    /// Telemetry exporting nothing: spans are not made, the histograms are kept for
    /// `/metrics` only.
    pub fn local() -> Self {
        Telemetry::build(None, None, "nothing (no OTEL_EXPORTER_OTLP_ENDPOINT)".to_owned())
    }

    /// Telemetry exporting over OTLP as the `OTEL_*` environment variables say
    /// (`OTEL_EXPORTER_OTLP_ENDPOINT` and the per-signal endpoints,
    /// `OTEL_EXPORTER_OTLP_PROTOCOL` `http/protobuf` or `http/json`,
    /// `OTEL_EXPORTER_OTLP_HEADERS`, `OTEL_SERVICE_NAME`, `OTEL_RESOURCE_ATTRIBUTES`,
    /// `OTEL_TRACES_SAMPLER`); `service` names the service when `OTEL_SERVICE_NAME` does not.
    /// Nothing is exported when no endpoint is set. A value it cannot follow (`grpc`, an
    /// `https://` endpoint, a malformed header) is an error saying so.
    pub fn from_env(service: &str) -> Result<Self, TelemetryError> {
        let settings = config::Settings::from_env(|name| std::env::var(name).ok())?;
        let resource = config::resource(service);
        let tracer = match &settings.traces {
            None => None,
            Some(endpoint) => Some(config::tracer_provider(&settings, endpoint, resource.clone())?),
        };
        let exporter = match &settings.metrics {
            None => None,
            Some(endpoint) => Some(config::metric_exporter(&settings, endpoint)?),
        };
        let exporting = settings.describe();
        Ok(Telemetry::build(tracer, exporter.map(|e| (e, resource)), exporting))
    }

    fn build(
        tracer: Option<SdkTracerProvider>,
        exporter: Option<(opentelemetry_otlp::MetricExporter, opentelemetry_sdk::Resource)>,
        exporting: String,
    ) -> Self {
        let exports = tracer.is_some() || exporter.is_some();
        let reader = SharedReader(Arc::new(ManualReader::builder().build()));
        let mut meters = SdkMeterProvider::builder().with_reader(reader.clone());
        match exporter {
            Some((exporter, resource)) => {
                meters = meters.with_periodic_exporter(exporter).with_resource(resource);
            }
            None => meters = meters.with_resource(config::resource("mcp-server")),
        }
        let meters = meters.build();
        let meter = meters.meter("mcp-runtime");
        let operation = meter
            .f64_histogram("mcp.server.operation.duration")
            .with_unit("s")
            .with_description(
                "MCP request duration as observed on the server, from its arrival until its answer is sent",
            )
            .with_boundaries(OPERATION_BUCKETS.to_vec())
            .build();
        let session = meter
            .f64_histogram("mcp.server.session.duration")
            .with_unit("s")
            .with_description("The duration of the MCP session as observed on the server")
            .with_boundaries(SESSION_BUCKETS.to_vec())
            .build();
        let tracer = tracer.map(|provider| {
            let tracer = provider.tracer("mcp-runtime");
            (provider, tracer)
        });
        Telemetry(Arc::new(Inner { tracer, meters, reader, operation, session, exporting, exports }))
    }

    /// Whether it exports anything over OTLP.
    pub fn exports(&self) -> bool {
        self.0.exports
    }

    /// What it exports, and where (for the start-up line).
    pub fn exporting(&self) -> &str {
        &self.0.exporting
    }

    /// The metrics as Prometheus text (what `/metrics` answers).
    pub fn prometheus_text(&self) -> String {
        let mut collected = opentelemetry_sdk::metrics::data::ResourceMetrics::default();
        use opentelemetry_sdk::metrics::reader::MetricReader as _;
        match self.0.reader.collect(&mut collected) {
            Ok(()) => prometheus::render(&collected),
            Err(e) => format!("# the metrics could not be collected: {e}\n"),
        }
    }

    /// Exports what is pending and stops exporting (call once, when the server stops).
    pub fn shutdown(&self) {
        if let Some((provider, _)) = &self.0.tracer
            && let Err(e) = provider.shutdown()
        {
            tracing::warn!(error = %e, "flushing the pending spans failed");
        }
        if let Err(e) = self.0.meters.shutdown() {
            tracing::debug!(error = %e, "flushing the pending metrics failed");
        }
    }

    /// A `tracing` layer sending the application's own spans and events to the same traces
    /// (what `run()` installs).
    pub fn tracing_layer<S>(&self) -> Option<impl tracing_subscriber::Layer<S> + 'static>
    where
        S: tracing::Subscriber + for<'span> tracing_subscriber::registry::LookupSpan<'span>,
    {
        let (_, tracer) = self.0.tracer.as_ref()?;
        Some(tracing_opentelemetry::layer().with_tracer(tracer.clone()))
    }

    /// Records a session that ended (handshake revisions).
    pub(crate) fn session_ended(&self, lasted: Duration, revision: Revision, transport: Transport, failed: bool) {
        let mut attributes = vec![
            KeyValue::new("mcp.protocol.version", revision.as_str()),
            KeyValue::new("network.transport", transport.network_transport()),
        ];
        if failed {
            attributes.push(KeyValue::new("error.type", "transport_error"));
        }
        self.0.session.record(lasted.as_secs_f64(), &attributes);
    }
}
