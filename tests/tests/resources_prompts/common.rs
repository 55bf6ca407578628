//! What the feature modules share: [`Conn`], one connection speaking one revision and checking
//! that every result holds its era's fields; the `change_item` and `add_item` vocabulary
//! ([`Kind`]); and opening a `subscriptions/listen` stream ([`listen`], [`tagged`]).

use std::time::Duration;

use mcp_tests::example_binary;
use mcp_tests::wire::{
    SERVER_INFO_KEY, STATELESS_REVISION as MODERN, StdioServer, StdioServerBuilder, only_text, result, stateless_params,
};
use serde_json::{Value, json};

/// The examples share the workspace's version with this package.
pub(crate) const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The `_meta` key tagging every message of a `subscriptions/listen` stream.
pub(crate) const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";

/// The methods whose 2026-07-28 results carry the caching fields (`ttlMs`, `cacheScope`).
const CACHED: [&str; 6] =
    ["server/discover", "tools/list", "resources/list", "resources/templates/list", "prompts/list", "resources/read"];

/// How long a notification that must not come is waited for.
const QUIET: Duration = Duration::from_millis(250);

/// Whether `revision` is `first` or later (ISO dates order as strings).
pub(crate) fn since(revision: &str, first: &str) -> bool {
    revision >= first
}

/// The code of "resource not found": -32002 under the handshake revisions, -32602 under
/// 2026-07-28.
pub(crate) fn not_found_code(revision: &str) -> i64 {
    if revision == MODERN { -32602 } else { -32002 }
}

/// `manual --test-items <args>`, ready to configure and spawn.
pub(crate) fn items(args: &[&str]) -> StdioServerBuilder {
    StdioServer::builder(example_binary("manual")).args(["--test-items"]).args(args)
}

/// The `name`s of a list's items.
pub(crate) fn names(items: &[Value]) -> Vec<&str> {
    items.iter().map(|item| item["name"].as_str().unwrap_or_else(|| panic!("no name in {item}"))).collect()
}

/// The texts of a `resources/read` result's contents.
pub(crate) fn texts(contents: &[Value]) -> Vec<&str> {
    contents.iter().map(|c| c["text"].as_str().unwrap_or_else(|| panic!("not text contents: {c}"))).collect()
}

/// One connection to a server, speaking one revision: the handshake's, or 2026-07-28 with the
/// `_meta` envelope (declaring no client capability) on every request.
pub(crate) struct Conn {
    pub(crate) server: StdioServer,
    revision: &'static str,
    /// The server's name, as `serverInfo` must give it.
    name: &'static str,
    /// The `initialize` result, once the handshake was asked for.
    init: Option<Value>,
}

impl Conn {
    /// Spawns `builder`'s server recording under `revision` as `test`; nothing sent yet.
    pub(crate) fn spawn(builder: StdioServerBuilder, name: &'static str, revision: &'static str, test: &str) -> Conn {
        Conn { server: builder.record(revision, test).spawn(), revision, name, init: None }
    }

    /// [`spawn`](Self::spawn), then the whole handshake under a handshake revision.
    fn open(builder: StdioServerBuilder, name: &'static str, revision: &'static str, test: &str) -> Conn {
        let mut conn = Conn::spawn(builder, name, revision, test);
        if !conn.modern() {
            conn.initialize();
            conn.initialized();
        }
        conn
    }

    /// `manual --test-items <args>`, connected under `revision`.
    pub(crate) fn manual(revision: &'static str, test: &str, args: &[&str]) -> Conn {
        Conn::open(items(args), "manual", revision, test)
    }

    /// GiftGen, connected under `revision`.
    pub(crate) fn gift(revision: &'static str, test: &str) -> Conn {
        Conn::open(StdioServer::builder(example_binary("gift_genius")), "gift-genius", revision, test)
    }

    pub(crate) fn modern(&self) -> bool {
        self.revision == MODERN
    }

    /// `initialize` asking for the connection's revision, without `notifications/initialized`.
    pub(crate) fn initialize(&mut self) {
        let response = self.server.request(
            "initialize",
            Some(json!({
                "protocolVersion": self.revision,
                "capabilities": {},
                "clientInfo": {"name": "mcp-resources-tests", "version": "0.0.0"},
            })),
        );
        let init = result(&response);
        assert_eq!(init["protocolVersion"], self.revision, "{response}");
        assert_eq!(init["serverInfo"], json!({"name": self.name, "version": VERSION}), "{response}");
        self.init = Some(init.clone());
    }

    pub(crate) fn initialized(&mut self) {
        self.server.notify("notifications/initialized", None);
    }

    /// The server's capabilities as this era learns them: from `initialize`, or from
    /// `server/discover` under 2026-07-28.
    pub(crate) fn capabilities(&mut self) -> Value {
        if self.modern() {
            self.ok("server/discover", None)["capabilities"].clone()
        } else {
            self.init.as_ref().expect("the handshake was done")["capabilities"].clone()
        }
    }

    /// Sends a request of the connection's era and returns its id.
    fn send(&mut self, method: &str, params: Option<Value>) -> i64 {
        let params = if self.modern() { Some(stateless_params(params, json!({}))) } else { params };
        self.server.send_request(method, params)
    }

    /// Sends a request; returns its response and the notifications that came before it.
    fn exchange(&mut self, method: &str, params: Option<Value>) -> (Value, Vec<Value>) {
        let id = self.send(method, params);
        let mut notifications = Vec::new();
        loop {
            let message = self.server.recv();
            if message.get("method").is_some() {
                assert!(message.get("id").is_none(), "the server sent a request: {message}");
                notifications.push(message);
                continue;
            }
            assert_eq!(message["id"], json!(id), "expected the response to `{method}` (id {id}), got {message}");
            return (message, notifications);
        }
    }

    /// The response to a request that no notification may accompany.
    fn ask(&mut self, method: &str, params: Option<Value>) -> Value {
        let (response, notifications) = self.exchange(method, params);
        assert!(notifications.is_empty(), "{}: `{method}` came with {notifications:?}", self.revision);
        response
    }

    /// The result of a request, checked to carry its era's fields and no other era's.
    pub(crate) fn ok(&mut self, method: &str, params: Option<Value>) -> Value {
        let response = self.ask(method, params);
        let result = result(&response).clone();
        self.assert_era(&result, CACHED.contains(&method));
        result
    }

    /// The error of a request answered with one.
    pub(crate) fn fail(&mut self, method: &str, params: Value) -> Value {
        let response = self.ask(method, Some(params));
        let error =
            response.get("error").unwrap_or_else(|| panic!("{}: expected an error, got {response}", self.revision));
        assert!(error["code"].is_i64() && error["message"].is_string(), "{response}");
        error.clone()
    }

    /// Checks that a result holds what the revision puts in every result and nothing of the
    /// other era: under 2026-07-28 `resultType`, the server's identity in `_meta`, and the
    /// caching fields exactly when `cached`.
    fn assert_era(&self, result: &Value, cached: bool) {
        let rev = self.revision;
        if self.modern() {
            assert_eq!(result["resultType"], "complete", "{result}");
            assert_eq!(result["_meta"][SERVER_INFO_KEY], json!({"name": self.name, "version": VERSION}), "{result}");
            for key in ["ttlMs", "cacheScope"] {
                assert_eq!(result.get(key).is_some(), cached, "`{key}` (cached: {cached}): {result}");
            }
            if cached {
                assert!(result["ttlMs"].is_u64(), "ttlMs is an integer >= 0: {result}");
                assert!(matches!(result["cacheScope"].as_str(), Some("public" | "private")), "{result}");
            }
        } else {
            for key in ["resultType", "ttlMs", "cacheScope"] {
                assert!(result.get(key).is_none(), "{rev} has no `{key}`: {result}");
            }
            assert!(result["_meta"].get(SERVER_INFO_KEY).is_none(), "{rev}: {result}");
        }
    }

    /// Every item of a paginated list (`key` in each page), following `nextCursor`; checks
    /// that each page holds at most `page_size` items and that all pages share one
    /// `cacheScope`. Returns the items and how many pages they took.
    pub(crate) fn walk(&mut self, method: &str, key: &str, page_size: usize) -> (Vec<Value>, usize) {
        let (mut items, mut pages, mut params, mut scope) = (Vec::new(), 0, None, None);
        loop {
            let page = self.ok(method, params.take());
            pages += 1;
            let found = page[key].as_array().unwrap_or_else(|| panic!("no `{key}` in {page}"));
            assert!(!found.is_empty() && found.len() <= page_size, "page size {page_size}: {page}");
            items.extend(found.iter().cloned());
            let this_scope = page.get("cacheScope").cloned();
            assert_eq!(scope.get_or_insert_with(|| this_scope.clone()), &this_scope, "one scope per list: {page}");
            match page.get("nextCursor") {
                Some(cursor) => params = Some(json!({"cursor": cursor})),
                None => return (items, pages),
            }
            assert!(pages < 50, "{method} never ends: {page}");
        }
    }

    /// The contents of the resource at `uri`.
    pub(crate) fn read(&mut self, uri: &str) -> Vec<Value> {
        let read = self.ok("resources/read", Some(json!({"uri": uri})));
        let contents = read["contents"].as_array().unwrap_or_else(|| panic!("no contents in {read}")).clone();
        assert!(!contents.is_empty(), "{uri}: {read}");
        for item in &contents {
            assert_eq!(item["uri"], uri, "{read}");
            assert!(item["text"].is_string() != item["blob"].is_string(), "text or blob: {read}");
        }
        contents
    }

    /// The values `completion/complete` suggests for `argument` of `reference` from `value`,
    /// with `context` as `context.arguments` when given; checks the result's shape.
    pub(crate) fn complete(
        &mut self,
        reference: &Value,
        argument: &str,
        value: &str,
        context: Option<Value>,
    ) -> Vec<String> {
        let mut params = json!({"ref": reference, "argument": {"name": argument, "value": value}});
        if let Some(arguments) = context {
            params["context"] = json!({"arguments": arguments});
        }
        let result = self.ok("completion/complete", Some(params));
        let completion = &result["completion"];
        let values = completion["values"].as_array().unwrap_or_else(|| panic!("no values in {result}"));
        assert!(values.len() <= 100, "at most 100 values: {result}");
        if let Some(total) = completion.get("total") {
            let total = total.as_u64().unwrap_or_else(|| panic!("total is an integer: {result}"));
            assert!(total >= values.len() as u64, "{result}");
            if completion["hasMore"] == false {
                assert_eq!(total, values.len() as u64, "{result}");
            }
        }
        values.iter().map(|v| v.as_str().unwrap_or_else(|| panic!("a string value: {result}")).to_owned()).collect()
    }

    /// The names in `tools/list`.
    pub(crate) fn tool_names(&mut self) -> Vec<String> {
        let list = self.ok("tools/list", None);
        names(list["tools"].as_array().unwrap_or_else(|| panic!("no tools in {list}")))
            .into_iter()
            .map(str::to_owned)
            .collect()
    }

    /// Exactly `n` notifications: `got` and what follows, then silence.
    fn notifications(&mut self, mut got: Vec<Value>, n: usize) -> Vec<Value> {
        while got.len() < n {
            let message = self.server.recv();
            assert!(message.get("method").is_some() && message.get("id").is_none(), "a notification: {message}");
            got.push(message);
        }
        assert_eq!(got.len(), n, "{}: {got:#?}", self.revision);
        self.server.assert_silent(QUIET);
        got
    }

    /// Calls the tool `name`, which must succeed with the text `text`; returns the
    /// notifications it caused, which must be exactly `n`.
    pub(crate) fn call(&mut self, name: &str, arguments: Value, text: &str, n: usize) -> Vec<Value> {
        let (response, notifications) =
            self.exchange("tools/call", Some(json!({"name": name, "arguments": arguments})));
        let result = result(&response);
        self.assert_era(result, false);
        assert_eq!(result["content"], json!([{"type": "text", "text": text}]), "{name}: {result}");
        assert!(result.get("isError").is_none_or(|e| e == false), "{result}");
        self.notifications(notifications, n)
    }

    /// `touch {uri}`: the server says `uri` changed; `n` notifications must follow.
    pub(crate) fn touch(&mut self, uri: &str, n: usize) -> Vec<Value> {
        self.call("touch", json!({"uri": uri}), "notified", n)
    }

    /// `change_item {kind, key, action}`: the server changes the item; `n` notifications must
    /// follow.
    pub(crate) fn change(&mut self, kind: Kind, key: &str, action: &str, n: usize) -> Vec<Value> {
        self.call("change_item", json!({"kind": kind.name(), "key": key, "action": action}), "done", n)
    }

    /// `add_item {kind, name}`: the server adds the item; `n` notifications must follow.
    pub(crate) fn add(&mut self, kind: Kind, name: &str, n: usize) -> Vec<Value> {
        self.call("add_item", json!({"kind": kind.name(), "name": name}), "added", n)
    }

    /// Calls the tool `name`, which must fail as a tool (`isError`) with a text holding each of
    /// `needles`, and change nothing that is notified.
    pub(crate) fn refused(&mut self, name: &str, arguments: Value, needles: &[&str]) {
        let (response, notifications) =
            self.exchange("tools/call", Some(json!({"name": name, "arguments": arguments.clone()})));
        let result = result(&response);
        self.assert_era(result, false);
        assert_eq!(result["isError"], true, "{}: {name} {arguments}: {response}", self.revision);
        let text = only_text(result);
        for needle in needles {
            assert!(text.contains(needle), "{}: {name} {arguments}: `{needle}` not in {text:?}", self.revision);
        }
        self.notifications(notifications, 0);
    }

    /// The keys (`kind.list()`'s key field) of the items `kind`'s list shows, in one page.
    pub(crate) fn keys(&mut self, kind: Kind) -> Vec<String> {
        let (method, field, key) = kind.list();
        let list = self.ok(method, None);
        assert!(list.get("nextCursor").is_none(), "one page: {list}");
        let items = list[field].as_array().unwrap_or_else(|| panic!("no `{field}` in {list}"));
        items
            .iter()
            .map(|item| item[key].as_str().unwrap_or_else(|| panic!("no `{key}` in {item}")).to_owned())
            .collect()
    }

    /// Checks whether the item `key` of `kind` is listed, and (when listed) that using it gives
    /// `text`, else that using it is answered as for an unknown item.
    pub(crate) fn assert_present(&mut self, kind: Kind, key: &str, text: &str, present: bool) {
        let rev = self.revision;
        let keys = self.keys(kind);
        assert_eq!(keys.iter().any(|k| k == key), present, "{rev}: {kind:?} `{key}` listed: {keys:?}");
        let (method, params) = kind.usage(key);
        if present {
            let result = self.ok(method, Some(params));
            assert_eq!(kind.text(&result), text, "{rev}: {method} of `{key}`: {result}");
            return;
        }
        let error = self.fail(method, params.clone());
        assert_eq!(error["code"], kind.unknown_code(rev), "{rev}: {method} {params}: {error}");
        if let Some(uri) = params.get("uri") {
            assert_eq!(&error["data"]["uri"], uri, "{rev}: {error}");
        }
    }

    /// Ends a session that saw only responses (see [`StdioServer::finish`]).
    pub(crate) fn finish(mut self) {
        self.server.finish();
    }

    /// Ends a session that saw notifications: standard input closes, the server exits with 0.
    pub(crate) fn close(mut self) {
        self.server.close_stdin();
        let status = self.server.wait();
        assert!(status.success(), "{}: the server exited with {status}", self.revision);
    }
}

/// Opens a `subscriptions/listen` stream with request id `id` asking for `filter`, and returns
/// its acknowledgement, checked to be the next message and tagged with `id`.
pub(crate) fn listen(conn: &mut Conn, id: &Value, filter: Value) -> Value {
    let params = stateless_params(Some(json!({"notifications": filter})), json!({}));
    conn.server.send(&json!({"jsonrpc": "2.0", "id": id, "method": "subscriptions/listen", "params": params}));
    let ack = conn.server.recv();
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged", "first comes the acknowledgement: {ack}");
    assert!(ack.get("id").is_none(), "{ack}");
    assert_eq!(ack["params"]["_meta"][SUBSCRIPTION_ID], *id, "{ack}");
    ack["params"]["notifications"].clone()
}

/// A notification of the stream `id`: `method` with `params` (or none) tagged with `id`.
pub(crate) fn tagged(method: &str, id: &Value, params: Value) -> Value {
    let mut params = params;
    params["_meta"] = json!({SUBSCRIPTION_ID: id});
    json!({"jsonrpc": "2.0", "method": method, "params": params})
}

/// A kind of item, as `change_item` and `add_item` name it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Tool,
    Resource,
    Template,
    Prompt,
}

impl Kind {
    /// Its name in `change_item` and `add_item`.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Kind::Tool => "tool",
            Kind::Resource => "resource",
            Kind::Template => "template",
            Kind::Prompt => "prompt",
        }
    }

    /// The list showing it: method, result field, and each entry's field holding the key.
    fn list(self) -> (&'static str, &'static str, &'static str) {
        match self {
            Kind::Tool => ("tools/list", "tools", "name"),
            Kind::Resource => ("resources/list", "resources", "uri"),
            Kind::Template => ("resources/templates/list", "resourceTemplates", "uriTemplate"),
            Kind::Prompt => ("prompts/list", "prompts", "name"),
        }
    }

    /// The notification a change of its list is.
    pub(crate) fn list_changed(self) -> &'static str {
        match self {
            Kind::Tool => "notifications/tools/list_changed",
            Kind::Resource | Kind::Template => "notifications/resources/list_changed",
            Kind::Prompt => "notifications/prompts/list_changed",
        }
    }

    /// The `subscriptions/listen` filter that asks for its list changes.
    pub(crate) fn flag(self) -> &'static str {
        match self {
            Kind::Tool => "toolsListChanged",
            Kind::Resource | Kind::Template => "resourcesListChanged",
            Kind::Prompt => "promptsListChanged",
        }
    }

    /// An item `manual --test-items` starts with, and what using it gives (see `usage`).
    pub(crate) fn initial(self) -> (&'static str, &'static str) {
        match self {
            Kind::Tool => ("echo", "hi"),
            Kind::Resource => ("test://static", "hello"),
            Kind::Template => ("test://items/{id}", "item number 2"),
            Kind::Prompt => ("greet", "Hi, Ann!"),
        }
    }

    /// The key of what `add_item {kind, name}` adds, and what using it gives; templates are
    /// not added.
    pub(crate) fn added(self, name: &str) -> Option<(String, String)> {
        match self {
            Kind::Tool => Some((name.to_owned(), "hi".to_owned())),
            Kind::Resource => Some((format!("test://added/{name}"), format!("added {name}"))),
            Kind::Prompt => Some((name.to_owned(), format!("added {name}"))),
            Kind::Template => None,
        }
    }

    /// The request that uses the item `key`: call it, read it (a template: one of its URIs),
    /// get it.
    fn usage(self, key: &str) -> (&'static str, Value) {
        match self {
            Kind::Tool => ("tools/call", json!({"name": key, "arguments": {"text": "hi"}})),
            Kind::Resource => ("resources/read", json!({"uri": key})),
            Kind::Template => ("resources/read", json!({"uri": key.replace("{id}", "2")})),
            Kind::Prompt => ("prompts/get", json!({"name": key, "arguments": {"name": "Ann"}})),
        }
    }

    /// The text of a `usage` result.
    fn text(self, result: &Value) -> String {
        let text = match self {
            Kind::Tool => &result["content"][0]["text"],
            Kind::Resource | Kind::Template => &result["contents"][0]["text"],
            Kind::Prompt => &result["messages"][0]["content"]["text"],
        };
        text.as_str().unwrap_or_else(|| panic!("no text in {result}")).to_owned()
    }

    /// The error code of `usage` for an item that does not exist (or is disabled).
    fn unknown_code(self, revision: &str) -> i64 {
        match self {
            Kind::Tool | Kind::Prompt => -32602,
            Kind::Resource | Kind::Template => not_found_code(revision),
        }
    }
}
