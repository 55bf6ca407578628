//! The model of an annotated function: its parameters, what each one is, its docs.

use proc_macro2::TokenStream;
use quote::quote;
use syn::{Expr, FnArg, Ident, ItemFn, Lit, Pat, Type};

use crate::attr::{ParamArgs, docs, take_docs};
use crate::ctxt::Ctxt;

/// What a parameter of a tool function is.
pub(crate) enum ParamKind {
    /// One argument of the tool, named after the parameter.
    Argument,
    /// `#[mcp(flatten)]`: a struct whose fields are the tool's arguments.
    Flatten,
    /// The request context, by value or by reference.
    Context { by_ref: bool },
    /// `State<T>`: a registered application state.
    State,
}

/// One parameter.
pub(crate) struct Param {
    pub(crate) ident: Ident,
    pub(crate) ty: Type,
    pub(crate) docs: Vec<Expr>,
    /// `#[mcp(default)]`: may be left out.
    pub(crate) default: bool,
    /// The argument's name on the wire (`#[mcp(rename)]`, else the parameter's name).
    pub(crate) wire_name: String,
    /// `#[mcp(header = "...")]`: the HTTP header (after `Mcp-Param-`) that mirrors it.
    pub(crate) header: Option<syn::LitStr>,
    pub(crate) kind: ParamKind,
}

/// Which macro is reading a function: its name and the item it declares, for messages.
#[derive(Clone, Copy)]
pub(crate) struct Declares {
    pub(crate) attr: &'static str,
    pub(crate) item: &'static str,
}

pub(crate) const TOOL: Declares = Declares { attr: "mcp_tool", item: "tool" };
pub(crate) const RESOURCE: Declares = Declares { attr: "mcp_resource", item: "resource" };
pub(crate) const PROMPT: Declares = Declares { attr: "mcp_prompt", item: "prompt" };

/// An annotated function, with our helper attributes removed from its parameters.
pub(crate) struct FnItem {
    /// The function as it is re-emitted.
    pub(crate) item: ItemFn,
    pub(crate) params: Vec<Param>,
    pub(crate) docs: Vec<Expr>,
}

impl FnItem {
    /// Builds the model, recording every mistake in `cx`; the model is usable for the
    /// fallback output whatever the errors.
    pub(crate) fn from_syn(cx: &Ctxt, mut item: ItemFn, declares: Declares) -> FnItem {
        let Declares { attr, item: what } = declares;
        let sig = &item.sig;
        if sig.generics.lt_token.is_some() || sig.generics.where_clause.is_some() {
            cx.error_spanned_by(
                &sig.generics,
                format!("`#[{attr}]` functions cannot be generic; use concrete types (a {what}'s schema is fixed)"),
            );
        }
        if let Some(variadic) = &sig.variadic {
            cx.error_spanned_by(variadic, format!("`#[{attr}]` functions cannot be variadic"));
        }
        let mut params = Vec::new();
        for input in item.sig.inputs.iter_mut() {
            match input {
                FnArg::Receiver(receiver) => cx.error_spanned_by(
                    &*receiver,
                    format!(
                        "`#[{attr}]` cannot take `self`; make it a free function and reach shared state \
                         through a parameter or a static"
                    ),
                ),
                FnArg::Typed(typed) => {
                    let docs = take_docs(&mut typed.attrs);
                    let args = ParamArgs::take(cx, &mut typed.attrs);
                    for a in typed.attrs.iter().filter(|a| a.path().is_ident("serde") || a.path().is_ident("schemars"))
                    {
                        cx.error_spanned_by(
                            a,
                            "`#[serde]` and `#[schemars]` do not apply to parameters; use `#[mcp(rename = \"...\")]` or \
                             `#[mcp(default)]`, or gather the arguments in a struct marked `#[mcp(flatten)]`, where every \
                             serde and schemars attribute works",
                        );
                    }
                    typed.attrs.retain(|a| !(a.path().is_ident("serde") || a.path().is_ident("schemars")));
                    if args.default.is_some() && what != "tool" {
                        cx.error_spanned_by(&typed.pat, "`#[mcp(default)]` applies to tool arguments only");
                    }
                    // A resource's variables are named by its URI template.
                    if args.rename.is_some() && what == "resource" {
                        cx.error_spanned_by(&typed.pat, "`#[mcp(rename)]` applies to tool and prompt arguments only");
                    }
                    let Pat::Ident(pat) = &*typed.pat else {
                        cx.error_spanned_by(
                            &typed.pat,
                            format!(
                                "`#[{attr}]` parameters must be plain names (the name is the argument's name); \
                                 destructure inside the function"
                            ),
                        );
                        continue;
                    };
                    if let Some(sub) = &pat.subpat {
                        cx.error_spanned_by(&sub.1, format!("`#[{attr}]` parameters must be plain names"));
                        continue;
                    }
                    if let Type::ImplTrait(impl_trait) = &*typed.ty {
                        cx.error_spanned_by(
                            impl_trait,
                            format!("`#[{attr}]` parameters cannot be `impl Trait`; use a concrete type"),
                        );
                        continue;
                    }
                    let mut kind = if args.context.is_some() {
                        ParamKind::Context { by_ref: matches!(&*typed.ty, Type::Reference(_)) }
                    } else if args.flatten.is_some() {
                        ParamKind::Flatten
                    } else if let Some(by_ref) = context_type(&typed.ty) {
                        ParamKind::Context { by_ref }
                    } else if is_state_type(&typed.ty) {
                        ParamKind::State
                    } else {
                        ParamKind::Argument
                    };
                    let wire_name = match &args.rename {
                        Some(rename) => rename.value(),
                        None => unraw(&pat.ident),
                    };
                    let default = args.default.is_some();
                    if let (ParamKind::Argument | ParamKind::Flatten, Type::Reference(reference)) = (&kind, &*typed.ty)
                    {
                        cx.error_spanned_by(
                            reference,
                            format!(
                                "`#[{attr}]` parameters must own their values, which are read from the request; \
                                 use `String` for `&str`, `Vec<T>` for `&[T]`"
                            ),
                        );
                        continue;
                    }
                    if let (ParamKind::Flatten, false) = (&kind, what == "tool") {
                        cx.error_spanned_by(
                            &typed.pat,
                            format!("`#[mcp(flatten)]` applies to tool parameters only; a {what}'s parameters are each one value"),
                        );
                        kind = ParamKind::Argument;
                    }
                    if let (ParamKind::Flatten, Some(what_it_is)) = (&kind, not_a_struct(&typed.ty)) {
                        cx.error_spanned_by(
                            &typed.ty,
                            format!(
                                "`#[mcp(flatten)]` needs a struct with named fields (its fields become the \
                                 arguments), not {what_it_is}; remove `#[mcp(flatten)]` to take it as one argument"
                            ),
                        );
                    }
                    if let (Some(header), false) = (&args.header, matches!(kind, ParamKind::Argument) && what == "tool")
                    {
                        cx.error_spanned_by(
                            header,
                            "`#[mcp(header)]` mirrors a tool argument in an HTTP header: use it on a tool's argument",
                        );
                    }
                    params.push(Param {
                        ident: pat.ident.clone(),
                        ty: (*typed.ty).clone(),
                        docs,
                        default,
                        wire_name,
                        header: args.header.clone(),
                        kind,
                    });
                }
            }
        }
        let contexts: Vec<&Param> = params.iter().filter(|p| matches!(p.kind, ParamKind::Context { .. })).collect();
        for extra in contexts.iter().skip(1) {
            cx.error_spanned_by(&extra.ty, format!("a {what} takes at most one `Context` parameter"));
        }
        let flattened: Vec<&Param> = params.iter().filter(|p| matches!(p.kind, ParamKind::Flatten)).collect();
        if let Some(flat) = flattened.first() {
            let others = params.iter().filter(|p| matches!(p.kind, ParamKind::Argument | ParamKind::Flatten)).count();
            if others > 1 {
                cx.error_spanned_by(
                    &flat.ident,
                    "`#[mcp(flatten)]` makes this struct's fields the tool's arguments, so it must be the only \
                     argument parameter (a `Context` may stand beside it); move the other parameters into the struct",
                );
            }
        }
        let mut seen: Vec<&str> = Vec::new();
        for param in params.iter().filter(|p| matches!(p.kind, ParamKind::Argument)) {
            if seen.contains(&param.wire_name.as_str()) {
                cx.error_spanned_by(
                    &param.ident,
                    format!(
                        "two arguments are named `{}`; rename one with `#[mcp(rename = \"...\")]`",
                        param.wire_name
                    ),
                );
            }
            seen.push(&param.wire_name);
        }
        let docs = docs(&item.attrs);
        FnItem { item, params, docs }
    }

    pub(crate) fn ident(&self) -> &Ident {
        &self.item.sig.ident
    }

    /// The `State<T>` parameters.
    pub(crate) fn states(&self) -> impl Iterator<Item = &Param> {
        self.params.iter().filter(|p| matches!(p.kind, ParamKind::State))
    }

    /// Statements reading each `State<T>` parameter from the context `ctx` into a local named
    /// like the parameter; `on_missing` turns the `MissingState` error `__mcp_missing` into
    /// what the handler returns.
    pub(crate) fn state_bindings(&self, ctx: &TokenStream, on_missing: &TokenStream) -> TokenStream {
        let bindings = self.states().map(|p| {
            let (id, ty) = (&p.ident, &p.ty);
            quote! {
                let #id = match __mcp::__private::state_param::<#ty>(#ctx) {
                    ::core::result::Result::Ok(state) => state,
                    ::core::result::Result::Err(__mcp_missing) => return #on_missing,
                };
            }
        });
        quote!(#(#bindings)*)
    }

    /// The call of the function, each parameter given by `arg`, awaited when it is `async`.
    pub(crate) fn call(&self, arg: impl Fn(&Param) -> TokenStream) -> TokenStream {
        let ident = self.ident();
        let args = self.params.iter().map(arg);
        if self.item.sig.asyncness.is_some() { quote!(#ident(#(#args),*).await) } else { quote!(#ident(#(#args),*)) }
    }
}

/// An identifier as its name reads on the wire: without `r#`.
pub(crate) fn unraw(ident: &Ident) -> String {
    let text = ident.to_string();
    text.strip_prefix("r#").map(str::to_owned).unwrap_or(text)
}

/// What `ty` obviously is when it cannot be a struct with named fields: a primitive, a string,
/// a collection, a tuple, an array or a reference. Other types are left to the compiler.
fn not_a_struct(ty: &Type) -> Option<&'static str> {
    match ty {
        Type::Tuple(_) => Some("a tuple"),
        Type::Array(_) | Type::Slice(_) => Some("an array"),
        Type::Reference(_) => Some("a reference"),
        Type::Path(path) => {
            let last = path.path.segments.last()?.ident.to_string();
            match last.as_str() {
                "bool" | "char" | "i8" | "i16" | "i32" | "i64" | "i128" | "isize" | "u8" | "u16" | "u32" | "u64"
                | "u128" | "usize" | "f32" | "f64" => Some("a primitive type"),
                "String" | "str" => Some("a string"),
                "Vec" | "HashMap" | "BTreeMap" | "HashSet" | "BTreeSet" => Some("a collection"),
                "Option" => Some("an `Option`"),
                _ => None,
            }
        }
        _ => None,
    }
}

/// `Some(by_ref)` when `ty` is `Context` or `&Context` (any path ending in `Context`).
fn context_type(ty: &Type) -> Option<bool> {
    let (ty, by_ref) = match ty {
        Type::Reference(r) => (&*r.elem, true),
        other => (other, false),
    };
    let Type::Path(path) = ty else { return None };
    let last = path.path.segments.last()?;
    (last.ident == "Context" && last.arguments.is_empty()).then_some(by_ref)
}

/// Whether `ty` is `State<T>` (any path ending in `State` with one type argument).
fn is_state_type(ty: &Type) -> bool {
    let Type::Path(path) = ty else { return false };
    let Some(last) = path.path.segments.last() else { return false };
    last.ident == "State" && matches!(&last.arguments, syn::PathArguments::AngleBracketed(args) if args.args.len() == 1)
}

/// The doc lines as one `concat!`-able list: one leading space stripped from each literal
/// line, blank edges trimmed, lines joined by newlines.
pub(crate) fn doc_text(docs: &[Expr]) -> Option<TokenStream> {
    let mut lines: Vec<TokenStream> = Vec::new();
    let mut literal_lines: Vec<Option<String>> = Vec::new();
    for doc in docs {
        match doc {
            Expr::Lit(syn::ExprLit { lit: Lit::Str(s), .. }) => {
                let value = s.value();
                literal_lines.push(Some(value.strip_prefix(' ').unwrap_or(&value).trim_end().to_owned()));
            }
            _ => literal_lines.push(None),
        }
    }
    let first = literal_lines.iter().position(|l| l.as_deref() != Some(""))?;
    let last = literal_lines.iter().rposition(|l| l.as_deref() != Some(""))?;
    for (i, line) in literal_lines.iter().enumerate().take(last + 1).skip(first) {
        if !lines.is_empty() {
            lines.push(quote!("\n"));
        }
        match line {
            Some(text) => lines.push(quote!(#text)),
            None => {
                let expr = &docs[i];
                lines.push(quote!(#expr));
            }
        }
    }
    Some(quote!(::core::concat!(#(#lines),*)))
}
