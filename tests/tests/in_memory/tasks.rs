//! The tasks extension (2026-07-28) through the in-memory client: calls that run as tasks or
//! not, their questions, progress and cancellation, and every bad input the methods refuse.

use std::sync::Arc;
use std::time::Duration;

use mcp_runtime::asking::{AskError, Elicitation};
use mcp_runtime::changes::MemoryChangeBus;
use mcp_runtime::protocol::Revision;
use mcp_runtime::tasks::{MemoryTaskStore, TaskRecord, TaskStore, TaskStoreError};
use mcp_runtime::testing::{TestClient, TestError};
use mcp_runtime::{BoxFuture, Context, Server, StoreError, mcp_tool};
use serde_json::json;
use tokio::sync::Notify;

/// Works for `ms` milliseconds, saying how far it got; a task when the client asks. With
/// `hold`, it works on until the test releases it ([`RELEASE_CRAWL`]).
#[mcp_tool(task = "optional")]
async fn crawl(ctx: Context, ms: u64, #[mcp(default)] hold: bool) -> String {
    ctx.progress(1.0, Some(2.0), Some("crawling")).await;
    if hold {
        RELEASE_CRAWL.notified().await;
    }
    tokio::time::sleep(Duration::from_millis(ms)).await;
    "crawled".into()
}

/// Lets a held `crawl` finish (one permit, kept if it is not waiting yet).
static RELEASE_CRAWL: Notify = Notify::const_new();

/// Runs only as a task.
#[mcp_tool(task = "required")]
async fn build() -> &'static str {
    "built"
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Confirm {
    confirm: bool,
}

/// Asks before deleting.
#[mcp_tool(task = "optional")]
async fn purge(ctx: Context) -> Result<&'static str, AskError> {
    Ok(match ctx.elicit::<Confirm>("Purge everything?").await? {
        Elicitation::Accept(Confirm { confirm: true }) => "purged",
        _ => "kept",
    })
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Name {
    name: String,
}

/// Asks for a name in the call itself, then works on as a task.
#[mcp_tool(task = "required", task_after_input)]
async fn welcome(ctx: Context) -> Result<String, AskError> {
    let name = match ctx.input("name").elicit::<Name>("Your name?").await? {
        Elicitation::Accept(Name { name }) => name,
        _ => "stranger".into(),
    };
    tokio::time::sleep(Duration::from_millis(20)).await;
    Ok(format!("Welcome, {name}"))
}

/// Waits until its task is cancelled, then records that it saw it.
#[mcp_tool(task = "optional")]
async fn wait_for_cancel(ctx: Context, seen: mcp_runtime::State<Arc<Notify>>) -> &'static str {
    let token = ctx.cancel_token();
    let notify = Arc::clone(&*seen);
    tokio::spawn(async move {
        token.cancelled().await;
        notify.notify_one();
    });
    tokio::time::sleep(Duration::from_secs(600)).await;
    "never"
}

fn server() -> Server {
    server_telling(Arc::new(Notify::new()))
}

/// The server, its `wait_for_cancel` telling `seen` when it sees its cancellation.
fn server_telling(seen: Arc<Notify>) -> Server {
    Server::builder("tasks", "1.0.0")
        .tool(crawl)
        .tool(build)
        .tool(purge)
        .tool(welcome)
        .tool(wait_for_cancel)
        .state(seen)
}

async fn client(server: Server) -> TestClient {
    TestClient::builder().revision(Revision::V2026_07_28).tasks().connect(server).await.unwrap()
}

fn rpc_code(error: &TestError) -> i32 {
    error.rpc().map(|e| e.code).unwrap_or_else(|| panic!("a JSON-RPC error, got {error:?}"))
}

#[tokio::test]
async fn an_opted_in_call_becomes_a_task_and_its_progress_its_status_message() {
    let client = client(server()).await;
    let created = client.start_tool_call("crawl", json!({"ms": 0, "hold": true})).await.unwrap();
    assert_eq!(created["resultType"], "task", "{created}");
    for absent in ["task", "ttl", "pollInterval", "requestState", "result", "content"] {
        assert!(created.get(absent).is_none(), "{absent} in {created}");
    }
    assert_eq!(created["ttlMs"], 3_600_000);
    assert_eq!(created["pollIntervalMs"], 1000);
    let id = created["taskId"].as_str().unwrap();
    assert_eq!(id.len(), 32, "128 bits as hex");
    // Read at once: the task existed before the call was answered.
    let now = client.get_task(id).await.unwrap();
    assert_eq!(now["resultType"], "complete");
    assert_eq!(now["taskId"], id);
    // Held until released: it works on, and once its progress is in, that is its status
    // message (read until it is, for at most five seconds).
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    let working = loop {
        let read = client.get_task(id).await.unwrap();
        if read.get("statusMessage").is_some() || tokio::time::Instant::now() > deadline {
            break read;
        }
        tokio::task::yield_now().await;
    };
    assert_eq!(working["status"], "working", "{working}");
    assert_eq!(working["statusMessage"], "crawling", "progress becomes the status message: {working}");
    RELEASE_CRAWL.notify_one();
    let done = client.wait_for_task(id).await.unwrap();
    assert_eq!(done["status"], "completed");
    assert_eq!(done["result"]["content"][0]["text"], "crawled");
    assert!(done.get("error").is_none());
}

#[tokio::test]
async fn without_the_opt_in_an_optional_tool_runs_as_a_plain_call_and_a_required_one_is_refused() {
    let client = TestClient::connect_as(server(), Revision::V2026_07_28).await.unwrap();
    let plain = client.call_tool("crawl", json!({"ms": 0})).await.unwrap();
    assert_eq!(plain["content"][0]["text"], "crawled");
    assert!(plain.get("taskId").is_none());
    let refused = client.call_tool("build", json!({})).await.unwrap_err();
    assert_eq!(rpc_code(&refused), -32021);
    let data = &refused.rpc().unwrap().data;
    assert_eq!(
        data.as_ref().unwrap()["requiredCapabilities"],
        json!({"extensions": {"io.modelcontextprotocol/tasks": {}}})
    );
    // The task methods need the opt-in too.
    for method in ["tasks/get", "tasks/update", "tasks/cancel"] {
        let error = client.request(method, json!({"taskId": "x", "inputResponses": {}})).await.unwrap_err();
        assert_eq!(rpc_code(&error), -32021, "{method}");
    }
    // The handshake revisions have no tasks: a required one runs as a plain call there.
    let legacy = TestClient::connect(server()).await.unwrap();
    assert_eq!(legacy.call_tool("build", json!({})).await.unwrap()["content"][0]["text"], "built");
    assert_eq!(rpc_code(&legacy.request("tasks/get", json!({"taskId": "x"})).await.unwrap_err()), -32601);
}

#[tokio::test]
async fn the_extension_is_declared_exactly_when_a_tool_allows_tasks() {
    let with = client(server()).await;
    let capabilities = with.server_capabilities().await.unwrap();
    assert_eq!(capabilities["extensions"]["io.modelcontextprotocol/tasks"], json!({}));
    assert!(capabilities.get("tasks").is_none(), "no legacy slot");
    let tools = with.list_tools().await.unwrap();
    assert!(tools.iter().all(|t| t.get("execution").is_none()), "task support is never sent");
    let plain = Server::builder("plain", "1.0.0").tool(greet_plain);
    let without = client(plain).await;
    let capabilities = without.server_capabilities().await.unwrap();
    assert!(capabilities.get("extensions").is_none(), "{capabilities}");
    assert_eq!(rpc_code(&without.get_task("x").await.unwrap_err()), -32601);
}

/// A tool with no task support.
#[mcp_tool]
fn greet_plain() -> &'static str {
    "hi"
}

#[tokio::test]
async fn a_question_inside_a_task_waits_in_it_until_tasks_update_answers_it() {
    let client = TestClient::builder()
        .revision(Revision::V2026_07_28)
        .tasks()
        .on_elicitation(|_| json!({"action": "accept", "content": {"confirm": true}}))
        .connect(server())
        .await
        .unwrap();
    let created = client.start_tool_call("purge", json!({})).await.unwrap();
    let id = created["taskId"].as_str().unwrap();
    // Asked, not answered yet: input_required, the question under a key.
    let mut waiting = client.get_task(id).await.unwrap();
    for _ in 0..100 {
        if waiting["status"] == "input_required" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
        waiting = client.get_task(id).await.unwrap();
    }
    assert_eq!(waiting["status"], "input_required", "{waiting}");
    let requests = waiting["inputRequests"].as_object().unwrap();
    assert_eq!(requests.len(), 1);
    let (_, question) = requests.iter().next().unwrap();
    assert_eq!(question["method"], "elicitation/create");
    assert_eq!(question["params"]["message"], "Purge everything?");
    // A key no question has is ignored; the task still waits.
    let ack = client.update_task(id, json!({"nope": {"action": "accept"}})).await.unwrap();
    assert_eq!(ack, json!({"resultType": "complete", "_meta": ack["_meta"]}));
    assert_eq!(client.get_task(id).await.unwrap()["status"], "input_required");
    let done = client.wait_for_task(id).await.unwrap();
    assert_eq!(done["status"], "completed");
    assert_eq!(done["result"]["content"][0]["text"], "purged");
    assert_eq!(client.questions().len(), 1);
}

#[tokio::test]
async fn a_tool_whose_task_starts_after_input_asks_in_the_call_then_becomes_a_task() {
    let client = TestClient::builder()
        .revision(Revision::V2026_07_28)
        .tasks()
        .on_elicitation(|_| json!({"action": "accept", "content": {"name": "Ada"}}))
        .connect(server())
        .await
        .unwrap();
    // The client's retry with the answer is answered with the task.
    let created = client.start_tool_call("welcome", json!({})).await.unwrap();
    assert_eq!(created["resultType"], "task", "{created}");
    assert!(created.get("requestState").is_none());
    let question = &client.questions()[0];
    assert_eq!(question.params["message"], "Your name?");
    let done = client.wait_for_task(created["taskId"].as_str().unwrap()).await.unwrap();
    assert_eq!(done["result"]["content"][0]["text"], "Welcome, Ada");
}

#[tokio::test]
async fn cancel_ends_a_task_its_handler_sees_it_and_a_second_cancel_or_a_late_update_changes_nothing() {
    let client = client(server()).await;
    let created = client.start_tool_call("wait_for_cancel", json!({})).await.unwrap();
    let id = created["taskId"].as_str().unwrap();
    let ack = client.cancel_task(id).await.unwrap();
    assert!(ack.get("taskId").is_none() && ack.get("status").is_none(), "{ack}");
    let cancelled = client.get_task(id).await.unwrap();
    assert_eq!(cancelled["status"], "cancelled");
    // Cancel again: the same empty acknowledgement, and the task stays as it ended.
    assert_eq!(client.cancel_task(id).await.unwrap()["resultType"], "complete");
    assert_eq!(client.update_task(id, json!({"0": {"action": "accept"}})).await.unwrap()["resultType"], "complete");
    let after = client.get_task(id).await.unwrap();
    assert_eq!(after["status"], "cancelled");
    assert_eq!(after["lastUpdatedAt"], cancelled["lastUpdatedAt"]);
    // A finished task, updated: nothing changes either.
    let done = client.call_tool_as_task("crawl", json!({"ms": 0})).await.unwrap();
    let id = done["taskId"].as_str().unwrap();
    client.update_task(id, json!({"0": {"action": "accept"}})).await.unwrap();
    assert_eq!(client.get_task(id).await.unwrap()["status"], "completed");
}

#[tokio::test]
async fn cancelling_a_task_cancels_its_handler_s_context() {
    let seen = Arc::new(Notify::new());
    let client = client(server_telling(Arc::clone(&seen))).await;
    let created = client.start_tool_call("wait_for_cancel", json!({})).await.unwrap();
    let saw = seen.notified();
    client.cancel_task(created["taskId"].as_str().unwrap()).await.unwrap();
    tokio::time::timeout(Duration::from_secs(5), saw).await.expect("the handler's cancel token fired");
}

#[tokio::test]
async fn unknown_expired_and_malformed_task_ids_are_invalid_params() {
    let server = server().task_ttl(Duration::from_millis(100));
    let client = client(server).await;
    for method in ["tasks/get", "tasks/cancel"] {
        let error = client.request(method, json!({"taskId": "never-made"})).await.unwrap_err();
        assert_eq!(rpc_code(&error), -32602, "{method}");
    }
    let error = client.update_task("never-made", json!({})).await.unwrap_err();
    assert_eq!(rpc_code(&error), -32602);
    let error = client.request("tasks/get", json!({"taskId": 7})).await.unwrap_err();
    assert_eq!(rpc_code(&error), -32602);
    let error = client.request("tasks/update", json!({"taskId": "x"})).await.unwrap_err();
    assert_eq!(rpc_code(&error), -32602, "an update needs inputResponses");
    // Removed methods do not exist.
    for method in ["tasks/result", "tasks/list"] {
        assert_eq!(rpc_code(&client.request(method, json!({})).await.unwrap_err()), -32601, "{method}");
    }
    let created = client.start_tool_call("crawl", json!({"ms": 0})).await.unwrap();
    assert_eq!(created["ttlMs"], 100);
    let id = created["taskId"].as_str().unwrap();
    assert_eq!(client.get_task(id).await.unwrap()["taskId"], id);
    tokio::time::sleep(Duration::from_millis(150)).await;
    let expired = client.get_task(id).await.unwrap_err();
    assert_eq!(rpc_code(&expired), -32602);
}

#[tokio::test]
async fn a_flood_of_tasks_past_the_store_limit_is_refused_clearly_and_the_server_goes_on() {
    let server = server().task_store(MemoryTaskStore::with_limit(2));
    let client = client(server).await;
    for _ in 0..2 {
        client.start_tool_call("crawl", json!({"ms": 10_000})).await.unwrap();
    }
    let refused = client.start_tool_call("crawl", json!({"ms": 0})).await.unwrap_err();
    assert_eq!(rpc_code(&refused), -32603);
    let message = &refused.rpc().unwrap().message;
    assert!(message.contains("2 tasks, the most it keeps"), "{message}");
    // Plain calls still go through.
    let plain = TestClient::connect_as(Server::builder("t", "1").tool(crawl), Revision::V2026_07_28).await.unwrap();
    assert_eq!(plain.call_tool("crawl", json!({"ms": 0})).await.unwrap()["content"][0]["text"], "crawled");
}

#[tokio::test]
async fn a_listen_stream_naming_a_task_is_told_of_its_changes() {
    let client = client(server()).await;
    let created = client.start_tool_call("crawl", json!({"ms": 100})).await.unwrap();
    let id = created["taskId"].as_str().unwrap().to_owned();
    let listen = client.request("subscriptions/listen", json!({"notifications": {"taskIds": [id]}}));
    let told = async {
        loop {
            let ended = client.notifications().into_iter().any(|n| {
                n["method"] == "notifications/tasks"
                    && n["params"]["taskId"] == id
                    && n["params"]["status"] == "completed"
            });
            if ended {
                return;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    };
    tokio::select! {
        outcome = listen => panic!("the stream ended: {outcome:?}"),
        () = told => {}
        () = tokio::time::sleep(Duration::from_secs(10)) => panic!("no notification: {:?}", client.notifications()),
    }
    let notice = client.notifications().into_iter().find(|n| n["method"] == "notifications/tasks").unwrap();
    assert!(notice["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"].is_number(), "{notice}");
    let ack = client.notifications().into_iter().find(|n| n["method"] == "notifications/subscriptions/acknowledged");
    assert_eq!(ack.unwrap()["params"]["notifications"]["taskIds"], json!([id]));
    // Without the opt-in, taskIds are refused.
    let plain = TestClient::connect_as(server(), Revision::V2026_07_28).await.unwrap();
    let refused = plain.request("subscriptions/listen", json!({"notifications": {"taskIds": ["x"]}})).await;
    assert_eq!(rpc_code(&refused.unwrap_err()), -32021);
}

/// Two servers sharing a task store and a change bus, as instances behind a load balancer do
/// with Redis: the second answers and cancels what the first one runs.
fn sharing<S: TaskStore>(store: &Arc<S>, bus: &Arc<MemoryChangeBus>, server: Server) -> Server {
    server.task_store(Arc::clone(store)).change_bus(Arc::clone(bus))
}

#[tokio::test]
async fn a_task_run_by_one_server_is_read_answered_and_cancelled_through_another() {
    let (store, bus) = (Arc::new(MemoryTaskStore::default()), Arc::new(MemoryChangeBus::default()));
    let seen = Arc::new(Notify::new());
    // Both clients can answer questions; only the other one polls, so only it answers.
    let answering = || {
        TestClient::builder()
            .revision(Revision::V2026_07_28)
            .tasks()
            .on_elicitation(|_| json!({"action": "accept", "content": {"confirm": true}}))
    };
    let runner = answering().connect(sharing(&store, &bus, server_telling(Arc::clone(&seen)))).await.unwrap();
    let other = answering().connect(sharing(&store, &bus, server())).await.unwrap();
    // The question asked on the runner is answered through the other server.
    let created = runner.start_tool_call("purge", json!({})).await.unwrap();
    let id = created["taskId"].as_str().unwrap();
    let done = other.wait_for_task(id).await.unwrap();
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["result"]["content"][0]["text"], "purged");
    assert_eq!(other.questions()[0].params["message"], "Purge everything?");
    assert!(runner.questions().is_empty());
    assert_eq!(runner.get_task(id).await.unwrap()["status"], "completed");
    // A cancel through the other server stops the handler where it runs.
    let created = runner.start_tool_call("wait_for_cancel", json!({})).await.unwrap();
    let id = created["taskId"].as_str().unwrap();
    let saw = seen.notified();
    assert_eq!(other.cancel_task(id).await.unwrap()["resultType"], "complete");
    tokio::time::timeout(Duration::from_secs(5), saw).await.expect("the runner's handler saw the cancel");
    for client in [&runner, &other] {
        assert_eq!(client.get_task(id).await.unwrap()["status"], "cancelled");
    }
}

/// A memory store whose runners can be declared stopped, as a Redis store finds them when
/// their sign of life is gone.
#[derive(Default)]
struct Mortal {
    store: MemoryTaskStore,
    started: std::sync::Mutex<Vec<String>>,
    stopped: std::sync::Mutex<Vec<String>>,
}

impl Mortal {
    fn stop_every_runner(&self) {
        *self.stopped.lock().unwrap() = self.started.lock().unwrap().clone();
    }
}

impl TaskStore for Mortal {
    fn create<'a>(&'a self, record: &'a TaskRecord) -> BoxFuture<'a, Result<(), TaskStoreError>> {
        self.store.create(record)
    }
    fn save<'a>(&'a self, record: &'a TaskRecord) -> BoxFuture<'a, Result<(), StoreError>> {
        self.store.save(record)
    }
    fn load<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<TaskRecord>, StoreError>> {
        self.store.load(id)
    }
    fn runner_started(&self, runner: &str) {
        self.started.lock().unwrap().push(runner.to_owned());
    }
    fn runner_alive<'a>(&'a self, runner: &'a str) -> BoxFuture<'a, Result<bool, StoreError>> {
        let alive = !self.stopped.lock().unwrap().iter().any(|r| r == runner);
        Box::pin(async move { Ok(alive) })
    }
}

#[tokio::test]
async fn a_task_whose_runner_stopped_ends_failed_with_a_reason_on_its_next_read() {
    let store = Arc::new(Mortal::default());
    let bus = Arc::new(MemoryChangeBus::default());
    let runner = client(sharing(&store, &bus, server())).await;
    let other = client(sharing(&store, &bus, server())).await;
    let created = runner.start_tool_call("wait_for_cancel", json!({})).await.unwrap();
    let id = created["taskId"].as_str().unwrap();
    assert_eq!(other.get_task(id).await.unwrap()["status"], "working", "its runner still runs");
    store.stop_every_runner();
    let failed = other.get_task(id).await.unwrap();
    assert_eq!(failed["status"], "failed", "{failed}");
    assert_eq!(failed["error"]["code"], -32603);
    assert_eq!(failed["error"]["message"], "The server instance running the task stopped before the task ended");
    assert_eq!(failed["statusMessage"], "The server instance running this task stopped");
    // Kept so: the next read says the same.
    let again = other.get_task(id).await.unwrap();
    assert_eq!((&again["status"], &again["lastUpdatedAt"]), (&failed["status"], &failed["lastUpdatedAt"]));
}
