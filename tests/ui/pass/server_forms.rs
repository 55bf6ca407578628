//! The methods of an `#[mcp_server]` block take every form a free function takes (arguments,
//! `#[mcp(...)]`, `Context`, `State<T>`, a flattened struct, `async` or not, no `self`), serve
//! beside free functions, and stay callable as methods; lints stay quiet.
#![deny(warnings)]

use std::sync::Mutex;

use mcp_runtime::prelude::*;
use mcp_runtime::testing::TestClient;
use serde_json::json;

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Filter {
    /// Only names starting with this
    prefix: String,
}

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Names {
    names: Vec<String>,
}

struct Greeting(String);

#[derive(Default)]
struct Guests {
    names: Mutex<Vec<String>>,
}

#[mcp_server]
impl Guests {
    /// Adds a guest; returns how many there are.
    #[mcp_tool(idempotent)]
    async fn add(
        &self,
        ctx: &Context,
        /// The guest's name
        name: String,
        /// How many times (1 if left out)
        #[mcp(default, rename = "times")]
        count: u8,
    ) -> Result<String, String> {
        let _ = ctx.revision();
        let mut names = self.names.lock().map_err(|e| e.to_string())?;
        names.extend(std::iter::repeat_n(name, usize::from(count.max(1))));
        Ok(names.len().to_string())
    }

    /// The guests whose names start with a prefix.
    #[mcp_tool(read_only)]
    fn find(&self, #[mcp(flatten)] filter: Filter) -> Json<Names> {
        let names = self.names.lock().unwrap_or_else(|e| e.into_inner());
        Json(Names { names: names.iter().filter(|n| n.starts_with(&filter.prefix)).cloned().collect() })
    }

    /// Greets a guest with the configured greeting.
    #[mcp_tool]
    fn greet(&self, greeting: State<Greeting>, ctx: Context, index: usize) -> String {
        let _ = ctx.request_id();
        let names = self.names.lock().unwrap_or_else(|e| e.into_inner());
        format!("{}, {}!", greeting.0, names.get(index).map_or("nobody", String::as_str))
    }

    /// A version, without the instance.
    #[mcp_tool(name = "version")]
    fn version_tool() -> &'static str {
        "1"
    }

    /// One guest.
    #[mcp_resource("guests://{index}", mime = "text/plain")]
    async fn guest(&self, index: usize) -> Result<String, ReadError> {
        let names = self.names.lock().unwrap_or_else(|e| e.into_inner());
        names.get(index).cloned().ok_or_else(|| ResourceNotFound.into())
    }

    /// Writes an invitation.
    #[mcp_prompt(complete(tone = |typed| starting_with(typed, ["warm", "formal"])))]
    fn invite(&self, index: usize, tone: Option<String>) -> String {
        let names = self.names.lock().unwrap_or_else(|e| e.into_inner());
        format!("Write a {} invitation to {}.", tone.as_deref().unwrap_or("warm"), names[index])
    }

    /// An ordinary method, not an item.
    fn count(&self) -> usize {
        self.names.lock().unwrap_or_else(|e| e.into_inner()).len()
    }
}

/// A free function, served beside the methods.
#[mcp_tool]
fn ping() -> &'static str {
    "pong"
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let guests = Guests::default();
    assert_eq!(guests.add(&Context::detached(), "Ada".into(), 1).await.as_deref(), Ok("1"));
    assert_eq!(guests.count(), 1);

    let server = Server::new("party", "1.0.0").state(Greeting("Welcome".into())).instance(Guests::default());
    let client = TestClient::connect(server).await.expect("the server starts");
    let names: Vec<String> = client.list_tools().await.expect("tools").iter().map(|t| t["name"].to_string()).collect();
    assert_eq!(names, ["\"add\"", "\"find\"", "\"greet\"", "\"ping\"", "\"version\""]);
    let added = client.call_tool("add", json!({"name": "Ada", "times": 2})).await.expect("a result");
    assert_eq!(added["content"][0]["text"], "2");
    let found = client.call_tool("find", json!({"prefix": "A"})).await.expect("a result");
    assert_eq!(found["structuredContent"], json!({"names": ["Ada", "Ada"]}));
    let greeted = client.call_tool("greet", json!({"index": 0})).await.expect("a result");
    assert_eq!(greeted["content"][0]["text"], "Welcome, Ada!");
    assert_eq!(client.call_tool("ping", json!({})).await.expect("a result")["content"][0]["text"], "pong");
    assert_eq!(client.call_tool("version", json!({})).await.expect("a result")["content"][0]["text"], "1");
    let read = client.read_resource("guests://0").await.expect("contents");
    assert_eq!(read["contents"][0]["text"], "Ada");
    let prompt = client.get_prompt("invite", json!({"index": "0"})).await.expect("a prompt");
    assert_eq!(prompt["messages"][0]["content"]["text"], "Write a warm invitation to Ada.");
    let completed = client.complete(json!({"type": "ref/prompt", "name": "invite"}), "tone", "f").await;
    assert_eq!(completed.expect("completions"), ["formal"]);
    client.close().await.expect("the server stops cleanly");
}
