//! The fixture resources, resource templates and prompts.

use super::*;

pub(super) fn resources(b: mcp_server::ServerBuilder) -> mcp_server::ServerBuilder {
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

pub(super) fn prompts(b: mcp_server::ServerBuilder) -> mcp_server::ServerBuilder {
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
