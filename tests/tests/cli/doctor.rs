//! `mcp doctor`: each check against `tests/clients/doctor/faulty_server.py`, a server that
//! makes exactly that one mistake (over stdio, or over HTTP for the transport's checks); and
//! no finding on a server without mistakes: the same script, every example of this
//! repository, the TypeScript and Python SDK servers.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::Duration;

use mcp_tests::clients::{node_server, python_server};
use mcp_tests::services::{KillOnDrop, free_port, wait_for_port};
use mcp_tests::{STDIO_EXAMPLES, example_binary, workspace_root};
use serde_json::Value;

use super::{Ran, arg, mcp};

fn faulty_server() -> String {
    arg(&workspace_root().join("tests/clients/doctor/faulty_server.py"))
}

/// The doctor's JSON report on `target` (the arguments after `mcp doctor --json`).
fn doctor(target: &[&str]) -> (Ran, Value) {
    let ran = mcp(&[&["doctor", "--json", "--timeout", "3"][..], target].concat());
    let report = ran.json();
    (ran, report)
}

/// The distinct check ids of a report's findings.
fn checks(report: &Value) -> Vec<String> {
    let mut ids: Vec<String> = report["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| f["check"].as_str().unwrap().to_owned())
        .collect();
    ids.sort();
    ids.dedup();
    ids
}

/// Examines the script making `mistake` over stdio: exactly that check is found, each
/// finding says what it saw and how to fix it, and the exit status follows the severity.
fn finds_over_stdio(mistake: &str, exit: i32) {
    let (ran, report) = doctor(&["--", "python3", &faulty_server(), mistake]);
    assert_eq!(checks(&report), [mistake], "{report:#}");
    for finding in report["findings"].as_array().unwrap() {
        for key in ["severity", "message", "breaks", "fix"] {
            assert!(finding[key].as_str().is_some_and(|s| !s.is_empty()), "no {key}: {finding:#}");
        }
    }
    assert_eq!(ran.code(), Some(exit), "{ran:#?}");
}

/// The script making `mistake`, served over HTTP; the URL it prints.
fn faulty_over_http(mistake: &str) -> (KillOnDrop, String) {
    let mut process = KillOnDrop(
        Command::new("python3")
            .args([&faulty_server(), mistake, "--http"])
            .stdout(Stdio::piped())
            .spawn()
            .expect("python3 runs"),
    );
    let mut url = String::new();
    BufReader::new(process.0.stdout.take().expect("piped")).read_line(&mut url).expect("the URL");
    (process, url.trim().to_owned())
}

fn finds_over_http(mistake: &str) {
    let (_server, url) = faulty_over_http(mistake);
    let (ran, report) = doctor(&[&url]);
    assert_eq!(checks(&report), [mistake], "{report:#}");
    assert_eq!(ran.code(), Some(1), "{ran:#?}");
}

macro_rules! stdio_checks {
    ($($test:ident: $mistake:literal exits $exit:literal;)*) => {$(
        #[test]
        fn $test() {
            finds_over_stdio($mistake, $exit);
        }
    )*};
}

stdio_checks! {
    stdout_noise_is_found: "stdout-noise" exits 1;
    a_malformed_initialize_answer_is_found: "initialize-malformed" exits 1;
    an_echoed_version_is_found: "version-negotiation" exits 1;
    items_of_an_undeclared_capability_are_found: "capability-undeclared" exits 1;
    a_capability_whose_list_fails_is_found: "capability-unbacked" exits 1;
    a_request_before_initialized_is_found: "early-message" exits 1;
    an_undeclared_list_change_is_found: "list-changed-undeclared" exits 1;
    an_invalid_input_schema_is_found: "tool-schema-invalid" exits 1;
    a_ref_in_a_schema_is_a_warning: "tool-schema-portability" exits 0;
    an_invalid_tool_name_is_found: "tool-name-invalid" exits 1;
    // An error: the script speaks 2026-07-28, which asks for a deterministic order.
    an_unstable_order_is_found: "order-unstable" exits 1;
    an_unknown_method_answered_with_a_result_is_found: "unknown-method" exits 1;
    an_error_with_a_result_is_found: "error-malformed" exits 1;
    an_answer_without_jsonrpc_is_found: "message-malformed" exits 1;
    a_ping_with_a_result_is_found: "ping-broken" exits 1;
    a_request_never_answered_is_found_in_bounded_time: "no-answer" exits 1;
}

macro_rules! http_checks {
    ($($test:ident: $mistake:literal;)*) => {$(
        #[test]
        fn $test() {
            finds_over_http($mistake);
        }
    )*};
}

http_checks! {
    a_missing_origin_check_is_found: "http-origin";
    a_notification_not_answered_202_is_found: "http-notification-status";
    an_unknown_session_served_is_found: "http-session";
    an_unknown_version_header_served_is_found: "http-protocol-version";
    a_stream_to_a_json_only_client_is_found: "http-accept";
    a_routing_header_unchecked_is_found: "http-header-mismatch";
}

#[test]
fn a_server_without_mistakes_has_no_finding_over_stdio_and_http() {
    let (ran, report) = doctor(&["--", "python3", &faulty_server(), "none"]);
    assert_eq!(checks(&report), Vec::<String>::new(), "{report:#}");
    assert_eq!(ran.code(), Some(0));
    let spoken: Vec<&str> =
        report["revisions"].as_array().unwrap().iter().filter_map(|r| r["answered"].as_str()).collect();
    assert_eq!(spoken, ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"], "{report:#}");
    let (_server, url) = faulty_over_http("none");
    let (ran, report) = doctor(&[&url]);
    assert_eq!(checks(&report), Vec::<String>::new(), "{report:#}");
    assert_eq!(ran.code(), Some(0));
}

#[test]
fn a_finding_reads_as_text_with_why_and_fix() {
    let ran = mcp(&["doctor", "--", "python3", &faulty_server(), "stdout-noise"]);
    assert_eq!(ran.code(), Some(1), "{ran:#?}");
    assert!(ran.stdout.contains("error[stdout-noise]"), "{ran:#?}");
    assert!(ran.stdout.contains("`faulty server starting`"), "{ran:#?}");
    assert!(ran.stdout.contains("  fix: write logs to stderr"), "{ran:#?}");
    assert!(ran.stdout.contains("1 error(s), 0 warning(s)"), "{ran:#?}");
}

#[test]
fn every_example_has_no_finding() {
    for name in STDIO_EXAMPLES {
        // The manual example's test and context items are examined too.
        let args: &[&str] = if name == "manual" { &["--test-tools", "--context-items"] } else { &[] };
        let program = arg(&example_binary(name));
        let (ran, report) = doctor(&[&["--", &program][..], args].concat());
        if name == "conformance_server" {
            // The conformance suite's `json-schema-2020-12` scenario asks for a tool whose
            // schema has `$defs` and a `$ref`: valid, and a portability warning, nothing else.
            let findings = report["findings"].as_array().expect("findings");
            assert_eq!(checks(&report), ["tool-schema-portability"], "{report:#}");
            assert!(
                findings.iter().all(|f| f["message"].as_str().unwrap().contains("`json_schema_2020_12_tool`")),
                "{report:#}"
            );
        } else {
            assert_eq!(checks(&report), Vec::<String>::new(), "{name}: {report:#}");
        }
        assert_eq!(ran.code(), Some(0), "{name}");
    }
}

#[test]
fn giftgen_over_http_has_no_finding() {
    let (_server, url) = super::inspect::giftgen_over_http();
    let (ran, report) = doctor(&[&url]);
    assert_eq!(checks(&report), Vec::<String>::new(), "{report:#}");
    assert_eq!(ran.code(), Some(0));
}

/// A command's program and arguments, as the doctor takes them after `--`.
fn words(command: &Command) -> Vec<String> {
    std::iter::once(command.get_program()).chain(command.get_args()).map(|w| w.to_string_lossy().into_owned()).collect()
}

#[test]
fn the_sdk_servers_have_no_finding_over_stdio() {
    for (sdk, command) in [("typescript", node_server()), ("python", python_server())] {
        let words = words(&command);
        let mut target = vec!["--"];
        target.extend(words.iter().map(String::as_str));
        let (ran, report) = doctor(&target);
        assert_eq!(checks(&report), Vec::<String>::new(), "{sdk}: {report:#}");
        assert_eq!(ran.code(), Some(0), "{sdk}");
    }
}

#[test]
fn the_sdk_servers_have_no_finding_over_http() {
    for (sdk, mut command) in [("typescript", node_server()), ("python", python_server())] {
        let port = free_port();
        let mut process =
            KillOnDrop(command.args(["--http", &port.to_string()]).stderr(Stdio::null()).spawn().expect("starts"));
        wait_for_port(&mut process.0, port, sdk, Duration::from_secs(60));
        let (ran, report) = doctor(&[&format!("http://127.0.0.1:{port}/mcp")]);
        assert_eq!(checks(&report), Vec::<String>::new(), "{sdk}: {report:#}");
        assert_eq!(ran.code(), Some(0), "{sdk}");
    }
}

#[test]
fn the_readme_lists_every_check() {
    let ran = mcp(&["doctor", "--list-checks"]);
    assert!(ran.status.success(), "{ran:#?}");
    let readme = std::fs::read_to_string(workspace_root().join("README.md")).expect("README.md");
    assert!(readme.contains(ran.stdout.trim()), "the README's table of the doctor's checks is not:\n{}", ran.stdout);
}
