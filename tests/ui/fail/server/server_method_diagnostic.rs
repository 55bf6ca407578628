// A method's mistake is reported as a free function's is, once: the server still takes the
// instance, with no second error.
use mcp_runtime::prelude::*;

struct Greeter;

#[mcp_server]
impl Greeter {
    /// Greets someone.
    #[mcp_tool]
    fn greet(&self, name: &str) -> String {
        format!("Hello, {name}!")
    }
}

fn main() {
    let _ = Server::new("greeter", "1.0.0").instance(Greeter);
}
