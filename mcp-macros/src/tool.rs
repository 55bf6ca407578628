//! `#[mcp_tool]`: parse → model → validate → expand.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::ItemFn;
use syn::spanned::Spanned;

use crate::ast::{FnItem, ParamKind, TOOL};
use crate::attr::ToolArgs;
use crate::ctxt::{Ctxt, to_compile_errors};
use crate::expand::{Fallback, common_builder, declaration_struct, item_name, registration};
use crate::paths::RuntimePath;

/// Expands `#[mcp_tool(args)] item`.
pub(crate) fn expand(args: TokenStream, item: TokenStream) -> TokenStream {
    let item: ItemFn = match syn::parse2(item.clone()) {
        Ok(item) => item,
        Err(e) => {
            let error =
                syn::Error::new(e.span(), "`#[mcp_tool]` goes on a function: `async fn name(...) -> ... { ... }`");
            let errors = to_compile_errors(error);
            return quote!(#item #errors);
        }
    };
    let cx = Ctxt::new();
    let mut args = ToolArgs::parse(&cx, args);
    let tool = FnItem::from_syn(&cx, item, TOOL);
    validate(&cx, &args);
    match cx.check() {
        Ok(()) => render(&mut args, &tool),
        Err(errors) => fallback(&args, &tool, errors),
    }
}

/// Rules that concern the arguments alone.
fn validate(cx: &Ctxt, args: &ToolArgs) {
    if let Some(name) = args.common.name.get() {
        let value = name.value();
        let valid = (1..=128).contains(&value.len())
            && value.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'));
        if !valid {
            cx.error_spanned_by(
                name,
                "a tool name must be 1 to 128 characters among `A-Z`, `a-z`, `0-9`, `_`, `-` and `.`",
            );
        }
    }
}

fn render(args: &mut ToolArgs, tool: &FnItem) -> TokenStream {
    let item = &tool.item;
    let ident = tool.ident();
    let import = RuntimePath::new(args.common.krate.take()).import();
    let name = item_name(&args.common, ident);
    let mut builder = common_builder(&args.common, &tool.docs, ident);
    for (slot, method) in [
        (&args.read_only, "read_only"),
        (&args.destructive, "destructive"),
        (&args.idempotent, "idempotent"),
        (&args.open_world, "open_world"),
    ] {
        if let Some(value) = slot.get() {
            let method = format_ident!("{method}");
            builder.push(quote!(.#method(#value)));
        }
    }
    if let Some(schema) = args.input_schema.get() {
        builder.push(quote!(.input_schema(#schema)));
    }
    let output_schema = match (args.output_schema.get(), &tool.item.sig.output) {
        (Some(schema), _) => quote!(::core::option::Option::Some(#schema)),
        (None, syn::ReturnType::Type(_, ty)) if !contains_impl_trait(ty) => {
            quote!(__mcp::__private::ReturnSchema::<#ty>(::core::marker::PhantomData).output_schema())
        }
        (None, _) => quote!(::core::option::Option::None),
    };

    let (args_struct, args_ty) = arguments_struct(tool);
    let call_args = tool.params.iter().map(|p| {
        let id = &p.ident;
        match p.kind {
            ParamKind::Argument => quote!(__mcp_args.#id),
            ParamKind::Flatten => quote!(__mcp_args),
            ParamKind::Context { by_ref: true } => quote!(&__mcp_ctx),
            ParamKind::Context { by_ref: false } => quote!(__mcp_ctx.clone()),
        }
    });
    let call = if tool.is_async() { quote!(#ident(#(#call_args),*).await) } else { quote!(#ident(#(#call_args),*)) };
    let assertions = assertions(tool);
    let declaration = declaration_struct(&tool.item.vis, ident, "mcp_tool", "tool");
    let registration = registration("TOOLS", "ToolDescriptor", ident);

    quote! {
        #item

        #declaration

        const _: () = {
            #import

            #args_struct

            #assertions

            #[automatically_derived]
            impl ::core::convert::From<#ident> for __mcp::ToolDescriptor {
                fn from(_: #ident) -> Self {
                    #[allow(unused_imports)]
                    use __mcp::__private::{NoReturnSchema as _, NotAToolReturn as _};
                    let descriptor = __mcp::ToolDescriptor::new(#name) #(#builder)*;
                    __mcp::__private::with_output_schema(descriptor, #output_schema).handler_with_context(
                        |__mcp_args: #args_ty, __mcp_ctx: __mcp::Context| async move {
                            let _ = &__mcp_ctx;
                            __mcp::__private::ToolReturn(#call).into_call_result()
                        },
                    )
                }
            }

            #registration
        };
    }
}

/// The hidden struct the arguments deserialize into (or the flattened user struct).
fn arguments_struct(tool: &FnItem) -> (TokenStream, TokenStream) {
    if let Some(flat) = tool.params.iter().find(|p| matches!(p.kind, ParamKind::Flatten)) {
        let ty = &flat.ty;
        return (quote!(), quote!(#ty));
    }
    let fields = tool.params.iter().filter(|p| matches!(p.kind, ParamKind::Argument)).map(|p| {
        let id = &p.ident;
        let ty = &p.ty;
        let docs = &p.docs;
        let attrs = &p.field_attrs;
        quote!(#(#[doc = #docs])* #(#attrs)* #id: #ty)
    });
    let strukt = quote! {
        #[derive(__mcp::__private::serde::Deserialize, __mcp::__private::schemars::JsonSchema)]
        #[serde(crate = "__mcp::__private::serde")]
        #[schemars(crate = "__mcp::__private::schemars")]
        #[allow(non_camel_case_types, non_snake_case)]
        struct __McpArgs {
            #(#fields,)*
        }
    };
    (strukt, quote!(__McpArgs))
}

/// Trait assertions placed at the user's tokens, so a type that cannot serve points there.
fn assertions(tool: &FnItem) -> TokenStream {
    let ret = match &tool.item.sig.output {
        syn::ReturnType::Type(_, ty) if !contains_impl_trait(ty) => {
            let span = ty.span();
            quote_spanned!(span=> __mcp::__private::assert_tool_result::<#ty>();)
        }
        syn::ReturnType::Type(..) => quote!(),
        syn::ReturnType::Default => quote!(),
    };
    quote! {
        const _: () = { #ret };
    }
}

fn contains_impl_trait(ty: &syn::Type) -> bool {
    quote!(#ty).to_string().contains("impl ")
}

/// The expansion when the declaration has errors.
fn fallback(args: &ToolArgs, tool: &FnItem, errors: syn::Error) -> TokenStream {
    let item = &tool.item;
    if item.sig.receiver().is_some() {
        // A method sits in an `impl` block, where no struct or `const _` may follow it.
        let errors = errors.to_compile_error();
        return quote!(#item #errors);
    }
    let name = item_name(&args.common, tool.ident());
    Fallback {
        item: quote!(#item),
        vis: &item.vis,
        ident: tool.ident(),
        attr: "mcp_tool",
        method: "tool",
        import: RuntimePath::new(args.common.krate.get().cloned()).import(),
        stub: quote!(__mcp::ToolDescriptor::new(#name)),
        descriptor: "ToolDescriptor",
    }
    .render(errors)
}
