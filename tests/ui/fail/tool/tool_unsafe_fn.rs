use mcp_runtime::mcp_tool;

/// Reads a register.
#[mcp_tool]
unsafe fn peek(address: u64) -> String {
    address.to_string()
}

fn main() {}
