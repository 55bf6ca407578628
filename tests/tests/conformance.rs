//! The official MCP conformance suite (`@modelcontextprotocol/conformance`, pinned in
//! `tests/clients/conformance`) against `examples/conformance_server` over Streamable HTTP:
//! 0.1.16's whole suite, and 0.2.0-alpha.12's frozen 2025-11-25 and 2026-07-28 requirement
//! sets (their not-scored scenarios included). Every check must pass: a failure or a warning
//! fails the test, with the suite's own message. The one exception is [`EXPECTED_FAILURES`].

use std::time::Duration;

use mcp_tests::clients::{Suite, conformance, run_bounded};
use mcp_tests::conformance::{Check, assert_all_pass, read_checks, scenario_of, totals};
use mcp_tests::example_binary;
use mcp_tests::http::HttpServer;

/// Not-scored scenarios allowed to fail, each with its reason. A listed scenario that passes
/// fails the test, so the list cannot go stale.
const EXPECTED_FAILURES: &[(&str, &str)] =
    &[("tasks-status-notifications", "the suite skips it itself: its harness awaits a rewrite (SEP-2663)")];

/// Runs the suite with `args` against a fresh fixture server, which must exit 0; every
/// check, as (scenario directory, id, status, message).
fn run_suite(suite: Suite, args: &[&str], label: &str) -> Vec<Check> {
    let (checks, succeeded, stdout) = run(suite, args, label);
    assert!(succeeded, "the suite failed:\n{stdout}");
    checks
}

/// Runs the suite: its checks, whether it exited 0, and what it printed.
fn run(suite: Suite, args: &[&str], label: &str) -> (Vec<Check>, bool, String) {
    let server = HttpServer::start(&example_binary("conformance_server"), &[]);
    let results = mcp_tests::target_dir().join("conformance").join(label);
    let _ = std::fs::remove_dir_all(&results);
    let mut command = conformance(suite);
    command.args(["server", "--url", &server.url, "-o"]).arg(&results).args(args);
    // A suite that hangs fails the test after ten minutes instead of holding CI.
    let (status, stdout, stderr) = run_bounded(command, Duration::from_secs(600));
    let checks = read_checks(&results);
    assert!(!checks.is_empty(), "the suite recorded no check:\n{stdout}\n{stderr}");
    (checks, status.success(), stdout)
}

#[test]
fn suite_0_1_16_passes_every_scenario() {
    let checks = run_suite(Suite::V0_1, &["--suite", "all"], "0.1.16-all");
    assert_all_pass(&checks, EXPECTED_FAILURES);
    // The README's table: 32 scenarios, 46 checks passed.
    assert_eq!(totals(&checks), (32, 46));
}

#[test]
fn suite_0_2_passes_the_2025_11_25_requirements() {
    let checks = run_suite(Suite::V0_2, &["--requirements", "2025-11-25"], "0.2.0-alpha.12-2025-11-25");
    assert_all_pass(&checks, EXPECTED_FAILURES);
    // The README's table: 30 + 3 scenarios, 83 checks passed.
    assert_eq!(totals(&checks), (33, 83));
}

#[test]
fn suite_0_2_passes_the_2026_07_28_requirements() {
    let checks = run_suite(Suite::V0_2, &["--requirements", "2026-07-28"], "0.2.0-alpha.12-2026-07-28");
    assert_all_pass(&checks, EXPECTED_FAILURES);
    // The README's table: 50 scenarios, 196 checks passed; of them the tasks extension's
    // 9 + 1 (which the suite skips itself) with 44.
    assert_eq!(totals(&checks), (50, 196));
    let tasks = checks.iter().filter(|(s, ..)| scenario_of(s).starts_with("tasks-"));
    assert_eq!(totals(tasks), (10, 44));
    // Each of the table's other rows on its own: the 37 scenarios the revision requires
    // (scored), 120 checks; the 3 others, 32.
    let unscored = |s: &str| NOT_REQUIRED_BY_2026_07_28.contains(&scenario_of(s));
    let scored = checks.iter().filter(|(s, ..)| !scenario_of(s).starts_with("tasks-") && !unscored(s));
    assert_eq!(totals(scored), (37, 120));
    assert_eq!(totals(checks.iter().filter(|(s, ..)| unscored(s))), (3, 32));
    // Each expected failure ran, and failed (or was skipped) as listed.
    for (name, reason) in EXPECTED_FAILURES {
        assert!(checks.iter().any(|(s, ..)| scenario_of(s) == *name), "{name} did not run ({reason})");
    }
    // The input-required scenarios ran, each with at least one passing check.
    for scenario in
        ["input-required-result-multiple-input-requests", "input-required-result-multi-round", "server-stateless"]
    {
        assert!(
            checks.iter().any(|(s, _, status, _)| scenario_of(s) == scenario && status == "SUCCESS"),
            "{scenario} did not run"
        );
    }
}

/// The scenarios the `--requirements 2026-07-28` run includes though the revision does not
/// require them (`conformance list --server --requirements 2026-07-28` leaves them out): the
/// draft header ones and the 2020-12 one. Not scored; every check must pass all the same.
const NOT_REQUIRED_BY_2026_07_28: [&str; 3] =
    ["http-header-validation", "http-custom-header-server-validation", "json-schema-2020-12"];

/// The skills extension's server scenarios (tagged `extension`, in no requirement set): run by
/// name, each against the fixture's skill, every check run.
const SKILLS_SCENARIOS: [&str; 3] =
    ["sep-2640-skills-enumeration", "sep-2640-skills-manifest", "sep-2640-skills-directory"];

#[test]
fn suite_0_2_passes_the_skills_scenarios() {
    let mut checks = Vec::new();
    for scenario in SKILLS_SCENARIOS {
        checks.extend(run_suite(Suite::V0_2, &["--scenario", scenario], &format!("0.2.0-alpha.12-{scenario}")));
    }
    assert_all_pass(&checks, EXPECTED_FAILURES);
    let ran: std::collections::BTreeSet<&str> = checks.iter().map(|(s, ..)| scenario_of(s)).collect();
    assert_eq!(ran, SKILLS_SCENARIOS.into_iter().collect(), "every skills scenario ran");
    // The README's table: 3 scenarios, 45 checks passed.
    assert_eq!(totals(&checks), (3, 45));
}
