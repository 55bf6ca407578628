//! Handlers that talk back, over stdio in every revision where each rule applies: progress
//! only under a progress token and only forward; log messages at the client's level
//! (`logging/setLevel`, or the 2026-07-28 request's `_meta`), through the context and through
//! `tracing`, rate-limited; cancellation seen by work handed elsewhere; time limits.

use std::time::{Duration, Instant};

use mcp_tests::wire::{
    ALL_REVISIONS, CLIENT_CAPABILITIES_KEY, CLIENT_INFO_KEY, HANDSHAKE_REVISIONS, PROTOCOL_VERSION_KEY,
    STATELESS_REVISION, StdioServer, error_code, for_each_revision, manual, only_text, result,
};
use serde_json::{Value, json};

/// `manual --test-tools --context-items <args>`, recording under `revision` as `test`, ready
/// for requests of `revision`.
fn connect(revision: &str, test: &str, args: &[&str]) -> StdioServer {
    let mut server =
        manual(&["--context-items"]).args(args.iter().copied()).record(revision, test).capture_stderr().spawn();
    if revision != STATELESS_REVISION {
        server.handshake(revision);
    }
    server
}

/// `params` with `_meta` holding `meta` (and, for 2026-07-28, the request's own revision,
/// capabilities and client).
fn with_meta(revision: &str, mut params: Value, meta: Value) -> Value {
    let mut all = meta.as_object().cloned().unwrap_or_default();
    if revision == STATELESS_REVISION {
        all.insert(PROTOCOL_VERSION_KEY.into(), json!(STATELESS_REVISION));
        all.insert(CLIENT_CAPABILITIES_KEY.into(), json!({}));
        all.insert(CLIENT_INFO_KEY.into(), json!({"name": "context-tests", "version": "0"}));
    }
    if !all.is_empty() {
        params["_meta"] = Value::Object(all);
    }
    params
}

/// Sends a request of `revision` with `meta` in its `_meta`; its id.
fn send(server: &mut StdioServer, revision: &str, method: &str, params: Value, meta: Value) -> i64 {
    server.send_request(method, Some(with_meta(revision, params, meta)))
}

/// Calls `tool` and returns the notifications written before its response, and the response.
fn call(server: &mut StdioServer, revision: &str, tool: &str, arguments: Value, meta: Value) -> (Vec<Value>, Value) {
    let id = send(server, revision, "tools/call", json!({"name": tool, "arguments": arguments}), meta);
    let mut notifications = Vec::new();
    loop {
        let message = server.recv();
        if message["id"] == json!(id) {
            return (notifications, message);
        }
        assert!(message.get("method").is_some(), "only notifications before the response: {message}");
        notifications.push(message);
    }
}

/// Closes standard input and expects exit status 0 (the session wrote notifications, so the
/// responses-only check of `finish` does not apply).
fn end(server: &mut StdioServer) {
    server.close_stdin();
    let status = server.wait();
    assert!(status.success(), "exit status {status}");
}

// ---------------------------------------------------------------------------------------------
// Progress
// ---------------------------------------------------------------------------------------------

#[test]
fn progress_goes_out_only_under_a_token_and_only_forward() {
    for_each_revision(&ALL_REVISIONS, |rev| {
        let mut server = connect(rev, "progress_goes_out_only_under_a_token_and_only_forward", &[]);
        let (notes, response) =
            call(&mut server, rev, "progress", json!({"steps": 3}), json!({"progressToken": "p-1"}));
        assert_eq!(only_text(result(&response)), "3 sent", "the fourth did not advance");
        assert_eq!(notes.len(), 3, "{notes:?}");
        for (n, note) in notes.iter().enumerate() {
            assert_eq!(note["method"], "notifications/progress");
            let params = &note["params"];
            assert_eq!(params["progressToken"], "p-1");
            assert_eq!(params["progress"], json!(n as f64 + 1.0));
            assert_eq!(params["total"], json!(3.0));
            let has_message = rev != "2024-11-05";
            assert_eq!(params.get("message").is_some(), has_message, "message in {rev}: {note}");
        }
        let (notes, response) = call(&mut server, rev, "progress", json!({"steps": 2}), json!({}));
        assert_eq!((notes.len(), only_text(result(&response))), (0, "0 sent"), "no token, no progress");
        let (notes, _) = call(&mut server, rev, "progress", json!({"steps": 1}), json!({"progressToken": 7}));
        assert_eq!(notes[0]["params"]["progressToken"], 7, "integer tokens are echoed");
        end(&mut server);
    });
}

// ---------------------------------------------------------------------------------------------
// Log messages
// ---------------------------------------------------------------------------------------------

fn log(server: &mut StdioServer, rev: &str, level: &str, count: u32, meta: Value) -> (Vec<Value>, String) {
    let (notes, response) = call(server, rev, "log", json!({"level": level, "count": count}), meta);
    (notes, only_text(result(&response)).to_owned())
}

#[test]
fn log_messages_follow_set_level_in_the_handshake_revisions() {
    for_each_revision(&HANDSHAKE_REVISIONS, |rev| {
        let test = "log_messages_follow_set_level_in_the_handshake_revisions";
        let mut server = manual(&["--context-items", "--client-logging"]).record(rev, test).spawn();
        let initialized = server.handshake(rev);
        assert_eq!(initialized["result"]["capabilities"]["logging"], json!({}), "{initialized}");
        // `info` until the client sets a level.
        assert_eq!(log(&mut server, rev, "debug", 2, json!({})).1, "0 sent");
        let (notes, sent) = log(&mut server, rev, "warning", 2, json!({}));
        assert_eq!(sent, "2 sent");
        for (n, note) in notes.iter().enumerate() {
            assert_eq!(note["method"], "notifications/message", "{note}");
            assert_eq!(note["params"]["level"], "warning");
            assert_eq!(note["params"]["data"], json!({"n": n}));
        }
        assert_eq!(result(&server.request("logging/setLevel", Some(json!({"level": "debug"})))), &json!({}));
        assert_eq!(log(&mut server, rev, "debug", 1, json!({})).1, "1 sent");
        server.request("logging/setLevel", Some(json!({"level": "error"})));
        assert_eq!(log(&mut server, rev, "warning", 1, json!({})).1, "0 sent");
        let bad = server.request("logging/setLevel", Some(json!({"level": "loud"})));
        assert_eq!(error_code(&bad), -32602, "{bad}");
        end(&mut server);
    });
}

#[test]
fn log_messages_follow_the_request_level_in_2026_07_28() {
    let rev = STATELESS_REVISION;
    let mut server = manual(&["--context-items", "--client-logging"])
        .record(rev, "log_messages_follow_the_request_level_in_2026_07_28")
        .spawn();
    assert_eq!(log(&mut server, rev, "emergency", 1, json!({})).1, "0 sent", "no level, no messages");
    let level = json!({"io.modelcontextprotocol/logLevel": "warning"});
    let (notes, sent) = log(&mut server, rev, "error", 2, level.clone());
    assert_eq!((notes.len(), sent.as_str()), (2, "2 sent"));
    assert_eq!(log(&mut server, rev, "info", 1, level).1, "0 sent");
    let id = send(
        &mut server,
        rev,
        "tools/call",
        json!({"name": "log", "arguments": {"level": "error", "count": 1}}),
        json!({"io.modelcontextprotocol/logLevel": "loud"}),
    );
    let answer = server.recv();
    assert_eq!((answer["id"].clone(), error_code(&answer)), (json!(id), -32602), "{answer}");
    let ping = send(&mut server, rev, "logging/setLevel", json!({"level": "debug"}), json!({}));
    let answer = server.recv();
    assert_eq!((answer["id"].clone(), error_code(&answer)), (json!(ping), -32601), "no setLevel in {rev}");
    end(&mut server);
}

#[test]
fn without_client_logging_nothing_is_sent_and_set_level_does_not_exist() {
    for_each_revision(&ALL_REVISIONS, |rev| {
        let test = "without_client_logging_nothing_is_sent_and_set_level_does_not_exist";
        let mut server = manual(&["--context-items"]).record(rev, test).spawn();
        if rev != STATELESS_REVISION {
            let initialized = server.handshake(rev);
            assert!(initialized["result"]["capabilities"].get("logging").is_none(), "{initialized}");
            let answer = server.request("logging/setLevel", Some(json!({"level": "debug"})));
            assert_eq!(error_code(&answer), -32601);
        }
        let meta = json!({"io.modelcontextprotocol/logLevel": "debug"});
        assert_eq!(log(&mut server, rev, "emergency", 1, meta).1, "0 sent");
        end(&mut server);
    });
}

#[test]
fn tracing_events_inside_a_handler_reach_the_client() {
    for_each_revision(&ALL_REVISIONS, |rev| {
        let test = "tracing_events_inside_a_handler_reach_the_client";
        let mut server = manual(&["--context-items", "--client-logging"]).record(rev, test).spawn();
        if rev != STATELESS_REVISION {
            server.handshake(rev);
        }
        let meta = json!({"io.modelcontextprotocol/logLevel": "info"});
        let (notes, response) = call(&mut server, rev, "trace", json!({}), meta);
        assert_eq!(only_text(result(&response)), "traced");
        assert_eq!(notes.len(), 1, "the warning, not the debug message: {notes:?}");
        let params = &notes[0]["params"];
        assert_eq!(params["level"], "warning");
        assert_eq!(params["logger"], "manual::context_items", "{params}");
        assert_eq!(params["data"], json!({"message": "a warning from inside the tool", "answer": 42}));
        end(&mut server);
    });
}

#[test]
fn log_messages_are_rate_limited_per_connection() {
    let rev = "2025-06-18";
    let mut server = manual(&["--context-items", "--client-logging"])
        .record(rev, "log_messages_are_rate_limited_per_connection")
        .spawn();
    server.handshake(rev);
    let started = Instant::now();
    let (notes, sent) = log(&mut server, rev, "error", 300, json!({}));
    let took = started.elapsed().as_secs_f64();
    let sent: usize = sent.trim_end_matches(" sent").parse().unwrap();
    // A burst of 100, then 100 a second: at most what the measured time lets through.
    let most = 100 + (took * 100.0).ceil() as usize;
    assert!((100..=most).contains(&sent), "a burst of 100 and 100 per second after it ({took:.3} s): {sent}");
    assert_eq!(notes.len(), sent);
    // A message goes again once the bucket has a token: asked until one does, every refused
    // one counted with the others dropped.
    let mut refused = 0;
    let notes = loop {
        let (notes, _) = log(&mut server, rev, "error", 1, json!({}));
        if !notes.is_empty() {
            break notes;
        }
        refused += 1;
        assert!(refused < 200, "no log message went out again");
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(notes.len(), 2, "the dropped count, then the message: {notes:?}");
    let note = notes[0]["params"]["data"].as_str().unwrap_or_default().to_owned();
    assert!(note.contains(&format!("{} log messages were dropped", 300 - sent + refused)), "{note}");
    end(&mut server);
}

// ---------------------------------------------------------------------------------------------
// Cancellation and time limits
// ---------------------------------------------------------------------------------------------

#[test]
fn a_cancellation_reaches_work_handed_to_another_thread() {
    for_each_revision(&ALL_REVISIONS, |rev| {
        let mut server = connect(rev, "a_cancellation_reaches_work_handed_to_another_thread", &[]);
        let id = send(&mut server, rev, "tools/call", json!({"name": "wait_for_cancel", "arguments": {}}), json!({}));
        // Cancelled once the tool says it waits (not after a pause that a loaded machine outlasts).
        let deadline = Instant::now() + Duration::from_secs(5);
        while !server.stderr().contains("wait_for_cancel: waiting") {
            assert!(Instant::now() < deadline, "the tool never started: {}", server.stderr());
            std::thread::sleep(Duration::from_millis(5));
        }
        server.notify("notifications/cancelled", Some(json!({"requestId": id})));
        let deadline = Instant::now() + Duration::from_secs(3);
        loop {
            let (_, response) = call(&mut server, rev, "cancel_seen", json!({}), json!({}));
            if only_text(result(&response)) == "true" {
                break;
            }
            assert!(Instant::now() < deadline, "the blocking work never saw the cancellation");
            std::thread::sleep(Duration::from_millis(20));
        }
        end(&mut server);
    });
}

#[test]
fn time_limits_end_tools_resources_and_prompts() {
    for_each_revision(&ALL_REVISIONS, |rev| {
        let mut server = connect(rev, "time_limits_end_tools_resources_and_prompts", &[]);
        let started = Instant::now();
        let (_, response) = call(&mut server, rev, "too_slow", json!({}), json!({}));
        assert_eq!(result(&response)["isError"], true);
        assert_eq!(only_text(result(&response)), "Tool `too_slow` did not finish within 200 ms");
        send(&mut server, rev, "resources/read", json!({"uri": "test://too-slow"}), json!({}));
        let answer = server.recv();
        assert_eq!(error_code(&answer), -32603, "{answer}");
        assert!(answer["error"]["message"].as_str().unwrap().contains("200 ms"), "{answer}");
        send(&mut server, rev, "prompts/get", json!({"name": "too_slow"}), json!({}));
        let answer = server.recv();
        assert_eq!(error_code(&answer), -32603, "{answer}");
        assert_eq!(answer["error"]["message"], "Prompt `too_slow` did not finish within 200 ms");
        assert!(started.elapsed() < Duration::from_secs(3), "each ended at its limit: {:?}", started.elapsed());
        end(&mut server);
    });
}

#[test]
fn the_server_wide_time_limit_applies_to_handlers_without_one() {
    for_each_revision(&ALL_REVISIONS, |rev| {
        let test = "the_server_wide_time_limit_applies_to_handlers_without_one";
        let mut server = connect(rev, test, &["--default-timeout-ms", "300"]);
        let (_, response) = call(&mut server, rev, "sleep", json!({"ms": 5000}), json!({}));
        assert_eq!(only_text(result(&response)), "Tool `sleep` did not finish within 300 ms");
        let (_, response) = call(&mut server, rev, "sleep", json!({"ms": 10}), json!({}));
        assert_eq!(only_text(result(&response)), "slept 10 ms");
        let (_, response) = call(&mut server, rev, "too_slow", json!({}), json!({}));
        assert_eq!(only_text(result(&response)), "Tool `too_slow` did not finish within 200 ms", "its own limit wins");
        end(&mut server);
    });
}

// ---------------------------------------------------------------------------------------------
// Logging to standard error
// ---------------------------------------------------------------------------------------------

/// `run()` (which GiftGen uses) logs to standard error as `RUST_LOG` says, and only warnings
/// and errors without it; standard output carries protocol messages only either way.
#[test]
fn run_logs_to_standard_error_as_rust_log_says() {
    let gift_genius = mcp_tests::example_binary("gift_genius");
    for (rust_log, expect_info) in [(Some("mcp_runtime=debug"), true), (None, false), (Some("=nonsense="), false)] {
        let mut server = StdioServer::builder(&gift_genius).env("RUST_LOG", rust_log).capture_stderr().spawn();
        server.handshake("2025-11-25");
        server.finish();
        let stderr = server.stderr();
        // The `info` line of a client starting a session shows at `debug`, not at the default.
        let has_info = stderr.contains(" INFO ") && stderr.contains("a client started a session");
        assert_eq!(has_info, expect_info, "RUST_LOG={rust_log:?}: {stderr}");
        if rust_log == Some("=nonsense=") {
            assert!(stderr.contains("RUST_LOG could not be read"), "{stderr}");
        } else if rust_log.is_none() {
            assert!(stderr.is_empty(), "nothing to say without RUST_LOG: {stderr}");
        }
    }
}

#[test]
fn nothing_is_sent_for_a_request_after_its_response() {
    for_each_revision(&ALL_REVISIONS, |rev| {
        let test = "nothing_is_sent_for_a_request_after_its_response";
        let mut server = manual(&["--context-items", "--client-logging"]).record(rev, test).capture_stderr().spawn();
        if rev != STATELESS_REVISION {
            server.handshake(rev);
        }
        let meta = json!({"progressToken": "late", "io.modelcontextprotocol/logLevel": "debug"});
        let (notes, response) = call(&mut server, rev, "late_progress", json!({}), meta);
        assert_eq!((notes.len(), only_text(result(&response))), (0, "answered"));
        server.assert_silent(Duration::from_millis(400));
        end(&mut server);
        assert!(server.stderr().contains("sent after the response: false"), "{}", server.stderr());
    });
}

/// The drain deadline of a shutdown cancels what still runs, work handed to another thread
/// included: the process (whose runtime waits for that thread) exits.
#[test]
fn the_drain_deadline_cancels_the_context_of_what_still_runs() {
    for rev in ["2025-06-18", STATELESS_REVISION] {
        let test = "the_drain_deadline_cancels_the_context_of_what_still_runs";
        let mut server =
            manual(&["--context-items", "--drain-timeout-ms", "200"]).record(rev, test).capture_stderr().spawn();
        if rev != STATELESS_REVISION {
            server.handshake(rev);
        }
        send(&mut server, rev, "tools/call", json!({"name": "wait_for_cancel", "arguments": {}}), json!({}));
        call(&mut server, rev, "cancel_seen", json!({}), json!({}));
        server.signal("TERM");
        assert!(server.wait().success());
        assert!(server.stderr().contains("wait_for_cancel: cancellation seen"), "{}", server.stderr());
    }
}

/// Over HTTP, with `RUST_LOG=info`, the line of a client starting a session names the session
/// id the client got, its `clientInfo`, the revision asked for and served, and the transport.
#[test]
fn the_session_start_line_names_the_session_and_the_client() {
    let server = mcp_tests::http::HttpServer::start_with_env(
        &mcp_tests::example_binary("gift_genius"),
        &[],
        &[("RUST_LOG", "info")],
    );
    let opened = mcp_tests::http::post(&server.url, &mcp_tests::http::initialize("2025-06-18", json!({})), &[]);
    let session = opened.session.clone().expect("a session id");
    // The line is written as the answer goes out: read the log until it is there (five
    // seconds at most).
    let deadline = Instant::now() + Duration::from_secs(5);
    let line = loop {
        let log = server.log();
        if let Some(line) = log.lines().find(|l| l.contains("a client started a session")) {
            break line.to_owned();
        }
        assert!(Instant::now() < deadline, "no session-start line: {log}");
        std::thread::sleep(Duration::from_millis(10));
    };
    for part in [
        format!("session=\"{session}\""),
        "client=\"http-tests\"".to_owned(),
        "client_version=\"0\"".to_owned(),
        "requested=2025-06-18".to_owned(),
        "served=2025-06-18".to_owned(),
        "transport=\"http\"".to_owned(),
    ] {
        assert!(line.contains(&part), "{part} is not in {line}");
    }
}
