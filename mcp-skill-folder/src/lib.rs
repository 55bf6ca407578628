//! Skill folders as the MCP skills extension (`io.modelcontextprotocol/skills`, a draft) and
//! the Agent Skills format describe them: a folder with a `SKILL.md` (YAML front matter, then
//! Markdown) and any other files. This crate reads such folders and checks them (the front
//! matter's rules, the extension's limits, nothing outside the folder), for `mcp-runtime`,
//! which serves them, and its `embed_skills!` macro, which checks them at compile time; use
//! it through `mcp-runtime`.
//!
//! ```
//! let text = "---\nname: refunds\ndescription: Handles refunds.\n---\n# Refunds\n";
//! let front = mcp_skill_folder::check("refunds", &[("SKILL.md", text.as_bytes())]).unwrap();
//! assert_eq!(front["description"], "Handles refunds.");
//! ```

mod frontmatter;
mod tree;

pub use frontmatter::{FrontmatterError, is_skill_name, read_frontmatter};
pub use tree::{FoundFile, FoundSkill, read_skill, read_skills};

use std::path::PathBuf;

use serde_json::{Map, Value};

/// The most files a skill may have (the extension's limit).
pub const MAX_FILES: usize = 512;

/// The most bytes a skill's files may hold together (16 MiB, the extension's limit).
pub const MAX_BYTES: u64 = 16 * 1024 * 1024;

/// Why a skill could not be read.
#[derive(Debug)]
#[non_exhaustive]
pub enum SkillError {
    /// A file or folder could not be read.
    Io {
        /// What could not be read.
        path: PathBuf,
        /// Why.
        error: std::io::Error,
    },
    /// The skill has no `SKILL.md` at its root.
    NoSkillMd {
        /// The skill's folder.
        folder: PathBuf,
    },
    /// Its `SKILL.md` is malformed.
    Frontmatter {
        /// The `SKILL.md`.
        file: PathBuf,
        /// The fault and its line.
        fault: FrontmatterError,
    },
    /// A symbolic link, which could lead out of the skill's folder: refused.
    Symlink {
        /// The link.
        path: PathBuf,
    },
    /// A folder's file looks meant as its `SKILL.md` but is not named so (`skill.md`,
    /// `Skill.md`, `SKILLS.md`): the folder would be taken for a prefix, not a skill.
    Misnamed {
        /// The file found.
        found: PathBuf,
    },
    /// The folder given as a folder of skills is itself one skill (it holds a `SKILL.md`).
    FolderIsASkill {
        /// The folder given.
        folder: PathBuf,
    },
    /// Past a limit of the extension ([`MAX_FILES`], [`MAX_BYTES`]), or a path it cannot name.
    Refused {
        /// The skill's folder.
        folder: PathBuf,
        /// Why.
        reason: String,
    },
}

impl std::fmt::Display for SkillError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SkillError::Io { path, error } => write!(f, "{} cannot be read: {error}", path.display()),
            SkillError::NoSkillMd { folder } => write!(f, "{} has no SKILL.md at its root", folder.display()),
            SkillError::Frontmatter { file, fault } => {
                write!(f, "{}:{}: {}", file.display(), fault.line, fault.message)
            }
            SkillError::Symlink { path } => write!(
                f,
                "{} is a symbolic link; a skill's files must be plain files inside its folder",
                path.display()
            ),
            SkillError::Refused { folder, reason } => write!(f, "the skill in {}: {reason}", folder.display()),
            SkillError::Misnamed { found } => write!(
                f,
                "found {}, but a skill's file is named `SKILL.md`, in capitals: rename `{}` to `SKILL.md`",
                found.display(),
                found.file_name().unwrap_or_default().to_string_lossy()
            ),
            SkillError::FolderIsASkill { folder } => write!(
                f,
                "{} is itself a skill (it holds a `SKILL.md`), not a folder of skills: give the folder that \
                 holds it, {}",
                folder.display(),
                folder.parent().unwrap_or(folder).display()
            ),
        }
    }
}

impl std::error::Error for SkillError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            SkillError::Io { error, .. } => Some(error),
            SkillError::Frontmatter { fault, .. } => Some(fault),
            _ => None,
        }
    }
}

/// Checks the skill named `name` (its folder's name) made of `files` (each a path inside the
/// folder, `/`-separated, and its bytes): the extension's limits, a `SKILL.md` at its root and
/// its front matter. Gives the front matter as JSON; errors name paths under `name`.
pub fn check(name: &str, files: &[(&str, &[u8])]) -> Result<Map<String, Value>, SkillError> {
    let here = PathBuf::from(name);
    if files.len() > MAX_FILES {
        let reason = format!("{} files, more than the {MAX_FILES} a skill may have", files.len());
        return Err(SkillError::Refused { folder: here, reason });
    }
    let total: u64 = files.iter().map(|(_, bytes)| bytes.len() as u64).sum();
    if total > MAX_BYTES {
        let reason = format!("{total} bytes, more than the {MAX_BYTES} a skill may hold");
        return Err(SkillError::Refused { folder: here, reason });
    }
    if let Some((path, _)) = files.iter().find(|(path, _)| !is_inside(path)) {
        let reason = format!("`{path}` is not a path inside the skill's folder");
        return Err(SkillError::Refused { folder: here, reason });
    }
    let Some((_, skill_md)) = files.iter().find(|(path, _)| *path == "SKILL.md") else {
        return Err(SkillError::NoSkillMd { folder: here });
    };
    let file = here.join("SKILL.md");
    let text = std::str::from_utf8(skill_md).map_err(|_| SkillError::Frontmatter {
        file: file.clone(),
        fault: FrontmatterError { line: 1, message: "SKILL.md is not UTF-8".into() },
    })?;
    frontmatter::parse(text, name).map_err(|fault| SkillError::Frontmatter { file, fault })
}

/// Whether `path` stays inside its folder: relative, `/`-separated, with no empty, `.` or `..`
/// segment.
fn is_inside(path: &str) -> bool {
    !path.is_empty() && path.split('/').all(|segment| !matches!(segment, "" | "." | "..") && !segment.contains('\\'))
}

#[cfg(test)]
mod tests {
    use super::*;

    const MD: &[u8] = b"---\nname: refunds\ndescription: Refunds.\n---\nBody\n";

    #[test]
    fn a_skill_without_skill_md_or_past_the_limits_is_refused() {
        assert!(matches!(check("refunds", &[("README.md", b"x")]), Err(SkillError::NoSkillMd { .. })));
        let names: Vec<String> = (0..=MAX_FILES).map(|n| format!("f{n}")).collect();
        let mut many: Vec<(&str, &[u8])> = names.iter().map(|p| (p.as_str(), &b"x"[..])).collect();
        many.push(("SKILL.md", MD));
        let refused = check("refunds", &many).unwrap_err();
        assert!(refused.to_string().contains("more than the 512"), "{refused}");
        let big = vec![b'x'; MAX_BYTES as usize];
        let refused = check("refunds", &[("SKILL.md", MD), ("big.bin", &big)]).unwrap_err();
        assert!(refused.to_string().contains("bytes, more than"), "{refused}");
    }

    #[test]
    fn a_path_out_of_the_folder_is_refused() {
        for path in ["../secret", "/etc/passwd", "a//b", "./x", "a/../../b"] {
            let refused = check("refunds", &[("SKILL.md", MD), (path, b"x")]).unwrap_err();
            assert!(matches!(refused, SkillError::Refused { .. }), "{path}: {refused}");
        }
        assert!(check("refunds", &[("SKILL.md", MD), ("scripts/run.sh", b"x")]).is_ok());
    }
}
