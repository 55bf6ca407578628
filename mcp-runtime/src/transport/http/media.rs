//! What a request's `Content-Type` and `Accept` say (RFC 9110 §8.3 and §12.5.1): the body a
//! POST must carry, and the answers a client can read.
//!
//! A POST carries `application/json` (parameters such as `charset=utf-8` allowed, the type
//! compared case-insensitively); anything else, or no `Content-Type`, is 415. A POST may be
//! answered with JSON or an SSE stream, so its `Accept` must allow both; a GET opens an SSE
//! stream, so its `Accept` must allow `text/event-stream`; otherwise 406. A request without
//! `Accept` accepts anything (RFC 9110 §12.5.1), as does `*/*`; `application/*` allows JSON
//! and not SSE; a range with `q=0` allows nothing.

use axum::http::{HeaderMap, header};

/// The media type of a POST's body.
pub(super) const JSON: &str = "application/json";

/// The media type of an SSE stream.
pub(super) const EVENT_STREAM: &str = "text/event-stream";

/// Whether the request's `Content-Type` is `application/json` (there is exactly one).
pub(super) fn is_json_body(headers: &HeaderMap) -> bool {
    let mut types = headers.get_all(header::CONTENT_TYPE).iter();
    let (Some(value), None) = (types.next(), types.next()) else { return false };
    value.to_str().is_ok_and(|value| {
        let essence = value.split(';').next().unwrap_or("").trim();
        essence.eq_ignore_ascii_case(JSON)
    })
}

/// Whether the request's `Accept` headers (all of them, as one list) allow every type of
/// `wanted` (each `type/subtype`, lowercase). Read on every request: no allocation, and the
/// list every client library sends is recognised whole.
pub(super) fn accepts_all(headers: &HeaderMap, wanted: &[&str]) -> bool {
    let mut values = headers.get_all(header::ACCEPT).iter();
    let Some(first) = values.next() else { return true };
    if first.as_bytes() == COMMON_ACCEPT.as_bytes() && values.next().is_none() {
        return true;
    }
    let ranges = || {
        headers
            .get_all(header::ACCEPT)
            .iter()
            .filter_map(|value| value.to_str().ok())
            .flat_map(|value| value.split(','))
            .filter_map(Range::parse)
    };
    wanted.iter().all(|wanted| allows(ranges(), wanted))
}

/// The `Accept` the MCP SDKs send on a POST.
const COMMON_ACCEPT: &str = "application/json, text/event-stream";

/// One media range of an `Accept` list: `type/subtype` (either may be `*`) and its weight.
struct Range<'a> {
    kind: &'a str,
    subtype: &'a str,
    /// `q=0` (the range refuses what it names).
    refused: bool,
}

impl<'a> Range<'a> {
    fn parse(text: &'a str) -> Option<Self> {
        let mut parts = text.split(';');
        let (kind, subtype) = parts.next()?.trim().split_once('/')?;
        let (kind, subtype) = (kind.trim(), subtype.trim());
        if kind.is_empty() || subtype.is_empty() {
            return None;
        }
        let refused = parts.filter_map(|parameter| parameter.split_once('=')).any(|(name, value)| {
            name.trim().eq_ignore_ascii_case("q") && value.trim().parse::<f32>().is_ok_and(|q| q <= 0.0)
        });
        Some(Range { kind, subtype, refused })
    }

    /// How closely it names `kind/subtype` (2: exactly, 1: `kind/*`, 0: `*/*`), if at all.
    fn specificity(&self, kind: &str, subtype: &str) -> Option<u8> {
        let kind_matches = self.kind == "*" || self.kind.eq_ignore_ascii_case(kind);
        let subtype_matches = self.subtype == "*" || self.subtype.eq_ignore_ascii_case(subtype);
        match (kind_matches && subtype_matches, self.kind == "*", self.subtype == "*") {
            (false, ..) => None,
            (true, true, _) => Some(0),
            (true, false, true) => Some(1),
            (true, false, false) => Some(2),
        }
    }
}

/// Whether `ranges` allow `wanted`: the most specific range naming it decides (RFC 9110
/// §12.5.1), so `*/*, text/event-stream;q=0` refuses SSE.
fn allows<'a>(ranges: impl Iterator<Item = Range<'a>>, wanted: &str) -> bool {
    let Some((kind, subtype)) = wanted.split_once('/') else { return false };
    ranges
        .filter_map(|range| range.specificity(kind, subtype).map(|specificity| (specificity, range)))
        .max_by_key(|(specificity, _)| *specificity)
        .is_some_and(|(_, range)| !range.refused)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(name: header::HeaderName, values: &[&str]) -> HeaderMap {
        let mut headers = HeaderMap::new();
        for value in values {
            headers.append(name.clone(), value.parse().unwrap());
        }
        headers
    }

    #[test]
    fn a_json_body_may_carry_parameters_and_any_case() {
        for ok in ["application/json", "Application/JSON", "application/json; charset=utf-8", " application/json ;x=y"]
        {
            assert!(is_json_body(&headers(header::CONTENT_TYPE, &[ok])), "{ok}");
        }
        for refused in ["text/plain", "application/jsonx", "application/x-www-form-urlencoded", ""] {
            assert!(!is_json_body(&headers(header::CONTENT_TYPE, &[refused])), "{refused}");
        }
        assert!(!is_json_body(&HeaderMap::new()), "missing");
        assert!(!is_json_body(&headers(header::CONTENT_TYPE, &[JSON, JSON])), "twice");
    }

    #[test]
    fn accept_lists_allow_what_their_most_specific_range_allows() {
        let both = [JSON, EVENT_STREAM];
        let cases: [(&[&str], bool); 11] = [
            (&["application/json, text/event-stream"], true),
            (&["text/event-stream", "application/json"], true),
            (&["*/*"], true),
            (&["application/*, text/*"], true),
            (&["application/json;q=0.9, text/event-stream;q=0.1"], true),
            (&["application/json"], false),
            (&["text/event-stream"], false),
            (&["application/*"], false),
            (&["*/*, text/event-stream;q=0"], false),
            (&["text/html"], false),
            (&["nonsense"], false),
        ];
        for (values, expected) in cases {
            assert_eq!(accepts_all(&headers(header::ACCEPT, values), &both), expected, "{values:?}");
        }
        assert!(accepts_all(&HeaderMap::new(), &both), "no Accept accepts anything");
        assert!(accepts_all(&headers(header::ACCEPT, &["text/event-stream"]), &[EVENT_STREAM]));
    }
}
