//! `mcp call`, `read`, `get` and `complete` against real servers: GiftGen over stdio and
//! HTTP in each era, a tool error's exit status, elicitation answered on the terminal or
//! declined with `--no-input`, progress and log messages shown as they come.

use mcp_tests::example_binary;
use mcp_tests::gift_genius::{catalog, expected, names};
use serde_json::Value;

use super::inspect::giftgen_over_http;
use super::{arg, mcp, mcp_with_input};

/// Each way to reach GiftGen: its arguments before and after the subcommand's own.
fn targets(url: &str) -> Vec<(Vec<String>, Vec<String>)> {
    let giftgen = arg(&example_binary("gift_genius"));
    let mut targets = Vec::new();
    for era in ["auto", "handshake"] {
        let era = vec!["--era".to_owned(), era.to_owned()];
        targets.push((era.clone(), vec!["--".to_owned(), giftgen.clone()]));
        targets.push(([era, vec![url.to_owned()]].concat(), Vec::new()));
    }
    targets
}

fn run(subcommand: &str, before: &[String], words: &[&str], after: &[String]) -> super::Ran {
    let mut args: Vec<&str> = vec![subcommand];
    args.extend(before.iter().map(String::as_str));
    args.extend(words);
    args.extend(after.iter().map(String::as_str));
    mcp(&args)
}

#[test]
fn call_prints_giftgen_s_structured_suggestions_over_stdio_and_http_in_each_era() {
    let (_server, url) = giftgen_over_http();
    for (before, after) in targets(&url) {
        // `relationship` is a string and `age` an integer: `key=value` words follow the schema.
        let ran = run("call", &before, &["suggest_gifts", "age=30", "relationship=sister", "budget=100"], &after);
        assert!(ran.status.success(), "{ran:#?}");
        assert_eq!(names(&ran.json()), expected(30, "sister", Some(100.0)), "{before:?} {after:?}");
        let ran = run("call", &before, &["suggest_gifts", r#"{"age": 8, "relationship": "nephew"}"#], &after);
        assert_eq!(names(&ran.json()), expected(8, "nephew", None), "{ran:#?}");
    }
}

#[test]
fn a_tool_error_exits_1_with_its_text_and_json_still_prints_the_result() {
    let giftgen = arg(&example_binary("gift_genius"));
    let ran = mcp(&["call", "suggest_gifts", "age=300", "relationship=sister", "--", &giftgen]);
    assert_eq!(ran.code(), Some(1), "{ran:#?}");
    assert!(ran.stderr.contains("tool error:") && ran.stderr.contains("from 0 to 120"), "{ran:#?}");
    let ran = mcp(&["call", "--json", "suggest_gifts", "age=300", "relationship=sister", "--", &giftgen]);
    assert_eq!(ran.code(), Some(1), "{ran:#?}");
    assert_eq!(ran.json()["isError"], true, "{ran:#?}");
    let ran = mcp(&["call", "no_such_tool", "--", &giftgen]);
    assert_eq!(ran.code(), Some(1), "{ran:#?}");
    assert!(ran.stderr.contains("no tool `no_such_tool`"), "{ran:#?}");
    let ran = mcp(&["call", "suggest_gifts", "age", "--", &giftgen]);
    assert_eq!(ran.code(), Some(2), "{ran:#?}");
    assert!(ran.stderr.contains("key=value"), "{ran:#?}");
}

#[test]
fn read_get_and_complete_print_what_giftgen_serves() {
    let (_server, url) = giftgen_over_http();
    for (before, after) in targets(&url) {
        let ran = run("read", &before, &["gifts://catalog"], &after);
        assert!(ran.status.success(), "{ran:#?}");
        let read: Value = serde_json::from_str(&ran.stdout).expect("the catalog is JSON");
        assert_eq!(read, Value::Array(catalog()));
        let ran = run("get", &before, &["describe_gift", "gift_name=Kite", "recipient=niece"], &after);
        assert!(ran.status.success(), "{ran:#?}");
        assert!(
            ran.stdout.starts_with("user: Describe the gift \"Kite\"") && ran.stdout.contains("my niece"),
            "{ran:#?}"
        );
        let ran = run("complete", &before, &["resource:gifts://catalog/{category}", "category", "ho"], &after);
        assert!(ran.status.success(), "{ran:#?}");
        assert_eq!(ran.stdout.lines().collect::<Vec<_>>(), ["home", "hobbies"], "{ran:#?}");
    }
}

#[test]
fn a_question_is_answered_on_the_terminal_or_declined_with_no_input_in_each_era() {
    let blocking = arg(&example_binary("blocking"));
    for era in ["auto", "handshake"] {
        // The form's one field (`confirm`, a boolean), then "Send? [Y/n]".
        let ran = mcp_with_input(&["call", "--era", era, "confirm_hold", "--", &blocking], "yes\n\n");
        assert!(ran.status.success(), "{ran:#?}");
        assert_eq!(ran.stdout.trim(), "1 entries", "{ran:#?}");
        assert!(ran.stderr.contains("The server asks: Add an entry to the ledger?"), "{ran:#?}");
        assert!(ran.stderr.contains("Whether to add the entry (boolean)"), "{ran:#?}");
        let ran = mcp_with_input(&["call", "--era", era, "--no-input", "confirm_hold", "--", &blocking], "");
        assert!(ran.status.success(), "{ran:#?}");
        assert_eq!(ran.stdout.trim(), "0 entries", "{ran:#?}");
        assert!(ran.stderr.contains("declined: --no-input"), "{ran:#?}");
        // An answer the field cannot take is asked again.
        let ran = mcp_with_input(&["call", "--era", era, "confirm_hold", "--", &blocking], "perhaps\nno\n\n");
        assert_eq!(ran.stdout.trim(), "0 entries", "{ran:#?}");
        assert!(ran.stderr.contains("answer yes or no"), "{ran:#?}");
    }
}

#[test]
fn progress_and_log_messages_are_shown_as_they_come() {
    let manual = arg(&example_binary("manual"));
    let server = ["--", &manual, "--context-items", "--client-logging"];
    let ran = mcp(&[&["call", "progress", "steps=3", "ms=20"][..], &server].concat());
    assert!(ran.status.success(), "{ran:#?}");
    for step in 1..=3 {
        assert!(ran.stderr.contains(&format!("progress {step}/3 step {step}")), "{ran:#?}");
    }
    let ran = mcp(&[&["call", "--era", "handshake", "log", "level=warning", "count=2"][..], &server].concat());
    assert!(ran.status.success(), "{ran:#?}");
    assert!(ran.stderr.contains(r#"[warning]: {"n":0}"#) && ran.stderr.contains(r#"{"n":1}"#), "{ran:#?}");
}

#[test]
fn images_and_audio_are_saved_on_request_and_described_otherwise() {
    let manual = arg(&example_binary("manual"));
    let folder = mcp_tests::services::scratch("cli-media");
    let ran = mcp(&["call", "content_kinds", "--save-media", &arg(&folder), "--", &manual, "--test-tools"]);
    assert!(ran.status.success(), "{ran:#?}");
    let json = mcp(&["call", "--json", "content_kinds", "--", &manual, "--test-tools"]).json();
    for (index, extension) in [(1, "png"), (2, "wav")] {
        let saved = std::fs::read(folder.join(format!("content_kinds-{index}.{extension}"))).expect("saved");
        let sent = json["content"][index]["data"].as_str().expect("base64 data");
        assert_eq!(saved, base64_decode(sent), "content {index}");
        assert!(
            ran.stdout
                .contains(&format!("saved to {}", arg(&folder.join(format!("content_kinds-{index}.{extension}")))))
        );
    }
    let ran = mcp(&["call", "content_kinds", "--", &manual, "--test-tools"]);
    assert!(ran.stdout.contains("[image/png, 68 bytes; --save-media DIR saves it]"), "{ran:#?}");
}

fn base64_decode(text: &str) -> Vec<u8> {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.decode(text).expect("base64")
}
