//! Tool wire types: the listing entry and the call result.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{Content, Feature, Icon, Revision};

/// Hints about a tool's behaviour (2025-03-26+). Only what was set is sent.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolAnnotations {
    /// A display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The tool does not change its environment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_only_hint: Option<bool>,
    /// The tool may destroy or overwrite data.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub destructive_hint: Option<bool>,
    /// Calling it twice with the same arguments has no further effect.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idempotent_hint: Option<bool>,
    /// The tool reaches outside the server (the web, other systems).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_world_hint: Option<bool>,
}

impl ToolAnnotations {
    /// Whether no hint is set.
    pub fn is_empty(&self) -> bool {
        *self == ToolAnnotations::default()
    }
}

/// A tool as `tools/list` describes it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Tool {
    /// The programmatic name.
    pub name: String,
    /// A display name (2025-06-18+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the tool does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The JSON Schema of the arguments (root `type: object`).
    pub input_schema: Value,
    /// The JSON Schema of the structured output (2025-06-18+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<Value>,
    /// Behaviour hints (2025-03-26+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<ToolAnnotations>,
    /// Icons (2025-11-25+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// Metadata (2025-06-18+).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
}

/// The result of `tools/call`.
///
/// ```
/// use mcp_runtime::protocol::{CallToolResult, Content};
/// let ok = CallToolResult::text("done");
/// assert!(!ok.is_error);
/// let failed = CallToolResult::error("the catalog is offline");
/// assert!(failed.is_error);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CallToolResult {
    /// The content blocks (may be empty).
    pub content: Vec<Content>,
    /// Structured output (2025-06-18+), matching the tool's output schema.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured_content: Option<Value>,
    /// Whether the tool failed; the content then says why.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub is_error: bool,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
}

impl CallToolResult {
    /// A successful result with one text block.
    pub fn text(text: impl Into<String>) -> Self {
        CallToolResult { content: vec![Content::text(text)], ..Default::default() }
    }

    /// A successful result with these blocks.
    pub fn content(content: Vec<Content>) -> Self {
        CallToolResult { content, ..Default::default() }
    }

    /// A failed result (`isError: true`) whose text says why.
    pub fn error(message: impl Into<String>) -> Self {
        CallToolResult { content: vec![Content::text(message)], is_error: true, ..Default::default() }
    }

    /// This result as `revision` defines it. `wrap_structured` says the tool's output is not
    /// an object and goes out as `{"result": …}` where only objects are allowed.
    pub fn for_revision(self, revision: Revision, wrap_structured: bool) -> CallToolResult {
        let structured_content = match self.structured_content {
            Some(_) if !revision.supports(Feature::StructuredContent) => None,
            Some(value)
                if !revision.supports(Feature::AnyStructuredContent) && (wrap_structured || !value.is_object()) =>
            {
                let mut wrapped = Map::new();
                wrapped.insert("result".to_owned(), value);
                Some(Value::Object(wrapped))
            }
            other => other,
        };
        CallToolResult {
            content: self.content.into_iter().map(|c| c.for_revision(revision)).collect(),
            structured_content,
            is_error: self.is_error,
            meta: self.meta,
        }
    }
}

/// Wraps a non-object output schema as `{"result": schema}` for revisions that need objects.
pub(crate) fn wrapped_output_schema(schema: &Value) -> Value {
    serde_json::json!({
        "type": "object",
        "properties": { "result": schema },
        "required": ["result"],
    })
}

/// Whether a schema describes objects only (its root `type` is `"object"`).
pub(crate) fn is_object_schema(schema: &Value) -> bool {
    schema.get("type").and_then(Value::as_str) == Some("object")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn structured_content_follows_the_revision() {
        let result = CallToolResult { structured_content: Some(json!([1, 2])), ..CallToolResult::text("[1,2]") };
        assert_eq!(result.clone().for_revision(Revision::V2025_03_26, true).structured_content, None);
        assert_eq!(
            result.clone().for_revision(Revision::V2025_06_18, true).structured_content,
            Some(json!({"result": [1, 2]}))
        );
        assert_eq!(result.for_revision(Revision::V2026_07_28, true).structured_content, Some(json!([1, 2])));
    }

    #[test]
    fn is_error_is_sent_only_when_true() {
        assert_eq!(
            serde_json::to_value(CallToolResult::text("a")).unwrap(),
            json!({"content": [{"type": "text", "text": "a"}]})
        );
        assert_eq!(serde_json::to_value(CallToolResult::error("b")).unwrap()["isError"], true);
    }
}
