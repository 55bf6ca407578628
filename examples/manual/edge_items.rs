//! Items the request-path tests need: ones that fail in every place user code runs
//! (`--faulty-items`), and ones carrying every descriptive field a revision may leave out
//! (`--decorated`).

use mcp_runtime::protocol::Icon;
use mcp_runtime::{PromptDescriptor, PromptGet, ResourceDescriptor, ResourceRead, Server, ToolDescriptor};
use schemars::JsonSchema;
use serde::Deserialize;

#[derive(Deserialize, JsonSchema)]
struct NoArgs {}

/// A resource reader, a template lister, a prompt and a completer that panic, beside a
/// resource that works.
pub(crate) fn add_faulty(server: Server) -> Server {
    server
        .resource(ResourceDescriptor::fixed("test://fine", "fine").reader(|_: ResourceRead| async { "fine" }))
        .resource(ResourceDescriptor::fixed("test://panics", "panics").reader(|_: ResourceRead| async {
            if true {
                panic!("this reader always panics");
            }
            "unreachable"
        }))
        .resource(
            ResourceDescriptor::template("test://faulty/{x}", "faulty")
                .expect("a valid template")
                .lister(|_| async {
                    if true {
                        panic!("this lister always panics");
                    }
                    Vec::new()
                })
                .reader(|read: ResourceRead| async move { format!("faulty {}", read.uri()) }),
        )
        .prompt(
            PromptDescriptor::new("panics")
                .argument("arg", Some("Completed by a completer that panics"), false)
                .complete("arg", |_: &str| -> Vec<String> { panic!("this completer always panics") })
                .handler(|_: PromptGet| async {
                    if true {
                        panic!("this prompt always panics");
                    }
                    Ok::<_, mcp_runtime::protocol::ErrorObject>("unreachable".to_owned())
                }),
        )
}

fn icon(name: &str) -> Icon {
    let src = format!("https://example.com/{name}.png");
    Icon { mime_type: Some("image/png".into()), sizes: Some(vec!["48x48".into()]), ..Icon::new(src) }
}

/// `serverInfo` with a title, description, website and icon, and a tool and a resource with
/// a title, icons and `_meta`.
pub(crate) fn add_decorated(server: Server) -> Server {
    server
        .title("Manual")
        .description("The builder-API example")
        .website_url("https://example.com/manual")
        .icon(icon("server"))
        .tool(
            ToolDescriptor::new("decorated")
                .title("Decorated")
                .icon(icon("tool"))
                .meta("example/kind", serde_json::json!("decorated"))
                .handler(|_: NoArgs| async { "decorated" }),
        )
        .resource(
            ResourceDescriptor::fixed("test://decorated", "decorated")
                .title("Decorated")
                .icon(icon("resource"))
                .meta("example/kind", serde_json::json!("decorated"))
                .reader(|_: ResourceRead| async { "decorated" }),
        )
}
