//! The two ways a server reads standard input and writes standard output: polled non-blocking
//! pipes when both are pipes (served on the runtime's threads), or a reader and a writer thread
//! otherwise (here, a socket pair, which is what Node.js gives a child's stdio). Both serve the
//! same conversation; the threads each way uses tell them apart.

use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use mcp_tests::example_binary;
use mcp_tests::wire::StdioServer;
use serde_json::{Value, json};

/// The names of the threads of process `pid`.
fn thread_names(pid: u32) -> Vec<String> {
    let tasks = std::fs::read_dir(format!("/proc/{pid}/task")).expect("procfs");
    tasks
        .filter_map(Result::ok)
        .filter_map(|task| std::fs::read_to_string(task.path().join("comm")).ok())
        .map(|name| name.trim().to_owned())
        .collect()
}

/// Waits until the process has started its threads, then names them.
fn settled_thread_names(pid: u32, wanted: impl Fn(&[String]) -> bool) -> Vec<String> {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let names = thread_names(pid);
        if wanted(&names) || Instant::now() > deadline {
            return names;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn pipes_are_polled_without_reader_or_writer_threads() {
    let mut server = StdioServer::builder(example_binary("gift_genius")).spawn();
    server.handshake("2025-11-25");
    let result = server.request(
        "tools/call",
        Some(json!({"name": "suggest_gifts", "arguments": {"age": 30, "relationship": "friend"}})),
    );
    assert!(result["result"]["content"].is_array(), "{result}");
    let names = thread_names(server.pid());
    assert!(!names.iter().any(|n| n == "mcp-stdin" || n == "mcp-stdout"), "{names:?}");
    server.finish();
}

#[test]
fn a_socket_pair_is_served_by_a_reader_and_a_writer_thread() {
    let (ours, theirs) = UnixStream::pair().expect("a socket pair");
    let child_in = theirs.try_clone().expect("a second handle");
    let mut child: Child = Command::new(example_binary("gift_genius"))
        .stdin(Stdio::from(std::os::fd::OwnedFd::from(child_in)))
        .stdout(Stdio::from(std::os::fd::OwnedFd::from(theirs)))
        .stderr(Stdio::null())
        .spawn()
        .expect("GiftGen starts");
    let mut reader = BufReader::new(ours.try_clone().expect("a reading handle"));
    let mut writer = ours;
    let mut ask = |message: Value| -> Value {
        writeln!(writer, "{message}").expect("the server reads");
        let mut line = String::new();
        reader.read_line(&mut line).expect("the server answers");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"))
    };
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "test", "version": "0"}}});
    assert_eq!(ask(init)["result"]["serverInfo"]["name"], "gift-genius");
    let list = ask(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}));
    assert_eq!(list["result"]["tools"][0]["name"], "suggest_gifts", "{list}");
    let names = settled_thread_names(child.id(), |names| names.iter().any(|n| n == "mcp-stdin"));
    assert!(names.iter().any(|n| n == "mcp-stdin") && names.iter().any(|n| n == "mcp-stdout"), "{names:?}");
    let _ = child.kill();
    let _ = child.wait();
}
