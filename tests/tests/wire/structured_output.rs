//! Structured output: `structuredContent` from 2025-06-18, the JSON as text in every revision.

use mcp_tests::schema::{is_valid_schema, portability_problems, violations};
use mcp_tests::wire::{ALL_REVISIONS, STATELESS_REVISION, manual, only_text, result};
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

/// `shapes` (`manual --shapes`) returns every shape of `Option`, enum,
/// `skip_serializing_if`, `default`, `flatten` and `rename` serde writes, once with each
/// `Option` empty and once full: in every revision that has structured output, each result
/// validates against the `outputSchema` the same server declared, and that schema is valid
/// JSON Schema 2020-12 with nothing a strict client rejects. Revisions before 2025-06-18
/// declare no output schema and get the same JSON as text.
#[test]
fn structured_output_validates_against_its_declared_schema_in_every_revision() {
    mcp_tests::wire::for_each_revision(&ALL_REVISIONS, |rev| {
        let test = "structured_output_validates_against_its_declared_schema_in_every_revision";
        let stateless = rev == STATELESS_REVISION;
        let mut server =
            if stateless { manual(&["--shapes"]).record(rev, test).spawn() } else { connect(rev, test, &["--shapes"]) };
        let mut request = |method: &str, params: Value| {
            let response = if stateless {
                server.stateless_request(method, Some(params), json!({}))
            } else {
                server.request(method, Some(params))
            };
            result(&response).clone()
        };
        let list = request("tools/list", json!({}));
        let tool = list["tools"].as_array().and_then(|t| t.iter().find(|t| t["name"] == "shapes")).cloned();
        let tool = tool.unwrap_or_else(|| panic!("{rev}: no `shapes` tool in {list}"));
        let schema = tool.get("outputSchema").cloned();
        assert_eq!(schema.is_some(), since(rev, "2025-06-18"), "{rev}: {tool}");
        if let Some(schema) = &schema {
            assert!(is_valid_schema(schema), "{rev}: not valid JSON Schema 2020-12: {schema:#}");
            assert_eq!(portability_problems(schema), Vec::<String>::new(), "{rev}: {schema:#}");
        }
        for filled in [false, true] {
            let result = request("tools/call", json!({"name": "shapes", "arguments": {"filled": filled}}));
            assert_ne!(result["isError"], true, "{rev}: {result}");
            let text: Value = serde_json::from_str(only_text(&result)).expect("the text is JSON");
            assert_eq!(result.get("structuredContent").is_some(), schema.is_some(), "{rev}: {result}");
            let Some(schema) = &schema else { continue };
            assert_eq!(result["structuredContent"], text, "{rev}: the text is the same JSON");
            let found = violations(schema, &text);
            assert_eq!(found, Vec::<String>::new(), "{rev}, filled {filled}: {text:#}\nagainst {schema:#}");
            // What the schema says of each shape, read as serde writes it.
            let written: Vec<&str> = text.as_object().expect("an object").keys().map(String::as_str).collect();
            let required: Vec<&str> =
                schema["required"].as_array().expect("required").iter().map(|r| r.as_str().unwrap()).collect();
            for name in &required {
                assert!(written.contains(name), "{rev}: `{name}` is required but serde left it out: {text}");
            }
            if !filled {
                for absent in ["note", "reviewer", "nextStatus", "labels", "summary", "parent", "archived_at"] {
                    assert!(!written.contains(&absent) && !required.contains(&absent), "{rev}: `{absent}`: {text}");
                }
                for null in ["due", "count", "status", "priority", "owner", "assignedTo", "updated"] {
                    assert_eq!(text[null], Value::Null, "{rev}: `{null}` is written as null: {text}");
                }
            }
        }
        server.finish();
    });
}

/// `shapes` takes every shape of an optional parameter (`Option` of a plain enum, a documented
/// one, enums with data, a struct, a number, a list; `#[serde(default)]`; a rename): its input
/// schema is valid JSON Schema 2020-12 that contradicts itself nowhere (no `null` in an
/// `enum` whose `type` is `string`, no `default: null`), each argument value the server
/// accepts validates against it and is accepted by the server, and each it refuses fails it.
#[test]
fn every_optional_parameter_shape_has_a_schema_that_means_what_it_accepts() {
    let test = "every_optional_parameter_shape_has_a_schema_that_means_what_it_accepts";
    let mut server = connect("2025-11-25", test, &["--shapes"]);
    let list = result(&server.request("tools/list", None)).clone();
    let tool = list["tools"].as_array().and_then(|t| t.iter().find(|t| t["name"] == "shapes")).cloned();
    let schema = tool.unwrap_or_else(|| panic!("no `shapes` tool in {list}"))["inputSchema"].clone();
    assert!(is_valid_schema(&schema), "not valid JSON Schema 2020-12: {schema:#}");
    assert_eq!(portability_problems(&schema), Vec::<String>::new(), "{schema:#}");
    assert_eq!(schema["required"], json!(["filled"]), "only `filled` is required: {schema:#}");
    let text = schema.to_string();
    assert!(!text.contains("null"), "an optional parameter is left out, never sent as null: {schema:#}");

    let accepted = [
        json!({}),
        json!({"status": "open"}),
        json!({"sort": "done"}),
        json!({"priority": "high"}),
        json!({"recurrence": {"kind": "once"}}),
        json!({"recurrence": {"kind": "every", "days": 7}}),
        json!({"recurrence": {"kind": "every", "days": 7, "until": "2027-01-01"}}),
        json!({"estimate": "Unknown"}),
        json!({"estimate": {"Hours": 2.5}}),
        json!({"owner": {"name": "Ada"}}),
        json!({"owner": {"name": "Ada", "email": "ada@example.com"}}),
        json!({"limit": 3}),
        json!({"tags": ["a", "b"]}),
        json!({"assignedTo": "Grace"}),
    ];
    let refused = [
        json!({"status": "closed"}),
        json!({"priority": "medium"}),
        json!({"recurrence": {"kind": "every"}}),
        json!({"estimate": {"Days": 2}}),
        json!({"owner": {"email": "ada@example.com"}}),
        json!({"limit": -1}),
        json!({"tags": "a"}),
    ];
    let cases = accepted.into_iter().map(|a| (a, true)).chain(refused.into_iter().map(|a| (a, false)));
    for (mut arguments, accepted) in cases {
        arguments["filled"] = json!(false);
        let found = violations(&schema, &arguments);
        assert_eq!(found.is_empty(), accepted, "{arguments} against {schema:#}: {found:?}");
        let answer = call(&mut server, "shapes", arguments.clone());
        let verdict = if accepted { "accepts" } else { "refuses" };
        assert_eq!(answer["isError"] == true, !accepted, "the server {verdict} {arguments}: {answer}");
    }
    server.finish();
}
