//! GiftGen: an MCP server that suggests gifts from a small catalog.

use mcp_runtime::prelude::*;

#[derive(serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
struct Gift {
    name: String,
    description: String,
    price_usd: f64,
    category: String,
    min_age: i64,
    max_age: i64,
    relationships: Vec<String>,
}

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Suggestions {
    suggestions: Vec<Gift>,
}

const CATEGORIES: [&str; 6] = ["books", "tech", "experiences", "home", "hobbies", "kids"];

/// The whole gift catalog.
#[mcp_resource("gifts://catalog", name = "catalog", mime = "application/json")]
const CATALOG: &str = include_str!("catalog.json");

/// The gifts of one category.
#[mcp_resource("gifts://catalog/{category}", complete(category = |typed| starting_with(typed, CATEGORIES)))]
fn gifts_in(category: String) -> Result<Json<Vec<Gift>>, ReadError> {
    CATEGORIES.contains(&category.as_str()).then_some(()).ok_or(NotFound)?;
    let gifts: Vec<Gift> = serde_json::from_str(CATALOG).map_err(|e| e.to_string())?;
    Ok(Json(gifts.into_iter().filter(|g| g.category == category).collect()))
}

/// Suggests up to five gifts from the catalog for a recipient, priciest first.
#[mcp_tool(read_only, title = "Suggest gifts")]
async fn suggest_gifts(
    /// Age of the recipient in years
    age: Bounded<0, 120>,
    /// Who the recipient is to the giver, e.g. "sister", "friend", "colleague"
    relationship: String,
    /// Upper budget in US dollars
    budget: Option<f64>,
) -> Result<Structured<Suggestions>, String> {
    let mut gifts: Vec<Gift> = serde_json::from_str(CATALOG).map_err(|e| e.to_string())?;
    gifts.retain(|g| (g.min_age..=g.max_age).contains(&age.get()) && budget.is_none_or(|b| g.price_usd <= b));
    gifts.retain(|g| g.relationships.iter().any(|r| r == "any" || r.eq_ignore_ascii_case(&relationship)));
    gifts.sort_by(|a, b| b.price_usd.total_cmp(&a.price_usd));
    let lines: Vec<_> = gifts.iter().take(5).map(|g| format!("{}: ${}", g.name, g.price_usd)).collect();
    let text = if lines.is_empty() { "No gift in the catalog matches.".to_owned() } else { lines.join("\n") };
    Ok(Json(Suggestions { suggestions: gifts.into_iter().take(5).collect() }).with_text(text))
}

/// Asks the model to describe a gift for a recipient.
#[mcp_prompt]
fn describe_gift(gift_name: String, recipient: String) -> String {
    format!("Describe the gift \"{gift_name}\" in two warm sentences, as a present for my {recipient}.")
}

fn main() -> mcp_runtime::Result<()> {
    Server::new("gift-genius", env!("CARGO_PKG_VERSION")).run()
}

#[cfg(test)]
mod tests;
