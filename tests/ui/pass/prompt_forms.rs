//! Every supported form of `#[mcp_prompt]` compiles, the functions stay callable, and each
//! form serves a real get as it declares.
#![deny(warnings)]

use mcp_runtime::protocol::{GetPromptResult, PromptMessage};
use mcp_runtime::testing::TestClient;
use mcp_runtime::{Context, PromptDescriptor, Server, mcp_prompt, starting_with};
use serde_json::{Value, json};

/// A plain prompt.
#[mcp_prompt]
fn simple(
    /// Who to greet
    name: String,
) -> String {
    format!("Greet {name}")
}

/// Optional and typed arguments, a context, async, every key.
#[mcp_prompt(
    name = "review-code",
    title = "Review code",
    description = "Overrides the doc comment",
    icon = "https://example.com/icon.png",
    meta(kind = "review"),
    complete(language = |typed| starting_with(typed, ["rust", "python"]))
)]
async fn review(language: String, lines: Option<u32>, ctx: Context) -> Vec<PromptMessage> {
    let _ = ctx.revision();
    vec![
        PromptMessage::user(format!("Review this {language} code ({} lines).", lines.unwrap_or(0))),
        PromptMessage::assistant("Paste it."),
    ]
}

/// A whole result, or an error.
#[mcp_prompt]
fn checked(count: u8) -> Result<GetPromptResult, String> {
    if count == 0 {
        return Err("count must be positive".into());
    }
    Ok(GetPromptResult { description: Some("counted".into()), messages: vec![PromptMessage::user("go")] })
}

/// A raw identifier names the argument `type`, completed under that name.
#[mcp_prompt(complete(r#type = |typed| starting_with(typed, ["bug", "feature"])))]
fn triage(r#type: String) -> String {
    format!("Triage this {}", r#type)
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    assert_eq!(simple("Ann".into()), "Greet Ann");
    let _ = (review, checked, triage);
    let described = PromptDescriptor::declared(review).unwrap();
    assert_eq!(described.name(), "review-code");

    // Every form serves a real get: arguments parsed from their strings, errors with their codes.
    let client = TestClient::connect(Server::new("forms", "1")).await.expect("the server starts");
    let prompts = client.list_prompts().await.expect("a listing");
    let names: Vec<&str> = prompts.iter().filter_map(|p| p["name"].as_str()).collect();
    assert_eq!(names, ["checked", "review-code", "simple", "triage"]);
    assert_eq!(prompts[3]["arguments"][0]["name"], "type");
    let got = client.get_prompt("triage", json!({"type": "bug"})).await.expect("a prompt");
    assert_eq!(got["messages"][0]["content"]["text"], "Triage this bug");
    let reference = json!({"type": "ref/prompt", "name": "triage"});
    assert_eq!(client.complete(reference, "type", "f").await.expect("values"), ["feature"]);
    let review = &prompts[1];
    assert_eq!(
        (&review["title"], &review["description"]),
        (&json!("Review code"), &json!("Overrides the doc comment"))
    );
    assert_eq!(
        (&review["icons"][0]["src"], &review["_meta"]),
        (&json!("https://example.com/icon.png"), &json!({"kind": "review"}))
    );
    let arguments: Vec<(&Value, &Value)> =
        review["arguments"].as_array().expect("arguments").iter().map(|a| (&a["name"], &a["required"])).collect();
    assert_eq!(arguments, [(&json!("language"), &json!(true)), (&json!("lines"), &json!(false))]);
    assert_eq!(prompts[2]["arguments"][0]["description"], "Who to greet");

    let got = client.get_prompt("simple", json!({"name": "Ann"})).await.expect("a prompt");
    assert_eq!(got["messages"][0]["content"]["text"], "Greet Ann");
    let got = client.get_prompt("review-code", json!({"language": "rust", "lines": "12"})).await.expect("a prompt");
    assert_eq!(got["messages"][0]["content"]["text"], "Review this rust code (12 lines).");
    assert_eq!(got["messages"][1]["role"], "assistant");
    let missing = client.get_prompt("review-code", json!({})).await.expect_err("`language` is required");
    assert_eq!(missing.rpc().map(|e| e.code), Some(-32602));
    let unparsed = client.get_prompt("review-code", json!({"language": "rust", "lines": "many"})).await;
    assert_eq!(unparsed.expect_err("not a u32").rpc().map(|e| e.code), Some(-32602));
    let counted = client.get_prompt("checked", json!({"count": "2"})).await.expect("a prompt");
    assert_eq!(counted["description"], "counted");
    let failed = client.get_prompt("checked", json!({"count": "0"})).await.expect_err("count is zero");
    assert!(failed.rpc().is_some_and(|e| e.message.contains("count must be positive")), "{failed}");

    let reference = json!({"type": "ref/prompt", "name": "review-code"});
    assert_eq!(client.complete(reference, "language", "py").await.expect("values"), ["python"]);
    client.close().await.expect("the server stops cleanly");
}
