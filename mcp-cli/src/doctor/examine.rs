//! The checks that read one message or one list: envelopes, the `initialize` and
//! `server/discover` answers, messages that come too early, list changes that were not
//! declared, tool names and schemas. Pure functions: a message in, findings out.

use serde_json::Value;

use super::checks::{self, Check, Finding, Severity};

/// The envelope of the answer to request `id`: `jsonrpc`, `id`, one of `result` and `error`,
/// an error's `code` and `message`. `what` names the request; `shape` is the check that owns
/// the envelope's own mistakes (the `initialize` answer's, or any other's).
pub(crate) fn envelope(response: &Value, id: i64, what: &str, shape: Check, revision: Option<&str>) -> Vec<Finding> {
    let mut found = Vec::new();
    if response["jsonrpc"] != "2.0" {
        found.push(shape.found(
            revision,
            format!("the answer to {what} has `jsonrpc` {}, not \"2.0\"", shown(&response["jsonrpc"])),
        ));
    }
    if response["id"].as_i64() != Some(id) {
        found.push(shape.found(revision, format!("the answer to {what} (id {id}) came with `id: {}`", response["id"])));
    }
    let (result, error) = (response.get("result"), response.get("error"));
    match (result, error) {
        (Some(_), Some(_)) => {
            found.push(
                checks::ERROR_MALFORMED.found(revision, format!("the answer to {what} has both `result` and `error`")),
            );
        }
        (None, None) => {
            found.push(shape.found(revision, format!("the answer to {what} has neither `result` nor `error`")))
        }
        _ => {}
    }
    if let Some(error) = error
        && (!error["code"].is_i64() || !error["message"].is_string())
    {
        found.push(checks::ERROR_MALFORMED.found(
            revision,
            format!("the error answering {what} needs an integer `code` and a string `message`: {error}"),
        ));
    }
    found
}

/// The result of `initialize`: `protocolVersion`, `capabilities`, `serverInfo`.
pub(crate) fn initialize_result(result: &Value, revision: Option<&str>) -> Vec<Finding> {
    let mut found = Vec::new();
    let mut missing = |what: String| found.push(checks::INITIALIZE_MALFORMED.found(revision, what));
    if !result["protocolVersion"].is_string() {
        missing(format!("`protocolVersion` is {}, not a string", shown(&result["protocolVersion"])));
    }
    if !result["capabilities"].is_object() {
        missing(format!("`capabilities` is {}, not an object", shown(&result["capabilities"])));
    }
    let info = &result["serverInfo"];
    if !info.is_object() {
        missing(format!("`serverInfo` is {}, not an object", shown(info)));
    } else {
        for field in ["name", "version"] {
            if !info[field].is_string() {
                missing(format!("`serverInfo.{field}` is {}, not a string", shown(&info[field])));
            }
        }
    }
    found
}

/// The result of `server/discover`: `supportedVersions`, `capabilities`.
pub(crate) fn discover_result(result: &Value) -> Vec<Finding> {
    let mut found = Vec::new();
    let revision = Some("2026-07-28");
    if !result["supportedVersions"].as_array().is_some_and(|v| v.iter().all(Value::is_string)) {
        found.push(checks::INITIALIZE_MALFORMED.found(
            revision,
            format!(
                "`server/discover`'s `supportedVersions` is {}, not an array of strings",
                shown(&result["supportedVersions"])
            ),
        ));
    }
    if !result["capabilities"].is_object() {
        found.push(checks::INITIALIZE_MALFORMED.found(
            revision,
            format!("`server/discover`'s `capabilities` is {}, not an object", shown(&result["capabilities"])),
        ));
    }
    found
}

/// Messages sent before the client's `notifications/initialized`: only `ping` requests and
/// `notifications/message` are allowed.
pub(crate) fn early(messages: &[Value], revision: &str) -> Vec<Finding> {
    messages
        .iter()
        .filter_map(|message| {
            let method = message["method"].as_str()?;
            let is_request = message.get("id").is_some();
            let allowed = if is_request { method == "ping" } else { method == "notifications/message" };
            let kind = if is_request { "the request" } else { "the notification" };
            (!allowed).then(|| {
                checks::EARLY_MESSAGE
                    .found(Some(revision), format!("{kind} `{method}` came before `notifications/initialized`"))
            })
        })
        .collect()
}

/// `notifications/*/list_changed` for a capability that did not declare `listChanged: true`.
pub(crate) fn list_changes(messages: &[Value], capabilities: &Value, revision: &str) -> Vec<Finding> {
    let mut found = Vec::new();
    for capability in ["tools", "resources", "prompts"] {
        let method = format!("notifications/{capability}/list_changed");
        let sent = messages.iter().any(|m| m["method"] == method.as_str() && m.get("id").is_none());
        if sent && capabilities[capability]["listChanged"] != true {
            let declared = match capabilities.get(capability) {
                Some(declared) => format!("declares `{capability}: {declared}`"),
                None => format!("does not declare `{capability}`"),
            };
            found.push(checks::LIST_CHANGED_UNDECLARED.found(
                Some(revision),
                format!("the server sent `{method}` but {declared}, without `listChanged: true`"),
            ));
        }
    }
    found
}

/// Tool names and schemas.
pub(crate) fn tools(tools: &[Value], revision: &str) -> Vec<Finding> {
    let revision = Some(revision);
    let mut found = Vec::new();
    let mut seen: Vec<&str> = Vec::new();
    for tool in tools {
        let Some(name) = tool["name"].as_str() else {
            found.push(
                checks::TOOL_NAME_INVALID.found(revision, format!("a tool has no string `name`: {}", shown(tool))),
            );
            continue;
        };
        if !is_valid_tool_name(name) {
            found.push(
                checks::TOOL_NAME_INVALID.found(revision, format!("`{name}` is not 1-128 characters of A-Za-z0-9_-.")),
            );
        }
        if seen.contains(&name) {
            found.push(checks::TOOL_NAME_INVALID.found(revision, format!("two tools are named `{name}`")));
        }
        seen.push(name);
        found.extend(input_schema(name, &tool["inputSchema"], revision));
        if let Some(output) = tool.get("outputSchema").filter(|o| !o.is_null()) {
            found.extend(output_schema(name, output, revision));
        }
    }
    found
}

fn is_valid_tool_name(name: &str) -> bool {
    (1..=128).contains(&name.len()) && name.bytes().all(|b| b.is_ascii_alphanumeric() || b"_-.".contains(&b))
}

fn input_schema(tool: &str, schema: &Value, revision: Option<&str>) -> Vec<Finding> {
    let invalid =
        |why: String| checks::TOOL_SCHEMA_INVALID.found(revision, format!("tool `{tool}`'s inputSchema {why}"));
    if !schema.is_object() {
        return vec![invalid(format!("is {}, not an object schema", shown(schema)))];
    }
    let mut found = Vec::new();
    if schema["type"] != "object" {
        found.push(invalid(format!("has `type: {}`; it must be \"object\"", shown(&schema["type"]))));
    }
    if let Some(why) = not_json_schema(schema) {
        found.push(invalid(why));
    }
    for name in schema["required"].as_array().into_iter().flatten().filter_map(Value::as_str) {
        if schema["properties"].get(name).is_none() {
            found.push(invalid(format!("requires `{name}`, which its `properties` do not define")));
        }
    }
    found.extend(portability(tool, "inputSchema", schema, false, revision));
    found
}

/// An output schema: any JSON Schema in 2026-07-28, an object schema before.
fn output_schema(tool: &str, schema: &Value, revision: Option<&str>) -> Vec<Finding> {
    let invalid =
        |why: String| checks::TOOL_SCHEMA_INVALID.found(revision, format!("tool `{tool}`'s outputSchema {why}"));
    let any_schema = revision == Some("2026-07-28");
    if !schema.is_object() || (!any_schema && schema["type"] != "object") {
        return vec![invalid(format!("must be an object schema of `type: \"object\"`, not {}", shown(schema)))];
    }
    let mut found: Vec<Finding> = not_json_schema(schema).map(invalid).into_iter().collect();
    found.extend(portability(tool, "outputSchema", schema, true, revision));
    found
}

/// Why `schema` is not valid JSON Schema (2020-12 unless its `$schema` names another draft),
/// or cannot be compiled (a `$ref` that resolves nowhere).
fn not_json_schema(schema: &Value) -> Option<String> {
    if let Err(e) = jsonschema::meta::validate(schema) {
        let at = e.instance_path().to_string();
        let at = if at.is_empty() { String::new() } else { format!(" at `{at}`") };
        return Some(format!("is not valid JSON Schema{at}: {e}"));
    }
    jsonschema::validator_for(schema).err().map(|e| format!("cannot be used: {e}"))
}

/// What is valid but strict clients reject: `$ref`, bare boolean subschemas, and (in an
/// output schema, whose values clients check) `null` unions.
fn portability(tool: &str, key: &str, schema: &Value, output: bool, revision: Option<&str>) -> Vec<Finding> {
    let mut notes = Vec::new();
    walk(schema, "", output, &mut notes);
    notes.sort();
    notes.dedup();
    notes
        .into_iter()
        .map(|note| {
            checks::TOOL_SCHEMA_PORTABILITY.found_as(
                Severity::Warning,
                revision,
                format!("tool `{tool}`'s {key}: {note}"),
            )
        })
        .collect()
}

fn walk(schema: &Value, at: &str, output: bool, notes: &mut Vec<String>) {
    let Some(object) = schema.as_object() else { return };
    if object.contains_key("$ref") {
        notes.push(format!("`$ref` at `{}` (inline the definition)", path(at)));
    }
    if output {
        let nullable_type = object.get("type").and_then(Value::as_array).is_some_and(|t| t.iter().any(|t| t == "null"));
        let nullable_union = ["anyOf", "oneOf"]
            .iter()
            .filter_map(|k| object.get(*k).and_then(Value::as_array))
            .any(|options| options.iter().any(|o| o["type"] == "null"));
        if nullable_type || nullable_union {
            notes.push(format!("a `null` union at `{}` (leave the property out of `required` instead)", path(at)));
        }
    }
    for key in ["properties", "$defs", "definitions", "patternProperties"] {
        for (name, sub) in object.get(key).and_then(Value::as_object).into_iter().flatten() {
            visit(sub, &format!("{at}/{key}/{name}"), output, notes);
        }
    }
    for key in ["items", "not", "if", "then", "else", "contains"] {
        if let Some(sub) = object.get(key) {
            visit(sub, &format!("{at}/{key}"), output, notes);
        }
    }
    for key in ["anyOf", "oneOf", "allOf", "prefixItems"] {
        for (index, sub) in object.get(key).and_then(Value::as_array).into_iter().flatten().enumerate() {
            visit(sub, &format!("{at}/{key}/{index}"), output, notes);
        }
    }
}

fn visit(sub: &Value, at: &str, output: bool, notes: &mut Vec<String>) {
    if sub.is_boolean() {
        notes.push(format!("a bare boolean subschema `{sub}` at `{at}` (write `{{}}` for anything)"));
    } else {
        walk(sub, at, output, notes);
    }
}

fn path(at: &str) -> &str {
    if at.is_empty() { "/" } else { at }
}

/// A value as a finding quotes it: short.
pub(crate) fn shown(value: &Value) -> String {
    match value {
        Value::Null => "missing".to_owned(),
        other => {
            let text = other.to_string();
            if text.chars().count() > 80 { format!("{}…", text.chars().take(80).collect::<String>()) } else { text }
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn ids(found: &[Finding]) -> Vec<&str> {
        found.iter().map(|f| f.check).collect()
    }

    #[test]
    fn envelopes_tell_a_malformed_error_from_a_malformed_message() {
        let shape = checks::MESSAGE_MALFORMED;
        assert!(envelope(&json!({"jsonrpc": "2.0", "id": 3, "result": {}}), 3, "ping", shape, None).is_empty());
        let both = envelope(
            &json!({"jsonrpc": "2.0", "id": 3, "result": {}, "error": {"code": 1, "message": "x"}}),
            3,
            "ping",
            shape,
            None,
        );
        assert_eq!(ids(&both), ["error-malformed"]);
        let codeless = envelope(&json!({"jsonrpc": "2.0", "id": 3, "error": {"message": "x"}}), 3, "ping", shape, None);
        assert_eq!(ids(&codeless), ["error-malformed"]);
        let wrong = envelope(&json!({"id": 4, "result": {}}), 3, "ping", shape, None);
        assert_eq!(ids(&wrong), ["message-malformed", "message-malformed"]);
    }

    #[test]
    fn tool_names_and_schemas_are_checked() {
        let good = json!({"name": "add", "inputSchema": {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]}});
        assert!(tools(std::slice::from_ref(&good), "2025-11-25").is_empty());
        let found = tools(&[good.clone(), good], "2025-11-25");
        assert_eq!(ids(&found), ["tool-name-invalid"]);
        let spaced = json!({"name": "add numbers", "inputSchema": {"type": "object"}});
        assert_eq!(ids(&tools(&[spaced], "2025-11-25")), ["tool-name-invalid"]);
        let undefined = json!({"name": "a", "inputSchema": {"type": "object", "required": ["b"]}});
        assert_eq!(ids(&tools(&[undefined], "2025-11-25")), ["tool-schema-invalid"]);
        let not_schema =
            json!({"name": "a", "inputSchema": {"type": "object", "properties": {"b": {"type": "integr"}}}});
        assert_eq!(ids(&tools(&[not_schema], "2025-11-25")), ["tool-schema-invalid"]);
        let array_output = json!({"name": "a", "inputSchema": {"type": "object"}, "outputSchema": {"type": "array"}});
        assert_eq!(ids(&tools(std::slice::from_ref(&array_output), "2025-11-25")), ["tool-schema-invalid"]);
        assert!(tools(&[array_output], "2026-07-28").is_empty(), "2026-07-28 takes any output schema");
        let portable = json!({"name": "a", "inputSchema": {"type": "object", "properties": {"x": true, "y": {"$ref": "#/$defs/Y"}}, "$defs": {"Y": {"type": "string"}}}});
        let found = tools(&[portable], "2025-11-25");
        assert_eq!(ids(&found), ["tool-schema-portability", "tool-schema-portability"]);
        assert!(found.iter().all(|f| f.severity == Severity::Warning));
    }

    #[test]
    fn early_messages_and_undeclared_list_changes_are_found() {
        let messages = [
            json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {}}),
            json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}),
            json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}),
        ];
        assert_eq!(ids(&early(&messages, "2025-11-25")), ["early-message"]);
        assert_eq!(ids(&list_changes(&messages, &json!({"tools": {}}), "2025-11-25")), ["list-changed-undeclared"]);
        assert!(list_changes(&messages, &json!({"tools": {"listChanged": true}}), "2025-11-25").is_empty());
    }
}
