//! Standard input and output, each on a thread of its own.
//!
//! tokio's `stdin()`/`stdout()` hand every read and write to its blocking pool (a thread
//! hand-off per operation). Here one named thread reads lines into a small bounded channel
//! (when it is full, the thread blocks, the pipe fills and the client waits) and one writes
//! what the connection queues, gathering what is ready into one write. Shutdown never joins
//! the reader: it may sit in `read` until the process ends.

use std::future::Future;
use std::io::{self, BufRead, Write};
use std::sync::Arc;

use tokio::sync::{mpsc, oneshot};

use super::connection::{self, Frame, Input, OUTGOING_CAPACITY};
use super::lines::{Splitter, WRITE_BATCH, finish};
use crate::server::ServerCore;

/// Messages read ahead of the connection loop.
const READ_AHEAD: usize = 16;

/// Messages from the reader thread.
struct ThreadInput(mpsc::Receiver<io::Result<Frame>>);

impl Input for ThreadInput {
    async fn next(&mut self) -> io::Result<Frame> {
        // The thread is gone only after it sent the end or an error.
        self.0.recv().await.unwrap_or(Ok(Frame::End))
    }
}

/// Serves one client on standard input and output (see the module documentation).
pub(crate) async fn serve(core: Arc<ServerCore>, shutdown: impl Future<Output = ()> + Send) -> crate::Result<()> {
    let (in_tx, in_rx) = mpsc::channel(READ_AHEAD);
    let max = core.config.max_message_size;
    std::thread::Builder::new().name("mcp-stdin".into()).spawn(move || read_stdin(max, &in_tx))?;
    let (out_tx, out_rx) = mpsc::channel::<Vec<u8>>(OUTGOING_CAPACITY);
    let (done_tx, done_rx) = oneshot::channel();
    std::thread::Builder::new().name("mcp-stdout".into()).spawn(move || {
        let _ = done_tx.send(write_stdout(out_rx));
    })?;
    let ending = connection::run(core, ThreadInput(in_rx), out_tx, shutdown).await;
    let written = done_rx.await.unwrap_or_else(|_| Err(io::Error::other("the standard output thread failed")));
    finish(ending, written)
}

fn read_stdin(max: usize, tx: &mpsc::Sender<io::Result<Frame>>) {
    let mut input = io::stdin().lock();
    let mut splitter = Splitter::new(max);
    loop {
        let frame = match input.fill_buf() {
            Ok([]) => Ok(splitter.end()),
            Ok(available) => {
                let (consumed, frame) = splitter.feed(available);
                input.consume(consumed);
                match frame {
                    Some(frame) => Ok(frame),
                    None => continue,
                }
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => Err(e),
        };
        let last = matches!(frame, Ok(Frame::End) | Err(_));
        // The loop is gone: nobody wants more input.
        if tx.blocking_send(frame).is_err() || last {
            return;
        }
    }
}

/// Writes queued lines until the queue closes; on a write error (the reader of standard
/// output is gone) it drops the queue at once, which the connection sees.
fn write_stdout(mut rx: mpsc::Receiver<Vec<u8>>) -> io::Result<()> {
    let mut output = io::stdout().lock();
    while let Some(mut batch) = rx.blocking_recv() {
        while batch.len() < WRITE_BATCH {
            let Ok(line) = rx.try_recv() else { break };
            batch.extend_from_slice(&line);
        }
        output.write_all(&batch)?;
        output.flush()?;
    }
    Ok(())
}
