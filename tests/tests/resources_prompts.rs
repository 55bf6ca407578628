//! Resources, resource templates, prompts, completions, subscriptions and dynamic lists (items
//! enabled, disabled, added and removed while the server runs) on the wire, under every
//! revision: the four handshake revisions through `initialize`, and 2026-07-28 with
//! `params._meta` on every request. The servers are `manual --test-items` (see
//! `examples/manual/test_items.rs`) and GiftGen, over stdio. Each server run records its
//! transcript under `<target>/transcripts/<revision>/<test>.jsonl` for
//! `shared/tools/schema_check.py`.

use std::collections::BTreeSet;
use std::time::Duration;

use mcp_tests::example_binary;
use mcp_tests::gift_genius::{catalog, in_category};
use mcp_tests::wire::{
    ALL_REVISIONS, HANDSHAKE_REVISIONS, SERVER_INFO_KEY, STATELESS_REVISION as MODERN, StdioServer, StdioServerBuilder,
    for_each_revision, only_text, raw_id, result, stateless_params,
};
use serde_json::{Value, json};

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

/// The examples share the workspace's version with this package.
const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The `_meta` key tagging every message of a `subscriptions/listen` stream.
const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";

/// The methods whose 2026-07-28 results carry the caching fields (`ttlMs`, `cacheScope`).
const CACHED: [&str; 6] =
    ["server/discover", "tools/list", "resources/list", "resources/templates/list", "prompts/list", "resources/read"];

/// How long a notification that must not come is waited for.
const QUIET: Duration = Duration::from_millis(250);

/// Whether `revision` is `first` or later (ISO dates order as strings).
fn since(revision: &str, first: &str) -> bool {
    revision >= first
}

/// The code of "resource not found": -32002 under the handshake revisions, -32602 under
/// 2026-07-28.
fn not_found_code(revision: &str) -> i64 {
    if revision == MODERN { -32602 } else { -32002 }
}

/// `manual --test-items <args>`, ready to configure and spawn.
fn items(args: &[&str]) -> StdioServerBuilder {
    StdioServer::builder(example_binary("manual")).args(["--test-items"]).args(args)
}

/// Decodes standard base64 (with padding); panics on anything else.
fn base64_decode(text: &str) -> Vec<u8> {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    assert_eq!(text.len() % 4, 0, "base64 comes in groups of four: {text:?}");
    let mut bytes = Vec::new();
    for group in text.as_bytes().chunks(4) {
        let padding = group.iter().rev().take_while(|&&c| c == b'=').count();
        let bits = group.iter().take(4 - padding).enumerate().fold(0u32, |bits, (i, c)| {
            let digit = ALPHABET.iter().position(|a| a == c).unwrap_or_else(|| panic!("not base64: {text:?}"));
            bits | (u32::try_from(digit).expect("a base64 digit") << (18 - 6 * i))
        });
        bytes.extend(bits.to_be_bytes()[1..].iter().take(3 - padding));
    }
    bytes
}

/// The `name`s of a list's items.
fn names(items: &[Value]) -> Vec<&str> {
    items.iter().map(|item| item["name"].as_str().unwrap_or_else(|| panic!("no name in {item}"))).collect()
}

/// The texts of a `resources/read` result's contents.
fn texts(contents: &[Value]) -> Vec<&str> {
    contents.iter().map(|c| c["text"].as_str().unwrap_or_else(|| panic!("not text contents: {c}"))).collect()
}

/// One connection to a server, speaking one revision: the handshake's, or 2026-07-28 with the
/// `_meta` envelope (declaring no client capability) on every request.
struct Conn {
    server: StdioServer,
    revision: &'static str,
    /// The server's name, as `serverInfo` must give it.
    name: &'static str,
    /// The `initialize` result, once the handshake was asked for.
    init: Option<Value>,
}

impl Conn {
    /// Spawns `builder`'s server recording under `revision` as `test`; nothing sent yet.
    fn spawn(builder: StdioServerBuilder, name: &'static str, revision: &'static str, test: &str) -> Conn {
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
    fn manual(revision: &'static str, test: &str, args: &[&str]) -> Conn {
        Conn::open(items(args), "manual", revision, test)
    }

    /// GiftGen, connected under `revision`.
    fn gift(revision: &'static str, test: &str) -> Conn {
        Conn::open(StdioServer::builder(example_binary("gift_genius")), "gift-genius", revision, test)
    }

    fn modern(&self) -> bool {
        self.revision == MODERN
    }

    /// `initialize` asking for the connection's revision, without `notifications/initialized`.
    fn initialize(&mut self) {
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

    fn initialized(&mut self) {
        self.server.notify("notifications/initialized", None);
    }

    /// The server's capabilities as this era learns them: from `initialize`, or from
    /// `server/discover` under 2026-07-28.
    fn capabilities(&mut self) -> Value {
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
    fn ok(&mut self, method: &str, params: Option<Value>) -> Value {
        let response = self.ask(method, params);
        let result = result(&response).clone();
        self.assert_era(&result, CACHED.contains(&method));
        result
    }

    /// The error of a request answered with one.
    fn fail(&mut self, method: &str, params: Value) -> Value {
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
    fn walk(&mut self, method: &str, key: &str, page_size: usize) -> (Vec<Value>, usize) {
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
    fn read(&mut self, uri: &str) -> Vec<Value> {
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
    fn complete(&mut self, reference: &Value, argument: &str, value: &str, context: Option<Value>) -> Vec<String> {
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
    fn tool_names(&mut self) -> Vec<String> {
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
    fn call(&mut self, name: &str, arguments: Value, text: &str, n: usize) -> Vec<Value> {
        let (response, notifications) =
            self.exchange("tools/call", Some(json!({"name": name, "arguments": arguments})));
        let result = result(&response);
        self.assert_era(result, false);
        assert_eq!(result["content"], json!([{"type": "text", "text": text}]), "{name}: {result}");
        assert!(result.get("isError").is_none_or(|e| e == false), "{result}");
        self.notifications(notifications, n)
    }

    /// `touch {uri}`: the server says `uri` changed; `n` notifications must follow.
    fn touch(&mut self, uri: &str, n: usize) -> Vec<Value> {
        self.call("touch", json!({"uri": uri}), "notified", n)
    }

    /// `change_item {kind, key, action}`: the server changes the item; `n` notifications must
    /// follow.
    fn change(&mut self, kind: Kind, key: &str, action: &str, n: usize) -> Vec<Value> {
        self.call("change_item", json!({"kind": kind.name(), "key": key, "action": action}), "done", n)
    }

    /// `add_item {kind, name}`: the server adds the item; `n` notifications must follow.
    fn add(&mut self, kind: Kind, name: &str, n: usize) -> Vec<Value> {
        self.call("add_item", json!({"kind": kind.name(), "name": name}), "added", n)
    }

    /// Calls the tool `name`, which must fail as a tool (`isError`) with a text holding each of
    /// `needles`, and change nothing that is notified.
    fn refused(&mut self, name: &str, arguments: Value, needles: &[&str]) {
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
    fn keys(&mut self, kind: Kind) -> Vec<String> {
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
    fn assert_present(&mut self, kind: Kind, key: &str, text: &str, present: bool) {
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
    fn finish(mut self) {
        self.server.finish();
    }

    /// Ends a session that saw notifications: standard input closes, the server exits with 0.
    fn close(mut self) {
        self.server.close_stdin();
        let status = self.server.wait();
        assert!(status.success(), "{}: the server exited with {status}", self.revision);
    }
}

// ---------------------------------------------------------------------------------------------
// Capabilities and lists
// ---------------------------------------------------------------------------------------------

/// `resources {subscribe, listChanged}`, `prompts {listChanged}` and `completions` (from
/// 2025-03-26: 2024-11-05 had `completion/complete` without a capability, and it is served
/// there all the same).
#[test]
fn capabilities_declare_resources_prompts_and_completions() {
    for_each_revision(&ALL_REVISIONS, |rev| {
        let mut conn = Conn::manual(rev, "capabilities_declare_resources_prompts_and_completions", &[]);
        let mut want = json!({
            "tools": {"listChanged": true},
            "resources": {"subscribe": true, "listChanged": true},
            "prompts": {"listChanged": true},
        });
        if since(rev, "2025-03-26") {
            want["completions"] = json!({});
        }
        assert_eq!(conn.capabilities(), want, "{rev}");
        let greet = json!({"type": "ref/prompt", "name": "greet"});
        assert_eq!(conn.complete(&greet, "style", "c", None), ["casual"], "{rev}");
        conn.finish();
    });
}

/// What `resources/list` must show under `revision`, in URI order: the fixed resources and the
/// items the template's lister enumerates; `title` from 2025-06-18 only.
fn expected_resources(revision: &str) -> Vec<Value> {
    let mut fixed = json!({
        "uri": "test://static",
        "name": "static",
        "title": "A static text",
        "description": "Always the same text",
        "mimeType": "text/plain",
        "size": 5,
    });
    if !since(revision, "2025-06-18") {
        fixed.as_object_mut().expect("an object").remove("title");
    }
    let item = |id: u32| json!({"uri": format!("test://items/{id}"), "name": format!("item {id}")});
    vec![
        json!({"uri": "test://binary", "name": "binary", "mimeType": "application/octet-stream"}),
        item(1),
        item(2),
        item(3),
        fixed,
        json!({"uri": "test://two-parts", "name": "two-parts"}),
    ]
}

/// What `prompts/list` must show under `revision`: `title` from 2025-06-18 only.
fn expected_prompts(revision: &str) -> Vec<Value> {
    let mut greet = json!({
        "name": "greet",
        "title": "Greeting",
        "description": "Greets someone",
        "arguments": [
            {"name": "name", "description": "Who to greet", "required": true},
            {"name": "style", "description": "formal or casual", "required": false},
        ],
    });
    if !since(revision, "2025-06-18") {
        greet.as_object_mut().expect("an object").remove("title");
    }
    vec![greet]
}

/// Every list pages with `--page-size` (2026-07-28: every page with the caching fields, one
/// scope), shows exactly what the revision defines (no `title` before 2025-06-18, nothing
/// undeclared such as `icons`), and `resources/list` includes the template's enumerated items.
#[test]
fn lists_page_through_resources_templates_and_prompts() {
    let templates = [
        json!({"uriTemplate": "test://colors/{color}/{shade}", "name": "color"}),
        json!({"uriTemplate": "test://items/{id}", "name": "item", "description": "Items 1 to 3", "mimeType": "text/plain"}),
    ];
    for_each_revision(&ALL_REVISIONS, |rev| {
        // (page size, pages of resources, of templates)
        for (size, resource_pages, template_pages) in [(1, 6, 2), (4, 2, 1)] {
            let test = format!("lists_page_through_resources_templates_and_prompts_{size}");
            let mut conn = Conn::manual(rev, &test, &["--page-size", &size.to_string()]);
            let (resources, pages) = conn.walk("resources/list", "resources", size);
            assert_eq!((resources, pages), (expected_resources(rev), resource_pages), "{rev}, page size {size}");
            let (found, pages) = conn.walk("resources/templates/list", "resourceTemplates", size);
            assert_eq!((found.as_slice(), pages), (templates.as_slice(), template_pages), "{rev}, page size {size}");
            let (prompts, pages) = conn.walk("prompts/list", "prompts", size);
            assert_eq!((prompts, pages), (expected_prompts(rev), 1), "{rev}, page size {size}");
            for method in ["resources/list", "resources/templates/list", "prompts/list"] {
                let error = conn.fail(method, json!({"cursor": "not-a-cursor"}));
                assert_eq!(error["code"], -32602, "{rev} {method}: {error}");
            }
            conn.finish();
        }
    });
}

// ---------------------------------------------------------------------------------------------
// Reading
// ---------------------------------------------------------------------------------------------

#[test]
fn resources_read_gives_text_blob_and_several_contents() {
    for_each_revision(&ALL_REVISIONS, |rev| {
        let mut conn = Conn::manual(rev, "resources_read_gives_text_blob_and_several_contents", &[]);
        let text = conn.read("test://static");
        assert_eq!(text, [json!({"uri": "test://static", "mimeType": "text/plain", "text": "hello"})], "{rev}");

        let blob = conn.read("test://binary");
        assert_eq!(blob.len(), 1, "{rev}: {blob:?}");
        assert_eq!(blob[0]["mimeType"], "application/octet-stream", "{rev}: {blob:?}");
        let bytes = base64_decode(blob[0]["blob"].as_str().unwrap_or_else(|| panic!("a blob: {blob:?}")));
        assert_eq!(bytes, [0, 1, 2, 255], "{rev}: {blob:?}");

        let parts = conn.read("test://two-parts");
        assert_eq!(texts(&parts), ["part one", "part two"], "{rev}");
        assert!(parts.iter().all(|p| p["mimeType"] == "text/plain"), "{rev}: {parts:?}");

        // Templates: the variables bound from the URI (percent-decoded), the template's MIME type.
        let item = conn.read("test://items/2");
        assert_eq!(item, [json!({"uri": "test://items/2", "mimeType": "text/plain", "text": "item number 2"})]);
        assert_eq!(texts(&conn.read("test://colors/blue/navy")), ["navy blue"], "{rev}");
        assert_eq!(texts(&conn.read("test://colors/dark%20red/light")), ["light dark red"], "{rev}");
        conn.finish();
    });
}

/// -32002 with `data.uri` under the handshake revisions, -32602 (with `data.uri`) under
/// 2026-07-28; a template variable that does not parse is -32602 naming the variable.
#[test]
fn reading_what_does_not_exist_is_not_found() {
    for_each_revision(&ALL_REVISIONS, |rev| {
        let mut conn = Conn::manual(rev, "reading_what_does_not_exist_is_not_found", &[]);
        // No resource or template matches; the template matches but its reader finds nothing.
        for uri in ["test://nope", "test://static/more", "test://items/", "other://static", "test://items/9"] {
            let error = conn.fail("resources/read", json!({"uri": uri}));
            assert_eq!(error["code"], not_found_code(rev), "{rev} {uri}: {error}");
            assert_eq!(error["data"]["uri"], uri, "{rev}: {error}");
        }
        for id in ["x", "-1", "1.5"] {
            let uri = format!("test://items/{id}");
            let error = conn.fail("resources/read", json!({"uri": uri}));
            assert_eq!(error["code"], -32602, "{rev} {uri}: {error}");
            let message = error["message"].as_str().unwrap_or_default();
            assert!(message.contains("`id`"), "{rev}: the message names the variable: {error}");
        }
        conn.finish();
    });
}

// ---------------------------------------------------------------------------------------------
// Prompts and completions
// ---------------------------------------------------------------------------------------------

#[test]
fn prompts_get_fills_the_messages_and_checks_the_arguments() {
    for_each_revision(&ALL_REVISIONS, |rev| {
        let mut conn = Conn::manual(rev, "prompts_get_fills_the_messages_and_checks_the_arguments", &[]);
        let formal =
            conn.ok("prompts/get", Some(json!({"name": "greet", "arguments": {"name": "Ann", "style": "formal"}})));
        assert_eq!(
            formal["messages"],
            json!([
                {"role": "user", "content": {"type": "text", "text": "Good day, Ann!"}},
                {"role": "assistant", "content": {"type": "text", "text": "Hello! How can I help?"}},
            ]),
            "{rev}: {formal}"
        );
        let plain = conn.ok("prompts/get", Some(json!({"name": "greet", "arguments": {"name": "Bob"}})));
        assert_eq!(plain["messages"][0]["content"]["text"], "Hi, Bob!", "{rev}: {plain}");

        let unknown = conn.fail("prompts/get", json!({"name": "no_such_prompt", "arguments": {}}));
        assert_eq!(unknown["code"], -32602, "{rev}: {unknown}");
        assert!(unknown["message"].as_str().unwrap_or_default().contains("no_such_prompt"), "{rev}: {unknown}");
        for params in [json!({"name": "greet", "arguments": {"style": "formal"}}), json!({"name": "greet"})] {
            let missing = conn.fail("prompts/get", params);
            assert_eq!(missing["code"], -32602, "{rev}: {missing}");
            assert!(missing["message"].as_str().unwrap_or_default().contains("`name`"), "{rev}: names it: {missing}");
        }
        conn.finish();
    });
}

#[test]
fn completion_suggests_prompt_arguments_and_template_variables() {
    for_each_revision(&ALL_REVISIONS, |rev| {
        let mut conn = Conn::manual(rev, "completion_suggests_prompt_arguments_and_template_variables", &[]);
        let greet = json!({"type": "ref/prompt", "name": "greet"});
        assert_eq!(conn.complete(&greet, "style", "", None), ["formal", "casual"], "{rev}");
        assert_eq!(conn.complete(&greet, "style", "F", None), ["formal"], "{rev}");
        assert!(conn.complete(&greet, "style", "x", None).is_empty(), "{rev}");
        assert!(conn.complete(&greet, "name", "A", None).is_empty(), "{rev}: `name` has no completer");

        let colors = json!({"type": "ref/resource", "uri": "test://colors/{color}/{shade}"});
        assert_eq!(conn.complete(&colors, "color", "b", None), ["blue", "black"], "{rev}");
        assert_eq!(conn.complete(&colors, "shade", "", None), ["light", "dark", "navy", "sky", "teal"], "{rev}");
        // `context.arguments` exists from 2025-06-18: the variables resolved so far narrow it.
        if since(rev, "2025-06-18") {
            let blue = Some(json!({"color": "blue"}));
            assert_eq!(conn.complete(&colors, "shade", "", blue.clone()), ["navy", "sky", "teal"], "{rev}");
            assert_eq!(conn.complete(&colors, "shade", "s", blue), ["sky"], "{rev}");
            let red = Some(json!({"color": "red"}));
            assert_eq!(conn.complete(&colors, "shade", "", red), ["light", "dark"], "{rev}");
        }

        for reference in [
            json!({"type": "ref/prompt", "name": "no_such_prompt"}),
            json!({"type": "ref/resource", "uri": "test://nope/{x}"}),
            // A concrete URI is not the template.
            json!({"type": "ref/resource", "uri": "test://colors/red/dark"}),
        ] {
            let params = json!({"ref": reference, "argument": {"name": "x", "value": ""}});
            let error = conn.fail("completion/complete", params);
            assert_eq!(error["code"], -32602, "{rev} {reference}: {error}");
        }
        conn.finish();
    });
}

// ---------------------------------------------------------------------------------------------
// Subscriptions and list changes, handshake revisions
// ---------------------------------------------------------------------------------------------

/// `notifications/resources/updated {uri}`, exactly.
fn updated(uri: &str) -> Value {
    json!({"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": {"uri": uri}})
}

/// `resources/subscribe` → `{}`, then each change of a subscribed URI (fixed or matching a
/// subscribable template) is notified, once `notifications/initialized` arrived, until
/// `resources/unsubscribe`; nothing else is.
#[test]
fn handshake_subscriptions_notify_updates_until_unsubscribed() {
    for_each_revision(&HANDSHAKE_REVISIONS, |rev| {
        let test = "handshake_subscriptions_notify_updates_until_unsubscribed";
        let mut conn = Conn::spawn(items(&[]), "manual", rev, test);
        conn.initialize();
        assert_eq!(conn.ok("resources/subscribe", Some(json!({"uri": "test://static"}))), json!({}), "{rev}");
        // Nothing of the server's own before `notifications/initialized`.
        conn.touch("test://static", 0);
        conn.initialized();
        assert_eq!(conn.touch("test://static", 1), [updated("test://static")], "{rev}");

        assert_eq!(conn.ok("resources/subscribe", Some(json!({"uri": "test://items/2"}))), json!({}), "{rev}");
        assert_eq!(conn.touch("test://items/2", 1), [updated("test://items/2")], "{rev}");
        for unsubscribed in ["test://items/3", "test://two-parts", "test://binary"] {
            conn.touch(unsubscribed, 0);
        }

        assert_eq!(conn.ok("resources/unsubscribe", Some(json!({"uri": "test://static"}))), json!({}), "{rev}");
        conn.touch("test://static", 0);
        assert_eq!(conn.touch("test://items/2", 1), [updated("test://items/2")], "{rev}: still subscribed");
        assert_eq!(conn.ok("resources/unsubscribe", Some(json!({"uri": "test://items/2"}))), json!({}), "{rev}");
        conn.touch("test://items/2", 0);

        for uri in ["test://binary", "test://two-parts"] {
            let error = conn.fail("resources/subscribe", json!({"uri": uri}));
            assert_eq!(error["code"], -32602, "{rev}: {uri} is not subscribable: {error}");
        }
        let error = conn.fail("resources/subscribe", json!({"uri": "test://nope"}));
        assert_eq!((&error["code"], &error["data"]["uri"]), (&json!(-32002), &json!("test://nope")), "{rev}: {error}");
        // 2026-07-28's stream does not exist here.
        let listen = conn.fail("subscriptions/listen", json!({"notifications": {"toolsListChanged": true}}));
        assert_eq!(listen["code"], -32601, "{rev}: {listen}");
        conn.close();
    });
}

// ---------------------------------------------------------------------------------------------
// `subscriptions/listen` (2026-07-28)
// ---------------------------------------------------------------------------------------------

/// Opens a `subscriptions/listen` stream with request id `id` asking for `filter`, and returns
/// its acknowledgement, checked to be the next message and tagged with `id`.
fn listen(conn: &mut Conn, id: &Value, filter: Value) -> Value {
    let params = stateless_params(Some(json!({"notifications": filter})), json!({}));
    conn.server.send(&json!({"jsonrpc": "2.0", "id": id, "method": "subscriptions/listen", "params": params}));
    let ack = conn.server.recv();
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged", "first comes the acknowledgement: {ack}");
    assert!(ack.get("id").is_none(), "{ack}");
    assert_eq!(ack["params"]["_meta"][SUBSCRIPTION_ID], *id, "{ack}");
    ack["params"]["notifications"].clone()
}

/// A notification of the stream `id`: `method` with `params` (or none) tagged with `id`.
fn tagged(method: &str, id: &Value, params: Value) -> Value {
    let mut params = params;
    params["_meta"] = json!({SUBSCRIPTION_ID: id});
    json!({"jsonrpc": "2.0", "method": method, "params": params})
}

/// The stream acknowledges the honoured subset of its filter (unknown and non-subscribable
/// URIs dropped) first; then sends only what it asked for, tagged with its id, until
/// `notifications/cancelled`; when standard input closes, each open stream gets its final
/// result. `resources/subscribe` does not exist in this revision.
#[test]
fn subscriptions_listen_streams_what_was_asked_until_cancelled() {
    let mut conn = Conn::manual(MODERN, "subscriptions_listen_streams_what_was_asked_until_cancelled", &[]);
    let (tools, lists) = (json!("tools-and-resources"), json!(1000));
    let ack = listen(
        &mut conn,
        &tools,
        json!({
            "toolsListChanged": true,
            "resourceSubscriptions": ["test://static", "test://binary", "test://nope", "test://items/2"],
        }),
    );
    assert_eq!(ack["toolsListChanged"], true, "{ack}");
    let honoured: BTreeSet<&str> =
        ack["resourceSubscriptions"].as_array().expect("URIs").iter().map(|u| u.as_str().expect("a URI")).collect();
    assert_eq!(honoured, BTreeSet::from(["test://static", "test://items/2"]), "{ack}");
    assert_eq!(ack.as_object().map(|a| a.len()), Some(2), "nothing else: {ack}");

    let ack = listen(
        &mut conn,
        &lists,
        json!({"promptsListChanged": true, "resourcesListChanged": true, "resourceSubscriptions": ["test://two-parts"]}),
    );
    assert_eq!(ack["promptsListChanged"], true, "{ack}");
    assert_eq!(ack["resourcesListChanged"], true, "{ack}");
    assert!(ack.get("toolsListChanged").is_none_or(|t| t == false), "{ack}");
    assert!(ack.get("resourceSubscriptions").is_none_or(|s| s == &json!([])), "{ack}");

    let updated = "notifications/resources/updated";
    for uri in ["test://static", "test://items/2"] {
        assert_eq!(conn.touch(uri, 1), [tagged(updated, &tools, json!({"uri": uri}))]);
    }
    for uri in ["test://two-parts", "test://items/3", "test://binary"] {
        conn.touch(uri, 0);
    }
    let tools_changed = tagged("notifications/tools/list_changed", &tools, json!({}));
    assert_eq!(conn.change(Kind::Tool, "echo", "disable", 1), std::slice::from_ref(&tools_changed));
    assert_eq!(conn.tool_names(), ["add", "add_item", "change_item", "touch"]);
    let error = conn.fail("tools/call", json!({"name": "echo", "arguments": {"text": "gone"}}));
    assert_eq!(error["code"], -32602, "an unknown tool: {error}");
    assert_eq!(conn.change(Kind::Tool, "echo", "enable", 1), [tools_changed]);
    conn.call("echo", json!({"text": "back"}), "back", 0);

    // Ending the first stream: nothing more for it, and the other one asked for none of this.
    conn.server.notify("notifications/cancelled", Some(json!({"requestId": tools, "reason": "done"})));
    conn.touch("test://static", 0);
    conn.change(Kind::Tool, "echo", "disable", 0);
    conn.change(Kind::Tool, "echo", "enable", 0);

    for method in ["resources/subscribe", "resources/unsubscribe"] {
        let error = conn.fail(method, json!({"uri": "test://static"}));
        assert_eq!(error["code"], -32601, "{method}: {error}");
    }
    let error = conn.fail("subscriptions/listen", json!({}));
    assert_eq!(error["code"], -32602, "a listen without `notifications`: {error}");

    // Standard input closes with the second stream open: it gets its result, then the server
    // exits; the cancelled stream never gets one.
    conn.server.close_stdin();
    let last = conn.server.recv();
    let server_info = json!({"name": "manual", "version": VERSION});
    let want = json!({"resultType": "complete", "_meta": {SUBSCRIPTION_ID: lists, SERVER_INFO_KEY: server_info}});
    assert_eq!(last, json!({"jsonrpc": "2.0", "id": lists, "result": want}));
    let status = conn.server.wait();
    assert!(status.success(), "the server exited with {status}");
    let cancelled = tools.to_string();
    let lines = conn.server.server_lines();
    assert!(!lines.iter().any(|line| raw_id(line) == cancelled), "no response for a cancelled stream: {lines:#?}");
}

// ---------------------------------------------------------------------------------------------
// Dynamic lists: `change_item` and `add_item`, every kind, every revision
// ---------------------------------------------------------------------------------------------

/// A kind of item, as `change_item` and `add_item` name it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Tool,
    Resource,
    Template,
    Prompt,
}

impl Kind {
    /// Its name in `change_item` and `add_item`.
    fn name(self) -> &'static str {
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
    fn list_changed(self) -> &'static str {
        match self {
            Kind::Tool => "notifications/tools/list_changed",
            Kind::Resource | Kind::Template => "notifications/resources/list_changed",
            Kind::Prompt => "notifications/prompts/list_changed",
        }
    }

    /// The `subscriptions/listen` filter that asks for its list changes.
    fn flag(self) -> &'static str {
        match self {
            Kind::Tool => "toolsListChanged",
            Kind::Resource | Kind::Template => "resourcesListChanged",
            Kind::Prompt => "promptsListChanged",
        }
    }

    /// An item `manual --test-items` starts with, and what using it gives (see `usage`).
    fn initial(self) -> (&'static str, &'static str) {
        match self {
            Kind::Tool => ("echo", "hi"),
            Kind::Resource => ("test://static", "hello"),
            Kind::Template => ("test://items/{id}", "item number 2"),
            Kind::Prompt => ("greet", "Hi, Ann!"),
        }
    }

    /// The key of what `add_item {kind, name}` adds, and what using it gives; templates are
    /// not added.
    fn added(self, name: &str) -> Option<(String, String)> {
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

/// Disabling, enabling, adding and removing an item of `kind`: each change is notified (the
/// handshake revisions: once the client sent `notifications/initialized`; 2026-07-28: on the
/// stream that asked for that list, tagged with its id, and on no other), the list shows it,
/// and a disabled or removed item is answered as an unknown one. A change to what already is,
/// and an item added under a name taken (even by a disabled item), are tool errors naming the
/// item, notified to no one.
fn list_changes_of(kind: Kind) {
    for_each_revision(&ALL_REVISIONS, |rev| {
        let test = format!("dynamic_lists_{}", kind.name());
        let mut conn = Conn::spawn(items(&[]), "manual", rev, &test);
        let (key, text) = kind.initial();
        let notified = if conn.modern() {
            // Stream ids stay clear of the requests' (1, 2, ...): an open stream's id is in use.
            let (mine, others) = (json!(format!("{}-changes", kind.name())), json!(9000));
            let flag = kind.flag();
            assert_eq!(listen(&mut conn, &mine, json!({flag: true})), json!({flag: true}), "{rev}");
            let other: serde_json::Map<String, Value> =
                ["toolsListChanged", "resourcesListChanged", "promptsListChanged"]
                    .into_iter()
                    .filter(|f| *f != flag)
                    .map(|f| (f.to_owned(), json!(true)))
                    .collect();
            let other = Value::Object(other);
            assert_eq!(listen(&mut conn, &others, other.clone()), other, "{rev}");
            tagged(kind.list_changed(), &mine, json!({}))
        } else {
            // Changes before `notifications/initialized` are made, but not notified.
            conn.initialize();
            conn.change(kind, key, "disable", 0);
            conn.assert_present(kind, key, text, false);
            conn.change(kind, key, "enable", 0);
            conn.initialized();
            json!({"jsonrpc": "2.0", "method": kind.list_changed()})
        };
        let notified = std::slice::from_ref(&notified);
        let change = |conn: &mut Conn, key: &str, action: &str| {
            assert_eq!(conn.change(kind, key, action, 1), notified, "{rev}: {action} {kind:?} `{key}`");
        };
        let refused = |conn: &mut Conn, key: &str, action: &str| {
            conn.refused("change_item", json!({"kind": kind.name(), "key": key, "action": action}), &[key]);
        };

        conn.assert_present(kind, key, text, true);
        change(&mut conn, key, "disable");
        conn.assert_present(kind, key, text, false);
        if kind == Kind::Template {
            // Its items go from `resources/list` with it.
            let resources = conn.keys(Kind::Resource);
            assert!(!resources.iter().any(|uri| uri.starts_with("test://items/")), "{rev}: {resources:?}");
        }
        refused(&mut conn, key, "disable");
        change(&mut conn, key, "enable");
        conn.assert_present(kind, key, text, true);
        refused(&mut conn, key, "enable");

        if let Some((added, added_text)) = kind.added("extra") {
            let taken = json!({"kind": kind.name(), "name": "extra"});
            assert_eq!(conn.add(kind, "extra", 1), notified, "{rev}");
            conn.assert_present(kind, &added, &added_text, true);
            conn.refused("add_item", taken.clone(), &[&added]);
            // A disabled item keeps its name; a removed one frees it.
            change(&mut conn, &added, "disable");
            conn.assert_present(kind, &added, &added_text, false);
            conn.refused("add_item", taken.clone(), &[&added]);
            change(&mut conn, &added, "remove");
            conn.assert_present(kind, &added, &added_text, false);
            assert_eq!(conn.add(kind, "extra", 1), notified, "{rev}");
            conn.assert_present(kind, &added, &added_text, true);
        }

        change(&mut conn, key, "remove");
        conn.assert_present(kind, key, text, false);
        for action in ["enable", "disable", "remove"] {
            refused(&mut conn, key, action);
        }
        conn.close();
    });
}

#[test]
fn tool_list_changes_are_notified_and_seen() {
    list_changes_of(Kind::Tool);
}

#[test]
fn resource_list_changes_are_notified_and_seen() {
    list_changes_of(Kind::Resource);
}

#[test]
fn template_list_changes_are_notified_and_seen() {
    list_changes_of(Kind::Template);
}

#[test]
fn prompt_list_changes_are_notified_and_seen() {
    list_changes_of(Kind::Prompt);
}

/// Removing a disabled item of any kind removes it: it stays unlisted and unknown, and there is
/// nothing left to enable.
#[test]
fn removing_a_disabled_item_removes_it() {
    for_each_revision(&ALL_REVISIONS, |rev| {
        let mut conn = Conn::manual(rev, "removing_a_disabled_item_removes_it", &[]);
        let n = usize::from(!conn.modern());
        for kind in [Kind::Tool, Kind::Resource, Kind::Template, Kind::Prompt] {
            let (key, text) = kind.initial();
            conn.change(kind, key, "disable", n);
            conn.change(kind, key, "remove", n);
            conn.assert_present(kind, key, text, false);
            let arguments = json!({"kind": kind.name(), "key": key, "action": "enable"});
            conn.refused("change_item", arguments, &[key]);
        }
        conn.close();
    });
}

/// `change_item` and `add_item` answer what they cannot do with a tool error naming the
/// problem: an unknown kind or action, a missing argument, an unknown item (or one of another
/// kind), a name taken, a tool name that is not one. Nothing changes.
#[test]
fn change_item_and_add_item_refuse_bad_input() {
    let cases = [
        ("change_item", json!({"kind": "widget", "key": "echo", "action": "disable"}), &["`kind`", "widget"][..]),
        ("change_item", json!({"kind": "tool", "key": "echo", "action": "toggle"}), &["`action`", "toggle"]),
        ("change_item", json!({"kind": "tool", "key": "echo"}), &["`action`"]),
        ("change_item", json!({"kind": "tool", "key": "no_such_tool", "action": "disable"}), &["`no_such_tool`"]),
        ("change_item", json!({"kind": "prompt", "key": "echo", "action": "disable"}), &["prompt `echo`"]),
        ("change_item", json!({"kind": "resource", "key": "test://nope", "action": "remove"}), &["`test://nope`"]),
        // A template is named by its URI template, not by one of its URIs.
        ("change_item", json!({"kind": "template", "key": "test://items/2", "action": "disable"}), &["test://items/2"]),
        ("change_item", json!({"kind": "resource", "key": "test://items/{id}", "action": "disable"}), &["{id}"]),
        ("add_item", json!({"kind": "template", "name": "x"}), &["`kind`", "template"]),
        ("add_item", json!({"kind": "tool"}), &["`name`"]),
        ("add_item", json!({"kind": "tool", "name": "echo"}), &["`echo`"]),
        ("add_item", json!({"kind": "prompt", "name": "greet"}), &["`greet`"]),
        ("add_item", json!({"kind": "tool", "name": "not a tool name"}), &["`not a tool name`"]),
    ];
    for_each_revision(&ALL_REVISIONS, |rev| {
        let mut conn = Conn::manual(rev, "change_item_and_add_item_refuse_bad_input", &[]);
        for (tool, arguments, needles) in &cases {
            conn.refused(tool, arguments.clone(), needles);
        }
        assert_eq!(conn.tool_names(), ["add", "add_item", "change_item", "echo", "touch"], "{rev}");
        for kind in [Kind::Resource, Kind::Template, Kind::Prompt] {
            let (key, text) = kind.initial();
            conn.assert_present(kind, key, text, true);
        }
        conn.finish();
    });
}

// ---------------------------------------------------------------------------------------------
// GiftGen
// ---------------------------------------------------------------------------------------------

/// The whole catalog, a category of it (compared with `catalog.json`), an unknown category,
/// the completion of `category`, and the prompt `describe_gift`.
#[test]
fn gift_genius_serves_its_catalog_and_prompt() {
    for_each_revision(&ALL_REVISIONS, |rev| {
        let mut conn = Conn::gift(rev, "gift_genius_serves_its_catalog_and_prompt");
        let resources = conn.ok("resources/list", None);
        // The catalog, and the page of GiftGen's MCP App (a resource like any other).
        let listed = names(resources["resources"].as_array().expect("resources"));
        assert_eq!(listed, ["catalog", "cards"], "{rev}: {resources}");
        assert_eq!(resources["resources"][0]["uri"], "gifts://catalog", "{rev}: {resources}");
        let templates = conn.ok("resources/templates/list", None);
        assert_eq!(templates["resourceTemplates"][0]["uriTemplate"], "gifts://catalog/{category}", "{rev}");

        let whole = conn.read("gifts://catalog");
        assert_eq!(whole.len(), 1, "{rev}: {whole:?}");
        assert_eq!(whole[0]["mimeType"], "application/json", "{rev}");
        let parsed: Value = serde_json::from_str(texts(&whole)[0]).expect("the catalog is JSON");
        assert_eq!(parsed, Value::Array(catalog()), "{rev}");

        let books = conn.read("gifts://catalog/books");
        assert_eq!((books.len(), &books[0]["mimeType"]), (1, &json!("application/json")), "{rev}: {books:?}");
        let parsed: Vec<Value> = serde_json::from_str(texts(&books)[0]).expect("a JSON array");
        let want = in_category("books");
        assert!(!want.is_empty());
        assert_eq!(names(&parsed), want, "{rev}");
        assert!(parsed.iter().all(|g| g["category"] == "books"), "{rev}: {parsed:?}");

        let error = conn.fail("resources/read", json!({"uri": "gifts://catalog/cars"}));
        assert_eq!(error["code"], not_found_code(rev), "{rev}: {error}");
        assert_eq!(error["data"]["uri"], "gifts://catalog/cars", "{rev}: {error}");

        let category = json!({"type": "ref/resource", "uri": "gifts://catalog/{category}"});
        assert_eq!(conn.complete(&category, "category", "h", None), ["home", "hobbies"], "{rev}");
        let all: BTreeSet<String> = conn.complete(&category, "category", "", None).into_iter().collect();
        let in_catalog: BTreeSet<String> =
            catalog().iter().map(|g| g["category"].as_str().expect("a category").to_owned()).collect();
        assert_eq!(all, in_catalog, "{rev}");

        let prompts = conn.ok("prompts/list", None);
        let prompt = &prompts["prompts"][0];
        assert_eq!(prompt["name"], "describe_gift", "{rev}: {prompts}");
        let arguments: Vec<(&Value, &Value)> =
            prompt["arguments"].as_array().expect("arguments").iter().map(|a| (&a["name"], &a["required"])).collect();
        assert_eq!(arguments, [(&json!("gift_name"), &json!(true)), (&json!("recipient"), &json!(true))], "{rev}");
        let arguments = json!({"gift_name": "Illustrated atlas of the world", "recipient": "niece"});
        let described = conn.ok("prompts/get", Some(json!({"name": "describe_gift", "arguments": arguments})));
        let messages = described["messages"].as_array().expect("messages");
        assert_eq!((messages.len(), &messages[0]["role"]), (1, &json!("user")), "{rev}: {described}");
        let text = messages[0]["content"]["text"].as_str().unwrap_or_else(|| panic!("a text message: {described}"));
        assert!(text.contains("Illustrated atlas of the world") && text.contains("niece"), "{rev}: {text}");
        let missing = json!({"name": "describe_gift", "arguments": {"gift_name": "x"}});
        let error = conn.fail("prompts/get", missing);
        assert_eq!(error["code"], -32602, "{rev}: {error}");
        assert!(error["message"].as_str().unwrap_or_default().contains("`recipient`"), "{rev}: {error}");
        conn.finish();
    });
}

/// GiftGen's resources are not subscribable and its lists static: `resources/subscribe` is not
/// found under the handshake revisions, and a 2026-07-28 stream is acknowledged with nothing
/// honoured (then closed with its result when standard input closes).
#[test]
fn gift_genius_offers_no_subscriptions() {
    for_each_revision(&ALL_REVISIONS, |rev| {
        let mut conn = Conn::gift(rev, "gift_genius_offers_no_subscriptions");
        if !conn.modern() {
            let error = conn.fail("resources/subscribe", json!({"uri": "gifts://catalog"}));
            assert_eq!(error["code"], -32601, "{rev}: {error}");
            conn.finish();
            return;
        }
        let id = json!("gifts");
        let filter = json!({
            "toolsListChanged": true,
            "promptsListChanged": true,
            "resourcesListChanged": true,
            "resourceSubscriptions": ["gifts://catalog", "gifts://catalog/books"],
        });
        let ack = listen(&mut conn, &id, filter);
        assert_eq!(ack, json!({}), "nothing can be honoured: {ack}");
        conn.server.close_stdin();
        let last = conn.server.recv();
        assert_eq!((&last["id"], &last["result"]["resultType"]), (&id, &json!("complete")), "{last}");
        assert_eq!(last["result"]["_meta"][SUBSCRIPTION_ID], id, "{last}");
        assert!(conn.server.wait().success());
    });
}
