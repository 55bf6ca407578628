//! One server process over stdio: JSON lines out and in, and what Linux says of its CPU time
//! and memory.

use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::OnceLock;

use serde_json::{Value, json};

/// The revision every server is asked for.
pub const REVISION: &str = "2025-11-25";

/// A running server.
pub struct Server {
    child: Child,
    pub input: BufWriter<ChildStdin>,
    pub output: BufReader<ChildStdout>,
}

impl Server {
    /// Starts `program args...` with piped stdio (stderr discarded), on the CPU of
    /// [`server_cpu`].
    pub fn spawn(program: &Path, args: &[&str]) -> Server {
        let mut command = pinned(program);
        let mut child = command
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", program.display()));
        let input = BufWriter::new(child.stdin.take().expect("piped stdin"));
        let output = BufReader::new(child.stdout.take().expect("piped stdout"));
        Server { child, input, output }
    }

    /// Writes one message and flushes.
    pub fn send(&mut self, message: &str) {
        self.input.write_all(message.as_bytes()).expect("the server reads");
        self.input.write_all(b"\n").expect("the server reads");
        self.input.flush().expect("the server reads");
    }

    /// The next response (lines without an `id`, notifications, are skipped).
    pub fn receive(&mut self) -> Value {
        receive_from(&mut self.output)
    }

    /// `initialize`, its result, `notifications/initialized`.
    pub fn handshake(&mut self) {
        self.send(&initialize());
        let answer = self.receive();
        assert!(answer["result"]["capabilities"]["tools"].is_object(), "initialize: {answer}");
        self.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    }

    /// CPU time of every thread so far, in nanoseconds (`/proc/<pid>/task/*/schedstat`).
    pub fn cpu_ns(&self) -> u64 {
        cpu_ns_of(self.child.id())
    }

    /// Peak resident memory so far, in kilobytes (`VmHWM`).
    pub fn peak_rss_kb(&self) -> u64 {
        status_kb(self.child.id(), "VmHWM")
    }

    /// Closes its input and waits for it to exit.
    pub fn finish(self) {
        let Server { mut child, input, output } = self;
        drop(input);
        drop(output);
        let _ = child.wait();
    }
}

/// The CPU every stdio server runs on: the last one, when there are two or more and
/// `taskset` is there (the driver, not pinned, runs on the others). Where the scheduler puts
/// a server beside its client decides what a wake-up costs (one CPU switching tasks, or one
/// CPU waking another), and it chose differently from run to run, and from one server to the
/// next: pinned, every server is measured the same way, its client always on another CPU.
pub fn server_cpu() -> Option<usize> {
    static CPU: OnceLock<Option<usize>> = OnceLock::new();
    *CPU.get_or_init(|| {
        let cpus = std::thread::available_parallelism().map_or(1, usize::from);
        let taskset = Command::new("taskset").arg("-V").output().is_ok_and(|out| out.status.success());
        (cpus >= 2 && taskset).then_some(cpus - 1)
    })
}

/// A command that runs `program` on [`server_cpu`], when there is one.
fn pinned(program: &Path) -> Command {
    match server_cpu() {
        Some(cpu) => {
            let mut command = Command::new("taskset");
            command.arg("-c").arg(cpu.to_string()).arg(program);
            command
        }
        None => Command::new(program),
    }
}

/// A memory figure of process `pid`, in kilobytes: `field` (`VmRSS`, `VmHWM`) of
/// `/proc/<pid>/status`.
pub fn status_kb(pid: u32, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("procfs");
    status
        .lines()
        .find_map(|line| line.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|value| value.split_whitespace().next())
        .and_then(|kb| kb.parse().ok())
        .unwrap_or_else(|| panic!("{field} in /proc/{pid}/status"))
}

/// The next response on a server's output (lines without an `id`, notifications, skipped).
pub fn receive_from(output: &mut BufReader<ChildStdout>) -> Value {
    let mut line = String::new();
    loop {
        line.clear();
        let read = output.read_line(&mut line).expect("the server writes");
        assert!(read > 0, "the server closed its output");
        let message: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"));
        if message.get("id").is_some() {
            return message;
        }
    }
}

/// The `initialize` request.
pub fn initialize() -> String {
    json!({
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {"protocolVersion": REVISION, "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}},
    })
    .to_string()
}

/// A `tools/call` of `tool` with `a = n`, `b = 2`, as request `id` `n`.
pub fn call(tool: &str, n: u32) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{n},"method":"tools/call","params":{{"name":"{tool}","arguments":{{"a":{n},"b":2}}}}}}"#
    )
}

/// Checks a `tools/call` answer to [`call`] `n`.
pub fn check_sum(answer: &Value, n: u32) {
    assert_eq!(answer["id"], n, "{answer}");
    let text = answer["result"]["content"][0]["text"].as_str();
    assert_eq!(text, Some((u64::from(n) + 2).to_string().as_str()), "{answer}");
}

/// The CPU time process `pid`'s threads have run so far, in nanoseconds (`schedstat`).
pub fn cpu_ns_of(pid: u32) -> u64 {
    let tasks = std::fs::read_dir(format!("/proc/{pid}/task")).expect("procfs");
    tasks
        .filter_map(Result::ok)
        .filter_map(|task| std::fs::read_to_string(task.path().join("schedstat")).ok())
        .filter_map(|stat| stat.split_whitespace().next().and_then(|ns| ns.parse::<u64>().ok()))
        .sum()
}
