//! Every supported form of `#[mcp_prompt]` compiles, and the functions stay callable.
#![deny(warnings)]

use mcp_runtime::protocol::{GetPromptResult, PromptMessage};
use mcp_runtime::{Context, PromptDescriptor, Server, mcp_prompt, starting_with};

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

fn main() {
    assert_eq!(simple("Ann".into()), "Greet Ann");
    let _ = (review, checked);
    assert!(Server::new("forms", "1").validate().is_ok());
    let described = PromptDescriptor::from(review {});
    assert_eq!(described.name(), "review-code");
    assert_eq!(described.prompt().arguments[1].required, Some(false));
}
