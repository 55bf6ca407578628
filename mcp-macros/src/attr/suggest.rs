//! The error for an unknown key, naming the valid ones and the closest when it is close, so
//! that a typo is answered with its fix: a key spelled as the protocol spells it
//! (`readOnlyHint`) is answered with ours (`read_only`), a key of another macro says where it
//! belongs, and a near miss gets "did you mean".

use quote::ToTokens;
use syn::meta::ParseNestedMeta;

use super::{PROMPT_KEYS, RESOURCE_KEYS, TOOL_KEYS};

/// "unknown argument" with the valid keys, and the closest one when it is close.
pub(crate) fn unknown_key(tokens: impl ToTokens, key: &str, attr: &str, valid: &[&str]) -> syn::Error {
    unknown_key_with(tokens, key, attr, valid, None)
}

/// [`unknown_key`] for a key of `meta`, whose guessed key is shown written with the value
/// given (`scops = "a:b"`: did you mean `scopes`? write `scopes("a:b")`).
pub(crate) fn unknown_key_in(meta: &ParseNestedMeta<'_>, key: &str, attr: &str, valid: &[&str]) -> syn::Error {
    let fork = meta.input.fork();
    let value = if fork.peek(syn::Token![=]) {
        let _ = fork.parse::<syn::Token![=]>();
        fork.parse::<syn::Lit>().ok().map(|lit| lit.to_token_stream().to_string())
    } else if fork.peek(syn::token::Paren) {
        let listed = || -> syn::Result<String> {
            let content;
            syn::parenthesized!(content in fork);
            let words = syn::punctuated::Punctuated::<syn::Lit, syn::Token![,]>::parse_terminated(&content)?;
            Ok(words.iter().map(|w| w.to_token_stream().to_string()).collect::<Vec<_>>().join(", "))
        };
        listed().ok()
    } else {
        None
    };
    unknown_key_with(&meta.path, key, attr, valid, value.as_deref())
}

/// How `key` is written, with `value` when one was given: `scopes("a:b")`, `task = "optional"`;
/// `None` for a flag or a key of its own form.
fn written_as(key: &str, value: Option<&str>) -> Option<String> {
    match key {
        "tags" | "scopes" => {
            let example = if key == "tags" { "\"admin\"" } else { "\"notes:write\"" };
            Some(format!("`{key}({})`", value.unwrap_or(example)))
        }
        "task" | "audience" | "cache_scope" | "mime" | "timeout" | "uri" => Some(match value {
            Some(value) => format!("`{key} = {value}`"),
            None => super::value::written(key),
        }),
        _ => None,
    }
}

fn unknown_key_with(tokens: impl ToTokens, key: &str, attr: &str, valid: &[&str], value: Option<&str>) -> syn::Error {
    let list = valid.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ");
    let write = |guess: &str| written_as(guess, value).map(|form| format!("write {form}; ")).unwrap_or_default();
    let message = if let Some(ours) = protocol_spelling(key, valid) {
        format!(
            "unknown `{attr}` argument `{key}`; did you mean `{ours}`? ({}`{key}` is the protocol's spelling; \
             the attribute's keys are snake_case, without `Hint`; valid: {list})",
            write(ours)
        )
    } else if let Some(elsewhere) = elsewhere(key, attr) {
        format!("unknown `{attr}` argument `{key}`: {elsewhere}")
    } else if let Some(guess) = same_as(key, valid).or_else(|| closest(key, valid)) {
        format!("unknown `{attr}` argument `{key}`; did you mean `{guess}`? ({}valid: {list})", write(guess))
    } else {
        format!("unknown `{attr}` argument `{key}`; expected one of {list}")
    };
    syn::Error::new_spanned(tokens, message)
}

/// Our key for `key` written as the protocol writes it (`readOnlyHint`, `cacheScope`) or with
/// its `_hint` (`read_only_hint`), when that key is valid here.
fn protocol_spelling<'a>(key: &str, valid: &[&'a str]) -> Option<&'a str> {
    if !key.contains(|c: char| c.is_ascii_uppercase()) && !key.ends_with("_hint") {
        return None;
    }
    let mut snake = String::with_capacity(key.len() + 4);
    for c in key.chars() {
        if c.is_ascii_uppercase() {
            snake.push('_');
            snake.push(c.to_ascii_lowercase());
        } else {
            snake.push(c);
        }
    }
    let ours = snake.strip_suffix("_hint").unwrap_or(&snake);
    let ours = same_as(ours, valid).unwrap_or(ours);
    valid.iter().find(|k| **k == ours && **k != key).copied()
}

/// Where `key` belongs when another macro takes it and `attr` does not: what to write instead.
fn elsewhere(key: &str, attr: &str) -> Option<String> {
    if attr == "mcp" {
        return None;
    }
    let special = match (key, attr) {
        ("complete", "mcp_tool") => Some(
            "tool arguments have no completion in MCP; completion is served for prompt arguments \
             (`#[mcp_prompt(complete(name = ...))]`) and resource template variables \
             (`#[mcp_resource(\"scheme://{var}\", complete(var = ...))]`)"
                .to_owned(),
        ),
        ("task" | "task_after_input", _) => Some(format!(
            "only a tool's call can run as a task (the tasks extension): `#[mcp_tool({key} ...)]`; \
             a resource or a prompt answers at once"
        )),
        _ => None,
    };
    if special.is_some() {
        return special;
    }
    let owners: Vec<String> = [("mcp_tool", TOOL_KEYS), ("mcp_resource", RESOURCE_KEYS), ("mcp_prompt", PROMPT_KEYS)]
        .into_iter()
        .filter(|(owner, keys)| *owner != attr && keys.contains(&key))
        .map(|(owner, _)| format!("`#[{owner}]`"))
        .collect();
    (!owners.is_empty())
        .then(|| format!("`{key}` is a key of {}, not of `#[{attr}]`; remove it here", owners.join(" and ")))
}

/// Other names of a key, too far from it for [`closest`] to find: the protocol's spelling, or
/// the builder API's former one.
const SAME_AS: &[(&str, &str)] = &[("mime_type", "mime"), ("mimeType", "mime")];

/// The key `key` is another name of, when that key is valid here.
fn same_as<'a>(key: &str, valid: &[&'a str]) -> Option<&'a str> {
    let (_, ours) = SAME_AS.iter().find(|(other, _)| *other == key)?;
    valid.iter().find(|k| *k == ours).copied()
}

/// The valid word closest to `key`, when it is close enough to be a typo of it.
pub(crate) fn closest<'a>(key: &str, valid: &[&'a str]) -> Option<&'a str> {
    valid
        .iter()
        .map(|k| (levenshtein(key, k), *k))
        .filter(|(d, k)| *d <= 2.max(k.len() / 3))
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k)
}

fn levenshtein(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != *cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::closest;

    #[test]
    fn a_close_key_is_suggested_and_a_far_one_is_not() {
        let valid = ["name", "title", "description", "read_only"];
        assert_eq!(closest("nmae", &valid), Some("name"));
        assert_eq!(closest("descripton", &valid), Some("description"));
        assert_eq!(closest("readonly", &valid), Some("read_only"));
        assert_eq!(closest("colour", &valid), None);
    }

    #[test]
    fn the_protocol_s_spelling_is_answered_with_ours() {
        let valid = super::super::TOOL_KEYS;
        assert_eq!(super::protocol_spelling("readOnlyHint", valid), Some("read_only"));
        assert_eq!(super::protocol_spelling("read_only_hint", valid), Some("read_only"));
        assert_eq!(super::protocol_spelling("openWorldHint", valid), Some("open_world"));
        assert_eq!(super::protocol_spelling("outputSchema", valid), Some("output_schema"));
        assert_eq!(super::protocol_spelling("read_only", valid), None);
        assert_eq!(super::protocol_spelling("mimeType", super::super::RESOURCE_KEYS), Some("mime"));
    }

    #[test]
    fn another_name_of_a_key_is_answered_with_ours_where_it_is_valid() {
        assert_eq!(super::same_as("mime_type", &["uri", "mime"]), Some("mime"));
        assert_eq!(super::same_as("mimeType", &["uri", "mime"]), Some("mime"));
        assert_eq!(super::same_as("mime_type", &["name", "title"]), None);
    }
}
