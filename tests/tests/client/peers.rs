//! The client against servers written with the other official SDKs: `tests/clients/node/
//! server.mjs` (TypeScript SDK 1.32.2, which speaks only the handshake era) and
//! `tests/clients/python/server.py` (Python SDK 2.3.0, which speaks the handshake era and
//! 2026-07-28), each over stdio and over Streamable HTTP. Every connection is made twice: with
//! `Era::Auto`, which must settle on the newest revision the server speaks, and with
//! `Era::Handshake`. Each lists the tools, calls `add` into a typed struct, answers the
//! elicitation of `confirm` and the sampling of `summarize`, reads `memo://greeting` and gets
//! the prompt `greet`.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_runtime::Server;
use mcp_runtime::client::{Client, ClientBuilder, Era, Stderr};
use mcp_runtime::protocol::{CallToolResult, Content, ResourceContents, Revision, Role};
use mcp_tests::clients::{node_server, python_server};
use mcp_tests::services::{KillOnDrop, StderrLog, free_port, wait_for_port};
use serde::Deserialize;
use serde_json::{Value, json};

/// What the client's sampling handler answers: the servers must hand it back unchanged.
const SAMPLED: &str = "a summary sampled by the Rust client";

/// How long a server may take to listen: the Python one imports the whole SDK first, on a
/// machine whose cores other tests share.
const STARTUP: Duration = Duration::from_secs(60);

/// Which SDK wrote the server.
#[derive(Debug, Clone, Copy)]
enum Sdk {
    Node,
    Python,
}

impl Sdk {
    /// How the server's texts name it.
    fn name(self) -> &'static str {
        match self {
            Sdk::Node => "node",
            Sdk::Python => "python",
        }
    }

    /// The name the server gives itself (`serverInfo`).
    fn server_name(self) -> &'static str {
        match self {
            Sdk::Node => "node-sdk-server",
            Sdk::Python => "python-sdk-server",
        }
    }

    /// The command that runs the server over stdio (installing its SDK first).
    fn command(self) -> std::process::Command {
        match self {
            Sdk::Node => node_server(),
            Sdk::Python => python_server(),
        }
    }

    /// Each era to connect in, with the revision the client must end up speaking.
    fn eras(self) -> [(Era, Revision); 2] {
        let newest = match self {
            // SDK 1.32.2 knows neither `server/discover` nor 2026-07-28: Auto falls back.
            Sdk::Node => Revision::V2025_11_25,
            Sdk::Python => Revision::V2026_07_28,
        };
        [(Era::Auto, newest), (Era::Handshake, Revision::V2025_11_25)]
    }
}

/// `add`'s structured output.
#[derive(Debug, Deserialize)]
struct Sum {
    sum: f64,
}

/// The questions the server asked the client, method and params, in order.
#[derive(Debug, Clone, Default)]
struct Questions(Arc<Mutex<Vec<(String, Value)>>>);

impl Questions {
    fn record(&self, method: &str, params: Value) {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).push((method.to_owned(), params));
    }

    fn taken(&self) -> Vec<(String, Value)> {
        std::mem::take(&mut *self.0.lock().unwrap_or_else(|e| e.into_inner()))
    }
}

/// A client in `era` that accepts every elicitation with `{ok: true}` and answers every
/// sampling request with [`SAMPLED`], recording the questions in `questions`.
fn builder(era: Era, questions: &Questions) -> ClientBuilder {
    let (elicited, sampled) = (questions.clone(), questions.clone());
    Client::builder()
        .name("mcp-tests-peers", "0.0.0")
        .era(era)
        .on_elicitation(move |params| {
            elicited.record("elicitation/create", params);
            async { Ok(json!({"action": "accept", "content": {"ok": true}})) }
        })
        .on_sampling(move |params| {
            sampled.record("sampling/createMessage", params);
            async {
                Ok(json!({
                    "role": "assistant",
                    "content": {"type": "text", "text": SAMPLED},
                    "model": "rust-test-model",
                }))
            }
        })
}

/// The text blocks of a tool result, joined.
fn text(result: &CallToolResult) -> String {
    let texts: Vec<&str> = result
        .content
        .iter()
        .filter_map(|c| match c {
            Content::Text { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    texts.join(" ")
}

/// Everything the server offers, asked through `client`, which must speak `revision`;
/// `questions` is what the client's handlers recorded.
async fn exercise(client: &Client, sdk: Sdk, revision: Revision, questions: &Questions) {
    let negotiation = client.negotiation();
    assert_eq!(client.revision(), revision, "{negotiation:?}");
    assert_eq!(negotiation.server_info.as_ref().map(|i| i.name.as_str()), Some(sdk.server_name()), "{negotiation:?}");
    assert!(negotiation.instructions.as_deref().is_some_and(|i| i.contains(sdk.name())), "{negotiation:?}");
    if revision == Revision::V2026_07_28 {
        assert!(negotiation.supported_versions.iter().any(|v| v == "2026-07-28"), "{negotiation:?}");
    }

    let tools = client.list_tools().await.expect("tools/list");
    let mut names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    names.sort_unstable();
    assert_eq!(names, ["add", "confirm", "summarize"]);
    let add = tools.iter().find(|t| t.name == "add").expect("add");
    assert_eq!(add.output_schema.as_ref().map(|s| &s["properties"]["sum"]["type"]), Some(&json!("number")), "{add:?}");

    let sum: Sum = client.call_tool_as("add", json!({"a": 2, "b": 3})).await.expect("a typed call of add");
    assert!((sum.sum - 5.0).abs() < f64::EPSILON, "{sum:?}");
    // The text beside the structured content says who computed it.
    let added = client.call_tool("add", json!({"a": 2, "b": 3})).await.expect("tools/call add");
    assert!(text(&added).contains(&format!("from {}", sdk.name())), "{added:?}");
    assert!(questions.taken().is_empty(), "add asked nothing");

    let confirmed = client.call_tool("confirm", json!({})).await.expect("tools/call confirm");
    assert!(!confirmed.is_error, "{confirmed:?}");
    assert_eq!(text(&confirmed), "confirmed");
    // Asked once (in 2026-07-28, the retry carrying the answer is not asked again), with the
    // form the server built.
    let asked = questions.taken();
    assert_eq!(asked.len(), 1, "{asked:?}");
    let (method, params) = &asked[0];
    assert_eq!(method, "elicitation/create");
    assert_eq!(params["requestedSchema"]["properties"]["ok"]["type"], "boolean", "{params}");
    assert!(params["message"].as_str().is_some_and(|m| m.contains(sdk.name())), "{params}");

    let summary = client.call_tool("summarize", json!({"text": "the quarterly report"})).await.expect("summarize");
    assert!(!summary.is_error, "{summary:?}");
    assert_eq!(text(&summary), SAMPLED);
    let asked = questions.taken();
    assert_eq!(asked.len(), 1, "{asked:?}");
    let (method, params) = &asked[0];
    assert_eq!(method, "sampling/createMessage");
    let message = params["messages"][0]["content"]["text"].as_str().unwrap_or_default();
    assert!(message.contains("the quarterly report") && message.contains(sdk.name()), "{params}");

    let memo = client.read_resource("memo://greeting").await.expect("resources/read");
    let [ResourceContents::Text { text, .. }] = memo.contents.as_slice() else { panic!("one text: {memo:?}") };
    assert_eq!(text, &format!("hello from {}", sdk.name()));

    let prompt = client.get_prompt("greet", json!({"name": "Ada"})).await.expect("prompts/get");
    let [message] = prompt.messages.as_slice() else { panic!("one message: {prompt:?}") };
    assert_eq!(message.role, Role::User);
    let Content::Text { text, .. } = &message.content else { panic!("a text message: {prompt:?}") };
    assert!(text.contains("Ada") && text.contains(sdk.name()), "{text}");
}

/// Runs `sdk`'s server over stdio once per era and exercises it.
async fn over_stdio(sdk: Sdk) {
    for (era, revision) in sdk.eras() {
        let questions = Questions::default();
        let client = builder(era, &questions)
            // Its last lines go into the error that reports an exit; the test output stays clean.
            .stderr(Stderr::Capture)
            .stdio(tokio::process::Command::from(sdk.command()))
            .await
            .unwrap_or_else(|e| panic!("{sdk:?} over stdio, {era:?}: connects: {e}"));
        exercise(&client, sdk, revision, &questions).await;
        client.close().await.expect("closes");
        assert!(client.ended().is_some());
    }
}

/// One of the servers serving Streamable HTTP, killed when dropped.
struct HttpPeer {
    _process: KillOnDrop,
    log: StderrLog,
    url: String,
}

impl HttpPeer {
    /// Starts `sdk`'s server with `--http <free port>` and waits until it listens.
    fn start(sdk: Sdk) -> HttpPeer {
        let port = free_port();
        let mut child = sdk
            .command()
            .args(["--http", &port.to_string()])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start the {sdk:?} SDK's server: {e}"));
        let log = StderrLog::drain(&mut child);
        let mut process = KillOnDrop(child);
        let what = format!("the {sdk:?} SDK's server");
        // Shown with what the server said, when it dies or never listens.
        if catch_unwind(AssertUnwindSafe(|| wait_for_port(&mut process.0, port, &what, STARTUP))).is_err() {
            panic!("{what} did not start; its stderr:\n{}", log.text());
        }
        HttpPeer { _process: process, log, url: format!("http://127.0.0.1:{port}/mcp") }
    }
}

/// Starts `sdk`'s server over HTTP and exercises it once per era, each era a connection of its
/// own to the same server.
async fn over_http(sdk: Sdk) {
    let server = HttpPeer::start(sdk);
    for (era, revision) in sdk.eras() {
        let questions = Questions::default();
        let client = builder(era, &questions)
            .http(&server.url)
            .await
            .unwrap_or_else(|e| panic!("{sdk:?} over HTTP, {era:?}: connects: {e}\n{}", server.log.text()));
        exercise(&client, sdk, revision, &questions).await;
        client.close().await.expect("closes");
    }
}

#[tokio::test]
async fn the_typescript_sdk_s_server_over_stdio() {
    over_stdio(Sdk::Node).await;
}

#[tokio::test]
async fn the_typescript_sdk_s_server_over_http() {
    over_http(Sdk::Node).await;
}

#[tokio::test]
async fn the_python_sdk_s_server_over_stdio() {
    over_stdio(Sdk::Python).await;
}

#[tokio::test]
async fn the_python_sdk_s_server_over_http() {
    over_http(Sdk::Python).await;
}

/// `sdk`'s server over stdio behind `Server::proxy`, served in memory to a client of each era:
/// everything `exercise` asks passes through the proxy (the questions asked of the client in
/// front, in its era). The proxy speaks to the remote in the newest revision they share, so
/// that the TypeScript server (handshake only) is served to a 2026-07-28 client, and the
/// Python server (2026-07-28) to a handshake-era one.
async fn through_the_proxy(sdk: Sdk) {
    let proxied = || async move {
        Server::proxy(move |client| client.stderr(Stderr::Capture).stdio(tokio::process::Command::from(sdk.command())))
            .await
            .unwrap_or_else(|e| panic!("{sdk:?} behind the proxy: connects: {e}"))
    };
    for (era, revision) in [(Era::Auto, Revision::V2026_07_28), (Era::Handshake, Revision::V2025_11_25)] {
        let questions = Questions::default();
        let client = builder(era, &questions).memory(proxied().await).await.expect("the proxy serves");
        exercise(&client, sdk, revision, &questions).await;
        client.close().await.expect("closes");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_typescript_sdk_s_server_through_the_proxy() {
    through_the_proxy(Sdk::Node).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_python_sdk_s_server_through_the_proxy() {
    through_the_proxy(Sdk::Python).await;
}

/// The gateway example (`examples/gateway`) with a real client in front: the Python SDK's
/// client, in each era, lists and calls through it GiftGen and the notes server (our examples,
/// over stdio) and the TypeScript SDK's server (over Streamable HTTP), each under its prefix.
#[test]
fn the_gateway_example_serves_its_parts_to_the_python_sdk_s_client() {
    use mcp_tests::clients::{python_client, run_plan, with_mode};
    use mcp_tests::example_binary;
    use mcp_tests::gift_genius::{normalised, suggestions};

    let remote = HttpPeer::start(Sdk::Node);
    let gateway = example_binary("gateway");
    let (gifts, notes) = (example_binary("gift_genius"), example_binary("notes"));
    let plan = json!([
        {"op": "list_tools"},
        {"op": "call_tool", "name": "gifts_suggest_gifts", "arguments": {"age": 30, "relationship": "sister", "budget": 100}},
        {"op": "call_tool", "name": "notes_write_note", "arguments": {"title": "plan", "text": "Buy a kite"}},
        {"op": "read_resource", "uri": "notes://plan"},
        {"op": "call_tool", "name": "remote_add", "arguments": {"a": 2, "b": 3}},
        {"op": "read_resource", "uri": "memo://greeting"},
        {"op": "get_prompt", "name": "gifts_describe_gift", "arguments": {"gift_name": "a kite", "recipient": "sister"}},
    ]);
    for mode in ["legacy", "modern"] {
        let mut client = with_mode(python_client(), mode);
        client.env("GATEWAY_GIFTS", &gifts).env("GATEWAY_NOTES", &notes).env("GATEWAY_REMOTE", &remote.url);
        let lines = run_plan(client, &plan, &gateway, &[]);
        let [_connect, list, gift, wrote, note, added, memo, prompt] = &lines[..] else {
            panic!("{mode}: a connect line and 7 step lines, got {lines:#?}\n{}", remote.log.text());
        };
        let tools = list["result"]["tools"].as_array().unwrap_or_else(|| panic!("{mode}: {list:#}"));
        let mut names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
        names.sort_unstable();
        for expected in ["gifts_suggest_gifts", "notes_write_note", "notes_search", "parts", "remote_add"] {
            assert!(names.contains(&expected), "{mode}: {expected} in {names:?}");
        }
        let want = suggestions(30, "sister", Some(100.0));
        assert_eq!(normalised(&gift["result"]["structuredContent"]), want, "{mode}: {gift:#}");
        assert_eq!(wrote["result"]["content"][0]["text"], "Wrote \"plan\"", "{mode}: {wrote:#}");
        assert_eq!(note["result"]["contents"][0]["text"], "# plan\n\nBuy a kite", "{mode}: {note:#}");
        assert!(added["result"]["content"][0]["text"].as_str().is_some_and(|t| t.contains("from node")), "{added:#}");
        assert_eq!(memo["result"]["contents"][0]["text"], "hello from node", "{mode}: {memo:#}");
        let said = prompt["result"]["messages"][0]["content"]["text"].as_str().unwrap_or_default();
        assert!(said.contains("a kite") && said.contains("sister"), "{mode}: {prompt:#}");
    }
}
