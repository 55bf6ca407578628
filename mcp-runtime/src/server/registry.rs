//! The immutable registry of a built server: each kind of item sorted by its key (name or
//! URI) and looked up by binary search; duplicates are start-up errors.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, PoisonError};

use serde_json::value::RawValue;

use crate::context::state::States;
use crate::declare::completion::CompletionHandler;
use crate::declare::item::ItemParts;
use crate::error::{Error, ItemKind};
use crate::protocol::CachePolicy;
use crate::server::changes::ItemChange;

use crate::declare::prompt::{PromptDescriptor, PromptHandler};
use crate::declare::resource::{Address, ListHandler, ReadHandler, ResourceDescriptor};
use crate::declare::tool::{ToolDescriptor, ToolHandler, is_valid_tool_name};
use crate::protocol::{
    ErrorObject, Feature, Prompt, Resource, ResourceTemplate, Revision, Tool, is_object_schema,
    shape_descriptive_fields, wrapped_output_schema,
};
use mcp_uri_template::UriTemplate;

use crate::declare::scopes::is_scope;
use crate::declare::task::TaskPolicy;

/// A registered tool, ready to list and call.
#[derive(Clone)]
pub(crate) struct ToolEntry {
    pub(crate) tool: Tool,
    pub(crate) name: Arc<str>,
    pub(crate) handler: ToolHandler,
    /// The output schema is not an object: structured output goes out as `{"result": …}`
    /// where a revision allows objects only.
    pub(crate) wrap_output: bool,
    /// Client capabilities a call needs (`elicitation`, `sampling`, ...).
    pub(crate) required_client_capabilities: Vec<String>,
    pub(crate) parts: ItemParts,
    /// Arguments mirrored in HTTP headers: (argument, header name after `Mcp-Param-`).
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) header_params: Vec<(String, String)>,
    /// Whether its calls may run as tasks.
    pub(crate) task: TaskPolicy,
}

impl ToolEntry {
    /// The listing entry as `revision` defines it.
    pub(crate) fn listing(&self, revision: Revision) -> Tool {
        let mut tool = self.tool.clone();
        shape_descriptive_fields(revision, &mut tool.title, &mut tool.icons, &mut tool.meta);
        if !revision.supports(Feature::ToolAnnotations) {
            tool.annotations = None;
        }
        tool.output_schema = match tool.output_schema.take() {
            Some(_) if !revision.supports(Feature::StructuredContent) => None,
            Some(schema) if self.wrap_output && !revision.supports(Feature::AnyStructuredContent) => {
                Some(wrapped_output_schema(&schema))
            }
            other => other,
        };
        tool
    }
}

/// A registered fixed resource.
#[derive(Clone)]
pub(crate) struct ResourceEntry {
    pub(crate) resource: Resource,
    pub(crate) reader: ReadHandler,
    pub(crate) subscribe: bool,
    pub(crate) cache: Option<CachePolicy>,
    pub(crate) parts: ItemParts,
}

/// A registered resource template.
#[derive(Clone)]
pub(crate) struct TemplateEntry {
    pub(crate) template: ResourceTemplate,
    pub(crate) parsed: UriTemplate,
    pub(crate) reader: ReadHandler,
    pub(crate) lister: Option<ListHandler>,
    pub(crate) subscribe: bool,
    pub(crate) cache: Option<CachePolicy>,
    pub(crate) completions: BTreeMap<String, CompletionHandler>,
    pub(crate) parts: ItemParts,
}

/// A registered prompt.
#[derive(Clone)]
pub(crate) struct PromptEntry {
    pub(crate) prompt: Prompt,
    pub(crate) name: Arc<str>,
    pub(crate) handler: PromptHandler,
    pub(crate) completions: BTreeMap<String, CompletionHandler>,
    pub(crate) parts: ItemParts,
}

/// Items of one kind, sorted by key.
#[derive(Clone)]
pub(crate) struct Sorted<T> {
    items: Vec<T>,
    key: fn(&T) -> &str,
}

impl<T> Sorted<T> {
    /// Sorts `items` (with where each was defined) by key; a repeated key is an error naming
    /// both definitions.
    fn build(kind: ItemKind, mut items: Vec<(T, String)>, key: fn(&T) -> &str) -> Result<Self, Error> {
        items.sort_by(|a, b| key(&a.0).cmp(key(&b.0)));
        if let Some(pair) = items.windows(2).find(|w| key(&w[0].0) == key(&w[1].0)) {
            return Err(Error::Duplicate {
                kind,
                name: key(&pair[0].0).to_owned(),
                first: pair[0].1.clone(),
                second: pair[1].1.clone(),
            });
        }
        Ok(Sorted { items: items.into_iter().map(|(item, _)| item).collect(), key })
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    pub(crate) fn len(&self) -> usize {
        self.items.len()
    }

    /// Inserts `item` in key order; `Err` gives it back when its key is taken.
    fn insert(&mut self, item: T) -> Result<(), T> {
        let key_of = self.key;
        match self.items.binary_search_by(|other| key_of(other).cmp(key_of(&item))) {
            Ok(_) => Err(item),
            Err(at) => {
                self.items.insert(at, item);
                Ok(())
            }
        }
    }

    /// Takes out the item with `key`.
    fn remove(&mut self, key: &str) -> Option<T> {
        let key_of = self.key;
        let at = self.items.binary_search_by(|item| key_of(item).cmp(key)).ok()?;
        Some(self.items.remove(at))
    }

    pub(crate) fn iter(&self) -> impl Iterator<Item = &T> {
        self.items.iter()
    }

    pub(crate) fn get(&self, key: &str) -> Option<&T> {
        let key_of = self.key;
        self.items.binary_search_by(|item| key_of(item).cmp(key)).ok().map(|i| &self.items[i])
    }

    /// One page of items from `cursor` on, and the cursor of the next page.
    pub(crate) fn page(&self, cursor: Option<&str>, page_size: usize) -> Result<(&[T], Option<String>), ErrorObject> {
        page(&self.items, self.key, cursor, page_size)
    }
}

/// Every item a server offers: what it was built with, then what a
/// [`ServerHandle`](crate::ServerHandle) added, removed, enabled or disabled. A registry value
/// never changes; a change makes a new one, which later requests see.
#[derive(Clone)]
pub(crate) struct Registry {
    pub(crate) tools: Sorted<ToolEntry>,
    pub(crate) resources: Sorted<ResourceEntry>,
    pub(crate) templates: Sorted<TemplateEntry>,
    pub(crate) prompts: Sorted<PromptEntry>,
    /// Disabled items: kept to be enabled again, invisible to clients meanwhile.
    disabled: Box<Disabled>,
    /// `tools/list` pages as sent, built once per revision and cursor.
    pub(crate) tool_pages: PageCache,
}

/// Serialized list pages, each built the first time a client asks for it. A list that changes
/// is a new registry, whose cache starts empty (cloning one gives an empty cache).
#[derive(Default)]
pub(crate) struct PageCache(Mutex<HashMap<PageKey, Arc<RawValue>>>);

/// A list page's revision and cursor (`None` for the first page).
type PageKey = (Revision, Option<String>);

impl Clone for PageCache {
    fn clone(&self) -> Self {
        PageCache::default()
    }
}

impl PageCache {
    /// The page of `revision` at `cursor`, from `build` the first time.
    pub(crate) fn get_or_build(
        &self,
        revision: Revision,
        cursor: Option<&str>,
        build: impl FnOnce() -> Result<Box<RawValue>, ErrorObject>,
    ) -> Result<Arc<RawValue>, ErrorObject> {
        let key = (revision, cursor.map(str::to_owned));
        if let Some(page) = self.0.lock().unwrap_or_else(PoisonError::into_inner).get(&key) {
            return Ok(Arc::clone(page));
        }
        // Built outside the lock: two first requests may both build it, and one is kept.
        let page: Arc<RawValue> = Arc::from(build()?);
        self.0.lock().unwrap_or_else(PoisonError::into_inner).insert(key, Arc::clone(&page));
        Ok(page)
    }
}

/// The disabled items of a registry.
#[derive(Clone)]
struct Disabled {
    tools: Sorted<ToolEntry>,
    resources: Sorted<ResourceEntry>,
    templates: Sorted<TemplateEntry>,
    prompts: Sorted<PromptEntry>,
}

impl Registry {
    pub(crate) fn build(
        tools: Vec<ToolDescriptor>,
        resources: Vec<ResourceDescriptor>,
        prompts: Vec<PromptDescriptor>,
    ) -> Result<Registry, Error> {
        let tools = tools
            .into_iter()
            .map(|d| {
                if !is_valid_tool_name(&d.tool.name) {
                    return Err(Error::InvalidToolName { name: d.tool.name });
                }
                let handler = d
                    .handler
                    .ok_or_else(|| Error::MissingHandler { kind: ItemKind::Tool, name: d.tool.name.clone() })?;
                let wrap_output = d.tool.output_schema.as_ref().is_some_and(|s| !is_object_schema(s));
                let mut tool = d.tool;
                if let Some(found) = tool.input_schema.get("type").filter(|t| *t != "object") {
                    return Err(Error::InputSchemaNotObject { tool: tool.name, found: found.to_string() });
                }
                mark_header_params(&tool.name, &mut tool.input_schema, &d.header_params)?;
                let parts = checked_scopes(ItemKind::Tool, &tool.name, d.parts)?;
                let defined_at = parts.defined_at.clone().into_owned();
                let entry = ToolEntry {
                    name: Arc::from(tool.name.as_str()),
                    tool,
                    handler,
                    wrap_output,
                    required_client_capabilities: d.required_client_capabilities,
                    parts,
                    header_params: d.header_params,
                    task: d.task,
                };
                Ok((entry, defined_at))
            })
            .collect::<Result<Vec<_>, Error>>()?;

        let mut fixed = Vec::new();
        let mut templates = Vec::new();
        for d in resources {
            let name = d.name().to_owned();
            let kind = match d.address {
                Address::Fixed(_) => ItemKind::Resource,
                Address::Template { .. } => ItemKind::ResourceTemplate,
            };
            let parts = checked_scopes(kind, &name, d.parts)?;
            let reader = d.reader.ok_or(Error::MissingHandler { kind, name })?;
            let defined_at = parts.defined_at.clone().into_owned();
            match d.address {
                Address::Fixed(resource) => {
                    fixed.push((
                        ResourceEntry { resource, reader, subscribe: d.subscribe, cache: d.cache, parts },
                        defined_at,
                    ));
                }
                Address::Template { template, parsed } => templates.push((
                    TemplateEntry {
                        template,
                        parsed,
                        reader,
                        lister: d.lister,
                        subscribe: d.subscribe,
                        cache: d.cache,
                        completions: d.completions.into_iter().collect(),
                        parts,
                    },
                    defined_at,
                )),
            }
        }

        let prompts = prompts
            .into_iter()
            .map(|d| {
                let handler = d
                    .handler
                    .ok_or_else(|| Error::MissingHandler { kind: ItemKind::Prompt, name: d.prompt.name.clone() })?;
                let parts = checked_scopes(ItemKind::Prompt, &d.prompt.name, d.parts)?;
                let defined_at = parts.defined_at.clone().into_owned();
                let entry = PromptEntry {
                    name: Arc::from(d.prompt.name.as_str()),
                    prompt: d.prompt,
                    handler,
                    completions: d.completions.into_iter().collect(),
                    parts,
                };
                Ok((entry, defined_at))
            })
            .collect::<Result<Vec<_>, Error>>()?;

        let tools = Sorted::build(ItemKind::Tool, tools, |t| &t.name)?;
        let resources = Sorted::build(ItemKind::Resource, fixed, |r| &r.resource.uri)?;
        let templates = Sorted::build(ItemKind::ResourceTemplate, templates, |t| &t.template.uri_template)?;
        let prompts = Sorted::build(ItemKind::Prompt, prompts, |p| &p.name)?;
        let disabled = Box::new(Disabled {
            tools: Sorted { items: Vec::new(), key: tools.key },
            resources: Sorted { items: Vec::new(), key: resources.key },
            templates: Sorted { items: Vec::new(), key: templates.key },
            prompts: Sorted { items: Vec::new(), key: prompts.key },
        });
        Ok(Registry { tools, resources, templates, prompts, disabled, tool_pages: PageCache::default() })
    }

    /// A registry with `other`'s items added; a name or URI already taken (enabled or not)
    /// is an error naming both definitions.
    pub(crate) fn with_added(&self, other: Registry) -> Result<Registry, Error> {
        let mut next = self.clone();
        fn merge<T>(kind: ItemKind, into: &mut Sorted<T>, disabled: &Sorted<T>, from: Sorted<T>) -> Result<(), Error> {
            for item in from.items {
                let key = (from.key)(&item).to_owned();
                if disabled.get(&key).is_some() {
                    return Err(duplicate(kind, key));
                }
                into.insert(item).map_err(|_| duplicate(kind, key))?;
            }
            Ok(())
        }
        fn duplicate(kind: ItemKind, name: String) -> Error {
            Error::Duplicate { kind, name, first: "the running server".into(), second: "the server handle".into() }
        }
        merge(ItemKind::Tool, &mut next.tools, &self.disabled.tools, other.tools)?;
        merge(ItemKind::Resource, &mut next.resources, &self.disabled.resources, other.resources)?;
        merge(ItemKind::ResourceTemplate, &mut next.templates, &self.disabled.templates, other.templates)?;
        merge(ItemKind::Prompt, &mut next.prompts, &self.disabled.prompts, other.prompts)?;
        Ok(next)
    }

    /// A registry where the items of `kind` (resources and templates both, for either) of the
    /// server mounted as `mounted` (this server's own, for `None`), enabled or not, are those
    /// of `other`.
    #[cfg(feature = "client")]
    pub(crate) fn with_replaced(
        &self,
        kind: ItemKind,
        mounted: Option<usize>,
        other: Registry,
    ) -> Result<Registry, Error> {
        let mut next = self.clone();
        fn drop_from<T>(sorted: &mut Sorted<T>, parts: fn(&T) -> &ItemParts, mounted: Option<usize>) {
            sorted.items.retain(|item| parts(item).mounted != mounted);
        }
        let d = &mut next.disabled;
        match kind {
            ItemKind::Tool => {
                drop_from(&mut next.tools, |t| &t.parts, mounted);
                drop_from(&mut d.tools, |t| &t.parts, mounted);
            }
            ItemKind::Resource | ItemKind::ResourceTemplate => {
                drop_from(&mut next.resources, |r| &r.parts, mounted);
                drop_from(&mut d.resources, |r| &r.parts, mounted);
                drop_from(&mut next.templates, |t| &t.parts, mounted);
                drop_from(&mut d.templates, |t| &t.parts, mounted);
            }
            ItemKind::Prompt => {
                drop_from(&mut next.prompts, |p| &p.parts, mounted);
                drop_from(&mut d.prompts, |p| &p.parts, mounted);
            }
        }
        next.with_added(other)
    }

    /// A registry where the item `key` of `kind` is enabled, disabled or gone: `None` when
    /// there is no such item (or it already is that way).
    pub(crate) fn with_change(&self, kind: ItemKind, key: &str, change: ItemChange) -> Option<Registry> {
        let mut next = self.clone();
        fn apply<T>(active: &mut Sorted<T>, disabled: &mut Sorted<T>, key: &str, change: ItemChange) -> Option<()> {
            match change {
                ItemChange::Disable => disabled.insert(active.remove(key)?).ok(),
                ItemChange::Enable => active.insert(disabled.remove(key)?).ok(),
                ItemChange::Remove => active.remove(key).or_else(|| disabled.remove(key)).map(drop),
            }
        }
        let d = &mut next.disabled;
        match kind {
            ItemKind::Tool => apply(&mut next.tools, &mut d.tools, key, change)?,
            ItemKind::Resource => apply(&mut next.resources, &mut d.resources, key, change)?,
            ItemKind::ResourceTemplate => apply(&mut next.templates, &mut d.templates, key, change)?,
            ItemKind::Prompt => apply(&mut next.prompts, &mut d.prompts, key, change)?,
        }
        Some(next)
    }

    pub(crate) fn has_resources(&self) -> bool {
        !self.resources.is_empty() || !self.templates.is_empty()
    }

    pub(crate) fn has_subscribable_resources(&self) -> bool {
        self.resources.iter().any(|r| r.subscribe) || self.templates.iter().any(|t| t.subscribe)
    }

    pub(crate) fn has_completions(&self) -> bool {
        self.templates.iter().any(|t| !t.completions.is_empty())
            || self.prompts.iter().any(|p| !p.completions.is_empty())
    }

    /// What the item of `kind` named `name` was declared with (a resource's URI may be a
    /// template's).
    pub(crate) fn parts_of(&self, kind: ItemKind, name: &str) -> Option<&ItemParts> {
        match kind {
            ItemKind::Tool => self.tools.get(name).map(|t| &t.parts),
            ItemKind::Prompt => self.prompts.get(name).map(|p| &p.parts),
            ItemKind::Resource | ItemKind::ResourceTemplate => match self.resources.get(name) {
                Some(fixed) => Some(&fixed.parts),
                None => self.match_template(name).map(|(template, _)| &template.parts),
            },
        }
    }

    /// Every scope the items declare, each once, sorted.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn declared_scopes(&self) -> Vec<String> {
        let all = (self.tools.iter().map(|t| &t.parts.scopes))
            .chain(self.resources.iter().map(|r| &r.parts.scopes))
            .chain(self.templates.iter().map(|t| &t.parts.scopes))
            .chain(self.prompts.iter().map(|p| &p.parts.scopes));
        let mut scopes: Vec<String> = all.flat_map(|s| s.as_slice().iter().cloned()).collect();
        scopes.sort();
        scopes.dedup();
        scopes
    }

    /// The template a URI matches, with the variables' values: the first by template order.
    pub(crate) fn match_template(&self, uri: &str) -> Option<(&TemplateEntry, Vec<(String, String)>)> {
        self.templates.iter().find_map(|t| t.parsed.match_uri(uri).map(|vars| (t, vars)))
    }
}

impl std::fmt::Debug for Registry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Registry")
            .field("tools", &self.tools.iter().map(|t| &t.tool.name).collect::<Vec<_>>())
            .field("resources", &self.resources.iter().map(|r| &r.resource.uri).collect::<Vec<_>>())
            .field("templates", &self.templates.iter().map(|t| &t.template.uri_template).collect::<Vec<_>>())
            .field("prompts", &self.prompts.iter().map(|p| &p.name).collect::<Vec<_>>())
            .finish()
    }
}

/// `scopes` as declared on the item `name`, if each is a scope token.
fn checked_scopes(kind: ItemKind, name: &str, parts: ItemParts) -> Result<ItemParts, Error> {
    match parts.scopes.as_slice().iter().find(|scope| !is_scope(scope)) {
        None => Ok(parts),
        Some(bad) => Err(Error::Usage(format!(
            "{kind} `{name}` declares the scope `{bad}`, which is not one scope token (visible ASCII, no spaces, \
             quotes or backslashes, at most 128 characters)"
        ))),
    }
}

/// Pages through a key-sorted list. A cursor names the first item of its page, so it stays
/// meaningful when items before it come and go.
pub(crate) fn page<'a, T>(
    items: &'a [T],
    key: impl Fn(&T) -> &str,
    cursor: Option<&str>,
    page_size: usize,
) -> Result<(&'a [T], Option<String>), ErrorObject> {
    let start = match cursor {
        None => 0,
        Some(cursor) => {
            let first = decode_cursor(cursor).ok_or_else(|| {
                ErrorObject::invalid_params(format!(
                    "Invalid cursor `{cursor}`: pass a `nextCursor` this server returned"
                ))
            })?;
            items.partition_point(|item| key(item) < first.as_str())
        }
    };
    let end = start.saturating_add(page_size.max(1)).min(items.len());
    let next = items.get(end).map(|item| encode_cursor(key(item)));
    Ok((&items[start..end], next))
}

const CURSOR_PREFIX: &str = "c1.";

fn encode_cursor(key: &str) -> String {
    let mut out = String::with_capacity(CURSOR_PREFIX.len() + key.len() * 2);
    out.push_str(CURSOR_PREFIX);
    for b in key.bytes() {
        out.push_str(&format!("{b:02x}"));
    }
    out
}

fn decode_cursor(cursor: &str) -> Option<String> {
    let hex = cursor.strip_prefix(CURSOR_PREFIX)?;
    if hex.len() % 2 != 0 {
        return None;
    }
    let bytes = (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok())
        .collect::<Option<Vec<u8>>>()?;
    String::from_utf8(bytes).ok()
}

/// Marks each argument mirrored in a header with `x-mcp-header` in the tool's input schema,
/// checking what 2026-07-28 requires of it.
fn mark_header_params(tool: &str, schema: &mut serde_json::Value, params: &[(String, String)]) -> Result<(), Error> {
    let invalid = |argument: &str, why: &str| Error::InvalidHeaderParam {
        tool: tool.to_owned(),
        argument: argument.to_owned(),
        why: why.to_owned(),
    };
    for (n, (argument, header)) in params.iter().enumerate() {
        let token =
            !header.is_empty() && header.bytes().all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b));
        if !token {
            return Err(invalid(argument, "its header name is not an HTTP token (letters, digits, `-` and the like)"));
        }
        if params[..n].iter().any(|(_, other)| other.eq_ignore_ascii_case(header)) {
            return Err(invalid(argument, "another argument of the tool uses the same header name"));
        }
        let property = schema.get_mut("properties").and_then(|p| p.get_mut(argument.as_str()));
        let Some(serde_json::Value::Object(property)) = property else {
            return Err(invalid(argument, "the tool's input schema has no such property"));
        };
        if !matches!(property.get("type").and_then(serde_json::Value::as_str), Some("string" | "integer" | "boolean")) {
            return Err(invalid(argument, "only string, integer and boolean arguments can be mirrored in a header"));
        }
        property.insert("x-mcp-header".into(), serde_json::Value::from(header.as_str()));
    }
    Ok(())
}

/// Fails naming the first handler among these that takes a state nobody registered (in
/// `states`, or in those of the server it was mounted from).
pub(crate) fn check_states(
    states: &States,
    tools: &[ToolDescriptor],
    resources: &[ResourceDescriptor],
    prompts: &[PromptDescriptor],
) -> Result<(), Error> {
    let handlers = tools
        .iter()
        .map(|t| (ItemKind::Tool, t.name(), &t.parts))
        .chain(resources.iter().map(|r| {
            let kind = if r.is_template() { ItemKind::ResourceTemplate } else { ItemKind::Resource };
            (kind, r.uri(), &r.parts)
        }))
        .chain(prompts.iter().map(|p| (ItemKind::Prompt, p.name(), &p.parts)));
    for (kind, name, parts) in handlers {
        let states = states.of_mount(parts.mounted);
        if let Some(missing) = parts.required_states.iter().find(|r| !states.contains(r)) {
            return Err(Error::MissingState {
                kind,
                name: name.to_owned(),
                defined_at: parts.defined_at.to_string(),
                type_name: missing.type_name.to_owned(),
                registered: states.near_miss(missing).map(str::to_owned),
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(value: u32) -> Box<RawValue> {
        serde_json::value::to_raw_value(&value).expect("a number serializes")
    }

    #[test]
    fn a_page_is_built_once_per_revision_and_cursor_and_a_clone_starts_empty() {
        let cache = PageCache::default();
        let first = cache.get_or_build(Revision::LATEST, None, || Ok(raw(1))).unwrap();
        let again = cache.get_or_build(Revision::LATEST, None, || panic!("built twice")).unwrap();
        assert_eq!((first.get(), again.get()), ("1", "1"));
        let other_revision = cache.get_or_build(Revision::V2024_11_05, None, || Ok(raw(2))).unwrap();
        let other_cursor = cache.get_or_build(Revision::LATEST, Some("50"), || Ok(raw(3))).unwrap();
        assert_eq!((other_revision.get(), other_cursor.get()), ("2", "3"));
        let failed = cache.get_or_build(Revision::V2025_03_26, None, || Err(ErrorObject::invalid_params("bad")));
        assert!(failed.is_err(), "an error is returned, not cached");
        let changed = cache.clone();
        assert_eq!(changed.get_or_build(Revision::LATEST, None, || Ok(raw(4))).unwrap().get(), "4");
    }

    fn names(n: usize) -> Vec<String> {
        (0..n).map(|i| format!("tool{i:02}")).collect()
    }

    #[test]
    fn pages_cover_every_item_once() {
        let items = names(7);
        let mut seen = Vec::new();
        let mut cursor = None;
        loop {
            let (page, next) = page(&items, |s| s, cursor.as_deref(), 3).unwrap();
            seen.extend(page.iter().cloned());
            match next {
                Some(c) => cursor = Some(c),
                None => break,
            }
        }
        assert_eq!(seen, items);
    }

    #[test]
    fn bad_cursors_are_invalid_params() {
        let items = names(2);
        for bad in ["", "xyz", "c1.zz", "c1.abc", "c1.ff"] {
            let err = page(&items, |s| s, Some(bad), 3).unwrap_err();
            assert_eq!(err.code, -32602, "{bad}");
        }
    }

    #[test]
    fn cursors_round_trip() {
        assert_eq!(decode_cursor(&encode_cursor("é-x")).as_deref(), Some("é-x"));
    }

    #[test]
    fn duplicate_keys_name_both_definitions() {
        let items = vec![("a".to_owned(), "x.rs:1".to_owned()), ("a".to_owned(), "y.rs:2".to_owned())];
        let err = Sorted::build(ItemKind::Prompt, items, |s: &String| s).err().unwrap();
        assert!(
            matches!(err, Error::Duplicate { kind: ItemKind::Prompt, ref first, ref second, .. } if first == "x.rs:1" && second == "y.rs:2")
        );
    }
}
