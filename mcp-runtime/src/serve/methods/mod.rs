//! The methods a server answers, one module per concern; [`crate::serve::routes`] lists them.

pub(crate) mod lifecycle;
pub(crate) mod prompts;
pub(crate) mod resources;
pub(crate) mod tools;
