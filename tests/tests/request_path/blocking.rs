//! A plain `fn` that blocks its thread, served the way users serve theirs (`examples/blocking`
//! through `run()`, and on a current-thread runtime of its own): it runs on the blocking
//! pool, so the connection keeps reading and answering while it blocks.

use std::time::{Duration, Instant};

use mcp_tests::wire::{LATEST_HANDSHAKE_REVISION, STATELESS_REVISION, StdioServer, for_each_revision, raw_id};
use serde_json::{Value, json};

use super::common::{send, send_call, send_quick, wait_for_log};

/// How the example serves stdio: `run()`'s own runtime, or a current-thread one.
const RUNTIMES: [&[&str]; 2] = [&[], &["--current-thread"]];

/// What "at once" means here: the reading loop answers `ping` in well under a millisecond;
/// this leaves room for a loaded 2-core machine, and is far below the 2.7 s the tool still
/// blocks when the `ping` is sent.
const AT_ONCE: Duration = Duration::from_millis(50);

fn blocking(revision: &str, test: &str, args: &[&str]) -> StdioServer {
    let mut server = StdioServer::builder(mcp_tests::example_binary("blocking"))
        .args(args)
        .env("RUST_LOG", Some("info"))
        .capture_stderr()
        .record(revision, test)
        .spawn();
    if revision != STATELESS_REVISION {
        server.handshake_with(revision, json!({"elicitation": {}}));
    }
    server
}

/// The text of a tool result.
/// Sends `ping` and checks that it is the next answer, within [`AT_ONCE`]; `case` names what
/// the server is doing meanwhile.
fn ping_is_answered_at_once(server: &mut StdioServer, revision: &str, case: &str) {
    let sent = Instant::now();
    let ping = send(server, revision, "ping", json!({}));
    let answer = server.recv();
    assert_eq!(answer["id"], ping, "{case}: {answer}");
    assert!(sent.elapsed() < AT_ONCE, "{case}: ping answered after {:?}", sent.elapsed());
}

fn text(response: &Value) -> &str {
    response["result"]["content"][0]["text"].as_str().unwrap_or_else(|| panic!("a text result: {response}"))
}

#[test]
fn a_ping_sent_while_a_plain_fn_blocks_its_thread_is_answered_at_once() {
    for_each_revision(&[LATEST_HANDSHAKE_REVISION, STATELESS_REVISION], |revision| {
        for args in RUNTIMES {
            let mut server = blocking(revision, "blocking_plain_fn_and_ping", args);
            let call = send_call(&mut server, revision, "lookup", json!({"ms": 3000}));
            // Sent in a write of its own, once the tool has started blocking (not in the same
            // write as the call, where the reading loop would answer it before the tool runs).
            wait_for_log(&server, "looking up for 3000 ms");
            let sent = Instant::now();
            let quick = send_quick(&mut server, revision);
            let answer = server.recv();
            let waited = sent.elapsed();
            assert_eq!(answer["id"], quick, "{args:?}: the quick request is answered first: {answer}");
            assert!(answer.get("result").is_some(), "{args:?}: {answer}");
            assert!(waited < AT_ONCE, "{args:?}: answered after {waited:?} while the plain fn blocked");
            let done = server.recv();
            assert_eq!(done["id"], call);
            assert_eq!(text(&done), "looked up in 3000 ms");
            server.finish();
        }
    });
}

/// A `local` handler holds a `std::sync::Mutex` guard while it waits for the client's answer;
/// a plain `fn` waits for the same mutex. The plain `fn` blocks only its own thread: `ping` is
/// answered, the client's answer is read, the local handler finishes and lets the plain `fn`
/// go on.
#[test]
fn a_plain_fn_waiting_for_a_lock_held_across_a_question_does_not_stall_the_connection() {
    for args in RUNTIMES {
        let revision = LATEST_HANDSHAKE_REVISION;
        let mut server = blocking(revision, "blocking_lock_across_question", args);
        let hold = send_call(&mut server, revision, "confirm_hold", json!({}));
        let question = server.recv();
        assert_eq!(question["method"], "elicitation/create", "{args:?}: {question}");
        let count = send_call(&mut server, revision, "ledger_count", json!({}));
        wait_for_log(&server, "counting the ledger's entries");
        ping_is_answered_at_once(&mut server, revision, &format!("{args:?}"));
        server.send(&json!({"jsonrpc": "2.0", "id": question["id"], "result": {
            "action": "accept", "content": {"confirm": true}}}));
        let mut results = [server.recv(), server.recv()];
        results.sort_by_key(|r| r["id"].as_i64());
        assert_eq!((results[0]["id"].as_i64(), text(&results[0])), (Some(hold), "1 entries"), "{args:?}");
        assert_eq!((results[1]["id"].as_i64(), text(&results[1])), (Some(count), "1 entries"), "{args:?}");
        server.close_stdin();
        assert!(server.wait().success(), "{args:?}");
    }
}

/// A plain `fn` cancelled while it blocks is not answered (its result is dropped when its
/// thread returns), and the connection goes on meanwhile: a `ping` is answered at once.
#[test]
fn a_plain_fn_cancelled_while_it_blocks_is_not_answered() {
    for args in RUNTIMES {
        let revision = LATEST_HANDSHAKE_REVISION;
        let mut server = blocking(revision, "blocking_plain_fn_cancelled", args);
        let call = send_call(&mut server, revision, "lookup", json!({"ms": 800}));
        wait_for_log(&server, "looking up for 800 ms");
        server.notify("notifications/cancelled", Some(json!({"requestId": call, "reason": "no longer needed"})));
        ping_is_answered_at_once(&mut server, revision, &format!("{args:?}"));
        // The body returns (its log says so) and what it returned goes nowhere: the next
        // answer is the next call's, and of everything the server wrote until it exited,
        // nothing answers the cancelled call.
        wait_for_log(&server, "looked up in 800 ms");
        let after = send_call(&mut server, revision, "lookup", json!({"ms": 0}));
        let done = server.recv();
        assert_eq!((done["id"].as_i64(), text(&done)), (Some(after), "looked up in 0 ms"), "{args:?}");
        server.finish();
        let answered: Vec<String> =
            server.server_lines().into_iter().filter(|l| raw_id(l) == call.to_string()).collect();
        assert_eq!(answered, Vec::<String>::new(), "{args:?}: the cancelled call was answered");
    }
}

/// A plain `fn` past its time limit is answered at once, at the limit, while its thread goes
/// on; what it returns later is dropped, and the connection serves on meanwhile.
#[test]
fn a_plain_fn_past_its_time_limit_is_answered_at_the_limit() {
    for args in RUNTIMES {
        let revision = LATEST_HANDSHAKE_REVISION;
        let mut server = blocking(revision, "blocking_plain_fn_timed_out", args);
        let sent = Instant::now();
        let call = send_call(&mut server, revision, "bounded_lookup", json!({"ms": 1500}));
        let answer = server.recv();
        let took = sent.elapsed();
        assert_eq!(answer["id"], call, "{args:?}: {answer}");
        assert_eq!(text(&answer), "Tool `bounded_lookup` did not finish within 200 ms", "{args:?}");
        assert!(took < Duration::from_millis(1000), "{args:?}: answered after {took:?}, not at the limit");
        let ping = send(&mut server, revision, "ping", json!({}));
        assert_eq!(server.recv()["id"], ping, "{args:?}");
        // Past the body's return: nothing more comes for the call.
        server.assert_silent(Duration::from_millis(1600));
        server.finish();
    }
}

/// On one CPU (`taskset -c 0`, as in a container limited to one), `run()` still has a second
/// worker to poll the connection while a plain `fn` blocks the first: `ping` is answered at
/// once.
#[test]
fn on_one_cpu_a_ping_sent_while_a_plain_fn_blocks_is_answered_at_once() {
    let revision = LATEST_HANDSHAKE_REVISION;
    let example = mcp_tests::example_binary("blocking");
    let mut server = StdioServer::builder("taskset")
        .args(["-c", "0", example.to_str().expect("a UTF-8 path")])
        .env("RUST_LOG", Some("info"))
        .capture_stderr()
        .record(revision, "blocking_plain_fn_one_cpu")
        .spawn();
    server.handshake_with(revision, json!({}));
    let call = send_call(&mut server, revision, "lookup", json!({"ms": 2000}));
    wait_for_log(&server, "looking up for 2000 ms");
    ping_is_answered_at_once(&mut server, revision, "one CPU, the plain fn blocking");
    assert_eq!(server.recv()["id"], call);
    server.finish();
}
