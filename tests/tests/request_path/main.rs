//! The request path, driven over stdio: the in-flight bound and the look-ahead, back-pressure
//! when the client stops reading, shutdown (signals, the output closing), the JSON-RPC answer
//! rules, panic isolation everywhere user code runs, and per-revision shaping of what a
//! server and its items describe of themselves. Each rule is checked in every revision where
//! it applies.
//!
//! One module per feature, in one binary (each test binary links the whole dependency graph);
//! `common` holds the connection helpers. One feature alone:
//! `cargo test -p mcp-tests --test request_path in_flight::`.

mod back_pressure;
mod blocking;
mod common;
mod in_flight;
mod json_rpc;
mod panics;
mod server_info;
mod shutdown;
mod under_run;
