//! Layers over Streamable HTTP, in process: a refusal carries its HTTP status and headers
//! (429 and `Retry-After` from the rate limit, 403 and `WWW-Authenticate` from a layer of the
//! user's) in both eras, and a 2026-07-28 caller without identity or session is its address.

use std::sync::Arc;
use std::time::{Duration, Instant};

use mcp_runtime::middleware::{McpResponse, RateLimit, Target, from_fn};
use mcp_runtime::protocol::ErrorObject;
use mcp_runtime::{Server, ToolDescriptor};
use mcp_tests::http::{initialize, stateless_headers};
use mcp_tests::services::free_port;
use mcp_tests::wire::{CLIENT_CAPABILITIES_KEY, PROTOCOL_VERSION_KEY, STATELESS_REVISION};
use serde_json::{Value, json};

/// Serves `server` on a free loopback port; the URL of its endpoint.
pub(crate) async fn serving(server: Server) -> String {
    serving_with(server, mcp_runtime::http::HttpOptions::default()).await
}

/// Serves `server` with `options` on a free loopback port; the URL of its endpoint.
pub(crate) async fn serving_with(server: Server, options: mcp_runtime::http::HttpOptions) -> String {
    let port = free_port();
    tokio::spawn(server.serve_http_with(format!("127.0.0.1:{port}"), options));
    let url = format!("http://127.0.0.1:{port}/mcp");
    for _ in 0..100 {
        if tokio::net::TcpStream::connect(("127.0.0.1", port)).await.is_ok() {
            return url;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("the server did not listen on {url}");
}

/// The status, the headers asked for, and the JSON body of one POST.
pub(crate) struct Posted {
    pub(crate) status: u16,
    pub(crate) headers: Vec<Option<String>>,
    pub(crate) body: Value,
    pub(crate) session: Option<String>,
}

pub(crate) async fn post(
    url: &str,
    body: Value,
    extra: Vec<(String, String)>,
    read: &'static [&'static str],
) -> Posted {
    let url = url.to_owned();
    tokio::task::spawn_blocking(move || {
        let client = reqwest::blocking::Client::new();
        let mut request = client
            .post(&url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream");
        for (name, value) in stateless_headers(&body).into_iter().chain(extra) {
            request = request.header(name, value);
        }
        let response = request.body(body.to_string()).send().expect("the POST");
        let status = response.status().as_u16();
        let header = |name: &str| response.headers().get(name).and_then(|v| v.to_str().ok()).map(str::to_owned);
        let headers = read.iter().map(|name| header(name)).collect();
        let session = header("mcp-session-id");
        let text = response.text().expect("a body");
        let json = text.lines().find_map(|line| line.strip_prefix("data: ")).unwrap_or(&text).to_owned();
        Posted { status, headers, session, body: serde_json::from_str(&json).unwrap_or(Value::Null) }
    })
    .await
    .expect("the client thread")
}

pub(crate) fn stateless_call(id: u32, tool: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": tool, "arguments": {},
        "_meta": {PROTOCOL_VERSION_KEY: STATELESS_REVISION, CLIENT_CAPABILITIES_KEY: {}}}})
}

pub(crate) fn version_header() -> Vec<(String, String)> {
    vec![("mcp-protocol-version".to_owned(), STATELESS_REVISION.to_owned())]
}

fn gifts() -> ToolDescriptor {
    ToolDescriptor::new("gifts").handler(|_: Value| async { "a scarf".to_owned() })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_rate_limit_answers_429_with_retry_after_in_both_eras() {
    let server = Server::builder("limited", "1").tool(gifts()).layer(RateLimit::per_caller(2, Duration::from_secs(30)));
    let url = serving(server).await;
    // `initialize` reaches no item: it spends nothing.
    let opened = post(&url, initialize("2025-06-18", json!({})), vec![], &[]).await;
    assert_eq!(opened.status, 200, "{}", opened.body);
    let session = opened.session.expect("a session");
    let in_session = vec![
        ("mcp-session-id".to_owned(), session.clone()),
        ("mcp-protocol-version".to_owned(), "2025-06-18".to_owned()),
    ];
    let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    assert_eq!(post(&url, note, in_session.clone(), &[]).await.status, 202);
    // The session is a caller of its own, with its own bucket.
    let call = |id: u32| json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "gifts"}});
    for id in 1..=2 {
        let ok = post(&url, call(id), in_session.clone(), &[]).await;
        assert_eq!(ok.status, 200, "{}", ok.body);
    }
    let refused = post(&url, call(3), in_session, &["retry-after"]).await;
    assert_eq!(refused.status, 429, "{}", refused.body);
    assert!(refused.body["error"]["message"].as_str().unwrap().contains(&session), "{}", refused.body);
    let retry: u64 = refused.headers[0].as_deref().expect("Retry-After").parse().expect("seconds");
    assert!((14..=15).contains(&retry), "one token is back in 15 s: {retry}");

    // 2026-07-28, no identity, no session: the address, with its own bucket of two.
    for id in 4..=5 {
        let ok = post(&url, stateless_call(id, "gifts"), version_header(), &[]).await;
        assert_eq!(ok.status, 200, "{}", ok.body);
        assert_eq!(ok.body["result"]["content"][0]["text"], "a scarf");
    }
    let refused = post(&url, stateless_call(6, "gifts"), version_header(), &["retry-after"]).await;
    assert_eq!(refused.status, 429, "{}", refused.body);
    assert_eq!(refused.body["error"]["code"], -31000, "{}", refused.body);
    assert!(refused.body["error"]["message"].as_str().unwrap().contains("address 127.0.0.1"), "{}", refused.body);
    assert!(refused.headers[0].is_some(), "Retry-After in 2026-07-28 too");
    assert!(refused.body["error"]["data"]["retryAfterMs"].as_u64().unwrap() > 14_000);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_layer_refusal_carries_its_status_and_challenge() {
    let server = Server::builder("guarded", "1").tool(gifts()).layer(from_fn(|request, next| async move {
        if request.target() == Some(Target::Tool("gifts")) && request.header("x-badge").is_none() {
            let error = ErrorObject::new(-31403, "This tool needs a badge");
            return Ok(McpResponse::error(error)
                .with_http_status(403)
                .with_http_header("WWW-Authenticate", r#"Bearer error="insufficient_scope", scope="gifts""#)
                .with_http_header("bad header\n", "left out"));
        }
        next.run(request).await
    }));
    let url = serving(server).await;
    let refused = post(&url, stateless_call(1, "gifts"), version_header(), &["www-authenticate"]).await;
    assert_eq!(refused.status, 403, "{}", refused.body);
    assert_eq!(refused.body["error"]["code"], -31403);
    assert_eq!(refused.headers[0].as_deref(), Some(r#"Bearer error="insufficient_scope", scope="gifts""#));
    let mut badged = version_header();
    badged.push(("x-badge".to_owned(), "1".to_owned()));
    let ok = post(&url, stateless_call(2, "gifts"), badged, &[]).await;
    assert_eq!(ok.status, 200, "{}", ok.body);
    assert_eq!(ok.body["result"]["content"][0]["text"], "a scarf");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_waiting_in_a_layer_do_not_hold_up_other_2026_clients() {
    // The layer counts the requests it holds, so that the test knows when all are held.
    let (held_tx, mut held) = tokio::sync::watch::channel(0_usize);
    let held_tx = Arc::new(held_tx);
    let server = Server::builder("waiting", "1").tool(gifts()).layer(from_fn(move |request, next| {
        let held_tx = Arc::clone(&held_tx);
        async move {
            if request.header("x-stall").is_some() {
                held_tx.send_modify(|n| *n += 1);
                std::future::pending::<()>().await;
            }
            next.run(request).await
        }
    }));
    let url = serving(server).await;
    // More waiting requests than a loop's look-ahead, on every loop; their clients wait a
    // minute (they end when the server does, with the test).
    const STALLED: usize = 40;
    for id in 0..STALLED {
        let url = url.clone();
        std::thread::spawn(move || {
            let client = reqwest::blocking::Client::builder().timeout(Duration::from_secs(60)).build().unwrap();
            let body = stateless_call(100 + id as u32, "gifts");
            let mut request = client
                .post(&url)
                .header("content-type", "application/json")
                .header("accept", "application/json, text/event-stream")
                .header("x-stall", "1");
            for (name, value) in stateless_headers(&body).into_iter().chain(version_header()) {
                request = request.header(name, value);
            }
            let _ = request.body(body.to_string()).send();
        });
    }
    tokio::time::timeout(Duration::from_secs(10), held.wait_for(|n| *n == STALLED))
        .await
        .expect("every stalled request reached the layer within 10 s")
        .expect("the layer lives on");
    let sent = Instant::now();
    let answered = post(&url, stateless_call(1, "gifts"), version_header(), &[]).await;
    let took = sent.elapsed();
    assert_eq!(answered.status, 200, "{}", answered.body);
    assert_eq!(answered.body["result"]["content"][0]["text"], "a scarf");
    // At once: a request that had to wait behind the held ones would wait for a minute.
    assert!(took < Duration::from_millis(500), "answered after {took:?} beside {STALLED} held requests");
}

/// Serves `server` with a hook that names the caller from its token (`Bearer user-<name>`).
async fn serving_with_callers(server: Server) -> String {
    let authorization = mcp_runtime::http::Authorization::hook(|headers: axum::http::HeaderMap| async move {
        let token = headers.get("authorization").and_then(|v| v.to_str().ok()).unwrap_or("");
        match token.strip_prefix("Bearer user-") {
            Some(name) => Ok(mcp_runtime::Identity::new(name)),
            None => Err(mcp_runtime::http::Reject::new("send `Bearer user-<name>`")),
        }
    });
    serving_with(server, mcp_runtime::http::HttpOptions::default().authorization(authorization)).await
}

fn as_user(name: &str) -> Vec<(String, String)> {
    let mut headers = version_header();
    headers.push(("authorization".to_owned(), format!("Bearer user-{name}")));
    headers
}

/// The rate limit's bucket is the caller's identity when there is one: two users from the same
/// address each get their own, and one user's requests share one bucket whatever connection
/// they come on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_rate_limit_keeps_a_bucket_per_identity() {
    let server = Server::builder("limited", "1").tool(gifts()).layer(RateLimit::per_caller(2, Duration::from_secs(60)));
    let url = serving_with_callers(server).await;
    // Each `post` is a new connection.
    for id in 1..=2 {
        assert_eq!(post(&url, stateless_call(id, "gifts"), as_user("alice"), &[]).await.status, 200);
    }
    let refused = post(&url, stateless_call(3, "gifts"), as_user("alice"), &["retry-after"]).await;
    assert_eq!(refused.status, 429, "{}", refused.body);
    assert!(refused.body["error"]["message"].as_str().unwrap_or("").contains("alice"), "{}", refused.body);
    for id in 4..=5 {
        let bob = post(&url, stateless_call(id, "gifts"), as_user("bob"), &[]).await;
        assert_eq!(bob.status, 200, "bob has a bucket of his own: {}", bob.body);
    }
}

/// The concurrency limit holds each caller to its share without holding up the others: while
/// alice's two calls run (her share) and a third waits, bob's call is answered at once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_concurrency_limit_does_not_hold_up_other_callers() {
    let (started_tx, mut started) = tokio::sync::watch::channel(0_usize);
    let started_tx = Arc::new(started_tx);
    let release = Arc::new(tokio::sync::Notify::new());
    let hold = {
        let (started_tx, release) = (Arc::clone(&started_tx), Arc::clone(&release));
        ToolDescriptor::new("hold").handler(move |_: Value| {
            let (started_tx, release) = (Arc::clone(&started_tx), Arc::clone(&release));
            async move {
                started_tx.send_modify(|n| *n += 1);
                release.notified().await;
                "released".to_owned()
            }
        })
    };
    let server = Server::builder("limited", "1")
        .tool(hold)
        .tool(gifts())
        .layer(mcp_runtime::middleware::ConcurrencyLimit::per_caller(2));
    let url = serving_with_callers(server).await;
    let alice: Vec<_> = (1..=3)
        .map(|id| {
            let url = url.clone();
            tokio::spawn(async move { post(&url, stateless_call(id, "hold"), as_user("alice"), &[]).await })
        })
        .collect();
    tokio::time::timeout(Duration::from_secs(10), started.wait_for(|n| *n == 2))
        .await
        .expect("two of alice's calls started")
        .expect("the sender lives on");
    let sent = Instant::now();
    let bob = post(&url, stateless_call(9, "gifts"), as_user("bob"), &[]).await;
    let took = sent.elapsed();
    assert_eq!(bob.status, 200, "{}", bob.body);
    assert!(took < Duration::from_millis(500), "bob waited {took:?} behind alice's calls");
    assert_eq!(*started.borrow(), 2, "alice's third call waits for her share");
    // Released one at a time (a permit is kept when nobody waits yet): all three of alice's
    // calls end.
    for _ in 0..3 {
        release.notify_one();
    }
    for call in alice {
        let answered = call.await.expect("the call's task");
        // The third may have started after the permits were handed out: release it too.
        release.notify_one();
        assert_eq!(answered.status, 200, "{}", answered.body);
    }
}

/// Where something ran: the place (`layer`, `method`) and its task.
type Seen = (&'static str, Option<tokio::task::Id>);

/// Records the task each request's layer and method ran in.
#[derive(Clone, Default)]
struct Tasks(Arc<std::sync::Mutex<Vec<Seen>>>);

impl Tasks {
    fn note(&self, place: &'static str) {
        self.0.lock().unwrap().push((place, tokio::task::try_id()));
    }

    fn taken(&self) -> Vec<Seen> {
        std::mem::take(&mut *self.0.lock().unwrap())
    }
}

/// A plain `fn` tool that notes the task it ran in (in place, in the task that polls it).
#[mcp_runtime::mcp_tool]
fn plain_tool(tasks: mcp_runtime::State<Tasks>) -> String {
    tasks.note("method");
    "plain".to_owned()
}

/// A request is one future through one service: its layer and its method (an async tool, a
/// plain `fn` tool) run in the same task, in both eras (a 2026-07-28 request in the task of
/// the HTTP connection that read it, a session's in the task its layers run in), with no task
/// or channel between them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_s_layer_and_method_run_in_one_task_in_both_eras() {
    let tasks = Tasks::default();
    let (in_layer, in_async, in_plain) = (tasks.clone(), tasks.clone(), tasks.clone());
    let server = Server::builder("one-future", "1")
        .tool(ToolDescriptor::new("async_tool").handler(move |_: Value| {
            in_async.note("method");
            async { "async".to_owned() }
        }))
        .tool(plain_tool)
        .state(in_plain)
        .layer(from_fn(move |request, next: mcp_runtime::middleware::Next| {
            in_layer.note("layer");
            next.run(request)
        }));
    let url = serving(server).await;
    let opened = post(&url, initialize("2025-11-25", json!({})), vec![], &[]).await;
    let session = opened.session.expect("a session");
    let in_session =
        vec![("mcp-session-id".to_owned(), session), ("mcp-protocol-version".to_owned(), "2025-11-25".to_owned())];
    let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    assert_eq!(post(&url, note, in_session.clone(), &[]).await.status, 202);
    tasks.taken();
    for tool in ["async_tool", "plain_tool"] {
        let handshake = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": tool}});
        for (era, call, headers) in
            [("handshake", handshake, in_session.clone()), ("2026-07-28", stateless_call(2, tool), version_header())]
        {
            let answered = post(&url, call, headers, &[]).await;
            assert!(answered.body["result"]["content"].is_array(), "{era} {tool}: {}", answered.body);
            let seen = tasks.taken();
            let places: Vec<&str> = seen.iter().map(|(place, _)| *place).collect();
            assert_eq!(places, ["layer", "method"], "{era} {tool}");
            assert!(seen[0].1.is_some(), "{era} {tool}: the layer ran in a task");
            assert_eq!(seen[0].1, seen[1].1, "{era} {tool}: the layer and the method ran in different tasks");
        }
    }
}
