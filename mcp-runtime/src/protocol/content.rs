//! Content blocks (tool results, prompt messages) and resource contents.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{Feature, Icon, Revision};

/// Who a piece of content is meant for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The human user.
    User,
    /// The model.
    Assistant,
}

/// Hints for the client about how to use a piece of content.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Annotations {
    /// Who the content is for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audience: Option<Vec<Role>>,
    /// Importance from 0 (least) to 1 (most).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority: Option<f64>,
    /// ISO 8601 time of the last change (2025-06-18+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_modified: Option<String>,
}

impl Annotations {
    /// Leaves out of `annotations` what `revision` does not define.
    pub(crate) fn shape(annotations: &mut Option<Annotations>, revision: Revision) {
        if let Some(a) = annotations
            && !revision.supports(Feature::LastModified)
        {
            a.last_modified = None;
        }
    }
}

/// The contents of a resource: text or base64 binary.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ResourceContents {
    /// Text contents.
    Text {
        /// The resource's URI.
        uri: String,
        /// Its MIME type.
        #[serde(rename = "mimeType", default, skip_serializing_if = "Option::is_none")]
        mime_type: Option<String>,
        /// The text.
        text: String,
        /// Metadata (2025-06-18+).
        #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
        meta: Option<Map<String, Value>>,
    },
    /// Binary contents, base64-encoded.
    Blob {
        /// The resource's URI.
        uri: String,
        /// Its MIME type.
        #[serde(rename = "mimeType", default, skip_serializing_if = "Option::is_none")]
        mime_type: Option<String>,
        /// The base64-encoded bytes.
        blob: String,
        /// Metadata (2025-06-18+).
        #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
        meta: Option<Map<String, Value>>,
    },
}

impl ResourceContents {
    /// Text contents of the resource at `uri`.
    pub fn text(uri: impl Into<String>, mime_type: Option<String>, text: impl Into<String>) -> Self {
        ResourceContents::Text { uri: uri.into(), mime_type, text: text.into(), meta: None }
    }

    /// Binary contents of the resource at `uri`, from raw bytes (sent base64-encoded).
    pub fn blob(uri: impl Into<String>, mime_type: Option<String>, bytes: &[u8]) -> Self {
        use base64::Engine as _;
        let blob = base64::engine::general_purpose::STANDARD.encode(bytes);
        ResourceContents::Blob { uri: uri.into(), mime_type, blob, meta: None }
    }

    /// These contents as `revision` defines them.
    pub fn for_revision(mut self, revision: Revision) -> Self {
        self.shape(revision);
        self
    }

    fn shape(&mut self, revision: Revision) {
        if !revision.supports(Feature::ContentMeta) {
            match self {
                ResourceContents::Text { meta, .. } | ResourceContents::Blob { meta, .. } => *meta = None,
            }
        }
    }
}

/// A link to a resource the client can read or subscribe to (2025-06-18+; older revisions
/// get a text block naming it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceLink {
    /// The resource's URI.
    pub uri: String,
    /// Its programmatic name.
    pub name: String,
    /// A display name.
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
    /// Icons (2025-11-25+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// Hints for the client.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
}

/// One block of content in a tool result or a prompt message.
///
/// ```
/// use mcp_runtime::protocol::Content;
/// let block = Content::text("hello");
/// assert_eq!(serde_json::to_value(&block).unwrap()["type"], "text");
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Content {
    /// Plain text.
    Text {
        /// The text.
        text: String,
        /// Hints for the client.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        annotations: Option<Annotations>,
        /// Metadata (2025-06-18+).
        #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
        meta: Option<Map<String, Value>>,
    },
    /// An image, base64-encoded.
    Image {
        /// The base64-encoded bytes.
        data: String,
        /// The image's MIME type.
        #[serde(rename = "mimeType")]
        mime_type: String,
        /// Hints for the client.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        annotations: Option<Annotations>,
        /// Metadata (2025-06-18+).
        #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
        meta: Option<Map<String, Value>>,
    },
    /// Audio, base64-encoded (2025-03-26+; older revisions get an embedded blob).
    Audio {
        /// The base64-encoded bytes.
        data: String,
        /// The audio's MIME type.
        #[serde(rename = "mimeType")]
        mime_type: String,
        /// Hints for the client.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        annotations: Option<Annotations>,
        /// Metadata (2025-06-18+).
        #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
        meta: Option<Map<String, Value>>,
    },
    /// A link to a resource.
    ResourceLink(ResourceLink),
    /// A resource embedded in full.
    Resource {
        /// The resource's contents.
        resource: ResourceContents,
        /// Hints for the client.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        annotations: Option<Annotations>,
        /// Metadata (2025-06-18+).
        #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
        meta: Option<Map<String, Value>>,
    },
}

/// The URI given to audio sent to a 2024-11-05 client as an embedded resource.
const INLINE_AUDIO_URI: &str = "audio://inline";

impl Content {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        Content::Text { text: text.into(), annotations: None, meta: None }
    }

    /// An image block from base64 data.
    pub fn image(data_base64: impl Into<String>, mime_type: impl Into<String>) -> Self {
        Content::Image { data: data_base64.into(), mime_type: mime_type.into(), annotations: None, meta: None }
    }

    /// An audio block from base64 data.
    pub fn audio(data_base64: impl Into<String>, mime_type: impl Into<String>) -> Self {
        Content::Audio { data: data_base64.into(), mime_type: mime_type.into(), annotations: None, meta: None }
    }

    /// A link to the resource at `uri` called `name`.
    pub fn resource_link(uri: impl Into<String>, name: impl Into<String>) -> Self {
        Content::ResourceLink(ResourceLink {
            uri: uri.into(),
            name: name.into(),
            title: None,
            description: None,
            mime_type: None,
            size: None,
            icons: None,
            annotations: None,
            meta: None,
        })
    }

    /// An embedded resource.
    pub fn resource(contents: ResourceContents) -> Self {
        Content::Resource { resource: contents, annotations: None, meta: None }
    }

    /// Converts this block to what `revision` has: nothing is dropped silently; a block the
    /// revision lacks becomes its nearest equivalent.
    pub fn for_revision(self, revision: Revision) -> Content {
        let mut block = match self {
            Content::Audio { data, mime_type, annotations, meta } if !revision.supports(Feature::AudioContent) => {
                Content::Resource {
                    resource: ResourceContents::Blob {
                        uri: INLINE_AUDIO_URI.to_owned(),
                        mime_type: Some(mime_type),
                        blob: data,
                        meta: None,
                    },
                    annotations,
                    meta,
                }
            }
            Content::ResourceLink(link) if !revision.supports(Feature::ResourceLinks) => {
                let mut text = format!("{}: {}", link.name, link.uri);
                if let Some(description) = &link.description {
                    text.push_str(" (");
                    text.push_str(description);
                    text.push(')');
                }
                Content::Text { text, annotations: link.annotations, meta: None }
            }
            other => other,
        };
        let (annotations, meta) = match &mut block {
            Content::Text { annotations, meta, .. }
            | Content::Image { annotations, meta, .. }
            | Content::Audio { annotations, meta, .. }
            | Content::Resource { annotations, meta, .. } => (annotations, meta),
            Content::ResourceLink(link) => {
                if !revision.supports(Feature::Icons) {
                    link.icons = None;
                }
                (&mut link.annotations, &mut link.meta)
            }
        };
        if !revision.supports(Feature::ContentMeta) {
            *meta = None;
        }
        Annotations::shape(annotations, revision);
        if let Content::Resource { resource, .. } = &mut block {
            resource.shape(revision);
        }
        block
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn audio_becomes_an_embedded_blob_before_2025_03_26() {
        let block = Content::audio("AAAA", "audio/wav").for_revision(Revision::V2024_11_05);
        assert_eq!(
            serde_json::to_value(&block).unwrap(),
            json!({"type": "resource", "resource": {"uri": INLINE_AUDIO_URI, "mimeType": "audio/wav", "blob": "AAAA"}})
        );
        let kept = Content::audio("AAAA", "audio/wav").for_revision(Revision::V2025_03_26);
        assert_eq!(serde_json::to_value(&kept).unwrap()["type"], "audio");
    }

    #[test]
    fn resource_links_become_text_before_2025_06_18() {
        let block = Content::resource_link("gifts://catalog", "catalog").for_revision(Revision::V2025_03_26);
        assert_eq!(serde_json::to_value(&block).unwrap(), json!({"type": "text", "text": "catalog: gifts://catalog"}));
    }

    #[test]
    fn meta_and_last_modified_are_left_out_where_undefined() {
        let mut meta = Map::new();
        meta.insert("k".into(), json!(1));
        let block = Content::Text {
            text: "x".into(),
            annotations: Some(Annotations {
                priority: Some(0.5),
                last_modified: Some("2025-01-01T00:00:00Z".into()),
                audience: None,
            }),
            meta: Some(meta),
        };
        let old = serde_json::to_value(block.clone().for_revision(Revision::V2025_03_26)).unwrap();
        assert_eq!(old, json!({"type": "text", "text": "x", "annotations": {"priority": 0.5}}));
        let new = serde_json::to_value(block.for_revision(Revision::V2025_06_18)).unwrap();
        assert_eq!(new["_meta"]["k"], 1);
        assert_eq!(new["annotations"]["lastModified"], "2025-01-01T00:00:00Z");
    }
}
