//! `application/x-www-form-urlencoded` bodies, as OAuth's token and introspection endpoints
//! take them (features `oauth` and `client`).

/// `application/x-www-form-urlencoded` encoding of one value.
pub(crate) fn form_encode(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for byte in value.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'*' => out.push(byte as char),
            b' ' => out.push('+'),
            other => out.push_str(&format!("%{other:02X}")),
        }
    }
    out
}

/// A form's body: its fields, each value encoded, joined by `&`.
pub(crate) fn form_body(form: &[(&str, String)]) -> String {
    form.iter().map(|(k, v)| format!("{k}={}", form_encode(v))).collect::<Vec<_>>().join("&")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn form_encoding_escapes_what_a_form_cannot_carry() {
        assert_eq!(form_encode("a b:c/d~é"), "a+b%3Ac%2Fd%7E%C3%A9");
    }
}
