//! The MCP Inspector CLI (`tests/clients/inspector`, run under the Node.js 22 it installs)
//! against GiftGen over stdio, in both eras: `--protocol-era legacy` (the initialize
//! handshake) and `--protocol-era modern` (pinned to 2026-07-28: `server/discover`, then `_meta`
//! on every request). Each run is one Inspector process and one method.

use mcp_tests::clients::{InspectorRun, run_inspector, run_inspector_url};
use mcp_tests::example_binary;
use mcp_tests::gift_genius::{books, normalised, suggestions, text, text_json};
use mcp_tests::wire::SERVER_INFO_KEY;
use serde_json::{Value, json};

/// The Inspector's eras, with the revision each must settle on.
const ERAS: [(&str, &str); 2] = [("legacy", "2025-11-25"), ("modern", "2026-07-28")];

/// Runs the Inspector on GiftGen under `era` with `method_args`.
fn inspect(era: &str, method_args: &[&str]) -> InspectorRun {
    run_inspector(era, method_args, &example_binary("gift_genius"), &[])
}

/// The `result` of a run that succeeded.
fn result(run: &InspectorRun) -> &Value {
    assert_eq!(run.code, Some(0), "the Inspector failed: {run:#?}");
    run.output.get("result").unwrap_or_else(|| panic!("no result: {run:#?}"))
}

/// Runs `check` once per era, each in a thread named after it, all at once.
fn for_each_era(check: impl Fn(&str, &str) + Sync) {
    std::thread::scope(|scope| {
        for (era, revision) in ERAS {
            let check = &check;
            std::thread::Builder::new()
                .name(era.to_owned())
                .spawn_scoped(scope, move || check(era, revision))
                .expect("a thread per era");
        }
    });
}

/// Whether a result came from the server under 2026-07-28: only then does it name the server
/// in its `_meta`.
fn served_statelessly(result: &Value) -> bool {
    result["_meta"][SERVER_INFO_KEY]["name"] == "gift-genius"
}

/// What the Inspector negotiated (its `initialize` method reports the connection).
#[test]
fn inspector_connects_in_each_era() {
    for_each_era(|era, revision| {
        let run = inspect(era, &["--method", "initialize"]);
        let connection = result(&run);
        assert_eq!(connection["protocolVersion"], revision, "{era}: {connection:#}");
        assert_eq!(connection["serverInfo"]["name"], "gift-genius", "{era}: {connection:#}");
        assert!(connection["capabilities"]["tools"].is_object(), "{era}: {connection:#}");
    });
}

/// `--strict` exits 6 when a tool schema has a portability problem strict clients reject, and
/// prints warnings for lesser ones: there are neither.
#[test]
fn inspector_lists_suggest_gifts_strictly_in_each_era() {
    for_each_era(|era, _| {
        let run = inspect(era, &["--method", "tools/list", "--strict"]);
        assert_eq!(run.stderr.trim(), "", "{era}: `--strict` reports no problem, not even a warning: {run:#?}");
        let tools = result(&run)["tools"].as_array().unwrap_or_else(|| panic!("{era}: {run:#?}"));
        let [tool] = &tools[..] else { panic!("{era}: one tool expected: {tools:#?}") };
        assert_eq!(tool["name"], "suggest_gifts", "{tool:#}");
        assert_eq!(tool["_meta"]["ui"]["resourceUri"], "ui://gifts/cards", "{tool:#}");
        assert_eq!(tool["annotations"], json!({"readOnlyHint": true}), "{tool:#}");
        assert_eq!(tool["inputSchema"]["required"], json!(["age", "relationship"]), "{tool:#}");
        assert_eq!(tool["outputSchema"]["required"], json!(["suggestions"]), "{tool:#}");
    });
}

/// `--strict` on `manual --shapes`, whose one tool takes every shape of an optional parameter
/// and returns every shape of structured output (`Option`s of enums, structs and lists,
/// `skip_serializing_if`, `default`, `flatten`, `rename`): no problem, not even a warning (a
/// `type` list such as `["string", "null"]` would be one).
#[test]
fn inspector_finds_every_optional_shape_portable_in_each_era() {
    let manual = example_binary("manual");
    for_each_era(|era, _| {
        let run = run_inspector(era, &["--method", "tools/list", "--strict"], &manual, &["--shapes"]);
        assert_eq!(run.stderr.trim(), "", "{era}: `--strict` reports no problem: {run:#?}");
        let tools = result(&run)["tools"].as_array().unwrap_or_else(|| panic!("{era}: {run:#?}"));
        let shapes = tools.iter().find(|t| t["name"] == "shapes").unwrap_or_else(|| panic!("{era}: {tools:#?}"));
        assert!(shapes["outputSchema"]["properties"]["due"]["anyOf"].is_array(), "{era}: {shapes:#}");
    });
}

#[test]
fn inspector_calls_suggest_gifts_in_each_era() {
    for_each_era(|era, revision| {
        let args = ["--method", "tools/call", "--tool-name", "suggest_gifts"];
        let run = inspect(era, &[&args[..], &["--tool-arg", "age=30", "--tool-arg", "relationship=sister"]].concat());
        let found = result(&run);
        let want = suggestions(30, "sister", None);
        assert_ne!(found["isError"], true, "{era}: {found:#}");
        // The whole JSON, numbers normalised (a JavaScript client reads 95.0 back as 95).
        assert_eq!(normalised(&found["structuredContent"]), want, "{era}: {found:#}");
        assert_eq!(normalised(&text_json(found)), want, "the text is the same JSON: {found:#}");
        assert_eq!(served_statelessly(found), revision == "2026-07-28", "{era}: {found:#}");

        // A tool error: the Inspector prints the result and exits 5.
        let run = inspect(era, &[&args[..], &["--tool-arg", "age=130", "--tool-arg", "relationship=friend"]].concat());
        assert_eq!(run.code, Some(5), "{era}: {run:#?}");
        let found = &run.output["result"];
        assert_eq!(found["isError"], true, "{era}: {run:#?}");
        assert!(text(found).contains("120"), "{era}: {found:#}");
        assert!(run.stderr.contains("tool_is_error"), "{era}: {run:#?}");
    });
}

/// Over Streamable HTTP: GiftGen serving `--http`, the Inspector connecting to `/mcp`.
#[test]
fn inspector_calls_suggest_gifts_over_http_in_each_era() {
    let server = mcp_tests::http::HttpServer::start(&example_binary("gift_genius"), &[]);
    for_each_era(|era, revision| {
        let args = [
            "--method",
            "tools/call",
            "--tool-name",
            "suggest_gifts",
            "--tool-arg",
            "age=30",
            "--tool-arg",
            "relationship=sister",
        ];
        let run = run_inspector_url(era, &args, &server.url);
        let found = result(&run);
        assert_eq!(normalised(&found["structuredContent"]), suggestions(30, "sister", None), "{era}: {found:#}");
        assert_eq!(served_statelessly(found), revision == "2026-07-28", "{era}: {found:#}");
    });
}

/// A read through the catalog template and a get of `describe_gift`, over stdio and HTTP, in
/// both eras.
#[test]
fn inspector_reads_the_catalog_and_gets_the_prompt_in_each_era() {
    let server = mcp_tests::http::HttpServer::start(&example_binary("gift_genius"), &[]);
    for_each_era(|era, _| {
        let read = ["--method", "resources/read", "--uri", "gifts://catalog/books"];
        let get = ["--method", "prompts/get", "--prompt-name", "describe_gift", "--prompt-args"];
        let get = [&get[..], &["gift_name=Chess set", "recipient=uncle"]].concat();
        for (read, get) in [
            (inspect(era, &read), inspect(era, &get)),
            (run_inspector_url(era, &read, &server.url), run_inspector_url(era, &get, &server.url)),
        ] {
            let contents = &result(&read)["contents"];
            let gifts: Value =
                serde_json::from_str(contents[0]["text"].as_str().unwrap_or_else(|| panic!("{read:#?}")))
                    .expect("the category is a JSON array");
            assert_eq!(normalised(&gifts), books(), "{era}: {read:#?}");

            let text = result(&get)["messages"][0]["content"]["text"].as_str().unwrap_or_else(|| panic!("{get:#?}"));
            assert!(text.contains("Chess set") && text.contains("uncle"), "{era}: {get:#?}");
        }
    });
}
