use mcp_runtime::mcp_tool;

#[mcp_tool(scopes("notes:write", "two words", "quo\"te", ""), scopes)]
fn wipe() -> &'static str {
    "wiped"
}

fn main() {}
