//! Building on each change, one build at a time, and telling every proxy how each ended.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::mpsc;

use super::Event;
use super::package::Package;

/// Changes closer together than this make one rebuild (an editor saving several files).
const SETTLE: Duration = Duration::from_millis(50);

/// The build loop's handle: where changes go, who hears of builds.
#[derive(Debug, Clone)]
pub(crate) struct Builds {
    changes: mpsc::UnboundedSender<PathBuf>,
    subscribers: Arc<Mutex<Vec<mpsc::UnboundedSender<Event>>>>,
}

impl Builds {
    /// Starts the loop that builds `package` after each change.
    pub(crate) fn start(package: Package) -> Builds {
        let (changes, mut changed) = mpsc::unbounded_channel::<PathBuf>();
        let subscribers: Arc<Mutex<Vec<mpsc::UnboundedSender<Event>>>> = Arc::default();
        let told = subscribers.clone();
        tokio::spawn(async move {
            while let Some(path) = changed.recv().await {
                // Let an editor's burst of writes end, so that one build sees them all; what
                // changes during a build makes the next one.
                tokio::time::sleep(SETTLE).await;
                while changed.try_recv().is_ok() {}
                eprintln!("mcp dev: {} changed; building", path.display());
                let outcome = package.build().await;
                if outcome.is_err() {
                    eprintln!("mcp dev: the build failed; the server that was running keeps serving");
                }
                let mut subscribers = told.lock().unwrap_or_else(|e| e.into_inner());
                subscribers.retain(|proxy| proxy.send(Event::Built(outcome.clone())).is_ok());
            }
        });
        Builds { changes, subscribers }
    }

    /// Where the watcher reports a changed path.
    pub(crate) fn changes(&self) -> mpsc::UnboundedSender<PathBuf> {
        self.changes.clone()
    }

    /// Tells `proxy` of every build from now on.
    pub(crate) fn subscribe(&self, proxy: mpsc::UnboundedSender<Event>) {
        self.subscribers.lock().unwrap_or_else(|e| e.into_inner()).push(proxy);
    }
}
