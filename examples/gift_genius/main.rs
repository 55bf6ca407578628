//! GiftGen: an MCP server that suggests gifts from a small catalog.

use mcp_runtime::prelude::*;

#[derive(serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
struct Gift {
    name: String,
    description: String,
    price_usd: f64,
    category: String,
    min_age: u8,
    max_age: u8,
    relationships: Vec<String>,
}

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Suggestions {
    suggestions: Vec<Gift>,
}

/// Suggests up to five gifts from the catalog for a recipient, priciest first.
#[mcp_tool(read_only, title = "Suggest gifts")]
async fn suggest_gifts(
    /// Age of the recipient in years (0-120)
    age: u8,
    /// Who the recipient is to the giver, e.g. "sister", "friend", "colleague"
    relationship: String,
    /// Upper budget in US dollars
    budget: Option<f64>,
) -> Result<Structured<Suggestions>, String> {
    (age <= 120).then_some(()).ok_or("An age over 120 is out of range: give an age from 0 to 120")?;
    let catalog: Vec<Gift> = serde_json::from_str(include_str!("catalog.json")).map_err(|e| e.to_string())?;
    let fits = |g: &Gift| (g.min_age..=g.max_age).contains(&age) && budget.is_none_or(|b| g.price_usd <= b);
    let close = |g: &Gift| g.relationships.iter().any(|r| r == "any" || r.eq_ignore_ascii_case(&relationship));
    let mut gifts: Vec<Gift> = catalog.into_iter().filter(|g| fits(g) && close(g)).collect();
    gifts.sort_by(|a, b| b.price_usd.total_cmp(&a.price_usd));
    let lines: Vec<_> = gifts.iter().take(5).map(|g| format!("{}: ${}", g.name, g.price_usd)).collect();
    let text = if lines.is_empty() { "No gift in the catalog matches.".to_owned() } else { lines.join("\n") };
    Ok(Json(Suggestions { suggestions: gifts.into_iter().take(5).collect() }).with_text(text))
}

#[tokio::main]
async fn main() -> mcp_runtime::Result<()> {
    Server::new("gift-genius", env!("CARGO_PKG_VERSION")).run_from_args().await
}
