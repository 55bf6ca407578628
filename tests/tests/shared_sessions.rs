//! Several instances of one application sharing a session store, an event store and a change
//! bus, in memory (one process) and on a real Redis (`mcp_runtime::redis`, a `redis-server`
//! this test starts): a session opened on one instance is served by another, as it was
//! negotiated (revision, log level, subscriptions); DELETE on one instance ends it on all; a
//! resource update made on one instance reaches a subscriber served by another; and a
//! session's standalone stream replays what its client missed while disconnected, on the
//! instance it was opened on or on another.

use std::io::{BufRead, BufReader};
use std::sync::Arc;
use std::time::Duration;

use mcp_runtime::changes::{ChangeBus, MemoryChangeBus};
use mcp_runtime::http::{EventStore, MemoryEventStore, MemorySessionStore, SessionStore};
use mcp_runtime::redis::Redis;
use mcp_runtime::{Allowed, HttpOptions, ResourceDescriptor, Server, ServerHandle, ToolDescriptor};
use mcp_tests::http::{Answer, initialize, post, send};
use mcp_tests::services;
use serde_json::{Value, json};

/// What the instances share: in memory, or on a Redis (kept running while they are).
struct Shared {
    sessions: Arc<dyn SessionStore>,
    events: Arc<dyn EventStore>,
    bus: Bus,
    _server: Option<services::Redis>,
}

/// The change bus: one in memory for all, or one Redis connection per instance, as separate
/// processes would have.
enum Bus {
    Memory(Arc<MemoryChangeBus>),
    Redis(Redis),
}

impl Shared {
    fn in_memory() -> Self {
        Shared {
            sessions: Arc::new(MemorySessionStore::default()),
            events: Arc::new(MemoryEventStore::default()),
            bus: Bus::Memory(Arc::default()),
            _server: None,
        }
    }

    async fn on_redis() -> Self {
        let server = services::Redis::start();
        let redis = Redis::connect(&server.url).await.expect("Redis answers");
        Shared {
            sessions: Arc::new(redis.session_store()),
            events: Arc::new(redis.event_store()),
            bus: Bus::Redis(redis),
            _server: Some(server),
        }
    }

    async fn bus(&self) -> Arc<dyn ChangeBus> {
        match &self.bus {
            Bus::Memory(bus) => Arc::clone(bus) as Arc<dyn ChangeBus>,
            Bus::Redis(redis) => Arc::new(redis.change_bus().await.expect("subscribed")),
        }
    }
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct NoArgs {}

/// Starts one instance on a loopback port of its own: its `/mcp` URL and its handle.
async fn instance(shared: &Shared) -> (String, ServerHandle) {
    let server = Server::builder("notes", "1.0.0")
        .change_bus(shared.bus().await)
        .resource(ResourceDescriptor::fixed("note://1", "first").subscribable(true).reader(|_| async { "text" }))
        .tool(ToolDescriptor::new("tidy").title("Tidy").description("Tidies").handler(|_: NoArgs| async { "tidied" }));
    let handle = server.handle();
    let options = HttpOptions::default()
        .allowed_hosts(Allowed::Any)
        .allowed_origins(Allowed::Any)
        .session_store(Arc::clone(&shared.sessions))
        .event_store(Arc::clone(&shared.events));
    let router = server.http_router(options).expect("a router");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, router).await });
    (url, handle)
}

fn request(id: i64, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

/// Opens a session of `revision` on `url` (initialize, initialized): its id.
fn open_session(url: &str, revision: &str) -> String {
    let answer = post(url, &initialize(revision, json!({})), &[]);
    assert_eq!(answer.status, 200, "{answer:?}");
    let session = answer.session.expect("a session id");
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    assert_eq!(post(url, &initialized, &[("mcp-session-id", &session)]).status, 202);
    session
}

fn in_session(url: &str, session: &str, body: &Value) -> Answer {
    post(url, body, &[("mcp-session-id", session)])
}

/// Reads `count` events of a session's GET stream (resuming after `last` if given), each as
/// its id and data, then drops the connection.
fn read_stream(url: &str, session: &str, last: Option<&str>, count: usize) -> Vec<(String, String)> {
    let client = reqwest::blocking::Client::builder().timeout(Duration::from_secs(10)).build().unwrap();
    let mut request = client.get(url).header("accept", "text/event-stream").header("mcp-session-id", session);
    if let Some(last) = last {
        request = request.header("last-event-id", last);
    }
    let response = request.send().expect("a response");
    assert_eq!(response.status().as_u16(), 200);
    let mut events = Vec::new();
    let mut id = String::new();
    for line in BufReader::new(response).lines() {
        let line = line.expect("the stream stays open until read");
        if let Some(value) = line.strip_prefix("id: ") {
            id = value.to_owned();
        } else if let Some(data) = line.strip_prefix("data:") {
            events.push((std::mem::take(&mut id), data.trim().to_owned()));
            if events.len() == count {
                break;
            }
        }
    }
    events
}

/// Runs blocking HTTP calls off the runtime's threads.
async fn blocking<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    tokio::task::spawn_blocking(f).await.expect("the blocking part")
}

async fn a_session_opened_on_one_instance_is_served_by_another_as_negotiated(shared: Shared) {
    let (first, _) = instance(&shared).await;
    let (second, _) = instance(&shared).await;
    blocking(move || {
        // 2024-11-05 knows no titles: the second instance lists as that revision.
        let session = open_session(&first, "2024-11-05");
        let listed = in_session(&second, &session, &request(1, "tools/list", json!({})));
        assert_eq!(listed.status, 200, "{listed:?}");
        let tool = &listed.last()["result"]["tools"][0];
        assert_eq!(tool["name"], "tidy");
        assert!(tool.get("title").is_none(), "served as 2024-11-05: {tool}");
        let called = in_session(&second, &session, &request(2, "tools/call", json!({"name": "tidy", "arguments": {}})));
        assert_eq!(called.last()["result"]["content"][0]["text"], "tidied");

        // A third session id nobody minted is unknown everywhere.
        let unknown = in_session(&second, "0123456789abcdef0123456789abcdef", &request(3, "ping", json!({})));
        assert_eq!(unknown.status, 404);

        // DELETE on one instance ends it everywhere: in the store, and on the instance that
        // opened it and still serves it (told through the bus).
        assert_eq!(send(&second, "DELETE", None, &[("mcp-session-id", &session)]).status, 204);
        let gone = in_session(&second, &session, &request(4, "ping", json!({})));
        assert_eq!(gone.status, 404, "{gone:?}");
        let deadline = std::time::Instant::now() + Duration::from_secs(5);
        loop {
            let elsewhere = in_session(&first, &session, &request(5, "ping", json!({})));
            if elsewhere.status == 404 {
                break;
            }
            assert!(std::time::Instant::now() < deadline, "still served where it was opened: {elsewhere:?}");
            std::thread::sleep(Duration::from_millis(20));
        }
        session
    })
    .await;
    let (third, _) = instance(&shared).await;
    let session = open_session_elsewhere_and_delete(&shared).await;
    blocking(move || {
        let gone = in_session(&third, &session, &request(5, "ping", json!({})));
        assert_eq!(gone.status, 404, "{gone:?}");
    })
    .await;
}

/// Opens a session on a new instance and deletes it there: its id.
async fn open_session_elsewhere_and_delete(shared: &Shared) -> String {
    let (url, _) = instance(shared).await;
    blocking(move || {
        let session = open_session(&url, "2025-11-25");
        assert_eq!(send(&url, "DELETE", None, &[("mcp-session-id", &session)]).status, 204);
        session
    })
    .await
}

async fn subscriptions_made_on_one_instance_hear_updates_published_by_another(shared: Shared) {
    let (first, first_handle) = instance(&shared).await;
    let (second, _) = instance(&shared).await;
    let (session, stream) = blocking(move || {
        let session = open_session(&first, "2025-11-25");
        // The subscription is made through the second instance, which takes the session over.
        let subscribed = in_session(&second, &session, &request(1, "resources/subscribe", json!({"uri": "note://1"})));
        assert!(subscribed.last().get("result").is_some(), "{subscribed:?}");
        let url = second.clone();
        let reading = session.clone();
        let stream = std::thread::spawn(move || read_stream(&url, &reading, None, 2));
        (session, stream)
    })
    .await;
    // Published on the first instance, heard by the second's stream (after its priming event).
    tokio::time::sleep(Duration::from_millis(200)).await;
    first_handle.resource_updated("note://1").unwrap();
    let events = blocking(move || stream.join().unwrap()).await;
    assert_eq!(events[0].1, "", "the priming event");
    let update: Value = serde_json::from_str(&events[1].1).unwrap();
    assert_eq!(update["method"], "notifications/resources/updated", "{update}");
    assert_eq!(update["params"]["uri"], "note://1");
    let _ = session;
}

/// `elsewhere`: the client reconnects to another instance than the one it read from first.
async fn the_standalone_stream_replays_what_its_client_missed(shared: Shared, elsewhere: bool) {
    let (url, handle) = instance(&shared).await;
    let (other, _) = instance(&shared).await;
    let (session, priming) = blocking({
        let url = url.clone();
        move || {
            let session = open_session(&url, "2025-11-25");
            let subscribed = in_session(&url, &session, &request(1, "resources/subscribe", json!({"uri": "note://1"})));
            assert!(subscribed.last().get("result").is_some(), "{subscribed:?}");
            // Read the priming event, then go away.
            let priming = read_stream(&url, &session, None, 1).remove(0);
            (session, priming.0)
        }
    })
    .await;
    // Two updates while nobody reads.
    tokio::time::sleep(Duration::from_millis(100)).await;
    handle.resource_updated("note://1").unwrap();
    handle.resource_updated("note://1").unwrap();
    tokio::time::sleep(Duration::from_millis(100)).await;
    let reconnect = {
        let url = if elsewhere { other.clone() } else { url.clone() };
        let (session, priming) = (session.clone(), priming.clone());
        std::thread::spawn(move || read_stream(&url, &session, Some(&priming), 3))
    };
    // A third, live, once the stream is back.
    tokio::time::sleep(Duration::from_millis(300)).await;
    handle.resource_updated("note://1").unwrap();
    let events = blocking(move || reconnect.join().unwrap()).await;
    let methods: Vec<Value> =
        events.iter().map(|(_, data)| serde_json::from_str::<Value>(data).unwrap()["method"].clone()).collect();
    assert_eq!(methods, ["notifications/resources/updated"; 3], "{events:?}");
    let ids: Vec<&str> = events.iter().map(|(id, _)| id.as_str()).collect();
    let stream = priming.rsplit_once('_').unwrap().0;
    assert!(ids.iter().all(|id| id.starts_with(stream)), "the same stream goes on: {ids:?} after {priming}");
    let mut sorted = ids.clone();
    sorted.dedup();
    assert_eq!(sorted.len(), 3, "nothing twice: {ids:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn in_memory_a_session_opened_on_one_instance_is_served_by_another_as_negotiated() {
    a_session_opened_on_one_instance_is_served_by_another_as_negotiated(Shared::in_memory()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn in_memory_subscriptions_made_on_one_instance_hear_updates_published_by_another() {
    subscriptions_made_on_one_instance_hear_updates_published_by_another(Shared::in_memory()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn in_memory_the_standalone_stream_replays_what_its_client_missed() {
    the_standalone_stream_replays_what_its_client_missed(Shared::in_memory(), false).await;
    the_standalone_stream_replays_what_its_client_missed(Shared::in_memory(), true).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_redis_a_session_opened_on_one_instance_is_served_by_another_as_negotiated() {
    a_session_opened_on_one_instance_is_served_by_another_as_negotiated(Shared::on_redis().await).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_redis_subscriptions_made_on_one_instance_hear_updates_published_by_another() {
    subscriptions_made_on_one_instance_hear_updates_published_by_another(Shared::on_redis().await).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_redis_the_standalone_stream_replays_what_its_client_missed() {
    the_standalone_stream_replays_what_its_client_missed(Shared::on_redis().await, false).await;
    the_standalone_stream_replays_what_its_client_missed(Shared::on_redis().await, true).await;
}
