//! What the feature modules share: one thread per handshake revision, and spawning and
//! connecting `manual --test-tools`.

use mcp_tests::wire::{HANDSHAKE_REVISIONS as REVISIONS, StdioServer, manual, result};
use serde_json::{Value, json};

/// Whether `revision` is `first` or later (ISO dates order as strings).
pub(crate) fn since(revision: &str, first: &str) -> bool {
    revision >= first
}

/// Runs `check` once per handshake revision, each in a thread named after its revision (so a
/// failure names the revision that broke), all at once.
pub(crate) fn for_each_revision(check: impl Fn(&'static str) + Sync) {
    mcp_tests::wire::for_each_revision(&REVISIONS, check);
}

/// `manual --test-tools <args>`, recording under `revision` as `test`, not yet initialized.
pub(crate) fn spawn(revision: &str, test: &str, args: &[&str]) -> StdioServer {
    manual(args).record(revision, test).spawn()
}

/// Like [`spawn`], with the handshake for `revision` done.
pub(crate) fn connect(revision: &str, test: &str, args: &[&str]) -> StdioServer {
    let mut server = spawn(revision, test, args);
    server.handshake(revision);
    server
}

/// The `tools/call` result of `name` with `arguments`.
pub(crate) fn call(server: &mut StdioServer, name: &str, arguments: Value) -> Value {
    let response = server.request("tools/call", Some(json!({"name": name, "arguments": arguments})));
    result(&response).clone()
}

/// The keys of a JSON object, sorted.
pub(crate) fn keys(value: &Value) -> Vec<&str> {
    let mut keys: Vec<&str> = value
        .as_object()
        .unwrap_or_else(|| panic!("expected an object, got {value}"))
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort_unstable();
    keys
}
