//! Checking a value against a JSON Schema a server declared (feature `testing`): what
//! `CallOptions::check_output` and the testing client's checks share.
//!
//! A validator of its own, of JSON Schema 2020-12 (and the draft-07 forms still met: `items`
//! as an array, `additionalItems`, `definitions`), so that the `testing` feature builds in
//! seconds rather than bringing a general validator's graph into every first `cargo test`.
//! It knows every assertion and applicator of the vocabularies servers' schemas use:
//! `type`, `enum`, `const`, the numeric, string, array and object limits, `pattern`,
//! `properties` and its kin, `allOf`/`anyOf`/`oneOf`/`not`, `if`/`then`/`else`, the
//! dependent keywords, `contains`, `unevaluatedProperties`/`unevaluatedItems`, and `$ref`
//! within the document. Outside it, said rather than passed over: a `$ref` to another
//! document, `$dynamicRef` and `$recursiveRef` make the schema an error. `format` is an
//! annotation, as 2020-12 makes it by default; other unknown keywords are ignored, as the
//! specification says.

#[cfg(test)]
mod tests;
mod validate;

use regex_lite::Regex;
use serde_json::Value;

use validate::Run;

/// The most `$ref`s followed, nested, before a schema is taken as looping.
const MAX_DEPTH: usize = 128;

/// The type names JSON Schema knows.
const TYPES: [&str; 7] = ["null", "boolean", "object", "array", "number", "string", "integer"];

/// Whether `schema` is a JSON Schema: why not, if it is not.
pub(crate) fn compiles(schema: &Value) -> Result<(), String> {
    well_formed(schema, schema, "#")
}

/// Why `value` breaks `schema`: each violation with its place in the value (none when it
/// conforms); `Err` when `schema` is not a JSON Schema.
pub(crate) fn violations(schema: &Value, value: &Value) -> Result<Vec<String>, String> {
    compiles(schema)?;
    Ok(Run::new(schema).check(value))
}

/// Checks the keywords of `schema` (at `place`, a JSON pointer into `root`) and its
/// subschemas.
fn well_formed(root: &Value, schema: &Value, place: &str) -> Result<(), String> {
    let object = match schema {
        Value::Bool(_) => return Ok(()),
        Value::Object(object) => object,
        other => return Err(format!("{place}: a schema is an object or a boolean, not {}", excerpt(other))),
    };
    let bad = |keyword: &str, what: &str| Err(format!("{place}/{keyword}: {what}"));
    for (keyword, member) in object {
        let at = format!("{place}/{}", escape(keyword));
        match keyword.as_str() {
            "type" => {
                let named = |v: &Value| v.as_str().is_some_and(|t| TYPES.contains(&t));
                let fine = match member {
                    Value::Array(types) => !types.is_empty() && types.iter().all(named),
                    one => named(one),
                };
                if !fine {
                    return bad(
                        keyword,
                        "must name JSON types (null, boolean, object, array, number, string, integer)",
                    );
                }
            }
            "enum" if !member.is_array() => return bad(keyword, "must be an array"),
            "required" if !strings(member) => return bad(keyword, "must be an array of strings"),
            "properties" | "patternProperties" | "$defs" | "definitions" | "dependentSchemas" => {
                let Some(map) = member.as_object() else { return bad(keyword, "must be an object of schemas") };
                for (name, sub) in map {
                    if keyword == "patternProperties" {
                        Regex::new(name).map_err(|e| format!("{at}: `{name}` is not a pattern this checks: {e}"))?;
                    }
                    well_formed(root, sub, &format!("{at}/{}", escape(name)))?;
                }
            }
            "dependentRequired" if !member.as_object().is_some_and(|map| map.values().all(strings)) => {
                return bad(keyword, "must be an object of arrays of strings");
            }
            "allOf" | "anyOf" | "oneOf" | "prefixItems" => match member.as_array() {
                Some(list) if !list.is_empty() || keyword == "prefixItems" => {
                    for (i, sub) in list.iter().enumerate() {
                        well_formed(root, sub, &format!("{at}/{i}"))?;
                    }
                }
                _ => return bad(keyword, "must be a non-empty array of schemas"),
            },
            // An array of schemas is draft-07's tuple form.
            "items" if member.is_array() => {
                for (i, sub) in member.as_array().into_iter().flatten().enumerate() {
                    well_formed(root, sub, &format!("{at}/{i}"))?;
                }
            }
            "items"
            | "additionalItems"
            | "additionalProperties"
            | "propertyNames"
            | "contains"
            | "not"
            | "if"
            | "then"
            | "else"
            | "unevaluatedProperties"
            | "unevaluatedItems" => well_formed(root, member, &at)?,
            "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum" if !member.is_number() => {
                return bad(keyword, "must be a number");
            }
            "multipleOf" if !member.as_f64().is_some_and(|m| m > 0.0) => {
                return bad(keyword, "must be a number above zero");
            }
            "minLength" | "maxLength" | "minItems" | "maxItems" | "minProperties" | "maxProperties" | "minContains"
            | "maxContains"
                if count(member).is_none() =>
            {
                return bad(keyword, "must be a non-negative integer");
            }
            "uniqueItems" if !member.is_boolean() => return bad(keyword, "must be a boolean"),
            "pattern" => {
                let Some(pattern) = member.as_str() else { return bad(keyword, "must be a string") };
                Regex::new(pattern).map_err(|e| format!("{at}: `{pattern}` is not a pattern this checks: {e}"))?;
            }
            "$ref" => {
                let Some(reference) = member.as_str() else { return bad(keyword, "must be a string") };
                if resolve(root, reference).is_none() {
                    return bad(keyword, &format!("`{reference}` names no schema of this document"));
                }
            }
            "$dynamicRef" | "$recursiveRef" => return bad(keyword, "is not supported by this check"),
            _ => {}
        }
    }
    Ok(())
}

/// Whether `value` is an array of strings.
fn strings(value: &Value) -> bool {
    value.as_array().is_some_and(|list| list.iter().all(Value::is_string))
}

/// A non-negative integer keyword's value (`2.0` included, as 2020-12 allows).
pub(super) fn count(value: &Value) -> Option<u64> {
    value.as_u64().or_else(|| value.as_f64().filter(|f| *f >= 0.0 && f.fract() == 0.0).map(|f| f as u64))
}

/// The schema a `$ref` within the document names: `#`, or `#` and a JSON pointer
/// (percent-encoded or not).
pub(super) fn resolve<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    let pointer = reference.strip_prefix('#')?;
    if pointer.is_empty() {
        return Some(root);
    }
    root.pointer(&mcp_uri_template::percent_decode(pointer)?)
}

/// A name as a JSON pointer token.
pub(super) fn escape(name: &str) -> String {
    name.replace('~', "~0").replace('/', "~1")
}

/// A value as JSON, as an error message quotes it (shortened as a client's text is).
fn excerpt(value: &Value) -> String {
    crate::protocol::excerpt(&value.to_string()).into_owned()
}
