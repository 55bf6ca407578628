//! Whether a tool's calls may run as tasks (the tasks extension, 2026-07-28): server policy,
//! never sent on the wire.

/// Whether a tool's calls run as tasks (the `io.modelcontextprotocol/tasks` extension of
/// 2026-07-28), when the client opts in on the request: set with `#[mcp_tool(task = "...")]`
/// or [`ToolDescriptor::task`](crate::ToolDescriptor::task).
///
/// A call that runs as a task is answered at once with the task's id; the handler goes on,
/// detached from the request and its connection, and the client polls `tasks/get` for its
/// result. The handshake revisions define no tasks: their calls always run as plain calls.
///
/// ```
/// use mcp_runtime::tasks::TaskSupport;
/// use mcp_runtime::ToolDescriptor;
///
/// let report = ToolDescriptor::new("report")
///     .task(TaskSupport::Optional)
///     .handler(|_: serde_json::Value| async { "the report" });
/// assert_eq!(report.task_support(), TaskSupport::Optional);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TaskSupport {
    /// Calls never run as tasks (the default).
    #[default]
    Never,
    /// A call runs as a task when the client opted in on the request, as a plain call
    /// otherwise.
    Optional,
    /// A call runs as a task; a 2026-07-28 client that did not opt in is refused with -32021
    /// (handshake-era calls run as plain calls, those revisions having no tasks).
    Required,
}

impl TaskSupport {
    /// What `#[mcp_tool(task = "...")]` writes: `never`, `optional` or `required`.
    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "never" => Some(TaskSupport::Never),
            "optional" => Some(TaskSupport::Optional),
            "required" => Some(TaskSupport::Required),
            _ => None,
        }
    }
}

/// A tool's task policy: whether its calls may run as tasks, and when the task starts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct TaskPolicy {
    pub(crate) support: TaskSupport,
    /// The task starts once the handler first waits on something other than a question:
    /// questions before that are asked as in any call (input-required rounds), and a handler
    /// that asks nothing first becomes a task at its first wait.
    pub(crate) after_input: bool,
}
