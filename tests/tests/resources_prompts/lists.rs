//! Capabilities and lists: what the server declares, and `resources/list`,
//! `resources/templates/list` and `prompts/list` paging and showing what each revision defines.

use mcp_tests::wire::{ALL_REVISIONS, for_each_revision};
use serde_json::{Value, json};

use crate::common::{Conn, since};

/// `resources {subscribe, listChanged}`, `prompts {listChanged}` and `completions` (from
/// 2025-03-26: 2024-11-05 had `completion/complete` without a capability, and it is served
/// there all the same).
#[test]
fn capabilities_declare_resources_prompts_and_completions() {
    for_each_revision(&ALL_REVISIONS, |rev| {
        let mut conn = Conn::manual(rev, "capabilities_declare_resources_prompts_and_completions", &[]);
        let mut want = json!({
            "tools": {"listChanged": true},
            "resources": {"subscribe": true, "listChanged": true},
            "prompts": {"listChanged": true},
        });
        if since(rev, "2025-03-26") {
            want["completions"] = json!({});
        }
        assert_eq!(conn.capabilities(), want, "{rev}");
        let greet = json!({"type": "ref/prompt", "name": "greet"});
        assert_eq!(conn.complete(&greet, "style", "c", None), ["casual"], "{rev}");
        conn.finish();
    });
}

/// What `resources/list` must show under `revision`, in URI order: the fixed resources and the
/// items the template's lister enumerates; `title` from 2025-06-18 only.
fn expected_resources(revision: &str) -> Vec<Value> {
    let mut fixed = json!({
        "uri": "test://static",
        "name": "static",
        "title": "A static text",
        "description": "Always the same text",
        "mimeType": "text/plain",
        "size": 5,
    });
    if !since(revision, "2025-06-18") {
        fixed.as_object_mut().expect("an object").remove("title");
    }
    let item = |id: u32| json!({"uri": format!("test://items/{id}"), "name": format!("item {id}")});
    vec![
        json!({"uri": "test://binary", "name": "binary", "mimeType": "application/octet-stream"}),
        item(1),
        item(2),
        item(3),
        fixed,
        json!({"uri": "test://two-parts", "name": "two-parts"}),
    ]
}

/// What `prompts/list` must show under `revision`: `title` from 2025-06-18 only.
fn expected_prompts(revision: &str) -> Vec<Value> {
    let mut greet = json!({
        "name": "greet",
        "title": "Greeting",
        "description": "Greets someone",
        "arguments": [
            {"name": "name", "description": "Who to greet", "required": true},
            {"name": "style", "description": "formal or casual", "required": false},
        ],
    });
    if !since(revision, "2025-06-18") {
        greet.as_object_mut().expect("an object").remove("title");
    }
    vec![greet]
}

/// Every list pages with `--page-size` (2026-07-28: every page with the caching fields, one
/// scope), shows exactly what the revision defines (no `title` before 2025-06-18, nothing
/// undeclared such as `icons`), and `resources/list` includes the template's enumerated items.
#[test]
fn lists_page_through_resources_templates_and_prompts() {
    let templates = [
        json!({"uriTemplate": "test://colors/{color}/{shade}", "name": "color"}),
        json!({"uriTemplate": "test://items/{id}", "name": "item", "description": "Items 1 to 3", "mimeType": "text/plain"}),
    ];
    for_each_revision(&ALL_REVISIONS, |rev| {
        // (page size, pages of resources, of templates)
        for (size, resource_pages, template_pages) in [(1, 6, 2), (4, 2, 1)] {
            let test = format!("lists_page_through_resources_templates_and_prompts_{size}");
            let mut conn = Conn::manual(rev, &test, &["--page-size", &size.to_string()]);
            let (resources, pages) = conn.walk("resources/list", "resources", size);
            assert_eq!((resources, pages), (expected_resources(rev), resource_pages), "{rev}, page size {size}");
            let (found, pages) = conn.walk("resources/templates/list", "resourceTemplates", size);
            assert_eq!((found.as_slice(), pages), (templates.as_slice(), template_pages), "{rev}, page size {size}");
            let (prompts, pages) = conn.walk("prompts/list", "prompts", size);
            assert_eq!((prompts, pages), (expected_prompts(rev), 1), "{rev}, page size {size}");
            for method in ["resources/list", "resources/templates/list", "prompts/list"] {
                let error = conn.fail(method, json!({"cursor": "not-a-cursor"}));
                assert_eq!(error["code"], -32602, "{rev} {method}: {error}");
            }
            conn.finish();
        }
    });
}
