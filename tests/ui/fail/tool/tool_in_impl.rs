use mcp_runtime::mcp_tool;

struct Shop;

impl Shop {
    /// Lists what the shop sells.
    #[mcp_tool]
    fn items() -> String {
        "kite, ball".to_owned()
    }
}

fn main() {}
