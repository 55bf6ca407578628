//! The path to the runtime crate: `::mcp_runtime`, or what `crate = "..."` names.

use proc_macro2::TokenStream;
use quote::quote;

/// Where generated code finds the runtime.
pub(crate) struct RuntimePath(Option<syn::Path>);

impl RuntimePath {
    pub(crate) fn new(custom: Option<syn::Path>) -> Self {
        RuntimePath(custom)
    }

    /// `use <runtime> as __mcp;`, placed first inside the generated `const _` block; every
    /// other generated path starts with `__mcp::`.
    pub(crate) fn import(&self) -> TokenStream {
        match &self.0 {
            Some(path) => quote!(use #path as __mcp;),
            None => quote!(
                use ::mcp_runtime as __mcp;
            ),
        }
    }
}
