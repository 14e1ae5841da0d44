//! `prompts/list`, `prompts/get` and `completion/complete`.

use mcp_schema::{
    CompleteRequestParams, CompleteResult, GetPromptRequestParams, GetPromptResult,
    ListPromptsResult, Outcome, PaginatedRequestParams, Reference,
};

use super::input;
use super::paging::page;
use crate::error::{Error, reflect};
use crate::middleware::Call;
use crate::registry::completion::CompletionRequest;

/// The protocol's cap on completion values per answer.
const MAX_COMPLETIONS: usize = 100;

pub(super) fn list(
    call: &Call<'_>,
    params: Option<&PaginatedRequestParams>,
) -> Result<ListPromptsResult, Error> {
    let snapshot = call.registry.prompts.snapshot();
    let shared = &call.cx.inner.session.shared;
    let page = page(shared, params, "prompts", &snapshot.items, |p| {
        p.prompt.clone()
    })?;
    Ok(ListPromptsResult {
        prompts: page.items,
        next_cursor: page.next_cursor,
        ..Default::default()
    })
}

pub(super) async fn get(
    call: &Call<'_>,
    params: &GetPromptRequestParams,
) -> Result<Outcome<GetPromptResult>, Error> {
    let result = get_prompt(call, params).await;
    input::outcome(call, result)
}

async fn get_prompt(
    call: &Call<'_>,
    params: &GetPromptRequestParams,
) -> Result<GetPromptResult, Error> {
    let name = params.name.as_str();
    let Some(def) = call.registry.prompts.get(name) else {
        return Err(Error::invalid_params(format!(
            "Unknown prompt: {}",
            reflect(name)
        )));
    };
    let arguments = params.arguments.clone().unwrap_or_default();
    let missing = def.missing_arguments(&arguments);
    if !missing.is_empty() {
        return Err(Error::invalid_params(format!(
            "prompt {name} is missing required arguments: {}",
            missing.join(", ")
        )));
    }
    (def.get)(arguments, call.cx.clone())
        .await
        .map_err(|e| e.resolve(call.cx.protocol_version().era()))
}

pub(super) fn complete(
    call: &Call<'_>,
    params: &CompleteRequestParams,
) -> Result<CompleteResult, Error> {
    let registry = call.registry;
    let argument = params.argument.name.clone();
    let completer = match &params.reference {
        Reference::Prompt(p) => {
            let def = registry.prompts.get(&p.name).ok_or_else(|| {
                Error::invalid_params(format!("Unknown prompt: {}", reflect(&p.name)))
            })?;
            def.completers.get(&argument).cloned()
        }
        Reference::ResourceTemplate(r) => {
            let templates = registry.templates.snapshot();
            let def = templates
                .items
                .iter()
                .find(|t| t.template.uri_template == r.uri)
                .ok_or_else(|| {
                    Error::invalid_params(format!("Unknown resource template: {}", reflect(&r.uri)))
                })?;
            def.completers.get(&argument).cloned()
        }
        Reference::Unknown(v) => {
            return Err(Error::invalid_params(format!(
                "unknown reference type: {}",
                reflect(&v.to_string())
            )));
        }
    };
    let request = CompletionRequest {
        argument,
        value: params.argument.value.clone(),
        context: params
            .context
            .as_ref()
            .and_then(|c| c.arguments.clone())
            .unwrap_or_default()
            .into_iter()
            .collect(),
    };
    let mut values = completer.map(|c| c(&request)).unwrap_or_default();
    let total = values.len();
    values.truncate(MAX_COMPLETIONS);
    let mut result = CompleteResult::default();
    result.completion.values = values;
    result.completion.total = Some(total as u64);
    result.completion.has_more = Some(total > MAX_COMPLETIONS);
    Ok(result)
}
