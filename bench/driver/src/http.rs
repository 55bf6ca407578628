//! Streamable HTTP rows: a minimal HTTP/1.1 keep-alive client (a JSON response, or an SSE
//! stream that ends with it, as rmcp sends by default), concurrent clients in each era, and
//! the memory of idle handshake-era sessions.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::process::REVISION;

/// The revision without a handshake.
const STATELESS: &str = "2026-07-28";

/// The `_meta` each 2026-07-28 call carries (the revision, capabilities, client info).
const STATELESS_META: &str = r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"bench","version":"0"}}"#;

/// A server serving `--http` on a free loopback port, killed when dropped.
pub struct HttpServer {
    child: Child,
    pub addr: String,
}

impl HttpServer {
    pub fn start(program: &Path) -> HttpServer {
        HttpServer::start_on(program, None)
    }

    /// The same, its Tokio runtime on `workers` worker threads (`TOKIO_WORKER_THREADS`) when
    /// given, else on one per CPU.
    pub fn start_on(program: &Path, workers: Option<usize>) -> HttpServer {
        HttpServer::start_with(program, workers, &[])
    }

    /// The same, with `args` after `--http ADDR`.
    pub fn start_with(program: &Path, workers: Option<usize>, args: &[&str]) -> HttpServer {
        let port = std::net::TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).expect("a free port").port();
        let addr = format!("127.0.0.1:{port}");
        let mut command = Command::new(program);
        if let Some(workers) = workers {
            command.env("TOKIO_WORKER_THREADS", workers.to_string());
        }
        let child = command
            .args(["--http", &addr])
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", program.display()));
        let deadline = Instant::now() + Duration::from_secs(10);
        while TcpStream::connect(&addr).is_err() {
            assert!(Instant::now() < deadline, "{} did not listen", program.display());
            std::thread::sleep(Duration::from_millis(10));
        }
        HttpServer { child, addr }
    }

    /// The CPU time the server has run so far, in nanoseconds.
    pub fn cpu_ns(&self) -> u64 {
        crate::process::cpu_ns_of(self.child.id())
    }

    /// Resident memory now, in kilobytes (`VmRSS`).
    pub fn rss_kb(&self) -> u64 {
        crate::process::status_kb(self.child.id(), "VmRSS")
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One keep-alive connection to `/mcp`.
struct Connection {
    writer: TcpStream,
    reader: BufReader<TcpStream>,
    host: String,
}

/// A response: its status, its `Mcp-Session-Id`, its body.
struct Response {
    status: u16,
    session: Option<String>,
    body: Vec<u8>,
}

impl Response {
    /// The JSON-RPC response in the body: the body itself, or the SSE event that carries it.
    fn message(&self) -> Value {
        let text = String::from_utf8_lossy(&self.body);
        if text.trim_start().starts_with('{') {
            return serde_json::from_str(&text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"));
        }
        text.lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .filter_map(|data| serde_json::from_str::<Value>(data.trim()).ok())
            .find(|message| message.get("id").is_some())
            .unwrap_or_else(|| panic!("no response in the stream: {text}"))
    }
}

impl Connection {
    fn open(addr: &str) -> Connection {
        let stream = TcpStream::connect(addr).expect("the server accepts");
        stream.set_nodelay(true).expect("TCP_NODELAY");
        let reader = BufReader::new(stream.try_clone().expect("a reading handle"));
        Connection { writer: stream, reader, host: addr.to_owned() }
    }

    /// POSTs `body` to `/mcp` with `headers` and reads the response.
    fn post(&mut self, body: &str, headers: &[(&str, &str)]) -> Response {
        self.send("POST", body, headers)
    }

    /// Ends `session` (`DELETE /mcp`); a server may refuse (405), which leaves it open.
    fn delete(&mut self, session: &str) {
        self.send("DELETE", "", &[("Mcp-Session-Id", session), ("MCP-Protocol-Version", REVISION)]);
    }

    fn send(&mut self, method: &str, body: &str, headers: &[(&str, &str)]) -> Response {
        let mut request = format!(
            "{method} /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\nContent-Length: {}\r\n",
            self.host,
            body.len()
        );
        for (name, value) in headers {
            request.push_str(&format!("{name}: {value}\r\n"));
        }
        request.push_str("\r\n");
        request.push_str(body);
        self.writer.write_all(request.as_bytes()).expect("the server reads");
        self.read_response()
    }

    fn read_response(&mut self) -> Response {
        let mut line = String::new();
        self.reader.read_line(&mut line).expect("a status line");
        let status = line.split_whitespace().nth(1).and_then(|s| s.parse().ok()).unwrap_or_else(|| panic!("{line}"));
        let (mut length, mut chunked, mut session) = (0, false, None);
        loop {
            line.clear();
            self.reader.read_line(&mut line).expect("a header");
            let header = line.trim_end();
            if header.is_empty() {
                break;
            }
            let (name, value) = header.split_once(':').unwrap_or((header, ""));
            match name.to_ascii_lowercase().as_str() {
                "content-length" => length = value.trim().parse().expect("a length"),
                "transfer-encoding" => chunked = value.contains("chunked"),
                "mcp-session-id" => session = Some(value.trim().to_owned()),
                _ => {}
            }
        }
        let mut body = Vec::new();
        if chunked {
            loop {
                line.clear();
                self.reader.read_line(&mut line).expect("a chunk size");
                let size = usize::from_str_radix(line.trim(), 16).expect("a hexadecimal chunk size");
                let mut chunk = vec![0; size + 2];
                self.reader.read_exact(&mut chunk).expect("a chunk");
                if size == 0 {
                    break;
                }
                body.extend_from_slice(&chunk[..size]);
            }
        } else {
            body.resize(length, 0);
            self.reader.read_exact(&mut body).expect("a body");
        }
        Response { status, session, body }
    }

    /// `initialize` and `notifications/initialized`: the session's id.
    fn handshake(&mut self) -> String {
        let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": REVISION, "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}}});
        let response = self.post(&init.to_string(), &[]);
        assert_eq!(response.status, 200, "initialize: {}", String::from_utf8_lossy(&response.body));
        assert!(response.message()["result"]["capabilities"]["tools"].is_object(), "initialize answered");
        let session = response.session.expect("a handshake-era session id");
        let initialized = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
        let headers = [("Mcp-Session-Id", session.as_str()), ("MCP-Protocol-Version", REVISION)];
        assert_eq!(self.post(initialized, &headers).status, 202);
        session
    }
}

/// The era of the concurrent clients.
#[derive(Clone, Copy, PartialEq)]
pub enum Era {
    /// A session per client, then calls under its id.
    Handshake,
    /// No session; every call carries its `_meta` and routing headers.
    Stateless,
}

/// `clients` keep-alive clients at once, each making `calls` calls of `sum` one after the
/// other: requests per second in all.
pub fn concurrent(server: &HttpServer, era: Era, clients: usize, calls: u32) -> f64 {
    concurrent_as(server, era, clients, calls, None)
}

/// [`concurrent`], with the server's CPU time per call (µs, the handshakes included).
pub fn concurrent_cpu(server: &HttpServer, era: Era, clients: usize, calls: u32) -> (f64, f64) {
    let before = server.cpu_ns();
    let rate = concurrent(server, era, clients, calls);
    let cpu = server.cpu_ns() - before;
    (rate, cpu as f64 / 1e3 / (clients as f64 * f64::from(calls)))
}

/// [`concurrent`], every request carrying `authorization` (`Bearer …`) when given.
pub fn concurrent_as(server: &HttpServer, era: Era, clients: usize, calls: u32, authorization: Option<&str>) -> f64 {
    let start = Instant::now();
    std::thread::scope(|scope| {
        for client in 0..clients {
            scope.spawn(move || {
                let mut connection = Connection::open(&server.addr);
                let session = (era == Era::Handshake).then(|| connection.handshake());
                for n in 1..=calls {
                    let a = u64::from(n) + client as u64;
                    // Formatted rather than built as a `Value`: the client's own cost is
                    // not what is measured, and it grows with the body (the 2026-07-28 one
                    // is twice the size).
                    let (body, mut headers) = match &session {
                        Some(session) => (
                            format!(
                                r#"{{"jsonrpc":"2.0","id":{n},"method":"tools/call","params":{{"name":"sum","arguments":{{"a":{a},"b":2}}}}}}"#
                            ),
                            vec![("Mcp-Session-Id", session.as_str()), ("MCP-Protocol-Version", REVISION)],
                        ),
                        None => (
                            format!(
                                r#"{{"jsonrpc":"2.0","id":{n},"method":"tools/call","params":{{"name":"sum","arguments":{{"a":{a},"b":2}},"_meta":{STATELESS_META}}}}}"#
                            ),
                            vec![
                                ("MCP-Protocol-Version", STATELESS),
                                ("Mcp-Method", "tools/call"),
                                ("Mcp-Name", "sum"),
                            ],
                        ),
                    };
                    if let Some(authorization) = authorization {
                        headers.push(("Authorization", authorization));
                    }
                    let response = connection.post(&body, &headers);
                    let answer = response.message();
                    assert_eq!(answer["result"]["content"][0]["text"], (a + 2).to_string(), "{answer}");
                }
            });
        }
    });
    (clients as f64 * f64::from(calls)) / start.elapsed().as_secs_f64()
}

/// Kilobytes of resident memory per idle handshake-era session, over `sessions` sessions
/// opened one after the other on one connection (after a few opened and ended to warm up, so
/// that the default limit of 10,000 sessions is left whole for the measure).
pub fn idle_session_kb(server: &HttpServer, sessions: usize) -> f64 {
    let mut connection = Connection::open(&server.addr);
    for _ in 0..50 {
        let session = connection.handshake();
        connection.delete(&session);
    }
    let before = server.rss_kb();
    for _ in 0..sessions {
        connection.handshake();
    }
    (server.rss_kb().saturating_sub(before)) as f64 / sessions as f64
}
