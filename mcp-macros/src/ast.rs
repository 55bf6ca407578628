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
}

/// One parameter.
pub(crate) struct Param {
    pub(crate) ident: Ident,
    pub(crate) ty: Type,
    pub(crate) docs: Vec<Expr>,
    /// `#[serde(...)]` and `#[schemars(...)]` written on the parameter: they go on the
    /// argument's field (renames, defaults, validation, schema tweaks).
    pub(crate) field_attrs: Vec<syn::Attribute>,
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
                    let mut field_attrs = Vec::new();
                    typed.attrs.retain(|a| {
                        let keep = !(a.path().is_ident("serde") || a.path().is_ident("schemars"));
                        if !keep {
                            field_attrs.push(a.clone());
                        }
                        keep
                    });
                    if let (Some(a), false) = (field_attrs.first(), what == "tool") {
                        cx.error_spanned_by(
                            a,
                            format!(
                                "`#[serde]` and `#[schemars]` apply to tool arguments only; a {what}'s \
                                 parameters are parsed from strings with `FromStr`"
                            ),
                        );
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
                    let kind = if args.context.is_some() {
                        ParamKind::Context { by_ref: matches!(&*typed.ty, Type::Reference(_)) }
                    } else if args.flatten.is_some() {
                        ParamKind::Flatten
                    } else if let Some(by_ref) = context_type(&typed.ty) {
                        ParamKind::Context { by_ref }
                    } else {
                        ParamKind::Argument
                    };
                    params.push(Param { ident: pat.ident.clone(), ty: (*typed.ty).clone(), docs, field_attrs, kind });
                }
            }
        }
        let contexts: Vec<&Param> = params.iter().filter(|p| matches!(p.kind, ParamKind::Context { .. })).collect();
        for extra in contexts.iter().skip(1) {
            cx.error_spanned_by(&extra.ty, format!("a {what} takes at most one `Context` parameter"));
        }
        let flattened: Vec<&Param> = params.iter().filter(|p| matches!(p.kind, ParamKind::Flatten)).collect();
        if let (Some(flat), false) = (flattened.first(), what == "tool") {
            cx.error_spanned_by(
                &flat.ident,
                format!("`#[mcp(flatten)]` applies to tool parameters only; a {what}'s parameters are each one value"),
            );
        } else if let Some(flat) = flattened.first() {
            let others = params.iter().filter(|p| matches!(p.kind, ParamKind::Argument | ParamKind::Flatten)).count();
            if others > 1 {
                cx.error_spanned_by(
                    &flat.ident,
                    "`#[mcp(flatten)]` makes this struct's fields the tool's arguments, so it must be the only \
                     argument parameter (a `Context` may stand beside it); move the other parameters into the struct",
                );
            }
        }
        let docs = docs(&item.attrs);
        FnItem { item, params, docs }
    }

    pub(crate) fn ident(&self) -> &Ident {
        &self.item.sig.ident
    }

    pub(crate) fn is_async(&self) -> bool {
        self.item.sig.asyncness.is_some()
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
