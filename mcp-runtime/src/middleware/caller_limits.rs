//! Limits per caller ([`Caller`]: the identity, else the session, else the client's address):
//! how many requests a caller may send in a period, and how many may run at once.

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex};
use std::task::{Context as TaskContext, Poll};
use std::time::Duration;

use serde_json::json;
use tokio::sync::Semaphore;
use tokio::time::Instant;
use tower_layer::Layer;
use tower_service::Service;

use crate::protocol::{ErrorObject, code};
use crate::util::BoxFuture;

use super::{BoxError, Caller, McpRequest, McpResponse, McpService};

/// How many callers' entries a limit keeps before it forgets the idle ones.
const FIRST_PRUNE: usize = 1024;

/// A rate limit per caller: a token bucket each, refilled at `requests` per `period`, holding
/// at most a burst's worth. A request finding its caller's bucket empty is answered with
/// error -31000 ([`code::RATE_LIMITED`]) whose `data.retryAfterMs` says when a token is back;
/// over HTTP with 429 and `Retry-After`.
///
/// What counts are the requests that reach an item: `tools/call`, `resources/read`,
/// `resources/subscribe` and `unsubscribe`, `prompts/get`. The handshake, `ping`, the lists,
/// `server/discover` and the rest pass free, so that a client's own bookkeeping (a test
/// client lists the tools before it calls them) spends none of its calls;
/// [`every_request`](Self::every_request) counts them too.
///
/// ```
/// use std::time::Duration;
/// use mcp_runtime::Server;
/// use mcp_runtime::middleware::RateLimit;
///
/// // 10 requests a second per caller, in bursts of up to 20.
/// let server = Server::builder("gifts", "1.0.0")
///     .layer(RateLimit::per_caller(10, Duration::from_secs(1)).burst(20));
/// # let _ = server;
/// ```
#[derive(Clone)]
pub struct RateLimit {
    capacity: f64,
    per_second: f64,
    /// Whether requests that reach no item count too.
    every_request: bool,
    buckets: Arc<Mutex<Buckets>>,
}

impl fmt::Debug for RateLimit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RateLimit")
            .field("capacity", &self.capacity)
            .field("per_second", &self.per_second)
            .field("every_request", &self.every_request)
            .finish()
    }
}

#[derive(Default)]
struct Buckets {
    by_caller: HashMap<Caller, Bucket>,
    prune_at: usize,
}

#[derive(Clone, Copy)]
struct Bucket {
    tokens: f64,
    at: Instant,
}

impl RateLimit {
    /// `requests` per `period` for each caller, in bursts of up to `requests`.
    pub fn per_caller(requests: u32, period: Duration) -> Self {
        let requests = f64::from(requests.max(1));
        RateLimit {
            capacity: requests,
            per_second: requests / period.as_secs_f64().max(1e-3),
            every_request: false,
            buckets: Arc::new(Mutex::new(Buckets { prune_at: FIRST_PRUNE, ..Buckets::default() })),
        }
    }

    /// Lets a caller send up to `requests` at once after a quiet spell.
    #[must_use]
    pub fn burst(mut self, requests: u32) -> Self {
        self.capacity = f64::from(requests.max(1));
        self
    }

    /// Counts every request, the handshake, `ping` and the lists included (by default only
    /// the requests that reach an item count).
    #[must_use]
    pub fn every_request(mut self) -> Self {
        self.every_request = true;
        self
    }

    /// Takes a token of `caller`'s; `Err` is how long until one is back.
    fn take(&self, caller: Caller) -> Result<(), Duration> {
        let now = Instant::now();
        let mut buckets = self.buckets.lock().unwrap_or_else(|e| e.into_inner());
        let Buckets { by_caller, prune_at } = &mut *buckets;
        if by_caller.len() >= *prune_at {
            // A bucket full again is the same as none.
            by_caller.retain(|_, bucket| self.refilled(*bucket, now) < self.capacity);
            *prune_at = (by_caller.len() * 2).max(FIRST_PRUNE);
        }
        let bucket = by_caller.entry(caller).or_insert(Bucket { tokens: self.capacity, at: now });
        let tokens = self.refilled(*bucket, now);
        if tokens >= 1.0 {
            *bucket = Bucket { tokens: tokens - 1.0, at: now };
            Ok(())
        } else {
            *bucket = Bucket { tokens, at: now };
            Err(Duration::from_secs_f64((1.0 - tokens) / self.per_second))
        }
    }

    fn refilled(&self, bucket: Bucket, now: Instant) -> f64 {
        (bucket.tokens + now.saturating_duration_since(bucket.at).as_secs_f64() * self.per_second).min(self.capacity)
    }
}

impl Layer<McpService> for RateLimit {
    type Service = RateLimited;

    fn layer(&self, inner: McpService) -> RateLimited {
        RateLimited { limit: self.clone(), inner }
    }
}

/// The service of a [`RateLimit`] layer.
#[derive(Debug, Clone)]
pub struct RateLimited {
    limit: RateLimit,
    inner: McpService,
}

impl Service<McpRequest> for RateLimited {
    type Response = McpResponse;
    type Error = BoxError;
    type Future = BoxFuture<'static, Result<McpResponse, BoxError>>;

    fn poll_ready(&mut self, cx: &mut TaskContext<'_>) -> Poll<Result<(), BoxError>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: McpRequest) -> Self::Future {
        if !self.limit.every_request && request.target().is_none() {
            return self.inner.call(request);
        }
        let caller = request.caller();
        match self.limit.take(caller.clone()) {
            Ok(()) => self.inner.call(request),
            Err(wait) => Box::pin(std::future::ready(Ok(too_many(&caller, wait)))),
        }
    }
}

/// The refusal of a request over its caller's rate.
fn too_many(caller: &Caller, wait: Duration) -> McpResponse {
    let wait_ms = u64::try_from(wait.as_millis()).unwrap_or(u64::MAX).max(1);
    let error = ErrorObject::new(
        code::RATE_LIMITED,
        format!("Too many requests from {caller}: retry in {}", crate::util::duration::display(wait)),
    )
    .with_data(json!({ "retryAfterMs": wait_ms }));
    McpResponse::error(error).with_http_status(429).with_http_header("Retry-After", wait_ms.div_ceil(1000).to_string())
}

/// A limit on the requests each caller has in flight at once: past it, a caller's requests
/// wait for one of its own to finish (other callers are not held up). An open
/// `subscriptions/listen` stream is not work in flight, and does not count.
///
/// ```
/// use mcp_runtime::Server;
/// use mcp_runtime::middleware::ConcurrencyLimit;
///
/// let server = Server::builder("gifts", "1.0.0").layer(ConcurrencyLimit::per_caller(4));
/// # let _ = server;
/// ```
#[derive(Clone)]
pub struct ConcurrencyLimit {
    max: usize,
    callers: Arc<Mutex<Callers>>,
}

impl fmt::Debug for ConcurrencyLimit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ConcurrencyLimit").field("max", &self.max).finish()
    }
}

#[derive(Default)]
struct Callers {
    slots: HashMap<Caller, Arc<Semaphore>>,
    prune_at: usize,
}

impl ConcurrencyLimit {
    /// At most `requests` in flight per caller.
    pub fn per_caller(requests: usize) -> Self {
        let callers = Callers { prune_at: FIRST_PRUNE, ..Callers::default() };
        ConcurrencyLimit { max: requests.max(1), callers: Arc::new(Mutex::new(callers)) }
    }

    fn slots_of(&self, caller: Caller) -> Arc<Semaphore> {
        let mut callers = self.callers.lock().unwrap_or_else(|e| e.into_inner());
        let Callers { slots, prune_at } = &mut *callers;
        if slots.len() >= *prune_at {
            // A caller with nothing in flight holds no permit, so only the map holds its slots.
            slots.retain(|_, slots| Arc::strong_count(slots) > 1);
            *prune_at = (slots.len() * 2).max(FIRST_PRUNE);
        }
        Arc::clone(slots.entry(caller).or_insert_with(|| Arc::new(Semaphore::new(self.max))))
    }
}

impl Layer<McpService> for ConcurrencyLimit {
    type Service = ConcurrencyLimited;

    fn layer(&self, inner: McpService) -> ConcurrencyLimited {
        ConcurrencyLimited { limit: self.clone(), inner }
    }
}

/// The service of a [`ConcurrencyLimit`] layer.
#[derive(Debug, Clone)]
pub struct ConcurrencyLimited {
    limit: ConcurrencyLimit,
    inner: McpService,
}

impl Service<McpRequest> for ConcurrencyLimited {
    type Response = McpResponse;
    type Error = BoxError;
    type Future = BoxFuture<'static, Result<McpResponse, BoxError>>;

    /// Ready at once: the caller's slot, then what comes after, are waited for in the call.
    fn poll_ready(&mut self, _cx: &mut TaskContext<'_>) -> Poll<Result<(), BoxError>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: McpRequest) -> Self::Future {
        let inner = self.inner.clone();
        if request.method() == "subscriptions/listen" {
            return Box::pin(inner.oneshot(request));
        }
        let slots = self.limit.slots_of(request.caller());
        Box::pin(async move {
            let _slot = slots.acquire_owned().await?;
            inner.oneshot(request).await
        })
    }
}
