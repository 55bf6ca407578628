//! The arguments of `#[mcp_tool(...)]`, `#[mcp_resource(...)]`, `#[mcp_prompt(...)]` and of the
//! `#[mcp(...)]` parameter attribute, read into typed slots as the user wrote them, each value
//! with its tokens so that a rule can point at it. Only what stops the reading is reported
//! here: a key that is unknown or given twice, a value that cannot be read as what its key
//! takes (a string, an integer, a flag, a path). What a value must be to be accepted is
//! `check`'s.

use proc_macro2::{Span, TokenStream};
use quote::ToTokens;
use syn::meta::ParseNestedMeta;
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::{Expr, Lit, LitBool, LitStr, Token};

use crate::ctxt::Ctxt;

mod param;
pub(crate) mod suggest;
mod value;

pub(crate) use param::ParamArgs;
use suggest::unknown_key_in;
use value::string_value;

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

    /// Sets the value when none was given.
    pub(crate) fn or_insert(&mut self, value: Option<T>) {
        if self.value.is_none() {
            self.value = value;
        }
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
    /// `tags("admin", "billing")`: the server's own words for selecting items.
    pub(crate) tags: Vec<LitStr>,
    /// `scopes("notes:write")`: what a caller's token must grant (HTTP with authorization).
    pub(crate) scopes: Vec<LitStr>,
    pub(crate) krate: Slot<syn::Path>,
    /// The function's future need not be `Send`: it runs on the server's local thread.
    pub(crate) local: Slot<LitBool>,
    /// The handler's time limit as written (`timeout = "30s"`), a duration `check` reads.
    pub(crate) timeout: Slot<LitStr>,
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
            tags: Vec::new(),
            scopes: Vec::new(),
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
                // `scope = "notes:write"`, `tag = "admin"`: the singular of a list's key.
                "scope" | "tag" => return Err(singular_key(meta, attr, key)),
                // tags("admin", "billing") (repeatable)
                "tags" => self.tags.extend(parse_words(meta, Words::Tags)?),
                // scopes("notes:read", "notes:write") (repeatable)
                "scopes" => self.scopes.extend(parse_words(meta, Words::Scopes)?),
                // local | local = true
                "local" => self.local.set(cx, attr, path, flag_value(meta, "local")?),
                // timeout = "30s" | "500ms" | "2m" | "1h"
                "timeout" => self.timeout.set(cx, attr, path, string_value(meta, "timeout")?),
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

/// The lists of words an item carries.
#[derive(Clone, Copy)]
enum Words {
    Tags,
    Scopes,
}

impl Words {
    /// What a mistake's message calls the list, and the shape it takes.
    fn shape(self) -> &'static str {
        match self {
            Words::Tags => "`tags` takes string literals in parentheses: `tags(\"admin\", \"billing\")`",
            Words::Scopes => "`scopes` takes string literals in parentheses: `scopes(\"notes:read\", \"notes:write\")`",
        }
    }

    /// The key.
    fn key(self) -> &'static str {
        match self {
            Words::Tags => "tags",
            Words::Scopes => "scopes",
        }
    }

    /// The error on an empty list, which declares nothing.
    fn empty(self) -> &'static str {
        match self {
            Words::Tags => {
                "`tags()` names no tag, so nothing can select this item by it: name its tags \
                            (`tags(\"admin\")`), or remove `tags()`"
            }
            Words::Scopes => {
                "`scopes()` names no scope, so it requires nothing: the item stays open to every \
                              caller; name what a caller's token must grant (`scopes(\"notes:write\")`), or \
                              remove `scopes()`"
            }
        }
    }

    fn singular(self) -> &'static str {
        match self {
            Words::Tags => "tag",
            Words::Scopes => "scope",
        }
    }

    fn admits(self, word: &str) -> bool {
        match self {
            Words::Tags => is_tag(word),
            Words::Scopes => is_scope(word),
        }
    }

    /// What a word must be, for the error on one that is not.
    fn rule(self) -> &'static str {
        match self {
            Words::Tags => "one word of letters, digits, `-`, `_`, `.` or `:` (at most 64)",
            Words::Scopes => "one OAuth scope token: visible ASCII without spaces, `\"` or `\\` (at most 128)",
        }
    }
}

/// `tags("admin", ...)` or `scopes("notes:read", ...)`: string literals, each one word.
fn parse_words(meta: &ParseNestedMeta<'_>, words: Words) -> syn::Result<Vec<LitStr>> {
    if !meta.input.peek(syn::token::Paren) {
        // `scopes = "notes:write"`: the list written as one value.
        if meta.input.peek(Token![=]) {
            let value: Expr = meta.value()?.parse()?;
            if let Expr::Lit(syn::ExprLit { lit: Lit::Str(word), .. }) = &value {
                let key = words.key();
                return Err(syn::Error::new_spanned(
                    &value,
                    format!("`{key}` takes a list in parentheses, not `=`: write `{key}({})`", word.to_token_stream()),
                ));
            }
            return Err(syn::Error::new_spanned(value, words.shape()));
        }
        return Err(meta.error(words.shape()));
    }
    let content;
    let parens = syn::parenthesized!(content in meta.input);
    let mut found = Vec::new();
    let mut errors: Option<syn::Error> = None;
    // Every bad word is reported, each on its own token.
    for word in Punctuated::<Lit, Token![,]>::parse_terminated(&content)? {
        let error = match word {
            Lit::Str(word) if words.admits(&word.value()) => {
                found.push(word);
                continue;
            }
            Lit::Str(word) if word.value().is_empty() => {
                syn::Error::new_spanned(&word, format!("a {} cannot be empty", words.singular()))
            }
            Lit::Str(word) => syn::Error::new_spanned(
                &word,
                format!("`{}` is not a {}: {}", word.value(), words.singular(), words.rule()),
            ),
            other => syn::Error::new_spanned(other, words.shape()),
        };
        match &mut errors {
            Some(errors) => errors.combine(error),
            None => errors = Some(error),
        }
    }
    if errors.is_none() && found.is_empty() {
        return Err(syn::Error::new(parens.span.join(), words.empty()));
    }
    match errors {
        Some(errors) => Err(errors),
        None => Ok(found),
    }
}

/// The error on `scope = "..."` or `tag = "..."` (or `scope("...")`): the key is the plural,
/// and takes a list.
fn singular_key(meta: &ParseNestedMeta<'_>, attr: &str, key: &str) -> syn::Error {
    let plural = format!("{key}s");
    let example = if key == "scope" { "\"notes:write\"" } else { "\"admin\"" };
    let written = if meta.input.peek(Token![=]) {
        let _ = meta.input.parse::<Token![=]>();
        match meta.input.parse::<Expr>() {
            Ok(Expr::Lit(syn::ExprLit { lit: Lit::Str(word), .. })) => word.to_token_stream().to_string(),
            _ => example.to_owned(),
        }
    } else if meta.input.peek(syn::token::Paren) {
        let listed = || -> syn::Result<String> {
            let content;
            syn::parenthesized!(content in meta.input);
            let words = Punctuated::<Lit, Token![,]>::parse_terminated(&content)?;
            Ok(words.iter().map(|w| w.to_token_stream().to_string()).collect::<Vec<_>>().join(", "))
        };
        listed().unwrap_or_else(|_| example.to_owned())
    } else {
        example.to_owned()
    };
    syn::Error::new_spanned(
        &meta.path,
        format!(
            "unknown `{attr}` argument `{key}`: the key is `{plural}`, a list in parentheses: write \
             `{plural}({written})`"
        ),
    )
}

/// Whether `scope` is one scope token (RFC 6749 §3.3), as the runtime checks it.
fn is_scope(scope: &str) -> bool {
    (1..=128).contains(&scope.len()) && scope.bytes().all(|b| (0x21..=0x7e).contains(&b) && b != b'"' && b != b'\\')
}

fn is_tag(tag: &str) -> bool {
    (1..=64).contains(&tag.len()) && tag.chars().all(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | '.' | ':'))
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
    /// `task = "optional"`: whether calls may run as tasks (never, optional, required).
    pub(crate) task: Slot<LitStr>,
    /// `task_after_input`: the task starts after the handler's first questions.
    pub(crate) task_after_input: Slot<LitBool>,
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
    "tags",
    "scopes",
    "input_schema",
    "output_schema",
    "task",
    "task_after_input",
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
            task: Slot::new("task"),
            task_after_input: Slot::new("task_after_input"),
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
                "input_schema" => out.input_schema.set(cx, ATTR, path, value::value(meta, "input_schema")?.parse()?),
                "output_schema" => out.output_schema.set(cx, ATTR, path, value::value(meta, "output_schema")?.parse()?),
                // task = "never" | "optional" | "required"
                "task" => out.task.set(cx, ATTR, path, string_value(meta, "task")?),
                "task_after_input" => out.task_after_input.set(cx, ATTR, path, flag_value(meta, "task_after_input")?),
                _ => return Err(unknown_key_in(meta, key, ATTR, TOOL_KEYS)),
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
    /// Whether a URI was written at all, even one that could not be read (a `const`): its own
    /// error then says so, and no second one says the URI is missing.
    pub(crate) uri_written: bool,
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
    "tags",
    "scopes",
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
            uri_written: false,
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
        let tokens: Vec<proc_macro2::TokenTree> = args.into_iter().collect();
        let is_comma = |t: &proc_macro2::TokenTree| matches!(t, proc_macro2::TokenTree::Punct(p) if p.as_char() == ',');
        let end = tokens.iter().position(is_comma).unwrap_or(tokens.len());
        let first: TokenStream = tokens[..end].iter().cloned().collect();
        let is_key = |t: &proc_macro2::TokenTree| match t {
            proc_macro2::TokenTree::Punct(p) => p.as_char() == '=',
            proc_macro2::TokenTree::Group(_) => true,
            proc_macro2::TokenTree::Ident(ident) => RESOURCE_KEYS.contains(&ident.to_string().as_str()),
            proc_macro2::TokenTree::Literal(_) => false,
        };
        let mut rest = &tokens[..];
        if let [proc_macro2::TokenTree::Literal(lit)] = &tokens[..end] {
            match syn::parse2::<LitStr>(lit.to_token_stream()) {
                Ok(uri) => out.uri.set(cx, ATTR, &uri, uri.clone()),
                Err(_) => cx.error_spanned_by(
                    lit,
                    "the resource's URI is a string literal: `#[mcp_resource(\"scheme://path\")]`",
                ),
            }
            out.uri_written = true;
            rest = tokens.get(end + 1..).unwrap_or_default();
        } else if end > 0 && !tokens[..end].iter().any(is_key) && looks_like_a_const(&tokens[..end]) {
            // `#[mcp_resource(CATALOG_URI)]`: a `const` (or a path to one) meant as the URI.
            let shown = first.to_string().replace(" :: ", "::");
            cx.error_spanned_by(
                &first,
                format!(
                    "the resource's URI is a string literal, given first: the macro reads its attribute before \
                     `{shown}` has a value, so write the URI itself, `#[mcp_resource(\"scheme://path\")]`"
                ),
            );
            out.uri_written = true;
            rest = tokens.get(end + 1..).unwrap_or_default();
        }
        parse_args(cx, rest.iter().cloned().collect(), |key, meta| {
            if let Some(result) = out.common.parse_key(cx, ATTR, key, meta) {
                return result;
            }
            let path = &meta.path;
            match key {
                // uri = "gifts://catalog"
                "uri" => {
                    out.uri_written = true;
                    out.uri.set(cx, ATTR, path, string_value(meta, "uri")?);
                }
                // `uri_template = "users://{id}"`, the protocol's field: taken as the URI, so
                // that this is the one error.
                "uri_template" | "uriTemplate" => {
                    out.uri_written = true;
                    let uri = string_value(meta, "uri")?;
                    let written = uri.to_token_stream();
                    out.uri.set(cx, ATTR, path, uri);
                    return Err(syn::Error::new_spanned(
                        path,
                        format!(
                            "unknown `{ATTR}` argument `{key}`; did you mean `uri`? (`uriTemplate` is the \
                             protocol's field; here a template is the `uri` with `{{variables}}` in it, given \
                             first: `#[{ATTR}({written})]`)"
                        ),
                    ));
                }
                // mime = "application/json"
                "mime" => out.mime.set(cx, ATTR, path, string_value(meta, "mime")?),
                // size = 1024
                "size" => {
                    let lit: syn::LitInt = value::value(meta, "size")?.parse().map_err(|e| {
                        syn::Error::new(e.span(), "`size` takes the size in bytes, an integer literal: `size = 1024`")
                    })?;
                    out.size.set(cx, ATTR, path, lit);
                }
                // subscribe | subscribe = true
                "subscribe" => out.subscribe.set(cx, ATTR, path, flag_value(meta, "subscribe")?),
                // audience = "user" (repeatable: "user", "assistant")
                "audience" => out.audience.push(string_value(meta, "audience")?),
                // priority = 0.5
                "priority" => out.priority.set(cx, ATTR, path, value::value(meta, "priority")?.parse()?),
                // list = all_categories   (fn() -> Vec<Resource>)
                "list" => out.list.set(cx, ATTR, path, value::value(meta, "list")?.parse()?),
                // complete(category = categories, other = |typed| vec![...])
                "complete" => out.complete.extend(parse_complete(meta)?),
                // ttl_ms = 5000   (how long 2026-07-28 clients may cache a read)
                "ttl_ms" => {
                    let lit: syn::LitInt = value::value(meta, "ttl_ms")?.parse().map_err(|e| {
                        syn::Error::new(e.span(), "`ttl_ms` takes milliseconds, an integer literal: `ttl_ms = 5000`")
                    })?;
                    out.ttl_ms.set(cx, ATTR, path, lit);
                }
                // cache_scope = "private"
                "cache_scope" => out.cache_scope.set(cx, ATTR, path, string_value(meta, "cache_scope")?),
                _ => return Err(unknown_key_in(meta, key, ATTR, RESOURCE_KEYS)),
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
    &["name", "title", "description", "icon", "meta", "tags", "scopes", "complete", "timeout", "local", "crate"];

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
                _ => return Err(unknown_key_in(meta, key, ATTR, PROMPT_KEYS)),
            }
            Ok(())
        });
        out
    }
}

/// Whether `tokens` name a constant rather than a key: a path (`consts::URI`) or a name in
/// capitals (`CATALOG_URI`). A lowercase word is a key, maybe misspelt, and read as one.
fn looks_like_a_const(tokens: &[proc_macro2::TokenTree]) -> bool {
    match tokens {
        [proc_macro2::TokenTree::Ident(ident)] => {
            let name = ident.to_string();
            name.chars().any(|c| c.is_ascii_uppercase())
                && name.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
        }
        _ => tokens.iter().any(|t| matches!(t, proc_macro2::TokenTree::Punct(p) if p.as_char() == ':')),
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
