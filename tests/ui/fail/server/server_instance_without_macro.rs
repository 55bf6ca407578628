use mcp_runtime::prelude::*;

struct Counter;

impl Counter {
    fn increment(&self) -> String {
        "1".to_owned()
    }
}

fn main() {
    let _ = Counter.increment();
    let _ = Server::new("counter", "1.0.0").instance(Counter);
}
