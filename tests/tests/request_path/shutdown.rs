//! Shutdown: SIGTERM lets what is in flight answer, the drain deadline aborts what runs longer,
//! and a closed output stops the server.

use std::io::Write;
use std::time::{Duration, Instant};

use mcp_tests::wire::{ALL_REVISIONS, STATELESS_REVISION, for_each_revision, only_text, result};
use serde_json::json;

use crate::common::{connect, exit_within, raw_manual, send_call, send_quick};

#[test]
fn sigterm_lets_requests_in_flight_answer_then_exits_0() {
    for_each_revision(&ALL_REVISIONS, |rev| {
        let mut server = connect(rev, "sigterm_lets_requests_in_flight_answer_then_exits_0", &[]);
        let sleep = send_call(&mut server, rev, "sleep", json!({"ms": 400}));
        // Let the request be read before the signal.
        send_quick(&mut server, rev);
        server.recv();
        let signalled = Instant::now();
        server.signal("TERM");
        let answer = server.recv();
        assert_eq!(answer["id"], sleep);
        assert_eq!(only_text(result(&answer)), "slept 400 ms");
        let status = server.wait();
        assert!(status.success(), "exit status {status}");
        assert!(signalled.elapsed() < Duration::from_secs(3), "exited {:?} after SIGTERM", signalled.elapsed());
    });
}

#[test]
fn the_drain_deadline_aborts_what_runs_longer() {
    for rev in ["2025-06-18", STATELESS_REVISION] {
        let mut server = connect(rev, "the_drain_deadline_aborts_what_runs_longer", &["--drain-timeout-ms", "200"]);
        send_call(&mut server, rev, "sleep", json!({"ms": 20_000}));
        send_quick(&mut server, rev);
        server.recv();
        let signalled = Instant::now();
        server.signal("INT");
        let status = server.wait();
        assert!(status.success(), "exit status {status}");
        let took = signalled.elapsed();
        assert!(took >= Duration::from_millis(190) && took < Duration::from_secs(3), "exited after {took:?}");
        let lines = server.server_lines();
        let expected = if rev == STATELESS_REVISION { 1 } else { 2 };
        assert_eq!(lines.len(), expected, "the aborted request got no answer: {lines:?}");
    }
}

#[test]
fn a_closed_output_stops_the_server_within_a_second() {
    let mut child = raw_manual(&[]);
    drop(child.stdout.take());
    let mut stdin = child.stdin.take().unwrap();
    let closed = Instant::now();
    // Keep calling: the first answer meets the closed pipe, and the server stops.
    let writer = std::thread::spawn(move || {
        for id in 1.. {
            let call = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                "params": {"name": "sleep", "arguments": {"ms": 1}}});
            if writeln!(stdin, "{call}").is_err() {
                return id;
            }
            std::thread::sleep(Duration::from_millis(1));
        }
        unreachable!()
    });
    let (status, stderr) = exit_within(&mut child, Duration::from_secs(2));
    assert!(closed.elapsed() < Duration::from_secs(1), "stopped {:?} after the output closed", closed.elapsed());
    assert!(!status.success());
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 1, "one readable line: {stderr}");
    assert!(lines[0].contains("closed the server's output"), "{stderr}");
    assert!(writer.join().unwrap() < 2_000, "the server stopped reading");
}
