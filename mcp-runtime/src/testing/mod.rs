//! An in-memory client for testing a server from its own `#[tokio::test]`s (feature
//! `testing`): it lists, calls, reads, gets and completes in either era, and checks what it
//! sends and receives against the schemas the server declares.
//!
//! ```
//! use mcp_runtime::{Server, mcp_tool, testing::TestClient};
//! use mcp_runtime::protocol::Revision;
//! use serde_json::json;
//!
//! /// Adds two integers.
//! #[mcp_tool]
//! fn add(a: i64, b: i64) -> String {
//!     (a + b).to_string()
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), mcp_runtime::testing::TestError> {
//! for revision in [Revision::V2025_11_25, Revision::V2026_07_28] {
//!     let client = TestClient::connect_as(Server::builder("calc", "1").tool(add), revision).await?;
//!     let result = client.call_tool("add", json!({"a": 2, "b": 3})).await?;
//!     assert_eq!(result["content"][0]["text"], "5");
//!     // Arguments the input schema rejects fail in the client, before reaching the server.
//!     assert!(client.call_tool("add", json!({"a": "two"})).await.is_err());
//!     client.close().await?;
//! }
//! # Ok(())
//! # }
//! ```
//!
//! The server's questions (elicitation, sampling, roots) are answered by the handlers given to
//! [`TestClient::builder`], which declares the capabilities they imply, in both eras: a request
//! the server sends in a handshake revision, the input-required result of 2026-07-28 (the client
//! retries with the answers and the `requestState`, as a real one does). What was asked is kept
//! for [`TestClient::questions`]. Without a handler, a question is answered "method not found"
//! (handshake revisions) or its input-required result is returned as it is (2026-07-28).
//! Notifications are kept, in order, for [`TestClient::notifications`].
//!
//! ```
//! use mcp_runtime::protocol::Revision;
//! use mcp_runtime::testing::TestClient;
//! use mcp_runtime::asking::{AskError, Elicitation};
//! use mcp_runtime::{Context, Server, mcp_tool};
//! use serde_json::json;
//!
//! #[derive(serde::Deserialize, schemars::JsonSchema)]
//! struct Confirm {
//!     /// Whether to delete it
//!     delete: bool,
//! }
//!
//! /// Deletes a bookmark once the user confirms.
//! #[mcp_tool(destructive)]
//! async fn delete_bookmark(ctx: Context, url: String) -> Result<String, AskError> {
//!     match ctx.elicit::<Confirm>(format!("Delete {url}?")).await? {
//!         Elicitation::Accept(Confirm { delete: true }) => Ok(format!("deleted {url}")),
//!         _ => Ok(format!("kept {url}")),
//!     }
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), mcp_runtime::testing::TestError> {
//! for revision in [Revision::V2025_11_25, Revision::V2026_07_28] {
//!     let client = TestClient::builder()
//!         .revision(revision)
//!         .on_elicitation(|_| json!({"action": "accept", "content": {"delete": true}}))
//!         .connect(Server::builder("bookmarks", "1").tool(delete_bookmark))
//!         .await?;
//!     let result = client.call_tool("delete_bookmark", json!({"url": "https://a.example"})).await?;
//!     assert_eq!(result["content"][0]["text"], "deleted https://a.example");
//!     assert_eq!(client.questions()[0].params["message"], "Delete https://a.example?");
//!     client.close().await?;
//! }
//! # Ok(())
//! # }
//! ```

use std::collections::HashMap;
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;

use crate::Server;
use crate::protocol::{ErrorObject, Feature, Revision};

mod answers;
mod tasks;

pub use answers::Question;
use answers::{Answerer, Answers};

/// How many input-required rounds one request may take before the client gives up.
const MAX_ROUNDS: usize = 16;

/// Why a [`TestClient`] request failed.
#[derive(Debug)]
pub enum TestError {
    /// The server answered with a JSON-RPC error.
    Rpc(ErrorObject),
    /// A value broke a schema the server declared (or a schema is not one).
    Schema {
        /// What was checked, e.g. "the arguments of tool `add`".
        what: String,
        /// Each violation, with where it is in the value.
        errors: Vec<String>,
    },
    /// The server sent something that is not valid MCP, or stopped answering.
    Protocol(String),
    /// The server could not start or stopped with an error.
    Server(crate::Error),
}

impl fmt::Display for TestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TestError::Rpc(e) => write!(f, "the server answered error {}: {}", e.code, e.message),
            TestError::Schema { what, errors } => write!(f, "schema check failed for {what}: {}", errors.join("; ")),
            TestError::Protocol(message) => f.write_str(message),
            TestError::Server(e) => write!(f, "the server failed: {e}"),
        }
    }
}

impl std::error::Error for TestError {}

impl TestError {
    /// The JSON-RPC error the server answered, if that is what this is.
    pub fn rpc(&self) -> Option<&ErrorObject> {
        match self {
            TestError::Rpc(e) => Some(e),
            _ => None,
        }
    }
}

/// Answers waiting for their response, by request id.
type Pending = Arc<Mutex<HashMap<u64, oneshot::Sender<Result<Value, ErrorObject>>>>>;

/// A client connected in memory to a server running on the caller's tokio runtime.
///
/// Each method sends one request and waits for its answer; several may run at once.
#[derive(Debug)]
pub struct TestClient {
    revision: Revision,
    to_server: mpsc::Sender<Vec<u8>>,
    pending: Pending,
    notifications: Arc<Mutex<Vec<Value>>>,
    next_id: AtomicU64,
    /// `tools/list` entries by name, fetched on the first call that needs a tool's schemas.
    tools: tokio::sync::OnceCell<HashMap<String, Value>>,
    /// The server's capabilities: from `initialize`, or from `server/discover` when first asked.
    capabilities: tokio::sync::OnceCell<Value>,
    serving: JoinHandle<crate::Result<()>>,
    reading: JoinHandle<()>,
    answers: Arc<Answers>,
}

/// Configures a [`TestClient`]: its revision and how it answers the server's questions.
#[derive(Debug)]
pub struct TestClientBuilder {
    revision: Revision,
    answers: Answers,
}

impl TestClientBuilder {
    /// Speaks `revision` (by default [`Revision::LATEST_HANDSHAKE`]).
    #[must_use]
    pub fn revision(mut self, revision: Revision) -> Self {
        self.revision = revision;
        self
    }

    /// Answers `elicitation/create` with what `answer` returns for its params (an
    /// `ElicitResult`: `{"action": "accept", "content": {..}}`, `decline` or `cancel`), and
    /// declares the `elicitation` capability.
    #[must_use]
    pub fn on_elicitation(mut self, answer: impl Fn(&Value) -> Value + Send + Sync + 'static) -> Self {
        self.answers.elicitation = Some(Arc::new(answer) as Answerer);
        self
    }

    /// Answers `sampling/createMessage` (a `CreateMessageResult`: `role`, `content`, `model`),
    /// and declares the `sampling` capability.
    #[must_use]
    pub fn on_sampling(mut self, answer: impl Fn(&Value) -> Value + Send + Sync + 'static) -> Self {
        self.answers.sampling = Some(Arc::new(answer) as Answerer);
        self
    }

    /// Answers `roots/list` (a `ListRootsResult`: `{"roots": [{"uri": "file:///.."}]}`), and
    /// declares the `roots` capability.
    #[must_use]
    pub fn on_roots(mut self, answer: impl Fn(&Value) -> Value + Send + Sync + 'static) -> Self {
        self.answers.roots = Some(Arc::new(answer) as Answerer);
        self
    }

    /// Opts in to the tasks extension on every request (2026-07-28): a tool that allows
    /// tasks then runs as one (see [`TestClient::call_tool_as_task`]).
    #[must_use]
    pub fn tasks(mut self) -> Self {
        self.answers.tasks = true;
        self
    }

    /// Connects to `server` (see [`TestClient::connect_as`]).
    pub async fn connect(self, server: Server) -> Result<TestClient, TestError> {
        TestClient::start(server, self.revision, Arc::new(self.answers)).await
    }
}

impl TestClient {
    /// Connects with the latest handshake revision
    /// ([`Revision::LATEST_HANDSHAKE`]): `initialize`, then `notifications/initialized`.
    pub async fn connect(server: Server) -> Result<TestClient, TestError> {
        Self::connect_as(server, Revision::LATEST_HANDSHAKE).await
    }

    /// Connects speaking `revision`: with the handshake for the revisions that have one, else
    /// (2026-07-28) with no handshake, each request carrying its own `_meta`.
    pub async fn connect_as(server: Server, revision: Revision) -> Result<TestClient, TestError> {
        TestClient::builder().revision(revision).connect(server).await
    }

    /// A client that answers the server's questions, or speaks another revision:
    /// `TestClient::builder().on_elicitation(..).connect(server)`.
    pub fn builder() -> TestClientBuilder {
        TestClientBuilder { revision: Revision::LATEST_HANDSHAKE, answers: Answers::default() }
    }

    async fn start(server: Server, revision: Revision, answers: Arc<Answers>) -> Result<TestClient, TestError> {
        // Built here rather than in the task, so that a declaration error (a missing state, a
        // duplicate name) is what `connect` returns.
        let (core, shutdown) = server.start().map_err(TestError::Server)?;
        let (to_server, incoming) = mpsc::channel::<Vec<u8>>(64);
        let (outgoing, mut from_server) = mpsc::channel::<Vec<u8>>(64);
        let serving = tokio::spawn(crate::transport::connection::serve_messages(core, shutdown, incoming, outgoing));
        let pending: Pending = Arc::default();
        let notifications = Arc::new(Mutex::new(Vec::new()));
        let reading = {
            // Weak: the server's input must close when the client does.
            let (pending, notifications, to_server) = (pending.clone(), notifications.clone(), to_server.downgrade());
            let answers = Arc::clone(&answers);
            tokio::spawn(async move {
                while let Some(bytes) = from_server.recv().await {
                    route(&bytes, &pending, &notifications, &answers, &to_server).await;
                }
                // The server is gone: whoever still waits learns it from the dropped senders.
                lock(&pending).clear();
            })
        };
        let client = TestClient {
            revision,
            to_server,
            pending,
            notifications,
            next_id: AtomicU64::new(1),
            tools: tokio::sync::OnceCell::new(),
            capabilities: tokio::sync::OnceCell::new(),
            serving,
            reading,
            answers,
        };
        if !revision.supports(Feature::Stateless) {
            let init = client
                .send(
                    "initialize",
                    json!({
                        "protocolVersion": revision.as_str(),
                        "capabilities": client.answers.capabilities(revision),
                        "clientInfo": {"name": "mcp-runtime-testing", "version": env!("CARGO_PKG_VERSION")},
                    }),
                )
                .await?;
            if init["protocolVersion"] != revision.as_str() {
                return Err(TestError::Protocol(format!(
                    "asked for {} and the server chose {}",
                    revision.as_str(),
                    init["protocolVersion"]
                )));
            }
            let _ = client.capabilities.set(init["capabilities"].clone());
            client.notify("notifications/initialized", json!({})).await?;
        }
        Ok(client)
    }

    /// The capabilities the server declares to this client's revision: from its `initialize`
    /// result, or (2026-07-28) from `server/discover`, asked the first time.
    pub async fn server_capabilities(&self) -> Result<Value, TestError> {
        let capabilities = self
            .capabilities
            .get_or_try_init(|| async {
                let discovered = self.send("server/discover", json!({})).await?;
                Ok::<_, TestError>(discovered["capabilities"].clone())
            })
            .await?;
        Ok(capabilities.clone())
    }

    /// The revision this client speaks.
    pub fn revision(&self) -> Revision {
        self.revision
    }

    /// Sends `method` with `params` (an object; the 2026-07-28 `_meta` is added) and returns
    /// the result, with no schema check: for what the other methods do not cover.
    pub async fn request(&self, method: &str, params: Value) -> Result<Value, TestError> {
        self.send(method, params).await
    }

    /// Every tool, following `nextCursor` across pages. Each input and output schema must be
    /// a JSON Schema for an object.
    pub async fn list_tools(&self) -> Result<Vec<Value>, TestError> {
        let tools = self.list_all("tools/list", "tools").await?;
        for tool in &tools {
            let name = tool["name"].as_str().unwrap_or_default();
            for key in ["inputSchema", "outputSchema"] {
                if let Some(schema) = tool.get(key) {
                    compile(schema, &format!("the {key} of tool `{name}`"))?;
                    if schema["type"] != "object" {
                        return Err(schema_error(format!("the {key} of tool `{name}`"), "its type is not \"object\""));
                    }
                }
            }
        }
        Ok(tools)
    }

    /// Calls tool `name`. `arguments` are first checked against the tool's input schema; a
    /// successful result with a declared output schema must carry `structuredContent` that
    /// matches it. Returns the `CallToolResult`, `isError` ones included.
    pub async fn call_tool(&self, name: &str, arguments: Value) -> Result<Value, TestError> {
        let listing = self.tool(name).await?;
        if let Some(listing) = &listing {
            check(&listing["inputSchema"], &arguments, &format!("the arguments of tool `{name}`"))?;
        }
        let result = self.send("tools/call", json!({"name": name, "arguments": arguments})).await?;
        let failed = result["isError"] == true;
        if let Some(output) = listing.as_ref().and_then(|l| l.get("outputSchema")).filter(|_| !failed) {
            let what = format!("the structuredContent of tool `{name}`");
            match result.get("structuredContent") {
                Some(structured) => check(output, structured, &what)?,
                None => return Err(schema_error(what, "missing, although the tool declares an outputSchema")),
            }
        }
        Ok(result)
    }

    /// Every resource, across pages.
    pub async fn list_resources(&self) -> Result<Vec<Value>, TestError> {
        self.list_all("resources/list", "resources").await
    }

    /// Every resource template, across pages.
    pub async fn list_resource_templates(&self) -> Result<Vec<Value>, TestError> {
        self.list_all("resources/templates/list", "resourceTemplates").await
    }

    /// Reads `uri`; each of the contents must name a URI and hold `text` or `blob`.
    pub async fn read_resource(&self, uri: &str) -> Result<Value, TestError> {
        let result = self.send("resources/read", json!({"uri": uri})).await?;
        let contents = result["contents"].as_array().ok_or_else(|| protocol("resources/read", &result))?;
        if contents.iter().any(|c| !c["uri"].is_string() || !(c["text"].is_string() || c["blob"].is_string())) {
            return Err(protocol("resources/read", &result));
        }
        Ok(result)
    }

    /// Every skill's entry (`skills/list`, the skills extension), across pages.
    pub async fn list_skills(&self) -> Result<Vec<Value>, TestError> {
        self.list_all("skills/list", "skills").await
    }

    /// The entry of the skill whose `SKILL.md` is at `uri` (`skills/get`).
    pub async fn get_skill(&self, uri: &str) -> Result<Value, TestError> {
        let result = self.send("skills/get", json!({"uri": uri})).await?;
        result.get("skill").cloned().ok_or_else(|| protocol("skills/get", &result))
    }

    /// The direct children of the folder at `uri` (`resources/directory/read`), across pages:
    /// files, and folders as `inode/directory`.
    pub async fn read_directory(&self, uri: &str) -> Result<Vec<Value>, TestError> {
        self.list_all_with("resources/directory/read", json!({"uri": uri}), "resources").await
    }

    /// Every prompt, across pages.
    pub async fn list_prompts(&self) -> Result<Vec<Value>, TestError> {
        self.list_all("prompts/list", "prompts").await
    }

    /// Gets prompt `name` with `arguments` (string values, as the protocol has them).
    pub async fn get_prompt(&self, name: &str, arguments: Value) -> Result<Value, TestError> {
        let result = self.send("prompts/get", json!({"name": name, "arguments": arguments})).await?;
        if !result["messages"].is_array() {
            return Err(protocol("prompts/get", &result));
        }
        Ok(result)
    }

    /// Completes argument `argument`, typed so far as `value`, of `reference` (e.g.
    /// `{"type": "ref/prompt", "name": "greet"}`), and returns the suggested values.
    pub async fn complete(&self, reference: Value, argument: &str, value: &str) -> Result<Vec<String>, TestError> {
        let params = json!({"ref": reference, "argument": {"name": argument, "value": value}});
        let result = self.send("completion/complete", params).await?;
        let values =
            result["completion"]["values"].as_array().ok_or_else(|| protocol("completion/complete", &result))?;
        values
            .iter()
            .map(|v| v.as_str().map(str::to_owned).ok_or_else(|| protocol("completion/complete", &result)))
            .collect()
    }

    /// The questions the server asked and this client's handlers answered, in order (a
    /// 2026-07-28 question asked again in a retry is counted again).
    pub fn questions(&self) -> Vec<Question> {
        self.answers.asked()
    }

    /// The notifications the server sent so far, in order.
    pub fn notifications(&self) -> Vec<Value> {
        lock(&self.notifications).clone()
    }

    /// Disconnects and waits for the server to finish what it was doing; its error, if it
    /// stopped with one.
    pub async fn close(self) -> Result<(), TestError> {
        let TestClient { to_server, serving, reading, .. } = self;
        drop(to_server);
        let served = serving.await.map_err(|e| TestError::Protocol(format!("the server task failed: {e}")))?;
        reading.abort();
        served.map_err(TestError::Server)
    }

    /// The `tools/list` entry of `name`, if the server lists it.
    async fn tool(&self, name: &str) -> Result<Option<Value>, TestError> {
        let tools = self
            .tools
            .get_or_try_init(|| async {
                let tools = self.list_tools().await?;
                Ok::<_, TestError>(
                    tools.into_iter().map(|t| (t["name"].as_str().unwrap_or_default().to_owned(), t)).collect(),
                )
            })
            .await?;
        Ok(tools.get(name).cloned())
    }

    async fn list_all(&self, method: &str, field: &str) -> Result<Vec<Value>, TestError> {
        self.list_all_with(method, json!({}), field).await
    }

    /// Every item of `field` across the pages of `method`, each page asked with `params` and
    /// the previous page's cursor.
    async fn list_all_with(&self, method: &str, params: Value, field: &str) -> Result<Vec<Value>, TestError> {
        let mut items = Vec::new();
        let mut cursor: Option<String> = None;
        loop {
            let mut params = params.clone();
            if let Some(cursor) = &cursor {
                params["cursor"] = json!(cursor);
            }
            let page = self.send(method, params).await?;
            items.extend(page[field].as_array().ok_or_else(|| protocol(method, &page))?.iter().cloned());
            match page.get("nextCursor").and_then(Value::as_str) {
                Some(next) if cursor.as_deref() == Some(next) => {
                    return Err(TestError::Protocol(format!("{method} returned the same cursor twice: {next}")));
                }
                Some(next) => cursor = Some(next.to_owned()),
                None => return Ok(items),
            }
        }
    }

    /// Sends `method`; in 2026-07-28, answers an input-required result with this client's
    /// handlers and retries, until the result is complete or a question has no handler.
    async fn send(&self, method: &str, params: Value) -> Result<Value, TestError> {
        let mut retry = params.clone();
        for _ in 0..MAX_ROUNDS {
            let result = self.send_once(method, retry).await?;
            if result["resultType"] != "input_required" || !self.answers.any() {
                return Ok(result);
            }
            let requests = result["inputRequests"].as_object().ok_or_else(|| protocol(method, &result))?;
            let mut responses = serde_json::Map::new();
            for (key, question) in requests {
                let asked = question["method"].as_str().unwrap_or_default();
                match self.answers.answer(asked, &question["params"]) {
                    Some(answer) => responses.insert(key.clone(), answer),
                    // A question no handler answers: the test sees the result as it came.
                    None => return Ok(result),
                };
            }
            retry = params.clone();
            if let Some(object) = retry.as_object_mut() {
                object.insert("inputResponses".into(), Value::Object(responses));
                if let Some(state) = result.get("requestState") {
                    object.insert("requestState".into(), state.clone());
                }
            }
        }
        Err(TestError::Protocol(format!("{method} still asked for input after {MAX_ROUNDS} rounds")))
    }

    async fn send_once(&self, method: &str, params: Value) -> Result<Value, TestError> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (answer, answered) = oneshot::channel();
        lock(&self.pending).insert(id, answer);
        let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": self.with_meta(params)});
        self.write(&message).await?;
        match answered.await {
            Ok(Ok(result)) => Ok(result),
            Ok(Err(error)) => Err(TestError::Rpc(error)),
            Err(_) => Err(TestError::Protocol(format!("the server stopped before answering {method}"))),
        }
    }

    /// Sends the notification `method` with `params`, as they are: `notifications/cancelled`
    /// with a [`next_request_id`](Self::next_request_id) taken before a request, say.
    pub async fn notify(&self, method: &str, params: Value) -> Result<(), TestError> {
        self.write(&json!({"jsonrpc": "2.0", "method": method, "params": params})).await
    }

    /// The id the next request this client sends will carry (ids count up from 1). Take it
    /// just before [`request`](Self::request) to cancel that request; the typed methods may
    /// send a listing first.
    pub fn next_request_id(&self) -> u64 {
        self.next_id.load(Ordering::Relaxed)
    }

    async fn write(&self, message: &Value) -> Result<(), TestError> {
        let mut bytes = message.to_string().into_bytes();
        bytes.push(b'\n');
        self.to_server.send(bytes).await.map_err(|_| TestError::Protocol("the server stopped reading".into()))
    }

    /// `params` with the per-request `_meta` of 2026-07-28, or as they are before it.
    fn with_meta(&self, mut params: Value) -> Value {
        if self.revision.supports(Feature::Stateless)
            && let Some(object) = params.as_object_mut()
        {
            let meta = object.entry("_meta").or_insert_with(|| json!({}));
            if let Some(meta) = meta.as_object_mut() {
                meta.insert("io.modelcontextprotocol/protocolVersion".into(), json!(self.revision.as_str()));
                meta.insert(
                    "io.modelcontextprotocol/clientCapabilities".into(),
                    self.answers.capabilities(self.revision),
                );
                meta.insert(
                    "io.modelcontextprotocol/clientInfo".into(),
                    json!({"name": "mcp-runtime-testing", "version": env!("CARGO_PKG_VERSION")}),
                );
            }
        }
        params
    }
}

/// Hands one message from the server to whoever waits for it.
async fn route(
    bytes: &[u8],
    pending: &Pending,
    notifications: &Mutex<Vec<Value>>,
    answers: &Answers,
    to_server: &mpsc::WeakSender<Vec<u8>>,
) {
    let Ok(message) = serde_json::from_slice::<Value>(bytes) else {
        lock(notifications).push(json!({"invalid": String::from_utf8_lossy(bytes)}));
        return;
    };
    let id = message.get("id").cloned();
    match (message.get("method").and_then(Value::as_str), id) {
        (Some(method), Some(id)) => {
            let params = message.get("params").cloned().unwrap_or_else(|| json!({}));
            let answer = if method == "ping" { Some(json!({})) } else { answers.answer(method, &params) };
            let reply = match answer {
                Some(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
                None => {
                    let message = format!("the test client does not answer {method}");
                    let error = json!({"code": crate::protocol::code::METHOD_NOT_FOUND, "message": message});
                    json!({"jsonrpc": "2.0", "id": id, "error": error})
                }
            };
            let mut reply = reply.to_string().into_bytes();
            reply.push(b'\n');
            if let Some(to_server) = to_server.upgrade() {
                let _ = to_server.send(reply).await;
            }
        }
        (Some(_), None) => lock(notifications).push(message),
        (None, Some(id)) => {
            let waiting = id.as_u64().and_then(|id| lock(pending).remove(&id));
            if let Some(waiting) = waiting {
                let answer = match message.get("error") {
                    Some(error) => Err(serde_json::from_value(error.clone()).unwrap_or_else(|_| ErrorObject {
                        code: 0,
                        message: error.to_string(),
                        data: None,
                    })),
                    None => Ok(message.get("result").cloned().unwrap_or(Value::Null)),
                };
                let _ = waiting.send(answer);
            }
        }
        (None, None) => lock(notifications).push(message),
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn compile(schema: &Value, what: &str) -> Result<jsonschema::Validator, TestError> {
    jsonschema::validator_for(schema)
        .map_err(|e| schema_error(format!("{what} (not a valid JSON Schema)"), &e.to_string()))
}

/// Checks `value` against `schema`, naming each violation with its place in the value.
fn check(schema: &Value, value: &Value, what: &str) -> Result<(), TestError> {
    let validator = compile(schema, what)?;
    let errors: Vec<String> =
        validator.iter_errors(value).map(|e| format!("at `{}`: {e}", e.instance_path())).collect();
    if errors.is_empty() { Ok(()) } else { Err(TestError::Schema { what: what.to_owned(), errors }) }
}

fn schema_error(what: String, error: &str) -> TestError {
    TestError::Schema { what, errors: vec![error.to_owned()] }
}

fn protocol(method: &str, result: &Value) -> TestError {
    TestError::Protocol(format!("{method} returned a result of the wrong shape: {result}"))
}
