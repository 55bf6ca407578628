//! The model of an annotated function: its parameters, what each one is, its docs.

use proc_macro2::TokenStream;
use quote::quote;
use syn::{Expr, FnArg, Ident, ItemFn, Lit, Pat, Type};

use crate::attr::ParamArgs;
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
    /// Its `#[mcp(...)]` attribute as written, for `check`.
    pub(crate) args: ParamArgs,
    /// `#[serde]`/`#[schemars]` attributes written on it (removed from the emitted function),
    /// for `check`.
    pub(crate) misplaced: Vec<syn::Attribute>,
    /// Other attributes no one reads on a parameter (`#[description = ".."]`,
    /// `#[doc(alias = "..")]`), removed, for `check`; `cfg` and lint attributes stay.
    pub(crate) foreign: Vec<syn::Attribute>,
}

impl Param {
    /// The local its value is bound to in generated code: a name of its own, since a parameter
    /// named like the function (`fn runs(runs: State<Runs>)`) would otherwise shadow the
    /// function where the generated code calls it. Leading underscores are counted rather
    /// than kept (`_unused` is `__mcp_var1_unused`): kept, they would put a double underscore
    /// inside the name, which `non_snake_case` reports at the user's parameter.
    pub(crate) fn local(&self) -> Ident {
        let name = unraw(&self.ident);
        let bare = name.trim_start_matches('_');
        let underscores = name.len() - bare.len();
        quote::format_ident!("__mcp_var{underscores}_{bare}", span = self.ident.span())
    }
}

/// The kinds of declarations.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Tool,
    Resource,
    Prompt,
}

/// Which macro is reading a function: its kind, and its name and the item it declares, for
/// messages.
#[derive(Clone, Copy)]
pub(crate) struct Declares {
    pub(crate) kind: Kind,
    pub(crate) attr: &'static str,
    pub(crate) item: &'static str,
}

pub(crate) const TOOL: Declares = Declares { kind: Kind::Tool, attr: "mcp_tool", item: "tool" };
pub(crate) const RESOURCE: Declares = Declares { kind: Kind::Resource, attr: "mcp_resource", item: "resource" };
pub(crate) const PROMPT: Declares = Declares { kind: Kind::Prompt, attr: "mcp_prompt", item: "prompt" };

/// An annotated function, with our helper attributes removed from its parameters.
pub(crate) struct FnItem {
    /// The function as it is re-emitted.
    pub(crate) item: ItemFn,
    pub(crate) params: Vec<Param>,
    pub(crate) docs: Vec<Expr>,
    /// Other declaring attributes on the same function (`#[mcp_prompt]` under `#[mcp_tool]`),
    /// removed so that they do not run, for `check`.
    pub(crate) other_declarations: Vec<syn::Attribute>,
    /// A method of an `#[mcp_server]` block: called as `Self::name`.
    pub(crate) in_server: bool,
    /// It takes `&self`: the instance, read from the request's states.
    pub(crate) takes_self: bool,
}

impl FnItem {
    /// Builds the model. Only what makes a parameter impossible to model (`self`, a pattern,
    /// `impl Trait`) is reported here; every other rule is `check::function`'s.
    pub(crate) fn from_syn(cx: &Ctxt, item: ItemFn, declares: Declares) -> FnItem {
        FnItem::build(cx, item, declares, false)
    }

    /// [`from_syn`](Self::from_syn) for a method of an `#[mcp_server]` block, which may take
    /// `&self`.
    pub(crate) fn from_method(cx: &Ctxt, item: ItemFn, declares: Declares) -> FnItem {
        FnItem::build(cx, item, declares, true)
    }

    fn build(cx: &Ctxt, mut item: ItemFn, declares: Declares, in_server: bool) -> FnItem {
        let attr = declares.attr;
        let what = declares.item;
        let mut params = Vec::new();
        let mut takes_self = false;
        for input in item.sig.inputs.iter_mut() {
            match input {
                FnArg::Receiver(receiver) if !in_server => cx.error_spanned_by(
                    &*receiver,
                    format!(
                        "`#[{attr}]` on a method needs `#[mcp_server]` on its `impl` block, which makes the \
                         block's methods items called on the instance given to `Server::instance`; or make it \
                         a free function and reach shared state through a `State<T>` parameter"
                    ),
                ),
                FnArg::Receiver(receiver) if matches!(receiver.kind, syn::ReceiverKind::Reference(_, _, Some(_))) => cx
                    .error_spanned_by(
                        &*receiver,
                        format!(
                            "a {what} cannot take `&mut self`: calls run at the same time and share the \
                             instance; take `&self`, and keep what changes in a field that changes behind `&self` \
                             (a `Mutex<T>`, an `RwLock<T>`, or an atomic such as `AtomicI64`)"
                        ),
                    ),
                FnArg::Receiver(receiver) if !matches!(receiver.kind, syn::ReceiverKind::Reference(..)) => cx
                    .error_spanned_by(
                        &*receiver,
                        format!(
                            "a {what} method takes `&self`, not `{}`: the server keeps the instance and lends \
                             it to each call; write `&self`",
                            quote::ToTokens::to_token_stream(&*receiver)
                                .to_string()
                                .replace(" :: ", "::")
                                .replace(" :", ":")
                                .replace(" <", "<")
                                .replace("< ", "<")
                                .replace(" >", ">")
                        ),
                    ),
                FnArg::Receiver(_) => takes_self = true,
                FnArg::Typed(typed) => {
                    let docs = take_docs(&mut typed.attrs);
                    let args = ParamArgs::take(cx, &mut typed.attrs, attr);
                    let (misplaced, kept): (Vec<_>, Vec<_>) = std::mem::take(&mut typed.attrs)
                        .into_iter()
                        .partition(|a| a.path().is_ident("serde") || a.path().is_ident("schemars"));
                    let (kept, foreign) = kept.into_iter().partition(is_rust_attribute);
                    typed.attrs = kept;
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
                    } else if args.flatten.is_some() && declares.kind == Kind::Tool {
                        // Elsewhere `check` refuses it; the parameter stays one value meanwhile.
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
                        // A resource's variables are named by its URI template.
                        None if declares.kind == Kind::Resource => unraw(&pat.ident),
                        None => argument_name(&pat.ident),
                    };
                    params.push(Param {
                        ident: pat.ident.clone(),
                        ty: (*typed.ty).clone(),
                        docs,
                        default: args.default.is_some(),
                        wire_name,
                        header: args.header.clone(),
                        kind,
                        args,
                        misplaced,
                        foreign,
                    });
                }
            }
        }
        let docs = docs(&item.attrs);
        let (other_declarations, attrs) = std::mem::take(&mut item.attrs).into_iter().partition(is_declaration);
        item.attrs = attrs;
        FnItem { item, params, docs, other_declarations, in_server, takes_self }
    }

    /// The parameters that are arguments (of a tool, a template or a prompt).
    pub(crate) fn arguments(&self) -> impl Iterator<Item = &Param> {
        self.params.iter().filter(|p| matches!(p.kind, ParamKind::Argument))
    }

    pub(crate) fn ident(&self) -> &Ident {
        &self.item.sig.ident
    }

    /// The `State<T>` parameters.
    pub(crate) fn states(&self) -> impl Iterator<Item = &Param> {
        self.params.iter().filter(|p| matches!(p.kind, ParamKind::State))
    }

    /// Statements reading each `State<T>` parameter from the context `ctx` into its
    /// [`local`](Param::local); `on_missing` turns the `MissingState` error `__mcp_missing`
    /// into what the handler returns.
    pub(crate) fn state_bindings(&self, ctx: &TokenStream, on_missing: &TokenStream) -> TokenStream {
        let instance = self.takes_self.then(|| {
            quote! {
                let __mcp_self = match __mcp::__private::state_param::<__mcp::State<Self>>(#ctx) {
                    ::core::result::Result::Ok(instance) => instance,
                    ::core::result::Result::Err(__mcp_missing) => return #on_missing,
                };
            }
        });
        let bindings = self.states().map(|p| {
            let (id, ty) = (p.local(), &p.ty);
            quote! {
                let #id = match __mcp::__private::state_param::<#ty>(#ctx) {
                    ::core::result::Result::Ok(state) => state,
                    ::core::result::Result::Err(__mcp_missing) => return #on_missing,
                };
            }
        });
        quote!(#instance #(#bindings)*)
    }

    /// The call of the function from a handler whose request, `request` (a `ResourceRead` or
    /// a `PromptGet`), carries the context; every other parameter is read from its local.
    pub(crate) fn call_with_context_of(&self, request: &TokenStream) -> TokenStream {
        self.call(|p| match p.kind {
            ParamKind::Context { by_ref: true } => quote!(#request.context()),
            ParamKind::Context { by_ref: false } => quote!(#request.context().clone()),
            _ => {
                let local = p.local();
                quote!(#local)
            }
        })
    }

    /// The call of the function, each parameter given by `arg`, awaited when it is `async`.
    pub(crate) fn call(&self, arg: impl Fn(&Param) -> TokenStream) -> TokenStream {
        let ident = self.ident();
        let callee = if self.in_server { quote!(Self::#ident) } else { quote!(#ident) };
        let instance = self.takes_self.then(|| quote!(&*__mcp_self,));
        let args = self.params.iter().map(arg);
        let call = quote!(#callee(#instance #(#args),*));
        if self.item.sig.asyncness.is_some() { quote!(#call.await) } else { call }
    }
}

/// Whether `attr` is one of the declaring macros (`#[mcp_tool]`, `#[mcp_runtime::mcp_prompt]`).
fn is_declaration(attr: &syn::Attribute) -> bool {
    attr.path()
        .segments
        .last()
        .is_some_and(|last| ["mcp_tool", "mcp_resource", "mcp_prompt"].iter().any(|name| last.ident == name))
}

/// Whether `attr` is one Rust itself reads on a parameter: `cfg`, `cfg_attr` and the lints.
fn is_rust_attribute(attr: &syn::Attribute) -> bool {
    ["cfg", "cfg_attr", "allow", "warn", "deny", "forbid", "expect"].iter().any(|name| attr.path().is_ident(name))
}

/// A tool's or prompt's argument as clients see it when the parameter is not renamed: its name
/// without `r#`, and without the leading `_` of Rust's "unused" convention (`_verbose` is the
/// argument `verbose`), which is not part of the name a user means.
pub(crate) fn argument_name(ident: &Ident) -> String {
    let name = unraw(ident);
    match name.trim_start_matches('_') {
        "" => name,
        trimmed => trimmed.to_owned(),
    }
}

/// An identifier as its name reads on the wire: without `r#`.
pub(crate) fn unraw(ident: &Ident) -> String {
    let text = ident.to_string();
    text.strip_prefix("r#").map(str::to_owned).unwrap_or(text)
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

/// Takes the `///` lines out of `attrs` (they are not allowed on parameters), returning them.
fn take_docs(attrs: &mut Vec<syn::Attribute>) -> Vec<Expr> {
    let mut docs = Vec::new();
    attrs.retain(|attr| match doc_expr(attr) {
        Some(expr) => {
            docs.push(expr);
            false
        }
        None => true,
    });
    docs
}

/// The `///` lines of `attrs`, left in place.
pub(crate) fn docs(attrs: &[syn::Attribute]) -> Vec<Expr> {
    attrs.iter().filter_map(doc_expr).collect()
}

fn doc_expr(attr: &syn::Attribute) -> Option<Expr> {
    match &attr.meta {
        syn::Meta::NameValue(nv) if nv.path.is_ident("doc") => Some(nv.value.clone()),
        _ => None,
    }
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
