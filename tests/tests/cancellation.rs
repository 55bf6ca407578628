//! `notifications/cancelled` on the wire, under every revision: the four handshake revisions
//! through `initialize`, and 2026-07-28 with `params._meta` on every request. A cancelled
//! request is never answered, whether it was running or waiting for a slot
//! (`--max-in-flight`), and the connection goes on serving; a cancellation of nothing is
//! harmless. The server is `manual --test-tools` over stdio; each run records its transcript
//! under `<target>/transcripts/<revision>/<test>.jsonl` for `shared/tools/schema_check.py`.

use std::time::{Duration, Instant};

use mcp_tests::wire::{
    ALL_REVISIONS, STATELESS_REVISION as MODERN, StdioServer, for_each_revision, manual, only_text, raw_id, result,
    stateless_params,
};
use serde_json::{Value, json};

/// How long a response that must never come is waited for: longer than any sleep it could be
/// the answer to.
const NEVER: Duration = Duration::from_secs(2);

/// One connection to `manual --test-tools`, speaking one revision: the handshake's, or
/// 2026-07-28 with the `_meta` envelope on every request.
struct Client {
    server: StdioServer,
    revision: &'static str,
}

impl Client {
    /// `manual --test-tools <args>`, recording under `revision` as `test`, connected.
    fn connect(revision: &'static str, test: &str, args: &[&str]) -> Client {
        let mut server = manual(args).record(revision, test).spawn();
        if revision != MODERN {
            server.handshake(revision);
        }
        Client { server, revision }
    }

    fn modern(&self) -> bool {
        self.revision == MODERN
    }

    /// `params` as this era sends them.
    fn params(&self, params: Value) -> Value {
        if self.modern() { stateless_params(Some(params), json!({})) } else { params }
    }

    /// Sends a request of the connection's era and returns its id.
    fn send(&mut self, method: &str, params: Value) -> i64 {
        let params = self.params(params);
        self.server.send_request(method, Some(params))
    }

    /// Starts `sleep {ms}` and returns its id.
    fn sleep(&mut self, ms: u64) -> i64 {
        self.send("tools/call", json!({"name": "sleep", "arguments": {"ms": ms}}))
    }

    /// `notifications/cancelled` for request `id`.
    fn cancel(&mut self, id: i64) {
        self.server.notify("notifications/cancelled", Some(json!({"requestId": id, "reason": "no longer needed"})));
    }

    /// The next message, which must be the result of the tool call `id` with the text `text`.
    fn expect_text(&mut self, id: i64, text: &str) {
        let response = self.server.recv();
        assert_eq!(response["id"], json!(id), "{}: expected the answer to {id}, got {response}", self.revision);
        assert_eq!(only_text(result(&response)), text, "{}: {response}", self.revision);
    }

    /// `echo {text}`, which must be the next answer.
    fn echo(&mut self, text: &str) -> i64 {
        let id = self.send("tools/call", json!({"name": "echo", "arguments": {"text": text}}));
        self.expect_text(id, text);
        id
    }

    /// A request answered at once, needing no slot: `ping` (the handshake revisions), or
    /// `server/discover` (2026-07-28, which has no `ping`).
    fn probe(&mut self) {
        let id = if self.modern() { self.send("server/discover", json!({})) } else { self.send("ping", json!({})) };
        let response = self.server.recv();
        assert_eq!(response["id"], json!(id), "{}: expected the answer to {id}, got {response}", self.revision);
        result(&response);
    }

    /// Ends the session (standard input closes, the server exits with 0, it wrote responses
    /// only) and checks that none of them answers a request of `unanswered`.
    fn finish(mut self, unanswered: &[i64]) {
        self.server.finish();
        let lines = self.server.server_lines();
        for id in unanswered {
            let id = id.to_string();
            assert!(!lines.iter().any(|line| raw_id(line) == id), "{}: {id} was answered: {lines:#?}", self.revision);
        }
    }
}

/// A running call cancelled is never answered, not even when standard input closes; what
/// follows is served.
#[test]
fn a_cancelled_call_is_never_answered() {
    for_each_revision(&ALL_REVISIONS, |rev| {
        let mut client = Client::connect(rev, "a_cancelled_call_is_never_answered", &[]);
        let sleep = client.sleep(1500);
        client.cancel(sleep);
        client.echo("after the cancellation");
        client.probe();
        client.server.assert_silent(NEVER);
        client.echo("still serving");
        client.finish(&[sleep]);
    });
}

/// With one slot: a call waiting for it, cancelled, is dropped when the slot frees; the
/// running call is answered, the cancelled one never, and the slot serves what comes next.
#[test]
fn a_call_cancelled_while_it_waits_for_a_slot_is_dropped() {
    for_each_revision(&ALL_REVISIONS, |rev| {
        let test = "a_call_cancelled_while_it_waits_for_a_slot_is_dropped";
        let mut client = Client::connect(rev, test, &["--max-in-flight", "1"]);
        let running = client.sleep(1000);
        let waiting = client.sleep(200);
        client.cancel(waiting);
        // Requests that need no slot are answered meanwhile.
        client.probe();
        client.expect_text(running, "slept 1000 ms");
        client.server.assert_silent(NEVER);
        client.echo("the slot is free");
        client.finish(&[waiting]);
    });
}

/// With one slot: cancelling the running call frees it at once for the call that waits.
#[test]
fn cancelling_the_running_call_frees_its_slot() {
    for_each_revision(&ALL_REVISIONS, |rev| {
        let mut client = Client::connect(rev, "cancelling_the_running_call_frees_its_slot", &["--max-in-flight", "1"]);
        let running = client.sleep(5000);
        let waiting = client.sleep(100);
        let cancelled = Instant::now();
        client.cancel(running);
        client.expect_text(waiting, "slept 100 ms");
        let took = cancelled.elapsed();
        assert!(took < Duration::from_millis(2500), "{rev}: the waiting call ran {took:?} after the cancellation");
        client.echo("next");
        client.finish(&[running]);
    });
}

/// Cancelling a request that was never sent, or one already answered, changes nothing: later
/// requests are answered, and nothing else is sent.
#[test]
fn cancelling_an_unknown_or_finished_request_is_harmless() {
    for_each_revision(&ALL_REVISIONS, |rev| {
        let mut client = Client::connect(rev, "cancelling_an_unknown_or_finished_request_is_harmless", &[]);
        client.cancel(4242);
        client.probe();
        let answered = client.echo("answered");
        client.cancel(answered);
        client.probe();
        client.echo("later");
        client.server.assert_silent(Duration::from_millis(300));
        client.finish(&[]);
    });
}

/// 2026-07-28 lets a client reuse an id once its request was answered. A cancellation that
/// crossed the answer (the race every client timeout risks) must not drop the next request
/// with that id.
#[test]
fn a_late_cancellation_does_not_drop_a_later_request_reusing_the_id() {
    let mut client = Client::connect(MODERN, "a_late_cancellation_does_not_drop_a_later_request_reusing_the_id", &[]);
    let id = client.echo("first");
    client.cancel(id);
    client.probe();
    let params = client.params(json!({"name": "echo", "arguments": {"text": "second"}}));
    client.server.send(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params}));
    client.expect_text(id, "second");
    client.finish(&[]);
}
