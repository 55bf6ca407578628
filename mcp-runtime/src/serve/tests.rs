//! The serving core on its own, without a transport: messages handed to a session as a
//! transport hands them, and what comes back (the reply to queue, what reached the output).

use std::sync::Mutex;
use std::sync::mpsc as std_mpsc;
use std::task::Poll;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::sync::mpsc;

use crate::declare::tool::ToolDescriptor;
use crate::middleware::from_fn;
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
    session_of(server)
}

/// A session of `server`, and the receiving end of its output.
fn session_of(server: Server) -> (Session, mpsc::Receiver<Vec<u8>>) {
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

/// The race a loaded machine lets happen: the cancellation comes while the request's task is
/// being polled (an abort then waits for that poll to end), and the work finishes in that
/// same poll. Nothing is sent for it all the same, whether it runs in the executor's task or
/// in the layers'.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_cancelled_while_its_task_runs_is_not_answered_when_that_run_finishes_it() {
    for layered in [false, true] {
        let sent = finished_after_its_cancellation(layered).await;
        assert!(sent.is_err(), "a cancelled request is not answered (layered: {layered}): {sent:?}");
    }
}

/// Calls a tool whose second poll blocks until its cancellation was handled, then finishes;
/// what reached the output once the request's task ended.
async fn finished_after_its_cancellation(layered: bool) -> Result<String, mpsc::error::TryRecvError> {
    let (running_tx, running) = std_mpsc::channel::<()>();
    let (go, go_rx) = std_mpsc::channel::<()>();
    let hooks = Mutex::new(Some((running_tx, go_rx)));
    let mut server = Server::builder("core", "1.0.0").tool(ToolDescriptor::new("race").handler(move |_: Value| {
        let (running, go) = hooks.lock().unwrap().take().expect("called once");
        let mut polls = 0;
        std::future::poll_fn(move |_| {
            polls += 1;
            // Its first poll is where the request starts; the next one, in its task.
            if polls == 1 {
                return Poll::Pending;
            }
            running.send(()).unwrap();
            go.recv().unwrap();
            Poll::Ready("finished".to_owned())
        })
    }));
    if layered {
        server = server.layer(from_fn(|request, next| async move { next.run(request).await }));
    }
    let (mut session, mut output) = session_of(server);
    // A 2026-07-28 request: no handshake, which in the layers would need the reading loop.
    let call = format!(
        r#"{{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{{"name":"race","arguments":{{}},{STATELESS_META}}}}}"#
    );
    assert!(session.on_message(&call, ReplyTo::Connection.into()).is_none(), "runs as a task");
    tokio::task::block_in_place(|| running.recv()).unwrap();
    let cancel = r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":11}}"#;
    assert!(session.on_message(cancel, ReplyTo::Connection.into()).is_none());
    go.send(()).unwrap();
    session.executor.drained().await;
    output.try_recv().map(|line| String::from_utf8_lossy(&line).into_owned())
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
