//! `#[mcp_resource]`: on a function (a fixed resource, or a template whose variables bind to
//! the parameters by name) or on a `const` (a fixed resource with that value).

use proc_macro2::{Ident, TokenStream};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Item, ItemConst, LitStr};

use crate::ast::{FnItem, RESOURCE, docs, unraw};
use crate::attr::ResourceArgs;
use crate::check;
use crate::ctxt::Ctxt;
use crate::expand::{
    Declaration, Method, common_builder, completer, finish_handler, item_name, nameable_return, return_span,
};
use crate::paths::RuntimePath;

/// Expands `#[mcp_resource(args)] item`.
pub(crate) fn expand(args: TokenStream, item: TokenStream) -> TokenStream {
    let cx = Ctxt::new();
    let mut args = ResourceArgs::parse(&cx, args);
    check::resource_args(&cx, &args);
    let parsed = syn::parse2::<Item>(item.clone());
    let item_ident = match &parsed {
        Ok(Item::Fn(f)) => Some(f.sig.ident.clone()),
        Ok(Item::Const(c)) => Some(c.ident.clone()),
        _ => None,
    };
    let uri = check::resource_uri(&cx, &args, item_ident.as_ref());
    match parsed {
        Ok(Item::Fn(item)) => {
            let resource = FnItem::from_syn(&cx, item, RESOURCE);
            check::resource_function(&cx, &args, &resource, &uri);
            match cx.check() {
                Ok(()) => render_fn(&mut args, &resource, uri.template().is_some()).render(),
                Err(errors) => {
                    let item = &resource.item;
                    if item.sig.receiver().is_some() {
                        let errors = errors.to_compile_error();
                        return quote!(#item #errors);
                    }
                    fallback(&args, resource.ident(), quote!(#item), errors)
                }
            }
        }
        Ok(Item::Const(item)) => {
            check::resource_const(&cx, &args, &uri);
            match cx.check() {
                Ok(()) => render_const(&mut args, &item),
                Err(errors) => fallback(&args, &item.ident, quote!(#item), errors),
            }
        }
        Ok(Item::Static(item)) => {
            let name = &item.ident;
            let error = syn::Error::new(
                item.static_token.span(),
                format!(
                    "a resource is a `const` (its contents fixed when the program is built) or a function \
                     (read at each request), not a `static`: write `const {name}: ...` here, or a function that \
                     reads the `static`"
                ),
            );
            cx.push(error);
            let errors = cx.check().err().map(|e| e.to_compile_error());
            quote!(#item #errors)
        }
        _ => {
            let error = syn::Error::new(
                item.span(),
                "`#[mcp_resource]` goes on a function (`fn catalog() -> String`) or a `const`",
            );
            cx.push(error);
            let errors = cx.check().err().map(|e| e.to_compile_error());
            quote!(#item #errors)
        }
    }
}

/// Builder calls for the resource keys.
fn builder(args: &ResourceArgs, docs: &[syn::Expr], ident: &Ident) -> Vec<TokenStream> {
    let mut calls = common_builder(&args.common, docs, ident);
    if let Some(mime) = args.mime.get() {
        calls.push(quote!(.mime(#mime)));
    }
    if let Some(size) = args.size.get() {
        calls.push(quote!(.size(#size)));
    }
    if let Some(subscribe) = args.subscribe.get() {
        calls.push(quote!(.subscribable(#subscribe)));
    }
    if !args.audience.is_empty() || args.priority.get().is_some() {
        let audience = args.audience.iter().map(|a| match a.value().as_str() {
            "user" => quote!(__mcp::protocol::Role::User),
            _ => quote!(__mcp::protocol::Role::Assistant),
        });
        let audience = if args.audience.is_empty() {
            quote!(::core::option::Option::None)
        } else {
            quote!(::core::option::Option::Some(::std::vec![#(#audience),*]))
        };
        let priority = match args.priority.get() {
            Some(p) => quote!(::core::option::Option::Some(#p as f64)),
            None => quote!(::core::option::Option::None),
        };
        calls.push(quote!(.annotations(__mcp::protocol::Annotations {
            audience: #audience,
            priority: #priority,
            last_modified: ::core::option::Option::None,
        })));
    }
    if args.ttl_ms.get().is_some() || args.cache_scope.get().is_some() {
        let ttl = args.ttl_ms.get().map_or_else(|| quote!(60_000), |t| quote!(#t));
        let scope = match args.cache_scope.get().map(LitStr::value).as_deref() {
            Some("private") => quote!(__mcp::CacheScope::Private),
            _ => quote!(__mcp::CacheScope::Public),
        };
        calls.push(quote!(.cache(__mcp::CachePolicy::new(::std::time::Duration::from_millis(#ttl), #scope))));
    }
    for entry in &args.complete {
        let name = unraw(&entry.name);
        let completer = completer(&entry.completer);
        calls.push(quote!(.complete(#name, #completer)));
    }
    calls
}

fn descriptor_start(args: &ResourceArgs, name: &str, is_template: bool) -> TokenStream {
    let uri: &LitStr = args.uri.get().expect("checked by `check_uri`: this is a bug");
    if is_template {
        quote!(__mcp::__private::template(#uri, #name))
    } else {
        quote!(__mcp::ResourceDescriptor::fixed(#uri, #name))
    }
}

/// Expands `#[mcp_resource(args)]` on a method of an `#[mcp_server]` block (see
/// `tool::method`).
pub(crate) fn method(args: TokenStream, item: syn::ItemFn, krate: Option<&syn::Path>) -> Method {
    let cx = Ctxt::new();
    let mut args = ResourceArgs::parse(&cx, args);
    args.common.krate.or_insert(krate.cloned());
    check::resource_args(&cx, &args);
    let uri = check::resource_uri(&cx, &args, Some(&item.sig.ident));
    let resource = FnItem::from_method(&cx, item, RESOURCE);
    check::resource_function(&cx, &args, &resource, &uri);
    let build = cx.check().map(|()| render_fn(&mut args, &resource, uri.template().is_some()).render_method());
    Method { item: resource.item, build }
}

fn render_fn<'a>(args: &mut ResourceArgs, resource: &'a FnItem, is_template: bool) -> Declaration<'a> {
    let item = &resource.item;
    let ident = resource.ident();
    let import = RuntimePath::new(args.common.krate.take()).import();
    let name = item_name(&args.common, ident);
    let start = descriptor_start(args, &name, is_template);
    let calls = builder(args, &resource.docs, ident);
    let lister = args.list.get().map(|list| quote!(let descriptor = __mcp::__private::with_lister(descriptor, #list);));
    let returns = nameable_return(&item.sig);
    let default_mime = returns.as_ref().map(|ty| {
        quote! {
            let descriptor = __mcp::__private::with_default_mime(
                descriptor,
                __mcp::__private::ResourceMime::<#ty>(::core::marker::PhantomData).mime_type(),
            );
        }
    });
    // Parsed variables are bound under names of their own (see `Param::local`).
    let bindings = resource.arguments().map(|p| {
        let bound = p.local();
        let ty = &p.ty;
        let var = &p.wire_name;
        quote_spanned!(ty.span()=> let #bound = __mcp::diagnostics::parse_variable::<#ty>(&__mcp_read, #var)?;)
    });
    let call = resource.call_with_context_of(&quote!(__mcp_read));
    let span = return_span(&item.sig);
    let assertion = returns
        .as_ref()
        .map(|ty| quote_spanned!(span=> const _: () = __mcp::diagnostics::returned_by_resource::<#ty>();));
    let convert = match &returns {
        Some(_) => quote!(__mcp::__private::ResourceReturn(#call).into_read_result(&__mcp_read)),
        None => quote!(__mcp::IntoResourceContents::into_contents(#call, __mcp_read.uri(), __mcp_read.mime())),
    };
    let states = resource.state_bindings(
        &quote!(__mcp_read.context()),
        &quote!(::core::result::Result::Err(::core::convert::From::from(__mcp_missing))),
    );
    let reader = quote! {
        |__mcp_read: __mcp::ResourceRead| async move {
            #(#bindings)*
            #states
            #convert
        }
    };
    // At the function's name: a future that is not `Send` is reported there.
    let ident = resource.ident();
    let with_reader = if args.common.is_local() {
        quote_spanned!(ident.span()=> descriptor.local_reader(#reader))
    } else {
        quote_spanned!(ident.span()=> __mcp::diagnostics::resource_reader(descriptor, #reader))
    };
    let finished = finish_handler(&args.common, resource, with_reader);
    Declaration {
        import,
        support: quote!(#assertion),
        build: quote! {
            #[allow(unused_imports)]
            use __mcp::__private::{NoResourceMime as _, NotResourceContents as _};
            let descriptor = #start #(#calls)*;
            #default_mime
            #lister
            #finished
        },
        ..declaration(quote!(#item), ident, true)
    }
}

/// The parts of a resource declaration that do not depend on the item's kind.
fn declaration(item: TokenStream, ident: &Ident, is_function: bool) -> Declaration<'_> {
    Declaration {
        item,
        ident,
        is_function,
        descriptor: "ResourceDescriptor",
        slice: "RESOURCES",
        import: TokenStream::new(),
        support: TokenStream::new(),
        build: TokenStream::new(),
    }
}

fn render_const(args: &mut ResourceArgs, item: &ItemConst) -> TokenStream {
    let ident = &item.ident;
    let ty = &item.ty;
    let import = RuntimePath::new(args.common.krate.take()).import();
    let name = item_name(&args.common, ident);
    let start = descriptor_start(args, &name, false);
    let calls = builder(args, &docs(&item.attrs), ident);
    let assertion = quote_spanned!(ty.span()=> const _: () = __mcp::diagnostics::returned_by_resource::<#ty>(););
    Declaration {
        import,
        support: assertion,
        build: quote! {
            #[allow(unused_imports)]
            use __mcp::__private::NotResourceContents as _;
            #start #(#calls)*
                .reader(|__mcp_read: __mcp::ResourceRead| async move {
                    __mcp::__private::ResourceReturn(#ident).into_read_result(&__mcp_read)
                })
        },
        ..declaration(quote!(#item), ident, false)
    }
    .render()
}

fn fallback(args: &ResourceArgs, ident: &Ident, item: TokenStream, errors: syn::Error) -> TokenStream {
    let name = item_name(&args.common, ident);
    let uri = args.uri.get().map(LitStr::value).unwrap_or_else(|| name.clone());
    Declaration {
        import: RuntimePath::new(args.common.krate.get().cloned()).import(),
        build: quote!(__mcp::ResourceDescriptor::fixed(#uri, #name)),
        ..declaration(item, ident, true)
    }
    .render_errors(errors)
}
