//! How each key's value is written, for the errors on a value written otherwise: a key given
//! without its value (`task`), a value of another form (a `const`, an enum path, a number where
//! a string literal goes). Each error shows the form to write and, when the key takes a few
//! words, which.

use quote::ToTokens;
use syn::meta::ParseNestedMeta;
use syn::{Expr, Lit, LitStr};

/// An example of `key`'s value as written, and the words it takes when it takes a few.
fn form(key: &str) -> (&'static str, Option<&'static [&'static str]>) {
    match key {
        "name" => ("\"look_up\"", None),
        "title" => ("\"Look up a word\"", None),
        "description" => ("\"...\"", None),
        "icon" => ("\"https://example.com/icon.png\"", None),
        "uri" => ("\"scheme://path\"", None),
        "mime" => ("\"application/json\"", None),
        "timeout" => ("\"30s\"", None),
        "crate" => ("\"my_mcp\"", None),
        "rename" => ("\"type\"", None),
        "header" => ("\"Region\"", None),
        "task" => ("\"optional\"", Some(&["never", "optional", "required"])),
        "audience" => ("\"user\"", Some(&["user", "assistant"])),
        "cache_scope" => ("\"private\"", Some(&["public", "private"])),
        "size" => ("1024", None),
        "ttl_ms" => ("5000", None),
        "priority" => ("0.5", None),
        "list" => ("all_items", None),
        "input_schema" | "output_schema" => ("my_schema()", None),
        _ => ("\"...\"", None),
    }
}

/// `key = <example>`, followed by the words it takes.
pub(crate) fn written(key: &str) -> String {
    let (example, words) = form(key);
    match words {
        Some(words) => format!("`{key} = {example}` ({})", one_of(words)),
        None => format!("`{key} = {example}`"),
    }
}

/// `one of "a", "b" or "c"`.
pub(crate) fn one_of(words: &[&str]) -> String {
    let quoted: Vec<String> = words.iter().map(|w| format!("\"{w}\"")).collect();
    match quoted.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, [first])) => format!("{first} or {last}"),
        Some((last, rest)) => format!("one of {} or {last}", rest.join(", ")),
        None => String::new(),
    }
}

/// Reads `= <value>`, or fails at the key with the form to write.
pub(crate) fn value<'a>(meta: &'a ParseNestedMeta<'_>, key: &str) -> syn::Result<syn::parse::ParseStream<'a>> {
    meta.value().map_err(|_| syn::Error::new_spanned(&meta.path, format!("`{key}` needs a value: {}", written(key))))
}

/// Reads `= "string"`.
pub(crate) fn string_value(meta: &ParseNestedMeta<'_>, key: &str) -> syn::Result<LitStr> {
    let expr: Expr = value(meta, key)?.parse()?;
    match expr {
        Expr::Lit(syn::ExprLit { lit: Lit::Str(s), .. }) => Ok(s),
        other => Err(not_a_string(key, &other)),
    }
}

/// The error on a value of `key`, which takes a string literal, written as something else.
fn not_a_string(key: &str, value: &Expr) -> syn::Error {
    let (_, words) = form(key);
    let shown = value.to_token_stream().to_string().replace(" :: ", "::");
    let message = match value {
        // `task = TaskSupport::Optional`, `cache_scope = CacheScope::Private`.
        Expr::Path(path) if path.path.segments.len() > 1 => {
            let last = path.path.segments.last().map(|s| s.ident.to_string().to_lowercase()).unwrap_or_default();
            let fix = match words {
                Some(words) if words.contains(&last.as_str()) => format!("`{key} = \"{last}\"`"),
                _ => written(key),
            };
            let words = words.map(|w| format!(" ({})", one_of(w))).unwrap_or_default();
            format!("`{key}` takes a string literal, not the path `{shown}`: write {fix}{words}")
        }
        // `rename = kind`: a word meant as the text.
        Expr::Path(path) if !shown.chars().any(|c| c.is_ascii_uppercase()) && path.path.get_ident().is_some() => {
            format!("`{key}` takes a string literal, in quotes: `{key} = \"{shown}\"`")
        }
        // `name = NAME`: a `const` or a `static`.
        Expr::Path(_) => format!(
            "`{key}` takes a string literal: the macro reads its attribute before `{shown}` has a value, so \
             write the text itself, {}",
            written(key)
        ),
        // `timeout = 30`, `title = 5`.
        Expr::Lit(syn::ExprLit { lit: Lit::Int(int), .. }) if key == "timeout" => format!(
            "`timeout` takes a duration with its unit, in quotes: `timeout = \"{}s\"` (or \"500ms\", \"2m\", \"1h\")",
            int.base10_digits()
        ),
        Expr::Macro(mac) => format!(
            "`{key}` takes a string literal: the macro reads its attribute before `{}!(..)` is expanded; write {}",
            mac.mac.path.to_token_stream().to_string().replace(" :: ", "::"),
            written(key)
        ),
        _ => format!("`{key}` takes a string literal: {}", written(key)),
    };
    syn::Error::new_spanned(value, message)
}

#[cfg(test)]
mod tests {
    use proc_macro2::TokenStream;
    use quote::quote;

    use super::one_of;
    use crate::attr::{ResourceArgs, ToolArgs};
    use crate::ctxt::Ctxt;

    fn tool_errors(args: TokenStream) -> Vec<String> {
        let cx = Ctxt::new();
        ToolArgs::parse(&cx, args);
        cx.check().err().into_iter().flatten().map(|e| e.to_string()).collect()
    }

    fn resource_errors(args: TokenStream) -> Vec<String> {
        let cx = Ctxt::new();
        ResourceArgs::parse(&cx, args);
        cx.check().err().into_iter().flatten().map(|e| e.to_string()).collect()
    }

    /// One error, which shows `fix`.
    #[track_caller]
    fn one_showing(errors: Vec<String>, fix: &str) {
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert!(errors[0].contains(fix), "{:?} does not show {fix}", errors[0]);
    }

    #[test]
    fn a_list_key_written_singular_or_with_equals_shows_the_list() {
        one_showing(tool_errors(quote!(scope = "notes:write")), "write `scopes(\"notes:write\")`");
        one_showing(tool_errors(quote!(scope("a", "b"))), "write `scopes(\"a\", \"b\")`");
        one_showing(tool_errors(quote!(tag = "admin")), "write `tags(\"admin\")`");
        one_showing(tool_errors(quote!(scopes = "notes:write")), "write `scopes(\"notes:write\")`");
        one_showing(tool_errors(quote!(tags = "admin")), "write `tags(\"admin\")`");
    }

    #[test]
    fn a_misspelt_key_is_shown_written_with_the_value_given() {
        one_showing(tool_errors(quote!(scops = "a:b")), "did you mean `scopes`? (write `scopes(\"a:b\")`; valid:");
        one_showing(tool_errors(quote!(scops("a:b", "c"))), "write `scopes(\"a:b\", \"c\")`;");
        one_showing(tool_errors(quote!(tsk = "optional")), "did you mean `task`? (write `task = \"optional\"`;");
        one_showing(tool_errors(quote!(tsk)), "write `task = \"optional\"` (one of");
        one_showing(resource_errors(quote!("a://b", cacheScope = "private")), "(write `cache_scope = \"private\"`;");
        // A flag's form is its name: nothing more to show.
        one_showing(tool_errors(quote!(read_onyl)), "did you mean `read_only`? (valid:");
    }

    #[test]
    fn an_empty_list_declares_nothing_and_says_so() {
        one_showing(tool_errors(quote!(scopes())), "the item stays open to every caller");
        one_showing(tool_errors(quote!(tags())), "`tags()` names no tag");
    }

    #[test]
    fn a_value_in_another_form_shows_the_literal_to_write() {
        one_showing(tool_errors(quote!(task = TaskSupport::Required)), "write `task = \"required\"`");
        one_showing(
            tool_errors(quote!(task = mcp_runtime::tasks::TaskSupport::Never)),
            "write `task = \"never\"` (one of \"never\", \"optional\" or \"required\")",
        );
        one_showing(tool_errors(quote!(task)), "`task` needs a value: `task = \"optional\"` (one of");
        one_showing(tool_errors(quote!(title = TITLE)), "before `TITLE` has a value");
        one_showing(tool_errors(quote!(description = concat!("a", "b"))), "before `concat!");
        one_showing(tool_errors(quote!(timeout = 5)), "`timeout = \"5s\"`");
        one_showing(tool_errors(quote!(name = look_up)), "`name = \"look_up\"`");
        one_showing(resource_errors(quote!("a://b", cache_scope = CacheScope::Public)), "`cache_scope = \"public\"`");
        one_showing(resource_errors(quote!("a://b", audience = Role::Assistant)), "`audience = \"assistant\"`");
        one_showing(resource_errors(quote!("a://b", mime = MIME)), "before `MIME` has a value");
        one_showing(resource_errors(quote!("a://b", size)), "`size` needs a value: `size = 1024`");
    }

    /// The errors on a resource function declared with `args`, the URI's included.
    fn resource_uri_errors(args: TokenStream) -> Vec<String> {
        let cx = Ctxt::new();
        let args = ResourceArgs::parse(&cx, args);
        crate::check::resource_uri(&cx, &args, None);
        cx.check().err().into_iter().flatten().map(|e| e.to_string()).collect()
    }

    #[test]
    fn a_const_given_as_the_uri_is_one_error() {
        for args in [quote!(CATALOG_URI), quote!(consts::CATALOG_URI, mime = "text/plain"), quote!(uri = CATALOG)] {
            one_showing(resource_uri_errors(args), "has a value, so write the");
        }
        // A lowercase word is a key, maybe misspelt, and the URI is then missing.
        let found = resource_uri_errors(quote!(subscrbe));
        assert_eq!(found.len(), 2, "{found:?}");
        assert!(found[0].contains("did you mean `subscribe`?"), "{found:?}");
        assert!(found[1].starts_with("this resource has no URI"), "{found:?}");
    }

    #[test]
    fn the_protocol_s_uri_template_is_the_uri_and_one_error() {
        for key in [quote!(uri_template), quote!(uriTemplate)] {
            let cx = Ctxt::new();
            let args = ResourceArgs::parse(&cx, quote!(#key = "users://{id}"));
            assert_eq!(args.uri.get().map(syn::LitStr::value).as_deref(), Some("users://{id}"));
            let errors: Vec<String> = cx.check().err().into_iter().flatten().map(|e| e.to_string()).collect();
            one_showing(errors, "did you mean `uri`?");
        }
    }

    #[test]
    fn the_words_a_key_takes_read_as_a_list() {
        assert_eq!(one_of(&["public", "private"]), "\"public\" or \"private\"");
        assert_eq!(one_of(&["never", "optional", "required"]), "one of \"never\", \"optional\" or \"required\"");
    }
}
