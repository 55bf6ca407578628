//! `resources/list`, `resources/templates/list` and `resources/read`.

use std::sync::Arc;

use serde::Deserialize;
use serde_json::json;

use crate::declare::handler::{HandlerSpec, RunKind};
use crate::declare::resource::{ReadError, ResourceRead};
use crate::protocol::Cached;
use crate::protocol::{ErrorObject, Feature, ReadResourceResult, Resource, Revision, code, excerpt};
use crate::serve::executor::{Failure, Start, Started};
use crate::serve::request::{Call, Page, list_cursor, page_result};
use crate::server::registry::page;

/// The fixed resources, and the concrete ones the templates' listers enumerate (user code,
/// so this runs through the executor).
pub(crate) fn list(call: &Call<'_>, start: Start<'_>) -> Started {
    let cursor = match list_cursor(call) {
        Ok(cursor) => cursor,
        Err(e) => return start.reply(call.error(&e)),
    };
    let registry = call.core.registry();
    let fixed: Vec<Resource> = registry.resources.iter().map(|r| r.resource.clone()).collect();
    let listers: Vec<_> = registry.templates.iter().filter_map(|t| t.lister.clone()).collect();
    let context = match call.context(None) {
        Ok(context) => context,
        Err(e) => return start.reply(call.error(&e)),
    };
    let responder = call.responder(&context);
    let finish = move |mut all: Vec<Resource>| -> Vec<u8> {
        all.sort_by(|a, b| a.uri.cmp(&b.uri));
        all.dedup_by(|a, b| a.uri == b.uri);
        let core = responder.core();
        match page(&all, |r| &r.uri, cursor.as_deref(), core.config.page_size) {
            Ok((items, next)) => {
                let resources: Vec<_> = items.iter().map(|r| r.for_revision(responder.revision)).collect();
                let cache = core.config.cache.get(Cached::ResourceList);
                responder.respond(Some(cache), Page { field: "resources", items: &resources, next })
            }
            Err(e) => responder.error(&e),
        }
    };
    if listers.is_empty() {
        return start.reply(finish(fixed));
    }
    // Each lister is guarded on its own: one that panics leaves only its resources out.
    let lister_context = context.clone();
    let work = Box::pin(async move {
        let mut all = fixed;
        for lister in listers {
            match crate::serve::executor::guarded(lister(lister_context.clone())).await {
                Ok(found) => all.extend(found),
                Err(failure) => tracing::error!(%failure, "a resource lister panicked; its resources are left out"),
            }
        }
        all
    });
    let spec = HandlerSpec { kind: RunKind::Task, timeout: None };
    start.run(spec, &context, work, move |outcome| match outcome {
        Ok(all) => finish(all),
        Err(failure) => {
            tracing::error!(%failure, "listing resources failed");
            finish(Vec::new())
        }
    })
}

pub(crate) fn list_templates(call: &Call<'_>) -> Vec<u8> {
    let listed = list_cursor(call).and_then(|cursor| {
        let registry = call.core.registry();
        let (items, next) = registry.templates.page(cursor.as_deref(), call.core.config.page_size)?;
        let templates: Vec<_> = items.iter().map(|t| t.template.for_revision(call.revision())).collect();
        let page = Page { field: "resourceTemplates", items: &templates, next };
        Ok(page_result(call, page, Cached::ResourceTemplateList))
    });
    listed.unwrap_or_else(|e| call.error(&e))
}

#[derive(Deserialize)]
struct ReadParams {
    uri: String,
}

/// "Not found", as the revision spells it.
fn not_found(revision: Revision, uri: &str) -> ErrorObject {
    let code = if revision.supports(Feature::Stateless) { code::INVALID_PARAMS } else { code::RESOURCE_NOT_FOUND };
    let uri = excerpt(uri);
    ErrorObject::new(code, format!("Resource not found: `{uri}`")).with_data(json!({ "uri": uri }))
}

pub(crate) fn read(call: &Call<'_>, start: Start<'_>) -> Started {
    let revision = call.revision();
    let params: ReadParams = match call.params("resources/read") {
        Ok(p) => p,
        Err(e) => return start.reply(call.error(&e)),
    };
    let registry = call.core.registry();
    let (reader, variables, mime, cache, spec, origin) = if let Some(entry) = registry.resources.get(&params.uri) {
        (entry.reader.clone(), Vec::new(), entry.resource.mime_type.clone(), entry.cache, entry.spec, entry.origin)
    } else if let Some((entry, variables)) = registry.match_template(&params.uri) {
        (entry.reader.clone(), variables, entry.template.mime_type.clone(), entry.cache, entry.spec, entry.origin)
    } else {
        return start.reply(call.error(&not_found(revision, &params.uri)));
    };
    let uri = params.uri.clone();
    let context = match call.context(origin) {
        Ok(context) => context,
        Err(e) => return start.reply(call.error(&e)),
    };
    let responder = call.responder(&context);
    let read = ResourceRead { uri: params.uri, variables, mime_type: mime.map(Arc::from), context: context.clone() };
    start.call(&reader, spec, &context, read, move |outcome| {
        let outcome = match outcome {
            Err(Failure::Interrupted(interrupt)) => return responder.interrupted(interrupt),
            other => other,
        };
        let outcome = outcome.unwrap_or_else(|failure| {
            let message = match failure {
                Failure::Panicked(panic) => {
                    tracing::error!(uri = %excerpt(&uri), panic, "resource reader panicked");
                    "Internal error: reading the resource failed unexpectedly".to_owned()
                }
                other => format!("Internal error: reading the resource {other}"),
            };
            Err(ReadError::Error(ErrorObject::internal(message)))
        });
        match outcome {
            Ok(contents) if contents.is_empty() => responder.error(&not_found(revision, &uri)),
            Ok(contents) => {
                let result = ReadResourceResult { contents }.for_revision(revision);
                responder.respond(Some(cache.unwrap_or_default()), result)
            }
            Err(ReadError::NotFound) => responder.error(&not_found(revision, &uri)),
            Err(ReadError::Error(e)) => responder.error(&e),
        }
    })
}
