//! A server driven in-process over `tokio::io::duplex`, as a user's own tests would: the
//! caching keys of `#[mcp_resource]` reach 2026-07-28 read results; a plain `fn` handler never
//! runs where requests are read; the shutdown signal drains; the middleware seam (in
//! `in_memory/middleware.rs`).

use std::time::Duration;

use mcp_runtime::{Server, mcp_prompt, mcp_resource, mcp_tool};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

#[path = "in_memory/middleware.rs"]
mod middleware;

/// Cacheable privately for five seconds.
#[mcp_resource("memo://note", ttl_ms = 5000, cache_scope = "private")]
fn note() -> &'static str {
    "remember"
}

/// Cacheable as by default.
#[mcp_resource("memo://plain")]
fn plain() -> &'static str {
    "plain"
}

/// Sends each request on one in-memory connection and returns the responses, in order.
async fn exchange(server: Server, requests: &[Value]) -> Vec<Value> {
    let (client, server_side) = tokio::io::duplex(64 * 1024);
    let (server_in, server_out) = tokio::io::split(server_side);
    let serving = tokio::spawn(server.serve(server_in, server_out));
    let (client_in, mut client_out) = tokio::io::split(client);
    let mut lines = BufReader::new(client_in).lines();
    let mut responses = Vec::new();
    for request in requests {
        client_out.write_all(format!("{request}\n").as_bytes()).await.expect("write");
        let line = lines.next_line().await.expect("read").expect("a response");
        responses.push(serde_json::from_str(&line).expect("JSON"));
    }
    client_out.shutdown().await.expect("shutdown");
    serving.await.expect("the server task").expect("serving ends cleanly");
    responses
}

fn modern_read(id: u32, uri: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "resources/read", "params": {
        "uri": uri,
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}
        }
    }})
}

#[tokio::test]
async fn resource_caching_keys_reach_read_results() {
    let server = Server::builder("memo", "1").resource(note).resource(plain);
    let responses = exchange(server, &[modern_read(1, "memo://note"), modern_read(2, "memo://plain")]).await;
    assert_eq!(responses[0]["result"]["ttlMs"], 5000, "{}", responses[0]);
    assert_eq!(responses[0]["result"]["cacheScope"], "private", "{}", responses[0]);
    assert_eq!(responses[0]["result"]["contents"][0]["text"], "remember");
    assert_eq!(responses[1]["result"]["ttlMs"], 60000, "{}", responses[1]);
    assert_eq!(responses[1]["result"]["cacheScope"], "public", "{}", responses[1]);
}

/// Blocks its thread for `ms` milliseconds: a plain `fn` doing slow work.
#[mcp_tool]
fn block(ms: u64) -> String {
    std::thread::sleep(Duration::from_millis(ms));
    format!("blocked {ms} ms")
}

/// A plain `fn` resource that blocks.
#[mcp_resource("memo://slow")]
fn slow() -> &'static str {
    std::thread::sleep(Duration::from_millis(400));
    "slow"
}

/// A plain `fn` prompt that blocks.
#[mcp_prompt]
fn slow_prompt() -> String {
    std::thread::sleep(Duration::from_millis(400));
    "slow".into()
}

type Serving = tokio::task::JoinHandle<mcp_runtime::Result<()>>;
type Lines = tokio::io::Lines<BufReader<tokio::io::ReadHalf<tokio::io::DuplexStream>>>;
type ClientOut = tokio::io::WriteHalf<tokio::io::DuplexStream>;

/// Serves `server` on an in-memory connection with the handshake (2025-11-25) done: the
/// serving task, the lines the server writes, and the client's writing side.
async fn initialized(server: Server) -> (Serving, Lines, ClientOut) {
    let (client, server_side) = tokio::io::duplex(64 * 1024);
    let (server_in, server_out) = tokio::io::split(server_side);
    let serving = tokio::spawn(server.serve(server_in, server_out));
    let (client_in, mut client_out) = tokio::io::split(client);
    let mut lines = BufReader::new(client_in).lines();
    let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}});
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    client_out.write_all(format!("{initialize}\n{initialized}\n").as_bytes()).await.unwrap();
    lines.next_line().await.unwrap().unwrap();
    (serving, lines, client_out)
}

/// Each slow request is written, then a `ping`: the ping is answered first, so the plain
/// `fn` ran off the reading loop. Two workers: one for the loop, one the blocked task takes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plain_fn_handlers_never_run_on_the_reading_loop() {
    let server = Server::builder("plain", "1").tool(block).resource(slow).prompt(slow_prompt);
    let (serving, mut lines, mut client_out) = initialized(server).await;
    let slow_requests = [
        json!({"method": "tools/call", "params": {"name": "block", "arguments": {"ms": 400}}}),
        json!({"method": "resources/read", "params": {"uri": "memo://slow"}}),
        json!({"method": "prompts/get", "params": {"name": "slow_prompt"}}),
    ];
    for (n, slow) in slow_requests.into_iter().enumerate() {
        let id = 10 * (n + 1);
        let mut request = slow.clone();
        request["jsonrpc"] = json!("2.0");
        request["id"] = json!(id);
        let ping = json!({"jsonrpc": "2.0", "id": id + 1, "method": "ping"});
        client_out.write_all(format!("{request}\n{ping}\n").as_bytes()).await.unwrap();
        let first: Value = serde_json::from_str(&lines.next_line().await.unwrap().unwrap()).unwrap();
        let second: Value = serde_json::from_str(&lines.next_line().await.unwrap().unwrap()).unwrap();
        assert_eq!((first["id"].clone(), second["id"].clone()), (json!(id + 1), json!(id)), "{slow}: {first} {second}");
        assert!(second.get("result").is_some(), "{second}");
    }
    client_out.shutdown().await.unwrap();
    serving.await.unwrap().unwrap();
}

/// The shutdown signal stops reading, lets the request in flight answer, and ends serving
/// with `Ok` while the client's side is still open.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_shutdown_signal_drains_and_returns_ok() {
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = Server::builder("plain", "1").tool(block).with_graceful_shutdown(async move {
        let _ = stopped.await;
    });
    let (serving, mut lines, mut client_out) = initialized(server).await;
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "block", "arguments": {"ms": 300}}});
    let ping = json!({"jsonrpc": "2.0", "id": 2, "method": "ping"});
    client_out.write_all(format!("{call}\n{ping}\n").as_bytes()).await.unwrap();
    assert!(lines.next_line().await.unwrap().unwrap().contains("\"id\":2"), "the call was read");
    stop.send(()).unwrap();
    let answer: Value = serde_json::from_str(&lines.next_line().await.unwrap().unwrap()).unwrap();
    assert_eq!(answer["result"]["content"][0]["text"], "blocked 300 ms");
    tokio::time::timeout(Duration::from_secs(2), serving).await.expect("serving ended").unwrap().unwrap();
    assert_eq!(lines.next_line().await.unwrap(), None, "nothing after the drain");
}

/// The thread a handler runs on.
fn thread_name() -> String {
    std::thread::current().name().unwrap_or("unnamed").to_owned()
}

/// Holds an `Rc` and a `RefCell` across `.await`: its future is not `Send`.
#[mcp_tool(local)]
async fn tally(times: u32) -> String {
    let seen = std::rc::Rc::new(std::cell::RefCell::new(0));
    for _ in 0..times {
        *seen.borrow_mut() += 1;
        tokio::task::yield_now().await;
    }
    let total = *seen.borrow();
    format!("{total} on {}", thread_name())
}

/// Waits long, holding an `Rc`; cancelled in the test.
#[mcp_tool(local)]
async fn linger() -> String {
    let held = std::rc::Rc::new(());
    tokio::time::sleep(Duration::from_secs(30)).await;
    format!("{} references", std::rc::Rc::strong_count(&held))
}

/// A local resource.
#[mcp_resource("memo://local", local)]
async fn local_note() -> String {
    let note = std::rc::Rc::new(thread_name());
    tokio::task::yield_now().await;
    note.to_string()
}

/// A local prompt.
#[mcp_prompt(local)]
async fn local_prompt() -> String {
    let name = std::rc::Rc::new(thread_name());
    tokio::task::yield_now().await;
    format!("from {name}")
}

/// `local` handlers whose futures are not `Send` run on the server's `mcp-local` thread, and
/// a cancellation reaches them there.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn local_handlers_run_on_the_local_thread() {
    let server = Server::builder("local", "1").tool(tally).tool(linger).resource(local_note).prompt(local_prompt);
    let (serving, mut lines, mut client_out) = initialized(server).await;
    let requests = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "linger", "arguments": {}}}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "tally", "arguments": {"times": 3}}}),
        json!({"jsonrpc": "2.0", "id": 3, "method": "resources/read", "params": {"uri": "memo://local"}}),
        json!({"jsonrpc": "2.0", "id": 4, "method": "prompts/get", "params": {"name": "local_prompt"}}),
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}}),
        json!({"jsonrpc": "2.0", "id": 5, "method": "ping"}),
    ];
    for request in &requests {
        client_out.write_all(format!("{request}\n").as_bytes()).await.unwrap();
    }
    let mut answers = std::collections::BTreeMap::new();
    for _ in 0..4 {
        let answer: Value = serde_json::from_str(&lines.next_line().await.unwrap().unwrap()).unwrap();
        answers.insert(answer["id"].as_i64().unwrap(), answer);
    }
    assert_eq!(answers.keys().copied().collect::<Vec<_>>(), [2, 3, 4, 5], "the cancelled call is not answered");
    assert_eq!(answers[&2]["result"]["content"][0]["text"], "3 on mcp-local", "{}", answers[&2]);
    assert_eq!(answers[&3]["result"]["contents"][0]["text"], "mcp-local", "{}", answers[&3]);
    assert_eq!(answers[&4]["result"]["messages"][0]["content"]["text"], "from mcp-local", "{}", answers[&4]);
    client_out.shutdown().await.unwrap();
    // The cancelled call no longer runs: the drain does not wait 30 s for it.
    tokio::time::timeout(Duration::from_secs(5), serving).await.expect("serving ended").unwrap().unwrap();
}
