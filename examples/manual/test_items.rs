//! Resources, templates, prompts and completions for the wire tests, with tools that drive
//! the server's handle (resource updates, list changes). Added by `--test-items`, which also
//! makes the lists dynamic.

use mcp_runtime::protocol::{ErrorObject, PromptMessage, Resource, ResourceContents};
use mcp_runtime::{
    CompletionContext, ItemKind, NotFound, PromptDescriptor, PromptGet, ReadError, ResourceDescriptor, ResourceRead,
    Server, ToolDescriptor, starting_with,
};
use schemars::JsonSchema;
use serde::Deserialize;

#[derive(Deserialize, JsonSchema)]
struct UriArgs {
    /// The URI that changed
    uri: String,
}

#[derive(Deserialize, JsonSchema)]
struct ToggleArgs {
    /// The tool to enable or disable
    name: String,
    /// Whether it should be enabled
    enabled: bool,
}

const COLORS: [&str; 4] = ["red", "green", "blue", "black"];

/// Completes a shade from what was typed, narrowed by the color already chosen.
fn shades(typed: &str, context: &CompletionContext) -> Vec<String> {
    let shades: &[&str] = match context.resolved("color") {
        Some("blue") => &["navy", "sky", "teal"],
        Some(_) => &["light", "dark"],
        None => &["light", "dark", "navy", "sky", "teal"],
    };
    starting_with(typed, shades.iter().copied())
}

pub(crate) fn add(server: Server) -> Server {
    let handle = server.handle();
    let toggler = server.handle();
    server
        .dynamic_lists()
        .resource(
            ResourceDescriptor::fixed("test://static", "static")
                .title("A static text")
                .description("Always the same text")
                .mime_type("text/plain")
                .size(5)
                .subscribable(true)
                .reader(|_: ResourceRead| async { "hello" }),
        )
        .resource(
            ResourceDescriptor::fixed("test://binary", "binary")
                .mime_type("application/octet-stream")
                .reader(|_: ResourceRead| async { vec![0u8, 1, 2, 255] }),
        )
        .resource(ResourceDescriptor::fixed("test://two-parts", "two-parts").reader(|read: ResourceRead| async move {
            vec![
                ResourceContents::text(read.uri(), Some("text/plain".into()), "part one"),
                ResourceContents::text(read.uri(), Some("text/plain".into()), "part two"),
            ]
        }))
        .resource(
            ResourceDescriptor::template("test://items/{id}", "item")
                .expect("a valid template")
                .description("Items 1 to 3")
                .mime_type("text/plain")
                .subscribable(true)
                .lister(|_| async {
                    (1..=3).map(|id| Resource::new(format!("test://items/{id}"), format!("item {id}"))).collect()
                })
                .reader(|read: ResourceRead| async move {
                    let id: u32 = read.parse_variable("id")?;
                    if !(1..=3).contains(&id) {
                        return Err(ReadError::from(NotFound));
                    }
                    Ok(format!("item number {id}"))
                }),
        )
        .resource(
            ResourceDescriptor::template("test://colors/{color}/{shade}", "color")
                .expect("a valid template")
                .complete("color", |typed: &str| starting_with(typed, COLORS))
                .complete("shade", shades)
                .reader(|read: ResourceRead| async move {
                    format!("{} {}", read.variable("shade").unwrap_or(""), read.variable("color").unwrap_or(""))
                }),
        )
        .prompt(
            PromptDescriptor::new("greet")
                .title("Greeting")
                .description("Greets someone")
                .argument("name", Some("Who to greet"), true)
                .argument("style", Some("formal or casual"), false)
                .complete("style", |typed: &str| starting_with(typed, ["formal", "casual"]))
                .handler(|get: PromptGet| async move {
                    let name: String = get.parse_argument("name")?;
                    let style: Option<String> = get.parse_optional_argument("style")?;
                    let greeting = if style.as_deref() == Some("formal") { "Good day" } else { "Hi" };
                    Ok::<_, ErrorObject>(vec![
                        PromptMessage::user(format!("{greeting}, {name}!")),
                        PromptMessage::assistant("Hello! How can I help?"),
                    ])
                }),
        )
        .tool(ToolDescriptor::new("touch").description("Says that a resource changed").handler(move |args: UriArgs| {
            let handle = handle.clone();
            async move { handle.resource_updated(&args.uri).map(|()| "notified").map_err(|e| e.to_string()) }
        }))
        .tool(ToolDescriptor::new("toggle_tool").description("Enables or disables a tool").handler(
            move |args: ToggleArgs| {
                let handle = toggler.clone();
                async move {
                    let result = if args.enabled {
                        handle.enable(ItemKind::Tool, &args.name)
                    } else {
                        handle.disable(ItemKind::Tool, &args.name)
                    };
                    result.map(|()| "done").map_err(|e| e.to_string())
                }
            },
        ))
}
