//! The process's limit on open files: each connection takes one, so the default connection
//! limit is read from it, and a program that owns its process raises it.

/// The connection limit when none is configured: the process's file limit, less what the
/// rest of the server needs.
pub(crate) fn default_max_connections(reserved: usize) -> usize {
    const UNLIMITED: usize = 1 << 20;
    file_limit().map_or(UNLIMITED, |limit| limit.saturating_sub(reserved).clamp(1, UNLIMITED))
}

/// The soft limit on open files, when there is one.
#[cfg(unix)]
fn file_limit() -> Option<usize> {
    let limit = rustix::process::getrlimit(rustix::process::Resource::Nofile);
    limit.current.and_then(|soft| usize::try_from(soft).ok())
}

#[cfg(not(unix))]
fn file_limit() -> Option<usize> {
    None
}

/// Raises the soft limit on open files to the hard one, as servers do at start (a soft limit
/// of 1,024 is common, and each connection takes a file). For programs that own their process
/// ([`Server::run`](crate::Server::run)); the library's building blocks leave it alone.
#[cfg(unix)]
pub(crate) fn raise_file_limit() {
    use rustix::process::{Resource, getrlimit, setrlimit};
    let limit = getrlimit(Resource::Nofile);
    if limit.current != limit.maximum {
        let raised = rustix::process::Rlimit { current: limit.maximum, maximum: limit.maximum };
        if let Err(e) = setrlimit(Resource::Nofile, raised) {
            tracing::debug!(error = %e, "the soft limit on open files could not be raised");
        }
    }
}

#[cfg(not(unix))]
pub(crate) fn raise_file_limit() {}
