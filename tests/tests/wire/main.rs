//! Wire tests: the `manual` example driven over stdio, every rule checked under each
//! handshake revision. Each server run records its transcript under
//! `<target>/transcripts/<revision>/<test>.jsonl` for `shared/tools/schema_check.py`.
//!
//! One module per feature, in one binary (each test binary links the whole dependency graph);
//! `common` holds the connection helpers. One feature alone:
//! `cargo test -p mcp-tests --test wire tools::`.

mod common;
mod concurrency;
mod json_rpc;
mod lifecycle;
mod stdio;
mod structured_output;
mod tools;
