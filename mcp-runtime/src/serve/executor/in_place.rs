//! A plain `fn` handler's body, run in place: on the worker that polls its task, with no
//! thread hand-off, so that the common quick body costs what an inline call costs.
//!
//! While a body runs, its worker polls nothing else. Tokio wakes another worker only when it
//! has queued work to share, and the worker that ran the connection's reading loop is the one
//! the body runs on: a body that blocks (a sleep, a synchronous database call, a lock another
//! handler holds) would leave the I/O driver unpolled, and no thread would read the
//! connection until it returned. So one watch thread per process (asleep while no body runs)
//! looks at the bodies running in place every [`TICK`]; one running for longer than
//! [`NUDGE_AFTER`] gets an empty task spawned on its runtime from outside it, which wakes a
//! parked worker: that worker polls the I/O driver from then on, and the connection, `ping`,
//! cancellations, the client's answers and async handlers go on while the body blocks.
//!
//! Handing every body to another thread (`block_in_place`, the blocking pool) costs a thread
//! wake-up or two per call; here only a body that runs long pays for one, once. The worker
//! woken must exist: `run()` builds its runtime with at least two workers (one CPU included),
//! and a body blocking every worker at once holds up the connections until one returns.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::task::{Context as TaskContext, Poll};
use std::time::{Duration, Instant};

use crate::util::lock;

/// How long a body runs before another worker is woken for the connection.
const NUDGE_AFTER: Duration = Duration::from_millis(2);
/// How often the watch thread looks while bodies run: a body is seen within two ticks of
/// running long. (Each look costs a thread wake-up, some 17 µs of CPU on a small virtual
/// machine: 500 a second while calls flow.)
const TICK: Duration = Duration::from_millis(2);
/// How many empty ticks before the watch thread sleeps until the next body starts (50 ms: a
/// burst of calls keeps it ticking, a quiet server wakes it once per burst).
const IDLE_TICKS: u32 = 25;

/// A plain `fn` handler's work, polled in place and watched while it runs (see the module
/// documentation).
pub(super) struct InPlace<F>(pub(super) F);

impl<F: Future + Unpin> Future for InPlace<F> {
    type Output = F::Output;

    fn poll(mut self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<F::Output> {
        let _watched = Watched::begin();
        Pin::new(&mut self.0).poll(cx)
    }
}

/// One body running in place, for as long as this lives (on the thread that began it: a body
/// runs within one poll).
struct Watched;

/// A thread's place for the body it runs in place (one at a time: a body runs within one poll):
/// when it began and on which runtime, and whether a worker was woken for it. Each thread
/// locks its own, and the watch thread each one now and then: no lock is shared by the
/// threads that run bodies.
#[derive(Default)]
struct Slot(Mutex<Option<Running>>);

/// The body a thread runs in place.
struct Running {
    began: Instant,
    runtime: tokio::runtime::Handle,
    nudged: bool,
}

/// Every thread's slot (a thread adds its own the first time it runs a body), and whether the
/// watch thread sleeps.
static SLOTS: Mutex<Vec<Weak<Slot>>> = Mutex::new(Vec::new());
static ASLEEP: AtomicBool = AtomicBool::new(false);
static WATCH: OnceLock<Option<std::thread::Thread>> = OnceLock::new();

thread_local! {
    static OWN: Arc<Slot> = {
        let slot = Arc::new(Slot::default());
        lock(&SLOTS).push(Arc::downgrade(&slot));
        slot
    };
}

impl Watched {
    fn begin() -> Watched {
        let runtime = tokio::runtime::Handle::current();
        let running = Running { began: Instant::now(), runtime, nudged: false };
        OWN.with(|slot| *lock(&slot.0) = Some(running));
        let watch = WATCH.get_or_init(|| {
            let started = std::thread::Builder::new().name("mcp-plain-fn-watch".into()).spawn(watch);
            if let Err(e) = &started {
                tracing::error!(error = %e, "the plain fn watch thread could not start: a blocking body may hold up its connection");
            }
            started.ok().map(|thread| thread.thread().clone())
        });
        if ASLEEP.swap(false, Ordering::AcqRel)
            && let Some(thread) = watch
        {
            thread.unpark();
        }
        Watched
    }
}

impl Drop for Watched {
    fn drop(&mut self) {
        // The body is over; its runtime handle is dropped outside the slot's lock.
        let ended = OWN.with(|slot| lock(&slot.0).take());
        drop(ended);
    }
}

/// The watch thread: every tick while bodies run, wakes a worker of the runtime of each body
/// that has run longer than [`NUDGE_AFTER`] (once per body); asleep when none ran for a while.
fn watch() {
    let mut idle = 0;
    loop {
        let mut nudge = Vec::new();
        let mut running = false;
        let now = Instant::now();
        lock(&SLOTS).retain(|slot| {
            let Some(slot) = slot.upgrade() else { return false };
            if let Some(body) = lock(&slot.0).as_mut() {
                running = true;
                if !body.nudged && now.duration_since(body.began) >= NUDGE_AFTER {
                    body.nudged = true;
                    nudge.push(body.runtime.clone());
                }
            }
            true
        });
        idle = if running { 0 } else { idle + 1 };
        for runtime in nudge {
            // Spawned from outside the runtime: it goes to the shared queue and wakes a
            // parked worker, which then polls the I/O driver when it parks again.
            drop(runtime.spawn(async {}));
        }
        if idle >= IDLE_TICKS {
            ASLEEP.store(true, Ordering::Release);
            // A body that began after the last look, before `ASLEEP`, would not wake this
            // thread: look once more before sleeping.
            let began_meanwhile = lock(&SLOTS).iter().filter_map(Weak::upgrade).any(|slot| lock(&slot.0).is_some());
            if began_meanwhile {
                ASLEEP.store(false, Ordering::Release);
                idle = 0;
                continue;
            }
            std::thread::park();
        } else {
            std::thread::park_timeout(TICK);
        }
    }
}
