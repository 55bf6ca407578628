//! Authorization as the MCP authorization spec's client: a 401 leads to the server's
//! protected-resource metadata, then its authorization server's metadata; the client is
//! registered (pre-registered, a client ID metadata document, or dynamic registration); a
//! token is obtained (authorization code with PKCE, client credentials, a JWT bearer
//! assertion) for the server's `resource`, with the scopes the challenge or the metadata
//! name; a 403 `insufficient_scope` asks again for more, a bounded number of times; a token
//! that expires is refreshed. A token is only ever sent to the server it was obtained for.

mod discovery;
mod dpop;
mod encoding;
mod es256;
mod grants;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use discovery::{Challenge, ServerMetadata};
use dpop::{Dpop, Nonce};
use es256::Es256Key;
pub use grants::UserAgent;
use grants::{Reach, Registered, Token};

use super::error::ClientError;
use crate::util::BoxFuture;
use crate::util::lock;

/// How many times in a row the client asks for a token before it gives up on a request.
pub const MAX_AUTHORIZATIONS: usize = 3;

/// How a client obtains its tokens from the server's authorization server (see
/// [`ClientBuilder::oauth`](super::ClientBuilder::oauth)).
///
/// ```no_run
/// use mcp_runtime::client::{Client, OAuth};
/// # async fn run() -> Result<(), mcp_runtime::client::ClientError> {
/// // A program without a browser: the authorization server redirects at once.
/// let oauth = OAuth::authorization_code("http://localhost:8976/callback", OAuth::headless())
///     .client_name("notes-cli");
/// let client = Client::builder().oauth(oauth).http("https://notes.example.com/mcp").await?;
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct OAuth {
    grant: Grant,
    registration: Registration,
    client_name: String,
    /// Scopes asked whatever the server says.
    scopes: Option<Vec<String>>,
    /// Tokens bound to a key of the client's (DPoP).
    dpop: bool,
}

#[derive(Clone)]
enum Grant {
    AuthorizationCode {
        redirect_uri: String,
        user_agent: UserAgent,
    },
    ClientCredentials,
    JwtBearer {
        assertion: String,
    },
    /// Enterprise-managed authorization: the user's ID token exchanged at their identity
    /// provider for an assertion the authorization server takes.
    IdentityAssertion {
        idp_token_endpoint: String,
        id_token: String,
        idp_client_id: Option<String>,
    },
}

#[derive(Clone)]
enum Registration {
    /// Dynamic registration, or a client ID metadata document where the server takes one.
    Dynamic { metadata_url: Option<String> },
    /// A client the authorization server already knows.
    Known { client_id: String, secret: Option<String>, key: Option<Es256Key> },
}

impl std::fmt::Debug for OAuth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let grant = match &self.grant {
            Grant::AuthorizationCode { redirect_uri, .. } => format!("authorization code to {redirect_uri}"),
            Grant::ClientCredentials => "client credentials".to_owned(),
            Grant::JwtBearer { .. } => "JWT bearer".to_owned(),
            Grant::IdentityAssertion { idp_token_endpoint, .. } => {
                format!("identity assertion from {idp_token_endpoint}")
            }
        };
        f.debug_struct("OAuth").field("grant", &grant).field("client_name", &self.client_name).finish_non_exhaustive()
    }
}

impl OAuth {
    /// The authorization-code flow with PKCE: the user agent is sent to the authorization URL
    /// and comes back to `redirect_uri`.
    pub fn authorization_code(redirect_uri: impl Into<String>, user_agent: UserAgent) -> OAuth {
        OAuth {
            grant: Grant::AuthorizationCode { redirect_uri: redirect_uri.into(), user_agent },
            registration: Registration::Dynamic { metadata_url: None },
            client_name: "mcp-runtime-client".to_owned(),
            scopes: None,
            dpop: false,
        }
    }

    /// A machine's own credentials (`client_credentials`, the secret sent as HTTP Basic).
    pub fn client_credentials(client_id: impl Into<String>, secret: impl Into<String>) -> OAuth {
        OAuth {
            grant: Grant::ClientCredentials,
            registration: Registration::Known { client_id: client_id.into(), secret: Some(secret.into()), key: None },
            client_name: "mcp-runtime-client".to_owned(),
            scopes: None,
            dpop: false,
        }
    }

    /// A JWT a workload was given by its platform, exchanged for a token (RFC 7523's
    /// `jwt-bearer` grant).
    pub fn jwt_bearer(assertion: impl Into<String>) -> OAuth {
        OAuth {
            grant: Grant::JwtBearer { assertion: assertion.into() },
            registration: Registration::Dynamic { metadata_url: None },
            client_name: "mcp-runtime-client".to_owned(),
            scopes: None,
            dpop: false,
        }
    }

    /// A machine's own credentials, authenticated by a JWT signed with its ES256 key
    /// (`private_key_jwt`; the key as PKCS#8 PEM).
    pub fn client_credentials_jwt(client_id: impl Into<String>, private_key_pem: &str) -> Result<OAuth, ClientError> {
        let key = Es256Key::from_pkcs8_pem(private_key_pem)?;
        let mut oauth = OAuth::client_credentials(client_id, String::new());
        oauth.registration = match oauth.registration {
            Registration::Known { client_id, .. } => Registration::Known { client_id, secret: None, key: Some(key) },
            other => other,
        };
        Ok(oauth)
    }

    /// Enterprise-managed authorization: `id_token`, the user's ID token from their
    /// identity provider, is exchanged at `idp_token_endpoint` for an identity assertion,
    /// which the server's authorization server exchanges for a token. The client is usually
    /// pre-registered there ([`pre_registered`](Self::pre_registered)).
    pub fn identity_assertion(idp_token_endpoint: impl Into<String>, id_token: impl Into<String>) -> OAuth {
        OAuth {
            grant: Grant::IdentityAssertion {
                idp_token_endpoint: idp_token_endpoint.into(),
                id_token: id_token.into(),
                idp_client_id: None,
            },
            registration: Registration::Dynamic { metadata_url: None },
            client_name: "mcp-runtime-client".to_owned(),
            scopes: None,
            dpop: false,
        }
    }

    /// The client's id at the identity provider (enterprise-managed authorization).
    #[must_use]
    pub fn idp_client_id(mut self, client_id: impl Into<String>) -> OAuth {
        if let Grant::IdentityAssertion { idp_client_id, .. } = &mut self.grant {
            *idp_client_id = Some(client_id.into());
        }
        self
    }

    /// Binds the tokens to a key the client draws (DPoP, RFC 9449): every request then
    /// carries a proof signed with it.
    #[must_use]
    pub fn dpop(mut self) -> OAuth {
        self.dpop = true;
        self
    }

    /// A user agent for programs and tests without a browser: it requests the authorization
    /// URL and returns where the authorization server redirects, without following it.
    pub fn headless() -> UserAgent {
        Arc::new(|url: String| {
            Box::pin(async move {
                let http = crate::util::http_client::for_streams()?;
                let response = http.get(&url).send().await.map_err(|e| format!("cannot open {url}: {e}"))?;
                response
                    .headers()
                    .get(reqwest::header::LOCATION)
                    .and_then(|l| l.to_str().ok())
                    .map(str::to_owned)
                    .ok_or_else(|| format!("the authorization server did not redirect (HTTP {})", response.status()))
            }) as BoxFuture<'static, Result<String, String>>
        })
    }

    /// The name dynamic registration gives the client.
    #[must_use]
    pub fn client_name(mut self, name: impl Into<String>) -> OAuth {
        self.client_name = name.into();
        self
    }

    /// The URL of the client's metadata document, used as its client ID where the
    /// authorization server takes one (instead of registering).
    #[must_use]
    pub fn client_metadata_url(mut self, url: impl Into<String>) -> OAuth {
        self.registration = Registration::Dynamic { metadata_url: Some(url.into()) };
        self
    }

    /// A client the authorization server already knows (no registration).
    #[must_use]
    pub fn pre_registered(mut self, client_id: impl Into<String>, secret: Option<String>) -> OAuth {
        self.registration = Registration::Known { client_id: client_id.into(), secret, key: None };
        self
    }

    /// Asks for exactly these scopes, whatever the server's challenge and metadata name.
    #[must_use]
    pub fn scopes<I: IntoIterator<Item = S>, S: Into<String>>(mut self, scopes: I) -> OAuth {
        self.scopes = Some(scopes.into_iter().map(Into::into).collect());
        self
    }
}

/// One connection's authorization: its configuration and what it obtained.
pub(crate) struct Authorizer {
    config: OAuth,
    http: reqwest::Client,
    server: reqwest::Url,
    /// The token requests carry (read on every request).
    token: Mutex<Option<Token>>,
    /// The key tokens are bound to, with DPoP.
    dpop: Option<Dpop>,
    /// What obtaining a token needs, one flow at a time.
    flow: tokio::sync::Mutex<Flow>,
}

impl std::fmt::Debug for Authorizer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Authorizer").field("config", &self.config).finish_non_exhaustive()
    }
}

#[derive(Default)]
struct Flow {
    /// The registrations obtained, by authorization server (never reused at another one).
    registered: HashMap<String, Registered>,
    /// The scopes last asked for (a step-up asks for these and more).
    scopes: Vec<String>,
    /// Tokens obtained since a request last succeeded.
    attempts: usize,
}

impl Authorizer {
    pub(crate) fn new(config: OAuth, server: reqwest::Url) -> Result<Authorizer, ClientError> {
        let dpop = if config.dpop { Some(Dpop::new()?) } else { None };
        Ok(Authorizer {
            config,
            http: crate::util::http_client::for_streams().map_err(ClientError::Transport)?,
            server,
            token: Mutex::default(),
            dpop,
            flow: tokio::sync::Mutex::default(),
        })
    }

    /// The `Authorization` header's value, when a token was obtained.
    pub(crate) fn header(&self) -> Option<String> {
        let scheme = if self.dpop.is_some() { "DPoP" } else { "Bearer" };
        lock(&self.token).as_ref().map(|token| format!("{scheme} {}", token.access))
    }

    /// The `DPoP` proof a request of `method` to the server carries, with DPoP.
    pub(crate) fn proof(&self, method: &str) -> Option<String> {
        let dpop = self.dpop.as_ref()?;
        let token = lock(&self.token).as_ref().map(|t| t.access.clone());
        Some(dpop.proof(method, self.server.as_str(), token.as_deref(), Nonce::Resource))
    }

    fn reach(&self) -> Reach<'_> {
        Reach { http: &self.http, dpop: self.dpop.as_ref() }
    }

    /// A request went through: the count of tokens asked in a row starts again.
    pub(crate) fn succeeded(&self) {
        if let Ok(mut flow) = self.flow.try_lock() {
            flow.attempts = 0;
        }
    }

    /// The server refused a request that carried `sent` (the header, if any) with `status`
    /// and the challenge `www_authenticate`: obtains a token to try again with, or says why
    /// not.
    pub(crate) async fn refused(
        &self,
        status: u16,
        www_authenticate: Option<&str>,
        sent: Option<&str>,
        dpop_nonce: Option<&str>,
    ) -> Result<(), ClientError> {
        let challenge = www_authenticate.map(Challenge::parse).unwrap_or_default();
        // A server that wants its nonce in the proofs: the same token, a proof with it.
        if let (Some(dpop), Some(nonce)) = (&self.dpop, dpop_nonce)
            && challenge.error.as_deref() == Some("use_dpop_nonce")
        {
            let mut flow = self.flow.lock().await;
            flow.attempts += 1;
            if flow.attempts > MAX_AUTHORIZATIONS {
                return Err(ClientError::Auth("the server keeps asking for a new DPoP nonce".into()));
            }
            dpop.remember(Nonce::Resource, nonce.to_owned());
            return Ok(());
        }
        if status == 403 && challenge.error.as_deref() != Some("insufficient_scope") {
            return Err(ClientError::Auth(format!("the server refused the token (HTTP 403: {challenge:?})")));
        }
        let mut flow = self.flow.lock().await;
        // Another request may have obtained a new token while this one waited.
        if self.header().as_deref() != sent && status == 401 {
            return Ok(());
        }
        flow.attempts += 1;
        if flow.attempts > MAX_AUTHORIZATIONS {
            return Err(ClientError::Auth(format!(
                "the server still refused after {MAX_AUTHORIZATIONS} tokens in a row (HTTP {status})"
            )));
        }
        // A token that expired is refreshed first, where a refresh token was given.
        if status == 401 && sent.is_some() {
            let refresh = lock(&self.token).as_ref().and_then(|t| t.refresh.clone().zip(t.issuer.clone()));
            if let Some((refresh, issuer)) = refresh
                && let Some(registered) = flow.registered.get(&issuer).cloned()
                && let Ok(metadata) = discovery::server_metadata(&self.http, &issuer).await
                && let Ok(token) = grants::refresh(self.reach(), &metadata, &registered, &refresh).await
            {
                *lock(&self.token) = Some(token);
                return Ok(());
            }
        }
        let token = self.obtain(&mut flow, &challenge, status == 403).await?;
        *lock(&self.token) = Some(token);
        Ok(())
    }

    /// The whole flow: discovery, registration, the grant.
    async fn obtain(&self, flow: &mut Flow, challenge: &Challenge, step_up: bool) -> Result<Token, ClientError> {
        let resource_metadata = discovery::resource_metadata(&self.http, &self.server, challenge).await?;
        let (metadata, resource) = match &resource_metadata {
            Some(found) => {
                let issuer = found.authorization_servers.first().ok_or_else(|| {
                    ClientError::Auth("the protected-resource metadata names no authorization server".into())
                })?;
                (discovery::server_metadata(&self.http, issuer).await?, Some(found.resource.clone()))
            }
            None => (discovery::legacy_server_metadata(&self.http, &self.server).await?, None),
        };
        let scopes = self.scopes(flow, challenge, resource_metadata.as_ref(), &metadata, step_up);
        flow.scopes.clone_from(&scopes);
        let registered = match flow.registered.get(&metadata.issuer) {
            Some(registered) => registered.clone(),
            None => {
                let registered = self.register(&metadata).await?;
                flow.registered.insert(metadata.issuer.clone(), registered.clone());
                registered
            }
        };
        let scope = (!scopes.is_empty()).then(|| scopes.join(" "));
        let resource = resource.as_deref();
        let mut token = match &self.config.grant {
            Grant::AuthorizationCode { redirect_uri, user_agent } => {
                let asked = grants::CodeRequest { redirect_uri, scope: scope.as_deref(), resource };
                grants::authorization_code(self.reach(), &metadata, &registered, &asked, user_agent).await?
            }
            Grant::ClientCredentials => {
                grants::client_credentials(self.reach(), &metadata, &registered, scope.as_deref(), resource).await?
            }
            Grant::JwtBearer { assertion } => {
                grants::jwt_bearer(self.reach(), &metadata, &registered, assertion, scope.as_deref(), resource).await?
            }
            Grant::IdentityAssertion { idp_token_endpoint, id_token, idp_client_id } => {
                let assertion = grants::identity_assertion(
                    &self.http,
                    idp_token_endpoint,
                    id_token,
                    idp_client_id.as_deref(),
                    &metadata.issuer,
                    resource,
                )
                .await?;
                grants::jwt_bearer(self.reach(), &metadata, &registered, &assertion, scope.as_deref(), resource).await?
            }
        };
        token.issuer = Some(metadata.issuer.clone());
        Ok(token)
    }

    /// The scopes to ask for: the application's; else the challenge's (with those asked
    /// before, on a step-up); else what the server's metadata supports; `offline_access`
    /// added where the authorization server offers it and the grant can use a refresh token.
    fn scopes(
        &self,
        flow: &Flow,
        challenge: &Challenge,
        resource: Option<&discovery::ResourceMetadata>,
        metadata: &ServerMetadata,
        step_up: bool,
    ) -> Vec<String> {
        if let Some(scopes) = &self.config.scopes {
            return scopes.clone();
        }
        let mut scopes: Vec<String> = match (&challenge.scope, resource.and_then(|r| r.scopes_supported.as_ref())) {
            (Some(asked), _) => asked.split_whitespace().map(str::to_owned).collect(),
            (None, Some(supported)) => supported.clone(),
            (None, None) => Vec::new(),
        };
        if step_up {
            for previous in flow.scopes.iter().rev() {
                if !scopes.contains(previous) {
                    scopes.insert(0, previous.clone());
                }
            }
        }
        let offline = metadata.scopes_supported.as_ref().is_some_and(|s| s.iter().any(|s| s == "offline_access"));
        if offline
            && matches!(self.config.grant, Grant::AuthorizationCode { .. })
            && !scopes.is_empty()
            && !scopes.iter().any(|s| s == "offline_access")
        {
            scopes.push("offline_access".to_owned());
        }
        scopes
    }

    /// The client's registration at the authorization server of `metadata`.
    async fn register(&self, metadata: &ServerMetadata) -> Result<Registered, ClientError> {
        match &self.config.registration {
            Registration::Known { client_id, secret, key: Some(key) } => Ok(Registered {
                client_id: client_id.clone(),
                secret: secret.clone(),
                method: "private_key_jwt".to_owned(),
                key: Some(key.clone()),
            }),
            Registration::Known { client_id, secret, key: None } => {
                Ok(Registered::known(client_id, secret.clone(), metadata))
            }
            Registration::Dynamic { metadata_url: Some(url) } if metadata.client_id_metadata_document_supported => {
                Ok(Registered { client_id: url.clone(), secret: None, method: "none".to_owned(), key: None })
            }
            Registration::Dynamic { .. } => {
                let redirect_uri = match &self.config.grant {
                    Grant::AuthorizationCode { redirect_uri, .. } => Some(redirect_uri.as_str()),
                    _ => None,
                };
                grants::register(&self.http, metadata, &self.config.client_name, redirect_uri).await
            }
        }
    }
}
