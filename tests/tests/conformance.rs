//! The official MCP conformance suite (`@modelcontextprotocol/conformance`, pinned in
//! `tests/clients/conformance`) against `examples/conformance_server` over Streamable HTTP:
//! 0.1.16's whole suite, and 0.2.0-alpha.12's frozen 2025-11-25 requirement set (its
//! not-scored scenarios included). Every check must pass: a failure or a warning fails the
//! test, with the suite's own message.

use std::path::Path;
use std::process::Stdio;

use mcp_tests::clients::{Suite, conformance};
use mcp_tests::example_binary;
use mcp_tests::http::HttpServer;
use serde_json::Value;

/// Runs the suite with `args` against a fresh fixture server; every check, as
/// (scenario, id, status, message).
fn run_suite(suite: Suite, args: &[&str], label: &str) -> Vec<(String, String, String, String)> {
    let server = HttpServer::start(&example_binary("conformance_server"), &[]);
    let results = mcp_tests::target_dir().join("conformance").join(label);
    let _ = std::fs::remove_dir_all(&results);
    let output = conformance(suite)
        .args(["server", "--url", &server.url, "-o"])
        .arg(&results)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("the conformance suite runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let checks = read_checks(&results);
    assert!(!checks.is_empty(), "the suite recorded no check:\n{stdout}\n{}", String::from_utf8_lossy(&output.stderr));
    assert!(output.status.success(), "the suite failed:\n{stdout}");
    checks
}

/// Every `checks.json` under `dir`.
fn read_checks(dir: &Path) -> Vec<(String, String, String, String)> {
    let mut checks = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else { return checks };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            checks.extend(read_checks(&path));
            continue;
        }
        if path.file_name().is_none_or(|name| name != "checks.json") {
            continue;
        }
        let scenario =
            path.parent().and_then(Path::file_name).map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let text = std::fs::read_to_string(&path).expect("readable checks");
        let list: Vec<Value> = serde_json::from_str(&text).expect("checks.json is a JSON array");
        for check in list {
            let field = |key: &str| check[key].as_str().unwrap_or_default().to_owned();
            checks.push((scenario.clone(), field("id"), field("status"), field("errorMessage")));
        }
    }
    checks
}

/// Fails listing every check that is not a success (or information).
fn assert_all_pass(checks: &[(String, String, String, String)]) {
    let bad: Vec<String> = checks
        .iter()
        .filter(|(_, _, status, _)| !matches!(status.as_str(), "SUCCESS" | "INFO"))
        .map(|(scenario, id, status, message)| format!("{scenario}: {id} {status}: {message}"))
        .collect();
    assert!(bad.is_empty(), "{} of {} checks did not pass:\n{}", bad.len(), checks.len(), bad.join("\n"));
    let passed = checks.iter().filter(|(_, _, status, _)| status == "SUCCESS").count();
    eprintln!("{passed} checks passed");
}

#[test]
fn suite_0_1_16_passes_every_scenario() {
    let checks = run_suite(Suite::V0_1, &["--suite", "all"], "0.1.16-all");
    assert_all_pass(&checks);
    // Every scenario ran: the 32 server scenarios of 0.1.16.
    let scenarios: std::collections::BTreeSet<&str> =
        checks.iter().map(|(s, ..)| s.rsplit_once("-20").map_or(s.as_str(), |(name, _)| name)).collect();
    assert_eq!(scenarios.len(), 32, "{scenarios:?}");
}

#[test]
fn suite_0_2_passes_the_2025_11_25_requirements() {
    let checks = run_suite(Suite::V0_2, &["--requirements", "2025-11-25"], "0.2.0-alpha.12-2025-11-25");
    assert_all_pass(&checks);
}
