//! What the feature modules share: requests of any revision on a `manual --test-tools`
//! connection, and the bare `manual` process for the tests that read its pipes themselves.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use mcp_tests::wire::{STATELESS_REVISION, StdioServer, manual, stateless_params};
use serde_json::{Value, json};

/// `manual --test-tools <args>`, recording under `revision` as `test`, ready for requests of
/// `revision` (the handshake done when it has one).
pub(crate) fn connect(revision: &str, test: &str, args: &[&str]) -> StdioServer {
    let mut server = manual(args).record(revision, test).spawn();
    if revision != STATELESS_REVISION {
        server.handshake(revision);
    }
    server
}

/// Sends a request of `revision` (with the 2026-07-28 `_meta` when stateless); its id.
pub(crate) fn send(server: &mut StdioServer, revision: &str, method: &str, params: Value) -> i64 {
    let params = if revision == STATELESS_REVISION { stateless_params(Some(params), json!({})) } else { params };
    server.send_request(method, Some(params))
}

/// A tool call of `revision`; its id.
pub(crate) fn send_call(server: &mut StdioServer, revision: &str, tool: &str, arguments: Value) -> i64 {
    send(server, revision, "tools/call", json!({"name": tool, "arguments": arguments}))
}

/// A request answered on the reading loop with no slot: `ping` where it exists, else
/// `tools/list`.
pub(crate) fn send_quick(server: &mut StdioServer, revision: &str) -> i64 {
    if revision == STATELESS_REVISION {
        send(server, revision, "tools/list", json!({}))
    } else {
        server.send_request("ping", None)
    }
}

/// The ids of the next `count` responses, in arrival order.
pub(crate) fn ids(server: &mut StdioServer, count: usize) -> Vec<i64> {
    (0..count).map(|_| server.recv()["id"].as_i64().expect("an integer id")).collect()
}

/// The `manual` binary with piped standard streams, the handshake done (2025-06-18).
pub(crate) fn raw_manual(args: &[&str]) -> std::process::Child {
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
pub(crate) fn exit_within(child: &mut std::process::Child, limit: Duration) -> (std::process::ExitStatus, String) {
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

/// Waits (at most five seconds) until the server's captured standard error says `text`: what
/// a test waits for instead of sleeping.
pub(crate) fn wait_for_log(server: &StdioServer, text: &str) {
    let deadline = Instant::now() + Duration::from_secs(5);
    while !server.stderr().contains(text) {
        assert!(Instant::now() < deadline, "the server never logged {text:?}: {}", server.stderr());
        std::thread::sleep(Duration::from_millis(5));
    }
}
