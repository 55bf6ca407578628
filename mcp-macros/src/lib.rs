//! Attribute macros of `mcp-runtime`; use them through that crate (`mcp_runtime::mcp_tool`).
//!
//! Their documentation lives on the re-exports in `mcp-runtime`.

mod ast;
mod attr;
mod check;
mod ctxt;
mod expand;
mod paths;
mod prompt;
mod resource;
mod server;
#[cfg(feature = "skills")]
mod skills;
mod tool;

use proc_macro::TokenStream;

/// Declares an MCP tool. See `mcp_runtime::mcp_tool` for the documentation.
#[proc_macro_attribute]
pub fn mcp_tool(args: TokenStream, item: TokenStream) -> TokenStream {
    tool::expand(args.into(), item.into()).into()
}

/// Declares an MCP resource or resource template. See `mcp_runtime::mcp_resource`.
#[proc_macro_attribute]
pub fn mcp_resource(args: TokenStream, item: TokenStream) -> TokenStream {
    resource::expand(args.into(), item.into()).into()
}

/// Declares an MCP prompt. See `mcp_runtime::mcp_prompt`.
#[proc_macro_attribute]
pub fn mcp_prompt(args: TokenStream, item: TokenStream) -> TokenStream {
    prompt::expand(args.into(), item.into()).into()
}

/// Makes the `#[mcp_tool]`, `#[mcp_resource]` and `#[mcp_prompt]` methods of an `impl` block
/// items of the instance a server is given. See `mcp_runtime::mcp_server`.
#[proc_macro_attribute]
pub fn mcp_server(args: TokenStream, item: TokenStream) -> TokenStream {
    server::expand(args.into(), item.into()).into()
}

/// Embeds the skills under a folder of the package. See `mcp_runtime::embed_skills`.
#[cfg(feature = "skills")]
#[proc_macro]
pub fn embed_skills(input: TokenStream) -> TokenStream {
    skills::expand(input.into()).into()
}
