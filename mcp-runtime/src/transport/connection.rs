//! One connection's loop, whatever carries its messages: read, hand each message to the
//! [`Session`], queue what comes back, and end cleanly.
//!
//! The loop reads only while the executor's look-ahead has room, so a client that stops
//! reading its output (the queue fills, slots stay taken, requests park) stops being read:
//! memory stays bounded. Responses, notifications, cancellations and `ping` read before the
//! look-ahead fills are always handled.
//!
//! It ends in one of three ways:
//! - the input ends: no new work; every started request finishes and is answered;
//! - the shutdown signal: the same, within the drain deadline; what is still running then is
//!   aborted;
//! - the output is gone: every request is aborted at once, nothing more is read.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::Arc;

use tokio::sync::{OwnedSemaphorePermit, broadcast, mpsc, watch};
use tokio::time::Instant;

use crate::context::RequestExtras;
use crate::context::outlet::{Outgoing, RequestStream};
use crate::error::{Error, Result};
use crate::middleware::Transport;
use crate::protocol::{ErrorObject, is_json_whitespace};
use crate::serve::arrival::{Arrival, Via};
use crate::serve::layered::{Back, Counts};
use crate::serve::reply::{Reply, ReplyTo};
use crate::serve::session::{Session, SessionState};
use crate::serve::subscriptions::Routed;
use crate::server::changes::Heard;
use crate::server::core::ServerCore;
use crate::util::woken::WhenWoken;

/// Response lines queued for the writer before tasks (and the loop) wait for it.
pub(crate) const OUTGOING_CAPACITY: usize = 64;

/// One framed message from the input.
#[derive(Debug)]
pub(crate) enum Frame {
    /// A complete message (without its line terminator).
    Message(Vec<u8>),
    /// A message whose answers go to a stream of its own (an HTTP request's response). Boxed
    /// so that a frame is no bigger than a message: every session's inbox allocates a block
    /// of frames up front.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    Routed(Box<RoutedMessage>),
    /// A client's message another instance serving the session could not place (an answer to
    /// a question, a cancellation): tried here, and never sent on again.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    Forwarded(Vec<u8>),
    /// A message over the size limit was skipped without being buffered.
    TooLarge,
    /// The input ended.
    End,
}

/// A message and where its answers go.
#[derive(Debug)]
pub(crate) struct RoutedMessage {
    pub(crate) bytes: Vec<u8>,
    pub(crate) stream: RequestStream,
    pub(crate) extras: Option<Arc<RequestExtras>>,
}

/// Where a connection's messages come from. `next` must be cancel-safe: the loop drops its
/// future whenever another branch is ready.
pub(crate) trait MessageSource {
    fn next(&mut self) -> impl Future<Output = io::Result<Frame>> + Send;

    /// Whether `next` has a message without waiting (so replies may wait to go out together).
    fn has_ready(&self) -> bool {
        false
    }
}

/// Replies gathered while more input is ready: they go to the writer together, in one queue
/// item, once the input would wait or this many bytes are gathered.
const COALESCE_BYTES: usize = 64 * 1024;

/// A session's state as its loop last changed it, until the transport takes it to keep.
#[derive(Debug, Default)]
pub(crate) struct LatestState(std::sync::Mutex<Option<SessionState>>);

impl LatestState {
    /// The state changed to `state` (`None`: nothing to keep).
    pub(crate) fn set(&self, state: Option<SessionState>) {
        *crate::util::lock(&self.0) = state;
    }

    /// The state, if it changed since it was last taken.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn take_changed(&self) -> Option<SessionState> {
        crate::util::lock(&self.0).take()
    }
}

/// A connection's input from a channel of frames (the HTTP endpoint's sessions).
#[cfg(feature = "http")]
pub(crate) struct Inbox(pub(crate) crate::util::queue::QueueReceiver<Frame>);

#[cfg(feature = "http")]
impl MessageSource for Inbox {
    async fn next(&mut self) -> io::Result<Frame> {
        // The sender is gone: the client (or the endpoint) ended the connection.
        Ok(self.0.recv().await.unwrap_or(Frame::End))
    }
}

/// Messages arriving on a channel of the user's transport.
pub(crate) struct Messages(pub(crate) mpsc::Receiver<Vec<u8>>);

impl MessageSource for Messages {
    async fn next(&mut self) -> io::Result<Frame> {
        Ok(self.0.recv().await.map_or(Frame::End, Frame::Message))
    }
}

/// How a connection's loop is set up.
#[derive(Debug)]
pub(crate) struct LoopOptions {
    /// How many `subscriptions/listen` streams may be open at once.
    pub(crate) listen_limit: usize,
    /// A session started elsewhere, served by this loop from the start.
    pub(crate) restore: Option<SessionState>,
    /// Told the session's state whenever it changes, before the reply of the message that
    /// changed it goes out (so that a transport can keep it before its client sees the reply).
    pub(crate) states: Option<Arc<LatestState>>,
    /// What carries the messages.
    pub(crate) transport: Transport,
    /// The HTTP session the loop serves.
    pub(crate) session_id: Option<Arc<str>>,
    /// Held for as long as the loop runs (see `http::health::drained`).
    pub(crate) drain_token: Option<watch::Receiver<bool>>,
    /// Where the lines that named change notices become on the connection's own output go,
    /// with the notice's name, instead of the output: an HTTP session served by several
    /// instances keeps each notice once in its stream (see `http::sessions`).
    pub(crate) named_lines: Option<crate::util::queue::QueueSender<NamedLine>>,
    /// The change events, heard from before the loop's task first runs (`None`: from then):
    /// an HTTP session revived by a request is answered before its loop runs, and a change
    /// published meanwhile must reach it.
    pub(crate) announcements: Option<broadcast::Receiver<Heard>>,
}

/// A line for the connection's own output that a change notice became, with the notice's
/// name (see [`ChangeNotice::seq`](crate::changes::ChangeNotice::seq)). Boxed: a channel
/// allocates room for 32 items when it is made, and every idle session holds one of these.
pub(crate) type NamedLine = Box<(Arc<str>, Vec<u8>)>;

impl LoopOptions {
    /// The options of a connection over `transport`.
    pub(crate) fn over(transport: Transport) -> Self {
        LoopOptions {
            listen_limit: crate::serve::subscriptions::MAX_LISTEN_STREAMS,
            restore: None,
            states: None,
            transport,
            session_id: None,
            drain_token: None,
            named_lines: None,
            announcements: None,
        }
    }
}

/// How a connection ended.
#[derive(Debug)]
pub(crate) enum Ending {
    /// The input ended, or the shutdown signal came: everything started was answered (or,
    /// past the drain deadline, aborted).
    Finished,
    /// The output closed (the client stopped reading): all work was aborted.
    OutputClosed,
    /// Reading the input failed.
    ReadFailed(io::Error),
}

/// The result a connection's ending and its writer's outcome make together.
impl Ending {
    pub(crate) fn into_result(self, written: io::Result<()>) -> Result<()> {
        match self {
            Ending::OutputClosed => Err(Error::OutputClosed(written.err())),
            Ending::ReadFailed(e) => Err(Error::Io(e)),
            Ending::Finished => match written {
                Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Err(Error::OutputClosed(Some(e))),
                other => Ok(other?),
            },
        }
    }
}

/// Serves one connection whose messages come and go over channels, one message per item:
/// what `Server::serve_channel` and the in-memory test client run.
pub(crate) async fn serve_messages(
    core: Arc<ServerCore>,
    shutdown: impl Future<Output = ()> + Send,
    incoming: mpsc::Receiver<Vec<u8>>,
    outgoing: mpsc::Sender<Vec<u8>>,
) -> Result<()> {
    let ending = run(core, Messages(incoming), outgoing, shutdown, LoopOptions::over(Transport::Channel)).await;
    ending.into_result(Ok(()))
}

/// The next change event, with the receiver to wait for the one after: an owned future, so
/// that the loop keeps it across turns.
type NextAnnouncement =
    Pin<Box<dyn Future<Output = (Result<Heard, broadcast::error::RecvError>, broadcast::Receiver<Heard>)> + Send>>;

fn next_announcement(mut events: broadcast::Receiver<Heard>) -> NextAnnouncement {
    Box::pin(async move {
        let event = events.recv().await;
        (event, events)
    })
}

/// Runs one connection until it ends (see the module documentation).
pub(crate) async fn run<I: MessageSource>(
    core: Arc<ServerCore>,
    mut input: I,
    out: mpsc::Sender<Vec<u8>>,
    shutdown: impl Future<Output = ()>,
    options: LoopOptions,
) -> Ending {
    let max_message_size = core.config.max_message_size;
    let drain_timeout = core.config.drain_timeout;
    // The branches for what rarely happens are polled only when woken (see `woken`); the
    // output's closing and the shutdown signal are futures kept across turns.
    let heard = options.announcements.unwrap_or_else(|| core.announcements.subscribe());
    let mut announcements = WhenWoken::new(next_announcement(heard));
    let closed = std::pin::pin!(out.closed());
    let mut closed = WhenWoken::new(closed);
    let began = Instant::now();
    // Held until the loop ends (the HTTP endpoint counts them to know when all have drained).
    let _drain_token = options.drain_token;
    let (mut session, mut returns) = Session::new(core, out.clone(), options.listen_limit, options.transport);
    session.session_id = options.session_id;
    if let Some(state) = options.restore {
        session.restore(state);
    }
    let mut seen_changes = session.changes;
    let layer_counts = session.layer_counts();
    let shutdown = std::pin::pin!(shutdown);
    let mut shutdown = WhenWoken::new(shutdown);
    let mut reading = true;
    let mut deadline: Option<Instant> = None;
    let mut read_error = None;
    // Replies waiting to go out together, and the slots they hold until then.
    let mut gathered: Vec<u8> = Vec::new();
    let mut gathered_slots: Vec<Option<OwnedSemaphorePermit>> = Vec::new();

    while reading || session.executor.has_parked() || session.in_layers() {
        let reply = tokio::select! {
            biased;
            () = &mut closed => {
                session.executor.abort_all();
                return ended(Ending::OutputClosed, &session, began);
            }
            () = &mut shutdown, if deadline.is_none() => {
                tracing::info!(timeout = ?drain_timeout, "shutting down: finishing the requests in flight");
                reading = false;
                deadline = Some(Instant::now() + drain_timeout);
                None
            }
            () = sleep_until(deadline), if deadline.is_some() => break,
            slot = session.executor.next_slot(), if session.executor.has_parked() => {
                slot.and_then(|slot| session.executor.resume(slot).into_reply())
            }
            Some(back) = next_back(&mut returns), if returns.is_some() => session.on_back(back).into_reply(),
            () = layers_changed(layer_counts.as_deref()), if session.waits_on_layers(reading) => None,
            (announcement, receiver) = &mut announcements, if reading => {
                announcements = WhenWoken::new(next_announcement(receiver));
                match announcement {
                    Ok(Heard { announcement, notice }) => {
                        let lines = session.on_announcement(&announcement);
                        match (notice, &options.named_lines) {
                            (Some(notice), Some(named)) => send_named(&out, named, &notice, lines).await,
                            _ => send_routed(&out, lines).await,
                        }
                    }
                    Err(broadcast::error::RecvError::Lagged(missed)) => {
                        // Which events were missed is unknown: tell the client everything it
                        // subscribed to may have changed, so that nothing is silently lost.
                        tracing::warn!(missed, "a slow connection missed change events; telling it to read again");
                        send_routed(&out, session.on_lag()).await;
                    }
                    // The server core, and with it the sender, outlives every connection.
                    Err(broadcast::error::RecvError::Closed) => {}
                }
                None
            }
            frame = input.next(), if reading && session.can_read() => match frame {
                Ok(Frame::Message(bytes)) => on_bytes(&mut session, &bytes, ReplyTo::Connection.into()),
                Ok(Frame::Forwarded(bytes)) => {
                    let arrival = Arrival { reply_to: ReplyTo::Connection, extras: None, via: Via::Instance };
                    on_bytes(&mut session, &bytes, arrival)
                }
                Ok(Frame::Routed(routed)) => {
                    let RoutedMessage { bytes, stream, extras } = *routed;
                    let arrival = Arrival { reply_to: ReplyTo::Stream(stream), extras, via: Via::Client };
                    on_bytes(&mut session, &bytes, arrival)
                }
                Ok(Frame::TooLarge) => Some(Reply::now(Outgoing::error(
                    None,
                    &ErrorObject::invalid_request(format!(
                        "Invalid request: the message exceeds the {max_message_size}-byte limit"
                    )),
                ))),
                Ok(Frame::End) => {
                    // No answer can come now: handlers waiting for one stop waiting.
                    session.executor.pending().close();
                    reading = false;
                    None
                }
                Err(e) => {
                    session.executor.pending().close();
                    reading = false;
                    read_error = Some(e);
                    None
                }
            },
        };
        if session.changes != seen_changes {
            seen_changes = session.changes;
            if let Some(states) = &options.states {
                states.set(session.state());
            }
        }
        // A reply keeps its slot until the queue holds it.
        if let Some(Reply { message, stream, _slot: slot }) = reply {
            if let Some(stream) = stream {
                // A request's own stream: its client waits on nothing else.
                let _ = stream.send(message).await;
                continue;
            }
            let mut line = message.line;
            gathered.append(&mut line);
            gathered_slots.push(slot);
        }
        // Gather only while the next turn surely reads another message: a parked request may
        // be waiting for the very slots these replies hold.
        let keep_gathering = reading
            && input.has_ready()
            && session.can_read()
            && !session.executor.has_parked()
            && gathered.len() < COALESCE_BYTES;
        if !gathered.is_empty() && !keep_gathering {
            if out.send(std::mem::take(&mut gathered)).await.is_err() {
                session.executor.abort_all();
                return ended(Ending::OutputClosed, &session, began);
            }
            gathered_slots.clear();
        }
    }

    if !gathered.is_empty() && out.send(gathered).await.is_err() {
        session.executor.abort_all();
        return ended(Ending::OutputClosed, &session, began);
    }
    drop(gathered_slots);

    // Nothing new starts now; wait for what runs, until the deadline if there is one.
    let drained = tokio::select! {
        () = session.executor.drained() => true,
        () = sleep_until(deadline), if deadline.is_some() => false,
        () = out.closed() => {
            session.executor.abort_all();
            return ended(Ending::OutputClosed, &session, began);
        }
    };
    if !drained {
        tracing::warn!("the drain deadline passed: aborting the requests still running");
        session.executor.abort_all();
    }
    send_routed(&out, session.close()).await;
    match read_error {
        Some(e) => ended(Ending::ReadFailed(e), &session, began),
        None => ended(Ending::Finished, &session, began),
    }
}

/// Handles one message's bytes: JSON whitespace alone is skipped, anything else that is not
/// UTF-8 is a parse error.
fn on_bytes(session: &mut Session, bytes: &[u8], arrival: Arrival) -> Option<Reply> {
    match std::str::from_utf8(bytes) {
        Ok(text) if text.chars().all(is_json_whitespace) => None,
        Ok(text) => session.on_message(text, arrival),
        Err(e) => arrival.reply_to.now(Outgoing::error(None, &ErrorObject::parse_error(e)), None).into_reply(),
    }
}

/// Sends each message where it goes: its request's own stream, or the connection's output.
async fn send_routed(out: &mpsc::Sender<Vec<u8>>, messages: Vec<Routed>) {
    for (stream, message) in messages {
        // A stream or output that closed has nobody left to tell.
        let _ = match stream {
            Some(stream) => stream.send(message).await.is_ok(),
            None => out.send(message.line).await.is_ok(),
        };
    }
}

/// [`send_routed`], but what goes to the connection's own output goes to `named`, with the
/// name of the notice it came from.
async fn send_named(
    out: &mpsc::Sender<Vec<u8>>,
    named: &crate::util::queue::QueueSender<NamedLine>,
    notice: &Arc<str>,
    messages: Vec<Routed>,
) {
    let (own, routed): (Vec<Routed>, Vec<Routed>) = messages.into_iter().partition(|(stream, _)| stream.is_none());
    send_routed(out, routed).await;
    // One line at most, in practice (a list change or a resource update); a second would be
    // named apart.
    for (n, (_, message)) in own.into_iter().enumerate() {
        let name = if n == 0 { Arc::clone(notice) } else { Arc::from(format!("{notice}/{n}")) };
        let _ = named.send(Box::new((name, message.line))).await;
    }
}

/// How a connection ended, once its session's duration is recorded (feature `telemetry`,
/// handshake-era sessions).
fn ended(ending: Ending, session: &Session, began: Instant) -> Ending {
    // Handlers kept for a 2026-07-28 retry on this connection wait for nothing now (and would
    // hold its output open).
    session.executor.release_kept();
    #[cfg(feature = "telemetry")]
    if let (Some(telemetry), Some(state)) = (&session.core.telemetry, session.state()) {
        let failed = !matches!(ending, Ending::Finished);
        telemetry.session_ended(began.elapsed(), state.negotiated.revision, session.transport, failed);
    }
    #[cfg(not(feature = "telemetry"))]
    let _ = (session, began);
    ending
}

/// What a request in the layers tells the loop next (never, without layers).
async fn next_back(returns: &mut Option<mpsc::UnboundedReceiver<Back>>) -> Option<Back> {
    match returns {
        Some(returns) => returns.recv().await,
        None => std::future::pending().await,
    }
}

/// Completes when a request has left the layers (never, without layers).
async fn layers_changed(counts: Option<&Counts>) {
    match counts {
        Some(counts) => counts.changed().await,
        None => std::future::pending().await,
    }
}

async fn sleep_until(deadline: Option<Instant>) {
    match deadline {
        Some(deadline) => tokio::time::sleep_until(deadline).await,
        None => std::future::pending().await,
    }
}
