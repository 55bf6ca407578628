use mcp_runtime::prelude::*;

struct Store<T>(Vec<T>);

#[mcp_server]
impl<T: Send + Sync + 'static> Store<T> {
    /// How many values the store holds.
    #[mcp_tool]
    fn count(&self) -> String {
        self.0.len().to_string()
    }
}

fn main() {}
