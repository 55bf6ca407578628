//! A client of GiftGen: connects over stdio (running the server) or Streamable HTTP (a URL),
//! lists what it offers and asks for gift ideas, reading the structured result as a Rust type.
//!
//! ```text
//! cargo run -p examples --example client                          # runs GiftGen over stdio
//! cargo run -p examples --example client -- path/to/gift_genius   # that binary, over stdio
//! cargo run -p examples --example client -- http://127.0.0.1:8080/mcp
//! ```

use mcp_runtime::client::{Client, ClientError};
use serde::Deserialize;
use serde_json::json;

/// What `suggest_gifts` returns, as this client reads it (only the fields it needs).
#[derive(Debug, Deserialize)]
struct Suggestions {
    suggestions: Vec<Gift>,
}

#[derive(Debug, Deserialize)]
struct Gift {
    name: String,
    price_usd: f64,
}

#[tokio::main]
async fn main() -> Result<(), ClientError> {
    let mut args = std::env::args().skip(1);
    let client = match args.next() {
        Some(url) if url.starts_with("http://") || url.starts_with("https://") => Client::http(&url).await?,
        Some(program) => Client::spawn(&program, args).await?,
        None => Client::spawn("cargo", ["run", "--quiet", "-p", "gift_genius"]).await?,
    };
    let server = client.negotiation();
    println!(
        "connected to {} speaking {}",
        server.server_info.as_ref().map_or("a server", |info| info.name.as_str()),
        server.revision
    );
    for tool in client.list_tools().await? {
        println!("tool {}: {}", tool.name, tool.description.unwrap_or_default());
    }
    let found: Suggestions =
        client.call_tool_as("suggest_gifts", json!({"age": 30, "relationship": "sister", "budget": 100})).await?;
    for gift in &found.suggestions {
        println!("{} (${:.2})", gift.name, gift.price_usd);
    }
    client.close().await
}
