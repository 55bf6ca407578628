//! The error for an unknown key, naming the valid ones and the closest when it is close, so
//! that a typo is answered with its fix.

use quote::ToTokens;

/// "unknown argument" with the valid keys, and the closest one when it is close.
pub(crate) fn unknown_key(tokens: impl ToTokens, key: &str, attr: &str, valid: &[&str]) -> syn::Error {
    let list = valid.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ");
    let message = match same_as(key, valid).or_else(|| closest(key, valid)) {
        Some(guess) => {
            format!("unknown `{attr}` argument `{key}`; did you mean `{guess}`? (valid: {list})")
        }
        None => format!("unknown `{attr}` argument `{key}`; expected one of {list}"),
    };
    syn::Error::new_spanned(tokens, message)
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
    fn another_name_of_a_key_is_answered_with_ours_where_it_is_valid() {
        assert_eq!(super::same_as("mime_type", &["uri", "mime"]), Some("mime"));
        assert_eq!(super::same_as("mimeType", &["uri", "mime"]), Some("mime"));
        assert_eq!(super::same_as("mime_type", &["name", "title"]), None);
    }
}
