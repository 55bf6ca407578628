//! `#[mcp_tool]`: parse → model → validate → expand.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{ItemFn, Lit};

use crate::ast::{ParamKind, ToolFn, doc_text};
use crate::attr::ToolArgs;
use crate::ctxt::{Ctxt, to_compile_errors};
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
    let tool = ToolFn::from_syn(&cx, item);
    validate(&cx, &args);
    match cx.check() {
        Ok(()) => render(&mut args, &tool),
        Err(errors) => fallback(&args, &tool, errors),
    }
}

/// Rules that concern the arguments alone.
fn validate(cx: &Ctxt, args: &ToolArgs) {
    if let Some(name) = args.name.get() {
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

/// The tool's name: `name = "..."`, else the function's name (without `r#`).
fn tool_name(args: &ToolArgs, tool: &ToolFn) -> String {
    match args.name.get() {
        Some(name) => name.value(),
        None => {
            let ident = tool.ident().to_string();
            ident.strip_prefix("r#").map(str::to_owned).unwrap_or(ident)
        }
    }
}

/// The descriptor type: a braced struct named like the function (it lives in the type
/// namespace, the function in the value namespace, so both names coexist).
fn descriptor_struct(tool: &ToolFn) -> TokenStream {
    let vis = &tool.item.vis;
    let ident = tool.ident();
    let doc = format!("The `#[mcp_tool]` declaration of [`{ident}()`]: `Server::builder(..).tool({ident} {{}})`.");
    quote! {
        #[doc = #doc]
        #[allow(non_camel_case_types, dead_code)]
        #vis struct #ident {}
    }
}

fn render(args: &mut ToolArgs, tool: &ToolFn) -> TokenStream {
    let item = &tool.item;
    let ident = tool.ident();
    let import = RuntimePath::new(args.krate.take()).import();
    let name = tool_name(args, tool);

    let mut builder = Vec::new();
    if let Some(title) = args.title.get() {
        builder.push(quote!(.title(#title)));
    }
    match (args.description.get(), doc_text(&tool.docs)) {
        (Some(description), _) => builder.push(quote!(.description(#description))),
        (None, Some(docs)) => builder.push(quote!(.description(#docs))),
        (None, None) => {}
    }
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
    for icon in &args.icons {
        builder.push(quote!(.icon(__mcp::protocol::Icon::new(#icon))));
    }
    for entry in &args.meta {
        let key = &entry.key;
        let value = match &entry.value {
            Lit::Str(s) => quote!(__mcp::__private::serde_json::Value::from(#s)),
            other => quote!(__mcp::__private::serde_json::Value::from(#other)),
        };
        builder.push(quote!(.meta(#key, #value)));
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
    let location = quote_spanned!(ident.span()=> ::core::concat!(::core::file!(), ":", ::core::line!()));
    builder.push(quote!(.defined_at(#location)));

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
    let descriptor = descriptor_struct(tool);

    quote! {
        #item

        #descriptor

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

            #[__mcp::__private::linkme::distributed_slice(__mcp::__private::TOOLS)]
            #[linkme(crate = __mcp::__private::linkme)]
            static __MCP_DECLARE: fn() -> __mcp::ToolDescriptor =
                || <__mcp::ToolDescriptor as ::core::convert::From<#ident>>::from(#ident {});
        };
    }
}

/// The hidden struct the arguments deserialize into (or the flattened user struct).
fn arguments_struct(tool: &ToolFn) -> (TokenStream, TokenStream) {
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
fn assertions(tool: &ToolFn) -> TokenStream {
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

/// What is emitted when the declaration has errors: the function unchanged (so calls to it
/// and the rest of the crate still compile), a stub descriptor, and the errors.
fn fallback(args: &ToolArgs, tool: &ToolFn, errors: syn::Error) -> TokenStream {
    let item = &tool.item;
    let errors = to_compile_errors(errors);
    if tool.item.sig.receiver().is_some() {
        // A method sits in an `impl` block, where no struct or `const _` may follow it.
        return quote!(#item #errors);
    }
    let ident = tool.ident();
    let name = tool_name(args, tool);
    let import = RuntimePath::new(args.krate.get().cloned()).import();
    let descriptor = descriptor_struct(tool);
    quote! {
        #item
        #descriptor
        const _: () = {
            #import
            #[automatically_derived]
            impl ::core::convert::From<#ident> for __mcp::ToolDescriptor {
                fn from(_: #ident) -> Self {
                    __mcp::ToolDescriptor::new(#name)
                }
            }
        };
        #errors
    }
}
