//! Just enough MCP for the benchmark, answered with serde_json: the logic the two "raw"
//! servers share. No framework, no validation beyond what the benchmark sends.

use std::io::Write;

use serde_json::{Value, json};

/// Writes the response line (with its newline) to one request line into `output`; nothing
/// for a notification or a line that is not JSON.
pub fn answer(line: &str, output: &mut impl Write) -> std::io::Result<()> {
    let Ok(request) = serde_json::from_str::<Value>(line) else { return Ok(()) };
    let Some(id) = request.get("id") else { return Ok(()) }; // a notification
    let result = match request["method"].as_str() {
        Some("initialize") => json!({
            "protocolVersion": request["params"]["protocolVersion"],
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "sum-raw", "version": "0.0.0"},
        }),
        Some("tools/list") => json!({"tools": [{
            "name": "sum",
            "description": "Adds two integers",
            "inputSchema": {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}, "required": ["a", "b"]},
        }]}),
        Some("tools/call") => {
            let arguments = &request["params"]["arguments"];
            let sum = arguments["a"].as_i64().unwrap_or(0) + arguments["b"].as_i64().unwrap_or(0);
            json!({"content": [{"type": "text", "text": sum.to_string()}]})
        }
        _ => json!({}),
    };
    serde_json::to_writer(&mut *output, &json!({"jsonrpc": "2.0", "id": id, "result": result}))?;
    output.write_all(b"\n")
}
