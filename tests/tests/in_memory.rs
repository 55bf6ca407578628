//! A server driven in-process over `tokio::io::duplex`, as a user's own tests would: the
//! caching keys of `#[mcp_resource]` reach 2026-07-28 read results; a plain `fn` handler that
//! blocks holds up neither the reading nor async handlers; the shutdown signal drains; the middleware seam (in
//! `in_memory/middleware.rs`).

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, LazyLock, Mutex};
use std::time::{Duration, Instant};

use mcp_runtime::protocol::Revision;
use mcp_runtime::testing::{TestClient, TestError};
use mcp_runtime::{Server, mcp_prompt, mcp_resource, mcp_tool};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

#[path = "in_memory/kept_handlers.rs"]
mod kept_handlers;
#[path = "in_memory/middleware.rs"]
mod middleware;
#[path = "in_memory/mounting.rs"]
mod mounting;
#[path = "in_memory/plain_fns.rs"]
mod plain_fns;
#[path = "in_memory/proxying.rs"]
mod proxying;
#[path = "in_memory/skills.rs"]
mod skills;
#[path = "in_memory/tasks.rs"]
mod tasks;

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

/// One in-memory connection to a server, written and read a line at a time.
struct Client {
    lines: Lines,
    out: ClientOut,
    serving: Serving,
}

impl Client {
    fn start(server: Server) -> Self {
        let (client, server_side) = tokio::io::duplex(256 * 1024);
        let (server_in, server_out) = tokio::io::split(server_side);
        let serving = tokio::spawn(server.serve(server_in, server_out));
        let (client_in, out) = tokio::io::split(client);
        Client { lines: BufReader::new(client_in).lines(), out, serving }
    }

    async fn send(&mut self, message: &Value) {
        self.send_line(&message.to_string()).await;
    }

    /// The handshake (2025-11-25): `initialize`, answered, then `notifications/initialized`.
    async fn initialize(&mut self) {
        let answer = self.call(&initialize(0)).await;
        assert_eq!(answer["result"]["protocolVersion"], "2025-11-25", "{answer}");
        self.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await;
    }

    /// Sends `line` exactly as written (escapes a serializer would not write included).
    async fn send_line(&mut self, line: &str) {
        self.out.write_all(format!("{line}\n").as_bytes()).await.expect("write");
    }

    async fn next(&mut self) -> Value {
        let line = tokio::time::timeout(Duration::from_secs(10), self.lines.next_line())
            .await
            .expect("an answer within 10 s")
            .expect("read")
            .expect("a line");
        serde_json::from_str(&line).expect("JSON")
    }

    async fn call(&mut self, message: &Value) -> Value {
        self.send(message).await;
        self.next().await
    }

    /// Ends the connection: serving must end cleanly, within ten seconds.
    async fn end(mut self) {
        self.out.shutdown().await.expect("shutdown");
        let ended = tokio::time::timeout(Duration::from_secs(10), self.serving).await;
        ended.expect("serving ended within 10 s").expect("the server task").expect("serving ends cleanly");
    }
}

/// An `initialize` request of 2025-11-25.
fn initialize(id: u32) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}
    }})
}

/// Sends each request on one in-memory connection and returns the responses, in order.
async fn exchange(server: Server, requests: &[Value]) -> Vec<Value> {
    let mut client = Client::start(server);
    let mut responses = Vec::new();
    for request in requests {
        responses.push(client.call(request).await);
    }
    client.end().await;
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

/// Adds two integers (a declared function, whose arguments the macro's own reader takes).
#[mcp_tool]
fn add_pair(first: i64, second: i64) -> String {
    (first + second).to_string()
}

/// Argument names are read borrowed from the request's text; one written with escapes is read
/// as the name it stands for, and one repeated that way is still a repeat.
#[tokio::test]
async fn a_declared_tool_reads_argument_names_written_with_escapes() {
    let mut client = Client::start(Server::builder("args", "1").tool(add_pair));
    client.initialize().await;
    let call = |id: u32, arguments: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"add_pair","arguments":{arguments}}}}}"#
        )
    };
    let cases = [
        (r#"{"first":2,"second":3}"#, Some("5")),
        (r#"{"\u0066irst":2,"sec\u006fnd":3}"#, Some("5")),
        (r#"{"first":2,"\u0066irst":4,"second":3}"#, None),
    ];
    for (n, (arguments, sum)) in (1..).zip(cases) {
        client.send_line(&call(n, arguments)).await;
        let answer = client.next().await;
        let result = &answer["result"];
        match sum {
            Some(sum) => assert_eq!(result["content"][0]["text"], sum, "{arguments}: {answer}"),
            None => {
                assert_eq!(result["isError"], true, "{arguments}: {answer}");
                let text = result["content"][0]["text"].as_str().unwrap_or_default();
                assert!(text.contains("first"), "{arguments}: {answer}");
            }
        }
    }
    client.end().await;
}

/// Blocks its thread for `ms` milliseconds: a plain `fn` doing slow work.
#[mcp_tool]
fn block(ms: u64) -> String {
    std::thread::sleep(Duration::from_millis(ms));
    format!("blocked {ms} ms")
}

/// When each marked body started and ended, by mark.
static BODIES: Mutex<BTreeMap<String, (Instant, Option<Instant>)>> = Mutex::new(BTreeMap::new());

/// Ticks when a marked body starts, so that a test can wait for that event.
static BODY_STARTED: LazyLock<tokio::sync::watch::Sender<()>> = LazyLock::new(|| tokio::sync::watch::channel(()).0);

/// Blocks its thread for `ms` milliseconds, noting under `mark` when it started and ended.
fn blocking_body(mark: &str, ms: u64) {
    BODIES.lock().unwrap().insert(mark.to_owned(), (Instant::now(), None));
    BODY_STARTED.send_replace(());
    std::thread::sleep(Duration::from_millis(ms));
    if let Some(body) = BODIES.lock().unwrap().get_mut(mark) {
        body.1 = Some(Instant::now());
    }
}

/// Returns once the body marked `mark` has started (the event, not a timer).
async fn body_started(mark: &str) {
    let mut started = BODY_STARTED.subscribe();
    started.wait_for(|_| BODIES.lock().unwrap().contains_key(mark)).await.expect("the sender lives on");
}

/// Blocks for `ms` milliseconds under `mark`: a plain `fn` tool doing slow work.
#[mcp_tool]
fn block_marked(ms: u64, mark: String) -> String {
    blocking_body(&mark, ms);
    format!("blocked {ms} ms")
}

/// A plain `fn` resource that blocks for a second under `mark`.
#[mcp_resource("memo://slow/{mark}")]
fn slow(mark: String) -> &'static str {
    blocking_body(&mark, 1000);
    "slow"
}

/// A plain `fn` prompt that blocks for a second under `mark`.
#[mcp_prompt]
fn slow_prompt(mark: String) -> String {
    blocking_body(&mark, 1000);
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

/// Sends quick requests, each in a message of its own, once the body marked `mark` has
/// started (the event, not a timer: on a current-thread runtime a body run inline would hold up
/// the timer as well): `ping` (or `server/discover` in 2026-07-28), then a call of an async
/// tool; asserts each is answered within 50 ms and before that body returned; `slow`'s answer.
async fn quick_while_blocked(
    client: &TestClient,
    mark: &str,
    slow: impl Future<Output = Result<Value, TestError>>,
) -> Value {
    let ping = if client.revision() == Revision::LATEST { "server/discover" } else { "ping" };
    let quick = async {
        body_started(mark).await;
        let sent = Instant::now();
        client.request(ping, json!({})).await.unwrap_or_else(|e| panic!("{ping}: {e}"));
        let pinged = Instant::now();
        let echoed = client.call_tool("echo_async", json!({"text": mark})).await.expect("the async call");
        assert_eq!(echoed["content"][0]["text"], mark, "{echoed}");
        [(ping, sent, pinged), ("an async tool's call", pinged, Instant::now())]
    };
    let (slow, answers) = tokio::join!(slow, quick);
    let (started, ended) = BODIES.lock().unwrap()[mark];
    let ended = ended.expect("the body returned before its answer");
    for (what, sent, answered) in answers {
        assert!(answered < ended, "{mark}: {what} answered {:?} after the blocking body returned", answered - ended);
        let waited = answered - sent;
        assert!(
            waited < Duration::from_millis(50),
            "{mark}: {what} answered after {waited:?} while a plain fn blocked"
        );
        assert!(started <= sent, "the request went after the body started");
    }
    slow.expect("the slow request")
}

/// An async tool: what a plain `fn` blocking must not hold up.
#[mcp_tool]
async fn echo_async(text: String) -> String {
    text
}

/// A plain `fn` tool, resource or prompt never blocks a thread the connection or an async
/// handler needs: on a current-thread runtime, where a blocked thread would stop everything
/// (the body runs on another thread), a request and an async tool's call sent while it
/// blocks are answered at once, in both eras at once.
#[tokio::test]
async fn a_blocking_plain_fn_never_holds_up_the_connection() {
    tokio::join!(
        blocking_plain_fns("current-thread", Revision::LATEST_HANDSHAKE),
        blocking_plain_fns("current-thread", Revision::LATEST)
    );
}

/// The same on a multi-threaded runtime, where the body blocks in place and another worker
/// takes the connection: one era after the other, since bodies blocking every worker at once
/// (two here) hold up the connections until one returns, as the docs say.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_blocking_plain_fn_never_holds_up_the_connection_on_a_multi_threaded_runtime() {
    blocking_plain_fns("multi-thread", Revision::LATEST_HANDSHAKE).await;
    blocking_plain_fns("multi-thread", Revision::LATEST).await;
}

/// A request sent while each plain `fn` item blocks is answered at once, under `revision`.
async fn blocking_plain_fns(runtime: &str, revision: Revision) {
    let server = Server::builder("plain", "1").tool(block_marked).tool(echo_async).resource(slow).prompt(slow_prompt);
    let client = TestClient::connect_as(server, revision).await.expect("connected");
    // Each mark is new: this runtime's test, this era, this item.
    let mark = |item: &str| format!("{runtime}-{revision:?}-{item}");
    let (tool, resource, prompt) = (mark("tool"), mark("resource"), mark("prompt"));
    let arguments = json!({"ms": 3000, "mark": tool});
    let called = quick_while_blocked(&client, &tool, client.call_tool("block_marked", arguments)).await;
    assert_eq!(called["content"][0]["text"], "blocked 3000 ms", "{revision:?}");
    let read = quick_while_blocked(&client, &resource, client.read_resource(&format!("memo://slow/{resource}"))).await;
    assert_eq!(read["contents"][0]["text"], "slow", "{revision:?}");
    let got = quick_while_blocked(&client, &prompt, client.get_prompt("slow_prompt", json!({"mark": prompt}))).await;
    assert_eq!(got["messages"][0]["content"]["text"], "slow", "{revision:?}");
    client.close().await.expect("closed");
}

/// Blocks its thread for `ms` milliseconds, past its 200 ms time limit when `ms` is larger.
#[mcp_tool(timeout = "200ms")]
fn block_limited(ms: u64) -> String {
    std::thread::sleep(Duration::from_millis(ms));
    format!("blocked {ms} ms")
}

/// A plain `fn` past its time limit is answered at its limit, not when its thread returns;
/// the thread cannot be stopped, so it keeps the request's slot until it returns (with one
/// slot, the next call waits for it) and its result is dropped.
#[tokio::test]
async fn a_timed_out_plain_fn_is_answered_at_once_and_keeps_its_slot_until_its_thread_returns() {
    let server = Server::builder("plain", "1").tool(block).tool(block_limited).max_in_flight(1);
    let client = TestClient::connect(server).await.expect("connected");
    let started = Instant::now();
    let timed_out = client.call_tool("block_limited", json!({"ms": 1500})).await.expect("an answer");
    let answered = started.elapsed();
    assert_eq!(timed_out["isError"], true, "{timed_out}");
    assert!(timed_out["content"][0]["text"].as_str().unwrap_or_default().contains("200 ms"), "{timed_out}");
    assert!(answered < Duration::from_millis(1000), "answered after {answered:?}: at its limit, not its return");
    let next = client.call_tool("block", json!({"ms": 0})).await.expect("the next call");
    assert_eq!(next["content"][0]["text"], "blocked 0 ms");
    let freed = started.elapsed();
    assert!(freed >= Duration::from_millis(1500), "the slot was free after {freed:?}, before the thread returned");
    client.close().await.expect("closed");
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

/// What a local handler holds while it asks its client: a lock, say. Dropping it takes a
/// while, and says when it is done.
struct Held(Arc<AtomicBool>);

impl Drop for Held {
    fn drop(&mut self) {
        // Widens the window in which a handler dropped after its question went out would be
        // seen still holding it; the order, not this pause, decides the outcome.
        std::thread::sleep(Duration::from_millis(50));
        self.0.store(true, Ordering::SeqCst);
    }
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Add {
    add: bool,
}

/// In 2026-07-28 a handler stopped to ask is run again by the client's retry. A local one
/// (whose thread the retry runs on too) lets go of what it held before the question reaches
/// the client: were it dropped later, a lock it held would still be held when the retry ran
/// on that thread, which would wait for it forever (what `mcp call --no-input` hit on the
/// `blocking` example under load).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_local_handler_stopped_to_ask_lets_go_of_what_it_held_before_the_client_is_asked() {
    let released = Arc::new(AtomicBool::new(false));
    let holding = Arc::clone(&released);
    let tool = mcp_runtime::ToolDescriptor::new("hold_and_ask").local_handler_with_context(
        move |_: Value, ctx: mcp_runtime::Context| {
            let held = Held(Arc::clone(&holding));
            async move {
                let asked = ctx.elicit::<Add>("Add one?").await;
                drop(held);
                let added = matches!(asked, Ok(mcp_runtime::asking::Elicitation::Accept(Add { add: true })));
                format!("added: {added}")
            }
        },
    );
    let seen_when_asked = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&seen_when_asked);
    let released_then = Arc::clone(&released);
    let client = TestClient::builder()
        .revision(Revision::V2026_07_28)
        .on_elicitation(move |_| {
            seen.lock().unwrap().push(released_then.swap(false, Ordering::SeqCst));
            json!({"action": "accept", "content": {"add": true}})
        })
        .connect(Server::builder("ledger", "1").tool(tool))
        .await
        .expect("connects");
    for _ in 0..3 {
        // The previous call's last run let go of it when it ended.
        released.store(false, Ordering::SeqCst);
        let result = client.call_tool("hold_and_ask", json!({})).await.expect("a result");
        assert_eq!(result["content"][0]["text"], "added: true");
    }
    assert_eq!(*seen_when_asked.lock().unwrap(), [true, true, true], "the first run was dropped before each question");
    client.close().await.expect("closes");
}
