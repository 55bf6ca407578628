//! GiftGen (`examples/gift_genius`) end to end: the official clients call `suggest_gifts`, and
//! the wire shows the structured output shaped for each revision. Expected suggestions are
//! computed here from the catalog file, independently of the server's code.

use std::process::Command;

use mcp_tests::clients::{node_client, python_client, run_plan};
use mcp_tests::wire::StdioServer;
use mcp_tests::{example_binary, workspace_root};
use serde_json::{Value, json};

/// The gifts the catalog holds for `age`, `relationship` and `budget`, priciest first, at most
/// five: what `suggest_gifts` must return.
fn expected(age: u64, relationship: &str, budget: Option<f64>) -> Vec<String> {
    let text = std::fs::read_to_string(workspace_root().join("examples/gift_genius/catalog.json")).expect("catalog");
    let catalog: Vec<Value> = serde_json::from_str(&text).expect("catalog.json is a JSON array");
    assert!((20..=30).contains(&catalog.len()), "about 24 gifts, got {}", catalog.len());
    let mut fits: Vec<&Value> = catalog
        .iter()
        .filter(|g| g["min_age"].as_u64().unwrap() <= age && age <= g["max_age"].as_u64().unwrap())
        .filter(|g| {
            g["relationships"].as_array().unwrap().iter().any(|r| {
                let r = r.as_str().unwrap();
                r == "any" || r.eq_ignore_ascii_case(relationship)
            })
        })
        .filter(|g| budget.is_none_or(|b| g["price_usd"].as_f64().unwrap() <= b))
        .collect();
    fits.sort_by(|a, b| b["price_usd"].as_f64().unwrap().total_cmp(&a["price_usd"].as_f64().unwrap()));
    fits.iter().take(5).map(|g| g["name"].as_str().unwrap().to_owned()).collect()
}

fn names(structured: &Value) -> Vec<String> {
    structured["suggestions"]
        .as_array()
        .unwrap_or_else(|| panic!("no suggestions in {structured:#}"))
        .iter()
        .map(|g| g["name"].as_str().expect("a name").to_owned())
        .collect()
}

fn text(result: &Value) -> String {
    result["content"].as_array().expect("content").iter().filter_map(|b| b["text"].as_str()).collect()
}

/// Lists the tools and calls `suggest_gifts` three ways through an official client.
fn drive(client: Command) {
    let plan = json!([
        {"op": "list_tools"},
        {"op": "call_tool", "name": "suggest_gifts", "arguments": {"age": 30, "relationship": "Sister", "budget": 100}},
        {"op": "call_tool", "name": "suggest_gifts", "arguments": {"age": 8, "relationship": "nephew"}},
        {"op": "call_tool", "name": "suggest_gifts", "arguments": {"age": 3, "relationship": "colleague", "budget": 5}},
        {"op": "call_tool", "name": "suggest_gifts", "arguments": {"age": 130, "relationship": "friend"}},
    ]);
    let lines = run_plan(client, &plan, &example_binary("gift_genius"), &[]);
    let [connect, list, sister, nephew, nothing, too_old] = &lines[..] else {
        panic!("expected a connect line and 5 step lines, got {lines:#?}");
    };
    assert_eq!(connect["serverVersion"]["name"], "gift-genius", "{connect}");

    let tools = list["result"]["tools"].as_array().unwrap_or_else(|| panic!("{list:#}"));
    let tool = tools.iter().find(|t| t["name"] == "suggest_gifts").expect("suggest_gifts is listed");
    assert!(tool["description"].as_str().is_some_and(|d| !d.is_empty()), "{tool:#}");
    assert_eq!(tool["inputSchema"]["required"], json!(["age", "relationship"]), "{tool:#}");
    assert_eq!(tool["inputSchema"]["properties"]["budget"]["type"], "number", "{tool:#}");
    assert_eq!(tool["annotations"]["readOnlyHint"], true, "{tool:#}");

    for (line, want) in [(sister, expected(30, "sister", Some(100.0))), (nephew, expected(8, "nephew", None))] {
        let result = &line["result"];
        assert_ne!(result["isError"], true, "{line:#}");
        assert!(!want.is_empty());
        assert_eq!(names(&result["structuredContent"]), want, "{line:#}");
        assert_eq!(text(result).lines().count(), want.len(), "one line of text per gift: {line:#}");
    }

    let result = &nothing["result"];
    assert_ne!(result["isError"], true, "{nothing:#}");
    assert_eq!(result["structuredContent"], json!({"suggestions": []}), "{nothing:#}");
    assert!(text(result).contains("No gift"), "{nothing:#}");

    let result = &too_old["result"];
    assert_eq!(result["isError"], true, "{too_old:#}");
    assert!(text(result).contains("120"), "{too_old:#}");
}

#[test]
fn typescript_sdk_calls_suggest_gifts() {
    drive(node_client());
}

#[test]
fn python_sdk_calls_suggest_gifts() {
    drive(python_client());
}

/// Structured output goes to revisions that have it; older ones get the text alone.
#[test]
fn structured_output_follows_the_revision() {
    for revision in ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"] {
        let mut server =
            StdioServer::builder(example_binary("gift_genius")).record(revision, "gift_genius_structured").spawn();
        server.handshake(revision);
        let list = server.request("tools/list", None);
        let tool = &list["result"]["tools"][0];
        let result = server.request(
            "tools/call",
            Some(json!({"name": "suggest_gifts", "arguments": {"age": 40, "relationship": "friend"}})),
        );
        let result = &result["result"];
        let want = expected(40, "friend", None);
        assert_eq!(text(result).lines().count(), want.len(), "{result:#}");
        if revision >= "2025-06-18" {
            assert_eq!(tool["outputSchema"]["type"], "object", "{tool:#}");
            assert_eq!(tool["title"], "Suggest gifts", "{tool:#}");
            assert_eq!(names(&result["structuredContent"]), want, "{revision}: {result:#}");
        } else {
            assert!(tool.get("outputSchema").is_none() && tool.get("title").is_none(), "{revision}: {tool:#}");
            assert!(result.get("structuredContent").is_none(), "{revision}: {result:#}");
        }
        server.close_stdin();
        assert!(server.wait().success());
    }
}
