//! One run of the server's binary: its stdin, and a task that turns its stdout into events
//! tagged with the run's generation (so that messages of a stopped run are told apart).

use std::collections::HashSet;
use std::path::Path;
use std::process::Stdio;

use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin};
use tokio::sync::mpsc;

use super::Event;

/// A running server.
#[derive(Debug)]
pub(crate) struct Server {
    pub(crate) generation: u64,
    process: Child,
    stdin: ChildStdin,
    /// The client's requests it has not answered yet (their ids, as JSON text).
    pub(crate) pending: HashSet<String>,
}

impl Server {
    /// Runs `binary` with `args`; its stderr is ours (the developer's terminal).
    pub(crate) fn start(
        binary: &Path,
        args: &[String],
        generation: u64,
        events: mpsc::UnboundedSender<Event>,
    ) -> Result<Server, String> {
        let mut process = tokio::process::Command::new(binary)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| format!("cannot run {}: {e}", binary.display()))?;
        let stdin = process.stdin.take().ok_or("no stdin")?;
        let stdout = process.stdout.take().ok_or("no stdout")?;
        tokio::spawn(async move {
            let mut lines = BufReader::new(stdout).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                let event = match serde_json::from_str::<Value>(&line) {
                    Ok(message @ Value::Object(_)) => Event::Server(generation, message),
                    _ if line.trim().is_empty() => continue,
                    _ => Event::ServerNoise(generation, line),
                };
                if events.send(event).is_err() {
                    return;
                }
            }
            let _ = events.send(Event::ServerClosed(generation));
        });
        Ok(Server { generation, process, stdin, pending: HashSet::new() })
    }

    /// Writes one message to the server.
    pub(crate) async fn send(&mut self, message: &Value) -> bool {
        let mut line = message.to_string();
        line.push('\n');
        self.stdin.write_all(line.as_bytes()).await.is_ok() && self.stdin.flush().await.is_ok()
    }

    /// Stops the server.
    pub(crate) async fn stop(mut self) {
        let _ = self.process.kill().await;
    }
}
