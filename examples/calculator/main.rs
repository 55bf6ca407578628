//! A calculator whose tools return structured results: each declares its output schema
//! (`outputSchema`, from the Rust type) and sends the value as `structuredContent`, with the
//! same JSON as text for clients that read only text. Input that makes no sense gets a tool
//! error the model can read and correct.

use mcp_runtime::prelude::*;

/// A computed value, with the expression it came from.
#[derive(serde::Serialize, schemars::JsonSchema)]
struct Outcome {
    /// The expression, as computed
    expression: String,
    /// Its value
    value: f64,
}

/// What a list of numbers comes to.
#[derive(serde::Serialize, schemars::JsonSchema)]
struct Summary {
    /// How many numbers there are
    count: usize,
    /// Their sum
    sum: f64,
    /// Their mean
    mean: f64,
    /// The smallest
    min: f64,
    /// The largest
    max: f64,
}

/// Adds two numbers.
#[mcp_tool(read_only, idempotent)]
fn add(a: f64, b: f64) -> Json<Outcome> {
    Json(Outcome { expression: format!("{a} + {b}"), value: a + b })
}

/// Divides `dividend` by `divisor`.
#[mcp_tool(read_only, idempotent)]
fn divide(dividend: f64, divisor: f64) -> Result<Json<Outcome>, String> {
    if divisor == 0.0 {
        return Err("Cannot divide by zero: give a divisor other than 0".to_owned());
    }
    Ok(Json(Outcome { expression: format!("{dividend} / {divisor}"), value: dividend / divisor }))
}

/// Counts, sums and averages a list of numbers, and finds the smallest and the largest.
#[mcp_tool(read_only, idempotent)]
fn summarize(
    /// The numbers, at least one
    numbers: Vec<f64>,
) -> Result<Json<Summary>, String> {
    if numbers.is_empty() {
        return Err("Give at least one number to summarize".to_owned());
    }
    let sum: f64 = numbers.iter().sum();
    let min = numbers.iter().copied().fold(f64::INFINITY, f64::min);
    let max = numbers.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    Ok(Json(Summary { count: numbers.len(), sum, mean: sum / numbers.len() as f64, min, max }))
}

fn main() -> mcp_runtime::Result<()> {
    Server::new("calculator", env!("CARGO_PKG_VERSION")).run()
}

/// The calculator in memory, through `mcp_runtime::testing::TestClient`: every result is also
/// checked against the output schema its tool declares.
#[cfg(test)]
mod tests {
    use mcp_runtime::Server;
    use mcp_runtime::protocol::Revision;
    use mcp_runtime::testing::TestClient;
    use serde_json::json;

    #[tokio::test]
    async fn results_are_structured_and_mistakes_are_tool_errors() {
        for revision in Revision::ALL {
            let server = Server::new("calculator", "1.0.0");
            let client = TestClient::connect_as(server, revision).await.expect("the server starts");
            let tools = client.list_tools().await.expect("a listing");
            let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
            assert_eq!(names, ["add", "divide", "summarize"]);

            let added = client.call_tool("add", json!({"a": 2.5, "b": 4})).await.expect("a result");
            let divided = client.call_tool("divide", json!({"dividend": 7, "divisor": 2})).await.expect("a result");
            let numbers = json!({"numbers": [4, -1, 2.5, 10]});
            let summary = client.call_tool("summarize", numbers).await.expect("a result");
            let expected = [
                (added, json!({"expression": "2.5 + 4", "value": 6.5})),
                (divided, json!({"expression": "7 / 2", "value": 3.5})),
                (summary, json!({"count": 4, "sum": 15.5, "mean": 3.875, "min": -1.0, "max": 10.0})),
            ];
            for (result, value) in expected {
                let text: serde_json::Value =
                    serde_json::from_str(result["content"][0]["text"].as_str().expect("text")).expect("JSON text");
                assert_eq!(text, value, "{revision:?}: {result:#}");
                if revision >= Revision::V2025_06_18 {
                    assert_eq!(result["structuredContent"], value, "{revision:?}: {result:#}");
                } else {
                    assert!(result.get("structuredContent").is_none(), "{revision:?}: {result:#}");
                }
            }

            let by_zero = client.call_tool("divide", json!({"dividend": 1, "divisor": 0})).await.expect("a result");
            assert_eq!(by_zero["isError"], true, "{by_zero:#}");
            assert!(by_zero["content"][0]["text"].as_str().is_some_and(|t| t.contains("divide by zero")));
            let empty = client.call_tool("summarize", json!({"numbers": []})).await.expect("a result");
            assert_eq!(empty["isError"], true, "{empty:#}");
            client.close().await.expect("the server stops cleanly");
        }
    }
}
