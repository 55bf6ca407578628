//! The middleware seam in process, over an in-memory stream: layers see every request of both
//! eras in the order they were added, refuse, change params and results, keep lifecycle order,
//! can be cancelled, cannot take the server down; tower's own layers and the built-in rate
//! limit, concurrency limit and audit layer compose with them.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_runtime::BoxFuture;
use mcp_runtime::middleware::{
    Audit, BoxError, ConcurrencyLimit, FromFnLayer, McpRequest, McpResponse, Next, RateLimit, Target, from_fn,
};
use mcp_runtime::protocol::ErrorObject;
use mcp_runtime::{Server, ToolDescriptor};
use serde_json::{Value, json};

use super::{Client, initialize};

fn call(id: u32, tool: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": tool, "arguments": arguments}})
}

fn stateless_call(id: u32, tool: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": tool, "arguments": arguments,
    "_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}
    }}})
}

fn echo() -> ToolDescriptor {
    ToolDescriptor::new("echo").handler(|args: Value| async move { args["text"].as_str().unwrap_or("").to_owned() })
}

fn text_of(answer: &Value) -> &str {
    answer["result"]["content"][0]["text"].as_str().unwrap_or_else(|| panic!("a text result: {answer}"))
}

type Seen = Arc<Mutex<Vec<String>>>;

/// A layer writing `name method target revision transport` for each request it sees.
fn recording(
    name: &'static str,
    seen: &Seen,
) -> FromFnLayer<impl Fn(McpRequest, Next) -> BoxFuture<'static, Result<McpResponse, BoxError>> + Clone + Send + 'static>
{
    let seen = Arc::clone(seen);
    from_fn(move |request: McpRequest, next: Next| -> BoxFuture<'static, Result<McpResponse, BoxError>> {
        let target = request.target().map(Target::name).unwrap_or("-").to_owned();
        let line =
            format!("{name} {} {target} {} {}", request.method(), request.revision(), request.transport().as_str());
        seen.lock().unwrap().push(line);
        Box::pin(next.run(request))
    })
}

#[tokio::test]
async fn layers_see_every_request_of_both_eras_in_the_order_added() {
    let seen = Seen::default();
    let server = Server::builder("layers", "1").tool(echo()).layer(recording("a", &seen)).layer(recording("b", &seen));
    let mut client = Client::start(server);
    client.initialize().await;
    let list = client.call(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})).await;
    assert_eq!(list["result"]["tools"][0]["name"], "echo", "{list}");
    let answer = client.call(&call(2, "echo", json!({"text": "hi"}))).await;
    assert_eq!(text_of(&answer), "hi");
    let answer = client.call(&stateless_call(3, "echo", json!({"text": "there"}))).await;
    assert_eq!(text_of(&answer), "there");
    assert_eq!(answer["result"]["resultType"], "complete", "{answer}");
    // Refused before the layers: an unknown method is not a request the server serves.
    let unknown = client.call(&json!({"jsonrpc": "2.0", "id": 4, "method": "nope/nothing"})).await;
    assert_eq!(unknown["error"]["code"], -32601);
    client.end().await;
    let seen = seen.lock().unwrap().clone();
    assert_eq!(
        seen,
        [
            "a initialize - 2025-11-25 stdio",
            "b initialize - 2025-11-25 stdio",
            "a tools/list - 2025-11-25 stdio",
            "b tools/list - 2025-11-25 stdio",
            "a tools/call echo 2025-11-25 stdio",
            "b tools/call echo 2025-11-25 stdio",
            "a tools/call echo 2026-07-28 stdio",
            "b tools/call echo 2026-07-28 stdio",
        ]
    );
}

#[tokio::test]
async fn a_layer_refuses_changes_params_and_changes_results() {
    let ran = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&ran);
    let tool = ToolDescriptor::new("echo").handler(move |args: Value| {
        counted.fetch_add(1, Ordering::SeqCst);
        async move { args["text"].as_str().unwrap_or("").to_owned() }
    });
    let server = Server::builder("layers", "1").tool(tool).layer(from_fn(|mut request, next| async move {
        let Some(Target::Tool(_)) = request.target() else { return next.run(request).await };
        let mut params: Value = serde_json::from_str(request.params().unwrap().get())?;
        match params["arguments"]["text"].as_str() {
            Some("secret") => {
                return Ok(McpResponse::error(ErrorObject::new(-31403, "Not this one")).with_http_status(403));
            }
            Some(text) => params["arguments"]["text"] = json!(text.to_uppercase()),
            None => {}
        }
        request.set_params(params);
        let mut response = next.run(request).await?;
        let mut result = response.result()?;
        result["content"].as_array_mut().unwrap().push(json!({"type": "text", "text": "checked"}));
        response.set_result(Ok(result));
        Ok(response)
    }));
    let mut client = Client::start(server);
    client.initialize().await;
    let refused = client.call(&call(1, "echo", json!({"text": "secret"}))).await;
    assert_eq!(refused["error"]["code"], -31403, "{refused}");
    assert_eq!(ran.load(Ordering::SeqCst), 0, "a refused call never reaches its tool");
    let changed = client.call(&call(2, "echo", json!({"text": "quiet"}))).await;
    assert_eq!(changed["result"]["content"][0]["text"], "QUIET", "{changed}");
    assert_eq!(changed["result"]["content"][1]["text"], "checked", "{changed}");
    // In 2026-07-28 the result is written for its revision again.
    let changed = client.call(&stateless_call(3, "echo", json!({"text": "new"}))).await;
    assert_eq!(changed["result"]["content"][0]["text"], "NEW", "{changed}");
    assert_eq!(changed["result"]["content"][1]["text"], "checked", "{changed}");
    assert_eq!(changed["result"]["resultType"], "complete", "{changed}");
    assert_eq!(changed["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]["name"], "layers", "{changed}");
    assert_eq!(ran.load(Ordering::SeqCst), 2);
    client.end().await;
}

#[tokio::test]
async fn a_slow_layer_on_initialize_keeps_lifecycle_order() {
    let server = Server::builder("layers", "1").tool(echo()).layer(from_fn(|request, next| async move {
        if request.method() == "initialize" {
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        next.run(request).await
    }));
    let mut client = Client::start(server);
    // Sent together, without waiting for the answer to `initialize`.
    client.send(&initialize(0)).await;
    client.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await;
    client.send(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})).await;
    let first = client.next().await;
    assert_eq!(first["id"], 0);
    assert_eq!(first["result"]["protocolVersion"], "2025-11-25", "{first}");
    let list = client.next().await;
    assert_eq!(list["result"]["tools"][0]["name"], "echo", "served in the session `initialize` opened: {list}");
    client.end().await;
}

#[tokio::test]
async fn a_request_waiting_in_a_layer_can_be_cancelled_and_a_panicking_layer_answers() {
    let server = Server::builder("layers", "1").tool(echo()).layer(from_fn(|request, next| async move {
        match request.target() {
            Some(Target::Tool("echo")) if request.id().to_string() == "1" => {
                std::future::pending::<()>().await;
                next.run(request).await
            }
            _ if request.id().to_string() == "2" => panic!("a layer's bug"),
            _ => next.run(request).await,
        }
    }));
    let mut client = Client::start(server);
    client.initialize().await;
    client.send(&call(1, "echo", json!({"text": "never"}))).await;
    client.send(&json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}})).await;
    let panicked = client.call(&call(2, "echo", json!({"text": "x"}))).await;
    assert_eq!(panicked["id"], 2);
    assert_eq!(panicked["error"]["code"], -32603, "{panicked}");
    assert!(panicked["error"]["message"].as_str().unwrap().contains("a layer's bug"), "{panicked}");
    let fine = client.call(&call(3, "echo", json!({"text": "still here"}))).await;
    assert_eq!(fine["id"], 3, "nothing was sent for the cancelled request: {fine}");
    assert_eq!(text_of(&fine), "still here");
    // The input ends with nothing left in the layers: serving returns.
    client.end().await;
}

/// A tool that counts how many of its calls run at once, and the most it saw.
fn overlapping(running: &Arc<AtomicUsize>, most: &Arc<AtomicUsize>) -> ToolDescriptor {
    let (running, most) = (Arc::clone(running), Arc::clone(most));
    ToolDescriptor::new("overlap").handler(move |_: Value| {
        let (running, most) = (Arc::clone(&running), Arc::clone(&most));
        async move {
            let now = running.fetch_add(1, Ordering::SeqCst) + 1;
            most.fetch_max(now, Ordering::SeqCst);
            tokio::time::sleep(Duration::from_millis(30)).await;
            running.fetch_sub(1, Ordering::SeqCst);
            "done".to_owned()
        }
    })
}

#[tokio::test]
async fn tower_layers_compose_with_the_seam() {
    let (running, most) = (Arc::default(), Arc::default());
    let slow = ToolDescriptor::new("slow").handler(|_: Value| async {
        tokio::time::sleep(Duration::from_secs(30)).await;
        "late".to_owned()
    });
    let server = Server::builder("layers", "1")
        .tool(overlapping(&running, &most))
        .tool(slow)
        .layer(tower::timeout::TimeoutLayer::new(Duration::from_millis(300)))
        .layer(tower::limit::ConcurrencyLimitLayer::new(1));
    let mut client = Client::start(server);
    client.initialize().await;
    for id in 1..=4 {
        client.send(&call(id, "overlap", json!({}))).await;
    }
    for _ in 1..=4 {
        let answer = client.next().await;
        assert_eq!(text_of(&answer), "done");
    }
    assert_eq!(most.load(Ordering::SeqCst), 1, "tower's concurrency limit held the calls to one at a time");
    let timed_out = client.call(&call(5, "slow", json!({}))).await;
    assert_eq!(timed_out["error"]["code"], -32603, "{timed_out}");
    assert!(timed_out["error"]["message"].as_str().unwrap().contains("timed out"), "{timed_out}");
    // The call the timeout gave up on was stopped: nothing holds the end of the input up.
    let ending = std::time::Instant::now();
    client.end().await;
    assert!(ending.elapsed() < Duration::from_secs(5), "the timed-out tool was still running");
}

#[tokio::test]
async fn the_rate_limit_refuses_past_the_bucket_and_says_when_to_retry() {
    let server = Server::builder("layers", "1")
        .tool(echo())
        .layer(RateLimit::per_caller(3, Duration::from_secs(60)).every_request());
    let mut client = Client::start(server);
    client.initialize().await; // with `every_request`, initialize takes a token too
    for id in 1..=2 {
        let answer = client.call(&call(id, "echo", json!({"text": "ok"}))).await;
        assert_eq!(text_of(&answer), "ok");
    }
    let refused = client.call(&stateless_call(3, "echo", json!({"text": "too many"}))).await;
    assert_eq!(refused["error"]["code"], -31000, "{refused}");
    let retry = refused["error"]["data"]["retryAfterMs"].as_u64().expect("retryAfterMs");
    assert!((19_000..=20_000).contains(&retry), "a token is back in 20 s: {refused}");
    assert!(refused["error"]["message"].as_str().unwrap().contains("the stdio client"), "{refused}");
    client.end().await;
}

#[tokio::test]
async fn the_concurrency_limit_holds_each_caller_to_its_share() {
    let (running, most) = (Arc::default(), Arc::default());
    let server =
        Server::builder("layers", "1").tool(overlapping(&running, &most)).layer(ConcurrencyLimit::per_caller(2));
    let mut client = Client::start(server);
    client.initialize().await;
    for id in 1..=6 {
        client.send(&call(id, "overlap", json!({}))).await;
    }
    for _ in 1..=6 {
        assert_eq!(text_of(&client.next().await), "done");
    }
    assert_eq!(most.load(Ordering::SeqCst), 2, "the caller's calls ran two at a time, never more");
    client.end().await;
}

/// Where the audit events are written.
#[derive(Clone, Default)]
struct Written(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Written {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[tokio::test]
async fn the_audit_layer_writes_one_event_per_request_without_arguments() {
    let written = Written::default();
    let sink = written.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_writer(move || sink.clone())
        .with_ansi(false)
        .with_env_filter("mcp_runtime::audit=info")
        .finish();
    // The test's runtime has one thread: every task logs through this subscriber.
    let _default = tracing::subscriber::set_default(subscriber);
    let failing = ToolDescriptor::new("fails").handler(|_: Value| async { Err::<String, _>("no gifts left") });
    let server = Server::builder("layers", "1").tool(echo()).tool(failing).layer(Audit::new());
    let mut client = Client::start(server);
    client.initialize().await;
    client.call(&call(1, "echo", json!({"text": "password123"}))).await;
    client.call(&call(2, "fails", json!({}))).await;
    client.call(&call(3, "missing", json!({}))).await;
    client.end().await;
    let text = String::from_utf8(written.0.lock().unwrap().clone()).unwrap();
    let events: Vec<&str> = text.lines().filter(|line| line.contains("request answered")).collect();
    assert_eq!(events.len(), 4, "initialize and three calls:\n{text}");
    assert!(events[1].contains("method=\"tools/call\"") && events[1].contains("item=\"echo\""), "{}", events[1]);
    assert!(events[1].contains("outcome=\"ok\"") && events[1].contains("caller=\"the stdio client\""), "{}", events[1]);
    assert!(events[1].contains("duration_ms="), "{}", events[1]);
    assert!(events[2].contains("outcome=\"tool_error\""), "{}", events[2]);
    assert!(events[3].contains("outcome=\"error\"") && events[3].contains("error_code=-32602"), "{}", events[3]);
    assert!(!text.contains("password123"), "arguments are left out unless asked for:\n{text}");
}

/// Wipes every gift list (for administrators).
#[mcp_runtime::mcp_tool(tags("admin"))]
fn wipe() -> &'static str {
    "wiped"
}

/// The gift lists of administrators.
#[mcp_runtime::mcp_resource("admin://lists", tags("admin"))]
fn admin_lists() -> &'static str {
    "all of them"
}

/// A prompt for administrators.
#[mcp_runtime::mcp_prompt(tags("admin", "ops"))]
fn audit_prompt() -> String {
    "Audit the lists".to_owned()
}

fn tagged_server() -> Server {
    let suggest = ToolDescriptor::new("suggest").tag("public").handler(|_: Value| async { "a scarf".to_owned() });
    Server::builder("tags", "1").tool(suggest).tool(wipe).resource(admin_lists).prompt(audit_prompt)
}

fn request(id: u32, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

fn stateless(id: u32, method: &str, mut params: Value) -> Value {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}
    });
    request(id, method, params)
}

fn names(list: &Value, field: &str, key: &str) -> Vec<String> {
    let items = list["result"][field].as_array().unwrap_or_else(|| panic!("a list: {list}"));
    items.iter().map(|item| item[key].as_str().unwrap().to_owned()).collect()
}

#[tokio::test]
async fn a_layer_hides_tagged_items_from_lists_and_refuses_them() {
    let server = tagged_server().layer(from_fn(|mut request, next| async move {
        request.filter_items(|item| !item.has_tag("admin"));
        next.run(request).await
    }));
    let mut client = Client::start(server);
    client.initialize().await;
    let tools = client.call(&request(1, "tools/list", json!({}))).await;
    assert_eq!(names(&tools, "tools", "name"), ["suggest"]);
    let hidden = client.call(&call(2, "wipe", json!({}))).await;
    assert_eq!(hidden["error"]["code"], -32602, "{hidden}");
    assert_eq!(hidden["error"]["message"], "Unknown tool `wipe`", "as for a tool that does not exist");
    let resources = client.call(&request(3, "resources/list", json!({}))).await;
    assert_eq!(resources["result"]["resources"], json!([]), "{resources}");
    let read = client.call(&request(4, "resources/read", json!({"uri": "admin://lists"}))).await;
    assert_eq!(read["error"]["code"], -32002, "{read}");
    let prompts = client.call(&request(5, "prompts/list", json!({}))).await;
    assert_eq!(prompts["result"]["prompts"], json!([]), "{prompts}");
    let get = client.call(&request(6, "prompts/get", json!({"name": "audit_prompt"}))).await;
    assert_eq!(get["error"]["message"], "Unknown prompt `audit_prompt`", "{get}");
    // 2026-07-28: a list filtered per caller is private to it.
    let modern = client.call(&stateless(7, "tools/list", json!({}))).await;
    assert_eq!(names(&modern, "tools", "name"), ["suggest"]);
    assert_eq!(modern["result"]["cacheScope"], "private", "{modern}");
    let read = client.call(&stateless(8, "resources/read", json!({"uri": "admin://lists"}))).await;
    assert_eq!(read["error"]["code"], -32602, "2026-07-28 spells not found so: {read}");
    client.end().await;

    // Without a filter, everything is listed, and the lists keep their configured scope.
    let mut client = Client::start(tagged_server());
    client.initialize().await;
    let tools = client.call(&request(1, "tools/list", json!({}))).await;
    assert_eq!(names(&tools, "tools", "name"), ["suggest", "wipe"]);
    let modern = client.call(&stateless(2, "tools/list", json!({}))).await;
    assert_eq!(modern["result"]["cacheScope"], "public", "{modern}");
    let read = client.call(&request(3, "resources/read", json!({"uri": "admin://lists"}))).await;
    assert_eq!(read["result"]["contents"][0]["text"], "all of them", "{read}");
    client.end().await;
}

#[tokio::test]
async fn only_tags_offers_the_items_carrying_one_of_them() {
    let mut client = Client::start(tagged_server().only_tags(["public", "ops"]));
    client.initialize().await;
    let tools = client.call(&request(1, "tools/list", json!({}))).await;
    assert_eq!(names(&tools, "tools", "name"), ["suggest"]);
    let prompts = client.call(&request(2, "prompts/list", json!({}))).await;
    assert_eq!(names(&prompts, "prompts", "name"), ["audit_prompt"]);
    let resources = client.call(&request(3, "resources/list", json!({}))).await;
    assert_eq!(resources["error"]["code"], -32601, "no resource is left, so no resources capability: {resources}");
    client.end().await;
}

#[tokio::test]
async fn open_listen_streams_in_layers_never_stop_the_reading() {
    let server = Server::builder("layers", "1").tool(echo()).dynamic_lists().layer(ConcurrencyLimit::per_caller(2));
    let mut client = Client::start(server);
    // More open streams than requests may wait in the layers, and than the caller's limit.
    for id in 1..=20 {
        client.send(&stateless(id, "subscriptions/listen", json!({"notifications": {"toolsListChanged": true}}))).await;
    }
    for _ in 1..=20 {
        let ack = client.next().await;
        assert_eq!(ack["method"], "notifications/subscriptions/acknowledged", "{ack}");
    }
    let answer = client.call(&stateless_call(21, "echo", json!({"text": "still read"}))).await;
    assert_eq!(text_of(&answer), "still read");
}

/// More requests than may wait in the layers at once (the look-ahead of 16 and one slot): the
/// loop stops reading while they are full and reads on as they leave. Their tasks count
/// themselves out without telling the loop each time, so this holds only if the loop is woken
/// while it waits on them.
#[tokio::test]
async fn reading_stops_while_the_layers_are_full_and_goes_on_as_requests_leave() {
    let gate = Arc::new(tokio::sync::Semaphore::new(0));
    let waiting = Arc::clone(&gate);
    let gated = ToolDescriptor::new("gated").handler(move |_: Value| {
        let gate = Arc::clone(&waiting);
        async move {
            gate.acquire().await.expect("the gate stays open").forget();
            "through".to_owned()
        }
    });
    let passing = from_fn(|request: McpRequest, next: Next| next.run(request));
    let server = Server::builder("layers", "1").tool(gated).tool(echo()).max_in_flight(1).layer(passing);
    let mut client = Client::start(server);
    client.initialize().await;
    let calls = 40;
    for id in 1..=calls {
        client.send(&call(id, "gated", json!({}))).await;
    }
    // The layers hold 17 of them; the rest wait unread behind them, and so does this one.
    client.send(&call(100, "echo", json!({"text": "read at last"}))).await;
    gate.add_permits(calls as usize);
    let mut answered = Vec::new();
    for _ in 0..=calls {
        let answer = client.next().await;
        answered.push(answer["id"].as_u64().expect("an id"));
        let expected = if answer["id"] == 100 { "read at last" } else { "through" };
        assert_eq!(text_of(&answer), expected, "{answer}");
    }
    answered.sort_unstable();
    assert_eq!(answered, (1..=u64::from(calls)).chain([100]).collect::<Vec<_>>());
    client.end().await;
}

#[tokio::test]
async fn the_test_client_s_requests_pass_the_layers_as_a_channel_s() {
    let seen = Seen::default();
    let server = Server::builder("layers", "1").tool(echo()).layer(recording("only", &seen));
    let client = mcp_runtime::testing::TestClient::connect(server).await.expect("connects");
    let answer = client.call_tool("echo", json!({"text": "hello"})).await.expect("answered");
    assert_eq!(answer["content"][0]["text"], "hello", "{answer}");
    client.close().await.expect("closes");
    let seen = seen.lock().unwrap().clone();
    let call = seen.iter().find(|line| line.starts_with("only tools/call echo")).expect("the call was seen");
    assert!(call.ends_with(" channel"), "{call}");
}

/// By default the rate limit counts the requests that reach an item only: a test client that
/// connects (the handshake, lists) and then makes 40 calls under a limit of 40 has all 40
/// answered; the 41st call is refused, while lists and pings still pass.
#[tokio::test]
async fn the_rate_limit_counts_the_calls_not_the_client_s_bookkeeping() {
    let server = Server::builder("layers", "1").tool(echo()).layer(RateLimit::per_caller(40, Duration::from_secs(60)));
    let client = mcp_runtime::testing::TestClient::connect(server).await.expect("connected");
    for n in 0..40 {
        let listed = client.list_tools().await.expect("listed");
        assert_eq!(listed.len(), 1);
        let answer = client.call_tool("echo", json!({"text": n.to_string()})).await;
        let answer = answer.unwrap_or_else(|e| panic!("call {} of 40 refused: {e}", n + 1));
        assert_eq!(answer["content"][0]["text"], n.to_string());
    }
    let refused = client.call_tool("echo", json!({"text": "41"})).await.expect_err("the 41st call");
    assert_eq!(refused.rpc().map(|e| e.code), Some(-31000), "{refused:?}");
    client.list_tools().await.expect("a list still passes");
    client.request("ping", json!({})).await.expect("a ping still passes");
    client.close().await.expect("closed");
}
