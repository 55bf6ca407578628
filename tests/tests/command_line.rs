//! The command line of a server binary started with `Server::run()`, driven on GiftGen's
//! release binary as a user would type it.

use std::io::Write;
use std::process::{Command, Output, Stdio};

use mcp_tests::example_binary;

fn gift_genius(args: &[&str]) -> Output {
    Command::new(example_binary("gift_genius")).args(args).stdin(Stdio::null()).output().expect("gift_genius runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).expect("utf-8")
}

#[test]
fn help_prints_the_usage_on_stdout_and_succeeds() {
    for flag in ["--help", "-h"] {
        let out = gift_genius(&[flag]);
        assert!(out.status.success(), "{flag}: {:?}", out.status);
        let stdout = text(&out.stdout);
        assert!(stdout.starts_with(&format!("gift-genius {}: an MCP server", env!("CARGO_PKG_VERSION"))), "{stdout}");
        for mode in ["Usage: gift_genius", "--stdio", "--http ADDR", "--list [REVISION]", "--version"] {
            assert!(stdout.contains(mode), "{flag}: `{mode}` missing from:\n{stdout}");
        }
        assert!(out.stderr.is_empty(), "{}", text(&out.stderr));
    }
}

#[test]
fn version_prints_the_name_and_version() {
    for flag in ["--version", "-V"] {
        let out = gift_genius(&[flag]);
        assert!(out.status.success());
        assert_eq!(text(&out.stdout), format!("gift-genius {}\n", env!("CARGO_PKG_VERSION")));
    }
}

#[test]
fn a_bad_command_line_exits_2_with_the_usage_on_stderr() {
    let cases: [(&[&str], &str); 4] = [
        (&["--nope"], "unknown argument `--nope`"),
        (&["--list", "extra"], "`--list extra`: not a protocol revision"),
        (&["--http"], "`--http` needs an address"),
        (&["--list", "--stdio"], "cannot be combined"),
    ];
    for (args, message) in cases {
        let out = gift_genius(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = text(&out.stderr);
        let first = stderr.lines().next().unwrap_or_default();
        assert!(first.starts_with("error: ") && first.contains(message), "{args:?}:\n{stderr}");
        assert!(stderr.contains("Usage: gift_genius"), "{args:?}: no usage in\n{stderr}");
        assert!(out.stdout.is_empty(), "{args:?} wrote to stdout: {}", text(&out.stdout));
    }
}

#[test]
fn list_says_which_revision_it_shows_and_follows_it() {
    let latest = text(&gift_genius(&["--list"]).stdout);
    assert!(latest.starts_with("gift-genius ") && latest.contains("(as listed to a 2026-07-28 client)"), "{latest}");
    let tool = |listing: &str| listing.lines().find(|l| l.starts_with("tool suggest_gifts:")).map(str::to_owned);
    let newest_tool = tool(&latest).expect("suggest_gifts listed");
    assert!(newest_tool.contains("\"outputSchema\"") && newest_tool.contains("\"_meta\""), "{newest_tool}");

    let oldest = gift_genius(&["--list", "2024-11-05"]);
    assert!(oldest.status.success());
    let oldest = text(&oldest.stdout);
    assert!(oldest.contains("(as listed to a 2024-11-05 client)"), "{oldest}");
    // 2024-11-05 has neither output schemas nor `_meta`.
    let oldest_tool = tool(&oldest).expect("suggest_gifts listed");
    assert!(!oldest_tool.contains("outputSchema") && !oldest_tool.contains("\"_meta\""), "{oldest_tool}");
    assert_eq!(latest.lines().count(), oldest.lines().count(), "the same items in every revision");
}

#[test]
fn stdio_flag_serves_like_no_argument() {
    let initialize = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
    for args in [&["--stdio"][..], &[]] {
        let mut child = Command::new(example_binary("gift_genius"))
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn");
        writeln!(child.stdin.take().expect("stdin"), "{initialize}").expect("write");
        // stdin is closed: the server answers what it read, then exits.
        let out = child.wait_with_output().expect("exits");
        assert!(out.status.success(), "{args:?}: {:?}", out.status);
        let reply: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON reply");
        assert_eq!(reply["result"]["serverInfo"]["name"], "gift-genius", "{args:?}");
    }
}

/// GiftGen on stdio with `RUST_LOG=log`, fed `lines` and its input then closed: its standard
/// error.
fn logs_of(log: &str, lines: &[&str]) -> String {
    logs_of_example("gift_genius", log, lines)
}

/// The same, of another example.
fn logs_of_example(example: &str, log: &str, lines: &[&str]) -> String {
    let mut child = Command::new(example_binary(example))
        .env("RUST_LOG", log)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut stdin = child.stdin.take().expect("stdin");
    for line in lines {
        writeln!(stdin, "{line}").expect("write");
    }
    drop(stdin);
    let out = child.wait_with_output().expect("exits");
    assert!(out.status.success(), "{:?}", out.status);
    text(&out.stderr)
}

#[test]
fn at_info_the_logs_say_what_is_declared_and_who_connected() {
    let initialize = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"inspector","version":"0.9.1"}}}"#;
    let again = r#"{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"inspector","version":"0.9.1"}}}"#;
    let stateless = r#"{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"modern","version":"2.0"}}}}"#;
    let logs = logs_of("info", &[initialize, again, stateless, stateless]);
    let line = |needle: &str| {
        logs.lines().find(|line| line.contains(needle)).unwrap_or_else(|| panic!("no `{needle}` line in:\n{logs}"))
    };
    let declared = line("declares");
    assert!(declared.contains("gift-genius") && declared.contains("1 tool,"), "{declared}");
    assert!(declared.contains(" INFO "), "{declared}");
    let started = line("a client started a session (2025-06-18)");
    for field in ["client=\"inspector\"", "client_version=\"0.9.1\"", "requested=2025-06-18", "transport=\"stdio\""] {
        assert!(started.contains(field), "`{field}` missing: {started}");
    }
    let refused = line("an `initialize` was refused");
    assert!(refused.contains(" WARN ") && refused.contains("already received"), "{refused}");
    let reached = line("a client reached the server without a session (2026-07-28)");
    assert!(reached.contains("client=\"modern\"") && reached.contains("client_version=\"2.0\""), "{reached}");
    assert_eq!(logs.matches("without a session").count(), 1, "the same client is logged once:\n{logs}");

    // At warn: a revision the server does not support, what was asked and what was offered.
    let old = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2023-01-01","capabilities":{},"clientInfo":{"name":"old","version":"1"}}}"#;
    let future = r#"{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2099-01-01","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
    let logs = logs_of("warn", &[old, future]);
    assert!(!logs.contains("declares") && !logs.contains("started a session"), "info lines at warn:\n{logs}");
    let offered = logs.lines().find(|l| l.contains("requested=2023-01-01")).expect(&logs);
    assert!(offered.contains(" WARN ") && offered.contains("offered=2025-11-25"), "{offered}");
    let unserved = logs.lines().find(|l| l.contains("requested=2099-01-01")).expect(&logs);
    assert!(unserved.contains("offered=2026-07-28"), "{unserved}");

    // An example with a logger of its own honours RUST_LOG too.
    let logs = logs_of_example("manual", "info", &[initialize]);
    assert!(logs.contains("a client started a session (2025-06-18)"), "manual at info:\n{logs}");
    assert!(logs_of_example("manual", "warn", &[initialize]).is_empty(), "manual at warn says nothing here");
}

/// Items declare scopes, but the HTTP server has no verifier to check them: it says so when
/// it starts (and serves; `--oauth-issuer` would check them).
#[test]
fn an_http_server_whose_items_declare_scopes_warns_that_nothing_checks_them() {
    let port = mcp_tests::services::free_port();
    let addr = format!("127.0.0.1:{port}");
    let mut notes = Command::new(example_binary("notes"))
        .args(["--http", &addr])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the notes example starts");
    mcp_tests::services::wait_for_port(&mut notes, port, "notes", std::time::Duration::from_secs(10));
    // An answer means the endpoint was built, and with it the warning written.
    let list = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}}});
    let headers = [("mcp-protocol-version", "2026-07-28"), ("mcp-method", "tools/list")];
    let answer = mcp_tests::http::post(&format!("http://{addr}/mcp"), &list, &headers);
    assert_eq!(answer.status, 200, "served without authorization: {answer:?}");
    notes.kill().expect("stopped");
    let logs = text(&notes.wait_with_output().expect("its output").stderr);
    let warning = logs.lines().find(|l| l.contains("items declare scopes")).unwrap_or_else(|| panic!("{logs}"));
    assert!(warning.contains(" WARN ") && warning.contains("notes:read notes:write"), "{warning}");
    assert!(warning.contains("HttpOptions::authorization"), "it says what to do: {warning}");
}

/// `--list` says which scopes each item needs (the macros' `scopes(..)`).
#[test]
fn card_prints_the_server_card_that_http_would_serve() {
    let card = |args: &[&str]| {
        let out = Command::new(example_binary("notes")).args(args).output().expect("notes --card");
        assert!(out.status.success(), "{args:?}: {}", text(&out.stderr));
        let printed = text(&out.stdout);
        let name = format!("notes{}", args.len());
        let dir = mcp_tests::wire::transcripts_dir().join("server-card");
        std::fs::create_dir_all(&dir).expect("the transcripts folder");
        std::fs::write(dir.join(format!("{name}.json")), &printed).expect("kept for scripts/schema-check");
        serde_json::from_str::<serde_json::Value>(&printed).expect("JSON")
    };
    let alone = card(&["--card"]);
    assert_eq!(alone["name"], "com.example/notes");
    assert_eq!(alone["description"], "Notes kept in memory: write, search, read and summarize them");
    assert!(alone.get("remotes").is_none(), "{alone:#}");
    let served = card(&["--http", "127.0.0.1:3000", "--card"]);
    assert_eq!(served["remotes"][0]["url"], "http://127.0.0.1:3000/mcp");
    assert!(served["remotes"][0].get("headers").is_none(), "{served:#}");
    let protected = card(&[
        "--card",
        "--http",
        "0.0.0.0:80",
        "--public-url",
        "https://notes.example.com/mcp",
        "--oauth-issuer",
        "https://auth.example.com",
    ]);
    assert_eq!(protected["remotes"][0]["url"], "https://notes.example.com/mcp");
    assert_eq!(protected["remotes"][0]["headers"][0]["name"], "Authorization");
    // A server without a card: an error, as `main` returns it.
    let out = gift_genius(&["--card"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("Server::server_card"), "{}", text(&out.stderr));
}

#[test]
fn list_shows_each_item_s_scopes() {
    let output = Command::new(example_binary("notes")).arg("--list").output().expect("notes --list");
    let listed = text(&output.stdout);
    let line = |start: &str| listed.lines().find(|l| l.starts_with(start)).unwrap_or_else(|| panic!("{listed}"));
    assert!(line("tool write_note ").starts_with("tool write_note [scopes: notes:write]: {"), "{listed}");
    assert!(line("tool search ").starts_with("tool search [scopes: notes:read]: {"), "{listed}");
    assert!(line("template notes://{title} ").starts_with("template notes://{title} [scopes: notes:read]: {"));
    let plain = text(&gift_genius(&["--list"]).stdout);
    assert!(!plain.contains("[scopes:"), "items without scopes say nothing of them:\n{plain}");
}

/// `--http` says where it listens, on standard error, at the default log level (nothing else
/// is printed there at that level) and when `RUST_LOG` silences everything.
#[test]
fn http_prints_where_it_listens_whatever_the_log_level() {
    for log in [None, Some("off")] {
        let port = mcp_tests::services::free_port();
        let addr = format!("127.0.0.1:{port}");
        let mut command = Command::new(example_binary("gift_genius"));
        match log {
            Some(log) => command.env("RUST_LOG", log),
            None => command.env_remove("RUST_LOG"),
        };
        let mut server = command
            .args(["--http", &addr])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("gift_genius starts");
        mcp_tests::services::wait_for_port(&mut server, port, "gift_genius", std::time::Duration::from_secs(10));
        server.kill().expect("stopped");
        let logs = text(&server.wait_with_output().expect("its output").stderr);
        assert_eq!(logs, format!("serving MCP at http://{addr}/mcp\n"), "RUST_LOG={log:?}");
    }
}

/// Every example honours `RUST_LOG`: at `info` it says that a client started a session, at
/// `warn` it does not (over stdio; `replicas` serves HTTP only, `websocket` is tested in
/// `websocket.rs`).
#[test]
fn every_example_honours_rust_log() {
    let initialize = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
    let stdio = ["blocking", "calculator", "conformance_server", "gift_genius", "long_task", "manual", "middleware"];
    for example in stdio.into_iter().chain(["notes", "support_desk"]) {
        let logs = logs_of_example(example, "info", &[initialize]);
        assert!(logs.contains("a client started a session (2025-06-18)"), "{example} at info:\n{logs}");
        let logs = logs_of_example(example, "warn", &[initialize]);
        assert!(!logs.contains("started a session"), "{example} at warn:\n{logs}");
    }
    // `replicas` serves HTTP where `MCP_LISTEN` says.
    for (log, said) in [("info", true), ("warn", false)] {
        let port = mcp_tests::services::free_port();
        let mut child = Command::new(example_binary("replicas"))
            .env("RUST_LOG", log)
            .env("MCP_LISTEN", format!("127.0.0.1:{port}"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("replicas starts");
        mcp_tests::services::wait_for_port(&mut child, port, "replicas", std::time::Duration::from_secs(10));
        let url = format!("http://127.0.0.1:{port}/mcp");
        let opened =
            mcp_tests::http::post(&url, &mcp_tests::http::initialize("2025-06-18", serde_json::json!({})), &[]);
        assert_eq!(opened.status, 200, "{opened:?}");
        // The line is written before the answer goes out: stop the process and read it all.
        let _ = child.kill();
        let out = child.wait_with_output().expect("replicas ends");
        let logs = text(&out.stderr);
        assert_eq!(logs.contains("a client started a session (2025-06-18)"), said, "replicas at {log}:\n{logs}");
    }
}

/// Under `run()`, a server bound off loopback without a host allow-list refuses to start,
/// saying what to set (the mounted router's refusal is tested in `mounted.rs`).
#[test]
fn run_refuses_to_serve_off_loopback_without_allow_lists() {
    let out = gift_genius(&["--http", "0.0.0.0:0"]);
    assert!(!out.status.success(), "it served: {out:?}");
    let stderr = text(&out.stderr);
    assert!(stderr.contains("non-loopback") && stderr.contains("allowed_hosts"), "{stderr}");
}
