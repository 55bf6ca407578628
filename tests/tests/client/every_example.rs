//! The client against every example of this repository that serves stdio, in both eras:
//! connecting with `Era::Auto` settles on 2026-07-28 and with `Era::Handshake` on 2025-11-25;
//! everything each example declares is listed (every page), every fixed resource read, every
//! prompt without required arguments got (the client answering whatever
//! the server asks on the way). (`websocket` serves its own transport and
//! `replicas` needs Redis behind nginx: `tests/tests/websocket.rs` and `scale_out.rs` serve
//! them.)

use mcp_runtime::client::{Client, Era, Stderr};
use mcp_runtime::protocol::Revision;
use mcp_tests::{STDIO_EXAMPLES, example_binary};
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_example_answers_the_client_in_both_eras() {
    for name in STDIO_EXAMPLES {
        let program = example_binary(name);
        let program = program.to_str().expect("a UTF-8 path");
        for (era, revision) in [(Era::Auto, Revision::V2026_07_28), (Era::Handshake, Revision::V2025_11_25)] {
            // Handlers for every question, so that what needs them can be got too.
            let client = Client::builder()
                .era(era)
                .on_elicitation(|_| async { Ok(json!({"action": "decline"})) })
                .on_sampling(|_| async {
                    Ok(json!({"role": "assistant", "content": {"type": "text", "text": "sampled"}, "model": "none"}))
                })
                .on_roots(|_| async { Ok(json!({"roots": []})) })
                .stderr(Stderr::Capture)
                .spawn(program, std::iter::empty::<&str>())
                .await
                .unwrap_or_else(|e| panic!("{name} ({era:?}): {e}"));
            let what = format!("{name} at {revision}");
            assert_eq!(client.revision(), revision, "{what}");
            let declared = client.negotiation().capabilities.clone();
            let mut seen = 0;
            if declared.tools.is_some() {
                let tools = client.list_tools().await.unwrap_or_else(|e| panic!("{what}: tools/list: {e}"));
                assert!(tools.iter().all(|t| t.input_schema["type"] == "object"), "{what}: {tools:?}");
                seen += tools.len();
            }
            if declared.resources.is_some() {
                let resources = client.list_resources().await.unwrap_or_else(|e| panic!("{what}: resources/list: {e}"));
                for resource in &resources {
                    let read = client.read_resource(&resource.uri).await;
                    let read = read.unwrap_or_else(|e| panic!("{what}: reading {}: {e}", resource.uri));
                    assert!(!read.contents.is_empty(), "{what}: {} is empty", resource.uri);
                }
                let templates = client.list_resource_templates().await;
                seen += resources.len() + templates.unwrap_or_else(|e| panic!("{what}: templates: {e}")).len();
            }
            if declared.prompts.is_some() {
                let prompts = client.list_prompts().await.unwrap_or_else(|e| panic!("{what}: prompts/list: {e}"));
                for prompt in &prompts {
                    let required = prompt.arguments.iter().any(|a| a.required == Some(true));
                    if !required {
                        let got = client.get_prompt(&prompt.name, json!({})).await;
                        got.unwrap_or_else(|e| panic!("{what}: getting prompt {}: {e}", prompt.name));
                    }
                }
                seen += prompts.len();
            }
            assert!(seen > 0, "{what} declares nothing the client could list");
            client.close().await.unwrap_or_else(|e| panic!("{what}: closing: {e}"));
        }
    }
}
