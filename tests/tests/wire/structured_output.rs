//! Structured output: `structuredContent` from 2025-06-18, the JSON as text in every revision.

use mcp_tests::wire::only_text;
use serde_json::{Value, json};

use crate::common::{call, connect, for_each_revision, since};

#[test]
fn structured_output_follows_the_revision() {
    for_each_revision(|rev| {
        let mut server = connect(rev, "structured_output_follows_the_revision", &[]);
        let cases = [
            ("point", json!({"x": 1, "y": 2}), json!({"x": 1, "y": 2})),
            ("numbers", json!([1, 2, 3]), json!({"result": [1, 2, 3]})),
        ];
        for (tool, value, structured) in cases {
            let result = call(&mut server, tool, json!({}));
            // Every revision gets the JSON as text.
            let text: Value = serde_json::from_str(only_text(&result)).expect("JSON text");
            assert_eq!(text, value, "{result}");
            let expected = since(rev, "2025-06-18").then_some(&structured);
            assert_eq!(result.get("structuredContent"), expected, "{result}");
        }
        server.finish();
    });
}
