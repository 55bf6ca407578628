//! What every declared item has, whatever its kind: one struct in the descriptors and in the
//! registry's entries, so that a field shared by tools, resources and prompts is written once.

use std::borrow::Cow;

use crate::context::state::RequiredState;
use crate::declare::handler::HandlerSpec;
use crate::declare::scopes::Scopes;
use crate::declare::tags::Tags;

/// The parts of a declaration its kind does not change.
#[derive(Debug, Clone)]
pub(crate) struct ItemParts {
    /// Where it was declared (a file and line, or the server builder), for start-up errors.
    pub(crate) defined_at: Cow<'static, str>,
    /// How its handler runs: async or plain `fn`, and its time limit.
    pub(crate) spec: HandlerSpec,
    /// The module path its handler was defined in, when known (what the log layer filters by).
    pub(crate) origin: Option<&'static str>,
    /// The states its handler takes: checked when the server starts.
    pub(crate) required_states: Vec<RequiredState>,
    pub(crate) tags: Tags,
    /// The scopes a caller needs to see and use it.
    pub(crate) scopes: Scopes,
    /// The mount it came from (`Server::mount`), whose states and layers are its own; `None`
    /// for the server's own items.
    pub(crate) mounted: Option<usize>,
}

impl Default for ItemParts {
    fn default() -> Self {
        ItemParts {
            defined_at: Cow::Borrowed("the server builder"),
            spec: HandlerSpec::default(),
            origin: None,
            required_states: Vec::new(),
            tags: Tags::default(),
            scopes: Scopes::default(),
            mounted: None,
        }
    }
}
