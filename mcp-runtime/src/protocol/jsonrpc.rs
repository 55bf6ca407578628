//! JSON-RPC 2.0 framing: ids, error objects, and the classification of incoming messages.

use std::borrow::Cow;
use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Number, Value};

use super::string_value;

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
    /// 2025-11-25: the request needs the user to complete a URL elicitation first.
    pub const URL_ELICITATION_REQUIRED: i32 = -32042;
    /// The caller sent more requests than the server's rate limit allows (the server's own
    /// code, outside the ranges JSON-RPC and MCP reserve); `data.retryAfterMs` says when to
    /// retry.
    pub const RATE_LIMITED: i32 = -31000;
    /// HTTP with authorization: the request carries no valid token (the body of a 401, whose
    /// `WWW-Authenticate` challenge says what to do).
    pub const UNAUTHORIZED: i32 = -31001;
    /// HTTP with authorization: the token lacks a scope the request needs (the body of a
    /// 403); `data.requiredScopes` names them, as the challenge's `scope` does.
    pub const INSUFFICIENT_SCOPE: i32 = -31002;
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
        Self::new(code::METHOD_NOT_FOUND, format!("Method not found: `{}`", excerpt(method)))
    }

    /// -32601: a method of other revisions than the one in use.
    pub(crate) fn method_not_found_in(method: &str, revision: super::Revision) -> Self {
        Self::new(
            code::METHOD_NOT_FOUND,
            format!("Method not found: `{}` does not exist in protocol revision {revision}", excerpt(method)),
        )
    }

    /// -32602: invalid parameters.
    pub fn invalid_params(message: impl Into<String>) -> Self {
        Self::new(code::INVALID_PARAMS, message)
    }

    /// -32042 (2025-11-25): the request cannot go on until the user completes the URL
    /// elicitations in `elicitations` (each `{"mode": "url", "message", "url",
    /// "elicitationId"}`).
    pub fn url_elicitation_required(message: impl Into<String>, elicitations: Vec<Value>) -> Self {
        Self::new(code::URL_ELICITATION_REQUIRED, message)
            .with_data(serde_json::json!({ "elicitations": elicitations }))
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
    /// A response to a request the server sent (or something shaped like one): never
    /// answered, whatever it contains, so that two peers cannot answer each other forever.
    Response {
        /// The id it names, when it names a valid one.
        id: Option<RequestId>,
        /// Its `result`, raw.
        result: Option<&'a RawValue>,
        /// Its `error`, raw.
        error: Option<&'a RawValue>,
    },
    /// A notification too malformed to act on: never answered either, only logged.
    BadNotification(&'static str),
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

/// The members of a JSON-RPC object, each kept raw so that one bad member does not hide the
/// id. Every member is `Some` whenever it is present, `null` included: `"id": null` makes an
/// invalid request (not a notification) and `"result": null` a response.
#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(borrow, default, deserialize_with = "present")]
    jsonrpc: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    id: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    method: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    params: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    result: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
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
    match text.trim_start_matches(is_json_whitespace).as_bytes().first() {
        Some(b'{') => Shape::Object,
        Some(b'[') => Shape::Array,
        _ => Shape::Other,
    }
}

/// Whether a message's raw text holds `$key` anywhere: the cheap test that rules out parsing
/// for an optional key most requests lack. The search is prepared once per call site
/// (`str::contains` prepares it again on every call).
macro_rules! mentions {
    ($text:expr, $key:expr) => {{
        static KEY: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
            std::sync::LazyLock::new(|| memchr::memmem::Finder::new($key));
        KEY.find(str::as_bytes($text)).is_some()
    }};
}
pub(crate) use mentions;

/// The four characters JSON allows between tokens (RFC 8259 §2); no other character, not
/// even a Unicode space, may stand alone on a line.
pub(crate) fn is_json_whitespace(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r')
}

/// Parses a raw id: a string or an integer; anything else is not an id.
fn parse_id(raw: &RawValue) -> Option<RequestId> {
    match serde_json::from_str::<Value>(raw.get()).ok()? {
        Value::String(s) => Some(RequestId::String(s)),
        Value::Number(n) if n.is_i64() || n.is_u64() => Some(RequestId::Number(n)),
        _ => None,
    }
}

/// Whether a raw `jsonrpc` member is the string "2.0", compared after decoding (so
/// `"2\u002e0"` counts).
fn is_version_2(raw: Option<&RawValue>) -> bool {
    match raw.map(RawValue::get) {
        Some("\"2.0\"") => true,
        Some(text) => string_value(text).is_some_and(|v| v == "2.0"),
        None => false,
    }
}

/// What a request or notification's members say, checked: its method and params.
fn method_and_params<'a>(env: &Envelope<'a>) -> Result<(Cow<'a, str>, Option<&'a RawValue>), &'static str> {
    if !is_version_2(env.jsonrpc) {
        return Err("Invalid request: `jsonrpc` must be the string \"2.0\"");
    }
    // Borrowed from the text unless escaped (`Cow<str>`'s own `Deserialize` always copies).
    let method = env.method.and_then(|m| string_value(m.get()));
    let Some(method) = method else { return Err("Invalid request: `method` must be a string") };
    if let Some(params) = env.params
        && shape_of(params.get()) != Shape::Object
    {
        return Err("Invalid request: `params` must be an object");
    }
    Ok((method, env.params))
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
    // What a message is follows from which members it has; only then is it checked. A
    // notification or a response is never answered, however malformed.
    if env.method.is_none() && (env.result.is_some() || env.error.is_some()) {
        return Incoming::Response { id: env.id.and_then(parse_id), result: env.result, error: env.error };
    }
    if env.method.is_some() && env.id.is_none() {
        return match method_and_params(&env) {
            Ok((method, params)) => Incoming::Notification(Notification { method, params }),
            Err(reason) => Incoming::BadNotification(reason),
        };
    }
    let id = env.id.and_then(parse_id);
    if env.method.is_none() {
        return Incoming::Invalid(
            id,
            ErrorObject::invalid_request("Invalid request: a request needs a `method` and an `id`"),
        );
    }
    let (method, params) = match method_and_params(&env) {
        Ok(found) => found,
        Err(reason) => return Incoming::Invalid(id, ErrorObject::invalid_request(reason)),
    };
    match id {
        Some(id) => Incoming::Request(Request { id, method, params }),
        None => Incoming::Invalid(
            None,
            ErrorObject::invalid_request("Invalid request: `id` must be a string or an integer"),
        ),
    }
}

/// How much of a client's own text an error message quotes.
const EXCERPT_CHARS: usize = 64;

/// A client-supplied string as an error message quotes it: whole when short, else its first
/// characters and `…`, so that a 100 KB URI does not come back in a 100 KB error.
pub(crate) fn excerpt(text: &str) -> Cow<'_, str> {
    match text.char_indices().nth(EXCERPT_CHARS) {
        None => Cow::Borrowed(text),
        Some((end, _)) => Cow::Owned(format!("{}…", &text[..end])),
    }
}

/// The longest error message sent: messages that embed a parser's report of client input
/// (which may quote a whole string value) are cut here.
const MAX_ERROR_MESSAGE: usize = 512;

/// Writes the start of a response, up to and including the member name of its payload.
fn open_response(out: &mut Vec<u8>, id: Option<&RequestId>, member: &str) {
    out.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":");
    match id {
        // A RequestId is a string or a number: writing it into a Vec cannot fail.
        Some(id) => {
            let _ = serde_json::to_writer(&mut *out, id);
        }
        None => out.extend_from_slice(b"null"),
    }
    out.push(b',');
    out.push(b'"');
    out.extend_from_slice(member.as_bytes());
    out.extend_from_slice(b"\":");
}

/// A success response line whose result is written by `write_result` straight into the
/// line's bytes (serialized once, never copied); `Err` from it makes the line an internal
/// error instead.
pub(crate) fn response_line(
    id: &RequestId,
    capacity: usize,
    write_result: &mut dyn FnMut(&mut Vec<u8>) -> Result<(), serde_json::Error>,
) -> Result<Vec<u8>, ErrorObject> {
    let mut out = Vec::with_capacity(capacity + 48);
    open_response(&mut out, Some(id), "result");
    match write_result(&mut out) {
        Ok(()) => {
            out.extend_from_slice(b"}\n");
            Ok(out)
        }
        Err(e) => {
            tracing::error!(error = %e, "a result could not be serialized");
            Err(ErrorObject::internal("Internal error: the result could not be serialized"))
        }
    }
}

/// A success response line for a result that is already JSON text.
pub(crate) fn success_line(id: &RequestId, result: &str) -> Vec<u8> {
    let written = response_line(id, result.len(), &mut |out| {
        out.extend_from_slice(result.as_bytes());
        Ok(())
    });
    written.unwrap_or_else(|error| error_line(Some(id), &error))
}

/// An error response line; `id: null` when unknown. Long messages are cut (see
/// [`MAX_ERROR_MESSAGE`]).
pub(crate) fn error_line(id: Option<&RequestId>, error: &ErrorObject) -> Vec<u8> {
    let mut out = Vec::with_capacity(96 + error.message.len().min(MAX_ERROR_MESSAGE));
    open_response(&mut out, id, "error");
    let cut;
    let error = if error.message.len() > MAX_ERROR_MESSAGE {
        let mut end = MAX_ERROR_MESSAGE;
        while !error.message.is_char_boundary(end) {
            end -= 1;
        }
        cut = ErrorObject { message: format!("{}…", &error.message[..end]), ..error.clone() };
        &cut
    } else {
        error
    };
    // An ErrorObject is strings, numbers and a Value: serializing it cannot fail.
    if serde_json::to_writer(&mut out, error).is_err() {
        out.extend_from_slice(b"{\"code\":-32603,\"message\":\"Internal error\"}");
    }
    out.extend_from_slice(b"}\n");
    out
}

/// A request line (the server asking the client).
pub(crate) fn request_line<P: Serialize + ?Sized>(id: &RequestId, method: &str, params: &P) -> Vec<u8> {
    #[derive(Serialize)]
    struct Message<'a, P: ?Sized> {
        jsonrpc: &'static str,
        id: &'a RequestId,
        method: &'a str,
        params: &'a P,
    }
    let mut out = Vec::with_capacity(128);
    // Our requests' params are serde_json values: this cannot fail.
    if let Err(e) = serde_json::to_writer(&mut out, &Message { jsonrpc: "2.0", id, method, params }) {
        tracing::error!(error = %e, method, "a request could not be serialized");
    }
    out.push(b'\n');
    out
}

/// A notification line.
pub(crate) fn notification_line<P: Serialize + ?Sized>(method: &str, params: Option<&P>) -> Vec<u8> {
    #[derive(Serialize)]
    struct Message<'a, P: ?Sized> {
        jsonrpc: &'static str,
        method: &'a str,
        #[serde(skip_serializing_if = "Option::is_none")]
        params: Option<&'a P>,
    }
    let mut out = Vec::with_capacity(64);
    // Our notifications' params are maps of strings and values: this cannot fail.
    if let Err(e) = serde_json::to_writer(&mut out, &Message { jsonrpc: "2.0", method, params }) {
        tracing::error!(error = %e, method, "a notification could not be serialized");
        return Vec::new();
    }
    out.push(b'\n');
    out
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
        assert_eq!(invalid_code(r#"{"jsonrpc":"2.0"}"#), (None, code::INVALID_REQUEST));
    }

    #[test]
    fn responses_and_notifications_are_never_invalid() {
        for text in [
            r#"{"jsonrpc":"2.0","id":97,"result":null}"#,
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"x"}}"#,
            r#"{"id":1,"result":{}}"#,
        ] {
            assert!(matches!(classify(text), Incoming::Response { .. }), "{text}");
        }
        for text in [
            r#"{"jsonrpc":"2.0","method":"notifications/x","params":[1]}"#,
            r#"{"jsonrpc":"1.0","method":"notifications/x"}"#,
            r#"{"jsonrpc":"2.0","method":7}"#,
        ] {
            assert!(matches!(classify(text), Incoming::BadNotification(_)), "{text}");
        }
    }

    #[test]
    fn members_are_compared_after_decoding() {
        let Incoming::Request(r) = classify(r#"{"jsonrpc":"2\u002e0","id":1,"method":"pi\u006eg"}"#) else {
            panic!("an escaped \"2.0\" is \"2.0\"")
        };
        assert_eq!(r.method, "ping");
    }

    #[test]
    fn only_json_whitespace_is_whitespace() {
        assert!("  \t\r".chars().all(is_json_whitespace));
        for c in ['\u{a0}', '\u{b}', '\u{c}'] {
            assert!(!is_json_whitespace(c));
        }
    }

    #[test]
    fn errors_quote_a_short_prefix_of_client_text() {
        let long = "é".repeat(10_000);
        let quoted = excerpt(&long);
        assert_eq!(quoted.chars().count(), EXCERPT_CHARS + 1);
        assert_eq!(excerpt("short"), "short");
        let line = error_line(None, &ErrorObject::invalid_params(long));
        assert!(line.len() < MAX_ERROR_MESSAGE + 128, "{}", line.len());
        let v: Value = serde_json::from_slice(&line).unwrap();
        assert_eq!(v["error"]["code"], -32602);
    }

    #[test]
    fn ids_are_echoed_exactly() {
        let big = r#"{"jsonrpc":"2.0","id":18446744073709551615,"method":"ping"}"#;
        let Incoming::Request(r) = classify(big) else { panic!() };
        assert_eq!(success_line(&r.id, "{}"), b"{\"jsonrpc\":\"2.0\",\"id\":18446744073709551615,\"result\":{}}\n");
        let esc = r#"{"jsonrpc":"2.0","id":"a\"b\u00e9","method":"ping"}"#;
        let Incoming::Request(r) = classify(esc) else { panic!() };
        assert_eq!(r.id, RequestId::String("a\"bé".into()));
        let line = error_line(Some(&r.id), &ErrorObject::internal("x"));
        let v: Value = serde_json::from_slice(&line).unwrap();
        assert_eq!(v["id"], "a\"bé");
    }
}
