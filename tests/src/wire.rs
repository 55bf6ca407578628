//! A harness that drives an MCP server over stdio: spawn it, write lines to its standard
//! input, read what it writes with a timeout, and record a transcript of the exchange for
//! `../shared/tools/schema_check.py`.
//!
//! Standard output must carry JSON-RPC only: every line the server writes is checked to parse
//! as JSON, and [`StdioServer::recv_line`] panics on one that does not.
//!
//! One connection may mix eras (a handshake, then 2026-07-28 requests carrying their own
//! `_meta`). Each revision's messages must be checked against that revision's schema, so
//! [`StdioServer::request_as`] and [`StdioServer::stateless_request`] record their exchange
//! under the revision they name, in a transcript of its own (same test name, that revision's
//! directory); everything else goes to the revision given to
//! [`record`](StdioServerBuilder::record).
//!
//! ```no_run
//! use mcp_tests::wire::StdioServer;
//!
//! let mut server = StdioServer::builder(mcp_tests::example_binary("manual"))
//!     .record("2025-06-18", "doc_example")
//!     .spawn();
//! server.handshake("2025-06-18");
//! let answer = server.request("tools/list", None);
//! assert!(answer["result"]["tools"].is_array());
//! server.close_stdin();
//! assert!(server.wait().success());
//! ```

use std::collections::BTreeMap;
use std::fmt;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde_json::value::RawValue;
use serde_json::{Value, json};

/// How long [`StdioServer::recv`] and [`StdioServer::wait`] wait by default.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

/// The revisions negotiated through `initialize`, oldest first.
pub const HANDSHAKE_REVISIONS: [&str; 4] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];

/// The newest handshake revision: the answer to an `initialize` asking for another one.
pub const LATEST_HANDSHAKE_REVISION: &str = "2025-11-25";

/// The revision served without a handshake, each request carrying its own `_meta`.
pub const STATELESS_REVISION: &str = "2026-07-28";

/// Every revision: the handshake ones, oldest first, then 2026-07-28.
pub const ALL_REVISIONS: [&str; 5] = [
    HANDSHAKE_REVISIONS[0],
    HANDSHAKE_REVISIONS[1],
    HANDSHAKE_REVISIONS[2],
    HANDSHAKE_REVISIONS[3],
    STATELESS_REVISION,
];

/// Runs `check` once per revision of `revisions`, each in a thread named after its revision
/// (so a failure names the revision that broke), all at once.
pub fn for_each_revision(revisions: &[&'static str], check: impl Fn(&'static str) + Sync) {
    std::thread::scope(|scope| {
        for &revision in revisions {
            let check = &check;
            std::thread::Builder::new()
                .name(revision.to_owned())
                .spawn_scoped(scope, move || check(revision))
                .expect("a thread per revision");
        }
    });
}

/// The `_meta` key naming a 2026-07-28 request's protocol revision.
pub const PROTOCOL_VERSION_KEY: &str = "io.modelcontextprotocol/protocolVersion";
/// The `_meta` key holding a 2026-07-28 request's client capabilities.
pub const CLIENT_CAPABILITIES_KEY: &str = "io.modelcontextprotocol/clientCapabilities";
/// The `_meta` key holding a 2026-07-28 request's client identity.
pub const CLIENT_INFO_KEY: &str = "io.modelcontextprotocol/clientInfo";
/// The `_meta` key under which a 2026-07-28 result names the server.
pub const SERVER_INFO_KEY: &str = "io.modelcontextprotocol/serverInfo";

/// `params` (an object; `None` for none) with the `_meta` of a 2026-07-28 request added:
/// [`STATELESS_REVISION`], `capabilities` as the client's capabilities, and a client identity.
///
/// ```
/// let params = mcp_tests::wire::stateless_params(None, serde_json::json!({}));
/// assert_eq!(params["_meta"]["io.modelcontextprotocol/protocolVersion"], "2026-07-28");
/// ```
pub fn stateless_params(params: Option<Value>, capabilities: Value) -> Value {
    let mut params = params.unwrap_or_else(|| json!({}));
    let object = params.as_object_mut().unwrap_or_else(|| panic!("request params must be an object"));
    object.insert(
        "_meta".to_owned(),
        json!({
            PROTOCOL_VERSION_KEY: STATELESS_REVISION,
            CLIENT_CAPABILITIES_KEY: capabilities,
            CLIENT_INFO_KEY: {"name": "mcp-wire-tests", "version": "0.0.0"},
        }),
    );
    params
}

/// Who wrote a line of the transcript.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    Client,
    Server,
}

/// The lines exchanged so far, in the order they were written or read.
type Transcript = Arc<Mutex<Vec<(Side, String)>>>;

/// What the stdout reader thread hands over.
#[derive(Debug)]
enum Event {
    /// A line that parses as JSON.
    Json(String),
    /// A line that does not: a broken stdout contract.
    NotJson(String),
    /// Standard output closed.
    Eof,
}

/// Configures and spawns a [`StdioServer`].
#[derive(Debug)]
pub struct StdioServerBuilder {
    program: PathBuf,
    args: Vec<String>,
    record: Option<(String, String)>,
    capture_stderr: bool,
    timeout: Duration,
    env: Vec<(String, Option<String>)>,
}

impl StdioServerBuilder {
    /// Sets (`Some`) or removes (`None`) an environment variable of the server.
    #[must_use]
    pub fn env(mut self, key: &str, value: Option<&str>) -> Self {
        self.env.push((key.to_owned(), value.map(str::to_owned)));
        self
    }

    /// Adds command-line arguments.
    #[must_use]
    pub fn args<I, S>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        self.args.extend(args.into_iter().map(|a| a.as_ref().to_owned()));
        self
    }

    /// Records the exchange to `<target_dir()>/transcripts/<revision>/<test_name>.jsonl`
    /// (written when the harness is dropped): every line the server writes and every client
    /// line that parses as JSON, in order. U+2028 and U+2029 are written as `\u2028` and
    /// `\u2029` (the same JSON), because the checker splits lines at them. Exchanges sent with
    /// [`StdioServer::request_as`] go to `<that revision>/<test_name>.jsonl` instead.
    #[must_use]
    pub fn record(mut self, revision: &str, test_name: &str) -> Self {
        self.record = Some((revision.to_owned(), test_name.to_owned()));
        self
    }

    /// Captures the server's standard error (see [`StdioServer::stderr`]) instead of
    /// letting it through to the test's.
    #[must_use]
    pub fn capture_stderr(mut self) -> Self {
        self.capture_stderr = true;
        self
    }

    /// Sets how long to wait for a message or for the process to exit.
    #[must_use]
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Spawns the server. Panics when it cannot be started.
    pub fn spawn(self) -> StdioServer {
        let mut command = Command::new(&self.program);
        for (key, value) in &self.env {
            match value {
                Some(value) => command.env(key, value),
                None => command.env_remove(key),
            };
        }
        let mut child = command
            .args(&self.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(if self.capture_stderr { Stdio::piped() } else { Stdio::inherit() })
            .spawn()
            .unwrap_or_else(|e| panic!("cannot spawn {}: {e}", self.program.display()));
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().expect("stdout is piped");
        let transcript = Transcript::default();
        let (tx, rx) = mpsc::channel();
        let reader = {
            let transcript = Arc::clone(&transcript);
            std::thread::spawn(move || read_stdout(stdout, &transcript, &tx))
        };
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let stderr_reader = child.stderr.take().map(|mut pipe| {
            let stderr = Arc::clone(&stderr);
            std::thread::spawn(move || {
                let mut chunk = [0u8; 4096];
                while let Ok(n @ 1..) = pipe.read(&mut chunk) {
                    lock(&stderr).extend_from_slice(&chunk[..n]);
                }
            })
        });
        StdioServer {
            program: self.program,
            child,
            stdin,
            rx,
            reader: Some(reader),
            stderr_reader,
            stderr,
            transcript,
            record: self.record,
            recorded_as: BTreeMap::new(),
            timeout: self.timeout,
            next_id: 1,
            exit: None,
        }
    }
}

/// Reads the server's standard output line by line until it closes.
fn read_stdout(stdout: impl Read, transcript: &Transcript, tx: &mpsc::Sender<Event>) {
    let mut reader = BufReader::new(stdout);
    let mut buf = Vec::new();
    loop {
        buf.clear();
        match reader.read_until(b'\n', &mut buf) {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        if buf.last() == Some(&b'\n') {
            buf.pop();
        }
        let line = String::from_utf8_lossy(&buf).into_owned();
        lock(transcript).push((Side::Server, line.clone()));
        let event = if serde_json::from_str::<Value>(&line).is_ok() { Event::Json(line) } else { Event::NotJson(line) };
        if tx.send(event).is_err() {
            return;
        }
    }
    let _ = tx.send(Event::Eof);
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A server process driven over stdio, one JSON-RPC message per line.
///
/// Dropping it kills the process if it still runs and writes the transcript when one was
/// asked for.
pub struct StdioServer {
    program: PathBuf,
    child: Child,
    stdin: Option<ChildStdin>,
    rx: Receiver<Event>,
    reader: Option<JoinHandle<()>>,
    stderr_reader: Option<JoinHandle<()>>,
    stderr: Arc<Mutex<Vec<u8>>>,
    transcript: Transcript,
    record: Option<(String, String)>,
    /// Requests recorded under another revision than `record`'s: raw id → revision.
    recorded_as: BTreeMap<String, String>,
    timeout: Duration,
    next_id: i64,
    exit: Option<ExitStatus>,
}

impl fmt::Debug for StdioServer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StdioServer")
            .field("program", &self.program)
            .field("pid", &self.child.id())
            .field("record", &self.record)
            .field("next_id", &self.next_id)
            .finish_non_exhaustive()
    }
}

impl StdioServer {
    /// Starts configuring a server run from `program`.
    pub fn builder(program: impl Into<PathBuf>) -> StdioServerBuilder {
        StdioServerBuilder {
            program: program.into(),
            args: Vec::new(),
            record: None,
            capture_stderr: false,
            timeout: DEFAULT_TIMEOUT,
            env: Vec::new(),
        }
    }

    /// Writes `line` and a newline to the server's standard input. The line goes into the
    /// transcript when it parses as JSON (the schema checker rejects lines that do not).
    pub fn send_line(&mut self, line: &str) {
        if serde_json::from_str::<Value>(line).is_ok() {
            lock(&self.transcript).push((Side::Client, line.to_owned()));
        }
        self.write(line);
    }

    /// Writes `line` without recording it: for client messages that are off-schema on
    /// purpose (an unknown notification), which the transcript's schema check would reject
    /// although they say nothing about the server.
    pub fn send_unrecorded(&mut self, line: &str) {
        self.write(line);
    }

    fn write(&mut self, line: &str) {
        assert!(!line.contains('\n'), "a stdio message cannot contain a newline");
        let stdin = self.stdin.as_mut().expect("standard input was closed with close_stdin()");
        let mut bytes = Vec::with_capacity(line.len() + 1);
        bytes.extend_from_slice(line.as_bytes());
        bytes.push(b'\n');
        stdin
            .write_all(&bytes)
            .and_then(|()| stdin.flush())
            .unwrap_or_else(|e| panic!("cannot write to the server's standard input: {e}"));
    }

    /// Sends a JSON value as one line.
    pub fn send(&mut self, message: &Value) {
        self.send_line(&message.to_string());
    }

    /// Sends a request with the next id (1, 2, …) and returns that id.
    pub fn send_request(&mut self, method: &str, params: Option<Value>) -> i64 {
        let id = self.next_id;
        self.next_id += 1;
        let mut message = json!({"jsonrpc": "2.0", "id": id, "method": method});
        if let Some(params) = params {
            message["params"] = params;
        }
        self.send(&message);
        id
    }

    /// Sends a request and returns the next message, which must be its response.
    pub fn request(&mut self, method: &str, params: Option<Value>) -> Value {
        let id = self.send_request(method, params);
        let response = self.recv();
        assert_eq!(response["id"], json!(id), "expected the response to `{method}` (id {id}), got {response}");
        response
    }

    /// Like [`request`](Self::request), recording the request and its response under
    /// `revision` (see the module's documentation): for a request of another era than the
    /// connection's recording.
    pub fn request_as(&mut self, revision: &str, method: &str, params: Option<Value>) -> Value {
        self.recorded_as.insert(self.next_id.to_string(), revision.to_owned());
        self.request(method, params)
    }

    /// Sends a 2026-07-28 request (`params` plus the `_meta` of [`stateless_params`], declaring
    /// `capabilities`), recorded under [`STATELESS_REVISION`], and returns its response.
    pub fn stateless_request(&mut self, method: &str, params: Option<Value>, capabilities: Value) -> Value {
        self.request_as(STATELESS_REVISION, method, Some(stateless_params(params, capabilities)))
    }

    /// Sends a notification.
    pub fn notify(&mut self, method: &str, params: Option<Value>) {
        let mut message = json!({"jsonrpc": "2.0", "method": method});
        if let Some(params) = params {
            message["params"] = params;
        }
        self.send(&message);
    }

    /// `initialize` asking for `revision`, then `notifications/initialized`. Returns the
    /// `initialize` response; panics when it is not a result.
    pub fn handshake(&mut self, revision: &str) -> Value {
        self.handshake_with(revision, json!({}))
    }

    /// [`handshake`](Self::handshake) declaring `capabilities` as the client's.
    pub fn handshake_with(&mut self, revision: &str, capabilities: Value) -> Value {
        let response = self.request(
            "initialize",
            Some(json!({
                "protocolVersion": revision,
                "capabilities": capabilities,
                "clientInfo": {"name": "mcp-wire-tests", "version": "0.0.0"},
            })),
        );
        assert!(response.get("result").is_some(), "`initialize` failed: {response}");
        self.notify("notifications/initialized", None);
        response
    }

    /// The next line the server writes, as written. Panics after the timeout, when the
    /// server closes its output, or when the line is not JSON.
    pub fn recv_line(&mut self) -> String {
        match self.rx.recv_timeout(self.timeout) {
            Ok(Event::Json(line)) => line,
            Ok(Event::NotJson(line)) => {
                panic!("the server wrote a line that is not JSON to standard output: {line:?}{}", self.stderr_note())
            }
            Ok(Event::Eof) | Err(RecvTimeoutError::Disconnected) => {
                let status = self.child.try_wait().ok().flatten();
                panic!(
                    "the server closed standard output (exit status: {status:?}) while a \
                     message was expected{}",
                    self.stderr_note()
                )
            }
            Err(RecvTimeoutError::Timeout) => panic!(
                "no message from the server within {:?}; last lines exchanged:\n{}{}",
                self.timeout,
                self.tail(6),
                self.stderr_note()
            ),
        }
    }

    /// The next message the server writes, parsed (see [`recv_line`](Self::recv_line)).
    pub fn recv(&mut self) -> Value {
        let line = self.recv_line();
        serde_json::from_str(&line).expect("the reader thread checked it parses")
    }

    /// Asserts that the server writes nothing for `period`.
    pub fn assert_silent(&mut self, period: Duration) {
        match self.rx.recv_timeout(period) {
            Err(RecvTimeoutError::Timeout) => {}
            Ok(Event::Json(line) | Event::NotJson(line)) => {
                panic!("expected no message from the server, got {line}")
            }
            Ok(Event::Eof) | Err(RecvTimeoutError::Disconnected) => {
                panic!("expected no message from the server, but it closed standard output")
            }
        }
    }

    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Sends a signal to the server (`"TERM"`, `"INT"`) with `kill`.
    pub fn signal(&self, name: &str) {
        let status = Command::new("kill")
            .args([format!("-{name}"), self.child.id().to_string()])
            .status()
            .unwrap_or_else(|e| panic!("cannot run kill: {e}"));
        assert!(status.success(), "kill -{name} failed");
    }

    /// Closes the server's standard input: the end of the session on stdio.
    pub fn close_stdin(&mut self) {
        self.stdin = None;
    }

    /// Waits for the process to exit (after the timeout: kills it and panics).
    pub fn wait(&mut self) -> ExitStatus {
        if let Some(status) = self.exit {
            return status;
        }
        let deadline = Instant::now() + self.timeout;
        loop {
            match self.child.try_wait() {
                Ok(Some(status)) => {
                    self.exit = Some(status);
                    // The pipes closed with the process: once the readers end, every line
                    // it wrote is in the transcript and in `stderr()`.
                    self.join_readers();
                    return status;
                }
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(10));
                }
                Ok(None) => {
                    let _ = self.child.kill();
                    panic!("the server did not exit within {:?}{}", self.timeout, self.stderr_note());
                }
                Err(e) => panic!("cannot wait for the server: {e}"),
            }
        }
    }

    /// Ends the session: closes standard input, expects exit status 0, and checks that
    /// everything the server wrote was a JSON-RPC response (or a batch of them): no message of
    /// its own.
    pub fn finish(&mut self) {
        self.close_stdin();
        let status = self.wait();
        assert!(status.success(), "the server exited with {status}{}", self.stderr_note());
        for line in self.server_lines() {
            let message: Value = serde_json::from_str(&line).expect("stdout carries JSON only");
            match &message {
                Value::Array(items) => items.iter().for_each(assert_response),
                single => assert_response(single),
            }
        }
    }

    /// What the server wrote to standard error so far (empty unless captured).
    pub fn stderr(&self) -> String {
        String::from_utf8_lossy(&lock(&self.stderr)).into_owned()
    }

    /// Every line the server wrote to standard output so far, in order.
    pub fn server_lines(&self) -> Vec<String> {
        lock(&self.transcript).iter().filter(|(side, _)| *side == Side::Server).map(|(_, line)| line.clone()).collect()
    }

    /// Where the transcript goes, when one is recorded.
    pub fn transcript_path(&self) -> Option<PathBuf> {
        self.record.as_ref().map(|(revision, name)| transcript_path(revision, name))
    }

    fn tail(&self, n: usize) -> String {
        let transcript = lock(&self.transcript);
        let start = transcript.len().saturating_sub(n);
        transcript[start..]
            .iter()
            .map(|(side, line)| {
                let arrow = if *side == Side::Client { "→" } else { "←" };
                format!("  {arrow} {}\n", truncate(line, 300))
            })
            .collect()
    }

    fn stderr_note(&self) -> String {
        let stderr = self.stderr();
        if stderr.is_empty() { String::new() } else { format!("\nserver stderr:\n{}", truncate(&stderr, 4000)) }
    }

    fn join_readers(&mut self) {
        for reader in [self.reader.take(), self.stderr_reader.take()].into_iter().flatten() {
            let _ = reader.join();
        }
    }

    fn write_transcript(&self) -> std::io::Result<()> {
        let Some((default_revision, name)) = &self.record else {
            return Ok(());
        };
        // Revision → its lines, in order. A line goes where its id's request was recorded; the
        // default transcript is written even when empty.
        let mut files = BTreeMap::from([(default_revision.as_str(), String::new())]);
        for (_, line) in lock(&self.transcript).iter() {
            let revision =
                id_of(line).and_then(|id| self.recorded_as.get(&id)).map_or(default_revision.as_str(), String::as_str);
            let text = files.entry(revision).or_default();
            // U+2028 and U+2029 are legal unescaped in JSON strings (and not line ends on
            // stdio), but the checker splits with Python's `str.splitlines()`, which breaks
            // lines there. Escaped, they are the same JSON.
            text.push_str(&line.replace('\u{2028}', "\\u2028").replace('\u{2029}', "\\u2029"));
            text.push('\n');
        }
        for (revision, text) in files {
            let path = transcript_path(revision, name);
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir)?;
            }
            std::fs::write(&path, text)?;
        }
        Ok(())
    }
}

impl Drop for StdioServer {
    fn drop(&mut self) {
        self.stdin = None;
        if self.exit.is_none() && matches!(self.child.try_wait(), Ok(None)) {
            let _ = self.child.kill();
        }
        let _ = self.child.wait();
        self.join_readers();
        if let Err(e) = self.write_transcript() {
            eprintln!("cannot write the transcript: {e}");
        }
    }
}

/// `<target_dir()>/transcripts/<revision>/<test_name>.jsonl`.
pub fn transcript_path(revision: &str, test_name: &str) -> PathBuf {
    transcripts_dir().join(revision).join(format!("{test_name}.jsonl"))
}

/// `<target_dir()>/transcripts`.
pub fn transcripts_dir() -> PathBuf {
    crate::target_dir().join("transcripts")
}

/// The `id` of a message exactly as written (`null` when absent), for comparing ids without
/// a round trip through floating point.
pub fn raw_id(line: &str) -> String {
    let members: BTreeMap<String, &RawValue> =
        serde_json::from_str(line).unwrap_or_else(|e| panic!("not a JSON object ({e}): {line}"));
    members.get("id").map_or_else(|| "null".to_owned(), |id| id.get().to_owned())
}

/// Panics unless `message` is one JSON-RPC response.
fn assert_response(message: &Value) {
    assert_eq!(message["jsonrpc"], "2.0", "{message}");
    assert!(message.get("method").is_none(), "the server sent a message of its own: {message}");
    assert!(message.get("id").is_some(), "a response without id: {message}");
    assert!(
        message.get("result").is_some() != message.get("error").is_some(),
        "a response needs exactly one of result and error: {message}"
    );
}

/// The `result` of a response; panics on an error response.
pub fn result(response: &Value) -> &Value {
    response.get("result").unwrap_or_else(|| panic!("expected a result, got {response}"))
}

/// The error code of a response; panics on a result.
pub fn error_code(response: &Value) -> i64 {
    response["error"]["code"].as_i64().unwrap_or_else(|| panic!("expected an error, got {response}"))
}

/// The text of a tool result's only content block; panics unless it has exactly one, of type
/// `text`.
pub fn only_text(result: &Value) -> &str {
    let content = result["content"].as_array().unwrap_or_else(|| panic!("no content array in {result}"));
    assert_eq!(content.len(), 1, "one block expected: {result}");
    assert_eq!(content[0]["type"], "text", "{result}");
    content[0]["text"].as_str().expect("text is a string")
}

/// `manual --test-tools <args>` (the builder-API example with the tools the wire tests use,
/// [`MANUAL_TEST_TOOLS`](crate::MANUAL_TEST_TOOLS)), ready to configure and spawn.
pub fn manual(args: &[&str]) -> StdioServerBuilder {
    StdioServer::builder(crate::example_binary("manual")).args(["--test-tools"]).args(args)
}

/// The `id` of a single message exactly as written; `None` for a batch, a line that is not a
/// JSON object, or a message without one.
fn id_of(line: &str) -> Option<String> {
    let members: BTreeMap<String, &RawValue> = serde_json::from_str(line).ok()?;
    members.get("id").map(|id| id.get().to_owned())
}

fn truncate(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}
