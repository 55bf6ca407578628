use mcp_runtime::mcp_tool;

/// Routes a parcel.
#[mcp_tool]
fn route(#[mcp(header = "Region")] from: String, #[mcp(header = "region")] to: String) -> String {
    format!("{from} -> {to}")
}

fn main() {}
