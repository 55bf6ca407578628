//! Skills a binary carries: what `embed_skills!` expands to, checked at compile time by the
//! same rules that [`Skill::from_dir`] applies at start-up, their bytes borrowed from the
//! binary rather than copied.

use std::borrow::Cow;

use crate::skills::Skill;

/// One skill a binary carries (made by `embed_skills!`).
#[derive(Debug)]
pub struct EmbeddedSkill {
    pub(crate) prefix: &'static str,
    pub(crate) name: &'static str,
    pub(crate) files: &'static [(&'static str, &'static [u8])],
}

/// The skills a binary carries: what `embed_skills!("dir")` expands to. Serve them with
/// [`Server::skills`](crate::Server::skills), or turn them into [`Skill`]s.
///
/// ```
/// # #[cfg(feature = "macros")] {
/// let skills = mcp_runtime::embed_skills!("../../../examples/conformance_server/skills");
/// let read = skills.to_skills().unwrap();
/// assert_eq!(read[0].root_uri(), "skill://acme/refunds");
/// # }
/// ```
#[derive(Debug, Clone, Copy)]
pub struct EmbeddedSkills(pub(crate) &'static [EmbeddedSkill]);

impl EmbeddedSkills {
    /// The skills, their bytes borrowed from the binary. They were checked when the binary was
    /// built; they are checked again here, by the same rules, so that an error names the skill.
    pub fn to_skills(&self) -> Result<Vec<Skill>, mcp_skill_folder::SkillError> {
        self.0
            .iter()
            .map(|skill| {
                let files =
                    skill.files.iter().map(|(path, bytes)| ((*path).to_owned(), Cow::Borrowed(*bytes))).collect();
                Ok(Skill::from_files(skill.name, files)?.under(skill.prefix))
            })
            .collect()
    }
}

/// For generated code: one embedded skill.
pub(crate) const fn embedded_skill(
    prefix: &'static str,
    name: &'static str,
    files: &'static [(&'static str, &'static [u8])],
) -> EmbeddedSkill {
    EmbeddedSkill { prefix, name, files }
}
