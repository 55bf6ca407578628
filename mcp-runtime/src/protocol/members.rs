//! One member of a JSON object, found in its text without parsing the rest.
//!
//! A message is validated once, when it is classified (its params become a `RawValue`); what
//! is read of it afterwards (the `_meta` of a request, the protocol version in that `_meta`,
//! the name a request targets) is a few members among many. Skipping the others with serde
//! costs a full parse each time, about ten instructions a byte; stepping over them as text
//! costs a fraction of that, which matters on the 2026-07-28 path, where each request carries
//! its `_meta` and is read by the HTTP edge, the session and the method.
//!
//! The text must be valid JSON (a `RawValue`'s, or a member of one): nothing here validates.
//! Given anything else the functions answer `None` or a wrong slice, never panic.

/// The text of the value of `object`'s top-level member `key` (the first one, should the
/// object repeat a name), when `object` is an object that has it.
pub(crate) fn member<'a>(object: &'a str, key: &str) -> Option<&'a str> {
    let [found] = members(object, [key]);
    found
}

/// The texts of the values of `object`'s top-level members `keys`, in one pass that stops
/// once each is found.
pub(crate) fn members<'a, const N: usize>(object: &'a str, keys: [&str; N]) -> [Option<&'a str>; N] {
    let mut found = [None; N];
    let bytes = object.as_bytes();
    let mut at = skip_space(bytes, 0);
    if bytes.get(at) != Some(&b'{') {
        return found;
    }
    at += 1;
    let mut missing = N;
    while missing > 0 {
        at = skip_space(bytes, at);
        if bytes.get(at) != Some(&b'"') {
            break; // `}`: the object ends
        }
        let Some((name_end, escaped)) = string_end(bytes, at) else { break };
        let name = &object[at..name_end];
        at = skip_space(bytes, name_end);
        if bytes.get(at) != Some(&b':') {
            break;
        }
        let start = skip_space(bytes, at + 1);
        let Some(end) = value_end(bytes, start) else { break };
        for (key, slot) in keys.iter().zip(&mut found) {
            if slot.is_none() && name_is(name, escaped, key) {
                *slot = object.get(start..end);
                missing -= 1;
            }
        }
        at = skip_space(bytes, end);
        if bytes.get(at) != Some(&b',') {
            break;
        }
        at += 1;
    }
    found
}

/// A JSON string's value: borrowed when it has no escapes, `None` when `value` is not a
/// string.
pub(crate) fn string_value(value: &str) -> Option<std::borrow::Cow<'_, str>> {
    use std::borrow::Cow;
    let inner = value.strip_prefix('"')?.strip_suffix('"')?;
    match inner.contains('\\') {
        false => Some(Cow::Borrowed(inner)),
        true => serde_json::from_str::<String>(value).ok().map(Cow::Owned),
    }
}

/// Whether the member name `quoted` (with its quotes) is `key`.
fn name_is(quoted: &str, escaped: bool, key: &str) -> bool {
    match escaped {
        false => quoted.len() == key.len() + 2 && &quoted[1..quoted.len() - 1] == key,
        true => serde_json::from_str::<String>(quoted).is_ok_and(|name| name == key),
    }
}

fn skip_space(bytes: &[u8], mut at: usize) -> usize {
    while bytes.get(at).is_some_and(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r')) {
        at += 1;
    }
    at
}

/// Where the string opening at `at` ends (past its closing quote), and whether it holds an
/// escape.
fn string_end(bytes: &[u8], at: usize) -> Option<(usize, bool)> {
    let mut next = at + 1;
    let mut escaped = false;
    loop {
        next += memchr::memchr2(b'"', b'\\', bytes.get(next..)?)?;
        match bytes[next] {
            b'\\' => {
                escaped = true;
                next += 2;
            }
            _ => return Some((next + 1, escaped)),
        }
    }
}

/// Where the value starting at `at` ends.
fn value_end(bytes: &[u8], at: usize) -> Option<usize> {
    match *bytes.get(at)? {
        b'"' => string_end(bytes, at).map(|(end, _)| end),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut next = at;
            loop {
                match *bytes.get(next)? {
                    b'"' => {
                        next = string_end(bytes, next)?.0;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(next + 1);
                        }
                    }
                    _ => {}
                }
                next += 1;
            }
        }
        // A number, `true`, `false` or `null`.
        _ => {
            let mut next = at;
            while bytes.get(next).is_some_and(|b| !matches!(b, b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r')) {
                next += 1;
            }
            Some(next)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What serde_json reads as the member, for comparison.
    fn by_serde(object: &str, key: &str) -> Option<String> {
        let map: serde_json::Map<String, serde_json::Value> = serde_json::from_str(object).ok()?;
        map.get(key).map(|v| v.to_string())
    }

    fn reparsed(found: Option<&str>) -> Option<String> {
        found.map(|text| serde_json::from_str::<serde_json::Value>(text).expect("a whole value").to_string())
    }

    #[test]
    fn finds_the_member_serde_finds() {
        let objects = [
            r#"{"name":"sum","arguments":{"a":1,"b":[2,{"c":"}"}]},"_meta":{"k":"v"}}"#,
            r#" { "_meta" : { "io.modelcontextprotocol/protocolVersion" : "2026-07-28" } , "x" : null } "#,
            r#"{"a":"quote \" and brace { inside","name":true,"n":-1.5e3,"e":[],"o":{}}"#,
            "{\n\t\"name\"\r\n:\n\"spaced\"\n}",
            r#"{"\u006eame":"escaped key","other":1}"#,
            r#"{"s":"back\\slash\\","name":"after"}"#,
            r#"{}"#,
        ];
        for object in objects {
            for key in ["name", "arguments", "_meta", "x", "n", "e", "o", "other", "missing"] {
                assert_eq!(reparsed(member(object, key)), by_serde(object, key), "{key} in {object}");
            }
        }
    }

    #[test]
    fn finds_several_members_in_one_pass() {
        let object = r#"{"name":"sum","arguments":{"a":1},"_meta":{"k":[1]},"uri":"u"}"#;
        assert_eq!(
            members(object, ["_meta", "name", "absent", "arguments"]),
            [Some(r#"{"k":[1]}"#), Some(r#""sum""#), None, Some(r#"{"a":1}"#)]
        );
    }

    #[test]
    fn a_value_that_is_not_an_object_has_no_members() {
        for text in [r#""name""#, "[1,2]", "null", "12", "", "  "] {
            assert_eq!(member(text, "name"), None, "{text}");
        }
    }

    #[test]
    fn text_that_is_not_json_never_panics() {
        for text in [r#"{"a"#, r#"{"a":"#, r#"{"a":{"#, r#"{"a":"\"#, r#"{"a" 1}"#, r#"{"a":1 "b":2}"#, "{\"a\":]]]"] {
            let _ = member(text, "b");
        }
    }

    #[test]
    fn strings_read_borrowed_unless_escaped() {
        assert!(matches!(string_value(r#""2026-07-28""#), Some(std::borrow::Cow::Borrowed("2026-07-28"))));
        assert_eq!(string_value(r#""a\u0062c""#).as_deref(), Some("abc"));
        assert_eq!(string_value("12"), None);
        assert_eq!(string_value("null"), None);
    }
}
