//! The handshake's wire types: implementations, capabilities, `initialize`.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{Feature, Revision};

/// An icon for a server, tool, prompt or resource (sent from 2025-11-25 on).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Icon {
    /// An `https:` or `data:` URI.
    pub src: String,
    /// The image's MIME type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Sizes such as `"48x48"` or `"any"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sizes: Option<Vec<String>>,
    /// `"light"` or `"dark"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub theme: Option<String>,
}

impl Icon {
    /// An icon at `src`.
    pub fn new(src: impl Into<String>) -> Self {
        Icon { src: src.into(), mime_type: None, sizes: None, theme: None }
    }
}

/// The name and version of a client or server.
///
/// ```
/// use mcp_runtime::protocol::Implementation;
/// let me = Implementation::new("gift-genius", "1.0.0");
/// assert_eq!(serde_json::to_value(&me).unwrap()["name"], "gift-genius");
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Implementation {
    /// The programmatic name.
    pub name: String,
    /// The version.
    pub version: String,
    /// A display name (2025-06-18+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// A description (2025-11-25+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Icons (2025-11-25+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// A home page (2025-11-25+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub website_url: Option<String>,
}

impl Implementation {
    /// An implementation with a name and a version.
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        Implementation {
            name: name.into(),
            version: version.into(),
            title: None,
            description: None,
            icons: None,
            website_url: None,
        }
    }

    /// This implementation as `revision` defines it: fields it does not know are left out.
    pub fn for_revision(&self, revision: Revision) -> Implementation {
        let mut out = self.clone();
        if !revision.supports(Feature::Titles) {
            out.title = None;
        }
        if !revision.supports(Feature::Icons) {
            out.description = None;
            out.icons = None;
            out.website_url = None;
        }
        out
    }
}

/// A capability with only a `listChanged` flag (`tools`, `prompts`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ListChangedCapability {
    /// Whether the server sends `list_changed` notifications.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list_changed: Option<bool>,
}

/// The `resources` capability.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ResourcesCapability {
    /// Whether clients may subscribe to resource updates.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subscribe: Option<bool>,
    /// Whether the server sends `notifications/resources/list_changed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list_changed: Option<bool>,
}

/// What a server offers. Derived from what is registered; nobody writes it by hand.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ServerCapabilities {
    /// Tools are offered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<ListChangedCapability>,
    /// Resources are offered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources: Option<ResourcesCapability>,
    /// Prompts are offered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompts: Option<ListChangedCapability>,
    /// The server sends `notifications/message`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logging: Option<Map<String, Value>>,
    /// `completion/complete` is served (2025-03-26+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completions: Option<Map<String, Value>>,
    /// Non-standard capabilities.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub experimental: Option<Map<String, Value>>,
    /// The extensions the server supports, by identifier, with their settings (2026-07-28).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extensions: Option<Map<String, Value>>,
}

impl ServerCapabilities {
    /// These capabilities as `revision` defines them.
    pub fn for_revision(&self, revision: Revision) -> ServerCapabilities {
        let mut out = self.clone();
        if !revision.supports(Feature::CompletionsCapability) {
            out.completions = None;
        }
        if !revision.supports(Feature::Extensions) {
            out.extensions = None;
        }
        out
    }
}

/// The parameters of `initialize`.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InitializeParams {
    /// The revision the client asks for.
    pub protocol_version: String,
    /// What the client offers.
    #[serde(default)]
    pub capabilities: Map<String, Value>,
    /// Who the client is.
    #[serde(default)]
    pub client_info: Option<Implementation>,
}

/// The result of `initialize`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct InitializeResult {
    /// The negotiated revision.
    pub protocol_version: &'static str,
    /// What the server offers.
    pub capabilities: ServerCapabilities,
    /// Who the server is.
    pub server_info: Implementation,
    /// A hint for the model about how to use this server.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
}
