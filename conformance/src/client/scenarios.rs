//! The scenarios, each as an application would use `mcp-kit`: connect, list, call, close.

use std::collections::HashMap;

use anyhow::{Context, bail, ensure};
use mcp_kit::Session;
use mcp_kit::mcp::{CallToolResult, ContentBlock, Tool};
use serde_json::{Map, Value, json};

use super::connect::{self, Connected};
use super::{Invocation, auth};

/// The scenarios this client acts out. It also recognises `auth/*` (OAuth: it authorizes, then
/// lists and calls the tool).
pub(crate) const NAMES: &[&str] = &[
    "initialize",
    "tools_call",
    "elicitation-sep1034-client-defaults",
    "sse-retry",
    "request-metadata",
    "sep-2322-client-request-state",
    "http-standard-headers",
    "http-custom-headers",
    "http-invalid-tool-headers",
    "json-schema-ref-no-deref",
    "json-schema-2020-12-preservation",
    "sep-2640-client-no-prefetch",
    "sep-2640-client-verify-digest",
    "sep-2640-client-verify-size",
    "sep-2640-client-verify-frontmatter",
];

/// Runs the scenario named by the invocation.
pub(crate) async fn run(invocation: &Invocation) -> anyhow::Result<()> {
    match invocation.scenario.as_str() {
        "initialize" | "tools_call" => basic(invocation).await,
        "elicitation-sep1034-client-defaults" => elicitation_defaults(invocation).await,
        "sse-retry" => sse_retry(invocation).await,
        "request-metadata" => request_metadata(invocation).await,
        "sep-2322-client-request-state" => request_state(invocation).await,
        "http-standard-headers" => standard_headers(invocation).await,
        "http-custom-headers" | "http-invalid-tool-headers" => custom_headers(invocation).await,
        "json-schema-ref-no-deref" => list_tools_only(invocation).await,
        "json-schema-2020-12-preservation" => schema_preservation(invocation).await,
        auth if auth.starts_with("auth/") => oauth(invocation).await,
        "sep-2640-client-no-prefetch" => skills_listing(invocation).await,
        verify if verify.starts_with("sep-2640-client-verify-") => skills_load(invocation).await,
        other => bail!(
            "unknown scenario `{other}` (this client knows: {}, and recognises auth/*)",
            NAMES.join(", ")
        ),
    }
}

// ----- helpers ------------------------------------------------------------------------------

fn text_of(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|block| match block {
            ContentBlock::Text(text) => Some(text.text.as_str()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn arguments(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

/// Calls a tool and insists that it did not fail; returns its text.
async fn call_ok(session: &Session, name: &str, args: Value) -> anyhow::Result<String> {
    let result = session
        .call_tool(name, Some(arguments(args)))
        .await
        .with_context(|| format!("tools/call {name}"))?;
    let text = text_of(&result);
    tracing::info!(tool = name, %text, "tool result");
    ensure!(
        result.is_error != Some(true),
        "tool {name} reported an error: {text}"
    );
    Ok(text)
}

async fn list_tools(session: &Session) -> anyhow::Result<Vec<Tool>> {
    let tools = session.list_all_tools().await.context("tools/list")?;
    tracing::info!(
        tools = ?tools.iter().map(|t| t.name.as_str()).collect::<Vec<_>>(),
        "listed tools"
    );
    Ok(tools)
}

fn find_tool<'a>(tools: &'a [Tool], name: &str) -> anyhow::Result<&'a Tool> {
    tools
        .iter()
        .find(|t| t.name == name)
        .with_context(|| format!("the server does not offer the tool `{name}`"))
}

/// Arguments for a tool when the scenario gives none: each required parameter gets its
/// default, its first allowed value, or a plain value of its type.
fn sample_arguments(tool: &Tool) -> Map<String, Value> {
    let mut arguments = Map::new();
    let properties = tool.input_schema.properties.clone().unwrap_or_default();
    for name in tool.input_schema.required.iter().flatten() {
        let schema = properties.get(name).cloned().unwrap_or(Value::Null);
        let value = if let Some(default) = schema.get("default") {
            default.clone()
        } else if let Some(first) = schema.get("enum").and_then(|e| e.get(0)) {
            first.clone()
        } else {
            match schema.get("type").and_then(Value::as_str) {
                Some("string") => json!("example"),
                Some("integer") => json!(1),
                Some("number") => json!(1.5),
                Some("boolean") => json!(true),
                Some("array") => json!([]),
                Some("object") => json!({}),
                _ => continue,
            }
        };
        arguments.insert(name.clone(), value);
    }
    arguments
}

// ----- scenarios ----------------------------------------------------------------------------

/// `sep-2640-client-no-prefetch`: a host builds its skill registry from the listing alone; no
/// skill file is read before a skill is loaded.
async fn skills_listing(invocation: &Invocation) -> anyhow::Result<()> {
    let Connected { session, .. } = connect::connect(invocation).await?;
    let skills = session.list_all_skills().await.context("skills/list")?;
    tracing::info!(
        skills = ?skills.iter().map(|s| (s.name(), s.uri.as_str())).collect::<Vec<_>>(),
        "listed skills (nothing read)"
    );
    session.close().await;
    Ok(())
}

/// `sep-2640-client-verify-{digest,size,frontmatter}`: the host loads the first listed skill;
/// its SKILL.md is checked against the entry (size, digest, frontmatter) and, only when it
/// passes, the supporting files are read, each checked the same way. A mismatch ends the
/// scenario with the verification error (the suite allows the client to fail here), no
/// further file read.
async fn skills_load(invocation: &Invocation) -> anyhow::Result<()> {
    let Connected { session, .. } = connect::connect(invocation).await?;
    let outcome = async {
        let skills = session.list_all_skills().await.context("skills/list")?;
        let skill = skills.first().context("the server lists no skill")?;
        let loaded = session.load_skill(skill).await?;
        tracing::info!(uri = %loaded.uri, "skill loaded and verified");
        for file in skill.resources.files().unwrap_or_default() {
            if file.uri != skill.uri {
                let content = session.read_skill_file(skill, &file.uri).await?;
                tracing::info!(uri = %content.uri, bytes = content.bytes.len(), "file verified");
            }
        }
        anyhow::Ok(())
    }
    .await;
    session.close().await;
    outcome
}

/// `initialize`, `tools_call`: the handshake, the tool list, and `add_numbers(2, 3)` when the
/// server offers it.
async fn basic(invocation: &Invocation) -> anyhow::Result<()> {
    let Connected { session, .. } = connect::connect(invocation).await?;
    let tools = list_tools(&session).await?;
    if tools.iter().any(|t| t.name == "add_numbers") {
        let text = call_ok(&session, "add_numbers", json!({ "a": 2, "b": 3 })).await?;
        ensure!(text.contains('5'), "add_numbers(2, 3) answered `{text}`");
    }
    session.close().await;
    Ok(())
}

/// `elicitation-sep1034-client-defaults`: the tool elicits a form whose fields all have
/// defaults; the handler accepts it pre-filled (see `elicitation.rs`).
async fn elicitation_defaults(invocation: &Invocation) -> anyhow::Result<()> {
    let Connected { session, .. } = connect::connect(invocation).await?;
    let tools = list_tools(&session).await?;
    let tool = find_tool(&tools, "test_client_elicitation_defaults")?;
    let text = call_ok(&session, &tool.name, json!({})).await?;
    ensure!(
        text.starts_with("Elicitation completed"),
        "the elicitation did not complete: {text}"
    );
    session.close().await;
    Ok(())
}

/// `sse-retry`: the server closes the tool call's SSE stream after a priming event carrying
/// `retry: 500`; the transport waits that long and resumes with `Last-Event-ID` on a GET,
/// where the result arrives.
async fn sse_retry(invocation: &Invocation) -> anyhow::Result<()> {
    let Connected { session, .. } = connect::connect(invocation).await?;
    let tools = list_tools(&session).await?;
    let tool = find_tool(&tools, "test_reconnection")?;
    let started = std::time::Instant::now();
    let text = call_ok(&session, &tool.name, json!({})).await?;
    ensure!(
        text.contains("completed successfully"),
        "unexpected result: {text}"
    );
    tracing::info!(elapsed = ?started.elapsed(), "the result arrived after the resumption");
    session.close().await;
    Ok(())
}

/// `request-metadata` (2026-07-28): every request carries the version header and `_meta`; the
/// server refuses the first request with `UnsupportedProtocolVersion`, and the handshake
/// retries with a version from its `supported` list.
async fn request_metadata(invocation: &Invocation) -> anyhow::Result<()> {
    let Connected { session, .. } = connect::connect(invocation).await?;
    list_tools(&session).await?;
    session.close().await;
    Ok(())
}

/// `sep-2322-client-request-state` (2026-07-28): tool calls answered with
/// `InputRequiredResult`. `mcp-kit` answers the input requests through the handler and retries
/// with `inputResponses` and the exact `requestState`, under a new JSON-RPC id; an unrelated
/// call made meanwhile carries none of it.
async fn request_state(invocation: &Invocation) -> anyhow::Result<()> {
    let Connected { session, .. } = connect::connect(invocation).await?;
    let tools = list_tools(&session).await?;
    for name in [
        "test_mrtr_echo_state",
        "test_mrtr_no_state",
        "test_mrtr_unrelated",
        "test_mrtr_no_result_type",
    ] {
        find_tool(&tools, name)?;
    }
    let (echo, unrelated) = tokio::join!(
        call_ok(&session, "test_mrtr_echo_state", json!({})),
        call_ok(&session, "test_mrtr_unrelated", json!({})),
    );
    ensure!(
        echo? == "echo-state-ok",
        "test_mrtr_echo_state did not complete"
    );
    ensure!(
        unrelated? == "unrelated-ok",
        "test_mrtr_unrelated did not complete"
    );
    let no_state = call_ok(&session, "test_mrtr_no_state", json!({})).await?;
    ensure!(
        no_state == "no-state-ok",
        "test_mrtr_no_state did not complete"
    );
    let plain = call_ok(&session, "test_mrtr_no_result_type", json!({})).await?;
    ensure!(
        plain == "no-result-type-test-ok",
        "test_mrtr_no_result_type: `{plain}`"
    );
    session.close().await;
    Ok(())
}

/// `http-standard-headers` (2026-07-28): every kind of request, so that each carries its
/// `Mcp-Method` (and `Mcp-Name` for tools/call, resources/read and prompts/get).
async fn standard_headers(invocation: &Invocation) -> anyhow::Result<()> {
    let Connected { session, .. } = connect::connect(invocation).await?;
    for tool in list_tools(&session).await? {
        call_ok(&session, &tool.name, Value::Object(sample_arguments(&tool))).await?;
    }
    let resources = session
        .list_resources(None)
        .await
        .context("resources/list")?;
    for resource in &resources.resources {
        let read = session
            .read_resource(&resource.uri)
            .await
            .with_context(|| format!("resources/read {}", resource.uri))?;
        tracing::info!(uri = %resource.uri, contents = read.contents.len(), "read a resource");
    }
    let prompts = session.list_prompts(None).await.context("prompts/list")?;
    for prompt in &prompts.prompts {
        let got = session
            .get_prompt(&prompt.name, None)
            .await
            .with_context(|| format!("prompts/get {}", prompt.name))?;
        tracing::info!(prompt = %prompt.name, messages = got.messages.len(), "got a prompt");
    }
    session.close().await;
    Ok(())
}

/// `http-custom-headers`, `http-invalid-tool-headers` (2026-07-28): tools whose parameters
/// carry `x-mcp-header`. `mcp-kit` leaves tools with an invalid declaration out of
/// `tools/list` and mirrors the annotated arguments of the others into `Mcp-Param-*` headers;
/// this client calls every listed tool (with the arguments the suite passes in
/// `MCP_CONFORMANCE_CONTEXT`, or sample ones).
async fn custom_headers(invocation: &Invocation) -> anyhow::Result<()> {
    let Connected { session, .. } = connect::connect(invocation).await?;
    let tools = list_tools(&session).await?;
    // The calls the suite asks for, by tool name.
    let mut requested: HashMap<String, Vec<Map<String, Value>>> = HashMap::new();
    let calls = invocation
        .context
        .as_ref()
        .and_then(|c| c.get("toolCalls"))
        .and_then(Value::as_array);
    for call in calls.into_iter().flatten() {
        if let Some(name) = call.get("name").and_then(Value::as_str) {
            let args = arguments(call.get("arguments").cloned().unwrap_or(Value::Null));
            requested.entry(name.to_owned()).or_default().push(args);
        }
    }
    for tool in &tools {
        let calls = requested
            .remove(&tool.name)
            .unwrap_or_else(|| vec![sample_arguments(tool)]);
        for args in calls {
            let result = session
                .call_tool(&tool.name, Some(args))
                .await
                .with_context(|| format!("tools/call {}", tool.name))?;
            tracing::info!(tool = %tool.name, result = %serde_json::to_value(&result)?, "tool result");
        }
    }
    if !requested.is_empty() {
        bail!(
            "the suite asked to call tools that are missing or invalid: {:?}",
            requested.keys().collect::<Vec<_>>()
        );
    }
    session.close().await;
    Ok(())
}

/// `json-schema-ref-no-deref` (2026-07-28): a tool schema with a network `$ref`. Listing
/// tools must not fetch it (`mcp-kit` never dereferences schemas).
async fn list_tools_only(invocation: &Invocation) -> anyhow::Result<()> {
    let Connected { session, .. } = connect::connect(invocation).await?;
    for tool in list_tools(&session).await? {
        tracing::info!(tool = %tool.name, schema = ?tool.input_schema, "input schema kept as is");
    }
    session.close().await;
    Ok(())
}

/// `json-schema-2020-12-preservation`: the focal tool's input schema, sent back verbatim to
/// an echo tool; the server diffs it against what it advertised.
async fn schema_preservation(invocation: &Invocation) -> anyhow::Result<()> {
    let Connected { session, .. } = connect::connect(invocation).await?;
    let tools = list_tools(&session).await?;
    let focal = find_tool(&tools, "json_schema_2020_12_tool")?;
    find_tool(&tools, "json_schema_echo")?;
    let schema = serde_json::to_value(&focal.input_schema).context("encoding the schema")?;
    call_ok(&session, "json_schema_echo", json!({ "schema": schema })).await?;
    session.close().await;
    Ok(())
}

/// `auth/*`: the server wants OAuth 2.1 authorization. The client authorizes as
/// [`auth::options`] sets it up, lists the tools, and calls `test-tool` when offered.
async fn oauth(invocation: &Invocation) -> anyhow::Result<()> {
    let options = auth::options(invocation)?;
    let Connected { session, .. } =
        connect::connect_with(invocation, |manager| manager.with_oauth(options)).await?;
    let tools = list_tools(&session).await?;
    if tools.iter().any(|t| t.name == "test-tool") {
        call_ok(&session, "test-tool", json!({})).await?;
    }
    session.close().await;
    Ok(())
}
