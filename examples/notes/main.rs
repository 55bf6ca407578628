//! Notes: a small note-taking server. Its tools and its resource template share one state (the
//! notes), a slow search reports progress and can be cancelled, deleting asks the user to
//! confirm (a request in the handshake revisions, an input-required result in 2026-07-28),
//! and what the handlers log with `tracing` also reaches the client when it asks for it. A
//! client subscribed to a note is told when it is written (the tool reaches the server's own
//! handle as a state). A note's title completes from the notes there are.
//!
//! Started with `--http ADDR --oauth-issuer URL` it is an OAuth 2.1 protected resource
//! (`http://ADDR/mcp`): reading and searching need `notes:read`, writing and deleting
//! `notes:write`. On stdio, or over HTTP without the flag, the scopes are not checked.

use std::collections::BTreeMap;
use std::sync::RwLock;
use std::time::Duration;

use mcp_runtime::asking::{AskError, Elicitation};
use mcp_runtime::prelude::*;
use mcp_runtime::{CompletionContext, ServerHandle};

/// Every note, by title: the state the handlers share.
#[derive(Default)]
struct Notes(RwLock<BTreeMap<String, String>>);

impl Notes {
    fn read(&self) -> std::sync::RwLockReadGuard<'_, BTreeMap<String, String>> {
        self.0.read().unwrap_or_else(|e| e.into_inner())
    }
}

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Hits {
    /// The titles of the notes that mention the word
    titles: Vec<String>,
}

/// Writes a note, replacing one with the same title.
#[mcp_tool(idempotent, scopes("notes:write"))]
fn write_note(notes: State<Notes>, server: State<ServerHandle>, title: String, text: String) -> String {
    let replaced = notes.0.write().unwrap_or_else(|e| e.into_inner()).insert(title.clone(), text).is_some();
    // Clients subscribed to this note are told it changed.
    let _ = server.resource_updated(&format!("notes://{title}"));
    tracing::info!(%title, replaced, "note written");
    if replaced { format!("Replaced \"{title}\"") } else { format!("Wrote \"{title}\"") }
}

/// The titles of the notes that start with what was typed: the completion of `notes://{title}`.
fn titles(typed: &str, ask: &CompletionContext) -> Vec<String> {
    let Some(notes) = ask.state::<Notes>() else { return Vec::new() };
    let notes = notes.read();
    starting_with(typed, notes.keys().map(String::as_str))
}

/// One note, by title.
#[mcp_resource(
    "notes://{title}",
    mime = "text/markdown",
    subscribe,
    complete(title = titles),
    scopes("notes:read")
)]
fn note(notes: State<Notes>, title: String) -> Result<String, ReadError> {
    let text = notes.read().get(&title).cloned().ok_or(ResourceNotFound)?;
    Ok(format!("# {title}\n\n{text}"))
}

/// The confirmation form of a delete.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Confirm {
    /// Delete it for good?
    delete: bool,
}

/// Deletes a note once the user confirms.
#[mcp_tool(destructive, scopes("notes:write"))]
async fn delete_note(ctx: Context, notes: State<Notes>, title: String) -> Result<String, AskError> {
    if !notes.read().contains_key(&title) {
        return Ok(format!("No note \"{title}\""));
    }
    let confirmed = ctx.elicit::<Confirm>(format!("Delete the note \"{title}\"?")).await?;
    if !matches!(confirmed, Elicitation::Accept(Confirm { delete: true })) {
        return Ok(format!("Kept \"{title}\""));
    }
    notes.0.write().unwrap_or_else(|e| e.into_inner()).remove(&title);
    Ok(format!("Deleted \"{title}\""))
}

/// Searches every note for a word, slowly (a note at a time), reporting progress.
#[mcp_tool(read_only, timeout = "60s", scopes("notes:read"))]
async fn search(ctx: Context, notes: State<Notes>, word: String) -> Json<Hits> {
    let all: Vec<(String, String)> = notes.read().iter().map(|(t, n)| (t.clone(), n.clone())).collect();
    let mut titles = Vec::new();
    for (done, (title, text)) in all.iter().enumerate() {
        tokio::time::sleep(Duration::from_millis(50)).await;
        if text.to_lowercase().contains(&word.to_lowercase()) {
            titles.push(title.clone());
        }
        let message = format!("searched \"{title}\"");
        ctx.progress((done + 1) as f64, Some(all.len() as f64), Some(&message)).await;
    }
    tracing::info!(%word, hits = titles.len(), "search done");
    Json(Hits { titles })
}

/// The server, with its states: what `main` runs and the tests connect to.
fn server() -> Server {
    let server = Server::new("notes", env!("CARGO_PKG_VERSION"))
        .description("Notes kept in memory: write, search, read and summarize them")
        .server_card("com.example/notes")
        .state(Notes::default())
        .client_logging();
    let handle = server.handle();
    server.state(handle)
}

fn main() -> mcp_runtime::Result<()> {
    server().run()
}

/// The server in memory, through `mcp_runtime::testing::TestClient` (feature `testing`).
#[cfg(test)]
mod tests {
    use mcp_runtime::protocol::Revision;
    use mcp_runtime::testing::TestClient;
    use serde_json::json;

    #[tokio::test]
    async fn a_written_note_is_read_found_and_announced_to_subscribers() {
        for revision in Revision::ALL {
            let client = TestClient::connect_as(super::server(), revision).await.expect("the server starts");
            if revision != Revision::V2026_07_28 {
                // Subscriptions belong to a session: the handshake revisions.
                client.request("resources/subscribe", json!({"uri": "notes://plan"})).await.expect("subscribed");
            }
            let wrote = client.call_tool("write_note", json!({"title": "plan", "text": "Buy a kite"})).await;
            assert_eq!(wrote.expect("written")["content"][0]["text"], "Wrote \"plan\"");

            let read = client.read_resource("notes://plan").await.expect("the note");
            assert_eq!(read["contents"][0]["text"], "# plan\n\nBuy a kite");
            let missing = client.read_resource("notes://nothing").await.expect_err("no such note");
            assert!(missing.rpc().is_some(), "{missing}");

            // Titles complete from the notes there are.
            client.call_tool("write_note", json!({"title": "Packing", "text": "Tent, rope"})).await.expect("written");
            let template = json!({"type": "ref/resource", "uri": "notes://{title}"});
            let completed = client.complete(template.clone(), "title", "p").await.expect("values");
            assert_eq!(completed, ["Packing", "plan"], "{revision:?}");
            assert!(client.complete(template, "title", "x").await.expect("values").is_empty());

            // The structured result is checked against `search`'s output schema by the client.
            let found = client.call_tool("search", json!({"word": "KITE"})).await.expect("a result");
            if revision >= Revision::V2025_06_18 {
                assert_eq!(found["structuredContent"], json!({"titles": ["plan"]}));
            }
            if revision != Revision::V2026_07_28 {
                let updated =
                    client.notifications().into_iter().find(|n| n["method"] == "notifications/resources/updated");
                assert_eq!(updated.expect("an update")["params"]["uri"], "notes://plan", "{revision:?}");
            }
            client.close().await.expect("the server stops cleanly");
        }
    }

    /// The test client declares no elicitation: the delete cannot be confirmed, so nothing is
    /// deleted and the call says why.
    #[tokio::test]
    async fn a_delete_nobody_can_confirm_keeps_the_note() {
        let client = TestClient::connect_as(super::server(), Revision::LATEST_HANDSHAKE).await.expect("started");
        client.call_tool("write_note", json!({"title": "plan", "text": "Buy a kite"})).await.expect("written");
        let outcome = client.call_tool("delete_note", json!({"title": "plan"})).await;
        let said = match outcome {
            Ok(result) => {
                assert_eq!(result["isError"], true, "{result:#}");
                result["content"][0]["text"].as_str().unwrap_or_default().to_owned()
            }
            Err(error) => error.to_string(),
        };
        assert!(said.contains("elicitation"), "{said}");
        assert!(client.read_resource("notes://plan").await.is_ok(), "the note is still there");
        client.close().await.expect("the server stops cleanly");
    }
}
