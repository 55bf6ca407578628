//! The `#[mcp(...)]` attribute of a parameter, read and removed before the function is
//! emitted again: no attribute `mcp` exists for the compiler to find there.

use proc_macro2::Span;
use quote::ToTokens;
use syn::LitStr;

use super::suggest::unknown_key;
use super::{SpanOrCallSite, string_value};
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
    /// Reads and removes our `#[mcp(...)]` attributes from a parameter.
    pub(crate) fn take(cx: &Ctxt, attrs: &mut Vec<syn::Attribute>) -> ParamArgs {
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
                    _ => return Err(unknown_key(&meta.path, &key, "mcp", PARAM_KEYS)),
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
