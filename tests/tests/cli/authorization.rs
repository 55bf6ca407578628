//! The command's credentials against the notes example behind a real OpenID provider
//! (`tests/clients/oidc`): refused without any; a bearer token given with `--bearer` or as a
//! `--header`; tokens obtained by the client itself with `--oauth-client-id` and
//! `--oauth-client-secret` (client credentials), stepping up to a writer's scope when the
//! provider grants it and failing when it does not.

use mcp_tests::clients::openid_provider;
use mcp_tests::example_binary;
use mcp_tests::http::HttpServer;

use super::mcp;

#[test]
fn credentials_are_given_or_obtained_as_the_command_line_says() {
    let provider = openid_provider();
    let notes = HttpServer::start(&example_binary("notes"), &["--oauth-issuer", &provider.issuer]);
    let url = notes.url.as_str();
    for era in ["auto", "handshake"] {
        let search = ["call", "--era", era, url, "search", "word=kite"];
        let ran = mcp(&search);
        assert_eq!(ran.code(), Some(1), "{ran:#?}");
        assert!(ran.stderr.contains("401") || ran.stderr.to_lowercase().contains("unauthorized"), "{ran:#?}");

        let token = provider.token(("notes-reader", "reader-secret"), "notes:read", url).expect("a token");
        let token = token["access_token"].as_str().expect("an access token");
        let ran = mcp(&[&search[..], &["--bearer", token]].concat());
        assert!(ran.status.success(), "{ran:#?}");
        assert!(ran.stdout.contains("\"titles\""), "{ran:#?}");
        let header = format!("Authorization: Bearer {token}");
        let ran = mcp(&[&search[..], &["--header", &header]].concat());
        assert!(ran.status.success(), "{ran:#?}");

        let reader = [
            "--oauth-client-id",
            "notes-reader",
            "--oauth-client-secret",
            "reader-secret",
            "--oauth-scope",
            "notes:read",
        ];
        let ran = mcp(&[&search[..], &reader].concat());
        assert!(ran.status.success(), "{ran:#?}");
        let write = ["call", "--era", era, url, "write_note", "title=kite", "text=A red kite"];
        let ran = mcp(&[&write[..], &reader].concat());
        assert_eq!(ran.code(), Some(1), "the reader is not granted notes:write: {ran:#?}");
        let agent = ["--oauth-client-id", "notes-agent", "--oauth-client-secret", "agent-secret"];
        let ran = mcp(&[&write[..], &agent].concat());
        assert!(ran.status.success(), "{ran:#?}");
        assert!(ran.stdout.contains("\"kite\""), "{ran:#?}");
        if era == "handshake" {
            assert!(ran.stderr.contains("[info] notes:"), "the server's log message is shown: {ran:#?}");
        }
    }
}

/// `--oauth`: the authorization-code flow in a browser, redirected to a loopback port the
/// command listens on. The test plays the browser: it opens the URL the command prints,
/// follows the authorization server's redirect to the loopback port, and the command goes on
/// with the code. The authorization server and the MCP server are the test's own (one tool).
#[test]
fn oauth_in_the_browser_comes_back_to_the_command_s_loopback_port() {
    use axum::http::{HeaderMap, StatusCode, Uri, header};
    use axum::response::IntoResponse;
    use axum::routing::{get, post};
    use serde_json::{Value, json};
    use std::io::{BufRead, BufReader};

    use crate::oauth_servers::{bind, json, metadata, serve};

    const TOKEN: &str = "a-token-from-the-browser-flow";
    let answer = |body: Value| json(StatusCode::OK, body);

    let (listener, issuer) = bind();
    let metadata = metadata(&issuer);
    let router = axum::Router::new()
        .route("/.well-known/oauth-authorization-server", get(move || async move { answer(metadata) }))
        .route("/register", post(move || async move { (StatusCode::CREATED, answer(json!({"client_id": "mcp"}))) }))
        .route(
            "/authorize",
            get(|uri: Uri| async move {
                // The user said yes: back to where the command asked, with a code and its state.
                let query = uri.query().unwrap_or_default();
                let field = |name: &str| {
                    query
                        .split('&')
                        .find_map(|pair| pair.strip_prefix(&format!("{name}=")))
                        .unwrap_or_default()
                        .to_owned()
                };
                let redirect = field("redirect_uri").replace("%3A", ":").replace("%2F", "/");
                let location = format!("{redirect}?code=the-code&state={}", field("state"));
                (StatusCode::FOUND, [(header::LOCATION, location)]).into_response()
            }),
        )
        .route("/token", post(move || async move { answer(json!({"access_token": TOKEN, "token_type": "Bearer"})) }));
    serve(listener, router);

    let (listener, server) = bind();
    let resource = json!({"resource": format!("{server}/mcp"), "authorization_servers": [issuer]});
    let challenge = format!(r#"Bearer resource_metadata="{server}/.well-known/oauth-protected-resource/mcp""#);
    let router = axum::Router::new()
        .route("/.well-known/oauth-protected-resource/mcp", get(move || async move { answer(resource) }))
        .route(
            "/mcp",
            post(move |headers: HeaderMap, body: String| async move {
                let sent = headers.get(header::AUTHORIZATION).and_then(|v| v.to_str().ok()).unwrap_or_default();
                if sent != format!("Bearer {TOKEN}") {
                    return (StatusCode::UNAUTHORIZED, [(header::WWW_AUTHENTICATE, challenge)]).into_response();
                }
                let message: Value = serde_json::from_str(&body).unwrap_or_default();
                let result = match message["method"].as_str() {
                    Some("initialize") => json!({"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                        "serverInfo": {"name": "guarded", "version": "1"}}),
                    Some("tools/list") => json!({"tools": [{"name": "secret", "inputSchema": {"type": "object"}}]}),
                    Some("tools/call") => json!({"content": [{"type": "text", "text": "the secret"}]}),
                    _ => return StatusCode::ACCEPTED.into_response(),
                };
                answer(json!({"jsonrpc": "2.0", "id": message["id"], "result": result}))
            }),
        );
    serve(listener, router);

    let mut command = std::process::Command::new(mcp_tests::mcp_binary())
        .args(["call", "--era", "handshake", "--oauth", &format!("{server}/mcp"), "secret"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("mcp starts");
    // The browser: the URL the command prints, the authorization server's redirect, and the
    // loopback port it leads to.
    let mut stderr = BufReader::new(command.stderr.take().expect("piped"));
    let mut line = String::new();
    let url = loop {
        line.clear();
        assert!(stderr.read_line(&mut line).expect("stderr") > 0, "the command printed no URL to open");
        if let Some(url) = line.trim().strip_prefix("http") {
            break format!("http{url}");
        }
    };
    let browser = reqwest::blocking::Client::builder().redirect(reqwest::redirect::Policy::none()).build().unwrap();
    let redirected = browser.get(&url).send().expect("the authorization page");
    let location = redirected.headers()[reqwest::header::LOCATION].to_str().expect("a location").to_owned();
    assert!(location.starts_with("http://127.0.0.1:") && location.contains("/callback?code=the-code"), "{location}");
    let back = browser.get(&location).send().expect("the command's loopback page");
    assert_eq!(back.status().as_u16(), 200);
    let output = command.wait_with_output().expect("mcp ends");
    assert!(output.status.success(), "{output:?}");
    assert_eq!(String::from_utf8_lossy(&output.stdout).trim(), "the secret");
}
