//! Streamable HTTP (`/mcp`) against the examples: sessions of the handshake revisions, the
//! stateless 2026-07-28 POST, the status code and header rules, JSON and SSE answers, the
//! server's questions on a request's stream, cancellation by a closed stream, the security
//! checks, graceful shutdown, and many clients at once.

use std::io::{BufRead, BufReader};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use mcp_tests::example_binary;
use mcp_tests::http::{HttpServer, initialize, post, send, sse_messages, stateless_headers};
use mcp_tests::wire::{
    CLIENT_CAPABILITIES_KEY, HANDSHAKE_REVISIONS, LATEST_HANDSHAKE_REVISION, PROTOCOL_VERSION_KEY, STATELESS_REVISION,
    for_each_revision,
};
use serde_json::{Value, json};

// The edge against hostile and sloppy requests, and what the event store keeps of them:
// modules of this binary (each test binary links the whole graph).
#[path = "http/authorization.rs"]
mod authorization;
#[path = "http/edge.rs"]
mod edge;
#[path = "http/event_store.rs"]
mod event_store;
#[path = "http/middleware.rs"]
mod middleware;
#[path = "http/probes.rs"]
mod probes;
#[path = "http/proxying.rs"]
mod proxying;
#[path = "http/server_card.rs"]
mod server_card;
#[path = "http/tasks.rs"]
mod tasks;
#[path = "http/telemetry.rs"]
mod telemetry;

fn gift_genius() -> HttpServer {
    HttpServer::start(&example_binary("gift_genius"), &[])
}

fn manual(args: &[&str]) -> HttpServer {
    let mut all = vec!["--test-tools"];
    all.extend_from_slice(args);
    HttpServer::start(&example_binary("manual"), &all)
}

/// A request with `id`.
fn request(id: i64, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

/// A 2026-07-28 request: `params` plus the `_meta` naming the revision and `capabilities`.
fn modern(id: i64, method: &str, mut params: Value, capabilities: Value) -> Value {
    let meta = params["_meta"].as_object_mut().map(std::mem::take).unwrap_or_default();
    params["_meta"] = json!({PROTOCOL_VERSION_KEY: STATELESS_REVISION, CLIENT_CAPABILITIES_KEY: capabilities});
    for (key, value) in meta {
        params["_meta"][key] = value;
    }
    request(id, method, params)
}

/// Opens a session of `revision` (initialize, initialized); its id.
fn open_session(url: &str, revision: &str, capabilities: Value) -> String {
    let answer = post(url, &initialize(revision, capabilities), &[]);
    assert_eq!(answer.status, 200, "{answer:?}");
    let session = answer.session.clone().expect("Mcp-Session-Id on the initialize result");
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let ack = post(url, &initialized, &[("mcp-session-id", &session), ("mcp-protocol-version", revision)]);
    assert_eq!((ack.status, ack.messages.len()), (202, 0), "{ack:?}");
    session
}

#[test]
fn initialize_mints_a_session_that_later_requests_need() {
    let server = gift_genius();
    for_each_revision(&HANDSHAKE_REVISIONS, |rev| {
        let answer = post(&server.url, &initialize(rev, json!({})), &[]);
        assert_eq!((answer.status, answer.content_type.as_str()), (200, "application/json"), "{answer:?}");
        assert_eq!(answer.last()["result"]["protocolVersion"], rev);
        let session = answer.session.clone().expect("a session id");
        assert!(session.len() == 32 && session.bytes().all(|b| b.is_ascii_hexdigit()), "128 random bits: {session}");
        let list = request(1, "tools/list", json!({}));
        assert_eq!(post(&server.url, &list, &[]).status, 400, "no session");
        assert_eq!(post(&server.url, &list, &[("mcp-session-id", "0123")]).status, 404, "unknown session");
        let listed = post(&server.url, &list, &[("mcp-session-id", &session), ("mcp-protocol-version", rev)]);
        assert_eq!(listed.status, 200);
        assert_eq!(listed.last()["result"]["tools"][0]["name"], "suggest_gifts");
        let ended = send(&server.url, "DELETE", None, &[("mcp-session-id", &session)]);
        assert_eq!(ended.status, 204);
        assert_eq!(post(&server.url, &list, &[("mcp-session-id", &session)]).status, 404, "ended");
    });
}

#[test]
fn get_and_delete_need_a_session_and_a_bad_version_header_is_refused() {
    let server = gift_genius();
    for method in ["GET", "DELETE"] {
        assert_eq!(send(&server.url, method, None, &[]).status, 405, "{method} without a session");
    }
    let session = open_session(&server.url, "2025-06-18", json!({}));
    let ping = request(5, "ping", json!({}));
    let refused = post(&server.url, &ping, &[("mcp-session-id", &session), ("mcp-protocol-version", "1999-01-01")]);
    assert_eq!(refused.status, 400, "{refused:?}");
    assert_eq!(post(&server.url, &ping, &[("mcp-session-id", &session)]).status, 200, "no header: assumed");
}

#[test]
fn foreign_origins_and_hosts_are_refused() {
    let server = gift_genius();
    let discover = modern(1, "server/discover", json!({}), json!({}));
    assert_eq!(post(&server.url, &discover, &[("origin", "http://evil.example")]).status, 403);
    assert_eq!(post(&server.url, &discover, &[("host", "evil.example")]).status, 421);
    let own = format!("http://{}", server.addr);
    let port = server.addr.rsplit(':').next().unwrap();
    let localhost = format!("http://localhost:{port}");
    for origin in [own.as_str(), localhost.as_str()] {
        assert_eq!(post(&server.url, &discover, &[("origin", origin)]).status, 200, "{origin}");
    }
}

#[test]
fn stateless_requests_need_no_session_and_errors_carry_their_status() {
    let server = gift_genius();
    let listed = post(&server.url, &modern(1, "tools/list", json!({}), json!({})), &[("mcp-session-id", "ignored")]);
    assert_eq!((listed.status, listed.session.as_deref()), (200, None), "{listed:?}");
    assert_eq!(listed.last()["result"]["resultType"], "complete");
    let cases = [
        (modern(2, "no/such", json!({}), json!({})), vec![], 404, -32601),
        (
            request(
                3,
                "tools/list",
                json!({"_meta": {PROTOCOL_VERSION_KEY: "2099-01-01", CLIENT_CAPABILITIES_KEY: {}}}),
            ),
            vec![],
            400,
            -32022,
        ),
        (request(4, "tools/list", json!({"_meta": {PROTOCOL_VERSION_KEY: STATELESS_REVISION}})), vec![], 400, -32602),
        (modern(5, "tools/list", json!({}), json!({})), vec![("mcp-method", "prompts/list")], 400, -32020),
        (
            modern(
                6,
                "tools/call",
                json!({"name": "suggest_gifts", "arguments": {"age": 9, "relationship": "son"}}),
                json!({}),
            ),
            vec![("mcp-name", "other_tool")],
            400,
            -32020,
        ),
        (modern(7, "tools/list", json!({}), json!({})), vec![("mcp-protocol-version", "2025-06-18")], 400, -32020),
        (modern(8, "tools/list", json!({}), json!({})), vec![("mcp-method", "")], 400, -32020),
        (
            modern(
                9,
                "tools/call",
                json!({"name": "suggest_gifts", "arguments": {"age": 9, "relationship": "son"}}),
                json!({}),
            ),
            vec![("mcp-name", "")],
            400,
            -32020,
        ),
    ];
    for (body, headers, status, code) in cases {
        let answer = post(&server.url, &body, &headers);
        assert_eq!((answer.status, answer.last()["error"]["code"].as_i64()), (status, Some(code)), "{body} {answer:?}");
    }
    let call = modern(
        8,
        "tools/call",
        json!({"name": "suggest_gifts", "arguments": {"age": 9, "relationship": "son"}}),
        json!({}),
    );
    let matching = [
        ("mcp-method", "tools/call"),
        ("mcp-name", "=?base64?c3VnZ2VzdF9naWZ0cw==?="),
        ("mcp-protocol-version", STATELESS_REVISION),
    ];
    let answer = post(&server.url, &call, &matching);
    assert_eq!(answer.status, 200, "matching headers, the name base64-encoded: {answer:?}");
    let notification = json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 99}});
    assert_eq!(post(&server.url, &notification, &[]).status, 202);
}

/// The headers a 2026-07-28 request names itself with, written out per method (not built by
/// the helper that the other tests share): with them the request is served, without
/// `Mcp-Name` it is refused with 400 and -32020.
#[test]
fn each_named_method_is_served_with_its_headers_written_out_and_refused_without_its_name() {
    let server = gift_genius();
    let client = reqwest::blocking::Client::new();
    let cases = [
        (
            "tools/call",
            json!({"name": "suggest_gifts", "arguments": {"age": 9, "relationship": "son"}}),
            "suggest_gifts",
        ),
        ("resources/read", json!({"uri": "gifts://catalog"}), "gifts://catalog"),
        (
            "prompts/get",
            json!({"name": "describe_gift", "arguments": {"gift_name": "Kite", "recipient": "son"}}),
            "describe_gift",
        ),
    ];
    for (method, params, name) in cases {
        let body = modern(1, method, params, json!({}));
        let post = |name: Option<&str>| {
            let mut request = client
                .post(&server.url)
                .header("content-type", "application/json")
                .header("accept", "application/json, text/event-stream")
                .header("mcp-protocol-version", STATELESS_REVISION)
                .header("mcp-method", method);
            if let Some(name) = name {
                request = request.header("mcp-name", name);
            }
            let response = request.body(body.to_string()).send().expect("an answer");
            let status = response.status().as_u16();
            (status, serde_json::from_str::<Value>(&response.text().expect("a body")).expect("JSON"))
        };
        let (status, answer) = post(Some(name));
        assert_eq!(status, 200, "{method} with Mcp-Name {name}: {answer}");
        assert!(answer.get("result").is_some(), "{method}: {answer}");
        let (status, answer) = post(None);
        assert_eq!(
            (status, answer["error"]["code"].as_i64()),
            (400, Some(-32020)),
            "{method} without Mcp-Name: {answer}"
        );
    }
}

#[test]
fn notifications_before_the_response_switch_it_to_sse() {
    let server = manual(&["--context-items"]);
    let session = open_session(&server.url, "2025-11-25", json!({}));
    let params = json!({"name": "progress", "arguments": {"steps": 3}, "_meta": {"progressToken": "p"}});
    let headers = [("mcp-session-id", session.as_str())];
    for body in [request(1, "tools/call", params.clone()), modern(2, "tools/call", params.clone(), json!({}))] {
        let answer = post(&server.url, &body, &headers);
        assert!(answer.content_type.starts_with("text/event-stream"), "{answer:?}");
        let methods: Vec<&str> = answer.messages.iter().map(|m| m["method"].as_str().unwrap_or("response")).collect();
        assert_eq!(methods, ["notifications/progress", "notifications/progress", "notifications/progress", "response"]);
        assert_eq!(answer.last()["id"], body["id"]);
        // Handshake-era streams are resumable: a priming event first, ids naming the stream.
        let resumable = body["id"] == 1;
        assert_eq!(answer.primed, resumable, "{answer:?}");
        assert_eq!(answer.event_ids.len(), 4 + usize::from(resumable), "one event per message, each with an id");
        let mut distinct = answer.event_ids.clone();
        distinct.dedup();
        assert_eq!(distinct, answer.event_ids);
    }
    let plain =
        post(&server.url, &request(3, "tools/call", json!({"name": "echo", "arguments": {"text": "x"}})), &headers);
    assert_eq!(plain.content_type, "application/json", "nothing before the response: JSON");
}

/// Reads a POST's SSE stream as it comes (a thread per request): each event's message.
fn stream_post(url: &str, body: &Value, headers: &[(&str, &str)]) -> mpsc::Receiver<Value> {
    let client = reqwest::blocking::Client::builder().timeout(Duration::from_secs(30)).build().unwrap();
    let mut request = client
        .post(url)
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .body(body.to_string());
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    for (name, value) in stateless_headers(body) {
        request = request.header(name, value);
    }
    read_events(request)
}

/// Sends `request` on a thread of its own and reads its SSE stream as it comes: each event's
/// message (priming events carry none). The response must be a 200.
fn read_events(request: reqwest::blocking::RequestBuilder) -> mpsc::Receiver<Value> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let response = request.send().expect("a response");
        assert_eq!(response.status().as_u16(), 200);
        for message in sse_messages(response) {
            if tx.send(message).is_err() {
                return;
            }
        }
    });
    rx
}

#[test]
fn the_servers_question_travels_on_the_request_stream_and_the_answer_is_a_post() {
    let server = manual(&["--asking-items"]);
    let session = open_session(&server.url, "2025-11-25", json!({"elicitation": {}}));
    let headers = [("mcp-session-id", session.as_str())];
    let events =
        stream_post(&server.url, &request(7, "tools/call", json!({"name": "book", "arguments": {}})), &headers);
    let question = events.recv_timeout(Duration::from_secs(10)).expect("the question");
    assert_eq!(question["method"], "elicitation/create", "{question}");
    let answer = json!({"jsonrpc": "2.0", "id": question["id"], "result":
        {"action": "accept", "content": {"name": "Ada", "nights": 1, "size": "small"}}});
    let accepted = post(&server.url, &answer, &headers);
    assert_eq!((accepted.status, accepted.messages.len()), (202, 0));
    let response = events.recv_timeout(Duration::from_secs(10)).expect("the response");
    assert_eq!(response["id"], 7);
    assert_eq!(response["result"]["content"][0]["text"], "booked: Ada for 1 nights, breakfast None, Small");
}

/// What a handler does before its question happens once over HTTP, in both eras: a session's
/// handler waits for the answer POSTed to it; a 2026-07-28 one is kept for the retry, whose
/// own response stream carries the handler's progress after the answer, then its result.
#[test]
fn a_side_effect_before_a_question_happens_once_over_http_in_both_eras() {
    let server = manual(&["--asking-items"]);
    let session = open_session(&server.url, "2025-11-25", json!({"elicitation": {}}));
    let headers = [("mcp-session-id", session.as_str())];
    let call = json!({"name": "tally", "arguments": {}, "_meta": {"progressToken": "first"}});
    let events = stream_post(&server.url, &request(1, "tools/call", call), &headers);
    let question = events.recv_timeout(Duration::from_secs(10)).expect("the question");
    let answer = json!({"jsonrpc": "2.0", "id": question["id"], "result":
        {"action": "accept", "content": {"name": "Ada"}}});
    assert_eq!(post(&server.url, &answer, &headers).status, 202);
    let progress = events.recv_timeout(Duration::from_secs(10)).expect("the progress");
    assert_eq!(progress["params"]["progressToken"], "first", "{progress}");
    let response = events.recv_timeout(Duration::from_secs(10)).expect("the response");
    assert_eq!(response["result"]["content"][0]["text"], "Ada: 1 run(s) up to the question", "{response}");

    // 2026-07-28: the process's second run of `tally`, kept for its retry.
    let caps = json!({"elicitation": {}});
    let asked =
        post(&server.url, &modern(2, "tools/call", json!({"name": "tally", "arguments": {}}), caps.clone()), &[]);
    let state = asked.last()["result"]["requestState"].clone();
    assert!(state.is_string(), "{asked:?}");
    let retry = json!({"name": "tally", "arguments": {}, "requestState": state, "_meta": {"progressToken": "retry"},
        "inputResponses": {"0": {"action": "accept", "content": {"name": "Bo"}}}});
    let answered = post(&server.url, &modern(3, "tools/call", retry, caps), &[]);
    let [progress, response] = &answered.messages[..] else { panic!("progress, then the result: {answered:?}") };
    assert_eq!(progress["params"]["progressToken"], "retry", "{progress}");
    assert_eq!(response["id"], 3);
    assert_eq!(response["result"]["content"][0]["text"], "Bo: 2 run(s) up to the question", "{response}");
}

#[test]
fn closing_the_response_stream_cancels_a_2026_request() {
    let server = manual(&["--context-items"]);
    let waiting = modern(1, "tools/call", json!({"name": "wait_for_cancel", "arguments": {}}), json!({}));
    // The request on a connection of its own, closed once the tool says it waits (a client
    // timeout could close it before the tool even started).
    let mut connection = std::net::TcpStream::connect(&server.addr).expect("a connection");
    let body = waiting.to_string();
    let mut head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: {}\r\n",
        server.addr,
        body.len()
    );
    for (name, value) in stateless_headers(&waiting) {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    std::io::Write::write_all(&mut connection, format!("{head}\r\n{body}").as_bytes()).expect("the request");
    let started = Instant::now() + Duration::from_secs(5);
    while !server.log().contains("wait_for_cancel: waiting") {
        assert!(Instant::now() < started, "the tool never started: {}", server.log());
        std::thread::sleep(Duration::from_millis(5));
    }
    drop(connection);
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let seen = post(
            &server.url,
            &modern(2, "tools/call", json!({"name": "cancel_seen", "arguments": {}}), json!({})),
            &[],
        );
        if seen.last()["result"]["content"][0]["text"] == "true" {
            break;
        }
        assert!(Instant::now() < deadline, "the request was never cancelled");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// SIGTERM while a request runs: the request still gets its answer, then the server exits 0.
/// The signal is sent once the first progress notification is read, so the request is surely
/// in flight (a fixed pause raced the connection on a loaded machine).
#[test]
fn sigterm_lets_http_requests_in_flight_answer() {
    let mut server = manual(&["--context-items"]);
    let session = open_session(&server.url, "2025-11-25", json!({}));
    let params = json!({"name": "progress", "arguments": {"steps": 2, "ms": 250}, "_meta": {"progressToken": "t"}});
    let events = stream_post(&server.url, &request(1, "tools/call", params), &[("mcp-session-id", session.as_str())]);
    let first = events.recv_timeout(Duration::from_secs(10)).expect("the first progress notification");
    assert_eq!(first["method"], "notifications/progress", "{first}");
    let status = std::process::Command::new("kill").args(["-TERM", &server.pid().to_string()]).status().unwrap();
    assert!(status.success());
    let answer = std::iter::from_fn(|| events.recv_timeout(Duration::from_secs(10)).ok())
        .find(|message| message.get("id").is_some())
        .expect("the response after SIGTERM");
    assert_eq!(answer["result"]["content"][0]["text"], "2 sent", "{answer}");
    assert!(server.wait(Duration::from_secs(5)).success());
}

/// Many clients at once, each with its own calls: every answer reaches the client that asked,
/// with its own result (half of them in sessions, half stateless).
#[test]
fn many_concurrent_clients_each_get_their_own_answers() {
    const CLIENTS: i64 = 200;
    const CALLS: i64 = 50;
    let server = manual(&[]);
    let started = Instant::now();
    let threads: Vec<_> = (0..CLIENTS)
        .map(|client| {
            let url = server.url.clone();
            std::thread::spawn(move || {
                let session = (client % 2 == 0).then(|| open_session(&url, "2025-11-25", json!({})));
                for call in 0..CALLS {
                    let params = json!({"name": "add", "arguments": {"a": client, "b": call}});
                    let body = match &session {
                        Some(_) => request(call, "tools/call", params),
                        None => modern(call, "tools/call", params, json!({})),
                    };
                    let headers: Vec<(&str, &str)> = session.iter().map(|s| ("mcp-session-id", s.as_str())).collect();
                    let answer = post(&url, &body, &headers);
                    assert_eq!(answer.last()["id"], call, "{answer:?}");
                    assert_eq!(answer.last()["result"]["content"][0]["text"], (client + call).to_string());
                }
            })
        })
        .collect();
    for thread in threads {
        thread.join().expect("a client thread");
    }
    eprintln!("{} calls from {CLIENTS} clients in {:?}", CLIENTS * CALLS, started.elapsed());
}

/// Reads a session's GET stream as it comes: each event's message.
fn open_stream(url: &str, session: &str) -> mpsc::Receiver<Value> {
    let client = reqwest::blocking::Client::builder().timeout(Duration::from_secs(60)).build().unwrap();
    let request = client.get(url).header("accept", "text/event-stream").header("mcp-session-id", session);
    // Returned once the server answered the GET: the stream is attached from then on.
    let response = request.send().expect("a response");
    assert_eq!(response.status().as_u16(), 200);
    sse_messages(response)
}

/// One server, several sessions: a resource update and a list change reach every session's
/// GET stream.
#[test]
fn change_events_reach_every_session() {
    let server = manual(&["--test-items"]);
    let sessions: Vec<String> = (0..3).map(|_| open_session(&server.url, "2025-11-25", json!({}))).collect();
    let streams: Vec<mpsc::Receiver<Value>> = sessions
        .iter()
        .map(|session| {
            let subscribe = request(1, "resources/subscribe", json!({"uri": "test://static"}));
            assert_eq!(post(&server.url, &subscribe, &[("mcp-session-id", session)]).status, 200);
            open_stream(&server.url, session)
        })
        .collect();
    let headers = [("mcp-session-id", sessions[0].as_str())];
    let touch = request(2, "tools/call", json!({"name": "touch", "arguments": {"uri": "test://static"}}));
    assert_eq!(post(&server.url, &touch, &headers).last()["result"]["content"][0]["text"], "notified");
    let add = request(3, "tools/call", json!({"name": "add_item", "arguments": {"kind": "prompt", "name": "fresh"}}));
    assert_eq!(post(&server.url, &add, &headers).last()["result"]["content"][0]["text"], "added");
    for (n, stream) in streams.iter().enumerate() {
        let updated = stream.recv_timeout(Duration::from_secs(5)).unwrap_or_else(|e| panic!("session {n}: {e}"));
        assert_eq!(updated["method"], "notifications/resources/updated", "session {n}: {updated}");
        assert_eq!(updated["params"]["uri"], "test://static");
        let changed = stream.recv_timeout(Duration::from_secs(5)).unwrap_or_else(|e| panic!("session {n}: {e}"));
        assert_eq!(changed["method"], "notifications/prompts/list_changed", "session {n}: {changed}");
    }
}

/// A 2026-07-28 `subscriptions/listen` is a long-lived response stream: its acknowledgement,
/// then the changes it asked for, each tagged with its subscription id.
#[test]
fn a_listen_stream_carries_its_changes() {
    let server = manual(&["--test-items"]);
    let filter = json!({"notifications": {"toolsListChanged": true, "resourceSubscriptions": ["test://static"]}});
    let listen = modern(40, "subscriptions/listen", filter, json!({}));
    let events = stream_post(&server.url, &listen, &[]);
    let ack = events.recv_timeout(Duration::from_secs(10)).expect("the acknowledgement");
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged", "{ack}");
    assert_eq!(ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], 40);
    let add = modern(
        41,
        "tools/call",
        json!({"name": "add_item", "arguments": {"kind": "tool", "name": "fresh"}}),
        json!({}),
    );
    assert_eq!(post(&server.url, &add, &[]).last()["result"]["content"][0]["text"], "added");
    let touch = modern(42, "tools/call", json!({"name": "touch", "arguments": {"uri": "test://static"}}), json!({}));
    assert_eq!(post(&server.url, &touch, &[]).last()["result"]["content"][0]["text"], "notified");
    let changed = events.recv_timeout(Duration::from_secs(5)).expect("the list change");
    assert_eq!(changed["method"], "notifications/tools/list_changed", "{changed}");
    assert_eq!(changed["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], 40);
    let updated = events.recv_timeout(Duration::from_secs(5)).expect("the resource update");
    assert_eq!(
        (updated["method"].clone(), updated["params"]["uri"].clone()),
        (json!("notifications/resources/updated"), json!("test://static"))
    );
}

/// With an authentication hook: no valid token, a 401 whose challenge points at the
/// protected-resource metadata (served); a valid one, handlers see who asked and the request's
/// headers; sessions and sealed request states belong to the user who made them.
#[test]
fn the_authentication_hook_guards_sessions_and_reaches_handlers() {
    let server = manual(&["--context-items", "--asking-items", "--bearer-auth"]);
    let whoami = modern(1, "tools/call", json!({"name": "whoami", "arguments": {}}), json!({}));
    let refused = post(&server.url, &whoami, &[("authorization", "Bearer wrong")]);
    assert_eq!(refused.status, 401, "{refused:?}");
    let client = reqwest::blocking::Client::new();
    let response =
        client.post(&server.url).header("content-type", "application/json").body(whoami.to_string()).send().unwrap();
    let challenge = response.headers()["www-authenticate"].to_str().unwrap().to_owned();
    assert!(
        challenge.starts_with("Bearer ") && challenge.contains("/.well-known/oauth-protected-resource/mcp"),
        "{challenge}"
    );
    let metadata_url = format!("http://{}/.well-known/oauth-protected-resource/mcp", server.addr);
    let metadata: Value = serde_json::from_str(&client.get(&metadata_url).send().unwrap().text().unwrap()).unwrap();
    assert_eq!(metadata["authorization_servers"], json!(["https://auth.example.com"]));

    let alice = [("authorization", "Bearer user-alice"), ("x-trace", "abc")];
    let answer = post(&server.url, &whoami, &alice);
    assert_eq!(answer.last()["result"]["content"][0]["text"], "alice; x-trace=abc");

    let bob = [("authorization", "Bearer user-bob")];
    let session = post(&server.url, &initialize("2025-11-25", json!({})), &alice[..1]).session.expect("a session");
    let ping = request(2, "ping", json!({}));
    let alices = [alice[0], ("mcp-session-id", session.as_str())];
    assert_eq!(post(&server.url, &ping, &alices).status, 200);
    let bobs = [bob[0], ("mcp-session-id", session.as_str())];
    assert_eq!(post(&server.url, &ping, &bobs).status, 404, "alice's session does not exist for bob");

    let caps = json!({"elicitation": {}});
    let asked = post(
        &server.url,
        &modern(3, "tools/call", json!({"name": "book", "arguments": {}}), caps.clone()),
        &alice[..1],
    );
    let state = asked.last()["result"]["requestState"].clone();
    let retry =
        json!({"name": "book", "arguments": {}, "requestState": state, "inputResponses": {"0": {"action": "decline"}}});
    let stolen = post(&server.url, &modern(4, "tools/call", retry.clone(), caps.clone()), &bob);
    assert_eq!(stolen.last()["error"]["code"], -32602, "{stolen:?}");
    assert!(stolen.last()["error"]["message"].as_str().unwrap().contains("another user"));
    let own = post(&server.url, &modern(5, "tools/call", retry, caps), &alice[..1]);
    assert_eq!(own.last()["result"]["content"][0]["text"], "declined");
}

/// The server-wide limits answer 503 with `Retry-After` rather than exhausting memory, and an
/// idle session ends.
#[test]
fn limits_answer_503_and_idle_sessions_end() {
    let server = manual(&["--max-sessions", "2", "--max-requests", "1", "--session-idle-ms", "400"]);
    let first = open_session(&server.url, "2025-11-25", json!({}));
    open_session(&server.url, "2025-11-25", json!({}));
    let third = post(&server.url, &initialize("2025-11-25", json!({})), &[]);
    assert_eq!(third.status, 503, "{third:?}");

    // While a slow call holds the one slot, a request gets 503. The call is sent, then a
    // request is asked until it is refused. The call is sent again (five times at most) when
    // it was refused itself (one of those requests held the slot when it arrived) or when, on
    // a starved machine, no request reached the server while it ran.
    let client = reqwest::blocking::Client::new();
    let list = modern(2, "tools/list", json!({}), json!({}));
    let mut tries = 0;
    let (busy, slow) = 'held: loop {
        tries += 1;
        let url = server.url.clone();
        let slow = std::thread::spawn(move || {
            post(&url, &modern(1, "tools/call", json!({"name": "sleep", "arguments": {"ms": 1000}}), json!({})), &[])
        });
        while !slow.is_finished() {
            let answer = client
                .post(&server.url)
                .header("content-type", "application/json")
                .header("mcp-method", "tools/list")
                .body(list.to_string())
                .send()
                .unwrap();
            if answer.status().as_u16() == 503 {
                break 'held (answer, slow);
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        let missed = slow.join().unwrap();
        assert!(tries < 5, "no request was refused while the slow call held the slot: {missed:?}");
    };
    assert_eq!(busy.headers()["retry-after"], "1");
    assert_eq!(slow.join().unwrap().last()["result"]["content"][0]["text"], "slept 1000 ms");

    // Once both sessions went unused for 400 ms they end and their places are free: a new
    // `initialize` is asked until it succeeds (a refused one touches no session), and the
    // first session is gone by then. (Only `initialize` is asked: on a loaded machine the next
    // request of a session this short-lived could come after it, too, went idle.)
    let deadline = Instant::now() + Duration::from_secs(5);
    let fourth = loop {
        let answer = post(&server.url, &initialize("2025-11-25", json!({})), &[]);
        if answer.status == 200 {
            break answer;
        }
        assert_eq!(answer.status, 503, "{answer:?}");
        assert!(Instant::now() < deadline, "the idle sessions never ended");
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(fourth.session.is_some(), "{fourth:?}");
    assert_eq!(post(&server.url, &request(3, "ping", json!({})), &[("mcp-session-id", &first)]).status, 404);
}

/// With CORS enabled for an origin, its preflight and its requests get the CORS headers.
#[test]
fn cors_answers_the_allowed_origin() {
    let server = manual(&["--cors", "https://app.example"]);
    let client = reqwest::blocking::Client::new();
    let preflight = client
        .request(reqwest::Method::OPTIONS, &server.url)
        .header("origin", "https://app.example")
        .header("access-control-request-method", "POST")
        .send()
        .unwrap();
    assert_eq!(preflight.status().as_u16(), 204);
    assert_eq!(preflight.headers()["access-control-allow-origin"], "https://app.example");
    assert!(preflight.headers()["access-control-allow-headers"].to_str().unwrap().contains("mcp-session-id"));
    let answer = client
        .post(&server.url)
        .header("origin", "https://app.example")
        .header("content-type", "application/json")
        .body(initialize("2025-11-25", json!({})).to_string())
        .send()
        .unwrap();
    assert_eq!(answer.status().as_u16(), 200);
    assert_eq!(answer.headers()["access-control-allow-origin"], "https://app.example");
    assert!(answer.headers()["access-control-expose-headers"].to_str().unwrap().contains("mcp-session-id"));
    let other = post(&server.url, &initialize("2025-11-25", json!({})), &[("origin", "https://other.example")]);
    assert_eq!(other.status, 403);
}

/// Arguments mirrored in `Mcp-Param-*` headers (2026-07-28): declared in the tool's schema,
/// required, and checked against the body (base64-encoded values decoded).
#[test]
fn mirrored_arguments_must_match_their_headers() {
    let server = manual(&[]);
    let listed = post(&server.url, &modern(1, "tools/list", json!({}), json!({})), &[]);
    let tools = listed.last()["result"]["tools"].as_array().unwrap().clone();
    let regional = tools.iter().find(|t| t["name"] == "regional").expect("the tool");
    assert_eq!(regional["inputSchema"]["properties"]["region"]["x-mcp-header"], "Region");
    let call =
        modern(2, "tools/call", json!({"name": "regional", "arguments": {"region": "eu", "count": 3}}), json!({}));
    let cases: [(&[(&str, &str)], u16); 5] = [
        (&[("mcp-param-region", "eu"), ("mcp-param-count", "3")], 200),
        (&[("Mcp-Param-Region", "=?base64?ZXU=?="), ("mcp-param-count", "3")], 200),
        (&[("mcp-param-region", "eu")], 400),
        (&[("mcp-param-region", "us"), ("mcp-param-count", "3")], 400),
        (&[("mcp-param-region", "eu"), ("mcp-param-count", "03")], 400),
    ];
    for (headers, status) in cases {
        let answer = post(&server.url, &call, headers);
        assert_eq!(answer.status, status, "{headers:?}: {answer:?}");
        if status == 400 {
            assert_eq!(answer.last()["error"]["code"], -32020, "{answer:?}");
        } else {
            assert_eq!(answer.last()["result"]["content"][0]["text"], "region=eu count=3");
        }
    }
}

/// 2026-07-28 listen streams of all clients share one limit of their own, apart from the
/// request limit.
#[test]
fn listen_streams_have_a_limit_of_their_own() {
    let server = manual(&["--test-items", "--max-listen-streams", "2", "--max-requests", "1"]);
    let filter = json!({"notifications": {"toolsListChanged": true}});
    let open: Vec<_> = (0..2)
        .map(|n| {
            let events =
                stream_post(&server.url, &modern(50 + n, "subscriptions/listen", filter.clone(), json!({})), &[]);
            let ack = events.recv_timeout(Duration::from_secs(10)).expect("acknowledged");
            assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
            events
        })
        .collect();
    let third = post(&server.url, &modern(60, "subscriptions/listen", filter, json!({})), &[]);
    assert_eq!(third.last()["error"]["code"], -32600, "{third:?}");
    // The two open streams hold none of the single request slot.
    let listed = post(&server.url, &modern(61, "tools/list", json!({}), json!({})), &[]);
    assert_eq!(listed.status, 200, "{listed:?}");
    drop(open);
}

/// A handshake-era request's SSE stream is resumable: the handler closes it mid-call
/// (`Context::close_sse_stream`), the client reconnects with `Last-Event-ID`, and gets what it
/// missed, then the rest, up to the response; nothing twice.
#[test]
fn a_closed_stream_resumes_with_last_event_id() {
    let server = manual(&["--context-items"]);
    let session = open_session(&server.url, "2025-11-25", json!({}));
    let headers = [("mcp-session-id", session.as_str())];
    let call = request(7, "tools/call", json!({"name": "reconnect", "arguments": {}, "_meta": {"progressToken": "r"}}));
    // The first connection ends when the handler closes it, after the first progress.
    let first = post(&server.url, &call, &headers);
    assert!(first.primed, "{first:?}");
    assert!(first.messages.iter().all(|m| m["method"] == "notifications/progress"), "{first:?}");
    let last = first.event_ids.last().expect("an event id").clone();
    let resumed =
        send(&server.url, "GET", None, &[("mcp-session-id", session.as_str()), ("last-event-id", last.as_str())]);
    assert_eq!(resumed.status, 200);
    let all: Vec<&Value> = first.messages.iter().chain(&resumed.messages).collect();
    let progress: Vec<f64> = all.iter().filter_map(|m| m["params"]["progress"].as_f64()).collect();
    assert_eq!(progress, [1.0, 2.0, 3.0], "every progress once, in order: {all:?}");
    let response = all.last().expect("the response");
    assert_eq!(response["id"], 7);
    assert_eq!(response["result"]["content"][0]["text"], "reconnected");
    // Resuming again from the same id replays the same events: they are kept.
    let again =
        send(&server.url, "GET", None, &[("mcp-session-id", session.as_str()), ("last-event-id", last.as_str())]);
    assert_eq!(again.messages, resumed.messages);
    let unknown = send(&server.url, "GET", None, &[("mcp-session-id", session.as_str()), ("last-event-id", "nope_1")]);
    // Never 404: to a client that says its session is gone.
    assert_eq!(unknown.status, 400);
}

#[test]
fn the_standalone_stream_is_primed() {
    let server = manual(&["--test-items"]);
    let session = open_session(&server.url, "2025-11-25", json!({}));
    let client = reqwest::blocking::Client::builder().timeout(Duration::from_secs(5)).build().unwrap();
    let response = client
        .get(&server.url)
        .header("accept", "text/event-stream")
        .header("mcp-session-id", session.as_str())
        .send()
        .unwrap();
    let mut first = String::new();
    let mut reader = BufReader::new(response);
    while !first.ends_with("\n\n") {
        reader.read_line(&mut first).unwrap();
    }
    assert!(first.starts_with("id: get-") && first.contains("retry: ") && first.contains("data: \n"), "{first:?}");
}

/// A plain `fn` that blocks its thread holds up nothing over HTTP either (another worker is
/// woken for the connections): a session's `ping`, and a 2026-07-28 `server/discover`, sent
/// while it blocks, are answered at once.
#[test]
fn a_request_sent_while_a_plain_fn_blocks_its_thread_is_answered_at_once() {
    let server = HttpServer::start_with_env(&example_binary("blocking"), &[], &[("RUST_LOG", "info")]);
    let url = &server.url;
    let session = open_session(url, LATEST_HANDSHAKE_REVISION, json!({}));
    let in_session = [("mcp-session-id", session.as_str()), ("mcp-protocol-version", LATEST_HANDSHAKE_REVISION)];
    let lookup = json!({"name": "lookup", "arguments": {"ms": 3000}});
    let quick = [
        (request(1, "tools/call", lookup.clone()), request(2, "ping", json!({})), &in_session[..]),
        (modern(3, "tools/call", lookup, json!({})), modern(4, "server/discover", json!({}), json!({})), &[][..]),
    ];
    std::thread::scope(|scope| {
        for (n, (call, quick, headers)) in quick.iter().enumerate() {
            let calling = scope.spawn(move || post(url, call, headers));
            // Sent once the tool says it blocks (its log line, once per call so far).
            let deadline = Instant::now() + Duration::from_secs(5);
            while server.log().matches("looking up for 3000 ms").count() <= n {
                assert!(Instant::now() < deadline, "the tool never started: {}", server.log());
                std::thread::sleep(Duration::from_millis(5));
            }
            let sent = Instant::now();
            let answer = post(url, quick, headers);
            let waited = sent.elapsed();
            assert!(answer.last().get("result").is_some(), "{answer:?}");
            assert!(waited < Duration::from_millis(50), "{}: answered after {waited:?}", quick["method"]);
            let done = calling.join().expect("the calling thread");
            assert_eq!(done.last()["result"]["content"][0]["text"], "looked up in 3000 ms", "{done:?}");
        }
    });
}

/// 2026-07-28 requests over HTTP are served in parallel: eight calls of `gauge` (each three
/// seconds long, counting how many of its calls run at once) from eight clients all ran
/// together.
#[test]
fn stateless_requests_over_http_are_served_in_parallel() {
    let server = manual(&[]);
    let calls: Vec<_> = (0..8)
        .map(|id| {
            let url = server.url.clone();
            std::thread::spawn(move || {
                let call = modern(id, "tools/call", json!({"name": "gauge", "arguments": {"ms": 3000}}), json!({}));
                let answer = post(&url, &call, &[]);
                answer.last()["result"]["content"][0]["text"].as_str().unwrap_or_default().to_owned()
            })
        })
        .collect();
    let texts: Vec<String> = calls.into_iter().map(|call| call.join().expect("a client")).collect();
    assert!(texts.iter().any(|t| t == "at most 8 at once"), "{texts:?}");
}
