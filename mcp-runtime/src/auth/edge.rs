//! Authorization at the HTTP edge: what [`Authorization`] resolves to once the endpoint knows
//! its address and its items, and the admission of each request by it.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::SystemTime;

use axum::http::HeaderMap;

#[cfg(feature = "oauth")]
use super::TokenError;
use super::bearer;
#[cfg(feature = "oauth")]
use super::bearer::Credentials;
use super::challenge::{ChallengeInfo, Refusal};
use super::metadata::{self, parse_resource};
use super::{Authorization, Verifier};
use crate::context::{Authorized, Identity};

/// The endpoint's authorization, resolved.
pub(crate) struct Edge {
    verifier: Verifier,
    /// The canonical resource URI (what tokens' audience must be).
    #[cfg_attr(not(feature = "oauth"), allow(dead_code))]
    pub(crate) resource: String,
    pub(crate) info: ChallengeInfo,
    /// The server-wide minimum.
    required: Vec<String>,
    /// What the scope checks need, shared by every request this edge admits.
    pub(crate) authorized: Arc<Authorized>,
    pub(crate) keep_token: bool,
    /// The metadata's path and document, when authorization servers are named.
    pub(crate) metadata: Option<(String, String)>,
}

impl Edge {
    /// `auth`, for an endpoint bound to `bound` (or mounted, `None`) and reached at
    /// `public_url` when given, whose items declare `declared` scopes.
    pub(crate) fn new(
        auth: Authorization,
        bound: Option<SocketAddr>,
        public_url: Option<&str>,
        declared: &[String],
    ) -> crate::error::Result<Edge> {
        let resource = match (auth.resource, public_url, bound) {
            (Some(resource), Some(public), _) if resource != public => {
                return Err(crate::error::Error::Usage(format!(
                    "`Authorization::resource` is `{resource}` and the public URL (`--public-url`, \
                     `HttpOptions::public_url`) is `{public}`: both name this server, give one of them"
                )));
            }
            (Some(resource), ..) => resource,
            (None, Some(public), _) => public.to_owned(),
            (None, None, Some(addr)) => format!("http://{addr}/mcp"),
            (None, None, None) => {
                return Err(crate::error::Error::Usage(
                    "a router mounted with authorization needs its canonical URI: `Authorization::resource` \
                     (`https://mcp.example.com/mcp`)"
                        .into(),
                ));
            }
        };
        let parsed = parse_resource(&resource).map_err(crate::error::Error::Usage)?;
        let mut scopes: Vec<String> = declared.iter().chain(&auth.required).cloned().collect();
        scopes.sort();
        scopes.dedup();
        let metadata = (!auth.authorization_servers.is_empty()).then(|| {
            let document =
                metadata::document(&resource, &auth.authorization_servers, &scopes, auth.resource_name.as_deref());
            (parsed.metadata_path(), document.to_string())
        });
        let metadata_url = metadata.as_ref().map(|_| parsed.metadata_url());
        Ok(Edge {
            verifier: auth.verifier,
            info: ChallengeInfo { metadata_url: metadata_url.clone(), first_scopes: auth.required.clone() },
            required: auth.required,
            authorized: Arc::new(Authorized { metadata_url, list_all: auth.list_all }),
            keep_token: auth.keep_token,
            metadata,
            resource,
        })
    }

    /// Who made the request, or why it is refused. `stateless`: a 2026-07-28 request (its
    /// step-up challenge names only what it needs).
    pub(crate) async fn admit(
        &self,
        query: Option<&str>,
        headers: &HeaderMap,
        stateless: bool,
    ) -> Result<Identity, Refusal> {
        bearer::check_framing(query, headers).map_err(|m| Refusal::Malformed(m.0))?;
        let identity = match &self.verifier {
            Verifier::Hook(hook) => hook(headers.clone()).await.map_err(|reject| Refusal::Invalid(reject.message))?,
            #[cfg(feature = "oauth")]
            Verifier::Jwt(jwt) => jwt.verify(self.token(headers)?, &self.resource).await.map_err(refusal)?,
            #[cfg(feature = "oauth")]
            Verifier::Introspection(introspection) => {
                introspection.verify(self.token(headers)?, &self.resource).await.map_err(refusal)?
            }
        };
        if identity.expires_at().is_some_and(|at| at <= SystemTime::now()) {
            return Err(Refusal::Invalid("the token has expired".into()));
        }
        if self.required.iter().any(|scope| !identity.has_scope(scope)) {
            return Err(Refusal::Insufficient { scope: step_up(&self.required, identity.scopes(), stateless) });
        }
        Ok(identity)
    }

    /// The bearer token a verifier checks.
    #[cfg(feature = "oauth")]
    fn token<'a>(&self, headers: &'a HeaderMap) -> Result<&'a str, Refusal> {
        match bearer::credentials(headers).map_err(|m| Refusal::Malformed(m.0))? {
            Credentials::Bearer(token) => Ok(token),
            Credentials::Absent => Err(Refusal::Missing),
            Credentials::TooLong => Err(Refusal::Invalid("the token is too long".into())),
        }
    }
}

/// A verifier's failure as a refusal (the reason it could not check is logged, not sent).
#[cfg(feature = "oauth")]
fn refusal(error: TokenError) -> Refusal {
    match error {
        TokenError::Invalid(why) => Refusal::Invalid(why),
        TokenError::Unavailable(why) => {
            tracing::warn!(reason = %why, "a token could not be checked: the authorization server is unreachable");
            Refusal::Unavailable
        }
    }
}

/// The scopes a step-up challenge names: in 2026-07-28 only what the operation needs (the
/// client adds them to what it has); in the handshake era also what the token already has,
/// so that a client asking for exactly these loses nothing (the 2025-11-25 advice).
pub(crate) fn step_up(needed: &[String], granted: &[String], stateless: bool) -> Vec<String> {
    let mut scope: Vec<String> = needed.to_vec();
    if !stateless {
        for s in granted {
            if !scope.contains(s) {
                scope.push(s.clone());
            }
        }
    }
    scope
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_step_up_names_what_is_needed_and_in_the_handshake_era_what_is_held() {
        let s = |v: &[&str]| v.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        assert_eq!(step_up(&s(&["w"]), &s(&["r"]), true), s(&["w"]));
        assert_eq!(step_up(&s(&["w"]), &s(&["r", "w"]), false), s(&["w", "r"]));
    }

    fn hook() -> Authorization {
        Authorization::hook(|_| async { Err::<Identity, _>(super::super::Reject::new("no")) })
            .authorization_server("https://auth.example.com")
    }

    /// The resource is the public URL when one is given, the bound address's otherwise; a
    /// configured resource that differs from the public URL stops the start naming both.
    #[test]
    fn the_resource_is_the_public_url_and_a_different_one_is_refused() {
        let bound: Option<SocketAddr> = "127.0.0.1:3000".parse().ok();
        let public = "https://mcp.example.com/mcp";
        let edge = Edge::new(hook(), bound, Some(public), &[]).expect("an edge");
        assert_eq!(edge.resource, public);
        let (path, document) = edge.metadata.expect("metadata");
        assert_eq!(path, "/.well-known/oauth-protected-resource/mcp");
        assert!(document.contains(r#""resource":"https://mcp.example.com/mcp""#), "{document}");
        assert_eq!(Edge::new(hook(), bound, None, &[]).expect("an edge").resource, "http://127.0.0.1:3000/mcp");
        let same = Edge::new(hook().resource(public), bound, Some(public), &[]).expect("the same URL twice");
        assert_eq!(same.resource, public);
        let Err(crate::error::Error::Usage(refused)) =
            Edge::new(hook().resource("https://other.example/mcp"), bound, Some(public), &[])
        else {
            panic!("a resource other than the public URL was accepted");
        };
        assert!(refused.contains("https://other.example/mcp") && refused.contains(public), "{refused}");
    }
}
