//! The counter of the official Rust SDK's examples (rmcp, `examples/servers/src/common/counter.rs`),
//! ported: the same tools, prompts, resources and instructions, written as an `impl` block whose
//! methods are the items, the count in a field of the instance the server is given.
//!
//! `cargo run --example counter` serves one counter that every session shares; with
//! `COUNTER_PER_SESSION=1` each session counts on a counter of its own, as rmcp's HTTP server
//! makes one per session.

use std::sync::atomic::{AtomicI32, Ordering};

use mcp_runtime::prelude::*;
use mcp_runtime::protocol::GetPromptResult;

#[derive(Default)]
struct Counter {
    counter: AtomicI32,
}

#[mcp_server]
impl Counter {
    /// Increment the counter by 1
    #[mcp_tool]
    fn increment(&self) -> String {
        (self.counter.fetch_add(1, Ordering::SeqCst) + 1).to_string()
    }

    /// Decrement the counter by 1
    #[mcp_tool]
    fn decrement(&self) -> String {
        (self.counter.fetch_sub(1, Ordering::SeqCst) - 1).to_string()
    }

    /// Get the current counter value
    #[mcp_tool]
    fn get_value(&self) -> String {
        self.counter.load(Ordering::SeqCst).to_string()
    }

    /// Long running task example
    #[mcp_tool]
    async fn long_task(&self) -> String {
        tokio::time::sleep(std::time::Duration::from_secs(10)).await;
        "Long task completed".to_owned()
    }

    /// Say hello to the client
    #[mcp_tool]
    fn say_hello(&self) -> String {
        "hello".to_owned()
    }

    /// Repeat what you say
    #[mcp_tool]
    fn echo(&self, #[mcp(flatten)] object: serde_json::Map<String, serde_json::Value>) -> String {
        serde_json::Value::Object(object).to_string()
    }

    /// Calculate the sum of two numbers
    #[mcp_tool]
    fn sum(&self, a: i32, b: i32) -> String {
        (a + b).to_string()
    }

    /// Get the session ID for this connection
    #[mcp_tool]
    fn get_session_id(&self, ctx: &Context) -> String {
        let id = ctx.header("mcp-session-id");
        id.unwrap_or("no session (not running over streamable HTTP?)").to_owned()
    }

    /// This is an example prompt that takes one required argument, message
    #[mcp_prompt(meta(meta_key = "meta_value"))]
    fn example_prompt(
        &self,
        /** A message to put in the prompt */
        message: String,
    ) -> String {
        format!("This is an example prompt with your message here: '{message}'")
    }

    /// Analyze the current counter value and suggest next steps
    #[mcp_prompt]
    fn counter_analysis(
        &self,
        /// The target value you're trying to reach
        goal: i32,
        /// Preferred strategy: 'fast' or 'careful'
        strategy: Option<String>,
    ) -> GetPromptResult {
        let strategy = strategy.unwrap_or_else(|| "careful".to_owned());
        let current = self.counter.load(Ordering::SeqCst);
        let difference = goal - current;
        GetPromptResult {
            description: Some(format!("Counter analysis for reaching {goal} from {current}")),
            messages: vec![
                PromptMessage::assistant("I'll analyze the counter situation and suggest the best approach."),
                PromptMessage::user(format!(
                    "Current counter value: {current}\nGoal value: {goal}\nDifference: {difference}\nStrategy preference: {strategy}\n\nPlease analyze the situation and suggest the best approach to reach the goal."
                )),
            ],
        }
    }

    /// A working directory
    #[mcp_resource("str:////Users/to/some/path/", name = "cwd")]
    fn cwd() -> &'static str {
        "/Users/to/some/path/"
    }

    /// A memo
    #[mcp_resource("memo://insights", name = "memo-name")]
    fn memo() -> &'static str {
        "Business Intelligence Memo\n\nAnalysis has revealed 5 key insights ..."
    }
}

const INSTRUCTIONS: &str = "This server provides counter tools and prompts. Tools: increment, decrement, get_value, say_hello, echo, sum. Prompts: example_prompt (takes a message), counter_analysis (analyzes counter state with a goal).";

fn main() -> mcp_runtime::Result<()> {
    let server = Server::new("counter", env!("CARGO_PKG_VERSION")).instructions(INSTRUCTIONS);
    match std::env::var_os("COUNTER_PER_SESSION") {
        Some(_) => server.instance_per_session(Counter::default).run(),
        None => server.instance(Counter::default()).run(),
    }
}

#[cfg(test)]
mod tests;
