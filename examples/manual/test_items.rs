//! Resources, templates, prompts and completions for the wire tests, with tools that drive
//! the server's handle: `touch` (a resource changed), `change_item` (enable, disable or remove
//! any item) and `add_item` (add a tool, a resource or a prompt). Added by `--test-items`,
//! which also makes the lists dynamic.

use mcp_runtime::protocol::{ErrorObject, PromptMessage, Resource, ResourceContents};
use mcp_runtime::{
    CompletionContext, ItemKind, PromptDescriptor, PromptGet, ReadError, ResourceDescriptor, ResourceNotFound,
    ResourceRead, Server, ServerHandle, ToolDescriptor, starting_with,
};
use schemars::JsonSchema;
use serde::Deserialize;

#[derive(Deserialize, JsonSchema)]
struct UriArgs {
    /// The URI that changed
    uri: String,
}

/// The kinds of item `change_item` acts on.
#[derive(Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Kind {
    Tool,
    Resource,
    Template,
    Prompt,
}

impl From<Kind> for ItemKind {
    fn from(kind: Kind) -> Self {
        match kind {
            Kind::Tool => ItemKind::Tool,
            Kind::Resource => ItemKind::Resource,
            Kind::Template => ItemKind::ResourceTemplate,
            Kind::Prompt => ItemKind::Prompt,
        }
    }
}

/// What `change_item` does.
#[derive(Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Action {
    Enable,
    Disable,
    Remove,
}

#[derive(Deserialize, JsonSchema)]
struct ChangeArgs {
    /// The kind of item: `tool`, `resource`, `template` or `prompt`
    kind: Kind,
    /// The item: a tool's or prompt's name, a resource's URI, a template's URI template
    key: String,
    /// What to do with it: `enable`, `disable` or `remove`
    action: Action,
}

/// The kinds of item `add_item` adds.
#[derive(Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum AddedKind {
    Tool,
    Resource,
    Prompt,
}

#[derive(Deserialize, JsonSchema)]
struct AddArgs {
    /// The kind of item: `tool`, `resource` (at `test://added/<name>`) or `prompt`
    kind: AddedKind,
    /// Its name
    name: String,
}

#[derive(Deserialize, JsonSchema)]
struct TextArgs {
    /// The text to send back
    text: String,
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
    let changer = server.handle();
    let adder = server.handle();
    server
        .dynamic_lists()
        .resource(
            ResourceDescriptor::fixed("test://static", "static")
                .title("A static text")
                .description("Always the same text")
                .mime("text/plain")
                .size(5)
                .subscribable(true)
                .reader(|_: ResourceRead| async { "hello" }),
        )
        .resource(
            ResourceDescriptor::fixed("test://binary", "binary")
                .mime("application/octet-stream")
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
                .mime("text/plain")
                .subscribable(true)
                .lister(|_| async {
                    (1..=3).map(|id| Resource::new(format!("test://items/{id}"), format!("item {id}"))).collect()
                })
                .reader(|read: ResourceRead| async move {
                    let id: u32 = read.parse_variable("id")?;
                    if !(1..=3).contains(&id) {
                        return Err(ReadError::from(ResourceNotFound));
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
        .tool(
            ToolDescriptor::new("change_item")
                .description("Enables, disables or removes a tool, resource, template or prompt")
                .handler(move |args: ChangeArgs| {
                    let handle = changer.clone();
                    async move {
                        let (kind, key) = (ItemKind::from(args.kind), args.key.as_str());
                        let changed = match args.action {
                            Action::Enable => handle.enable(kind, key),
                            Action::Disable => handle.disable(kind, key),
                            Action::Remove => handle.remove(kind, key),
                        };
                        changed.map(|()| "done").map_err(|e| e.to_string())
                    }
                }),
        )
        .tool(
            ToolDescriptor::new("add_item")
                .description("Adds a tool that echoes `text`, a resource at `test://added/<name>`, or a prompt")
                .handler(move |args: AddArgs| {
                    let handle = adder.clone();
                    async move { add_item(&handle, args.kind, &args.name).map(|()| "added").map_err(|e| e.to_string()) }
                }),
        )
}

/// Adds the item `add_item` asked for through `handle`.
fn add_item(handle: &ServerHandle, kind: AddedKind, name: &str) -> mcp_runtime::Result<()> {
    let text = format!("added {name}");
    match kind {
        AddedKind::Tool => handle.add_tool(
            ToolDescriptor::new(name)
                .description("Added while the server runs; sends the text back")
                .handler(|args: TextArgs| async move { args.text }),
        ),
        AddedKind::Resource => handle.add_resource(
            ResourceDescriptor::fixed(format!("test://added/{name}"), name)
                .description("Added while the server runs")
                .mime("text/plain")
                .reader(move |_: ResourceRead| {
                    let text = text.clone();
                    async move { text }
                }),
        ),
        AddedKind::Prompt => handle.add_prompt(
            PromptDescriptor::new(name).description("Added while the server runs").handler(move |_: PromptGet| {
                let text = text.clone();
                async move { text }
            }),
        ),
    }
}
