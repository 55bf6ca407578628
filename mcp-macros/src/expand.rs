//! Pieces every declaring macro's expansion shares.

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::Expr;

use crate::ast::{FnItem, doc_text, unraw};
use crate::attr::{CommonArgs, MetaValue};
use crate::check;

/// Builder calls for the common keys: title, description (explicit, else the doc comment),
/// icons, `_meta`, and where the item is defined.
pub(crate) fn common_builder(common: &CommonArgs, docs: &[Expr], ident: &Ident) -> Vec<TokenStream> {
    let mut calls = Vec::new();
    if let Some(title) = common.title.get() {
        calls.push(quote!(.title(#title)));
    }
    match (common.description.get(), doc_text(docs)) {
        (Some(description), _) => calls.push(quote!(.description(#description))),
        (None, Some(docs)) => calls.push(quote!(.description(#docs))),
        // A warning at the item's name (see `mcp_runtime::diagnostics::MissingDescription`).
        (None, None) => calls.push(quote_spanned!(ident.span()=> .add_a_description())),
    }
    for icon in &common.icons {
        calls.push(quote!(.icon(__mcp::protocol::Icon::new(#icon))));
    }
    for tag in &common.tags {
        calls.push(quote!(.tag(#tag)));
    }
    for scope in &common.scopes {
        calls.push(quote!(.scope(#scope)));
    }
    for entry in &common.meta {
        let key = &entry.key;
        let value = meta_value(&entry.value);
        calls.push(quote!(.meta(#key, #value)));
    }
    let location = quote_spanned!(ident.span()=> ::core::concat!(::core::file!(), ":", ::core::line!()));
    calls.push(quote!(.defined_at(#location)));
    calls
}

/// A `_meta` value as a `serde_json::Value` expression.
fn meta_value(value: &MetaValue) -> TokenStream {
    match value {
        MetaValue::Lit(lit) => quote!(__mcp::__private::serde_json::Value::from(#lit)),
        MetaValue::Object(entries) => {
            let keys = entries.iter().map(|entry| &entry.key);
            let values = entries.iter().map(|entry| meta_value(&entry.value));
            quote!({
                let mut object = __mcp::__private::serde_json::Map::new();
                #(object.insert(::core::convert::Into::into(#keys), #values);)*
                __mcp::__private::serde_json::Value::Object(object)
            })
        }
    }
}

/// The item's name on the wire: `name = "..."`, else its identifier (without `r#`).
pub(crate) fn item_name(common: &CommonArgs, ident: &Ident) -> String {
    match common.name.get() {
        Some(name) => name.value(),
        None => unraw(ident),
    }
}

/// A method of an `#[mcp_server]` block once its attribute is read: the method as it is
/// re-emitted, and the expression building its descriptor, or the errors.
pub(crate) struct Method {
    pub(crate) item: syn::ItemFn,
    pub(crate) build: syn::Result<TokenStream>,
}

/// A declaration's expansion: the item as written and, in a block the user cannot name, the
/// runtime import, supporting items and (unless the declaration has errors) the link-time
/// registration, which pairs the function's item type with the code that builds its descriptor.
/// `.tool(my_function)` finds it by that type, so nothing is added to the user's namespaces.
pub(crate) struct Declaration<'a> {
    /// The item, re-emitted.
    pub(crate) item: TokenStream,
    pub(crate) ident: &'a Ident,
    /// Whether the item is a function, which `.tool(..)` and the like can take. A `const`'s
    /// type is not its own (`&str`), so a `const` resource is offered by `Server::new` only.
    pub(crate) is_function: bool,
    /// `ToolDescriptor`, `ResourceDescriptor`, `PromptDescriptor`.
    pub(crate) descriptor: &'static str,
    /// `TOOLS`, `RESOURCES`, `PROMPTS`.
    pub(crate) slice: &'static str,
    pub(crate) import: TokenStream,
    /// Items the builder needs (argument structs, assertions).
    pub(crate) support: TokenStream,
    /// An expression of the descriptor type.
    pub(crate) build: TokenStream,
}

impl Declaration<'_> {
    /// The expansion of a valid declaration.
    pub(crate) fn render(self) -> TokenStream {
        self.render_with(None)
    }

    /// The expansion when the declaration has errors: the item as written (so uses of it still
    /// compile), no registration, and the errors.
    pub(crate) fn render_errors(self, errors: syn::Error) -> TokenStream {
        self.render_with(Some(errors))
    }

    /// The expression that builds the descriptor of a method of an `#[mcp_server]` block, in
    /// the block's `McpServer` impl: its supporting items in a block of its own.
    pub(crate) fn render_method(self) -> TokenStream {
        let Declaration { import, support, build, .. } = self;
        quote! {{
            #import
            #support
            #[allow(unused_imports)]
            use __mcp::diagnostics::MissingDescription as _;
            #build
        }}
    }

    fn render_with(self, errors: Option<syn::Error>) -> TokenStream {
        let Declaration { item, ident, is_function, descriptor, slice, import, support, build } = self;
        let descriptor = Ident::new(descriptor, proc_macro2::Span::call_site());
        let slice = Ident::new(slice, proc_macro2::Span::call_site());
        let selector = if is_function {
            quote!(__mcp::__private::item_type_of(&#ident))
        } else {
            quote!({
                struct __McpNotAFunction;
                ::core::any::TypeId::of::<__McpNotAFunction>()
            })
        };
        let registration = errors.is_none().then(|| {
            quote! {
                #[__mcp::__private::linkme::distributed_slice(__mcp::__private::#slice)]
                #[linkme(crate = __mcp::__private::linkme)]
                static __MCP_DECLARE: __mcp::__private::Declared<__mcp::#descriptor> = __mcp::__private::Declared {
                    function: || #selector,
                    build: || {
                        #[allow(unused_imports)]
                        use __mcp::diagnostics::MissingDescription as _;
                        #build
                    },
                };
            }
        });
        let errors = errors.map(|e| e.to_compile_error());
        // The block sits in the (always true) where clause of a struct whose name nobody
        // writes: a struct is what an `impl` block, where an attribute cannot tell it is,
        // refuses with one error ("struct is not supported in `trait`s or `impl`s ... move it
        // out to a nearby module scope"), with no cascade from what the block holds.
        let container = format_ident!("__mcp_declaration_of_{}", unraw(ident), span = ident.span());
        let head = quote_spanned! {ident.span()=>
            #[doc(hidden)]
            #[allow(non_camel_case_types, dead_code)]
            struct #container
        };
        quote! {
            #item

            #head where [(); {
                #import

                #support

                #registration

                0
            }]: ::core::marker::Sized {}

            #errors
        }
    }
}

/// A `complete(...)` completer, with the parameter types of a closure written in when left
/// out (`|typed| ...`), since a closure's parameters cannot be inferred through the runtime's
/// two completer shapes.
pub(crate) fn completer(expr: &Expr) -> TokenStream {
    let Expr::Closure(closure) = expr else { return quote!(#expr) };
    let mut closure = closure.clone();
    let types = [quote!(&str), quote!(&__mcp::CompletionContext)];
    for (input, ty) in closure.inputs.iter_mut().zip(types) {
        if !matches!(input, syn::Pat::Type(_)) {
            *input = syn::Pat::Type(syn::PatType {
                attrs: Vec::new(),
                pat: Box::new(input.clone()),
                colon_token: Default::default(),
                ty: Box::new(syn::parse_quote!(#ty)),
            });
        }
    }
    quote!(#closure)
}

/// Finishes a function's descriptor expression with what the runtime must know of the
/// handler: a plain (not `async`) function runs on the blocking pool (its body runs at the
/// first poll and may block its thread, which must not be a worker); its time limit; the module
/// it is written in (for the client log layer); the states it takes (checked at start-up).
pub(crate) fn finish_handler(common: &CommonArgs, function: &FnItem, descriptor: TokenStream) -> TokenStream {
    let mut out = quote!(__mcp::__private::defined_in(#descriptor, ::core::module_path!()));
    if function.item.sig.asyncness.is_none() {
        out = quote!(__mcp::__private::plain_fn(#out));
    }
    if let Some(timeout) = common.timeout.get() {
        let millis =
            check::parse_duration_ms(&timeout.value()).expect("checked by `check::common_args`: this is a bug");
        out = quote!(__mcp::__private::with_timeout(#out, #millis));
    }
    if function.takes_self {
        out = quote!(__mcp::__private::requires_state::<__mcp::State<Self>, _>(#out));
    }
    for state in function.states() {
        let ty = &state.ty;
        out = quote!(__mcp::__private::requires_state::<#ty, _>(#out));
    }
    out
}

/// The function's return type, when it can be named (`()` when none is written): `None` for
/// a type with `impl Trait` in it, which trait assertions cannot name.
pub(crate) fn nameable_return(sig: &syn::Signature) -> Option<TokenStream> {
    match &sig.output {
        syn::ReturnType::Default => Some(quote!(())),
        syn::ReturnType::Type(_, ty) => (!contains_impl_trait(ty)).then(|| quote!(#ty)),
    }
}

/// Whether `impl Trait` appears anywhere in `ty` (`Result<impl Display, E>` too), where a
/// type cannot be named outside the function. A path that merely contains the letters, such
/// as `my_impl::Out`, is nameable.
fn contains_impl_trait(ty: &syn::Type) -> bool {
    struct Finder(bool);
    impl<'ast> syn::visit::Visit<'ast> for Finder {
        fn visit_type_impl_trait(&mut self, _: &'ast syn::TypeImplTrait) {
            self.0 = true;
        }
    }
    let mut finder = Finder(false);
    syn::visit::Visit::visit_type(&mut finder, ty);
    finder.0
}

/// Where an assertion about the return type points: the type, or the parentheses when no
/// type is written.
pub(crate) fn return_span(sig: &syn::Signature) -> proc_macro2::Span {
    use syn::spanned::Spanned;
    match &sig.output {
        syn::ReturnType::Type(_, ty) => ty.span(),
        syn::ReturnType::Default => sig.paren_token.span.close(),
    }
}

#[cfg(test)]
mod tests {
    use super::contains_impl_trait;

    #[test]
    fn impl_trait_is_found_as_a_type_not_as_letters() {
        for (ty, found) in [
            ("impl std::fmt::Display", true),
            ("Result<impl std::fmt::Display, String>", true),
            ("my_impl::Out", false),
            ("impl_::Output", false),
            ("Vec<my_impl::Out>", false),
        ] {
            let ty: syn::Type = syn::parse_str(ty).expect("a type");
            assert_eq!(contains_impl_trait(&ty), found, "{}", quote::quote!(#ty));
        }
    }
}
