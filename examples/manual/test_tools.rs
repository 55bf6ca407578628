//! Tools the wire tests need beyond `echo` and `add`: a slow one, one that measures how many
//! calls run at once, a panicking one, one per content kind, structured output of both shapes.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use mcp_runtime::protocol::{Annotations, ResourceContents, Role};
use mcp_runtime::{CallToolResult, Content, Json, Server, ToolDescriptor};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Deserialize, JsonSchema)]
struct SleepArgs {
    /// How long to sleep, in milliseconds
    ms: u64,
}

#[derive(Deserialize, JsonSchema)]
struct NoArgs {}

#[derive(Serialize, JsonSchema)]
struct Point {
    x: i32,
    y: i32,
}

/// A 1×1 transparent PNG.
const PIXEL_PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";

/// Calls of `gauge` running now, and the most seen at once.
static RUNNING: AtomicUsize = AtomicUsize::new(0);
static MOST: AtomicUsize = AtomicUsize::new(0);

#[derive(Deserialize, JsonSchema)]
struct RegionalArgs {
    /// A region, mirrored in the `Mcp-Param-Region` header
    region: String,
    /// A count, mirrored in the `Mcp-Param-Count` header
    count: i64,
}

pub(crate) fn add(server: Server) -> Server {
    server
        .tool(
            ToolDescriptor::new("regional")
                .description("Arguments mirrored in HTTP headers (2026-07-28)")
                .header_param("region", "Region")
                .header_param("count", "Count")
                .handler(|a: RegionalArgs| async move { format!("region={} count={}", a.region, a.count) }),
        )
        .tool(
            ToolDescriptor::new("gauge")
                .description("Sleeps, then says how many calls of it ran at once at most so far")
                .handler(|a: SleepArgs| async move {
                    let now = RUNNING.fetch_add(1, Ordering::SeqCst) + 1;
                    MOST.fetch_max(now, Ordering::SeqCst);
                    tokio::time::sleep(Duration::from_millis(a.ms)).await;
                    RUNNING.fetch_sub(1, Ordering::SeqCst);
                    format!("at most {} at once", MOST.load(Ordering::SeqCst))
                }),
        )
        .tool(ToolDescriptor::new("sleep").description("Sleeps, then says how long").handler(
            |a: SleepArgs| async move {
                tokio::time::sleep(Duration::from_millis(a.ms)).await;
                format!("slept {} ms", a.ms)
            },
        ))
        .tool(ToolDescriptor::new("panic").description("Always panics").handler(|_: NoArgs| async move {
            if true {
                panic!("this tool always panics");
            }
            "unreachable"
        }))
        .tool(ToolDescriptor::new("content_kinds").description("Returns one block of every content kind").handler(
            |_: NoArgs| async move {
                let annotations = Annotations {
                    audience: Some(vec![Role::User]),
                    priority: Some(0.5),
                    last_modified: Some("2025-01-01T00:00:00Z".into()),
                };
                vec![
                    Content::Text { text: "text".into(), annotations: Some(annotations), meta: None },
                    Content::image(PIXEL_PNG, "image/png"),
                    Content::audio("UklGRgAAAABXQVZF", "audio/wav"),
                    Content::resource_link("test://linked", "linked"),
                    Content::resource(ResourceContents::Text {
                        uri: "test://embedded".into(),
                        mime_type: Some("text/plain".into()),
                        text: "embedded".into(),
                        meta: None,
                    }),
                ]
            },
        ))
        .tool(
            ToolDescriptor::new("point")
                .description("Structured output: an object")
                .handler(|_: NoArgs| async move { Json(Point { x: 1, y: 2 }) }),
        )
        .tool(
            ToolDescriptor::new("numbers")
                .description("Structured output: an array")
                .handler(|_: NoArgs| async move { Json(vec![1, 2, 3]) }),
        )
        .tool(
            ToolDescriptor::new("needs_elicitation")
                .description("Needs a client that declared `elicitation`")
                .requires_client_capability("elicitation")
                .handler(|_: NoArgs| async move { "the client can elicit" }),
        )
        .tool(
            ToolDescriptor::new("fail")
                .description("Fails with isError")
                .handler(|_: NoArgs| async move { CallToolResult::error("this tool always fails") }),
        )
}
