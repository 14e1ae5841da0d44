//! The 2026-07-28 fixtures: diagnostics and the multi round-trip (MRTR) tools.

use super::*;

/// The 2026-07-28 diagnostics and multi round-trip tools.
pub(super) fn stateless_tools(b: mcp_server::ServerBuilder) -> mcp_server::ServerBuilder {
    b.tool(
        "test_missing_capability",
        "Needs the client's sampling capability",
        |_: NoArguments, cx: RequestContext| async move {
            cx.create_message(CreateMessageRequestParams::new(
                vec![SamplingMessage::text(Role::User, "Say hello")],
                10,
            ))
            .await?;
            Ok("sampled")
        },
    )
    .tool(
        "test_streaming_elicitation",
        "Asks for input without sending requests on the response stream",
        |_: NoArguments, cx: RequestContext| async move {
            let answer = cx
                .elicit_form("What is your name?", json!({
                    "type": "object", "properties": { "name": { "type": "string" } }, "required": ["name"]
                }))
                .await?;
            Ok(format!("{:?}", answer.action))
        },
    )
    .tool(
        "test_logging_tool",
        "Logs only when the request carries a logLevel",
        |_: NoArguments, cx: RequestContext| async move {
            cx.log(LoggingLevel::Info, Some("conformance"), "logging tool ran").await;
            Ok("logged")
        },
    )
    .tool(
        "test_trigger_tool_change",
        "Announces a tools/list change",
        |_: NoArguments, cx: RequestContext| async move {
            let server = cx.server();
            server.add_tool(ToolDef::new(
                "test_dynamic_tool",
                "Registered at run time by test_trigger_tool_change",
                |_: NoArguments, _| async { Ok("dynamic") },
            ));
            Ok("tools changed")
        },
    )
    .tool(
        "test_trigger_prompt_change",
        "Announces a prompts/list change",
        |_: NoArguments, cx: RequestContext| async move {
            cx.server().add_prompt(
                PromptDef::new("test_dynamic_prompt", |_, _| async { Ok("A prompt registered at run time.".to_owned()) })
                    .description("Registered at run time by test_trigger_prompt_change"),
            );
            Ok("prompts changed")
        },
    )
    .tool(
        "test_input_required_result_elicitation",
        "Asks the user's name (key user_name)",
        |_: NoArguments, cx: RequestContext| async move {
            let answer = cx
                .request_input(
                    "user_name",
                    elicit("What is your name?", json!({
                        "type": "object", "properties": { "name": { "type": "string" } }, "required": ["name"]
                    }))?,
                )
                .await?;
            let (_, content) = elicited(&answer)?;
            let name = content.get("name").and_then(Value::as_str).ok_or_else(|| {
                Error::invalid_params("inputResponses.user_name.content.name must be a string")
            })?;
            Ok(format!("Hello, {name}!"))
        },
    )
    .tool(
        "test_input_required_result_sampling",
        "Asks the client's model a question",
        |_: NoArguments, cx: RequestContext| async move {
            let answer = cx
                .request_input("sample_request", sample("What is the capital of France?", 100))
                .await?;
            Ok(format!("Model said: {}", serde_json::to_string(&answer).unwrap_or_default()))
        },
    )
    .tool(
        "test_input_required_result_list_roots",
        "Asks the client for its roots",
        |_: NoArguments, cx: RequestContext| async move {
            let answer = cx.request_input("roots_request", InputRequest::list_roots()).await?;
            match answer {
                InputResponse::ListRoots(r) => Ok(format!("Found {} root(s)", r.roots.len())),
                _ => Err(Error::invalid_params("expected a roots/list result")),
            }
        },
    )
    .tool(
        "test_input_required_result_request_state",
        "Asks for a confirmation, carrying request state",
        |_: NoArguments, cx: RequestContext| async move {
            let answer = cx
                .request_input(
                    "confirm",
                    elicit("Please confirm", json!({
                        "type": "object", "properties": { "ok": { "type": "boolean" } }, "required": ["ok"]
                    }))?,
                )
                .await?;
            elicited(&answer)?;
            Ok("state-ok: confirmed")
        },
    )
    .tool(
        "test_input_required_result_multiple_inputs",
        "Asks for three inputs at once",
        |_: NoArguments, cx: RequestContext| async move {
            let answers = cx
                .request_inputs(vec![
                    (
                        "user_name".to_owned(),
                        elicit("What is your name?", json!({
                            "type": "object", "properties": { "name": { "type": "string" } }, "required": ["name"]
                        }))?,
                    ),
                    ("greeting".to_owned(), sample("Generate a greeting", 50)),
                    ("client_roots".to_owned(), InputRequest::list_roots()),
                ])
                .await?;
            Ok(format!("Received {} answers", answers.len()))
        },
    )
    .tool(
        "test_input_required_result_multi_round",
        "Asks two questions, one per round",
        |_: NoArguments, cx: RequestContext| async move {
            let name = cx
                .request_input(
                    "step1",
                    elicit("Step 1: What is your name?", json!({
                        "type": "object", "properties": { "name": { "type": "string" } }, "required": ["name"]
                    }))?,
                )
                .await?;
            let color = cx
                .request_input(
                    "step2",
                    elicit("Step 2: What is your favorite color?", json!({
                        "type": "object", "properties": { "color": { "type": "string" } }, "required": ["color"]
                    }))?,
                )
                .await?;
            let (_, name) = elicited(&name)?;
            let (_, color) = elicited(&color)?;
            Ok(format!("{} likes {}", name["name"], color["color"]))
        },
    )
    .tool(
        "test_input_required_result_tampered_state",
        "Asks for a confirmation; its request state is signed",
        |_: NoArguments, cx: RequestContext| async move {
            let answer = cx
                .request_input(
                    "confirm",
                    elicit("Please confirm", json!({
                        "type": "object", "properties": { "ok": { "type": "boolean" } }, "required": ["ok"]
                    }))?,
                )
                .await?;
            elicited(&answer)?;
            Ok("confirmed")
        },
    )
    .tool(
        "test_input_required_result_capabilities",
        "Asks only for what the client can provide",
        |_: NoArguments, cx: RequestContext| async move {
            let caps = cx.client_capabilities();
            let request = if caps.elicitation.is_some() {
                elicit("What is your name?", json!({
                    "type": "object", "properties": { "name": { "type": "string" } }, "required": ["name"]
                }))?
            } else if caps.sampling.is_some() {
                sample("Say hello", 20)
            } else {
                InputRequest::list_roots()
            };
            cx.request_input("input", request).await?;
            Ok("done")
        },
    )
}
