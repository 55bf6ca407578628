use mcp_runtime::prelude::*;

struct Counter;

#[mcp_server(name = "counter")]
impl Counter {
    /// Says hello.
    #[mcp_tool]
    fn hello(&self) -> String {
        "hello".to_owned()
    }
}

fn main() {}
