//! A blocking loop over stdin: parse a line with serde_json, answer `initialize`,
//! `tools/list` and `tools/call` of `sum` with serde_json, flush when no more input is
//! buffered. No framework, no runtime, no validation beyond what the benchmark sends: the
//! fastest a server on this pipe can be, the "raw" column.

use std::io::{BufRead, BufReader, BufWriter, Write};

use serde_json::{Value, json};

fn main() -> std::io::Result<()> {
    let mut input = BufReader::new(std::io::stdin().lock());
    let mut output = BufWriter::new(std::io::stdout().lock());
    let mut line = String::new();
    loop {
        line.clear();
        if input.read_line(&mut line)? == 0 {
            return output.flush();
        }
        let Ok(request) = serde_json::from_str::<Value>(&line) else { continue };
        let Some(id) = request.get("id") else { continue }; // a notification
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
        serde_json::to_writer(&mut output, &json!({"jsonrpc": "2.0", "id": id, "result": result}))?;
        output.write_all(b"\n")?;
        if input.buffer().is_empty() {
            output.flush()?;
        }
    }
}
