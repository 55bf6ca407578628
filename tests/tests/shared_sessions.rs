//! Several instances of one application sharing a session store, an event store and a change
//! bus, in memory (one process) and on a real Redis (`mcp_runtime::redis`, a `redis-server`
//! this test starts): a session opened on one instance is served by another, as it was
//! negotiated (revision, log level, subscriptions); DELETE on one instance ends it on all; a
//! resource update made on one instance reaches a subscriber served by another; and a
//! session's standalone stream replays what its client missed while disconnected, on the
//! instance it was opened on or on another; and opened again without `Last-Event-ID`, it gets
//! once what no connection was sent, whichever instances told it.

use std::io::{BufRead, BufReader};
use std::sync::Arc;
use std::time::Duration;

use mcp_runtime::changes::{ChangeBus, MemoryChangeBus};
use mcp_runtime::http::{Allowed, HttpOptions};
use mcp_runtime::http::{EventStore, MemoryEventStore, MemorySessionStore, SessionStore};
use mcp_runtime::redis::Redis;
use mcp_runtime::{ResourceDescriptor, Server, ServerHandle, ToolDescriptor};
use mcp_tests::http::{Answer, initialize, post, send, sse_events};
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

/// A session's GET stream (resuming after `last` if given), read by a thread of its own: each
/// event, as its id and data, as it arrives; returned once the server answered the GET (the
/// stream is attached from then on).
fn stream_events(url: &str, session: &str, last: Option<&str>) -> std::sync::mpsc::Receiver<(String, String)> {
    let client = reqwest::blocking::Client::builder().timeout(Duration::from_secs(30)).build().unwrap();
    let mut request = client.get(url).header("accept", "text/event-stream").header("mcp-session-id", session);
    if let Some(last) = last {
        request = request.header("last-event-id", last);
    }
    let response = request.send().expect("a response");
    assert_eq!(response.status().as_u16(), 200);
    sse_events(response)
}

/// The next event of a stream, within five seconds.
fn next_event(stream: &std::sync::mpsc::Receiver<(String, String)>) -> (String, String) {
    stream.recv_timeout(Duration::from_secs(5)).expect("an event within 5 s")
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
        let stream = stream_events(&second, &session, None);
        assert_eq!(next_event(&stream).1, "", "the priming event");
        (session, stream)
    })
    .await;
    // Published on the first instance once the second's stream is attached, heard there.
    first_handle.resource_updated("note://1").unwrap();
    let event = blocking(move || next_event(&stream)).await;
    let update: Value = serde_json::from_str(&event.1).unwrap();
    assert_eq!(update["method"], "notifications/resources/updated", "{update}");
    assert_eq!(update["params"]["uri"], "note://1");
    let _ = session;
}

/// How the last of three missed updates reaches a client that comes back.
#[derive(Debug, Clone, Copy)]
enum Third {
    /// Published while the client was away too: replayed with the other two.
    Replayed,
    /// Published once the client is back and has read the two replayed: sent live.
    Live,
}

/// Waits until the event store holds `count` events after `priming` on the session's stream:
/// the updates published while the client is away are kept (not only queued).
async fn stored(shared: &Shared, priming: &str, count: usize) -> Vec<String> {
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    loop {
        let kept = shared.events.after(priming).await.expect("the event store answers").unwrap_or_default();
        if kept.len() >= count {
            return kept.into_iter().map(|(id, _)| id).collect();
        }
        assert!(std::time::Instant::now() < deadline, "{} of {count} events kept after {priming}", kept.len());
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

/// `elsewhere`: the client reconnects to another instance than the one it read from first;
/// `third`: whether the third update is replayed or sent live (each path on its own).
async fn the_standalone_stream_replays_what_its_client_missed(shared: Shared, elsewhere: bool, third: Third) {
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
    // Updates while nobody reads: two, or all three.
    let missed = match third {
        Third::Replayed => 3,
        Third::Live => 2,
    };
    for _ in 0..missed {
        handle.resource_updated("note://1").unwrap();
    }
    let kept = stored(&shared, &priming, missed).await;
    let back = if elsewhere { other.clone() } else { url.clone() };
    let stream = {
        let (session, priming) = (session.clone(), priming.clone());
        blocking(move || stream_events(&back, &session, Some(&priming))).await
    };
    let (stream, mut events) = blocking(move || {
        let events: Vec<(String, String)> = (0..missed).map(|_| next_event(&stream)).collect();
        (stream, events)
    })
    .await;
    let replayed: Vec<&str> = events.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(replayed, kept, "the missed updates, replayed in order ({third:?})");
    if let Third::Live = third {
        // The stream is back and has replayed the two: the third goes out live.
        handle.resource_updated("note://1").unwrap();
        events.push(blocking(move || next_event(&stream)).await);
    }
    let methods: Vec<Value> =
        events.iter().map(|(_, data)| serde_json::from_str::<Value>(data).unwrap()["method"].clone()).collect();
    assert_eq!(methods, ["notifications/resources/updated"; 3], "{events:?}");
    let ids: Vec<&str> = events.iter().map(|(id, _)| id.as_str()).collect();
    let stream = priming.rsplit_once('_').unwrap().0;
    assert!(ids.iter().all(|id| id.starts_with(stream)), "the same stream goes on: {ids:?} after {priming}");
    let mut distinct = ids.clone();
    distinct.dedup();
    assert_eq!(distinct.len(), 3, "nothing twice: {ids:?}");
    let _ = session;
}

/// A session served by two instances, each hearing every update and telling the session: a
/// GET opened without `Last-Event-ID` gets what no connection was sent, once, on whichever
/// instance it opens, and another such GET does not get it again.
async fn a_stream_opened_afresh_gets_once_what_no_connection_was_sent(shared: Shared) {
    let (first, handle) = instance(&shared).await;
    let (second, _) = instance(&shared).await;
    let session = blocking({
        let (first, second) = (first.clone(), second.clone());
        move || {
            let session = open_session(&first, "2025-11-25");
            let subscribed =
                in_session(&first, &session, &request(1, "resources/subscribe", json!({"uri": "note://1"})));
            assert!(subscribed.last().get("result").is_some(), "{subscribed:?}");
            // The second instance serves the session too (with its subscription).
            assert_eq!(in_session(&second, &session, &request(2, "ping", json!({}))).status, 200);
            session
        }
    })
    .await;
    // Two updates while no stream is open: each instance tells the session of each.
    handle.resource_updated("note://1").unwrap();
    handle.resource_updated("note://1").unwrap();
    let stream = format!("get-{session}");
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    let kept = loop {
        let kept = shared.events.unsent(&stream).await.expect("the store answers").expect("it notes what was sent");
        let updates: Vec<String> = kept.into_iter().filter(|(_, data)| !data.is_empty()).map(|(id, _)| id).collect();
        if updates.len() >= 2 {
            break updates;
        }
        assert!(std::time::Instant::now() < deadline, "{} of 2 updates kept", updates.len());
        tokio::time::sleep(Duration::from_millis(5)).await;
    };
    assert_eq!(kept.len(), 2, "each update kept once: {kept:?}");
    let (second_stream, first_stream) = blocking({
        let (session, kept) = (session.clone(), kept.clone());
        move || {
            // On the second instance: primed, then the two updates, under the ids they are kept with.
            let second_stream = stream_events(&second, &session, None);
            assert_eq!(next_event(&second_stream).1, "", "the priming event");
            let got: Vec<String> = (0..2).map(|_| next_event(&second_stream).0).collect();
            assert_eq!(got, kept);
            // On the first instance: primed, and nothing of the two again.
            let first_stream = stream_events(&first, &session, None);
            assert_eq!(next_event(&first_stream).1, "", "the priming event");
            (second_stream, first_stream)
        }
    })
    .await;
    // The next event either stream gets is a third update, sent live.
    handle.resource_updated("note://1").unwrap();
    let (on_first, on_second) = blocking(move || (next_event(&first_stream), next_event(&second_stream))).await;
    assert!(!kept.contains(&on_first.0), "the first instance's stream repeated {on_first:?}");
    assert!(!kept.contains(&on_second.0), "the second instance's stream repeated {on_second:?}");
    for (_, data) in [on_first, on_second] {
        assert_eq!(serde_json::from_str::<Value>(&data).unwrap()["method"], "notifications/resources/updated");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn in_memory_a_stream_opened_afresh_gets_once_what_no_connection_was_sent() {
    a_stream_opened_afresh_gets_once_what_no_connection_was_sent(Shared::in_memory()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_redis_a_stream_opened_afresh_gets_once_what_no_connection_was_sent() {
    a_stream_opened_afresh_gets_once_what_no_connection_was_sent(Shared::on_redis().await).await;
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
    for third in [Third::Replayed, Third::Live] {
        the_standalone_stream_replays_what_its_client_missed(Shared::in_memory(), false, third).await;
        the_standalone_stream_replays_what_its_client_missed(Shared::in_memory(), true, third).await;
    }
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
    for third in [Third::Replayed, Third::Live] {
        the_standalone_stream_replays_what_its_client_missed(Shared::on_redis().await, false, third).await;
        the_standalone_stream_replays_what_its_client_missed(Shared::on_redis().await, true, third).await;
    }
}
