//! Resource wire types: listed resources and templates, read results.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{Annotations, Icon, ResourceContents, Revision, shape_descriptive_fields};

/// A concrete resource as `resources/list` describes it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Resource {
    /// Its URI.
    pub uri: String,
    /// Its programmatic name.
    pub name: String,
    /// A display name (2025-06-18+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Its MIME type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Its size in bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    /// Hints for the client.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Icons (2025-11-25+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// Metadata (2025-06-18+).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
}

impl Resource {
    /// A resource at `uri` called `name`.
    pub fn new(uri: impl Into<String>, name: impl Into<String>) -> Self {
        Resource {
            uri: uri.into(),
            name: name.into(),
            title: None,
            description: None,
            mime_type: None,
            size: None,
            annotations: None,
            icons: None,
            meta: None,
        }
    }

    /// This resource as `revision` defines it.
    pub fn for_revision(&self, revision: Revision) -> Resource {
        let mut out = self.clone();
        shape_descriptive_fields(revision, &mut out.title, &mut out.icons, &mut out.meta);
        Annotations::shape(&mut out.annotations, revision);
        out
    }
}

/// A resource template as `resources/templates/list` describes it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceTemplate {
    /// An RFC 6570 URI template.
    pub uri_template: String,
    /// Its programmatic name.
    pub name: String,
    /// A display name (2025-06-18+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What its resources are.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The MIME type of its resources.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Hints for the client.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Icons (2025-11-25+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// Metadata (2025-06-18+).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
}

impl ResourceTemplate {
    /// This template as `revision` defines it.
    pub fn for_revision(&self, revision: Revision) -> ResourceTemplate {
        let mut out = self.clone();
        shape_descriptive_fields(revision, &mut out.title, &mut out.icons, &mut out.meta);
        Annotations::shape(&mut out.annotations, revision);
        out
    }
}

/// The result of `resources/read`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReadResourceResult {
    /// One or more contents (a directory may hold several).
    pub contents: Vec<ResourceContents>,
}

impl ReadResourceResult {
    /// This result as `revision` defines it.
    pub fn for_revision(self, revision: Revision) -> ReadResourceResult {
        ReadResourceResult { contents: self.contents.into_iter().map(|c| c.for_revision(revision)).collect() }
    }
}
