//! Telemetry read back where it goes, from `examples/middleware` started as a user would: OTLP
//! to a receiver on loopback, over http/json and http/protobuf (the span names, kinds,
//! attributes, parents and links; the histograms; the resource; the headers), and the same
//! metrics scraped by a real Prometheus, read back through its HTTP API.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use mcp_tests::example_binary;
use mcp_tests::http::{HttpServer, initialize, post, send};
use mcp_tests::services::{KillOnDrop, ensure_installed, free_port, wait_for_port};
use mcp_tests::wire::{CLIENT_CAPABILITIES_KEY, PROTOCOL_VERSION_KEY, STATELESS_REVISION};
use prost::Message as _;
use serde_json::{Value, json};

/// One OTLP export as received: its path, content type, headers and body.
#[derive(Debug, Clone)]
struct Export {
    path: String,
    content_type: String,
    headers: HashMap<String, String>,
    body: Vec<u8>,
    /// When it arrived.
    at: Instant,
}

/// An OTLP/HTTP receiver on a loopback port: answers every POST with 200 and keeps it.
struct Receiver {
    port: u16,
    exports: Arc<Mutex<Vec<Export>>>,
}

impl Receiver {
    fn start() -> Receiver {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a port");
        let port = listener.local_addr().unwrap().port();
        let exports = Arc::new(Mutex::new(Vec::new()));
        let kept = Arc::clone(&exports);
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let kept = Arc::clone(&kept);
                std::thread::spawn(move || serve_exports(stream, &kept));
            }
        });
        Receiver { port, exports }
    }

    fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    fn taken(&self, path: &str) -> Vec<Export> {
        self.exports.lock().unwrap().iter().filter(|e| e.path == path).cloned().collect()
    }

    /// The spans of every trace export taken so far (OTLP/JSON).
    fn spans(&self) -> Vec<Value> {
        self.taken("/v1/traces")
            .iter()
            .flat_map(|export| nested(&as_json(export, true), ["resourceSpans", "scopeSpans", "spans"]))
            .collect()
    }
}

/// Reads HTTP/1.1 requests off one connection (kept alive) until it closes.
fn serve_exports(stream: std::net::TcpStream, kept: &Mutex<Vec<Export>>) {
    let mut writer = stream.try_clone().expect("a second handle");
    let mut reader = BufReader::new(stream);
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let path = line.split_whitespace().nth(1).unwrap_or("").to_owned();
        let mut headers = HashMap::new();
        loop {
            let mut header = String::new();
            if reader.read_line(&mut header).unwrap_or(0) == 0 {
                return;
            }
            let header = header.trim_end();
            if header.is_empty() {
                break;
            }
            if let Some((name, value)) = header.split_once(':') {
                headers.insert(name.trim().to_ascii_lowercase(), value.trim().to_owned());
            }
        }
        let length: usize = headers.get("content-length").and_then(|l| l.parse().ok()).unwrap_or(0);
        let mut body = vec![0; length];
        if reader.read_exact(&mut body).is_err() {
            return;
        }
        let content_type = headers.get("content-type").cloned().unwrap_or_default();
        let reply_type = content_type.clone();
        kept.lock().unwrap().push(Export { path, content_type, headers, body, at: Instant::now() });
        let reply = if reply_type.contains("json") { "{}" } else { "" };
        let answer =
            format!("HTTP/1.1 200 OK\r\ncontent-type: {reply_type}\r\ncontent-length: {}\r\n\r\n{reply}", reply.len());
        if writer.write_all(answer.as_bytes()).is_err() {
            return;
        }
    }
}

/// An export's body as OTLP/JSON: protobuf bodies are decoded and written as the JSON encoding
/// writes them, so that both protocols are read the same way.
fn as_json(export: &Export, traces: bool) -> Value {
    use opentelemetry_proto::tonic::collector::metrics::v1::ExportMetricsServiceRequest;
    use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
    if export.content_type.contains("json") {
        return serde_json::from_slice(&export.body).expect("an OTLP/JSON body");
    }
    assert_eq!(export.content_type, "application/x-protobuf");
    match traces {
        true => serde_json::to_value(ExportTraceServiceRequest::decode(&export.body[..]).expect("protobuf")).unwrap(),
        false => {
            serde_json::to_value(ExportMetricsServiceRequest::decode(&export.body[..]).expect("protobuf")).unwrap()
        }
    }
}

/// The items three arrays deep in an OTLP body (`resourceSpans[].scopeSpans[].spans[]`).
fn nested(body: &Value, [outer, scope, items]: [&str; 3]) -> Vec<Value> {
    let each = |value: &Value, key: &str| value[key].as_array().cloned().unwrap_or_default();
    each(body, outer).iter().flat_map(|r| each(r, scope)).flat_map(|s| each(&s, items)).collect()
}

/// The value of attribute `key` in an OTLP attribute list, as a string.
fn attribute(attributes: &Value, key: &str) -> Option<String> {
    let found = attributes.as_array()?.iter().find(|a| a["key"] == key)?;
    let value = &found["value"];
    value["stringValue"].as_str().map(str::to_owned).or_else(|| value["intValue"].as_str().map(str::to_owned))
}

const META_TRACE: &str = "4bf92f3577b34da6a3ce929d0e0e4736";
const META_SPAN: &str = "00f067aa0ba902b7";
const HEADER_TRACE: &str = "0af7651916cd43dd8448eb211c80319c";
const HEADER_SPAN: &str = "b7ad6b7169203331";

fn call_gifts(id: u32, meta: Value) -> Value {
    let mut meta = meta;
    meta[PROTOCOL_VERSION_KEY] = json!(STATELESS_REVISION);
    meta[CLIENT_CAPABILITIES_KEY] = json!({});
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
        "name": "suggest_gifts", "arguments": {"age": 30, "relationship": "friend"}, "_meta": meta}})
}

/// Serves `examples/middleware` exporting to `receiver` over `protocol` (with `more` in its
/// environment), makes a few requests, stops it, and returns its spans and metrics. The
/// export intervals are a minute: what arrives was flushed when SIGTERM stopped the server.
fn exported(protocol: &str, more: &[(&str, &str)]) -> (Vec<Value>, Vec<Value>, Vec<Export>) {
    let receiver = Receiver::start();
    let endpoint = receiver.endpoint();
    let env = [
        ("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint.as_str()),
        ("OTEL_EXPORTER_OTLP_PROTOCOL", protocol),
        ("OTEL_EXPORTER_OTLP_HEADERS", "x-api-key=s%3Dcret"),
        ("OTEL_SERVICE_NAME", "gifts-under-test"),
        ("OTEL_RESOURCE_ATTRIBUTES", "deployment.environment=test"),
        ("OTEL_METRIC_EXPORT_INTERVAL", "60000"),
        ("OTEL_BSP_SCHEDULE_DELAY", "60000"),
    ];
    let env: Vec<(&str, &str)> = env.into_iter().chain(more.iter().copied()).collect();
    let mut server = HttpServer::start_with_env(&example_binary("middleware"), &[], &env);
    let url = server.url.clone();
    // 2026-07-28: a trace context in `_meta` and another in the headers.
    let meta = json!({"traceparent": format!("00-{META_TRACE}-{META_SPAN}-01"), "tracestate": "rojo=00f067aa0ba902b7"});
    let header = format!("00-{HEADER_TRACE}-{HEADER_SPAN}-01");
    let answer = post(&url, &call_gifts(1, meta), &[("traceparent", header.as_str())]);
    assert_eq!(answer.status, 200, "{answer:?}");
    // A handshake-era session, traced by its headers only; an unknown tool; a read.
    let opened = post(&url, &initialize("2025-06-18", json!({})), &[("traceparent", header.as_str())]);
    let session = opened.session.clone().expect("a session");
    let headers = [("mcp-session-id", session.as_str()), ("mcp-protocol-version", "2025-06-18")];
    post(&url, &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}), &headers);
    let missing = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "nope"}});
    assert_eq!(post(&url, &missing, &headers).last()["error"]["code"], -32602);
    let read = json!({"jsonrpc": "2.0", "id": 3, "method": "resources/read", "params": {"uri": "gifts://catalog"}});
    assert!(post(&url, &read, &headers).last()["result"]["contents"].is_array());
    // Ending the session ends its loop: its duration is measured.
    assert_eq!(send(&url, "DELETE", None, &headers).status, 204);
    let stopping = Instant::now();
    let status = std::process::Command::new("kill").args(["-TERM", &server.pid().to_string()]).status().unwrap();
    assert!(status.success());
    assert!(server.wait(Duration::from_secs(10)).success(), "the server exits 0 after flushing");
    // The intervals are a minute: everything that arrived was flushed on SIGTERM, none before.
    for export in receiver.exports.lock().unwrap().iter() {
        assert!(export.at >= stopping, "{} was exported before the server was stopped", export.path);
    }
    let spans: Vec<Value> = receiver
        .taken("/v1/traces")
        .iter()
        .flat_map(|export| {
            let body = as_json(export, true);
            let resource = body["resourceSpans"][0]["resource"]["attributes"].clone();
            assert_eq!(attribute(&resource, "service.name").as_deref(), Some("gifts-under-test"));
            assert_eq!(attribute(&resource, "deployment.environment").as_deref(), Some("test"));
            nested(&body, ["resourceSpans", "scopeSpans", "spans"])
        })
        .collect();
    let metrics: Vec<Value> = receiver
        .taken("/v1/metrics")
        .iter()
        .flat_map(|export| nested(&as_json(export, false), ["resourceMetrics", "scopeMetrics", "metrics"]))
        .collect();
    let all = receiver.exports.lock().unwrap().clone();
    (spans, metrics, all)
}

fn check_export(protocol: &str, content_type: &str) {
    let (spans, metrics, exports) = exported(protocol, &[]);
    assert!(!exports.is_empty(), "nothing reached the receiver over {protocol}");
    for export in &exports {
        assert_eq!(export.content_type, content_type, "{protocol}: {}", export.path);
        assert_eq!(export.headers.get("x-api-key").map(String::as_str), Some("s=cret"), "OTEL_EXPORTER_OTLP_HEADERS");
    }
    let named = |name: &str| -> Vec<&Value> { spans.iter().filter(|s| s["name"] == name).collect() };
    let calls = named("tools/call suggest_gifts");
    assert_eq!(calls.len(), 1, "{protocol}: one span for the call among {spans:#?}");
    let call = calls[0];
    assert_eq!(call["kind"], json!(2), "SPAN_KIND_SERVER");
    let attributes = &call["attributes"];
    for (key, value) in [
        ("mcp.method.name", "tools/call"),
        ("gen_ai.tool.name", "suggest_gifts"),
        ("gen_ai.operation.name", "execute_tool"),
        ("jsonrpc.request.id", "1"),
        ("mcp.protocol.version", "2026-07-28"),
        ("network.transport", "tcp"),
    ] {
        assert_eq!(attribute(attributes, key).as_deref(), Some(value), "{protocol}: {key} of {call:#}");
    }
    // The `_meta` context is the parent; the header one a link.
    assert_eq!(call["traceId"].as_str().map(str::to_lowercase).as_deref(), Some(META_TRACE), "{call:#}");
    assert_eq!(call["parentSpanId"].as_str().map(str::to_lowercase).as_deref(), Some(META_SPAN), "{call:#}");
    let link = &call["links"][0];
    assert_eq!(link["traceId"].as_str().map(str::to_lowercase).as_deref(), Some(HEADER_TRACE), "{call:#}");
    assert_eq!(link["spanId"].as_str().map(str::to_lowercase).as_deref(), Some(HEADER_SPAN), "{call:#}");
    // The runtime's span around the handler is the server span's child (through
    // tracing-opentelemetry: a handler's own `tracing` spans join the trace the same way).
    let handler = spans
        .iter()
        .find(|s| s["name"] == "handler" && s["parentSpanId"] == call["spanId"])
        .unwrap_or_else(|| panic!("{protocol}: no handler span under the call among {spans:#?}"));
    assert_eq!(handler["traceId"], call["traceId"]);
    // The header context is the parent when `_meta` has none.
    let init = named("initialize");
    assert_eq!(init.len(), 1, "{spans:#?}");
    assert_eq!(init[0]["parentSpanId"].as_str().map(str::to_lowercase).as_deref(), Some(HEADER_SPAN));
    assert!(init[0]["links"].as_array().is_none_or(Vec::is_empty), "{:#}", init[0]);
    let failed = named("tools/call nope");
    assert_eq!(failed.len(), 1, "{spans:#?}");
    let failed = failed[0];
    assert_eq!(attribute(&failed["attributes"], "error.type").as_deref(), Some("-32602"), "{failed:#}");
    assert_eq!(attribute(&failed["attributes"], "rpc.response.status_code").as_deref(), Some("-32602"));
    assert!(attribute(&failed["attributes"], "mcp.session.id").is_some(), "a session's request names it");
    assert_eq!(failed["status"]["code"], json!(2), "STATUS_CODE_ERROR: {failed:#}");
    let read = named("resources/read");
    assert_eq!(read.len(), 1, "a URI is no span name: {spans:#?}");
    assert_eq!(attribute(&read[0]["attributes"], "mcp.resource.uri").as_deref(), Some("gifts://catalog"));

    let metric = |name: &str| metrics.iter().rev().find(|m| m["name"] == name).unwrap_or_else(|| panic!("no {name}"));
    let operations = metric("mcp.server.operation.duration");
    assert_eq!(operations["unit"], "s");
    let points = operations["histogram"]["dataPoints"].as_array().expect("histogram points");
    let tool_point = points
        .iter()
        .find(|p| attribute(&p["attributes"], "gen_ai.tool.name").as_deref() == Some("suggest_gifts"))
        .expect("a point for the tool");
    assert_eq!(attribute(&tool_point["attributes"], "mcp.method.name").as_deref(), Some("tools/call"));
    let bounds: Vec<f64> =
        tool_point["explicitBounds"].as_array().unwrap().iter().map(|b| b.as_f64().unwrap()).collect();
    assert_eq!(bounds, mcp_runtime::telemetry::OPERATION_BUCKETS, "the conventions' buckets");
    let sessions = metric("mcp.server.session.duration");
    let point = &sessions["histogram"]["dataPoints"][0];
    assert_eq!(attribute(&point["attributes"], "mcp.protocol.version").as_deref(), Some("2025-06-18"), "{sessions:#}");
}

#[test]
fn otlp_over_http_json_carries_the_conventions() {
    check_export("http/json", "application/json");
}

#[test]
fn otlp_over_http_protobuf_carries_the_conventions() {
    check_export("http/protobuf", "application/x-protobuf");
}

#[test]
fn the_sampler_the_environment_names_is_followed() {
    let (spans, metrics, _) = exported("http/json", &[("OTEL_TRACES_SAMPLER", "always_off")]);
    assert!(spans.is_empty(), "always_off samples nothing: {spans:#?}");
    assert!(metrics.iter().any(|m| m["name"] == "mcp.server.operation.duration"), "metrics still go out");
}

#[test]
fn an_otlp_setting_it_cannot_follow_stops_the_start_saying_why() {
    let out = std::process::Command::new(example_binary("middleware"))
        .args(["--http", "127.0.0.1:0"])
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318")
        .env("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")
        .output()
        .expect("runs");
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("OTEL_EXPORTER_OTLP_PROTOCOL=grpc is not supported"), "{stderr}");
}

#[test]
fn prometheus_scrapes_the_histograms_with_method_and_tool_labels() {
    let prometheus = ensure_installed("prometheus", "prometheus");
    let server = HttpServer::start(&example_binary("middleware"), &[]);
    let dir = std::env::temp_dir().join(format!("mcp-prometheus-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let config = dir.join("prometheus.yml");
    let scrape = format!(
        "global:\n  scrape_interval: 1s\nscrape_configs:\n  - job_name: gifts\n    metrics_path: /metrics\n    \
         static_configs:\n      - targets: ['{}']\n",
        server.addr
    );
    std::fs::write(&config, scrape).unwrap();
    let port = free_port();
    let child = std::process::Command::new(prometheus)
        .arg(format!("--config.file={}", config.display()))
        .arg(format!("--storage.tsdb.path={}", dir.join("data").display()))
        .arg(format!("--web.listen-address=127.0.0.1:{port}"))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("prometheus starts");
    let mut prometheus = KillOnDrop(child);
    wait_for_port(&mut prometheus.0, port, "prometheus", Duration::from_secs(30));
    // Beside `/mcp` on the same address: the probes, and the metrics behind the Host and
    // Origin checks (a page elsewhere cannot read them through the browser).
    let base = format!("http://{}", server.addr);
    assert_eq!(send(&format!("{base}/healthz"), "GET", None, &[]).status, 200);
    assert_eq!(send(&format!("{base}/metrics"), "GET", None, &[("host", "evil.example")]).status, 421);
    assert_eq!(send(&format!("{base}/metrics"), "GET", None, &[("origin", "https://evil.example")]).status, 403);
    let from_here = format!("http://{}", server.addr);
    assert_eq!(send(&format!("{base}/metrics"), "GET", None, &[("origin", from_here.as_str())]).status, 200);
    for id in 1..=3 {
        assert_eq!(post(&server.url, &call_gifts(id, json!({})), &[]).status, 200);
    }
    let session = post(&server.url, &initialize("2025-11-25", json!({})), &[]).session.expect("a session");
    let headers = [("mcp-session-id", session.as_str()), ("mcp-protocol-version", "2025-11-25")];
    assert_eq!(send(&server.url, "DELETE", None, &headers).status, 204);
    let query = |promql: &str| -> Option<f64> {
        let url = format!("http://127.0.0.1:{port}/api/v1/query");
        let client = reqwest::blocking::Client::new();
        let text = client.get(url).query(&[("query", promql)]).send().ok()?.text().ok()?;
        let answer: Value = serde_json::from_str(&text).ok()?;
        answer["data"]["result"][0]["value"][1].as_str()?.parse().ok()
    };
    let calls =
        r#"mcp_server_operation_duration_seconds_count{mcp_method_name="tools/call",gen_ai_tool_name="suggest_gifts"}"#;
    let sessions = "mcp_server_session_duration_seconds_count";
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let (seen_calls, seen_sessions) = (query(calls), query(sessions));
        if seen_calls == Some(3.0) && seen_sessions.is_some_and(|n| n >= 1.0) {
            break;
        }
        assert!(Instant::now() < deadline, "Prometheus read {seen_calls:?} calls and {seen_sessions:?} sessions");
        std::thread::sleep(Duration::from_millis(250));
    }
    let buckets = r#"count(mcp_server_operation_duration_seconds_bucket{mcp_method_name="tools/call"})"#;
    assert_eq!(query(buckets), Some(15.0), "14 bounds and +Inf");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `run()` adds telemetry by itself from the `OTEL_*` variables, with nothing installed by
/// the server (`examples/calculator` is `Server::new(..).run()` alone): over stdio, the call's
/// span says `network.transport = pipe` and is exported when the client closes its input.
#[test]
fn run_exports_what_the_otel_variables_ask_with_nothing_installed() {
    let receiver = Receiver::start();
    let endpoint = receiver.endpoint();
    let resources = calculator_exports(
        &receiver,
        &[("OTEL_EXPORTER_OTLP_ENDPOINT", &endpoint), ("OTEL_SERVICE_NAME", "calculator-under-test")],
    );
    for resource in &resources {
        assert_eq!(attribute(resource, "service.name").as_deref(), Some("calculator-under-test"));
    }
    let spans = receiver.spans();
    let call = spans
        .iter()
        .find(|s| s["name"] == "tools/call add")
        .unwrap_or_else(|| panic!("no span for the call among {spans:#?}"));
    assert_eq!(attribute(&call["attributes"], "network.transport").as_deref(), Some("pipe"), "{call:#}");
    assert_eq!(attribute(&call["attributes"], "mcp.protocol.version").as_deref(), Some("2025-11-25"), "{call:#}");
}

/// `examples/calculator` over stdio with `env` (and OTLP/JSON), one call of `add`, then the
/// end of its input: the resource attributes of each trace export `receiver` got.
fn calculator_exports(receiver: &Receiver, env: &[(&str, &str)]) -> Vec<Value> {
    let mut server = mcp_tests::wire::StdioServer::builder(example_binary("calculator"))
        .env("OTEL_EXPORTER_OTLP_PROTOCOL", Some("http/json"));
    for (key, value) in env {
        server = server.env(key, Some(value));
    }
    let mut server = server.spawn();
    server.handshake("2025-11-25");
    let answer = server.request("tools/call", Some(json!({"name": "add", "arguments": {"a": 2, "b": 3}})));
    assert_eq!(answer["result"]["structuredContent"]["value"], json!(5.0), "{answer}");
    server.finish();
    receiver
        .taken("/v1/traces")
        .iter()
        .map(|export| as_json(export, true)["resourceSpans"][0]["resource"]["attributes"].clone())
        .collect()
}

/// OTLP over `https://`: the collector behind nginx terminating TLS with a certificate of a
/// CA the server trusts through `SSL_CERT_FILE` (the platform's roots, as a deployment has
/// them). What arrives went through TLS: nginx listens for nothing else.
#[test]
fn otlp_over_https_reaches_a_collector_behind_tls() {
    let receiver = Receiver::start();
    let dir = mcp_tests::services::scratch("otlp-tls");
    let (ca, certificate, key) = mcp_tests::services::tls_files(&dir);
    let config = dir.join("tls.conf");
    let server_block = format!(
        "server {{\n    listen 127.0.0.1:8080 ssl;\n    ssl_certificate {};\n    ssl_certificate_key {};\n    \
         location / {{ proxy_pass http://127.0.0.1:8081; }}\n}}\n",
        certificate.display(),
        key.display()
    );
    std::fs::write(&config, server_block).expect("the configuration is written");
    let nginx = mcp_tests::services::Nginx::start(&config, &[receiver.port]);
    let endpoint = nginx.url().replace("http://", "https://").replace("/mcp", "");
    let ca = ca.display().to_string();
    calculator_exports(&receiver, &[("OTEL_EXPORTER_OTLP_ENDPOINT", &endpoint), ("SSL_CERT_FILE", &ca)]);
    let spans = receiver.spans();
    assert!(spans.iter().any(|s| s["name"] == "tools/call add"), "no span for the call came through TLS: {spans:#?}");
}

/// `--metrics ADDR` serves the metrics on an address of their own, and not beside the
/// endpoint: the MCP port answers 404 for `/metrics`.
#[test]
fn metrics_go_apart_on_the_address_given() {
    let metrics_port = mcp_tests::services::free_port();
    let metrics_addr = format!("127.0.0.1:{metrics_port}");
    let server = HttpServer::start(&example_binary("middleware"), &["--metrics", &metrics_addr]);
    // The metrics listener is bound before the endpoint's: it is up once the endpoint is.
    assert_eq!(post(&server.url, &call_gifts(1, json!({})), &[]).status, 200);
    let apart = reqwest::blocking::get(format!("http://{metrics_addr}/metrics")).expect("the metrics listener");
    assert_eq!(apart.status().as_u16(), 200);
    let text = apart.text().expect("text");
    assert!(text.contains("mcp_server_operation_duration_seconds_count"), "{text}");
    let beside = send(&format!("http://{}/metrics", server.addr), "GET", None, &[]);
    assert_eq!(beside.status, 404, "not beside the endpoint");
}
