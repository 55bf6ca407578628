use mcp_runtime::mcp_tool;

/// Describes a thing.
#[mcp_tool]
fn describe(r#type: String, #[mcp(rename = "type")] kind: String) -> String {
    format!("{type} {kind}", type = r#type)
}

fn main() {}
