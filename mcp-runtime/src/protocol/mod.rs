//! The wire: JSON-RPC 2.0 framing and MCP's types for every supported revision.
//!
//! These are plain `serde` types that a client or a test can reuse. Types whose shape changed
//! between revisions have a `for_revision` method that leaves out what a revision does not
//! define and converts what it lacks to its nearest equivalent.

mod cache;
mod content;
mod jsonrpc;
mod lifecycle;
mod logging;
mod members;
mod prompts;
mod resources;
mod revision;
mod tools;

pub(crate) use cache::CachePolicies;
pub use cache::{CachePolicy, CacheScope, Cacheable};
pub use content::{Annotations, Content, ResourceContents, ResourceLink, Role};
pub use jsonrpc::{ErrorObject, RequestId, code};
pub(crate) use jsonrpc::{
    Incoming, Notification, Request, Shape, classify, error_line, excerpt, is_json_whitespace, mentions,
    notification_line, request_line, response_line, shape_of, success_line,
};
pub use lifecycle::{
    Icon, Implementation, InitializeParams, InitializeResult, ListChangedCapability, ResourcesCapability,
    ServerCapabilities,
};
pub(crate) use logging::LogMessage;
pub use logging::{LogLevel, UnknownLogLevel};
pub(crate) use members::{member, members, string_value};
pub use prompts::{Completion, GetPromptResult, MAX_COMPLETION_VALUES, Prompt, PromptArgument, PromptMessage};
pub use resources::{ReadResourceResult, Resource, ResourceTemplate};
pub use revision::{Feature, Revision};
pub use tools::{CallToolResult, Tool, ToolAnnotations};
pub(crate) use tools::{is_object_schema, wrapped_output_schema};

/// Leaves out the descriptive fields `revision` lacks: `title` and `_meta` (2025-06-18+),
/// `icons` (2025-11-25+). Every listed item (tool, resource, template, prompt) has them.
pub(crate) fn shape_descriptive_fields(
    revision: Revision,
    title: &mut Option<String>,
    icons: &mut Option<Vec<Icon>>,
    meta: &mut Option<serde_json::Map<String, serde_json::Value>>,
) {
    if !revision.supports(Feature::Titles) {
        *title = None;
    }
    if !revision.supports(Feature::Icons) {
        *icons = None;
    }
    if !revision.supports(Feature::ContentMeta) {
        *meta = None;
    }
}
