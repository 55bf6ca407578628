//! Concurrency: a slow call holds up nothing, and `--max-in-flight` bounds requests only.

use std::time::{Duration, Instant};

use mcp_tests::wire::{only_text, result};
use serde_json::{Value, json};

use crate::common::{connect, for_each_revision};

#[test]
fn a_slow_call_does_not_hold_up_later_requests() {
    for_each_revision(|rev| {
        let mut server = connect(rev, "a_slow_call_does_not_hold_up_later_requests", &[]);
        let sleep = server.send_request("tools/call", Some(json!({"name": "sleep", "arguments": {"ms": 1500}})));
        let ping = server.send_request("ping", None);
        let echo = server.send_request("tools/call", Some(json!({"name": "echo", "arguments": {"text": "quick"}})));
        let order: Vec<Value> = (0..3).map(|_| server.recv()["id"].clone()).collect();
        assert_eq!(order[2], json!(sleep), "the sleep answers last: {order:?}");
        assert!(order.contains(&json!(ping)) && order.contains(&json!(echo)));
        server.finish();
    });
}

#[test]
fn max_in_flight_applies_back_pressure_to_requests_only() {
    for_each_revision(|rev| {
        let mut server =
            connect(rev, "max_in_flight_applies_back_pressure_to_requests_only", &["--max-in-flight", "2"]);
        let start = Instant::now();
        let sleeps: Vec<i64> = (0..3)
            .map(|_| server.send_request("tools/call", Some(json!({"name": "sleep", "arguments": {"ms": 500}}))))
            .collect();
        let ping = server.send_request("ping", None);
        let mut order = Vec::new();
        let mut last_sleep = Duration::ZERO;
        for _ in 0..4 {
            let response = server.recv();
            let id = response["id"].as_i64().expect("integer id");
            if id != ping {
                assert_eq!(only_text(result(&response)), "slept 500 ms");
                last_sleep = start.elapsed();
            }
            order.push(id);
        }
        let mut sleeps_seen: Vec<i64> = order.iter().copied().filter(|&id| id != ping).collect();
        sleeps_seen.sort_unstable();
        assert_eq!(sleeps_seen, sleeps, "every sleep answered once");
        assert!(
            last_sleep >= Duration::from_millis(950),
            "two at a time, three sleeps of 500 ms take about 1 s, not {last_sleep:?}"
        );
        // The ping is not a request that waits for a slot: it is answered while the third
        // sleep still waits for one.
        let ping_at = order.iter().position(|&id| id == ping).unwrap();
        assert!(ping_at < 3, "ping answered before the last sleep: {order:?}");
        server.finish();
    });
}
