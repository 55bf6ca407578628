//! The typed calls: lists that follow every page, tools called with any `Serialize` and read
//! as any `Deserialize`, resources, prompts, completion, subscriptions, the log level, ping.
//! Each checks first that the server declared the capability its method needs.

use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use tokio::sync::mpsc;

use super::connection::Sending;
use super::transport::http::http_of;
use super::{Client, ClientError, Progress};
use crate::protocol::{
    CallToolResult, Completion, Feature, GetPromptResult, LogLevel, Prompt, ReadResourceResult, Resource,
    ResourceTemplate, Tool,
};
use crate::util::lock;

/// How many pages a list may take before the client stops following `nextCursor`.
const MAX_PAGES: usize = 1000;

/// How progress reports wait for their reader before the newest are dropped.
const PROGRESS_BUFFER: usize = 64;

/// How one call is made: its timeout, and whether it reports progress.
///
/// ```no_run
/// # async fn run(client: mcp_runtime::client::Client) -> Result<(), mcp_runtime::client::ClientError> {
/// use mcp_runtime::client::CallOptions;
/// use std::time::Duration;
///
/// let (options, mut progress) = CallOptions::new().timeout(Duration::from_secs(30)).progress();
/// let call = client.call_tool_with("report", serde_json::json!({}), options);
/// tokio::pin!(call);
/// let result = loop {
///     tokio::select! {
///         Some(report) = progress.next() => println!("{} of {:?}", report.progress, report.total),
///         result = &mut call => break result?,
///     }
/// };
/// # Ok(()) }
/// ```
#[derive(Debug, Default, Clone)]
pub struct CallOptions {
    timeout: Option<Duration>,
    progress: Option<mpsc::Sender<Progress>>,
    /// Check the structured result against the tool's `outputSchema`.
    check_output: bool,
}

impl CallOptions {
    /// The client's defaults.
    pub fn new() -> CallOptions {
        CallOptions::default()
    }

    /// Fails the call (and cancels it) when its answer takes longer than `timeout`.
    #[must_use]
    pub fn timeout(mut self, timeout: Duration) -> CallOptions {
        self.timeout = Some(timeout);
        self
    }

    /// Asks the server for progress (a `progressToken`): the reports arrive on the stream
    /// returned beside the options.
    pub fn progress(mut self) -> (CallOptions, ProgressReports) {
        let (sender, receiver) = mpsc::channel(PROGRESS_BUFFER);
        self.progress = Some(sender);
        (self, ProgressReports(receiver))
    }

    /// Checks a successful result's structured content against the tool's `outputSchema`
    /// (feature `testing`, which brings a JSON Schema validator): a result that breaks it, or
    /// lacks it, is an error naming each violation.
    #[cfg(feature = "testing")]
    #[must_use]
    pub fn check_output(mut self) -> CallOptions {
        self.check_output = true;
        self
    }

    fn sending(self) -> Sending {
        Sending { timeout: self.timeout, progress: self.progress, ..Sending::default() }
    }
}

/// The progress reports of one call, in order; the stream ends with the call.
#[derive(Debug)]
pub struct ProgressReports(mpsc::Receiver<Progress>);

impl ProgressReports {
    /// The next report; `None` once the call is over.
    pub async fn next(&mut self) -> Option<Progress> {
        self.0.recv().await
    }
}

impl Client {
    /// Fails with [`ClientError::NotDeclared`] unless the server declared what `method` needs.
    fn require(&self, method: &str, capability: &'static str, declared: bool) -> Result<(), ClientError> {
        if declared { Ok(()) } else { Err(ClientError::NotDeclared { method: method.to_owned(), capability }) }
    }

    /// Fails with [`ClientError::NotDeclared`] unless the server declared extension `id`
    /// (`capability` names it in the error: `extensions.<id>`).
    pub(crate) fn require_extension(
        &self,
        method: &str,
        id: &str,
        capability: &'static str,
    ) -> Result<(), ClientError> {
        let extensions = self.capabilities().extensions.as_ref();
        self.require(method, capability, extensions.is_some_and(|declared| declared.contains_key(id)))
    }

    fn capabilities(&self) -> &crate::protocol::ServerCapabilities {
        &self.inner.negotiation.capabilities
    }

    /// Every tool, across pages. In the handshake era the list is kept until the server says
    /// it changed (`notifications/tools/list_changed`).
    pub async fn list_tools(&self) -> Result<Vec<Tool>, ClientError> {
        Ok(self.tools().await?.as_ref().clone())
    }

    /// The tool list, from the cache when it holds one.
    async fn tools(&self) -> Result<Arc<Vec<Tool>>, ClientError> {
        self.require("tools/list", "tools", self.capabilities().tools.is_some())?;
        if let Some(tools) = lock(&self.inner.connection.lists).tools.clone() {
            return Ok(tools);
        }
        let mut tools = self.list_all::<Tool>("tools/list", json!({}), "tools").await?;
        if self.revision().supports(Feature::Stateless) {
            // A tool whose header mirroring is malformed cannot be called correctly: it is
            // left out, as 2026-07-28 asks of clients.
            tools.retain(|tool| match mirrored_headers(tool) {
                Ok(_) => true,
                Err(why) => {
                    tracing::warn!(tool = %tool.name, "the server's tool is left out: {why}");
                    false
                }
            });
        }
        let tools = Arc::new(tools);
        let mut lists = lock(&self.inner.connection.lists);
        // Kept as the list only where a change is announced to this client (a handshake-era
        // connection); always as what the arguments' headers are read from.
        if self.revision().supports(Feature::Handshake) {
            lists.tools = Some(Arc::clone(&tools));
        }
        lists.last_tools = Some(Arc::clone(&tools));
        Ok(tools)
    }

    /// Calls tool `name` with `arguments` (any `Serialize` that makes an object). A tool
    /// that failed answers `isError: true`: that is a result, not an error.
    pub async fn call_tool(&self, name: &str, arguments: impl Serialize) -> Result<CallToolResult, ClientError> {
        self.call_tool_with(name, arguments, CallOptions::default()).await
    }

    /// Calls tool `name` and reads its structured result as `T` (before 2025-06-18, which has
    /// no structured content, its one text block as JSON); a result marked `isError`, or one
    /// with neither, is an error that carries its text.
    pub async fn call_tool_as<T: DeserializeOwned>(
        &self,
        name: &str,
        arguments: impl Serialize,
    ) -> Result<T, ClientError> {
        let result = self.call_tool(name, arguments).await?;
        let text = || {
            result
                .content
                .iter()
                .filter_map(|c| match c {
                    crate::protocol::Content::Text { text, .. } => Some(text.as_str()),
                    _ => None,
                })
                .collect::<Vec<_>>()
                .join(" ")
        };
        if result.is_error {
            return Err(ClientError::Protocol(format!("tool `{name}` failed: {}", text())));
        }
        // Before 2025-06-18 a result has no structured content: servers send the JSON as the
        // one text block instead.
        let from_text;
        let structured = match &result.structured_content {
            Some(structured) => structured,
            None => {
                let only_text = match result.content.as_slice() {
                    [crate::protocol::Content::Text { text, .. }] => serde_json::from_str::<Value>(text).ok(),
                    _ => None,
                };
                from_text = only_text.ok_or_else(|| {
                    ClientError::Protocol(format!(
                        "tool `{name}` returned no structured content (its text: {})",
                        text()
                    ))
                })?;
                &from_text
            }
        };
        // A tool whose output is not an object is wrapped as `{"result": ..}` before
        // 2026-07-28: what the caller asked for is the value inside.
        serde_json::from_value::<T>(structured.clone())
            .or_else(|first| {
                match structured
                    .as_object()
                    .and_then(|o| o.get("result"))
                    .filter(|_| structured.as_object().is_some_and(|o| o.len() == 1))
                {
                    Some(inner) => serde_json::from_value::<T>(inner.clone()).map_err(|_| first),
                    None => Err(first),
                }
            })
            .map_err(|e| ClientError::shape(&format!("tools/call `{name}`"), e))
    }

    /// Calls tool `name` with `options` (a timeout, progress reports).
    pub async fn call_tool_with(
        &self,
        name: &str,
        arguments: impl Serialize,
        options: CallOptions,
    ) -> Result<CallToolResult, ClientError> {
        self.require("tools/call", "tools", self.capabilities().tools.is_some())?;
        let arguments = serde_json::to_value(arguments)
            .map_err(|e| ClientError::Protocol(format!("the arguments of tool `{name}` cannot be written: {e}")))?;
        let check_output = options.check_output;
        let mut sending = options.sending();
        sending.headers = self.param_headers(name, &arguments).await?;
        let raw = self.send("tools/call", json!({"name": name, "arguments": arguments}), sending).await?;
        let result: CallToolResult =
            serde_json::from_str(raw.get()).map_err(|e| ClientError::shape("tools/call", e))?;
        if check_output && !result.is_error {
            self.check_output(name, &result).await?;
        }
        Ok(result)
    }

    /// Fails unless `result`'s structured content matches the `outputSchema` tool `name`
    /// declares (when it declares one).
    #[cfg(feature = "testing")]
    async fn check_output(&self, name: &str, result: &CallToolResult) -> Result<(), ClientError> {
        let tools = self.tools().await?;
        let Some(schema) = tools.iter().find(|t| t.name == name).and_then(|t| t.output_schema.as_ref()) else {
            return Ok(());
        };
        let what = format!("the structuredContent of tool `{name}`");
        let Some(structured) = &result.structured_content else {
            return Err(ClientError::Protocol(format!(
                "{what} is missing, although the tool declares an outputSchema"
            )));
        };
        let broken = super::schema_check::violations(schema, structured).map_err(|e| {
            ClientError::Protocol(format!("the outputSchema of tool `{name}` is not a JSON Schema: {e}"))
        })?;
        if broken.is_empty() {
            Ok(())
        } else {
            Err(ClientError::Protocol(format!("{what} breaks its outputSchema: {}", broken.join("; "))))
        }
    }

    #[cfg(not(feature = "testing"))]
    async fn check_output(&self, _: &str, _: &CallToolResult) -> Result<(), ClientError> {
        Ok(())
    }

    /// 2026-07-28 over HTTP: the `Mcp-Param-*` headers of the arguments tool `name` mirrors
    /// (`x-mcp-header` in its input schema).
    async fn param_headers(&self, name: &str, arguments: &Value) -> Result<Vec<(String, String)>, ClientError> {
        if !self.revision().supports(Feature::Stateless) || http_of(&self.inner.connection).is_none() {
            return Ok(Vec::new());
        }
        let seen = lock(&self.inner.connection.lists).last_tools.clone();
        let tools = match seen {
            Some(tools) => tools,
            None => self.tools().await?,
        };
        let Some(tool) = tools.iter().find(|t| t.name == name) else { return Ok(Vec::new()) };
        let mut headers = Vec::new();
        for (argument, header) in mirrored_headers(tool).map_err(ClientError::Protocol)? {
            let Some(value) = arguments.get(argument) else { continue };
            let text = match value {
                Value::String(text) => text.clone(),
                Value::Null => continue,
                other => other.to_string(),
            };
            headers.push((format!("mcp-param-{header}"), super::transport::http::header_value(&text)));
        }
        Ok(headers)
    }

    /// Every resource, across pages.
    pub async fn list_resources(&self) -> Result<Vec<Resource>, ClientError> {
        self.require("resources/list", "resources", self.capabilities().resources.is_some())?;
        self.list_all("resources/list", json!({}), "resources").await
    }

    /// Every resource template, across pages.
    pub async fn list_resource_templates(&self) -> Result<Vec<ResourceTemplate>, ClientError> {
        self.require("resources/templates/list", "resources", self.capabilities().resources.is_some())?;
        self.list_all("resources/templates/list", json!({}), "resourceTemplates").await
    }

    /// Reads the resource at `uri`.
    pub async fn read_resource(&self, uri: &str) -> Result<ReadResourceResult, ClientError> {
        self.require("resources/read", "resources", self.capabilities().resources.is_some())?;
        self.typed("resources/read", json!({"uri": uri})).await
    }

    /// Asks for `notifications/resources/updated` when the resource at `uri` changes
    /// (handshake revisions).
    pub async fn subscribe(&self, uri: &str) -> Result<(), ClientError> {
        let declared = self.capabilities().resources.as_ref().is_some_and(|r| r.subscribe == Some(true));
        self.require("resources/subscribe", "resources.subscribe", declared)?;
        self.send("resources/subscribe", json!({"uri": uri}), Sending::default()).await.map(drop)
    }

    /// Stops the updates of the resource at `uri`.
    pub async fn unsubscribe(&self, uri: &str) -> Result<(), ClientError> {
        let declared = self.capabilities().resources.as_ref().is_some_and(|r| r.subscribe == Some(true));
        self.require("resources/unsubscribe", "resources.subscribe", declared)?;
        self.send("resources/unsubscribe", json!({"uri": uri}), Sending::default()).await.map(drop)
    }

    /// Every prompt, across pages.
    pub async fn list_prompts(&self) -> Result<Vec<Prompt>, ClientError> {
        self.require("prompts/list", "prompts", self.capabilities().prompts.is_some())?;
        self.list_all("prompts/list", json!({}), "prompts").await
    }

    /// Gets prompt `name` with `arguments` (an object of strings, as the protocol has them;
    /// any `Serialize` that makes one).
    pub async fn get_prompt(&self, name: &str, arguments: impl Serialize) -> Result<GetPromptResult, ClientError> {
        self.require("prompts/get", "prompts", self.capabilities().prompts.is_some())?;
        let arguments = serde_json::to_value(arguments)
            .map_err(|e| ClientError::Protocol(format!("the arguments of prompt `{name}` cannot be written: {e}")))?;
        self.typed("prompts/get", json!({"name": name, "arguments": arguments})).await
    }

    /// Completes argument `argument`, typed so far as `value`, of `reference` (e.g.
    /// `{"type": "ref/prompt", "name": "greet"}`).
    pub async fn complete(&self, reference: Value, argument: &str, value: &str) -> Result<Completion, ClientError> {
        // 2024-11-05 had no capability for it: a server of that revision is asked as it is.
        let declared =
            self.capabilities().completions.is_some() || !self.revision().supports(Feature::CompletionsCapability);
        self.require("completion/complete", "completions", declared)?;
        let params = json!({"ref": reference, "argument": {"name": argument, "value": value}});
        let raw = self.send("completion/complete", params, Sending::default()).await?;
        #[derive(serde::Deserialize)]
        struct Completed {
            completion: Completion,
        }
        let completed: Completed =
            serde_json::from_str(raw.get()).map_err(|e| ClientError::shape("completion/complete", e))?;
        Ok(completed.completion)
    }

    /// Asks for log messages at `level` and above: `logging/setLevel` in the handshake era,
    /// each request's `_meta` in 2026-07-28.
    pub async fn set_log_level(&self, level: LogLevel) -> Result<(), ClientError> {
        self.require("logging/setLevel", "logging", self.capabilities().logging.is_some())?;
        *lock(&self.inner.log_level) = Some(level);
        if self.revision().supports(Feature::Stateless) {
            return Ok(());
        }
        self.send("logging/setLevel", json!({"level": level.as_str()}), Sending::default()).await.map(drop)
    }

    /// Whether the server answers: `ping`, or in 2026-07-28 (which has no `ping`)
    /// `server/discover`.
    pub async fn ping(&self) -> Result<(), ClientError> {
        let method = if self.revision().supports(Feature::Handshake) { "ping" } else { "server/discover" };
        self.send(method, json!({}), Sending::default()).await.map(drop)
    }

    /// Sends `method` and reads its result as `T`.
    pub(crate) async fn typed<T: DeserializeOwned>(&self, method: &str, params: Value) -> Result<T, ClientError> {
        self.typed_with(method, params, Sending::default()).await
    }

    /// Sends `method` as `sending` says and reads its result as `T`.
    pub(crate) async fn typed_with<T: DeserializeOwned>(
        &self,
        method: &str,
        params: Value,
        sending: Sending,
    ) -> Result<T, ClientError> {
        let raw = self.send(method, params, sending).await?;
        serde_json::from_str(raw.get()).map_err(|e| ClientError::shape(method, e))
    }

    /// Every item of `field` across the pages of `method`, each page asked with `params` and
    /// the previous page's cursor.
    pub(crate) async fn list_all<T: DeserializeOwned>(
        &self,
        method: &str,
        params: Value,
        field: &str,
    ) -> Result<Vec<T>, ClientError> {
        let mut items = Vec::new();
        let mut cursor: Option<String> = None;
        for _ in 0..MAX_PAGES {
            let mut params = params.clone();
            if let Some(cursor) = &cursor {
                params["cursor"] = json!(cursor);
            }
            let mut page: Value = self.typed(method, params).await?;
            let Some(Value::Array(entries)) = page.get_mut(field).map(Value::take) else {
                return Err(ClientError::shape(method, format!("no `{field}` list")));
            };
            for entry in entries {
                items.push(serde_json::from_value(entry).map_err(|e| ClientError::shape(method, e))?);
            }
            match page.get("nextCursor").and_then(Value::as_str) {
                Some(next) if cursor.as_deref() == Some(next) => {
                    return Err(ClientError::Protocol(format!("{method} returned the same cursor twice: {next}")));
                }
                Some(next) => cursor = Some(next.to_owned()),
                None => return Ok(items),
            }
        }
        Err(ClientError::Protocol(format!("{method} had more than {MAX_PAGES} pages")))
    }
}

/// The arguments tool `tool` mirrors in `Mcp-Param-*` headers, as (argument, header name);
/// why its `x-mcp-header` annotations are malformed otherwise: a name must be non-empty
/// visible ASCII without `:`, unique whatever its case, on a string, integer or boolean.
fn mirrored_headers(tool: &Tool) -> Result<Vec<(&str, &str)>, String> {
    let Some(properties) = tool.input_schema.get("properties").and_then(Value::as_object) else {
        return Ok(Vec::new());
    };
    let mut mirrored: Vec<(&str, &str)> = Vec::new();
    for (argument, schema) in properties {
        let Some(annotation) = schema.get("x-mcp-header") else { continue };
        let Some(header) = annotation.as_str().filter(|h| !h.is_empty()) else {
            return Err(format!("`{argument}` has an empty or non-string x-mcp-header"));
        };
        if !header.bytes().all(|b| (0x21..0x7f).contains(&b) && b != b':') {
            return Err(format!("`{argument}`: x-mcp-header `{header}` is not a header name"));
        }
        let primitive = |t: &Value| matches!(t.as_str(), Some("string" | "integer" | "boolean"));
        let typed = match schema.get("type") {
            Some(Value::Array(types)) => {
                types.iter().filter(|t| t.as_str() != Some("null")).all(primitive) && !types.is_empty()
            }
            Some(single) => primitive(single),
            None => false,
        };
        if !typed {
            return Err(format!("`{argument}`: x-mcp-header is only for string, integer or boolean arguments"));
        }
        if mirrored.iter().any(|(_, other)| other.eq_ignore_ascii_case(header)) {
            return Err(format!("x-mcp-header `{header}` is given twice"));
        }
        mirrored.push((argument, header));
    }
    Ok(mirrored)
}
