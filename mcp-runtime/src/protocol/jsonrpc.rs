//! JSON-RPC 2.0 framing: ids, error objects, and the classification of incoming messages.

use std::borrow::Cow;
use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Number, Value};

/// A request id: a string or an integer, echoed back exactly as the client sent it.
///
/// ```
/// use mcp_runtime::protocol::RequestId;
/// let id: RequestId = serde_json::from_str("\"abc\"").unwrap();
/// assert_eq!(serde_json::to_string(&id).unwrap(), "\"abc\"");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(untagged)]
pub enum RequestId {
    /// An integer id (any size JSON-RPC peers use, kept as written).
    Number(Number),
    /// A string id.
    String(String),
}

impl fmt::Display for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RequestId::Number(n) => write!(f, "{n}"),
            RequestId::String(s) => write!(f, "{s:?}"),
        }
    }
}

impl From<i64> for RequestId {
    fn from(n: i64) -> Self {
        RequestId::Number(n.into())
    }
}

impl From<&str> for RequestId {
    fn from(s: &str) -> Self {
        RequestId::String(s.to_owned())
    }
}

/// The standard JSON-RPC and MCP error codes.
pub mod code {
    /// The message is not valid JSON.
    pub const PARSE_ERROR: i32 = -32700;
    /// The message is JSON but not a valid request object.
    pub const INVALID_REQUEST: i32 = -32600;
    /// The method does not exist, or belongs to a capability the server did not declare.
    pub const METHOD_NOT_FOUND: i32 = -32601;
    /// The parameters are invalid (unknown tool, bad cursor, missing fields …).
    pub const INVALID_PARAMS: i32 = -32602;
    /// The server failed in a way that is not the client's fault.
    pub const INTERNAL_ERROR: i32 = -32603;
    /// A resource was not found (handshake revisions only).
    pub const RESOURCE_NOT_FOUND: i32 = -32002;
    /// 2026-07-28: an HTTP header does not match the body.
    pub const HEADER_MISMATCH: i32 = -32020;
    /// 2026-07-28: the request needs a client capability it did not declare.
    pub const MISSING_REQUIRED_CLIENT_CAPABILITY: i32 = -32021;
    /// 2026-07-28: the request names a protocol revision the server does not serve.
    pub const UNSUPPORTED_PROTOCOL_VERSION: i32 = -32022;
}

/// A JSON-RPC error object: what a failed request is answered with.
///
/// ```
/// use mcp_runtime::protocol::ErrorObject;
/// let e = ErrorObject::invalid_params("unknown tool `nope`");
/// assert_eq!(e.code, -32602);
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ErrorObject {
    /// The error code (see [`code`]).
    pub code: i32,
    /// A short sentence saying what went wrong.
    pub message: String,
    /// Extra structured detail.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

impl ErrorObject {
    /// An error with a code and a message.
    pub fn new(code: i32, message: impl Into<String>) -> Self {
        ErrorObject { code, message: message.into(), data: None }
    }

    /// Attaches `data` to the error.
    #[must_use]
    pub fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }

    /// -32700: the message is not valid JSON.
    pub fn parse_error(detail: impl fmt::Display) -> Self {
        Self::new(code::PARSE_ERROR, format!("Parse error: {detail}"))
    }

    /// -32600: not a valid request object.
    pub fn invalid_request(message: impl Into<String>) -> Self {
        Self::new(code::INVALID_REQUEST, message)
    }

    /// -32601: unknown method.
    pub fn method_not_found(method: &str) -> Self {
        Self::new(code::METHOD_NOT_FOUND, format!("Method not found: `{method}`"))
    }

    /// -32602: invalid parameters.
    pub fn invalid_params(message: impl Into<String>) -> Self {
        Self::new(code::INVALID_PARAMS, message)
    }

    /// -32603: an internal error.
    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(code::INTERNAL_ERROR, message)
    }
}

impl fmt::Display for ErrorObject {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.message, self.code)
    }
}

impl std::error::Error for ErrorObject {}

/// One incoming message, classified before anything else looks at it.
#[derive(Debug)]
pub(crate) enum Incoming<'a> {
    /// A request: it gets exactly one response.
    Request(Request<'a>),
    /// A notification: never answered.
    Notification(Notification<'a>),
    /// A response to a request the server sent.
    Response {
        /// The id of the server's request.
        id: RequestId,
    },
    /// Not a valid message: answered with this error (and this id, when one could be read).
    Invalid(Option<RequestId>, ErrorObject),
}

/// An incoming request, borrowing from the line it was read from.
#[derive(Debug)]
pub(crate) struct Request<'a> {
    pub(crate) id: RequestId,
    pub(crate) method: Cow<'a, str>,
    pub(crate) params: Option<&'a RawValue>,
}

/// An incoming notification.
#[derive(Debug)]
pub(crate) struct Notification<'a> {
    pub(crate) method: Cow<'a, str>,
    pub(crate) params: Option<&'a RawValue>,
}

/// The members of a JSON-RPC object, each kept raw so that one bad member does not hide the id.
#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(borrow, default)]
    jsonrpc: Option<&'a RawValue>,
    /// `Some` whenever the member is present, `null` included: `"id": null` makes an invalid
    /// request, not a notification.
    #[serde(borrow, default, deserialize_with = "present")]
    id: Option<&'a RawValue>,
    #[serde(borrow, default)]
    method: Option<&'a RawValue>,
    #[serde(borrow, default)]
    params: Option<&'a RawValue>,
    #[serde(borrow, default)]
    result: Option<&'a RawValue>,
    #[serde(borrow, default)]
    error: Option<&'a RawValue>,
}

/// Reads a member that is present, whatever its value (plain `Option` reads `null` as absent).
fn present<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Option<&'de RawValue>, D::Error> {
    <&RawValue>::deserialize(deserializer).map(Some)
}

/// What the first significant byte of a message says it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Shape {
    Object,
    Array,
    Other,
}

/// Tells an object from an array from anything else without parsing the message.
pub(crate) fn shape_of(text: &str) -> Shape {
    match text.trim_start().as_bytes().first() {
        Some(b'{') => Shape::Object,
        Some(b'[') => Shape::Array,
        _ => Shape::Other,
    }
}

/// Parses a raw id: a string or an integer; anything else is not an id.
fn parse_id(raw: &RawValue) -> Option<RequestId> {
    match serde_json::from_str::<Value>(raw.get()).ok()? {
        Value::String(s) => Some(RequestId::String(s)),
        Value::Number(n) if n.is_i64() || n.is_u64() => Some(RequestId::Number(n)),
        _ => None,
    }
}

/// Classifies one JSON object message (the caller has checked [`shape_of`] or handles the
/// error it gets for non-objects).
pub(crate) fn classify(text: &str) -> Incoming<'_> {
    let env: Envelope<'_> = match serde_json::from_str(text) {
        Ok(env) => env,
        Err(e) if e.is_syntax() || e.is_eof() => {
            return Incoming::Invalid(None, ErrorObject::parse_error(e));
        }
        Err(e) => {
            let message = if shape_of(text) == Shape::Object {
                format!("Invalid request: {e}")
            } else {
                "Invalid request: a message must be a JSON object".to_owned()
            };
            return Incoming::Invalid(None, ErrorObject::invalid_request(message));
        }
    };
    let id = env.id.map(|raw| (raw, parse_id(raw)));
    let readable_id = id.as_ref().and_then(|(_, id)| id.clone());
    if env.jsonrpc.map(RawValue::get) != Some("\"2.0\"") {
        return Incoming::Invalid(
            readable_id,
            ErrorObject::invalid_request("Invalid request: `jsonrpc` must be the string \"2.0\""),
        );
    }
    if let Some(method) = env.method {
        let Ok(method) = serde_json::from_str::<Cow<'_, str>>(method.get()) else {
            return Incoming::Invalid(
                readable_id,
                ErrorObject::invalid_request("Invalid request: `method` must be a string"),
            );
        };
        if let Some(params) = env.params
            && shape_of(params.get()) != Shape::Object
        {
            return Incoming::Invalid(
                readable_id,
                ErrorObject::invalid_request("Invalid request: `params` must be an object"),
            );
        }
        return match id {
            None => Incoming::Notification(Notification { method, params: env.params }),
            Some((_, Some(id))) => Incoming::Request(Request { id, method, params: env.params }),
            Some((_, None)) => Incoming::Invalid(
                None,
                ErrorObject::invalid_request("Invalid request: `id` must be a string or an integer"),
            ),
        };
    }
    if (env.result.is_some() || env.error.is_some())
        && let Some(id) = readable_id
    {
        return Incoming::Response { id };
    }
    Incoming::Invalid(
        readable_id,
        ErrorObject::invalid_request("Invalid request: a request needs a `method` and an `id`"),
    )
}

/// Writes a success response line (without the trailing newline); `result` is JSON text.
pub(crate) fn success_line(id: &RequestId, result: &str) -> String {
    let mut out = String::with_capacity(result.len() + 40);
    out.push_str("{\"jsonrpc\":\"2.0\",\"id\":");
    push_id(&mut out, Some(id));
    out.push_str(",\"result\":");
    out.push_str(result);
    out.push('}');
    out
}

/// Writes an error response line (without the trailing newline); `id: null` when unknown.
pub(crate) fn error_line(id: Option<&RequestId>, error: &ErrorObject) -> String {
    let mut out = String::with_capacity(96 + error.message.len());
    out.push_str("{\"jsonrpc\":\"2.0\",\"id\":");
    push_id(&mut out, id);
    out.push_str(",\"error\":");
    // An ErrorObject is strings, numbers and a Value: serializing it cannot fail.
    out.push_str(
        &serde_json::to_string(error).unwrap_or_else(|_| "{\"code\":-32603,\"message\":\"Internal error\"}".to_owned()),
    );
    out.push('}');
    out
}

/// Writes a notification line (without the trailing newline).
pub(crate) fn notification_line(method: &str, params: Option<&Value>) -> String {
    let mut message = serde_json::Map::new();
    message.insert("jsonrpc".into(), Value::from("2.0"));
    message.insert("method".into(), Value::from(method));
    if let Some(params) = params {
        message.insert("params".into(), params.clone());
    }
    Value::Object(message).to_string()
}

fn push_id(out: &mut String, id: Option<&RequestId>) {
    match id {
        Some(RequestId::Number(n)) => out.push_str(&n.to_string()),
        Some(RequestId::String(s)) => out.push_str(&Value::from(s.as_str()).to_string()),
        None => out.push_str("null"),
    }
}

/// Serializes a result into a raw JSON value.
pub(crate) fn to_raw<T: Serialize + ?Sized>(value: &T) -> Result<Box<RawValue>, ErrorObject> {
    serde_json::value::to_raw_value(value)
        .map_err(|e| ErrorObject::internal(format!("Internal error: the result could not be serialized: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn invalid_code(text: &str) -> (Option<RequestId>, i32) {
        match classify(text) {
            Incoming::Invalid(id, e) => (id, e.code),
            other => panic!("expected invalid, got {other:?}"),
        }
    }

    #[test]
    fn requests_and_notifications_are_told_apart() {
        match classify(r#"{"jsonrpc":"2.0","id":7,"method":"ping"}"#) {
            Incoming::Request(r) => {
                assert_eq!(r.id, RequestId::from(7));
                assert_eq!(r.method, "ping");
            }
            other => panic!("{other:?}"),
        }
        match classify(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#) {
            Incoming::Notification(n) => assert_eq!(n.method, "notifications/initialized"),
            other => panic!("{other:?}"),
        }
        assert!(matches!(classify(r#"{"jsonrpc":"2.0","id":"s","result":{}}"#), Incoming::Response { .. }));
    }

    #[test]
    fn bad_messages_get_the_right_codes() {
        assert_eq!(invalid_code("{not json"), (None, code::PARSE_ERROR));
        assert_eq!(invalid_code("42"), (None, code::INVALID_REQUEST));
        assert_eq!(invalid_code(r#"{"id":1,"method":"ping"}"#), (Some(1.into()), code::INVALID_REQUEST));
        assert_eq!(
            invalid_code(r#"{"jsonrpc":"1.0","id":"a","method":"ping"}"#),
            (Some("a".into()), code::INVALID_REQUEST)
        );
        assert_eq!(invalid_code(r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#), (None, code::INVALID_REQUEST));
        assert_eq!(invalid_code(r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#), (None, code::INVALID_REQUEST));
        assert_eq!(invalid_code(r#"{"jsonrpc":"2.0","id":1,"method":3}"#), (Some(1.into()), code::INVALID_REQUEST));
        assert_eq!(
            invalid_code(r#"{"jsonrpc":"2.0","id":1,"method":"x","params":[1]}"#),
            (Some(1.into()), code::INVALID_REQUEST)
        );
    }

    #[test]
    fn ids_are_echoed_exactly() {
        let big = r#"{"jsonrpc":"2.0","id":18446744073709551615,"method":"ping"}"#;
        let Incoming::Request(r) = classify(big) else { panic!() };
        assert_eq!(success_line(&r.id, "{}"), r#"{"jsonrpc":"2.0","id":18446744073709551615,"result":{}}"#);
        let esc = r#"{"jsonrpc":"2.0","id":"a\"b\u00e9","method":"ping"}"#;
        let Incoming::Request(r) = classify(esc) else { panic!() };
        assert_eq!(r.id, RequestId::String("a\"bé".into()));
        let line = error_line(Some(&r.id), &ErrorObject::internal("x"));
        let v: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(v["id"], "a\"bé");
    }
}
