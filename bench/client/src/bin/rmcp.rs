//! rmcp's client (3.11, as its documentation writes one): `tools/call` of `sum`, one call at
//! a time, against the same server: in process over a duplex pipe (this framework's server
//! serving it), or the spawned `sum-ours` over stdio.

use client_bench::{Target, arguments, measure, server};
use rmcp::ServiceExt as _;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::TokioChildProcess;
use serde_json::json;

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let (target, calls) = arguments();
    let client = match target {
        Target::Memory => {
            let (client_side, server_side) = tokio::io::duplex(64 * 1024);
            let (server_read, server_write) = tokio::io::split(server_side);
            tokio::spawn(server().serve(server_read, server_write));
            ().serve(client_side).await.expect("connects")
        }
        Target::Stdio(program) => {
            let child = TokioChildProcess::new(tokio::process::Command::new(program)).expect("spawns");
            ().serve(child).await.expect("connects")
        }
    };
    measure(calls, |n| {
        let client = &client;
        async move {
            let arguments = json!({"a": n, "b": 2}).as_object().cloned().expect("an object");
            let result =
                client.call_tool(CallToolRequestParams::new("sum").with_arguments(arguments)).await.expect("a result");
            let text = result.content.first().and_then(|c| c.as_text()).map(|t| t.text.clone());
            text.expect("a text result")
        }
    })
    .await;
    client.cancel().await.expect("closes");
}
