//! `resources/list`, `resources/templates/list` and `resources/read`.

use std::sync::Arc;

use serde::Deserialize;
use serde_json::json;
use serde_json::value::RawValue;

use super::{Outcome, guarded, list_cursor, page_result, reply_error, required_params, respond};
use crate::cache::Cached;
use crate::context::{Context, Negotiated};
use crate::protocol::{ErrorObject, Feature, ReadResourceResult, Request, RequestId, Resource, Revision, code};
use crate::registry::page;
use crate::resource::{ReadError, ResourceRead};
use crate::server::ServerCore;

/// The fixed resources, and the concrete ones templates enumerate (which takes their listers'
/// time, so the answer is deferred when there are any).
pub(super) fn list(core: &Arc<ServerCore>, negotiated: &Arc<Negotiated>, request: Request<'_>) -> Outcome {
    let id = request.id;
    let cursor = match list_cursor(request.params) {
        Ok(cursor) => cursor,
        Err(e) => return reply_error(&id, e),
    };
    let revision = negotiated.revision;
    let context = Context::new(Arc::clone(negotiated), id.clone());
    let registry = core.registry();
    let fixed: Vec<Resource> = registry.resources.iter().map(|r| r.resource.clone()).collect();
    let listers: Vec<_> = registry.templates.iter().filter_map(|t| t.lister.clone()).collect();
    let request_id = id.clone();
    let finish = move |core: &ServerCore, mut all: Vec<Resource>| -> String {
        all.sort_by(|a, b| a.uri.cmp(&b.uri));
        all.dedup_by(|a, b| a.uri == b.uri);
        match page(&all, |r| &r.uri, cursor.as_deref(), core.config.page_size) {
            Ok((items, next)) => {
                let resources = items.iter().map(|r| r.for_revision(revision)).collect();
                page_result(core, &id, revision, ("resources", resources), next, Cached::ResourceList)
            }
            Err(e) => crate::protocol::error_line(Some(&id), &e),
        }
    };
    if listers.is_empty() {
        return Outcome::Reply(finish(core, fixed));
    }
    let core = Arc::clone(core);
    Outcome::Deferred(
        Some(request_id),
        Box::pin(async move {
            let mut all = fixed;
            for lister in listers {
                match guarded(|| lister(context.clone())).await {
                    Ok(found) => all.extend(found),
                    Err(panic) => tracing::error!(panic, "a resource lister panicked; its resources are left out"),
                }
            }
            Some(finish(&core, all))
        }),
    )
}

pub(super) fn list_templates(
    core: &ServerCore,
    id: &RequestId,
    revision: Revision,
    params: Option<&RawValue>,
) -> Result<String, ErrorObject> {
    let cursor = list_cursor(params)?;
    let registry = core.registry();
    let (items, next) = registry.templates.page(cursor.as_deref(), core.config.page_size)?;
    let templates = items.iter().map(|t| t.template.for_revision(revision)).collect();
    Ok(page_result(core, id, revision, ("resourceTemplates", templates), next, Cached::ResourceTemplateList))
}

#[derive(Deserialize)]
struct ReadParams {
    uri: String,
}

/// "Not found", as the revision spells it.
fn not_found(revision: Revision, uri: &str) -> ErrorObject {
    let code = if revision.supports(Feature::Stateless) { code::INVALID_PARAMS } else { code::RESOURCE_NOT_FOUND };
    ErrorObject::new(code, format!("Resource not found: `{uri}`")).with_data(json!({ "uri": uri }))
}

pub(super) fn read(core: &Arc<ServerCore>, negotiated: &Arc<Negotiated>, request: Request<'_>) -> Outcome {
    let id = request.id;
    let revision = negotiated.revision;
    let params: ReadParams = match required_params(request.params, "resources/read") {
        Ok(p) => p,
        Err(e) => return reply_error(&id, e),
    };
    let registry = core.registry();
    let (reader, variables, mime, cache) = if let Some(entry) = registry.resources.get(&params.uri) {
        (Arc::clone(&entry.reader), Vec::new(), entry.resource.mime_type.clone(), entry.cache)
    } else if let Some((entry, variables)) = registry.match_template(&params.uri) {
        (Arc::clone(&entry.reader), variables, entry.template.mime_type.clone(), entry.cache)
    } else {
        return reply_error(&id, not_found(revision, &params.uri));
    };
    let read = ResourceRead {
        uri: params.uri,
        variables,
        mime_type: mime.map(Arc::from),
        context: Context::new(Arc::clone(negotiated), id.clone()),
    };
    let uri = read.uri.clone();
    let core = Arc::clone(core);
    Outcome::Deferred(
        Some(id.clone()),
        Box::pin(async move {
            let outcome = guarded(|| reader(read)).await.unwrap_or_else(|panic| {
                tracing::error!(%uri, panic, "resource reader panicked");
                Err(ReadError::Error(ErrorObject::internal("Internal error: reading the resource failed unexpectedly")))
            });
            let line = match outcome {
                Ok(contents) if contents.is_empty() => {
                    crate::protocol::error_line(Some(&id), &not_found(revision, &uri))
                }
                Ok(contents) => {
                    let result = ReadResourceResult { contents }.for_revision(revision);
                    respond(&core, &id, revision, Some(cache.unwrap_or_default()), &result)
                }
                Err(ReadError::NotFound) => crate::protocol::error_line(Some(&id), &not_found(revision, &uri)),
                Err(ReadError::Error(e)) => crate::protocol::error_line(Some(&id), &e),
            };
            Some(line)
        }),
    )
}
