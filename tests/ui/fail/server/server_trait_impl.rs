use mcp_runtime::prelude::*;

struct Counter;

#[mcp_server]
impl Default for Counter {
    fn default() -> Self {
        Counter
    }
}

fn main() {}
