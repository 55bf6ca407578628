//! Items that talk back through the request context (`--context-items`): progress, log
//! messages (through `ctx.log` and through `tracing`), cancellation seen by work handed
//! elsewhere, and time limits on a tool, a resource and a prompt.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use mcp_runtime::protocol::{ErrorObject, LogLevel};
use mcp_runtime::{Context, PromptDescriptor, PromptGet, ResourceDescriptor, ResourceRead, Server, ToolDescriptor};
use schemars::JsonSchema;
use serde::Deserialize;

#[derive(Deserialize, JsonSchema)]
struct ProgressArgs {
    /// How many steps to report
    steps: u32,
    /// How long each step takes, in milliseconds
    #[serde(default)]
    ms: u64,
}

#[derive(Deserialize, JsonSchema)]
struct LogArgs {
    /// The level of every message
    level: LogLevel,
    /// How many messages
    count: u32,
}

#[derive(Deserialize, JsonSchema)]
struct NoArgs {}

/// Set once a cancelled `wait_for_cancel` call's context says so.
static CANCEL_SEEN: AtomicBool = AtomicBool::new(false);

pub(crate) fn add(server: Server) -> Server {
    server
        .tool(
            ToolDescriptor::new("progress")
                .description("Reports each step, then a step that does not advance (not sent)")
                .handler_with_context(|args: ProgressArgs, ctx: Context| async move {
                    let mut sent = 0;
                    for step in 1..=args.steps {
                        tokio::time::sleep(Duration::from_millis(args.ms)).await;
                        let message = format!("step {step}");
                        sent +=
                            u32::from(ctx.progress(f64::from(step), Some(f64::from(args.steps)), Some(&message)).await);
                    }
                    sent += u32::from(ctx.progress(1.0, None, None).await);
                    tokio::time::sleep(Duration::from_millis(args.ms)).await;
                    format!("{sent} sent")
                }),
        )
        .tool(
            ToolDescriptor::new("log")
                .description("Logs messages at a level through the context")
                .handler_with_context(|args: LogArgs, ctx: Context| async move {
                    let mut sent = 0;
                    for n in 0..args.count {
                        sent += u32::from(ctx.log(args.level, serde_json::json!({ "n": n })).await);
                    }
                    format!("{sent} sent")
                }),
        )
        .tool(ToolDescriptor::new("trace").description("Logs through tracing inside the handler").handler(
            |_: NoArgs| async move {
                tracing::warn!(answer = 42, "a warning from inside the tool");
                tracing::debug!("a debug message from inside the tool");
                "traced"
            },
        ))
        .tool(
            ToolDescriptor::new("wait_for_cancel")
                .description("Waits until cancelled; a task of its own notes the cancellation")
                .handler_with_context(|_: NoArgs, ctx: Context| async move {
                    let token = ctx.cancel_token();
                    // What a test waits for before it cancels.
                    eprintln!("wait_for_cancel: waiting");
                    tokio::task::spawn_blocking(move || {
                        while !token.is_cancelled() {
                            std::thread::sleep(Duration::from_millis(5));
                        }
                        CANCEL_SEEN.store(true, Ordering::SeqCst);
                        eprintln!("wait_for_cancel: cancellation seen");
                    });
                    ctx.cancelled().await;
                    "never answered"
                }),
        )
        .tool(
            ToolDescriptor::new("late_progress")
                .description("Answers at once; a task of its own reports progress and logs 100 ms later")
                .handler_with_context(|_: NoArgs, ctx: Context| async move {
                    tokio::spawn(async move {
                        tokio::time::sleep(Duration::from_millis(100)).await;
                        let sent = ctx.progress(1.0, None, None).await || ctx.log(LogLevel::Error, "late").await;
                        eprintln!("late_progress: sent after the response: {sent}");
                    });
                    "answered"
                }),
        )
        .tool(ToolDescriptor::new("whoami").description("Who asked, and their `X-Trace` header").handler_with_context(
            |_: NoArgs, ctx: Context| async move {
                let who = ctx.identity().map_or("nobody", |identity| identity.subject());
                format!("{who}; x-trace={}", ctx.header("x-trace").unwrap_or("-"))
            },
        ))
        .tool(
            ToolDescriptor::new("reconnect")
                .description("Reports progress, closing its SSE stream after the first (HTTP): the client resumes")
                .handler_with_context(|_: NoArgs, ctx: Context| async move {
                    ctx.progress(1.0, Some(3.0), None).await;
                    ctx.close_sse_stream();
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    ctx.progress(2.0, Some(3.0), None).await;
                    ctx.progress(3.0, Some(3.0), None).await;
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    "reconnected"
                }),
        )
        .tool(
            ToolDescriptor::new("cancel_seen")
                .description("Whether a cancelled `wait_for_cancel` noticed")
                .handler(|_: NoArgs| async move { CANCEL_SEEN.load(Ordering::SeqCst).to_string() }),
        )
        .tool(
            ToolDescriptor::new("too_slow")
                .description("Sleeps 10 s under a 200 ms limit")
                .timeout(Duration::from_millis(200))
                .handler(|_: NoArgs| async move {
                    tokio::time::sleep(Duration::from_secs(10)).await;
                    "woke"
                }),
        )
        .resource(ResourceDescriptor::fixed("test://too-slow", "too-slow").timeout(Duration::from_millis(200)).reader(
            |_: ResourceRead| async move {
                tokio::time::sleep(Duration::from_secs(10)).await;
                "woke"
            },
        ))
        .prompt(PromptDescriptor::new("too_slow").timeout(Duration::from_millis(200)).handler(
            |_: PromptGet| async move {
                tokio::time::sleep(Duration::from_secs(10)).await;
                Ok::<_, ErrorObject>("woke".to_owned())
            },
        ))
}
