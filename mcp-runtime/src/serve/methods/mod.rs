//! The methods a server answers, one module per concern; [`crate::serve::routes`] lists them.

pub(crate) mod lifecycle;
pub(crate) mod prompts;
pub(crate) mod resources;
pub(crate) mod tools;

use serde::Deserialize;

use crate::context::outlet::Outgoing;
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

/// One page of a list result; 2026-07-28 results carry the list's caching fields.
pub(crate) fn page_result<T: WireResult>(request: &Request<'_>, page: T) -> Outgoing {
    request.respond(request.configured_cache(), page)
}
