//! Reading what the official conformance suite recorded: each check of each scenario, from
//! the `checks.json` files of a results directory, and the rules every run is held to
//! (every check passes but the expected failures, which must fail; no scenario whose checks
//! were all skipped).

use std::path::Path;

use serde_json::Value;

/// One check: (scenario directory, id, status, message).
pub type Check = (String, String, String, String);

/// The scenario a results directory (`server-<scenario>-<timestamp>`) belongs to.
pub fn scenario_of(directory: &str) -> &str {
    let name = directory.strip_prefix("server-").unwrap_or(directory);
    // The suite appends the time with `:` and `.` as `-`, always this long; the time itself
    // holds `-20` at twenty past or twenty seconds, so it is cut by its shape, not searched.
    const STAMP: &str = "-2026-12-01T21-20-29-550Z";
    let Some(cut) = name.len().checked_sub(STAMP.len()) else { return name };
    let stamp = name.as_bytes().get(cut..).unwrap_or_default();
    let shaped = stamp.len() == STAMP.len()
        && stamp.iter().zip(STAMP.as_bytes()).all(|(found, model)| found.is_ascii_digit() == model.is_ascii_digit());
    if shaped && stamp.starts_with(b"-") && stamp.ends_with(b"Z") && stamp[11] == b'T' { &name[..cut] } else { name }
}

/// Every `checks.json` under `dir`.
pub fn read_checks(dir: &Path) -> Vec<Check> {
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

/// Fails listing every check that is not a success (or information), outside
/// `expected_failures` (scenario, reason); and fails when an expected failure passes.
pub fn assert_all_pass(checks: &[Check], expected_failures: &[(&str, &str)]) {
    let expected = |scenario: &str| expected_failures.iter().any(|(name, _)| *name == scenario_of(scenario));
    let failing = |status: &str| !matches!(status, "SUCCESS" | "INFO");
    for (name, reason) in expected_failures {
        let own: Vec<_> = checks.iter().filter(|(scenario, ..)| scenario_of(scenario) == *name).collect();
        if !own.is_empty() {
            assert!(
                own.iter().any(|(_, _, status, _)| failing(status)),
                "{name} passes now: take it off the expected failures ({reason})"
            );
        }
    }
    // A scenario whose checks were all skipped tested nothing: it fails (unless expected).
    let scenarios: std::collections::BTreeSet<&str> = checks.iter().map(|(s, ..)| scenario_of(s)).collect();
    for scenario in scenarios.into_iter().filter(|s| !expected(s)) {
        let own: Vec<_> = checks.iter().filter(|(s, ..)| scenario_of(s) == scenario).collect();
        assert!(
            own.iter().any(|(_, _, status, _)| status != "SKIPPED"),
            "every check of {scenario} was skipped: {own:?}"
        );
    }
    let bad: Vec<String> = checks
        .iter()
        .filter(|(scenario, _, status, _)| failing(status) && !expected(scenario))
        .map(|(scenario, id, status, message)| format!("{scenario}: {id} {status}: {message}"))
        .collect();
    assert!(bad.is_empty(), "{} of {} checks did not pass:\n{}", bad.len(), checks.len(), bad.join("\n"));
    let passed = checks.iter().filter(|(_, _, status, _)| status == "SUCCESS").count();
    eprintln!("{passed} checks passed");
}

/// How many scenarios wrote checks, and how many checks passed: what the README's table
/// says of each run. A scenario that writes no `checks.json`, or a check that vanishes,
/// changes these.
pub fn totals<'a>(checks: impl IntoIterator<Item = &'a Check>) -> (usize, usize) {
    let checks: Vec<&Check> = checks.into_iter().collect();
    let scenarios: std::collections::BTreeSet<&str> = checks.iter().map(|(s, ..)| scenario_of(s)).collect();
    (scenarios.len(), checks.iter().filter(|(_, _, status, _)| status == "SUCCESS").count())
}

#[cfg(test)]
mod tests {
    use super::scenario_of;

    #[test]
    fn scenario_names_lose_their_time_whatever_the_time() {
        for (directory, scenario) in [
            ("server-tasks-wire-fields-2026-12-01T21-20-29-550Z", "tasks-wire-fields"),
            ("server-stateless-2026-12-01T20-20-20-020Z", "stateless"),
            ("server-tools-call-simple-text-2027-01-09T03-04-05-006Z", "tools-call-simple-text"),
            ("server-initialize", "initialize"),
        ] {
            assert_eq!(scenario_of(directory), scenario, "{directory}");
        }
    }
}
