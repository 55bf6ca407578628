//! A server run as a child process: newline-delimited JSON-RPC over its stdin and stdout, its
//! stderr passed through (or kept quiet) with its last lines kept for the error that reports
//! its exit.

use std::collections::VecDeque;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, BufWriter};
use tokio::process::{Child, Command};
use tokio::sync::{mpsc, oneshot};

use crate::client::connection::{Connection, Link, Outbox};
use crate::client::error::ClientError;
use crate::client::handlers::Handlers;
use crate::transport::connection::{Frame, MessageSource};
use crate::transport::lines::LineReader;
use crate::util::lock;

/// How many lines of the server's stderr are kept for the error that reports its exit.
const STDERR_LINES: usize = 20;

/// The longest message read from the server's stdout.
const MAX_MESSAGE: usize = 64 * 1024 * 1024;

/// How long a closed server may take to exit before it is killed.
const EXIT_GRACE: Duration = Duration::from_secs(5);

/// What happens to the server's stderr.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Stderr {
    /// Each line is written to this process's stderr (and the last ones kept).
    #[default]
    PassThrough,
    /// Only the last lines are kept, for the error that reports the server's exit.
    Capture,
}

/// The running child: what closing the client waits for.
#[derive(Debug)]
pub(crate) struct Process {
    /// Told when the client closes: the writer closes stdin, then the exit is awaited.
    exited: Option<oneshot::Receiver<String>>,
}

impl Process {
    /// Waits for the server to exit after its stdin closed (killing it after a grace period):
    /// how it exited.
    pub(crate) async fn wait(&mut self) -> Option<String> {
        match self.exited.take() {
            Some(exited) => exited.await.ok(),
            None => None,
        }
    }
}

/// Spawns `command` and connects to it.
pub(crate) fn connect(
    mut command: Command,
    handlers: Handlers,
    stderr_mode: Stderr,
) -> Result<(Arc<Connection>, Process), ClientError> {
    let program = command.as_std().get_program().to_string_lossy().into_owned();
    command.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).kill_on_drop(true);
    let mut child =
        command.spawn().map_err(|e| ClientError::Transport(format!("cannot run the server `{program}`: {e}")))?;
    let (Some(stdin), Some(stdout), Some(stderr)) = (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        return Err(ClientError::Transport(format!("cannot reach the pipes of `{program}`")));
    };
    let (to_server, mut outgoing) = mpsc::channel::<Vec<u8>>(64);
    let connection = Connection::new(Link::Messages(Outbox::new(to_server)), handlers);
    let tail: Arc<Mutex<VecDeque<String>>> = Arc::default();

    tokio::spawn(async move {
        let mut stdin = BufWriter::new(stdin);
        while let Some(line) = outgoing.recv().await {
            let written = async {
                stdin.write_all(&line).await?;
                stdin.write_all(b"\n").await?;
                // Messages queued together go out in one write.
                if outgoing.is_empty() { stdin.flush().await } else { Ok(()) }
            };
            if written.await.is_err() {
                return;
            }
        }
        // The client closed: the server's stdin ends, which tells it to exit.
        let _ = stdin.shutdown().await;
    });

    let stderr_tail = Arc::clone(&tail);
    let stderr_read = tokio::spawn(async move {
        let mut lines = BufReader::new(stderr).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            if stderr_mode == Stderr::PassThrough {
                eprintln!("{line}");
            }
            let mut tail = lock(&stderr_tail);
            if tail.len() == STDERR_LINES {
                tail.pop_front();
            }
            tail.push_back(line);
        }
    });

    let (exit_told, exited) = oneshot::channel();
    let reader = Arc::downgrade(&connection);
    tokio::spawn(async move {
        let mut messages = LineReader::new(BufReader::new(stdout), MAX_MESSAGE);
        loop {
            match messages.next().await {
                Ok(Frame::Message(bytes)) => {
                    let Some(connection) = reader.upgrade() else { break };
                    match std::str::from_utf8(&bytes) {
                        Ok(text) if !text.trim().is_empty() => connection.receive(text),
                        Ok(_) => {}
                        Err(_) => tracing::warn!("the server wrote a line that is not UTF-8 to stdout"),
                    }
                }
                Ok(Frame::TooLarge) => {
                    tracing::warn!("the server wrote a line over {MAX_MESSAGE} bytes to stdout: skipped");
                }
                Ok(_) | Err(_) => break,
            }
        }
        let status = exit_of(&mut child).await;
        // Its last words on stderr may still be on their way.
        let _ = tokio::time::timeout(Duration::from_millis(500), stderr_read).await;
        let tail: Vec<String> = lock(&tail).iter().cloned().collect();
        let why = if tail.is_empty() {
            format!("the server {status}")
        } else {
            format!("the server {status}; its last lines on stderr:\n{}", tail.join("\n"))
        };
        if let Some(connection) = reader.upgrade() {
            connection.end(why.clone());
        }
        let _ = exit_told.send(why);
    });
    Ok((connection, Process { exited: Some(exited) }))
}

/// Waits for the child to exit (it closed its stdout), killing it after a grace period: how
/// it exited, as a phrase.
async fn exit_of(child: &mut Child) -> String {
    match tokio::time::timeout(EXIT_GRACE, child.wait()).await {
        Ok(Ok(status)) => match status.code() {
            Some(0) => "exited (status 0)".to_owned(),
            Some(code) => format!("exited with status {code}"),
            None => format!("was stopped by a signal ({status})"),
        },
        Ok(Err(e)) => format!("closed its output (its exit could not be read: {e})"),
        Err(_) => {
            let _ = child.kill().await;
            format!("closed its output and did not exit within {} s: killed", EXIT_GRACE.as_secs())
        }
    }
}
