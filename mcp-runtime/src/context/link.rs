//! How a request's handler reaches its client: the outlet for its notifications, the log
//! threshold and the connection's budget of log messages, and how it asks questions.

use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU8, Ordering};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::context::asking::PendingRequests;
use crate::context::input_round::InputRound;
use crate::context::outlet::Outlet;
use crate::context::slot::SlotLease;
use crate::context::task_link::TaskAsker;
use crate::protocol::LogLevel;

/// How a request's handler reaches its client: notifications on the connection, sent before
/// the request's response.
#[derive(Debug)]
pub(crate) struct ClientLink {
    pub(crate) out: Outlet,
    /// The request's `_meta.progressToken`.
    pub(crate) progress_token: Option<Value>,
    pub(crate) log: LogThreshold,
    pub(crate) limiter: Arc<LogLimiter>,
    /// The module path of the handler's definition: the log layer forwards its crate's events.
    pub(crate) origin: Option<&'static str>,
    /// How this request asks the client questions (`None`: it cannot).
    pub(crate) asker: Option<Asker>,
    /// The request's in-flight slot, given back while it waits for the client.
    pub(crate) lease: Option<Arc<SlotLease>>,
}

/// How a request asks its client.
#[derive(Debug)]
pub(crate) enum Asker {
    /// Handshake revisions: a request on the connection, its answer matched by id.
    Connection { pending: Arc<PendingRequests>, timeout: Duration },
    /// 2026-07-28: an input-required result, the client's retry bringing the answer.
    Round(Arc<InputRound>),
    /// A tool call running as a task (or about to): the task's `inputRequests`, answered by
    /// `tasks/update`.
    Task(Arc<TaskAsker>),
}

/// Which log messages a request may send its client.
#[derive(Debug, Clone)]
pub(crate) enum LogThreshold {
    /// None (logging not enabled, or a 2026-07-28 request without a log level).
    Off,
    /// At or above this level (a 2026-07-28 request's `_meta` log level).
    Fixed(LogLevel),
    /// At or above the connection's level, which `logging/setLevel` changes (handshake).
    Connection(Arc<AtomicU8>),
}

impl LogThreshold {
    pub(crate) fn allows(&self, level: LogLevel) -> bool {
        match self {
            LogThreshold::Off => false,
            LogThreshold::Fixed(min) => level >= *min,
            LogThreshold::Connection(min) => {
                LogLevel::from_index(min.load(Ordering::Relaxed)).is_some_and(|min| level >= min)
            }
        }
    }
}

/// Log messages a connection may send per second (and at once, after a quiet spell); the
/// rest are dropped, and the next message that goes out says how many were.
pub const LOG_MESSAGES_PER_SECOND: u32 = 100;

/// A connection's budget of log messages (a token bucket).
#[derive(Debug)]
pub(crate) struct LogLimiter {
    state: Mutex<LimiterState>,
}

#[derive(Debug)]
struct LimiterState {
    tokens: f64,
    refilled: Instant,
    dropped: u64,
}

impl Default for LogLimiter {
    fn default() -> Self {
        let state = LimiterState { tokens: f64::from(LOG_MESSAGES_PER_SECOND), refilled: Instant::now(), dropped: 0 };
        LogLimiter { state: Mutex::new(state) }
    }
}

impl LogLimiter {
    /// Takes one message's budget: `Some(dropped before)` when it may go, `None` when not.
    pub(crate) fn take(&self) -> Option<u64> {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let now = Instant::now();
        let rate = f64::from(LOG_MESSAGES_PER_SECOND);
        let elapsed = now.duration_since(state.refilled).as_secs_f64();
        state.tokens = (state.tokens + elapsed * rate).min(rate);
        state.refilled = now;
        if state.tokens >= 1.0 {
            state.tokens -= 1.0;
            Some(std::mem::take(&mut state.dropped))
        } else {
            state.dropped += 1;
            None
        }
    }
}
