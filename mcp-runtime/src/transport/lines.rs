//! Newline-delimited JSON-RPC over a byte stream.
//!
//! One reader task handles messages in arrival order (lifecycle first, see
//! [`Session`]); requests that need work run as their own tasks, at most `max_in_flight` at
//! once. When that many run, further requests wait in a short queue and reading goes on, so
//! notifications and responses keep flowing; once the queue is full, reading stops until a
//! request finishes (back-pressure on the client). One writer task batches the outgoing lines
//! and flushes when nothing else is ready.

use std::collections::VecDeque;
use std::io;
use std::sync::Arc;

use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, broadcast, mpsc};

use crate::dispatch::Outcome;
use crate::in_flight::InFlight;
use crate::protocol::{ErrorObject, RequestId, error_line};
use crate::server::ServerCore;
use crate::session::Session;
use crate::tool::BoxFuture;

/// Requests that may wait for a free slot while reading continues.
const PARKED_LIMIT: usize = 16;
/// Outgoing lines buffered before request tasks wait for the writer.
const OUTGOING_CAPACITY: usize = 1024;
/// Bytes gathered into one write before it is flushed.
const WRITE_BATCH: usize = 256 * 1024;

/// One line read from the stream.
#[derive(Debug, PartialEq, Eq)]
enum Line {
    /// A complete message (without its newline) is in the buffer.
    Message,
    /// A message over the size limit was skipped.
    TooLarge,
    /// The stream ended.
    Eof,
}

/// Reads newline-delimited messages up to a size limit, never buffering an oversized one.
///
/// Cancel-safe: all progress lives in `self`, so a `next_line` future dropped mid-line (in a
/// `select!`) loses nothing; the next call continues where it stopped.
struct LineReader<R> {
    reader: R,
    buf: Vec<u8>,
    max: usize,
    skipping: bool,
}

impl<R: AsyncBufRead + Unpin> LineReader<R> {
    fn new(reader: R, max: usize) -> Self {
        LineReader { reader, buf: Vec::new(), max, skipping: false }
    }

    async fn next_line(&mut self) -> io::Result<Line> {
        loop {
            let available = self.reader.fill_buf().await?;
            if available.is_empty() {
                if std::mem::take(&mut self.skipping) {
                    return Ok(Line::TooLarge);
                }
                // A last line without a newline still counts.
                return Ok(if self.buf.is_empty() { Line::Eof } else { Line::Message });
            }
            let (chunk, complete) = match available.iter().position(|&b| b == b'\n') {
                Some(i) => (&available[..i], Some(i + 1)),
                None => (available, None),
            };
            if !self.skipping {
                if self.buf.len() + chunk.len() > self.max {
                    self.skipping = true;
                    self.buf = Vec::new();
                } else {
                    self.buf.extend_from_slice(chunk);
                }
            }
            let consumed = complete.unwrap_or(chunk.len());
            self.reader.consume(consumed);
            if complete.is_some() {
                return Ok(if std::mem::take(&mut self.skipping) { Line::TooLarge } else { Line::Message });
            }
        }
    }

    /// The last message read, without trailing `\r`, and clears it for the next one.
    fn take(&mut self) -> Vec<u8> {
        if self.buf.last() == Some(&b'\r') {
            self.buf.pop();
        }
        std::mem::take(&mut self.buf)
    }
}

/// Serves one connection over a pair of byte streams until the input ends and every
/// response has been written.
pub(crate) async fn serve<R, W>(core: Arc<ServerCore>, reader: R, writer: W) -> io::Result<()>
where
    R: AsyncRead + Unpin + Send,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (tx, rx) = mpsc::channel::<String>(OUTGOING_CAPACITY);
    let writer_task = tokio::spawn(write_lines(writer, rx));
    let permits = Arc::new(Semaphore::new(core.config.max_in_flight));
    let max_message_size = core.config.max_message_size;
    let mut events = core.events.subscribe();
    let mut lines = LineReader::new(BufReader::with_capacity(64 * 1024, reader), max_message_size);
    let mut session = Session::new(core);
    let mut parked: VecDeque<Job> = VecDeque::new();
    let mut input_open = true;
    let mut read_error = None;

    loop {
        tokio::select! {
            biased;
            permit = Arc::clone(&permits).acquire_owned(), if !parked.is_empty() => {
                let (Ok(permit), Some(job)) = (permit, parked.pop_front()) else { break };
                run(session.in_flight(), job, permit, tx.clone());
            }
            event = events.recv(), if input_open => {
                match event {
                    Ok(event) => {
                        for line in session.on_event(&event) {
                            if tx.send(line).await.is_err() {
                                break;
                            }
                        }
                    }
                    Err(broadcast::error::RecvError::Lagged(missed)) => {
                        tracing::warn!(missed, "a slow connection missed list and resource change events");
                    }
                    // The server core, and with it the sender, outlives every connection.
                    Err(broadcast::error::RecvError::Closed) => {}
                }
            }
            line = lines.next_line(), if input_open && parked.len() < PARKED_LIMIT => {
                let outcome = match line {
                    Ok(Line::Message) => {
                        let bytes = lines.take();
                        match std::str::from_utf8(&bytes) {
                            Ok(text) if text.trim().is_empty() => Outcome::Silent,
                            Ok(text) => session.on_message(text),
                            Err(e) => Outcome::Reply(error_line(None, &ErrorObject::parse_error(e))),
                        }
                    }
                    Ok(Line::TooLarge) => Outcome::Reply(error_line(
                        None,
                        &ErrorObject::invalid_request(format!(
                            "Invalid request: the message exceeds the {max_message_size}-byte limit"
                        )),
                    )),
                    Ok(Line::Eof) => {
                        input_open = false;
                        Outcome::Silent
                    }
                    Err(e) => {
                        input_open = false;
                        read_error = Some(e);
                        Outcome::Silent
                    }
                };
                match outcome {
                    Outcome::Silent => {}
                    Outcome::Reply(line) => {
                        if tx.send(line).await.is_err() {
                            break;
                        }
                    }
                    Outcome::Deferred(id, future) => match Arc::clone(&permits).try_acquire_owned() {
                        Ok(permit) if parked.is_empty() => run(session.in_flight(), (id, future), permit, tx.clone()),
                        _ => {
                            if let Some(id) = &id {
                                session.in_flight().wait(id);
                            }
                            parked.push_back((id, future));
                        }
                    },
                }
            }
            else => break,
        }
    }
    for line in session.close() {
        let _ = tx.send(line).await;
    }
    drop(tx);
    let written = writer_task.await.unwrap_or_else(|e| Err(io::Error::other(e)));
    match read_error {
        Some(e) => Err(e),
        None => written,
    }
}

/// A request's work, waiting to run: its id (for cancellation) and its future.
type Job = (Option<RequestId>, BoxFuture<'static, Option<String>>);

/// Runs one request's work in its own task, holding an in-flight slot until it is done. A
/// request cancelled before it starts is dropped.
fn run(in_flight: &Arc<InFlight>, (id, job): Job, permit: OwnedSemaphorePermit, tx: mpsc::Sender<String>) {
    let registry = Arc::clone(in_flight);
    let task_id = id.clone();
    in_flight.start(id.as_ref(), async move {
        let line = job.await;
        if let Some(id) = &task_id {
            registry.finish(id);
        }
        drop(permit);
        if let Some(line) = line {
            // The writer is gone only when the output closed; nothing is left to tell.
            let _ = tx.send(line).await;
        }
    });
}

/// Writes outgoing lines, gathering whatever is ready into one write and flushing after it.
async fn write_lines<W: AsyncWrite + Unpin>(mut writer: W, mut rx: mpsc::Receiver<String>) -> io::Result<()> {
    let mut out = Vec::with_capacity(16 * 1024);
    while let Some(line) = rx.recv().await {
        out.extend_from_slice(line.as_bytes());
        out.push(b'\n');
        while out.len() < WRITE_BATCH {
            let Ok(line) = rx.try_recv() else { break };
            out.extend_from_slice(line.as_bytes());
            out.push(b'\n');
        }
        writer.write_all(&out).await?;
        writer.flush().await?;
        out.clear();
    }
    writer.shutdown().await.or_else(|e| if e.kind() == io::ErrorKind::BrokenPipe { Ok(()) } else { Err(e) })
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn read_all(input: &[u8], max: usize) -> Vec<(Line, Vec<u8>)> {
        let mut reader = LineReader::new(BufReader::with_capacity(4, input), max);
        let mut out = Vec::new();
        loop {
            let line = reader.next_line().await.unwrap();
            if line == Line::Eof {
                return out;
            }
            let bytes = reader.take();
            out.push((line, bytes));
        }
    }

    #[tokio::test]
    async fn oversized_lines_are_skipped_and_the_next_one_read() {
        let lines = read_all(b"short\r\nthis one is far too long\nok\nlast", 10).await;
        assert_eq!(
            lines,
            vec![
                (Line::Message, b"short".to_vec()),
                (Line::TooLarge, Vec::new()),
                (Line::Message, b"ok".to_vec()),
                (Line::Message, b"last".to_vec()),
            ]
        );
    }
}
