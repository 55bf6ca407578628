//! Plain `fn` bodies on a current-thread runtime (as `#[tokio::test]` runs), which leave its
//! only thread for another (a thread kept awake for them when it is free, else the blocking
//! pool): a body that blocks there holds up no other body, a body runs inside its runtime, and
//! a body's panic answers its own request only.

use std::time::{Duration, Instant};

use mcp_runtime::testing::TestClient;
use mcp_runtime::{Server, mcp_tool};
use serde_json::json;

use super::{BODIES, block_marked, body_started};

/// Adds two integers: a quick plain `fn`.
#[mcp_tool]
fn add_quickly(a: i64, b: i64) -> String {
    (a + b).to_string()
}

/// Whether the body runs inside a Tokio runtime, and spawns a task there.
#[mcp_tool]
fn in_runtime() -> String {
    match tokio::runtime::Handle::try_current() {
        Ok(runtime) => {
            drop(runtime.spawn(async {}));
            "inside".into()
        }
        Err(_) => "outside".into(),
    }
}

/// Panics when asked to.
#[mcp_tool]
fn panic_when(asked: bool) -> String {
    assert!(!asked, "asked to panic");
    "calm".into()
}

/// A plain `fn` called while another blocks its thread is answered at once: each body has a
/// thread of its own, whichever was free, and none waits for the one that blocks.
#[tokio::test]
async fn a_plain_fn_called_while_another_blocks_is_answered_at_once() {
    let server = Server::builder("plain", "1").tool(block_marked).tool(add_quickly);
    let client = TestClient::connect(server).await.expect("connected");
    let mark = "plain-fns-one-blocks";
    let blocking = client.call_tool("block_marked", json!({"ms": 2000, "mark": mark}));
    let quick = async {
        body_started(mark).await;
        let mut waits = Vec::new();
        for n in 0..20 {
            let sent = Instant::now();
            let added = client.call_tool("add_quickly", json!({"a": n, "b": 1})).await.expect("the quick call");
            assert_eq!(added["content"][0]["text"], (n + 1).to_string(), "{added}");
            waits.push((sent, Instant::now()));
        }
        waits
    };
    let (blocked, waits) = tokio::join!(blocking, quick);
    assert_eq!(blocked.expect("the blocking call")["content"][0]["text"], "blocked 2000 ms");
    let ended = BODIES.lock().unwrap()[mark].1.expect("the body returned");
    for (sent, answered) in waits {
        assert!(answered < ended, "a quick plain fn was answered only after the blocking one returned");
        assert!(answered - sent < Duration::from_millis(200), "answered after {:?}", answered - sent);
    }
    client.close().await.expect("closed");
}

/// A body run on another thread runs inside its server's runtime: it can spawn there.
#[tokio::test]
async fn a_plain_fn_runs_inside_its_runtime() {
    let client = TestClient::connect(Server::builder("plain", "1").tool(in_runtime)).await.expect("connected");
    for _ in 0..3 {
        let answer = client.call_tool("in_runtime", json!({})).await.expect("an answer");
        assert_eq!(answer["content"][0]["text"], "inside", "{answer}");
    }
    client.close().await.expect("closed");
}

/// A plain `fn` that panics answers its own call as a failure; the calls after it, on the same
/// connection and the same threads, are answered as usual.
#[tokio::test]
async fn a_plain_fn_that_panics_fails_only_its_own_call() {
    let client = TestClient::connect(Server::builder("plain", "1").tool(panic_when)).await.expect("connected");
    for round in 0..3 {
        let failed = client.call_tool("panic_when", json!({"asked": true})).await.expect("an answer");
        assert_eq!(failed["isError"], true, "round {round}: {failed}");
        let text = failed["content"][0]["text"].as_str().unwrap_or_default();
        assert!(text.contains("`panic_when` failed unexpectedly"), "round {round}: {failed}");
        let calm = client.call_tool("panic_when", json!({"asked": false})).await.expect("an answer");
        assert_eq!(calm["content"][0]["text"], "calm", "round {round}: {calm}");
    }
    client.close().await.expect("closed");
}
