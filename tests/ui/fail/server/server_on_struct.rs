use mcp_runtime::prelude::*;

#[mcp_server]
struct Counter {
    value: i64,
}

fn main() {}
