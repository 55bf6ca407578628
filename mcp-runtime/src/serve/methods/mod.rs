//! The methods a server answers, one module per concern; [`crate::serve::routes`] lists them.

pub(crate) mod lifecycle;
pub(crate) mod prompts;
pub(crate) mod resources;
pub(crate) mod skills;
pub(crate) mod tasks;
pub(crate) mod tools;

use serde::Deserialize;

use crate::context::outlet::Outgoing;
use crate::declare::item::ItemParts;
use crate::error::ItemKind;
use crate::protocol::ErrorObject;
use crate::serve::reply::WireResult;
use crate::serve::request::Request;

#[derive(Deserialize, Default)]
struct ListParams {
    #[serde(default)]
    cursor: Option<String>,
}

/// The `cursor` of a list request.
pub(crate) fn list_cursor(request: &Request<'_>) -> Result<Option<String>, ErrorObject> {
    request.params_or_default::<ListParams>().map(|p| p.cursor)
}

/// One page of a list result; 2026-07-28 results carry the list's caching fields (private
/// when a layer filtered the list).
pub(crate) fn page_result<T: WireResult>(request: &Request<'_>, page: T) -> Outgoing {
    request.respond(request.list_cache(), page)
}

/// The items of `all` the caller sees, in order: all of them unless a layer filtered.
pub(crate) fn shown<'a, T>(
    request: &Request<'_>,
    all: impl Iterator<Item = &'a T>,
    kind: ItemKind,
    declared: impl Fn(&T) -> (&str, &ItemParts),
) -> Vec<&'a T> {
    all.filter(|item| {
        let (name, parts) = declared(item);
        request.shows(kind, name, parts)
    })
    .collect()
}
