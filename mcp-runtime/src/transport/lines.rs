//! Newline-delimited JSON-RPC over byte streams: the splitter that frames lines under a size
//! limit, and serving one connection over any async reader and writer.

use std::future::Future;
use std::io;
use std::sync::Arc;

use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

use super::connection::{self, Frame, MessageSource, OUTGOING_CAPACITY};
use crate::server::core::ServerCore;

/// Bytes gathered into one write before it is flushed.
pub(crate) const WRITE_BATCH: usize = 256 * 1024;

/// Cuts a byte stream into lines, never buffering more than the size limit of one.
///
/// The limit counts the message without its line terminator (`\n` or `\r\n`). A longer line
/// is skipped as it streams past and reported as [`Frame::TooLarge`].
#[derive(Debug)]
pub(crate) struct Splitter {
    buf: Vec<u8>,
    max: usize,
    skipping: bool,
}

impl Splitter {
    pub(crate) fn new(max: usize) -> Self {
        Splitter { buf: Vec::new(), max, skipping: false }
    }

    /// Takes what it can of `available`: how many bytes it consumed, and the frame a line
    /// ending completed.
    pub(crate) fn feed(&mut self, available: &[u8]) -> (usize, Option<Frame>) {
        let (chunk, complete) = match memchr::memchr(b'\n', available) {
            Some(i) => (&available[..i], true),
            None => (available, false),
        };
        if !self.skipping {
            // One byte more than the limit may be the `\r` of a `\r\n` ending.
            if self.buf.len() + chunk.len() > self.max + 1 {
                self.skipping = true;
                self.buf = Vec::new();
            } else {
                self.buf.extend_from_slice(chunk);
            }
        }
        if complete { (chunk.len() + 1, Some(self.finish_line())) } else { (chunk.len(), None) }
    }

    /// The input ended: a last line without a newline still counts.
    pub(crate) fn end(&mut self) -> Frame {
        if self.skipping || !self.buf.is_empty() { self.finish_line() } else { Frame::End }
    }

    fn finish_line(&mut self) -> Frame {
        if std::mem::take(&mut self.skipping) {
            return Frame::TooLarge;
        }
        let mut line = std::mem::take(&mut self.buf);
        if line.last() == Some(&b'\r') {
            line.pop();
        }
        if line.len() > self.max { Frame::TooLarge } else { Frame::Message(line) }
    }
}

/// Lines read from an async reader. Cancel-safe: all progress lives in `self`.
#[derive(Debug)]
pub(crate) struct LineReader<R> {
    reader: R,
    splitter: Splitter,
}

impl<R: AsyncBufRead + Unpin + Send> LineReader<R> {
    pub(crate) fn new(reader: R, max: usize) -> Self {
        LineReader { reader, splitter: Splitter::new(max) }
    }
}

impl<R: AsyncBufRead + Unpin + Send> MessageSource for LineReader<R> {
    async fn next(&mut self) -> io::Result<Frame> {
        loop {
            let available = self.reader.fill_buf().await?;
            if available.is_empty() {
                return Ok(self.splitter.end());
            }
            let (consumed, frame) = self.splitter.feed(available);
            self.reader.consume(consumed);
            if let Some(frame) = frame {
                return Ok(frame);
            }
        }
    }
}

/// Serves one connection over a pair of async byte streams until the input ends (or
/// `shutdown` completes) and every response is written. `hung_up` completing says the
/// writer's reader went away: the connection then ends as when a write fails, without
/// waiting for something to write.
pub(crate) async fn serve<R, W>(
    core: Arc<ServerCore>,
    reader: R,
    writer: W,
    hung_up: impl Future<Output = ()> + Send + 'static,
    shutdown: impl Future<Output = ()> + Send,
) -> crate::error::Result<()>
where
    R: AsyncRead + Unpin + Send,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (tx, rx) = mpsc::channel::<Vec<u8>>(OUTGOING_CAPACITY);
    let writer_task = tokio::spawn(write_lines(writer, rx, hung_up));
    let input = LineReader::new(BufReader::with_capacity(64 * 1024, reader), core.config.max_message_size);
    let ending =
        connection::run(core, input, tx, shutdown, connection::LoopOptions::over(crate::middleware::Transport::Stdio))
            .await;
    // Every sender is gone once the loop returned: the writer flushes what is queued and ends.
    let written = writer_task.await.unwrap_or_else(|e| Err(io::Error::other(e)));
    ending.into_result(written)
}

/// Writes outgoing lines, gathering whatever is ready into one write and flushing after it;
/// stops with `BrokenPipe` when `hung_up` completes first.
async fn write_lines<W: AsyncWrite + Unpin>(
    mut writer: W,
    mut rx: mpsc::Receiver<Vec<u8>>,
    hung_up: impl Future<Output = ()>,
) -> io::Result<()> {
    let mut out = Vec::with_capacity(16 * 1024);
    let mut hung_up = std::pin::pin!(hung_up);
    loop {
        let line = tokio::select! {
            biased;
            line = rx.recv() => match line {
                Some(line) => line,
                None => break,
            },
            () = &mut hung_up => return Err(io::Error::from(io::ErrorKind::BrokenPipe)),
        };
        out.extend_from_slice(&line);
        while out.len() < WRITE_BATCH {
            let Ok(line) = rx.try_recv() else { break };
            out.extend_from_slice(&line);
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

    /// What each frame was: the message's text, or `None` for one too large.
    async fn read_all(input: &[u8], max: usize) -> Vec<Option<String>> {
        let mut reader = LineReader::new(BufReader::with_capacity(4, input), max);
        let mut out = Vec::new();
        loop {
            match reader.next().await.unwrap() {
                Frame::End => return out,
                Frame::Message(bytes) => out.push(Some(String::from_utf8(bytes).unwrap())),
                Frame::TooLarge => out.push(None),
                Frame::Routed(..) | Frame::Forwarded(..) => panic!("lines are never routed"),
            }
        }
    }

    fn message(text: &str) -> Option<String> {
        Some(text.to_owned())
    }

    #[tokio::test]
    async fn oversized_lines_are_skipped_and_the_next_one_read() {
        let frames = read_all(b"short\r\nthis one is far too long\nok\nlast", 10).await;
        assert_eq!(frames, vec![message("short"), None, message("ok"), message("last")]);
    }

    #[tokio::test]
    async fn the_limit_counts_the_message_without_its_line_ending() {
        let frames = read_all(b"0123456789\r\n0123456789\n0123456789a\r\n", 10).await;
        assert_eq!(frames, vec![message("0123456789"), message("0123456789"), None]);
    }
}
