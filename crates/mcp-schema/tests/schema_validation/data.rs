//! Values of the data types and params types.

use crate::common::fixtures::{Checks, Fx};
use mcp_schema::ProtocolVersion::{V2024_11_05, V2025_03_26, V2025_06_18, V2025_11_25};
use mcp_schema::*;

pub(crate) fn data(fx: &Fx, c: &mut Checks) {
    let v = fx.v;

    // ----- primitives -------------------------------------------------------------------------
    c.add("Cursor", &Cursor::from("page-2"));
    c.add("ProgressToken", &ProgressToken::from("progress-1"));
    c.add("ProgressToken", &ProgressToken::from(7));
    c.add("RequestId", &RequestId::from("req-1"));
    c.add("RequestId", &RequestId::from(1));
    c.add("Role", &Role::Assistant);
    for level in LoggingLevel::KNOWN {
        c.add("LoggingLevel", &LoggingLevel::from(*level));
    }

    // ----- common data types ------------------------------------------------------------------
    c.add("Implementation", &fx.implementation());
    c.add("ClientCapabilities", &fx.client_capabilities());
    c.add("ClientCapabilities", &ClientCapabilities::default());
    c.add("ServerCapabilities", &fx.server_capabilities());
    c.add("TextContent", &fx.text());
    c.add("ImageContent", &fx.image());
    c.add("EmbeddedResource", &fx.embedded(false));
    c.add("EmbeddedResource", &fx.embedded(true));
    c.add("TextResourceContents", &fx.text_contents());
    c.add("BlobResourceContents", &fx.blob_contents());
    c.add_base("ResourceContents", &fx.text_contents());
    c.add_base("ResourceContents", &fx.blob_contents());
    c.add("Resource", &fx.resource());
    c.add("ResourceTemplate", &fx.resource_template());
    c.add("Prompt", &fx.prompt());
    c.add("PromptArgument", &fx.prompt_argument());
    for message in fx.prompt_messages() {
        c.add("PromptMessage", &message);
    }
    c.add("PromptReference", &fx.prompt_reference());
    c.add("Tool", &fx.tool());
    c.add("Root", &fx.root());
    c.add("ModelHint", &ModelHint::new("claude"));
    c.add("ModelPreferences", &fx.model_preferences());
    for message in fx.sampling_messages() {
        c.add("SamplingMessage", &message);
    }
    if v == V2024_11_05 {
        c.add_base("Annotated", &fx.text());
    }
    if v <= V2025_03_26 {
        c.add("ResourceReference", &fx.resource_reference());
    }
    if v >= V2025_03_26 {
        c.add("Annotations", &fx.annotations());
        c.add("AudioContent", &fx.audio());
        c.add("ToolAnnotations", &fx.tool_annotations());
    }
    if v >= V2025_06_18 {
        c.add_base("BaseMetadata", &fx.prompt_argument());
        c.add("ResourceLink", &fx.resource_link());
        c.add("ResourceTemplateReference", &fx.resource_reference());
        for block in fx.content_blocks() {
            c.add("ContentBlock", &block);
        }
        c.add("StringSchema", &fx.string_schema());
        c.add("NumberSchema", &fx.number_schema());
        c.add("BooleanSchema", &fx.boolean_schema());
        for schema in fx.enum_schemas() {
            c.add("EnumSchema", &schema);
        }
        for schema in fx.primitive_schemas() {
            c.add("PrimitiveSchemaDefinition", &schema);
        }
    }
    if v >= V2025_11_25 {
        c.add("Icon", &fx.icon());
        c.add_base("Icons", &fx.prompt());
        c.add("ToolUseContent", &fx.tool_use());
        c.add("ToolResultContent", &fx.tool_result());
        for block in fx.sampling_blocks() {
            c.add("SamplingMessageContentBlock", &block);
        }
        c.add("ToolChoice", &ToolChoice::default());
        c.add("UntitledSingleSelectEnumSchema", &fx.untitled_single());
        c.add("TitledSingleSelectEnumSchema", &fx.titled_single());
        c.add("UntitledMultiSelectEnumSchema", &fx.untitled_multi());
        c.add("TitledMultiSelectEnumSchema", &fx.titled_multi());
        c.add("LegacyTitledEnumSchema", &fx.legacy_enum());
        for schema in fx.enum_schemas() {
            match &schema {
                EnumSchema::SingleSelect(s) => c.add("SingleSelectEnumSchema", s),
                EnumSchema::MultiSelect(m) => c.add("MultiSelectEnumSchema", m),
                EnumSchema::LegacyTitled(_) => {}
            }
        }
        c.add("ElicitRequestFormParams", &fx.elicit_form_params());
        c.add("ElicitRequestURLParams", &fx.elicit_url_params());
        c.add(
            "ElicitRequestParams",
            &ElicitRequestParams::from(fx.elicit_form_params()),
        );
        c.add(
            "ElicitRequestParams",
            &ElicitRequestParams::from(fx.elicit_url_params()),
        );
    }

    // ----- params types (named in the schema since 2025-11-25) --------------------------------
    if v >= V2025_11_25 {
        c.add("RequestParams", &fx.plain_request_params());
        c.add("NotificationParams", &fx.notification_params());
        c.add("PaginatedRequestParams", &fx.paginated_params());
        c.add("CallToolRequestParams", &fx.call_tool_params());
        c.add("ReadResourceRequestParams", &fx.read_resource_params());
        c.add("ResourceRequestParams", &fx.resource_params());
        c.add("GetPromptRequestParams", &fx.get_prompt_params());
        c.add("CompleteRequestParams", &fx.complete_params(false));
        c.add("CompleteRequestParams", &fx.complete_params(true));
        c.add("CreateMessageRequestParams", &fx.create_message_params());
        c.add("CancelledNotificationParams", &fx.cancelled_params());
        c.add("ProgressNotificationParams", &fx.progress_params());
        c.add("LoggingMessageNotificationParams", &fx.logging_params());
        c.add(
            "ResourceUpdatedNotificationParams",
            &fx.resource_updated_params(),
        );
    }
}
