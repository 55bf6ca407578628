//! Nothing a client sends is kept for it beyond what the protocol needs: garbage POSTed to
//! sessions leaves nothing in the event store, a session's events go when it ends, and a second
//! identical round of garbage leaves the process's memory where the first left it. A binary of
//! its own, so that no other test shares the process whose memory is read.

use std::sync::Arc;
use std::time::Duration;

use mcp_runtime::Server;
use mcp_runtime::http::{HttpOptions, MemoryEventStore, ResponseMode};

const SESSIONS: usize = 50;
const GARBAGE: usize = 20_000;

/// Resident memory of this process, in bytes.
fn rss() -> u64 {
    let statm = std::fs::read_to_string("/proc/self/statm").expect("/proc/self/statm");
    let pages: u64 = statm.split_whitespace().nth(1).and_then(|p| p.parse().ok()).expect("resident pages");
    pages * 4096
}

/// Opens `SESSIONS` sessions (their `initialize` answered as SSE, so kept as events), sends
/// `GARBAGE` unparsable or invalid bodies spread over them (each must be 400), and ends them.
async fn round(client: &reqwest::Client, url: &str, events: &MemoryEventStore) {
    let mut sessions = Vec::new();
    for _ in 0..SESSIONS {
        let init = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"garbage","version":"0"}}}"#;
        let answer = client.post(url).header("content-type", "application/json").body(init).send().await.unwrap();
        assert_eq!(answer.status(), 200);
        let session = answer.headers()["mcp-session-id"].to_str().unwrap().to_owned();
        answer.text().await.unwrap();
        sessions.push(session);
    }
    assert!(events.kept_events() >= SESSIONS, "the initialize streams are kept: {}", events.kept_events());
    let kept_before = events.kept_bytes();
    let bodies = ["{not json", r#"{"jsonrpc":"2.0","id":5}"#, "[]", r#""x""#, r#"{"jsonrpc":"1.0","method":"a"}"#];
    for n in 0..GARBAGE {
        let answer = client
            .post(url)
            .header("content-type", "application/json")
            .header("mcp-session-id", &sessions[n % SESSIONS])
            .header("mcp-protocol-version", "2025-06-18")
            .body(bodies[n % bodies.len()])
            .send()
            .await
            .unwrap();
        assert_eq!(answer.status(), 400, "garbage {n}");
        answer.bytes().await.unwrap();
    }
    assert_eq!(events.kept_bytes(), kept_before, "nothing kept for garbage");
    for session in &sessions {
        let ended = client.delete(url).header("mcp-session-id", session).send().await.unwrap();
        assert_eq!(ended.status(), 204);
    }
    // The store forgets in a task of its own, just after the DELETE.
    for _ in 0..100 {
        if events.kept_events() == 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!((events.kept_events(), events.kept_bytes()), (0, 0), "ended sessions leave nothing");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn garbage_leaves_nothing_behind() {
    let events = Arc::new(MemoryEventStore::default());
    let options = HttpOptions::default().response_mode(ResponseMode::Sse).event_store(Arc::clone(&events));
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    drop(listener);
    let server = Server::builder("garbage", "1.0.0");
    tokio::spawn(async move { server.serve_http_with(addr, options).await });
    let url = format!("http://{addr}/mcp");
    let client = reqwest::Client::builder()
        .default_headers(
            [(reqwest::header::ACCEPT, "application/json, text/event-stream".parse().unwrap())].into_iter().collect(),
        )
        .build()
        .unwrap();
    for _ in 0..100 {
        if tokio::net::TcpStream::connect(addr).await.is_ok() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    round(&client, &url, &events).await;
    let first = rss();
    round(&client, &url, &events).await;
    let second = rss();
    let grown = second.saturating_sub(first);
    assert!(grown < 1 << 20, "a second round grew the process by {grown} bytes ({first} → {second})");
}
