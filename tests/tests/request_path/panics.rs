//! Panic isolation: a panic in a resource reader, a lister, a prompt or a completer fails only
//! its own request, and is logged.

use mcp_tests::wire::{ALL_REVISIONS, STATELESS_REVISION, error_code, for_each_revision, manual, result};
use serde_json::json;

use crate::common::send;

#[test]
fn panics_in_readers_listers_prompts_and_completers_fail_only_their_request() {
    for_each_revision(&ALL_REVISIONS, |rev| {
        let test = "panics_in_readers_listers_prompts_and_completers_fail_only_their_request";
        let mut server = manual(&["--faulty-items"]).record(rev, test).capture_stderr().spawn();
        if rev != STATELESS_REVISION {
            server.handshake(rev);
        }
        send(&mut server, rev, "resources/read", json!({"uri": "test://panics"}));
        assert_eq!(error_code(&server.recv()), -32603, "a reader's panic is an internal error");
        // The lister's resources are left out; the fixed ones are listed.
        send(&mut server, rev, "resources/list", json!({}));
        let listed = server.recv();
        let uris: Vec<&str> =
            result(&listed)["resources"].as_array().unwrap().iter().map(|r| r["uri"].as_str().unwrap()).collect();
        assert_eq!(uris, ["test://fine", "test://panics"], "{listed}");
        send(&mut server, rev, "prompts/get", json!({"name": "panics"}));
        assert_eq!(error_code(&server.recv()), -32603, "a prompt's panic is an internal error");
        let reference = json!({"type": "ref/prompt", "name": "panics"});
        send(
            &mut server,
            rev,
            "completion/complete",
            json!({"ref": reference, "argument": {"name": "arg", "value": ""}}),
        );
        assert_eq!(error_code(&server.recv()), -32603, "a completer's panic is an internal error");
        send(&mut server, rev, "resources/read", json!({"uri": "test://fine"}));
        assert_eq!(result(&server.recv())["contents"][0]["text"], "fine", "the server still serves");
        server.finish();
        let stderr = server.stderr();
        for logged in ["reader panicked", "lister panicked", "prompt panicked", "completer panicked"] {
            assert!(stderr.contains(logged), "`{logged}` in the log: {stderr}");
        }
    });
}
