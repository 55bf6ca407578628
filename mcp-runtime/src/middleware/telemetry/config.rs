//! What the standard `OTEL_*` environment variables ask for, read once at start-up, and the
//! exporters that follow it. A value this build cannot follow is an error that says so,
//! never a silent fallback.

use std::collections::HashMap;
use std::fmt;

use opentelemetry_otlp::{Protocol, WithExportConfig as _, WithHttpConfig as _};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::trace::SdkTracerProvider;

/// Why telemetry could not start as the environment asks. Its `Debug` is its message, so that
/// a `main` returning it prints something a person can act on.
#[derive(Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum TelemetryError {
    /// `OTEL_EXPORTER_OTLP_PROTOCOL` names a protocol this build does not speak.
    UnsupportedProtocol(String),
    /// An endpoint this build cannot reach (not a URL, or an `https://` one in a build without
    /// feature `tls`).
    UnsupportedEndpoint {
        /// The variable that named it.
        variable: &'static str,
        /// The endpoint.
        endpoint: String,
    },
    /// `OTEL_EXPORTER_OTLP_HEADERS` is not `key=value,key=value`.
    MalformedHeaders(String),
    /// The exporter could not be built.
    Exporter(String),
}

impl fmt::Display for TelemetryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TelemetryError::UnsupportedProtocol(protocol) => write!(
                f,
                "OTEL_EXPORTER_OTLP_PROTOCOL={protocol} is not supported: use http/protobuf (the default) or http/json"
            ),
            TelemetryError::UnsupportedEndpoint { variable, endpoint } => write!(
                f,
                "{variable}={endpoint} cannot be used: {}",
                if cfg!(feature = "tls") {
                    "give an http:// or https:// URL"
                } else {
                    "this build's OTLP exporter speaks plain http:// (build mcp-runtime with feature `tls` for https://)"
                }
            ),
            TelemetryError::MalformedHeaders(entry) => {
                write!(f, "OTEL_EXPORTER_OTLP_HEADERS: `{entry}` is not `key=value`")
            }
            TelemetryError::Exporter(why) => write!(f, "the OTLP exporter could not be built: {why}"),
        }
    }
}

impl fmt::Debug for TelemetryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl std::error::Error for TelemetryError {}

/// What the environment asks for.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Settings {
    pub(crate) protocol: Protocol,
    /// Where spans go; `None`: they are not exported.
    pub(crate) traces: Option<String>,
    /// Where metrics go; `None`: they are not exported.
    pub(crate) metrics: Option<String>,
    pub(crate) headers: HashMap<String, String>,
}

impl Settings {
    /// Reads the variables through `get` (the process environment, or a test's map).
    pub(crate) fn from_env(get: impl Fn(&str) -> Option<String>) -> Result<Settings, TelemetryError> {
        let get = |name: &str| get(name).map(|value| value.trim().to_owned()).filter(|value| !value.is_empty());
        let protocol = match get("OTEL_EXPORTER_OTLP_PROTOCOL").as_deref() {
            None | Some("http/protobuf") => Protocol::HttpBinary,
            Some("http/json") => Protocol::HttpJson,
            Some(other) => return Err(TelemetryError::UnsupportedProtocol(other.to_owned())),
        };
        let disabled = get("OTEL_SDK_DISABLED").is_some_and(|v| v.eq_ignore_ascii_case("true"));
        let base = get("OTEL_EXPORTER_OTLP_ENDPOINT");
        let endpoint = |variable: &'static str, path: &str| -> Result<Option<String>, TelemetryError> {
            let (variable, endpoint) = match (get(variable), &base) {
                _ if disabled => return Ok(None),
                (Some(own), _) => (variable, own),
                (None, Some(base)) => ("OTEL_EXPORTER_OTLP_ENDPOINT", format!("{}/{path}", base.trim_end_matches('/'))),
                (None, None) => return Ok(None),
            };
            let rest = endpoint.strip_prefix("http://");
            // https:// needs the TLS client (feature `tls`).
            #[cfg(feature = "tls")]
            let rest = rest.or_else(|| endpoint.strip_prefix("https://"));
            match rest {
                Some(rest) if !rest.is_empty() => Ok(Some(endpoint)),
                _ => Err(TelemetryError::UnsupportedEndpoint { variable, endpoint }),
            }
        };
        let traces = endpoint("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "v1/traces")?;
        let metrics = endpoint("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", "v1/metrics")?;
        let headers = match get("OTEL_EXPORTER_OTLP_HEADERS") {
            None => HashMap::new(),
            Some(list) => parse_headers(&list)?,
        };
        Ok(Settings { protocol, traces, metrics, headers })
    }

    /// What is exported where, in a few words.
    pub(crate) fn describe(&self) -> String {
        let protocol = match self.protocol {
            Protocol::HttpJson => "http/json",
            _ => "http/protobuf",
        };
        match (&self.traces, &self.metrics) {
            (None, None) => "nothing (no OTEL_EXPORTER_OTLP_ENDPOINT)".to_owned(),
            (traces, metrics) => {
                let each = |what: &str, to: &Option<String>| to.as_ref().map(|to| format!("{what} to {to}"));
                let parts: Vec<String> =
                    [each("spans", traces), each("metrics", metrics)].into_iter().flatten().collect();
                format!("{} over OTLP {protocol}", parts.join(" and "))
            }
        }
    }
}

/// `key=value,key=value`, values percent-decoded, as the specification writes headers.
fn parse_headers(list: &str) -> Result<HashMap<String, String>, TelemetryError> {
    let mut headers = HashMap::new();
    for entry in list.split(',').map(str::trim).filter(|entry| !entry.is_empty()) {
        let Some((key, value)) = entry.split_once('=') else {
            return Err(TelemetryError::MalformedHeaders(entry.to_owned()));
        };
        let key = key.trim();
        if key.is_empty() {
            return Err(TelemetryError::MalformedHeaders(entry.to_owned()));
        }
        headers.insert(key.to_owned(), percent_decode(value.trim()));
    }
    Ok(headers)
}

fn percent_decode(value: &str) -> String {
    let bytes = value.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut at = 0;
    while at < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match (bytes[at], bytes.get(at + 1).copied().and_then(hex), bytes.get(at + 2).copied().and_then(hex)) {
            (b'%', Some(high), Some(low)) => {
                out.push((high * 16 + low) as u8);
                at += 3;
            }
            (byte, ..) => {
                out.push(byte);
                at += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The resource telemetry describes: what `OTEL_SERVICE_NAME` and `OTEL_RESOURCE_ATTRIBUTES`
/// say, the service named `service` when they name none.
pub(crate) fn resource(service: &str) -> Resource {
    let named = std::env::var("OTEL_SERVICE_NAME").is_ok_and(|name| !name.trim().is_empty())
        || std::env::var("OTEL_RESOURCE_ATTRIBUTES").is_ok_and(|attributes| attributes.contains("service.name="));
    match named {
        true => Resource::builder().build(),
        false => Resource::builder().with_service_name(service.to_owned()).build(),
    }
}

/// The exporters' HTTP client: the runtime's TLS one where built with it, else reqwest's plain
/// blocking one.
fn client() -> Result<reqwest::blocking::Client, TelemetryError> {
    #[cfg(feature = "tls")]
    return crate::util::http_client::blocking().map_err(TelemetryError::Exporter);
    #[cfg(not(feature = "tls"))]
    reqwest::blocking::Client::builder().build().map_err(|e| TelemetryError::Exporter(e.to_string()))
}

/// Spans exported in batches to `endpoint` (sampled as `OTEL_TRACES_SAMPLER` says).
pub(crate) fn tracer_provider(
    settings: &Settings,
    endpoint: &str,
    resource: Resource,
) -> Result<SdkTracerProvider, TelemetryError> {
    let exporter = opentelemetry_otlp::SpanExporter::builder()
        .with_http()
        .with_protocol(settings.protocol)
        .with_endpoint(endpoint)
        .with_headers(settings.headers.clone())
        .with_http_client(client()?)
        .build()
        .map_err(|e| TelemetryError::Exporter(e.to_string()))?;
    Ok(SdkTracerProvider::builder().with_batch_exporter(exporter).with_resource(resource).build())
}

/// Metrics exported to `endpoint` (every `OTEL_METRIC_EXPORT_INTERVAL` milliseconds).
pub(crate) fn metric_exporter(
    settings: &Settings,
    endpoint: &str,
) -> Result<opentelemetry_otlp::MetricExporter, TelemetryError> {
    opentelemetry_otlp::MetricExporter::builder()
        .with_http()
        .with_protocol(settings.protocol)
        .with_endpoint(endpoint)
        .with_headers(settings.headers.clone())
        .with_http_client(client()?)
        .build()
        .map_err(|e| TelemetryError::Exporter(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(vars: &[(&str, &str)]) -> Result<Settings, TelemetryError> {
        let vars: HashMap<String, String> = vars.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect();
        Settings::from_env(|name| vars.get(name).cloned())
    }

    #[test]
    fn nothing_is_exported_without_an_endpoint() {
        let none = settings(&[("OTEL_EXPORTER_OTLP_PROTOCOL", "http/json")]).unwrap();
        assert_eq!((none.traces, none.metrics), (None, None));
        let disabled =
            settings(&[("OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318"), ("OTEL_SDK_DISABLED", "true")])
                .unwrap();
        assert_eq!((disabled.traces, disabled.metrics), (None, None));
    }

    #[test]
    fn the_base_endpoint_gets_the_signal_paths_and_signal_endpoints_are_used_as_given() {
        let base = settings(&[("OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318/")]).unwrap();
        assert_eq!(base.traces.as_deref(), Some("http://collector:4318/v1/traces"));
        assert_eq!(base.metrics.as_deref(), Some("http://collector:4318/v1/metrics"));
        assert_eq!(base.protocol, Protocol::HttpBinary);
        let own = settings(&[
            ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318"),
            ("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "http://traces:9999/custom"),
        ])
        .unwrap();
        assert_eq!(own.traces.as_deref(), Some("http://traces:9999/custom"));
        assert_eq!(own.metrics.as_deref(), Some("http://collector:4318/v1/metrics"));
        let only_metrics = settings(&[("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", "http://m:1/x")]).unwrap();
        assert_eq!((only_metrics.traces, only_metrics.metrics.as_deref()), (None, Some("http://m:1/x")));
    }

    #[test]
    fn what_cannot_be_followed_is_an_error_naming_it() {
        let grpc = settings(&[("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")]).unwrap_err();
        assert_eq!(grpc, TelemetryError::UnsupportedProtocol("grpc".into()));
        assert!(grpc.to_string().contains("http/json"), "{grpc}");
        let tls = settings(&[("OTEL_EXPORTER_OTLP_ENDPOINT", "https://collector:4318")]);
        if cfg!(feature = "tls") {
            assert_eq!(tls.unwrap().traces.as_deref(), Some("https://collector:4318/v1/traces"));
        } else {
            let e = tls.unwrap_err();
            assert!(matches!(e, TelemetryError::UnsupportedEndpoint { variable: "OTEL_EXPORTER_OTLP_ENDPOINT", .. }));
            assert!(e.to_string().contains("feature `tls`"), "{e}");
        }
        let odd = settings(&[("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "ftp://collector")]).unwrap_err();
        assert!(matches!(
            odd,
            TelemetryError::UnsupportedEndpoint { variable: "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", .. }
        ));
        let headers = settings(&[("OTEL_EXPORTER_OTLP_HEADERS", "a=1,broken")]).unwrap_err();
        assert_eq!(headers, TelemetryError::MalformedHeaders("broken".into()));
    }

    #[test]
    fn headers_are_split_and_percent_decoded() {
        let s = settings(&[("OTEL_EXPORTER_OTLP_HEADERS", "api-key=a%20b%3Dc, x-tenant = acme ,")]).unwrap();
        assert_eq!(s.headers.get("api-key").map(String::as_str), Some("a b=c"));
        assert_eq!(s.headers.get("x-tenant").map(String::as_str), Some("acme"));
        assert_eq!(s.headers.len(), 2);
    }
}
