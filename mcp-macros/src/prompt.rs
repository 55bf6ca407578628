//! `#[mcp_prompt]`: a function whose parameters are the prompt's arguments (parsed from
//! strings; `Option` ones optional) and whose return value is its messages.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::ItemFn;
use syn::spanned::Spanned;

use crate::ast::{FnItem, PROMPT, doc_text, unraw};
use crate::attr::PromptArgs;
use crate::check;
use crate::ctxt::Ctxt;
use crate::expand::{
    Declaration, Method, common_builder, completer, finish_handler, item_name, nameable_return, return_span,
};
use crate::paths::RuntimePath;

/// Expands `#[mcp_prompt(args)] item`.
pub(crate) fn expand(args: TokenStream, item: TokenStream) -> TokenStream {
    let item: ItemFn = match syn::parse2(item.clone()) {
        Ok(item) => item,
        Err(e) => {
            let error =
                syn::Error::new(e.span(), "`#[mcp_prompt]` goes on a function: `fn name(...) -> String { ... }`");
            let errors = error.to_compile_error();
            return quote!(#item #errors);
        }
    };
    let cx = Ctxt::new();
    let mut args = PromptArgs::parse(&cx, args);
    check::common_args(&cx, &args.common);
    let prompt = FnItem::from_syn(&cx, item, PROMPT);
    check::prompt(&cx, &args, &prompt);
    match cx.check() {
        Ok(()) => render(&mut args, &prompt).render(),
        Err(errors) => {
            let item = &prompt.item;
            if item.sig.receiver().is_some() {
                let errors = errors.to_compile_error();
                return quote!(#item #errors);
            }
            let name = item_name(&args.common, prompt.ident());
            Declaration {
                import: RuntimePath::new(args.common.krate.get().cloned()).import(),
                build: quote!(__mcp::PromptDescriptor::new(#name)),
                ..declaration(&prompt)
            }
            .render_errors(errors)
        }
    }
}

/// Expands `#[mcp_prompt(args)]` on a method of an `#[mcp_server]` block (see `tool::method`).
pub(crate) fn method(args: TokenStream, item: ItemFn, krate: Option<&syn::Path>) -> Method {
    let cx = Ctxt::new();
    let mut args = PromptArgs::parse(&cx, args);
    args.common.krate.or_insert(krate.cloned());
    check::common_args(&cx, &args.common);
    let prompt = FnItem::from_method(&cx, item, PROMPT);
    check::prompt(&cx, &args, &prompt);
    let build = cx.check().map(|()| render(&mut args, &prompt).render_method());
    Method { item: prompt.item, build }
}

fn render<'a>(args: &mut PromptArgs, prompt: &'a FnItem) -> Declaration<'a> {
    let item = &prompt.item;
    let ident = prompt.ident();
    let import = RuntimePath::new(args.common.krate.take()).import();
    let name = item_name(&args.common, ident);
    let mut calls = common_builder(&args.common, &prompt.docs, ident);
    let arguments: Vec<_> = prompt.arguments().collect();
    for param in &arguments {
        let arg = &param.wire_name;
        let ty = &param.ty;
        let description = match doc_text(&param.docs) {
            Some(text) => quote!(::core::option::Option::Some(#text)),
            None => quote!(::core::option::Option::None),
        };
        calls.push(quote!(.argument(#arg, #description, !__mcp::diagnostics::ArgKind::<#ty>::new().optional())));
    }
    for entry in &args.complete {
        // Completed under its name on the wire.
        let arg = arguments
            .iter()
            .find(|p| unraw(&p.ident) == unraw(&entry.name) || p.wire_name == unraw(&entry.name))
            .map_or_else(|| entry.name.to_string(), |p| p.wire_name.clone());
        let completer = completer(&entry.completer);
        calls.push(quote!(.complete(#arg, #completer)));
    }
    let bindings = arguments.iter().map(|p| {
        let id = p.local();
        let ty = &p.ty;
        let arg = &p.wire_name;
        quote_spanned!(ty.span()=> let #id: #ty = __mcp::diagnostics::ArgKind::<#ty>::new().parse_prompt(&__mcp_get, #arg)?;)
    });
    let call = prompt.call_with_context_of(&quote!(__mcp_get));
    let returns = nameable_return(&item.sig);
    let span = return_span(&item.sig);
    let assertion = returns
        .as_ref()
        .map(|ty| quote_spanned!(span=> const _: () = __mcp::diagnostics::returned_by_prompt::<#ty>();));
    let convert = match &returns {
        Some(_) => quote!(__mcp::__private::PromptReturn(#call).into_prompt_result()),
        None => quote!(__mcp::IntoPromptResult::into_prompt_result(#call)),
    };
    let states = prompt.state_bindings(
        &quote!(__mcp_get.context()),
        &quote!(::core::result::Result::Err(::core::convert::From::from(__mcp_missing))),
    );
    let handler = quote! {
        |__mcp_get: __mcp::PromptGet| async move {
            #(#bindings)*
            #states
            #convert
        }
    };
    // At the function's name: a future that is not `Send` is reported there.
    let span = prompt.ident().span();
    let with_handler = if args.common.is_local() {
        quote_spanned!(span=> __mcp::__private::with_local_prompt_handler(descriptor, #handler))
    } else {
        quote_spanned!(span=> __mcp::diagnostics::prompt_handler(descriptor, #handler))
    };
    let finished = finish_handler(&args.common, prompt, with_handler);
    Declaration {
        import,
        support: quote!(#assertion),
        build: quote! {
            #[allow(unused_imports)]
            use __mcp::__private::NotPromptResult as _;
            #[allow(unused_imports)]
            use __mcp::diagnostics::RequiredArg as _;
            let descriptor = __mcp::PromptDescriptor::new(#name) #(#calls)*;
            #finished
        },
        ..declaration(prompt)
    }
}

/// The parts of a prompt declaration that do not depend on its arguments.
fn declaration(prompt: &FnItem) -> Declaration<'_> {
    let item = &prompt.item;
    Declaration {
        item: quote!(#item),
        ident: prompt.ident(),
        is_function: true,
        descriptor: "PromptDescriptor",
        slice: "PROMPTS",
        import: TokenStream::new(),
        support: TokenStream::new(),
        build: TokenStream::new(),
    }
}
