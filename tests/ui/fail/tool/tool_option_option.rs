use mcp_runtime::mcp_tool;

/// Sets a nickname; `null` was meant to clear it, absent to keep it.
#[mcp_tool]
fn set_nickname(nickname: Option<Option<String>>) -> String {
    format!("{nickname:?}")
}

fn main() {}
