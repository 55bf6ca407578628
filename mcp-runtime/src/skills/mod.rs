//! The skills extension (`io.modelcontextprotocol/skills`, SEP-2640, still a draft: the API is
//! experimental): skills served as resources under `skill://`, listed by `skills/list`, each
//! one's entry by `skills/get`, its folders by `resources/directory/read`. Reading skills
//! (their front matter is YAML) needs the feature `skills`; the catalog a server holds is
//! empty without it.

#[cfg(feature = "skills")]
pub(crate) mod embedded;
pub(crate) mod skill;

#[cfg(feature = "skills")]
#[cfg_attr(docsrs, doc(cfg(feature = "skills")))]
pub use embedded::{EmbeddedSkill, EmbeddedSkills};
#[cfg(feature = "skills")]
#[cfg_attr(docsrs, doc(cfg(feature = "skills")))]
pub use mcp_skill_folder::{FrontmatterError, MAX_BYTES, MAX_FILES, SkillError};
pub use skill::Skill;

use serde_json::{Value, json};

use skill::SkillFile;

/// The extension's identifier, as capabilities name it.
pub(crate) const EXTENSION: &str = "io.modelcontextprotocol/skills";

/// The MIME type of a folder in a directory listing.
const DIRECTORY: &str = "inode/directory";

/// The skills under `dir` (see [`Server::skills_dir`](crate::Server::skills_dir)).
#[cfg(feature = "skills")]
pub(crate) fn read_dir(dir: &std::path::Path) -> Result<Vec<Skill>, mcp_skill_folder::SkillError> {
    Ok(mcp_skill_folder::read_skills(dir)?.into_iter().map(Skill::from_found).collect())
}

/// The skills a server serves, by path.
#[derive(Debug, Default)]
pub(crate) struct Catalog {
    skills: Vec<Skill>,
}

/// What a URI names in the catalog.
pub(crate) enum Found<'a> {
    /// One of a skill's files.
    File(&'a Skill, &'a SkillFile),
    /// A folder of a skill (its root, or a folder in it): its path inside the skill (`""` for
    /// the root).
    Folder(&'a Skill, String),
}

impl Catalog {
    /// A catalog of `skills`; `Err` names two skills served under one path.
    pub(crate) fn new(mut skills: Vec<Skill>) -> Result<Self, String> {
        skills.sort_by(|a, b| a.path.cmp(&b.path));
        if let Some(pair) = skills.windows(2).find(|pair| pair[0].path == pair[1].path) {
            return Err(format!("two skills are served at `{}`", pair[0].root_uri()));
        }
        Ok(Catalog { skills })
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.skills.is_empty()
    }

    /// Every skill, by path.
    pub(crate) fn skills(&self) -> &[Skill] {
        &self.skills
    }

    /// What `uri` names: a file or a folder of a served skill. A URI with an empty, `.` or
    /// `..` segment names nothing (nothing outside a skill's folder can be reached).
    pub(crate) fn find(&self, uri: &str) -> Option<Found<'_>> {
        let rest = uri.strip_prefix("skill://")?.trim_end_matches('/');
        if rest.split('/').any(|segment| segment.is_empty() || segment == "." || segment == "..") {
            return None;
        }
        // The longest skill path that is a prefix: skills may nest.
        let skill = self
            .skills
            .iter()
            .filter(|s| rest == s.path || rest.starts_with(&format!("{}/", s.path)))
            .max_by_key(|s| s.path.len())?;
        let inner = rest[skill.path.len()..].trim_start_matches('/');
        if let Some(file) = skill.files.iter().find(|f| f.path == inner) {
            return Some(Found::File(skill, file));
        }
        let folder = inner.is_empty() || skill.files.iter().any(|f| f.path.starts_with(&format!("{inner}/")));
        folder.then(|| Found::Folder(skill, inner.to_owned()))
    }

    /// The skill whose `SKILL.md` (or root) `uri` names.
    pub(crate) fn skill(&self, uri: &str) -> Option<&Skill> {
        match self.find(uri)? {
            Found::File(skill, file) if file.path == "SKILL.md" => Some(skill),
            Found::Folder(skill, inner) if inner.is_empty() => Some(skill),
            _ => None,
        }
    }

    /// The direct children of folder `inner` of `skill`, as resources: files, and folders as
    /// `inode/directory`, by URI.
    pub(crate) fn children(skill: &Skill, inner: &str) -> Vec<Value> {
        let prefix = if inner.is_empty() { String::new() } else { format!("{inner}/") };
        let mut children: Vec<Value> = Vec::new();
        let mut folders: Vec<&str> = Vec::new();
        for file in skill.files.iter().filter(|f| f.path.starts_with(&prefix)) {
            let rest = &file.path[prefix.len()..];
            match rest.split_once('/') {
                None => children.push(skill.file_resource(file)),
                Some((folder, _)) if !folders.contains(&folder) => folders.push(folder),
                Some(_) => {}
            }
        }
        for folder in folders {
            let uri = format!("{}/{prefix}{folder}", skill.root_uri());
            children.push(json!({"uri": uri, "name": folder, "mimeType": DIRECTORY}));
        }
        children.sort_by(|a, b| a["uri"].as_str().cmp(&b["uri"].as_str()));
        children
    }
}
