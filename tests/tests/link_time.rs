//! Link-time registration survives a release build with fat LTO (and the default linker's
//! section garbage collection), with tools declared in the binary and in a library crate.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

use mcp_tests::{target_dir, workspace_root};

fn build_lto_server() -> std::path::PathBuf {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let output = Command::new(cargo)
        .current_dir(workspace_root())
        .args(["build", "--quiet", "--profile", "release-lto", "-p", "lto-server"])
        .output()
        .expect("cargo runs");
    assert!(output.status.success(), "building lto-server failed:\n{}", String::from_utf8_lossy(&output.stderr));
    target_dir().join("release-lto").join("lto-server")
}

#[test]
fn tools_from_both_crates_are_served_under_fat_lto() {
    let binary = build_lto_server();

    let listing = Command::new(&binary).arg("--list").output().expect("lto-server runs");
    let listing = String::from_utf8(listing.stdout).expect("utf-8");
    assert!(listing.contains("tool hello_from_binary:"), "{listing}");
    assert!(listing.contains("tool hello_from_library:"), "{listing}");

    let mut child = Command::new(&binary).stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().expect("spawn");
    let mut stdin = child.stdin.take().expect("stdin");
    writeln!(
        stdin,
        r#"{{"jsonrpc":"2.0","id":1,"method":"initialize","params":{{"protocolVersion":"2025-11-25","capabilities":{{}},"clientInfo":{{"name":"t","version":"1"}}}}}}"#
    )
    .unwrap();
    writeln!(
        stdin,
        r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":"hello_from_library","arguments":{{"name":"LTO"}}}}}}"#
    )
    .unwrap();
    drop(stdin);
    let lines: Vec<serde_json::Value> = BufReader::new(child.stdout.take().expect("stdout"))
        .lines()
        .map(|l| serde_json::from_str(&l.expect("a line")).expect("JSON"))
        .collect();
    assert!(child.wait().expect("exit").success());
    let call = lines.iter().find(|m| m["id"] == 2).expect("an answer to the call");
    assert_eq!(call["result"]["content"][0]["text"], "hello LTO, from the library");
}
