//! A gateway: one server in front of several. GiftGen and the notes server (their own
//! programs, over stdio) are mounted under `gifts` and `notes`, and with `GATEWAY_REMOTE=URL`
//! a remote Streamable HTTP server under `remote`, beside a tool of the gateway's own. Each
//! part is reached through a client of the gateway's, with the gateway's own credentials
//! (`GATEWAY_REMOTE_TOKEN`): a caller's token is never passed on.
//!
//! `cargo build --release -p gift_genius -p notes && cargo run --release --example gateway`
//! (the parts' programs are looked for beside the gateway's, or at `GATEWAY_GIFTS` and
//! `GATEWAY_NOTES`); the usual flags serve it over HTTP (`--http 127.0.0.1:8080`).

use std::path::PathBuf;

use mcp_runtime::prelude::*;

/// Lists what the gateway serves, part by part.
#[mcp_tool(read_only)]
fn parts() -> &'static str {
    "gifts_*: GiftGen; notes_*: the notes server; remote_*: GATEWAY_REMOTE, when set"
}

/// The program of part `name`: `variable`'s value, else the one beside the gateway's program
/// (or one folder up: cargo builds examples in a folder of their own).
fn program(variable: &str, name: &str) -> String {
    let beside = std::env::current_exe().ok().and_then(|exe| {
        let folder = exe.parent()?.to_path_buf();
        [folder.join(name), folder.parent()?.join(name)].into_iter().find(|p| p.exists())
    });
    let path = std::env::var_os(variable).map(PathBuf::from).or(beside).unwrap_or_else(|| name.into());
    path.to_string_lossy().into_owned()
}

/// The server `program` serves over its stdio, proxied (started again if it exits).
async fn spawned(program: String) -> Result<Server, mcp_runtime::client::ClientError> {
    Server::proxy(move |client| {
        let program = program.clone();
        async move { client.spawn(&program, std::iter::empty::<&str>()).await }
    })
    .await
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let gifts = spawned(program("GATEWAY_GIFTS", "gift_genius")).await?;
    let notes = spawned(program("GATEWAY_NOTES", "notes")).await?;
    let mut gateway = Server::builder("gateway", env!("CARGO_PKG_VERSION"))
        .instructions("Gifts (gifts_*) and notes (notes_*) in one server.")
        .tool(parts)
        .mount("gifts", gifts)
        .mount("notes", notes);
    if let Ok(url) = std::env::var("GATEWAY_REMOTE") {
        let token = std::env::var("GATEWAY_REMOTE_TOKEN").ok();
        let remote = Server::proxy(move |client| {
            let client = match &token {
                Some(token) => client.bearer(token.clone()),
                None => client,
            };
            let url = url.clone();
            async move { client.http(&url).await }
        });
        gateway = gateway.mount("remote", remote.await?);
    }
    Ok(gateway.run_from_args().await?)
}
