//! Server-sent events as a client reads them: bytes in, events out, as the HTML standard's
//! event-stream interpretation has it (`data`, `id`, `retry`; lines ended by CR, LF or CRLF).
//! Public for tools that read a Streamable HTTP server's raw streams (the `mcp doctor`).
//!
//! ```
//! use mcp_runtime::client::SseReader;
//!
//! let mut reader = SseReader::default();
//! let mut events = Vec::new();
//! reader.feed(b"id: 7\ndata: {\"jsonrpc\":", |e| events.push(e.data));
//! reader.feed(b"\"2.0\"}\n\n", |e| events.push(e.data));
//! assert_eq!(events, [r#"{"jsonrpc":"2.0"}"#]);
//! assert_eq!(reader.last_id.as_deref(), Some("7"));
//! ```

/// One dispatched event.
#[derive(Debug, Default, PartialEq)]
pub struct Event {
    /// Its data lines, joined by newlines (empty for a priming event).
    pub data: String,
}

/// Cuts a byte stream into events, keeping the last event id and the reconnection delay.
#[derive(Debug, Default)]
pub struct SseReader {
    line: Vec<u8>,
    /// A CR ended the last line: a LF right after it ends nothing.
    after_cr: bool,
    data: String,
    has_data: bool,
    /// The id of the last event (`Last-Event-ID` when resuming).
    pub last_id: Option<String>,
    /// The reconnection delay the server asked for, in milliseconds.
    pub retry_ms: Option<u64>,
}

impl SseReader {
    /// A reader of a stream resumed after event `last_id`.
    pub fn resuming(last_id: Option<String>) -> SseReader {
        SseReader { last_id, ..SseReader::default() }
    }

    /// Reads `bytes`, handing each complete event to `dispatch`.
    pub fn feed(&mut self, bytes: &[u8], mut dispatch: impl FnMut(Event)) {
        for &byte in bytes {
            match byte {
                b'\n' if self.after_cr => self.after_cr = false,
                b'\n' | b'\r' => {
                    self.after_cr = byte == b'\r';
                    let line = std::mem::take(&mut self.line);
                    if let Some(event) = self.line_ended(&line) {
                        dispatch(event);
                    }
                }
                _ => {
                    self.after_cr = false;
                    self.line.push(byte);
                }
            }
        }
    }

    fn line_ended(&mut self, line: &[u8]) -> Option<Event> {
        if line.is_empty() {
            if !std::mem::take(&mut self.has_data) {
                return None;
            }
            let mut data = std::mem::take(&mut self.data);
            if data.ends_with('\n') {
                data.pop();
            }
            return Some(Event { data });
        }
        let line = String::from_utf8_lossy(line);
        let (field, value) = match line.find(':') {
            Some(0) => return None, // a comment
            Some(colon) => {
                let value = &line[colon + 1..];
                (&line[..colon], value.strip_prefix(' ').unwrap_or(value))
            }
            None => (&line[..], ""),
        };
        match field {
            "data" => {
                self.data.push_str(value);
                self.data.push('\n');
                self.has_data = true;
            }
            "id" if !value.contains('\0') => self.last_id = Some(value.to_owned()),
            "retry" => {
                if let Ok(ms) = value.parse() {
                    self.retry_ms = Some(ms);
                }
            }
            _ => {}
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn events(chunks: &[&[u8]]) -> (Vec<String>, SseReader) {
        let mut reader = SseReader::default();
        let mut out = Vec::new();
        for chunk in chunks {
            reader.feed(chunk, |event| out.push(event.data));
        }
        (out, reader)
    }

    #[test]
    fn events_split_anywhere_and_any_line_ending_read_the_same() {
        let (out, reader) =
            events(&[b"id: 7\r\nretry: 500\r", b"\ndata: {\"a\"", b":1}\n\n: comment\ndata:x\rdata: y\r\r"]);
        assert_eq!(out, ["{\"a\":1}", "x\ny"]);
        assert_eq!(reader.last_id.as_deref(), Some("7"));
        assert_eq!(reader.retry_ms, Some(500));
    }

    #[test]
    fn a_priming_event_keeps_its_id_and_dispatches_empty_data() {
        let (out, reader) = events(&[b"id: s1-0\nretry: 500\ndata: \n\n"]);
        assert_eq!(out, [""]);
        assert_eq!(reader.last_id.as_deref(), Some("s1-0"));
        // An event without data is not dispatched at all.
        let (out, _) = events(&[b"id: 9\n\n"]);
        assert!(out.is_empty());
    }
}
