//! The requests to an authorization server: dynamic registration (RFC 7591), the
//! authorization-code grant with PKCE (the redirect's `state` and `iss` checked), client
//! credentials, a JWT bearer assertion, a refresh; and how the client authenticates at the
//! token endpoint (`client_secret_basic`, `client_secret_post`, `none`).

use base64::Engine as _;
use serde::Deserialize;
use serde_json::{Value, json};

use super::discovery::ServerMetadata;
use super::dpop::{Dpop, Nonce};
use super::encoding::{base64url, now_seconds, random_text};
use super::es256::Es256Key;
use crate::client::error::ClientError;
use crate::util::BoxFuture;
use crate::util::form::{form_body, form_encode};

/// The step of the authorization-code flow that needs a user agent: given the authorization
/// URL, the URL the authorization server redirected back to (with `code` and `state`).
pub type UserAgent = std::sync::Arc<dyn Fn(String) -> BoxFuture<'static, Result<String, String>> + Send + Sync>;

/// A client as an authorization server knows it.
#[derive(Debug, Clone)]
pub(crate) struct Registered {
    pub(crate) client_id: String,
    pub(crate) secret: Option<String>,
    /// How it authenticates at the token endpoint.
    pub(crate) method: String,
    /// Its key, for `private_key_jwt`.
    pub(crate) key: Option<Es256Key>,
}

/// How the client reaches token endpoints: its HTTP client, and its DPoP key when its tokens
/// are bound to one.
#[derive(Clone, Copy)]
pub(crate) struct Reach<'a> {
    pub(crate) http: &'a reqwest::Client,
    pub(crate) dpop: Option<&'a Dpop>,
}

impl Registered {
    /// A pre-registered client, authenticating as the server supports (HTTP Basic first).
    pub(crate) fn known(client_id: &str, secret: Option<String>, metadata: &ServerMetadata) -> Registered {
        let supported = metadata.token_endpoint_auth_methods_supported.clone().unwrap_or_default();
        let method = match &secret {
            None => "none",
            Some(_)
                if supported.iter().any(|m| m == "client_secret_post")
                    && !supported.iter().any(|m| m == "client_secret_basic") =>
            {
                "client_secret_post"
            }
            Some(_) => "client_secret_basic",
        };
        Registered { client_id: client_id.to_owned(), secret, method: method.to_owned(), key: None }
    }
}

/// A token, and what renewing it needs.
#[derive(Debug, Clone)]
pub(crate) struct Token {
    pub(crate) access: String,
    pub(crate) refresh: Option<String>,
    /// The authorization server that issued it.
    pub(crate) issuer: Option<String>,
}

#[derive(Deserialize)]
struct TokenAnswer {
    access_token: String,
    #[serde(default)]
    token_type: Option<String>,
    #[serde(default)]
    refresh_token: Option<String>,
}

/// What the authorization-code grant asks for.
pub(crate) struct CodeRequest<'a> {
    pub(crate) redirect_uri: &'a str,
    pub(crate) scope: Option<&'a str>,
    pub(crate) resource: Option<&'a str>,
}

/// Registers the client dynamically at the authorization server of `metadata`.
pub(crate) async fn register(
    http: &reqwest::Client,
    metadata: &ServerMetadata,
    client_name: &str,
    redirect_uri: Option<&str>,
) -> Result<Registered, ClientError> {
    let Some(endpoint) = &metadata.registration_endpoint else {
        return Err(ClientError::Auth(format!(
            "the authorization server `{}` has no registration endpoint: give the client's id (OAuth::pre_registered)",
            metadata.issuer
        )));
    };
    let supported = metadata.token_endpoint_auth_methods_supported.clone().unwrap_or_else(|| vec!["none".into()]);
    // A public client (PKCE) where the server allows one; else a secret, as it prefers.
    let method = ["none", "client_secret_basic", "client_secret_post"]
        .into_iter()
        .find(|m| supported.iter().any(|s| s == m))
        .unwrap_or("client_secret_basic");
    let loopback = redirect_uri.is_some_and(|uri| {
        reqwest::Url::parse(uri).is_ok_and(|u| matches!(u.host_str(), Some("localhost" | "127.0.0.1" | "[::1]")))
    });
    let mut body = json!({
        "client_name": client_name,
        "grant_types": if redirect_uri.is_some() { json!(["authorization_code", "refresh_token"]) } else { json!(["client_credentials"]) },
        "token_endpoint_auth_method": method,
        "application_type": if loopback || redirect_uri.is_none() { "native" } else { "web" },
    });
    if let Some(uri) = redirect_uri {
        body["redirect_uris"] = json!([uri]);
        body["response_types"] = json!(["code"]);
    }
    let response = http
        .post(endpoint)
        .header(reqwest::header::CONTENT_TYPE, "application/json")
        .body(body.to_string())
        .send()
        .await
        .map_err(|e| ClientError::Auth(format!("registering at {endpoint}: {e}")))?;
    let status = response.status();
    let answer: Value = serde_json::from_str(&response.text().await.unwrap_or_default()).unwrap_or(Value::Null);
    if !status.is_success() {
        return Err(ClientError::Auth(format!("registering at {endpoint}: HTTP {status}: {answer}")));
    }
    let client_id = answer["client_id"]
        .as_str()
        .ok_or_else(|| ClientError::Auth(format!("registering at {endpoint}: no client_id in {answer}")))?;
    let secret = answer["client_secret"].as_str().map(str::to_owned);
    let method = answer["token_endpoint_auth_method"].as_str().unwrap_or(method);
    Ok(Registered { client_id: client_id.to_owned(), secret, method: method.to_owned(), key: None })
}

/// The authorization-code grant with PKCE (S256): the user agent is sent to the
/// authorization endpoint, the code it comes back with exchanged for a token.
pub(crate) async fn authorization_code(
    reach: Reach<'_>,
    metadata: &ServerMetadata,
    client: &Registered,
    asked: &CodeRequest<'_>,
    user_agent: &UserAgent,
) -> Result<Token, ClientError> {
    if let Some(methods) = &metadata.code_challenge_methods_supported
        && !methods.iter().any(|m| m == "S256")
    {
        return Err(ClientError::Auth(format!(
            "the authorization server `{}` does not support PKCE S256",
            metadata.issuer
        )));
    }
    let endpoint = metadata.authorization_endpoint.as_deref().ok_or_else(|| {
        ClientError::Auth(format!("the authorization server `{}` has no authorization endpoint", metadata.issuer))
    })?;
    let verifier = random_text(48);
    let challenge = base64url(&hmac_sha256::Hash::hash(verifier.as_bytes()));
    let state = random_text(24);
    let mut url = reqwest::Url::parse(endpoint)
        .map_err(|e| ClientError::Auth(format!("the authorization endpoint `{endpoint}`: {e}")))?;
    {
        let mut query = url.query_pairs_mut();
        query
            .append_pair("response_type", "code")
            .append_pair("client_id", &client.client_id)
            .append_pair("redirect_uri", asked.redirect_uri)
            .append_pair("state", &state)
            .append_pair("code_challenge", &challenge)
            .append_pair("code_challenge_method", "S256");
        if let Some(resource) = asked.resource {
            query.append_pair("resource", resource);
        }
        if let Some(scope) = asked.scope {
            query.append_pair("scope", scope);
        }
    }
    let back = user_agent(url.to_string()).await.map_err(ClientError::Auth)?;
    let back = reqwest::Url::parse(&back)
        .map_err(|e| ClientError::Auth(format!("the redirect `{back}` is not a URL: {e}")))?;
    let param = |name: &str| back.query_pairs().find(|(k, _)| k == name).map(|(_, v)| v.into_owned());
    if let Some(error) = param("error") {
        return Err(ClientError::Auth(format!(
            "the authorization server refused: {error} {}",
            param("error_description").unwrap_or_default()
        )));
    }
    if param("state").as_deref() != Some(state.as_str()) {
        return Err(ClientError::Auth("the redirect's state is not the one sent: refused".into()));
    }
    // RFC 9207: the issuer named in the redirect must be the one asked, exactly.
    match param("iss") {
        Some(iss) if iss != metadata.issuer => {
            return Err(ClientError::Auth(format!(
                "the redirect names issuer `{iss}`, not `{}`: refused",
                metadata.issuer
            )));
        }
        None if metadata.authorization_response_iss_parameter_supported => {
            return Err(ClientError::Auth(format!(
                "the authorization server `{}` promises an `iss` in its redirect and sent none: refused",
                metadata.issuer
            )));
        }
        _ => {}
    }
    let code = param("code").ok_or_else(|| ClientError::Auth("the redirect carries no code".into()))?;
    let mut form = vec![
        ("grant_type", "authorization_code".to_owned()),
        ("code", code),
        ("redirect_uri", asked.redirect_uri.to_owned()),
        ("code_verifier", verifier),
    ];
    if let Some(resource) = asked.resource {
        form.push(("resource", resource.to_owned()));
    }
    token_request(reach, metadata, client, form).await
}

/// The client-credentials grant.
pub(crate) async fn client_credentials(
    reach: Reach<'_>,
    metadata: &ServerMetadata,
    client: &Registered,
    scope: Option<&str>,
    resource: Option<&str>,
) -> Result<Token, ClientError> {
    let mut form = vec![("grant_type", "client_credentials".to_owned())];
    extend(&mut form, scope, resource);
    token_request(reach, metadata, client, form).await
}

/// The JWT-bearer grant (RFC 7523): `assertion` exchanged for a token.
pub(crate) async fn jwt_bearer(
    reach: Reach<'_>,
    metadata: &ServerMetadata,
    client: &Registered,
    assertion: &str,
    scope: Option<&str>,
    resource: Option<&str>,
) -> Result<Token, ClientError> {
    let mut form = vec![
        ("grant_type", "urn:ietf:params:oauth:grant-type:jwt-bearer".to_owned()),
        ("assertion", assertion.to_owned()),
    ];
    extend(&mut form, scope, resource);
    token_request(reach, metadata, client, form).await
}

/// A refresh-token grant.
pub(crate) async fn refresh(
    reach: Reach<'_>,
    metadata: &ServerMetadata,
    client: &Registered,
    refresh_token: &str,
) -> Result<Token, ClientError> {
    let form = vec![("grant_type", "refresh_token".to_owned()), ("refresh_token", refresh_token.to_owned())];
    token_request(reach, metadata, client, form).await
}

fn extend(form: &mut Vec<(&'static str, String)>, scope: Option<&str>, resource: Option<&str>) {
    if let Some(scope) = scope {
        form.push(("scope", scope.to_owned()));
    }
    if let Some(resource) = resource {
        form.push(("resource", resource.to_owned()));
    }
}

/// POSTs `form` to the token endpoint, the client authenticated as it registered.
async fn token_request(
    reach: Reach<'_>,
    metadata: &ServerMetadata,
    client: &Registered,
    mut form: Vec<(&'static str, String)>,
) -> Result<Token, ClientError> {
    let endpoint = &metadata.token_endpoint;
    if let ("private_key_jwt", Some(key)) = (client.method.as_str(), &client.key) {
        let now = now_seconds();
        let claims = json!({
            "iss": client.client_id, "sub": client.client_id, "aud": metadata.issuer,
            "iat": now, "exp": now + 300, "jti": random_text(16),
        });
        form.push(("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer".to_owned()));
        form.push(("client_assertion", key.sign(json!({"typ": "JWT"}), &claims)));
        form.push(("client_id", client.client_id.clone()));
    }
    let mut request = reach.http.post(endpoint).header(reqwest::header::ACCEPT, "application/json");
    match (client.method.as_str(), &client.secret) {
        ("private_key_jwt", _) => {}
        ("client_secret_basic", Some(secret)) => {
            let pair = format!("{}:{}", form_encode(&client.client_id), form_encode(secret));
            let encoded = base64::engine::general_purpose::STANDARD.encode(pair);
            request = request.header(reqwest::header::AUTHORIZATION, format!("Basic {encoded}"));
        }
        ("client_secret_post", Some(secret)) => {
            form.push(("client_id", client.client_id.clone()));
            form.push(("client_secret", secret.clone()));
        }
        _ => form.push(("client_id", client.client_id.clone())),
    }
    let body = form_body(&form);
    let request = request.header(reqwest::header::CONTENT_TYPE, "application/x-www-form-urlencoded").body(body);
    // With DPoP, a proof per attempt; a server that wants its nonce in it says so once.
    let mut retried = false;
    let (status, text) = loop {
        let mut attempt =
            request.try_clone().ok_or_else(|| ClientError::Auth("the token request cannot be sent".into()))?;
        if let Some(dpop) = reach.dpop {
            attempt = attempt.header("dpop", dpop.proof("POST", endpoint, None, Nonce::Server));
        }
        let response =
            attempt.send().await.map_err(|e| ClientError::Auth(format!("the token request to {endpoint}: {e}")))?;
        let status = response.status();
        let nonce = response.headers().get("dpop-nonce").and_then(|v| v.to_str().ok()).map(str::to_owned);
        let text = response.text().await.unwrap_or_default();
        if let (Some(dpop), Some(nonce), false) = (reach.dpop, nonce, retried)
            && status == reqwest::StatusCode::BAD_REQUEST
            && text.contains("use_dpop_nonce")
        {
            dpop.remember(Nonce::Server, nonce);
            retried = true;
            continue;
        }
        break (status, text);
    };
    if !status.is_success() {
        return Err(ClientError::Auth(format!("the token endpoint {endpoint} answered HTTP {status}: {text}")));
    }
    let answer: TokenAnswer = serde_json::from_str(&text)
        .map_err(|e| ClientError::Auth(format!("the token endpoint {endpoint} answered no token ({e}): {text}")))?;
    let kind = answer.token_type.as_deref().unwrap_or("Bearer");
    let expected = if reach.dpop.is_some() { "DPoP" } else { "Bearer" };
    if !kind.eq_ignore_ascii_case(expected) {
        return Err(ClientError::Auth(format!("the token endpoint gave a `{kind}` token, not a {expected} token")));
    }
    Ok(Token { access: answer.access_token, refresh: answer.refresh_token, issuer: None })
}

/// The token exchange of enterprise-managed authorization: the user's ID token, at their
/// identity provider, for an identity assertion (ID-JAG) meant for authorization server
/// `audience` and `resource`.
pub(crate) async fn identity_assertion(
    http: &reqwest::Client,
    idp_token_endpoint: &str,
    id_token: &str,
    idp_client_id: Option<&str>,
    audience: &str,
    resource: Option<&str>,
) -> Result<String, ClientError> {
    let mut form = vec![
        ("grant_type", "urn:ietf:params:oauth:grant-type:token-exchange".to_owned()),
        ("subject_token", id_token.to_owned()),
        ("subject_token_type", "urn:ietf:params:oauth:token-type:id_token".to_owned()),
        ("requested_token_type", "urn:ietf:params:oauth:token-type:id-jag".to_owned()),
        ("audience", audience.to_owned()),
    ];
    if let Some(resource) = resource {
        form.push(("resource", resource.to_owned()));
    }
    if let Some(client_id) = idp_client_id {
        form.push(("client_id", client_id.to_owned()));
    }
    let body = form_body(&form);
    let response = http
        .post(idp_token_endpoint)
        .header(reqwest::header::CONTENT_TYPE, "application/x-www-form-urlencoded")
        .header(reqwest::header::ACCEPT, "application/json")
        .body(body)
        .send()
        .await
        .map_err(|e| ClientError::Auth(format!("the token exchange at {idp_token_endpoint}: {e}")))?;
    let status = response.status();
    let text = response.text().await.unwrap_or_default();
    if !status.is_success() {
        return Err(ClientError::Auth(format!("the identity provider answered HTTP {status}: {text}")));
    }
    let answer: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
    answer["access_token"]
        .as_str()
        .map(str::to_owned)
        .ok_or_else(|| ClientError::Auth(format!("the identity provider gave no assertion: {text}")))
}
