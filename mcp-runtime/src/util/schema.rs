//! JSON Schemas from Rust types, shaped the way strict MCP clients accept them.
//!
//! The generator inlines every non-recursive type, hoists recursive ones to root `$defs`
//! (every `$ref` resolvable), writes no `$schema`, turns `Option<T>` properties into optional
//! properties of type `T` (no `null` unions), replaces bare boolean subschemas with objects and
//! leaves out the number `format`s JSON Schema does not define (`uint8`, `double`, …).
//! What a hand-written `JsonSchema` impl returns is otherwise kept as written.

use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
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
    let generator = SchemaSettings::draft2020_12()
        .with(|s| {
            s.meta_schema = None;
            s.inline_subschemas = true;
        })
        .into_generator();
    let schema = generator.into_root_schema_for::<T>();
    finish(schema.to_value(), &T::schema_name())
}

/// The non-generic part of [`schema_for`].
fn finish(mut schema: Value, type_name: &str) -> Value {
    if let Value::Object(root) = &mut schema {
        // The generator names the root after the Rust type; a macro's hidden argument
        // struct has a name no client should see.
        if root.get("title").and_then(Value::as_str) == Some(type_name) {
            root.remove("title");
        }
    }
    normalize(&mut schema);
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

/// Rewrites a generated schema in place (see the module docs).
fn normalize(schema: &mut Value) {
    let Value::Object(obj) = schema else { return };
    if obj.get("format").and_then(Value::as_str).is_some_and(|f| RUST_NUMBER_FORMATS.contains(&f)) {
        obj.remove("format");
    }
    let required: Vec<String> = obj
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).map(str::to_owned).collect())
        .unwrap_or_default();
    if let Some(Value::Object(props)) = obj.get_mut("properties") {
        for (name, prop) in props.iter_mut() {
            if !required.iter().any(|r| r == name) {
                strip_null(prop);
            }
        }
    }
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
        normalize(sub);
    }
}

fn normalize_subschema(schema: &mut Value) {
    match schema {
        Value::Bool(true) => *schema = Value::Object(Map::new()),
        Value::Bool(false) => *schema = serde_json::json!({ "not": {} }),
        _ => normalize(schema),
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
