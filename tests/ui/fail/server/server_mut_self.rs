use mcp_runtime::prelude::*;

#[derive(Default)]
struct Counter {
    value: i64,
}

#[mcp_server]
impl Counter {
    /// Adds 1 to the counter.
    #[mcp_tool]
    fn increment(&mut self) -> String {
        self.value += 1;
        self.value.to_string()
    }
}

fn main() {
    let _ = Server::new("counter", "1.0.0").instance(Counter::default());
}
