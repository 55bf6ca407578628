//! One thread kept hot for the plain `fn` bodies of current-thread runtimes (`#[tokio::test]`),
//! which must leave their runtime's only thread (see `blocking_pool`).
//!
//! Handing a body to a parked thread wakes it, and the answer wakes the runtime's thread back:
//! two thread wake-ups, some 20 µs each on a small virtual machine, for a body that often
//! takes one. So this thread, after each body, stays awake for [`STAY_HOT`], looking for the
//! next one; a body given to it then starts within a fraction of a microsecond. It takes one
//! body at a time: a body offered while it runs one goes to tokio's blocking pool, so a body
//! that blocks never holds up another. On a machine with one CPU nothing spins: the thread
//! parks as soon as its body returns, since spinning there would only take the CPU from the
//! thread it waits for.

use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use crate::util::lock;

/// A body to run, with its answer sent by the closure itself.
pub(super) type Job = Box<dyn FnOnce() + Send>;

/// How long the thread stays awake after a body (on a machine with more than one CPU). A
/// client in the same process calling plain `fn`s one after another sends the next call
/// within a few microseconds; spinning costs at most this much CPU per call.
const STAY_HOT: Duration = Duration::from_micros(50);

/// Parked: a body given to it wakes it.
const PARKED: u8 = 0;
/// Awake and free: looking for a body.
const HOT: u8 = 1;
/// A body given to it (on its way through `job`, or running).
const TAKEN: u8 = 2;

/// What the thread and the code that offers it bodies share.
#[derive(Default)]
struct Shared {
    state: AtomicU8,
    job: Mutex<Option<Job>>,
}

/// The thread, started at the first body offered (`None`: it could not start).
static THREAD: OnceLock<Option<(Arc<Shared>, std::thread::Thread)>> = OnceLock::new();

/// Whether this machine runs two threads at once: spinning for another thread pays only then.
pub(super) fn spinning_pays() -> bool {
    static MANY: OnceLock<bool> = OnceLock::new();
    *MANY.get_or_init(|| std::thread::available_parallelism().is_ok_and(|cpus| cpus.get() > 1))
}

/// Gives `job` to the hot thread when it is free; otherwise hands it back (for the blocking
/// pool).
pub(super) fn offer(job: Job) -> Result<(), Job> {
    let Some((shared, thread)) = THREAD.get_or_init(start) else { return Err(job) };
    let was = match shared.state.compare_exchange(HOT, TAKEN, Ordering::AcqRel, Ordering::Acquire) {
        Ok(_) => HOT,
        Err(PARKED) if shared.state.compare_exchange(PARKED, TAKEN, Ordering::AcqRel, Ordering::Acquire).is_ok() => {
            PARKED
        }
        Err(_) => return Err(job),
    };
    *lock(&shared.job) = Some(job);
    if was == PARKED {
        thread.unpark();
    }
    Ok(())
}

fn start() -> Option<(Arc<Shared>, std::thread::Thread)> {
    let shared = Arc::new(Shared::default());
    let own = Arc::clone(&shared);
    let started = std::thread::Builder::new().name("mcp-plain-fn-hot".into()).spawn(move || run(&own));
    match started {
        Ok(handle) => Some((shared, handle.thread().clone())),
        Err(e) => {
            tracing::warn!(error = %e, "the hot thread for plain fns could not start: they use the blocking pool");
            None
        }
    }
}

/// The thread: runs each body given to it, then stays awake for the next one for
/// [`STAY_HOT`] (when spinning pays), then parks until one is given.
fn run(shared: &Shared) {
    let stay_hot = if spinning_pays() { STAY_HOT } else { Duration::ZERO };
    let mut free_since = Instant::now();
    loop {
        match shared.state.load(Ordering::Acquire) {
            TAKEN => match lock(&shared.job).take() {
                Some(job) => {
                    // The job catches its body's panic and sends it as its answer; this one is
                    // for a panic in dropping an answer nobody waits for any more (the user's
                    // output type may panic in `drop`), so that the thread lives on.
                    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(job));
                    free_since = Instant::now();
                    shared.state.store(HOT, Ordering::Release);
                }
                // Taken, its job not stored yet: it is a few instructions away.
                None => std::hint::spin_loop(),
            },
            HOT if free_since.elapsed() < stay_hot => std::hint::spin_loop(),
            HOT => {
                if shared.state.compare_exchange(HOT, PARKED, Ordering::AcqRel, Ordering::Acquire).is_ok() {
                    park_while_parked(shared);
                }
            }
            _ => park_while_parked(shared),
        }
    }
}

/// Parks until a body is given (a wake-up with none is spurious).
fn park_while_parked(shared: &Shared) {
    while shared.state.load(Ordering::Acquire) == PARKED {
        std::thread::park();
    }
}
