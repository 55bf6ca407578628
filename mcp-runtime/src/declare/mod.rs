//! What a server is declared with: the descriptors of tools, resources and prompts (static
//! data and a type-erased handler), the traits return values go through, the code generated
//! argument parsing calls, completion, and the link-time gathering of what the macros declare.

pub(crate) mod arguments;
pub(crate) mod bounded;
pub(crate) mod completion;
pub(crate) mod handler;
pub(crate) mod item;
pub(crate) mod mounting;
pub(crate) mod output;
pub(crate) mod prompt;
pub(crate) mod resource;
pub(crate) mod scopes;
pub(crate) mod selection;
pub(crate) mod tags;
pub(crate) mod task;
pub(crate) mod tool;
