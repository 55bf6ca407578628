//! The serving core on its own, without a transport: messages handed to a session as a
//! transport hands them, and what comes back (the reply to queue, what reached the output).

use std::time::Duration;

use serde_json::{Value, json};
use tokio::sync::mpsc;

use crate::declare::tool::ToolDescriptor;
use crate::protocol::{CachePolicy, CacheScope, Cacheable, code};
use crate::serve::reply::{Reply, ReplyTo};
use crate::serve::session::Session;
use crate::server::builder::Server;

const STATELESS_META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

/// A session of a server with an `echo` tool and a `wait` tool (which never finishes), and
/// the receiving end of its output.
fn session(max_in_flight: usize) -> (Session, mpsc::Receiver<Vec<u8>>) {
    let server = Server::builder("core", "1.0.0")
        .max_in_flight(max_in_flight)
        .cache(Cacheable::ToolList, CachePolicy::new(Duration::from_secs(5), CacheScope::Private))
        .tool(ToolDescriptor::new("echo").handler(|args: Value| async move { args["text"].to_string() }))
        .tool(ToolDescriptor::new("wait").handler(|_: Value| std::future::pending::<String>()));
    let core = server.build().expect("the server builds");
    let (out, output) = mpsc::channel(16);
    (Session::new(core, out, 4, crate::middleware::Transport::Channel).0, output)
}

fn json_of(reply: &Reply) -> Value {
    serde_json::from_slice(&reply.message.line).expect("a JSON line")
}

fn initialize(session: &mut Session) {
    let init = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
    let reply = session.on_message(init, ReplyTo::Connection.into()).expect("answered on the reading loop");
    assert_eq!(json_of(&reply)["result"]["protocolVersion"], "2025-11-25");
    assert!(
        session
            .on_message(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#, ReplyTo::Connection.into())
            .is_none()
    );
}

#[tokio::test]
async fn a_request_before_initialize_is_refused_with_what_to_send() {
    let (mut session, _output) = session(4);
    let reply = session
        .on_message(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#, ReplyTo::Connection.into())
        .expect("answered at once");
    let answer = reply.message.answer.clone().expect("marked as the response");
    assert_eq!(answer.error, Some(code::INVALID_PARAMS));
    assert!(json_of(&reply)["error"]["message"].as_str().unwrap().contains("send `initialize` first"));
    // `ping` is served before `initialize`.
    let ping = session.on_message(r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#, ReplyTo::Connection.into()).unwrap();
    assert_eq!(json_of(&ping)["result"], json!({}));
    assert_eq!(ping.message.answer.unwrap().error, None);
}

#[tokio::test]
async fn a_ready_handler_answers_on_the_reading_loop_with_its_slot() {
    let (mut session, _output) = session(4);
    initialize(&mut session);
    let call = r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}"#;
    let reply = session.on_message(call, ReplyTo::Connection.into()).expect("ready at its first poll: no task");
    assert_eq!(json_of(&reply)["result"]["content"][0]["text"], "\"hi\"");
    assert!(reply._slot.is_some(), "the reply holds its in-flight slot until it is queued");
}

#[tokio::test]
async fn the_route_table_says_what_a_result_may_be_cached_for() {
    let (mut session, _output) = session(4);
    let list = format!(r#"{{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{{{STATELESS_META}}}}}"#);
    let reply = session.on_message(&list, ReplyTo::Connection.into()).unwrap();
    let cache = reply.message.answer.clone().unwrap().cache.expect("a 2026-07-28 list says how long it may be cached");
    assert_eq!((cache.ttl_ms(), cache.scope()), (5000, CacheScope::Private));
    assert_eq!(json_of(&reply)["result"]["ttlMs"], 5000);
    // A handshake-era list carries no caching fields, and says none.
    initialize(&mut session);
    let reply =
        session.on_message(r#"{"jsonrpc":"2.0","id":5,"method":"tools/list"}"#, ReplyTo::Connection.into()).unwrap();
    assert_eq!(reply.message.answer.clone().unwrap().cache, None);
    assert!(json_of(&reply)["result"].get("ttlMs").is_none());
    // Nor does a call.
    let call = format!(
        r#"{{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"x"}},{STATELESS_META}}}}}"#
    );
    let reply = session.on_message(&call, ReplyTo::Connection.into()).unwrap();
    assert_eq!(reply.message.answer.clone().unwrap().cache, None);
}

#[tokio::test]
async fn past_the_bound_requests_wait_and_a_waiting_one_can_be_cancelled() {
    let (mut session, mut output) = session(1);
    initialize(&mut session);
    let wait = r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"wait","arguments":{}}}"#;
    assert!(session.on_message(wait, ReplyTo::Connection.into()).is_none(), "runs as a task");
    let echo =
        r#"{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"echo","arguments":{"text":"later"}}}"#;
    assert!(session.on_message(echo, ReplyTo::Connection.into()).is_none());
    assert!(session.executor.has_parked(), "no slot is free: it waits");
    // `ping` is still answered, with no slot.
    assert!(session.on_message(r#"{"jsonrpc":"2.0","id":9,"method":"ping"}"#, ReplyTo::Connection.into()).is_some());
    let cancel = r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":8}}"#;
    assert!(session.on_message(cancel, ReplyTo::Connection.into()).is_none());
    assert!(!session.executor.has_parked(), "the waiting request is dropped");
    // Cancelling the running one frees its slot; nothing is ever answered for either.
    let cancel = r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}"#;
    assert!(session.on_message(cancel, ReplyTo::Connection.into()).is_none());
    let silent = tokio::time::timeout(Duration::from_millis(100), output.recv()).await;
    assert!(silent.is_err(), "a cancelled request is not answered: {silent:?}");
}

#[tokio::test]
async fn a_request_with_a_stream_of_its_own_gets_its_answer_marked_there() {
    let (mut session, _output) = session(4);
    let (stream, mut answers) = mpsc::channel(4);
    let call = format!(
        r#"{{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{{"name":"nope","arguments":{{}},{STATELESS_META}}}}}"#
    );
    let reply = session.on_message(&call, ReplyTo::Stream(stream).into()).expect("answered at once");
    let stream = reply.stream.expect("to the request's own stream");
    stream.send(reply.message).await.unwrap();
    let message = answers.recv().await.unwrap();
    assert_eq!(message.answer.unwrap().error, Some(code::INVALID_PARAMS));
}
