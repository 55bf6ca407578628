//! The skills extension's methods (2026-07-28): `skills/list`, `skills/get` and
//! `resources/directory/read`, answered from the server's catalog (its skills are read at
//! start and never change).

use serde::Deserialize;
use serde_json::{Value, json};

use crate::context::outlet::Outgoing;
use crate::protocol::{ErrorObject, excerpt};
use crate::serve::methods::list_cursor;
use crate::serve::reply::Page;
use crate::serve::request::Request;
use crate::server::registry::page;
use crate::skills::{Catalog, Found};

/// `skills/list`: every skill's entry, a page at a time.
pub(crate) fn list(request: &Request<'_>) -> Outgoing {
    let listed = list_cursor(request).and_then(|cursor| {
        let skills = request.core.skills.skills();
        let (items, next) = page(skills, |s| &s.path, cursor.as_deref(), request.core.config.page_size)?;
        let entries: Vec<Value> = items.iter().map(|s| s.entry()).collect();
        Ok(request.respond(request.configured_cache(), Page { field: "skills", items: &entries, next }))
    });
    listed.unwrap_or_else(|e| request.error(&e))
}

#[derive(Deserialize)]
struct UriParams {
    uri: String,
    #[serde(default)]
    cursor: Option<String>,
}

/// `skills/get`: the entry of the skill whose `SKILL.md` (or root) the URI names.
pub(crate) fn get(request: &Request<'_>) -> Outgoing {
    let found = request.params::<UriParams>("skills/get").and_then(|params| {
        request.core.skills.skill(&params.uri).map(|skill| skill.entry()).ok_or_else(|| {
            let uri = excerpt(&params.uri);
            ErrorObject::invalid_params(format!("`{uri}` is not a skill this server serves"))
                .with_data(json!({"uri": uri}))
        })
    });
    match found {
        Ok(entry) => {
            let mut result = serde_json::Map::new();
            result.insert("skill".into(), entry);
            request.respond(request.configured_cache(), result)
        }
        Err(e) => request.error(&e),
    }
}

/// `resources/directory/read`: the direct children of a skill's folder (files, and folders
/// as `inode/directory`), a page at a time. A URI that names no folder of a served skill (a
/// file, a path outside every skill) is -32602.
pub(crate) fn read_directory(request: &Request<'_>) -> Outgoing {
    let listed = request.params::<UriParams>("resources/directory/read").and_then(|params| {
        let Some(Found::Folder(skill, inner)) = request.core.skills.find(&params.uri) else {
            let uri = excerpt(&params.uri);
            return Err(ErrorObject::invalid_params(format!("`{uri}` is not a directory this server serves"))
                .with_data(json!({"uri": uri})));
        };
        let children = Catalog::children(skill, &inner);
        let (page_items, next) = page(&children, uri_of, params.cursor.as_deref(), request.core.config.page_size)?;
        Ok(request.respond(None, Page { field: "resources", items: page_items, next }))
    });
    listed.unwrap_or_else(|e| request.error(&e))
}

/// A listed resource's URI.
fn uri_of(resource: &Value) -> &str {
    resource["uri"].as_str().unwrap_or_default()
}
