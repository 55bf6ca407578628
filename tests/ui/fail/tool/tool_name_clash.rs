use mcp_runtime::mcp_tool;

/// The search index, in a module named like the tool.
mod search {
    pub fn index() -> Vec<&'static str> {
        vec!["kite", "ball"]
    }
}

/// Searches the index.
#[mcp_tool]
fn search(word: String) -> String {
    search::index().into_iter().filter(|w| w.contains(&word)).collect()
}

fn main() {}
