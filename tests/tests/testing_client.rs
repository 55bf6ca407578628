//! Every form the macros accept serves a real request through `testing::TestClient`, in both
//! eras: what the listing declares is what the call reads (a renamed property read under its
//! Rust name would fail here), and results match the declared output schemas.

use mcp_runtime::protocol::Revision;
use mcp_runtime::testing::{TestClient, TestError};
use mcp_runtime::{Context, Json, Server, State, mcp_prompt, mcp_resource, mcp_tool};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// The eras a user's tests cover: the latest handshake revision, the stateless one, and the
/// oldest (which lacks titles, icons and output schemas).
const REVISIONS: [Revision; 3] = [Revision::V2024_11_05, Revision::V2025_11_25, Revision::V2026_07_28];

/// Describes an item by kind.
#[mcp_tool(title = "Describe", read_only, idempotent, icon = "https://example.com/i.png", meta(team = "gifts"))]
fn describe(#[mcp(rename = "type")] kind: String, #[mcp(default)] loud: bool) -> String {
    if loud { kind.to_uppercase() } else { kind }
}

#[derive(Deserialize, schemars::JsonSchema)]
struct Search {
    /// What to look for.
    query: String,
    /// How many hits at most.
    #[serde(default = "three")]
    limit: usize,
}

fn three() -> usize {
    3
}

#[derive(Serialize, schemars::JsonSchema)]
struct Hits {
    hits: Vec<String>,
}

/// Searches the words it was started with.
#[mcp_tool]
async fn search(#[mcp(flatten)] args: Search, words: State<Vec<String>>, ctx: &Context) -> Json<Hits> {
    assert!(!ctx.is_cancelled());
    let hits = words.iter().filter(|w| w.contains(&args.query)).take(args.limit).cloned().collect();
    Json(Hits { hits })
}

/// Overrides both schemas.
#[mcp_tool(
    input_schema = json!({"type": "object", "properties": {"n": {"type": "integer", "minimum": 0}}, "required": ["n"]}),
    output_schema = json!({"type": "object", "properties": {"double": {"type": "integer"}}, "required": ["double"]})
)]
fn double(n: u32) -> Json<Value> {
    Json(json!({"double": n * 2}))
}

/// A plain list.
#[mcp_resource("shelf://all", mime = "text/plain", size = 5, subscribe, audience = "user", priority = 0.5)]
fn shelf() -> &'static str {
    "books"
}

/// One shelf row (a parameter named like its function, which the expansion must not shadow).
#[mcp_resource("shelf://rows/{row}", mime = "application/json", complete(row = |typed: &str| vec![format!("{typed}1")]))]
fn row(row: u32) -> Json<Vec<u32>> {
    Json(vec![row; 2])
}

/// A greeting in a language.
#[mcp_prompt(complete(language = |typed: &str| ["en", "es"].iter().filter(|l| l.starts_with(typed)).map(|l| l.to_string()).collect::<Vec<_>>()))]
fn greet(name: String, #[mcp(rename = "lang")] language: Option<String>, times: u8) -> String {
    let hello = if language.as_deref() == Some("es") { "Hola" } else { "Hello" };
    vec![format!("{hello} {name}"); usize::from(times)].join(". ")
}

fn server() -> Server {
    Server::builder("forms", "1")
        .state(vec!["apple".to_owned(), "pineapple".to_owned(), "grape".to_owned()])
        .tool(describe)
        .tool(search)
        .tool(double)
        .resource(shelf)
        .resource(row)
        .prompt(greet)
}

fn text(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap_or_default()
}

#[tokio::test]
async fn renamed_and_defaulted_arguments_are_read_as_listed() {
    for revision in REVISIONS {
        let client = TestClient::connect_as(server(), revision).await.unwrap();
        let tools = client.list_tools().await.unwrap();
        let listed = tools.iter().find(|t| t["name"] == "describe").unwrap();
        let properties = listed["inputSchema"]["properties"].as_object().unwrap();
        assert!(properties.contains_key("type") && !properties.contains_key("kind"), "{listed}");
        assert_eq!(listed["inputSchema"]["required"], json!(["type"]), "{listed}");

        let quiet = client.call_tool("describe", json!({"type": "mug"})).await.unwrap();
        assert_eq!(text(&quiet), "mug", "{revision:?}");
        let loud = client.call_tool("describe", json!({"type": "mug", "loud": true})).await.unwrap();
        assert_eq!(text(&loud), "MUG", "{revision:?}");
        // The Rust name is not an argument: the schema check refuses it before the server.
        let err = client.call_tool("describe", json!({"kind": "mug"})).await.unwrap_err();
        assert!(matches!(err, TestError::Schema { .. }), "{err}");
        client.close().await.unwrap();
    }
}

#[tokio::test]
async fn annotations_icons_and_meta_follow_the_revision() {
    for revision in REVISIONS {
        let client = TestClient::connect_as(server(), revision).await.unwrap();
        let tools = client.list_tools().await.unwrap();
        let listed = tools.iter().find(|t| t["name"] == "describe").unwrap();
        // Annotations came with 2025-03-26, `_meta` and titles with 2025-06-18, icons with
        // 2025-11-25: an older client sees none of them.
        let annotated = revision >= Revision::V2025_03_26;
        assert_eq!(listed["annotations"]["readOnlyHint"] == true, annotated, "{revision:?}: {listed}");
        assert_eq!(listed["annotations"]["idempotentHint"] == true, annotated, "{revision:?}: {listed}");
        assert_eq!(listed["_meta"]["team"] == "gifts", revision >= Revision::V2025_06_18, "{revision:?}: {listed}");
        let modern = revision >= Revision::V2025_11_25;
        assert_eq!(listed["icons"][0]["src"] == "https://example.com/i.png", modern, "{revision:?}: {listed}");
        assert_eq!(listed["title"] == "Describe", revision >= Revision::V2025_06_18, "{revision:?}: {listed}");
        client.close().await.unwrap();
    }
}

#[tokio::test]
async fn flattened_arguments_state_and_context_serve_structured_output() {
    for revision in REVISIONS {
        let client = TestClient::connect_as(server(), revision).await.unwrap();
        let result = client.call_tool("search", json!({"query": "apple"})).await.unwrap();
        let expected = json!({"hits": ["apple", "pineapple"]});
        if revision >= Revision::V2025_06_18 {
            assert_eq!(result["structuredContent"], expected, "{result}");
        }
        assert_eq!(serde_json::from_str::<Value>(text(&result)).unwrap(), expected, "{result}");
        let limited = client.call_tool("search", json!({"query": "apple", "limit": 1})).await.unwrap();
        assert_eq!(serde_json::from_str::<Value>(text(&limited)).unwrap(), json!({"hits": ["apple"]}));
        client.close().await.unwrap();
    }
}

#[tokio::test]
async fn schema_overrides_are_sent_as_written_and_enforced() {
    let client = TestClient::connect_as(server(), Revision::V2025_11_25).await.unwrap();
    let tools = client.list_tools().await.unwrap();
    let listed = tools.iter().find(|t| t["name"] == "double").unwrap();
    assert_eq!(listed["inputSchema"]["properties"]["n"]["minimum"], 0, "{listed}");
    let result = client.call_tool("double", json!({"n": 21})).await.unwrap();
    assert_eq!(result["structuredContent"], json!({"double": 42}));
    let err = client.call_tool("double", json!({"n": -1})).await.unwrap_err();
    assert!(matches!(&err, TestError::Schema { errors, .. } if errors[0].contains("minimum")), "{err}");
    client.close().await.unwrap();
}

#[tokio::test]
async fn resources_read_list_and_complete_as_declared() {
    for revision in REVISIONS {
        let client = TestClient::connect_as(server(), revision).await.unwrap();
        let resources = client.list_resources().await.unwrap();
        let shelf = resources.iter().find(|r| r["uri"] == "shelf://all").unwrap();
        assert_eq!(shelf["size"], 5, "{shelf}");
        assert_eq!(shelf["annotations"]["audience"], json!(["user"]), "{shelf}");
        assert_eq!(shelf["annotations"]["priority"], 0.5, "{shelf}");
        let read = client.read_resource("shelf://all").await.unwrap();
        assert_eq!(read["contents"][0]["text"], "books");

        let templates = client.list_resource_templates().await.unwrap();
        assert_eq!(templates[0]["uriTemplate"], "shelf://rows/{row}");
        let row = client.read_resource("shelf://rows/7").await.unwrap();
        assert_eq!(serde_json::from_str::<Value>(row["contents"][0]["text"].as_str().unwrap()).unwrap(), json!([7, 7]));
        // A variable that is not a `u32` is the client's mistake, not a crash.
        let err = client.read_resource("shelf://rows/seven").await.unwrap_err();
        assert_eq!(err.rpc().map(|e| e.code), Some(-32602), "{err}");
        let values =
            client.complete(json!({"type": "ref/resource", "uri": "shelf://rows/{row}"}), "row", "4").await.unwrap();
        assert_eq!(values, ["41"]);
        client.close().await.unwrap();
    }
}

#[tokio::test]
async fn subscribable_resources_are_declared_and_subscribed() {
    let server = server();
    let handle = server.handle();
    let client = TestClient::connect_as(server, Revision::V2025_11_25).await.unwrap();
    let capabilities = client.server_capabilities().await.unwrap();
    assert_eq!(capabilities["resources"]["subscribe"], true, "{capabilities}");
    client.request("resources/subscribe", json!({"uri": "shelf://all"})).await.unwrap();
    handle.resource_updated("shelf://all").unwrap();
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(5);
    let updated = loop {
        let heard = client.notifications().into_iter().find(|n| n["method"] == "notifications/resources/updated");
        if let Some(updated) = heard {
            break updated;
        }
        assert!(tokio::time::Instant::now() < deadline, "no update arrived: {:?}", client.notifications());
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    };
    assert_eq!(updated["params"]["uri"], "shelf://all", "{updated}");
    client.close().await.unwrap();
}

#[tokio::test]
async fn typed_prompt_arguments_are_parsed_and_completed() {
    for revision in REVISIONS {
        let client = TestClient::connect_as(server(), revision).await.unwrap();
        let prompts = client.list_prompts().await.unwrap();
        let arguments = &prompts[0]["arguments"];
        let required: Vec<(&str, bool)> = arguments
            .as_array()
            .unwrap()
            .iter()
            .map(|a| (a["name"].as_str().unwrap(), a["required"] == true))
            .collect();
        // Renamed on the wire; completed by its Rust name in the attribute, its wire name in requests.
        assert_eq!(required, [("name", true), ("lang", false), ("times", true)], "{arguments}");

        let got = client.get_prompt("greet", json!({"name": "Ada", "lang": "es", "times": "2"})).await.unwrap();
        assert_eq!(got["messages"][0]["content"]["text"], "Hola Ada. Hola Ada", "{got}");
        let err = client.get_prompt("greet", json!({"name": "Ada", "times": "many"})).await.unwrap_err();
        assert_eq!(err.rpc().map(|e| e.code), Some(-32602), "{err}");
        let values = client.complete(json!({"type": "ref/prompt", "name": "greet"}), "lang", "e").await.unwrap();
        assert_eq!(values, ["en", "es"]);
        client.close().await.unwrap();
    }
}

#[tokio::test]
async fn a_declaration_error_is_what_connect_returns() {
    // `search` takes `State<Vec<String>>`, which this server does not register.
    let err = TestClient::connect(Server::builder("broken", "1").tool(search)).await.unwrap_err();
    assert!(matches!(&err, TestError::Server(_)) && err.to_string().contains("State"), "{err}");
}

#[derive(Deserialize, schemars::JsonSchema)]
struct Confirm {
    /// Whether to delete it
    delete: bool,
}

/// Deletes a bookmark once the user confirms it.
#[mcp_tool(destructive)]
async fn delete_bookmark(ctx: Context, url: String) -> Result<String, mcp_runtime::asking::AskError> {
    match ctx.elicit::<Confirm>(format!("Delete {url}?")).await? {
        mcp_runtime::asking::Elicitation::Accept(Confirm { delete: true }) => Ok(format!("deleted {url}")),
        _ => Ok(format!("kept {url}")),
    }
}

/// Asks the client's model to name a bookmark, then lists the client's roots.
#[mcp_tool]
async fn name_bookmark(ctx: Context, url: String) -> Result<String, mcp_runtime::asking::AskError> {
    let named = ctx.sample(mcp_runtime::asking::SamplingRequest::new(20).user(format!("Name {url}"))).await?;
    let roots = ctx.roots().await?;
    let root = roots.first().map_or("none", |r| r.uri.as_str());
    Ok(format!("{} (in {root})", named.text().unwrap_or("?")))
}

fn bookmarks() -> Server {
    Server::builder("bookmarks", "1").tool(delete_bookmark).tool(name_bookmark)
}

/// The client answers the server's questions with the test's handlers, in both eras (a
/// request the server sends; an input-required result and its retry), declares the
/// capabilities they imply (the server asks only a client that declared them), and records
/// the questions.
#[tokio::test]
async fn the_client_answers_elicitation_sampling_and_roots_in_both_eras() {
    for revision in [Revision::V2025_06_18, Revision::V2025_11_25, Revision::V2026_07_28] {
        let client = TestClient::builder()
            .revision(revision)
            .on_elicitation(|params| {
                let yes = params["message"].as_str().is_some_and(|m| m.contains("old.example"));
                json!({"action": "accept", "content": {"delete": yes}})
            })
            .on_sampling(|_| json!({"role": "assistant", "content": {"type": "text", "text": "Docs"}, "model": "m"}))
            .on_roots(|_| json!({"roots": [{"uri": "file:///home/ada", "name": "home"}]}))
            .connect(bookmarks())
            .await
            .expect("connected");
        let deleted = client.call_tool("delete_bookmark", json!({"url": "https://old.example"})).await.expect("call");
        assert_eq!(text(&deleted), "deleted https://old.example", "{revision:?}");
        let kept = client.call_tool("delete_bookmark", json!({"url": "https://new.example"})).await.expect("call");
        assert_eq!(text(&kept), "kept https://new.example", "{revision:?}");
        let named = client.call_tool("name_bookmark", json!({"url": "https://docs.example"})).await.expect("call");
        assert_eq!(text(&named), "Docs (in file:///home/ada)", "{revision:?}");
        let asked: Vec<(String, Value)> =
            client.questions().into_iter().map(|q| (q.method, q.params["message"].clone())).collect();
        let methods: Vec<&str> = asked.iter().map(|(m, _)| m.as_str()).collect();
        // In 2026-07-28 the retry runs the handler again: sampling is asked, then roots, the
        // second round answering sampling from the sealed state.
        assert_eq!(
            methods,
            ["elicitation/create", "elicitation/create", "sampling/createMessage", "roots/list"],
            "{revision:?}"
        );
        assert_eq!(asked[0].1, "Delete https://old.example?", "{revision:?}");
        client.close().await.expect("closed");
    }
}

/// Without handlers the client declares no capability and is not asked: a handshake-era call
/// ends in a tool error naming the capability, a 2026-07-28 one in -32021 naming it.
#[tokio::test]
async fn without_handlers_the_client_declares_nothing_and_is_not_asked() {
    for revision in [Revision::V2025_11_25, Revision::V2026_07_28] {
        let client = TestClient::connect_as(bookmarks(), revision).await.expect("connected");
        let called = client.call_tool("delete_bookmark", json!({"url": "https://a.example"})).await;
        if revision == Revision::V2026_07_28 {
            let error = called.expect_err("refused").rpc().cloned().expect("a JSON-RPC error");
            assert_eq!(error.code, -32021, "{error:?}");
            assert_eq!(error.data, Some(json!({"requiredCapabilities": {"elicitation": {}}})));
        } else {
            let result = called.expect("a tool result");
            assert_eq!(result["isError"], true, "{result}");
            assert_eq!(text(&result), "the client did not declare the `elicitation` capability this needs");
        }
        assert!(client.questions().is_empty());
        client.close().await.expect("closed");
    }
}

/// Sets the volume (`_loud` is Rust's "unused" mark on `loud`).
#[mcp_tool]
fn volume(level: u8, _loud: Option<bool>) -> String {
    level.to_string()
}

#[tokio::test]
async fn a_leading_underscore_is_not_part_of_an_argument_s_name() {
    let client = TestClient::connect(Server::builder("v", "1").tool(volume)).await.unwrap();
    let tools = client.list_tools().await.unwrap();
    let properties = tools[0]["inputSchema"]["properties"].as_object().unwrap();
    let names: Vec<&str> = properties.keys().map(String::as_str).collect();
    assert_eq!(names, ["level", "loud"]);
    let result = client.call_tool("volume", json!({"level": 7, "loud": true})).await.unwrap();
    assert_eq!(result["content"][0]["text"], "7");
}

/// Two numbers, as a tuple struct: its schema is an array, not an object of arguments.
#[derive(Deserialize, schemars::JsonSchema)]
struct Pair(u32, u32);

/// Adds a pair.
#[mcp_tool]
fn add_pair(#[mcp(flatten)] pair: Pair) -> String {
    (pair.0 + pair.1).to_string()
}

#[tokio::test]
async fn a_flattened_type_whose_schema_is_not_an_object_fails_the_start() {
    let err = TestClient::connect(Server::builder("p", "1").tool(add_pair)).await.unwrap_err();
    let message = err.to_string();
    assert!(message.contains("add_pair") && message.contains("flatten"), "{message}");
}
