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
