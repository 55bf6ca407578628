//! The doctor's own connection: raw JSON-RPC over a spawned command's stdio or over HTTP,
//! keeping what a client would hide (lines that are not messages, malformed answers,
//! messages that come early, the HTTP status of each exchange), every wait bounded.

use std::collections::VecDeque;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_runtime::client::SseReader;
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin};
use tokio::sync::mpsc;
use tokio::time::timeout;

use crate::connect::Target;

/// The longest line read from a server's stdout; past it the line is noise.
const MAX_LINE: usize = 16 * 1024 * 1024;

/// How many lines of a server's stderr are kept to say why it exited.
const STDERR_TAIL: usize = 20;

/// The answer to one request, and what came with it.
#[derive(Debug)]
pub(crate) struct Answer {
    /// The request's id.
    pub(crate) id: i64,
    /// The response, as sent.
    pub(crate) response: Value,
    /// The messages that arrived before it (notifications, the server's requests).
    pub(crate) before: Vec<Value>,
    /// The HTTP exchange's status and headers (HTTP only).
    pub(crate) http: Option<Exchange>,
}

/// What an HTTP response said besides its messages.
#[derive(Debug, Clone)]
pub(crate) struct Exchange {
    pub(crate) status: u16,
    pub(crate) headers: HeaderMap,
}

impl Exchange {
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }
}

/// Why a request got no answer.
#[derive(Debug)]
pub(crate) enum Silence {
    /// Nothing within the patience given.
    Timeout(Duration),
    /// The connection ended (the process exited, the HTTP request failed), and why.
    Closed(String),
}

impl std::fmt::Display for Silence {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Silence::Timeout(waited) => write!(f, "no answer in {:.1} s", waited.as_secs_f64()),
            Silence::Closed(why) => f.write_str(why),
        }
    }
}

/// One connection to the server under examination.
#[derive(Debug)]
pub(crate) struct Wire {
    link: Link,
    patience: Duration,
    next_id: i64,
    /// Messages read but not yet handed out.
    queue: VecDeque<Value>,
    /// Lines of stdout that were not JSON-RPC messages (stdio).
    pub(crate) noise: Vec<String>,
}

#[derive(Debug)]
enum Link {
    Stdio(Process),
    Http(Http),
}

#[derive(Debug)]
struct Process {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::UnboundedReceiver<Line>,
    stderr: Arc<Mutex<VecDeque<String>>>,
}

#[derive(Debug)]
enum Line {
    Message(Value),
    Noise(String),
}

/// A Streamable HTTP endpoint, and what this connection sends with each request.
#[derive(Debug)]
pub(crate) struct Http {
    pub(crate) client: reqwest::Client,
    pub(crate) url: String,
    /// The user's headers (`--header`, `--bearer`).
    pub(crate) headers: HeaderMap,
    /// The session the server gave (handshake revisions).
    pub(crate) session: Option<String>,
    /// `MCP-Protocol-Version` once a revision was agreed.
    pub(crate) version: Option<String>,
    /// 2026-07-28: `Mcp-Method` and `Mcp-Name` on every request.
    pub(crate) stateless: bool,
}

impl Wire {
    /// Starts the server (stdio) or prepares requests to it (HTTP).
    pub(crate) fn open(target: &Target, headers: &HeaderMap, patience: Duration) -> Result<Wire, String> {
        let link = match target {
            Target::Stdio(command) => Link::Stdio(Process::spawn(command)?),
            Target::Http(url) => Link::Http(Http {
                client: mcp_runtime::client::http_client().map_err(|e| e.to_string())?,
                url: url.clone(),
                headers: headers.clone(),
                session: None,
                version: None,
                stateless: false,
            }),
        };
        Ok(Wire { link, patience, next_id: 0, queue: VecDeque::new(), noise: Vec::new() })
    }

    /// How long each request may wait for its answer from now on.
    pub(crate) fn set_patience(&mut self, patience: Duration) {
        self.patience = patience;
    }

    /// The HTTP side of this connection, if it is one.
    pub(crate) fn http(&mut self) -> Option<&mut Http> {
        match &mut self.link {
            Link::Http(http) => Some(http),
            Link::Stdio(_) => None,
        }
    }

    /// Sends a request and reads until its answer, bounded by the patience.
    pub(crate) async fn request(&mut self, method: &str, params: Value) -> Result<Answer, Silence> {
        self.next_id += 1;
        let id = self.next_id;
        let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        match &mut self.link {
            Link::Http(http) => {
                let (exchange, messages) = http.post(&message, self.patience).await?;
                let mut before = Vec::new();
                for message in messages {
                    if is_response_to(&message, id) {
                        return Ok(Answer { id, response: message, before, http: Some(exchange) });
                    }
                    before.push(message);
                }
                Err(Silence::Closed(format!("HTTP {}: the response carried no answer to the request", exchange.status)))
            }
            Link::Stdio(_) => {
                self.write(&message).await?;
                let mut before = Vec::new();
                let deadline = tokio::time::Instant::now() + self.patience;
                loop {
                    let message = self.next_message(deadline).await?;
                    if is_response_to(&message, id) {
                        return Ok(Answer { id, response: message, before, http: None });
                    }
                    self.refuse_if_request(&message).await;
                    before.push(message);
                }
            }
        }
    }

    /// Sends a notification; over HTTP, returns the response's status.
    pub(crate) async fn notify(&mut self, method: &str, params: Value) -> Result<Option<u16>, Silence> {
        let message = json!({"jsonrpc": "2.0", "method": method, "params": params});
        match &mut self.link {
            Link::Http(http) => Ok(Some(http.post(&message, self.patience).await?.0.status)),
            Link::Stdio(_) => self.write(&message).await.map(|()| None),
        }
    }

    /// The messages that arrive within `window` without being asked for (stdio; over HTTP
    /// they would need the GET stream, which the doctor does not open).
    pub(crate) async fn drain(&mut self, window: Duration) -> Vec<Value> {
        let deadline = tokio::time::Instant::now() + window;
        let mut messages = Vec::new();
        while let Ok(message) = self.next_message(deadline).await {
            self.refuse_if_request(&message).await;
            messages.push(message);
        }
        messages
    }

    /// Ends the connection: stdin closed and the process waited for (then killed), or the
    /// HTTP session deleted.
    pub(crate) async fn close(mut self) {
        match &mut self.link {
            Link::Stdio(process) => {
                process.stdin = None;
                if timeout(Duration::from_secs(2), process.child.wait()).await.is_err() {
                    let _ = process.child.kill().await;
                }
            }
            Link::Http(http) => {
                if let Some(session) = &http.session {
                    let _ = timeout(
                        self.patience,
                        http.client
                            .delete(&http.url)
                            .headers(http.headers.clone())
                            .header("mcp-session-id", session)
                            .send(),
                    )
                    .await;
                }
            }
        }
    }

    async fn write(&mut self, message: &Value) -> Result<(), Silence> {
        let Link::Stdio(process) = &mut self.link else { return Ok(()) };
        let mut line = message.to_string();
        line.push('\n');
        let written = match process.stdin.as_mut() {
            Some(stdin) => stdin.write_all(line.as_bytes()).await.and(stdin.flush().await),
            None => Err(std::io::ErrorKind::BrokenPipe.into()),
        };
        match written {
            Ok(()) => Ok(()),
            Err(_) => Err(Silence::Closed(process.exited().await)),
        }
    }

    /// The next message from stdout (noise set aside), by `deadline`.
    async fn next_message(&mut self, deadline: tokio::time::Instant) -> Result<Value, Silence> {
        if let Some(message) = self.queue.pop_front() {
            return Ok(message);
        }
        let Link::Stdio(process) = &mut self.link else { return Err(Silence::Timeout(Duration::ZERO)) };
        loop {
            match tokio::time::timeout_at(deadline, process.lines.recv()).await {
                Err(_) => return Err(Silence::Timeout(self.patience)),
                Ok(None) => return Err(Silence::Closed(process.exited().await)),
                Ok(Some(Line::Noise(line))) => self.noise.push(line),
                Ok(Some(Line::Message(message))) => return Ok(message),
            }
        }
    }

    /// A strict client that declared no capabilities answers the server's requests other
    /// than `ping` with -32601 (and `ping` with `{}`), so that the server is not left waiting.
    async fn refuse_if_request(&mut self, message: &Value) {
        let (Some(id), Some(method)) = (message.get("id"), message["method"].as_str()) else { return };
        let reply = if method == "ping" {
            json!({"jsonrpc": "2.0", "id": id, "result": {}})
        } else {
            json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": format!("this client does not answer {method}")}})
        };
        match &mut self.link {
            Link::Stdio(_) => {
                let _ = self.write(&reply).await;
            }
            Link::Http(http) => {
                let _ = http.post(&reply, self.patience).await;
            }
        }
    }
}

/// Whether `message` is the response to request `id` (an integer; a server that answers
/// with the id as a string is matched too, and its mistake reported by the checks).
fn is_response_to(message: &Value, id: i64) -> bool {
    message.get("method").is_none()
        && match message.get("id") {
            Some(Value::Number(n)) => n.as_i64() == Some(id),
            Some(Value::String(s)) => s == &id.to_string(),
            _ => false,
        }
}

impl Process {
    fn spawn(command: &[String]) -> Result<Process, String> {
        let (program, args) = command.split_first().ok_or("no command")?;
        let mut child = tokio::process::Command::new(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| format!("cannot run `{}`: {e}", command.join(" ")))?;
        let stdout = child.stdout.take().ok_or("no stdout")?;
        let stderr_pipe = child.stderr.take().ok_or("no stderr")?;
        let (sender, lines) = mpsc::unbounded_channel();
        tokio::spawn(read_lines(BufReader::new(stdout), sender));
        let stderr = Arc::new(Mutex::new(VecDeque::new()));
        let tail = stderr.clone();
        tokio::spawn(async move {
            let mut lines = BufReader::new(stderr_pipe).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                let mut tail = tail.lock().unwrap_or_else(|e| e.into_inner());
                if tail.len() == STDERR_TAIL {
                    tail.pop_front();
                }
                tail.push_back(line);
            }
        });
        let stdin = child.stdin.take();
        Ok(Process { child, stdin, lines, stderr })
    }

    /// Why the process stopped talking: its exit status, and the end of its stderr.
    async fn exited(&mut self) -> String {
        let status = match timeout(Duration::from_millis(500), self.child.wait()).await {
            Ok(Ok(status)) => format!("the server exited ({status})"),
            _ => "the server closed its stdout".to_owned(),
        };
        let tail = self.stderr.lock().unwrap_or_else(|e| e.into_inner());
        match tail.back() {
            Some(last) => format!("{status}; its stderr ended with: {last}"),
            None => status,
        }
    }
}

/// Reads stdout line by line, telling messages from noise.
async fn read_lines(mut stdout: BufReader<tokio::process::ChildStdout>, sender: mpsc::UnboundedSender<Line>) {
    let mut line = Vec::new();
    loop {
        line.clear();
        match (&mut stdout).take(MAX_LINE as u64).read_until(b'\n', &mut line).await {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
        let text = String::from_utf8_lossy(&line);
        let text = text.trim();
        if text.is_empty() {
            continue;
        }
        let lines = match serde_json::from_str::<Value>(text) {
            Ok(Value::Array(batch)) if batch.iter().all(Value::is_object) => {
                batch.into_iter().map(Line::Message).collect()
            }
            Ok(message @ Value::Object(_)) => vec![Line::Message(message)],
            _ => vec![Line::Noise(text.chars().take(200).collect())],
        };
        for line in lines {
            if sender.send(line).is_err() {
                return;
            }
        }
    }
}

impl Http {
    /// The headers a request of this connection carries.
    pub(crate) fn request_headers(&self, message: &Value) -> HeaderMap {
        let mut headers = self.headers.clone();
        let mut set = |name: &'static str, value: &str| {
            if let Ok(value) = HeaderValue::from_str(value) {
                headers.insert(HeaderName::from_static(name), value);
            }
        };
        set("accept", "application/json, text/event-stream");
        set("content-type", "application/json");
        if let Some(session) = &self.session {
            set("mcp-session-id", session);
        }
        if let Some(version) = &self.version {
            set("mcp-protocol-version", version);
        }
        if self.stateless
            && let Some(method) = message["method"].as_str()
        {
            set("mcp-method", method);
            let params = &message["params"];
            if let Some(name) = params["name"].as_str().or(params["uri"].as_str()) {
                set("mcp-name", name);
            }
        }
        headers
    }

    /// POSTs `message` with this connection's headers and reads every message of the answer.
    pub(crate) async fn post(&self, message: &Value, patience: Duration) -> Result<(Exchange, Vec<Value>), Silence> {
        let headers = self.request_headers(message);
        self.post_with(message.to_string(), headers, patience).await
    }

    /// POSTs `body` with exactly `headers`, and reads every message of the answer (a JSON
    /// body, or the events of a stream until the stream ends or a response arrives).
    pub(crate) async fn post_with(
        &self,
        body: String,
        headers: HeaderMap,
        patience: Duration,
    ) -> Result<(Exchange, Vec<Value>), Silence> {
        let exchange = async {
            let mut response = self
                .client
                .post(&self.url)
                .headers(headers)
                .body(body)
                .send()
                .await
                .map_err(|e| Silence::Closed(format!("POST {}: {e}", self.url)))?;
            let exchange = Exchange { status: response.status().as_u16(), headers: response.headers().clone() };
            let is_stream = exchange.header("content-type").is_some_and(|t| t.starts_with("text/event-stream"));
            let mut messages = Vec::new();
            if is_stream {
                let mut reader = SseReader::default();
                'read: while let Some(chunk) =
                    response.chunk().await.map_err(|e| Silence::Closed(format!("the event stream broke: {e}")))?
                {
                    let mut events = Vec::new();
                    reader.feed(&chunk, |event| events.push(event.data));
                    for data in events.into_iter().filter(|d| !d.is_empty()) {
                        let message: Value = serde_json::from_str(&data).unwrap_or(Value::String(data));
                        let is_response = message.get("method").is_none() && message.get("id").is_some();
                        messages.push(message);
                        if is_response {
                            break 'read;
                        }
                    }
                }
            } else {
                let bytes = response.bytes().await.map_err(|e| Silence::Closed(format!("the body broke: {e}")))?;
                match serde_json::from_slice::<Value>(&bytes) {
                    Ok(Value::Array(batch)) => messages.extend(batch),
                    Ok(message @ Value::Object(_)) => messages.push(message),
                    _ => {}
                }
            }
            Ok((exchange, messages))
        };
        timeout(patience, exchange).await.unwrap_or(Err(Silence::Timeout(patience)))
    }
}
