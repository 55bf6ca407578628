//! A remote server served through a proxy (`Server::proxy`), mounted beside a server's own
//! items: its tools, resources, templates and prompts listed and called through the proxy in
//! both eras; progress and questions come back to the caller, a cancelled call is cancelled at
//! the remote; its list changes reach the proxy's clients; while it is down its items say so
//! and the rest keeps serving, and once it is back they answer again.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::time::Duration;

use mcp_runtime::client::ClientError;
use mcp_runtime::protocol::Revision;
use mcp_runtime::testing::TestClient;
use mcp_runtime::{
    Context, PromptDescriptor, PromptGet, ResourceDescriptor, ResourceRead, Server, ServerHandle, ToolDescriptor,
};
use serde_json::{Value, json};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct City {
    /// The city to forecast
    city: String,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Confirm {
    ok: bool,
}

/// The remote: a weather server with a tool of each kind of behaviour, a resource, a template
/// and a prompt. `cancelled` is set when its slow tool sees its call cancelled.
fn weather(cancelled: Arc<AtomicBool>) -> Server {
    Server::builder("weather", "2.1.0")
        .instructions("Forecasts the weather.")
        .tool(
            ToolDescriptor::new("forecast")
                .description("A city's forecast")
                .handler(|c: City| async move { format!("sunny in {}", c.city) }),
        )
        .tool(ToolDescriptor::new("survey").handler_with_context(|_: Value, ctx: Context| async move {
            ctx.progress(1.0, Some(2.0), Some("asking")).await;
            match ctx.elicit::<Confirm>("Do you like rain?").await {
                Ok(mcp_runtime::asking::Elicitation::Accept(Confirm { ok })) => format!("likes rain: {ok}"),
                Ok(_) => "no answer".to_owned(),
                Err(e) => format!("could not ask: {e}"),
            }
        }))
        .tool(ToolDescriptor::new("slow").handler(move |_: Value| {
            // Set when the call stops without finishing: a cancelled handler is dropped.
            let stopped = Stopped(Arc::clone(&cancelled));
            async move {
                std::future::pending::<()>().await;
                drop(stopped);
                "never"
            }
        }))
        .resource(ResourceDescriptor::fixed("weather://stations", "stations").reader(|_| async { "Oslo, Lima" }))
        .resource(
            ResourceDescriptor::template("weather://city/{name}", "city")
                .expect("a template")
                .complete("name", |typed: &str| mcp_runtime::starting_with(typed, CITIES))
                .reader(
                    |read: ResourceRead| async move { format!("weather of {}", read.variable("name").unwrap_or("?")) },
                ),
        )
        .prompt(
            PromptDescriptor::new("packing")
                .argument("city", None, true)
                .complete("city", |typed: &str| mcp_runtime::starting_with(typed, CITIES))
                .handler(|get: PromptGet| async move { format!("Pack for {}", get.argument("city").unwrap_or("?")) }),
        )
}

/// Sets its flag when dropped.
struct Stopped(Arc<AtomicBool>);

impl Drop for Stopped {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

/// What the remote's completers offer.
const CITIES: [&str; 3] = ["Lima", "Lisbon", "Oslo"];

/// The gateway: its own tool, and the remote mounted under `weather`.
async fn gateway(remote: impl Fn() -> Server + Send + Sync + 'static) -> Server {
    let proxied = Server::proxy(move |builder| builder.memory(remote())).await.expect("the remote answers");
    Server::builder("gateway", "1.0.0")
        .tool(ToolDescriptor::new("local").handler(|_: Value| async { "served here" }))
        .mount("weather", proxied)
}

fn text(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap_or_else(|| panic!("a text result: {result:#}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_remote_s_items_are_listed_and_called_through_the_proxy_in_both_eras() {
    let proxied = Server::proxy(|builder| builder.memory(weather(Arc::default()))).await.expect("connects");
    let listing = proxied.describe().expect("builds");
    assert!(listing.starts_with("weather 2.1.0"), "the remote's name and version: {listing}");

    for revision in [Revision::V2025_11_25, Revision::LATEST] {
        let client = TestClient::connect_as(gateway(|| weather(Arc::default())).await, revision).await.unwrap();
        let tools = client.list_tools().await.expect("tools");
        let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
        assert_eq!(names, ["local", "weather_forecast", "weather_slow", "weather_survey"], "{revision:?}");
        let forecast = &tools[1];
        assert_eq!(forecast["description"], "A city's forecast");
        assert_eq!(forecast["inputSchema"]["properties"]["city"]["description"], "The city to forecast");
        let called = client.call_tool("weather_forecast", json!({"city": "Oslo"})).await.expect("called");
        assert_eq!(text(&called), "sunny in Oslo", "{revision:?}");
        assert_eq!(text(&client.call_tool("local", json!({})).await.unwrap()), "served here");

        let read = client.read_resource("weather://stations").await.expect("read");
        assert_eq!(read["contents"][0]["text"], "Oslo, Lima", "{read:#}");
        let read = client.read_resource("weather://city/Lima").await.expect("read through the template");
        assert_eq!(read["contents"][0]["text"], "weather of Lima", "{read:#}");
        let templates = client.list_resource_templates().await.expect("templates");
        assert_eq!(templates[0]["uriTemplate"], "weather://city/{name}");

        let prompt = client.get_prompt("weather_packing", json!({"city": "Lima"})).await.expect("a prompt");
        assert_eq!(prompt["messages"][0]["content"]["text"], "Pack for Lima", "{prompt:#}");

        // Completions are the remote's, asked as the remote names its items.
        let completed = client.complete(json!({"type": "ref/prompt", "name": "weather_packing"}), "city", "Li");
        assert_eq!(completed.await.expect("completed"), ["Lima", "Lisbon"], "{revision:?}");
        let template = json!({"type": "ref/resource", "uri": "weather://city/{name}"});
        assert_eq!(client.complete(template, "name", "O").await.expect("completed"), ["Oslo"], "{revision:?}");
        client.close().await.expect("closes");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn progress_and_questions_come_back_to_the_caller_in_both_eras() {
    for revision in [Revision::V2025_11_25, Revision::LATEST] {
        let asked = Arc::new(AtomicU32::new(0));
        let counting = Arc::clone(&asked);
        let client = TestClient::builder()
            .revision(revision)
            .on_elicitation(move |params| {
                counting.fetch_add(1, Ordering::SeqCst);
                assert_eq!(params["message"], "Do you like rain?", "the remote's question as it asked it");
                json!({"action": "accept", "content": {"ok": true}})
            })
            .connect(gateway(|| weather(Arc::default())).await)
            .await
            .expect("connects");
        let params = json!({"name": "weather_survey", "arguments": {}, "_meta": {"progressToken": "survey"}});
        let called = client.request("tools/call", params).await.expect("called");
        assert_eq!(text(&called), "likes rain: true", "{revision:?}: {called:#}");
        assert!(asked.load(Ordering::SeqCst) >= 1, "{revision:?}: the caller was asked");
        if revision == Revision::V2025_11_25 {
            let progress: Vec<Value> = client
                .notifications()
                .into_iter()
                .filter(|n| n["method"] == "notifications/progress")
                .map(|n| n["params"].clone())
                .collect();
            let reported =
                |p: &Value| p["progressToken"] == "survey" && p["progress"] == 1.0 && p["message"] == "asking";
            assert!(progress.iter().any(reported), "the remote's report, under the caller's token: {progress:?}");
        }
        client.close().await.expect("closes");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_cancelled_by_its_caller_is_cancelled_at_the_remote() {
    let cancelled = Arc::new(AtomicBool::new(false));
    let seen = Arc::clone(&cancelled);
    let client =
        TestClient::connect_as(gateway(move || weather(Arc::clone(&seen))).await, Revision::V2025_11_25).await.unwrap();
    let id = client.next_request_id();
    let client = Arc::new(client);
    let calling = Arc::clone(&client);
    let call = tokio::spawn(async move { calling.request("tools/call", json!({"name": "weather_slow"})).await });
    // Cancelled once the remote runs it: until then, the cancellation has nothing to stop.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    client.notify("notifications/cancelled", json!({"requestId": id, "reason": "changed my mind"})).await.unwrap();
    while !cancelled.load(Ordering::SeqCst) {
        assert!(tokio::time::Instant::now() < deadline, "the remote never saw the cancellation");
        tokio::time::sleep(Duration::from_millis(20)).await;
        // A cancellation that came before the call reached the remote is sent again.
        client.notify("notifications/cancelled", json!({"requestId": id})).await.unwrap();
    }
    call.abort();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_remote_s_list_changes_reach_the_proxy_s_clients() {
    let remote_handle: Arc<std::sync::Mutex<Option<ServerHandle>>> = Arc::default();
    let keep = Arc::clone(&remote_handle);
    let remote = move || {
        let server = weather(Arc::default()).dynamic_lists();
        *keep.lock().unwrap() = Some(server.handle());
        server
    };
    let client = TestClient::connect_as(gateway(remote).await, Revision::V2025_11_25).await.unwrap();
    assert_eq!(client.list_tools().await.unwrap().len(), 4);
    let mut notices = client.client().notifications();
    let handle = remote_handle.lock().unwrap().clone().expect("the remote runs");
    handle.add_tool(ToolDescriptor::new("radar").handler(|_: Value| async { "rain ahead" })).expect("added");
    let notice = tokio::time::timeout(Duration::from_secs(10), notices.next()).await.expect("told in time");
    assert_eq!(notice.expect("a notification").method(), "notifications/tools/list_changed");
    assert_eq!(text(&client.call_tool("weather_radar", json!({})).await.unwrap()), "rain ahead");
    handle.remove(mcp_runtime::ItemKind::Tool, "forecast").expect("removed");
    let notice = tokio::time::timeout(Duration::from_secs(10), notices.next()).await.expect("told in time");
    assert_eq!(notice.expect("a notification").method(), "notifications/tools/list_changed");
    let names: Vec<String> =
        client.list_tools().await.unwrap().iter().map(|t| t["name"].as_str().unwrap().to_owned()).collect();
    assert_eq!(names, ["local", "weather_radar", "weather_slow", "weather_survey"]);
    client.close().await.expect("closes");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_remote_that_is_down_answers_saying_so_and_the_rest_keeps_serving() {
    let up = Arc::new(AtomicBool::new(true));
    let stop: Arc<std::sync::Mutex<Vec<tokio::sync::oneshot::Sender<()>>>> = Arc::default();
    let (is_up, stops) = (Arc::clone(&up), Arc::clone(&stop));
    let proxied = Server::proxy(move |builder| {
        let (is_up, stops) = (Arc::clone(&is_up), Arc::clone(&stops));
        async move {
            if !is_up.load(Ordering::SeqCst) {
                return Err(ClientError::Transport("connection refused".into()));
            }
            let (stopping, stopped) = tokio::sync::oneshot::channel::<()>();
            stops.lock().unwrap().push(stopping);
            builder.memory(weather(Arc::default()).with_graceful_shutdown(async move { drop(stopped.await) })).await
        }
    })
    .await
    .expect("up at first");
    let gateway =
        Server::builder("gateway", "1").tool(ToolDescriptor::new("local").handler(|_: Value| async { "served here" }));
    let client = TestClient::connect(gateway.mount("weather", proxied)).await.unwrap();
    assert_eq!(text(&client.call_tool("weather_forecast", json!({"city": "Oslo"})).await.unwrap()), "sunny in Oslo");

    // The remote stops, and cannot be reached again.
    up.store(false, Ordering::SeqCst);
    for stopping in stop.lock().unwrap().drain(..) {
        let _ = stopping.send(());
    }
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    let down = loop {
        let result = client.call_tool("weather_forecast", json!({"city": "Oslo"})).await.expect("answered");
        if result["isError"] == true {
            break result;
        }
        assert!(tokio::time::Instant::now() < deadline, "the remote's end was never noticed: {result:#}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert!(text(&down).contains("the remote server `weather` could not be reached"), "{down:#}");
    assert_eq!(text(&client.call_tool("local", json!({})).await.unwrap()), "served here");

    // Back up: the next call connects again.
    up.store(true, Ordering::SeqCst);
    assert_eq!(text(&client.call_tool("weather_forecast", json!({"city": "Lima"})).await.unwrap()), "sunny in Lima");
    client.close().await.expect("closes");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_remote_s_resource_updates_reach_the_proxy_s_subscribers() {
    // A remote in each era: the proxy subscribes with `resources/subscribe` to a handshake-era
    // one, and through its `subscriptions/listen` stream to a 2026-07-28 one.
    for proxy_era in [mcp_runtime::client::Era::Auto, mcp_runtime::client::Era::Handshake] {
        let remote_handle: Arc<std::sync::Mutex<Option<ServerHandle>>> = Arc::default();
        let keep = Arc::clone(&remote_handle);
        let proxied = Server::proxy(move |builder| {
            let server = Server::builder("board", "1").resource(
                ResourceDescriptor::fixed("board://news", "news").subscribable(true).reader(|_| async { "all quiet" }),
            );
            *keep.lock().unwrap() = Some(server.handle());
            builder.era(proxy_era).memory(server)
        })
        .await
        .expect("connects");
        let client =
            TestClient::connect_as(Server::builder("gateway", "1").mount("board", proxied), Revision::V2025_11_25)
                .await
                .unwrap();
        client.request("resources/subscribe", json!({"uri": "board://news"})).await.expect("subscribed");
        let mut notices = client.client().notifications();
        let handle = remote_handle.lock().unwrap().clone().expect("the remote runs");
        handle.resource_updated("board://news").expect("told");
        let notice = tokio::time::timeout(Duration::from_secs(10), notices.next()).await.expect("told in time");
        let notice = notice.expect("a notification");
        assert_eq!(notice.method(), "notifications/resources/updated", "{proxy_era:?}");
        client.close().await.expect("closes");
    }
}
