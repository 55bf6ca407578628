//! The `#[mcp(...)]` attribute of a parameter, read and removed before the function is
//! emitted again: no attribute `mcp` exists for the compiler to find there.

use proc_macro2::Span;
use quote::ToTokens;
use syn::LitStr;

use super::suggest::unknown_key;
use super::{PROMPT_KEYS, RESOURCE_KEYS, SpanOrCallSite, TOOL_KEYS, string_value};
use crate::ctxt::Ctxt;

/// What `#[mcp(...)]` on a parameter says.
#[derive(Default)]
pub(crate) struct ParamArgs {
    /// `#[mcp(flatten)]`: this struct's fields are the tool's arguments.
    pub(crate) flatten: Option<Span>,
    /// `#[mcp(context)]`: this parameter receives the request context.
    pub(crate) context: Option<Span>,
    /// `#[mcp(default)]`: the argument may be left out; it then takes `Default::default()`.
    pub(crate) default: Option<Span>,
    /// `#[mcp(rename = "type")]`: the argument's name on the wire.
    pub(crate) rename: Option<LitStr>,
    /// `#[mcp(header = "Region")]`: the argument is mirrored in the `Mcp-Param-Region` HTTP
    /// header (2026-07-28).
    pub(crate) header: Option<LitStr>,
}

pub(crate) const PARAM_KEYS: &[&str] = &["flatten", "context", "default", "rename", "header"];

impl ParamArgs {
    /// Reads and removes our `#[mcp(...)]` attributes from a parameter of a function declared
    /// by `#[item_attr]`.
    pub(crate) fn take(cx: &Ctxt, attrs: &mut Vec<syn::Attribute>, item_attr: &str) -> ParamArgs {
        let mut out = ParamArgs::default();
        attrs.retain(|attr| {
            if !attr.path().is_ident("mcp") {
                return true;
            }
            let result = attr.parse_nested_meta(|meta| {
                let key = meta.path.to_token_stream().to_string();
                if key == "rename" || key == "header" {
                    let value = string_value(&meta, &key)?;
                    let slot = if key == "rename" { &mut out.rename } else { &mut out.header };
                    if slot.replace(value).is_some() {
                        cx.error_spanned_by(&meta.path, format!("duplicate `mcp` argument `{key}`; give it once"));
                    }
                    return Ok(());
                }
                if key == "default" && meta.input.peek(syn::Token![=]) {
                    let value: syn::Expr = meta.value()?.parse()?;
                    let value = value.to_token_stream().to_string();
                    return Err(syn::Error::new_spanned(
                        &meta.path,
                        format!(
                            "`default` takes no value: an argument left out takes its type's \
                             `Default::default()`; for `{value}`, take an `Option<T>` and write \
                             `.unwrap_or({value})` in the body, or a type whose `Default` is {value}"
                        ),
                    ));
                }
                let slot = match key.as_str() {
                    "flatten" => &mut out.flatten,
                    "context" => &mut out.context,
                    "default" => &mut out.default,
                    _ => {
                        return Err(item_key(&meta, &key, item_attr)
                            .unwrap_or_else(|| unknown_key(&meta.path, &key, "mcp", PARAM_KEYS)));
                    }
                };
                if slot.is_some() {
                    cx.error_spanned_by(&meta.path, format!("duplicate `mcp` argument `{key}`; give it once"));
                }
                *slot = Some(meta.path.span_or_call_site());
                Ok(())
            });
            if let Err(e) = result {
                cx.push(e);
            }
            false
        });
        out
    }
}

/// The error on a key of the item's attribute written on a parameter (`#[mcp(scopes(..))]`,
/// `#[mcp(description = "..")]`): where it belongs instead.
fn item_key(meta: &syn::meta::ParseNestedMeta<'_>, key: &str, attr: &str) -> Option<syn::Error> {
    let written = || meta.value().ok().and_then(|value| value.parse::<LitStr>().ok());
    let message = if key == "name" {
        // `#[mcp(name = "q")]`: the argument's own name, which `rename` gives.
        let name = written().map_or_else(|| "...".to_owned(), |name| name.value());
        format!("an argument's name on the wire is given with `rename`: `#[mcp(rename = \"{name}\")]`")
    } else if matches!(key, "description" | "desc" | "doc" | "about" | "help" | "title") {
        let text = written().map_or_else(|| "What it is for".to_owned(), |text| text.value());
        format!(
            "an argument is described by a `///` doc comment above its parameter (`/// {text}`), \
             not by `#[mcp({key} = ...)]`"
        )
    } else {
        let keys = match attr {
            "mcp_tool" => TOOL_KEYS,
            "mcp_resource" => RESOURCE_KEYS,
            _ => PROMPT_KEYS,
        };
        if !keys.contains(&key) {
            return None;
        }
        format!(
            "`{key}` is a key of the whole {}, written in `#[{attr}({key}...)]` above the function, not in a \
             parameter's `#[mcp(...)]` (which takes {})",
            attr.trim_start_matches("mcp_"),
            PARAM_KEYS.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ")
        )
    };
    Some(syn::Error::new_spanned(&meta.path, message))
}

#[cfg(test)]
mod tests {
    use crate::ctxt::Ctxt;

    use super::ParamArgs;

    /// The errors on a parameter of a `#[attr]` function carrying `param_attr`.
    fn errors(param_attr: syn::Attribute, attr: &str) -> Vec<String> {
        let cx = Ctxt::new();
        ParamArgs::take(&cx, &mut vec![param_attr], attr);
        cx.check().err().into_iter().flatten().map(|e| e.to_string()).collect()
    }

    #[test]
    fn an_item_s_key_on_a_parameter_says_where_it_belongs() {
        let found = errors(syn::parse_quote!(#[mcp(scopes("a:b"))]), "mcp_prompt");
        assert_eq!(found.len(), 1);
        assert!(found[0].starts_with("`scopes` is a key of the whole prompt, written in `#[mcp_prompt(scopes...)]`"));
        let found = errors(syn::parse_quote!(#[mcp(read_only)]), "mcp_tool");
        assert!(found[0].starts_with("`read_only` is a key of the whole tool"), "{found:?}");
    }

    #[test]
    fn a_description_or_a_name_on_a_parameter_shows_our_way_to_write_it() {
        let found = errors(syn::parse_quote!(#[mcp(description = "The word")]), "mcp_tool");
        assert!(found[0].contains("(`/// The word`)"), "{found:?}");
        let found = errors(syn::parse_quote!(#[mcp(help = "The word")]), "mcp_prompt");
        assert!(found[0].contains("(`/// The word`)"), "{found:?}");
        let found = errors(syn::parse_quote!(#[mcp(name = "q")]), "mcp_tool");
        assert_eq!(found, ["an argument's name on the wire is given with `rename`: `#[mcp(rename = \"q\")]`"]);
    }

    #[test]
    fn an_unknown_key_that_is_no_item_s_is_a_typo() {
        let found = errors(syn::parse_quote!(#[mcp(flaten)]), "mcp_tool");
        assert!(found[0].starts_with("unknown `mcp` argument `flaten`; did you mean `flatten`?"), "{found:?}");
    }
}
