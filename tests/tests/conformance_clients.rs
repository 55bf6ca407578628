//! The official clients against the conformance suite's fixtures (`examples/conformance_server`):
//! the TypeScript SDK 1.x (handshake era), the TypeScript SDK v2 and the Python SDK (each era
//! they speak) and the Inspector CLI (both eras, `--strict`), over stdio and Streamable HTTP.
//! Each lists, calls, reads, gets and (where the client can) completes, and checks what it got
//! against what the fixtures declare.

use std::process::Command;

use mcp_tests::clients::{
    Connected, InspectorRun, node_client, node_v2_client, python_client, run_inspector, run_inspector_url, run_plan,
    run_plan_url, with_mode,
};
use mcp_tests::example_binary;
use mcp_tests::gift_genius::text;
use mcp_tests::http::HttpServer;
use mcp_tests::wire::{LATEST_HANDSHAKE_REVISION as HANDSHAKE, STATELESS_REVISION};
use serde_json::{Value, json};

/// The server's name in its `serverInfo`.
const SERVER_NAME: &str = "mcp-conformance-server";

/// The tools the suite's 0.1.16 scenarios call.
const SUITE_TOOLS: [&str; 14] = [
    "test_simple_text",
    "test_image_content",
    "test_audio_content",
    "test_embedded_resource",
    "test_multiple_content_types",
    "test_tool_with_logging",
    "test_tool_with_progress",
    "test_error_handling",
    "test_sampling",
    "test_elicitation",
    "test_elicitation_sep1034_defaults",
    "test_elicitation_sep1330_enums",
    "json_schema_2020_12_tool",
    "test_reconnection",
];

/// The resources the suite's 0.1.16 scenarios read, besides the template.
const SUITE_RESOURCES: [&str; 3] = ["test://static-text", "test://static-binary", "test://watched-resource"];

/// The resource template the suite reads through.
const SUITE_TEMPLATE: &str = "test://template/{id}/data";

/// The prompts the suite's 0.1.16 scenarios get.
const SUITE_PROMPTS: [&str; 4] = [
    "test_simple_prompt",
    "test_prompt_with_arguments",
    "test_prompt_with_embedded_resource",
    "test_prompt_with_image",
];

/// What the base64 of a PNG file starts with (its signature).
const PNG_BASE64_SIGNATURE: &str = "iVBORw0KGgo";

/// Whether the client answers the server's sampling and elicitation requests.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Answers {
    /// It declares both capabilities and answers with its fixed values.
    Questions,
    /// It declares neither (the TypeScript SDK 1.x client here).
    Nothing,
}

/// The plan every client runs; [`check`] reads its lines.
fn plan() -> Value {
    json!([
        {"op": "list_tools"},
        {"op": "list_resources"},
        {"op": "list_resource_templates"},
        {"op": "list_prompts"},
        {"op": "call_tool", "name": "test_simple_text"},
        {"op": "call_tool", "name": "test_image_content"},
        {"op": "call_tool", "name": "test_multiple_content_types"},
        {"op": "call_tool", "name": "test_error_handling"},
        {"op": "call_tool", "name": "test_sampling", "arguments": {"prompt": "Say hello"}},
        {"op": "call_tool", "name": "test_elicitation", "arguments": {"message": "Who are you?"}},
        {"op": "read_resource", "uri": "test://static-text"},
        {"op": "read_resource", "uri": "test://static-binary"},
        {"op": "read_resource", "uri": "test://template/42/data"},
        {"op": "get_prompt", "name": "test_prompt_with_arguments", "arguments": {"arg1": "one", "arg2": "two"}},
        {"op": "get_prompt", "name": "test_prompt_with_embedded_resource", "arguments": {"resourceUri": "test://chosen"}},
        {
            "op": "complete",
            "ref": {"type": "ref/prompt", "name": "test_prompt_with_arguments"},
            "argument": {"name": "arg1", "value": "par"},
        },
    ])
}

/// The `result` of a step line, after checking it is for `op` and did not fail.
fn step_result<'a>(line: &'a Value, op: &str) -> &'a Value {
    assert_eq!(line["op"], op, "{line:#}");
    assert!(line.get("error").is_none(), "step `{op}` failed: {line:#}");
    &line["result"]
}

/// The `field` of every item of a list step's `key`.
fn listed<'a>(line: &'a Value, key: &str, field: &str) -> Vec<&'a str> {
    let items = step_result(line, line["op"].as_str().unwrap_or_default())[key]
        .as_array()
        .unwrap_or_else(|| panic!("no `{key}` in {line:#}"));
    items.iter().map(|item| item[field].as_str().unwrap_or_else(|| panic!("no `{field}`: {item:#}"))).collect()
}

/// Asserts that every one of `wanted` is in `found`.
fn all_listed(found: &[&str], wanted: &[&str], what: &str) {
    for name in wanted {
        assert!(found.contains(name), "{what} `{name}` is not listed: {found:?}");
    }
}

/// Checks the lines [`plan`] gave: the connection, then each step against the fixtures.
fn check(lines: &[Value], connected: Connected, answers: Answers) {
    let [
        connect,
        tools,
        resources,
        templates,
        prompts,
        simple,
        image,
        mixed,
        failing,
        sampling,
        elicitation,
        static_text,
        static_binary,
        templated,
        with_arguments,
        embedded,
        completion,
    ] = lines
    else {
        panic!("expected a connect line and 16 step lines, got {lines:#?}");
    };
    connected.check(connect, SERVER_NAME);

    all_listed(&listed(tools, "tools", "name"), &SUITE_TOOLS, "tool");
    all_listed(&listed(resources, "resources", "uri"), &SUITE_RESOURCES, "resource");
    all_listed(&listed(templates, "resourceTemplates", "uriTemplate"), &[SUITE_TEMPLATE], "template");
    all_listed(&listed(prompts, "prompts", "name"), &SUITE_PROMPTS, "prompt");

    let simple = step_result(simple, "call_tool");
    assert_eq!(text(simple), "This is a simple text response for testing.", "{simple:#}");

    let image = &step_result(image, "call_tool")["content"];
    assert_eq!((&image[0]["type"], &image[0]["mimeType"]), (&json!("image"), &json!("image/png")), "{image:#}");
    let png = image[0]["data"].as_str().unwrap_or_else(|| panic!("image data: {image:#}"));
    assert!(png.starts_with(PNG_BASE64_SIGNATURE), "{image:#}");

    let mixed = &step_result(mixed, "call_tool")["content"];
    let kinds: Vec<&Value> =
        mixed.as_array().unwrap_or_else(|| panic!("{mixed:#}")).iter().map(|c| &c["type"]).collect();
    assert_eq!(kinds, [&json!("text"), &json!("image"), &json!("resource")], "{mixed:#}");
    assert_eq!(mixed[2]["resource"]["uri"], "test://mixed-content-resource", "{mixed:#}");

    let failing = step_result(failing, "call_tool");
    assert_eq!(failing["isError"], true, "{failing:#}");
    assert!(text(failing).contains("intentionally returns an error"), "{failing:#}");

    match answers {
        Answers::Questions => {
            let sampled = step_result(sampling, "call_tool");
            assert_eq!(text(sampled), "LLM response: hello from the client", "{sampled:#}");
            let answered = text(step_result(elicitation, "call_tool"));
            assert!(answered.starts_with("User response: action=accept, content="), "{answered}");
            let content: Value = serde_json::from_str(&answered["User response: action=accept, content=".len()..])
                .unwrap_or_else(|e| panic!("the content is JSON ({e}): {answered}"));
            assert_eq!(content, json!({"username": "from the client", "email": "from the client"}));
        }
        Answers::Nothing => {
            // Asking a client that did not declare the capability is refused on the server's
            // side, before anything is sent: the tool's error names what is missing.
            for (line, capability) in [(sampling, "sampling"), (elicitation, "elicitation")] {
                check_refused(line, capability);
            }
        }
    }

    let contents = &step_result(static_text, "read_resource")["contents"];
    assert_eq!(contents[0]["uri"], "test://static-text", "{contents:#}");
    assert_eq!(contents[0]["text"], "This is the content of the static text resource.", "{contents:#}");
    let contents = &step_result(static_binary, "read_resource")["contents"];
    assert_eq!(contents[0]["mimeType"], "image/png", "{contents:#}");
    assert_eq!(contents[0]["blob"], png, "the resource holds the image the tool returns: {contents:#}");
    let contents = &step_result(templated, "read_resource")["contents"];
    assert_eq!(contents[0]["uri"], "test://template/42/data", "{contents:#}");
    let data: Value = serde_json::from_str(contents[0]["text"].as_str().unwrap_or_else(|| panic!("{contents:#}")))
        .expect("the template's data is JSON");
    assert_eq!(data["id"], "42", "{contents:#}");

    let messages = &step_result(with_arguments, "get_prompt")["messages"];
    assert_eq!(messages[0]["content"]["text"], "Prompt with arguments: arg1='one', arg2='two'", "{messages:#}");
    let messages = &step_result(embedded, "get_prompt")["messages"];
    assert_eq!(messages[0]["content"]["type"], "resource", "{messages:#}");
    assert_eq!(messages[0]["content"]["resource"]["uri"], "test://chosen", "{messages:#}");

    let values = &step_result(completion, "complete")["completion"]["values"];
    assert_eq!(values, &json!(["paris", "park", "party"]), "{completion:#}");
}

/// Checks that a tool asking for `capability` the client lacks was refused with an error that
/// names it: a JSON-RPC error, or a tool result with `isError`.
fn check_refused(line: &Value, capability: &str) {
    let said = match line.get("error") {
        Some(error) => error["message"].as_str().unwrap_or_default().to_owned(),
        None => {
            assert_eq!(line["result"]["isError"], true, "{line:#}");
            text(&line["result"])
        }
    };
    assert!(said.contains(capability), "the refusal names `{capability}`: {line:#}");
}

/// Runs [`plan`] through `client` on the fixtures over stdio, and [`check`]s it.
fn drive(client: Command, connected: Connected, answers: Answers) {
    let lines = run_plan(client, &plan(), &example_binary("conformance_server"), &[]);
    check(&lines, connected, answers);
}

/// [`drive`] over Streamable HTTP, against `server`.
fn drive_http(server: &HttpServer, client: Command, connected: Connected, answers: Answers) {
    check(&run_plan_url(client, &plan(), &server.url), connected, answers);
}

#[test]
fn typescript_sdk_uses_the_fixtures() {
    drive(node_client(), Connected::Asked(HANDSHAKE), Answers::Nothing);
    let server = HttpServer::start(&example_binary("conformance_server"), &[]);
    drive_http(&server, node_client(), Connected::Asked(HANDSHAKE), Answers::Nothing);
}

#[test]
fn typescript_sdk_v2_uses_the_fixtures_in_both_eras() {
    let server = HttpServer::start(&example_binary("conformance_server"), &[]);
    for (mode, connected) in [("legacy", Connected::Asked(HANDSHAKE)), ("modern", Connected::Asked(STATELESS_REVISION))]
    {
        drive(with_mode(node_v2_client(), mode), connected, Answers::Questions);
        drive_http(&server, with_mode(node_v2_client(), mode), connected, Answers::Questions);
    }
}

#[test]
fn python_sdk_uses_the_fixtures_in_both_eras_and_auto() {
    let server = HttpServer::start(&example_binary("conformance_server"), &[]);
    for (mode, connected) in [
        ("legacy", Connected::Asked(HANDSHAKE)),
        ("modern", Connected::Blind),
        ("auto", Connected::Asked(STATELESS_REVISION)),
    ] {
        drive(with_mode(python_client(), mode), connected, Answers::Questions);
        drive_http(&server, with_mode(python_client(), mode), connected, Answers::Questions);
    }
}

/// Where the Inspector finds the fixtures.
#[derive(Clone, Copy)]
enum Target<'a> {
    Stdio,
    Http(&'a str),
}

/// Runs the Inspector CLI once on the fixtures under `era`.
fn inspect(target: Target<'_>, era: &str, method_args: &[&str]) -> InspectorRun {
    match target {
        Target::Stdio => run_inspector(era, method_args, &example_binary("conformance_server"), &[]),
        Target::Http(url) => run_inspector_url(era, method_args, url),
    }
}

/// The `result` of an Inspector run that succeeded.
fn inspector_result(run: &InspectorRun) -> &Value {
    assert_eq!(run.code, Some(0), "the Inspector failed: {run:#?}");
    run.output.get("result").unwrap_or_else(|| panic!("no result: {run:#?}"))
}

/// The Inspector in both eras, over stdio and HTTP at once: `tools/list --strict` finds no
/// portability problem in any fixture's schema (it prints nothing to stderr), then a call, a
/// read and a get. The Inspector has no `completion/complete`.
#[test]
fn inspector_uses_the_fixtures_strictly() {
    let server = HttpServer::start(&example_binary("conformance_server"), &[]);
    std::thread::scope(|scope| {
        for target in [Target::Stdio, Target::Http(&server.url)] {
            for era in ["legacy", "modern"] {
                scope.spawn(move || inspect_fixtures(target, era));
            }
        }
    });
}

fn inspect_fixtures(target: Target<'_>, era: &str) {
    let run = inspect(target, era, &["--method", "tools/list", "--strict"]);
    assert_eq!(run.stderr.trim(), "", "`--strict` reports nothing: {run:#?}");
    let tools = inspector_result(&run)["tools"].as_array().unwrap_or_else(|| panic!("{run:#?}"));
    let names: Vec<&str> = tools.iter().filter_map(|tool| tool["name"].as_str()).collect();
    all_listed(&names, &SUITE_TOOLS, "tool");

    let run = inspect(target, era, &["--method", "tools/call", "--tool-name", "test_simple_text"]);
    assert_eq!(text(inspector_result(&run)), "This is a simple text response for testing.", "{run:#?}");

    let run = inspect(target, era, &["--method", "resources/read", "--uri", "test://template/7/data"]);
    let contents = &inspector_result(&run)["contents"];
    let data: Value = serde_json::from_str(contents[0]["text"].as_str().unwrap_or_else(|| panic!("{run:#?}")))
        .expect("the template's data is JSON");
    assert_eq!(data["id"], "7", "{run:#?}");

    let args = ["--method", "prompts/get", "--prompt-name", "test_prompt_with_arguments"];
    let run = inspect(target, era, &[&args[..], &["--prompt-args", "arg1=x", "arg2=y"]].concat());
    let messages = &inspector_result(&run)["messages"];
    assert_eq!(messages[0]["content"]["text"], "Prompt with arguments: arg1='x', arg2='y'", "{run:#?}");
}
