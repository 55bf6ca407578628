//! Nothing a client sends is kept for it beyond what the protocol needs: garbage POSTed to
//! sessions leaves nothing in the event store, a session's events go when it ends, and a second
//! identical round leaves the server's memory where the first left it. The store is read
//! through the example's `event_store_stats` tool (its own accounting), the memory from
//! `/proc`.

use std::time::{Duration, Instant};

use mcp_tests::example_binary;
use mcp_tests::http::{HttpServer, post, send};
use mcp_tests::wire::{CLIENT_CAPABILITIES_KEY, PROTOCOL_VERSION_KEY, STATELESS_REVISION};
use serde_json::{Value, json};

const SESSIONS: usize = 50;
const GARBAGE: usize = 20_000;

/// What the server's event store keeps: (events, bytes).
fn kept(server: &HttpServer) -> (u64, u64) {
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "event_store_stats", "arguments": {},
        "_meta": {PROTOCOL_VERSION_KEY: STATELESS_REVISION, CLIENT_CAPABILITIES_KEY: {}}}});
    let answer = post(&server.url, &call, &[]);
    let text = answer.last()["result"]["content"][0]["text"].as_str().unwrap_or_else(|| panic!("{answer:?}"));
    let stats: Value = serde_json::from_str(text).expect("JSON");
    (stats["events"].as_u64().unwrap(), stats["bytes"].as_u64().unwrap())
}

/// Resident memory of process `pid`, in kilobytes.
fn rss_kb(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("/proc/<pid>/status");
    let line = status.lines().find(|l| l.starts_with("VmRSS:")).expect("VmRSS");
    line.split_whitespace().nth(1).and_then(|kb| kb.parse().ok()).expect("a number")
}

/// Opens `SESSIONS` sessions (each `initialize` answered as an SSE stream, so kept), POSTs
/// `GARBAGE` bodies that are not messages spread over them (each must be 400 on its POST),
/// then ends them and waits for the store to forget them.
fn round(server: &HttpServer, client: &reqwest::blocking::Client) {
    let init = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"garbage","version":"0"}}}"#;
    let sessions: Vec<String> = (0..SESSIONS)
        .map(|_| {
            let answer = client.post(&server.url).header("content-type", "application/json").body(init).send().unwrap();
            assert_eq!(answer.status(), 200);
            let session = answer.headers()["mcp-session-id"].to_str().unwrap().to_owned();
            answer.text().unwrap();
            session
        })
        .collect();
    let (events, bytes) = kept(server);
    assert!(events >= SESSIONS as u64, "the initialize streams are kept: {events}");
    let bodies = ["{not json", r#"{"jsonrpc":"2.0","id":5}"#, "[]", r#""x""#, r#"{"jsonrpc":"1.0","method":"a"}"#];
    for n in 0..GARBAGE {
        let answer = client
            .post(&server.url)
            .header("content-type", "application/json")
            .header("mcp-session-id", &sessions[n % SESSIONS])
            .header("mcp-protocol-version", "2025-06-18")
            .body(bodies[n % bodies.len()])
            .send()
            .unwrap();
        assert_eq!(answer.status(), 400, "garbage {n}");
        answer.bytes().unwrap();
    }
    assert_eq!(kept(server), (events, bytes), "nothing kept for garbage");
    for session in &sessions {
        let ended = send(&server.url, "DELETE", None, &[("mcp-session-id", session)]);
        assert_eq!(ended.status, 204);
    }
    // The store forgets in a task of its own, just after each DELETE.
    let deadline = Instant::now() + Duration::from_secs(2);
    while kept(server) != (0, 0) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(kept(server), (0, 0), "ended sessions leave nothing in the store");
}

#[test]
fn garbage_leaves_nothing_behind() {
    let args = ["--test-tools", "--sse-responses", "--event-store-stats"];
    let server = HttpServer::start(&example_binary("manual"), &args);
    let client = reqwest::blocking::Client::builder()
        .timeout(Duration::from_secs(30))
        .default_headers(
            [(reqwest::header::ACCEPT, "application/json, text/event-stream".parse().unwrap())].into_iter().collect(),
        )
        .build()
        .unwrap();
    round(&server, &client);
    let first = rss_kb(server.pid());
    round(&server, &client);
    let second = rss_kb(server.pid());
    assert!(second < first + 1024, "a second round grew the server from {first} KB to {second} KB");
}
