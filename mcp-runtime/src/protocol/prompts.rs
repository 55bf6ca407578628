//! Prompt and completion wire types.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{Content, Feature, Icon, Revision, Role, shape_descriptive_fields};

/// One argument of a prompt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PromptArgument {
    /// Its name.
    pub name: String,
    /// A display name (2025-06-18+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What to pass.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Whether it must be given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required: Option<bool>,
}

/// A prompt as `prompts/list` describes it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Prompt {
    /// Its programmatic name.
    pub name: String,
    /// A display name (2025-06-18+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What it is for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Its arguments.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub arguments: Vec<PromptArgument>,
    /// Icons (2025-11-25+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// Metadata (2025-06-18+).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
}

impl Prompt {
    /// This prompt as `revision` defines it.
    pub fn for_revision(&self, revision: Revision) -> Prompt {
        let mut out = self.clone();
        shape_descriptive_fields(revision, &mut out.title, &mut out.icons, &mut out.meta);
        if !revision.supports(Feature::Titles) {
            out.arguments.iter_mut().for_each(|a| a.title = None);
        }
        out
    }
}

/// One message of a prompt.
///
/// ```
/// use mcp_runtime::protocol::PromptMessage;
/// let m = PromptMessage::user("Describe this gift.");
/// assert_eq!(serde_json::to_value(&m).unwrap()["role"], "user");
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PromptMessage {
    /// Who says it.
    pub role: Role,
    /// What is said.
    pub content: Content,
}

impl PromptMessage {
    /// A text message from the user.
    pub fn user(text: impl Into<String>) -> Self {
        PromptMessage { role: Role::User, content: Content::text(text) }
    }

    /// A text message from the assistant.
    pub fn assistant(text: impl Into<String>) -> Self {
        PromptMessage { role: Role::Assistant, content: Content::text(text) }
    }
}

/// The result of `prompts/get`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GetPromptResult {
    /// A description of this instance of the prompt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The messages.
    pub messages: Vec<PromptMessage>,
}

impl GetPromptResult {
    /// This result as `revision` defines it.
    pub fn for_revision(self, revision: Revision) -> GetPromptResult {
        GetPromptResult {
            description: self.description,
            messages: self
                .messages
                .into_iter()
                .map(|m| PromptMessage { role: m.role, content: m.content.for_revision(revision) })
                .collect(),
        }
    }
}

/// The values of a `completion/complete` result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Completion {
    /// Up to 100 suggestions, best first.
    pub values: Vec<String>,
    /// How many there are in all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<u64>,
    /// Whether there are more than `values` holds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub has_more: Option<bool>,
}

/// The most values a completion result may carry.
pub const MAX_COMPLETION_VALUES: usize = 100;

impl Completion {
    /// Up to 100 of `values`, with `total` and `hasMore` when there were more.
    pub fn from_values(mut values: Vec<String>) -> Self {
        let total = values.len();
        if total > MAX_COMPLETION_VALUES {
            values.truncate(MAX_COMPLETION_VALUES);
            Completion { values, total: Some(total as u64), has_more: Some(true) }
        } else {
            Completion { values, total: Some(total as u64), has_more: Some(false) }
        }
    }
}
