//! `#[mcp_tool]`: parse → model → check → expand.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::ItemFn;
use syn::spanned::Spanned;

use crate::ast::{FnItem, ParamKind, TOOL, doc_text};
use crate::attr::ToolArgs;
use crate::check;
use crate::ctxt::{Ctxt, to_compile_errors};
use crate::expand::{Declaration, Method, common_builder, finish_handler, item_name, nameable_return, return_span};
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
    check::common_args(&cx, &args.common);
    let tool = FnItem::from_syn(&cx, item, TOOL);
    check::tool(&cx, &args, &tool);
    match cx.check() {
        Ok(()) => render(&mut args, &tool).render(),
        Err(errors) => fallback(&args, &tool, errors),
    }
}

/// Expands `#[mcp_tool(args)]` on a method of an `#[mcp_server]` block whose runtime path is
/// `krate` (unless `args` gives one).
pub(crate) fn method(args: TokenStream, item: ItemFn, krate: Option<&syn::Path>) -> Method {
    let cx = Ctxt::new();
    let mut args = ToolArgs::parse(&cx, args);
    args.common.krate.or_insert(krate.cloned());
    check::common_args(&cx, &args.common);
    let tool = FnItem::from_method(&cx, item, TOOL);
    check::tool(&cx, &args, &tool);
    let build = cx.check().map(|()| render(&mut args, &tool).render_method());
    Method { item: tool.item, build }
}

fn render<'a>(args: &mut ToolArgs, tool: &'a FnItem) -> Declaration<'a> {
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
    if let Some(policy) = args.task.get() {
        let variant = format_ident!(
            "{}",
            match policy.value().as_str() {
                "optional" => "Optional",
                "required" => "Required",
                _ => "Never",
            }
        );
        builder.push(quote!(.task(__mcp::tasks::TaskSupport::#variant)));
    }
    if args.task_after_input.get().is_some_and(|flag| flag.value()) {
        builder.push(quote!(.task_after_input()));
    }
    for param in tool.params.iter() {
        if let Some(header) = &param.header {
            let argument = &param.wire_name;
            builder.push(quote!(.header_param(#argument, #header)));
        }
    }
    let returns = nameable_return(&tool.item.sig);
    let output_schema = match (args.output_schema.get(), &returns) {
        (Some(schema), _) => quote!(::core::option::Option::Some(#schema)),
        (None, Some(ty)) => quote!(__mcp::__private::ReturnSchema::<#ty>(::core::marker::PhantomData).output_schema()),
        (None, None) => quote!(::core::option::Option::None),
    };

    let (args_struct, args_ty) = arguments_struct(tool);
    let call = tool.call(|p| {
        let id = &p.ident;
        match p.kind {
            ParamKind::Argument => quote!(__mcp_args.#id),
            ParamKind::Flatten => quote!(__mcp_args.0),
            ParamKind::Context { by_ref: true } => quote!(&__mcp_ctx),
            ParamKind::Context { by_ref: false } => quote!(__mcp_ctx.clone()),
            ParamKind::State => {
                let local = p.local();
                quote!(#local)
            }
        }
    });
    let states = tool.state_bindings(&quote!(&__mcp_ctx), &quote!(::core::convert::From::from(__mcp_missing)));
    let span = return_span(&tool.item.sig);
    let convert = match &returns {
        Some(_) => quote!(__mcp::__private::ToolReturn(#call).into_call_result()),
        None => {
            let value = quote_spanned!(span=> __mcp_value);
            quote! {{
                let __mcp_value = #call;
                __mcp::IntoToolResult::into_tool_result(#value)
            }}
        }
    };
    // The handler is set at the function's name: when the function's future is not `Send`,
    // that is where the compiler says so.
    let handler = quote! {
        |__mcp_args: #args_ty, __mcp_ctx: __mcp::Context| async move {
            let _ = &__mcp_ctx;
            #states
            #convert
        }
    };
    let descriptor = quote!(__mcp::__private::with_output_schema(descriptor, #output_schema));
    let with_handler = if args.common.is_local() {
        quote_spanned!(ident.span()=> #descriptor.local_handler_with_context(#handler))
    } else {
        quote_spanned!(ident.span()=> __mcp::diagnostics::tool_handler(#descriptor, #handler))
    };

    let assertions = assertions(tool);
    let finished = finish_handler(&args.common, tool, with_handler);
    Declaration {
        item: quote!(#item),
        ident,
        is_function: true,
        descriptor: "ToolDescriptor",
        slice: "TOOLS",
        import,
        support: quote!(#args_struct #assertions),
        build: quote! {
            #[allow(unused_imports)]
            use __mcp::__private::{NoReturnSchema as _, NotAToolReturn as _};
            let descriptor = __mcp::ToolDescriptor::new(#name) #(#builder)*;
            #finished
        },
    }
}

/// The hidden struct the arguments deserialize into (or the flattened user struct).
///
/// Its `Deserialize` and `JsonSchema` impls are written out here rather than derived: each
/// argument is read and described through one runtime call whose bound sits at the user's
/// parameter type, so a type that cannot be an argument is reported there, once.
fn arguments_struct(tool: &FnItem) -> (TokenStream, TokenStream) {
    if let Some(flat) = tool.params.iter().find(|p| matches!(p.kind, ParamKind::Flatten)) {
        return flattened_struct(&flat.ty);
    }
    let args: Vec<_> = tool.arguments().collect();
    let fields = args.iter().map(|p| {
        let (id, ty) = (&p.ident, &p.ty);
        quote!(#id: #ty)
    });
    let slots = args.iter().map(|p| {
        let (id, ty) = (&p.ident, &p.ty);
        quote!(let mut #id: ::core::option::Option<#ty> = ::core::option::Option::None;)
    });
    let arms = args.iter().map(|p| {
        let (id, ty, name) = (&p.ident, &p.ty, &p.wire_name);
        let read = quote_spanned!(ty.span()=> __mcp::diagnostics::next_arg::<#ty, __A>(&mut map)?);
        quote! {
            #name => {
                if #id.is_some() {
                    return ::core::result::Result::Err(__mcp::__private::serde::de::Error::duplicate_field(#name));
                }
                #id = ::core::option::Option::Some(#read);
            }
        }
    });
    let takes = args.iter().map(|p| {
        let (id, ty, name) = (&p.ident, &p.ty, &p.wire_name);
        let missing = if p.default {
            quote_spanned!(ty.span()=> <#ty as __mcp::diagnostics::DefaultArgument>::default_argument())
        } else {
            quote_spanned!(ty.span()=> __mcp::diagnostics::missing_arg::<#ty, __A::Error>(#name)?)
        };
        quote! {
            #id: match #id {
                ::core::option::Option::Some(value) => value,
                ::core::option::Option::None => #missing,
            }
        }
    });
    let describe = args.iter().map(|p| {
        let (ty, name, default) = (&p.ty, &p.wire_name, p.default);
        let description = match doc_text(&p.docs) {
            Some(text) => quote!(::core::option::Option::Some(#text)),
            None => quote!(::core::option::Option::None),
        };
        let optional = quote!(#default || __mcp::diagnostics::ArgKind::<#ty>::new().optional());
        quote_spanned!(ty.span()=> schema.arg::<#ty>(generator, #name, #description, #optional);)
    });
    let strukt = quote! {
        #[allow(non_camel_case_types, non_snake_case)]
        struct __McpArgs {
            #(#fields,)*
        }

        #[automatically_derived]
        impl<'de> __mcp::__private::serde::Deserialize<'de> for __McpArgs {
            fn deserialize<__D>(deserializer: __D) -> ::core::result::Result<Self, __D::Error>
            where
                __D: __mcp::__private::serde::Deserializer<'de>,
            {
                struct __Visitor;

                impl<'de> __mcp::__private::serde::de::Visitor<'de> for __Visitor {
                    type Value = __McpArgs;

                    fn expecting(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                        __mcp::diagnostics::expecting(f)
                    }

                    #[allow(unused_mut)]
                    fn visit_map<__A>(self, mut map: __A) -> ::core::result::Result<__McpArgs, __A::Error>
                    where
                        __A: __mcp::__private::serde::de::MapAccess<'de>,
                    {
                        #(#slots)*
                        while let ::core::option::Option::Some(key) = map.next_key::<__mcp::__private::ArgName<'de>>()? {
                            match &*key.0 {
                                #(#arms)*
                                _ => {
                                    map.next_value::<__mcp::__private::serde::de::IgnoredAny>()?;
                                }
                            }
                        }
                        ::core::result::Result::Ok(__McpArgs { #(#takes,)* })
                    }
                }

                deserializer.deserialize_map(__Visitor)
            }
        }

        #[automatically_derived]
        impl __mcp::__private::schemars::JsonSchema for __McpArgs {
            fn schema_name() -> ::std::borrow::Cow<'static, str> {
                ::std::borrow::Cow::Borrowed("arguments")
            }

            fn inline_schema() -> bool {
                true
            }

            #[allow(unused_imports)]
            fn json_schema(
                generator: &mut __mcp::__private::schemars::SchemaGenerator,
            ) -> __mcp::__private::schemars::Schema {
                use __mcp::diagnostics::RequiredArg as _;
                let mut schema = __mcp::diagnostics::ArgsSchema::default();
                #(#describe)*
                let _ = &generator;
                schema.finish()
            }
        }
    };
    (strukt, quote!(__McpArgs))
}

/// The hidden struct for a `#[mcp(flatten)]` parameter: a wrapper that reads and describes
/// the user's struct through runtime calls bound at the user's type, so that a struct without
/// `Deserialize` or `JsonSchema` is reported there, once.
fn flattened_struct(ty: &syn::Type) -> (TokenStream, TokenStream) {
    let read = quote_spanned!(ty.span()=> __mcp::diagnostics::flattened::<#ty, __D>(deserializer));
    let describe = quote_spanned!(ty.span()=> __mcp::diagnostics::flattened_schema::<#ty>(generator));
    let strukt = quote! {
        struct __McpArgs(#ty);

        #[automatically_derived]
        impl<'de> __mcp::__private::serde::Deserialize<'de> for __McpArgs {
            fn deserialize<__D>(deserializer: __D) -> ::core::result::Result<Self, __D::Error>
            where
                __D: __mcp::__private::serde::Deserializer<'de>,
            {
                #read.map(__McpArgs)
            }
        }

        #[automatically_derived]
        impl __mcp::__private::schemars::JsonSchema for __McpArgs {
            fn schema_name() -> ::std::borrow::Cow<'static, str> {
                ::std::borrow::Cow::Borrowed("arguments")
            }

            fn json_schema(
                generator: &mut __mcp::__private::schemars::SchemaGenerator,
            ) -> __mcp::__private::schemars::Schema {
                #describe
            }
        }
    };
    (strukt, quote!(__McpArgs))
}

/// The return type's assertion, placed at the type, so a type that cannot be a result is
/// reported there.
fn assertions(tool: &FnItem) -> TokenStream {
    let Some(ty) = nameable_return(&tool.item.sig) else { return quote!() };
    let span = return_span(&tool.item.sig);
    quote_spanned!(span=> const _: () = __mcp::diagnostics::returned_by_tool::<#ty>();)
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
    Declaration {
        item: quote!(#item),
        ident: tool.ident(),
        is_function: true,
        descriptor: "ToolDescriptor",
        slice: "TOOLS",
        import: RuntimePath::new(args.common.krate.get().cloned()).import(),
        support: quote!(),
        build: quote!(__mcp::ToolDescriptor::new(#name)),
    }
    .render_errors(errors)
}
