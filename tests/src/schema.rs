//! JSON Schema checks the tests share: a value against a schema (a validator written
//! elsewhere, `jsonschema`), and a schema against the rules strict clients apply to tool schemas.

use serde_json::Value;

/// The violations of `schema` by `value`, each with its place in the value; empty when it is
/// valid. A schema that does not compile is one violation saying so.
#[must_use]
pub fn violations(schema: &Value, value: &Value) -> Vec<String> {
    match jsonschema::validator_for(schema) {
        Ok(validator) => validator.iter_errors(value).map(|e| format!("at `{}`: {e}", e.instance_path())).collect(),
        Err(e) => vec![format!("not a valid JSON Schema: {e}")],
    }
}

/// Whether `schema` is valid under the JSON Schema 2020-12 meta-schema.
#[must_use]
pub fn is_valid_schema(schema: &Value) -> bool {
    jsonschema::meta::is_valid(schema)
}

/// What a strict client holds against `schema`, each with its JSON pointer: a `type` that is a
/// list (the Inspector's `--strict` warns about it, one-type dialects reject it), a bare
/// boolean subschema, an `enum` value that its own `type` does not allow, and a `required`
/// name that `properties` does not define.
#[must_use]
pub fn portability_problems(schema: &Value) -> Vec<String> {
    let mut problems = Vec::new();
    walk(schema, "", &mut problems);
    problems
}

fn walk(schema: &Value, at: &str, problems: &mut Vec<String>) {
    let Value::Object(obj) = schema else {
        problems.push(format!("{at}: a bare `{schema}` where a schema object belongs"));
        return;
    };
    if let Some(Value::Array(types)) = obj.get("type") {
        problems.push(format!("{at}: `type` is a list: {types:?}"));
    }
    if let (Some(Value::String(ty)), Some(Value::Array(choices))) = (obj.get("type"), obj.get("enum")) {
        for choice in choices.iter().filter(|c| !is_of_type(c, ty)) {
            problems.push(format!("{at}: the enum value {choice} is not a {ty}"));
        }
    }
    if let (Some(Value::Array(required)), Some(Value::Object(properties))) =
        (obj.get("required"), obj.get("properties"))
    {
        for name in required.iter().filter_map(Value::as_str).filter(|n| !properties.contains_key(*n)) {
            problems.push(format!("{at}: `required` names `{name}`, which `properties` does not define"));
        }
    }
    for key in ["properties", "patternProperties", "$defs", "dependentSchemas"] {
        if let Some(Value::Object(map)) = obj.get(key) {
            for (name, sub) in map {
                walk(sub, &format!("{at}/{key}/{name}"), problems);
            }
        }
    }
    for key in ["anyOf", "oneOf", "allOf", "prefixItems"] {
        if let Some(Value::Array(list)) = obj.get(key) {
            for (i, sub) in list.iter().enumerate() {
                walk(sub, &format!("{at}/{key}/{i}"), problems);
            }
        }
    }
    for key in ["items", "not", "if", "then", "else", "contains", "propertyNames"] {
        if let Some(sub) = obj.get(key) {
            walk(sub, &format!("{at}/{key}"), problems);
        }
    }
    if let Some(sub @ Value::Object(_)) = obj.get("additionalProperties") {
        walk(sub, &format!("{at}/additionalProperties"), problems);
    }
}

/// Whether `value` is an instance of the JSON Schema type `ty`.
fn is_of_type(value: &Value, ty: &str) -> bool {
    match ty {
        "null" => value.is_null(),
        "boolean" => value.is_boolean(),
        "string" => value.is_string(),
        "array" => value.is_array(),
        "object" => value.is_object(),
        "number" => value.is_number(),
        "integer" => value.is_i64() || value.is_u64(),
        _ => false,
    }
}
