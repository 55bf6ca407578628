//! `mcp dev` on a scratch crate made by `mcp new`, driven as a desktop client would: the
//! Rust client connected to `mcp dev` over stdio (or Streamable HTTP, `--http`), in each era,
//! while `mcp dev` builds and runs the crate. A tool's
//! parameters are edited in the source: the client gets `list_changed` and the new schema on
//! the same connection; the build is broken: the old server still answers and the compiler's
//! error arrives as a log message; the source is repaired: the client hears of it again.

use std::path::Path;
use std::time::{Duration, Instant};

use mcp_runtime::client::{Client, Era, Notification, Notifications};
use mcp_runtime::protocol::LogLevel;
use mcp_tests::services::{KillOnDrop, free_port, wait_for_port};
use mcp_tests::{mcp_binary, target_dir};
use serde_json::{Value, json};

use super::arg;
use super::new::{cargo, scratch_crate};

/// How long one rebuild may take on a machine whose two cores other tests share.
const REBUILD: Duration = Duration::from_secs(240);

/// The parameter the test adds to `greet`.
const ADDED: &str = "    /// Their family name\n    family_name: Option<String>,\n";

/// How the client reaches `mcp dev`.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Front {
    Stdio,
    Http,
}

/// `mcp dev` on the crate in `folder`, and a client of `era` connected to it (the process is
/// `mcp dev` itself over stdio; over HTTP, the returned process serves it).
async fn start_dev(folder: &Path, era: Era, front: Front) -> (Client, Option<KillOnDrop>) {
    let manifest = arg(&folder.join("Cargo.toml"));
    let builder = Client::builder().era(era).timeout(REBUILD);
    if front == Front::Stdio {
        let mut command = tokio::process::Command::new(mcp_binary());
        command
            .args(["dev", "--manifest-path", &manifest])
            .env("CARGO_TARGET_DIR", target_dir())
            .env("CARGO_NET_OFFLINE", "true");
        return (builder.stdio(command).await.expect("mcp dev serves the crate"), None);
    }
    let port = free_port();
    let mut process = KillOnDrop(
        std::process::Command::new(mcp_binary())
            .args(["dev", "--manifest-path", &manifest, "--http", &format!("127.0.0.1:{port}")])
            .env("CARGO_TARGET_DIR", target_dir())
            .env("CARGO_NET_OFFLINE", "true")
            .stdin(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("mcp dev starts"),
    );
    tokio::task::block_in_place(|| wait_for_port(&mut process.0, port, "mcp dev --http", REBUILD));
    let client = builder.http(&format!("http://127.0.0.1:{port}/mcp")).await.expect("mcp dev serves the crate");
    (client, Some(process))
}

/// Waits for the first notification `wanted` accepts.
async fn wait_for(notices: &mut Notifications, what: &str, wanted: impl Fn(&Notification) -> bool) -> Notification {
    let waited = tokio::time::timeout(REBUILD, async {
        loop {
            match notices.next().await {
                Some(notice) if wanted(&notice) => return notice,
                Some(_) => {}
                None => panic!("the connection closed while waiting for {what}"),
            }
        }
    });
    waited.await.unwrap_or_else(|_| panic!("no {what} in {} s", REBUILD.as_secs()))
}

/// The names of `greet`'s parameters.
async fn parameters(client: &Client) -> Vec<String> {
    let tools = client.list_tools().await.expect("tools/list");
    let greet = tools.iter().find(|t| t.name == "greet").expect("greet");
    greet.input_schema["properties"].as_object().expect("properties").keys().cloned().collect()
}

async fn greet(client: &Client) -> Value {
    let result = client.call_tool("greet", json!({"name": "Ada"})).await.expect("greet answers");
    serde_json::to_value(&result.content[0]).expect("content")["text"].clone()
}

/// Edits, breaks and repairs the crate under a client of `era`, which hears of each change
/// by `list_changed` (on its `subscriptions/listen` stream, 2026-07-28).
async fn a_client_stays_connected_across_edits(name: &str, era: Era, front: Front) {
    let folder = scratch_crate(name);
    let (built, output) = cargo(&folder, &["build"]);
    assert!(built, "{output}");
    let (client, _serving) = start_dev(&folder, era, front).await;
    let declared = client.negotiation().capabilities.tools.clone().expect("tools");
    assert_eq!(declared.list_changed, Some(true), "mcp dev declares list changes whatever the server does");
    let mut notices = client.notifications();
    let listening = (era == Era::Stateless).then(|| {
        let client = client.clone();
        tokio::spawn(async move {
            let _ = client
                .request_within(
                    "subscriptions/listen",
                    json!({"notifications": {"toolsListChanged": true}}),
                    REBUILD * 4,
                )
                .await;
        })
    });
    if listening.is_some() {
        wait_for(&mut notices, "the listen stream's acknowledgement", |n| {
            n.method() == "notifications/subscriptions/acknowledged"
        })
        .await;
    }
    assert_eq!(parameters(&client).await, ["excitement", "name"]);
    assert_eq!(greet(&client).await, "Hello, Ada!");

    let main = folder.join("src/main.rs");
    let source = std::fs::read_to_string(&main).expect("src/main.rs");
    let edited = source.replacen(
        "    /// How many exclamation marks\n",
        &format!("{ADDED}    /// How many exclamation marks\n"),
        1,
    );
    assert_ne!(edited, source, "the generated source changed: the test's edit no longer applies");
    std::fs::write(&main, &edited).expect("saved");
    let saved = Instant::now();
    wait_for(&mut notices, "tools/list_changed after the edit", |n| *n == Notification::ToolsChanged).await;
    eprintln!("{name}: from saving the file to list_changed: {:.2} s", saved.elapsed().as_secs_f64());
    assert_eq!(parameters(&client).await, ["excitement", "family_name", "name"], "the new schema, same connection");

    std::fs::write(&main, edited.replacen("fn greet(", "fn greet( oops", 1)).expect("saved");
    if era == Era::Handshake {
        let logged = wait_for(&mut notices, "the build's error as a log message", |n| {
            matches!(n, Notification::Log { level: LogLevel::Error, .. })
        })
        .await;
        let Notification::Log { data, logger, .. } = logged else { unreachable!() };
        assert_eq!(logger.as_deref(), Some("mcp dev"));
        assert!(data.as_str().is_some_and(|d| d.contains("error") && d.contains("src/main.rs")), "{data}");
    }
    assert_eq!(greet(&client).await, "Hello, Ada!", "the old build keeps serving");

    std::fs::write(&main, &source).expect("repaired");
    wait_for(&mut notices, "tools/list_changed after the repair", |n| *n == Notification::ToolsChanged).await;
    assert_eq!(parameters(&client).await, ["excitement", "name"]);
    assert_eq!(greet(&client).await, "Hello, Ada!");
    if let Some(listening) = listening {
        listening.abort();
    }
    client.close().await.expect("closed");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dev_keeps_a_handshake_client_connected_across_edits_and_failed_builds() {
    a_client_stays_connected_across_edits("dev_handshake", Era::Handshake, Front::Stdio).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dev_tells_a_2026_07_28_client_on_its_listen_stream() {
    a_client_stays_connected_across_edits("dev_stateless", Era::Stateless, Front::Stdio).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dev_over_http_keeps_a_handshake_session_across_edits_and_failed_builds() {
    a_client_stays_connected_across_edits("dev_http_handshake", Era::Handshake, Front::Http).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dev_over_http_tells_a_2026_07_28_client_on_its_listen_stream() {
    a_client_stays_connected_across_edits("dev_http_stateless", Era::Stateless, Front::Http).await;
}

/// A tool that takes its time, added to the scratch crate's source.
const NAP: &str = "\n/// Sleeps, then answers.\n#[mcp_tool]\nfn nap(ms: u64) -> String {\n    std::thread::sleep(std::time::Duration::from_millis(ms));\n    format!(\"slept {ms} ms\")\n}\n";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_in_flight_finishes_on_the_old_run_and_none_is_lost_during_the_switch() {
    let folder = scratch_crate("dev_switch");
    let main = folder.join("src/main.rs");
    let source = std::fs::read_to_string(&main).expect("src/main.rs") + NAP;
    std::fs::write(&main, &source).expect("saved");
    let (built, output) = cargo(&folder, &["build"]);
    assert!(built, "{output}");
    let (client, _) = start_dev(&folder, Era::Handshake, Front::Stdio).await;
    let mut notices = client.notifications();

    // A call that outlasts the rebuild, sent before the edit.
    let napping = {
        let client = client.clone();
        tokio::spawn(async move { client.call_tool("nap", json!({"ms": 4000})).await })
    };
    let edited = source.replacen(
        "    /// How many exclamation marks\n",
        &format!("{ADDED}    /// How many exclamation marks\n"),
        1,
    );
    std::fs::write(&main, &edited).expect("saved");
    // Calls one after another until the switch is announced: some arrive while it happens.
    let mut answered = 0;
    let switched = loop {
        tokio::select! {
            notice = notices.next() => match notice {
                Some(Notification::ToolsChanged) => break true,
                Some(_) => {}
                None => break false,
            },
            result = client.call_tool("greet", json!({"name": "Ada"})) => {
                let result = result.expect("a call during the switch is answered");
                assert!(!result.is_error, "{result:?}");
                answered += 1;
            }
        }
    };
    assert!(switched, "the connection closed before the switch");
    assert!(answered > 0, "no call was made while the new build was on its way");
    let napped = napping.await.expect("the task").expect("the call in flight is answered by the old run");
    assert_eq!(serde_json::to_value(&napped.content[0]).unwrap()["text"], "slept 4000 ms");
    assert_eq!(parameters(&client).await, ["excitement", "family_name", "name"], "the new run serves now");
    client.close().await.expect("closed");
}

#[test]
fn inspector_prints_the_command_that_opens_it_on_the_server() {
    let folder = scratch_crate("dev_inspector");
    let manifest = arg(&folder.join("Cargo.toml"));
    let mut command = std::process::Command::new(mcp_binary());
    // No client: stdin is closed, so `mcp dev` ends once it has started.
    command
        .args(["dev", "--inspector", "--manifest-path", &manifest])
        .env("CARGO_TARGET_DIR", target_dir())
        .env("CARGO_NET_OFFLINE", "true");
    let (status, _, stderr) = mcp_tests::clients::run_bounded(command, REBUILD);
    assert!(status.success(), "{stderr}");
    let expected = format!("npx @modelcontextprotocol/inspector mcp dev --manifest-path {manifest}");
    assert!(stderr.contains(&expected), "no `{expected}` in:\n{stderr}");
}
