//! Application state through the macros: `State<T>` parameters in tools, resource templates
//! and prompts (never in a schema), the start-up error naming a handler whose state nobody
//! registered, and `timeout = "..."` on a declaration.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use mcp_runtime::{Context, Error, ItemKind, Server, State, mcp_prompt, mcp_resource, mcp_tool};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

/// A counter shared by every call.
#[derive(Default)]
struct Hits(AtomicUsize);

/// A greeting read at start-up.
struct Greeting(String);

/// Greets `name` and counts the greeting.
#[mcp_tool]
async fn greet(greeting: State<Greeting>, hits: State<Hits>, name: String) -> String {
    let n = hits.0.fetch_add(1, Ordering::SeqCst) + 1;
    format!("{}, {name}! (#{n})", greeting.0)
}

/// How many greetings so far, per page.
#[mcp_resource("hits://{page}")]
fn hit_page(hits: State<Hits>, page: u32) -> String {
    format!("page {page}: {} hits", hits.0.load(Ordering::SeqCst))
}

/// A prompt that quotes the greeting.
#[mcp_prompt]
fn greeting_prompt(greeting: State<Greeting>, ctx: &Context, name: String) -> String {
    format!("Say \"{}\" to {name} ({})", greeting.0, ctx.revision())
}

/// Sleeps past its own limit.
#[mcp_tool(timeout = "150ms")]
async fn dawdle() -> String {
    tokio::time::sleep(Duration::from_secs(10)).await;
    "woke".into()
}

/// Sends `requests` (after the 2025-11-25 handshake) and returns their responses by id.
async fn exchange(server: Server, requests: &[Value]) -> Vec<Value> {
    let (client, server_side) = tokio::io::duplex(64 * 1024);
    let (server_in, server_out) = tokio::io::split(server_side);
    let serving = tokio::spawn(server.serve(server_in, server_out));
    let (client_in, mut client_out) = tokio::io::split(client);
    let mut lines = BufReader::new(client_in).lines();
    let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}});
    client_out.write_all(format!("{initialize}\n").as_bytes()).await.unwrap();
    lines.next_line().await.unwrap().unwrap();
    let mut responses = Vec::new();
    for (id, request) in requests.iter().enumerate() {
        let mut request = request.clone();
        request["jsonrpc"] = json!("2.0");
        request["id"] = json!(id + 1);
        client_out.write_all(format!("{request}\n").as_bytes()).await.unwrap();
        responses.push(serde_json::from_str(&lines.next_line().await.unwrap().unwrap()).unwrap());
    }
    client_out.shutdown().await.unwrap();
    serving.await.unwrap().unwrap();
    responses
}

fn server() -> Server {
    Server::builder("stateful", "1")
        .state(Greeting("Hello".into()))
        .state(Hits::default())
        .tool(greet)
        .tool(dawdle)
        .resource(hit_page)
        .prompt(greeting_prompt)
}

#[tokio::test]
async fn handlers_share_the_registered_states() {
    let call = |name: &str| json!({"method": "tools/call", "params": {"name": "greet", "arguments": {"name": name}}});
    let responses = exchange(
        server(),
        &[
            json!({"method": "tools/list"}),
            call("Ada"),
            call("Grace"),
            json!({"method": "resources/read", "params": {"uri": "hits://3"}}),
            json!({"method": "prompts/get", "params": {"name": "greeting_prompt", "arguments": {"name": "Alan"}}}),
            json!({"method": "prompts/list"}),
        ],
    )
    .await;
    let greet = responses[0]["result"]["tools"].as_array().unwrap().iter().find(|t| t["name"] == "greet").unwrap();
    assert_eq!(greet["inputSchema"]["properties"], json!({"name": {"type": "string"}}), "states are not arguments");
    assert_eq!(responses[1]["result"]["content"][0]["text"], "Hello, Ada! (#1)");
    assert_eq!(responses[2]["result"]["content"][0]["text"], "Hello, Grace! (#2)");
    assert_eq!(responses[3]["result"]["contents"][0]["text"], "page 3: 2 hits");
    let message = &responses[4]["result"]["messages"][0]["content"]["text"];
    assert_eq!(message, "Say \"Hello\" to Alan (2025-11-25)");
    let arguments = &responses[5]["result"]["prompts"][0]["arguments"];
    assert_eq!(arguments.as_array().unwrap().len(), 1, "only `name`: {arguments}");
}

#[tokio::test]
async fn a_declared_time_limit_ends_the_call() {
    let call = json!({"method": "tools/call", "params": {"name": "dawdle", "arguments": {}}});
    let responses = exchange(server(), &[call]).await;
    assert_eq!(responses[0]["result"]["isError"], true);
    assert_eq!(responses[0]["result"]["content"][0]["text"], "Tool `dawdle` did not finish within 150 ms");
}

#[test]
fn a_state_nobody_registered_stops_the_server_at_start_naming_the_handler() {
    let error = Server::builder("forgetful", "1").state(Hits::default()).tool(greet).validate().unwrap_err();
    let Error::MissingState { kind: ItemKind::Tool, name, type_name, defined_at, registered: None } = &error else {
        panic!("unexpected error: {error}")
    };
    assert_eq!(name, "greet");
    assert!(type_name.ends_with("Greeting"), "{type_name}");
    assert!(defined_at.starts_with(file!()), "{defined_at}");
    let message = error.to_string();
    assert!(message.contains("add `.state(value)`") && message.contains("Greeting"), "{message}");
    let error = Server::builder("forgetful", "1").resource(hit_page).validate().unwrap_err();
    assert!(matches!(error, Error::MissingState { kind: ItemKind::ResourceTemplate, .. }), "{error}");
}

#[test]
fn a_state_registered_wrapped_is_named_as_the_near_miss() {
    // `State<Greeting>` taken, `Arc<Greeting>` registered (`State` is already an `Arc`).
    let wrapped = std::sync::Arc::new(Greeting("Hello".into()));
    let error =
        Server::builder("wrapped", "1").state(Hits::default()).state(wrapped).tool(greet).validate().unwrap_err();
    let Error::MissingState { type_name, registered: Some(near), .. } = &error else {
        panic!("no near miss named: {error}")
    };
    assert!(type_name.ends_with("Greeting") && near.starts_with("alloc::sync::Arc<"), "{type_name} / {near}");
    let message = error.to_string();
    assert!(message.contains(&format!("the state registered is a `{near}`, another type")), "{message}");
    assert!(message.contains(&format!("or take `State<{near}>`")), "{message}");
    // A state of an unrelated type is no near miss.
    let error =
        Server::builder("forgetful", "1").state(Hits::default()).state(7_u32).tool(greet).validate().unwrap_err();
    assert!(matches!(error, Error::MissingState { registered: None, .. }), "{error}");
}

#[tokio::test]
async fn handlers_stay_plain_functions_callable_in_unit_tests() {
    let text = greet(State::new(Greeting("Hi".into())), State::new(Hits::default()), "Ada".into()).await;
    assert_eq!(text, "Hi, Ada! (#1)");
    let ctx = Context::detached().with_state(Hits::default());
    let hits = ctx.state::<Hits>().expect("registered on the context");
    assert_eq!(hit_page(hits, 1), "page 1: 0 hits");
}

/// Returns the region it was called for.
#[mcp_tool]
async fn regional(#[mcp(header = "Region")] region: String, #[mcp(rename = "n", header = "N")] count: i64) -> String {
    format!("{region} {count}")
}

/// Mirrors a number: refused at start-up.
#[mcp_tool]
async fn unmirrorable(#[mcp(header = "Ratio")] ratio: f64) -> String {
    ratio.to_string()
}

#[test]
fn mirrored_arguments_are_declared_in_the_schema_and_checked_at_start() {
    let listing = Server::builder("headers", "1").tool(regional).describe().unwrap();
    let line = listing.lines().find(|l| l.starts_with("tool regional")).unwrap();
    let tool: Value = serde_json::from_str(line.split_once(": ").unwrap().1).unwrap();
    assert_eq!(tool["inputSchema"]["properties"]["region"]["x-mcp-header"], "Region");
    assert_eq!(tool["inputSchema"]["properties"]["n"]["x-mcp-header"], "N", "the wire name carries it");
    let error = Server::builder("headers", "1").tool(unmirrorable).validate().unwrap_err();
    let message = error.to_string();
    assert!(message.contains("`ratio`") && message.contains("only string, integer and boolean"), "{message}");
}
