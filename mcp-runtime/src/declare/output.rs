//! What `Json<T>` and `Structured<T>` need of their `T`, as traits of their own so that a type
//! that falls short is reported at the user's type with what to derive (the macros' checks
//! name them through [`crate::diagnostics`]).

use schemars::JsonSchema;
use serde::Serialize;

/// What `Json<T>` and `Structured<T>` need of `T` to serialize it.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool's structured output: it is not `Serialize`",
    label = "this output type is not `serde::Serialize`",
    note = "derive it: `#[derive(serde::Serialize, schemars::JsonSchema)]`"
)]
pub trait OutputValue: Serialize {}

impl<T: Serialize> OutputValue for T {}

/// What `Json<T>` and `Structured<T>` need of `T` to declare its output schema.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot describe a tool's structured output: it is not `JsonSchema`",
    label = "this output type is not `schemars::JsonSchema`",
    note = "derive it: `#[derive(serde::Serialize, schemars::JsonSchema)]`",
    note = "if it does derive `JsonSchema`: mcp-runtime reads schemas from schemars 1.x, and a derive from another major version (such as `schemars = \"0.8\"`) does not count; depend on `schemars = \"1\"`"
)]
pub trait OutputSchema: JsonSchema {}

impl<T: JsonSchema> OutputSchema for T {}
