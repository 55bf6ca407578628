//! `resources/list`, `resources/templates/list` and `resources/read`.

use std::sync::Arc;

use serde::Deserialize;
use serde_json::json;

use crate::context::outlet::Outgoing;
use crate::declare::handler::{HandlerSpec, RunKind};
use crate::declare::item::ItemParts;
use crate::declare::resource::{ReadError, ResourceRead};
use crate::error::ItemKind;
use crate::protocol::{ErrorObject, Feature, ReadResourceResult, Resource, Revision, code, excerpt};
use crate::serve::executor::{Failure, Start};
use crate::serve::methods::{list_cursor, page_result, shown};
use crate::serve::reply::Page;
use crate::serve::reply::Started;
use crate::serve::request::Request;
use crate::server::registry::{Registry, TemplateEntry, page};

/// The fixed resources, and the concrete ones the templates' listers enumerate (user code,
/// so this runs through the executor).
pub(crate) fn list(request: &Request<'_>, start: Start<'_>) -> Started {
    let cursor = match list_cursor(request) {
        Ok(cursor) => cursor,
        Err(e) => return start.reply(request.error(&e)),
    };
    let registry = request.core.registry();
    let fixed = shown(request, registry.resources.iter(), ItemKind::Resource, |r| (&r.resource.uri, &r.parts));
    let mut fixed: Vec<Resource> = fixed.into_iter().map(|r| r.resource.clone()).collect();
    // Each skill's `SKILL.md` (the skills extension).
    for skill in request.core.skills.skills() {
        if let Some(resource) = skill.listed_resource() {
            fixed.push(resource);
        }
    }
    // A template hidden from the caller hides what its lister enumerates.
    let templates = shown(request, registry.templates.iter(), ItemKind::ResourceTemplate, template_tags);
    let context = match request.context(None) {
        Ok(context) => context,
        Err(e) => return start.reply(request.error(&e)),
    };
    // Each lister with the context of its template (a mounted server's states).
    let listers: Vec<_> = templates
        .into_iter()
        .filter_map(|t| {
            let lister = t.lister.clone()?;
            let context = match t.parts.mounted {
                None => context.clone(),
                Some(_) => request.context(Some(&t.parts)).ok()?,
            };
            Some((lister, context))
        })
        .collect();
    let responder = request.responder(&context);
    let cache = request.list_cache();
    let finish = move |mut all: Vec<Resource>| -> Outgoing {
        all.sort_by(|a, b| a.uri.cmp(&b.uri));
        all.dedup_by(|a, b| a.uri == b.uri);
        let core = responder.core();
        match page(&all, |r| &r.uri, cursor.as_deref(), core.config.page_size) {
            Ok((items, next)) => {
                let resources: Vec<_> = items.iter().map(|r| r.for_revision(responder.revision)).collect();
                responder.answer(cache, Page { field: "resources", items: &resources, next })
            }
            Err(e) => responder.error(&e),
        }
    };
    if listers.is_empty() {
        return start.reply(finish(fixed));
    }
    // Each lister is guarded on its own: one that panics leaves only its resources out.
    let work = Box::pin(async move {
        let mut all = fixed;
        for (lister, context) in listers {
            match crate::serve::executor::guarded(lister(context)).await {
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

pub(crate) fn list_templates(request: &Request<'_>) -> Outgoing {
    let listed = list_cursor(request).and_then(|cursor| {
        let registry = request.core.registry();
        let templates = shown(request, registry.templates.iter(), ItemKind::ResourceTemplate, template_tags);
        let (items, next) =
            page(&templates, |t| &t.template.uri_template, cursor.as_deref(), request.core.config.page_size)?;
        let templates: Vec<_> = items.iter().map(|t| t.template.for_revision(request.revision())).collect();
        let page = Page { field: "resourceTemplates", items: &templates, next };
        Ok(page_result(request, page))
    });
    listed.unwrap_or_else(|e| request.error(&e))
}

#[derive(Deserialize)]
struct ReadParams {
    uri: String,
}

fn template_tags(template: &TemplateEntry) -> (&str, &ItemParts) {
    (&template.template.uri_template, &template.parts)
}

/// Whether the caller sees the resource at `uri`: the fixed resource, else the template it
/// matches (a URI neither knows is for the caller to be told it is not found).
pub(crate) fn shows_resource(request: &Request<'_>, registry: &Registry, uri: &str) -> bool {
    if request.visible.is_none() {
        return true;
    }
    match registry.resources.get(uri) {
        Some(fixed) => request.shows(ItemKind::Resource, uri, &fixed.parts),
        None => registry.match_template(uri).is_none_or(|(template, _)| {
            let (name, parts) = template_tags(template);
            request.shows(ItemKind::ResourceTemplate, name, parts)
        }),
    }
}

/// "Not found", as the revision spells it.
fn not_found(revision: Revision, uri: &str) -> ErrorObject {
    let code = if revision.supports(Feature::Stateless) { code::INVALID_PARAMS } else { code::RESOURCE_NOT_FOUND };
    let uri = excerpt(uri);
    ErrorObject::new(code, format!("Resource not found: `{uri}`")).with_data(json!({ "uri": uri }))
}

pub(crate) fn read(request: &Request<'_>, start: Start<'_>) -> Started {
    let revision = request.revision();
    let params: ReadParams = match request.params("resources/read") {
        Ok(p) => p,
        Err(e) => return start.reply(request.error(&e)),
    };
    let registry = request.core.registry();
    if !shows_resource(request, &registry, &params.uri) {
        return start.reply(request.error(&not_found(revision, &params.uri)));
    }
    let (reader, variables, mime, cache, parts) = if let Some(entry) = registry.resources.get(&params.uri) {
        (entry.reader.clone(), Vec::new(), entry.resource.mime_type.clone(), entry.cache, &entry.parts)
    } else if let Some((entry, variables)) = registry.match_template(&params.uri) {
        (entry.reader.clone(), variables, entry.template.mime_type.clone(), entry.cache, &entry.parts)
    } else if let Some(crate::skills::Found::File(skill, file)) = request.core.skills.find(&params.uri) {
        // A skill's file (the skills extension): from the catalog, no user code.
        let result = ReadResourceResult { contents: vec![skill.contents(file)] }.for_revision(revision);
        return start.reply(request.respond(Some(Default::default()), result));
    } else {
        return start.reply(request.error(&not_found(revision, &params.uri)));
    };
    let uri = params.uri.clone();
    let context = match request.context(Some(parts)) {
        Ok(context) => context,
        Err(e) => return start.reply(request.error(&e)),
    };
    let responder = request.responder(&context);
    let read = ResourceRead { uri: params.uri, variables, mime_type: mime.map(Arc::from), context: context.clone() };
    start.call(&reader, parts.spec, &context, read, move |outcome| {
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
                responder.answer(Some(cache.unwrap_or_default()), result)
            }
            Err(ReadError::NotFound) => responder.error(&not_found(revision, &uri)),
            Err(ReadError::Error(e)) => responder.error(&e),
        }
    })
}
