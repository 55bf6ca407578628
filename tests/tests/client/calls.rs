//! The client's calls against servers in memory: what the server did not declare is refused
//! before it is sent, a call that times out is cancelled on the server, progress arrives on
//! the call's own stream, a list change drops the cached list, and the server's questions
//! reach the client's async handlers in both eras.

use std::sync::Arc;
use std::time::Duration;

use mcp_runtime::client::{CallOptions, Client, ClientError, Notification};
use mcp_runtime::protocol::Revision;
use mcp_runtime::{Context, ItemKind, Server, ToolDescriptor};
use serde::Deserialize;
use serde_json::json;
use tokio::sync::Notify;

#[derive(Deserialize, schemars::JsonSchema)]
struct NoArgs {}

fn only_tools() -> Server {
    Server::builder("tools-only", "1").tool(ToolDescriptor::new("noop").handler(|_: NoArgs| async { "ok" }))
}

#[tokio::test]
async fn a_method_the_server_did_not_declare_is_refused_before_it_is_sent() {
    for revision in [Revision::V2025_11_25, Revision::V2026_07_28] {
        let client = Client::builder().revision(revision).memory(only_tools()).await.expect("connects");
        let refusals = [
            client.list_prompts().await.map(drop).expect_err("no prompts"),
            client.get_prompt("p", json!({})).await.map(drop).expect_err("no prompts"),
            client.list_resources().await.map(drop).expect_err("no resources"),
            client.subscribe("note://1").await.expect_err("no subscriptions"),
            client.set_log_level(mcp_runtime::protocol::LogLevel::Info).await.expect_err("no logging"),
        ];
        for refused in refusals {
            assert!(matches!(refused, ClientError::NotDeclared { .. }), "{revision}: {refused:?}");
        }
        // Had it been sent, the server would have answered "method not found": the raw
        // request does reach it.
        let sent = client.request("prompts/list", json!({})).await.expect_err("the server refuses");
        assert_eq!(sent.rpc().map(|e| e.code), Some(-32601), "{revision}: {sent:?}");
        assert!(!client.call_tool("noop", json!({})).await.expect("declared").is_error);
    }
}

#[tokio::test]
async fn a_call_that_times_out_is_cancelled_on_the_server() {
    let cancelled = Arc::new(Notify::new());
    let server = || {
        let told = Arc::clone(&cancelled);
        Server::builder("slow", "1").tool(ToolDescriptor::new("wait").handler_with_context(
            move |_: NoArgs, ctx: Context| {
                let told = Arc::clone(&told);
                async move {
                    let token = ctx.cancel_token();
                    tokio::spawn(async move {
                        token.cancelled().await;
                        told.notify_one();
                    });
                    std::future::pending::<String>().await
                }
            },
        ))
    };
    for revision in [Revision::V2025_11_25, Revision::V2026_07_28] {
        let client = Client::builder().revision(revision).memory(server()).await.expect("connects");
        let options = CallOptions::new().timeout(Duration::from_millis(100));
        let error = client.call_tool_with("wait", json!({}), options).await.expect_err("no answer in time");
        assert!(matches!(error, ClientError::Timeout { .. }), "{error:?}");
        tokio::time::timeout(Duration::from_secs(10), cancelled.notified())
            .await
            .unwrap_or_else(|_| panic!("{revision}: the server never saw the cancellation"));
    }
}

#[tokio::test]
async fn progress_arrives_on_the_call_s_own_stream_in_order() {
    let server = || {
        Server::builder("progress", "1").tool(ToolDescriptor::new("count").handler_with_context(
            |_: NoArgs, ctx: Context| async move {
                for step in 1..=3 {
                    ctx.progress(f64::from(step), Some(3.0), Some("counting")).await;
                }
                "counted"
            },
        ))
    };
    for revision in [Revision::V2025_11_25, Revision::V2026_07_28] {
        let client = Client::builder().revision(revision).memory(server()).await.expect("connects");
        let (options, mut progress) = CallOptions::new().progress();
        let result = client.call_tool_with("count", json!({}), options).await.expect("the call");
        assert!(!result.is_error);
        let mut seen = Vec::new();
        while let Ok(Some(report)) = tokio::time::timeout(Duration::from_millis(200), progress.next()).await {
            seen.push((report.progress, report.total));
        }
        assert_eq!(seen, [(1.0, Some(3.0)), (2.0, Some(3.0)), (3.0, Some(3.0))], "{revision}");
    }
}

#[tokio::test]
async fn a_list_change_drops_the_cached_tool_list() {
    let server = Server::builder("changing", "1")
        .dynamic_lists()
        .tool(ToolDescriptor::new("first").handler(|_: NoArgs| async { "1" }))
        .tool(ToolDescriptor::new("second").handler(|_: NoArgs| async { "2" }));
    let handle = server.handle();
    let client = Client::builder().revision(Revision::V2025_11_25).memory(server).await.expect("connects");
    let mut notifications = client.notifications();
    assert_eq!(client.list_tools().await.expect("tools").len(), 2);
    handle.disable(ItemKind::Tool, "second").expect("disables");
    let heard = tokio::time::timeout(Duration::from_secs(5), notifications.next()).await.expect("a notification");
    assert_eq!(heard, Some(Notification::ToolsChanged));
    let names: Vec<String> = client.list_tools().await.expect("tools").into_iter().map(|t| t.name).collect();
    assert_eq!(names, ["first"], "the cached list was not dropped");
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
struct Confirm {
    ok: bool,
}

#[tokio::test]
async fn the_server_s_questions_reach_async_handlers_in_both_eras() {
    let server = || {
        Server::builder("asking", "1").tool(ToolDescriptor::new("confirm").handler_with_context(
            |_: NoArgs, ctx: Context| async move {
                match ctx.elicit::<Confirm>("Sure?").await {
                    Ok(mcp_runtime::asking::Elicitation::Accept(Confirm { ok: true })) => "confirmed".to_owned(),
                    other => format!("not confirmed: {other:?}"),
                }
            },
        ))
    };
    for revision in [Revision::V2025_11_25, Revision::V2026_07_28] {
        let client = Client::builder()
            .revision(revision)
            .on_elicitation(|question| async move {
                assert_eq!(question["message"], "Sure?");
                tokio::task::yield_now().await;
                Ok(json!({"action": "accept", "content": {"ok": true}}))
            })
            .memory(server())
            .await
            .expect("connects");
        let result = client.call_tool("confirm", json!({})).await.expect("the call");
        let text = serde_json::to_value(&result.content[0]).expect("content")["text"].clone();
        assert_eq!(text, "confirmed", "{revision}: {result:?}");
    }
}

#[tokio::test]
async fn log_messages_arrive_at_the_level_asked_in_both_eras() {
    let server = || {
        Server::builder("logging", "1").client_logging().tool(ToolDescriptor::new("chatty").handler_with_context(
            |_: NoArgs, ctx: Context| async move {
                ctx.log(mcp_runtime::protocol::LogLevel::Debug, "too fine").await;
                ctx.log(mcp_runtime::protocol::LogLevel::Warning, "worth saying").await;
                "done"
            },
        ))
    };
    for revision in [Revision::V2025_11_25, Revision::V2026_07_28] {
        let client = Client::builder().revision(revision).memory(server()).await.expect("connects");
        let mut notifications = client.notifications();
        client.set_log_level(mcp_runtime::protocol::LogLevel::Info).await.expect("the level");
        client.call_tool("chatty", json!({})).await.expect("the call");
        let mut logged = Vec::new();
        while let Some(notification) = notifications.try_next() {
            if let Notification::Log { level, data, .. } = notification {
                logged.push((level, data));
            }
        }
        assert_eq!(logged, [(mcp_runtime::protocol::LogLevel::Warning, json!("worth saying"))], "{revision}");
    }
}

#[tokio::test]
async fn a_subscribed_resource_s_updates_arrive_as_notifications() {
    let server = Server::builder("notes", "1").resource(
        mcp_runtime::ResourceDescriptor::fixed("note://1", "first").subscribable(true).reader(|_| async { "text" }),
    );
    let handle = server.handle();
    let client = Client::builder().revision(Revision::V2025_11_25).memory(server).await.expect("connects");
    let mut notifications = client.notifications();
    client.subscribe("note://1").await.expect("subscribes");
    handle.resource_updated("note://1").expect("an update");
    let heard = tokio::time::timeout(Duration::from_secs(5), notifications.next()).await.expect("a notification");
    assert_eq!(heard, Some(Notification::ResourceUpdated { uri: "note://1".into() }));
    client.unsubscribe("note://1").await.expect("unsubscribes");
}
