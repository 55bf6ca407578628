//! The client's side of the skills extension: the skills a server lists, and loading one's
//! files checked against what the listing promised (digest, size, and for `SKILL.md` its
//! front matter). Nothing is read before it is asked for.

use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::{Client, ClientError};
use crate::protocol::ResourceContents;

/// A skill as `skills/list` and `skills/get` describe it.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct SkillEntry {
    /// The URI of its `SKILL.md`.
    pub uri: String,
    /// Its front matter, as listed.
    #[serde(default)]
    pub frontmatter: Map<String, Value>,
    /// Its files, each with the digest and size it must have.
    #[serde(default)]
    pub resources: Vec<SkillFile>,
}

/// One file of a listed skill.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct SkillFile {
    /// Its URI.
    pub uri: String,
    /// `sha256:` and the hex SHA-256 of its bytes, when listed.
    #[serde(default)]
    pub digest: Option<String>,
    /// Its size in bytes, when listed.
    #[serde(default)]
    pub size: Option<u64>,
}

impl Client {
    fn require_skills(&self, method: &str) -> Result<(), ClientError> {
        self.require_extension(method, crate::skills::EXTENSION, "extensions.io.modelcontextprotocol/skills")
    }

    /// Every skill the server lists (`skills/list`), across pages. No file is read.
    pub async fn list_skills(&self) -> Result<Vec<SkillEntry>, ClientError> {
        self.require_skills("skills/list")?;
        self.list_all("skills/list", json!({}), "skills").await
    }

    /// The entry of the skill whose `SKILL.md` is at `uri` (`skills/get`).
    pub async fn get_skill(&self, uri: &str) -> Result<SkillEntry, ClientError> {
        self.require_skills("skills/get")?;
        let result: Value = self.typed("skills/get", json!({"uri": uri})).await?;
        serde_json::from_value(result["skill"].clone()).map_err(|e| ClientError::shape("skills/get", e))
    }

    /// Reads file `uri` of `skill` and checks it against the entry: its digest and size, and
    /// for `SKILL.md` its front matter, field by field. A file that does not match is an
    /// error naming what differs, and its bytes are not returned.
    pub async fn read_skill_file(&self, skill: &SkillEntry, uri: &str) -> Result<Vec<u8>, ClientError> {
        let Some(listed) = skill.resources.iter().find(|f| f.uri == uri) else {
            return Err(ClientError::Protocol(format!("`{uri}` is not a file of skill `{}`", skill.uri)));
        };
        let read = self.read_resource(uri).await?;
        let bytes = match read.contents.into_iter().next() {
            Some(ResourceContents::Text { text, .. }) => text.into_bytes(),
            Some(ResourceContents::Blob { blob, .. }) => {
                use base64::Engine as _;
                base64::engine::general_purpose::STANDARD
                    .decode(blob)
                    .map_err(|e| ClientError::shape("resources/read", format!("`{uri}`: not base64: {e}")))?
            }
            _ => return Err(ClientError::shape("resources/read", format!("no contents for `{uri}`"))),
        };
        let tampered = |what: String| ClientError::Protocol(format!("skill file `{uri}` was refused: {what}"));
        if let Some(size) = listed.size
            && size != bytes.len() as u64
        {
            return Err(tampered(format!("it has {} bytes, the listing says {size}", bytes.len())));
        }
        if let Some(digest) = &listed.digest {
            let actual = crate::skills::skill::digest_of(&bytes);
            if !actual.eq_ignore_ascii_case(digest) {
                return Err(tampered(format!("its digest is {actual}, the listing says {digest}")));
            }
        }
        if uri == skill.uri {
            let text = std::str::from_utf8(&bytes).map_err(|_| tampered("SKILL.md is not UTF-8".into()))?;
            let front = mcp_skill_folder::read_frontmatter(text).map_err(|e| tampered(e.to_string()))?;
            for (key, listed) in &skill.frontmatter {
                if front.get(key) != Some(listed) {
                    return Err(tampered(format!(
                        "its front matter's `{key}` is {}, the listing says {listed}",
                        front.get(key).map_or_else(|| "missing".to_owned(), Value::to_string)
                    )));
                }
            }
        }
        Ok(bytes)
    }
}
