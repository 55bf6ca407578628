use mcp_runtime::mcp_resource;

/// The report.
#[mcp_resource("reports://latest", task = "optional")]
async fn latest() -> String {
    String::new()
}

fn main() {}
