//! Three instances of `examples/replicas` behind a real nginx (Debian's, installed when
//! missing), with a real Redis, configured by the files of `deploy/`:
//!
//! - shared (`deploy/nginx-shared.conf`, sessions in Redis, round robin): the official
//!   TypeScript client's session is served by every instance, the Python client's 2026-07-28
//!   input-required round trip is accepted on any instance, an update announced on one
//!   instance reaches a subscriber served by another, and a load run loses or mixes up no
//!   response, even when an instance is stopped in the middle of it;
//! - affinity (`deploy/nginx-affinity.conf`, sessions kept by each instance): the TypeScript
//!   client's session stays on the instance that opened it, and when that instance stops, the
//!   session gets a clean 404 and a new `initialize` succeeds.
//!
//! - Redis faults: a Redis restart in the middle of load runs of both eras fails no request
//!   of a session already open (a new one gets 503 with `Retry-After` while Redis is down), a
//!   cut of every connection to Redis costs nothing, and a change notice published while Redis (or a connection to it) is
//!   away reaches every instance's clients once, and is replayed once;
//!
//! - tasks (in Redis, with the bus): a task made on one instance is polled, answered and
//!   cancelled through the others, a task whose instance is killed ends `failed` on its next
//!   read, and the Redis task store holds its limit and forgets tasks past their time to live.
//!
//! The load runs print their requests per second (one instance, then three), for the record.

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use mcp_tests::clients::{self, Connected};
use mcp_tests::http::{Answer, initialize, post, send, sse_events, sse_messages, stateless_headers};
use mcp_tests::services::{self, KillOnDrop, Nginx, free_port, wait_for_port};
use mcp_tests::wire::{STATELESS_REVISION, stateless_params};
use serde_json::{Value, json};

/// The key every instance seals `requestState` with.
const SHARED_KEY: &str = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";

/// One instance of the example, stopped when dropped.
struct Instance {
    process: KillOnDrop,
    port: u16,
    tag: &'static str,
    /// What it logged (its warnings, and the example's own `info` lines).
    log: services::StderrLog,
}

impl Instance {
    fn start(tag: &'static str, redis: &services::Redis, shared_sessions: bool) -> Instance {
        let port = free_port();
        let mut child = Command::new(mcp_tests::example_binary("replicas"))
            .env("MCP_LISTEN", format!("127.0.0.1:{port}"))
            .env("MCP_INSTANCE", tag)
            .env("MCP_REDIS_URL", &redis.url)
            .env("MCP_SESSIONS", if shared_sessions { "shared" } else { "local" })
            .env("MCP_REQUEST_STATE_KEY", SHARED_KEY)
            .env("RUST_LOG", "warn,replicas=info")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the example starts");
        let log = services::StderrLog::drain(&mut child);
        wait_for_port(&mut child, port, "the example", Duration::from_secs(15));
        Instance { process: KillOnDrop(child), port, tag, log }
    }

    /// Waits (ten seconds at most) until the instance has logged `line`.
    fn wait_for_log(&self, line: &str) {
        let deadline = Instant::now() + Duration::from_secs(10);
        while !self.log.text().contains(line) {
            assert!(Instant::now() < deadline, "instance {} never logged {line:?}: {}", self.tag, self.log.text());
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}/mcp", self.port)
    }

    fn stop(&mut self) {
        self.process.stop();
    }
}

/// Redis, three instances (tags a, b, c) and nginx with `config`.
struct Cluster {
    instances: Vec<Instance>,
    nginx: Nginx,
    redis: services::Redis,
}

impl Cluster {
    fn start(config: &str, shared_sessions: bool) -> Cluster {
        let redis = services::Redis::start();
        let instances: Vec<Instance> =
            ["a", "b", "c"].into_iter().map(|tag| Instance::start(tag, &redis, shared_sessions)).collect();
        let ports: Vec<u16> = instances.iter().map(|i| i.port).collect();
        let nginx = Nginx::start(&deploy(config), &ports);
        Cluster { instances, nginx, redis }
    }
}

fn deploy(file: &str) -> PathBuf {
    mcp_tests::workspace_root().join("deploy").join(file)
}

fn request(id: i64, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

fn call(id: i64, name: &str, arguments: Value) -> Value {
    request(id, "tools/call", json!({"name": name, "arguments": arguments}))
}

/// Opens a handshake-era session at `url`: its id.
fn open_session(url: &str) -> String {
    open_session_with(url, json!({}))
}

/// A handshake-era session opened with `capabilities` at `url`: its id.
fn open_session_with(url: &str, capabilities: Value) -> String {
    initialized(url, post(url, &initialize("2025-11-25", capabilities), &[]))
}

/// Completes the handshake `answer` to `initialize` began (it must have succeeded): the
/// session's id.
fn initialized(url: &str, answer: Answer) -> String {
    assert_eq!(answer.status, 200, "{answer:?}");
    let session = answer.session.expect("a session id");
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    assert_eq!(post(url, &initialized, &[("mcp-session-id", &session)]).status, 202);
    session
}

/// [`open_session`], asked again (for ten seconds at most) while the answer is a retryable
/// 503, as a client does while the session store is unavailable.
fn open_session_retrying(url: &str) -> String {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let answer = post(url, &initialize("2025-11-25", json!({})), &[]);
        if answer.status != 503 || Instant::now() >= deadline {
            return initialized(url, answer);
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn text(answer: &Answer) -> String {
    answer.last()["result"]["content"][0]["text"].as_str().unwrap_or_else(|| panic!("no text in {answer:?}")).to_owned()
}

/// The official TypeScript client calls `whoami` five times in one session through `url`:
/// the instance tags that answered.
fn typescript_whoami(url: &str) -> Vec<String> {
    let mut plan = vec![json!({"op": "list_tools"})];
    plan.extend((0..5).map(|_| json!({"op": "call_tool", "name": "whoami"})));
    plan.push(json!({"op": "call_tool", "name": "add", "arguments": {"a": 20, "b": 22}}));
    let lines = clients::run_plan_url(clients::node_client(), &json!(plan), url);
    Connected::Asked("2025-11-25").check(&lines[0], "replicas");
    let tools: Vec<&str> =
        lines[1]["result"]["tools"].as_array().unwrap().iter().filter_map(|t| t["name"].as_str()).collect();
    assert!(tools.contains(&"whoami") && tools.contains(&"greet"), "{tools:?}");
    assert_eq!(lines[7]["result"]["content"][0]["text"], "42", "{}", lines[7]);
    lines[2..7].iter().map(|line| line["result"]["content"][0]["text"].as_str().expect("a tag").to_owned()).collect()
}

/// What a load run saw.
#[derive(Debug, Default)]
struct Load {
    ok: AtomicUsize,
    /// Failed requests a client may retry (the instance went away under them): 502 or 503.
    retryable: AtomicUsize,
    /// Set by a test while a service the instances use is down: what was sent meanwhile is
    /// counted apart, to show that requests overlapped the outage.
    outage: AtomicBool,
    /// Requests sent during the outage and answered right.
    ok_during_outage: AtomicUsize,
    /// Answers that were wrong or belonged to another request: must stay zero.
    wrong: Mutex<Vec<String>>,
}

/// Counts a load thread's end when dropped.
struct Ended(Arc<AtomicUsize>);

impl Drop for Ended {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::Relaxed);
    }
}

/// `clients` threads each call `add` `calls` times through `url`, in 2026-07-28 (`stateless`)
/// or in a session each; `midway` runs once a third of the calls are done. Requests per second.
fn load_run(url: &str, clients: usize, calls: usize, stateless: bool, load: &Arc<Load>, midway: impl FnOnce()) -> f64 {
    let done = Arc::new(AtomicUsize::new(0));
    let ended = Arc::new(AtomicUsize::new(0));
    let start = Instant::now();
    let triggered = AtomicBool::new(false);
    std::thread::scope(|scope| {
        for client in 0..clients {
            let (load, done, url, ended) = (Arc::clone(load), Arc::clone(&done), url.to_owned(), Arc::clone(&ended));
            scope.spawn(move || {
                // Counted however the thread ends, a panic included, so the wait below ends too.
                let _ended = Ended(ended);
                let http = reqwest::blocking::Client::builder().timeout(Duration::from_secs(30)).build().unwrap();
                let session = (!stateless).then(|| open_session_retrying(&url));
                for n in 0..calls {
                    let (a, b) = (client as i64 * 100_000, n as i64);
                    let id = (client * calls + n) as i64;
                    let mut body = call(id, "add", json!({"a": a, "b": b}));
                    let mut builder = http
                        .post(&url)
                        .header("content-type", "application/json")
                        .header("accept", "application/json, text/event-stream");
                    if stateless {
                        body["params"] = stateless_params(Some(body["params"].take()), json!({}));
                        builder = builder.header("mcp-protocol-version", STATELESS_REVISION);
                        for (name, value) in stateless_headers(&body) {
                            builder = builder.header(name, value);
                        }
                    } else if let Some(session) = &session {
                        builder =
                            builder.header("mcp-session-id", session).header("mcp-protocol-version", "2025-11-25");
                    }
                    let during_outage = load.outage.load(Ordering::SeqCst);
                    let response = builder.body(body.to_string()).send();
                    done.fetch_add(1, Ordering::Relaxed);
                    let Ok(response) = response else {
                        load.retryable.fetch_add(1, Ordering::Relaxed);
                        continue;
                    };
                    let status = response.status().as_u16();
                    let text = response.text().unwrap_or_default();
                    if status == 502 || status == 503 {
                        load.retryable.fetch_add(1, Ordering::Relaxed);
                        continue;
                    }
                    let message: Option<Value> = text
                        .lines()
                        .map(|line| line.strip_prefix("data:").unwrap_or(line).trim())
                        .filter_map(|data| serde_json::from_str::<Value>(data).ok())
                        .find(|m| m.get("id").is_some());
                    let expected = (a + b).to_string();
                    match message {
                        Some(m) if m["id"] == id && m["result"]["content"][0]["text"] == expected.as_str() => {
                            load.ok.fetch_add(1, Ordering::Relaxed);
                            if during_outage {
                                load.ok_during_outage.fetch_add(1, Ordering::Relaxed);
                            }
                        }
                        _ => load.wrong.lock().unwrap().push(format!("{status} for {id}: {text}")),
                    }
                }
            });
        }
        let total = clients * calls;
        let deadline = Instant::now() + Duration::from_secs(60);
        while done.load(Ordering::Relaxed) < total / 3 && ended.load(Ordering::Relaxed) < clients {
            assert!(Instant::now() < deadline, "a third of the load was not done within 60 s");
            std::thread::sleep(Duration::from_millis(5));
        }
        if !triggered.swap(true, Ordering::Relaxed) {
            midway();
        }
    });
    (clients * calls) as f64 / start.elapsed().as_secs_f64()
}

#[test]
fn three_instances_share_sessions_streams_and_changes_through_redis() {
    let mut cluster = Cluster::start("nginx-shared.conf", true);
    let url = cluster.nginx.url();

    // One TypeScript session, served by more than one instance.
    let tags = typescript_whoami(&url);
    let mut distinct = tags.clone();
    distinct.sort();
    distinct.dedup();
    assert!(distinct.len() >= 2, "round robin spreads one session over the instances: {tags:?}");

    // The Python client in 2026-07-28: `greet` asks for a name (an input-required result), and
    // the retry, sealed by one instance, is accepted by whichever instance it reaches.
    let plan = json!([
        {"op": "call_tool", "name": "greet"},
        {"op": "call_tool", "name": "greet"},
        {"op": "call_tool", "name": "whoami"},
    ]);
    let lines = clients::run_plan_url(clients::with_mode(clients::python_client(), "modern"), &plan, &url);
    Connected::Blind.check(&lines[0], "replicas");
    for line in &lines[1..3] {
        let greeting = line["result"]["content"][0]["text"].as_str().unwrap_or_else(|| panic!("{line}"));
        assert!(greeting.starts_with("Hello, from the client (from "), "{greeting}");
    }

    // A subscriber served by instance a hears an update announced on instance b.
    let (a, b) = (cluster.instances[0].url(), cluster.instances[1].url());
    let session = open_session(&a);
    let subscribed =
        post(&a, &request(1, "resources/subscribe", json!({"uri": "board://news"})), &[("mcp-session-id", &session)]);
    assert!(subscribed.last().get("result").is_some(), "{subscribed:?}");
    // Its stream is open once its priming event came.
    let stream = get_stream(&a, &session, None);
    assert_eq!(stream.recv_timeout(Duration::from_secs(5)).expect("the priming event").1, "");
    let other = open_session(&b);
    assert_eq!(text(&post(&b, &call(2, "announce", json!({})), &[("mcp-session-id", &other)])), "announced");
    next_notice(&stream, "the subscriber on a", UPDATED);

    // Load through nginx: 2026-07-28 while instance c stops a third of the way in, then the
    // handshake era (sessions in Redis) while instance b stops.
    let load = Arc::new(Load::default());
    let (first, rest) = cluster.instances.split_at_mut(2);
    let modern = load_run(&url, 4, 150, true, &load, || rest[0].stop());
    let retryable_modern = load.retryable.load(Ordering::Relaxed);
    let handshake = load_run(&url, 4, 150, false, &load, || first[1].stop());
    let retryable = load.retryable.load(Ordering::Relaxed);
    eprintln!(
        "through nginx, three instances, one stopped in each run: {modern:.0} req/s (2026-07-28), \
         {handshake:.0} req/s (sessions in Redis); {retryable} requests failed retryably"
    );
    let wrong = load.wrong.lock().unwrap();
    assert!(wrong.is_empty(), "lost or mixed-up answers: {wrong:?}");
    // The instance is killed (SIGKILL): a request in flight on it gets 502 from nginx, which
    // does not send a POST twice. Each of the 4 clients has one request in flight at most.
    for (era, failed) in [("2026-07-28", retryable_modern), ("handshake", retryable - retryable_modern)] {
        assert!(failed <= 4, "{era}: only the requests in flight on the killed instance may fail: {failed}");
    }
    assert_eq!(load.ok.load(Ordering::Relaxed) + retryable, 1_200);

    // After the stops: the TypeScript client's session works on the one left.
    let tags = typescript_whoami(&url);
    assert!(tags.iter().all(|tag| tag == "a"), "{tags:?}");
}

#[test]
fn with_affinity_a_session_stays_on_its_instance_and_starts_over_when_it_stops() {
    let mut cluster = Cluster::start("nginx-affinity.conf", false);
    let url = cluster.nginx.url();

    // The TypeScript client's session is answered by one instance only.
    let tags = typescript_whoami(&url);
    assert!(tags.iter().all(|tag| tag == &tags[0]), "one instance serves the session: {tags:?}");

    // A session minted by an instance carries its tag; its instance stops; the session gets
    // a clean 404 (from another instance), and a new initialize succeeds there.
    let session = open_session(&url);
    let owner = session.split_once('.').map(|(tag, _)| tag.to_owned()).expect("a tagged session id");
    let called = post(&url, &call(1, "whoami", json!({})), &[("mcp-session-id", &session)]);
    assert_eq!(text(&called), owner);
    let index = cluster.instances.iter().position(|i| i.tag == owner).expect("a known tag");
    cluster.instances[index].stop();
    let gone = post(&url, &call(2, "whoami", json!({})), &[("mcp-session-id", &session)]);
    assert_eq!(gone.status, 404, "{gone:?}");
    let again = open_session(&url);
    assert!(!again.starts_with(&format!("{owner}.")), "{again}");
    let answered = post(&url, &call(3, "whoami", json!({})), &[("mcp-session-id", &again)]);
    assert_eq!(text(&answered), again.split_once('.').unwrap().0);

    // Load: 2026-07-28 goes anywhere; sessions stay put.
    let load = Arc::new(Load::default());
    let modern = load_run(&url, 4, 150, true, &load, || {});
    let handshake = load_run(&url, 4, 150, false, &load, || {});
    eprintln!(
        "through nginx, two instances with affinity: {modern:.0} req/s (2026-07-28), {handshake:.0} req/s (sessions)"
    );
    assert!(load.wrong.lock().unwrap().is_empty(), "{:?}", load.wrong.lock().unwrap());
    assert_eq!(load.ok.load(Ordering::Relaxed), 1_200, "{load:?}");
}

/// The CPU time process `pid` has used so far (user and system), from `/proc/PID/stat`.
fn cpu_time(pid: u32) -> Duration {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).expect("/proc/PID/stat");
    // The fields after the command name (which may hold spaces) and its `)`.
    let fields: Vec<&str> = stat.rsplit_once(')').expect("a stat line").1.split_whitespace().collect();
    let ticks: u64 = fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap();
    static TICKS_PER_SECOND: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    let per_second = *TICKS_PER_SECOND.get_or_init(|| {
        let out = Command::new("getconf").arg("CLK_TCK").output().expect("getconf");
        String::from_utf8_lossy(&out.stdout).trim().parse().expect("CLK_TCK")
    });
    Duration::from_secs_f64(ticks as f64 / per_second as f64)
}

/// The CPU time per request each part spent during `run` (which serves `requests`):
/// `(part, µs per request)`.
fn cpu_per_request(parts: &[(&str, u32)], requests: usize, run: impl FnOnce()) -> Vec<(String, f64)> {
    let before: Vec<Duration> = parts.iter().map(|(_, pid)| cpu_time(*pid)).collect();
    run();
    parts
        .iter()
        .zip(before)
        .map(|((part, pid), before)| {
            let spent = cpu_time(*pid).saturating_sub(before);
            ((*part).to_owned(), spent.as_secs_f64() * 1e6 / requests as f64)
        })
        .collect()
}

/// Requests per second through nginx with one instance and with three, and the CPU time per
/// request spent in nginx, in Redis and in the instances (from `/proc/PID/stat` around each
/// run, a few seconds each): what the proxy and Redis cost on this machine, where three
/// instances cannot each have a core. No figure is asserted; every answer is checked.
#[test]
fn nginx_redis_and_the_instances_for_the_record() {
    const CLIENTS: usize = 4;
    const CALLS: usize = 1_500;
    let redis = services::Redis::start();
    let instances: Vec<Instance> = ["a", "b", "c"].into_iter().map(|tag| Instance::start(tag, &redis, true)).collect();
    let load = Arc::new(Load::default());
    for count in [1, 3] {
        let ports: Vec<u16> = (0..3).map(|n| instances[n % count].port).collect();
        let nginx = Nginx::start(&deploy("nginx-shared.conf"), &ports);
        let mut parts = vec![("nginx", nginx.pid()), ("Redis", redis.pid())];
        parts.extend(instances[..count].iter().map(|i| (i.tag, i.process.0.id())));
        for stateless in [true, false] {
            let era = if stateless { "2026-07-28" } else { "handshake era, sessions in Redis" };
            let mut rate = 0.0;
            let spent = cpu_per_request(&parts, CLIENTS * CALLS, || {
                rate = load_run(&nginx.url(), CLIENTS, CALLS, stateless, &load, || {});
            });
            let spent: Vec<String> = spent.iter().map(|(part, us)| format!("{part} {us:.0} µs")).collect();
            eprintln!(
                "through nginx, {count} instance(s), {era}: {rate:.0} req/s; CPU per request: {}",
                spent.join(", ")
            );
        }
    }
    assert!(load.wrong.lock().unwrap().is_empty(), "{:?}", load.wrong.lock().unwrap());
    assert_eq!(load.ok.load(Ordering::Relaxed), 4 * CLIENTS * CALLS);
}

#[test]
fn a_delete_through_nginx_ends_the_session_everywhere() {
    let cluster = Cluster::start("nginx-shared.conf", true);
    let url = cluster.nginx.url();
    let session = open_session(&url);
    // Served by each instance once (they each take it over from Redis).
    for (n, instance) in cluster.instances.iter().enumerate() {
        let answer = post(&instance.url(), &call(n as i64, "whoami", json!({})), &[("mcp-session-id", &session)]);
        assert_eq!(text(&answer), instance.tag);
    }
    assert_eq!(send(&url, "DELETE", None, &[("mcp-session-id", &session)]).status, 204);
    let deadline = Instant::now() + Duration::from_secs(5);
    for instance in &cluster.instances {
        loop {
            let answer = post(&instance.url(), &request(9, "ping", json!({})), &[("mcp-session-id", &session)]);
            if answer.status == 404 {
                break;
            }
            assert!(Instant::now() < deadline, "instance {} still serves it: {answer:?}", instance.tag);
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

/// The client capabilities of a 2026-07-28 request that opts in to tasks and can be asked.
fn task_capabilities() -> Value {
    json!({"extensions": {"io.modelcontextprotocol/tasks": {}}, "elicitation": {}})
}

/// Sends a 2026-07-28 request opting in to tasks to `url`: its result (or error) message.
fn task_request(url: &str, id: i64, method: &str, params: Value) -> Value {
    let body = request(id, method, stateless_params(Some(params), task_capabilities()));
    let answer = post(url, &body, &[]);
    assert_eq!(answer.status, 200, "{method} at {url}: {answer:?}");
    answer.last().clone()
}

/// Polls task `id` through `url` until `done` holds of it (at most ten seconds): the task as
/// `tasks/get` shows it then.
fn poll_task(url: &str, id: &str, done: impl Fn(&Value) -> bool) -> Value {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let task = task_request(url, 90, "tasks/get", json!({"taskId": id}))["result"].clone();
        if done(&task) {
            return task;
        }
        assert!(Instant::now() < deadline, "task {id} at {url} stayed {task}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Starts tool `name` as a task through `url`: the task's id.
fn start_task(url: &str, name: &str, arguments: Value) -> String {
    let created = task_request(url, 1, "tools/call", json!({"name": name, "arguments": arguments}));
    assert_eq!(created["result"]["resultType"], "task", "{created}");
    created["result"]["taskId"].as_str().expect("a task id").to_owned()
}

#[test]
fn a_task_made_on_one_instance_is_read_answered_and_cancelled_through_the_others() {
    let mut cluster = Cluster::start("nginx-shared.conf", true);
    let (a, b) = (cluster.instances[0].url(), cluster.instances[1].url());
    let nginx = cluster.nginx.url();

    // Made on a, polled through nginx (every instance in turn) to its end.
    let id = start_task(&a, "report", json!({"steps": 3, "step_ms": 100}));
    let done = poll_task(&nginx, &id, |task| task["status"] != "working");
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["result"]["content"][0]["text"], "Report of 3 steps (written on a)");

    // A question asked on a, seen and answered through b: the answer reaches the handler on a.
    let id = start_task(&a, "sign", json!({}));
    let waiting = poll_task(&b, &id, |task| task["status"] == "input_required");
    let (key, question) = waiting["inputRequests"].as_object().unwrap().iter().next().unwrap();
    assert_eq!(question["params"]["message"], "Who signs the report?");
    let answer = json!({key: {"action": "accept", "content": {"name": "Ada"}}});
    let ack = task_request(&b, 2, "tasks/update", json!({"taskId": id, "inputResponses": answer}));
    assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
    let signed = poll_task(&nginx, &id, |task| task["status"] == "completed");
    assert_eq!(signed["result"]["content"][0]["text"], "Signed by Ada (on a)");

    // Cancelled through b while a works on it: cancelled everywhere, and a's later progress
    // does not bring it back.
    let id = start_task(&a, "report", json!({"steps": 50, "step_ms": 100}));
    poll_task(&a, &id, |task| task.get("statusMessage").is_some());
    let ack = task_request(&b, 3, "tasks/cancel", json!({"taskId": id}));
    assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
    // Once a's handler has ended (dropped by the cancellation, or at its end), it reports no
    // more progress: read then, the task is cancelled everywhere.
    cluster.instances[0].wait_for_log("a report of 50 steps ended");
    for url in [&a, &b, &nginx] {
        assert_eq!(poll_task(url, &id, |_| true)["status"], "cancelled", "through {url}");
    }

    // Instance c is killed (SIGKILL) while its task works: read through b, the task ends
    // failed, saying why, once c's sign of life is gone.
    let c = cluster.instances[2].url();
    let id = start_task(&c, "report", json!({"steps": 600, "step_ms": 100}));
    assert_eq!(poll_task(&b, &id, |_| true)["status"], "working");
    cluster.instances[2].stop();
    let failed = poll_task(&b, &id, |task| task["status"] != "working");
    assert_eq!(failed["status"], "failed", "{failed}");
    assert_eq!(failed["statusMessage"], "The server instance running this task stopped");
    assert_eq!(failed["error"]["code"], -32603);
}

/// A report that takes `ms` milliseconds, run as a task when the client asks.
fn report_tool() -> mcp_runtime::ToolDescriptor {
    mcp_runtime::ToolDescriptor::new("report").task(mcp_runtime::tasks::TaskSupport::Optional).handler(
        |arguments: Value| async move {
            tokio::time::sleep(Duration::from_millis(arguments["ms"].as_u64().unwrap_or(0))).await;
            "reported".to_owned()
        },
    )
}

#[test]
fn the_redis_task_store_is_bounded_by_its_limit_and_its_time_to_live() {
    use mcp_runtime::protocol::Revision;
    use mcp_runtime::testing::TestClient;
    let redis = services::Redis::start();
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    runtime.block_on(async {
        let shared = mcp_runtime::redis::Redis::connect(&redis.url).await.expect("Redis");
        let server = mcp_runtime::Server::builder("reports", "1.0.0")
            .tool(report_tool())
            .task_store(shared.task_store().with_limit(2))
            .change_bus(shared.change_bus().await.expect("the bus"))
            .task_ttl(Duration::from_millis(1_500));
        let client = TestClient::builder().revision(Revision::V2026_07_28).tasks().connect(server).await.unwrap();
        let mut ids = Vec::new();
        for _ in 0..2 {
            let created = client.start_tool_call("report", json!({"ms": 60_000})).await.unwrap();
            ids.push(created["taskId"].as_str().unwrap().to_owned());
        }
        // Past the limit: refused, saying why.
        let refused = client.start_tool_call("report", json!({"ms": 0})).await.unwrap_err();
        let error = refused.rpc().unwrap_or_else(|| panic!("a JSON-RPC error: {refused:?}"));
        assert_eq!(error.code, -32603);
        assert!(error.message.contains("2 tasks, the most it keeps"), "{}", error.message);
        // Past their time to live the two are gone (-32602) and make room.
        assert_eq!(client.get_task(&ids[0]).await.unwrap()["status"], "working");
        tokio::time::sleep(Duration::from_millis(1_700)).await;
        for id in &ids {
            let gone = client.get_task(id).await.unwrap_err();
            assert_eq!(gone.rpc().map(|e| e.code), Some(-32602), "{gone:?}");
        }
        let created = client.start_tool_call("report", json!({"ms": 0})).await.unwrap();
        assert_eq!(created["resultType"], "task", "{created}");
    });
}

/// POSTs `body` in `session` to `url` and reads the answer's SSE events as they arrive, each
/// message's JSON on the channel (the priming event's empty data left out).
fn stream_post(url: &str, session: &str, body: &Value) -> std::sync::mpsc::Receiver<Value> {
    let response = reqwest::blocking::Client::builder()
        .timeout(Duration::from_secs(30))
        .build()
        .unwrap()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-session-id", session)
        .header("mcp-protocol-version", "2025-11-25")
        .body(body.to_string())
        .send()
        .expect("an answer");
    assert_eq!(response.status().as_u16(), 200);
    sse_messages(response)
}

#[test]
fn a_client_s_answer_or_cancel_landing_on_another_instance_reaches_the_waiting_handler() {
    let mut cluster = Cluster::start("nginx-shared.conf", true);
    let (a, b) = (cluster.instances[0].url(), cluster.instances[1].url());
    let in_session = |session: &str| vec![("mcp-session-id", session.to_owned())];
    let post_in = |url: &str, session: &str, body: &Value| {
        let headers = in_session(session);
        let headers: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
        post(url, body, &headers)
    };

    // `greet` asks on a; the answer is posted to b, and a's handler gets it.
    let session = open_session_with(&a, json!({"elicitation": {}}));
    let events = stream_post(&a, &session, &call(1, "greet", json!({})));
    let question = events.recv_timeout(Duration::from_secs(10)).expect("the question");
    assert_eq!(question["method"], "elicitation/create", "{question}");
    let answer = json!({"jsonrpc": "2.0", "id": question["id"], "result":
        {"action": "accept", "content": {"name": "Ada"}}});
    assert_eq!(post_in(&b, &session, &answer).status, 202);
    let greeting = events.recv_timeout(Duration::from_secs(10)).expect("the greeting");
    assert_eq!(greeting["id"], 1, "{greeting}");
    assert_eq!(greeting["result"]["content"][0]["text"], "Hello, Ada (from a)");

    // A call running on a, cancelled through b: it stops (no result; its progress ends).
    let progress =
        json!({"name": "report", "arguments": {"steps": 40, "step_ms": 100}, "_meta": {"progressToken": "r"}});
    let events = stream_post(&a, &session, &request(2, "tools/call", progress));
    let first = events.recv_timeout(Duration::from_secs(10)).expect("the first progress");
    assert_eq!(first["method"], "notifications/progress", "{first}");
    let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 2}});
    assert_eq!(post_in(&b, &session, &cancel).status, 202);
    let deadline = Instant::now() + Duration::from_secs(8);
    while let Ok(event) = events.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
        assert!(event.get("result").is_none(), "a cancelled call was answered: {event}");
        let progress = event["params"]["progress"].as_f64().unwrap_or_default();
        assert!(progress < 40.0, "the call ran to its end: {event}");
    }

    // 2026-07-28: `greet` asked on a and retried on a goes on in the handler a kept; retried
    // on b, which keeps none, it runs again there with the answer (the state is sealed with the
    // key they share). Through nginx, wherever each retry lands, every answer is right.
    let asked = |url: &str| {
        let first = post(url, &stateless_call(1, "greet", None), &[]);
        first.last()["result"]["requestState"].as_str().unwrap_or_else(|| panic!("{first:?}")).to_owned()
    };
    let answered =
        |url: &str, state: &str, name: &str| text(&post(url, &stateless_call(2, "greet", Some((state, name))), &[]));
    let state = asked(&a);
    assert_eq!(answered(&a, &state, "Ada"), "Hello, Ada (from a)");
    // Two runs on a: the handshake-era call above, and this one.
    assert_eq!(greet_runs(&cluster.instances[0], 1), 2, "a kept its handler for the retry");
    let state = asked(&a);
    assert_eq!(answered(&b, &state, "Bo"), "Hello, Bo (from b)");
    assert_eq!((greet_runs(&cluster.instances[0], 2), greet_runs(&cluster.instances[1], 3)), (3, 1));
    let nginx = cluster.nginx.url();
    for n in 0..6 {
        let name = format!("Client {n}");
        let greeting = answered(&nginx, &asked(&nginx), &name);
        assert!(greeting.starts_with(&format!("Hello, {name} (from ")), "{greeting}");
    }
    let runs: usize = cluster.instances.iter().zip(4..).map(|(instance, mark)| greet_runs(instance, mark)).sum();
    assert!((4 + 6..=4 + 12).contains(&runs), "one run per call, two where the retry landed elsewhere: {runs}");

    // Instance a stops while `greet` waits there: the client's late answer, posted to b, gets
    // 202 and nothing else, and b serves the session on.
    let events = stream_post(&a, &session, &call(3, "greet", json!({})));
    let question = events.recv_timeout(Duration::from_secs(10)).expect("the question");
    cluster.instances[0].stop();
    let late =
        json!({"jsonrpc": "2.0", "id": question["id"], "result": {"action": "accept", "content": {"name": "Bo"}}});
    assert_eq!(post_in(&b, &session, &late).status, 202);
    let tag = post_in(&b, &session, &call(4, "whoami", json!({})));
    assert_eq!(text(&tag), "b");
}

/// A 2026-07-28 call of `tool` as request `id` declaring elicitation, a retry with `state`
/// and an accepted `name` when given.
fn stateless_call(id: i64, tool: &str, retry: Option<(&str, &str)>) -> Value {
    let mut params = json!({"name": tool, "arguments": {}});
    if let Some((state, name)) = retry {
        params["requestState"] = json!(state);
        params["inputResponses"] = json!({"0": {"action": "accept", "content": {"name": name}}});
    }
    request(id, "tools/call", stateless_params(Some(params), json!({"elicitation": {}})))
}

/// How many times `greet` ran up to its question on `instance` so far. A report of `mark` steps
/// is written there first, and its last line awaited: every line logged before it was read.
fn greet_runs(instance: &Instance, mark: u32) -> usize {
    let report = request(
        3,
        "tools/call",
        stateless_params(
            Some(json!({"name": "report",
        "arguments": {"steps": mark, "step_ms": 0}})),
            json!({}),
        ),
    );
    assert_eq!(post(&instance.url(), &report, &[]).status, 200);
    instance.wait_for_log(&format!("a report of {mark} steps ended after step {mark}"));
    instance.log.text().matches("greet asks for a name").count()
}

/// A session's GET stream at `url`, resumed after `last` if given: each event's id and data
/// as it arrives, from a thread of its own; returned once the server answered the GET.
fn get_stream(url: &str, session: &str, last: Option<&str>) -> std::sync::mpsc::Receiver<(String, String)> {
    let mut request = reqwest::blocking::Client::builder()
        .timeout(Duration::from_secs(30))
        .build()
        .unwrap()
        .get(url)
        .header("accept", "text/event-stream")
        .header("mcp-session-id", session)
        .header("mcp-protocol-version", "2025-11-25");
    if let Some(last) = last {
        request = request.header("last-event-id", last);
    }
    let response = request.send().expect("a stream");
    assert_eq!(response.status().as_u16(), 200);
    sse_events(response)
}

#[test]
fn an_instance_killed_with_sigkill_leaves_its_sessions_and_streams_to_the_others() {
    let mut cluster = Cluster::start("nginx-shared.conf", true);
    let (a, b, c) = (cluster.instances[0].url(), cluster.instances[1].url(), cluster.instances[2].url());
    // A subscriber on a reads its stream's priming event, then goes away.
    let session = open_session(&a);
    let subscribe = request(1, "resources/subscribe", json!({"uri": "board://news"}));
    assert!(post(&a, &subscribe, &[("mcp-session-id", &session)]).last().get("result").is_some());
    let priming = {
        let stream = get_stream(&a, &session, None);
        stream.recv_timeout(Duration::from_secs(5)).expect("the priming event").0
    };
    // Two updates announced elsewhere while nobody reads: a keeps them in the event store.
    let other = open_session(&c);
    for id in [2, 3] {
        assert_eq!(text(&post(&c, &call(id, "announce", json!({})), &[("mcp-session-id", &other)])), "announced");
    }
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let kept = runtime.block_on(async {
        let events = mcp_runtime::redis::Redis::connect(&cluster.redis.url).await.expect("Redis").event_store();
        let deadline = Instant::now() + Duration::from_secs(5);
        loop {
            let kept =
                mcp_runtime::http::EventStore::after(&events, &priming).await.expect("the store").unwrap_or_default();
            if kept.len() >= 2 {
                break kept.into_iter().map(|(id, _)| id).collect::<Vec<_>>();
            }
            assert!(Instant::now() < deadline, "{} of 2 updates kept", kept.len());
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    });
    // a is killed (SIGKILL: nothing runs on its way out).
    cluster.instances[0].stop();
    // The session goes on on b, and its stream resumes there from the event store.
    let ping = post(&b, &request(4, "ping", json!({})), &[("mcp-session-id", &session)]);
    assert_eq!(ping.status, 200, "{ping:?}");
    let resumed = get_stream(&b, &session, Some(&priming));
    let replayed: Vec<(String, String)> =
        (0..2).map(|_| resumed.recv_timeout(Duration::from_secs(5)).expect("a replayed update")).collect();
    let ids: Vec<&str> = replayed.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(ids, kept, "the updates a kept, replayed by b in order");
    for (_, data) in &replayed {
        let update: Value = serde_json::from_str(data).unwrap();
        assert_eq!(
            (&update["method"], &update["params"]["uri"]),
            (&json!("notifications/resources/updated"), &json!("board://news"))
        );
    }
}

/// GET `path` on an instance: its status.
fn probe(instance: &Instance, path: &str) -> u16 {
    let url = format!("http://127.0.0.1:{}{path}", instance.port);
    reqwest::blocking::get(&url).map(|r| r.status().as_u16()).unwrap_or(0)
}

/// Waits (fifteen seconds at most) until every instance's `/readyz` says it is ready.
fn wait_until_ready(instances: &[Instance]) {
    let deadline = Instant::now() + Duration::from_secs(15);
    while instances.iter().any(|i| probe(i, "/readyz") != 200) {
        assert!(Instant::now() < deadline, "an instance stayed unready after Redis came back");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_redis_outage_mid_load_fails_no_open_session_and_every_instance_recovers() {
    let mut redis = services::Redis::durable();
    let instances: Vec<Instance> = ["a", "b", "c"].into_iter().map(|tag| Instance::start(tag, &redis, true)).collect();
    let ports: Vec<u16> = instances.iter().map(|i| i.port).collect();
    let nginx = Nginx::start(&deploy("nginx-shared.conf"), &ports);
    let url = nginx.url();
    let during = Mutex::new(Vec::new());

    // 2026-07-28 needs no shared state: Redis restarts a third of the way in, nothing fails,
    // and calls sent while it was down were answered.
    let modern = Arc::new(Load::default());
    let modern_rate = load_run(&url, 4, 300, true, &modern, || {
        modern.outage.store(true, Ordering::SeqCst);
        redis.restart(|| {
            // While it is down: every instance says so on /readyz; a task cannot be kept, and
            // the call says to retry (503 with Retry-After), through nginx or not.
            let ready: Vec<u16> = instances.iter().map(|i| probe(i, "/readyz")).collect();
            let body = request(
                900,
                "tools/call",
                stateless_params(
                    Some(json!({"name": "report", "arguments": {"steps": 1, "step_ms": 1}})),
                    json!({"extensions": {"io.modelcontextprotocol/tasks": {}}}),
                ),
            );
            let refused = post(&instances[0].url(), &body, &[]);
            during.lock().unwrap().push((ready, refused));
        });
        modern.outage.store(false, Ordering::SeqCst);
    });
    wait_until_ready(&instances);
    // The handshake era keeps its sessions in Redis: a session opened while it is down is
    // refused with 503 and Retry-After; the sessions already open go on, none refused.
    let handshake = Arc::new(Load::default());
    let handshake_rate = load_run(&url, 4, 300, false, &handshake, || {
        handshake.outage.store(true, Ordering::SeqCst);
        redis.restart(|| {
            // A new session cannot be kept while Redis is down: 503, to retry.
            let refused = post(&instances[1].url(), &initialize("2025-11-25", json!({})), &[]);
            during.lock().unwrap().push((Vec::new(), refused));
        });
        handshake.outage.store(false, Ordering::SeqCst);
    });
    wait_until_ready(&instances);
    // A blip (every connection to Redis cut, Redis itself up) costs nothing: each command is
    // tried once more on a new connection.
    let blip = Arc::new(Load::default());
    let blip_rate = load_run(&url, 4, 300, false, &blip, || {
        let cut = redis.command(&["CLIENT", "KILL", "TYPE", "normal"]);
        assert!(cut.strip_prefix(':').and_then(|n| n.parse::<u32>().ok()).is_some_and(|n| n >= 1), "{cut}");
    });
    let count = |load: &Load, counter: fn(&Load) -> &AtomicUsize| counter(load).load(Ordering::Relaxed);
    eprintln!(
        "Redis restarted mid-load (each run's time includes the restart): {modern_rate:.0} req/s (2026-07-28, \
         {} answered during the outage), {handshake_rate:.0} req/s (handshake era, {} answered during \
         the outage); connections to Redis cut mid-load: {blip_rate:.0} req/s (handshake era)",
        count(&modern, |l| &l.ok_during_outage),
        count(&handshake, |l| &l.ok_during_outage),
    );
    for (era, load) in [("2026-07-28", &modern), ("handshake", &handshake), ("blip", &blip)] {
        let wrong = load.wrong.lock().unwrap();
        assert!(wrong.is_empty(), "{era}: lost or mixed-up answers: {wrong:?}");
        assert_eq!(count(load, |l| &l.ok) + count(load, |l| &l.retryable), 4 * 300, "{era}: every request counted");
    }
    assert_eq!(count(&modern, |l| &l.retryable), 0, "2026-07-28 requests need no shared state");
    assert!(count(&modern, |l| &l.ok_during_outage) > 0, "no 2026-07-28 request overlapped the outage");
    // Sessions the instances already serve need Redis only now and then: none is refused.
    assert_eq!(count(&handshake, |l| &l.retryable), 0, "handshake-era sessions already open");
    assert!(count(&handshake, |l| &l.ok_during_outage) > 0, "no handshake-era request overlapped the outage");
    assert_eq!(count(&blip, |l| &l.retryable), 0, "a blip costs nothing");

    let during = during.into_inner().unwrap();
    let (ready, task) = &during[0];
    assert_eq!(ready, &[503, 503, 503], "/readyz during the outage");
    assert_eq!(task.status, 503, "a task that cannot be kept: {task:?}");
    assert!(task.retry_after.is_some(), "a task refused says when to retry: {task:?}");
    let (_, session) = &during[1];
    assert_eq!(session.status, 503, "a session that cannot be kept: {session:?}");
    assert!(session.retry_after.is_some(), "a session refused says when to retry: {session:?}");

    // Redis is back: every instance recovers by itself (readiness, the stores, the bus).
    wait_until_ready(&instances);
    let id = start_task(&instances[1].url(), "report", json!({"steps": 1, "step_ms": 1}));
    let done = poll_task(&instances[2].url(), &id, |task| task["status"] != "working");
    assert_eq!(done["status"], "completed", "{done}");
    let (a, b) = (instances[0].url(), instances[1].url());
    let session = open_session(&a);
    let subscribe = request(1, "resources/subscribe", json!({"uri": "board://news"}));
    assert!(post(&a, &subscribe, &[("mcp-session-id", &session)]).last().get("result").is_some());
    let stream = get_stream(&a, &session, None);
    assert_eq!(stream.recv_timeout(Duration::from_secs(5)).expect("the priming event").1, "");
    let other = open_session(&b);
    // Announced once: the bus reads on from where it was, whenever its connection is back.
    assert_eq!(text(&post(&b, &call(2, "announce", json!({})), &[("mcp-session-id", &other)])), "announced");
    let (_, update) = stream.recv_timeout(Duration::from_secs(10)).expect("the update crossed the instances");
    let update: Value = serde_json::from_str(&update).unwrap();
    assert_eq!(update["method"], "notifications/resources/updated", "{update}");
}

/// Calls a tool on one instance in 2026-07-28, which needs nothing shared: it is answered
/// while Redis is away. Its text.
fn call_stateless(url: &str, name: &str, arguments: Value) -> String {
    let body =
        request(77, "tools/call", stateless_params(Some(json!({"name": name, "arguments": arguments})), json!({})));
    text(&post(url, &body, &[]))
}

/// The next event of a stream, which must be the notification `method`: its id.
fn next_notice(stream: &std::sync::mpsc::Receiver<(String, String)>, whose: &str, method: &str) -> String {
    let (id, data) =
        stream.recv_timeout(Duration::from_secs(10)).unwrap_or_else(|e| panic!("{whose}: no {method} ({e})"));
    let notice: Value = serde_json::from_str(&data).unwrap_or_else(|e| panic!("{whose}: {data:?} ({e})"));
    assert_eq!(notice["method"], method, "{whose}: {notice}");
    if method == UPDATED {
        assert_eq!(notice["params"]["uri"], "board://news", "{whose}");
    }
    id
}

const UPDATED: &str = "notifications/resources/updated";
const LIST_CHANGED: &str = "notifications/resources/list_changed";

#[test]
fn notices_published_while_redis_or_a_connection_to_it_is_away_reach_every_client_once() {
    let mut redis = services::Redis::durable();
    let instances: Vec<Instance> = ["a", "b", "c"].into_iter().map(|tag| Instance::start(tag, &redis, true)).collect();
    let urls: Vec<String> = instances.iter().map(Instance::url).collect();
    let subscribe = request(1, "resources/subscribe", json!({"uri": "board://news"}));
    // A subscriber served by each instance alone, reading its stream there.
    let mut readers = Vec::new();
    for (url, instance) in urls.iter().zip(&instances) {
        let session = open_session(url);
        assert!(post(url, &subscribe, &[("mcp-session-id", &session)]).last().get("result").is_some());
        let stream = get_stream(url, &session, None);
        assert_eq!(stream.recv_timeout(Duration::from_secs(5)).expect("the priming event").1, "");
        readers.push((format!("the subscriber on {}", instance.tag), stream));
    }
    // And one session served by all three (each hears every notice and tells it), whose stream
    // is read on a.
    let shared = open_session(&urls[0]);
    assert!(post(&urls[0], &subscribe, &[("mcp-session-id", &shared)]).last().get("result").is_some());
    for url in &urls[1..] {
        assert_eq!(post(url, &request(2, "ping", json!({})), &[("mcp-session-id", &shared)]).status, 200);
    }
    let shared_stream = get_stream(&urls[0], &shared, None);
    let priming = shared_stream.recv_timeout(Duration::from_secs(5)).expect("the priming event").0;
    readers.push(("the session served by all three".to_owned(), shared_stream));

    // An update announced on b while Redis is down: b's clients hear it at once, the others
    // once Redis is back and their instance reads on.
    redis.restart(|| assert_eq!(call_stateless(&urls[1], "announce", json!({})), "announced"));
    let first: Vec<String> = readers.iter().map(|(whose, stream)| next_notice(stream, whose, UPDATED)).collect();

    // Every instance's connections to Redis are cut (as a network fault would), and c changes
    // the resource list at once, before the instances reconnect (a second later).
    let cut = redis.command(&["CLIENT", "KILL", "TYPE", "normal"]);
    assert!(cut.strip_prefix(':').and_then(|n| n.parse::<u32>().ok()).is_some_and(|n| n >= 1), "{cut}");
    assert_eq!(call_stateless(&urls[2], "shelve", json!({"shelved": true})), "shelved");
    let second: Vec<String> = readers.iter().map(|(whose, stream)| next_notice(stream, whose, LIST_CHANGED)).collect();
    // Every instance applied the change: the board is off every instance's list.
    for url in &urls {
        let listed = post(url, &request(9, "resources/list", stateless_params(None, json!({}))), &[]);
        assert_eq!(listed.last()["result"]["resources"], json!([]), "{url}: {listed:?}");
    }
    // Not a notice twice (each instance of the shared session heard both): with Redis up, an
    // update on a, heard everywhere, then the board back on b, and each stream's next two
    // notices are those two, each new (a notice that came twice would come before them). The
    // board goes back only once every stream has the update: b tells its own clients at once,
    // and a's update may still be on its way to b.
    assert_eq!(call_stateless(&urls[0], "announce", json!({})), "announced");
    let updates: Vec<String> = readers.iter().map(|(whose, stream)| next_notice(stream, whose, UPDATED)).collect();
    assert_eq!(call_stateless(&urls[1], "shelve", json!({"shelved": false})), "back");
    let mut markers = Vec::new();
    for (((whose, stream), seen), update) in readers.iter().zip(first.iter().zip(&second)).zip(updates) {
        let marks = [update, next_notice(stream, whose, LIST_CHANGED)];
        assert!(!marks.contains(seen.0) && !marks.contains(seen.1) && marks[0] != marks[1], "{whose}: {marks:?}");
        markers.push(marks);
    }

    // The shared session's stream resumes on c from its priming event: the store holds each
    // notice once, under the ids a sent them with, then the stream goes on live.
    let resumed = get_stream(&urls[2], &shared, Some(&priming));
    let replayed: Vec<String> = [UPDATED, LIST_CHANGED, UPDATED, LIST_CHANGED]
        .into_iter()
        .map(|method| next_notice(&resumed, "the replay", method))
        .collect();
    let live = [first[3].clone(), second[3].clone(), markers[3][0].clone(), markers[3][1].clone()];
    assert_eq!(replayed, live, "live and replayed ids agree");
    assert_eq!(call_stateless(&urls[2], "announce", json!({})), "announced");
    let after = next_notice(&resumed, "the resumed stream", UPDATED);
    assert!(!live.contains(&after), "the replay held a notice twice: {after} after {live:?}");
}
