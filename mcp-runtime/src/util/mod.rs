//! Small pieces every layer above may use: random ids, durations as people write them, the
//! boxed future types, schemars' settings, a future polled only once woken, form bodies, and
//! the one HTTP client of the runtime's own outgoing requests (feature `tls`).

pub(crate) mod duration;
#[cfg(any(feature = "oauth", feature = "client"))]
pub(crate) mod form;
#[cfg(any(feature = "tls", feature = "client"))]
pub(crate) mod http_client;
// The HTTP sessions' queues (the loop's named lines exist in every build).
#[cfg_attr(not(feature = "http"), allow(dead_code))]
pub(crate) mod queue;
pub(crate) mod random;
pub(crate) mod schema;
pub(crate) mod time;
pub(crate) mod woken;

use std::future::Future;
use std::pin::Pin;

/// What a store (of sessions, events or tasks) reports when it cannot do what it was asked
/// (its backend is down, say): the request is refused and the error logged.
pub type StoreError = Box<dyn std::error::Error + Send + Sync>;

/// Locks `mutex`, whatever a panicking holder left: the data behind the runtime's locks stays
/// consistent between statements, so a poisoned lock is still usable.
pub(crate) fn lock<T>(mutex: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// A boxed future that is `Send`: what handlers and the transports' hooks return.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// A boxed future that need not be `Send`: what `local` handlers return.
pub(crate) type LocalBoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + 'a>>;
