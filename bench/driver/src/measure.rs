//! The measurements of one round against one server.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use crate::Plan;
use crate::process::{Server, call, check_sum, initialize, receive_from};

/// The servers measured, in the table's order: ours, rmcp's, the raw loop, the raw loop on
/// Tokio.
pub const SERVERS: usize = 4;

/// A server binary and its name in the table.
pub struct Target {
    pub label: &'static str,
    pub program: PathBuf,
    /// Whether it serves `sum` alone whatever it is told (the raw loops): the many-tools rows
    /// do not apply to it.
    pub one_tool: bool,
}

impl Target {
    /// A framework's server, which registers the tools it is told to.
    pub fn framework(label: &'static str, program: PathBuf) -> Target {
        Target { label, program, one_tool: false }
    }

    /// A loop that answers `sum` alone.
    pub fn one_tool(label: &'static str, program: PathBuf) -> Target {
        Target { label, program, one_tool: true }
    }
}

/// What one round measured of one server; `None` where a row does not apply.
#[derive(Clone, Copy, Default)]
pub struct Measures {
    pub spawn_ms: Option<f64>,
    pub sequential_per_s: Option<f64>,
    pub cpu_us_per_request: Option<f64>,
    pub p50_us: Option<f64>,
    pub p99_us: Option<f64>,
    pub pipelined_per_s: Option<f64>,
    pub pipelined_rss_mb: Option<f64>,
    pub many_tools_call_per_s: Option<f64>,
    pub many_tools_list_per_s: Option<f64>,
    /// One at a time through one layer that does nothing (ours: `--noop-layer`).
    pub noop_layer_per_s: Option<f64>,
    pub noop_layer_cpu_us: Option<f64>,
}

/// How many tools the many-tools rows register.
pub const MANY_TOOLS: usize = 200;

/// Every stdio measurement of `target` but the one-at-a-time rows ([`one_at_a_time`] takes
/// every server at once).
pub fn all(target: &Target, plan: &Plan) -> Measures {
    let mut measures = Measures { spawn_ms: Some(spawn_to_initialize(target, plan.spawns)), ..Measures::default() };
    pipelined(target, plan.calls, &mut measures);
    if !target.one_tool {
        many_tools(target, plan.calls, &mut measures);
    }
    measures
}

/// Median milliseconds from spawning the process to reading its `initialize` result.
fn spawn_to_initialize(target: &Target, spawns: usize) -> f64 {
    let mut times: Vec<f64> = (0..spawns)
        .map(|_| {
            let start = Instant::now();
            let mut server = Server::spawn(&target.program, &[]);
            server.send(&initialize());
            let answer = server.receive();
            let elapsed = start.elapsed();
            assert!(answer.get("result").is_some(), "{}: {answer}", target.label);
            server.finish();
            elapsed.as_secs_f64() * 1e3
        })
        .collect();
    median(&mut times)
}

/// Calls sent one at a time (each once the previous answer is in), to every server in turn,
/// [`CHUNK`] calls each, until each had `calls`: a change in the machine's load (these
/// machines are shared) falls on all of them alike, which measuring one server after the other
/// did not ensure; the order of the turns rotates. The frameworks take part twice: with `sum` alone, and with [`MANY_TOOLS`]
/// tools, called in turn. Per server: throughput (its calls over the time spent on them); with
/// one tool, its CPU time per call and the latency percentiles too.
pub fn one_at_a_time(targets: &[Target], calls: u32, measures: &mut [Measures]) {
    let tools = MANY_TOOLS.to_string();
    let one_tool = targets.iter().enumerate().map(|(index, target)| (index, target, Kind::OneTool));
    let frameworks = targets.iter().enumerate().filter(|(_, target)| !target.one_tool);
    let many = frameworks.clone().map(|(i, t)| (i, t, Kind::ManyTools));
    // Ours (the first column) once more, through one layer that does nothing.
    let layered = frameworks.take(1).map(|(i, t)| (i, t, Kind::NoopLayer));
    let mut driven: Vec<Driven> = one_tool
        .chain(many)
        .chain(layered)
        .map(|(index, target, kind)| {
            let args: &[&str] = match kind {
                Kind::OneTool => &[],
                Kind::ManyTools => &["--tools", &tools],
                Kind::NoopLayer => &["--noop-layer"],
            };
            let mut server = Server::spawn(&target.program, args);
            server.handshake();
            warm_up(&mut server, "sum");
            let cpu_before = server.cpu_ns();
            Driven { index, kind, server, cpu_before, spent: Duration::ZERO, latencies: Vec::new() }
        })
        .collect();
    let mut sent = 0;
    while sent < calls {
        let chunk = (sent + 1)..=(sent + CHUNK).min(calls);
        // Each turn starts with the next server: who goes after whom changes, so that what a
        // server leaves behind (threads still winding down) falls on every other alike.
        driven.rotate_left(1);
        for driven in &mut driven {
            let start = Instant::now();
            for n in chunk.clone() {
                let tool = match driven.kind {
                    Kind::ManyTools => format!("extra_{}", 1 + n as usize % (MANY_TOOLS - 1)),
                    Kind::OneTool | Kind::NoopLayer => "sum".into(),
                };
                let asked = Instant::now();
                driven.server.send(&call(&tool, n));
                let answer = driven.server.receive();
                driven.latencies.push(asked.elapsed());
                check_sum(&answer, n);
            }
            driven.spent += start.elapsed();
        }
        sent = *chunk.end();
    }
    for Driven { index, kind, server, cpu_before, spent, mut latencies } in driven {
        let cpu = server.cpu_ns() - cpu_before;
        server.finish();
        let measures = &mut measures[index];
        let per_s = Some(f64::from(calls) / spent.as_secs_f64());
        let cpu_us = Some(cpu as f64 / 1e3 / f64::from(calls));
        match kind {
            Kind::ManyTools => {
                measures.many_tools_call_per_s = per_s;
                continue;
            }
            Kind::NoopLayer => {
                (measures.noop_layer_per_s, measures.noop_layer_cpu_us) = (per_s, cpu_us);
                continue;
            }
            Kind::OneTool => {}
        }
        latencies.sort();
        measures.sequential_per_s = per_s;
        measures.cpu_us_per_request = cpu_us;
        measures.p50_us = Some(micros(latencies[latencies.len() / 2]));
        measures.p99_us = Some(micros(latencies[latencies.len() * 99 / 100]));
    }
}

/// One server of the one-at-a-time pass, and what it measured so far.
struct Driven {
    /// Its target's place in the table.
    index: usize,
    kind: Kind,
    server: Server,
    cpu_before: u64,
    spent: Duration,
    latencies: Vec<Duration>,
}

/// What a server of the one-at-a-time pass serves.
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    /// `sum` alone.
    OneTool,
    /// [`MANY_TOOLS`] tools, which it is called in turn.
    ManyTools,
    /// `sum` through one layer that does nothing.
    NoopLayer,
}

/// Calls one server gets in a row before the next server's turn, one at a time: about a tenth
/// of a second.
const CHUNK: u32 = 1_000;

/// `calls` calls written as fast as the pipe takes them while the answers are read: throughput
/// and the server's peak memory.
fn pipelined(target: &Target, calls: u32, measures: &mut Measures) {
    let mut server = Server::spawn(&target.program, &[]);
    server.handshake();
    warm_up(&mut server, "sum");
    let requests: String = (1..=calls).map(|n| call("sum", n) + "\n").collect();
    let start = Instant::now();
    std::thread::scope(|scope| {
        let Server { input, output, .. } = &mut server;
        let writer = scope.spawn(|| {
            input.write_all(requests.as_bytes()).expect("the server reads");
            input.flush().expect("the server reads");
        });
        let mut seen = vec![false; calls as usize + 1];
        for _ in 0..calls {
            let answer = receive_from(output);
            let n = answer["id"].as_u64().expect("a numeric id") as u32;
            check_sum(&answer, n);
            assert!(!std::mem::replace(&mut seen[n as usize], true), "answered twice: {answer}");
        }
        writer.join().expect("the writer finishes");
    });
    let elapsed = start.elapsed();
    measures.pipelined_rss_mb = Some(server.peak_rss_kb() as f64 / 1024.0);
    server.finish();
    measures.pipelined_per_s = Some(f64::from(calls) / elapsed.as_secs_f64());
}

/// With [`MANY_TOOLS`] tools registered: `tools/list` one at a time (the calls are in
/// [`one_at_a_time`]).
fn many_tools(target: &Target, calls: u32, measures: &mut Measures) {
    let tools = MANY_TOOLS.to_string();
    let mut server = Server::spawn(&target.program, &["--tools", &tools]);
    server.handshake();
    warm_up(&mut server, "sum");
    let lists = (calls / 10).max(1);
    let start = Instant::now();
    for n in 1..=lists {
        server.send(&format!(r#"{{"jsonrpc":"2.0","id":{n},"method":"tools/list"}}"#));
        let answer = server.receive();
        let listed = answer["result"]["tools"].as_array().map_or(0, Vec::len);
        // A page may hold fewer than all: the first page must be full or hold them all.
        assert!(listed > 0, "{}: tools/list: {answer}", target.label);
    }
    measures.many_tools_list_per_s = Some(f64::from(lists) / start.elapsed().as_secs_f64());
    server.finish();
}

/// A few calls first, so that no row pays for first-use costs.
fn warm_up(server: &mut Server, tool: &str) {
    for n in 1..=100 {
        server.send(&call(tool, n));
        check_sum(&server.receive(), n);
    }
}

/// The in-process round trip through the test client: median microseconds per call.
pub fn in_process(program: &Path, calls: u32, rounds: usize) -> f64 {
    timed_program(program, &[], calls, rounds)
}

/// The median, over `rounds` runs, of what `program args... calls` prints: its mean
/// microseconds per call.
pub fn timed_program(program: &Path, args: &[&str], calls: u32, rounds: usize) -> f64 {
    let name = program.display();
    let mut times: Vec<f64> = (0..rounds)
        .map(|_| {
            let output = Command::new(program).args(args).arg(calls.to_string()).output().expect("the program runs");
            assert!(output.status.success(), "{name} failed: {}", String::from_utf8_lossy(&output.stderr));
            String::from_utf8_lossy(&output.stdout).trim().parse().expect("it prints microseconds")
        })
        .collect();
    median(&mut times)
}

fn micros(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1e6
}

/// The median of `values` (sorted in place).
pub fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}
