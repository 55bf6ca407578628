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
    let message = if matches!(key, "description" | "desc" | "title") {
        let text = meta
            .value()
            .ok()
            .and_then(|value| value.parse::<LitStr>().ok())
            .map_or_else(|| "What it is for".to_owned(), |text| text.value());
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
