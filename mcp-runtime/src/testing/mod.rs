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
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};

use crate::Server;
use crate::client::{Client, ClientBuilder, ClientError, Notifications};
use crate::protocol::{ErrorObject, Revision};
use crate::util::lock;

mod tasks;

/// A question the server asked the client.
#[derive(Debug, Clone, PartialEq)]
pub struct Question {
    /// `elicitation/create`, `sampling/createMessage` or `roots/list`.
    pub method: String,
    /// Its params, as the server sent them.
    pub params: Value,
}

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

impl From<ClientError> for TestError {
    fn from(error: ClientError) -> TestError {
        match error {
            ClientError::Rpc { error, .. } => TestError::Rpc(error),
            other => TestError::Protocol(other.to_string()),
        }
    }
}

/// A handler of the test's: given the question's params, the client's answer.
type Answerer = Arc<dyn Fn(&Value) -> Value + Send + Sync>;

/// A [`Client`] connected in memory to a server running on the caller's tokio runtime, which
/// checks what it sends and receives against the schemas the server declares, and keeps the
/// questions it answered and the notifications it received for the test to look at.
///
/// Each method sends one request and waits for its answer; several may run at once.
#[derive(Debug)]
pub struct TestClient {
    client: Client,
    asked: Arc<Mutex<Vec<Question>>>,
    /// The notifications read so far, and the reader of those still to come.
    notifications: Mutex<(Notifications, Vec<Value>)>,
    /// `tools/list` entries by name, fetched on the first call that needs a tool's schemas.
    tools: tokio::sync::OnceCell<HashMap<String, Value>>,
    /// The server's capabilities: from `initialize`, or from `server/discover` when first asked.
    capabilities: tokio::sync::OnceCell<Value>,
}

/// Configures a [`TestClient`]: its revision and how it answers the server's questions.
pub struct TestClientBuilder {
    revision: Revision,
    elicitation: Option<Answerer>,
    sampling: Option<Answerer>,
    roots: Option<Answerer>,
    tasks: bool,
}

impl fmt::Debug for TestClientBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TestClientBuilder")
            .field("revision", &self.revision)
            .field("elicitation", &self.elicitation.is_some())
            .field("sampling", &self.sampling.is_some())
            .field("roots", &self.roots.is_some())
            .field("tasks", &self.tasks)
            .finish()
    }
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
        self.elicitation = Some(Arc::new(answer));
        self
    }

    /// Answers `sampling/createMessage` (a `CreateMessageResult`: `role`, `content`, `model`),
    /// and declares the `sampling` capability.
    #[must_use]
    pub fn on_sampling(mut self, answer: impl Fn(&Value) -> Value + Send + Sync + 'static) -> Self {
        self.sampling = Some(Arc::new(answer));
        self
    }

    /// Answers `roots/list` (a `ListRootsResult`: `{"roots": [{"uri": "file:///.."}]}`), and
    /// declares the `roots` capability.
    #[must_use]
    pub fn on_roots(mut self, answer: impl Fn(&Value) -> Value + Send + Sync + 'static) -> Self {
        self.roots = Some(Arc::new(answer));
        self
    }

    /// Opts in to the tasks extension on every request (2026-07-28): a tool that allows
    /// tasks then runs as one (see [`TestClient::call_tool_as_task`]).
    #[must_use]
    pub fn tasks(mut self) -> Self {
        self.tasks = true;
        self
    }

    /// Connects to `server` (see [`TestClient::connect_as`]).
    pub async fn connect(self, server: Server) -> Result<TestClient, TestError> {
        let asked: Arc<Mutex<Vec<Question>>> = Arc::default();
        let mut builder =
            Client::builder().name("mcp-runtime-testing", env!("CARGO_PKG_VERSION")).revision(self.revision);
        // Each handler records the question before answering it.
        let recorded = |method: &'static str, answer: Answerer| {
            let asked = Arc::clone(&asked);
            move |params: Value| {
                lock(&asked).push(Question { method: method.to_owned(), params: params.clone() });
                let result = answer(&params);
                async move { Ok::<_, ErrorObject>(result) }
            }
        };
        if let Some(answer) = self.elicitation {
            builder = builder.on_elicitation(recorded("elicitation/create", answer));
        }
        if let Some(answer) = self.sampling {
            builder = builder.on_sampling(recorded("sampling/createMessage", answer));
        }
        if let Some(answer) = self.roots {
            builder = builder.on_roots(recorded("roots/list", answer));
        }
        if self.tasks {
            builder = builder.tasks();
        }
        TestClient::over(builder, server, asked).await
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
        TestClientBuilder {
            revision: Revision::LATEST_HANDSHAKE,
            elicitation: None,
            sampling: None,
            roots: None,
            tasks: false,
        }
    }

    async fn over(
        builder: ClientBuilder,
        server: Server,
        asked: Arc<Mutex<Vec<Question>>>,
    ) -> Result<TestClient, TestError> {
        use crate::client::builder::Started;
        let client = builder.memory_or_start_error(server).await.map_err(|e| match e {
            Started::No(e) => TestError::Server(e),
            Started::Yes(e) => TestError::from(e),
        })?;
        let capabilities = tokio::sync::OnceCell::new();
        let _ = capabilities.set(serde_json::to_value(&client.negotiation().capabilities).unwrap_or(Value::Null));
        let reader = client.notifications();
        Ok(TestClient {
            client,
            asked,
            notifications: Mutex::new((reader, Vec::new())),
            tools: tokio::sync::OnceCell::new(),
            capabilities,
        })
    }

    /// The [`Client`] underneath: its typed calls, its notification stream.
    pub fn client(&self) -> &Client {
        &self.client
    }

    /// The capabilities the server declares to this client's revision: from its `initialize`
    /// result, or (2026-07-28) from `server/discover`.
    pub async fn server_capabilities(&self) -> Result<Value, TestError> {
        let capabilities = self
            .capabilities
            .get_or_try_init(|| async {
                let discovered = self.request("server/discover", json!({})).await?;
                Ok::<_, TestError>(discovered["capabilities"].clone())
            })
            .await?;
        Ok(capabilities.clone())
    }

    /// The revision this client speaks.
    pub fn revision(&self) -> Revision {
        self.client.revision()
    }

    /// Sends `method` with `params` (an object; the 2026-07-28 `_meta` is added) and returns
    /// the result, with no schema check: for what the other methods do not cover.
    pub async fn request(&self, method: &str, params: Value) -> Result<Value, TestError> {
        Ok(self.client.request(method, params).await?)
    }

    /// Every tool, following `nextCursor` across pages. Each input and output schema must be
    /// a JSON Schema for an object.
    pub async fn list_tools(&self) -> Result<Vec<Value>, TestError> {
        let tools = self.list_all("tools/list", json!({}), "tools").await?;
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
        let result = self.request("tools/call", json!({"name": name, "arguments": arguments})).await?;
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
        self.list_all("resources/list", json!({}), "resources").await
    }

    /// Every resource template, across pages.
    pub async fn list_resource_templates(&self) -> Result<Vec<Value>, TestError> {
        self.list_all("resources/templates/list", json!({}), "resourceTemplates").await
    }

    /// Reads `uri`; each of the contents must name a URI and hold `text` or `blob`.
    pub async fn read_resource(&self, uri: &str) -> Result<Value, TestError> {
        let result = self.request("resources/read", json!({"uri": uri})).await?;
        let contents = result["contents"].as_array().ok_or_else(|| protocol("resources/read", &result))?;
        if contents.iter().any(|c| !c["uri"].is_string() || !(c["text"].is_string() || c["blob"].is_string())) {
            return Err(protocol("resources/read", &result));
        }
        Ok(result)
    }

    /// Every skill's entry (`skills/list`, the skills extension), across pages.
    pub async fn list_skills(&self) -> Result<Vec<Value>, TestError> {
        self.list_all("skills/list", json!({}), "skills").await
    }

    /// The entry of the skill whose `SKILL.md` is at `uri` (`skills/get`).
    pub async fn get_skill(&self, uri: &str) -> Result<Value, TestError> {
        let result = self.request("skills/get", json!({"uri": uri})).await?;
        result.get("skill").cloned().ok_or_else(|| protocol("skills/get", &result))
    }

    /// The direct children of the folder at `uri` (`resources/directory/read`), across pages:
    /// files, and folders as `inode/directory`.
    pub async fn read_directory(&self, uri: &str) -> Result<Vec<Value>, TestError> {
        self.list_all("resources/directory/read", json!({"uri": uri}), "resources").await
    }

    /// Every prompt, across pages.
    pub async fn list_prompts(&self) -> Result<Vec<Value>, TestError> {
        self.list_all("prompts/list", json!({}), "prompts").await
    }

    /// Gets prompt `name` with `arguments` (string values, as the protocol has them).
    pub async fn get_prompt(&self, name: &str, arguments: Value) -> Result<Value, TestError> {
        let result = self.request("prompts/get", json!({"name": name, "arguments": arguments})).await?;
        if !result["messages"].is_array() {
            return Err(protocol("prompts/get", &result));
        }
        Ok(result)
    }

    /// Completes argument `argument`, typed so far as `value`, of `reference` (e.g.
    /// `{"type": "ref/prompt", "name": "greet"}`), and returns the suggested values.
    pub async fn complete(&self, reference: Value, argument: &str, value: &str) -> Result<Vec<String>, TestError> {
        let params = json!({"ref": reference, "argument": {"name": argument, "value": value}});
        let result = self.request("completion/complete", params).await?;
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
        lock(&self.asked).clone()
    }

    /// The notifications the server sent so far, in order (each as the whole message).
    pub fn notifications(&self) -> Vec<Value> {
        let mut notifications = lock(&self.notifications);
        let (reader, seen) = &mut *notifications;
        while let Some((method, params)) = reader.try_next_raw() {
            let mut message = json!({"jsonrpc": "2.0", "method": method});
            if !params.is_null() {
                message["params"] = params;
            }
            seen.push(message);
        }
        seen.clone()
    }

    /// Disconnects and waits for the server to finish what it was doing; its error, if it
    /// stopped with one.
    pub async fn close(self) -> Result<(), TestError> {
        self.client.close().await.map_err(|e| match e {
            ClientError::Closed(why) => TestError::Protocol(why),
            other => TestError::from(other),
        })
    }

    /// Sends the notification `method` with `params`, as they are: `notifications/cancelled`
    /// with a [`next_request_id`](Self::next_request_id) taken before a request, say.
    pub async fn notify(&self, method: &str, params: Value) -> Result<(), TestError> {
        Ok(self.client.notify(method, params).await?)
    }

    /// The id the next request this client sends will carry (ids count up from 1). Take it
    /// just before [`request`](Self::request) to cancel that request; the typed methods may
    /// send a listing first.
    pub fn next_request_id(&self) -> u64 {
        self.client.next_request_id()
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

    /// Every item of `field` across the pages of `method`, each page asked with `params`.
    async fn list_all(&self, method: &str, params: Value, field: &str) -> Result<Vec<Value>, TestError> {
        Ok(self.client.list_all::<Value>(method, params, field).await?)
    }
}

/// Fails unless `schema` is a JSON Schema.
fn compile(schema: &Value, what: &str) -> Result<(), TestError> {
    crate::client::schema_check::compiles(schema)
        .map_err(|e| schema_error(format!("{what} (not a valid JSON Schema)"), &e))
}

/// Checks `value` against `schema`, naming each violation with its place in the value.
fn check(schema: &Value, value: &Value, what: &str) -> Result<(), TestError> {
    let errors = crate::client::schema_check::violations(schema, value)
        .map_err(|e| schema_error(format!("{what} (not a valid JSON Schema)"), &e))?;
    if errors.is_empty() { Ok(()) } else { Err(TestError::Schema { what: what.to_owned(), errors }) }
}

fn schema_error(what: String, error: &str) -> TestError {
    TestError::Schema { what, errors: vec![error.to_owned()] }
}

fn protocol(method: &str, result: &Value) -> TestError {
    TestError::Protocol(format!("{method} returned a result of the wrong shape: {result}"))
}
