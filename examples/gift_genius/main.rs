//! GiftGen: an MCP server that suggests gifts from a small catalog, and shows them as cards in
//! the chat clients that render MCP Apps.

use mcp_runtime::prelude::*;

#[derive(serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
struct Gift {
    name: String,
    description: String,
    price_usd: f64,
    category: String,
    ages: std::ops::RangeInclusive<i64>,
    relationships: Vec<String>,
}

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Suggestions {
    suggestions: Vec<Gift>,
}

/// The whole gift catalog.
#[mcp_resource("gifts://catalog", name = "catalog", mime = "application/json")]
const CATALOG: &str = include_str!("catalog.json");

const CATEGORIES: [&str; 6] = ["books", "tech", "experiences", "home", "hobbies", "kids"];

/// The gifts of one category.
#[mcp_resource("gifts://catalog/{category}", complete(category = |typed| starting_with(typed, CATEGORIES)))]
fn gifts_in(category: String) -> Result<Json<Vec<Gift>>, ReadError> {
    let mut gifts: Vec<Gift> = serde_json::from_str(CATALOG).map_err(|e| e.to_string())?;
    gifts.retain(|g| g.category == category);
    if gifts.is_empty() {
        return Err(ResourceNotFound.into());
    }
    Ok(Json(gifts))
}

/// GiftGen's cards: an MCP App showing what `suggest_gifts` found.
#[mcp_resource("ui://gifts/cards", name = "cards", mime = "text/html;profile=mcp-app")]
const CARDS: &str = include_str!("cards.html");

/// Suggests up to five gifts from the catalog for a recipient, priciest first.
#[mcp_tool(read_only, meta(ui(resourceUri = "ui://gifts/cards")))]
fn suggest_gifts(
    /// Age of the recipient in years
    age: Bounded<0, 120>,
    /// Who the recipient is to the giver, e.g. "sister", "friend", "colleague"
    relationship: String,
    /// Upper budget in US dollars
    budget: Option<f64>,
) -> Result<Json<Suggestions>, serde_json::Error> {
    let fitting = ["any".to_owned(), relationship.to_lowercase()];
    let gifts: Vec<Gift> = serde_json::from_str(CATALOG)?;
    let mut suggestions: Vec<Gift> = gifts
        .into_iter()
        .filter(|g| g.ages.contains(&age.get()) && budget.is_none_or(|b| g.price_usd <= b))
        .filter(|g| g.relationships.iter().any(|r| fitting.contains(r)))
        .collect();
    suggestions.sort_by(|a, b| b.price_usd.total_cmp(&a.price_usd));
    suggestions.truncate(5);
    Ok(Json(Suggestions { suggestions }))
}

/// Asks the model to describe a gift for a recipient.
#[mcp_prompt]
fn describe_gift(gift_name: String, recipient: String) -> String {
    format!("Describe the gift \"{gift_name}\" in two warm sentences for my {recipient}.")
}

fn main() -> mcp_runtime::Result<()> {
    Server::new("gift-genius", env!("CARGO_PKG_VERSION"))
        .extension("io.modelcontextprotocol/ui", serde_json::json!({}))
        .run()
}

#[cfg(test)]
mod tests;
