//! The proxy between one client and the runs of the server: what the client sets up is
//! noted and replayed on each new run; answers find their way back to the client whichever
//! run gives them; requests wait while a new run takes over.

use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::io::AsyncWriteExt;
use tokio::sync::mpsc;

use super::package::BuildFailure;
use super::server::Server;
use super::{Event, Launch};

/// How long requests in flight may take to finish on the old run after a switch.
const DRAIN: Duration = Duration::from_secs(10);

/// How long the new run has to answer each request of the replayed handshake.
const REPLAY_PATIENCE: Duration = Duration::from_secs(10);

/// The lists compared across a switch: the method, the capability, the result's key.
const LISTS: [(&str, &str, &str); 4] = [
    ("tools/list", "tools", "tools"),
    ("resources/list", "resources", "resources"),
    ("resources/templates/list", "resources", "resourceTemplates"),
    ("prompts/list", "prompts", "prompts"),
];

/// Where the client's messages go: stdout (`mcp dev` over stdio), or a channel the HTTP
/// front reads (`--http`).
#[derive(Debug)]
pub(crate) enum Outlet {
    Stdout(tokio::io::Stdout),
    Channel(mpsc::UnboundedSender<Value>),
}

/// What the client set up, to be replayed on each new run.
#[derive(Debug, Default)]
struct Session {
    /// The client's `initialize` params (handshake era).
    initialize: Option<Value>,
    initialized: bool,
    /// The client's `logging/setLevel` params.
    log_level: Option<Value>,
    subscriptions: BTreeSet<String>,
    /// 2026-07-28: the `_meta` of the client's latest request (the proxy's own requests
    /// carry it), and its open `subscriptions/listen` requests (id as JSON text → request).
    meta: Option<Value>,
    listens: BTreeMap<String, Value>,
}

/// One client's proxy.
#[derive(Debug)]
pub(crate) struct Proxy {
    launch: Launch,
    events_to: mpsc::UnboundedSender<Event>,
    events: mpsc::UnboundedReceiver<Event>,
    current: Option<Server>,
    /// Old runs finishing their requests, each with its deadline.
    draining: Vec<(Server, Instant)>,
    generations: u64,
    own_ids: u64,
    session: Session,
    /// Ids (JSON text) of the client's `initialize` and `server/discover` requests, whose
    /// answers' capabilities are rewritten.
    introductions: BTreeSet<String>,
    /// The server's requests to the client: the id the client saw → (run, the server's id).
    server_requests: HashMap<String, (u64, Value)>,
    /// Listen requests replayed to a new run, whose acknowledgement the client already had.
    replayed_listens: BTreeSet<String>,
    /// What arrived while the proxy waited on a new run: the client's messages, builds.
    deferred: VecDeque<Event>,
    outlet: Outlet,
}

impl Proxy {
    /// A proxy sending the client's messages to `outlet`, and where to send it events.
    pub(crate) fn new(launch: Launch, outlet: Outlet) -> (Proxy, mpsc::UnboundedSender<Event>) {
        let (events_to, events) = mpsc::unbounded_channel();
        let proxy = Proxy {
            launch,
            events_to: events_to.clone(),
            events,
            current: None,
            draining: Vec::new(),
            generations: 0,
            own_ids: 0,
            session: Session::default(),
            introductions: BTreeSet::new(),
            server_requests: HashMap::new(),
            replayed_listens: BTreeSet::new(),
            deferred: VecDeque::new(),
            outlet,
        };
        (proxy, events_to)
    }

    /// Starts the first run (when a build succeeded).
    pub(crate) fn start_first(&mut self) {
        self.generations += 1;
        match Server::start(&self.launch.binary, &self.launch.args, self.generations, self.events_to.clone()) {
            Ok(server) => self.current = Some(server),
            Err(e) => eprintln!("mcp dev: {e}"),
        }
    }

    /// Serves until the client leaves.
    pub(crate) async fn serve(&mut self) {
        let mut tick = tokio::time::interval(Duration::from_millis(250));
        loop {
            let event = match self.deferred.pop_front() {
                Some(event) => Some(event),
                None => tokio::select! {
                    event = self.events.recv() => event,
                    _ = tick.tick() => {
                        self.drain_overdue().await;
                        continue;
                    }
                },
            };
            match event {
                None | Some(Event::ClientClosed) => break,
                Some(Event::Client(line)) => self.on_client_line(line).await,
                Some(Event::Server(generation, message)) => self.on_server_message(generation, message).await,
                Some(Event::ServerNoise(generation, line)) => {
                    eprintln!("mcp dev: run {generation} wrote to stdout a line that is not JSON-RPC: {line}");
                }
                Some(Event::ServerClosed(generation)) => self.server_closed(generation).await,
                Some(Event::Built(outcome)) => self.built(outcome).await,
            }
        }
        for (server, _) in self.draining.drain(..) {
            server.stop().await;
        }
        if let Some(server) = self.current.take() {
            server.stop().await;
        }
    }

    /// A message from the client: noted when it sets the session up, then passed on.
    async fn on_client_line(&mut self, line: String) {
        let Ok(mut message) = serde_json::from_str::<Value>(&line) else {
            if let Some(server) = &mut self.current {
                let _ = server.send(&Value::String(line)).await;
            }
            return;
        };
        let id = message.get("id").map(Value::to_string);
        let Some(method) = message["method"].as_str().map(str::to_owned) else {
            // The client's answer to a server's request: back to the run that asked.
            if let Some((generation, original)) = id.and_then(|id| self.server_requests.remove(&id)) {
                message["id"] = original;
                if let Some(server) = self.run_mut(generation) {
                    let _ = server.send(&message).await;
                }
            }
            return;
        };
        self.note(&method, &message, id.as_deref());
        let Some(server) = &mut self.current else {
            if let Some(id) = message.get("id") {
                let error =
                    json!({"code": -32603, "message": "the server is not running: its build failed (see the log)"});
                self.write(&json!({"jsonrpc": "2.0", "id": id, "error": error})).await;
            }
            return;
        };
        if let Some(id) = id {
            server.pending.insert(id);
        }
        if !server.send(&message).await {
            eprintln!("mcp dev: the server's stdin closed");
        }
    }

    /// Remembers what a client message sets up in the session.
    fn note(&mut self, method: &str, message: &Value, id: Option<&str>) {
        let params = &message["params"];
        if let Some(meta) = params.get("_meta").filter(|m| m.get("io.modelcontextprotocol/protocolVersion").is_some()) {
            self.session.meta = Some(meta.clone());
        }
        match method {
            "initialize" => {
                self.session.initialize = Some(params.clone());
                self.introductions.extend(id.map(str::to_owned));
            }
            "server/discover" => self.introductions.extend(id.map(str::to_owned)),
            "notifications/initialized" => self.session.initialized = true,
            "logging/setLevel" => self.session.log_level = Some(params.clone()),
            "resources/subscribe" => self.session.subscriptions.extend(params["uri"].as_str().map(str::to_owned)),
            "resources/unsubscribe" => {
                if let Some(uri) = params["uri"].as_str() {
                    self.session.subscriptions.remove(uri);
                }
            }
            "subscriptions/listen" => {
                if let Some(id) = id {
                    self.session.listens.insert(id.to_owned(), message.clone());
                }
            }
            "notifications/cancelled" => {
                self.session.listens.remove(&params["requestId"].to_string());
            }
            _ => {}
        }
    }

    /// A message from run `generation`: passed on when the run is the current one, or an old
    /// one finishing its requests; a new run is not heard until it is the current one.
    async fn on_server_message(&mut self, generation: u64, message: Value) {
        if let Some(mut server) = self.current.take_if(|s| s.generation == generation) {
            self.pass_on(&mut server, message, true).await;
            self.current = Some(server);
        } else if let Some(index) = self.draining.iter().position(|(s, _)| s.generation == generation) {
            let (mut server, deadline) = self.draining.swap_remove(index);
            self.pass_on(&mut server, message, false).await;
            self.draining.push((server, deadline));
            self.finish_drained().await;
        }
    }

    /// Passes a message of `server` on to the client: an answer (the capabilities of an
    /// introduction rewritten), a request (under an id of the proxy's), a notification (from
    /// an old run, only those about its requests).
    async fn pass_on(&mut self, server: &mut Server, mut message: Value, is_current: bool) {
        let id = message.get("id").map(Value::to_string);
        let Some(method) = message["method"].as_str().map(str::to_owned) else {
            let Some(id) = id else { return };
            if !server.pending.remove(&id) {
                return; // a late answer to one of the proxy's own requests
            }
            if self.introductions.remove(&id)
                && let Some(result) = message.get_mut("result")
            {
                declare_changes(result);
            }
            self.write(&message).await;
            return;
        };
        if let Some(original) = message.get("id").cloned() {
            // The server asks the client: under an id of the proxy's, so that the answer
            // finds its way back to this run even after a switch.
            self.own_ids += 1;
            let proxied = format!("mcp-dev-s-{}", self.own_ids);
            self.server_requests.insert(Value::String(proxied.clone()).to_string(), (server.generation, original));
            message["id"] = Value::String(proxied);
            self.write(&message).await;
            return;
        }
        if method == "notifications/subscriptions/acknowledged" {
            let listen = message["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"].to_string();
            if self.replayed_listens.remove(&listen) {
                return;
            }
        }
        let about_a_request = matches!(method.as_str(), "notifications/progress" | "notifications/message");
        if is_current || about_a_request {
            self.write(&message).await;
        }
    }

    fn run_mut(&mut self, generation: u64) -> Option<&mut Server> {
        if let Some(server) = self.current.as_mut().filter(|s| s.generation == generation) {
            return Some(server);
        }
        self.draining.iter_mut().map(|(s, _)| s).find(|s| s.generation == generation)
    }

    async fn server_closed(&mut self, generation: u64) {
        if self.current.as_ref().is_some_and(|s| s.generation == generation) {
            let server = self.current.take().expect("checked");
            eprintln!("mcp dev: the server exited; it starts again on the next change that builds");
            self.fail_pending(server, "the server exited before answering").await;
            return;
        }
        if let Some(index) = self.draining.iter().position(|(s, _)| s.generation == generation) {
            let (server, _) = self.draining.remove(index);
            self.fail_pending(server, "the old server exited before answering").await;
        }
    }

    /// Answers the requests `server` still had with an error, and stops it.
    async fn fail_pending(&mut self, server: Server, why: &str) {
        for id in &server.pending {
            if let Ok(id) = serde_json::from_str::<Value>(id) {
                self.write(&json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32603, "message": why}})).await;
            }
        }
        server.stop().await;
    }

    /// Old runs whose requests are all answered are stopped.
    async fn finish_drained(&mut self) {
        let (done, running): (Vec<_>, Vec<_>) = self.draining.drain(..).partition(|(s, _)| s.pending.is_empty());
        self.draining = running;
        for (server, _) in done {
            server.stop().await;
        }
    }

    /// Old runs past their deadline: their requests get an error, the run stops.
    async fn drain_overdue(&mut self) {
        let now = Instant::now();
        let (overdue, running): (Vec<_>, Vec<_>) = self.draining.drain(..).partition(|(_, deadline)| *deadline <= now);
        self.draining = running;
        for (server, _) in overdue {
            self.fail_pending(server, "the server was rebuilt and the old one did not finish in time").await;
        }
    }

    async fn built(&mut self, outcome: Result<(), BuildFailure>) {
        match outcome {
            Ok(()) => self.switch().await,
            Err(failure) if self.session.initialized => {
                let data = format!("mcp dev: the build failed; the previous build keeps serving.\n{}", failure.errors);
                let params = json!({"level": "error", "logger": "mcp dev", "data": data});
                self.write(&json!({"jsonrpc": "2.0", "method": "notifications/message", "params": params})).await;
            }
            Err(_) => {}
        }
    }

    /// Starts the new build, replays the session on it, makes it the current run, and tells
    /// the client which lists changed.
    async fn switch(&mut self) {
        self.generations += 1;
        let generation = self.generations;
        let mut next = match Server::start(&self.launch.binary, &self.launch.args, generation, self.events_to.clone()) {
            Ok(server) => server,
            Err(e) => {
                eprintln!("mcp dev: {e}");
                return;
            }
        };
        let before = match self.current.as_ref().map(|s| s.generation) {
            Some(old) => self.lists(old).await,
            None => None,
        };
        if let Err(why) = self.replay(&mut next).await {
            eprintln!("mcp dev: the new build did not take the client's session ({why}); the old one keeps serving");
            next.stop().await;
            return;
        }
        if let Some(old) = self.current.replace(next) {
            if old.pending.is_empty() {
                old.stop().await;
            } else {
                self.draining.push((old, Instant::now() + DRAIN));
            }
        }
        for (id, listen) in self.session.listens.clone() {
            self.replayed_listens.insert(id);
            if let Some(server) = &mut self.current {
                let _ = server.send(&listen).await;
            }
        }
        let after = self.lists(generation).await;
        eprintln!("mcp dev: serving the new build (run {generation})");
        if let (Some(before), Some(after)) = (before, after) {
            for (capability, changed) in changed_lists(&before, &after) {
                if changed {
                    self.announce(capability).await;
                }
            }
        }
    }

    /// Replays the client's handshake (and log level, subscriptions) on `server`.
    async fn replay(&mut self, server: &mut Server) -> Result<(), String> {
        let Some(initialize) = self.session.initialize.clone() else { return Ok(()) };
        let answer = self.own_request(server, "initialize", initialize, false).await?;
        if let Some(error) = answer.get("error") {
            return Err(format!("initialize: {error}"));
        }
        if self.session.initialized {
            server.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await;
        }
        if let Some(level) = self.session.log_level.clone() {
            self.own_request(server, "logging/setLevel", level, false).await?;
        }
        for uri in self.session.subscriptions.clone() {
            self.own_request(server, "resources/subscribe", json!({"uri": uri}), false).await?;
        }
        Ok(())
    }

    /// Every list of run `generation` the client could have seen; `None` before the client
    /// has a session.
    async fn lists(&mut self, generation: u64) -> Option<BTreeMap<&'static str, Value>> {
        let stateless = self.session.initialize.is_none();
        if stateless && self.session.meta.is_none() {
            return None;
        }
        let mut server = self.current.take_if(|s| s.generation == generation)?;
        let mut lists = BTreeMap::new();
        for (method, _, key) in LISTS {
            let mut params = json!({});
            if stateless {
                params["_meta"] = self.session.meta.clone().unwrap_or(Value::Null);
            }
            let answer = self.own_request(&mut server, method, params, true).await.unwrap_or(Value::Null);
            lists.insert(key, answer["result"][key].clone());
        }
        self.current = Some(server);
        Some(lists)
    }

    /// Sends the proxy's own request to `server` and waits for its answer, passing on what
    /// other runs say meanwhile (and what `server` says besides, when `speaking`: it is the
    /// client's current run); the client's messages wait (deferred).
    async fn own_request(
        &mut self,
        server: &mut Server,
        method: &str,
        params: Value,
        speaking: bool,
    ) -> Result<Value, String> {
        self.own_ids += 1;
        let id = format!("mcp-dev-{}", self.own_ids);
        let request = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        if !server.send(&request).await {
            return Err("its stdin closed".to_owned());
        }
        let deadline = tokio::time::Instant::now() + REPLAY_PATIENCE;
        loop {
            let event = tokio::time::timeout_at(deadline, self.events.recv())
                .await
                .map_err(|_| format!("no answer to {method} in {} s", REPLAY_PATIENCE.as_secs()))?;
            match event {
                Some(Event::Server(generation, message)) if generation == server.generation => {
                    if message.get("method").is_none() && message["id"] == id.as_str() {
                        return Ok(message);
                    }
                    if speaking {
                        Box::pin(self.pass_on(server, message, true)).await;
                    }
                }
                Some(Event::ServerClosed(generation)) if generation == server.generation => {
                    return Err("it exited".to_owned());
                }
                Some(event @ (Event::Client(_) | Event::Built(_))) => self.deferred.push_back(event),
                Some(Event::Server(generation, message)) => Box::pin(self.on_server_message(generation, message)).await,
                Some(Event::ServerClosed(generation)) => Box::pin(self.server_closed(generation)).await,
                Some(Event::ServerNoise(..)) => {}
                Some(Event::ClientClosed) | None => return Err("the client left".to_owned()),
            }
        }
    }

    /// Tells the client that list `capability` changed: a notification (handshake era), or
    /// on each `subscriptions/listen` stream that asked for it (2026-07-28).
    async fn announce(&mut self, capability: &str) {
        let method = format!("notifications/{capability}/list_changed");
        if self.session.initialize.is_some() {
            self.write(&json!({"jsonrpc": "2.0", "method": method})).await;
            return;
        }
        let wanted = format!("{capability}ListChanged");
        for (id, listen) in self.session.listens.clone() {
            if listen["params"]["notifications"][&wanted] == true
                && let Ok(id) = serde_json::from_str::<Value>(&id)
            {
                let params = json!({"_meta": {"io.modelcontextprotocol/subscriptionId": id}});
                self.write(&json!({"jsonrpc": "2.0", "method": method, "params": params})).await;
            }
        }
    }

    async fn write(&mut self, message: &Value) {
        let delivered = match &mut self.outlet {
            Outlet::Stdout(stdout) => {
                let mut line = message.to_string();
                line.push('\n');
                stdout.write_all(line.as_bytes()).await.is_ok() && stdout.flush().await.is_ok()
            }
            Outlet::Channel(channel) => channel.send(message.clone()).is_ok(),
        };
        if !delivered {
            let _ = self.events_to.send(Event::ClientClosed);
        }
    }
}

/// Every list's capability as changing (`listChanged: true`), whatever the server says.
fn declare_changes(result: &mut Value) {
    let Some(capabilities) = result.get_mut("capabilities").and_then(Value::as_object_mut) else { return };
    for capability in ["tools", "resources", "prompts"] {
        if let Some(declared) = capabilities.get_mut(capability) {
            if !declared.is_object() {
                *declared = json!({});
            }
            declared["listChanged"] = json!(true);
        }
    }
}

/// For each capability, whether one of its lists differs between two runs.
fn changed_lists(before: &BTreeMap<&str, Value>, after: &BTreeMap<&str, Value>) -> Vec<(&'static str, bool)> {
    let mut changed: Vec<(&'static str, bool)> = Vec::new();
    for (_, capability, key) in LISTS {
        let differs = before.get(key) != after.get(key);
        match changed.iter_mut().find(|(c, _)| *c == capability) {
            Some((_, already)) => *already |= differs,
            None => changed.push((capability, differs)),
        }
    }
    changed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_list_is_declared_as_changing() {
        let mut result = json!({"capabilities": {"tools": {}, "resources": {"subscribe": true}, "logging": {}}});
        declare_changes(&mut result);
        assert_eq!(
            result["capabilities"],
            json!({"tools": {"listChanged": true}, "resources": {"subscribe": true, "listChanged": true}, "logging": {}})
        );
    }

    #[test]
    fn a_template_change_is_a_resources_change() {
        let before: BTreeMap<&str, Value> =
            [("tools", json!([])), ("resources", json!([])), ("resourceTemplates", json!([])), ("prompts", json!([]))]
                .into();
        let mut after = before.clone();
        after.insert("resourceTemplates", json!([{"uriTemplate": "a://{x}"}]));
        assert_eq!(changed_lists(&before, &after), [("tools", false), ("resources", true), ("prompts", false)]);
    }
}
