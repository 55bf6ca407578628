//! Handlers that ask the client, over stdio: in the handshake revisions the server sends
//! `elicitation/create`, `sampling/createMessage` and `roots/list` and matches the answers by
//! id, and every wait ends (answer, undeclared capability, client error, unreadable answer,
//! time limit, cancellation, the connection ending) without holding an in-flight slot; in
//! 2026-07-28 the same handlers answer with input-required results and a sealed
//! `requestState`.

use std::time::{Duration, Instant};

use mcp_tests::wire::{
    CLIENT_CAPABILITIES_KEY, CLIENT_INFO_KEY, HANDSHAKE_REVISIONS, PROTOCOL_VERSION_KEY, STATELESS_REVISION,
    StdioServer, error_code, for_each_revision, manual, only_text, result,
};
use serde_json::{Value, json};

/// `manual --test-tools --asking-items <args>`, recording under `revision` as `test`, with
/// the handshake done declaring `capabilities` (nothing for 2026-07-28).
fn connect(revision: &str, test: &str, capabilities: Value, args: &[&str]) -> StdioServer {
    let mut server = manual(&["--asking-items"]).args(args.iter().copied()).record(revision, test).spawn();
    if revision != STATELESS_REVISION {
        server.handshake_with(revision, capabilities);
    }
    server
}

/// Calls `tool`, answering each request the server sends with what `answer` makes of it;
/// the server's requests and the call's response.
fn call_answering(
    server: &mut StdioServer,
    tool: &str,
    mut answer: impl FnMut(&Value) -> Value,
) -> (Vec<Value>, Value) {
    let id = server.send_request("tools/call", Some(json!({"name": tool, "arguments": {}})));
    let mut requests = Vec::new();
    loop {
        let message = server.recv();
        if message["id"] == json!(id) && message.get("method").is_none() {
            return (requests, message);
        }
        assert!(message.get("method").is_some() && message.get("id").is_some(), "a request: {message}");
        let mut response = json!({"jsonrpc": "2.0", "id": message["id"]});
        let reply = answer(&message);
        if reply.get("code").is_some() {
            response["error"] = reply;
        } else {
            response["result"] = reply;
        }
        server.send(&response);
        requests.push(message);
    }
}

fn accept_booking(_: &Value) -> Value {
    json!({"action": "accept", "content": {"name": "Ada", "nights": 2, "breakfast": true, "size": "large"}})
}

fn end(server: &mut StdioServer) {
    server.close_stdin();
    let status = server.wait();
    assert!(status.success(), "exit status {status}");
}

// ---------------------------------------------------------------------------------------------
// Handshake revisions: requests on the connection
// ---------------------------------------------------------------------------------------------

#[test]
fn an_elicitation_is_a_request_the_client_answers() {
    for_each_revision(&["2025-06-18", "2025-11-25"], |rev| {
        let caps = json!({"elicitation": {}});
        let mut server = connect(rev, "an_elicitation_is_a_request_the_client_answers", caps, &[]);
        let (requests, response) = call_answering(&mut server, "book", accept_booking);
        assert_eq!(only_text(result(&response)), "booked: Ada for 2 nights, breakfast Some(true), Large");
        let [request] = &requests[..] else { panic!("one question: {requests:?}") };
        assert_eq!(request["method"], "elicitation/create");
        let params = &request["params"];
        assert_eq!(params["message"], "Book a room");
        assert_eq!(params.get("mode").is_some(), rev == "2025-11-25", "`mode` from 2025-11-25: {params}");
        let schema = &params["requestedSchema"];
        assert_eq!(schema["type"], "object");
        assert_eq!(schema["required"], json!(["name", "nights", "size"]));
        assert_eq!(
            schema["properties"]["nights"],
            json!({"type": "integer", "minimum": 0, "description": "How many nights"})
        );
        assert_eq!(schema["properties"]["size"]["oneOf"][1], json!({"const": "large", "title": "A large room"}));
        for (action, text) in [("decline", "declined"), ("cancel", "cancelled")] {
            let (_, response) = call_answering(&mut server, "book", |_| json!({"action": action}));
            assert_eq!(only_text(result(&response)), text);
        }
        end(&mut server);
    });
}

#[test]
fn sampling_and_roots_are_requests_the_client_answers() {
    for_each_revision(&HANDSHAKE_REVISIONS, |rev| {
        let caps = json!({"sampling": {}, "roots": {"listChanged": true}});
        let mut server = connect(rev, "sampling_and_roots_are_requests_the_client_answers", caps, &[]);
        let (requests, response) = call_answering(
            &mut server,
            "ask_model",
            |_| json!({"role": "assistant", "content": {"type": "text", "text": "hello"}, "model": "m-1", "stopReason": "endTurn"}),
        );
        assert_eq!(only_text(result(&response)), "m-1 said: hello");
        let params = &requests[0]["params"];
        assert_eq!(
            (requests[0]["method"].clone(), params["maxTokens"].clone()),
            (json!("sampling/createMessage"), json!(50))
        );
        assert_eq!(params["messages"][0], json!({"role": "user", "content": {"type": "text", "text": "Say hello."}}));
        assert_eq!(params["systemPrompt"], "Be brief.");
        let (requests, response) = call_answering(
            &mut server,
            "list_roots",
            |_| json!({"roots": [{"uri": "file:///work", "name": "work"}, {"uri": "file:///tmp"}]}),
        );
        assert_eq!(requests[0]["method"], "roots/list");
        assert_eq!(only_text(result(&response)), "roots: file:///work (work), file:///tmp (-)");
        end(&mut server);
    });
}

#[test]
fn a_question_the_client_did_not_declare_fails_at_once() {
    for_each_revision(&HANDSHAKE_REVISIONS, |rev| {
        let mut server = connect(rev, "a_question_the_client_did_not_declare_fails_at_once", json!({}), &[]);
        for (tool, capability) in [("book", "elicitation"), ("ask_model", "sampling"), ("list_roots", "roots")] {
            let (requests, response) = call_answering(&mut server, tool, |_| json!({}));
            assert!(requests.is_empty(), "nothing asked: {requests:?}");
            assert_eq!(result(&response)["isError"], true);
            let expected = format!("the client did not declare the `{capability}` capability this needs");
            assert_eq!(only_text(result(&response)), expected);
        }
        end(&mut server);
    });
}

#[test]
fn client_errors_and_unreadable_answers_end_the_wait() {
    for_each_revision(&["2025-06-18", "2025-11-25"], |rev| {
        let caps = json!({"elicitation": {}});
        let mut server = connect(rev, "client_errors_and_unreadable_answers_end_the_wait", caps, &[]);
        let (_, response) = call_answering(&mut server, "book", |_| json!({"code": -1, "message": "the user left"}));
        assert_eq!(only_text(result(&response)), "the client answered with an error: the user left (-1)");
        let (_, response) =
            call_answering(&mut server, "book", |_| json!({"action": "accept", "content": {"name": 7}}));
        assert!(only_text(result(&response)).starts_with("the client's answer could not be read"), "{response}");
        end(&mut server);
    });
}

#[test]
fn an_unanswered_question_times_out() {
    let rev = "2025-11-25";
    let caps = json!({"elicitation": {}});
    let mut server = connect(rev, "an_unanswered_question_times_out", caps, &["--client-request-timeout-ms", "300"]);
    let id = server.send_request("tools/call", Some(json!({"name": "book", "arguments": {}})));
    let question = server.recv();
    assert_eq!(question["method"], "elicitation/create");
    let response = server.recv();
    assert_eq!(response["id"], id);
    assert_eq!(only_text(result(&response)), "the client did not answer within 300 ms");
    // A late answer to the forgotten question is ignored.
    server.send(&json!({"jsonrpc": "2.0", "id": question["id"], "result": {"action": "cancel"}}));
    assert_eq!(result(&server.request("ping", None)), &json!({}));
    end(&mut server);
}

#[test]
fn a_cancelled_call_stops_waiting_and_a_late_answer_is_ignored() {
    for_each_revision(&["2025-06-18", "2025-11-25"], |rev| {
        let test = "a_cancelled_call_stops_waiting_and_a_late_answer_is_ignored";
        let mut server = connect(rev, test, json!({"elicitation": {}}), &[]);
        let id = server.send_request("tools/call", Some(json!({"name": "book", "arguments": {}})));
        let question = server.recv();
        server.notify("notifications/cancelled", Some(json!({"requestId": id})));
        server.send(&json!({"jsonrpc": "2.0", "id": question["id"], "result": {"action": "decline"}}));
        let ping = server.request("ping", None);
        assert_eq!(result(&ping), &json!({}));
        server.assert_silent(Duration::from_millis(300));
        end(&mut server);
    });
}

#[test]
fn the_connection_ending_ends_the_wait() {
    let rev = "2025-11-25";
    let mut server = connect(rev, "the_connection_ending_ends_the_wait", json!({"elicitation": {}}), &[]);
    server.send_request("tools/call", Some(json!({"name": "book", "arguments": {}})));
    assert_eq!(server.recv()["method"], "elicitation/create");
    let closed = Instant::now();
    server.close_stdin();
    let answer = server.recv();
    assert_eq!(only_text(result(&answer)), "the connection ended before the client answered");
    assert!(server.wait().success());
    assert!(closed.elapsed() < Duration::from_secs(2), "{:?}", closed.elapsed());
}

#[test]
fn a_handler_waiting_for_its_client_holds_no_slot() {
    for_each_revision(&["2025-06-18", "2025-11-25"], |rev| {
        let test = "a_handler_waiting_for_its_client_holds_no_slot";
        let mut server = connect(rev, test, json!({"elicitation": {}}), &["--max-in-flight", "1"]);
        let book = server.send_request("tools/call", Some(json!({"name": "book", "arguments": {}})));
        let question = server.recv();
        let echo = server.request("tools/call", Some(json!({"name": "echo", "arguments": {"text": "meanwhile"}})));
        assert_eq!(only_text(result(&echo)), "meanwhile", "answered while `book` waits, with one slot");
        server.send(&json!({"jsonrpc": "2.0", "id": question["id"], "result": accept_booking(&question)}));
        let response = server.recv();
        assert_eq!(response["id"], book);
        assert!(only_text(result(&response)).starts_with("booked: Ada"));
        end(&mut server);
    });
}

#[test]
fn a_url_elicitation_needs_the_url_mode() {
    let rev = "2025-11-25";
    let mut server = connect(rev, "a_url_elicitation_needs_the_url_mode", json!({"elicitation": {"url": {}}}), &[]);
    let (requests, response) = call_answering(&mut server, "visit", |_| json!({"action": "accept"}));
    assert_eq!(only_text(result(&response)), "visited");
    let params = &requests[0]["params"];
    assert_eq!((params["mode"].clone(), params["url"].clone()), (json!("url"), json!("https://example.com/sign-in")));
    assert!(params["elicitationId"].is_string(), "{params}");
    // Only the URL mode was declared: no forms.
    let (requests, response) = call_answering(&mut server, "book", |_| json!({}));
    assert!(requests.is_empty());
    assert!(only_text(result(&response)).contains("`elicitation`"), "{response}");
    end(&mut server);
}

// ---------------------------------------------------------------------------------------------
// 2026-07-28: input-required results
// ---------------------------------------------------------------------------------------------

/// A 2026-07-28 request's params: `params` plus `_meta` declaring `capabilities`.
fn modern(mut params: Value, capabilities: Value) -> Value {
    params["_meta"] = json!({
        PROTOCOL_VERSION_KEY: STATELESS_REVISION,
        CLIENT_CAPABILITIES_KEY: capabilities,
        CLIENT_INFO_KEY: {"name": "asking-tests", "version": "0"},
    });
    params
}

/// Sends `method` with `params` (2026-07-28) and returns the response.
fn modern_request(server: &mut StdioServer, method: &str, params: Value, capabilities: Value) -> Value {
    server.request(method, Some(modern(params, capabilities)))
}

/// Calls `tool` (2026-07-28), retrying with `answers` (and the state) when asked.
fn call_tool(server: &mut StdioServer, tool: &str, retry: Option<(&Value, Value)>, caps: Value) -> Value {
    let mut params = json!({"name": tool, "arguments": {}});
    if let Some((state, answers)) = retry {
        params["requestState"] = state.clone();
        params["inputResponses"] = answers;
    }
    modern_request(server, "tools/call", params, caps)
}

#[test]
fn an_elicitation_becomes_an_input_required_result_and_a_retry() {
    let rev = STATELESS_REVISION;
    let caps = json!({"elicitation": {}});
    let mut server = connect(rev, "an_elicitation_becomes_an_input_required_result_and_a_retry", json!({}), &[]);
    let first = call_tool(&mut server, "book", None, caps.clone());
    let asked = result(&first);
    assert_eq!(asked["resultType"], "input_required", "{first}");
    let request = &asked["inputRequests"]["0"];
    assert_eq!(request["method"], "elicitation/create");
    assert_eq!(request["params"]["mode"], "form");
    assert_eq!(request["params"]["requestedSchema"]["properties"]["name"]["type"], "string");
    let state = &asked["requestState"];
    assert!(state.as_str().is_some_and(|s| s.contains('.')), "{state}");
    let done = call_tool(&mut server, "book", Some((state, json!({"0": accept_booking(request)}))), caps.clone());
    assert_eq!(result(&done)["resultType"], "complete");
    assert_eq!(only_text(result(&done)), "booked: Ada for 2 nights, breakfast Some(true), Large");
    // No answer in the retry: asked again.
    let again = call_tool(&mut server, "book", Some((state, json!({}))), caps);
    assert_eq!(result(&again)["resultType"], "input_required");
    assert!(result(&again)["inputRequests"].get("0").is_some());
    end(&mut server);
}

/// What a handler does before its question happens once, in every era: a handshake-era
/// handler waits on the connection for the answer; a 2026-07-28 one is kept for the client's
/// retry, which it then serves (its progress after the answer goes with the retry's token).
/// With no room to keep it (`--kept-handlers 0`), the retry runs it again from the start.
#[test]
fn a_side_effect_before_a_question_happens_once_in_every_era() {
    let name = "a_side_effect_before_a_question_happens_once_in_every_era";
    let ada = |_: &Value| json!({"action": "accept", "content": {"name": "Ada"}});
    for_each_revision(&["2025-06-18", "2025-11-25"], |rev| {
        let mut server = connect(rev, name, json!({"elicitation": {}}), &[]);
        let (requests, response) = call_answering(&mut server, "tally", ada);
        assert_eq!(requests.len(), 1, "{requests:?}");
        assert_eq!(only_text(result(&response)), "Ada: 1 run(s) up to the question");
        end(&mut server);
    });
    let caps = json!({"elicitation": {}});
    for (args, runs) in [(&[][..], 1), (&["--kept-handlers", "0"][..], 2)] {
        let mut server = connect(STATELESS_REVISION, name, json!({}), args);
        let first = call_tool(&mut server, "tally", None, caps.clone());
        assert_eq!(result(&first)["resultType"], "input_required", "{first}");
        let state = result(&first)["requestState"].clone();
        let retry = json!({"name": "tally", "arguments": {}, "requestState": state,
            "inputResponses": {"0": ada(&Value::Null)}});
        let mut params = modern(retry, caps.clone());
        params["_meta"]["progressToken"] = json!("retry");
        let id = server.send_request("tools/call", Some(params));
        let progress = server.recv();
        assert_eq!(progress["method"], "notifications/progress", "{args:?}: {progress}");
        assert_eq!(progress["params"]["progressToken"], "retry", "{args:?}: {progress}");
        let done = server.recv();
        assert_eq!(done["id"], json!(id));
        assert_eq!(only_text(result(&done)), format!("Ada: {runs} run(s) up to the question"), "{args:?}");
        end(&mut server);
    }
}

#[test]
fn two_questions_take_two_rounds() {
    let rev = STATELESS_REVISION;
    let caps = json!({"elicitation": {}});
    let mut server = connect(rev, "two_questions_take_two_rounds", json!({}), &[]);
    let first = call_tool(&mut server, "two_names", None, caps.clone());
    let state = result(&first)["requestState"].clone();
    assert_eq!(result(&first)["inputRequests"]["0"]["params"]["message"], "First name?");
    let ada = json!({"0": {"action": "accept", "content": {"name": "Ada"}}});
    let second = call_tool(&mut server, "two_names", Some((&state, ada)), caps.clone());
    let asked = result(&second);
    assert_eq!(asked["resultType"], "input_required");
    assert_eq!(asked["inputRequests"]["1"]["params"]["message"], "Second name?");
    let grace = json!({"1": {"action": "accept", "content": {"name": "Grace"}}});
    let done = call_tool(&mut server, "two_names", Some((&asked["requestState"], grace)), caps);
    assert_eq!(only_text(result(&done)), "Ada and Grace", "the state carried the first answer");
    end(&mut server);
}

#[test]
fn altered_foreign_and_expired_states_are_invalid_params() {
    let rev = STATELESS_REVISION;
    let caps = json!({"elicitation": {}});
    let test = "altered_foreign_and_expired_states_are_invalid_params";
    let mut server = connect(rev, test, json!({}), &["--request-state-ttl-secs", "1"]);
    let first = call_tool(&mut server, "book", None, caps.clone());
    let state = result(&first)["requestState"].as_str().unwrap().to_owned();
    let mut altered = state.clone().into_bytes();
    altered[3] = if altered[3] == b'A' { b'B' } else { b'A' };
    let altered = json!(String::from_utf8(altered).unwrap());
    let answered = json!({"0": {"action": "decline"}});
    let response = call_tool(&mut server, "book", Some((&altered, answered.clone())), caps.clone());
    assert_eq!(error_code(&response), -32602, "{response}");
    let response = call_tool(&mut server, "two_names", Some((&json!(state), answered.clone())), caps.clone());
    assert_eq!(error_code(&response), -32602, "another tool's state: {response}");
    assert!(response["error"]["message"].as_str().unwrap().contains("another request"), "{response}");
    std::thread::sleep(Duration::from_millis(2100));
    let response = call_tool(&mut server, "book", Some((&json!(state), answered)), caps);
    assert_eq!(error_code(&response), -32602, "{response}");
    assert!(response["error"]["message"].as_str().unwrap().contains("expired"), "{response}");
    end(&mut server);
}

#[test]
fn a_question_the_client_did_not_declare_is_32021() {
    let rev = STATELESS_REVISION;
    let mut server = connect(rev, "a_question_the_client_did_not_declare_is_32021", json!({}), &[]);
    for (tool, needs) in [
        ("book", json!({"elicitation": {}})),
        ("ask_model", json!({"sampling": {}})),
        ("list_roots", json!({"roots": {}})),
        ("visit", json!({"elicitation": {"url": {}}})),
    ] {
        let caps = if tool == "visit" { json!({"elicitation": {}}) } else { json!({}) };
        let response = call_tool(&mut server, tool, None, caps);
        assert_eq!(error_code(&response), -32021, "{response}");
        assert_eq!(response["error"]["data"]["requiredCapabilities"], needs, "{response}");
    }
    end(&mut server);
}

#[test]
fn roots_sampling_and_prompts_ask_through_input_required_results() {
    let rev = STATELESS_REVISION;
    let test = "roots_sampling_and_prompts_ask_through_input_required_results";
    let mut server = connect(rev, test, json!({}), &[]);
    let caps = json!({"roots": {}, "sampling": {}, "elicitation": {}});
    let first = call_tool(&mut server, "list_roots", None, caps.clone());
    assert_eq!(result(&first)["inputRequests"]["0"]["method"], "roots/list");
    let roots = json!({"0": {"roots": [{"uri": "file:///home", "name": "home"}]}});
    let done = call_tool(&mut server, "list_roots", Some((&result(&first)["requestState"], roots)), caps.clone());
    assert_eq!(only_text(result(&done)), "roots: file:///home (home)");
    let first = call_tool(&mut server, "ask_model", None, caps.clone());
    assert_eq!(result(&first)["inputRequests"]["0"]["params"]["maxTokens"], 50);
    let said = json!({"0": {"role": "assistant", "content": {"type": "text", "text": "hi"}, "model": "m-2"}});
    let done = call_tool(&mut server, "ask_model", Some((&result(&first)["requestState"], said)), caps.clone());
    assert_eq!(only_text(result(&done)), "m-2 said: hi");
    let params = json!({"name": "asking_prompt"});
    let first = modern_request(&mut server, "prompts/get", params.clone(), caps.clone());
    assert_eq!(result(&first)["resultType"], "input_required", "{first}");
    let mut retry = params;
    retry["requestState"] = result(&first)["requestState"].clone();
    retry["inputResponses"] = json!({"0": {"action": "accept", "content": {"name": "Alan"}}});
    let done = modern_request(&mut server, "prompts/get", retry, caps);
    assert_eq!(result(&done)["messages"][0]["content"]["text"], "Greet Alan warmly.");
    end(&mut server);
}
