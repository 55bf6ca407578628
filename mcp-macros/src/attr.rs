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

/// One `_meta` entry: `"com.example/key" = <literal>`, `key = <literal>`, or `key(<entries>)`
/// for an object (`meta(ui(resourceUri = "ui://app/page.html"))`).
pub(crate) struct MetaEntry {
    pub(crate) key: LitStr,
    pub(crate) value: MetaValue,
}

/// What a `_meta` entry holds.
pub(crate) enum MetaValue {
    /// A string, number or boolean.
    Lit(Lit),
    /// An object of further entries.
    Object(Vec<MetaEntry>),
}

impl Parse for MetaEntry {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        let key = if input.peek(LitStr) {
            input.parse::<LitStr>()?
        } else {
            let ident: syn::Ident = input.parse()?;
            LitStr::new(&ident.to_string(), ident.span())
        };
        if input.peek(syn::token::Paren) {
            let content;
            syn::parenthesized!(content in input);
            let entries = Punctuated::<MetaEntry, Token![,]>::parse_terminated(&content)?;
            return Ok(MetaEntry { key, value: MetaValue::Object(entries.into_iter().collect()) });
        }
        input.parse::<Token![=]>()?;
        let message = "a `meta` value is a string, number or boolean literal, or entries in parentheses: \
                       `meta(key = \"value\")`, `meta(ui(resourceUri = \"ui://app/page.html\"))`";
        match input.parse::<Expr>()? {
            Expr::Lit(syn::ExprLit {
                lit: value @ (Lit::Str(_) | Lit::Int(_) | Lit::Float(_) | Lit::Bool(_)), ..
            }) => Ok(MetaEntry { key, value: MetaValue::Lit(value) }),
            other => Err(syn::Error::new_spanned(other, message)),
        }
    }
}

/// The keys every declaring macro accepts.
pub(crate) struct CommonArgs {
    pub(crate) name: Slot<LitStr>,
    pub(crate) title: Slot<LitStr>,
    pub(crate) description: Slot<LitStr>,
    pub(crate) icons: Vec<LitStr>,
    pub(crate) meta: Vec<MetaEntry>,
    pub(crate) krate: Slot<syn::Path>,
    /// The function's future need not be `Send`: it runs on the server's local thread.
    pub(crate) local: Slot<LitBool>,
    /// The handler's time limit, in milliseconds (`timeout = "30s"`).
    pub(crate) timeout: Slot<(LitStr, u64)>,
}

impl CommonArgs {
    /// Whether `local` was given (and not `local = false`).
    pub(crate) fn is_local(&self) -> bool {
        self.local.get().is_some_and(LitBool::value)
    }
}

impl CommonArgs {
    fn new() -> Self {
        CommonArgs {
            name: Slot::new("name"),
            title: Slot::new("title"),
            description: Slot::new("description"),
            icons: Vec::new(),
            meta: Vec::new(),
            krate: Slot::new("crate"),
            local: Slot::new("local"),
            timeout: Slot::new("timeout"),
        }
    }

    /// Handles `key` if it is a common one (`None` when it is not).
    fn parse_key(&mut self, cx: &Ctxt, attr: &str, key: &str, meta: &ParseNestedMeta<'_>) -> Option<syn::Result<()>> {
        let path = &meta.path;
        let result = (|| {
            match key {
                // name = "suggest_gifts"
                "name" => self.name.set(cx, attr, path, string_value(meta, "name")?),
                // title = "Suggest gifts"
                "title" => self.title.set(cx, attr, path, string_value(meta, "title")?),
                // description = "..."
                "description" => self.description.set(cx, attr, path, string_value(meta, "description")?),
                // icon = "https://example.com/icon.png" (repeatable)
                "icon" => self.icons.push(string_value(meta, "icon")?),
                // meta("com.example/key" = "value", other = 3)
                "meta" => {
                    let content;
                    syn::parenthesized!(content in meta.input);
                    self.meta.extend(Punctuated::<MetaEntry, Token![,]>::parse_terminated(&content)?);
                }
                // local | local = true
                "local" => self.local.set(cx, attr, path, flag_value(meta, "local")?),
                // timeout = "30s" | "500ms" | "2m" | "1h"
                "timeout" => {
                    let lit = string_value(meta, "timeout")?;
                    let millis = parse_duration_ms(&lit.value()).ok_or_else(|| {
                        syn::Error::new_spanned(
                            &lit,
                            "`timeout` takes a duration above zero such as \"30s\", \"500ms\", \"2m\" or \"1h\"",
                        )
                    })?;
                    self.timeout.set(cx, attr, path, (lit, millis));
                }
                // crate = "my_renamed_runtime"
                "crate" => {
                    let lit = string_value(meta, "crate")?;
                    let parsed: syn::Path = lit.parse().map_err(|_| {
                        syn::Error::new_spanned(&lit, "`crate` must be a path, e.g. `crate = \"my_mcp\"`")
                    })?;
                    self.krate.set(cx, attr, path, parsed);
                }
                _ => return Ok(false),
            }
            Ok(true)
        })();
        match result {
            Ok(false) => None,
            Ok(true) => Some(Ok(())),
            Err(e) => Some(Err(e)),
        }
    }
}

/// Runs `each` on every `key = value` / `key` / `key(...)` argument, recording errors and
/// skipping past a bad argument so the ones after it are still read.
fn parse_args(cx: &Ctxt, args: TokenStream, mut each: impl FnMut(&str, &ParseNestedMeta<'_>) -> syn::Result<()>) {
    let parser = syn::meta::parser(|meta| {
        let key =
            meta.path.get_ident().map(ToString::to_string).unwrap_or_else(|| meta.path.to_token_stream().to_string());
        if let Err(e) = each(&key, &meta) {
            cx.push(e);
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
}

/// One `complete(...)` entry: `variable = completer`, where the completer is a function path
/// or a closure.
pub(crate) struct CompleteEntry {
    pub(crate) name: syn::Ident,
    pub(crate) completer: Expr,
}

impl Parse for CompleteEntry {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        let name: syn::Ident = input.parse()?;
        input.parse::<Token![=]>()?;
        Ok(CompleteEntry { name, completer: input.parse()? })
    }
}

fn parse_complete(meta: &ParseNestedMeta<'_>) -> syn::Result<Vec<CompleteEntry>> {
    let content;
    syn::parenthesized!(content in meta.input);
    Ok(Punctuated::<CompleteEntry, Token![,]>::parse_terminated(&content)?.into_iter().collect())
}

/// The arguments of `#[mcp_tool(...)]`.
pub(crate) struct ToolArgs {
    pub(crate) common: CommonArgs,
    pub(crate) read_only: Slot<LitBool>,
    pub(crate) destructive: Slot<LitBool>,
    pub(crate) idempotent: Slot<LitBool>,
    pub(crate) open_world: Slot<LitBool>,
    pub(crate) input_schema: Slot<Expr>,
    pub(crate) output_schema: Slot<Expr>,
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
    "timeout",
    "local",
    "crate",
];

impl ToolArgs {
    /// Parses the attribute's arguments, recording every problem in `cx`.
    pub(crate) fn parse(cx: &Ctxt, args: TokenStream) -> ToolArgs {
        const ATTR: &str = "mcp_tool";
        let mut out = ToolArgs {
            common: CommonArgs::new(),
            read_only: Slot::new("read_only"),
            destructive: Slot::new("destructive"),
            idempotent: Slot::new("idempotent"),
            open_world: Slot::new("open_world"),
            input_schema: Slot::new("input_schema"),
            output_schema: Slot::new("output_schema"),
        };
        parse_args(cx, args, |key, meta| {
            if let Some(result) = out.common.parse_key(cx, ATTR, key, meta) {
                return result;
            }
            let path = &meta.path;
            match key {
                // read_only | read_only = true
                "read_only" => out.read_only.set(cx, ATTR, path, flag_value(meta, "read_only")?),
                "destructive" => out.destructive.set(cx, ATTR, path, flag_value(meta, "destructive")?),
                "idempotent" => out.idempotent.set(cx, ATTR, path, flag_value(meta, "idempotent")?),
                "open_world" => out.open_world.set(cx, ATTR, path, flag_value(meta, "open_world")?),
                // input_schema = my_schema()   (any expression of type serde_json::Value)
                "input_schema" => out.input_schema.set(cx, ATTR, path, meta.value()?.parse()?),
                "output_schema" => out.output_schema.set(cx, ATTR, path, meta.value()?.parse()?),
                _ => return Err(unknown_key(path, key, ATTR, TOOL_KEYS)),
            }
            Ok(())
        });
        out
    }
}

/// The arguments of `#[mcp_resource(...)]`.
pub(crate) struct ResourceArgs {
    pub(crate) common: CommonArgs,
    pub(crate) uri: Slot<LitStr>,
    pub(crate) mime: Slot<LitStr>,
    pub(crate) size: Slot<syn::LitInt>,
    pub(crate) subscribe: Slot<LitBool>,
    pub(crate) audience: Vec<LitStr>,
    pub(crate) priority: Slot<Lit>,
    pub(crate) list: Slot<Expr>,
    pub(crate) complete: Vec<CompleteEntry>,
    pub(crate) ttl_ms: Slot<syn::LitInt>,
    pub(crate) cache_scope: Slot<LitStr>,
}

/// Every key `#[mcp_resource]` accepts.
pub(crate) const RESOURCE_KEYS: &[&str] = &[
    "uri",
    "name",
    "title",
    "description",
    "mime",
    "size",
    "subscribe",
    "audience",
    "priority",
    "icon",
    "meta",
    "list",
    "complete",
    "ttl_ms",
    "cache_scope",
    "timeout",
    "local",
    "crate",
];

impl ResourceArgs {
    /// Parses `"uri", key = value, ...` (the URI may also be given as `uri = "..."`).
    pub(crate) fn parse(cx: &Ctxt, args: TokenStream) -> ResourceArgs {
        const ATTR: &str = "mcp_resource";
        let mut out = ResourceArgs {
            common: CommonArgs::new(),
            uri: Slot::new("uri"),
            mime: Slot::new("mime"),
            size: Slot::new("size"),
            subscribe: Slot::new("subscribe"),
            audience: Vec::new(),
            priority: Slot::new("priority"),
            list: Slot::new("list"),
            complete: Vec::new(),
            ttl_ms: Slot::new("ttl_ms"),
            cache_scope: Slot::new("cache_scope"),
        };
        let mut rest = args.clone().into_iter().peekable();
        if let Some(proc_macro2::TokenTree::Literal(lit)) = rest.peek() {
            match syn::parse2::<LitStr>(lit.to_token_stream()) {
                Ok(uri) => {
                    out.uri.set(cx, ATTR, &uri, uri.clone());
                    rest.next();
                    if let Some(proc_macro2::TokenTree::Punct(p)) = rest.peek()
                        && p.as_char() == ','
                    {
                        rest.next();
                    }
                }
                Err(_) => cx.error_spanned_by(
                    lit,
                    "the resource's URI is a string literal: `#[mcp_resource(\"scheme://path\")]`",
                ),
            }
        }
        parse_args(cx, rest.collect(), |key, meta| {
            if let Some(result) = out.common.parse_key(cx, ATTR, key, meta) {
                return result;
            }
            let path = &meta.path;
            match key {
                // uri = "gifts://catalog"
                "uri" => out.uri.set(cx, ATTR, path, string_value(meta, "uri")?),
                // mime = "application/json"
                "mime" => {
                    let lit = string_value(meta, "mime")?;
                    if !is_mime_type(&lit.value()) {
                        return Err(syn::Error::new_spanned(
                            &lit,
                            "`mime` is a MIME type, `type/subtype`: e.g. `\"text/plain\"`, `\"application/json\"`, \
                             `\"image/png\"`",
                        ));
                    }
                    out.mime.set(cx, ATTR, path, lit);
                }
                // size = 1024
                "size" => {
                    let lit: syn::LitInt = meta.value()?.parse().map_err(|e| {
                        syn::Error::new(e.span(), "`size` takes the size in bytes, an integer literal: `size = 1024`")
                    })?;
                    lit.base10_parse::<u64>()?;
                    out.size.set(cx, ATTR, path, lit);
                }
                // subscribe | subscribe = true
                "subscribe" => out.subscribe.set(cx, ATTR, path, flag_value(meta, "subscribe")?),
                // audience = "user" (repeatable: "user", "assistant")
                "audience" => {
                    let lit = string_value(meta, "audience")?;
                    if !matches!(lit.value().as_str(), "user" | "assistant") {
                        return Err(syn::Error::new_spanned(&lit, "`audience` is `\"user\"` or `\"assistant\"`"));
                    }
                    out.audience.push(lit);
                }
                // priority = 0.5
                "priority" => {
                    let lit: Lit = meta.value()?.parse()?;
                    let value = match &lit {
                        Lit::Float(f) => f.base10_parse::<f64>().ok(),
                        Lit::Int(i) => i.base10_parse::<f64>().ok(),
                        _ => None,
                    };
                    if !value.is_some_and(|v| (0.0..=1.0).contains(&v)) {
                        return Err(syn::Error::new_spanned(
                            &lit,
                            "`priority` is a number from 0 to 1: `priority = 0.5`",
                        ));
                    }
                    out.priority.set(cx, ATTR, path, lit);
                }
                // list = all_categories   (fn() -> Vec<Resource>)
                "list" => out.list.set(cx, ATTR, path, meta.value()?.parse()?),
                // complete(category = categories, other = |typed| vec![...])
                "complete" => out.complete.extend(parse_complete(meta)?),
                // ttl_ms = 5000   (how long 2026-07-28 clients may cache a read)
                "ttl_ms" => {
                    let lit: syn::LitInt = meta.value()?.parse().map_err(|e| {
                        syn::Error::new(e.span(), "`ttl_ms` takes milliseconds, an integer literal: `ttl_ms = 5000`")
                    })?;
                    lit.base10_parse::<u64>()?;
                    out.ttl_ms.set(cx, ATTR, path, lit);
                }
                // cache_scope = "private"
                "cache_scope" => {
                    let lit = string_value(meta, "cache_scope")?;
                    if !matches!(lit.value().as_str(), "public" | "private") {
                        return Err(syn::Error::new_spanned(&lit, "`cache_scope` is `\"public\"` or `\"private\"`"));
                    }
                    out.cache_scope.set(cx, ATTR, path, lit);
                }
                _ => return Err(unknown_key(path, key, ATTR, RESOURCE_KEYS)),
            }
            Ok(())
        });
        out
    }
}

/// The arguments of `#[mcp_prompt(...)]`.
pub(crate) struct PromptArgs {
    pub(crate) common: CommonArgs,
    pub(crate) complete: Vec<CompleteEntry>,
}

/// Every key `#[mcp_prompt]` accepts.
pub(crate) const PROMPT_KEYS: &[&str] =
    &["name", "title", "description", "icon", "meta", "complete", "timeout", "local", "crate"];

impl PromptArgs {
    /// Parses the attribute's arguments, recording every problem in `cx`.
    pub(crate) fn parse(cx: &Ctxt, args: TokenStream) -> PromptArgs {
        const ATTR: &str = "mcp_prompt";
        let mut out = PromptArgs { common: CommonArgs::new(), complete: Vec::new() };
        parse_args(cx, args, |key, meta| {
            if let Some(result) = out.common.parse_key(cx, ATTR, key, meta) {
                return result;
            }
            match key {
                // complete(gift_name = gift_names)
                "complete" => out.complete.extend(parse_complete(meta)?),
                _ => return Err(unknown_key(&meta.path, key, ATTR, PROMPT_KEYS)),
            }
            Ok(())
        });
        out
    }
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
/// have a fraction): `None` when malformed or zero.
fn parse_duration_ms(text: &str) -> Option<u64> {
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

#[cfg(test)]
mod tests {
    use super::{is_mime_type, parse_duration_ms};

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
}
