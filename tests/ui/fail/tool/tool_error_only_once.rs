// The declaration has a mistake; the code using the tool still compiles, so the macro's
// error is the only one.
use mcp_runtime::{Server, mcp_tool};

#[mcp_tool(name = "")]
fn ping() -> &'static str {
    "pong"
}

fn main() {
    assert_eq!(ping(), "pong");
    let _server = Server::builder("s", "1").tool(ping);
}
