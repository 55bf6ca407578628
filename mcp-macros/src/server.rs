//! `#[mcp_server]`: an `impl` block whose `#[mcp_tool]`, `#[mcp_resource]` and `#[mcp_prompt]`
//! methods are items, called on the instance the server is given.
//!
//! The outer attribute runs before those of the methods, so it reads them itself: each method
//! is modeled, checked and expanded as a free function is, its descriptor built in the block's
//! `McpServer` impl instead of a link-time registration, and its `&self` read from the
//! request's states (where `Server::instance` put it) as a `State<Self>` parameter is.

use proc_macro2::TokenStream;
use quote::quote;
use syn::{ImplItem, ItemFn, ItemImpl};

use crate::ctxt::Ctxt;
use crate::expand::Method;
use crate::{prompt, resource, tool};

/// Expands `#[mcp_server(args)] impl Type { .. }`.
pub(crate) fn expand(args: TokenStream, item: TokenStream) -> TokenStream {
    let mut block: ItemImpl = match syn::parse2(item.clone()) {
        Ok(block) => block,
        Err(e) => {
            let error = syn::Error::new(
                e.span(),
                "`#[mcp_server]` goes on an `impl` block whose methods are items: \
                 `#[mcp_server] impl Counter { #[mcp_tool] fn increment(&self) -> String { .. } }`",
            );
            let errors = error.to_compile_error();
            return quote!(#item #errors);
        }
    };
    let cx = Ctxt::new();
    let krate = crate_arg(&cx, args);
    if let Some((path, _)) = &block.trait_ {
        cx.error_spanned_by(
            path,
            "`#[mcp_server]` goes on the type's own `impl` block (`impl Counter { .. }`), not on a trait's",
        );
    }
    if block.generics.lt_token.is_some() || block.generics.where_clause.is_some() {
        cx.error_spanned_by(
            &block.generics,
            "`#[mcp_server]` cannot serve a generic `impl` block: the items' schemas are fixed; write the block \
             for a concrete type",
        );
    }
    let mut kinds: [Vec<TokenStream>; 3] = Default::default();
    for member in block.items.iter_mut() {
        match member {
            ImplItem::Fn(function) => {
                let Some(index) = function.attrs.iter().position(declaring) else { continue };
                let attr = function.attrs.remove(index);
                let args = match &attr.meta {
                    syn::Meta::List(list) => list.tokens.clone(),
                    _ => TokenStream::new(),
                };
                let item = ItemFn {
                    attrs: std::mem::take(&mut function.attrs),
                    vis: function.vis.clone(),
                    modifiers: function.modifiers.clone(),
                    sig: function.sig.clone(),
                    block: Box::new(function.block.clone()),
                };
                let (slot, Method { item, build }) = match declared_name(&attr).as_str() {
                    "mcp_tool" => (0, tool::method(args, item, krate.as_ref())),
                    "mcp_resource" => (1, resource::method(args, item, krate.as_ref())),
                    _ => (2, prompt::method(args, item, krate.as_ref())),
                };
                function.attrs = item.attrs;
                function.sig = item.sig;
                match build {
                    Ok(build) => kinds[slot].push(build),
                    Err(errors) => cx.push(errors),
                }
            }
            ImplItem::Const(constant) => {
                if let Some(index) = constant.attrs.iter().position(declaring) {
                    let attr = constant.attrs.remove(index);
                    cx.error_spanned_by(
                        attr,
                        "in an `#[mcp_server]` block, items are methods: declare a `const` resource outside the \
                         `impl` block, or write a method that returns it",
                    );
                }
            }
            _ => {}
        }
    }
    let errors = cx.check().err().map(|e| e.to_compile_error());
    let runtime = match &krate {
        Some(path) => quote!(#path),
        None => quote!(::mcp_runtime),
    };
    let self_ty = &block.self_ty;
    let (impl_generics, _, where_clause) = block.generics.split_for_impl();
    let [tools, resources, prompts] = kinds;
    // The trait is implemented even when a method has errors, so that `.instance(..)` compiles
    // and the errors are the only ones.
    quote! {
        #block

        #[automatically_derived]
        impl #impl_generics #runtime::McpServer for #self_ty #where_clause {
            fn items() -> #runtime::__private::Items {
                #runtime::__private::Items {
                    tools: ::std::vec![#(#tools),*],
                    resources: ::std::vec![#(#resources),*],
                    prompts: ::std::vec![#(#prompts),*],
                }
            }
        }

        #errors
    }
}

/// `crate = "path"`: where the runtime is, when it is renamed.
fn crate_arg(cx: &Ctxt, args: TokenStream) -> Option<syn::Path> {
    let mut krate = None;
    let parser = syn::meta::parser(|meta| {
        // crate = "path"
        if meta.path.is_ident("crate") {
            let lit: syn::LitStr = meta.value()?.parse()?;
            krate = Some(lit.parse()?);
            Ok(())
        } else {
            let key = quote::ToTokens::to_token_stream(&meta.path).to_string();
            Err(meta.error(format!(
                "unknown `mcp_server` argument `{key}`; it takes only `crate = \"...\"` (an item's keys go on its \
                 method's `#[mcp_tool]`, `#[mcp_resource]` or `#[mcp_prompt]`)"
            )))
        }
    });
    if let Err(error) = syn::parse::Parser::parse2(parser, args) {
        cx.push(error);
    }
    krate
}

/// Whether `attr` is `#[mcp_tool]`, `#[mcp_resource]` or `#[mcp_prompt]` (by any path).
fn declaring(attr: &syn::Attribute) -> bool {
    matches!(declared_name(attr).as_str(), "mcp_tool" | "mcp_resource" | "mcp_prompt")
}

fn declared_name(attr: &syn::Attribute) -> String {
    attr.path().segments.last().map(|s| s.ident.to_string()).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use quote::quote;

    /// The messages of `compile_error!`s in `tokens`, as written.
    fn errors(tokens: &proc_macro2::TokenStream) -> Vec<String> {
        let text = tokens.to_string();
        text.split("compile_error ! {")
            .skip(1)
            .filter_map(|rest| rest.split('}').next())
            .map(|message| message.trim().trim_matches('"').replace("\\\"", "\"").replace("\\\\", "\\"))
            .collect()
    }

    #[test]
    fn each_receiver_but_a_shared_borrow_says_to_write_it() {
        let expanded = super::expand(
            quote!(),
            quote! {
                impl Counter {
                    /// Shared.
                    #[mcp_tool]
                    fn fine(&self) -> String { String::new() }
                    /// Exclusive.
                    #[mcp_tool]
                    fn exclusive(&mut self) -> String { String::new() }
                    /// Given away.
                    #[mcp_resource("counter://value")]
                    fn owned(self) -> String { String::new() }
                    /// Another type.
                    #[mcp_prompt]
                    fn shared(self: std::sync::Arc<Self>) -> String { String::new() }
                }
            },
        );
        let errors = errors(&expanded);
        assert_eq!(errors.len(), 3, "{errors:#?}");
        assert!(errors[0].starts_with("a tool cannot take `&mut self`"), "{}", errors[0]);
        assert!(errors[1].starts_with("a resource method takes `&self`, not `self`"), "{}", errors[1]);
        assert!(
            errors[2].starts_with("a prompt method takes `&self`, not `self: std::sync::Arc<Self>`"),
            "{}",
            errors[2]
        );
        // The block is served even so: `.instance(..)` raises no second error.
        assert!(expanded.to_string().contains("impl :: mcp_runtime :: McpServer for Counter"), "{expanded}");
    }
}
