//! `prompts/get`: the messages filled from the arguments, and the arguments checked.

use mcp_tests::wire::{ALL_REVISIONS, for_each_revision};
use serde_json::json;

use crate::common::Conn;

#[test]
fn prompts_get_fills_the_messages_and_checks_the_arguments() {
    for_each_revision(&ALL_REVISIONS, |rev| {
        let mut conn = Conn::manual(rev, "prompts_get_fills_the_messages_and_checks_the_arguments", &[]);
        let formal =
            conn.ok("prompts/get", Some(json!({"name": "greet", "arguments": {"name": "Ann", "style": "formal"}})));
        assert_eq!(
            formal["messages"],
            json!([
                {"role": "user", "content": {"type": "text", "text": "Good day, Ann!"}},
                {"role": "assistant", "content": {"type": "text", "text": "Hello! How can I help?"}},
            ]),
            "{rev}: {formal}"
        );
        let plain = conn.ok("prompts/get", Some(json!({"name": "greet", "arguments": {"name": "Bob"}})));
        assert_eq!(plain["messages"][0]["content"]["text"], "Hi, Bob!", "{rev}: {plain}");

        let unknown = conn.fail("prompts/get", json!({"name": "no_such_prompt", "arguments": {}}));
        assert_eq!(unknown["code"], -32602, "{rev}: {unknown}");
        assert!(unknown["message"].as_str().unwrap_or_default().contains("no_such_prompt"), "{rev}: {unknown}");
        for params in [json!({"name": "greet", "arguments": {"style": "formal"}}), json!({"name": "greet"})] {
            let missing = conn.fail("prompts/get", params);
            assert_eq!(missing["code"], -32602, "{rev}: {missing}");
            assert!(missing["message"].as_str().unwrap_or_default().contains("`name`"), "{rev}: names it: {missing}");
        }
        conn.finish();
    });
}
