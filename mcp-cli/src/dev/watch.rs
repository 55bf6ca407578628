//! Noticing that a source changed: the watched folders' files and modification times, polled.
//! Polling a crate's few hundred files a few times a second costs little, needs no platform
//! API, and sees editors that replace a file instead of writing it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// How often the folders are read.
const POLL: Duration = Duration::from_millis(150);

/// Folders never watched: builds' output, version control, dependencies of other tools.
const SKIPPED: [&str; 4] = ["target", ".git", "node_modules", ".jj"];

/// The files under the watched folders and when each last changed.
type Snapshot = BTreeMap<PathBuf, SystemTime>;

/// Watches `folders` (never `target_dir`), calling `changed` with the path each time a file
/// appears, changes or goes; ends when `changed` returns `false`.
pub(crate) fn spawn(folders: Vec<PathBuf>, target_dir: PathBuf, changed: impl Fn(PathBuf) -> bool + Send + 'static) {
    tokio::task::spawn_blocking(move || {
        let mut before = snapshot(&folders, &target_dir);
        loop {
            std::thread::sleep(POLL);
            let now = snapshot(&folders, &target_dir);
            if let Some(path) = first_difference(&before, &now) {
                if !changed(path) {
                    return;
                }
                before = now;
            }
        }
    });
}

fn snapshot(folders: &[PathBuf], target_dir: &Path) -> Snapshot {
    let mut files = Snapshot::new();
    for folder in folders {
        read(folder, target_dir, &mut files);
    }
    files
}

fn read(folder: &Path, target_dir: &Path, files: &mut Snapshot) {
    let Ok(entries) = std::fs::read_dir(folder) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        let Ok(kind) = entry.file_type() else { continue };
        if kind.is_dir() {
            let name = entry.file_name();
            let skipped = SKIPPED.iter().any(|s| name == *s) || name.to_string_lossy().starts_with('.');
            if !skipped && path != target_dir {
                read(&path, target_dir, files);
            }
        } else if is_source(&path)
            && let Ok(modified) = entry.metadata().and_then(|m| m.modified())
        {
            files.insert(path, modified);
        }
    }
}

/// Rust sources, manifests, and what they include (`include_str!` of JSON, HTML, Markdown...):
/// anything but editors' scratch files.
fn is_source(path: &Path) -> bool {
    let name = path.file_name().map(|n| n.to_string_lossy()).unwrap_or_default();
    !(name.starts_with('.') || name.ends_with('~') || name.ends_with(".swp") || name.ends_with(".tmp"))
}

fn first_difference(before: &Snapshot, now: &Snapshot) -> Option<PathBuf> {
    now.iter()
        .find(|(path, modified)| before.get(*path) != Some(*modified))
        .map(|(path, _)| path.clone())
        .or_else(|| before.keys().find(|path| !now.contains_key(*path)).cloned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_changed_a_new_and_a_removed_file_are_each_a_difference() {
        let t0 = SystemTime::UNIX_EPOCH;
        let t1 = t0 + Duration::from_secs(1);
        let before: Snapshot = [(PathBuf::from("a.rs"), t0), (PathBuf::from("b.rs"), t0)].into();
        assert_eq!(first_difference(&before, &before), None);
        let changed: Snapshot = [(PathBuf::from("a.rs"), t0), (PathBuf::from("b.rs"), t1)].into();
        assert_eq!(first_difference(&before, &changed), Some(PathBuf::from("b.rs")));
        let removed: Snapshot = [(PathBuf::from("a.rs"), t0)].into();
        assert_eq!(first_difference(&before, &removed), Some(PathBuf::from("b.rs")));
        assert!(!is_source(Path::new("src/.main.rs.swp")));
        assert!(is_source(Path::new("src/catalog.json")));
    }
}
