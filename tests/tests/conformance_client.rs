//! The official MCP conformance suite's client scenarios (`@modelcontextprotocol/conformance`
//! 0.2.0-alpha.12, `conformance client`) against `examples/conformance_client`, the Rust
//! client: every scenario the suite lists, at every revision it names (the extension ones at
//! the suite's default), the suite's own servers checking what the client sends. Every check
//! must pass, and every scenario must record a check that is not skipped (several report
//! success with zero checks when the client does nothing).

use std::sync::Mutex;
use std::time::Duration;

use mcp_tests::clients::{Suite, conformance, run_bounded};
use mcp_tests::conformance::{Check, assert_all_pass, read_checks, scenario_of, totals};
use mcp_tests::example_binary;

/// Scenarios allowed to fail, each with its reason: none. (A listed scenario that passes
/// fails the test, so the list cannot go stale.)
const EXPECTED_FAILURES: &[(&str, &str)] = &[];

/// Checks that stay skipped, each (scenario, what its message names, why): a fault of the
/// suite, with the evidence. Each must be there, skipped, or the test fails.
const SKIPPED_BY_THE_SUITE: &[(&str, &str, &str)] = &[
    (
        "http-standard-headers",
        "a initialize request",
        "its server answers `initialize` (protocolVersion 2025-11-25 asked) with protocolVersion \
         2026-07-28, which has no handshake: the client refuses to talk past that mismatch",
    ),
    (
        "http-standard-headers",
        "a notifications/initialized request",
        "sent only after an `initialize` the client accepted (see above)",
    ),
];

/// Each client scenario the suite lists, with the revisions it names (`None`: an extension
/// scenario, run at the suite's default), by `conformance list --client`.
fn listed_runs() -> Vec<(String, Option<String>)> {
    let mut command = conformance(Suite::V0_2);
    command.args(["list", "--client"]);
    let (status, stdout, stderr) = run_bounded(command, Duration::from_secs(60));
    assert!(status.success(), "conformance list failed:\n{stdout}\n{stderr}");
    let mut runs = Vec::new();
    for line in stdout.lines().filter_map(|line| line.trim().strip_prefix("- ")) {
        let (name, revisions) = line.split_once(' ').unwrap_or((line, ""));
        for revision in revisions.trim_matches(|c| c == '[' || c == ']' || c == ' ').split(',') {
            let revision = (revision != "extension").then(|| revision.to_owned());
            runs.push((name.to_owned(), revision));
        }
    }
    runs
}

#[test]
fn every_client_scenario_passes_at_every_revision_it_names() {
    let runs = listed_runs();
    let scenarios: std::collections::BTreeSet<&str> = runs.iter().map(|(name, _)| name.as_str()).collect();
    assert_eq!(scenarios.len(), 48, "the suite's client scenarios: {scenarios:?}");
    assert_eq!(runs.len(), 69, "the suite's (scenario, revision) pairs: {runs:?}");

    let client = example_binary("conformance_client");
    let results = mcp_tests::target_dir().join("conformance").join("client");
    let _ = std::fs::remove_dir_all(&results);
    let checks: Mutex<Vec<Check>> = Mutex::default();
    let next = Mutex::new(runs.iter());
    // Two at a time: each run is mostly waiting (Node starting, the suite's timers).
    std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| {
                loop {
                    let Some((scenario, revision)) = next.lock().unwrap().next() else { return };
                    let label = format!("{}-{}", scenario.replace('/', "-"), revision.as_deref().unwrap_or("default"));
                    let out = results.join(&label);
                    let mut command = conformance(Suite::V0_2);
                    // `exec`: the suite's time limit then stops the client itself, not its shell.
                    command.args(["client", "--command", &format!("exec {}", client.display())]);
                    command.args(["--scenario", scenario]);
                    if let Some(revision) = revision {
                        command.args(["--spec-version", revision]);
                    }
                    command.arg("-o").arg(&out);
                    let (status, stdout, stderr) = run_bounded(command, Duration::from_secs(180));
                    let own = read_checks(&out);
                    assert!(!own.is_empty(), "{label} recorded no check:\n{stdout}\n{stderr}");
                    let expected = EXPECTED_FAILURES.iter().any(|(name, _)| scenario.ends_with(&format!("/{name}")));
                    assert!(status.success() || expected, "{label} failed:\n{stdout}\n{stderr}");
                    checks.lock().unwrap().extend(own);
                }
            });
        }
    });
    let mut checks = checks.into_inner().unwrap();
    for (scenario, names, why) in SKIPPED_BY_THE_SUITE {
        let at = checks.iter().position(|(s, _, status, message)| {
            scenario_of(s) == *scenario && status == "SKIPPED" && message.contains(names)
        });
        let at = at.unwrap_or_else(|| panic!("{scenario}: the check on {names} is no longer skipped ({why})"));
        checks.remove(at);
    }
    assert_all_pass(&checks, EXPECTED_FAILURES);
    // The README's table: 48 scenarios (69 runs), 836 checks passed.
    assert_eq!(totals(&checks), (48, 836));
}
