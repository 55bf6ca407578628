//! `sum-ours` behind `Server::proxy`: a stdio server whose tools are those of `sum-ours` (the
//! program beside this one, spawned over stdio), for the proxied round trip.

use mcp_runtime::Server;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let remote = std::env::current_exe()?.with_file_name("sum-ours").to_string_lossy().into_owned();
    let proxied = Server::proxy(move |client| {
        let remote = remote.clone();
        async move { client.spawn(&remote, std::iter::empty::<&str>()).await }
    })
    .await?;
    proxied.serve_stdio().await?;
    Ok(())
}
