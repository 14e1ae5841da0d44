//! What the `conformance-server` binary serves: every tool, resource and prompt the suite's
//! server scenarios call, built only with the public API of `mcp-server`.
//!
//! Both protocol eras share the fixtures; the 2026-07-28 multi round-trip tools ask for input
//! with [`RequestContext::request_inputs`], which in the stateful era would send requests to
//! the client and in 2026-07-28 ends the call with an `InputRequiredResult`.

pub mod skills;
mod stateless;
mod tasks;

use std::time::Duration;

use mcp_server::schema::{
    AudioContent, BlobResourceContents, CallToolResult, ContentBlock, CreateMessageRequestParams,
    ElicitRequestParams, EmbeddedResource, GetPromptResult, ImageContent, InputRequest,
    InputResponse, LoggingLevel, PromptMessage, ResourceContents, Role, SamplingMessage,
    TextResourceContents,
};
use mcp_server::{
    Error, NoArguments, PromptDef, RequestContext, ResourceDef, ResourceTemplateDef, Server,
    ToolDef,
};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

/// A 1×1 red PNG.
pub const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
/// A tiny WAV file.
pub const WAV: &str = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=";

#[derive(Deserialize, JsonSchema)]
struct SamplingArgs {
    /// The prompt to send to the client's model.
    prompt: String,
}

#[derive(Deserialize, JsonSchema)]
struct ElicitationArgs {
    /// The message to show the user.
    message: String,
}

fn text(t: &str) -> ContentBlock {
    ContentBlock::text(t)
}

fn embedded(uri: &str, mime: &str, body: &str) -> ContentBlock {
    let mut contents = TextResourceContents::new(uri, body);
    contents.mime_type = Some(mime.to_owned());
    ContentBlock::Resource(EmbeddedResource::new(ResourceContents::Text(contents)))
}

fn elicit(message: &str, schema: Value) -> Result<InputRequest, Error> {
    let params: ElicitRequestParams =
        serde_json::from_value(json!({ "message": message, "requestedSchema": schema }))
            .map_err(|e| Error::msg(format!("fixture elicitation schema: {e}")))?;
    Ok(InputRequest::elicit(params))
}

fn sample(prompt: &str, max_tokens: u64) -> InputRequest {
    InputRequest::create_message(CreateMessageRequestParams::new(
        vec![SamplingMessage::text(Role::User, prompt)],
        max_tokens,
    ))
}

/// The `action` and `content` of an elicitation answer, checked to be one.
fn elicited(answer: &InputResponse) -> Result<(String, Value), Error> {
    match answer {
        InputResponse::Elicit(r) => Ok((
            serde_json::to_value(&r.action)
                .ok()
                .and_then(|v| v.as_str().map(str::to_owned))
                .unwrap_or_default(),
            serde_json::to_value(&r.content).unwrap_or(Value::Null),
        )),
        other => Err(Error::invalid_params(format!(
            "expected an elicitation result, got {}",
            serde_json::to_string(other).unwrap_or_default()
        ))),
    }
}

/// The form of `test_elicitation_sep1034_defaults`: every primitive type, each with a default.
fn sep1034_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "name": { "type": "string", "description": "User name", "default": "John Doe" },
            "age": { "type": "integer", "description": "User age", "default": 30 },
            "score": { "type": "number", "description": "User score", "default": 95.5 },
            "status": {
                "type": "string", "description": "User status",
                "enum": ["active", "inactive", "pending"], "default": "active"
            },
            "verified": { "type": "boolean", "description": "Verified", "default": true }
        },
        "required": []
    })
}

/// The form of `test_elicitation_sep1330_enums`: every enum shape of SEP-1330.
fn sep1330_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "untitledSingle": {
                "type": "string", "description": "Untitled single select",
                "enum": ["option1", "option2", "option3"]
            },
            "titledSingle": {
                "type": "string", "description": "Titled single select",
                "oneOf": [
                    { "const": "value1", "title": "First Option" },
                    { "const": "value2", "title": "Second Option" },
                    { "const": "value3", "title": "Third Option" }
                ]
            },
            "legacyEnum": {
                "type": "string", "description": "Legacy titled enum",
                "enum": ["opt1", "opt2", "opt3"],
                "enumNames": ["Option One", "Option Two", "Option Three"]
            },
            "untitledMulti": {
                "type": "array", "description": "Untitled multi select",
                "minItems": 1, "maxItems": 3,
                "items": { "type": "string", "enum": ["option1", "option2", "option3"] }
            },
            "titledMulti": {
                "type": "array", "description": "Titled multi select",
                "minItems": 1, "maxItems": 3,
                "items": { "anyOf": [
                    { "const": "value1", "title": "First Choice" },
                    { "const": "value2", "title": "Second Choice" },
                    { "const": "value3", "title": "Third Choice" }
                ] }
            }
        },
        "required": []
    })
}

/// Every fixture tool.
fn tools(b: mcp_server::ServerBuilder) -> mcp_server::ServerBuilder {
    b.tool(
        "test_simple_text",
        "Returns a simple text response",
        |_: NoArguments, _| async { Ok("This is a simple text response for testing.") },
    )
    .tool(
        "test_image_content",
        "Returns an image",
        |_: NoArguments, _| async { Ok(ContentBlock::Image(ImageContent::new(PNG, "image/png"))) },
    )
    .tool(
        "test_audio_content",
        "Returns audio",
        |_: NoArguments, _| async { Ok(ContentBlock::Audio(AudioContent::new(WAV, "audio/wav"))) },
    )
    .tool(
        "test_embedded_resource",
        "Returns an embedded resource",
        |_: NoArguments, _| async {
            Ok(embedded(
                "test://embedded-resource",
                "text/plain",
                "This is an embedded resource content.",
            ))
        },
    )
    .tool(
        "test_multiple_content_types",
        "Returns text, an image and an embedded resource",
        |_: NoArguments, _| async {
            Ok(vec![
                text("Multiple content types test:"),
                ContentBlock::Image(ImageContent::new(PNG, "image/png")),
                embedded(
                    "test://mixed-content-resource",
                    "application/json",
                    r#"{"test":"data","value":123}"#,
                ),
            ])
        },
    )
    .tool(
        "test_error_handling",
        "Always fails with a tool error",
        |_: NoArguments, _| async {
            Err::<(), _>(Error::msg(
                "This tool intentionally returns an error for testing",
            ))
        },
    )
    .tool(
        "test_tool_with_progress",
        "Reports progress three times",
        |_: NoArguments, cx: RequestContext| async move {
            for (i, p) in [0.0, 50.0, 100.0].into_iter().enumerate() {
                cx.progress(p, Some(100.0), Some(&format!("Completed step {i} of 100")))
                    .await;
                if i < 2 {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            }
            Ok(format!("{:?}", cx.request_id()))
        },
    )
    .tool(
        "test_tool_with_logging",
        "Sends three log messages while it runs",
        |_: NoArguments, cx: RequestContext| async move {
            for (i, m) in [
                "Tool execution started",
                "Tool processing data",
                "Tool execution completed",
            ]
            .into_iter()
            .enumerate()
            {
                cx.log(LoggingLevel::Info, Some("conformance"), m).await;
                if i < 2 {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            }
            Ok("Tool with logging executed successfully")
        },
    )
    .tool(
        "test_reconnection",
        "Lets the client poll: closes its SSE stream mid-call, then finishes",
        |_: NoArguments, cx: RequestContext| async move {
            cx.close_sse_stream(Duration::from_millis(100)).await;
            tokio::time::sleep(Duration::from_millis(200)).await;
            Ok("Reconnection test completed")
        },
    )
    .tool(
        "test_sampling",
        "Asks the client's model",
        |a: SamplingArgs, cx: RequestContext| async move {
            let answer = cx
                .create_message(CreateMessageRequestParams::new(
                    vec![SamplingMessage::text(Role::User, a.prompt)],
                    100,
                ))
                .await?;
            let reply = serde_json::to_value(&answer.content)
                .ok()
                .and_then(|c| c.get("text").and_then(Value::as_str).map(str::to_owned))
                .unwrap_or_default();
            Ok(format!("LLM response: {reply}"))
        },
    )
    .tool(
        "test_elicitation",
        "Asks the user for a username and an email",
        |a: ElicitationArgs, cx: RequestContext| async move {
            let answer = cx
                .elicit_form(
                    a.message,
                    json!({
                        "type": "object",
                        "properties": {
                            "username": { "type": "string", "description": "Your username" },
                            "email": { "type": "string", "description": "Your email address" }
                        },
                        "required": ["username", "email"]
                    }),
                )
                .await?;
            Ok(format!(
                "User response: action={}, content={}",
                serde_json::to_value(&answer.action).unwrap_or_default(),
                serde_json::to_value(&answer.content).unwrap_or_default()
            ))
        },
    )
    .tool(
        "test_elicitation_sep1034_defaults",
        "Elicits a form whose fields have defaults (SEP-1034)",
        |_: NoArguments, cx: RequestContext| async move {
            let answer = cx
                .elicit_form(
                    "Please review and update the form fields with defaults",
                    sep1034_schema(),
                )
                .await?;
            Ok(format!(
                "Elicitation completed: action={}, content={}",
                serde_json::to_value(&answer.action).unwrap_or_default(),
                serde_json::to_value(&answer.content).unwrap_or_default()
            ))
        },
    )
    .tool(
        "test_elicitation_sep1330_enums",
        "Elicits every enum shape (SEP-1330)",
        |_: NoArguments, cx: RequestContext| async move {
            let answer = cx
                .elicit_form(
                    "Please select options from the enum fields",
                    sep1330_schema(),
                )
                .await?;
            Ok(format!(
                "Elicitation completed: action={}, content={}",
                serde_json::to_value(&answer.action).unwrap_or_default(),
                serde_json::to_value(&answer.content).unwrap_or_default()
            ))
        },
    )
    .tool_def(
        ToolDef::raw(
            "test_param_headers",
            "Mirrors its arguments in Mcp-Param-* HTTP headers (x-mcp-header, 2026-07-28)",
            json!({
                "type": "object",
                "properties": {
                    "region": { "type": "string", "description": "A region", "x-mcp-header": "Region" },
                    "priority": { "type": "integer", "description": "A priority", "x-mcp-header": "Priority" }
                },
                "required": ["region"]
            }),
            |args, _| async move {
                Ok(CallToolResult::text(format!("region={}", args["region"])))
            },
        )
        .expect("valid x-mcp-header declarations"),
    )
    .tool_def(
        ToolDef::raw(
            "json_schema_2020_12_tool",
            "Takes arguments described with JSON Schema 2020-12 keywords",
            json!({
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "type": "object",
                "$defs": { "address": {
                    "$anchor": "addressDef",
                    "type": "object",
                    "properties": { "street": { "type": "string" }, "city": { "type": "string" } }
                } },
                "properties": {
                    "name": { "type": "string" },
                    "address": { "$ref": "#/$defs/address" },
                    "contactMethod": { "type": "string", "enum": ["phone", "email"] },
                    "phone": { "type": "string" },
                    "email": { "type": "string" }
                },
                "allOf": [{ "anyOf": [{ "required": ["phone"] }, { "required": ["email"] }] }],
                "if": { "properties": { "contactMethod": { "const": "phone" } }, "required": ["contactMethod"] },
                "then": { "required": ["phone"] },
                "else": { "required": ["email"] },
                "additionalProperties": false
            }),
            |args, _| async move { Ok(CallToolResult::text(format!("received {}", Value::Object(args)))) },
        )
        .expect("a valid 2020-12 schema"),
    )
}

fn resources(b: mcp_server::ServerBuilder) -> mcp_server::ServerBuilder {
    b.resource(
        ResourceDef::text(
            "test://static-text",
            "static-text",
            "text/plain",
            "This is the content of the static text resource.",
        )
        .description("A static text resource"),
    )
    .resource(
        ResourceDef::new(
            "test://static-binary",
            "static-binary",
            Some("image/png"),
            |_| async {
                let mut blob = BlobResourceContents::new("test://static-binary", PNG);
                blob.mime_type = Some("image/png".to_owned());
                Ok(ResourceContents::Blob(blob))
            },
        )
        .description("A static binary resource (a PNG)"),
    )
    .resource(
        ResourceDef::text(
            "test://watched-resource",
            "watched-resource",
            "text/plain",
            "Watched resource content",
        )
        .description("A resource to subscribe to"),
    )
    .resource_template(
        ResourceTemplateDef::new(
            "test://template/{id}/data",
            "template-data",
            Some("application/json"),
            |_uri, vars, _| async move {
                let id = vars.get("id").cloned().unwrap_or_default();
                Ok(
                    json!({ "id": id, "templateTest": true, "data": format!("Data for ID: {id}") })
                        .to_string(),
                )
            },
        )
        .expect("a valid template")
        .description("Data for an id"),
    )
}

fn prompts(b: mcp_server::ServerBuilder) -> mcp_server::ServerBuilder {
    b.prompt(
        PromptDef::new("test_simple_prompt", |_, _| async {
            Ok("This is a simple prompt for testing.".to_owned())
        })
        .description("A prompt without arguments"),
    )
    .prompt(
        PromptDef::new("test_prompt_with_arguments", |args, _| async move {
            Ok(format!(
                "Prompt with arguments: arg1='{}', arg2='{}'",
                args["arg1"], args["arg2"]
            ))
        })
        .description("A prompt with two arguments")
        .argument("arg1", "First argument", true)
        .argument("arg2", "Second argument", true),
    )
    .prompt(
        PromptDef::new("test_prompt_with_embedded_resource", |args, _| async move {
            Ok(vec![
                PromptMessage::new(
                    Role::User,
                    embedded(&args["resourceUri"], "text/plain", "Embedded resource content for testing."),
                ),
                PromptMessage::new(Role::User, text("Please process the embedded resource above.")),
            ])
        })
        .description("A prompt embedding a resource")
        .argument("resourceUri", "The resource to embed", true),
    )
    .prompt(
        PromptDef::new("test_prompt_with_image", |_, _| async {
            Ok(vec![
                PromptMessage::new(Role::User, ContentBlock::Image(ImageContent::new(PNG, "image/png"))),
                PromptMessage::new(Role::User, text("Please analyze the image above.")),
            ])
        })
        .description("A prompt with an image"),
    )
    .prompt(
        PromptDef::new("test_input_required_result_prompt", |_, cx: RequestContext| async move {
            let answer = cx
                .request_input(
                    "user_context",
                    elicit("What context should the prompt use?", json!({
                        "type": "object", "properties": { "context": { "type": "string" } }, "required": ["context"]
                    }))?,
                )
                .await?;
            let (_, content) = elicited(&answer)?;
            Ok(GetPromptResult {
                messages: vec![PromptMessage::new(
                    Role::User,
                    text(&format!("Use this context: {}", content["context"])),
                )],
                ..GetPromptResult::default()
            })
        })
        .description("A prompt that asks for context first (2026-07-28)"),
    )
}

/// The conformance fixture server.
pub fn server() -> Server {
    let b = Server::builder("mcp-toolkit-conformance-server", env!("CARGO_PKG_VERSION"))
        .instructions("The fixtures of the MCP conformance suite's server scenarios.");
    let b = tasks::task_tools(stateless::stateless_tools(tools(skills::skills(b))));
    prompts(resources(b)).build()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The forms survive the typed elicitation model unchanged (the suite checks them member
    /// by member).
    #[test]
    fn elicitation_forms_round_trip() {
        for schema in [sep1034_schema(), sep1330_schema()] {
            let request = elicit("m", schema.clone()).unwrap();
            let params = request.request.params_value().unwrap().unwrap();
            assert_eq!(params["requestedSchema"], schema);
        }
    }
}
