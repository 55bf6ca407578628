//! The probes every HTTP server serves: `/healthz` and `/readyz` answer whatever the `Host`
//! and need no credentials; `/readyz` says 503 while the server drains on shutdown (the port
//! still open, new requests refused with 503) and while its Redis store is unreachable.

use std::sync::Arc;
use std::time::{Duration, Instant};

use mcp_runtime::http::{Allowed, HttpOptions};
use mcp_runtime::redis::Redis as RedisStores;
use mcp_runtime::{Server, ToolDescriptor};
use mcp_tests::http::initialize;
use mcp_tests::services::{Redis, free_port};
use serde_json::{Value, json};
use tokio::sync::Notify;

/// Serves `server` with `options` on a free loopback port; its address.
async fn serving(server: Server, options: HttpOptions) -> (String, tokio::task::JoinHandle<mcp_runtime::Result<()>>) {
    let port = free_port();
    let serving = tokio::spawn(server.serve_http_with(format!("127.0.0.1:{port}"), options));
    for _ in 0..100 {
        if tokio::net::TcpStream::connect(("127.0.0.1", port)).await.is_ok() {
            return (format!("127.0.0.1:{port}"), serving);
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("the server did not listen on port {port}");
}

/// `GET http://addr{path}` with `Host: host`: its status and JSON body (`Null` when the
/// connection was refused).
async fn get(addr: &str, path: &str, host: &str) -> (u16, Value) {
    let (url, host) = (format!("http://{addr}{path}"), host.to_owned());
    tokio::task::spawn_blocking(move || {
        let client = reqwest::blocking::Client::builder().timeout(Duration::from_secs(5)).build().unwrap();
        match client.get(url).header("host", host).send() {
            Ok(response) => {
                let status = response.status().as_u16();
                (status, serde_json::from_str(&response.text().unwrap_or_default()).unwrap_or(Value::Null))
            }
            Err(_) => (0, Value::Null),
        }
    })
    .await
    .unwrap()
}

async fn post_initialize(addr: &str) -> u16 {
    let url = format!("http://{addr}/mcp");
    tokio::task::spawn_blocking(move || {
        let response = reqwest::blocking::Client::new()
            .post(url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(initialize("2025-06-18", json!({})).to_string())
            .send();
        response.map_or(0, |response| response.status().as_u16())
    })
    .await
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn probes_answer_any_host_and_move_or_go_when_asked() {
    let (addr, _serving) = serving(Server::builder("probed", "1"), HttpOptions::default()).await;
    // A probe from the orchestrator names the pod's address, not an allowed host.
    assert_eq!(get(&addr, "/healthz", "10.1.2.3:8080").await, (200, json!({"status": "ok"})));
    assert_eq!(get(&addr, "/readyz", "10.1.2.3:8080").await, (200, json!({"status": "ready"})));
    let (status, _) = get(&addr, "/mcp", "10.1.2.3:8080").await;
    assert_eq!(status, 421, "the endpoint itself still checks the Host");

    // No credentials are asked of a probe, even where every request needs a token.
    let guarded = HttpOptions::default()
        .bearer_auth(|_headers| async { Err::<mcp_runtime::Identity, _>(mcp_runtime::http::Reject::new("no")) });
    let (addr, _serving) = serving(Server::builder("probed", "1"), guarded).await;
    assert_eq!(get(&addr, "/healthz", "localhost").await.0, 200);
    assert_eq!(get(&addr, "/readyz", "localhost").await.0, 200);
    assert_eq!(get(&addr, "/mcp", "localhost").await.0, 401, "the endpoint asks for its token");

    let moved = HttpOptions::default().health_paths("/live", "/ready");
    let (addr, _serving) = serving(Server::builder("probed", "1"), moved).await;
    assert_eq!(get(&addr, "/live", "localhost").await.0, 200);
    assert_eq!(get(&addr, "/ready", "localhost").await.0, 200);
    assert_eq!(get(&addr, "/healthz", "localhost").await.0, 404);

    let (addr, _serving) =
        serving(Server::builder("probed", "1"), HttpOptions::default().without_health_checks()).await;
    assert_eq!(get(&addr, "/healthz", "localhost").await.0, 404);
    assert_eq!(get(&addr, "/readyz", "localhost").await.0, 404);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn while_draining_readyz_is_503_and_new_requests_are_refused() {
    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    // The call in flight says when it started and goes on until the test releases it.
    let (started, release) = (Arc::new(Notify::new()), Arc::new(Notify::new()));
    let (started_, release_) = (Arc::clone(&started), Arc::clone(&release));
    let slow = ToolDescriptor::new("slow").handler(move |_: Value| {
        let (started, release) = (Arc::clone(&started_), Arc::clone(&release_));
        async move {
            started.notify_one();
            release.notified().await;
            "done".to_owned()
        }
    });
    let server = Server::builder("draining", "1")
        .tool(slow)
        .drain_timeout(Duration::from_secs(5))
        .with_graceful_shutdown(async move {
            let _ = stop_rx.await;
        });
    let (addr, serving) = serving(server, HttpOptions::default()).await;
    // A call in flight when the signal comes.
    let url = format!("http://{addr}/mcp");
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "slow", "arguments": {},
        "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                  "io.modelcontextprotocol/clientCapabilities": {}}}});
    let in_flight = tokio::task::spawn_blocking(move || {
        let response = reqwest::blocking::Client::new()
            .post(url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", "tools/call")
            .header("mcp-name", "slow")
            .body(call.to_string())
            .send()
            .expect("the call");
        (response.status().as_u16(), response.text().unwrap_or_default())
    });
    started.notified().await;
    assert_eq!(get(&addr, "/readyz", "localhost").await.0, 200);
    stop_tx.send(()).unwrap();
    // The signal is taken in by the server's own task: wait (five seconds at most) until the
    // probe says so, then check what draining means while the call is still held.
    let deadline = Instant::now() + Duration::from_secs(5);
    let mut ready = get(&addr, "/readyz", "localhost").await;
    while ready.0 == 200 && Instant::now() < deadline {
        tokio::task::yield_now().await;
        ready = get(&addr, "/readyz", "localhost").await;
    }
    assert_eq!(ready, (503, json!({"status": "draining"})));
    assert_eq!(get(&addr, "/healthz", "localhost").await.0, 200, "still alive while draining");
    assert_eq!(post_initialize(&addr).await, 503, "no new session while draining");
    assert!(!in_flight.is_finished(), "the call is held until released");
    release.notify_one();
    let (status, body) = in_flight.await.unwrap();
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("done"), "the call in flight finished: {body}");
    let started = Instant::now();
    tokio::time::timeout(Duration::from_secs(5), serving)
        .await
        .expect("serving returns once drained")
        .unwrap()
        .unwrap();
    assert!(started.elapsed() < Duration::from_secs(2), "it did not wait out the drain timeout");
    assert_eq!(get(&addr, "/healthz", "localhost").await.0, 0, "the port is closed");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn readyz_is_503_while_redis_is_unreachable() {
    let redis = Redis::start();
    let stores = RedisStores::connect(&redis.url).await.expect("Redis");
    let options = HttpOptions::default()
        .allowed_hosts(Allowed::Only(vec!["localhost".into()]))
        .session_store(stores.session_store())
        .event_store(stores.event_store());
    let (addr, _serving) = serving(Server::builder("stored", "1"), options).await;
    assert_eq!(get(&addr, "/readyz", "localhost").await, (200, json!({"status": "ready"})));
    drop(redis);
    let deadline = Instant::now() + Duration::from_secs(10);
    let (status, body) = loop {
        let answer = get(&addr, "/readyz", "localhost").await;
        if answer.0 != 200 || Instant::now() > deadline {
            break answer;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(status, 503, "{body}");
    assert_eq!(body["status"], "unavailable");
    assert!(body["reason"].as_str().unwrap().contains("session store"), "{body}");
    assert_eq!(get(&addr, "/healthz", "localhost").await.0, 200, "alive, only not ready");
}
