//! The rules of a resource's URI, and of how a template's variables meet the function's
//! parameters, its completions and `list`.

use proc_macro2::Span;
use syn::Ident;

use crate::ast::{FnItem, unraw};
use crate::attr::ResourceArgs;
use crate::ctxt::Ctxt;
// The runtime's own parser: templates are checked at compile time exactly as they are
// matched at run time.
use mcp_uri_template::UriTemplate;

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
        if args.uri_written {
            return Uri::Broken;
        }
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
        if let Some((written, name)) = foreign_variable(&value) {
            let fixed = value.replacen(&written, &format!("{{{name}}}"), 1);
            cx.error_spanned_by(
                uri,
                format!(
                    "`{written}` is not a template variable here: resource templates are RFC 6570 URI templates, \
                     with each variable in braces: `\"{fixed}\"`"
                ),
            );
            return Uri::Broken;
        }
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

/// A variable written in another router's style in `uri`: `:id` (Express), `<id>` or
/// `<int:id>` (Flask, Rocket), `[id]` (file-system routers); what was written and the name.
fn foreign_variable(uri: &str) -> Option<(String, String)> {
    let rest = uri.split_once("://").map_or_else(|| uri.split_once(':').map_or("", |(_, r)| r), |(_, r)| r);
    let is_name = |name: &str| !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    rest.split(['/', '?', '&', '=', '.']).find_map(|segment| {
        if let Some(name) = segment.strip_prefix(':').filter(|name| is_name(name)) {
            return Some((segment.to_owned(), name.to_owned()));
        }
        let inner = segment
            .strip_prefix('<')
            .and_then(|s| s.strip_suffix('>'))
            .or_else(|| segment.strip_prefix('[').and_then(|s| s.strip_suffix(']')))?;
        let name = inner.rsplit(':').next().unwrap_or(inner);
        is_name(name).then(|| (segment.to_owned(), name.to_owned()))
    })
}

/// Template variables ↔ parameters, completions ↔ variables, `list` ↔ a template.
pub(crate) fn resource_function(cx: &Ctxt, args: &ResourceArgs, resource: &FnItem, uri: &Uri) {
    super::function(cx, resource, crate::ast::RESOURCE);
    super::local_plain_fn(cx, &args.common, resource);
    super::completers(cx, &args.complete);
    if matches!(uri, Uri::Broken) {
        return;
    }
    let template = uri.template();
    let variables: Vec<&str> = template.map(|t| t.variables().collect()).unwrap_or_default();
    let unmatched_params: Vec<String> =
        resource.arguments().map(|p| unraw(&p.ident)).filter(|name| !variables.contains(&name.as_str())).collect();
    let unmatched_variables: Vec<&str> = variables
        .iter()
        .copied()
        .filter(|variable| !resource.arguments().any(|p| unraw(&p.ident) == *variable))
        .collect();
    // A variable and a parameter that each lack the other, and are alike (`{m}` beside `n`,
    // `{categry}` beside `category`): one misspelling, one error at the URI.
    let mut paired: Vec<(&str, &str)> = Vec::new();
    if let Some(uri) = args.uri.get() {
        for variable in &unmatched_variables {
            let params: Vec<&str> = unmatched_params.iter().map(String::as_str).collect();
            let near = crate::attr::suggest::closest(variable, &params)
                .or_else(|| (unmatched_variables.len() == 1 && params.len() == 1).then(|| params[0]));
            if let Some(param) = near.filter(|p| !paired.iter().any(|(_, q)| q == p)) {
                let fixed = uri.value().replace(&format!("{{{variable}}}"), &format!("{{{param}}}"));
                cx.error_spanned_by(
                    uri,
                    format!(
                        "URI template variable `{variable}` matches no parameter, and parameter `{param}` no \
                         variable: a variable is bound to the parameter of its name, so write `\"{fixed}\"` \
                         (or rename the parameter `{variable}`)"
                    ),
                );
                paired.push((variable, param));
            }
        }
    }
    for param in resource.arguments() {
        let name = unraw(&param.ident);
        if paired.iter().any(|(_, p)| *p == name) {
            continue;
        }
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
        for variable in &unmatched_variables {
            if !paired.iter().any(|(v, _)| v == variable) {
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
    // A malformed timeout has its own error already: one mistake, one error.
    if let Some(timeout) = args.common.timeout.get()
        && super::parse_duration_ms(&timeout.value()).is_some()
    {
        cx.error_spanned_by(timeout, "a `const` resource runs no code, so it has no time limit; remove `timeout`");
    }
}

#[cfg(test)]
mod tests {
    use proc_macro2::TokenStream;
    use quote::quote;

    use crate::ast::{FnItem, RESOURCE};
    use crate::attr::ResourceArgs;
    use crate::ctxt::Ctxt;

    /// The errors on a resource function declared with `args`.
    fn errors(args: TokenStream, function: TokenStream) -> Vec<String> {
        let cx = Ctxt::new();
        let args = ResourceArgs::parse(&cx, args);
        let function = FnItem::from_syn(&cx, syn::parse2(function).expect("a function"), RESOURCE);
        let uri = super::resource_uri(&cx, &args, Some(function.ident()));
        super::resource_function(&cx, &args, &function, &uri);
        cx.check().err().into_iter().flatten().map(|e| e.to_string()).collect()
    }

    #[test]
    fn a_misspelt_variable_is_one_error_naming_the_parameter_it_was_meant_for() {
        let found = errors(
            quote!("shop://{categry}/{id}/{page}"),
            quote!(
                fn item(category: String, id: u32, size: u32) -> String {
                    String::new()
                }
            ),
        );
        assert_eq!(found.len(), 3, "{found:?}");
        assert!(found[0].starts_with("URI template variable `categry` matches no parameter, and parameter `category`"));
        assert!(found[0].contains("write `\"shop://{category}/{id}/{page}\"`"), "{}", found[0]);
        // `{page}` and `size` are not alike, and the template had two unmatched variables: no
        // pairing is guessed.
        assert!(found[1].starts_with("parameter `size` is not a variable of the URI template"), "{}", found[1]);
        assert!(found[2].starts_with("URI template variable `page` has no parameter"), "{}", found[2]);
    }
}
