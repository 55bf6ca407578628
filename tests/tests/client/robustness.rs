//! The client against servers that misbehave, each a short shell script speaking (or failing
//! to speak) newline-delimited JSON-RPC: every fault becomes a clear error on the request it
//! concerns, or on every pending request when the server dies, never a panic or a hang.

use std::time::Duration;

use mcp_runtime::client::{Client, ClientError, Era, Notification, Stderr};
use mcp_runtime::protocol::Revision;
use serde_json::json;
use tokio::process::Command;

/// The answer to `initialize` (request 1) of a server declaring tools, speaking `version`.
fn initialized(version: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":1,"result":{{"protocolVersion":"{version}","capabilities":{{"tools":{{}}}},"serverInfo":{{"name":"scripted","version":"1"}}}}}}"#
    )
}

/// A server running `script` under `sh`, after answering the handshake with `version` (it
/// reads `initialize` and `notifications/initialized` first).
fn scripted(version: &str, script: &str) -> Command {
    let mut command = Command::new("sh");
    command.arg("-c").arg(format!("read init; echo '{}'; read initialized; {script}", initialized(version)));
    command
}

async fn connect(command: Command) -> Result<Client, ClientError> {
    let connecting = Client::builder().era(Era::Handshake).stderr(Stderr::Capture).stdio(command);
    tokio::time::timeout(Duration::from_secs(20), connecting).await.expect("connecting does not hang")
}

#[tokio::test]
async fn a_server_that_dies_fails_every_pending_request_with_its_status_and_last_words() {
    // It reads both calls, says why on stderr, and exits 3 without answering.
    let client = connect(scripted("2025-11-25", "read a; read b; echo 'out of cheese' >&2; exit 3"))
        .await
        .expect("the handshake");
    let (first, second) = tokio::time::timeout(
        Duration::from_secs(20),
        futures_join(client.call_tool("a", json!({})), client.call_tool("b", json!({}))),
    )
    .await
    .expect("both fail at once instead of hanging");
    for failed in [first.expect_err("no answer"), second.expect_err("no answer")] {
        let ClientError::Closed(why) = &failed else { panic!("a closed connection: {failed:?}") };
        assert!(why.contains("exited with status 3"), "{why}");
        assert!(why.contains("out of cheese"), "{why}");
    }
    // And whatever comes after fails the same way, at once.
    assert!(matches!(client.ping().await, Err(ClientError::Closed(_))));
}

/// Both futures to their end, concurrently.
async fn futures_join<A: std::future::Future, B: std::future::Future>(a: A, b: B) -> (A::Output, B::Output) {
    tokio::join!(a, b)
}

#[tokio::test]
async fn garbage_and_answers_to_unknown_ids_are_skipped() {
    let script = r#"read ping; echo 'this is not JSON'; echo '{"jsonrpc":"2.0","id":99,"result":{}}'; echo '[1,2'; echo '{"jsonrpc":"2.0","id":2,"result":{}}'; read rest"#;
    let client = connect(scripted("2025-11-25", script)).await.expect("the handshake");
    client.ping().await.expect("the answer after the garbage");
}

#[tokio::test]
async fn a_result_of_the_wrong_shape_is_an_error_on_its_request() {
    let script = r#"read list; echo '{"jsonrpc":"2.0","id":2,"result":{"tools":5}}'; read rest"#;
    let client = connect(scripted("2025-11-25", script)).await.expect("the handshake");
    let error = client.list_tools().await.expect_err("not a list");
    let ClientError::Protocol(message) = &error else { panic!("a protocol error: {error:?}") };
    assert!(message.contains("tools/list"), "{message}");
}

#[tokio::test]
async fn a_version_the_client_does_not_speak_ends_the_connection_naming_both() {
    let marker = std::env::temp_dir().join(format!("mcp-client-version-{}", std::process::id()));
    let _ = std::fs::remove_file(&marker);
    // Anything sent after the answer would be written to the marker file.
    let mut command = Command::new("sh");
    command.arg("-c").arg(format!(
        "read init; echo '{}'; if read more; then echo \"$more\" > '{}'; fi",
        initialized("1999-01-01"),
        marker.display()
    ));
    let error = connect(command).await.expect_err("a revision from the future");
    let ClientError::VersionMismatch { asked, answered } = &error else { panic!("a version mismatch: {error:?}") };
    assert_eq!((asked.as_str(), answered.as_str()), ("2025-11-25", "1999-01-01"));
    assert!(error.to_string().contains("2025-11-25") && error.to_string().contains("1999-01-01"));
    assert!(!marker.exists(), "the client talked past the mismatch: {:?}", std::fs::read_to_string(&marker));
}

#[tokio::test]
async fn a_server_that_cannot_start_is_a_transport_error_naming_it() {
    let error = Client::builder().stdio(Command::new("/nonexistent/mcp-server")).await.expect_err("nothing to run");
    assert!(matches!(&error, ClientError::Transport(m) if m.contains("/nonexistent/mcp-server")), "{error:?}");
}

#[tokio::test]
async fn a_flood_of_notifications_is_bounded_for_a_reader_that_falls_behind() {
    // The flood starts when the ping comes (the reader is taken before), and the ping's answer
    // comes after it: once that is in, every notification is.
    let flood = r#"read ping; i=0; while [ $i -lt 3000 ]; do echo '{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}'; i=$((i+1)); done; echo '{"jsonrpc":"2.0","id":2,"result":{}}'; read rest"#;
    let client = connect(scripted("2025-11-25", flood)).await.expect("the handshake");
    let mut late = client.notifications();
    client.ping().await.expect("ping");
    let mut read = 0;
    while let Some(notification) = late.try_next() {
        assert!(matches!(notification, Notification::Log { .. }), "{notification:?}");
        read += 1;
    }
    assert!(read <= mcp_runtime::client::NOTIFICATION_BUFFER, "{read} kept");
    assert_eq!(read as u64 + late.missed(), 3000, "every notification read or counted as missed");
    assert!(late.missed() > 0);
}

#[tokio::test]
async fn the_auto_era_falls_back_to_the_handshake_when_discovery_is_refused() {
    // `server/discover` (request 1) is refused; `initialize` is request 2.
    let script = format!(
        r#"read discover; echo '{{"jsonrpc":"2.0","id":1,"error":{{"code":-32601,"message":"Method not found"}}}}'; read init; echo '{}'; read initialized; read ping; echo '{{"jsonrpc":"2.0","id":3,"result":{{}}}}'; read rest"#,
        initialized("2025-06-18").replace("\"id\":1", "\"id\":2")
    );
    let mut command = Command::new("sh");
    command.arg("-c").arg(script);
    let client = Client::builder().stderr(Stderr::Capture).stdio(command).await.expect("falls back");
    assert_eq!(client.revision(), Revision::V2025_06_18);
    client.ping().await.expect("ping after the fallback");
}

#[tokio::test]
async fn a_structured_result_that_breaks_its_output_schema_fails_when_checking_is_asked() {
    let listed = r#"{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"add","inputSchema":{"type":"object"},"outputSchema":{"type":"object","properties":{"sum":{"type":"number"}},"required":["sum"]}}]}}"#;
    let answer = |id: u32| {
        format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{"content":[],"structuredContent":{{"sum":"five"}}}}}}"#)
    };
    let script = format!(
        "read list; echo '{listed}'; read checked; echo '{}'; read unchecked; echo '{}'; read rest",
        answer(3),
        answer(4)
    );
    let client = connect(scripted("2025-11-25", &script)).await.expect("the handshake");
    client.list_tools().await.expect("the list");
    let checked = mcp_runtime::client::CallOptions::new().check_output();
    let error = client.call_tool_with("add", json!({}), checked).await.expect_err("`five` is not a number");
    let ClientError::Protocol(message) = &error else { panic!("a protocol error: {error:?}") };
    assert!(message.contains("breaks its outputSchema") && message.contains("/sum"), "{message}");
    // Unasked, the result is the caller's to judge.
    let unchecked = client.call_tool("add", json!({})).await.expect("a result");
    assert_eq!(unchecked.structured_content, Some(json!({"sum": "five"})));
}
