//! The README's shutdown claims where users meet them: `examples/blocking` served by `run()`
//! (stdio polled on the runtime `run()` builds, and `--http`), not only a library entry point
//! on a runtime of the test's making. SIGTERM lets the call in flight answer and reads nothing
//! after it; a closed output stops an idle server at once, aborting a 20 s call.

use std::time::{Duration, Instant};

use mcp_tests::http::HttpServer;
use mcp_tests::wire::{LATEST_HANDSHAKE_REVISION, STATELESS_REVISION, StdioServer, for_each_revision};
use serde_json::{Value, json};

use super::common::{send_call, send_quick, wait_for_log};

/// `examples/blocking` under `run()` on stdio, logging at `info` (the shutdown line is what
/// the tests wait for), the handshake done when the revision has one.
fn blocking(revision: &str, test: &str) -> StdioServer {
    let mut server = StdioServer::builder(mcp_tests::example_binary("blocking"))
        .env("RUST_LOG", Some("info"))
        .capture_stderr()
        .record(revision, test)
        .spawn();
    if revision != STATELESS_REVISION {
        server.handshake(revision);
    }
    server
}

#[test]
fn under_run_sigterm_answers_the_call_in_flight_and_reads_nothing_after() {
    for_each_revision(&[LATEST_HANDSHAKE_REVISION, STATELESS_REVISION], |revision| {
        let mut server = blocking(revision, "under_run_sigterm");
        let call = send_call(&mut server, revision, "wait", json!({"ms": 600}));
        // Answered on the reading loop: the call before it was read.
        let quick = send_quick(&mut server, revision);
        assert_eq!(server.recv()["id"], quick);
        let signalled = Instant::now();
        server.signal("TERM");
        wait_for_log(&server, "shutting down");
        // Sent once the server is shutting down: reading has stopped, so it is never answered.
        let late = send_call(&mut server, revision, "wait", json!({"ms": 1}));
        let answer = server.recv();
        assert_eq!(answer["id"], call, "{answer}");
        assert_eq!(answer["result"]["content"][0]["text"], "waited 600 ms");
        let status = server.wait();
        assert!(status.success(), "exit status {status}");
        assert!(signalled.elapsed() < Duration::from_secs(3), "exited {:?} after SIGTERM", signalled.elapsed());
        let late = format!("\"id\":{late}");
        assert!(!server.server_lines().iter().any(|line| line.contains(&late)), "the late request was answered");
    });
}

#[test]
fn under_run_a_closed_output_stops_an_idle_server_at_once_aborting_its_call() {
    use std::io::Write;
    let mut child = std::process::Command::new(mcp_tests::example_binary("blocking"))
        .env("RUST_LOG", "info")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the example starts");
    let log = mcp_tests::services::StderrLog::drain(&mut child);
    let mut stdin = child.stdin.take().unwrap();
    let meta = json!({"io.modelcontextprotocol/protocolVersion": STATELESS_REVISION,
        "io.modelcontextprotocol/clientCapabilities": {}});
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "wait", "arguments": {"ms": 20_000}, "_meta": meta}});
    writeln!(stdin, "{call}").unwrap();
    let deadline = Instant::now() + Duration::from_secs(5);
    while !log.text().contains("waiting 20000 ms") {
        assert!(Instant::now() < deadline, "the call never started: {}", log.text());
        std::thread::sleep(Duration::from_millis(10));
    }
    // Idle now (nothing to write until the call ends): the closed pipe is noticed anyway.
    let closed = Instant::now();
    drop(child.stdout.take());
    let deadline = Instant::now() + Duration::from_secs(5);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(Instant::now() < deadline, "still running 5 s after its output closed");
        std::thread::sleep(Duration::from_millis(5));
    };
    let took = closed.elapsed();
    assert!(took < Duration::from_secs(1), "stopped {took:?} after the output closed");
    assert!(!status.success(), "a closed output is a failure: {status}");
    assert!(log.text().contains("closed the server's output"), "{}", log.text());
    drop(stdin);
}

#[test]
fn under_run_over_http_sigterm_answers_the_call_in_flight_and_refuses_what_comes_after() {
    let mut server = HttpServer::start_with_env(&mcp_tests::example_binary("blocking"), &[], &[("RUST_LOG", "info")]);
    let url = server.url.clone();
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "wait", "arguments": {"ms": 800},
        "_meta": {"io.modelcontextprotocol/protocolVersion": STATELESS_REVISION,
                  "io.modelcontextprotocol/clientCapabilities": {}}}});
    let in_flight = {
        let (url, call) = (url.clone(), call.clone());
        std::thread::spawn(move || mcp_tests::http::post(&url, &call, &[]))
    };
    // The call runs once the tool says so (at `info`).
    let deadline = Instant::now() + Duration::from_secs(5);
    while !server.log().contains("waiting 800 ms") {
        assert!(Instant::now() < deadline, "the call never started: {}", server.log());
        std::thread::sleep(Duration::from_millis(10));
    }
    let signalled = Instant::now();
    let kill = std::process::Command::new("kill").args(["-TERM", &server.pid().to_string()]).status().unwrap();
    assert!(kill.success());
    let deadline = Instant::now() + Duration::from_secs(5);
    while !server.log().contains("shutting down") {
        assert!(Instant::now() < deadline, "no shutdown line: {}", server.log());
        std::thread::sleep(Duration::from_millis(10));
    }
    let mut late = call.clone();
    late["id"] = json!(2);
    let refused = mcp_tests::http::post(&url, &late, &[]);
    assert_eq!(refused.status, 503, "a request after the signal: {refused:?}");
    let answered = in_flight.join().expect("the client thread");
    assert_eq!(answered.status, 200, "{answered:?}");
    let answer: &Value = answered.last();
    assert_eq!(answer["result"]["content"][0]["text"], "waited 800 ms", "{answer}");
    let status = server.wait(Duration::from_secs(5));
    assert!(status.success(), "exit status {status}");
    assert!(signalled.elapsed() < Duration::from_secs(4), "exited {:?} after SIGTERM", signalled.elapsed());
}
