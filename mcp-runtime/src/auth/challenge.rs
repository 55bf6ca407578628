//! How a refused request is answered: the status, the `WWW-Authenticate: Bearer` challenge
//! (RFC 6750 §3, RFC 9728 §5.1) and the JSON-RPC error the body carries. No internals in
//! any of them: what a verifier knows of why a token failed stays in the server's logs.

use axum::http::StatusCode;

use crate::protocol::{ErrorObject, code};

/// Why a request was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// No token (401, and no error code: RFC 6750 §3.1).
    #[cfg_attr(not(feature = "oauth"), allow(dead_code))]
    Missing,
    /// The request is malformed (400 `invalid_request`).
    Malformed(&'static str),
    /// The token is invalid, expired, or for someone else (401 `invalid_token`).
    Invalid(String),
    /// The token cannot be checked now (503; never "valid").
    Unavailable,
    /// The token lacks scopes (403 `insufficient_scope`); `scope` is what the challenge
    /// names.
    Insufficient { scope: Vec<String> },
}

/// Where the challenges point and what a first token should ask for.
#[derive(Debug, Clone, Default)]
pub(crate) struct ChallengeInfo {
    /// The protected-resource metadata's URL, when it is served.
    pub(crate) metadata_url: Option<String>,
    /// The scopes a first token should ask for (the server-wide minimum).
    pub(crate) first_scopes: Vec<String>,
}

impl Refusal {
    /// The HTTP status.
    pub(crate) fn status(&self) -> StatusCode {
        match self {
            Refusal::Missing | Refusal::Invalid(_) => StatusCode::UNAUTHORIZED,
            Refusal::Malformed(_) => StatusCode::BAD_REQUEST,
            Refusal::Unavailable => StatusCode::SERVICE_UNAVAILABLE,
            Refusal::Insufficient { .. } => StatusCode::FORBIDDEN,
        }
    }

    /// The `WWW-Authenticate` value (none for 503: nothing the client can do with its token).
    pub(crate) fn challenge(&self, info: &ChallengeInfo) -> Option<String> {
        let mut params: Vec<(&str, String)> = Vec::new();
        match self {
            Refusal::Missing => {
                if !info.first_scopes.is_empty() {
                    params.push(("scope", info.first_scopes.join(" ")));
                }
            }
            Refusal::Malformed(why) => {
                params.push(("error", "invalid_request".into()));
                params.push(("error_description", (*why).to_owned()));
            }
            Refusal::Invalid(why) => {
                params.push(("error", "invalid_token".into()));
                params.push(("error_description", why.clone()));
            }
            Refusal::Unavailable => return None,
            Refusal::Insufficient { scope } => {
                params.push(("error", "insufficient_scope".into()));
                params.push(("scope", scope.join(" ")));
                params.push(("error_description", "the token lacks a scope this request needs".into()));
            }
        }
        if let Some(url) = &info.metadata_url {
            params.push(("resource_metadata", url.clone()));
        }
        let mut value = String::from("Bearer");
        for (i, (name, text)) in params.iter().enumerate() {
            value.push_str(if i == 0 { " " } else { ", " });
            value.push_str(name);
            value.push_str("=\"");
            value.push_str(&quotable(text));
            value.push('"');
        }
        Some(value)
    }

    /// The JSON-RPC error the body carries.
    pub(crate) fn error(&self) -> ErrorObject {
        match self {
            Refusal::Missing => ErrorObject::new(code::UNAUTHORIZED, "Unauthorized: this server needs a bearer token"),
            Refusal::Malformed(why) => ErrorObject::invalid_request(format!("Bad request: {why}")),
            Refusal::Invalid(why) => ErrorObject::new(code::UNAUTHORIZED, format!("Unauthorized: {why}")),
            Refusal::Unavailable => {
                ErrorObject::internal("The token cannot be checked now (the authorization server is unreachable)")
            }
            Refusal::Insufficient { scope } => insufficient_scope(scope),
        }
    }
}

/// The error of a request refused for lacking scopes: [`code::INSUFFICIENT_SCOPE`], the
/// scopes in `data.requiredScopes`.
pub(crate) fn insufficient_scope(scope: &[String]) -> ErrorObject {
    let mut error = ErrorObject::new(
        code::INSUFFICIENT_SCOPE,
        format!(
            "Forbidden: this request needs the scope{} `{}`",
            if scope.len() == 1 { "" } else { "s" },
            scope.join(" ")
        ),
    );
    error.data = Some(serde_json::json!({ "requiredScopes": scope }));
    error
}

/// `text` as a quoted-string's content: visible ASCII without `"` and `\` (RFC 6750 §3 allows
/// no more in `error_description`), anything else a space.
fn quotable(text: &str) -> String {
    text.chars().map(|c| if (' '..='~').contains(&c) && c != '"' && c != '\\' { c } else { ' ' }).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info() -> ChallengeInfo {
        ChallengeInfo {
            metadata_url: Some("https://h/.well-known/oauth-protected-resource/mcp".into()),
            first_scopes: vec!["mcp".into()],
        }
    }

    #[test]
    fn each_refusal_has_the_challenge_the_spec_gives_it() {
        assert_eq!(
            Refusal::Missing.challenge(&info()).unwrap(),
            "Bearer scope=\"mcp\", resource_metadata=\"https://h/.well-known/oauth-protected-resource/mcp\""
        );
        let invalid = Refusal::Invalid("the token \"expired\"\n".into()).challenge(&info()).unwrap();
        assert!(invalid.starts_with("Bearer error=\"invalid_token\", error_description=\"the token  expired  \""));
        let scope = Refusal::Insufficient { scope: vec!["a".into(), "b".into()] }.challenge(&ChallengeInfo::default());
        assert_eq!(
            scope.unwrap(),
            "Bearer error=\"insufficient_scope\", scope=\"a b\", error_description=\"the token lacks a scope this \
             request needs\""
        );
        assert_eq!(Refusal::Malformed("x").status(), StatusCode::BAD_REQUEST);
        assert_eq!(Refusal::Unavailable.challenge(&info()), None);
        assert_eq!(Refusal::Missing.challenge(&ChallengeInfo::default()).unwrap(), "Bearer");
    }
}
