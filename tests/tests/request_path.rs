//! The request path, driven over stdio: the in-flight bound and the look-ahead, back-pressure
//! when the client stops reading, shutdown (signals, the output closing), the JSON-RPC answer
//! rules, panic isolation everywhere user code runs, and per-revision shaping of what a
//! server and its items describe of themselves. Each rule is checked in every revision where
//! it applies.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use mcp_tests::wire::{
    ALL_REVISIONS, HANDSHAKE_REVISIONS, STATELESS_REVISION, StdioServer, error_code, for_each_revision, manual,
    only_text, result, stateless_params,
};
use serde_json::{Value, json};

/// `manual --test-tools <args>`, recording under `revision` as `test`, ready for requests of
/// `revision` (the handshake done when it has one).
fn connect(revision: &str, test: &str, args: &[&str]) -> StdioServer {
    let mut server = manual(args).record(revision, test).spawn();
    if revision != STATELESS_REVISION {
        server.handshake(revision);
    }
    server
}

/// Sends a request of `revision` (with the 2026-07-28 `_meta` when stateless); its id.
fn send(server: &mut StdioServer, revision: &str, method: &str, params: Value) -> i64 {
    let params = if revision == STATELESS_REVISION { stateless_params(Some(params), json!({})) } else { params };
    server.send_request(method, Some(params))
}

/// A tool call of `revision`; its id.
fn send_call(server: &mut StdioServer, revision: &str, tool: &str, arguments: Value) -> i64 {
    send(server, revision, "tools/call", json!({"name": tool, "arguments": arguments}))
}

/// A request answered on the reading loop with no slot: `ping` where it exists, else
/// `tools/list`.
fn send_quick(server: &mut StdioServer, revision: &str) -> i64 {
    if revision == STATELESS_REVISION {
        send(server, revision, "tools/list", json!({}))
    } else {
        server.send_request("ping", None)
    }
}

/// The ids of the next `count` responses, in arrival order.
fn ids(server: &mut StdioServer, count: usize) -> Vec<i64> {
    (0..count).map(|_| server.recv()["id"].as_i64().expect("an integer id")).collect()
}

// ---------------------------------------------------------------------------------------------
// The in-flight bound and the look-ahead
// ---------------------------------------------------------------------------------------------

#[test]
fn a_quick_request_is_answered_first_while_every_slot_is_busy() {
    for_each_revision(&ALL_REVISIONS, |rev| {
        let mut server =
            connect(rev, "a_quick_request_is_answered_first_while_every_slot_is_busy", &["--max-in-flight", "2"]);
        for _ in 0..3 {
            send_call(&mut server, rev, "sleep", json!({"ms": 300}));
        }
        let quick = send_quick(&mut server, rev);
        let order = ids(&mut server, 4);
        assert_eq!(order[0], quick, "answered before any sleep: {order:?}");
        server.finish();
    });
}

#[test]
fn the_in_flight_bound_holds_by_count() {
    for_each_revision(&ALL_REVISIONS, |rev| {
        let mut server = connect(rev, "the_in_flight_bound_holds_by_count", &["--max-in-flight", "3"]);
        let sent: Vec<i64> = (0..12).map(|_| send_call(&mut server, rev, "gauge", json!({"ms": 100}))).collect();
        let mut most = Vec::new();
        for _ in &sent {
            let text = only_text(result(&server.recv())).to_owned();
            most.push(text.split(' ').nth(2).and_then(|n| n.parse::<usize>().ok()).expect("at most N at once"));
        }
        assert_eq!(most.iter().max(), Some(&3), "three at once, never more: {most:?}");
        server.finish();
    });
}

#[test]
fn the_default_bound_is_64_requests_in_flight() {
    let rev = "2025-11-25";
    let mut server = connect(rev, "the_default_bound_is_64_requests_in_flight", &[]);
    for _ in 0..80 {
        send_call(&mut server, rev, "gauge", json!({"ms": 400}));
    }
    let most: Vec<String> = (0..80).map(|_| only_text(result(&server.recv())).to_owned()).collect();
    assert!(most.iter().all(|m| m != "at most 65 at once"), "{most:?}");
    assert!(most.iter().any(|m| m == "at most 64 at once"), "64 ran at once: {most:?}");
    server.finish();
}

/// With one slot, a running request and `waiting` more wait in the look-ahead: while it
/// has room the quick request is read and answered first; full (16), reading stops until a
/// slot frees.
#[test]
fn the_look_ahead_holds_sixteen_requests() {
    for_each_revision(&ALL_REVISIONS, |rev| {
        for (waiting, answered_first) in [(15, true), (16, false)] {
            let mut server = connect(rev, "the_look_ahead_holds_sixteen_requests", &["--max-in-flight", "1"]);
            let sleep = send_call(&mut server, rev, "sleep", json!({"ms": 400}));
            for _ in 0..waiting {
                send_call(&mut server, rev, "echo", json!({"text": "waited"}));
            }
            let quick = send_quick(&mut server, rev);
            let order = ids(&mut server, waiting + 2);
            if answered_first {
                assert_eq!(order[0], quick, "{waiting} waiting: the look-ahead had room: {order:?}");
            } else {
                assert_eq!(order[0], sleep, "{waiting} waiting: reading stopped until the slot freed: {order:?}");
                assert_eq!(order.last(), Some(&quick), "read only after the look-ahead drained: {order:?}");
            }
            server.finish();
        }
    });
}

#[test]
fn a_cancellation_read_while_requests_wait_drops_the_waiting_request() {
    for_each_revision(&ALL_REVISIONS, |rev| {
        let test = "a_cancellation_read_while_requests_wait_drops_the_waiting_request";
        let mut server = connect(rev, test, &["--max-in-flight", "1"]);
        let sleep = send_call(&mut server, rev, "sleep", json!({"ms": 300}));
        let waiting = send_call(&mut server, rev, "echo", json!({"text": "never"}));
        server.notify("notifications/cancelled", Some(json!({"requestId": waiting, "reason": "test"})));
        let quick = send_quick(&mut server, rev);
        assert_eq!(ids(&mut server, 2), vec![quick, sleep]);
        server.assert_silent(Duration::from_millis(300));
        server.finish();
    });
}

#[test]
fn a_batch_larger_than_the_bound_completes() {
    let rev = "2025-03-26";
    let mut server = connect(rev, "a_batch_larger_than_the_bound_completes", &["--max-in-flight", "2"]);
    let batch: Vec<Value> = (100..110)
        .map(|id| json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "gauge", "arguments": {"ms": 50}}}))
        .collect();
    server.send(&Value::Array(batch));
    let answer = server.recv();
    let members = answer.as_array().unwrap_or_else(|| panic!("a batch answer: {answer}"));
    let mut ids: Vec<i64> = members.iter().map(|m| m["id"].as_i64().unwrap()).collect();
    ids.sort_unstable();
    assert_eq!(ids, (100..110).collect::<Vec<_>>());
    for member in members {
        assert_eq!(only_text(result(member)), "at most 2 at once", "batch members share the bound: {member}");
    }
    server.finish();
}

// ---------------------------------------------------------------------------------------------
// Limits of one message
// ---------------------------------------------------------------------------------------------

#[test]
fn the_default_message_limit_is_4_mib_without_the_line_ending() {
    let rev = "2025-06-18";
    let mut server = connect(rev, "the_default_message_limit_is_4_mib_without_the_line_ending", &[]);
    let limit = 4 * 1024 * 1024;
    let envelope = |text: &str| {
        json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": text}}})
            .to_string()
    };
    let overhead = envelope("").len();
    let fits = envelope(&"x".repeat(limit - overhead));
    assert_eq!(fits.len(), limit);
    // A CRLF ending does not count against the limit.
    server.send_unrecorded(&format!("{fits}\r"));
    assert_eq!(only_text(result(&server.recv())).len(), limit - overhead);
    let over = envelope(&"x".repeat(limit - overhead + 1));
    server.send_unrecorded(&over);
    assert_eq!(error_code(&server.recv()), -32600);
    server.finish();
}

// ---------------------------------------------------------------------------------------------
// JSON-RPC answer rules
// ---------------------------------------------------------------------------------------------

#[test]
fn responses_and_malformed_notifications_are_never_answered() {
    for_each_revision(&ALL_REVISIONS, |rev| {
        let mut server = connect(rev, "responses_and_malformed_notifications_are_never_answered", &[]);
        for line in [
            r#"{"jsonrpc":"2.0","id":97,"result":null}"#,
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid request"}}"#,
            r#"{"jsonrpc":"2.0","id":"x","error":"not even an error object"}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":[1]}"#,
            r#"{"jsonrpc":"1.0","method":"notifications/initialized"}"#,
            r#"{"jsonrpc":"2.0","method":42}"#,
        ] {
            server.send_unrecorded(line);
        }
        let quick = send_quick(&mut server, rev);
        assert_eq!(ids(&mut server, 1), vec![quick], "nothing before the answer to the request");
        server.finish();
    });
}

#[test]
fn only_json_whitespace_lines_are_skipped() {
    for_each_revision(&ALL_REVISIONS, |rev| {
        let mut server = connect(rev, "only_json_whitespace_lines_are_skipped", &[]);
        server.send_unrecorded(" \t ");
        server.send_unrecorded("");
        for blank in ["\u{a0}", "\u{b}", "\u{c}"] {
            server.send_unrecorded(blank);
            let answer = server.recv();
            assert_eq!(error_code(&answer), -32700, "{blank:?}: {answer}");
            assert_eq!(answer["id"], Value::Null);
        }
        let quick = send_quick(&mut server, rev);
        assert_eq!(ids(&mut server, 1), vec![quick]);
        server.finish();
    });
}

#[test]
fn members_are_compared_after_decoding() {
    for_each_revision(&HANDSHAKE_REVISIONS, |rev| {
        let mut server = connect(rev, "members_are_compared_after_decoding", &[]);
        server.send_line(r#"{"jsonrpc":"2\u002e0","id":5,"method":"p\u0069ng"}"#);
        let answer = server.recv();
        assert_eq!(answer["result"], json!({}), "{answer}");
        server.finish();
    });
}

#[test]
fn errors_quote_a_short_prefix_of_client_input() {
    for_each_revision(&ALL_REVISIONS, |rev| {
        let mut server = connect(rev, "errors_quote_a_short_prefix_of_client_input", &["--test-items"]);
        let long = "y".repeat(100_000);
        send(&mut server, rev, "resources/read", json!({"uri": format!("test://{long}")}));
        let line = server.recv_line();
        assert!(line.len() < 1_000, "{} bytes", line.len());
        send_call(&mut server, rev, &long, json!({}));
        let line = server.recv_line();
        assert!(line.len() < 1_000, "{} bytes", line.len());
        let answer: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(error_code(&answer), -32602);
        server.finish();
    });
}

// ---------------------------------------------------------------------------------------------
// Panic isolation wherever user code runs
// ---------------------------------------------------------------------------------------------

#[test]
fn panics_in_readers_listers_prompts_and_completers_fail_only_their_request() {
    for_each_revision(&ALL_REVISIONS, |rev| {
        let test = "panics_in_readers_listers_prompts_and_completers_fail_only_their_request";
        let mut server = manual(&["--faulty-items"]).record(rev, test).capture_stderr().spawn();
        if rev != STATELESS_REVISION {
            server.handshake(rev);
        }
        send(&mut server, rev, "resources/read", json!({"uri": "test://panics"}));
        assert_eq!(error_code(&server.recv()), -32603, "a reader's panic is an internal error");
        // The lister's resources are left out; the fixed ones are listed.
        send(&mut server, rev, "resources/list", json!({}));
        let listed = server.recv();
        let uris: Vec<&str> =
            result(&listed)["resources"].as_array().unwrap().iter().map(|r| r["uri"].as_str().unwrap()).collect();
        assert_eq!(uris, ["test://fine", "test://panics"], "{listed}");
        send(&mut server, rev, "prompts/get", json!({"name": "panics"}));
        assert_eq!(error_code(&server.recv()), -32603, "a prompt's panic is an internal error");
        let reference = json!({"type": "ref/prompt", "name": "panics"});
        send(
            &mut server,
            rev,
            "completion/complete",
            json!({"ref": reference, "argument": {"name": "arg", "value": ""}}),
        );
        assert_eq!(error_code(&server.recv()), -32603, "a completer's panic is an internal error");
        send(&mut server, rev, "resources/read", json!({"uri": "test://fine"}));
        assert_eq!(result(&server.recv())["contents"][0]["text"], "fine", "the server still serves");
        server.finish();
        let stderr = server.stderr();
        for logged in ["reader panicked", "lister panicked", "prompt panicked", "completer panicked"] {
            assert!(stderr.contains(logged), "`{logged}` in the log: {stderr}");
        }
    });
}

// ---------------------------------------------------------------------------------------------
// Per-revision shaping of serverInfo and icons
// ---------------------------------------------------------------------------------------------

/// The keys of an object, sorted.
fn keys(value: &Value) -> Vec<String> {
    let mut keys: Vec<String> =
        value.as_object().unwrap_or_else(|| panic!("an object: {value}")).keys().cloned().collect();
    keys.sort_unstable();
    keys
}

#[test]
fn server_info_and_icons_are_shaped_for_every_revision() {
    for_each_revision(&ALL_REVISIONS, |rev| {
        let mut server =
            manual(&["--decorated"]).record(rev, "server_info_and_icons_are_shaped_for_every_revision").spawn();
        let info = if rev == STATELESS_REVISION {
            send(&mut server, rev, "tools/list", json!({}));
            server.recv()["result"]["_meta"]["io.modelcontextprotocol/serverInfo"].clone()
        } else {
            server.handshake(rev)["result"]["serverInfo"].clone()
        };
        let expected_info: &[&str] = match rev {
            "2024-11-05" | "2025-03-26" => &["name", "version"],
            "2025-06-18" => &["name", "title", "version"],
            _ => &["description", "icons", "name", "title", "version", "websiteUrl"],
        };
        assert_eq!(keys(&info), expected_info, "serverInfo: {info}");
        send(&mut server, rev, "tools/list", json!({}));
        let tools = server.recv();
        let tool =
            result(&tools)["tools"].as_array().unwrap().iter().find(|t| t["name"] == "decorated").cloned().unwrap();
        send(&mut server, rev, "resources/list", json!({}));
        let resources = server.recv();
        let resource = result(&resources)["resources"][0].clone();
        let (titles, icons) = (rev >= "2025-06-18", rev >= "2025-11-25");
        for (item, what) in [(&tool, "tool"), (&resource, "resource")] {
            assert_eq!(item.get("title").is_some(), titles, "{what} title in {rev}: {item}");
            assert_eq!(item.get("_meta").is_some(), titles, "{what} _meta in {rev}: {item}");
            assert_eq!(item.get("icons").is_some(), icons, "{what} icons in {rev}: {item}");
        }
        if icons {
            assert_eq!(tool["icons"][0]["src"], "https://example.com/tool.png");
            assert_eq!(info["icons"][0]["sizes"], json!(["48x48"]));
        }
        server.finish();
    });
}

// ---------------------------------------------------------------------------------------------
// Shutdown
// ---------------------------------------------------------------------------------------------

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

/// The `manual` binary with piped standard streams, the handshake done (2025-06-18).
fn raw_manual(args: &[&str]) -> std::process::Child {
    let mut child = Command::new(mcp_tests::example_binary("manual"))
        .arg("--test-tools")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the manual example starts");
    let stdin = child.stdin.as_mut().unwrap();
    let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}});
    writeln!(stdin, "{initialize}").unwrap();
    writeln!(stdin, r#"{{"jsonrpc":"2.0","method":"notifications/initialized"}}"#).unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.as_mut().unwrap()).read_line(&mut first).unwrap();
    assert!(first.contains("\"result\""), "{first}");
    child
}

/// Waits for `child` to exit within `limit`; its exit status and standard error.
fn exit_within(child: &mut std::process::Child, limit: Duration) -> (std::process::ExitStatus, String) {
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            let mut stderr = String::new();
            child.stderr.take().unwrap().read_to_string(&mut stderr).unwrap();
            return (status, stderr);
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            panic!("still running {limit:?} later");
        }
        std::thread::sleep(Duration::from_millis(10));
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

/// A client that writes and does not read stalls the server's reading instead of growing
/// its memory; once it reads, every request is answered.
#[test]
fn memory_stays_bounded_while_the_client_does_not_read() {
    const CALLS: usize = 20_000;
    let mut child = raw_manual(&[]);
    let pid = child.id();
    let mut stdin = child.stdin.take().unwrap();
    let text = "z".repeat(4096);
    let writer = std::thread::spawn(move || {
        for id in 1..=CALLS {
            let call = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                "params": {"name": "echo", "arguments": {"text": text}}});
            writeln!(stdin, "{call}").unwrap();
        }
    });
    std::thread::sleep(Duration::from_secs(2));
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let peak_kb: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches(" kB").parse().ok())
        .expect("VmHWM in /proc");
    // 20,000 answers of 4 KiB are 80 MiB: kept in memory, they would show here.
    assert!(peak_kb < 40 * 1024, "peak RSS {peak_kb} kB while nothing was read");
    assert!(!writer.is_finished(), "the server stopped reading, so the writer waits");
    let mut reader = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    for _ in 0..CALLS {
        line.clear();
        reader.read_line(&mut line).unwrap();
        assert!(line.contains("\"result\""), "{line}");
    }
    writer.join().unwrap();
    drop(child.stdin.take());
    let (status, _) = exit_within(&mut child, Duration::from_secs(5));
    assert!(status.success());
}
