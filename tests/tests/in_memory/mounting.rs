//! Servers mounted in a server (`Server::mount`): their tools and prompts under a prefix, their
//! resources under their own URIs, each item with the states, layers, tags, scopes and handle of
//! the server it came from; the same declaration mounted twice serves two states; names taken
//! twice stop the start naming both places.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_runtime::middleware::{McpResponse, Target, from_fn};
use mcp_runtime::protocol::{ErrorObject, Resource, Revision};
use mcp_runtime::testing::TestClient;
use mcp_runtime::{
    CompletionContext, ItemKind, PromptDescriptor, ResourceDescriptor, Server, State, ToolDescriptor, mcp_server,
    mcp_tool,
};
use serde_json::{Value, json};

/// A shop of one region: the same declaration, mounted once per region.
struct Shop {
    region: &'static str,
    sold: AtomicU32,
}

#[mcp_server]
impl Shop {
    /// Says where the prices are from.
    #[mcp_tool]
    fn prices(&self) -> String {
        format!("prices in {}", self.region)
    }

    /// Sells one item; says how many this shop sold.
    #[mcp_tool]
    fn sell(&self) -> String {
        (self.sold.fetch_add(1, Ordering::SeqCst) + 1).to_string()
    }

    /// Greets a customer of this region.
    #[mcp_prompt]
    fn greeting(&self, name: String) -> String {
        format!("Welcome to {}, {name}", self.region)
    }
}

/// The cities a region's greeting completes, from the mounted server's own state.
struct Cities(Vec<&'static str>);

fn shop(region: &'static str, cities: Vec<&'static str>) -> Server {
    let by_state = |typed: &str, context: &CompletionContext| -> Vec<String> {
        let cities = context.state::<Cities>().expect("the mounted server's state");
        cities.0.iter().filter(|c| c.starts_with(typed)).map(|c| (*c).to_owned()).collect()
    };
    Server::builder("shop", "1.0.0").instance(Shop { region, sold: AtomicU32::new(0) }).state(Cities(cities)).prompt(
        PromptDescriptor::new("visit").argument("city", None, true).complete("city", by_state).handler(
            |get: mcp_runtime::PromptGet| async move { format!("Visit {}", get.argument("city").unwrap_or("?")) },
        ),
    )
}

/// The server's own tool, beside the mounted ones.
#[mcp_tool]
fn hello() -> &'static str {
    "hello from the gateway"
}

fn text(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap_or_else(|| panic!("a text result: {result:#}"))
}

fn names(items: &[Value]) -> Vec<&str> {
    items.iter().map(|item| item["name"].as_str().expect("a name")).collect()
}

#[tokio::test]
async fn mounted_items_are_served_under_their_prefix_each_with_its_own_state() {
    let gateway = || {
        Server::builder("gateway", "1.0.0")
            .tool(hello)
            .mount("eu", shop("EU", vec!["Paris", "Porto"]))
            .mount("us", shop("US", vec!["Portland"]))
    };
    for revision in [Revision::V2025_11_25, Revision::LATEST] {
        let client = TestClient::connect_as(gateway(), revision).await.expect("connects");
        let tools = client.list_tools().await.expect("tools");
        assert_eq!(names(&tools), ["eu_prices", "eu_sell", "hello", "us_prices", "us_sell"], "{revision:?}");
        assert_eq!(text(&client.call_tool("eu_prices", json!({})).await.unwrap()), "prices in EU");
        assert_eq!(text(&client.call_tool("us_prices", json!({})).await.unwrap()), "prices in US");
        assert_eq!(text(&client.call_tool("hello", json!({})).await.unwrap()), "hello from the gateway");
        // Two instances: selling in one region leaves the other's count alone.
        for expected in ["1", "2"] {
            assert_eq!(text(&client.call_tool("eu_sell", json!({})).await.unwrap()), expected);
        }
        assert_eq!(text(&client.call_tool("us_sell", json!({})).await.unwrap()), "1");
        let unknown = client.call_tool("prices", json!({})).await.expect_err("only under its prefix");
        assert!(unknown.to_string().contains("Unknown tool `prices`"), "{unknown}");

        let prompts = client.list_prompts().await.expect("prompts");
        assert_eq!(names(&prompts), ["eu_greeting", "eu_visit", "us_greeting", "us_visit"], "{revision:?}");
        let greeting = client.get_prompt("us_greeting", json!({"name": "Ada"})).await.expect("a prompt");
        assert_eq!(greeting["messages"][0]["content"]["text"], "Welcome to US, Ada", "{greeting:#}");
        // A completer sees its mounted server's state.
        let eu = client.complete(json!({"type": "ref/prompt", "name": "eu_visit"}), "city", "P").await.unwrap();
        let us = client.complete(json!({"type": "ref/prompt", "name": "us_visit"}), "city", "P").await.unwrap();
        assert_eq!((eu, us), (vec!["Paris".to_owned(), "Porto".to_owned()], vec!["Portland".to_owned()]));
        client.close().await.expect("closes");
    }
}

#[tokio::test]
async fn mounted_resources_keep_their_uris_and_their_states() {
    struct Shelf(&'static str);
    let reading = |read: mcp_runtime::ResourceRead| async move {
        let shelf = read.context().state::<Shelf>().expect("the mounted server's state");
        format!("{} on {}", shelf.0, read.uri())
    };
    // A template's lister too runs with its mounted server's states.
    let listing = |context: mcp_runtime::Context| async move {
        let shelf = context.state::<Shelf>().expect("the mounted server's state");
        vec![Resource::new(format!("shelf://books/{}", shelf.0), "a shelf")]
    };
    let template = ResourceDescriptor::template("shelf://books/{title}", "book").expect("a template");
    let books = Server::builder("books", "1")
        .state(Shelf("novels"))
        .resource(ResourceDescriptor::fixed("shelf://books", "books").reader(reading))
        .resource(template.reader(reading).lister(listing));
    let client =
        TestClient::connect(Server::builder("library", "1").state(Shelf("not this one")).mount("books", books))
            .await
            .expect("connects");
    let listed = client.list_resources().await.expect("resources");
    let uris: Vec<&str> = listed.iter().map(|r| r["uri"].as_str().unwrap()).collect();
    assert_eq!(uris, ["shelf://books", "shelf://books/novels"]);
    let templates = client.list_resource_templates().await.expect("templates");
    assert_eq!(templates[0]["uriTemplate"], "shelf://books/{title}");
    let read = client.read_resource("shelf://books/dune").await.expect("reads");
    assert_eq!(read["contents"][0]["text"], "novels on shelf://books/dune", "{read:#}");
    client.close().await.expect("closes");
}

#[tokio::test]
async fn a_mounted_server_s_layers_see_its_requests_only_inside_the_server_s_own() {
    let seen = Arc::new(Mutex::new(Vec::<String>::new()));
    let record = |who: &'static str, seen: &Arc<Mutex<Vec<String>>>| {
        let seen = Arc::clone(seen);
        from_fn(move |request: mcp_runtime::middleware::McpRequest, next: mcp_runtime::middleware::Next| {
            let seen = Arc::clone(&seen);
            async move {
                if let Some(Target::Tool(name)) = request.target() {
                    let region = request.context().state::<Cities>().map(|c| c.0[0]).unwrap_or("none");
                    seen.lock().unwrap().push(format!("{who} {name} {region}"));
                    if who == "eu-layer" && name == "eu_sell" {
                        return Ok(McpResponse::error(ErrorObject::new(-32001, "the EU shop is closed")));
                    }
                }
                next.run(request).await
            }
        })
    };
    let eu = shop("EU", vec!["Paris"]).layer(record("eu-layer", &seen));
    let gateway = Server::builder("gateway", "1")
        .layer(record("gateway-layer", &seen))
        .tool(hello)
        .mount("eu", eu)
        .mount("us", shop("US", vec!["Portland"]));
    let client = TestClient::connect(gateway).await.expect("connects");
    for tool in ["hello", "us_prices", "eu_prices"] {
        client.call_tool(tool, json!({})).await.expect("called");
    }
    let refused = client.call_tool("eu_sell", json!({})).await.expect_err("the mounted layer refuses");
    assert!(refused.to_string().contains("the EU shop is closed"), "{refused}");
    assert_eq!(
        *seen.lock().unwrap(),
        [
            "gateway-layer hello none",
            "gateway-layer us_prices none",
            "gateway-layer eu_prices none",
            "eu-layer eu_prices Paris",
            "gateway-layer eu_sell none",
            "eu-layer eu_sell Paris",
        ],
        "the gateway's layer sees every call with its own states; the EU layer only the EU items, with the EU's"
    );
    client.close().await.expect("closes");
}

#[tokio::test]
async fn a_mounted_server_s_handle_changes_the_lists_under_its_prefix() {
    let eu = shop("EU", vec!["Paris"]).dynamic_lists();
    let eu_handle = eu.handle();
    let gateway = Server::builder("gateway", "1").tool(hello).mount("eu", eu);
    let client = TestClient::connect_as(gateway, Revision::V2025_11_25).await.expect("connects");
    let capabilities = client.server_capabilities().await.expect("capabilities");
    assert_eq!(capabilities["tools"]["listChanged"], true, "a mount's dynamic lists make the server's: {capabilities}");
    // A round trip first: the server has handled `notifications/initialized` (it sends no
    // notification before).
    assert_eq!(names(&client.list_tools().await.expect("tools")), ["eu_prices", "eu_sell", "hello"]);
    let mut notices = client.client().notifications();

    let restock = ToolDescriptor::new("restock").handler(|_: Value| async { "restocked" });
    eu_handle.add_tool(restock).expect("added through the mounted server's handle");
    let notice = tokio::time::timeout(Duration::from_secs(5), notices.next()).await.expect("told in time");
    assert_eq!(notice.expect("a notification").method(), "notifications/tools/list_changed");
    assert_eq!(text(&client.call_tool("eu_restock", json!({})).await.unwrap()), "restocked");

    eu_handle.disable(ItemKind::Tool, "prices").expect("named as the mounted server names it");
    let tools = client.list_tools().await.expect("tools");
    assert_eq!(names(&tools), ["eu_restock", "eu_sell", "hello"]);
    client.close().await.expect("closes");
}

#[derive(Default)]
struct Tally {
    count: AtomicU32,
}

#[mcp_server]
impl Tally {
    /// Counts on this session's tally.
    #[mcp_tool]
    fn count(&self) -> String {
        (self.count.fetch_add(1, Ordering::SeqCst) + 1).to_string()
    }
}

#[tokio::test]
async fn a_mounted_server_s_instance_per_session_is_made_per_session() {
    let gateway = || {
        Server::builder("gateway", "1").mount("tally", Server::builder("t", "1").instance_per_session(Tally::default))
    };
    let (one, two) = (TestClient::connect(gateway()).await.unwrap(), TestClient::connect(gateway()).await.unwrap());
    assert_eq!(text(&one.call_tool("tally_count", json!({})).await.unwrap()), "1");
    assert_eq!(text(&one.call_tool("tally_count", json!({})).await.unwrap()), "2");
    assert_eq!(text(&two.call_tool("tally_count", json!({})).await.unwrap()), "1");
    one.close().await.unwrap();
    two.close().await.unwrap();
}

#[test]
fn tags_and_scopes_stay_with_the_mounted_items() {
    let admin = Server::builder("admin", "1")
        .tool(ToolDescriptor::new("wipe").tag("admin").scope("shop:admin").handler(|_: Value| async { "wiped" }))
        .tool(ToolDescriptor::new("status").tag("public").handler(|_: Value| async { "fine" }));
    let listing = Server::builder("gateway", "1").mount("ops", admin).describe().expect("builds");
    assert!(listing.contains("tool ops_wipe [scopes: shop:admin]"), "{listing}");
    let public_only = Server::builder("admin", "1")
        .tool(ToolDescriptor::new("wipe").tag("admin").handler(|_: Value| async { "wiped" }))
        .tool(ToolDescriptor::new("status").tag("public").handler(|_: Value| async { "fine" }))
        .only_tags(["public"]);
    let listing = Server::builder("gateway", "1").mount("ops", public_only).describe().expect("builds");
    assert!(listing.contains("tool ops_status") && !listing.contains("wipe"), "{listing}");
}

#[test]
fn a_name_taken_twice_stops_the_start_naming_both_places() {
    let taken = Server::builder("gateway", "1")
        .tool(ToolDescriptor::new("eu_prices").handler(|_: Value| async { "mine" }))
        .mount("eu", shop("EU", vec![]))
        .validate()
        .expect_err("two tools named eu_prices");
    let message = taken.to_string();
    assert!(message.contains("eu_prices") && message.contains("mounted under `eu`"), "{message}");
    assert!(message.contains("the server builder"), "{message}");

    let shelf = || {
        Server::builder("s", "1").resource(ResourceDescriptor::fixed("shelf://one", "one").reader(|_| async { "x" }))
    };
    let taken = Server::builder("gateway", "1").mount("a", shelf()).mount("b", shelf()).validate();
    let message = taken.expect_err("one URI from two mounts").to_string();
    assert!(message.contains("mounted under `a`") && message.contains("mounted under `b`"), "{message}");
}

#[test]
fn what_cannot_be_mounted_is_refused_saying_why() {
    let refused = |server: Server| server.validate().expect_err("refused").to_string();
    let message = refused(Server::builder("g", "1").mount("", shop("EU", vec![])));
    assert!(message.contains("a prefix is one or more of"), "{message}");
    let message = refused(Server::builder("g", "1").mount("e u", shop("EU", vec![])));
    assert!(message.contains("mounted under `e u`"), "{message}");
    let nested = Server::builder("inner", "1").mount("eu", shop("EU", vec![]));
    let message = refused(Server::builder("g", "1").mount("outer", nested));
    assert!(message.contains("mount those on this server instead"), "{message}");
    // A mounted server's items see its states, not the outer server's: a state only the
    // outer server has is missing.
    let message = refused(Server::builder("g", "1").state(Missing).mount("m", Server::builder("s", "1").tool(needs)));
    assert!(message.contains("Missing") && message.contains("mounted under `m`"), "{message}");
}

struct Missing;

/// Takes a state its own server does not have.
#[mcp_tool]
fn needs(_missing: State<Missing>) -> &'static str {
    "found"
}
