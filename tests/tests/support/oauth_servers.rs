//! The pieces of the tests' own authorization and MCP servers (`client/authorization.rs`,
//! `cli/authorization.rs`): a loopback port, a router served from a thread of its own, an
//! authorization server's metadata, a JSON answer.

use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

/// A listener on a free loopback port, and its `http://` URL.
pub(crate) fn bind() -> (std::net::TcpListener, String) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a port");
    let url = format!("http://{}", listener.local_addr().expect("an address"));
    (listener, url)
}

/// Serves `router` on `listener` from a thread and runtime of its own, apart from the
/// client's (or the command's, which the test waits for).
pub(crate) fn serve(listener: std::net::TcpListener, router: axum::Router) {
    listener.set_nonblocking(true).expect("a non-blocking listener");
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a runtime");
        runtime.block_on(async move {
            let listener = tokio::net::TcpListener::from_std(listener).expect("a listener");
            axum::serve(listener, router).await
        })
    });
}

/// The metadata of an authorization server at `issuer` (RFC 8414): its authorize, token and
/// register endpoints there, PKCE with S256.
pub(crate) fn metadata(issuer: &str) -> Value {
    json!({
        "issuer": issuer,
        "authorization_endpoint": format!("{issuer}/authorize"),
        "token_endpoint": format!("{issuer}/token"),
        "registration_endpoint": format!("{issuer}/register"),
        "code_challenge_methods_supported": ["S256"],
    })
}

/// `body` as a JSON answer with `status`.
pub(crate) fn json(status: StatusCode, body: Value) -> Response {
    (status, [(header::CONTENT_TYPE, "application/json")], body.to_string()).into_response()
}
