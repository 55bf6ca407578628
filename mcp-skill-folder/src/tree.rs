//! Skills on disk: one skill's folder read whole, or a folder of skills walked (a folder with a
//! `SKILL.md` is a skill, a folder without one a prefix of the skills inside it). Symbolic
//! links are refused wherever they are, so nothing outside the folder is ever read.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::{MAX_FILES, SkillError, check};

/// One file of a skill read from disk.
#[derive(Debug, Clone)]
pub struct FoundFile {
    /// Its path inside the skill's folder, `/`-separated (`SKILL.md`, `scripts/run.py`).
    pub path: String,
    /// Where it is on disk.
    pub disk: PathBuf,
    /// Its bytes.
    pub bytes: Vec<u8>,
}

/// A skill read from disk and checked.
#[derive(Debug, Clone)]
pub struct FoundSkill {
    /// The folders between the walked folder and this skill's, `/`-separated (`acme/billing`;
    /// empty for a skill at the top, or one read alone).
    pub prefix: String,
    /// Its name: its folder's, which its front matter's `name` equals.
    pub name: String,
    /// Its folder on disk.
    pub folder: PathBuf,
    /// Its front matter, as JSON.
    pub frontmatter: Map<String, Value>,
    /// Every file under its folder, by path.
    pub files: Vec<FoundFile>,
}

/// Reads and checks the skill in `folder` (whose name is the skill's name): every file under
/// it, its `SKILL.md`, the extension's limits.
pub fn read_skill(folder: &Path) -> Result<FoundSkill, SkillError> {
    let mut files = Vec::new();
    read_tree(folder, folder, &mut files)?;
    let name = folder.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let listed: Vec<(&str, &[u8])> = files.iter().map(|f| (f.path.as_str(), f.bytes.as_slice())).collect();
    let frontmatter = check(&name, &listed).map_err(|e| located(e, folder))?;
    Ok(FoundSkill { prefix: String::new(), name, folder: folder.to_owned(), frontmatter, files })
}

/// Reads and checks every skill under `dir`: each folder holding a `SKILL.md` is a skill, and a
/// folder without one is a prefix of the skills inside it. By prefix and name.
pub fn read_skills(dir: &Path) -> Result<Vec<FoundSkill>, SkillError> {
    fn visit(dir: &Path, prefix: &str, skills: &mut Vec<FoundSkill>) -> Result<(), SkillError> {
        for (path, kind) in entries(dir)? {
            if !kind.is_dir() {
                continue;
            }
            let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            if let Some(found) = misnamed_skill_md(&path)? {
                return Err(SkillError::Misnamed { found });
            }
            if path.join("SKILL.md").is_file() {
                skills.push(FoundSkill { prefix: prefix.to_owned(), ..read_skill(&path)? });
            } else {
                let inner = if prefix.is_empty() { name } else { format!("{prefix}/{name}") };
                visit(&path, &inner, skills)?;
            }
        }
        Ok(())
    }
    if dir.join("SKILL.md").is_file() {
        return Err(SkillError::FolderIsASkill { folder: dir.to_owned() });
    }
    // A skill's `SKILL.md` given where the folder of skills goes: its folder is the skill.
    if dir.is_file() && dir.file_name().is_some_and(|name| name.eq_ignore_ascii_case("SKILL.md")) {
        let folder = dir.parent().unwrap_or(dir).to_owned();
        return Err(SkillError::FolderIsASkill { folder });
    }
    let mut skills = Vec::new();
    visit(dir, "", &mut skills)?;
    Ok(skills)
}

/// A file of `dir` that looks meant as its `SKILL.md` (`skill.md`, `Skill.md`, `SKILLS.md`,
/// `SKILL.MD`, `skill.markdown`, `SKILL.txt`), when `dir` has no `SKILL.md`.
fn misnamed_skill_md(dir: &Path) -> Result<Option<PathBuf>, SkillError> {
    let files: Vec<PathBuf> = entries(dir)?.into_iter().filter(|(_, kind)| kind.is_file()).map(|(p, _)| p).collect();
    let named = |path: &PathBuf| path.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_owned();
    if files.iter().any(|p| named(p) == "SKILL.md") {
        return Ok(None);
    }
    Ok(files.into_iter().find(|path| {
        let name = named(path).to_ascii_lowercase();
        let (stem, extension) = name.rsplit_once('.').unwrap_or((&name, ""));
        matches!(stem, "skill" | "skills") && matches!(extension, "md" | "markdown" | "txt" | "")
    }))
}

/// The entries of `dir`, by name, with their kinds; a symbolic link is refused.
fn entries(dir: &Path) -> Result<Vec<(PathBuf, std::fs::FileType)>, SkillError> {
    let io = |path: &Path| {
        let path = path.to_owned();
        move |error| SkillError::Io { path, error }
    };
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(io(dir))? {
        let entry = entry.map_err(io(dir))?;
        let path = entry.path();
        let kind = entry.file_type().map_err(io(&path))?;
        if kind.is_symlink() {
            return Err(SkillError::Symlink { path });
        }
        found.push((path, kind));
    }
    found.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(found)
}

/// Every file under `dir`, with its path relative to `root`.
fn read_tree(root: &Path, dir: &Path, files: &mut Vec<FoundFile>) -> Result<(), SkillError> {
    for (path, kind) in entries(dir)? {
        if kind.is_dir() {
            read_tree(root, &path, files)?;
            continue;
        }
        if files.len() >= MAX_FILES {
            let reason = format!("more than the {MAX_FILES} files a skill may have");
            return Err(SkillError::Refused { folder: root.to_owned(), reason });
        }
        let relative = path.strip_prefix(root).unwrap_or(&path);
        let Some(name) = relative.to_str().map(|p| p.replace(std::path::MAIN_SEPARATOR, "/")) else {
            let reason = format!("{} is not a UTF-8 path, which a URI cannot name", relative.display());
            return Err(SkillError::Refused { folder: root.to_owned(), reason });
        };
        let bytes = std::fs::read(&path).map_err(|error| SkillError::Io { path: path.clone(), error })?;
        files.push(FoundFile { path: name, disk: path, bytes });
    }
    Ok(())
}

/// The same error, naming paths under `folder` rather than the skill's name.
fn located(error: SkillError, folder: &Path) -> SkillError {
    match error {
        SkillError::NoSkillMd { .. } => SkillError::NoSkillMd { folder: folder.to_owned() },
        SkillError::Frontmatter { fault, .. } => SkillError::Frontmatter { file: folder.join("SKILL.md"), fault },
        SkillError::Refused { reason, .. } => SkillError::Refused { folder: folder.to_owned(), reason },
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh folder under the system's temporary one.
    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("mcp-skill-folder-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn a_folder_of_skills_is_walked_with_prefixes() {
        let dir = scratch("walk");
        let skill = dir.join("acme/billing/refunds");
        std::fs::create_dir_all(skill.join("scripts")).unwrap();
        std::fs::write(skill.join("SKILL.md"), "---\nname: refunds\ndescription: Refunds.\n---\n").unwrap();
        std::fs::write(skill.join("scripts/run.sh"), "echo\n").unwrap();
        let found = read_skills(&dir).unwrap();
        assert_eq!(found.len(), 1);
        assert_eq!((found[0].prefix.as_str(), found[0].name.as_str()), ("acme/billing", "refunds"));
        let paths: Vec<&str> = found[0].files.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(paths, ["SKILL.md", "scripts/run.sh"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn a_symbolic_link_out_of_a_skill_is_refused() {
        let dir = scratch("link");
        let skill = dir.join("refunds");
        std::fs::create_dir_all(&skill).unwrap();
        std::fs::write(skill.join("SKILL.md"), "---\nname: refunds\ndescription: Refunds.\n---\n").unwrap();
        std::os::unix::fs::symlink("/etc", skill.join("etc")).unwrap();
        let refused = read_skills(&dir).unwrap_err();
        assert!(matches!(refused, SkillError::Symlink { .. }), "{refused}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_skill_md_in_the_wrong_case_is_named_with_the_right_one() {
        let dir = scratch("misnamed");
        let skill = dir.join("refunds");
        std::fs::create_dir_all(&skill).unwrap();
        std::fs::write(skill.join("skill.md"), "---\nname: refunds\ndescription: Refunds.\n---\n").unwrap();
        let refused = read_skills(&dir).unwrap_err().to_string();
        assert!(refused.contains("refunds/skill.md, but a skill's file is named `SKILL.md`"), "{refused}");
        assert!(refused.ends_with("rename `skill.md` to `SKILL.md`"), "{refused}");
        for other in ["Skill.md", "SKILLS.md", "SKILL.MD", "skill.markdown", "SKILL.txt"] {
            std::fs::rename(std::fs::read_dir(&skill).unwrap().next().unwrap().unwrap().path(), skill.join(other))
                .unwrap();
            let refused = read_skills(&dir).unwrap_err().to_string();
            assert!(refused.ends_with(&format!("rename `{other}` to `SKILL.md`")), "{refused}");
        }
        // A file of another name is no skill file: the folder is a prefix with nothing in it.
        std::fs::rename(skill.join("SKILL.txt"), skill.join("notes.md")).unwrap();
        assert!(read_skills(&dir).unwrap().is_empty());
    }

    #[test]
    fn a_skill_given_as_the_folder_of_skills_names_its_parent() {
        let dir = scratch("one_skill");
        let skill = dir.join("refunds");
        std::fs::create_dir_all(skill.join("scripts")).unwrap();
        std::fs::write(skill.join("SKILL.md"), "---\nname: refunds\ndescription: Refunds.\n---\n").unwrap();
        let refused = read_skills(&skill).unwrap_err().to_string();
        assert_eq!(read_skills(&skill.join("SKILL.md")).unwrap_err().to_string(), refused, "its SKILL.md alike");
        let expected = format!(
            "{} is itself a skill (it holds a `SKILL.md`), not a folder of skills: give the folder that holds it, {}",
            skill.display(),
            dir.display()
        );
        assert_eq!(refused, expected);
        assert_eq!(read_skills(&dir).unwrap().len(), 1, "its parent is read");
    }

    #[test]
    fn a_broken_skill_md_names_its_file_and_line() {
        let dir = scratch("broken");
        let skill = dir.join("refunds");
        std::fs::create_dir_all(&skill).unwrap();
        std::fs::write(skill.join("SKILL.md"), "---\nname: refunds\n---\n").unwrap();
        let refused = read_skills(&dir).unwrap_err().to_string();
        assert!(refused.ends_with("refunds/SKILL.md:3: the front matter needs `description`"), "{refused}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
