//! Configuring a [`Client`]: who it is, which era it speaks, how it answers the server's
//! questions, and where it connects.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Map, Value};

use super::connection::{Connection, Link};
use super::error::ClientError;
use super::handlers::{Handlers, handler};
use super::negotiate::{Era, Introduction, meta, negotiate};
use super::transport::http::HttpLink;
use super::transport::stdio::Stderr;
use super::transport::{memory, stdio};
use super::{Client, Ending, Inner};
use crate::Server;
use crate::protocol::{ErrorObject, Feature, Implementation, Revision};

/// Why connecting to a server in memory failed: it did not start, or it started and the
/// client failed.
#[derive(Debug)]
pub(crate) enum Started {
    No(crate::Error),
    Yes(ClientError),
}

/// How many input-required rounds one request may take by default (2026-07-28).
pub const DEFAULT_MAX_ROUNDS: usize = 16;

/// Configures a [`Client`]; `Client::builder()` makes one.
///
/// ```no_run
/// use mcp_runtime::client::Client;
/// use serde_json::json;
///
/// # async fn run() -> Result<(), mcp_runtime::client::ClientError> {
/// let client = Client::builder()
///     .name("gift-shop", "1.0.0")
///     .on_elicitation(|_question| async { Ok(json!({"action": "accept", "content": {"ok": true}})) })
///     .spawn("gift_genius", ["--stdio"])
///     .await?;
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct ClientBuilder {
    info: Implementation,
    era: Era,
    revision: Option<Revision>,
    handlers: Handlers,
    timeout: Option<Duration>,
    max_rounds: usize,
    headers: reqwest::header::HeaderMap,
    bearer: Option<String>,
    oauth: Option<super::OAuth>,
    stderr: Stderr,
}

impl Default for ClientBuilder {
    fn default() -> Self {
        ClientBuilder {
            info: Implementation::new("mcp-runtime-client", env!("CARGO_PKG_VERSION")),
            era: Era::Auto,
            revision: None,
            handlers: Handlers::default(),
            timeout: None,
            max_rounds: DEFAULT_MAX_ROUNDS,
            headers: reqwest::header::HeaderMap::new(),
            bearer: None,
            oauth: None,
            stderr: Stderr::default(),
        }
    }
}

impl ClientBuilder {
    /// The client's name and version, as `clientInfo` says them.
    #[must_use]
    pub fn name(mut self, name: impl Into<String>, version: impl Into<String>) -> Self {
        self.info = Implementation::new(name, version);
        self
    }

    /// Speaks exactly `revision`: a handshake revision is asked for in `initialize`,
    /// 2026-07-28 is spoken without a handshake.
    #[must_use]
    pub fn revision(mut self, revision: Revision) -> Self {
        self.revision = Some(revision);
        self.era = if revision == Revision::V2026_07_28 { Era::Stateless } else { Era::Handshake };
        self
    }

    /// Which lifecycle to start with ([`Era::Auto`] by default).
    #[must_use]
    pub fn era(mut self, era: Era) -> Self {
        self.era = era;
        self
    }

    /// Fails a request (and cancels it) when its answer takes longer than `timeout`; none by
    /// default. One call may set its own.
    #[must_use]
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// How many input-required rounds one request may take (2026-07-28) before it fails.
    #[must_use]
    pub fn max_rounds(mut self, rounds: usize) -> Self {
        self.max_rounds = rounds.max(1);
        self
    }

    /// Answers `elicitation/create` (both modes, form and URL) with what `answer` returns
    /// for its params (an `ElicitResult`: `{"action": "accept", "content": {..}}`, `decline`
    /// or `cancel`), and declares the `elicitation` capability.
    #[must_use]
    pub fn on_elicitation<F, Fut>(mut self, answer: F) -> Self
    where
        F: Fn(Value) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Value, ErrorObject>> + Send + 'static,
    {
        self.handlers.elicitation = Some(handler(answer));
        self
    }

    /// Answers `sampling/createMessage` (a `CreateMessageResult`: `role`, `content`,
    /// `model`), and declares the `sampling` capability.
    #[must_use]
    pub fn on_sampling<F, Fut>(mut self, answer: F) -> Self
    where
        F: Fn(Value) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Value, ErrorObject>> + Send + 'static,
    {
        self.handlers.sampling = Some(handler(answer));
        self
    }

    /// Answers `roots/list` (a `ListRootsResult`: `{"roots": [{"uri": "file:///.."}]}`), and
    /// declares the `roots` capability.
    #[must_use]
    pub fn on_roots<F, Fut>(mut self, answer: F) -> Self
    where
        F: Fn(Value) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Value, ErrorObject>> + Send + 'static,
    {
        self.handlers.roots = Some(handler(answer));
        self
    }

    /// Answers any other request the server sends, `method`, raw: what a proxy forwards.
    #[must_use]
    pub fn on_request<F, Fut>(mut self, method: impl Into<String>, answer: F) -> Self
    where
        F: Fn(Value) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Value, ErrorObject>> + Send + 'static,
    {
        self.handlers.others.insert(method.into(), handler(answer));
        self
    }

    /// Declares the extension `id` with `settings` in the client's capabilities
    /// (2026-07-28): the tasks extension, say (see [`tasks`](Self::tasks)).
    #[must_use]
    pub fn extension(mut self, id: impl Into<String>, settings: Value) -> Self {
        self.handlers.extensions.insert(id.into(), settings);
        self
    }

    /// Opts in to the tasks extension (2026-07-28): a tool that allows tasks then runs as
    /// one (see [`Client::call_tool_as_task`]).
    #[must_use]
    pub fn tasks(self) -> Self {
        self.extension(crate::tasks::EXTENSION, Value::Object(Map::new()))
    }

    /// Sends `name: value` with every HTTP request.
    ///
    /// # Panics
    ///
    /// When `name` or `value` cannot be an HTTP header (a programming error, found at once).
    #[must_use]
    pub fn header(mut self, name: &str, value: &str) -> Self {
        let name = reqwest::header::HeaderName::from_bytes(name.as_bytes()).expect("a valid header name");
        let value = reqwest::header::HeaderValue::from_str(value).expect("a valid header value");
        self.headers.insert(name, value);
        self
    }

    /// Sends `Authorization: Bearer <token>` with every HTTP request.
    #[must_use]
    pub fn bearer(mut self, token: impl Into<String>) -> Self {
        self.bearer = Some(token.into());
        self
    }

    /// Obtains tokens from the server's authorization server when it answers 401 (or 403
    /// `insufficient_scope`), as `oauth` says (HTTP only).
    #[must_use]
    pub fn oauth(mut self, oauth: super::OAuth) -> Self {
        self.oauth = Some(oauth);
        self
    }

    /// What happens to a spawned server's stderr ([`Stderr::PassThrough`] by default).
    #[must_use]
    pub fn stderr(mut self, stderr: Stderr) -> Self {
        self.stderr = stderr;
        self
    }

    /// Connects to `server`, started in memory on the caller's runtime.
    pub async fn memory(self, server: Server) -> Result<Client, ClientError> {
        self.memory_or_start_error(server).await.map_err(|e| match e {
            Started::No(e) => ClientError::Transport(format!("the server could not start: {e}")),
            Started::Yes(e) => e,
        })
    }

    /// Connects to `server` in memory, telling a server that could not start (its own error)
    /// from a failed negotiation.
    pub(crate) async fn memory_or_start_error(self, server: Server) -> Result<Client, Started> {
        let (connection, serving) = memory::connect(server, self.handlers.clone()).map_err(Started::No)?;
        self.finish(connection, Ending::Memory(serving)).await.map_err(Started::Yes)
    }

    /// Runs `command` and connects to it over its stdin and stdout.
    pub async fn stdio(self, command: tokio::process::Command) -> Result<Client, ClientError> {
        let (connection, process) = stdio::connect(command, self.handlers.clone(), self.stderr)?;
        self.finish(connection, Ending::Process(process)).await
    }

    /// Runs `program` with `args` and connects to it over its stdin and stdout.
    pub async fn spawn<I, S>(self, program: &str, args: I) -> Result<Client, ClientError>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<std::ffi::OsStr>,
    {
        let mut command = tokio::process::Command::new(program);
        command.args(args);
        self.stdio(command).await
    }

    /// Connects to the Streamable HTTP endpoint at `url`.
    pub async fn http(self, url: &str) -> Result<Client, ClientError> {
        let link = HttpLink::new(url, self.headers.clone(), self.bearer.clone(), self.oauth.clone())?;
        let connection = Connection::new(Link::Http(Box::new(link)), self.handlers.clone());
        self.finish(connection, Ending::Http).await
    }

    async fn finish(self, connection: Arc<Connection>, ending: Ending) -> Result<Client, ClientError> {
        let handlers = self.handlers.clone();
        let capabilities = move |revision: Revision| handlers.capabilities(revision);
        let me = Introduction { info: &self.info, capabilities: &capabilities };
        let negotiation = match negotiate(&connection, self.era, self.revision, &me).await {
            Ok(negotiation) => negotiation,
            Err(e) => {
                Client::end(&connection, ending, "the negotiation failed").await;
                return Err(e);
            }
        };
        let stateless = negotiation.revision.supports(Feature::Stateless);
        let meta = if stateless { meta(negotiation.revision, &me) } else { Map::new() };
        Ok(Client {
            inner: Arc::new(Inner {
                connection,
                negotiation,
                meta,
                timeout: self.timeout,
                max_rounds: self.max_rounds,
                log_level: std::sync::Mutex::default(),
                ending: tokio::sync::Mutex::new(Some(ending)),
            }),
        })
    }
}
