//! The server's thread for `local` handlers: those whose futures are not `Send` (they hold an
//! `Rc` or a `RefCell` guard across `.await`). One named thread, `mcp-local`, runs a
//! current-thread runtime with a `LocalSet`; it starts with the first local call and ends
//! with the server. Every transport sends its local work here.

use std::sync::OnceLock;

use tokio::sync::mpsc;

use crate::util::LocalBoxFuture;

/// A piece of local work: built on the local thread (its future never leaves it).
pub(crate) type LocalJob = Box<dyn FnOnce() -> LocalBoxFuture<'static, ()> + Send>;

/// The local thread, started on first use.
#[derive(Debug, Default)]
pub(crate) struct LocalThread {
    jobs: OnceLock<Option<mpsc::UnboundedSender<LocalJob>>>,
}

impl LocalThread {
    /// Runs `job` on the local thread; `false` when that thread could not be started.
    pub(crate) fn spawn(&self, job: LocalJob) -> bool {
        let jobs = self.jobs.get_or_init(start);
        jobs.as_ref().is_some_and(|jobs| jobs.send(job).is_ok())
    }
}

fn start() -> Option<mpsc::UnboundedSender<LocalJob>> {
    let (tx, mut rx) = mpsc::unbounded_channel::<LocalJob>();
    let spawned = std::thread::Builder::new().name("mcp-local".into()).spawn(move || {
        let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
            Ok(runtime) => runtime,
            Err(e) => {
                tracing::error!(error = %e, "the runtime for local handlers cannot start");
                return;
            }
        };
        let local = tokio::task::LocalSet::new();
        // Ends when the server (the only sender) is gone; unfinished local work is dropped.
        local.block_on(&runtime, async move {
            while let Some(job) = rx.recv().await {
                tokio::task::spawn_local(job());
            }
        });
    });
    match spawned {
        Ok(_) => Some(tx),
        Err(e) => {
            tracing::error!(error = %e, "the thread for local handlers cannot start");
            None
        }
    }
}
