//! The arguments of `#[mcp_tool(...)]` and of the `#[mcp(...)]` parameter attribute, parsed
//! into typed slots.

use proc_macro2::{Span, TokenStream};
use quote::ToTokens;
use syn::meta::ParseNestedMeta;
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::{Expr, Lit, LitBool, LitStr, Token};

use crate::ctxt::Ctxt;

/// A value given once, with the span of its key for "duplicate" errors.
pub(crate) struct Slot<T> {
    key: &'static str,
    value: Option<T>,
}

impl<T> Slot<T> {
    fn new(key: &'static str) -> Self {
        Slot { key, value: None }
    }

    fn set(&mut self, cx: &Ctxt, attr: &str, key_tokens: impl ToTokens, value: T) {
        if self.value.is_some() {
            cx.error_spanned_by(key_tokens, format!("duplicate `{attr}` argument `{}`; give it once", self.key));
        } else {
            self.value = Some(value);
        }
    }

    pub(crate) fn get(&self) -> Option<&T> {
        self.value.as_ref()
    }

    pub(crate) fn take(&mut self) -> Option<T> {
        self.value.take()
    }
}

/// One `_meta` entry: `"com.example/key" = <literal>` or `key = <literal>`.
pub(crate) struct MetaEntry {
    pub(crate) key: LitStr,
    pub(crate) value: Lit,
}

impl Parse for MetaEntry {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        let key = if input.peek(LitStr) {
            input.parse::<LitStr>()?
        } else {
            let ident: syn::Ident = input.parse()?;
            LitStr::new(&ident.to_string(), ident.span())
        };
        input.parse::<Token![=]>()?;
        let value: Lit = input.parse()?;
        match &value {
            Lit::Str(_) | Lit::Int(_) | Lit::Float(_) | Lit::Bool(_) => Ok(MetaEntry { key, value }),
            other => Err(syn::Error::new_spanned(other, "a `meta` value must be a string, number or boolean literal")),
        }
    }
}

/// The arguments of `#[mcp_tool(...)]`.
pub(crate) struct ToolArgs {
    pub(crate) name: Slot<LitStr>,
    pub(crate) title: Slot<LitStr>,
    pub(crate) description: Slot<LitStr>,
    pub(crate) read_only: Slot<LitBool>,
    pub(crate) destructive: Slot<LitBool>,
    pub(crate) idempotent: Slot<LitBool>,
    pub(crate) open_world: Slot<LitBool>,
    pub(crate) icons: Vec<LitStr>,
    pub(crate) meta: Vec<MetaEntry>,
    pub(crate) input_schema: Slot<Expr>,
    pub(crate) output_schema: Slot<Expr>,
    pub(crate) krate: Slot<syn::Path>,
}

/// Every key `#[mcp_tool]` accepts, in the order the docs list them.
pub(crate) const TOOL_KEYS: &[&str] = &[
    "name",
    "title",
    "description",
    "read_only",
    "destructive",
    "idempotent",
    "open_world",
    "icon",
    "meta",
    "input_schema",
    "output_schema",
    "crate",
];

const ATTR: &str = "mcp_tool";

impl ToolArgs {
    /// Parses the attribute's arguments, recording every problem in `cx`.
    pub(crate) fn parse(cx: &Ctxt, args: TokenStream) -> ToolArgs {
        let mut out = ToolArgs {
            name: Slot::new("name"),
            title: Slot::new("title"),
            description: Slot::new("description"),
            read_only: Slot::new("read_only"),
            destructive: Slot::new("destructive"),
            idempotent: Slot::new("idempotent"),
            open_world: Slot::new("open_world"),
            icons: Vec::new(),
            meta: Vec::new(),
            input_schema: Slot::new("input_schema"),
            output_schema: Slot::new("output_schema"),
            krate: Slot::new("crate"),
        };
        let parser = syn::meta::parser(|meta| {
            if let Err(e) = out.parse_one(cx, &meta) {
                cx.push(e);
                // Skip what is left of this argument so the next one still parses.
                if meta.input.peek(Token![=]) {
                    let _ = meta.input.parse::<Token![=]>();
                    let _ = meta.input.parse::<Expr>();
                } else if meta.input.peek(syn::token::Paren) {
                    let _ = meta.input.parse::<proc_macro2::Group>();
                }
            }
            Ok(())
        });
        if let Err(e) = syn::parse::Parser::parse2(parser, args) {
            cx.push(e);
        }
        out
    }

    fn parse_one(&mut self, cx: &Ctxt, meta: &ParseNestedMeta<'_>) -> syn::Result<()> {
        let path = &meta.path;
        let key = path.get_ident().map(ToString::to_string).unwrap_or_else(|| path.to_token_stream().to_string());
        match key.as_str() {
            // name = "suggest_gifts"
            "name" => {
                let lit = string_value(meta, "name")?;
                self.name.set(cx, ATTR, path, lit);
            }
            // title = "Suggest gifts"
            "title" => {
                let lit = string_value(meta, "title")?;
                self.title.set(cx, ATTR, path, lit);
            }
            // description = "..."
            "description" => {
                let lit = string_value(meta, "description")?;
                self.description.set(cx, ATTR, path, lit);
            }
            // read_only | read_only = true
            "read_only" => self.read_only.set(cx, ATTR, path, flag_value(meta, "read_only")?),
            "destructive" => self.destructive.set(cx, ATTR, path, flag_value(meta, "destructive")?),
            "idempotent" => self.idempotent.set(cx, ATTR, path, flag_value(meta, "idempotent")?),
            "open_world" => self.open_world.set(cx, ATTR, path, flag_value(meta, "open_world")?),
            // icon = "https://example.com/icon.png" (repeatable)
            "icon" => self.icons.push(string_value(meta, "icon")?),
            // meta("com.example/key" = "value", other = 3)
            "meta" => {
                let content;
                syn::parenthesized!(content in meta.input);
                let entries = Punctuated::<MetaEntry, Token![,]>::parse_terminated(&content)?;
                self.meta.extend(entries);
            }
            // input_schema = my_schema()   (any expression of type serde_json::Value)
            "input_schema" => self.input_schema.set(cx, ATTR, path, meta.value()?.parse()?),
            "output_schema" => self.output_schema.set(cx, ATTR, path, meta.value()?.parse()?),
            // crate = "my_renamed_runtime"
            "crate" => {
                let lit = string_value(meta, "crate")?;
                let parsed: syn::Path = lit
                    .parse()
                    .map_err(|_| syn::Error::new_spanned(&lit, "`crate` must be a path, e.g. `crate = \"my_mcp\"`"))?;
                self.krate.set(cx, ATTR, path, parsed);
            }
            _ => return Err(unknown_key(path, &key, ATTR, TOOL_KEYS)),
        }
        Ok(())
    }
}

/// Reads `= "string"`.
fn string_value(meta: &ParseNestedMeta<'_>, key: &str) -> syn::Result<LitStr> {
    let value = meta
        .value()
        .map_err(|_| syn::Error::new_spanned(&meta.path, format!("`{key}` needs a value: `{key} = \"...\"`")))?;
    let expr: Expr = value.parse()?;
    match expr {
        Expr::Lit(syn::ExprLit { lit: Lit::Str(s), .. }) => Ok(s),
        other => Err(syn::Error::new_spanned(other, format!("`{key}` takes a string literal: `{key} = \"...\"`"))),
    }
}

/// Reads a flag: absent value means `true`, else `= true` / `= false`.
fn flag_value(meta: &ParseNestedMeta<'_>, key: &str) -> syn::Result<LitBool> {
    if !meta.input.peek(Token![=]) {
        return Ok(LitBool::new(true, meta.path.span_or_call_site()));
    }
    let expr: Expr = meta.value()?.parse()?;
    match expr {
        Expr::Lit(syn::ExprLit { lit: Lit::Bool(b), .. }) => Ok(b),
        other => Err(syn::Error::new_spanned(
            other,
            format!("`{key}` is a flag: write `{key}` or `{key} = true` / `{key} = false`"),
        )),
    }
}

trait SpanOrCallSite {
    fn span_or_call_site(&self) -> Span;
}

impl SpanOrCallSite for syn::Path {
    fn span_or_call_site(&self) -> Span {
        self.segments.first().map_or_else(Span::call_site, |s| s.ident.span())
    }
}

/// "unknown argument" with the valid keys, and the closest one when it is close.
pub(crate) fn unknown_key(tokens: impl ToTokens, key: &str, attr: &str, valid: &[&str]) -> syn::Error {
    let list = valid.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ");
    let message = match closest(key, valid) {
        Some(guess) => {
            format!("unknown `{attr}` argument `{key}`; did you mean `{guess}`? (valid: {list})")
        }
        None => format!("unknown `{attr}` argument `{key}`; expected one of {list}"),
    };
    syn::Error::new_spanned(tokens, message)
}

fn closest<'a>(key: &str, valid: &[&'a str]) -> Option<&'a str> {
    valid
        .iter()
        .map(|k| (levenshtein(key, k), *k))
        .filter(|(d, k)| *d <= 2.max(k.len() / 3))
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k)
}

fn levenshtein(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != *cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

/// What `#[mcp(...)]` on a parameter says.
#[derive(Default)]
pub(crate) struct ParamArgs {
    /// `#[mcp(flatten)]`: this struct's fields are the tool's arguments.
    pub(crate) flatten: Option<Span>,
    /// `#[mcp(context)]`: this parameter receives the request context.
    pub(crate) context: Option<Span>,
}

pub(crate) const PARAM_KEYS: &[&str] = &["flatten", "context"];

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
                let slot = match key.as_str() {
                    "flatten" => &mut out.flatten,
                    "context" => &mut out.context,
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

/// Takes the `///` lines out of `attrs` (they are not allowed on parameters), returning them.
pub(crate) fn take_docs(attrs: &mut Vec<syn::Attribute>) -> Vec<Expr> {
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
