//! Notes: a small note-taking server. Its tools and its resource template share one state (the
//! notes), a slow search reports progress and can be cancelled, deleting asks the user to
//! confirm (a request in the handshake revisions, an input-required result in 2026-07-28),
//! and what the handlers log with `tracing` also reaches the client when it asks for it. A
//! client subscribed to a note is told when it is written (the tool reaches the server's own
//! handle as a state).

use std::collections::BTreeMap;
use std::sync::RwLock;
use std::time::Duration;

use mcp_runtime::prelude::*;
use mcp_runtime::{AskError, Elicitation, ServerHandle};

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
#[mcp_tool(idempotent)]
fn write_note(notes: State<Notes>, server: State<ServerHandle>, title: String, text: String) -> String {
    let replaced = notes.0.write().unwrap_or_else(|e| e.into_inner()).insert(title.clone(), text).is_some();
    // Clients subscribed to this note are told it changed.
    let _ = server.resource_updated(&format!("notes://{title}"));
    tracing::info!(%title, replaced, "note written");
    if replaced { format!("Replaced \"{title}\"") } else { format!("Wrote \"{title}\"") }
}

/// One note, by title.
#[mcp_resource("notes://{title}", mime = "text/markdown", subscribe)]
fn note(notes: State<Notes>, title: String) -> Result<String, ReadError> {
    let text = notes.read().get(&title).cloned().ok_or(NotFound)?;
    Ok(format!("# {title}\n\n{text}"))
}

/// The confirmation form of a delete.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Confirm {
    /// Delete it for good?
    delete: bool,
}

/// Deletes a note once the user confirms.
#[mcp_tool(destructive)]
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
#[mcp_tool(read_only, timeout = "60s")]
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

fn main() -> mcp_runtime::Result<()> {
    let server = Server::new("notes", env!("CARGO_PKG_VERSION")).state(Notes::default()).client_logging();
    let handle = server.handle();
    server.state(handle).run()
}
