//! JSON Schemas from Rust types, shaped the way strict MCP clients accept them.
//!
//! The generator inlines every non-recursive type, hoists recursive ones to root `$defs`
//! (every `$ref` resolvable), writes no `$schema`, replaces bare boolean subschemas with
//! objects and leaves out the number `format`s JSON Schema does not define (`uint8`, `double`,
//! …). A `type` that lists several types (`["string", "null"]`) becomes `anyOf` branches of one
//! type each, with an `enum`'s values shared out among them, since clients that map schemas
//! onto a one-type dialect reject the list form.
//!
//! What a schema describes depends on its direction. Arguments are what a client sends
//! ([`schema_for`], [`input_schema_for`]): an optional `Option<T>` property is an optional
//! property of type `T`, with no `null` (a strict client then leaves it out rather than sending
//! `null`). Structured output is what serde sends ([`output_schema_for`]): a field serde always
//! writes is required, and when it is an `Option` it says it can be `null`; only a field with
//! `skip_serializing_if` may be missing.
//! What a hand-written `JsonSchema` impl returns is otherwise kept as written.

use schemars::JsonSchema;
use schemars::generate::{Contract, SchemaSettings};
use serde_json::{Map, Value};

/// The JSON Schema of `T` as tools, prompts and resources send it.
///
/// ```
/// #[derive(schemars::JsonSchema)]
/// struct Args {
///     /// Age in years
///     age: u8,
///     budget: Option<f64>,
/// }
/// let schema = mcp_runtime::schema_for::<Args>();
/// assert_eq!(schema["type"], "object");
/// assert_eq!(schema["properties"]["budget"]["type"], "number");
/// assert_eq!(schema["required"], serde_json::json!(["age"]));
/// assert!(schema.get("$schema").is_none());
/// ```
pub fn schema_for<T: JsonSchema + ?Sized>() -> Value {
    generate::<T>(Contract::Deserialize)
}

/// The JSON Schema of `T` as serde serializes it: a tool's `outputSchema`.
///
/// Unlike [`schema_for`], a field serde always writes is required, and an `Option` among them
/// says it can be `null`, so that the value a tool returns validates against the schema it
/// declares (strict clients check `structuredContent` against it).
///
/// ```
/// #[derive(serde::Serialize, schemars::JsonSchema)]
/// struct Task {
///     title: String,
///     due: Option<String>,
///     #[serde(skip_serializing_if = "Option::is_none")]
///     owner: Option<String>,
/// }
/// let schema = mcp_runtime::output_schema_for::<Task>();
/// assert_eq!(schema["required"], serde_json::json!(["title", "due"]));
/// assert_eq!(
///     schema["properties"]["due"]["anyOf"],
///     serde_json::json!([{"type": "string"}, {"type": "null"}])
/// );
/// ```
pub fn output_schema_for<T: JsonSchema + ?Sized>() -> Value {
    generate::<T>(Contract::Serialize)
}

/// The schema of `T` under `contract`, normalized (see the module docs).
fn generate<T: JsonSchema + ?Sized>(contract: Contract) -> Value {
    let generator = SchemaSettings::draft2020_12()
        .with(|s| {
            s.meta_schema = None;
            s.inline_subschemas = true;
            s.contract = contract.clone();
        })
        .into_generator();
    let schema = generator.into_root_schema_for::<T>();
    finish(schema.to_value(), &T::schema_name(), contract.is_deserialize())
}

/// The non-generic part of [`generate`]; `input` says whether the schema describes arguments.
fn finish(mut schema: Value, type_name: &str, input: bool) -> Value {
    if let Value::Object(root) = &mut schema {
        // The generator names the root after the Rust type; a macro's hidden argument
        // struct has a name no client should see.
        if root.get("title").and_then(Value::as_str) == Some(type_name) {
            root.remove("title");
        }
    }
    normalize(&mut schema, input);
    if let Value::Bool(_) = schema {
        schema = Value::Object(Map::new());
    }
    schema
}

/// The JSON Schema of `T` as a tool's input schema: like [`schema_for`], with a root
/// `"type": "object"` added when the type does not state one.
pub fn input_schema_for<T: JsonSchema + ?Sized>() -> Value {
    let mut schema = schema_for::<T>();
    ensure_object_root(&mut schema);
    schema
}

/// Adds `"type": "object"` to a schema's root when it has no `type`.
pub(crate) fn ensure_object_root(schema: &mut Value) {
    if let Value::Object(root) = schema {
        root.entry("type").or_insert_with(|| Value::from("object"));
    }
}

const SCHEMA_MAPS: [&str; 5] = ["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"];
const SCHEMA_LISTS: [&str; 4] = ["anyOf", "oneOf", "allOf", "prefixItems"];
const SCHEMA_SINGLES: [&str; 8] =
    ["items", "not", "if", "then", "else", "contains", "propertyNames", "additionalItems"];

/// The `format`s schemars writes for Rust's number types. JSON Schema 2020-12 defines none of
/// them (strict validators, such as the TypeScript SDK's, warn about each); the type's range
/// is already in `minimum`/`maximum`.
const RUST_NUMBER_FORMATS: [&str; 14] = [
    "int8", "int16", "int32", "int64", "int128", "int", "uint8", "uint16", "uint32", "uint64", "uint128", "uint",
    "float", "double",
];

/// Rewrites a generated schema in place (see the module docs); `input` says whether it
/// describes arguments, whose optional properties lose their `null`.
fn normalize(schema: &mut Value, input: bool) {
    let Value::Object(obj) = schema else { return };
    if obj.get("format").and_then(Value::as_str).is_some_and(|f| RUST_NUMBER_FORMATS.contains(&f)) {
        obj.remove("format");
    }
    let required: Vec<String> = obj
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).map(str::to_owned).collect())
        .unwrap_or_default();
    if input && let Some(Value::Object(props)) = obj.get_mut("properties") {
        for (name, prop) in props.iter_mut() {
            if !required.iter().any(|r| r == name) {
                strip_null(prop);
            }
        }
    }
    split_type_union(obj);
    let normalize_subschema = |schema: &mut Value| match schema {
        Value::Bool(true) => *schema = Value::Object(Map::new()),
        Value::Bool(false) => *schema = serde_json::json!({ "not": {} }),
        _ => normalize(schema, input),
    };
    for key in SCHEMA_MAPS {
        if let Some(Value::Object(map)) = obj.get_mut(key) {
            map.values_mut().for_each(normalize_subschema);
        }
    }
    for key in SCHEMA_LISTS {
        if let Some(Value::Array(list)) = obj.get_mut(key) {
            list.iter_mut().for_each(normalize_subschema);
        }
    }
    for key in SCHEMA_SINGLES {
        if let Some(sub) = obj.get_mut(key) {
            normalize_subschema(sub);
        }
    }
    // `additionalProperties: false` is the one boolean every client understands; a schema
    // object there is normalized like any other.
    if let Some(sub @ Value::Object(_)) = obj.get_mut("additionalProperties") {
        normalize(sub, input);
    }
}

/// What says something about a schema without constraining the value: it stays beside the
/// `anyOf` that [`split_type_union`] writes instead of being copied into every branch.
const ANNOTATIONS: [&str; 8] =
    ["title", "description", "default", "examples", "deprecated", "readOnly", "writeOnly", "$comment"];

/// Turns `"type": ["string", "null"]` into `"anyOf": [{"type": "string"}, {"type": "null"}]`:
/// each branch one type, with the constraints that apply to it and the `enum` values of its
/// type (a branch whose type no value of the `enum` has is left out). The `null` branch is
/// `{"type": "null"}` alone; the others carry every other constraint, an `anyOf` already there
/// included.
fn split_type_union(obj: &mut Map<String, Value>) {
    let Some(Value::Array(types)) = obj.get("type") else { return };
    if types.len() < 2 || !types.iter().all(Value::is_string) {
        return;
    }
    let Some(Value::Array(types)) = obj.remove("type") else { return };
    let choices = obj.remove("enum");
    let (annotations, constraints): (Map<String, Value>, Map<String, Value>) =
        std::mem::take(obj).into_iter().partition(|(key, _)| ANNOTATIONS.contains(&key.as_str()));
    let branches: Vec<Value> = types
        .into_iter()
        .filter_map(|ty| {
            let ty = ty.as_str()?.to_owned();
            let mut branch = Map::new();
            if ty != "null" {
                branch.extend(constraints.clone());
            }
            if let Some(Value::Array(choices)) = &choices {
                let of_type: Vec<Value> = choices.iter().filter(|c| is_of_type(c, &ty)).cloned().collect();
                match of_type.len() {
                    0 => return None,
                    _ if ty == "null" => {}
                    _ => {
                        branch.insert("enum".to_owned(), Value::Array(of_type));
                    }
                }
            }
            branch.insert("type".to_owned(), Value::String(ty));
            Some(Value::Object(branch))
        })
        .collect();
    *obj = annotations;
    if let [only] = &branches[..] {
        obj.extend(only.as_object().cloned().unwrap_or_default());
    } else {
        obj.insert("anyOf".to_owned(), Value::Array(branches));
    }
}

/// Whether `value` is an instance of the JSON Schema type `ty`.
pub(crate) fn is_of_type(value: &Value, ty: &str) -> bool {
    match ty {
        "null" => value.is_null(),
        "boolean" => value.is_boolean(),
        "string" => value.is_string(),
        "array" => value.is_array(),
        "object" => value.is_object(),
        "number" => value.is_number(),
        "integer" => value.is_i64() || value.is_u64() || value.as_f64().is_some_and(|f| f.fract() == 0.0),
        _ => false,
    }
}

/// Makes an optional property's schema describe its value type only, without `null`.
fn strip_null(schema: &mut Value) {
    let Value::Object(obj) = schema else { return };
    match obj.get_mut("type") {
        Some(Value::Array(types)) if types.iter().any(|t| t == "null") => {
            types.retain(|t| t != "null");
            if types.len() == 1 {
                let only = types.remove(0);
                obj.insert("type".to_owned(), only);
            }
            // The `enum` of an `Option<Enum>` lists `null` too, and `#[serde(default)]` on an
            // `Option` writes `"default": null`: both go with the type.
            if let Some(Value::Array(choices)) = obj.get_mut("enum") {
                choices.retain(|c| !c.is_null());
            }
            if obj.get("default") == Some(&Value::Null) {
                obj.remove("default");
            }
        }
        _ => {}
    }
    let Some(Value::Array(variants)) = obj.get("anyOf") else {
        return;
    };
    let is_null = |v: &Value| {
        v.get("type").and_then(Value::as_str) == Some("null") && v.as_object().is_some_and(|o| o.len() == 1)
    };
    if variants.len() != 2 || !variants.iter().any(is_null) {
        return;
    }
    let Some(Value::Array(variants)) = obj.remove("anyOf") else {
        return;
    };
    let Some(Value::Object(inner)) = variants.into_iter().find(|v| !is_null(v)) else {
        return;
    };
    for (key, value) in inner {
        obj.entry(key).or_insert(value);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[derive(JsonSchema)]
    #[allow(dead_code)]
    struct Inner {
        x: i32,
    }

    #[derive(JsonSchema)]
    #[allow(dead_code)]
    struct Outer {
        /// The inner one
        inner: Option<Inner>,
        any: serde_json::Value,
        list: Vec<Inner>,
    }

    #[derive(JsonSchema)]
    #[allow(dead_code)]
    struct Tree {
        children: Vec<Tree>,
        label: String,
    }

    #[test]
    fn options_are_optional_and_not_nullable() {
        let schema = schema_for::<Outer>();
        assert_eq!(schema["properties"]["inner"]["type"], "object");
        assert_eq!(schema["properties"]["inner"]["description"], "The inner one");
        assert!(schema["properties"]["inner"].get("anyOf").is_none());
        assert!(!schema["required"].as_array().unwrap().contains(&json!("inner")));
        assert!(schema.get("$defs").is_none(), "non-recursive types are inlined: {schema}");
        assert!(schema["properties"]["any"].is_object());
        assert!(schema.get("title").is_none());
    }

    #[derive(JsonSchema, serde::Serialize)]
    #[allow(dead_code)]
    enum Status {
        Open,
        Done,
    }

    #[derive(JsonSchema, serde::Serialize)]
    #[allow(dead_code)]
    struct Filter {
        status: Option<Status>,
        #[serde(default)]
        sort: Option<Status>,
        #[serde(skip_serializing_if = "Option::is_none")]
        note: Option<String>,
        scores: Vec<Option<i32>>,
    }

    #[test]
    fn an_optional_enum_argument_is_its_enum_without_null() {
        let schema = schema_for::<Filter>();
        let plain = json!({"type": "string", "enum": ["Open", "Done"]});
        assert_eq!(schema["properties"]["status"], plain, "{schema}");
        assert_eq!(schema["properties"]["sort"], plain, "no `default: null`: {schema}");
        assert_eq!(schema["required"], json!(["scores"]), "{schema}");
        let item = json!({"anyOf": [{"type": "integer"}, {"type": "null"}]});
        assert_eq!(schema["properties"]["scores"]["items"], item, "{schema}");
    }

    #[test]
    fn output_fields_serde_always_writes_are_required_and_say_null() {
        let schema = output_schema_for::<Filter>();
        assert_eq!(schema["required"], json!(["status", "sort", "scores"]), "{schema}");
        let status = json!({"anyOf": [{"type": "string", "enum": ["Open", "Done"]}, {"type": "null"}]});
        assert_eq!(schema["properties"]["status"], status, "{schema}");
        assert_eq!(schema["properties"]["note"]["anyOf"][1], json!({"type": "null"}), "{schema}");
    }

    #[derive(JsonSchema)]
    #[allow(dead_code)]
    struct Numbers {
        small: u8,
        big: i64,
        ratio: f64,
        #[schemars(email)]
        contact: String,
    }

    #[test]
    fn rust_number_formats_are_left_out_and_standard_ones_kept() {
        let schema = schema_for::<Numbers>();
        for field in ["small", "big", "ratio"] {
            assert!(schema["properties"][field].get("format").is_none(), "{schema}");
        }
        assert_eq!(schema["properties"]["small"]["maximum"], 255);
        assert_eq!(schema["properties"]["contact"]["format"], "email");
    }

    #[test]
    fn recursive_types_keep_resolvable_refs() {
        let schema = schema_for::<Tree>();
        let text = schema.to_string();
        for (start, _) in text.match_indices("\"$ref\":\"") {
            let rest = &text[start + 8..];
            let target = &rest[..rest.find('"').unwrap()];
            let pointer = target.trim_start_matches('#');
            assert!(schema.pointer(pointer).is_some(), "dangling {target} in {schema}");
        }
    }
}
