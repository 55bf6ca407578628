//! The rules a declaration must follow, checked on the model once it is built, as
//! serde_derive's `check` module does: parsing (`attr`) and modeling (`ast`) record what the
//! user wrote, the rules live here, and the expansion (`tool`, `resource`, `prompt`) runs only
//! when none is broken. Each rule reports on the token to change and says what to write.

use proc_macro2::Span;
use syn::{Ident, Type};

use crate::ast::{Declares, FnItem, Kind, Param, ParamKind, unraw};
use crate::attr::{PromptArgs, ResourceArgs};
use crate::ctxt::Ctxt;
// The runtime's own parser: templates are checked at compile time exactly as they are
// matched at run time.
use mcp_uri_template::UriTemplate;

/// Every rule about an annotated function: its signature and its parameters.
pub(crate) fn function(cx: &Ctxt, function: &FnItem, declares: Declares) {
    let Declares { attr, item: what, .. } = declares;
    let sig = &function.item.sig;
    if sig.generics.lt_token.is_some() || sig.generics.where_clause.is_some() {
        cx.error_spanned_by(
            &sig.generics,
            format!("`#[{attr}]` functions cannot be generic; use concrete types (a {what}'s schema is fixed)"),
        );
    }
    if let Some(variadic) = &sig.variadic {
        cx.error_spanned_by(variadic, format!("`#[{attr}]` functions cannot be variadic"));
    }
    for param in &function.params {
        parameter(cx, param, declares);
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
    let mut seen: Vec<&str> = Vec::new();
    for param in function.arguments() {
        if seen.contains(&param.wire_name.as_str()) {
            cx.error_spanned_by(
                &param.ident,
                format!("two arguments are named `{}`; rename one with `#[mcp(rename = \"...\")]`", param.wire_name),
            );
        }
        seen.push(&param.wire_name);
    }
}

/// The rules about one parameter and its `#[mcp(...)]`.
fn parameter(cx: &Ctxt, param: &Param, declares: Declares) {
    let Declares { kind, attr, item: what } = declares;
    for misplaced in &param.misplaced {
        cx.error_spanned_by(
            misplaced,
            "`#[serde]` and `#[schemars]` do not apply to parameters; use `#[mcp(rename = \"...\")]` or \
             `#[mcp(default)]`, or gather the arguments in a struct marked `#[mcp(flatten)]`, where every \
             serde and schemars attribute works",
        );
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
    let takes_value = matches!(param.kind, ParamKind::Argument | ParamKind::Flatten);
    if let (true, Type::Reference(reference)) = (takes_value, &param.ty) {
        cx.error_spanned_by(
            reference,
            format!(
                "`#[{attr}]` parameters must own their values, which are read from the request; \
                 use `String` for `&str`, `Vec<T>` for `&[T]`"
            ),
        );
        return;
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

/// What a resource's URI is.
pub(crate) enum Uri {
    /// One fixed URI.
    Fixed,
    /// A URI template, parsed.
    Template(UriTemplate),
    /// Missing or malformed (already reported): the rules that depend on it are skipped, so
    /// one mistake gets one error.
    Broken,
}

impl Uri {
    pub(crate) fn template(&self) -> Option<&UriTemplate> {
        match self {
            Uri::Template(template) => Some(template),
            Uri::Fixed | Uri::Broken => None,
        }
    }
}

/// The URI: present, with a scheme, and a valid template when it has `{...}`.
pub(crate) fn resource_uri(cx: &Ctxt, args: &ResourceArgs, item: Option<&Ident>) -> Uri {
    let Some(uri) = args.uri.get() else {
        let span = item.map_or_else(Span::call_site, Ident::span);
        cx.push(syn::Error::new(
            span,
            "this resource has no URI: give it first in the attribute, `#[mcp_resource(\"scheme://path\")]`",
        ));
        return Uri::Broken;
    };
    let value = uri.value();
    let has_scheme = value.split_once(':').is_some_and(|(scheme, _)| {
        scheme.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
            && scheme.chars().all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
    });
    if !has_scheme || value.chars().any(char::is_whitespace) {
        cx.error_spanned_by(
            uri,
            "a resource URI needs a scheme and no spaces, e.g. `gifts://catalog` or `file:///notes.txt`",
        );
        return Uri::Broken;
    }
    if !value.contains(['{', '}']) {
        return Uri::Fixed;
    }
    match UriTemplate::parse(&value) {
        Ok(template) => Uri::Template(template),
        Err(e) => {
            cx.error_spanned_by(uri, format!("invalid URI template: {e}"));
            Uri::Broken
        }
    }
}

/// Template variables ↔ parameters, completions ↔ variables, `list` ↔ a template.
pub(crate) fn resource_function(cx: &Ctxt, args: &ResourceArgs, resource: &FnItem, uri: &Uri) {
    function(cx, resource, crate::ast::RESOURCE);
    if matches!(uri, Uri::Broken) {
        return;
    }
    let template = uri.template();
    let variables: Vec<&str> = template.map(|t| t.variables().collect()).unwrap_or_default();
    for param in resource.arguments() {
        let name = unraw(&param.ident);
        if !variables.contains(&name.as_str()) {
            let message = if template.is_some() {
                format!(
                    "parameter `{name}` is not a variable of the URI template; add `{{{name}}}` to the URI or remove the parameter"
                )
            } else {
                format!(
                    "a fixed resource takes no parameters; make the URI a template with `{{{name}}}` or remove `{name}`"
                )
            };
            cx.error_spanned_by(&param.ident, message);
        }
    }
    if let Some(uri) = args.uri.get() {
        for variable in &variables {
            if !resource.arguments().any(|p| unraw(&p.ident) == *variable) {
                cx.error_spanned_by(
                    uri,
                    format!("URI template variable `{variable}` has no parameter; add `{variable}: String` (or another `FromStr` type) to the function"),
                );
            }
        }
    }
    for entry in &args.complete {
        let name = unraw(&entry.name);
        if !variables.contains(&name.as_str()) {
            cx.error_spanned_by(
                &entry.name,
                format!("`{name}` is not a variable of the URI template, so it cannot be completed"),
            );
        }
    }
    if let (Some(list), None) = (args.list.get(), template) {
        cx.error_spanned_by(list, "`list` enumerates the resources of a template; a fixed resource lists itself");
    }
}

/// A `const` resource: one fixed URI, no code to run.
pub(crate) fn resource_const(cx: &Ctxt, args: &ResourceArgs, uri: &Uri) {
    if let (Uri::Template(_), Some(uri)) = (uri, args.uri.get()) {
        cx.error_spanned_by(uri, "a `const` resource has one fixed URI; declare a template on a function");
    }
    for entry in &args.complete {
        cx.error_spanned_by(&entry.name, "a `const` resource has no variables to complete");
    }
    if let Some(local) = args.common.local.get() {
        cx.error_spanned_by(local, "a `const` resource runs no code, so it cannot be `local`; remove `local`");
    }
    if let Some((timeout, _)) = args.common.timeout.get() {
        cx.error_spanned_by(timeout, "a `const` resource runs no code, so it has no time limit; remove `timeout`");
    }
}

/// A prompt's function, and that each completion names one of its arguments.
pub(crate) fn prompt(cx: &Ctxt, args: &PromptArgs, prompt: &FnItem) {
    function(cx, prompt, crate::ast::PROMPT);
    for entry in &args.complete {
        let name = unraw(&entry.name);
        if !prompt.arguments().any(|p| unraw(&p.ident) == name) {
            cx.error_spanned_by(
                &entry.name,
                format!("`{name}` is not an argument of this prompt, so it cannot be completed"),
            );
        }
    }
}
