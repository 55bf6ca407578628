//! RFC 6570 URI templates, as MCP resource templates use them: level 1 (`{var}`) and reserved
//! expansion (`{+var}`), parsed once and matched against concrete URIs.
//!
//! `mcp-runtime` matches resource URIs with it at run time, and its attribute macros check
//! templates with it at compile time, so both sides agree on what a template is. It has no
//! dependencies, so the macro crate stays light. Use it through `mcp_runtime::UriTemplate`.
//!
//! ```
//! use mcp_uri_template::UriTemplate;
//!
//! let template = UriTemplate::parse("notes://{owner}/{+path}").unwrap();
//! assert_eq!(template.variables().collect::<Vec<_>>(), ["owner", "path"]);
//! let matched = template.match_uri("notes://ada/drafts/one%20two").unwrap();
//! assert_eq!(matched[0], ("owner".to_owned(), "ada".to_owned()));
//! assert_eq!(matched[1], ("path".to_owned(), "drafts/one%20two".to_owned()));
//! assert!(UriTemplate::parse("notes://{unclosed").is_err());
//! ```

use std::fmt;

/// One piece of a template.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    Literal(String),
    /// `{name}` (unreserved characters only; percent-decoded on match) or `{+name}` (may
    /// hold reserved characters such as `/`).
    Variable {
        name: String,
        reserved: bool,
    },
}

/// A parsed URI template: `UriTemplate::parse("gifts://catalog/{category}")` matches
/// `gifts://catalog/books` with `category = "books"`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UriTemplate {
    source: String,
    parts: Vec<Part>,
}

/// Why a template does not parse.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UriTemplateError(String);

impl fmt::Display for UriTemplateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UriTemplateError {}

impl UriTemplate {
    /// Parses a template: literal text and `{name}` / `{+name}` expressions whose names are
    /// ASCII letters, digits and `_`; two variables may not touch.
    pub fn parse(source: &str) -> Result<UriTemplate, UriTemplateError> {
        let mut parts = Vec::new();
        let mut rest = source;
        while !rest.is_empty() {
            match rest.find(['{', '}']) {
                Some(i) if rest.as_bytes()[i] == b'}' => {
                    return Err(UriTemplateError(format!("unmatched `}}` in `{source}`")));
                }
                Some(i) => {
                    if i > 0 {
                        parts.push(Part::Literal(rest[..i].to_owned()));
                    }
                    let close =
                        rest[i..].find('}').ok_or_else(|| UriTemplateError(format!("unclosed `{{` in `{source}`")))?;
                    let inner = &rest[i + 1..i + close];
                    let (reserved, name) = match inner.strip_prefix('+') {
                        Some(name) => (true, name),
                        None => (false, inner),
                    };
                    if name.is_empty() || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
                        return Err(UriTemplateError(format!(
                            "`{{{inner}}}` in `{source}` is not a supported expression: use `{{name}}` or \
                             `{{+name}}` with a name of letters, digits and `_`"
                        )));
                    }
                    if matches!(parts.last(), Some(Part::Variable { .. })) {
                        return Err(UriTemplateError(format!(
                            "two variables touch in `{source}`: put literal text between them"
                        )));
                    }
                    if parts.iter().any(|p| matches!(p, Part::Variable { name: n, .. } if n == name)) {
                        return Err(UriTemplateError(format!("variable `{name}` appears twice in `{source}`")));
                    }
                    parts.push(Part::Variable { name: name.to_owned(), reserved });
                    rest = &rest[i + close + 1..];
                }
                None => {
                    parts.push(Part::Literal(rest.to_owned()));
                    rest = "";
                }
            }
        }
        Ok(UriTemplate { source: source.to_owned(), parts })
    }

    /// The template as written.
    pub fn as_str(&self) -> &str {
        &self.source
    }

    /// The variables' names, in order.
    pub fn variables(&self) -> impl Iterator<Item = &str> {
        self.parts.iter().filter_map(|p| match p {
            Part::Variable { name, .. } => Some(name.as_str()),
            Part::Literal(_) => None,
        })
    }

    /// The variables' values if `uri` is an expansion of this template. URIs longer than
    /// 8 KiB match no template (matching backtracks, so its cost must stay bounded).
    pub fn match_uri(&self, uri: &str) -> Option<Vec<(String, String)>> {
        if uri.len() > MAX_MATCHED_URI {
            return None;
        }
        self.match_within(uri, MATCH_STEPS).0
    }

    /// [`match_uri`](Self::match_uri) with `budget` variable endings to try, and what is left
    /// of it.
    fn match_within(&self, uri: &str, mut budget: usize) -> (Option<Vec<(String, String)>>, usize) {
        let mut values = Vec::new();
        let matched = match_parts(&self.parts, uri, &mut values, &mut budget);
        (matched.then_some(values), budget)
    }
}

/// The longest URI matched against templates.
const MAX_MATCHED_URI: usize = 8 * 1024;

/// How many variable endings one match may try before giving up (no match): a hostile URI
/// against a template with several reserved variables could otherwise take cubic time.
const MATCH_STEPS: usize = 100_000;

/// Matches `parts` against the whole of `uri`, backtracking over where each variable ends:
/// only where the literal after it starts (or at the end, for a last variable).
fn match_parts(parts: &[Part], uri: &str, values: &mut Vec<(String, String)>, budget: &mut usize) -> bool {
    let Some((first, rest)) = parts.split_first() else { return uri.is_empty() };
    match first {
        Part::Literal(text) => {
            uri.strip_prefix(text.as_str()).is_some_and(|tail| match_parts(rest, tail, values, budget))
        }
        Part::Variable { name, reserved } => {
            // A simple variable stops at the first character it may not hold.
            let limit = if *reserved { uri.len() } else { uri.find(|c| !is_unreserved_or_pct(c)).unwrap_or(uri.len()) };
            let next_literal = match rest.first() {
                Some(Part::Literal(text)) => Some(text.as_str()),
                _ => None,
            };
            let ends = (1..=limit).rev().filter(|&end| {
                uri.is_char_boundary(end)
                    && match next_literal {
                        Some(text) => uri[end..].starts_with(text),
                        None => rest.is_empty() && end == uri.len(),
                    }
            });
            for end in ends {
                if *budget == 0 {
                    return false;
                }
                *budget -= 1;
                let Some(value) = (if *reserved { Some(uri[..end].to_owned()) } else { percent_decode(&uri[..end]) })
                else {
                    continue;
                };
                values.push((name.clone(), value));
                if match_parts(rest, &uri[end..], values, budget) {
                    return true;
                }
                values.pop();
            }
            false
        }
    }
}

fn is_unreserved_or_pct(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_' | '~' | '%') || !c.is_ascii()
}

/// Decodes `%XX` escapes (RFC 3986 §2.1); `None` when an escape is malformed or the bytes are
/// not UTF-8. What a matched variable's value goes through, also for other parts of URIs
/// (a fragment's JSON pointer, say).
///
/// ```
/// assert_eq!(mcp_uri_template::percent_decode("a%2Fb%20c").as_deref(), Some("a/b c"));
/// assert_eq!(mcp_uri_template::percent_decode("%zz"), None);
/// ```
pub fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = text.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(template: &str, uri: &str) -> Option<Vec<(String, String)>> {
        UriTemplate::parse(template).unwrap().match_uri(uri)
    }

    #[test]
    fn simple_variables_match_one_segment_and_decode() {
        assert_eq!(vars("x://a/{id}/data", "x://a/42/data"), Some(vec![("id".into(), "42".into())]));
        assert_eq!(vars("x://a/{id}", "x://a/caf%C3%A9"), Some(vec![("id".into(), "café".into())]));
        assert_eq!(vars("x://a/{id}", "x://a/b/c"), None);
        assert_eq!(vars("x://a/{id}", "x://a/"), None);
        assert_eq!(vars("x://{a}-{b}", "x://1-2-3"), Some(vec![("a".into(), "1-2".into()), ("b".into(), "3".into())]));
    }

    #[test]
    fn reserved_variables_span_slashes() {
        assert_eq!(vars("file:///{+path}", "file:///a/b/c.txt"), Some(vec![("path".into(), "a/b/c.txt".into())]));
    }

    #[test]
    fn variables_are_listed_in_order() {
        let t = UriTemplate::parse("gifts://catalog/{category}/{+rest}").unwrap();
        assert_eq!(t.variables().collect::<Vec<_>>(), ["category", "rest"]);
        assert_eq!(t.as_str(), "gifts://catalog/{category}/{+rest}");
    }

    #[test]
    fn long_uris_match_no_template() {
        let t = UriTemplate::parse("x://{+a}-{+b}-{+c}").unwrap();
        assert!(t.match_uri(&format!("x://{}", "-".repeat(MAX_MATCHED_URI))).is_none());
        let dashes = format!("x://{}", "-".repeat(2000));
        assert!(t.match_uri(&dashes).is_some(), "dashes split into three non-empty parts");
        // No ending can match: splits are tried until the step budget runs out, not all of
        // the ~8000³/6 there are.
        let hostile = UriTemplate::parse("x://{+a}-{+b}-{+c}z").unwrap();
        let (matched, left) = hostile.match_within(&format!("x://{}", "-".repeat(8000)), MATCH_STEPS);
        assert!(matched.is_none());
        assert_eq!(left, 0, "the budget bounded the search");
    }

    #[test]
    fn bad_templates_are_rejected() {
        for bad in ["x://{", "x://}", "x://{}", "x://{a b}", "x://{a}{b}", "x://{a}/{a}", "x://{?q}"] {
            assert!(UriTemplate::parse(bad).is_err(), "{bad}");
        }
    }
}
