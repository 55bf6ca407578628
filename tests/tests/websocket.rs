//! `examples/websocket`: a transport of the user's own on the runtime's boundary
//! (`Server::serve_channel`), driven by a WebSocket client: the handshake, a call, progress
//! before a response, a 2026-07-28 request, and two connections served at once.

use std::net::TcpStream;
use std::process::{Command, Stdio};
use std::time::Duration;

use mcp_tests::services::{KillOnDrop, free_port, wait_for_port};
use serde_json::{Value, json};
use tungstenite::{Message, WebSocket, stream::MaybeTlsStream};

/// Starts the example on a free port; the process and its address.
fn start() -> (KillOnDrop, String) {
    let (child, addr) = start_with(None, Stdio::null());
    (KillOnDrop(child), addr)
}

/// Starts the example on a free port with `RUST_LOG` set to `log` (when given) and its standard
/// error going to `stderr`; the process and its address.
fn start_with(log: Option<&str>, stderr: Stdio) -> (std::process::Child, String) {
    let port = free_port();
    let addr = format!("127.0.0.1:{port}");
    let mut command = Command::new(mcp_tests::example_binary("websocket"));
    if let Some(log) = log {
        command.env("RUST_LOG", log);
    }
    let mut child = command
        .arg(&addr)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(stderr)
        .spawn()
        .expect("the example starts");
    wait_for_port(&mut child, port, "the example", Duration::from_secs(10));
    (child, addr)
}

type Socket = WebSocket<MaybeTlsStream<TcpStream>>;

fn send(socket: &mut Socket, message: Value) {
    socket.send(Message::text(message.to_string())).expect("sent");
}

fn receive(socket: &mut Socket) -> Value {
    loop {
        match socket.read().expect("a frame") {
            Message::Text(text) => return serde_json::from_str(text.as_str()).expect("JSON"),
            Message::Ping(_) | Message::Pong(_) => {}
            other => panic!("unexpected frame {other:?}"),
        }
    }
}

fn connect(addr: &str) -> Socket {
    tungstenite::connect(format!("ws://{addr}")).expect("connected").0
}

#[test]
fn a_websocket_connection_is_a_session() {
    let (_example, addr) = start();
    let mut first = connect(&addr);
    let mut second = connect(&addr);
    send(
        &mut first,
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "ws", "version": "0"}}}),
    );
    let initialized = receive(&mut first);
    assert_eq!(initialized["result"]["serverInfo"]["name"], "websocket-demo", "{initialized}");
    send(&mut first, json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    send(
        &mut first,
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "add", "arguments": {"a": 2, "b": 40}}}),
    );
    assert_eq!(receive(&mut first)["result"]["content"][0]["text"], "42");
    let greet = json!({"name": "greet", "arguments": {"name": "Ada"}, "_meta": {"progressToken": "g"}});
    send(&mut first, json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": greet}));
    let progress: Vec<Value> = (0..3).map(|_| receive(&mut first)).collect();
    assert!(progress.iter().all(|p| p["method"] == "notifications/progress"), "{progress:?}");
    assert_eq!(receive(&mut first)["result"]["content"][0]["text"], "Hello, Ada!");
    // The other connection is a session of its own, here speaking 2026-07-28.
    send(
        &mut second,
        json!({"jsonrpc": "2.0", "id": 9, "method": "tools/list", "params": {"_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}}}),
    );
    let listed = receive(&mut second);
    assert_eq!(listed["result"]["resultType"], "complete", "{listed}");
    assert_eq!(listed["result"]["tools"].as_array().map(Vec::len), Some(2));
    send(&mut second, json!({"jsonrpc": "2.0", "id": 10, "method": "tools/list"}));
    assert_eq!(receive(&mut second)["error"]["code"], -32602, "no handshake on this connection");
    first.close(None).expect("closed");
}

/// The example honours `RUST_LOG`: at `info` it says that a client started a session (the
/// line is written before the answer goes out), at `warn` it does not.
#[test]
fn the_websocket_example_honours_rust_log() {
    for (log, said) in [("info", true), ("warn", false)] {
        let (mut child, addr) = start_with(Some(log), Stdio::piped());
        let mut socket = connect(&addr);
        send(
            &mut socket,
            json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "ws", "version": "0"}}}),
        );
        assert_eq!(receive(&mut socket)["id"], 0);
        let _ = child.kill();
        let out = child.wait_with_output().expect("the example ends");
        let logs = String::from_utf8_lossy(&out.stderr);
        assert_eq!(logs.contains("a client started a session (2025-11-25)"), said, "at {log}:\n{logs}");
    }
}
