//! The in-process round trip: `tools/call` through `testing::TestClient` (no process, no
//! pipe; `request`, without the client's schema checks), one call at a time. Prints one line:
//! the mean microseconds per call.

use std::time::Instant;

use mcp_runtime::testing::TestClient;
use mcp_runtime::{Server, mcp_tool};
use serde_json::json;

/// Adds two integers.
#[mcp_tool]
fn sum(a: i64, b: i64) -> String {
    (a + b).to_string()
}

// One thread, as `#[tokio::test]` runs a test.
#[tokio::main(flavor = "current_thread")]
async fn main() {
    let calls: u32 = std::env::args().nth(1).map_or(20_000, |n| n.parse().expect("a number of calls"));
    let client = TestClient::connect(Server::new("sum-inproc", "0.0.0")).await.expect("the server starts");
    let start = Instant::now();
    for n in 0..calls {
        let params = json!({"name": "sum", "arguments": {"a": n, "b": 2}});
        let result = client.request("tools/call", params).await.expect("a result");
        assert_eq!(result["content"][0]["text"], (i64::from(n) + 2).to_string());
    }
    let micros = start.elapsed().as_secs_f64() * 1e6 / f64::from(calls);
    client.close().await.expect("the server stops");
    println!("{micros:.2}");
}
