//! The tasks extension (`io.modelcontextprotocol/tasks`, 2026-07-28): a tool call that
//! outlives its request. A tool says whether it runs as a task ([`TaskSupport`]); a task is
//! made before its call is answered, kept in a [`TaskStore`], run detached from the request
//! and its connection, and read, answered and cancelled through `tasks/get`, `tasks/update`
//! and `tasks/cancel`.

pub(crate) mod live;
pub(crate) mod record;
pub(crate) mod store;

pub use crate::declare::task::TaskSupport;
pub use record::{TaskRecord, TaskStatus};
pub use store::{DEFAULT_TASK_LIMIT, MemoryTaskStore, TaskStore, TaskStoreError};

/// The extension's identifier, as capabilities and `_meta` name it.
pub(crate) const EXTENSION: &str = "io.modelcontextprotocol/tasks";
