//! The connections [`Server::serve_http`](crate::Server::serve_http) owns: the accept loop,
//! the limit on open connections, and what each connection may take of the server's time.
//!
//! A connection is, at any moment, in one of three phases, and only the first two can time
//! out (a connection carrying an SSE stream, however quiet, is serving):
//!
//! - **idle**: no request in flight and none begun; closed after the keep-alive timeout;
//! - **head**: the first bytes of a request arrived but not its whole head; closed after the
//!   head timeout (the body has a timeout of its own, read by the POST handler);
//! - **serving**: a request was read and its response is not finished.
//!
//! At the connection limit the connection idle or stalled in its head the longest is closed
//! to make room, so that a flood of stalled connections cannot lock new clients out; when
//! every connection is serving, a new one is answered 503 and closed. The phase is kept in
//! a few atomics per connection and the clock is read only when bytes arrive after an idle
//! spell and when a response ends: the deadline is checked lazily, by a timer that, when it
//! fires early (the connection was busy meanwhile), sleeps again.

use std::collections::HashMap;
use std::future::Future;
use std::io;
use std::pin::{Pin, pin};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::http::{Request, Response};
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt as _, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Notify, watch};

/// What each connection may take: the head and keep-alive timeouts, and how many may be open.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ConnectionRules {
    pub(crate) head_timeout: Duration,
    pub(crate) keep_alive_timeout: Duration,
    pub(crate) max_connections: usize,
}

/// The answer to a connection past the limit when none can make room.
const BUSY: &[u8] =
    b"HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";

/// How long accepting pauses after an error (out of file descriptors, say) before retrying.
const ACCEPT_PAUSE: Duration = Duration::from_millis(50);

/// Serves `router` on `listener` under `rules` until `shutdown` completes; then accepts no
/// more, lets each connection finish its requests (hyper's graceful shutdown: idle ones close
/// at once) and returns once all have closed.
pub(crate) async fn serve(
    listener: TcpListener,
    router: axum::Router,
    rules: ConnectionRules,
    shutdown: impl Future<Output = ()>,
) -> io::Result<()> {
    let table =
        Arc::new(Table { epoch: Instant::now(), open: Mutex::default(), next: AtomicU64::new(0), room: Notify::new() });
    let (stopping, stop_seen) = watch::channel(false);
    let mut shutdown = pin!(shutdown);
    loop {
        let (tcp, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(e) => {
                    tracing::warn!(error = %e, "accepting a connection failed: pausing");
                    tokio::time::sleep(ACCEPT_PAUSE).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        // Without TCP_NODELAY a keep-alive client stalls on delayed ACKs after small writes.
        let _ = tcp.set_nodelay(true);
        if !table.wait_for_room(rules.max_connections).await {
            tokio::spawn(refuse(tcp));
            continue;
        }
        let watch = table.add();
        let serving = serve_connection(tcp, peer, router.clone(), rules, Arc::clone(&table), watch, stop_seen.clone());
        tokio::spawn(serving);
    }
    drop(listener);
    drop(stop_seen);
    let _ = stopping.send(true);
    // Every connection holds a receiver: once all are dropped, every connection has closed.
    stopping.closed().await;
    Ok(())
}

/// Answers 503 to a connection past the limit, and closes it.
async fn refuse(mut tcp: TcpStream) {
    let _ = tokio::time::timeout(Duration::from_secs(1), tcp.write_all(BUSY)).await;
}

/// Serves one connection until it closes, times out, is evicted or the server stops.
async fn serve_connection(
    tcp: TcpStream,
    peer: std::net::SocketAddr,
    router: axum::Router,
    rules: ConnectionRules,
    table: Arc<Table>,
    watch: Arc<Watch>,
    mut stopping: watch::Receiver<bool>,
) {
    let io = TokioIo::new(Watched { inner: tcp, watch: Arc::clone(&watch) });
    let service = {
        let watch = Arc::clone(&watch);
        hyper::service::service_fn(move |mut request: Request<Incoming>| {
            let watch = Arc::clone(&watch);
            let mut router = router.clone();
            // Where `client_address` (and axum's own `ConnectInfo` extractor) finds the
            // client's address.
            request.extensions_mut().insert(axum::extract::ConnectInfo(peer));
            async move {
                use tower_service::Service as _;
                let serving = Serving::start(watch);
                let response = router.call(request.map(Body::new)).await;
                response.map(|response: Response<Body>| response.map(|body| Tracked { body, _serving: serving }))
            }
        })
    };
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder.header_read_timeout(None);
    let mut connection = pin!(builder.serve_connection(io, service));
    let mut stopped = false;
    loop {
        let now = watch.now();
        let deadline = match watch.deadline(&rules) {
            Some(deadline) if deadline <= now => break,
            Some(deadline) => deadline,
            // Serving: nothing to time out; look again a keep-alive timeout from now.
            None => now + millis(rules.keep_alive_timeout),
        };
        let sleep = tokio::time::sleep(Duration::from_millis(deadline - now));
        tokio::select! {
            result = connection.as_mut() => {
                if let Err(e) = result {
                    tracing::debug!(error = %e, "a connection ended with an error");
                }
                break;
            }
            () = sleep => {}
            () = watch.evicted.notified() => break,
            _ = stopping.wait_for(|stop| *stop), if !stopped => {
                stopped = true;
                connection.as_mut().graceful_shutdown();
            }
        }
    }
    table.remove(watch.key);
}

/// Milliseconds in `duration`, for the table's clock.
fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX / 2)
}

/// The open connections, for the limit and for eviction.
struct Table {
    /// What the connections' millisecond clocks count from (one clock, so that their phases
    /// compare).
    epoch: Instant,
    open: Mutex<HashMap<u64, Arc<Watch>>>,
    next: AtomicU64,
    /// Told when a connection leaves the table.
    room: Notify,
}

/// What the table says of a new connection at the limit.
enum Room {
    /// Serve it.
    Free,
    /// A connection was told to close to make room: wait for it to go.
    Wait,
    /// Every connection is serving: refuse it.
    Full,
}

impl Table {
    fn add(&self) -> Arc<Watch> {
        let key = self.next.fetch_add(1, Ordering::Relaxed);
        let watch = Arc::new(Watch {
            key,
            epoch: self.epoch,
            since: AtomicU64::new(millis(self.epoch.elapsed())),
            in_flight: AtomicUsize::new(0),
            in_head: AtomicBool::new(false),
            closing: AtomicBool::new(false),
            evicted: Notify::new(),
        });
        self.open.lock().unwrap_or_else(|e| e.into_inner()).insert(key, Arc::clone(&watch));
        watch
    }

    fn remove(&self, key: u64) {
        self.open.lock().unwrap_or_else(|e| e.into_inner()).remove(&key);
        self.room.notify_waiters();
    }

    /// Whether a new connection may be served: below the limit, or once the connection idle
    /// or stalled the longest has closed to make room (a connection told to close still holds
    /// its file until it has, so the count never goes past the limit).
    async fn wait_for_room(&self, max: usize) -> bool {
        loop {
            match self.make_room(max) {
                Room::Free => return true,
                Room::Full => return false,
                // A wake-up missed between the two calls costs one short pause.
                Room::Wait => {
                    let _ = tokio::time::timeout(Duration::from_millis(20), self.room.notified()).await;
                }
            }
        }
    }

    fn make_room(&self, max: usize) -> Room {
        let open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        if open.len() < max {
            return Room::Free;
        }
        if open.values().any(|watch| watch.closing.load(Ordering::Acquire)) {
            return Room::Wait;
        }
        let oldest = open
            .values()
            .filter(|watch| watch.in_flight.load(Ordering::Acquire) == 0 && !watch.closing.load(Ordering::Acquire))
            .min_by_key(|watch| watch.since.load(Ordering::Acquire));
        match oldest {
            Some(watch) => {
                // Told once: it leaves the table when its task ends, a moment later.
                watch.closing.store(true, Ordering::Release);
                watch.evicted.notify_one();
                Room::Wait
            }
            None => Room::Full,
        }
    }
}

/// One connection's phase (see the module's documentation).
struct Watch {
    key: u64,
    /// The table's clock.
    epoch: Instant,
    /// When the current idle or head phase began (milliseconds of that clock).
    since: AtomicU64,
    /// Requests read whose responses have not ended.
    in_flight: AtomicUsize,
    /// Whether bytes of a request arrived since the connection went idle.
    in_head: AtomicBool,
    /// Whether it was told to close to make room for another.
    closing: AtomicBool,
    /// Told when the connection is closed to make room for another.
    evicted: Notify,
}

impl Watch {
    /// The table's clock now, in milliseconds.
    fn now(&self) -> u64 {
        millis(self.epoch.elapsed())
    }

    /// Bytes arrived: on an idle connection, a request's head has begun.
    fn bytes_arrived(&self) {
        if self.in_flight.load(Ordering::Acquire) == 0 && !self.in_head.load(Ordering::Acquire) {
            self.since.store(self.now(), Ordering::Release);
            self.in_head.store(true, Ordering::Release);
        }
    }

    /// When the connection times out, if it can now: `None` while it serves.
    fn deadline(&self, rules: &ConnectionRules) -> Option<u64> {
        if self.in_flight.load(Ordering::Acquire) > 0 {
            return None;
        }
        let since = self.since.load(Ordering::Acquire);
        let timeout = match self.in_head.load(Ordering::Acquire) {
            true => rules.head_timeout,
            false => rules.keep_alive_timeout,
        };
        Some(since.saturating_add(millis(timeout)))
    }
}

/// A request being served: it begins when hyper has read its head and ends when its
/// response body is dropped (sent in full, or the connection gone).
struct Serving {
    watch: Arc<Watch>,
}

impl Serving {
    fn start(watch: Arc<Watch>) -> Self {
        watch.in_flight.fetch_add(1, Ordering::AcqRel);
        watch.in_head.store(false, Ordering::Release);
        Serving { watch }
    }
}

impl Drop for Serving {
    fn drop(&mut self) {
        self.watch.since.store(self.watch.now(), Ordering::Release);
        self.watch.in_flight.fetch_sub(1, Ordering::AcqRel);
    }
}

/// A response body that ends its request's serving phase when dropped.
struct Tracked {
    body: Body,
    _serving: Serving,
}

impl http_body::Body for Tracked {
    type Data = axum::body::Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Self::Data>, Self::Error>>> {
        Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.body.size_hint()
    }
}

/// The socket, noting when the first bytes of a request arrive on an idle connection.
struct Watched {
    inner: TcpStream,
    watch: Arc<Watch>,
}

impl AsyncRead for Watched {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.inner).poll_read(cx, buf);
        if buf.filled().len() > before {
            self.watch.bytes_arrived();
        }
        polled
    }
}

impl AsyncWrite for Watched {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}
