//! Finding who authorizes a server: the challenge of its 401 or 403, its protected-resource
//! metadata (RFC 9728), and its authorization server's metadata (RFC 8414, or OpenID Connect
//! discovery), each looked for where the authorization spec says, in its order.

use serde::Deserialize;
use serde_json::Value;

use crate::client::error::ClientError;

/// A `WWW-Authenticate` challenge: its scheme and parameters.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Challenge {
    pub(crate) scheme: String,
    pub(crate) error: Option<String>,
    pub(crate) scope: Option<String>,
    pub(crate) resource_metadata: Option<String>,
}

impl Challenge {
    /// Reads a `WWW-Authenticate` value: `Bearer error="invalid_token", scope="a b", ...`.
    pub(crate) fn parse(header: &str) -> Challenge {
        let header = header.trim();
        let (scheme, rest) = header.split_once(' ').unwrap_or((header, ""));
        let mut challenge = Challenge { scheme: scheme.to_owned(), ..Challenge::default() };
        let mut rest = rest.trim_start();
        while !rest.is_empty() {
            let Some((key, after)) = rest.split_once('=') else { break };
            let key = key.trim().trim_start_matches(',').trim().to_ascii_lowercase();
            let after = after.trim_start();
            let (value, remaining) = if let Some(quoted) = after.strip_prefix('"') {
                let mut value = String::new();
                let mut chars = quoted.char_indices();
                let mut end = quoted.len();
                while let Some((i, c)) = chars.next() {
                    match c {
                        '\\' => {
                            if let Some((_, escaped)) = chars.next() {
                                value.push(escaped);
                            }
                        }
                        '"' => {
                            end = i + 1;
                            break;
                        }
                        other => value.push(other),
                    }
                }
                (value, &quoted[end.min(quoted.len())..])
            } else {
                let end = after.find(',').unwrap_or(after.len());
                (after[..end].trim().to_owned(), &after[end..])
            };
            match key.as_str() {
                "error" => challenge.error = Some(value),
                "scope" => challenge.scope = Some(value),
                "resource_metadata" => challenge.resource_metadata = Some(value),
                _ => {}
            }
            rest = remaining.trim_start().trim_start_matches(',').trim_start();
        }
        challenge
    }
}

/// A server's protected-resource metadata.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct ResourceMetadata {
    pub(crate) resource: String,
    #[serde(default)]
    pub(crate) authorization_servers: Vec<String>,
    #[serde(default)]
    pub(crate) scopes_supported: Option<Vec<String>>,
}

/// An authorization server's metadata.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct ServerMetadata {
    pub(crate) issuer: String,
    #[serde(default)]
    pub(crate) authorization_endpoint: Option<String>,
    pub(crate) token_endpoint: String,
    #[serde(default)]
    pub(crate) registration_endpoint: Option<String>,
    #[serde(default)]
    pub(crate) scopes_supported: Option<Vec<String>>,
    #[serde(default)]
    pub(crate) token_endpoint_auth_methods_supported: Option<Vec<String>>,
    #[serde(default)]
    pub(crate) client_id_metadata_document_supported: bool,
    #[serde(default)]
    pub(crate) authorization_response_iss_parameter_supported: bool,
    #[serde(default)]
    pub(crate) code_challenge_methods_supported: Option<Vec<String>>,
}

/// The protected-resource metadata of the server at `server` (its MCP URL): from the
/// challenge's `resource_metadata`, else at the path-based well-known URL, else at the root
/// one. `None` when there is none (a server of 2025-03-26).
pub(crate) async fn resource_metadata(
    http: &reqwest::Client,
    server: &reqwest::Url,
    challenge: &Challenge,
) -> Result<Option<ResourceMetadata>, ClientError> {
    let mut candidates = Vec::new();
    if let Some(url) = &challenge.resource_metadata {
        candidates.push(url.clone());
    } else {
        let path = server.path().trim_end_matches('/');
        if !path.is_empty() {
            candidates.push(format!("{}/.well-known/oauth-protected-resource{path}", origin(server)));
        }
        candidates.push(format!("{}/.well-known/oauth-protected-resource", origin(server)));
    }
    for url in candidates {
        if let Some(found) = fetch_json::<ResourceMetadata>(http, &url).await? {
            // The metadata must be about this server: the same origin, and a resource that is
            // the server's URL or a path above it.
            if !covers(&found.resource, server) {
                return Err(ClientError::Auth(format!(
                    "the protected-resource metadata at {url} is for `{}`, not for {server}: refused",
                    found.resource
                )));
            }
            return Ok(Some(found));
        }
    }
    Ok(None)
}

/// Whether resource identifier `resource` names `server` (its URL or a path above it, on the
/// same origin).
fn covers(resource: &str, server: &reqwest::Url) -> bool {
    let Ok(resource) = reqwest::Url::parse(resource) else { return false };
    if resource.origin() != server.origin() {
        return false;
    }
    let base = resource.path().trim_end_matches('/');
    let path = server.path();
    path == base || path.starts_with(&format!("{base}/")) || base.is_empty()
}

/// The metadata of the authorization server `issuer`, looked for at RFC 8414's URL, then
/// OpenID Connect's (both forms for an issuer with a path). Its `issuer` must be `issuer`,
/// exactly.
pub(crate) async fn server_metadata(http: &reqwest::Client, issuer: &str) -> Result<ServerMetadata, ClientError> {
    let url = reqwest::Url::parse(issuer)
        .map_err(|e| ClientError::Auth(format!("the authorization server `{issuer}` is not a URL: {e}")))?;
    let path = url.path().trim_end_matches('/');
    let origin = origin(&url);
    let candidates = if path.is_empty() {
        vec![
            format!("{origin}/.well-known/oauth-authorization-server"),
            format!("{origin}/.well-known/openid-configuration"),
        ]
    } else {
        vec![
            format!("{origin}/.well-known/oauth-authorization-server{path}"),
            format!("{origin}/.well-known/openid-configuration{path}"),
            format!("{origin}{path}/.well-known/openid-configuration"),
        ]
    };
    for candidate in candidates {
        if let Some(found) = fetch_json::<ServerMetadata>(http, &candidate).await? {
            if found.issuer != issuer {
                return Err(ClientError::Auth(format!(
                    "the metadata at {candidate} names issuer `{}`, not `{issuer}`: refused",
                    found.issuer
                )));
            }
            return Ok(found);
        }
    }
    Err(ClientError::Auth(format!("no metadata found for the authorization server `{issuer}`")))
}

/// The endpoints of a server of 2025-03-26 that publishes no protected-resource metadata:
/// its origin's RFC 8414 metadata, or else the default endpoints at its origin.
pub(crate) async fn legacy_server_metadata(
    http: &reqwest::Client,
    server: &reqwest::Url,
) -> Result<ServerMetadata, ClientError> {
    let origin = origin(server);
    let url = format!("{origin}/.well-known/oauth-authorization-server");
    if let Some(found) = fetch_json::<ServerMetadata>(http, &url).await? {
        return Ok(found);
    }
    Ok(ServerMetadata {
        issuer: origin.clone(),
        authorization_endpoint: Some(format!("{origin}/authorize")),
        token_endpoint: format!("{origin}/token"),
        registration_endpoint: Some(format!("{origin}/register")),
        scopes_supported: None,
        token_endpoint_auth_methods_supported: None,
        client_id_metadata_document_supported: false,
        authorization_response_iss_parameter_supported: false,
        code_challenge_methods_supported: None,
    })
}

/// `scheme://host[:port]` of `url`.
pub(crate) fn origin(url: &reqwest::Url) -> String {
    url.origin().ascii_serialization()
}

/// GETs `url` as JSON: `None` for a 404 (or another client error: nothing there to use).
async fn fetch_json<T: serde::de::DeserializeOwned>(
    http: &reqwest::Client,
    url: &str,
) -> Result<Option<T>, ClientError> {
    let response = http
        .get(url)
        .header(reqwest::header::ACCEPT, "application/json")
        .send()
        .await
        .map_err(|e| ClientError::Auth(format!("cannot fetch {url}: {e}")))?;
    if response.status().is_client_error() {
        return Ok(None);
    }
    if !response.status().is_success() {
        return Err(ClientError::Auth(format!("{url} answered HTTP {}", response.status())));
    }
    let text = response.text().await.map_err(|e| ClientError::Auth(format!("reading {url}: {e}")))?;
    let value: Value =
        serde_json::from_str(&text).map_err(|e| ClientError::Auth(format!("{url} did not answer JSON: {e}")))?;
    serde_json::from_value(value).map(Some).map_err(|e| ClientError::Auth(format!("the metadata at {url}: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_challenge_reads_quoted_and_bare_parameters_in_any_order() {
        let challenge = Challenge::parse(
            r#"Bearer error="insufficient_scope", scope="mcp:read mcp:write", resource_metadata="http://a/.well-known/x", realm=mcp"#,
        );
        assert_eq!(challenge.scheme, "Bearer");
        assert_eq!(challenge.error.as_deref(), Some("insufficient_scope"));
        assert_eq!(challenge.scope.as_deref(), Some("mcp:read mcp:write"));
        assert_eq!(challenge.resource_metadata.as_deref(), Some("http://a/.well-known/x"));
        let dpop = Challenge::parse(r#"DPoP error=use_dpop_nonce,resource_metadata="x""#);
        assert_eq!((dpop.scheme.as_str(), dpop.error.as_deref()), ("DPoP", Some("use_dpop_nonce")));
    }

    #[test]
    fn a_resource_covers_its_own_url_and_the_paths_below_it_on_its_origin() {
        let server = reqwest::Url::parse("http://127.0.0.1:9/mcp").unwrap();
        assert!(covers("http://127.0.0.1:9/mcp", &server));
        assert!(covers("http://127.0.0.1:9", &server));
        assert!(!covers("https://evil.example.com/mcp", &server));
        assert!(!covers("http://127.0.0.1:9/other", &server));
    }
}
