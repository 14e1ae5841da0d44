//! Results, notifications, JSON-RPC envelopes and errors.

use mcp_schema::ProtocolVersion::{V2025_03_26, V2025_06_18, V2025_11_25, V2026_07_28};
use mcp_schema::*;
use serde_json::json;

use super::{notification, response};
use crate::common::fixtures::{Checks, Fx, to_value};

pub(crate) fn results(fx: &Fx, c: &mut Checks) {
    let v = fx.v;
    let stateful = v.is_stateful();
    let modern = v == V2026_07_28;

    // ----- results ----------------------------------------------------------------------------
    let empty = EmptyResult {
        result_type: fx.result_type(),
        meta: fx.result_meta(),
        ..EmptyResult::default()
    };
    c.add("EmptyResult", &empty);
    c.add("Result", &empty);
    c.add("ServerResult", &ServerResult::Empty(empty.clone()));
    c.add("ClientResult", &ClientResult::Empty(empty.clone()));
    c.add_base("PaginatedResult", &fx.list_tools_result());
    let results: Vec<(&str, ServerResult)> = vec![
        (
            "ListToolsResult",
            ServerResult::ListTools(fx.list_tools_result()),
        ),
        (
            "CallToolResult",
            ServerResult::CallTool(fx.call_tool_result().into()),
        ),
        (
            "ListResourcesResult",
            ServerResult::ListResources(fx.list_resources_result()),
        ),
        (
            "ListResourceTemplatesResult",
            ServerResult::ListResourceTemplates(fx.list_resource_templates_result()),
        ),
        (
            "ReadResourceResult",
            ServerResult::ReadResource(fx.read_resource_result().into()),
        ),
        (
            "ListPromptsResult",
            ServerResult::ListPrompts(fx.list_prompts_result()),
        ),
        (
            "GetPromptResult",
            ServerResult::GetPrompt(fx.get_prompt_result().into()),
        ),
        (
            "CompleteResult",
            ServerResult::Complete(fx.complete_result()),
        ),
    ];
    for (def, result) in results {
        c.add(def, &result);
        c.add("ServerResult", &result);
    }
    if modern {
        c.add_base("CacheableResult", &fx.list_tools_result());
        c.add("ResultType", &ResultType::InputRequired);
        c.add("DiscoverResult", &fx.discover_result());
        c.add(
            "ServerResult",
            &ServerResult::Discover(fx.discover_result()),
        );
        c.add(
            "ServerResult",
            &ServerResult::CallTool(Outcome::InputRequired(fx.input_required_result())),
        );
        let closing = SubscriptionsListenResult::closing(&RequestId::from("listen-1"));
        c.add("SubscriptionsListenResult", &closing);
        c.add(
            "ServerResult",
            &ServerResult::SubscriptionsListen(closing.clone()),
        );
        c.add("SubscriptionsListenResultResponse", &response(&closing));
        c.add("DiscoverResultResponse", &response(fx.discover_result()));
        c.add("ListToolsResultResponse", &response(fx.list_tools_result()));
        c.add(
            "ListPromptsResultResponse",
            &response(fx.list_prompts_result()),
        );
        c.add(
            "ListResourcesResultResponse",
            &response(fx.list_resources_result()),
        );
        c.add(
            "ListResourceTemplatesResultResponse",
            &response(fx.list_resource_templates_result()),
        );
        c.add("CompleteResultResponse", &response(fx.complete_result()));
        let input = fx.input_required_result();
        c.add(
            "CallToolResultResponse",
            &response(Outcome::from(fx.call_tool_result())),
        );
        c.add(
            "CallToolResultResponse",
            &response(Outcome::<CallToolResult>::InputRequired(input.clone())),
        );
        c.add(
            "GetPromptResultResponse",
            &response(Outcome::from(fx.get_prompt_result())),
        );
        c.add(
            "GetPromptResultResponse",
            &response(Outcome::<GetPromptResult>::InputRequired(input.clone())),
        );
        c.add(
            "ReadResourceResultResponse",
            &response(Outcome::from(fx.read_resource_result())),
        );
        c.add(
            "ReadResourceResultResponse",
            &response(Outcome::<ReadResourceResult>::InputRequired(input)),
        );
    }
    c.add("ListRootsResult", &fx.list_roots_result());
    c.add("CreateMessageResult", &fx.create_message_result());
    c.add(
        "CreateMessageResult",
        &CreateMessageResult::text("claude", "Paris"),
    );
    if v >= V2025_06_18 {
        c.add("ElicitResult", &fx.elicit_result());
        c.add("ElicitResult", &ElicitResult::new(ElicitAction::Decline));
    }
    if stateful {
        c.add("InitializeResult", &fx.initialize_result());
        c.add(
            "ServerResult",
            &ServerResult::Initialize(fx.initialize_result()),
        );
        c.add(
            "ClientResult",
            &ClientResult::ListRoots(fx.list_roots_result()),
        );
        c.add(
            "ClientResult",
            &ClientResult::CreateMessage(fx.create_message_result().into()),
        );
        if v >= V2025_06_18 {
            c.add(
                "ClientResult",
                &ClientResult::Elicit(fx.elicit_result().into()),
            );
        }
    }
}

pub(crate) fn notifications(fx: &Fx, c: &mut Checks) {
    let v = fx.v;
    let stateful = v.is_stateful();
    let modern = v == V2026_07_28;

    // ----- notifications ----------------------------------------------------------------------
    let cancelled = {
        let mut p = fx.cancelled_params();
        if v < V2025_11_25 {
            p.meta = None;
        }
        notification::<CancelledNotification>(fx, Some(p))
    };
    c.add("CancelledNotification", &cancelled);
    c.add("ClientNotification", &cancelled);
    c.add("ServerNotification", &cancelled);
    let progress = notification::<ProgressNotification>(fx, Some(fx.progress_params()));
    c.add("ProgressNotification", &progress);
    c.add("ServerNotification", &progress);
    if stateful {
        c.add("ClientNotification", &progress);
    }
    let logging = notification::<LoggingMessageNotification>(fx, Some(fx.logging_params()));
    c.add("LoggingMessageNotification", &logging);
    c.add("ServerNotification", &logging);
    let updated =
        notification::<ResourceUpdatedNotification>(fx, Some(fx.resource_updated_params()));
    c.add("ResourceUpdatedNotification", &updated);
    c.add("ServerNotification", &updated);
    for (def, message) in [
        (
            "ResourceListChangedNotification",
            notification::<ResourceListChangedNotification>(fx, Some(fx.notification_params())),
        ),
        (
            "ToolListChangedNotification",
            notification::<ToolListChangedNotification>(fx, Some(fx.notification_params())),
        ),
        (
            "PromptListChangedNotification",
            notification::<PromptListChangedNotification>(fx, None),
        ),
    ] {
        c.add(def, &message);
        c.add("ServerNotification", &message);
        c.add_base("Notification", &message);
    }
    if stateful {
        for (def, message) in [
            (
                "InitializedNotification",
                notification::<InitializedNotification>(fx, Some(fx.notification_params())),
            ),
            (
                "RootsListChangedNotification",
                notification::<RootsListChangedNotification>(fx, None),
            ),
        ] {
            c.add(def, &message);
            c.add("ClientNotification", &message);
        }
    }
    if modern {
        let ack = SubscriptionsAcknowledgedNotificationParams::new(
            &RequestId::from("listen-1"),
            fx.subscription_filter(),
        );
        c.add("SubscriptionsAcknowledgedNotificationParams", &ack);
        let ack = notification::<SubscriptionsAcknowledgedNotification>(fx, Some(ack));
        c.add("SubscriptionsAcknowledgedNotification", &ack);
        c.add("ServerNotification", &ack);
    }
}

pub(crate) fn envelopes(fx: &Fx, c: &mut Checks) {
    let v = fx.v;
    let stateful = v.is_stateful();
    let modern = v == V2026_07_28;
    let empty = EmptyResult {
        result_type: fx.result_type(),
        meta: fx.result_meta(),
        ..EmptyResult::default()
    };

    // ----- JSON-RPC envelopes and errors ------------------------------------------------------
    let ping_or_list = if stateful {
        to_value(&JsonRpcRequest::of::<PingRequest>(
            1,
            fx.plain_request_params(),
        ))
    } else {
        to_value(&JsonRpcRequest::of::<ListToolsRequest>(
            1,
            fx.paginated_params(),
        ))
    };
    c.add("JSONRPCRequest", &ping_or_list);
    c.add("JSONRPCMessage", &ping_or_list);
    let list_changed =
        JsonRpcNotification::of::<ToolListChangedNotification>(Some(fx.notification_params()));
    c.add("JSONRPCNotification", &list_changed);
    c.add("JSONRPCMessage", &list_changed);
    let ok = JsonRpcResultResponse::new(1, empty.clone());
    let error = JsonRpcErrorResponse::new(
        Some(RequestId::from(1)),
        ErrorObject::invalid_params("bad cursor").with_data(json!({"cursor": "x"})),
    );
    c.add("JSONRPCResponse", &ok);
    c.add("JSONRPCMessage", &ok);
    c.add("JSONRPCMessage", &error);
    if v < V2025_11_25 {
        c.add("JSONRPCError", &error);
    } else {
        c.add(
            "JSONRPCResponse",
            &JsonRpcResponse::<EmptyResult>::Error(error.clone()),
        );
        c.add("JSONRPCResultResponse", &ok);
        c.add("JSONRPCErrorResponse", &error);
        c.add(
            "JSONRPCErrorResponse",
            &JsonRpcErrorResponse {
                id: None,
                ..error.clone()
            },
        );
        c.add("Error", &error.error);
    }
    if v == V2025_03_26 {
        let notification = to_value(&list_changed);
        c.add("JSONRPCBatchRequest", &json!([ping_or_list, notification]));
        c.add(
            "JSONRPCBatchResponse",
            &json!([to_value(&ok), to_value(&error)]),
        );
    }
    if modern {
        c.add(
            "ParseError",
            &ErrorObject::parse_error("unexpected end of input"),
        );
        c.add(
            "InvalidRequestError",
            &ErrorObject::invalid_request("missing method"),
        );
        c.add(
            "MethodNotFoundError",
            &ErrorObject::method_not_found("prompts/list"),
        );
        c.add(
            "InvalidParamsError",
            &ErrorObject::invalid_params("unknown tool"),
        );
        c.add("InternalError", &ErrorObject::internal_error("boom"));
        let mismatch = ErrorObject::new(error_codes::HEADER_MISMATCH, "Mcp-Method does not match");
        c.add(
            "HeaderMismatchError",
            &JsonRpcErrorResponse::new(Some(RequestId::from(1)), mismatch),
        );
        let unsupported = UnsupportedProtocolVersionData::new("1900-01-01", SUPPORTED)
            .to_error("Unsupported protocol version");
        c.add(
            "UnsupportedProtocolVersionError",
            &JsonRpcErrorResponse::new(Some(RequestId::from(1)), unsupported),
        );
        let missing = MissingRequiredClientCapabilityData {
            required_capabilities: ClientCapabilities {
                elicitation: Some(ElicitationCapability::default()),
                ..ClientCapabilities::default()
            },
            ..Default::default()
        }
        .to_error("Elicitation is required");
        c.add(
            "MissingRequiredClientCapabilityError",
            &JsonRpcErrorResponse::new(Some(RequestId::from(1)), missing),
        );

        // JSON and `_meta` building blocks.
        c.add("JSONValue", &fx.client_capabilities());
        c.add("JSONValue", &vec!["a", "b"]);
        c.add("JSONObject", &fx.client_capabilities());
        c.add("JSONArray", &fx.tool().input_schema.required);
        c.add("MetaObject", &fx.data_meta());
        c.add("RequestMetaObject", &fx.request_meta());
        c.add("NotificationMetaObject", &fx.notification_meta());
        c.add("ResultMetaObject", &fx.result_meta());
        c.add(
            "SubscriptionsListenResultMetaObject",
            &Meta::new()
                .with_subscription_id(&RequestId::from(3))
                .with_server_info(&fx.implementation()),
        );
    }
}
