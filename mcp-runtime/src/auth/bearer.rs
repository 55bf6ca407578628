//! A request's credentials: the bearer token of its one `Authorization` header (RFC 6750
//! §2.1), or why the request is malformed. Tokens are accepted in the header only: never in
//! the query string, never two ways at once.

use axum::http::{HeaderMap, header};

#[cfg(feature = "oauth")]
/// The longest token read: past it a token is refused unread (a JWT access token is a few
/// kilobytes at most).
pub(crate) const MAX_TOKEN_BYTES: usize = 16 * 1024;

/// What a request carries.
#[cfg(feature = "oauth")]
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Credentials<'a> {
    /// No bearer token (no `Authorization` header, or one of another scheme).
    Absent,
    /// A bearer token of plausible syntax and size.
    Bearer(&'a str),
    /// A bearer token longer than [`MAX_TOKEN_BYTES`].
    TooLong,
}

/// Why a request's credentials are malformed (400 `invalid_request`); safe to send.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Malformed(pub(crate) &'static str);

/// The framing checks every authorized request passes, whatever its verifier: one
/// `Authorization` header, and no token in the query string.
pub(crate) fn check_framing(query: Option<&str>, headers: &HeaderMap) -> Result<(), Malformed> {
    let mut values = headers.get_all(header::AUTHORIZATION).iter();
    let header_sent = values.next().is_some();
    if values.next().is_some() {
        return Err(Malformed("`Authorization` is sent more than once"));
    }
    let in_query = query.is_some_and(|q| q.split('&').any(|pair| pair.split('=').next() == Some("access_token")));
    match (in_query, header_sent) {
        (true, true) => Err(Malformed("credentials are sent in more than one way (header and query string)")),
        (true, false) => Err(Malformed("tokens are accepted in the `Authorization` header only, not the query string")),
        (false, _) => Ok(()),
    }
}

/// The request's bearer token (after [`check_framing`]).
#[cfg(feature = "oauth")]
pub(crate) fn credentials(headers: &HeaderMap) -> Result<Credentials<'_>, Malformed> {
    let Some(value) = headers.get(header::AUTHORIZATION) else { return Ok(Credentials::Absent) };
    let Ok(value) = value.to_str() else { return Err(Malformed("`Authorization` is not visible ASCII")) };
    let (scheme, rest) = value.split_once(' ').unwrap_or((value, ""));
    if !scheme.eq_ignore_ascii_case("bearer") {
        return Ok(Credentials::Absent);
    }
    let token = rest.trim_start_matches(' ');
    if token.len() > MAX_TOKEN_BYTES {
        return Ok(Credentials::TooLong);
    }
    // b64token = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="
    let body = token.trim_end_matches('=');
    let plausible = !body.is_empty()
        && body.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'+' | b'/'));
    if !plausible {
        return Err(Malformed("`Authorization: Bearer` needs one token of b64token characters"));
    }
    Ok(Credentials::Bearer(token))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(values: &[&str]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for value in values {
            map.append(header::AUTHORIZATION, value.parse().unwrap());
        }
        map
    }

    #[cfg(feature = "oauth")]
    #[test]
    fn one_bearer_token_in_the_header_is_read() {
        assert_eq!(credentials(&headers(&["Bearer abc.def-_~+/="])), Ok(Credentials::Bearer("abc.def-_~+/=")));
        assert_eq!(credentials(&headers(&["bearer abc"])), Ok(Credentials::Bearer("abc")));
        assert_eq!(credentials(&headers(&[])), Ok(Credentials::Absent));
        assert_eq!(credentials(&headers(&["Basic dXNlcjpwdw=="])), Ok(Credentials::Absent));
    }

    #[cfg(feature = "oauth")]
    #[test]
    fn malformed_tokens_are_told_apart() {
        assert!(credentials(&headers(&["Bearer"])).is_err());
        assert!(credentials(&headers(&["Bearer a b"])).is_err());
        assert!(credentials(&headers(&["Bearer a\"b"])).is_err());
        // The README's 16 KB: a token of that size is read, one byte more is not.
        assert_eq!(MAX_TOKEN_BYTES, 16 << 10);
        let most = format!("Bearer {}", "a".repeat(MAX_TOKEN_BYTES));
        assert!(matches!(credentials(&headers(&[&most])), Ok(Credentials::Bearer(_))));
        let long = format!("Bearer {}", "a".repeat(MAX_TOKEN_BYTES + 1));
        assert_eq!(credentials(&headers(&[&long])), Ok(Credentials::TooLong));
    }

    #[test]
    fn two_headers_and_tokens_in_the_query_are_malformed() {
        assert!(check_framing(None, &headers(&["Bearer a", "Bearer b"])).is_err());
        assert!(check_framing(Some("x=1&access_token=a"), &headers(&[])).is_err());
        assert!(
            check_framing(Some("access_token=a"), &headers(&["Bearer a"])).unwrap_err().0.contains("more than one")
        );
        assert!(check_framing(Some("x=access_token"), &headers(&["Bearer a"])).is_ok());
    }
}
