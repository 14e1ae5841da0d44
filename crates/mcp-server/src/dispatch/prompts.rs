//! `prompts/list`, `prompts/get` and `completion/complete`.

use std::collections::BTreeMap;

use mcp_schema::{CompleteRequestParams, Reference};
use serde_json::{Value, json};

use super::Call;
use super::paging::{listing, page};
use crate::error::Error;
use crate::registry::completion::CompletionRequest;
use crate::registry::prompt::PromptArguments;

/// The protocol's cap on completion values per answer.
const MAX_COMPLETIONS: usize = 100;

pub(super) fn list(call: &Call<'_>) -> Result<Value, Error> {
    let snapshot = call.session().server.inner.registry.prompts.snapshot();
    let page = page(call, "prompts", &snapshot.items, |p| {
        serde_json::to_value(&p.prompt).unwrap_or_default()
    })?;
    Ok(listing("prompts", page))
}

pub(super) async fn get(call: &Call<'_>) -> Result<Value, Error> {
    let name = match call.params.get("name") {
        Some(Value::String(n)) => n.as_str(),
        _ => {
            return Err(Error::invalid_params(
                "prompts/get needs params.name (a string)",
            ));
        }
    };
    let Some(def) = call.session().server.inner.registry.prompts.get(name) else {
        return Err(Error::invalid_params(format!("Unknown prompt: {name}")));
    };
    let arguments: PromptArguments = match call.params.get("arguments") {
        None | Some(Value::Null) => BTreeMap::new(),
        Some(Value::Object(map)) => map
            .iter()
            .map(|(k, v)| match v {
                Value::String(s) => Ok((k.clone(), s.clone())),
                _ => Err(Error::invalid_params(format!(
                    "prompt argument {k} must be a string"
                ))),
            })
            .collect::<Result<_, _>>()?,
        Some(_) => {
            return Err(Error::invalid_params(
                "params.arguments must be a JSON object",
            ));
        }
    };
    let missing = def.missing_arguments(&arguments);
    if !missing.is_empty() {
        return Err(Error::invalid_params(format!(
            "prompt {name} is missing required arguments: {}",
            missing.join(", ")
        )));
    }
    let result = (def.get)(arguments, call.cx.clone())
        .await
        .map_err(|e| e.resolve(call.era()))?;
    serde_json::to_value(&result).map_err(Error::msg)
}

pub(super) fn complete(call: &Call<'_>) -> Result<Value, Error> {
    let params: CompleteRequestParams = call.params_as()?;
    let registry = &call.session().server.inner.registry;
    let argument = params.argument.name.clone();
    let completer = match &params.reference {
        Reference::Prompt(p) => {
            let def = registry
                .prompts
                .get(&p.name)
                .ok_or_else(|| Error::invalid_params(format!("Unknown prompt: {}", p.name)))?;
            def.completers.get(&argument).cloned()
        }
        Reference::ResourceTemplate(r) => {
            let templates = registry.templates.snapshot();
            let def = templates
                .items
                .iter()
                .find(|t| t.template.uri_template == r.uri)
                .ok_or_else(|| {
                    Error::invalid_params(format!("Unknown resource template: {}", r.uri))
                })?;
            def.completers.get(&argument).cloned()
        }
        Reference::Unknown(v) => {
            return Err(Error::invalid_params(format!(
                "unknown reference type: {v}"
            )));
        }
    };
    let request = CompletionRequest {
        argument,
        value: params.argument.value.clone(),
        context: params
            .context
            .and_then(|c| c.arguments)
            .unwrap_or_default()
            .into_iter()
            .collect(),
    };
    let mut values = completer.map(|c| c(&request)).unwrap_or_default();
    let total = values.len();
    values.truncate(MAX_COMPLETIONS);
    Ok(json!({
        "completion": {
            "values": values,
            "total": total,
            "hasMore": total > MAX_COMPLETIONS,
        }
    }))
}
