//! The rules a declaration must follow, as serde_derive's `check` module holds them: parsing
//! (`attr`) and modeling (`ast`) record what the user wrote, the rules live here, and the
//! expansion (`tool`, `resource`, `prompt`) runs only when none is broken. The rules on the
//! attribute's values (what a MIME type, a duration, a priority is) are judged once the
//! attribute is read, the others on the model once it is built. Each rule reports on the token
//! to change and says what to write.

use syn::{Lit, LitInt, Type};

use crate::ast::{Declares, FnItem, Kind, Param, ParamKind, unraw};
use crate::attr::{CommonArgs, PromptArgs, ResourceArgs, ToolArgs};
use crate::ctxt::Ctxt;

mod resource;

pub(crate) use resource::{resource_const, resource_function, resource_uri};

/// The values of the keys every declaring macro accepts. The expansions judge them as soon as
/// the attribute is read, before the model, so that their errors come before the function's.
pub(crate) fn common_args(cx: &Ctxt, common: &CommonArgs) {
    if let Some(timeout) = common.timeout.get()
        && parse_duration_ms(&timeout.value()).is_none()
    {
        cx.error_spanned_by(
            timeout,
            "`timeout` takes a duration above zero such as \"30s\", \"500ms\", \"2m\" or \"1h\"",
        );
    }
}

/// The values of `#[mcp_resource(...)]`'s keys, judged as `common_args` is.
pub(crate) fn resource_args(cx: &Ctxt, args: &ResourceArgs) {
    if let Some(mime) = args.mime.get()
        && !is_mime_type(&mime.value())
    {
        cx.error_spanned_by(
            mime,
            "`mime` is a MIME type, `type/subtype`: e.g. `\"text/plain\"`, `\"application/json\"`, \
             `\"image/png\"`",
        );
    }
    fits_u64(cx, args.size.get());
    for audience in &args.audience {
        if !matches!(audience.value().as_str(), "user" | "assistant") {
            cx.error_spanned_by(audience, "`audience` is `\"user\"` or `\"assistant\"`");
        }
    }
    if let Some(priority) = args.priority.get()
        && !is_priority(priority)
    {
        cx.error_spanned_by(priority, "`priority` is a number from 0 to 1: `priority = 0.5`");
    }
    fits_u64(cx, args.ttl_ms.get());
    if let Some(scope) = args.cache_scope.get()
        && !matches!(scope.value().as_str(), "public" | "private")
    {
        cx.error_spanned_by(scope, "`cache_scope` is `\"public\"` or `\"private\"`");
    }
    common_args(cx, &args.common);
}

/// A size in bytes or a time in milliseconds, which the runtime holds as a `u64`.
fn fits_u64(cx: &Ctxt, lit: Option<&LitInt>) {
    if let Some(Err(error)) = lit.map(LitInt::base10_parse::<u64>) {
        cx.push(error);
    }
}

/// Every rule about an annotated function: its signature and its parameters.
fn function(cx: &Ctxt, function: &FnItem, declares: Declares) {
    let Declares { attr, item: what, .. } = declares;
    let sig = &function.item.sig;
    // Lifetimes alone, on a function whose parameters borrow (`fn greet<'a>(name: &'a str)`):
    // the borrowed parameter's error, which says to drop the lifetime too, is the one error.
    let lifetimes_only = sig.generics.where_clause.is_none()
        && sig.generics.params.iter().all(|p| matches!(p, syn::GenericParam::Lifetime(_)));
    let borrows = function.params.iter().any(|p| takes_value(p) && borrowed_inside(&p.ty).is_some());
    let generics = (sig.generics.lt_token.is_some() && lifetimes_only && borrows).then_some(&sig.generics);
    if (sig.generics.lt_token.is_some() || sig.generics.where_clause.is_some()) && generics.is_none() {
        cx.error_spanned_by(
            &sig.generics,
            format!("`#[{attr}]` functions cannot be generic; use concrete types (a {what}'s schema is fixed)"),
        );
    }
    if let Some(variadic) = &sig.variadic {
        cx.error_spanned_by(variadic, format!("`#[{attr}]` functions cannot be variadic"));
    }
    if let syn::Safety::Unsafe(unsafety) = &sig.safety {
        cx.error_spanned_by(
            unsafety,
            format!(
                "a {what} cannot be an `unsafe fn`: a client calls it with whatever it sends, so no caller \
                 can uphold its safety contract; make the function safe and put an `unsafe` block inside it, \
                 with the reason it is sound"
            ),
        );
    }
    if sig.asyncness.is_none()
        && let syn::ReturnType::Type(_, ty) = &sig.output
        && let Some(output) = future_output(ty)
    {
        let output = output.map(|t| quote::ToTokens::to_token_stream(t).to_string()).unwrap_or_else(|| "T".into());
        cx.error_spanned_by(
            ty,
            format!(
                "a {what} that returns a future is written as an `async fn`: \
                 `async fn {}(..) -> {output}` (the macro awaits it and checks its future)",
                sig.ident
            ),
        );
    }
    for other in &function.other_declarations {
        cx.error_spanned_by(
            other,
            format!(
                "this function is already declared a {what} by `#[{attr}]`: one function declares one item; \
                 to offer the same code as another kind of item, write a second function that calls this one"
            ),
        );
    }
    for param in &function.params {
        parameter(cx, param, declares, generics);
    }
    let contexts = function.params.iter().filter(|p| matches!(p.kind, ParamKind::Context { .. }));
    for extra in contexts.skip(1) {
        cx.error_spanned_by(&extra.ty, format!("a {what} takes at most one `Context` parameter"));
    }
    let takes_values = |p: &&Param| matches!(p.kind, ParamKind::Argument | ParamKind::Flatten);
    // Only a tool's parameter is modeled as flattened (see `FnItem::from_syn`).
    if let Some(flat) = function.params.iter().find(|p| matches!(p.kind, ParamKind::Flatten))
        && function.params.iter().filter(takes_values).count() > 1
    {
        cx.error_spanned_by(
            &flat.ident,
            "`#[mcp(flatten)]` makes this struct's fields the tool's arguments, so it must be the only \
             argument parameter (a `Context` may stand beside it); move the other parameters into the struct",
        );
    }
    let mut seen: Vec<&Param> = Vec::new();
    for param in function.arguments() {
        if let Some(first) = seen.iter().find(|p| p.wire_name == param.wire_name) {
            let name = &param.wire_name;
            let why = [first, param]
                .iter()
                .filter(|p| p.args.rename.is_none())
                .map(|p| p.ident.to_string())
                .find(|written| written != name)
                .map(|written| {
                    if written.starts_with("r#") {
                        format!(" (`{written}` is the argument `{name}`: `r#` only lets Rust take a keyword as a name)")
                    } else {
                        format!(
                            " (`{written}` is the argument `{name}`: a leading `_` is Rust's \"unused\" mark, \
                             not part of the name)"
                        )
                    }
                })
                .unwrap_or_default();
            cx.error_spanned_by(
                &param.ident,
                format!("two arguments are named `{name}`{why}; rename one with `#[mcp(rename = \"...\")]`"),
            );
        }
        seen.push(param);
    }
    // HTTP header names are case-insensitive: two that differ only in case are one header.
    let mut headers: Vec<&syn::LitStr> = Vec::new();
    for header in function.params.iter().filter_map(|p| p.header.as_ref()) {
        if let Some(first) = headers.iter().find(|h| h.value().eq_ignore_ascii_case(&header.value())) {
            cx.error_spanned_by(
                header,
                format!(
                    "`Mcp-Param-{}` already mirrors another argument (`\"{}\"`): HTTP header names are \
                     case-insensitive, so these are one header; give each argument its own",
                    header.value(),
                    first.value()
                ),
            );
        }
        headers.push(header);
    }
}

/// `Some(output)` when `ty` is a future: `impl Future<Output = T>`, `Pin<Box<dyn Future<..>>>`
/// or a `BoxFuture<T>` (the output when it is written).
fn future_output(ty: &Type) -> Option<Option<&Type>> {
    fn output_of(bounds: &syn::punctuated::Punctuated<syn::TypeParamBound, syn::Token![+]>) -> Option<Option<&Type>> {
        bounds.iter().find_map(|bound| match bound {
            syn::TypeParamBound::Trait(bound) => {
                let last = bound.path.segments.last()?;
                (last.ident == "Future").then(|| match &last.arguments {
                    syn::PathArguments::AngleBracketed(args) => args.args.iter().find_map(|arg| match arg {
                        syn::GenericArgument::AssocType(assoc) if assoc.ident == "Output" => Some(&assoc.ty),
                        _ => None,
                    }),
                    _ => None,
                })
            }
            _ => None,
        })
    }
    match ty {
        Type::ImplTrait(it) => output_of(&it.bounds),
        Type::TraitObject(object) => output_of(&object.bounds),
        Type::Path(path) => {
            let last = path.path.segments.last()?;
            let syn::PathArguments::AngleBracketed(args) = &last.arguments else { return None };
            let first = args.args.iter().find_map(|arg| match arg {
                syn::GenericArgument::Type(ty) => Some(ty),
                _ => None,
            });
            match last.ident.to_string().as_str() {
                "Pin" | "Box" => future_output(first?),
                "BoxFuture" | "LocalBoxFuture" => Some(first),
                _ => None,
            }
        }
        Type::Paren(inner) => future_output(&inner.elem),
        _ => None,
    }
}

/// `local` is for an `async fn` whose future is not `Send`; a plain `fn` already runs on a
/// blocking thread of its own, where holding anything is fine, and the local thread must not
/// be blocked by it (every `local` handler shares that one thread).
fn local_plain_fn(cx: &Ctxt, common: &CommonArgs, function: &FnItem) {
    if let Some(local) = common.local.get().filter(|flag| flag.value())
        && function.item.sig.asyncness.is_none()
    {
        cx.error_spanned_by(
            local,
            "a plain `fn` runs on a blocking thread of its own, so it needs no `local` (which is for an \
             `async fn` whose future is not `Send`, and would block the thread every `local` handler shares); \
             remove `local`",
        );
    }
}

/// `task = "..."` names a policy, and `task_after_input` goes with a task on an `async fn`.
fn task(cx: &Ctxt, args: &ToolArgs, tool: &FnItem) {
    const POLICIES: [&str; 3] = ["never", "optional", "required"];
    let policy = args.task.get().map(|lit| (lit, lit.value()));
    if let Some((lit, value)) = &policy
        && !POLICIES.contains(&value.as_str())
    {
        let hint = crate::attr::suggest::closest(value, &POLICIES)
            .map(|near| format!(" (did you mean `\"{near}\"`?)"))
            .unwrap_or_default();
        cx.error_spanned_by(lit, format!("`task` is one of \"never\", \"optional\" or \"required\"{hint}"));
    }
    let Some(after) = args.task_after_input.get().filter(|flag| flag.value()) else { return };
    if !matches!(policy.as_ref().map(|(_, v)| v.as_str()), Some("optional" | "required")) {
        cx.error_spanned_by(
            after,
            "`task_after_input` says when a call's task starts; give the tool `task = \"optional\"` or \
             `task = \"required\"` too",
        );
    } else if tool.item.sig.asyncness.is_none() {
        cx.error_spanned_by(
            after,
            "a plain `fn` asks no questions (it cannot `.await` them), so its task always starts at once; \
             remove `task_after_input`",
        );
    }
}

/// The words that name a description, in attributes of other crates (`#[description = ".."]`,
/// `#[schemars(description = "..")]`, clap's `#[arg(help = "..")]`).
const DESCRIBING: &[&str] = &["description", "desc", "doc", "about", "help", "summary"];

/// The error on an attribute that describes a parameter in another crate's way: a `///` doc
/// comment is ours, shown with the attribute's text.
fn describing(attr: &syn::Attribute) -> Option<String> {
    let name = attr.path().segments.last().map(|s| s.ident.to_string()).unwrap_or_default();
    let written = quote::ToTokens::to_token_stream(attr).to_string();
    let text = |lit: &syn::LitStr| lit.value();
    let found = match &attr.meta {
        // `#[description = "..."]`
        syn::Meta::NameValue(nv) if DESCRIBING.contains(&name.as_str()) => match &nv.value {
            syn::Expr::Lit(syn::ExprLit { lit: Lit::Str(lit), .. }) => Some(text(lit)),
            _ => Some(String::new()),
        },
        // `#[description("...")]`, `#[schemars(description = "...")]`
        syn::Meta::List(list) => {
            let mut found = DESCRIBING.contains(&name.as_str()).then(String::new);
            let _ = list.parse_nested_meta(|meta| {
                if DESCRIBING.iter().any(|word| meta.path.is_ident(word)) {
                    let value = meta.value().ok().and_then(|v| v.parse::<syn::LitStr>().ok());
                    found = Some(value.as_ref().map(text).unwrap_or_default());
                } else if meta.input.peek(syn::Token![=]) {
                    let _ = meta.value().and_then(|v| v.parse::<syn::Expr>());
                }
                Ok(())
            });
            if found.as_deref() == Some("")
                && let Ok(lit) = list.parse_args::<syn::LitStr>()
            {
                found = Some(lit.value());
            }
            found
        }
        _ => None,
    }?;
    let text = if found.is_empty() { "What it is for".to_owned() } else { found };
    Some(format!(
        "an argument is described by a `///` doc comment above its parameter (`/// {text}`); `{written}` is not \
         read here"
    ))
}

/// Whether `param` takes a value of the request (an argument, a flattened struct, a variable).
fn takes_value(param: &Param) -> bool {
    matches!(param.kind, ParamKind::Argument | ParamKind::Flatten)
}

/// The rules about one parameter and its `#[mcp(...)]`. `lifetimes` are the function's when
/// they are there only for borrowed parameters, which this parameter's error then mentions.
fn parameter(cx: &Ctxt, param: &Param, declares: Declares, lifetimes: Option<&syn::Generics>) {
    let Declares { kind, attr, item: what } = declares;
    let drop_lifetimes = lifetimes
        .map(|generics| {
            let written: Vec<String> = generics.lifetimes().map(|l| l.lifetime.to_string()).collect();
            format!(", and remove `<{}>`", written.join(", "))
        })
        .unwrap_or_default();
    for misplaced in &param.misplaced {
        if let Some(message) = describing(misplaced) {
            cx.error_spanned_by(misplaced, message);
            continue;
        }
        cx.error_spanned_by(
            misplaced,
            "`#[serde]` and `#[schemars]` do not apply to parameters; use `#[mcp(rename = \"...\")]` or \
             `#[mcp(default)]`, or gather the arguments in a struct marked `#[mcp(flatten)]`, where every \
             serde and schemars attribute works",
        );
    }
    for foreign in &param.foreign {
        let name = foreign.path().segments.last().map(|s| s.ident.to_string()).unwrap_or_default();
        let message = if let Some(message) = describing(foreign) {
            message
        } else {
            format!(
                "`#[{name}]` is not read on a parameter: `#[mcp(...)]` takes `flatten`, `context`, `default`, \
                 `rename` and `header`, and a `///` doc comment describes the argument"
            )
        };
        cx.error_spanned_by(foreign, message);
    }
    if param.args.default.is_some() && kind != Kind::Tool {
        cx.error_spanned_by(&param.ident, "`#[mcp(default)]` applies to tool arguments only");
    }
    // A resource's variables are named by its URI template.
    if param.args.rename.is_some() && kind == Kind::Resource {
        cx.error_spanned_by(&param.ident, "`#[mcp(rename)]` applies to tool and prompt arguments only");
    }
    if let (ParamKind::Context { .. }, Type::Reference(reference)) = (&param.kind, &param.ty)
        && reference.mutability.is_some()
    {
        cx.error_spanned_by(
            reference,
            "the request context is shared, not borrowed mutably: take `Context` (a cheap handle) or `&Context`",
        );
    }
    let takes_value = takes_value(param);
    if takes_value && let Some(wrapper) = extractor(&param.ty) {
        let (ident, inner) = wrapper;
        let inner = shown(inner);
        let name = &param.ident;
        let message = match kind {
            Kind::Tool => format!(
                "a tool's arguments are read into its parameters as they are, with no `{ident}<..>` around them \
                 (`Json<T>` is for returning structured output): take `#[mcp(flatten)] {name}: {inner}` to \
                 read the arguments object into your struct, or one parameter per argument"
            ),
            _ => format!(
                "a {what}'s {} read from a string into the parameter's type, with no `{ident}<..>` around it: \
                 take `{name}: {inner}` (a `String`, a number, or any `FromStr` type)",
                if kind == Kind::Resource { "template variables are each" } else { "arguments are each" }
            ),
        };
        cx.error_spanned_by(ident, message);
        return;
    }
    if let (true, Type::Reference(reference)) = (takes_value, &param.ty) {
        cx.error_spanned_by(
            reference,
            format!(
                "`#[{attr}]` parameters must own their values, which are read from the request; \
                 use `String` for `&str`, `Vec<T>` for `&[T]`{drop_lifetimes}"
            ),
        );
        return;
    }
    if takes_value && let Some(reference) = borrowed_inside(&param.ty) {
        let owned = match &*reference.elem {
            Type::Path(path) if path.path.is_ident("str") => "`String`".to_owned(),
            Type::Slice(slice) => format!("`Vec<{}>`", quote::ToTokens::to_token_stream(&slice.elem)),
            other => format!("`{}`", quote::ToTokens::to_token_stream(other)),
        };
        cx.error_spanned_by(
            reference,
            format!(
                "an argument's value is read from the request and owned by the {what}, so it holds no \
                 borrowed parts: use {owned} here (a lifetime cannot help: `#[{attr}]` functions are not \
                 generic){drop_lifetimes}"
            ),
        );
        return;
    }
    if takes_value && let Some((args, min, max)) = inverted_bounds(&param.ty) {
        cx.error_spanned_by(
            args,
            format!(
                "`Bounded<{min}, {max}>` accepts no value: its minimum {min} is above its maximum {max}; \
                 write `Bounded<{max}, {min}>`"
            ),
        );
    }
    if matches!(param.kind, ParamKind::Argument)
        && let Some(inner) = option_in_option(&param.ty)
    {
        cx.error_spanned_by(
            inner,
            "`Option<Option<T>>` cannot tell an argument sent as `null` from one left out (both read as \
             `None`); take `Option<T>`, or a `serde_json::Value` to see the difference",
        );
    }
    if param.args.flatten.is_some() && kind != Kind::Tool {
        cx.error_spanned_by(
            &param.ident,
            format!("`#[mcp(flatten)]` applies to tool parameters only; a {what}'s parameters are each one value"),
        );
    }
    if matches!(param.kind, ParamKind::Flatten)
        && let Some(what_it_is) = not_a_struct(&param.ty)
    {
        cx.error_spanned_by(
            &param.ty,
            format!(
                "`#[mcp(flatten)]` needs a struct with named fields (its fields become the \
                 arguments), not {what_it_is}; remove `#[mcp(flatten)]` to take it as one argument"
            ),
        );
    }
    if let Some(header) = &param.args.header
        && !(matches!(param.kind, ParamKind::Argument) && kind == Kind::Tool)
    {
        cx.error_spanned_by(
            header,
            "`#[mcp(header)]` mirrors a tool argument in an HTTP header: use it on a tool's argument",
        );
    }
}

/// A type as it is written (`Vec<String>`), not as tokens are spaced (`Vec < String >`).
fn shown(ty: &Type) -> String {
    quote::ToTokens::to_token_stream(ty)
        .to_string()
        .replace(" :: ", "::")
        .replace(" <", "<")
        .replace("< ", "<")
        .replace(" >", ">")
        .replace(" ,", ",")
        .replace("& ", "&")
}

/// The wrapper and what it wraps when `ty` is an extractor of another framework, taken as a
/// parameter out of habit: `Json<T>` (axum; ours is for output), `Parameters<T>` (rmcp).
fn extractor(ty: &Type) -> Option<(&syn::Ident, &Type)> {
    let Type::Path(path) = ty else { return None };
    let last = path.path.segments.last()?;
    let syn::PathArguments::AngleBracketed(args) = &last.arguments else { return None };
    match (args.args.first(), args.args.len()) {
        (Some(syn::GenericArgument::Type(inner)), 1) if last.ident == "Json" || last.ident == "Parameters" => {
            Some((&last.ident, inner))
        }
        _ => None,
    }
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

/// A reference inside the generic arguments, tuples or arrays of `ty` (`Vec<&str>`,
/// `Option<&[u8]>`, `(String, &str)`).
fn borrowed_inside(ty: &Type) -> Option<&syn::TypeReference> {
    match ty {
        Type::Reference(reference) => Some(reference),
        Type::Path(path) => path.path.segments.iter().find_map(|segment| match &segment.arguments {
            syn::PathArguments::AngleBracketed(args) => args.args.iter().find_map(|arg| match arg {
                syn::GenericArgument::Type(inner) => borrowed_inside(inner),
                _ => None,
            }),
            _ => None,
        }),
        Type::Tuple(tuple) => tuple.elems.iter().find_map(borrowed_inside),
        Type::Array(array) => borrowed_inside(&array.elem),
        Type::Paren(inner) => borrowed_inside(&inner.elem),
        _ => None,
    }
}

/// A `Bounded<MIN, MAX>` in `ty` (at any depth) whose literal minimum is above its maximum:
/// its arguments and the two bounds.
fn inverted_bounds(ty: &Type) -> Option<(&syn::AngleBracketedGenericArguments, i128, i128)> {
    let Type::Path(path) = ty else {
        return match ty {
            Type::Tuple(tuple) => tuple.elems.iter().find_map(inverted_bounds),
            Type::Array(array) => inverted_bounds(&array.elem),
            Type::Paren(inner) => inverted_bounds(&inner.elem),
            _ => None,
        };
    };
    path.path.segments.iter().find_map(|segment| {
        let syn::PathArguments::AngleBracketed(args) = &segment.arguments else { return None };
        if segment.ident == "Bounded" && args.args.len() == 2 {
            let bound = |arg: &syn::GenericArgument| -> Option<i128> {
                let syn::GenericArgument::Const(expr) = arg else { return None };
                match expr {
                    syn::Expr::Lit(syn::ExprLit { lit: Lit::Int(int), .. }) => int.base10_parse().ok(),
                    syn::Expr::Unary(syn::ExprUnary { op: syn::UnOp::Neg(_), expr, .. }) => match &**expr {
                        syn::Expr::Lit(syn::ExprLit { lit: Lit::Int(int), .. }) => {
                            int.base10_parse::<i128>().ok().map(|v| -v)
                        }
                        _ => None,
                    },
                    syn::Expr::Block(block) => match block.block.stmts.as_slice() {
                        [syn::Stmt::Expr(syn::Expr::Lit(syn::ExprLit { lit: Lit::Int(int), .. }), None)] => {
                            int.base10_parse().ok()
                        }
                        _ => None,
                    },
                    _ => None,
                }
            };
            if let (Some(min), Some(max)) = (bound(&args.args[0]), bound(&args.args[1]))
                && min > max
            {
                return Some((args, min, max));
            }
        }
        args.args.iter().find_map(|arg| match arg {
            syn::GenericArgument::Type(inner) => inverted_bounds(inner),
            _ => None,
        })
    })
}

/// The inner `Option<...>` of an `Option<Option<T>>`.
fn option_in_option(ty: &Type) -> Option<&Type> {
    let inner = option_argument(ty)?;
    option_argument(inner).map(|_| inner)
}

/// `T` when `ty` is `Option<T>` (any path ending in `Option`).
fn option_argument(ty: &Type) -> Option<&Type> {
    let Type::Path(path) = ty else { return None };
    let last = path.path.segments.last()?;
    let syn::PathArguments::AngleBracketed(args) = &last.arguments else { return None };
    match (last.ident == "Option", args.args.first()) {
        (true, Some(syn::GenericArgument::Type(inner))) if args.args.len() == 1 => Some(inner),
        _ => None,
    }
}

/// A tool's function, and its name.
pub(crate) fn tool(cx: &Ctxt, args: &ToolArgs, tool: &FnItem) {
    function(cx, tool, crate::ast::TOOL);
    local_plain_fn(cx, &args.common, tool);
    task(cx, args, tool);
    annotations(cx, args);
    if let Some(name) = args.common.name.get()
        && !is_tool_name(&name.value())
    {
        cx.error_spanned_by(
            name,
            "a tool name must be 1 to 128 characters among `A-Z`, `a-z`, `0-9`, `_`, `-` and `.`",
        );
    }
}

/// The tool annotations that cannot hold together: a read-only tool modifies nothing, so it
/// cannot be destructive (the spec gives `destructiveHint` meaning only when `readOnlyHint` is
/// false). `idempotent` beside `read_only` is redundant, not contradictory: allowed.
fn annotations(cx: &Ctxt, args: &ToolArgs) {
    if !args.read_only.get().is_some_and(syn::LitBool::value) {
        return;
    }
    if let Some(flag) = args.destructive.get().filter(|flag| flag.value()) {
        cx.error_spanned_by(
            flag,
            "a `read_only` tool modifies nothing, so it cannot be `destructive` (delete or overwrite): \
             remove `destructive`, or `read_only` if the tool does modify its environment",
        );
    }
}

/// The completers of `complete(...)` that are obviously not functions of what was typed: a
/// list, a string, a closure without a parameter.
pub(crate) fn completers(cx: &Ctxt, entries: &[crate::attr::CompleteEntry]) {
    for entry in entries {
        let name = unraw(&entry.name);
        let list = |cx: &Ctxt, tokens: &dyn quote::ToTokens, shown: String| {
            cx.error_spanned_by(
                tokens,
                format!(
                    "a completer is a function of what the user typed, not a list: write \
                     `{name} = |typed| starting_with(typed, {shown})` to offer the entries that start with it"
                ),
            );
        };
        match &entry.completer {
            syn::Expr::Array(array) => list(cx, array, quote::ToTokens::to_token_stream(array).to_string()),
            syn::Expr::Reference(reference) if matches!(&*reference.expr, syn::Expr::Array(_)) => {
                list(cx, reference, quote::ToTokens::to_token_stream(&reference.expr).to_string());
            }
            syn::Expr::Macro(mac) if mac.mac.path.is_ident("vec") => {
                list(cx, mac, format!("[{}]", mac.mac.tokens));
            }
            syn::Expr::Lit(syn::ExprLit { lit: Lit::Str(text), .. }) => {
                list(cx, text, format!("[{}]", quote::ToTokens::to_token_stream(text)));
            }
            syn::Expr::Closure(closure) if closure.inputs.is_empty() => cx.error_spanned_by(
                closure.inputs_begin,
                format!(
                    "a completer takes what the user typed so far: `{name} = |typed| ...` (and, to see the \
                     other arguments, `|typed, context| ...`)"
                ),
            ),
            _ => {}
        }
    }
}

/// A prompt's function, and that each completion names one of its arguments.
pub(crate) fn prompt(cx: &Ctxt, args: &PromptArgs, prompt: &FnItem) {
    function(cx, prompt, crate::ast::PROMPT);
    local_plain_fn(cx, &args.common, prompt);
    completers(cx, &args.complete);
    for entry in &args.complete {
        let name = unraw(&entry.name);
        if !prompt.arguments().any(|p| unraw(&p.ident) == name || p.wire_name == name) {
            cx.error_spanned_by(
                &entry.name,
                format!("`{name}` is not an argument of this prompt, so it cannot be completed"),
            );
        }
    }
}

/// Whether `text` is a tool name as MCP allows one: 1 to 128 characters among `A-Z`, `a-z`,
/// `0-9`, `_`, `-` and `.`.
fn is_tool_name(text: &str) -> bool {
    (1..=128).contains(&text.len())
        && text.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
}

/// Whether `text` is a MIME type as RFC 6838 writes one: `type/subtype`, each an RFC 7230
/// token, optionally followed by `; name=value` parameters.
fn is_mime_type(text: &str) -> bool {
    let is_token =
        |part: &str| !part.is_empty() && part.chars().all(|c| c.is_ascii_alphanumeric() || "!#$&-^_.+".contains(c));
    let mut pieces = text.split(';');
    let essence = pieces.next().unwrap_or_default();
    let valid_essence = essence.split_once('/').is_some_and(|(kind, sub)| is_token(kind) && is_token(sub));
    valid_essence
        && pieces.all(|parameter| {
            parameter.trim().split_once('=').is_some_and(|(name, value)| is_token(name) && !value.is_empty())
        })
}

/// Milliseconds of a duration written `<number><unit>` (`ms`, `s`, `m`, `h`; the number may
/// have a fraction): `None` when malformed or zero. The expansion reads the time limit with it.
pub(crate) fn parse_duration_ms(text: &str) -> Option<u64> {
    let split = text.find(|c: char| !(c.is_ascii_digit() || c == '.'))?;
    let (number, unit) = text.split_at(split);
    let number: f64 = number.parse().ok()?;
    let factor = match unit {
        "ms" => 1.0,
        "s" => 1_000.0,
        "m" => 60_000.0,
        "h" => 3_600_000.0,
        _ => return None,
    };
    let millis = (number * factor).round();
    (1.0..1e15).contains(&millis).then_some(millis as u64)
}

/// Whether `lit` is a number from 0 to 1, as a resource's priority is.
fn is_priority(lit: &Lit) -> bool {
    let value = match lit {
        Lit::Float(f) => f.base10_parse::<f64>().ok(),
        Lit::Int(i) => i.base10_parse::<f64>().ok(),
        _ => None,
    };
    value.is_some_and(|v| (0.0..=1.0).contains(&v))
}

#[cfg(test)]
mod tests {
    use proc_macro2::TokenStream;
    use quote::quote;

    use super::resource::Uri;
    use super::{is_mime_type, is_priority, is_tool_name, parse_duration_ms, resource_args, resource_const};
    use crate::attr::ResourceArgs;
    use crate::ctxt::Ctxt;

    /// The messages `resource_args` (and `resource_const` for a `const` item) give on `args`.
    fn resource_errors(args: TokenStream, on_const: bool) -> Vec<String> {
        let cx = Ctxt::new();
        let args = ResourceArgs::parse(&cx, args);
        resource_args(&cx, &args);
        if on_const {
            resource_const(&cx, &args, &Uri::Fixed);
        }
        cx.check().err().into_iter().flatten().map(|e| e.to_string()).collect()
    }

    #[test]
    fn a_type_is_shown_as_written() {
        let ty: syn::Type = syn::parse_quote!(std::collections::HashMap<String, Vec<&'static str>>);
        assert_eq!(super::shown(&ty), "std::collections::HashMap<String, Vec<&'static str>>");
    }

    #[test]
    fn mime_types_are_type_slash_subtype() {
        for good in
            ["text/plain", "application/json", "image/svg+xml", "text/html; charset=utf-8", "application/vnd.a.b"]
        {
            assert!(is_mime_type(good), "{good}");
        }
        for bad in ["txt", "text/", "/plain", "text/plain/x", "text plain", "", "text/plain; charset"] {
            assert!(!is_mime_type(bad), "{bad}");
        }
    }

    #[test]
    fn durations_are_read_with_their_unit() {
        assert_eq!(parse_duration_ms("30s"), Some(30_000));
        assert_eq!(parse_duration_ms("500ms"), Some(500));
        assert_eq!(parse_duration_ms("1.5s"), Some(1_500));
        assert_eq!(parse_duration_ms("2m"), Some(120_000));
        assert_eq!(parse_duration_ms("1h"), Some(3_600_000));
        for bad in ["30", "s", "0s", "3 s", "3sec", "-1s", ""] {
            assert_eq!(parse_duration_ms(bad), None, "{bad}");
        }
    }

    #[test]
    fn tool_names_are_1_to_128_allowed_characters() {
        for good in ["ping", "look_up", "a.b-c", "A1", &"x".repeat(128)] {
            assert!(is_tool_name(good), "{good}");
        }
        for bad in ["", "look up", "caf\u{e9}", "a/b", &"x".repeat(129)] {
            assert!(!is_tool_name(bad), "{bad}");
        }
    }

    #[test]
    fn priorities_are_numbers_from_0_to_1() {
        for good in ["0", "1", "0.5", "1.0", "0.0"] {
            assert!(is_priority(&syn::parse_str(good).expect("a literal")), "{good}");
        }
        for bad in ["2.5", "2", "1.01", "\"high\"", "true"] {
            assert!(!is_priority(&syn::parse_str(bad).expect("a literal")), "{bad}");
        }
    }

    #[test]
    fn resource_values_are_judged_once_read() {
        let valid = quote!(
            "docs://readme",
            mime = "text/plain",
            size = 1024,
            audience = "user",
            audience = "assistant",
            priority = 0.5,
            ttl_ms = 5000,
            cache_scope = "private",
            timeout = "1s"
        );
        assert_eq!(resource_errors(valid, false), Vec::<String>::new());
        let invalid = quote!(
            "docs://readme",
            audience = "everyone",
            cache_scope = "shared",
            size = 18446744073709551616,
            ttl_ms = 18446744073709551616
        );
        assert_eq!(
            resource_errors(invalid, false),
            [
                "number too large to fit in target type",
                "`audience` is `\"user\"` or `\"assistant\"`",
                "number too large to fit in target type",
                "`cache_scope` is `\"public\"` or `\"private\"`",
            ]
        );
    }

    #[test]
    fn a_malformed_timeout_on_a_const_is_one_error() {
        let malformed = "`timeout` takes a duration above zero such as \"30s\", \"500ms\", \"2m\" or \"1h\"";
        assert_eq!(resource_errors(quote!("docs://readme", timeout = "soon"), true), [malformed]);
        let runs_no_code = "a `const` resource runs no code, so it has no time limit; remove `timeout`";
        assert_eq!(resource_errors(quote!("docs://readme", timeout = "1s"), true), [runs_no_code]);
    }
}
