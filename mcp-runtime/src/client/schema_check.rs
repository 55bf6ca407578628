//! Checking a value against a JSON Schema a server declared (feature `testing`, which brings
//! the validator): what `CallOptions::check_output` and the testing client's checks share.

use serde_json::Value;

/// Whether `schema` is a JSON Schema: why not, if it is not.
pub(crate) fn compiles(schema: &Value) -> Result<(), String> {
    jsonschema::validator_for(schema).map(drop).map_err(|e| e.to_string())
}

/// Why `value` breaks `schema`: each violation with its place in the value (none when it
/// conforms); `Err` when `schema` is not a JSON Schema.
pub(crate) fn violations(schema: &Value, value: &Value) -> Result<Vec<String>, String> {
    let validator = jsonschema::validator_for(schema).map_err(|e| e.to_string())?;
    Ok(validator.iter_errors(value).map(|e| format!("at `{}`: {e}", e.instance_path())).collect())
}
