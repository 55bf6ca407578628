//! The stdio transport: oversized lines are refused and reading goes on, standard output
//! carries JSON-RPC only, and closing standard input ends the server after what is in flight.

use std::time::{Duration, Instant};

use mcp_tests::wire::{error_code, manual, only_text, raw_id, result};
use serde_json::{Value, json};

use crate::common::{call, connect, for_each_revision};

#[test]
fn oversized_messages_are_rejected_and_reading_goes_on() {
    for_each_revision(|rev| {
        let mut server =
            connect(rev, "oversized_messages_are_rejected_and_reading_goes_on", &["--max-message-size", "1024"]);
        let big = "x".repeat(2000);
        server.send_request("tools/call", Some(json!({"name": "echo", "arguments": {"text": big}})));
        let line = server.recv_line();
        let response: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(error_code(&response), -32600, "{line}");
        assert_eq!(raw_id(&line), "null", "{line}");
        let fits = "y".repeat(900);
        let echo = call(&mut server, "echo", json!({"text": fits}));
        assert_eq!(only_text(&echo), fits);
        server.finish();
    });
}

#[test]
fn stdout_carries_only_json_rpc_while_the_server_logs() {
    for_each_revision(|rev| {
        let mut server =
            manual(&[]).record(rev, "stdout_carries_only_json_rpc_while_the_server_logs").capture_stderr().spawn();
        server.handshake(rev);
        // Paths that log: a panic, a parse error, bad arguments.
        call(&mut server, "panic", json!({}));
        server.send_line("{oops");
        assert_eq!(error_code(&server.recv()), -32700);
        call(&mut server, "add", json!({"a": "x"}));
        server.finish();
        assert!(!server.stderr().is_empty(), "the panic went to stderr");
        let lines = server.server_lines();
        assert_eq!(lines.len(), 4, "one line per answer: {lines:?}");
    });
}

#[test]
fn closing_stdin_ends_the_server_after_in_flight_responses() {
    for_each_revision(|rev| {
        let mut server = connect(rev, "closing_stdin_ends_the_server_after_in_flight_responses", &[]);
        let id = server.send_request("tools/call", Some(json!({"name": "sleep", "arguments": {"ms": 300}})));
        let closed = Instant::now();
        server.close_stdin();
        let response = server.recv();
        assert_eq!(response["id"], json!(id));
        assert_eq!(only_text(result(&response)), "slept 300 ms");
        let status = server.wait();
        assert!(status.success(), "exit status {status}");
        assert!(closed.elapsed() < Duration::from_secs(3), "exited {:?} after stdin closed", closed.elapsed());
        server.finish();
    });
}

/// A message over the default 4 MiB limit is refused and skipped without being buffered whole:
/// after a 64 MiB line the server's peak memory is far below the line's size, and the next
/// request is answered.
#[test]
fn an_oversized_message_is_skipped_without_being_buffered_whole() {
    let mut server = connect("2025-11-25", "an_oversized_message_is_skipped_without_being_buffered_whole", &[]);
    let before = mcp_tests::peak_rss_kb(server.pid());
    // A call whose text argument is 64 MiB long, unrecorded (the transcript would hold it).
    let text = "x".repeat(64 << 20);
    let message = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "echo", "arguments": {"text": text}}});
    server.send_unrecorded(&message.to_string());
    drop(message);
    let refused = server.recv();
    assert_eq!(error_code(&refused), -32600, "{refused}");
    let echo = call(&mut server, "echo", json!({"text": "after"}));
    assert_eq!(only_text(&echo), "after");
    let peak = mcp_tests::peak_rss_kb(server.pid());
    assert!(peak < 24 << 10, "peak memory {peak} kB (it was {before} kB before a 64 MiB line)");
    server.finish();
}
