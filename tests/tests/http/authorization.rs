//! Authorization over Streamable HTTP, in process: the protected-resource metadata derived
//! from the declarations, the challenges of RFC 6750 and the MCP spec, JWT access tokens
//! checked against an issuer the test runs (its metadata, its key set, rotation, outages),
//! introspection, scopes declared on items gating calls and lists in both eras, and sessions
//! bound to their subject.
//!
//! The keys under `tests/fixtures/oauth` are test keys made for these tests (openssl); the
//! tokens are signed here, so every bad-input case is one token.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use mcp_runtime::http::{Authorization, HttpOptions, IntrospectionVerifier, JwtVerifier, Reject};
use mcp_runtime::{PromptDescriptor, ResourceDescriptor, Server, ToolDescriptor};
use mcp_tests::http::initialize;
use mcp_tests::workspace_root;
use serde_json::{Value, json};

use crate::middleware::{Posted, post, serving, stateless_call, version_header};

/// The authorization server of these tests: its metadata, its key set (which a test may
/// change, or take down), and its introspection endpoint.
struct Issuer {
    url: String,
    state: Arc<IssuerState>,
}

#[derive(Default)]
struct IssuerState {
    url: Mutex<String>,
    keys: Mutex<Vec<Value>>,
    down: std::sync::atomic::AtomicBool,
    key_fetches: AtomicUsize,
    /// Introspection answers by token.
    opaque: Mutex<HashMap<String, Value>>,
    introspections: AtomicUsize,
}

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(workspace_root().join("tests/fixtures/oauth").join(name)).expect("a fixture key")
}

fn public_key(name: &str) -> Value {
    let keys: Value = serde_json::from_slice(&fixture("public-keys.json")).unwrap();
    keys[name].clone()
}

async fn issuer() -> Issuer {
    let state = Arc::new(IssuerState::default());
    *state.keys.lock().unwrap() = vec![public_key("rsa")];
    async fn metadata(State(state): State<Arc<IssuerState>>) -> Json {
        let url = state.url.lock().unwrap().clone();
        Json(json!({
            "issuer": url, "jwks_uri": format!("{url}/jwks"),
            "introspection_endpoint": format!("{url}/introspect"),
        }))
    }
    async fn jwks(State(state): State<Arc<IssuerState>>) -> Result<Json, StatusCode> {
        if state.down.load(Ordering::SeqCst) {
            return Err(StatusCode::SERVICE_UNAVAILABLE);
        }
        state.key_fetches.fetch_add(1, Ordering::SeqCst);
        Ok(Json(json!({"keys": *state.keys.lock().unwrap()})))
    }
    async fn introspect(
        State(state): State<Arc<IssuerState>>,
        headers: HeaderMap,
        body: String,
    ) -> Result<Json, StatusCode> {
        if state.down.load(Ordering::SeqCst) {
            return Err(StatusCode::SERVICE_UNAVAILABLE);
        }
        // The resource server authenticates as `mcp:secret` (HTTP Basic).
        if headers.get("authorization").and_then(|v| v.to_str().ok()) != Some("Basic bWNwOnNlY3JldA==") {
            return Err(StatusCode::UNAUTHORIZED);
        }
        state.introspections.fetch_add(1, Ordering::SeqCst);
        let token = body.split('&').find_map(|pair| pair.strip_prefix("token=")).unwrap_or("").to_owned();
        Ok(Json(state.opaque.lock().unwrap().get(&token).cloned().unwrap_or(json!({"active": false}))))
    }
    let router = axum::Router::new()
        .route("/.well-known/oauth-authorization-server", axum::routing::get(metadata))
        .route("/jwks", axum::routing::get(jwks))
        .route("/introspect", axum::routing::post(introspect))
        .with_state(Arc::clone(&state));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    *state.url.lock().unwrap() = url.clone();
    tokio::spawn(async move { axum::serve(listener, router).await });
    Issuer { url, state }
}

/// A JSON answer of the issuer's.
struct Json(Value);

impl axum::response::IntoResponse for Json {
    fn into_response(self) -> axum::response::Response {
        ([(axum::http::header::CONTENT_TYPE, "application/json")], self.0.to_string()).into_response()
    }
}

fn now() -> u64 {
    SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).unwrap().as_secs()
}

/// A token's claims: for `resource`, from `issuer`, valid for a minute.
fn claims(issuer: &str, resource: &str, sub: &str, scope: &str) -> Value {
    json!({"iss": issuer, "aud": resource, "sub": sub, "scope": scope, "client_id": "test-client",
        "iat": now(), "exp": now() + 60})
}

/// `claims` signed with the fixture key `key` (`rsa` or `ed25519`) under key id `kid`.
fn signed(claims: &Value, key: &str, kid: &str) -> String {
    let (algorithm, encoding) = match key {
        "rsa" => (Algorithm::RS256, EncodingKey::from_rsa_pem(&fixture("rsa-private.pem")).unwrap()),
        _ => (Algorithm::EdDSA, EncodingKey::from_ed_pem(&fixture("ed25519-private.pem")).unwrap()),
    };
    let mut header = Header::new(algorithm);
    header.kid = Some(kid.to_owned());
    header.typ = Some("at+jwt".to_owned());
    jsonwebtoken::encode(&header, claims, &encoding).unwrap()
}

fn bearer(token: &str) -> Vec<(String, String)> {
    vec![("authorization".to_owned(), format!("Bearer {token}"))]
}

fn with(mut first: Vec<(String, String)>, more: Vec<(String, String)>) -> Vec<(String, String)> {
    first.extend(more);
    first
}

/// Calls of the `write` handler, and calls the application's layer saw: a refused request
/// reaches neither.
#[derive(Default)]
struct Ran(AtomicUsize, AtomicUsize);

/// A notes server: `search` and `notes://{title}` need `notes:read`, `write` needs
/// `notes:write`, `whoami` (no scope) says who asked and whether the token reached it.
fn notes(ran: Arc<Ran>) -> Server {
    let wrote = Arc::clone(&ran);
    let seen = Arc::clone(&ran);
    Server::builder("notes", "1")
        // The application's own layer: the scope check runs before it, so it never sees a
        // refused call.
        .layer(mcp_runtime::middleware::from_fn(move |request, next| {
            if request.method() == "tools/call" {
                seen.1.fetch_add(1, Ordering::SeqCst);
            }
            next.run(request)
        }))
        .tool(ToolDescriptor::new("search").scope("notes:read").handler(|_: Value| async { "no hits".to_owned() }))
        .tool(ToolDescriptor::new("write").scope("notes:write").handler(move |_: Value| {
            wrote.0.fetch_add(1, Ordering::SeqCst);
            async { "written".to_owned() }
        }))
        .tool(ToolDescriptor::new("whoami").handler_with_context(|_: Value, ctx| async move {
            let who = ctx.identity().map(|who| format!("{} {:?}", who.subject(), who.scopes())).unwrap_or_default();
            format!("{who}; token seen: {}", ctx.header("authorization").is_some())
        }))
        .resource(
            ResourceDescriptor::template("notes://{title}", "note")
                .unwrap()
                .scope("notes:read")
                .reader(|read| async move { format!("the note at {}", read.uri()) }),
        )
        .prompt(PromptDescriptor::new("summarize").scope("notes:read").handler(|_| async { "Summarize".to_owned() }))
}

/// `server` behind `authorization`; the endpoint's URL (its resource URI too).
async fn protected(server: Server, authorization: Authorization) -> String {
    crate::middleware::serving_with(server, HttpOptions::default().authorization(authorization)).await
}

async fn jwt_server(issuer: &Issuer, configure: impl FnOnce(JwtVerifier) -> JwtVerifier) -> String {
    let verifier = configure(JwtVerifier::new(&issuer.url).unwrap());
    protected(notes(Arc::default()), Authorization::jwt(verifier)).await
}

async fn get(url: &str) -> (u16, HeaderMap, String) {
    let url = url.to_owned();
    tokio::task::spawn_blocking(move || {
        let response = reqwest::blocking::get(&url).expect("the GET");
        let (status, headers) = (response.status().as_u16(), response.headers().clone());
        (status, headers, response.text().unwrap())
    })
    .await
    .unwrap()
}

const CHALLENGE: &[&str] = &["www-authenticate", "retry-after"];

/// A 2026-07-28 call of `tool` with `headers`.
async fn call(url: &str, tool: &str, headers: Vec<(String, String)>) -> Posted {
    post(url, stateless_call(1, tool), with(version_header(), headers), CHALLENGE).await
}

fn challenge(posted: &Posted) -> &str {
    posted.headers[0].as_deref().unwrap_or_else(|| panic!("a challenge: {} {}", posted.status, posted.body))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_metadata_is_derived_and_requests_without_a_good_token_are_challenged() {
    let issuer = issuer().await;
    let url = jwt_server(&issuer, |v| v).await;
    let origin = url.trim_end_matches("/mcp");
    let metadata_url = format!("{origin}/.well-known/oauth-protected-resource/mcp");
    let (status, headers, body) = get(&metadata_url).await;
    assert_eq!(status, 200);
    assert_eq!(headers["access-control-allow-origin"], "*", "browser clients read it");
    let metadata: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(
        metadata,
        json!({"resource": url, "authorization_servers": [issuer.url], "bearer_methods_supported": ["header"],
            "scopes_supported": ["notes:read", "notes:write"]})
    );

    // No token: 401, pointing at the metadata, and no error code (RFC 6750 §3.1).
    let none = call(&url, "whoami", vec![]).await;
    assert_eq!(none.status, 401);
    assert_eq!(challenge(&none), format!("Bearer resource_metadata=\"{metadata_url}\""));
    assert_eq!(none.body["error"]["code"], -31001, "{}", none.body);
    // Another scheme is no bearer token either.
    let basic = call(&url, "whoami", vec![("authorization".into(), "Basic dXNlcjpwdw==".into())]).await;
    assert_eq!((basic.status, challenge(&basic).contains("error=")), (401, false));

    // Malformed requests: 400 invalid_request.
    let token = signed(&claims(&issuer.url, &url, "alice", ""), "rsa", "rsa-1");
    let twice = with(bearer(&token), bearer(&token));
    let in_query = format!("{url}?access_token={token}");
    for (target, headers) in [
        (url.as_str(), twice),
        (in_query.as_str(), vec![]),
        (in_query.as_str(), bearer(&token)),
        (url.as_str(), vec![("authorization".into(), "Bearer two words".into())]),
    ] {
        let refused = post(target, stateless_call(1, "whoami"), with(version_header(), headers), CHALLENGE).await;
        assert_eq!(refused.status, 400, "{}", refused.body);
        assert!(challenge(&refused).starts_with("Bearer error=\"invalid_request\""), "{}", challenge(&refused));
        assert!(challenge(&refused).contains(&format!("resource_metadata=\"{metadata_url}\"")));
    }

    // A good token: served; the handler sees who asked, but not the token.
    let served = call(&url, "whoami", bearer(&token)).await;
    assert_eq!(served.status, 200, "{}", served.body);
    assert_eq!(served.body["result"]["content"][0]["text"], "alice []; token seen: false");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_tokens_are_refused_as_invalid_and_say_nothing_of_the_server_s_internals() {
    let issuer = issuer().await;
    let url = jwt_server(&issuer, |v| v.leeway(Duration::ZERO)).await;
    let good = claims(&issuer.url, &url, "alice", "notes:read");
    let b64 = |v: &Value| {
        use base64::Engine as _;
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(v.to_string())
    };
    let unsigned = format!("{}.{}.", b64(&json!({"alg": "none", "typ": "JWT"})), b64(&good));
    // Algorithm confusion: HS256 keyed with the public key, as a verifier that trusts `alg`
    // would check it.
    let confused = jsonwebtoken::encode(
        &Header { kid: Some("rsa-1".into()), ..Header::new(Algorithm::HS256) },
        &good,
        &EncodingKey::from_secret(&fixture("rsa-public.pem")).unwrap(),
    )
    .unwrap();
    let patched = |change: Value| {
        let mut claims = good.clone();
        claims.as_object_mut().unwrap().extend(change.as_object().unwrap().clone());
        signed(&claims, "rsa", "rsa-1")
    };
    let tampered = {
        let token = signed(&good, "rsa", "rsa-1");
        let (head, signature) = token.rsplit_once('.').unwrap();
        let forged = b64(&json!({"iss": issuer.url, "aud": url, "sub": "mallory", "exp": now() + 60}));
        format!("{}.{forged}.{signature}", head.split('.').next().unwrap())
    };
    let cases = [
        ("alg none", unsigned, "the token's signature algorithm is not accepted"),
        ("HS256 keyed with the public key", confused, "the token's signature algorithm is not accepted"),
        ("another audience", patched(json!({"aud": "https://other.example/mcp"})), "another resource"),
        ("another issuer", patched(json!({"iss": "https://evil.example"})), "another authorization server"),
        ("expired", patched(json!({"exp": now() - 5})), "expired"),
        ("not yet valid", patched(json!({"nbf": now() + 600})), "not valid yet"),
        ("a forged payload", tampered, "signature does not verify"),
        ("no expiry", signed(&json!({"iss": issuer.url, "aud": url, "sub": "a"}), "rsa", "rsa-1"), "lacks a claim"),
        ("not a JWT", "abc.def".to_owned(), "not a well-formed JWT"),
        ("64 KB", "a".repeat(64 * 1024), "too long"),
    ];
    for (case, token, said) in cases {
        let refused = call(&url, "whoami", bearer(&token)).await;
        assert_eq!(refused.status, 401, "{case}: {}", refused.body);
        let challenge = challenge(&refused);
        assert!(challenge.starts_with("Bearer error=\"invalid_token\""), "{case}: {challenge}");
        assert!(challenge.contains(said), "{case}: {challenge}");
        let message = refused.body["error"]["message"].as_str().unwrap();
        assert_eq!(
            message,
            format!("Unauthorized: {}", said_in_full(challenge)),
            "{case}: only what the challenge says"
        );
    }
}

/// The other public-key algorithms, each token signed by an independent JOSE implementation
/// (RS256 and EdDSA are everywhere above): RSA-PSS and RS512 with a key whose JWK names no
/// algorithm, ES256 and ES384. A key whose JWK names its algorithm checks no other, and a
/// key of one curve no token of the other.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rsa_pss_and_ecdsa_tokens_verify_and_a_key_checks_only_its_own_algorithm() {
    let issuer = issuer().await;
    issuer.state.keys.lock().unwrap().extend(["p256", "p384", "rsa-any"].map(public_key));
    let url = jwt_server(&issuer, |v| v).await;
    let alice = claims(&issuer.url, &url, "alice", "");
    let sign = |algorithm: Algorithm, key: &str, kid: &str| {
        let pem = fixture(&format!("{key}-private.pem"));
        let key = match key {
            "rsa" => EncodingKey::from_rsa_pem(&pem).unwrap(),
            _ => EncodingKey::from_ec_pem(&pem).unwrap(),
        };
        let header = Header { kid: Some(kid.to_owned()), typ: Some("at+jwt".to_owned()), ..Header::new(algorithm) };
        jsonwebtoken::encode(&header, &alice, &key).unwrap()
    };
    let accepted = [
        (Algorithm::PS256, "rsa", "rsa-any"),
        (Algorithm::PS384, "rsa", "rsa-any"),
        (Algorithm::PS512, "rsa", "rsa-any"),
        (Algorithm::RS512, "rsa", "rsa-any"),
        (Algorithm::ES256, "p256", "ec-256"),
        (Algorithm::ES384, "p384", "ec-384"),
    ];
    for (algorithm, key, kid) in accepted {
        let answered = call(&url, "whoami", bearer(&sign(algorithm, key, kid))).await;
        assert_eq!(answered.status, 200, "{algorithm:?}: {}", answered.body);
        assert!(answered.body.to_string().contains("alice"), "{algorithm:?}: {}", answered.body);
    }
    let refused = [
        (Algorithm::PS256, "rsa", "rsa-1", "the key's JWK says RS256"),
        (Algorithm::ES256, "p256", "ec-384", "a P-384 key"),
    ];
    for (algorithm, key, kid, case) in refused {
        let answered = call(&url, "whoami", bearer(&sign(algorithm, key, kid))).await;
        assert_eq!(answered.status, 401, "{case}: {}", answered.body);
        assert!(challenge(&answered).contains("a key the issuer does not publish"), "{case}: {}", challenge(&answered));
    }
}

/// The `error_description` of a challenge.
fn said_in_full(challenge: &str) -> &str {
    challenge.split("error_description=\"").nth(1).and_then(|rest| rest.split('"').next()).unwrap_or("")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rotated_key_is_fetched_once_and_unknown_keys_do_not_hammer_the_issuer() {
    let issuer = issuer().await;
    let interval = Duration::from_millis(400);
    let url = jwt_server(&issuer, |v| v.refetch_interval(interval)).await;
    let alice = claims(&issuer.url, &url, "alice", "");
    assert_eq!(call(&url, "whoami", bearer(&signed(&alice, "rsa", "rsa-1"))).await.status, 200);
    assert_eq!(issuer.state.key_fetches.load(Ordering::SeqCst), 1, "fetched on first use");
    assert_eq!(call(&url, "whoami", bearer(&signed(&alice, "rsa", "rsa-1"))).await.status, 200);
    assert_eq!(issuer.state.key_fetches.load(Ordering::SeqCst), 1, "and cached");

    // The issuer publishes a new key: a token signed with it makes the server fetch again.
    issuer.state.keys.lock().unwrap().push(public_key("ed25519"));
    tokio::time::sleep(interval).await;
    let rotated = call(&url, "whoami", bearer(&signed(&alice, "ed25519", "ed-1"))).await;
    assert_eq!(rotated.status, 200, "{}", rotated.body);
    assert_eq!(issuer.state.key_fetches.load(Ordering::SeqCst), 2);

    // A key nobody publishes: one fetch, then refused; the same key id again within the
    // interval fetches nothing.
    tokio::time::sleep(interval).await;
    let made_up = call(&url, "whoami", bearer(&signed(&alice, "ed25519", "made-up"))).await;
    assert_eq!(made_up.status, 401);
    assert!(challenge(&made_up).contains("a key the issuer does not publish"), "{}", challenge(&made_up));
    assert_eq!(issuer.state.key_fetches.load(Ordering::SeqCst), 3);
    for _ in 0..3 {
        assert_eq!(call(&url, "whoami", bearer(&signed(&alice, "ed25519", "made-up"))).await.status, 401);
    }
    assert_eq!(issuer.state.key_fetches.load(Ordering::SeqCst), 3, "no fetch for that key within the interval");
}

/// A storm of tokens naming a made-up key id, then a key the issuer has just published: the
/// storm fetches the key set once, and the new key is fetched at once and accepted (it was
/// refused with 401 until the interval passed, when one fetch served every unknown key).
/// Tokens naming ever new made-up keys get ten fetches a minute, no more.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn made_up_key_ids_neither_hammer_the_issuer_nor_keep_out_a_new_key() {
    let issuer = issuer().await;
    let url = jwt_server(&issuer, |v| v.refetch_interval(Duration::from_secs(30))).await;
    let alice = claims(&issuer.url, &url, "alice", "");
    assert_eq!(call(&url, "whoami", bearer(&signed(&alice, "rsa", "rsa-1"))).await.status, 200);
    let fetches = || issuer.state.key_fetches.load(Ordering::SeqCst);
    assert_eq!(fetches(), 1);
    for _ in 0..20 {
        assert_eq!(call(&url, "whoami", bearer(&signed(&alice, "ed25519", "made-up"))).await.status, 401);
    }
    assert_eq!(fetches(), 2, "twenty tokens naming one made-up key fetch once");
    issuer.state.keys.lock().unwrap().push(public_key("ed25519"));
    let rotated = call(&url, "whoami", bearer(&signed(&alice, "ed25519", "ed-1"))).await;
    assert_eq!(rotated.status, 200, "the key just published is accepted at once: {}", rotated.body);
    assert_eq!(fetches(), 3);
    for n in 0..30 {
        let kid = format!("made-up-{n}");
        assert_eq!(call(&url, "whoami", bearer(&signed(&alice, "ed25519", &kid))).await.status, 401);
    }
    assert_eq!(fetches(), 10, "ten fetches in the minute, whatever the key ids");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn while_the_key_set_is_unreachable_known_keys_still_verify_and_the_rest_is_503() {
    let issuer = issuer().await;
    let url = jwt_server(&issuer, |v| v.refetch_interval(Duration::ZERO)).await;
    let alice = claims(&issuer.url, &url, "alice", "");
    assert_eq!(call(&url, "whoami", bearer(&signed(&alice, "rsa", "rsa-1"))).await.status, 200);
    issuer.state.down.store(true, Ordering::SeqCst);
    let known = call(&url, "whoami", bearer(&signed(&alice, "rsa", "rsa-1"))).await;
    assert_eq!(known.status, 200, "a key already verified keeps verifying: {}", known.body);
    let unknown = call(&url, "whoami", bearer(&signed(&alice, "ed25519", "ed-1"))).await;
    assert_eq!(unknown.status, 503, "never \"valid\" for what cannot be checked: {}", unknown.body);
    assert_eq!(unknown.headers[1].as_deref(), Some("5"), "Retry-After");
    assert!(!unknown.body.to_string().contains("127.0.0.1"), "no internals: {}", unknown.body);

    // An issuer unreachable from the start: nothing is valid, all is 503.
    let cold = jwt_server(&issuer, |v| v).await;
    let token = signed(&claims(&issuer.url, &cold, "alice", ""), "rsa", "rsa-1");
    assert_eq!(call(&cold, "whoami", bearer(&token)).await.status, 503);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn declared_scopes_gate_calls_reads_gets_and_lists_in_both_eras() {
    let issuer = issuer().await;
    let ran = Arc::new(Ran::default());
    let verifier = JwtVerifier::new(&issuer.url).unwrap();
    let url = protected(notes(Arc::clone(&ran)), Authorization::jwt(verifier)).await;
    let metadata_url = format!("{}/.well-known/oauth-protected-resource/mcp", url.trim_end_matches("/mcp"));
    let reader = bearer(&signed(&claims(&issuer.url, &url, "alice", "notes:read"), "rsa", "rsa-1"));

    // 2026-07-28: the call is refused before its handler, naming only what it needs.
    let refused = call(&url, "write", reader.clone()).await;
    assert_eq!(refused.status, 403, "{}", refused.body);
    assert_eq!(
        challenge(&refused),
        format!(
            "Bearer error=\"insufficient_scope\", scope=\"notes:write\", error_description=\"the token lacks a scope \
             this request needs\", resource_metadata=\"{metadata_url}\""
        )
    );
    assert_eq!(refused.body["error"]["code"], -31002);
    assert_eq!(refused.body["error"]["data"]["requiredScopes"], json!(["notes:write"]));
    assert_eq!(refused.body["id"], 1);
    assert_eq!(ran.0.load(Ordering::SeqCst), 0, "the handler did not run");
    assert_eq!(ran.1.load(Ordering::SeqCst), 0, "the application's layer did not see it");
    assert_eq!(call(&url, "search", reader.clone()).await.status, 200);
    assert_eq!(ran.1.load(Ordering::SeqCst), 1, "an allowed call passes the application's layer");

    // Lists show what the caller may use, privately cached.
    let listed = post(&url, stateless("tools/list", json!({})), with(version_header(), reader.clone()), &[]).await;
    let names: Vec<&str> =
        listed.body["result"]["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["search", "whoami"], "{}", listed.body);
    assert_eq!(listed.body["result"]["cacheScope"], "private");

    // Reads and gets too, by the template's scope.
    let nobody = bearer(&signed(&claims(&issuer.url, &url, "bob", ""), "rsa", "rsa-1"));
    let read = |who: Vec<(String, String)>| {
        post(&url, stateless("resources/read", json!({"uri": "notes://x"})), with(version_header(), who), CHALLENGE)
    };
    assert_eq!(read(reader.clone()).await.status, 200);
    let unread = read(nobody.clone()).await;
    assert_eq!((unread.status, unread.body["error"]["code"].clone()), (403, json!(-31002)), "{}", unread.body);
    let get = post(
        &url,
        stateless("prompts/get", json!({"name": "summarize"})),
        with(version_header(), nobody.clone()),
        CHALLENGE,
    );
    assert_eq!(get.await.status, 403);
    let templates =
        post(&url, stateless("resources/templates/list", json!({})), with(version_header(), nobody), &[]).await;
    assert_eq!(templates.body["result"]["resourceTemplates"], json!([]), "{}", templates.body);

    // The handshake era: the step-up names what is needed and what the token has.
    let opened = post(&url, initialize("2025-11-25", json!({})), reader.clone(), &[]).await;
    let session = vec![("mcp-session-id".to_owned(), opened.session.clone().expect("a session"))];
    let write =
        json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "write", "arguments": {}}});
    let refused = post(&url, write, with(reader.clone(), session.clone()), CHALLENGE).await;
    assert_eq!(refused.status, 403, "{}", refused.body);
    assert!(challenge(&refused).contains("scope=\"notes:write notes:read\""), "{}", challenge(&refused));
    assert_eq!(refused.body["id"], 7);
    let list = json!({"jsonrpc": "2.0", "id": 8, "method": "tools/list", "params": {}});
    let listed = post(&url, list, with(reader.clone(), session.clone()), &[]).await;
    assert_eq!(listed.body["result"]["tools"].as_array().map(Vec::len), Some(2), "{}", listed.body);

    // A writer's token: the same call runs.
    let writer = bearer(&signed(&claims(&issuer.url, &url, "carol", "notes:write"), "rsa", "rsa-1"));
    assert_eq!(call(&url, "write", writer).await.status, 200);
    assert_eq!(ran.0.load(Ordering::SeqCst), 1);
}

fn stateless(method: &str, mut params: Value) -> Value {
    params["_meta"] = stateless_call(1, "x")["params"]["_meta"].clone();
    json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scopes_are_read_from_a_string_or_an_array_and_a_server_wide_minimum_applies() {
    let issuer = issuer().await;
    let verifier = JwtVerifier::new(&issuer.url).unwrap();
    let url = protected(notes(Arc::default()), Authorization::jwt(verifier).required_scopes(["mcp"])).await;
    let mut as_array = claims(&issuer.url, &url, "alice", "");
    as_array["scope"] = json!(["mcp", "notes:read"]);
    let mut as_scp = claims(&issuer.url, &url, "alice", "");
    as_scp.as_object_mut().unwrap().remove("scope");
    as_scp["scp"] = json!(["mcp", "notes:read"]);
    for claims in [as_array, as_scp, claims(&issuer.url, &url, "alice", "mcp notes:read")] {
        let served = call(&url, "search", bearer(&signed(&claims, "rsa", "rsa-1"))).await;
        assert_eq!(served.status, 200, "{claims}: {}", served.body);
    }
    // Without the minimum, nothing is served, not even `initialize`; a first token is told
    // to ask for it.
    let without = bearer(&signed(&claims(&issuer.url, &url, "alice", "notes:read"), "rsa", "rsa-1"));
    let refused = call(&url, "whoami", without.clone()).await;
    assert_eq!(refused.status, 403);
    assert!(challenge(&refused).contains("scope=\"mcp\""), "{}", challenge(&refused));
    let opened = post(&url, initialize("2025-11-25", json!({})), without, CHALLENGE).await;
    assert_eq!(opened.status, 403);
    assert!(challenge(&opened).contains("scope=\"mcp notes:read\""), "the handshake era repeats what it has");
    let none = call(&url, "whoami", vec![]).await;
    assert!(challenge(&none).starts_with("Bearer scope=\"mcp\", resource_metadata="), "{}", challenge(&none));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_stays_with_its_subject_and_an_expired_token_is_refused_mid_session() {
    let issuer = issuer().await;
    let url = jwt_server(&issuer, |v| v.leeway(Duration::ZERO)).await;
    let mut short = claims(&issuer.url, &url, "alice", "");
    short["exp"] = json!(now() + 2);
    let alice = bearer(&signed(&short, "rsa", "rsa-1"));
    let opened = post(&url, initialize("2025-11-25", json!({})), alice.clone(), &[]).await;
    let session = vec![("mcp-session-id".to_owned(), opened.session.clone().expect("a session"))];
    let ping = json!({"jsonrpc": "2.0", "id": 2, "method": "ping"});
    assert_eq!(post(&url, ping.clone(), with(alice.clone(), session.clone()), &[]).await.status, 200);
    let bob = bearer(&signed(&claims(&issuer.url, &url, "bob", ""), "rsa", "rsa-1"));
    let stolen = post(&url, ping.clone(), with(bob, session.clone()), &[]).await;
    assert_eq!(stolen.status, 404, "alice's session does not exist for bob");
    tokio::time::sleep(Duration::from_millis(3100)).await;
    let expired = post(&url, ping, with(alice, session), CHALLENGE).await;
    assert_eq!(expired.status, 401);
    assert!(challenge(&expired).contains("error=\"invalid_token\", error_description=\"the token has expired\""));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn opaque_tokens_are_introspected_and_the_answers_cached() {
    let issuer = issuer().await;
    let verifier = IntrospectionVerifier::new(&issuer.url, "mcp", "secret").unwrap().cache_for(Duration::from_secs(60));
    let url = protected(notes(Arc::default()), Authorization::introspection(verifier)).await;
    let active = |aud: &str, scope: &str| json!({"active": true, "sub": "svc", "aud": aud, "scope": scope, "iss": issuer.url, "exp": now() + 60});
    {
        let mut opaque = issuer.state.opaque.lock().unwrap();
        opaque.insert("good".into(), active(&url, "notes:read"));
        opaque.insert("elsewhere".into(), active("https://other.example/mcp", "notes:read"));
        opaque.insert("stale".into(), json!({"active": true, "sub": "svc", "aud": url, "exp": now() - 1}));
    }
    for _ in 0..3 {
        let served = call(&url, "whoami", bearer("good")).await;
        assert_eq!(served.body["result"]["content"][0]["text"], "svc [\"notes:read\"]; token seen: false");
    }
    assert_eq!(issuer.state.introspections.load(Ordering::SeqCst), 1, "asked once, then cached");
    for (token, said) in [("unknown", "not active"), ("elsewhere", "another resource"), ("stale", "expired")] {
        let refused = call(&url, "whoami", bearer(token)).await;
        assert_eq!(refused.status, 401, "{token}");
        assert!(challenge(&refused).contains(said), "{token}: {}", challenge(&refused));
    }
    assert_eq!(call(&url, "write", bearer("good")).await.status, 403, "scopes apply to introspected tokens too");
    issuer.state.down.store(true, Ordering::SeqCst);
    assert_eq!(call(&url, "whoami", bearer("new-one")).await.status, 503);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_verifier_scopes_are_not_checked() {
    let url = serving(notes(Arc::default())).await;
    let served = call(&url, "write", vec![]).await;
    assert_eq!(served.status, 200, "{}", served.body);
    let listed = post(&url, stateless("tools/list", json!({})), version_header(), &[]).await;
    assert_eq!(listed.body["result"]["tools"].as_array().map(Vec::len), Some(3));
    // In process, through the test client: no HTTP edge, no check.
    let client = mcp_runtime::testing::TestClient::connect(notes(Arc::default())).await.unwrap();
    let result = client.call_tool("write", json!({})).await.unwrap();
    assert_eq!(result["content"][0]["text"], "written");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_notes_example_is_a_protected_resource_with_oauth_issuer() {
    let issuer = issuer().await;
    let issuer_url = issuer.url.clone();
    let notes = tokio::task::spawn_blocking(move || {
        let program = mcp_tests::example_binary("notes");
        mcp_tests::http::HttpServer::start(&program, &["--oauth-issuer", &issuer_url])
    })
    .await
    .unwrap();
    let url = notes.url.clone();
    let metadata_url = format!("http://{}/.well-known/oauth-protected-resource/mcp", notes.addr);
    let none = call(&url, "search", vec![]).await;
    assert_eq!((none.status, challenge(&none)), (401, format!("Bearer resource_metadata=\"{metadata_url}\"").as_str()));
    let metadata: Value = serde_json::from_str(&get(&metadata_url).await.2).unwrap();
    assert_eq!(metadata["resource"], url);
    assert_eq!(metadata["scopes_supported"], json!(["notes:read", "notes:write"]));

    let token = |scope: &str| bearer(&signed(&claims(&issuer.url, &url, "alice", scope), "rsa", "rsa-1"));
    let write = |who| {
        let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "write_note",
            "arguments": {"title": "plan", "text": "Buy a kite"}}});
        let mut call = call;
        call["params"]["_meta"] = stateless_call(1, "x")["params"]["_meta"].clone();
        post(&url, call, with(version_header(), who), CHALLENGE)
    };
    let refused = write(token("notes:read")).await;
    assert_eq!(refused.status, 403, "{}", refused.body);
    assert!(challenge(&refused).contains("scope=\"notes:write\""));
    let wrote = write(token("notes:write")).await;
    assert_eq!(wrote.body["result"]["content"][0]["text"], "Wrote \"plan\"", "{}", wrote.body);
    let read = post(
        &url,
        stateless("resources/read", json!({"uri": "notes://plan"})),
        with(version_header(), token("notes:read")),
        &[],
    );
    let read = read.await;
    assert!(read.body["result"]["contents"][0]["text"].as_str().unwrap().contains("Buy a kite"), "{}", read.body);
    let unread = post(
        &url,
        stateless("resources/read", json!({"uri": "notes://plan"})),
        with(version_header(), token("notes:write")),
        &[],
    );
    assert_eq!(unread.await.status, 403);
}

/// The notes example behind a real OpenID provider (oidc-provider): its JWT access tokens,
/// asked for with the client-credentials grant and a resource indicator, found through its
/// OpenID discovery document and checked with its published keys; a token for another
/// resource is refused, and a reader steps up to a writer's token, in both eras.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tokens_of_a_real_openid_provider_are_verified_and_scoped() {
    let (provider, notes) = tokio::task::spawn_blocking(|| {
        let provider = mcp_tests::clients::openid_provider();
        let program = mcp_tests::example_binary("notes");
        (provider, mcp_tests::http::HttpServer::start(&program, &["--oauth-issuer", &provider.issuer]))
    })
    .await
    .unwrap();
    let url = notes.url.clone();
    let token_for = |client: (&'static str, &'static str), scope: &'static str, resource: String| async move {
        tokio::task::spawn_blocking(move || provider.token(client, scope, &resource)).await.unwrap()
    };
    let reader = token_for(("notes-reader", "reader-secret"), "notes:read", url.clone()).await.expect("a token");
    let reader = bearer(reader["access_token"].as_str().unwrap());
    let search = |who: Vec<(String, String)>| {
        let mut call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "search",
            "arguments": {"word": "kite"}}});
        call["params"]["_meta"] = stateless_call(1, "x")["params"]["_meta"].clone();
        post(&url, call, with(version_header(), who), CHALLENGE)
    };
    let found = search(reader.clone()).await;
    assert_eq!(found.status, 200, "{}", found.body);
    assert_eq!(found.body["result"]["structuredContent"], json!({"titles": []}));

    // The reader may not write: 403, and the challenge names the scope to ask for.
    let write = |id: u32| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "write_note",
            "arguments": {"title": "kite", "text": "A red kite"}}})
    };
    let mut stateless_write = write(2);
    stateless_write["params"]["_meta"] = stateless_call(1, "x")["params"]["_meta"].clone();
    let refused = post(&url, stateless_write.clone(), with(version_header(), reader.clone()), CHALLENGE).await;
    assert_eq!(refused.status, 403, "{}", refused.body);
    assert!(challenge(&refused).contains("scope=\"notes:write\""), "{}", challenge(&refused));
    let opened = post(&url, initialize("2025-11-25", json!({})), reader.clone(), &[]).await;
    assert_eq!(opened.status, 200, "{}", opened.body);
    let session = vec![("mcp-session-id".to_owned(), opened.session.clone().expect("a session"))];
    let refused = post(&url, write(3), with(reader.clone(), session.clone()), CHALLENGE).await;
    assert!(challenge(&refused).contains("scope=\"notes:write notes:read\""), "{}", challenge(&refused));

    // Stepped up: the provider grants the agent both scopes, and the write goes through.
    let agent =
        token_for(("notes-agent", "agent-secret"), "notes:read notes:write", url.clone()).await.expect("a token");
    let agent = bearer(agent["access_token"].as_str().unwrap());
    let wrote = post(&url, stateless_write, with(version_header(), agent.clone()), &[]).await;
    assert_eq!(wrote.body["result"]["content"][0]["text"], "Wrote \"kite\"", "{}", wrote.body);
    assert_eq!(search(agent).await.body["result"]["structuredContent"], json!({"titles": ["kite"]}));

    // The provider does not give the reader what it was not granted.
    let greedy = token_for(("notes-reader", "reader-secret"), "notes:write", url.clone()).await;
    assert!(greedy.is_err() || greedy.unwrap()["scope"] != "notes:write", "the provider keeps to its grants");

    // A token for another resource: refused as such.
    let elsewhere =
        token_for(("notes-reader", "reader-secret"), "notes:read", "http://127.0.0.1:9/mcp".into()).await.unwrap();
    let refused = search(bearer(elsewhere["access_token"].as_str().unwrap())).await;
    assert_eq!(refused.status, 401);
    assert!(challenge(&refused).contains("issued for another resource"), "{}", challenge(&refused));
}

/// The official TypeScript clients (SDK 1.x in the handshake era, the v2 client package in
/// 2026-07-28) against the notes example behind the OpenID provider: without credentials they
/// are refused; holding a token with `notes:read` only, a write is challenged with 403 and the
/// SDK's own OAuth support (its `ClientCredentialsProvider`) steps up to a token with
/// `notes:write` from the provider, then the write goes through; a client the provider will
/// not give `notes:write` stays refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_typescript_clients_are_refused_challenged_and_step_up() {
    use mcp_tests::clients::{node_client, node_v2_client, run_plan_url, try_plan_url, with_mode};
    let (provider, notes) = tokio::task::spawn_blocking(|| {
        let provider = mcp_tests::clients::openid_provider();
        let program = mcp_tests::example_binary("notes");
        (provider, mcp_tests::http::HttpServer::start(&program, &["--oauth-issuer", &provider.issuer]))
    })
    .await
    .unwrap();
    let url = notes.url.clone();
    let issuer = provider.issuer.clone();
    tokio::task::spawn_blocking(move || {
        // Each era writes a note of its own, and finds it.
        let plan = |era: &str| {
            json!([
                {"op": "call_tool", "name": "search", "arguments": {"word": era}},
                {"op": "call_tool", "name": "write_note", "arguments": {"title": era, "text": format!("kite {era}")}},
                {"op": "call_tool", "name": "search", "arguments": {"word": era}},
            ])
        };
        // The agent holds a token with `notes:read` only; stepping up keeps its subject (the
        // client), so a handshake-era session stays its own.
        let agent = provider.token(("notes-agent", "agent-secret"), "notes:read", &url).expect("a token");
        let agent = agent["access_token"].as_str().unwrap().to_owned();
        let reader = provider.token(("notes-reader", "reader-secret"), "notes:read", &url).expect("a token");
        let reader = reader["access_token"].as_str().unwrap().to_owned();
        for (era, client) in [("2025-11-25", node_client()), ("2026-07-28", with_mode(node_v2_client(), "modern"))] {
            let mut client = client;
            client.args(["--bearer", &agent, "--oauth-client", "notes-agent:agent-secret", "--oauth-issuer", &issuer]);
            // What the SDK's client-credentials provider asks for when it steps up (it asks for
            // its configured scope, not the challenge's).
            client.args(["--oauth-scope", "notes:read notes:write"]);
            let lines = run_plan_url(client, &plan(era), &url);
            assert_eq!(lines[0]["protocolVersion"], era, "{lines:?}");
            assert!(
                lines[1]["result"]["structuredContent"]["titles"].is_array(),
                "{era}: the reader searches: {lines:?}"
            );
            let wrote = format!("Wrote \"{era}\"");
            assert_eq!(lines[2]["result"]["content"][0]["text"], wrote, "{era}: stepped up: {lines:?}");
            assert_eq!(lines[3]["result"]["structuredContent"]["titles"], json!([era]), "{era}: {lines:?}");

            // The reader's own credentials cannot get `notes:write`: the write stays refused.
            let client = match era {
                "2025-11-25" => node_client(),
                _ => with_mode(node_v2_client(), "modern"),
            };
            let mut client = client;
            client.args([
                "--bearer",
                &reader,
                "--oauth-client",
                "notes-reader:reader-secret",
                "--oauth-issuer",
                &issuer,
            ]);
            client.args(["--oauth-scope", "notes:read notes:write"]);
            let lines = run_plan_url(client, &plan("refused"), &url);
            assert!(lines[1]["result"].is_object(), "{era}: reading is allowed: {lines:?}");
            // Refused at the step-up: the issuer will not grant the reader `notes:write`
            // (its `invalid_scope`), so the client never sends the write with a token for it.
            let refusal = &lines[2]["error"];
            assert_eq!(refusal["message"], "requested scope is not allowed", "{era}: the write is refused: {lines:?}");
            assert!(
                ["InvalidScopeError", "OAuthError"].contains(&refusal["kind"].as_str().unwrap_or("")),
                "{era}: {refusal}"
            );

            // No token, no credentials: refused at the first request.
            let client = match era {
                "2025-11-25" => node_client(),
                _ => with_mode(node_v2_client(), "modern"),
            };
            let refused = try_plan_url(client, &plan(era), &url).expect_err("a client without a token is refused");
            assert!(refused.contains("401") || refused.to_lowercase().contains("unauthorized"), "{era}: {refused}");
        }
    })
    .await
    .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_list_all_items_lists_show_everything_and_calls_are_still_checked() {
    let issuer = issuer().await;
    let verifier = JwtVerifier::new(&issuer.url).unwrap();
    let url = protected(notes(Arc::default()), Authorization::jwt(verifier).list_all_items()).await;
    let reader = bearer(&signed(&claims(&issuer.url, &url, "alice", "notes:read"), "rsa", "rsa-1"));
    let listed = post(&url, stateless("tools/list", json!({})), with(version_header(), reader.clone()), &[]).await;
    assert_eq!(listed.body["result"]["tools"].as_array().map(Vec::len), Some(3), "{}", listed.body);
    assert_eq!(call(&url, "write", reader).await.status, 403);
}

/// A verified token is remembered: the same token again is neither fetched for nor checked
/// (after the issuer's keys were replaced and the set fetched again, a check of it would fail
/// for want of its key, and it is still accepted), until its `exp`, after which it is refused
/// whatever the cache holds.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_verified_token_is_remembered_until_its_expiry() {
    let issuer = issuer().await;
    let url = jwt_server(&issuer, |v| v.leeway(Duration::ZERO)).await;
    let fetches = || issuer.state.key_fetches.load(Ordering::SeqCst);
    let mut short = claims(&issuer.url, &url, "alice", "");
    let expires = now() + 2;
    short["exp"] = json!(expires);
    let token = signed(&short, "rsa", "rsa-1");
    assert_eq!(call(&url, "whoami", bearer(&token)).await.status, 200);
    assert_eq!(fetches(), 1);

    // The issuer drops its RSA key; a token naming a new key has the set fetched again, so
    // the server no longer knows the key `token` was signed with.
    *issuer.state.keys.lock().unwrap() = vec![public_key("ed25519")];
    let other = signed(&claims(&issuer.url, &url, "bob", ""), "ed25519", "ed-1");
    assert_eq!(call(&url, "whoami", bearer(&other)).await.status, 200);
    assert_eq!(fetches(), 2);
    let fresh = signed(&claims(&issuer.url, &url, "carol", ""), "rsa", "rsa-1");
    assert_eq!(call(&url, "whoami", bearer(&fresh)).await.status, 401, "a token of the dropped key, never seen");
    let again = call(&url, "whoami", bearer(&token)).await;
    assert_eq!(again.status, 200, "remembered, not checked again: {}", again.body);
    assert_eq!(fetches(), 2, "nothing fetched for it");

    // Past its `exp`, the remembered token is not taken from the cache: checked in full, it
    // is refused (its key is gone by now).
    while now() <= expires {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let expired = call(&url, "whoami", bearer(&token)).await;
    assert_eq!(expired.status, 401, "{}", expired.body);
}

/// An identity a hook returns with an expiry is refused once it has passed (the same check as
/// a verified token's `exp`), and accepted before.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hook_identity_past_its_expiry_is_refused() {
    let authorization = Authorization::hook(|headers: HeaderMap| async move {
        let token = headers.get("authorization").and_then(|v| v.to_str().ok()).unwrap_or("").to_owned();
        let now = SystemTime::now();
        let at = if token.ends_with("past") { now - Duration::from_secs(1) } else { now + Duration::from_secs(60) };
        Ok::<_, Reject>(mcp_runtime::Identity::new("alice").with_expiry(at))
    });
    let url = protected(notes(Arc::default()), authorization).await;
    let header = |token: &str| vec![("authorization".to_owned(), format!("Bearer {token}"))];
    assert_eq!(call(&url, "whoami", header("future")).await.status, 200);
    let refused = call(&url, "whoami", header("past")).await;
    assert_eq!(refused.status, 401, "{}", refused.body);
    assert!(challenge(&refused).contains("the token has expired"), "{}", challenge(&refused));
}

/// Behind a proxy: `--public-url` with `--oauth-issuer` makes the public URL the audience
/// tokens must name and the resource the metadata names (the challenge points at the public
/// metadata URL), and its host the one `Host` accepted besides the loopback names. A token
/// issued for the address the server listens on is refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_public_url_is_the_resource_the_audience_and_the_host() {
    let issuer = issuer().await;
    let issuer_url = issuer.url.clone();
    let public = "https://notes.example.com/mcp";
    let notes = tokio::task::spawn_blocking(move || {
        let program = mcp_tests::example_binary("notes");
        mcp_tests::http::HttpServer::start(&program, &["--public-url", public, "--oauth-issuer", &issuer_url])
    })
    .await
    .unwrap();
    let url = notes.url.clone();
    let public_metadata = "https://notes.example.com/.well-known/oauth-protected-resource/mcp";
    let as_public = |mut headers: Vec<(String, String)>| {
        headers.push(("host".to_owned(), "notes.example.com".to_owned()));
        headers
    };
    let none = call(&url, "search", as_public(vec![])).await;
    assert_eq!(none.status, 401, "{}", none.body);
    assert_eq!(challenge(&none), format!("Bearer resource_metadata=\"{public_metadata}\""));
    let metadata_url = format!("http://{}/.well-known/oauth-protected-resource/mcp", notes.addr);
    let metadata: Value = serde_json::from_str(&get(&metadata_url).await.2).unwrap();
    assert_eq!(metadata["resource"], public, "{metadata}");

    let search = |audience: &str| {
        let token = signed(&claims(&issuer.url, audience, "alice", "notes:read"), "rsa", "rsa-1");
        call(&url, "search", as_public(bearer(&token)))
    };
    assert_eq!(search(public).await.status, 200, "a token for the public URL");
    let local = search(&url).await;
    assert_eq!(local.status, 401, "a token for the listening address: {}", local.body);
    let elsewhere = call(&url, "search", vec![("host".to_owned(), "evil.example".to_owned())]).await;
    assert_eq!(elsewhere.status, 421, "another Host: {}", elsewhere.body);
}
