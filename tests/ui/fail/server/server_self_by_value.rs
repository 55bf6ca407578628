use mcp_runtime::prelude::*;

struct Counter;

#[mcp_server]
impl Counter {
    /// The counter's value.
    #[mcp_resource("counter://value")]
    fn value(self) -> String {
        "0".to_owned()
    }
}

fn main() {}
