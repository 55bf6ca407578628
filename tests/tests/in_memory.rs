//! A server driven in-process over `tokio::io::duplex`, as a user's own tests would: the
//! caching keys of `#[mcp_resource]` reach 2026-07-28 read results.

use mcp_runtime::{Server, mcp_resource};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

/// Cached privately for five seconds.
#[mcp_resource("memo://note", ttl_ms = 5000, cache_scope = "private")]
fn note() -> &'static str {
    "remember"
}

/// Cached as by default.
#[mcp_resource("memo://plain")]
fn plain() -> &'static str {
    "plain"
}

/// Sends each request on one in-memory connection and returns the responses, in order.
async fn exchange(server: Server, requests: &[Value]) -> Vec<Value> {
    let (client, server_side) = tokio::io::duplex(64 * 1024);
    let (server_in, server_out) = tokio::io::split(server_side);
    let serving = tokio::spawn(server.serve(server_in, server_out));
    let (client_in, mut client_out) = tokio::io::split(client);
    let mut lines = BufReader::new(client_in).lines();
    let mut responses = Vec::new();
    for request in requests {
        client_out.write_all(format!("{request}\n").as_bytes()).await.expect("write");
        let line = lines.next_line().await.expect("read").expect("a response");
        responses.push(serde_json::from_str(&line).expect("JSON"));
    }
    client_out.shutdown().await.expect("shutdown");
    serving.await.expect("the server task").expect("serving ends cleanly");
    responses
}

fn modern_read(id: u32, uri: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "resources/read", "params": {
        "uri": uri,
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}
        }
    }})
}

#[tokio::test]
async fn resource_caching_keys_reach_read_results() {
    let server = Server::builder("memo", "1").resource(note {}).resource(plain {});
    let responses = exchange(server, &[modern_read(1, "memo://note"), modern_read(2, "memo://plain")]).await;
    assert_eq!(responses[0]["result"]["ttlMs"], 5000, "{}", responses[0]);
    assert_eq!(responses[0]["result"]["cacheScope"], "private", "{}", responses[0]);
    assert_eq!(responses[0]["result"]["contents"][0]["text"], "remember");
    assert_eq!(responses[1]["result"]["ttlMs"], 60000, "{}", responses[1]);
    assert_eq!(responses[1]["result"]["cacheScope"], "public", "{}", responses[1]);
}
