//! Standard input and output.
//!
//! When both are pipes (a client that spawned the server) and the server runs on the runtime
//! it built itself (`run`, `run_stdio`: one with its I/O driver), they are opened again through
//! `/proc/self/fd` as non-blocking pipes that the runtime polls: a request is read, served
//! and answered on one worker thread, with no hand-off between threads. The new open file
//! descriptions leave the inherited ones (and whoever shares them) blocking as they were.
//!
//! There, a client that stops reading is noticed at once, not at the next write: a second
//! handle on the output pipe is polled for the error the kernel reports once the pipe has no
//! reader, and the server stops as when a write fails.
//!
//! Otherwise (a terminal, a file, a socket; no `/proc`; or the application's own runtime,
//! which may lack an I/O driver), each has a thread of its own, as tokio's
//! `stdin()`/`stdout()` would hand every read and write to its blocking pool (a thread
//! hand-off per operation), and a third thread watches a piped output for its reader going
//! away. One named thread reads lines into a small bounded channel (when it
//! is full, the thread blocks, the pipe fills and the client waits) and one writes what the
//! connection queues, gathering what is ready into one write. Shutdown never joins the
//! reader: it may sit in `read` until the process ends.

use std::future::Future;
use std::io::{self, BufRead, Write};
use std::sync::Arc;

use tokio::sync::{mpsc, oneshot};

use super::connection::{self, Frame, MessageSource, OUTGOING_CAPACITY};
use super::lines::{Splitter, WRITE_BATCH};
use crate::server::core::ServerCore;

/// Batches of messages read ahead of the connection loop.
const READ_AHEAD: usize = 4;
/// Messages in one batch at most.
const BATCH_FRAMES: usize = 64;

/// One batch from the reader thread: every message its buffer held, then possibly the end
/// of input or a read error.
type Batch = Vec<io::Result<Frame>>;

/// Messages from the reader thread.
struct ThreadSource {
    batches: mpsc::Receiver<Batch>,
    current: std::vec::IntoIter<io::Result<Frame>>,
}

impl MessageSource for ThreadSource {
    async fn next(&mut self) -> io::Result<Frame> {
        loop {
            if let Some(frame) = self.current.next() {
                return frame;
            }
            // The thread is gone only after it sent the end or an error.
            let Some(batch) = self.batches.recv().await else { return Ok(Frame::End) };
            self.current = batch.into_iter();
        }
    }

    fn has_ready(&self) -> bool {
        self.current.len() > 0 || !self.batches.is_empty()
    }
}

/// Whether pipes may be polled: only on a runtime known to have its I/O driver (opening a
/// polled pipe elsewhere panics).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Pipes {
    /// The runtime has I/O enabled (one the server built itself).
    Polled,
    /// Always the reader and writer threads.
    Threads,
}

/// Serves one client on standard input and output (see the module documentation).
pub(crate) async fn serve(
    core: Arc<ServerCore>,
    shutdown: impl Future<Output = ()> + Send,
    pipes: Pipes,
) -> crate::error::Result<()> {
    #[cfg(target_os = "linux")]
    if pipes == Pipes::Polled
        && let Some((input, output)) = polled_pipes()
    {
        return super::lines::serve(core, input, output, output_hung_up(), shutdown).await;
    }
    #[cfg(not(target_os = "linux"))]
    let _ = pipes;
    serve_on_threads(core, shutdown).await
}

/// Standard input and output opened again as non-blocking pipes, when both are pipes.
#[cfg(target_os = "linux")]
fn polled_pipes() -> Option<(tokio::net::unix::pipe::Receiver, tokio::net::unix::pipe::Sender)> {
    use tokio::net::unix::pipe::OpenOptions;
    // Each fails unless the descriptor is a FIFO (tokio checks the file type).
    let input = OpenOptions::new().open_receiver("/proc/self/fd/0").ok()?;
    let output = OpenOptions::new().open_sender("/proc/self/fd/1").ok()?;
    Some((input, output))
}

/// Completes when the reader of standard output (a pipe) goes away. A write would fail then,
/// but an idle server writes nothing: a second handle on the pipe, polled for the error the
/// kernel reports once the pipe has no reader, notices within a poll (never, when the pipe
/// cannot be opened again).
#[cfg(target_os = "linux")]
async fn output_hung_up() {
    use tokio::io::Interest;
    use tokio::net::unix::pipe::OpenOptions;
    let Ok(watcher) = OpenOptions::new().open_sender("/proc/self/fd/1") else {
        return std::future::pending().await;
    };
    loop {
        match watcher.ready(Interest::ERROR).await {
            Ok(ready) if ready.is_error() => return,
            Ok(_) => continue,
            Err(_) => return std::future::pending().await,
        }
    }
}

/// Serves with a reader thread and a writer thread (see the module documentation).
async fn serve_on_threads(
    core: Arc<ServerCore>,
    shutdown: impl Future<Output = ()> + Send,
) -> crate::error::Result<()> {
    let (in_tx, in_rx) = mpsc::channel(READ_AHEAD);
    let max = core.config.max_message_size;
    std::thread::Builder::new().name("mcp-stdin".into()).spawn(move || read_stdin(max, &in_tx))?;
    let (out_tx, out_rx) = mpsc::channel::<Vec<u8>>(OUTGOING_CAPACITY);
    let (done_tx, done_rx) = oneshot::channel();
    std::thread::Builder::new().name("mcp-stdout".into()).spawn(move || {
        let _ = done_tx.send(write_stdout(out_rx));
    })?;
    #[cfg(target_os = "linux")]
    let _watching = watch_output(out_tx.downgrade());
    let input = ThreadSource { batches: in_rx, current: Vec::new().into_iter() };
    let ending = connection::run(
        core,
        input,
        out_tx,
        shutdown,
        connection::LoopOptions::over(crate::middleware::Transport::Stdio),
    )
    .await;
    let written = done_rx.await.unwrap_or_else(|_| Err(io::Error::other("the standard output thread failed")));
    ending.into_result(written)
}

/// Reads standard input, handing over at once every message one read brought (one channel
/// operation per read, not per message).
fn read_stdin(max: usize, tx: &mpsc::Sender<Batch>) {
    let mut input = io::BufReader::with_capacity(64 * 1024, io::stdin().lock());
    let mut splitter = Splitter::new(max);
    let mut batch = Vec::new();
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
        batch.push(frame);
        // Hand over before a read that may block, and at the end.
        let more_buffered = input.buffer().contains(&b'\n');
        if last || !more_buffered || batch.len() >= BATCH_FRAMES {
            // The loop is gone: nobody wants more input.
            if tx.blocking_send(std::mem::take(&mut batch)).is_err() || last {
                return;
            }
        }
    }
}

/// Watches standard output for its reader going away while the threads serve, so that an
/// idle server notices a client that closed it, as on a runtime with an I/O driver: a thread
/// of its own runs [`output_hung_up`] on a small runtime that has one, and then queues
/// [`HUNG_UP`] for the writer. It stops when what it returns is dropped (serving ended).
#[cfg(target_os = "linux")]
fn watch_output(output: mpsc::WeakSender<Vec<u8>>) -> Option<oneshot::Sender<()>> {
    let (stop, stopped) = oneshot::channel::<()>();
    let watching = move || {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_io().build().ok()?;
        let hung_up = runtime.block_on(async {
            tokio::select! {
                () = output_hung_up() => true,
                _ = stopped => false,
            }
        });
        if hung_up && let Some(output) = output.upgrade() {
            let _ = output.blocking_send(HUNG_UP);
        }
        Some(())
    };
    match std::thread::Builder::new().name("mcp-stdout-watch".into()).spawn(watching) {
        Ok(_) => Some(stop),
        Err(e) => {
            tracing::warn!(error = %e, "the standard output watch thread could not start: a closed output is noticed at the next write");
            None
        }
    }
}

/// What the watch queues for the writer when standard output has no reader any more: no line
/// the connection writes is empty.
const HUNG_UP: Vec<u8> = Vec::new();

/// Writes queued lines until the queue closes; on a write error (the reader of standard
/// output is gone, or the watch says so) it drops the queue at once, which the connection
/// sees.
fn write_stdout(mut rx: mpsc::Receiver<Vec<u8>>) -> io::Result<()> {
    // Standard output is line-buffered; this buffer turns what is ready into one write.
    let mut output = io::BufWriter::with_capacity(WRITE_BATCH, io::stdout().lock());
    while let Some(lines) = rx.blocking_recv() {
        if lines.is_empty() {
            return Err(io::Error::from(io::ErrorKind::BrokenPipe));
        }
        output.write_all(&lines)?;
        while let Ok(lines) = rx.try_recv() {
            if lines.is_empty() {
                return Err(io::Error::from(io::ErrorKind::BrokenPipe));
            }
            output.write_all(&lines)?;
        }
        output.flush()?;
    }
    Ok(())
}
