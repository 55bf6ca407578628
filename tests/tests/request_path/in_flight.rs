//! The in-flight bound (`--max-in-flight`, 64 by default) and the look-ahead of sixteen
//! requests read while every slot is busy.

use std::time::Duration;

use mcp_tests::wire::{ALL_REVISIONS, for_each_revision, only_text, result};
use serde_json::{Value, json};

use crate::common::{connect, ids, send_call, send_quick};

#[test]
fn a_quick_request_is_answered_first_while_every_slot_is_busy() {
    for_each_revision(&ALL_REVISIONS, |rev| {
        let mut server =
            connect(rev, "a_quick_request_is_answered_first_while_every_slot_is_busy", &["--max-in-flight", "2"]);
        for _ in 0..3 {
            send_call(&mut server, rev, "sleep", json!({"ms": 300}));
        }
        let quick = send_quick(&mut server, rev);
        let order = ids(&mut server, 4);
        assert_eq!(order[0], quick, "answered before any sleep: {order:?}");
        server.finish();
    });
}

#[test]
fn the_in_flight_bound_holds_by_count() {
    for_each_revision(&ALL_REVISIONS, |rev| {
        let mut server = connect(rev, "the_in_flight_bound_holds_by_count", &["--max-in-flight", "3"]);
        let sent: Vec<i64> = (0..12).map(|_| send_call(&mut server, rev, "gauge", json!({"ms": 100}))).collect();
        let mut most = Vec::new();
        for _ in &sent {
            let text = only_text(result(&server.recv())).to_owned();
            most.push(text.split(' ').nth(2).and_then(|n| n.parse::<usize>().ok()).expect("at most N at once"));
        }
        assert_eq!(most.iter().max(), Some(&3), "three at once, never more: {most:?}");
        server.finish();
    });
}

#[test]
fn the_default_bound_is_64_requests_in_flight() {
    let rev = "2025-11-25";
    let mut server = connect(rev, "the_default_bound_is_64_requests_in_flight", &[]);
    for _ in 0..80 {
        send_call(&mut server, rev, "gauge", json!({"ms": 400}));
    }
    let most: Vec<String> = (0..80).map(|_| only_text(result(&server.recv())).to_owned()).collect();
    assert!(most.iter().all(|m| m != "at most 65 at once"), "{most:?}");
    assert!(most.iter().any(|m| m == "at most 64 at once"), "64 ran at once: {most:?}");
    server.finish();
}

/// With one slot, a running request and `waiting` more wait in the look-ahead: while it
/// has room the quick request is read and answered first; full (16), reading stops until a
/// slot frees.
#[test]
fn the_look_ahead_holds_sixteen_requests() {
    for_each_revision(&ALL_REVISIONS, |rev| {
        for (waiting, answered_first) in [(15, true), (16, false)] {
            let mut server = connect(rev, "the_look_ahead_holds_sixteen_requests", &["--max-in-flight", "1"]);
            let sleep = send_call(&mut server, rev, "sleep", json!({"ms": 400}));
            for _ in 0..waiting {
                send_call(&mut server, rev, "echo", json!({"text": "waited"}));
            }
            let quick = send_quick(&mut server, rev);
            let order = ids(&mut server, waiting + 2);
            if answered_first {
                assert_eq!(order[0], quick, "{waiting} waiting: the look-ahead had room: {order:?}");
            } else {
                assert_eq!(order[0], sleep, "{waiting} waiting: reading stopped until the slot freed: {order:?}");
                assert_eq!(order.last(), Some(&quick), "read only after the look-ahead drained: {order:?}");
            }
            server.finish();
        }
    });
}

#[test]
fn a_cancellation_read_while_requests_wait_drops_the_waiting_request() {
    for_each_revision(&ALL_REVISIONS, |rev| {
        let test = "a_cancellation_read_while_requests_wait_drops_the_waiting_request";
        let mut server = connect(rev, test, &["--max-in-flight", "1"]);
        let sleep = send_call(&mut server, rev, "sleep", json!({"ms": 300}));
        let waiting = send_call(&mut server, rev, "echo", json!({"text": "never"}));
        server.notify("notifications/cancelled", Some(json!({"requestId": waiting, "reason": "test"})));
        let quick = send_quick(&mut server, rev);
        assert_eq!(ids(&mut server, 2), vec![quick, sleep]);
        server.assert_silent(Duration::from_millis(300));
        server.finish();
    });
}

#[test]
fn a_batch_larger_than_the_bound_completes() {
    let rev = "2025-03-26";
    let mut server = connect(rev, "a_batch_larger_than_the_bound_completes", &["--max-in-flight", "2"]);
    let batch: Vec<Value> = (100..110)
        .map(|id| json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "gauge", "arguments": {"ms": 50}}}))
        .collect();
    server.send(&Value::Array(batch));
    let answer = server.recv();
    let members = answer.as_array().unwrap_or_else(|| panic!("a batch answer: {answer}"));
    let mut ids: Vec<i64> = members.iter().map(|m| m["id"].as_i64().unwrap()).collect();
    ids.sort_unstable();
    assert_eq!(ids, (100..110).collect::<Vec<_>>());
    for member in members {
        assert_eq!(only_text(result(member)), "at most 2 at once", "batch members share the bound: {member}");
    }
    server.finish();
}
