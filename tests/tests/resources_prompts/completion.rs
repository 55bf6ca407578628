//! `completion/complete`: prompt arguments and template variables, narrowed by
//! `context.arguments` where the revision has it.

use mcp_tests::wire::{ALL_REVISIONS, for_each_revision};
use serde_json::json;

use crate::common::{Conn, since};

#[test]
fn completion_suggests_prompt_arguments_and_template_variables() {
    for_each_revision(&ALL_REVISIONS, |rev| {
        let mut conn = Conn::manual(rev, "completion_suggests_prompt_arguments_and_template_variables", &[]);
        let greet = json!({"type": "ref/prompt", "name": "greet"});
        assert_eq!(conn.complete(&greet, "style", "", None), ["formal", "casual"], "{rev}");
        assert_eq!(conn.complete(&greet, "style", "F", None), ["formal"], "{rev}");
        assert!(conn.complete(&greet, "style", "x", None).is_empty(), "{rev}");
        assert!(conn.complete(&greet, "name", "A", None).is_empty(), "{rev}: `name` has no completer");

        let colors = json!({"type": "ref/resource", "uri": "test://colors/{color}/{shade}"});
        assert_eq!(conn.complete(&colors, "color", "b", None), ["blue", "black"], "{rev}");
        assert_eq!(conn.complete(&colors, "shade", "", None), ["light", "dark", "navy", "sky", "teal"], "{rev}");
        // `context.arguments` exists from 2025-06-18: the variables resolved so far narrow it.
        if since(rev, "2025-06-18") {
            let blue = Some(json!({"color": "blue"}));
            assert_eq!(conn.complete(&colors, "shade", "", blue.clone()), ["navy", "sky", "teal"], "{rev}");
            assert_eq!(conn.complete(&colors, "shade", "s", blue), ["sky"], "{rev}");
            let red = Some(json!({"color": "red"}));
            assert_eq!(conn.complete(&colors, "shade", "", red), ["light", "dark"], "{rev}");
        }

        for reference in [
            json!({"type": "ref/prompt", "name": "no_such_prompt"}),
            json!({"type": "ref/resource", "uri": "test://nope/{x}"}),
            // A concrete URI is not the template.
            json!({"type": "ref/resource", "uri": "test://colors/red/dark"}),
        ] {
            let params = json!({"ref": reference, "argument": {"name": "x", "value": ""}});
            let error = conn.fail("completion/complete", params);
            assert_eq!(error["code"], -32602, "{rev} {reference}: {error}");
        }
        conn.finish();
    });
}
