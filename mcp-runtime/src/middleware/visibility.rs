//! Which items a caller sees: a layer's filter over the tools, resources and prompts.
//!
//! A filter set on a request ([`McpRequest::filter_items`](super::McpRequest::filter_items))
//! travels with it to its method: lists leave the hidden items out, and a call, read or get of
//! one is answered as for an item that does not exist (so that its existence does not leak).
//! A filtered list may differ from caller to caller: in 2026-07-28 it says `cacheScope:
//! "private"`, and it is built for the request instead of taken from the shared page cache.

use std::sync::Arc;

use crate::error::ItemKind;

/// A tool, resource, resource template or prompt, as a filter sees it.
#[derive(Debug, Clone, Copy)]
pub struct Item<'a> {
    pub(crate) kind: ItemKind,
    pub(crate) name: &'a str,
    pub(crate) tags: &'a [String],
    pub(crate) scopes: &'a [String],
}

impl<'a> Item<'a> {
    /// What it is.
    pub fn kind(&self) -> ItemKind {
        self.kind
    }

    /// Its name (a URI for resources, a URI template for templates).
    pub fn name(&self) -> &'a str {
        self.name
    }

    /// The tags it was declared with (`tags("admin")`, `.tag("admin")`).
    pub fn tags(&self) -> &'a [String] {
        self.tags
    }

    /// The scopes it was declared with (`scopes("notes:write")`, `.scope("notes:write")`).
    pub fn scopes(&self) -> &'a [String] {
        self.scopes
    }

    /// Whether it carries `tag`.
    pub fn has_tag(&self, tag: &str) -> bool {
        self.tags.iter().any(|t| t == tag)
    }
}

/// A request's filter.
#[derive(Clone)]
pub(crate) struct Visibility(Arc<dyn Fn(&Item<'_>) -> bool + Send + Sync>);

impl std::fmt::Debug for Visibility {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Visibility")
    }
}

impl Visibility {
    /// Whether the caller sees `item`.
    pub(crate) fn shows(&self, item: &Item<'_>) -> bool {
        (self.0)(item)
    }

    /// `first`, then `then`: an item is shown when both show it.
    pub(crate) fn both(first: Option<Visibility>, then: impl Fn(&Item<'_>) -> bool + Send + Sync + 'static) -> Self {
        match first {
            None => Visibility(Arc::new(then)),
            Some(first) => Visibility(Arc::new(move |item: &Item<'_>| first.shows(item) && then(item))),
        }
    }
}
