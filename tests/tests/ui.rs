//! Compile-time behaviour of the macros: what compiles (`ui/pass`) and what is rejected with
//! which message (`ui/fail`, one mistake per file, each with its reviewed `.stderr`).
//!
//! After changing a message, regenerate with `TRYBUILD=overwrite cargo test -p mcp-tests --test ui`
//! and review the diff of the `.stderr` files.

#[test]
fn ui() {
    let cases = trybuild::TestCases::new();
    cases.pass("ui/pass/*.rs");
    cases.compile_fail("ui/fail/**/*.rs");
}

/// The README's count of compile-fail cases is the number of cases here, each with its
/// reviewed `.stderr`.
#[test]
fn the_readme_counts_every_compile_fail_case() {
    fn cases(dir: &std::path::Path, found: &mut Vec<std::path::PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let path = entry.expect("an entry").path();
            if path.is_dir() {
                cases(&path, found);
            } else if path.extension().is_some_and(|e| e == "rs") {
                found.push(path);
            }
        }
    }
    let root = mcp_tests::workspace_root();
    let mut found = Vec::new();
    cases(&root.join("tests/ui/fail"), &mut found);
    for case in &found {
        assert!(case.with_extension("stderr").is_file(), "{} has no reviewed .stderr", case.display());
    }
    let readme = std::fs::read_to_string(root.join("README.md")).expect("the README");
    let row =
        format!("| mistakes caught at compile time | {} compile-fail cases, each message reviewed |", found.len());
    assert!(readme.contains(&row), "the README does not say \"{row}\"");
}
