//! One skill: its folder's files (`SKILL.md` first), each with its `sha256:` digest and size,
//! read from disk at start-up or carried in the binary, and what the extension's methods say
//! of it.

use std::borrow::Cow;

use base64::Engine as _;
use serde_json::{Map, Value, json};

use crate::protocol::ResourceContents;

/// A file's MIME type, by its extension (`None` when unknown).
fn mime_of(file: &SkillFile) -> Option<&'static str> {
    let extension = file.path.rsplit_once('.').map(|(_, e)| e)?;
    Some(match extension {
        "md" => "text/markdown",
        "txt" => "text/plain",
        "py" => "text/x-python",
        "sh" => "text/x-shellscript",
        "js" => "text/javascript",
        "json" => "application/json",
        "yaml" | "yml" => "application/yaml",
        "html" => "text/html",
        "csv" => "text/csv",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "svg" => "image/svg+xml",
        "pdf" => "application/pdf",
        _ => return None,
    })
}

/// One file of a skill.
#[derive(Debug, Clone)]
#[cfg_attr(not(feature = "skills"), allow(dead_code))]
pub(crate) struct SkillFile {
    /// Its path inside the skill's folder, `/`-separated (`SKILL.md`, `scripts/run.py`).
    pub(crate) path: String,
    pub(crate) bytes: Cow<'static, [u8]>,
    /// `sha256:` and 64 lowercase hex digits of its bytes.
    pub(crate) digest: String,
}

/// A skill (the skills extension, still a draft): a folder with a `SKILL.md` (YAML front
/// matter, then Markdown) and any other files, served as resources under
/// `skill://<prefix>/<name>/<file>`.
#[derive(Debug, Clone)]
pub struct Skill {
    /// The skill's path under `skill://` (its prefix, if any, then its name).
    pub(crate) path: String,
    pub(crate) frontmatter: Map<String, Value>,
    /// `SKILL.md` first, then the rest by path.
    pub(crate) files: Vec<SkillFile>,
}

impl Skill {
    /// Reads the skill in `folder` (whose name is the skill's name): every file under it,
    /// `SKILL.md` checked. Symbolic links are refused, and so is a skill past the extension's
    /// limits ([`MAX_FILES`](crate::skills::MAX_FILES), [`MAX_BYTES`](crate::skills::MAX_BYTES)).
    #[cfg(feature = "skills")]
    #[cfg_attr(docsrs, doc(cfg(feature = "skills")))]
    pub fn from_dir(folder: impl AsRef<std::path::Path>) -> Result<Skill, mcp_skill_folder::SkillError> {
        mcp_skill_folder::read_skill(folder.as_ref()).map(Skill::from_found)
    }

    /// A skill read from disk and checked.
    #[cfg(feature = "skills")]
    pub(crate) fn from_found(found: mcp_skill_folder::FoundSkill) -> Skill {
        let files = found.files.into_iter().map(|f| (f.path, Cow::Owned(f.bytes))).collect();
        Skill::checked(&found.name, found.frontmatter, files).under(&found.prefix)
    }

    /// A skill named `name` made of `files` (path inside the folder, bytes), as a binary
    /// carries it: checked as [`Skill::from_dir`] checks a folder.
    #[cfg(feature = "skills")]
    pub(crate) fn from_files(
        name: &str,
        files: Vec<(String, Cow<'static, [u8]>)>,
    ) -> Result<Skill, mcp_skill_folder::SkillError> {
        let listed: Vec<(&str, &[u8])> = files.iter().map(|(path, bytes)| (path.as_str(), &bytes[..])).collect();
        let frontmatter = mcp_skill_folder::check(name, &listed)?;
        Ok(Skill::checked(name, frontmatter, files))
    }

    /// A skill whose files were checked and whose front matter is `frontmatter`.
    #[cfg(feature = "skills")]
    fn checked(name: &str, frontmatter: Map<String, Value>, files: Vec<(String, Cow<'static, [u8]>)>) -> Skill {
        let mut files: Vec<SkillFile> = files
            .into_iter()
            .map(|(path, bytes)| {
                let digest = digest_of(&bytes);
                SkillFile { path, bytes, digest }
            })
            .collect();
        files.sort_by(|a, b| (a.path != "SKILL.md", &a.path).cmp(&(b.path != "SKILL.md", &b.path)));
        Skill { path: name.to_owned(), frontmatter, files }
    }

    /// Serves it under `prefix` (`skill://acme/billing/<name>`): the prefix's segments come
    /// before the name.
    #[must_use]
    pub fn under(mut self, prefix: &str) -> Self {
        let prefix = prefix.trim_matches('/');
        if !prefix.is_empty() {
            self.path = format!("{prefix}/{}", self.path);
        }
        self
    }

    /// Its name (the front matter's `name`).
    pub fn name(&self) -> &str {
        self.frontmatter.get("name").and_then(Value::as_str).unwrap_or_default()
    }

    /// The URI of its root (`skill://<path>`, no trailing `/`).
    pub fn root_uri(&self) -> String {
        format!("skill://{}", self.path)
    }

    /// The URI of one of its files.
    pub(crate) fn file_uri(&self, file: &SkillFile) -> String {
        format!("skill://{}/{}", self.path, file.path)
    }

    /// A file as a resource in a listing: `SKILL.md` named and described as its front matter
    /// says.
    pub(crate) fn file_resource(&self, file: &SkillFile) -> Value {
        let name = file.path.rsplit('/').next().unwrap_or(&file.path);
        let mut resource = json!({"uri": self.file_uri(file), "name": name, "size": file.bytes.len()});
        if let Some(mime) = mime_of(file) {
            resource["mimeType"] = json!(mime);
        }
        if file.path == "SKILL.md" {
            resource["name"] = json!(self.name());
            if let Some(description) = self.frontmatter.get("description") {
                resource["description"] = description.clone();
            }
        }
        resource
    }

    /// Its `SKILL.md` as `resources/list` lists it: named and described as its front matter
    /// says, `text/markdown`.
    pub(crate) fn listed_resource(&self) -> Option<crate::protocol::Resource> {
        let file = self.files.iter().find(|f| f.path == "SKILL.md")?;
        let mut resource = crate::protocol::Resource::new(self.file_uri(file), self.name());
        resource.description = self.frontmatter.get("description").and_then(Value::as_str).map(str::to_owned);
        resource.mime_type = Some("text/markdown".into());
        resource.size = Some(file.bytes.len() as u64);
        Some(resource)
    }

    /// A file's contents, as `resources/read` answers: text when it is UTF-8, else base64.
    pub(crate) fn contents(&self, file: &SkillFile) -> ResourceContents {
        let uri = self.file_uri(file);
        let mime_type = mime_of(file).map(str::to_owned);
        match std::str::from_utf8(&file.bytes) {
            Ok(text) => ResourceContents::Text { uri, mime_type, text: text.to_owned(), meta: None },
            Err(_) => ResourceContents::Blob {
                uri,
                mime_type,
                blob: base64::engine::general_purpose::STANDARD.encode(&file.bytes),
                meta: None,
            },
        }
    }

    /// The skill's entry in `skills/list` and `skills/get`.
    pub(crate) fn entry(&self) -> Value {
        let resources: Vec<Value> = self
            .files
            .iter()
            .map(|f| json!({"uri": self.file_uri(f), "digest": f.digest, "size": f.bytes.len()}))
            .collect();
        json!({
            "uri": format!("{}/SKILL.md", self.root_uri()),
            "frontmatter": self.frontmatter,
            "resources": resources,
        })
    }
}

/// `sha256:` and the lowercase hex SHA-256 of `bytes`.
#[cfg_attr(not(any(feature = "skills", feature = "client")), allow(dead_code))]
pub(crate) fn digest_of(bytes: &[u8]) -> String {
    let hash = hmac_sha256::Hash::hash(bytes);
    let mut digest = String::with_capacity(7 + 64);
    digest.push_str("sha256:");
    for b in hash {
        digest.push_str(&format!("{b:02x}"));
    }
    digest
}

#[cfg(all(test, feature = "skills"))]
mod tests {
    use super::*;

    fn skill(files: &[(&str, &str)]) -> Result<Skill, mcp_skill_folder::SkillError> {
        let files = files.iter().map(|(p, t)| ((*p).to_owned(), Cow::Owned(t.as_bytes().to_vec()))).collect();
        Skill::from_files("refunds", files)
    }

    #[test]
    fn an_entry_lists_every_file_with_its_digest_and_size() {
        let md = "---\nname: refunds\ndescription: Refunds.\n---\nBody\n";
        let skill = skill(&[("scripts/run.sh", "echo hi\n"), ("SKILL.md", md)]).unwrap().under("acme/billing");
        let entry = skill.entry();
        assert_eq!(entry["uri"], "skill://acme/billing/refunds/SKILL.md");
        assert_eq!(entry["frontmatter"]["description"], "Refunds.");
        let resources = entry["resources"].as_array().unwrap();
        assert_eq!(resources[0]["uri"], "skill://acme/billing/refunds/SKILL.md");
        assert_eq!(resources[0]["size"], md.len());
        assert_eq!(resources[1]["uri"], "skill://acme/billing/refunds/scripts/run.sh");
        // `printf 'echo hi\n' | sha256sum`
        assert_eq!(resources[1]["digest"], "sha256:ab08508fdf5ca4da5c4995987bc41c56c048aaa5eeb046417ae4049b7d40286e");
    }

    #[test]
    fn a_skill_without_skill_md_is_refused() {
        assert!(matches!(skill(&[("README.md", "x")]), Err(mcp_skill_folder::SkillError::NoSkillMd { .. })));
    }
}
