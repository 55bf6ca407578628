//! Builds the `sum` server on this framework, on rmcp and as a raw serde_json loop (blocking,
//! and on Tokio), drives each as a process over stdio, and prints one table of medians over
//! several rounds.
//!
//! `cargo run --release -p driver` (from `bench/`) runs the full benchmark; `--short` a quick
//! pass that checks every answer and asserts no timing (what CI runs); `--build-times` adds
//! clean release builds of both servers and of ours' dependencies alone (slow: a fresh target
//! directory each); `--stdio-only` and `--http-only` run a part.

mod auth;
mod http;
mod measure;
mod process;
mod table;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use measure::{Measures, Target};
use table::{Row, Table};

/// How much work one run does.
struct Plan {
    rounds: usize,
    calls: u32,
    spawns: usize,
    /// Idle HTTP sessions opened (the server's default limit is 10,000, warm-up included).
    sessions: usize,
    build_times: bool,
    /// Only the Streamable HTTP rows.
    http_only: bool,
    /// Only the stdio rows.
    stdio_only: bool,
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let short = args.iter().any(|a| a == "--short");
    let plan = Plan {
        rounds: if short { 1 } else { 5 },
        calls: if short { 2_000 } else { 20_000 },
        spawns: if short { 3 } else { 20 },
        sessions: if short { 500 } else { 10_000 },
        build_times: args.iter().any(|a| a == "--build-times"),
        http_only: args.iter().any(|a| a == "--http-only"),
        stdio_only: args.iter().any(|a| a == "--stdio-only"),
    };
    for arg in &args {
        if !matches!(arg.as_str(), "--short" | "--build-times" | "--http-only" | "--stdio-only") {
            eprintln!("usage: driver [--short] [--build-times] [--http-only | --stdio-only]\nunknown argument {arg}");
            std::process::exit(2);
        }
    }

    let bench = Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("bench/").to_path_buf();
    let release = build_all(&bench);
    // The authorization rows: not in the quick pass (their server is one more release build).
    let oauth_rows = !short && !plan.stdio_only;
    if oauth_rows {
        build(&bench, "sum-ours", &["--features", "oauth", "--bin", "sum-ours-oauth"]);
    }
    let targets = [
        Target::framework("ours", release.join("sum-ours")),
        Target::framework("rmcp 3.11", release.join("sum-rmcp")),
        Target::one_tool("raw loop", release.join("sum-raw")),
        Target::one_tool("raw loop on Tokio", release.join("sum-raw-async")),
    ];

    let mut table = Table::new(targets.each_ref().map(|target| target.label));
    if !plan.http_only {
        let mut rounds: Vec<[Measures; measure::SERVERS]> = Vec::new();
        for round in 1..=plan.rounds {
            eprintln!("round {round} of {}", plan.rounds);
            let mut round = targets.each_ref().map(|target| measure::all(target, &plan));
            measure::one_at_a_time(&targets, plan.calls, &mut round);
            rounds.push(round);
        }
        let inproc = measure::in_process(&release.join("inproc-ours"), plan.calls, plan.rounds);
        for row in Row::ALL {
            table.add(row, &rounds);
        }
        table.add_single("in-process round trip (`testing` client, one thread as in `#[tokio::test]`), µs", inproc);
        // The clients: each one's `tools/call` round trip, one thread, one call at a time,
        // against the same server (in process: ours, served over a pipe to rmcp's client).
        let ours_client = release.join("client-ours");
        let rmcp_client = release.join("client-rmcp");
        let server = release.join("sum-ours");
        let server = server.to_str().expect("a UTF-8 path");
        table.add_pair(
            "client round trip, in process (the same server), µs",
            (
                measure::timed_program(&ours_client, &["memory"], plan.calls, plan.rounds),
                measure::timed_program(&rmcp_client, &["memory"], plan.calls, plan.rounds),
            ),
        );
        table.add_pair(
            "client round trip over stdio (`sum-ours` spawned), µs",
            (
                measure::timed_program(&ours_client, &["stdio", server], plan.calls, plan.rounds),
                measure::timed_program(&rmcp_client, &["stdio", server], plan.calls, plan.rounds),
            ),
        );
        // The same calls through a proxy (`Server::proxy`, spawning `sum-ours` beside it): what
        // the proxy adds is this row less the one above.
        let proxy = release.join("sum-ours-proxy");
        let proxy = proxy.to_str().expect("a UTF-8 path");
        table.add_single(
            "client round trip over stdio through `Server::proxy` in front of `sum-ours`, µs",
            measure::timed_program(&ours_client, &["stdio", proxy], plan.calls, plan.rounds),
        );
    }
    if !plan.stdio_only {
        let programs = ["sum-ours-http", "sum-rmcp-http", "sum-raw-http"].map(|name| release.join(name));
        let [ours_http, rmcp_http, hyper] = http_rows(programs.each_ref().map(PathBuf::as_path), &plan);

        let clients = HTTP_CLIENTS;
        let floor = "the floor column: a bare hyper handler answering the same JSON";
        table.add_with_floor(
            &format!("Streamable HTTP, {clients} keep-alive clients, handshake era, req/s ({floor})"),
            (ours_http.handshake, rmcp_http.handshake, hyper.handshake),
        );
        table.add_with_floor(
            &format!("Streamable HTTP, handshake era, server CPU per request, µs ({floor})"),
            (ours_http.handshake_cpu_us, rmcp_http.handshake_cpu_us, hyper.handshake_cpu_us),
        );
        table.add_with_floor(
            &format!("Streamable HTTP, {clients} keep-alive clients, 2026-07-28, req/s ({floor})"),
            (ours_http.stateless, rmcp_http.stateless, hyper.stateless),
        );
        table.add_with_floor(
            &format!("Streamable HTTP, 2026-07-28, server CPU per request, µs ({floor})"),
            (ours_http.stateless_cpu_us, rmcp_http.stateless_cpu_us, hyper.stateless_cpu_us),
        );
        table.add_with_floor(
            &format!("Streamable HTTP, {clients} keep-alive clients, 2026-07-28, runtime on 1 worker, req/s"),
            (ours_http.stateless_one_worker, rmcp_http.stateless_one_worker, hyper.stateless_one_worker),
        );
        table.add_pair(
            &format!("{} idle handshake-era HTTP sessions, KB each", plan.sessions),
            (ours_http.idle_session_kb, rmcp_http.idle_session_kb),
        );
    }
    if oauth_rows {
        let [plain, verified] = auth_rows(&bench, &release.join("sum-ours-oauth"), &plan);
        let clients = HTTP_CLIENTS;
        table.add_single(
            &format!("Streamable HTTP, {clients} clients, 2026-07-28, the `oauth` build without authorization, req/s"),
            plain,
        );
        table.add_single(
            &format!(
                "Streamable HTTP, {clients} clients, 2026-07-28, the same JWT on every request (checked once, then remembered), req/s"
            ),
            verified,
        );
        // Both cores serve: the time a request costs more, on one core.
        let cores = std::thread::available_parallelism().map_or(1, usize::from) as f64;
        table.add_single(
            "the JWT check's cost per request, µs of CPU (from the two rows above)",
            (1.0 / verified - 1.0 / plain) * cores * 1e6,
        );
    }
    if plan.build_times {
        build_rows(&bench, &plan, &mut table);
    }
    println!("{}", machine());
    match process::server_cpu() {
        Some(cpu) => println!("stdio servers pinned to CPU {cpu}, the driver on the others"),
        None => println!("stdio servers not pinned (one CPU, or no `taskset`)"),
    }
    println!(
        "{} rounds, {} calls per row and round, {} spawns; medians; ratios are ours ÷ theirs\n",
        plan.rounds, plan.calls, plan.spawns
    );
    print!("{table}");
}

/// Concurrent HTTP clients in the HTTP rows.
const HTTP_CLIENTS: usize = 64;

/// The HTTP rows of each server: medians over the rounds of the concurrent rows in each era,
/// and the memory per idle session. The servers take turns within each round, so that a
/// change in the machine's load falls on both.
fn http_rows(programs: [&Path; 3], plan: &Plan) -> [HttpRow; 3] {
    let per_client = (plan.calls / HTTP_CLIENTS as u32).max(1);
    let mut measured: [[Vec<f64>; 5]; 3] = Default::default();
    for round in 1..=plan.rounds {
        eprintln!("HTTP round {round} of {}", plan.rounds);
        for (program, [handshake, stateless, one_worker, handshake_cpu, stateless_cpu]) in
            programs.iter().zip(&mut measured)
        {
            let server = http::HttpServer::start(program);
            let (rate, cpu) = http::concurrent_cpu(&server, http::Era::Handshake, HTTP_CLIENTS, per_client);
            handshake.push(rate);
            handshake_cpu.push(cpu);
            let (rate, cpu) = http::concurrent_cpu(&server, http::Era::Stateless, HTTP_CLIENTS, per_client);
            stateless.push(rate);
            stateless_cpu.push(cpu);
            drop(server);
            // The same 2026-07-28 load with the server's runtime on one worker: what serving
            // these requests in parallel gains.
            let server = http::HttpServer::start_on(program, Some(1));
            one_worker.push(http::concurrent(&server, http::Era::Stateless, HTTP_CLIENTS, per_client));
        }
    }
    let mut rows = [HttpRow::default(); 3];
    for (n, ((program, [handshake, stateless, one_worker, handshake_cpu, stateless_cpu]), row)) in
        programs.iter().zip(&mut measured).zip(&mut rows).enumerate()
    {
        // The bare handler keeps no sessions: no idle-session row for it.
        let idle_session_kb = match n {
            2 => 0.0,
            _ => http::idle_session_kb(&http::HttpServer::start(program), plan.sessions),
        };
        *row = HttpRow {
            handshake: measure::median(handshake),
            stateless: measure::median(stateless),
            stateless_one_worker: measure::median(one_worker),
            handshake_cpu_us: measure::median(handshake_cpu),
            stateless_cpu_us: measure::median(stateless_cpu),
            idle_session_kb,
        };
    }
    rows
}

/// The authorization rows: the `oauth` build of ours serving 2026-07-28 calls without
/// authorization, and as a protected resource of the driver's issuer with a valid JWT on every
/// request (the key set fetched once; the token checked once, then remembered), taking turns
/// within each round; medians.
fn auth_rows(bench: &Path, program: &Path, plan: &Plan) -> [f64; 2] {
    let per_client = (plan.calls / HTTP_CLIENTS as u32).max(1);
    let issuer = auth::Issuer::start(bench);
    let mut measured: [Vec<f64>; 2] = Default::default();
    for round in 1..=plan.rounds {
        eprintln!("authorization round {round} of {}", plan.rounds);
        let server = http::HttpServer::start(program);
        measured[0].push(http::concurrent(&server, http::Era::Stateless, HTTP_CLIENTS, per_client));
        drop(server);
        let server = http::HttpServer::start_with(program, None, &["--oauth-issuer", &issuer.url]);
        let authorization = format!("Bearer {}", issuer.token(&format!("http://{}/mcp", server.addr)));
        let verified =
            http::concurrent_as(&server, http::Era::Stateless, HTTP_CLIENTS, per_client, Some(&authorization));
        measured[1].push(verified);
    }
    measured.map(|mut values| measure::median(&mut values))
}

/// One server's HTTP rows.
#[derive(Debug, Default, Clone, Copy)]
struct HttpRow {
    handshake: f64,
    stateless: f64,
    stateless_one_worker: f64,
    handshake_cpu_us: f64,
    stateless_cpu_us: f64,
    idle_session_kb: f64,
}

/// Builds each server on its own (`-p`: features resolved per server, as in its own project)
/// and returns the release directory.
fn build_all(bench: &Path) -> PathBuf {
    for (package, extra) in [
        ("sum-raw", &[][..]),
        ("sum-rmcp", &[]),
        ("sum-ours", &[]),
        ("sum-ours", &["--features", "testing", "--bin", "inproc-ours"]),
        ("sum-ours", &["--features", "http", "--bin", "sum-ours-http"]),
        ("sum-rmcp", &["--features", "http", "--bin", "sum-rmcp-http"]),
        ("sum-raw", &["--features", "http", "--bin", "sum-raw-http"]),
        ("client-bench", &[]),
    ] {
        build(bench, package, extra);
    }
    target_dir(bench).join("release")
}

/// `cargo build --release -p package extra...`.
fn build(bench: &Path, package: &str, extra: &[&str]) {
    let status =
        cargo(bench).args(["build", "--release", "--quiet", "-p", package]).args(extra).status().expect("cargo runs");
    assert!(status.success(), "building {package} failed");
}

/// `cargo` in the bench workspace.
fn cargo(bench: &Path) -> Command {
    let mut command = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    command.current_dir(bench);
    command
}

fn target_dir(bench: &Path) -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| bench.join("target"), PathBuf::from)
}

/// The clean-build rows: ours, rmcp's, and the floor (ours' external dependencies alone,
/// `deps-floor`), taking turns within each round (at most three: each takes minutes), medians.
fn build_rows(bench: &Path, plan: &Plan, table: &mut Table) {
    let packages = ["sum-ours", "sum-rmcp", "deps-floor"];
    let mut seconds: [Vec<f64>; 3] = Default::default();
    let mut crates = [0; 3];
    let rounds = plan.rounds.min(3);
    for round in 1..=rounds {
        eprintln!("clean builds, round {round} of {rounds}");
        for ((package, times), count) in packages.iter().zip(&mut seconds).zip(&mut crates) {
            let (time, compiled) = clean_build(bench, package);
            times.push(time);
            *count = compiled;
        }
    }
    let [ours, rmcp, floor] = seconds.map(|mut times| measure::median(&mut times));
    table.add_pair("clean release build, s", (ours, rmcp));
    table.add_pair("clean release build, crates compiled", (crates[0] as f64, crates[1] as f64));
    table.add_pair("clean release build of ours' external dependencies alone (`deps-floor`), s", (floor, rmcp));
}

/// A clean release build of `package` in a fresh target directory, with Cargo's default
/// release profile (without the line tables this workspace adds for profilers): seconds and
/// crates compiled.
fn clean_build(bench: &Path, package: &str) -> (f64, usize) {
    let dir = std::env::temp_dir().join(format!("mcp-bench-build-{package}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let start = Instant::now();
    let output = cargo(bench)
        .args(["build", "--release", "-p", package, "--target-dir"])
        .arg(&dir)
        .env("CARGO_TERM_COLOR", "never")
        .env("CARGO_PROFILE_RELEASE_DEBUG", "false")
        .output()
        .expect("cargo runs");
    let seconds = start.elapsed().as_secs_f64();
    assert!(output.status.success(), "building {package} failed: {}", String::from_utf8_lossy(&output.stderr));
    let crates =
        String::from_utf8_lossy(&output.stderr).lines().filter(|l| l.trim_start().starts_with("Compiling")).count();
    let _ = std::fs::remove_dir_all(&dir);
    (seconds, crates)
}

/// The machine, for the table's heading: CPU model, cores, kernel.
fn machine() -> String {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let model = cpuinfo
        .lines()
        .find_map(|l| l.strip_prefix("model name").and_then(|rest| rest.split(':').nth(1)))
        .map_or("unknown CPU", str::trim)
        .to_owned();
    let cores = std::thread::available_parallelism().map_or(0, usize::from);
    let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default();
    format!("machine: {model}, {cores} cores, Linux {}", kernel.trim())
}
