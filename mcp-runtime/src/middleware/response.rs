//! What a layer sees of an answer: the result or error the method produced (read back only
//! when a layer asks), or what a layer answered instead, with what the HTTP transport should
//! answer with besides.

use std::fmt;

use serde_json::{Map, Value};

use crate::context::outlet::{HttpReply, Outgoing};
use crate::protocol::{ErrorObject, members};

/// The answer to one request, on its way back out through the layers.
///
/// The method's answer is kept as it was written (serialized once); [`result`](Self::result)
/// reads it back for a layer that wants to see it, and [`set_result`](Self::set_result)
/// replaces it. A layer that answers without calling inward builds one with
/// [`error`](Self::error) or [`success`](Self::success).
pub struct McpResponse {
    /// The answer as the method wrote it.
    pub(crate) written: Option<Outgoing>,
    /// What a layer answered, or replaced the written answer with.
    pub(crate) replaced: Option<Result<Map<String, Value>, ErrorObject>>,
    pub(crate) http: Option<HttpReply>,
}

impl fmt::Debug for McpResponse {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("McpResponse")
            .field("error_code", &self.error_code())
            .field("tool_error", &self.is_tool_error())
            .field("http", &self.http)
            .finish_non_exhaustive()
    }
}

impl McpResponse {
    pub(crate) fn written(line: Outgoing) -> Self {
        McpResponse { written: Some(line), replaced: None, http: None }
    }

    /// An error answer: a layer's refusal.
    ///
    /// ```
    /// use mcp_runtime::middleware::McpResponse;
    /// use mcp_runtime::protocol::ErrorObject;
    ///
    /// let refused = McpResponse::error(ErrorObject::new(-31403, "Not for you"))
    ///     .with_http_status(403)
    ///     .with_http_header("WWW-Authenticate", r#"Bearer error="insufficient_scope""#);
    /// assert_eq!(refused.error_code(), Some(-31403));
    /// assert_eq!(refused.http_status(), Some(403));
    /// ```
    pub fn error(error: ErrorObject) -> Self {
        McpResponse { written: None, replaced: Some(Err(error)), http: None }
    }

    /// A successful answer with `result` (an object), written for the request's revision.
    pub fn success(result: Map<String, Value>) -> Self {
        McpResponse { written: None, replaced: Some(Ok(result)), http: None }
    }

    /// The JSON-RPC error code, when it is an error.
    pub fn error_code(&self) -> Option<i32> {
        match (&self.replaced, &self.written) {
            (Some(Err(error)), _) => Some(error.code),
            (Some(Ok(_)), _) => None,
            (None, Some(line)) => line.answer.as_ref().and_then(|answer| answer.error),
            (None, None) => None,
        }
    }

    /// Whether it is a JSON-RPC error.
    pub fn is_error(&self) -> bool {
        self.error_code().is_some()
    }

    /// Whether it is a tool's result that reports a failure (`isError: true`).
    pub fn is_tool_error(&self) -> bool {
        match (&self.replaced, &self.written) {
            (Some(Ok(result)), _) => result.get("isError") == Some(&Value::Bool(true)),
            (Some(Err(_)), _) => false,
            (None, Some(line)) => line.answer.as_ref().is_some_and(|answer| answer.tool_error),
            (None, None) => false,
        }
    }

    /// The result or error, read back from the answer as written (the 2026-07-28 members the
    /// runtime adds, `resultType`, the caching hints and the server's identity, left out).
    pub fn result(&self) -> Result<Map<String, Value>, ErrorObject> {
        if let Some(replaced) = &self.replaced {
            return replaced.clone();
        }
        let Some(line) = &self.written else { return Ok(Map::new()) };
        let text = std::str::from_utf8(&line.line).unwrap_or_default();
        let [result, error] = members(text.trim_end(), ["result", "error"]);
        if let Some(error) = error {
            return Err(serde_json::from_str(error).unwrap_or_else(|e| ErrorObject::internal(e.to_string())));
        }
        let mut result: Map<String, Value> = result.and_then(|r| serde_json::from_str(r).ok()).unwrap_or_default();
        for added in ["resultType", "ttlMs", "cacheScope"] {
            result.remove(added);
        }
        if let Some(Value::Object(meta)) = result.get_mut("_meta") {
            meta.remove("io.modelcontextprotocol/serverInfo");
            if meta.is_empty() {
                result.remove("_meta");
            }
        }
        Ok(result)
    }

    /// Replaces the answer.
    pub fn set_result(&mut self, result: Result<Map<String, Value>, ErrorObject>) {
        self.replaced = Some(result);
    }

    /// Over HTTP, answers with `status` (such as 429 or 403) instead of the usual one. A
    /// status outside 100–599 is ignored.
    #[must_use]
    pub fn with_http_status(mut self, status: u16) -> Self {
        if (100..=599).contains(&status) {
            self.http.get_or_insert_with(|| HttpReply { status: 200, headers: Vec::new() }).status = status;
        }
        self
    }

    /// Over HTTP, adds a header (such as `Retry-After`) to the answer. A header HTTP cannot
    /// carry is left out when the answer is written.
    #[must_use]
    pub fn with_http_header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.http
            .get_or_insert_with(|| HttpReply { status: 200, headers: Vec::new() })
            .headers
            .push((name.into(), value.into()));
        self
    }

    /// The HTTP status a layer set.
    pub fn http_status(&self) -> Option<u16> {
        self.http.as_ref().map(|http| http.status)
    }
}
