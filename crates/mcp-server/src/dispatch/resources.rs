//! `resources/list`, `resources/templates/list`, `resources/read`, `resources/(un)subscribe`.

use mcp_schema::{
    EmptyResult, ListResourceTemplatesResult, ListResourcesResult, Outcome, PaginatedRequestParams,
    ReadResourceRequestParams, ReadResourceResult, ResourceRequestParams,
};

use super::input;
use super::paging::page;
use crate::error::Error;
use crate::middleware::Call;

pub(super) fn list(
    call: &Call<'_>,
    params: Option<&PaginatedRequestParams>,
) -> Result<ListResourcesResult, Error> {
    let snapshot = call.registry.resources.snapshot();
    let shared = &call.cx.inner.session.shared;
    let page = page(shared, params, "resources", &snapshot.items, |r| {
        r.resource.clone()
    })?;
    Ok(ListResourcesResult {
        resources: page.items,
        next_cursor: page.next_cursor,
        ..Default::default()
    })
}

pub(super) fn list_templates(
    call: &Call<'_>,
    params: Option<&PaginatedRequestParams>,
) -> Result<ListResourceTemplatesResult, Error> {
    let snapshot = call.registry.templates.snapshot();
    let shared = &call.cx.inner.session.shared;
    let page = page(shared, params, "resourceTemplates", &snapshot.items, |t| {
        t.template.clone()
    })?;
    Ok(ListResourceTemplatesResult {
        resource_templates: page.items,
        next_cursor: page.next_cursor,
        ..Default::default()
    })
}

pub(super) async fn read(
    call: &Call<'_>,
    params: &ReadResourceRequestParams,
) -> Result<Outcome<ReadResourceResult>, Error> {
    let result = read_resource(call, &params.uri).await;
    input::outcome(call, result)
}

async fn read_resource(call: &Call<'_>, uri: &str) -> Result<ReadResourceResult, Error> {
    let registry = call.registry;
    // A skill file: the bytes its skill's entry publishes the digest of.
    if let Some(file) = registry.skills.snapshot().file(uri) {
        return Ok(crate::registry::skills::contents(file));
    }
    let outcome = if let Some(def) = registry.resources.get(uri) {
        (def.read)(uri.to_owned(), Default::default(), call.cx.clone()).await
    } else {
        let templates = registry.templates.snapshot();
        let found = templates
            .items
            .iter()
            .find_map(|t| t.pattern.matches(uri).map(|vars| (t.clone(), vars)));
        match found {
            Some((def, vars)) => (def.read)(uri.to_owned(), vars, call.cx.clone()).await,
            None => Err(Error::resource_not_found(uri)),
        }
    };
    outcome.map_err(|e| e.resolve(call.cx.protocol_version().era()))
}

pub(super) fn subscribe(
    call: &Call<'_>,
    params: &ResourceRequestParams,
    on: bool,
) -> Result<EmptyResult, Error> {
    call.cx.inner.session.subscribe(&params.uri, on);
    Ok(EmptyResult::default())
}
