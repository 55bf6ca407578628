//! Tasks over Streamable HTTP, in process: a task outlives the connection whose POST made it
//! (read back later on a new connection, its work done meanwhile), and when the transport
//! authenticates, a task is visible only to the identity that made it: another identity's
//! `tasks/get`, `tasks/update` and `tasks/cancel` get -32602 as for a task that does not exist.

use std::time::{Duration, Instant};

use axum::http::HeaderMap;
use mcp_runtime::http::{Authorization, HttpOptions, Reject};
use mcp_runtime::tasks::TaskSupport;
use mcp_runtime::{Identity, Server, ToolDescriptor};
use mcp_tests::services::free_port;
use mcp_tests::wire::{CLIENT_CAPABILITIES_KEY, PROTOCOL_VERSION_KEY, STATELESS_REVISION};
use serde_json::{Value, json};

use crate::middleware::post;

/// A report that takes `ms` milliseconds, run as a task when the client asks.
fn report() -> ToolDescriptor {
    ToolDescriptor::new("report").task(TaskSupport::Optional).handler(|arguments: Value| async move {
        let ms = arguments["ms"].as_u64().unwrap_or(0);
        tokio::time::sleep(Duration::from_millis(ms)).await;
        format!("reported after {ms} ms")
    })
}

/// Serves the report on a free port; `Bearer NAME` is the identity NAME, and nothing else is let in.
async fn serving() -> String {
    let port = free_port();
    let authorization = Authorization::hook(|headers: HeaderMap| async move {
        let token = headers.get("authorization").and_then(|v| v.to_str().ok()).and_then(|v| v.strip_prefix("Bearer "));
        match token {
            Some(name @ ("alice" | "bob")) => Ok(Identity::new(name)),
            _ => Err(Reject::new("unknown token")),
        }
    });
    let options = HttpOptions::default().authorization(authorization);
    let server = Server::builder("reports", "1.0.0").tool(report());
    tokio::spawn(server.serve_http_with(format!("127.0.0.1:{port}"), options));
    let url = format!("http://127.0.0.1:{port}/mcp");
    let deadline = Instant::now() + Duration::from_secs(5);
    while tokio::net::TcpStream::connect(("127.0.0.1", port)).await.is_err() {
        assert!(Instant::now() < deadline, "the server did not listen on {url}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    url
}

/// A 2026-07-28 request opting in to tasks, posted as `who` (each POST on a connection of its
/// own): the HTTP status and the JSON-RPC answer.
async fn status_as(url: &str, who: &str, method: &str, params: Value) -> (u16, Value) {
    let mut params = params;
    params["_meta"] = json!({
        PROTOCOL_VERSION_KEY: STATELESS_REVISION,
        CLIENT_CAPABILITIES_KEY: {"extensions": {"io.modelcontextprotocol/tasks": {}}},
    });
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let posted = post(url, body, vec![("authorization".to_owned(), format!("Bearer {who}"))], &[]).await;
    (posted.status, posted.body)
}

/// The same, for a request that must succeed: its answer.
async fn as_user(url: &str, who: &str, method: &str, params: Value) -> Value {
    let (status, answer) = status_as(url, who, method, params).await;
    assert_eq!(status, 200, "{method} as {who}: {answer}");
    answer
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_outlives_its_connection_and_only_its_maker_sees_it() {
    let url = serving().await;
    let created = as_user(&url, "alice", "tools/call", json!({"name": "report", "arguments": {"ms": 300}})).await;
    assert_eq!(created["result"]["resultType"], "task", "{created}");
    let id = created["result"]["taskId"].as_str().unwrap().to_owned();
    // 128 bits, as 32 hex digits.
    assert!(id.len() == 32 && id.bytes().all(|b| b.is_ascii_hexdigit()), "{id}");

    // Bob is told what he would be told of a task that does not exist, and changes nothing.
    let none = "0".repeat(32);
    for method in ["tasks/get", "tasks/update", "tasks/cancel"] {
        let params = |id: &str| match method {
            "tasks/update" => json!({"taskId": id, "inputResponses": {"k": {"action": "accept"}}}),
            _ => json!({"taskId": id}),
        };
        let refused = status_as(&url, "bob", method, params(&id)).await;
        assert_eq!(refused.0, 400, "{method}: {}", refused.1);
        assert_eq!(refused.1["error"]["code"], -32602, "{method}: {}", refused.1);
        assert_eq!(refused.1["error"]["message"], format!("Unknown task `{id}`"), "as for a task that does not exist");
        let unknown = status_as(&url, "alice", method, params(&none)).await;
        assert_eq!((unknown.0, &unknown.1["error"]["message"]), (400, &json!(format!("Unknown task `{none}`"))));
    }
    // Without a token nothing gets in at all.
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tasks/get", "params": {"taskId": id}});
    assert_eq!(post(&url, body, vec![], &[]).await.status, 401);

    // The connection that made it is long closed; the work went on, and Alice reads its end.
    let deadline = Instant::now() + Duration::from_secs(10);
    let done = loop {
        let task = as_user(&url, "alice", "tasks/get", json!({"taskId": id})).await["result"].clone();
        if task["status"] != "working" {
            break task;
        }
        assert!(Instant::now() < deadline, "the task stayed working: {task}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["result"]["content"][0]["text"], "reported after 300 ms");
}
