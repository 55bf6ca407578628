//! Serving an example over Streamable HTTP in a test: start it on a free loopback port, wait
//! until it accepts connections, and talk to `/mcp` with a small blocking client that reads
//! JSON and SSE answers alike.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::services::{KillOnDrop, StderrLog};

/// An example serving HTTP, killed when dropped; its standard error is read as it comes, and
/// shown when the test fails.
#[derive(Debug)]
pub struct HttpServer {
    process: KillOnDrop,
    log: StderrLog,
    /// `http://127.0.0.1:<port>/mcp`.
    pub url: String,
    /// `127.0.0.1:<port>`.
    pub addr: String,
}

impl HttpServer {
    /// Starts `program --http 127.0.0.1:<free port> args...` and waits (up to 10 s) until it
    /// accepts connections.
    pub fn start(program: &Path, args: &[&str]) -> Self {
        HttpServer::start_with_env(program, args, &[])
    }

    /// [`start`](Self::start) with environment variables set for the process.
    pub fn start_with_env(program: &Path, args: &[&str], env: &[(&str, &str)]) -> Self {
        let port = crate::services::free_port();
        let addr = format!("127.0.0.1:{port}");
        let mut child = Command::new(program)
            .envs(env.iter().copied())
            .args(args)
            .args(["--http", &addr])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", program.display()));
        let log = StderrLog::drain(&mut child);
        let what = program.display().to_string();
        let mut server = HttpServer { process: KillOnDrop(child), log, url: format!("http://{addr}/mcp"), addr };
        crate::services::wait_for_port(&mut server.process.0, port, &what, Duration::from_secs(10));
        server
    }

    /// What the server wrote to its standard error so far (its last 64 KiB).
    pub fn log(&self) -> String {
        self.log.text()
    }

    /// The process id.
    pub fn pid(&self) -> u32 {
        self.process.0.id()
    }

    /// Waits up to `limit` for the process to exit; its exit status.
    pub fn wait(&mut self, limit: Duration) -> std::process::ExitStatus {
        let deadline = Instant::now() + limit;
        loop {
            if let Some(status) = self.process.0.try_wait().expect("waitable") {
                return status;
            }
            assert!(Instant::now() < deadline, "still running after {limit:?}; its log:\n{}", self.log());
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        if std::thread::panicking() {
            eprintln!("--- the server's standard error ---\n{}", self.log());
        }
    }
}

/// One HTTP exchange's answer: status, headers, and the JSON-RPC messages of its body (one
/// for `application/json`, each event's data for `text/event-stream`, none for an empty body).
#[derive(Debug)]
pub struct Answer {
    /// The status code.
    pub status: u16,
    /// The `Content-Type`.
    pub content_type: String,
    /// The `Mcp-Session-Id`, if any.
    pub session: Option<String>,
    /// The messages.
    pub messages: Vec<Value>,
    /// Each SSE event's `id`, in order (the priming event's included).
    pub event_ids: Vec<String>,
    /// Whether an SSE stream opened with a priming event (an id, empty data, `retry`).
    pub primed: bool,
    /// The `Retry-After`, if any.
    pub retry_after: Option<String>,
}

impl Answer {
    /// The last message (the response, for a request).
    pub fn last(&self) -> &Value {
        self.messages.last().unwrap_or_else(|| panic!("no message in {self:?}"))
    }
}

/// POSTs `body` to `url` with the usual headers and `extra` ones (and, for a 2026-07-28
/// request, the `Mcp-Method` and `Mcp-Name` headers it requires, unless `extra` names them).
pub fn post(url: &str, body: &Value, extra: &[(&str, &str)]) -> Answer {
    send(url, "POST", Some(body), extra)
}

/// The headers a 2026-07-28 request must carry, for `body`: `Mcp-Method`, and `Mcp-Name` for
/// the methods that name something. Nothing for other messages.
pub fn stateless_headers(body: &Value) -> Vec<(String, String)> {
    let stateless = body["params"]["_meta"].get("io.modelcontextprotocol/protocolVersion").is_some();
    let Some(method) = body["method"].as_str().filter(|_| stateless) else { return Vec::new() };
    let mut headers = vec![("mcp-method".to_owned(), method.to_owned())];
    let named = match method {
        "tools/call" | "prompts/get" => body["params"]["name"].as_str(),
        "resources/read" => body["params"]["uri"].as_str(),
        "tasks/get" | "tasks/update" | "tasks/cancel" => body["params"]["taskId"].as_str(),
        _ => None,
    };
    if let Some(name) = named {
        headers.push(("mcp-name".to_owned(), name.to_owned()));
    }
    headers
}

/// Sends `method` (GET, DELETE, POST) to `url`.
pub fn send(url: &str, method: &str, body: Option<&Value>, extra: &[(&str, &str)]) -> Answer {
    let mut headers: Vec<(String, String)> = vec![
        ("accept".into(), "application/json, text/event-stream".into()),
        ("content-type".into(), "application/json".into()),
    ];
    headers.extend(extra.iter().map(|(name, value)| ((*name).to_owned(), (*value).to_owned())));
    if let Some(body) = body {
        for (name, value) in stateless_headers(body) {
            if !extra.iter().any(|(given, _)| given.eq_ignore_ascii_case(&name)) {
                headers.push((name, value));
            }
        }
    }
    send_text(url, method, body.map(Value::to_string), &headers)
}

/// Sends `method` to `url` with exactly `headers` (no others but what the client adds:
/// `Host`, `Content-Length`, and `Accept: */*` when no `Accept` is given) and `body` as is.
pub fn send_text(url: &str, method: &str, body: Option<String>, headers: &[(String, String)]) -> Answer {
    let client = reqwest::blocking::Client::builder().timeout(Duration::from_secs(30)).build().expect("a client");
    let mut request = client.request(method.parse().expect("a method"), url);
    for (name, value) in headers {
        request = request.header(name.as_str(), value.as_str());
    }
    if let Some(body) = body {
        request = request.body(body);
    }
    let response = request.send().unwrap_or_else(|e| panic!("{method} {url}: {e}"));
    let status = response.status().as_u16();
    let header = |name: &str| response.headers().get(name).and_then(|v| v.to_str().ok()).map(str::to_owned);
    let content_type = header("content-type").unwrap_or_default();
    let session = header("mcp-session-id");
    let retry_after = header("retry-after");
    let text = response.text().expect("a body");
    let mut primed = false;
    let (messages, event_ids) = if content_type.starts_with("text/event-stream") {
        let mut messages = Vec::new();
        let mut ids = Vec::new();
        for (n, event) in text.split("\n\n").filter(|e| !e.trim().is_empty()).enumerate() {
            for line in event.lines() {
                if let Some(id) = line.strip_prefix("id: ") {
                    ids.push(id.to_owned());
                } else if let Some(data) = line.strip_prefix("data: ").or(line.strip_prefix("data:")) {
                    if data.trim().is_empty() {
                        primed |= n == 0 && event.contains("retry: ");
                    } else {
                        messages.push(serde_json::from_str(data).unwrap_or_else(|e| panic!("{e}: {data}")));
                    }
                }
            }
        }
        (messages, ids)
    } else if text.is_empty() {
        (Vec::new(), Vec::new())
    } else {
        (vec![serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"))], Vec::new())
    };
    Answer { status, content_type, session, messages, event_ids, primed, retry_after }
}

/// An `initialize` request for `revision` declaring `capabilities`.
pub fn initialize(revision: &str, capabilities: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": revision, "capabilities": capabilities,
        "clientInfo": {"name": "http-tests", "version": "0"}}})
}

/// What a raw exchange got back: the status, the headers (names lowercase) and the body.
#[derive(Debug)]
pub struct RawAnswer {
    /// The status code (0 when the connection closed before a status line).
    pub status: u16,
    /// The headers, in order.
    pub headers: Vec<(String, String)>,
    /// The body as far as `Content-Length` says (what came before the connection closed,
    /// without one).
    pub body: String,
    /// Everything received, interim responses (`100 Continue`) included.
    pub raw: String,
}

/// Writes `request` (a whole HTTP/1.1 request, as bytes) to `addr` and reads one final
/// response (skipping interim 1xx ones), waiting up to 10 s: for what a well-behaved client
/// library will not send (a header twice, an absolute-form target, `Expect`).
pub fn raw_exchange(addr: &str, request: &[u8]) -> RawAnswer {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(addr).expect("the server accepts");
    stream.set_read_timeout(Some(Duration::from_secs(10))).expect("a read timeout");
    stream.write_all(request).expect("the server reads");
    let mut received = Vec::new();
    let mut chunk = [0u8; 8192];
    loop {
        if let Some(answer) = parse_final(&received) {
            return answer;
        }
        match stream.read(&mut chunk) {
            Ok(0) | Err(_) => break,
            Ok(n) => received.extend_from_slice(&chunk[..n]),
        }
    }
    parse_final(&received).unwrap_or_else(|| RawAnswer {
        status: 0,
        headers: Vec::new(),
        body: String::new(),
        raw: String::from_utf8_lossy(&received).into_owned(),
    })
}

/// The final response in `received`, once its head and `Content-Length` bytes of body are in.
fn parse_final(received: &[u8]) -> Option<RawAnswer> {
    let text = String::from_utf8_lossy(received);
    let mut rest = text.as_ref();
    loop {
        let (head, after) = rest.split_once("\r\n\r\n")?;
        let mut lines = head.lines();
        let status: u16 = lines.next()?.split_whitespace().nth(1)?.parse().ok()?;
        if (100..200).contains(&status) {
            rest = after;
            continue;
        }
        let headers: Vec<(String, String)> = lines
            .filter_map(|line| line.split_once(':'))
            .map(|(name, value)| (name.trim().to_ascii_lowercase(), value.trim().to_owned()))
            .collect();
        let length = headers.iter().find(|(name, _)| name == "content-length").and_then(|(_, v)| v.parse().ok());
        let body = match length {
            Some(length) if after.len() >= length => after[..length].to_owned(),
            Some(_) => return None,
            None => after.to_owned(),
        };
        return Some(RawAnswer { status, headers, body, raw: text.clone().into_owned() });
    }
}

/// The messages of an SSE `response` as they arrive: each event's data as JSON, priming
/// events (no data) left out.
///
/// # Panics
///
/// On the reading thread, when an event's data is not JSON.
pub fn sse_messages(response: reqwest::blocking::Response) -> std::sync::mpsc::Receiver<Value> {
    let (tx, rx) = std::sync::mpsc::channel();
    let events = sse_events(response);
    std::thread::spawn(move || {
        for (_, data) in events.iter().filter(|(_, data)| !data.is_empty()) {
            if tx.send(serde_json::from_str(&data).expect("JSON data")).is_err() {
                return;
            }
        }
    });
    rx
}

/// The events of an SSE `response`, read by a thread of its own as they arrive: each event's
/// id (empty when it has none) and its data, trimmed (empty for a priming event).
pub fn sse_events(response: reqwest::blocking::Response) -> std::sync::mpsc::Receiver<(String, String)> {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        use std::io::BufRead;
        let mut id = String::new();
        for line in std::io::BufReader::new(response).lines() {
            let Ok(line) = line else { return };
            if let Some(value) = line.strip_prefix("id: ") {
                id = value.to_owned();
            } else if let Some(data) = line.strip_prefix("data:")
                && tx.send((std::mem::take(&mut id), data.trim().to_owned())).is_err()
            {
                return;
            }
        }
    });
    rx
}
