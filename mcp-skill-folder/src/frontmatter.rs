//! A `SKILL.md`'s front matter: the YAML between its two `---` lines, as JSON, checked
//! against the Agent Skills rules (name, description, compatibility, metadata). A fault names
//! the line of `SKILL.md` it is on.

use serde_json::{Map, Number, Value};
use yaml_rust2::{Yaml, YamlLoader};

/// What is wrong with a `SKILL.md`, and on which of its lines (1-based).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FrontmatterError {
    /// The line of `SKILL.md` the fault is on.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for FrontmatterError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for FrontmatterError {}

fn fault(line: usize, message: impl Into<String>) -> FrontmatterError {
    FrontmatterError { line, message: message.into() }
}

/// The prefix of `metadata` keys the protocol reserves.
const RESERVED: &str = "io.modelcontextprotocol/";

/// The front matter of `text` (a `SKILL.md`): the YAML mapping between its two `---` lines,
/// as a JSON object, read but not checked against the naming rules: what a client compares
/// with the entry a server listed.
///
/// ```
/// let front = mcp_skill_folder::read_frontmatter("---\nname: pdf\ndescription: Reads PDFs\n---\nBody").unwrap();
/// assert_eq!(front["description"], "Reads PDFs");
/// ```
pub fn read_frontmatter(text: &str) -> Result<Map<String, Value>, FrontmatterError> {
    read(text).map(|(front, _, _)| front)
}

/// The front matter as JSON, the line that closes it, and its YAML text.
fn read(text: &str) -> Result<(Map<String, Value>, usize, String), FrontmatterError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.split_inclusive('\n');
    if lines.next().map(|l| l.trim_end()) != Some("---") {
        return Err(fault(1, "SKILL.md must start with a `---` line opening its YAML front matter"));
    }
    let mut yaml = String::new();
    let mut closed = None;
    for (n, line) in lines.enumerate() {
        if line.trim_end() == "---" {
            closed = Some(n + 2);
            break;
        }
        yaml.push_str(line);
    }
    let Some(closing_line) = closed else {
        return Err(fault(1, "the front matter opened on line 1 is never closed by a `---` line"));
    };
    let documents = YamlLoader::load_from_str(&yaml)
        .map_err(|e| fault(e.marker().line() + 1, format!("the front matter is not YAML: {}", e.info())))?;
    let Some(Yaml::Hash(hash)) = documents.into_iter().next() else {
        return Err(fault(2, "the front matter must be a YAML mapping (`name: ...`, `description: ...`)"));
    };
    let mut front = Map::new();
    for (key, value) in hash {
        let Yaml::String(key) = key else {
            return Err(fault(2, "every front matter key must be a string"));
        };
        let value = json_of(&value).map_err(|why| fault(line_in(&yaml, &key), format!("`{key}`: {why}")))?;
        front.insert(key, value);
    }
    Ok((front, closing_line, yaml))
}

/// The line of `SKILL.md` where front matter key `key` is (2 when it cannot be found).
fn line_in(yaml: &str, key: &str) -> usize {
    yaml.lines().position(|l| l.starts_with(key) && l[key.len()..].trim_start().starts_with(':')).map_or(2, |n| n + 2)
}

/// The front matter of `text` (a `SKILL.md`), as a JSON object, checked: `name` (which must
/// be `expected_name`, its folder's name) and `description` present and well formed.
pub(crate) fn parse(text: &str, expected_name: &str) -> Result<Map<String, Value>, FrontmatterError> {
    let (front, closing_line, yaml) = read(text)?;
    let line_of = |key: &str| line_in(&yaml, key);
    let text_field = |key: &str, max: usize, required: bool| -> Result<(), FrontmatterError> {
        match front.get(key) {
            None if required => Err(fault(closing_line, format!("the front matter needs `{key}`"))),
            None => Ok(()),
            Some(Value::String(s)) if !s.is_empty() && s.chars().count() <= max => Ok(()),
            Some(_) => Err(fault(line_of(key), format!("`{key}` must be a string of 1 to {max} characters"))),
        }
    };
    text_field("name", 64, true)?;
    text_field("description", 1024, true)?;
    text_field("compatibility", 500, false)?;
    let name = front.get("name").and_then(Value::as_str).unwrap_or_default();
    if !is_skill_name(name) {
        return Err(fault(
            line_of("name"),
            format!("`name` `{name}` must be 1 to 64 of `a-z`, `0-9` and `-`, with no `-` at either end and no `--`"),
        ));
    }
    if name != expected_name {
        return Err(fault(
            line_of("name"),
            format!("`name` is `{name}`, but its folder is `{expected_name}`: they must be the same"),
        ));
    }
    if let Some(metadata) = front.get("metadata") {
        let Some(entries) = metadata.as_object().filter(|m| m.values().all(Value::is_string)) else {
            return Err(fault(line_of("metadata"), "`metadata` must map strings to strings"));
        };
        if let Some(key) = entries.keys().find(|k| k.starts_with(RESERVED)) {
            return Err(fault(
                line_of("metadata"),
                format!("`metadata` key `{key}` uses the reserved prefix `{RESERVED}`"),
            ));
        }
    }
    Ok(front)
}

/// Whether `name` follows the Agent Skills naming rules: 1 to 64 of `a-z`, `0-9` and `-`,
/// with no `-` at either end and no `--`.
///
/// ```
/// assert!(mcp_skill_folder::is_skill_name("pdf-tools"));
/// assert!(!mcp_skill_folder::is_skill_name("PDF_tools"));
/// ```
pub fn is_skill_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !name.starts_with('-')
        && !name.ends_with('-')
        && !name.contains("--")
}

/// A YAML value as JSON (mappings need string keys).
fn json_of(value: &Yaml) -> Result<Value, String> {
    Ok(match value {
        Yaml::String(s) => Value::String(s.clone()),
        Yaml::Integer(i) => Value::from(*i),
        Yaml::Real(text) => {
            let number = value.as_f64().and_then(Number::from_f64);
            Value::Number(number.ok_or_else(|| format!("`{text}` is not a number JSON can hold"))?)
        }
        Yaml::Boolean(b) => Value::Bool(*b),
        Yaml::Null => Value::Null,
        Yaml::Array(items) => Value::Array(items.iter().map(json_of).collect::<Result<_, _>>()?),
        Yaml::Hash(hash) => {
            let mut object = Map::new();
            for (key, value) in hash {
                let Yaml::String(key) = key else { return Err("mapping keys must be strings".into()) };
                object.insert(key.clone(), json_of(value)?);
            }
            Value::Object(object)
        }
        Yaml::Alias(_) | Yaml::BadValue => return Err("aliases and tags are not supported".into()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_front_matter_reads_as_json() {
        let text = "---\nname: refunds\ndescription: Handles refunds.\nmetadata:\n  owner: billing\nversion: 2\n---\n# Refunds\n";
        let front = parse(text, "refunds").unwrap();
        assert_eq!(front["name"], "refunds");
        assert_eq!(front["metadata"]["owner"], "billing");
        assert_eq!(front["version"], 2);
    }

    #[test]
    fn each_fault_names_its_line() {
        let cases = [
            ("# no front matter\n", 1, "must start with"),
            ("---\nname: refunds\n", 1, "never closed"),
            ("---\nname: refunds\n---\n", 3, "needs `description`"),
            ("---\nname: Refunds\ndescription: x\n---\n", 2, "must be 1 to 64"),
            ("---\nname: other\ndescription: x\n---\n", 2, "its folder is `refunds`"),
            ("---\nname: refunds\ndescription: x\nmetadata:\n  io.modelcontextprotocol/x: y\n---\n", 4, "reserved"),
            ("---\nname: refunds\ndescription: [unclosed\n---\n", 4, "not YAML"),
        ];
        for (text, line, says) in cases {
            let error = parse(text, "refunds").unwrap_err();
            assert_eq!(error.line, line, "{text:?}: {error}");
            assert!(error.message.contains(says), "{text:?}: {error}");
        }
    }

    #[test]
    fn skill_names_follow_the_naming_rules() {
        for good in ["a", "refunds", "pdf-tools-2"] {
            assert!(is_skill_name(good), "{good}");
        }
        for bad in ["", "-a", "a-", "a--b", "A", "a_b", &"a".repeat(65)] {
            assert!(!is_skill_name(bad), "{bad}");
        }
    }
}
