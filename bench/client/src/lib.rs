//! What both client benchmarks share: the `sum` server served in process (this framework's,
//! the server the stdio rows spawn as `sum-ours`), the command line, and the measure.

use std::time::Instant;

use mcp_runtime::{Server, mcp_tool};

/// Adds two integers.
#[mcp_tool]
fn sum(a: i64, b: i64) -> String {
    (a + b).to_string()
}

/// The server both clients talk to in process.
pub fn server() -> Server {
    Server::new("sum-inproc", "0.0.0")
}

/// Where the client meets the server: `memory`, or `stdio PROGRAM` (spawned).
pub enum Target {
    Memory,
    Stdio(String),
}

/// `[memory | stdio PROGRAM] [CALLS]` from the command line.
pub fn arguments() -> (Target, u32) {
    let mut args = std::env::args().skip(1);
    let target = match args.next().as_deref() {
        Some("stdio") => Target::Stdio(args.next().expect("stdio PROGRAM")),
        _ => Target::Memory,
    };
    let calls = args.next().map_or(20_000, |n| n.parse().expect("a number of calls"));
    (target, calls)
}

/// Runs `call(n)` for each of `calls` calls, one at a time, and prints the mean microseconds
/// per call.
pub async fn measure<F, Fut>(calls: u32, mut call: F)
where
    F: FnMut(u32) -> Fut,
    Fut: std::future::Future<Output = String>,
{
    let start = Instant::now();
    for n in 0..calls {
        let text = call(n).await;
        assert_eq!(text, (i64::from(n) + 2).to_string(), "the sum of {n} and 2");
    }
    println!("{:.2}", start.elapsed().as_secs_f64() * 1e6 / f64::from(calls));
}
