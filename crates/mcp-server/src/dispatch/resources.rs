//! `resources/list`, `resources/templates/list`, `resources/read`, `resources/(un)subscribe`.

use serde_json::{Value, json};

use super::Call;
use super::paging::{listing, page};
use crate::error::Error;

pub(super) fn list(call: &Call<'_>) -> Result<Value, Error> {
    let snapshot = call.session().server.inner.registry.resources.snapshot();
    let page = page(call, "resources", &snapshot.items, |r| {
        serde_json::to_value(&r.resource).unwrap_or_default()
    })?;
    Ok(listing("resources", page))
}

pub(super) fn list_templates(call: &Call<'_>) -> Result<Value, Error> {
    let snapshot = call.session().server.inner.registry.templates.snapshot();
    let page = page(call, "resourceTemplates", &snapshot.items, |t| {
        serde_json::to_value(&t.template).unwrap_or_default()
    })?;
    Ok(listing("resourceTemplates", page))
}

fn uri_param<'a>(call: &'a Call<'_>) -> Result<&'a str, Error> {
    match call.params.get("uri") {
        Some(Value::String(uri)) => Ok(uri),
        _ => Err(Error::invalid_params(format!(
            "{} needs params.uri (a string)",
            call.method
        ))),
    }
}

pub(super) async fn read(call: &Call<'_>) -> Result<Value, Error> {
    let uri = uri_param(call)?;
    let registry = &call.session().server.inner.registry;
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
    let result = outcome.map_err(|e| e.resolve(call.era()))?;
    serde_json::to_value(&result).map_err(Error::msg)
}

pub(super) fn subscribe(call: &Call<'_>, on: bool) -> Result<Value, Error> {
    let uri = uri_param(call)?.to_owned();
    let mut subscriptions = call
        .session()
        .subscriptions
        .lock()
        .unwrap_or_else(|p| p.into_inner());
    if on {
        subscriptions.insert(uri);
    } else {
        subscriptions.remove(&uri);
    }
    Ok(json!({}))
}
