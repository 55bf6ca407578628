//! Back-pressure: a client that stops reading stalls the server's reading, not its memory.

use std::io::{BufRead, BufReader, Write};
use std::time::Duration;

use serde_json::json;

use crate::common::{exit_within, raw_manual};

/// A client that writes and does not read stalls the server's reading instead of growing
/// its memory; once it reads, every request is answered.
#[test]
fn memory_stays_bounded_while_the_client_does_not_read() {
    const CALLS: usize = 20_000;
    let mut child = raw_manual(&[]);
    let pid = child.id();
    let mut stdin = child.stdin.take().unwrap();
    let text = "z".repeat(4096);
    let writer = std::thread::spawn(move || {
        for id in 1..=CALLS {
            let call = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                "params": {"name": "echo", "arguments": {"text": text}}});
            writeln!(stdin, "{call}").unwrap();
        }
    });
    std::thread::sleep(Duration::from_secs(2));
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let peak_kb: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches(" kB").parse().ok())
        .expect("VmHWM in /proc");
    // 20,000 answers of 4 KiB are 80 MiB: kept in memory, they would show here.
    assert!(peak_kb < 40 * 1024, "peak RSS {peak_kb} kB while nothing was read");
    assert!(!writer.is_finished(), "the server stopped reading, so the writer waits");
    let mut reader = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    for _ in 0..CALLS {
        line.clear();
        reader.read_line(&mut line).unwrap();
        assert!(line.contains("\"result\""), "{line}");
    }
    writer.join().unwrap();
    drop(child.stdin.take());
    let (status, _) = exit_within(&mut child, Duration::from_secs(5));
    assert!(status.success());
}
