//! A remote served through `Server::proxy` over Streamable HTTP on both sides: the remote sees
//! the credentials the proxy was given, never the token of the client in front, whichever era
//! each side speaks.

use mcp_runtime::client::{Client, Era};
use mcp_runtime::http::HttpOptions;
use mcp_runtime::{Context, Server, ToolDescriptor};
use serde_json::{Value, json};

use super::middleware::serving_with;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_proxied_remote_sees_the_proxy_s_credentials_never_the_caller_s() {
    let whoami = ToolDescriptor::new("whoami").handler_with_context(|_: Value, ctx: Context| async move {
        ctx.header("authorization").unwrap_or("no Authorization header").to_owned()
    });
    let remote = serving_with(Server::builder("remote", "1").tool(whoami), HttpOptions::default()).await;
    for proxy_era in [Era::Auto, Era::Handshake] {
        let url = remote.clone();
        let proxied = Server::proxy(move |client| {
            let url = url.clone();
            async move { client.era(proxy_era).bearer("proxy-token").http(&url).await }
        })
        .await
        .expect("the proxy connects");
        let gateway = serving_with(Server::builder("gateway", "1").mount("remote", proxied), HttpOptions::default());
        let gateway = gateway.await;
        for caller_era in [Era::Auto, Era::Handshake] {
            let caller = Client::builder().era(caller_era).bearer("caller-token").http(&gateway).await.unwrap();
            let seen = caller.call_tool("remote_whoami", json!({})).await.expect("called through the proxy");
            let text = serde_json::to_value(&seen.content).unwrap()[0]["text"].clone();
            assert_eq!(text, "Bearer proxy-token", "proxy {proxy_era:?}, caller {caller_era:?}: {seen:?}");
            caller.close().await.expect("closes");
        }
    }
}
