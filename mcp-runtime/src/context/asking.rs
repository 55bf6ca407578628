//! Asking the client: elicitation (a form the user fills in), sampling (a message from the
//! client's model) and roots, written once for both eras.
//!
//! In the handshake revisions each question is a request the server sends on the connection;
//! the client's response comes back through the reader and is matched by id. In 2026-07-28
//! servers send no requests: the question interrupts the handler, the request is answered with
//! an input-required result carrying the question and a sealed `requestState`, and the
//! client's retry brings the answers, matched by key: a question's number among the request's
//! questions, or the key its handler gave (`ctx.input(key)`). The stopped handler is kept for
//! the retry and goes on from its question; a retry that finds none kept runs the handler
//! again with the answers so far (see [`parking`](super::parking)). Questions asked in the same
//! poll (a `join!`) go out together in one result.

use std::collections::HashMap;
use std::fmt;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use tokio::sync::oneshot;

use crate::protocol::{ErrorObject, RequestId, Role};

/// What the user did with an elicitation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Elicitation<T> {
    /// The user submitted the form (for a URL elicitation: agreed to go there).
    Accept(T),
    /// The user explicitly declined.
    Decline,
    /// The user dismissed it without choosing.
    Cancel,
}

/// Why asking the client failed. The wait for an answer always ends: with the answer, or with
/// one of these.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum AskError {
    /// The client did not declare the capability the question needs (`elicitation`,
    /// `sampling`, `sampling.tools`, `roots`), or the revision in use lacks it.
    NotDeclared(&'static str),
    /// The client answered with an error.
    Client(ErrorObject),
    /// No answer within the server's [client request timeout](crate::Server::client_request_timeout).
    TimedOut(Duration),
    /// The connection ended before the answer came.
    Disconnected,
    /// The answer could not be read as the expected result.
    Unreadable(String),
    /// The type asked for cannot be an elicitation form.
    InvalidForm(String),
    /// This request cannot ask the client: its response is already on its way, or its method
    /// has no way to ask in this era (only `tools/call`, `prompts/get` and `resources/read`
    /// can in 2026-07-28).
    Unavailable,
}

impl fmt::Display for AskError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AskError::NotDeclared(capability) => {
                write!(f, "the client did not declare the `{capability}` capability this needs")
            }
            AskError::Client(error) => write!(f, "the client answered with an error: {error}"),
            AskError::TimedOut(limit) => {
                write!(f, "the client did not answer within {}", crate::util::duration::display(*limit))
            }
            AskError::Disconnected => f.write_str("the connection ended before the client answered"),
            AskError::Unreadable(detail) => write!(f, "the client's answer could not be read: {detail}"),
            AskError::InvalidForm(detail) => write!(f, "this type cannot be an elicitation form: {detail}"),
            AskError::Unavailable => f.write_str("this request cannot ask the client anything now"),
        }
    }
}

impl std::error::Error for AskError {}

/// A message for [`Context::sample`](crate::Context::sample): what the client's model is
/// asked, with the sampling options.
///
/// ```
/// use mcp_runtime::asking::SamplingRequest;
/// let request = SamplingRequest::new(200).system_prompt("You name things.").user("Name a cat.");
/// assert_eq!(serde_json::to_value(&request).unwrap()["maxTokens"], 200);
/// ```
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SamplingRequest {
    messages: Vec<SamplingMessage>,
    max_tokens: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    system_prompt: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    temperature: Option<f64>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    stop_sequences: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    model_preferences: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tools: Option<Vec<Value>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_choice: Option<Value>,
}

/// One message of a sampling conversation.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SamplingMessage {
    /// Who says it.
    pub role: Role,
    /// What is said: a content block (`{"type": "text", "text": ...}`, an image, …).
    pub content: Value,
}

impl SamplingRequest {
    /// A request for at most `max_tokens` tokens, with no messages yet.
    pub fn new(max_tokens: u32) -> Self {
        SamplingRequest {
            messages: Vec::new(),
            max_tokens,
            system_prompt: None,
            temperature: None,
            stop_sequences: Vec::new(),
            model_preferences: None,
            tools: None,
            tool_choice: None,
        }
    }

    /// Adds a user message of text.
    #[must_use]
    pub fn user(mut self, text: impl Into<String>) -> Self {
        self.messages.push(SamplingMessage { role: Role::User, content: json!({"type": "text", "text": text.into()}) });
        self
    }

    /// Adds an assistant message of text.
    #[must_use]
    pub fn assistant(mut self, text: impl Into<String>) -> Self {
        let content = json!({"type": "text", "text": text.into()});
        self.messages.push(SamplingMessage { role: Role::Assistant, content });
        self
    }

    /// Adds a message as written.
    #[must_use]
    pub fn message(mut self, message: SamplingMessage) -> Self {
        self.messages.push(message);
        self
    }

    /// Sets the system prompt.
    #[must_use]
    pub fn system_prompt(mut self, prompt: impl Into<String>) -> Self {
        self.system_prompt = Some(prompt.into());
        self
    }

    /// Sets the temperature.
    #[must_use]
    pub fn temperature(mut self, temperature: f64) -> Self {
        self.temperature = Some(temperature);
        self
    }

    /// Adds a stop sequence.
    #[must_use]
    pub fn stop_sequence(mut self, stop: impl Into<String>) -> Self {
        self.stop_sequences.push(stop.into());
        self
    }

    /// Sets the model preferences, as the protocol writes them.
    #[must_use]
    pub fn model_preferences(mut self, preferences: Value) -> Self {
        self.model_preferences = Some(preferences);
        self
    }

    /// Offers the model tools (2025-11-25 and later; the client must declare `sampling.tools`).
    #[must_use]
    pub fn tools(mut self, tools: Vec<Value>, tool_choice: Option<Value>) -> Self {
        self.tools = Some(tools);
        self.tool_choice = tool_choice;
        self
    }

    fn uses_tools(&self) -> bool {
        self.tools.is_some()
    }
}

/// What the client's model answered.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct SampledMessage {
    /// Who wrote it (the assistant).
    pub role: Role,
    /// The content block (or, with tools, blocks) as the client sent it.
    pub content: Value,
    /// The model that wrote it.
    pub model: String,
    /// Why it stopped.
    #[serde(default)]
    pub stop_reason: Option<String>,
}

impl SampledMessage {
    /// The text, when the content is one text block.
    pub fn text(&self) -> Option<&str> {
        (self.content["type"] == "text").then(|| self.content["text"].as_str()).flatten()
    }
}

/// A root the client offers: a directory or file it lets the server work on.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[non_exhaustive]
pub struct Root {
    /// A `file://` URI.
    pub uri: String,
    /// A name for it.
    #[serde(default)]
    pub name: Option<String>,
}

/// The `requestedSchema` of a form for `T`: a flat object of primitive fields (strings,
/// numbers, integers, booleans, enums of strings and lists of them). Doc comments become
/// descriptions; `Option` fields are optional; described enum variants become titled choices.
pub(crate) fn form_schema<T: JsonSchema>() -> Result<Value, AskError> {
    let mut schema = crate::util::schema::schema_for::<T>();
    let root = schema.as_object_mut().ok_or_else(|| AskError::InvalidForm("its schema is not an object".into()))?;
    if root.get("type") != Some(&json!("object")) {
        return Err(AskError::InvalidForm("a form is a struct with named fields".into()));
    }
    root.remove("$defs");
    root.remove("additionalProperties");
    let properties = root.get_mut("properties").and_then(Value::as_object_mut);
    for (name, property) in properties.into_iter().flatten() {
        form_field(property).map_err(|why| AskError::InvalidForm(format!("field `{name}` {why}")))?;
    }
    Ok(schema)
}

/// Shapes one form field as elicitation defines it, or says why it cannot be one.
fn form_field(property: &mut Value) -> Result<(), &'static str> {
    let field = property.as_object_mut().ok_or("has no schema")?;
    // Titled single-select: `oneOf` of constants, each described.
    for key in ["oneOf", "anyOf"] {
        if let Some(Value::Array(choices)) = field.get_mut(key) {
            for choice in choices.iter_mut() {
                let choice = choice.as_object_mut().ok_or("has a choice that is not a constant")?;
                if !choice.get("const").is_some_and(Value::is_string) {
                    return Err("is not a string, number, boolean or enum of strings");
                }
                if let Some(description) = choice.remove("description") {
                    choice.entry("title").or_insert(description);
                }
                choice.remove("type");
            }
            let choices = field.remove(key).unwrap_or_default();
            field.insert("oneOf".into(), choices);
            field.insert("type".into(), json!("string"));
            return Ok(());
        }
    }
    match field.get("type").and_then(Value::as_str) {
        Some("string" | "number" | "integer" | "boolean") => Ok(()),
        Some("array") => {
            let items = field.get_mut("items").and_then(Value::as_object_mut).ok_or("is a list of no items")?;
            let enumerated = items.get("enum").is_some_and(Value::is_array)
                || items.get("anyOf").or(items.get("oneOf")).is_some_and(Value::is_array);
            if !enumerated {
                return Err("is a list of something other than enum values");
            }
            if let Some(choices) = items.remove("oneOf").or_else(|| items.remove("anyOf")) {
                let titled = choices
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|c| {
                        json!({"const": c["const"], "title": c.get("description").or(c.get("title")).unwrap_or(&c["const"])})
                    })
                    .collect::<Vec<_>>();
                items.insert("anyOf".into(), Value::Array(titled));
            }
            Ok(())
        }
        _ => Err("is not a string, number, boolean or enum of strings (a form is flat)"),
    }
}

/// Reads an elicitation's result.
pub(crate) fn elicitation_from<T: DeserializeOwned>(answer: Value) -> Result<Elicitation<T>, AskError> {
    #[derive(Deserialize)]
    struct Answer {
        action: String,
        #[serde(default)]
        content: Option<Value>,
    }
    let answer: Answer = serde_json::from_value(answer).map_err(|e| AskError::Unreadable(e.to_string()))?;
    match answer.action.as_str() {
        "accept" => {
            let content = answer.content.unwrap_or_else(|| json!({}));
            serde_json::from_value(content).map(Elicitation::Accept).map_err(|e| AskError::Unreadable(e.to_string()))
        }
        "decline" => Ok(Elicitation::Decline),
        "cancel" => Ok(Elicitation::Cancel),
        other => Err(AskError::Unreadable(format!("unknown action `{}`", crate::protocol::excerpt(other)))),
    }
}

/// One question: the request the client answers.
#[derive(Debug, Clone)]
pub(crate) struct Question {
    pub(crate) method: &'static str,
    pub(crate) params: Value,
    /// The client capability it needs (a top-level key, and a sub-key when it needs one).
    pub(crate) needs: (&'static str, Option<&'static str>),
}

impl Question {
    pub(crate) fn elicit(params: Value) -> Self {
        Question { method: "elicitation/create", params, needs: ("elicitation", None) }
    }

    pub(crate) fn elicit_url(params: Value) -> Self {
        Question { method: "elicitation/create", params, needs: ("elicitation", Some("url")) }
    }

    pub(crate) fn sample(request: &SamplingRequest) -> Self {
        let params = serde_json::to_value(request).unwrap_or_default();
        let sub = request.uses_tools().then_some("tools");
        Question { method: "sampling/createMessage", params, needs: ("sampling", sub) }
    }

    pub(crate) fn roots() -> Self {
        Question { method: "roots/list", params: json!({}), needs: ("roots", None) }
    }

    /// A question a remote server asked a proxy, to ask this request's client as it came
    /// (`None` for a method that is no question of the protocol's).
    #[cfg(feature = "client")]
    pub(crate) fn forwarded(method: &str, params: Value) -> Option<Self> {
        Some(match method {
            "elicitation/create" if params.get("mode").and_then(Value::as_str) == Some("url") => {
                Question::elicit_url(params)
            }
            "elicitation/create" => Question::elicit(params),
            "sampling/createMessage" => {
                let sub = params.get("tools").is_some().then_some("tools");
                Question { method: "sampling/createMessage", params, needs: ("sampling", sub) }
            }
            "roots/list" => Question::roots(),
            _ => return None,
        })
    }

    /// The capability as `-32021`'s `requiredCapabilities` writes it.
    pub(crate) fn required_capabilities(&self) -> Value {
        match self.needs {
            (top, None) => json!({ top: {} }),
            (top, Some(sub)) => json!({ top: { sub: {} } }),
        }
    }

    pub(crate) fn capability_name(&self) -> &'static str {
        match self.needs {
            (_, Some("tools")) => "sampling.tools",
            (_, Some("url")) => "elicitation.url",
            (top, _) => top,
        }
    }

    /// Whether `capabilities` (the client's) allow it. An elicitation capability that is
    /// empty means forms only.
    pub(crate) fn declared_in(&self, capabilities: &Map<String, Value>) -> bool {
        let Some(top) = capabilities.get(self.needs.0) else { return false };
        match self.needs {
            ("elicitation", None) => top.as_object().is_none_or(|modes| modes.is_empty() || modes.contains_key("form")),
            (_, Some(sub)) => top.get(sub).is_some(),
            (_, None) => true,
        }
    }
}

/// The server's requests waiting for the client's answer, on one handshake-era connection.
#[derive(Debug)]
pub(crate) struct PendingRequests {
    /// What this connection's ids start with: unique in the process and across processes, so
    /// that an answer that reaches another instance serving the same session (sessions in a
    /// shared store) is never taken for one of that instance's questions.
    tag: String,
    next: AtomicU64,
    waiting: Mutex<HashMap<RequestId, oneshot::Sender<Result<Value, ErrorObject>>>>,
}

impl Default for PendingRequests {
    fn default() -> Self {
        static PROCESS: std::sync::OnceLock<String> = std::sync::OnceLock::new();
        static CONNECTIONS: AtomicU64 = AtomicU64::new(0);
        let process = PROCESS.get_or_init(|| crate::util::random::random_id()[..8].to_owned());
        let tag = format!("{process}.{}", CONNECTIONS.fetch_add(1, Ordering::Relaxed));
        PendingRequests { tag, next: AtomicU64::new(0), waiting: Mutex::default() }
    }
}

impl PendingRequests {
    /// A new request id and the receiver of its answer.
    pub(crate) fn register(&self) -> (RequestId, oneshot::Receiver<Result<Value, ErrorObject>>) {
        let id =
            RequestId::String(format!("mcp-server-{}-{}", self.tag, self.next.fetch_add(1, Ordering::Relaxed) + 1));
        let (tx, rx) = oneshot::channel();
        self.lock().insert(id.clone(), tx);
        (id, rx)
    }

    /// The client answered `id`: `false` when no question has that id.
    pub(crate) fn answer(&self, id: &RequestId, answer: Result<Value, ErrorObject>) -> bool {
        match self.lock().remove(id) {
            Some(tx) => {
                let _ = tx.send(answer);
                true
            }
            None => false,
        }
    }

    /// The question `id` is no longer waited for (timed out, or its handler ended).
    pub(crate) fn forget(&self, id: &RequestId) {
        self.lock().remove(id);
    }

    /// The connection ended: every wait ends with [`AskError::Disconnected`].
    pub(crate) fn close(&self) {
        self.lock().clear();
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<RequestId, oneshot::Sender<Result<Value, ErrorObject>>>> {
        self.waiting.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Deserialize, JsonSchema)]
    #[allow(dead_code)]
    enum Size {
        /// Small
        S,
        /// Large
        L,
    }

    #[derive(Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct Booking {
        /// Your name
        name: String,
        nights: u32,
        breakfast: Option<bool>,
        size: Size,
    }

    #[derive(Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct Preferences {
        /// How many
        #[serde(default = "two")]
        count: u32,
        /// Untitled choices
        colour: Colour,
        /// Several sizes at once
        sizes: Vec<Size>,
        /// Several colours at once
        colours: Vec<Colour>,
    }

    fn two() -> u32 {
        2
    }

    #[derive(Deserialize, JsonSchema)]
    #[allow(dead_code)]
    enum Colour {
        Red,
        Blue,
    }

    #[derive(Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct Nested {
        inner: Booking,
    }

    #[test]
    fn forms_are_flat_objects_of_primitives() {
        let schema = form_schema::<Booking>().unwrap();
        assert_eq!(schema["properties"]["name"]["type"], "string");
        assert_eq!(schema["properties"]["nights"]["type"], "integer");
        assert_eq!(schema["properties"]["breakfast"]["type"], "boolean");
        assert_eq!(
            schema["properties"]["size"]["oneOf"],
            json!([{"const": "S", "title": "Small"}, {"const": "L", "title": "Large"}])
        );
        assert_eq!(schema["required"], json!(["name", "nights", "size"]));
        let error = form_schema::<Nested>().unwrap_err();
        assert!(error.to_string().contains("field `inner`"), "{error}");
        assert!(matches!(form_schema::<u32>(), Err(AskError::InvalidForm(_))));
    }

    #[test]
    fn defaults_and_every_enum_shape_of_2025_11_25() {
        let schema = form_schema::<Preferences>().unwrap();
        let properties = &schema["properties"];
        assert_eq!(properties["count"]["default"], 2, "{schema}");
        assert_eq!(properties["colour"]["enum"], json!(["Red", "Blue"]), "untitled single-select");
        assert_eq!(
            properties["sizes"]["items"]["anyOf"],
            json!([{"const": "S", "title": "Small"}, {"const": "L", "title": "Large"}]),
            "titled multi-select"
        );
        assert_eq!(properties["colours"]["items"]["enum"], json!(["Red", "Blue"]), "untitled multi-select");
        assert_eq!(properties["sizes"]["type"], "array");
    }

    #[test]
    fn answers_become_the_rust_enum() {
        let accepted: Elicitation<Map<String, Value>> =
            elicitation_from(json!({"action": "accept", "content": {"a": 1}})).unwrap();
        assert!(matches!(accepted, Elicitation::Accept(map) if map["a"] == 1));
        assert_eq!(elicitation_from::<Value>(json!({"action": "decline"})).unwrap(), Elicitation::Decline);
        assert!(matches!(elicitation_from::<Value>(json!({"action": "maybe"})), Err(AskError::Unreadable(_))));
    }

    #[test]
    fn an_empty_elicitation_capability_means_forms_only() {
        let form = Question::elicit(json!({}));
        let caps = |v: Value| v.as_object().unwrap().clone();
        assert!(form.declared_in(&caps(json!({"elicitation": {}}))));
        assert!(form.declared_in(&caps(json!({"elicitation": {"form": {}}}))));
        assert!(!form.declared_in(&caps(json!({"elicitation": {"url": {}}}))));
        assert!(!form.declared_in(&caps(json!({"sampling": {}}))));
        let tools = Question::sample(&SamplingRequest::new(1).tools(vec![], None));
        assert!(!tools.declared_in(&caps(json!({"sampling": {}}))));
        assert_eq!(tools.required_capabilities(), json!({"sampling": {"tools": {}}}));
    }
}
