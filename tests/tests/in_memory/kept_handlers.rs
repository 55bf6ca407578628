//! A 2026-07-28 handler stopped to ask its client is kept for the client's retry and goes on
//! from its question, as a handshake-era one waits for its answer: what it did before the
//! question is done once. A retry that finds no kept handler (another instance, too late, none
//! kept) runs it again with the answers so far.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::time::Duration;

use mcp_runtime::asking::Elicitation;
use mcp_runtime::protocol::Revision;
use mcp_runtime::testing::TestClient;
use mcp_runtime::{Context, Server, ToolDescriptor};
use serde_json::{Value, json};

use super::Client;

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Name {
    name: String,
}

fn name_of(answer: Result<Elicitation<Name>, mcp_runtime::asking::AskError>) -> String {
    match answer {
        Ok(Elicitation::Accept(Name { name })) => name,
        other => format!("{:?}", other.err()),
    }
}

/// A tool that counts its runs (in `runs`) before asking two names in a row.
fn two_names(runs: &Arc<AtomicU32>) -> ToolDescriptor {
    let runs = Arc::clone(runs);
    ToolDescriptor::new("two_names").handler_with_context(move |_: Value, ctx: Context| {
        let runs = Arc::clone(&runs);
        async move {
            runs.fetch_add(1, Ordering::SeqCst);
            let first = name_of(ctx.elicit::<Name>("First?").await);
            let second = name_of(ctx.elicit::<Name>("Second?").await);
            format!("{first} and {second}")
        }
    })
}

#[tokio::test]
async fn what_a_handler_does_before_its_questions_is_done_once_unless_none_is_kept() {
    let cases =
        [(Revision::V2025_11_25, None, 1), (Revision::V2026_07_28, None, 1), (Revision::V2026_07_28, Some(0), 3)];
    for (revision, limit, runs_per_call) in cases {
        let runs = Arc::new(AtomicU32::new(0));
        let mut server = Server::builder("kept", "1").tool(two_names(&runs));
        if let Some(limit) = limit {
            server = server.kept_handlers(limit, Duration::from_secs(60));
        }
        let client = TestClient::builder()
            .revision(revision)
            .on_elicitation(|params| {
                let name = if params["message"] == "First?" { "Ada" } else { "Grace" };
                json!({"action": "accept", "content": {"name": name}})
            })
            .connect(server)
            .await
            .expect("connects");
        for _ in 0..2 {
            let result = client.call_tool("two_names", json!({})).await.expect("a result");
            assert_eq!(result["content"][0]["text"], "Ada and Grace", "{revision:?}");
        }
        assert_eq!(runs.load(Ordering::SeqCst), 2 * runs_per_call, "{revision:?}, kept at most {limit:?}");
        client.close().await.expect("closes");
    }
}

/// A 2026-07-28 call of `two_names` as request `id`, declaring elicitation; a retry with
/// `state` and `answers` when given.
fn two_names_call(id: u32, retry: Option<(&Value, Value)>) -> Value {
    let mut params = json!({"name": "two_names", "arguments": {}, "_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
    }});
    if let Some((state, answers)) = retry {
        params["requestState"] = state.clone();
        params["inputResponses"] = answers;
    }
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
}

fn accept(name: &str) -> Value {
    json!({"action": "accept", "content": {"name": name}})
}

/// The retry's answers go to the kept handler; a retry answering nothing is asked again by the
/// same handler (a new state); the first state replayed once its handler was taken runs the
/// handler again, with the answers that state holds.
#[tokio::test]
async fn retries_reach_the_kept_handler_until_it_was_taken_and_then_run_it_again() {
    let runs = Arc::new(AtomicU32::new(0));
    let mut wire = Client::start(Server::builder("kept", "1").tool(two_names(&runs)));
    let first = wire.call(&two_names_call(1, None)).await;
    let first_state = first["result"]["requestState"].clone();
    assert_eq!(first["result"]["inputRequests"]["0"]["params"]["message"], "First?", "{first}");

    let unanswered = wire.call(&two_names_call(2, Some((&first_state, json!({}))))).await;
    assert_eq!(unanswered["result"]["inputRequests"]["0"]["params"]["message"], "First?", "{unanswered}");
    let again_state = unanswered["result"]["requestState"].clone();
    assert_ne!(again_state, first_state, "a new state names where the handler is kept now");

    let second = wire.call(&two_names_call(3, Some((&again_state, json!({"0": accept("Ada")}))))).await;
    assert_eq!(second["result"]["inputRequests"]["1"]["params"]["message"], "Second?", "{second}");
    let done =
        wire.call(&two_names_call(4, Some((&second["result"]["requestState"], json!({"1": accept("Grace")}))))).await;
    assert_eq!((&done["id"], &done["result"]["content"][0]["text"]), (&json!(4), &json!("Ada and Grace")));
    assert_eq!(runs.load(Ordering::SeqCst), 1, "one run served four requests");

    // The first state again: its handler is gone, so the retry runs one from the start.
    let replayed = wire.call(&two_names_call(5, Some((&first_state, json!({"0": accept("Bo")}))))).await;
    assert_eq!(replayed["result"]["inputRequests"]["1"]["params"]["message"], "Second?", "{replayed}");
    assert_eq!(runs.load(Ordering::SeqCst), 2);
    wire.end().await;
}

/// Says when it is dropped.
struct Dropped(Arc<AtomicBool>);

impl Drop for Dropped {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

/// A handler kept for a retry that never comes is dropped, its context cancelled, when its
/// connection ends: it holds neither the connection's output nor anything of its own.
#[tokio::test]
async fn a_kept_handler_is_dropped_with_its_connection() {
    let dropped = Arc::new(AtomicBool::new(false));
    let cancelled = Arc::new(AtomicBool::new(false));
    let (flag, seen) = (Arc::clone(&dropped), Arc::clone(&cancelled));
    let tool = ToolDescriptor::new("two_names").handler_with_context(move |_: Value, ctx: Context| {
        let held = Dropped(Arc::clone(&flag));
        let seen = Arc::clone(&seen);
        let token = ctx.cancel_token();
        tokio::spawn(async move {
            token.cancelled().await;
            seen.store(true, Ordering::SeqCst);
        });
        async move {
            let _held = held;
            name_of(ctx.elicit::<Name>("First?").await)
        }
    });
    let mut wire = Client::start(Server::builder("kept", "1").tool(tool));
    let asked = wire.call(&two_names_call(1, None)).await;
    assert_eq!(asked["result"]["resultType"], "input_required", "{asked}");
    assert!(!dropped.load(Ordering::SeqCst), "kept while the connection lasts");
    wire.end().await;
    assert!(dropped.load(Ordering::SeqCst), "dropped with the connection");
    // The watcher task sees the cancellation once it runs.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    while !cancelled.load(Ordering::SeqCst) {
        assert!(tokio::time::Instant::now() < deadline, "the kept handler's context was not cancelled");
        tokio::task::yield_now().await;
    }
}
