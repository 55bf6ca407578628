use mcp_runtime::mcp_tool;

struct Service;

impl Service {
    #[mcp_tool]
    fn lookup(&self, key: String) -> String {
        key
    }
}

fn main() {}
