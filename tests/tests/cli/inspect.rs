//! `mcp inspect` against GiftGen over stdio and Streamable HTTP, in each era: the handshake's
//! steps, the capabilities and what they allow, every item, the timings.

use std::process::Command;
use std::time::Duration;

use mcp_tests::example_binary;
use mcp_tests::services::{KillOnDrop, free_port, wait_for_port};
use serde_json::Value;

use super::{arg, mcp};

/// GiftGen served over Streamable HTTP on a free port; its endpoint's URL.
pub(crate) fn giftgen_over_http() -> (KillOnDrop, String) {
    let port = free_port();
    let mut process = KillOnDrop(
        Command::new(example_binary("gift_genius"))
            .args(["--http", &format!("127.0.0.1:{port}")])
            .stdout(std::process::Stdio::null())
            .spawn()
            .expect("GiftGen starts"),
    );
    wait_for_port(&mut process.0, port, "GiftGen", Duration::from_secs(30));
    (process, format!("http://127.0.0.1:{port}/mcp"))
}

/// The eras asked, and the revision and negotiation method each must end with.
const ERAS: [(&str, &str, &str); 3] = [
    ("auto", "2026-07-28", "server/discover"),
    ("handshake", "2025-11-25", "initialize"),
    ("2025-03-26", "2025-03-26", "initialize"),
];

fn names(report: &Value, key: &str, field: &str) -> Vec<String> {
    let items = report[key].as_array().unwrap_or_else(|| panic!("no {key}: {report:#}"));
    items.iter().map(|i| i[field].as_str().expect("a string").to_owned()).collect()
}

fn check_report(report: &Value, revision: &str, method: &str) {
    assert_eq!(report["revision"], revision, "{report:#}");
    let steps = report["steps"].as_array().expect("steps");
    let last = steps.last().expect("a step");
    assert_eq!(
        (last["method"].as_str(), last["outcome"]["answered"].as_str()),
        (Some(method), Some(revision)),
        "{steps:?}"
    );
    assert_eq!(report["serverInfo"]["name"], "gift-genius");
    assert_eq!(names(report, "tools", "name"), ["suggest_gifts"]);
    let input = &report["tools"][0]["inputSchema"];
    assert_eq!(input["properties"]["age"]["maximum"], 120, "{input:#}");
    assert_eq!(names(report, "resources", "uri"), ["gifts://catalog", "ui://gifts/cards"]);
    assert_eq!(names(report, "resourceTemplates", "uriTemplate"), ["gifts://catalog/{category}"]);
    assert_eq!(names(report, "prompts", "name"), ["describe_gift"]);
    assert!(report["capabilities"]["completions"].is_object(), "{report:#}");
    let meanings = report["meanings"].as_array().expect("meanings");
    let tools = meanings.iter().find(|m| m["capability"] == "tools").expect("what tools means");
    assert!(tools["meaning"].as_str().unwrap().starts_with("tools/list, tools/call"), "{tools}");
    for key in ["tools", "resources", "resourceTemplates", "prompts"] {
        assert!(report["listMs"][key].as_f64().is_some_and(|ms| ms >= 0.0), "{key}: {report:#}");
    }
}

#[test]
fn inspect_reports_giftgen_over_stdio_in_each_era() {
    let giftgen = arg(&example_binary("gift_genius"));
    for (era, revision, method) in ERAS {
        let ran = mcp(&["inspect", "--json", "--era", era, "--", &giftgen]);
        assert!(ran.status.success(), "{ran:#?}");
        check_report(&ran.json(), revision, method);
    }
}

#[test]
fn inspect_reports_giftgen_over_http_in_each_era() {
    let (_server, url) = giftgen_over_http();
    for (era, revision, method) in ERAS {
        let ran = mcp(&["inspect", "--json", "--era", era, &url]);
        assert!(ran.status.success(), "{ran:#?}");
        check_report(&ran.json(), revision, method);
    }
}

#[test]
fn inspect_prints_the_steps_capabilities_and_items_as_text() {
    let ran = mcp(&["inspect", "--", &arg(&example_binary("gift_genius"))]);
    assert!(ran.status.success(), "{ran:#?}");
    for expected in [
        "server/discover  asked 2026-07-28  answered 2026-07-28",
        "tools/list, tools/call; the list is fixed while connected",
        "Tools (1)",
        "suggest_gifts",
        "age: integer, 0..120, required: Age of the recipient in years",
        "Resource templates (1)",
        "gifts://catalog/{category}",
        "describe_gift",
        "- gift_name (required)",
    ] {
        assert!(ran.stdout.contains(expected), "`{expected}` missing from:\n{}", ran.stdout);
    }
    assert!(!ran.stdout.contains('\x1b'), "colour on a pipe:\n{}", ran.stdout);
}

#[test]
fn a_missing_or_doubled_target_is_a_usage_error() {
    let ran = mcp(&["inspect"]);
    assert_eq!(ran.code(), Some(2), "{ran:#?}");
    assert!(ran.stderr.contains("no server given"), "{ran:#?}");
    let ran = mcp(&["inspect", "http://127.0.0.1:1/mcp", "--", "true"]);
    assert_eq!(ran.code(), Some(2), "{ran:#?}");
    let ran = mcp(&["inspect", "--era", "1999", "--", "true"]);
    assert_eq!(ran.code(), Some(2), "{ran:#?}");
    assert!(ran.stderr.contains("2025-06-18"), "{ran:#?}");
    let ran = mcp(&["inspect", "--", "/nonexistent/server"]);
    assert_eq!(ran.code(), Some(1), "{ran:#?}");
    assert!(ran.stderr.contains("cannot connect"), "{ran:#?}");
}

#[test]
fn cargo_mcp_is_the_same_command() {
    let cargo_mcp = mcp_tests::mcp_binary().with_file_name("cargo-mcp");
    // What `cargo mcp inspect ...` runs: cargo passes the subcommand's name first.
    let ran = Command::new(&cargo_mcp)
        .args(["mcp", "inspect", "--json", "--", &arg(&example_binary("gift_genius"))])
        .output()
        .expect("cargo-mcp runs");
    assert!(ran.status.success(), "{ran:?}");
    let report: Value = serde_json::from_slice(&ran.stdout).expect("JSON");
    check_report(&report, "2026-07-28", "server/discover");
    let help = Command::new(&cargo_mcp).args(["mcp", "--help"]).output().expect("cargo-mcp runs");
    assert!(String::from_utf8_lossy(&help.stdout).contains("Usage: cargo mcp"), "{help:?}");
}

#[test]
fn help_shows_examples_and_the_exit_statuses() {
    let ran = mcp(&["--help"]);
    assert!(ran.status.success(), "{ran:#?}");
    assert!(ran.stdout.contains("mcp inspect -- ./target/debug/gift_genius"), "{ran:#?}");
    assert!(ran.stdout.contains("Exit status: 0 success, 1 failure"), "{ran:#?}");
    for subcommand in ["inspect", "call", "read", "get", "complete", "doctor", "dev", "new"] {
        let ran = mcp(&[subcommand, "--help"]);
        assert!(ran.status.success(), "{subcommand}: {ran:#?}");
        assert!(ran.stdout.contains("Example"), "{subcommand} --help has no example:\n{}", ran.stdout);
    }
    let ran = mcp(&["inspect", "--no-such-flag"]);
    assert_eq!(ran.code(), Some(2), "{ran:#?}");
}
