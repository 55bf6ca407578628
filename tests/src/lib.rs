//! Helpers shared by the integration tests: building the example servers, driving them over
//! stdio, and the official clients.

pub mod clients;
pub mod conformance;
pub mod gift_genius;
pub mod http;
pub mod schema;
pub mod services;
pub mod wire;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Mutex, OnceLock};

/// Every tool `manual --test-tools` offers, in name order.
pub const MANUAL_TEST_TOOLS: [&str; 11] = [
    "add",
    "content_kinds",
    "echo",
    "fail",
    "gauge",
    "needs_elicitation",
    "numbers",
    "panic",
    "point",
    "regional",
    "sleep",
];

/// The workspace's root directory.
pub fn workspace_root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("tests/ sits inside the workspace")
}

/// The workspace's target directory (honours `CARGO_TARGET_DIR`).
pub fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .map(|p| if p.is_absolute() { p } else { workspace_root().join(p) })
        .unwrap_or_else(|| workspace_root().join("target"))
}

/// The examples that are packages of their own (`examples/<name>/Cargo.toml`, a binary of
/// that name), so that each builds only what it uses; the others are examples of the
/// `examples` package.
pub const EXAMPLE_PACKAGES: [&str; 4] = ["gift_genius", "middleware", "notes", "support_desk"];

/// The examples that serve stdio with no argument (the manual example has flags that add
/// items: a test may give them).
pub const STDIO_EXAMPLES: [&str; 11] = [
    "gift_genius",
    "calculator",
    "notes",
    "long_task",
    "manual",
    "blocking",
    "middleware",
    "support_desk",
    "conformance_server",
    "counter",
    "tool_router",
];

/// Builds the example `name` in release mode (once per test process) and returns its path.
///
/// Panics with cargo's output when the build fails.
pub fn example_binary(name: &str) -> PathBuf {
    static BUILT: OnceLock<Mutex<Vec<String>>> = OnceLock::new();
    let built = BUILT.get_or_init(|| Mutex::new(Vec::new()));
    let mut built = built.lock().unwrap_or_else(|e| e.into_inner());
    let package = EXAMPLE_PACKAGES.contains(&name);
    let release = target_dir().join("release");
    let path = if package { release.join(name) } else { release.join("examples").join(name) };
    if !built.iter().any(|b| b == name) {
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let target = if package { ["-p", name, "--bin", name] } else { ["-p", "examples", "--example", name] };
        let output = Command::new(cargo)
            .current_dir(workspace_root())
            .args(["build", "--quiet", "--release"])
            .args(target)
            .output()
            .expect("cargo runs");
        assert!(
            output.status.success(),
            "building example `{name}` failed:\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
        built.push(name.to_owned());
    }
    path
}

/// The most memory the process `pid` has held (`VmHWM` in `/proc/PID/status`), in kB.
///
/// # Panics
///
/// Without `/proc` (the tests need Linux).
#[must_use]
pub fn peak_rss_kb(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("/proc/PID/status");
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches(" kB").parse().ok())
        .expect("VmHWM in /proc")
}

/// Builds the `mcp` command (`mcp-cli`, debug profile; once per test process) and returns
/// its path.
///
/// Panics with cargo's output when the build fails.
pub fn mcp_binary() -> PathBuf {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT
        .get_or_init(|| {
            let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
            let output = Command::new(cargo)
                .current_dir(workspace_root())
                .args(["build", "--quiet", "-p", "mcp-cli", "--bins"])
                .output()
                .expect("cargo runs");
            assert!(output.status.success(), "building `mcp` failed:\n{}", String::from_utf8_lossy(&output.stderr));
            target_dir().join("debug").join("mcp")
        })
        .clone()
}
