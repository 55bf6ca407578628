//! Back-pressure: a client that stops reading stalls the server's reading, not its memory.

use std::io::{BufRead, BufReader, Write};
use std::time::Duration;

use serde_json::json;

use crate::common::{exit_within, raw_manual};

/// A client that writes and does not read stalls the server's reading instead of growing
/// its memory; once it reads, every request is answered. The README's figure, as stated:
/// 1,000,000 requests written with nothing read, under 5 MB.
#[test]
fn memory_stays_bounded_while_the_client_does_not_read() {
    const CALLS: usize = 1_000_000;
    let mut child = raw_manual(&[]);
    let pid = child.id();
    let idle_kb = mcp_tests::peak_rss_kb(pid);
    let mut stdin = std::io::BufWriter::new(child.stdin.take().unwrap());
    let text = "z".repeat(64);
    let writer = std::thread::spawn(move || {
        for id in 1..=CALLS {
            let call = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                "params": {"name": "echo", "arguments": {"text": text}}});
            writeln!(stdin, "{call}").unwrap();
        }
        stdin.flush().unwrap();
    });
    std::thread::sleep(Duration::from_secs(2));
    let peak_kb = mcp_tests::peak_rss_kb(pid);
    // 1,000,000 answers of over 100 bytes are over 100 MB: kept in memory, they would show here.
    // The README's figure: the peak grows by under 2 MB over the idle server's (0.85 MB measured).
    eprintln!("peak RSS: {idle_kb} kB idle, {peak_kb} kB while nothing was read");
    assert!(
        peak_kb < idle_kb + 2 * 1024,
        "peak RSS {peak_kb} kB while nothing was read, {idle_kb} kB idle: the README says it grows by under 2 MB"
    );
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
