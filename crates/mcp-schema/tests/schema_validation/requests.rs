//! Request messages (client and server) and the 2025-11-25 task messages.

use mcp_schema::ProtocolVersion::{V2025_06_18, V2025_11_25, V2026_07_28};
use mcp_schema::*;
use serde_json::json;

use super::{add_request, notification, request};
use crate::common::fixtures::{Checks, Fx};

pub(crate) fn requests(fx: &Fx, c: &mut Checks) {
    let v = fx.v;
    let stateful = v.is_stateful();
    let modern = v == V2026_07_28;

    // ----- client requests --------------------------------------------------------------------
    let list_params = || (v >= V2025_11_25).then(|| fx.paginated_params());
    let bare_list = PaginatedRequestParams::with_cursor("page-2");
    let list_params = || list_params().unwrap_or_else(|| bare_list.clone());
    add_request(
        c,
        "ListToolsRequest",
        "ClientRequest",
        request::<ListToolsRequest>(fx, Some(list_params())),
    );
    add_request(
        c,
        "ListPromptsRequest",
        "ClientRequest",
        request::<ListPromptsRequest>(fx, Some(list_params())),
    );
    add_request(
        c,
        "ListResourcesRequest",
        "ClientRequest",
        request::<ListResourcesRequest>(fx, Some(list_params())),
    );
    add_request(
        c,
        "ListResourceTemplatesRequest",
        "ClientRequest",
        request::<ListResourceTemplatesRequest>(fx, Some(list_params())),
    );
    c.add_base(
        "PaginatedRequest",
        &request::<ListToolsRequest>(fx, Some(list_params())),
    );
    c.add_base(
        "Request",
        &request::<ListToolsRequest>(fx, Some(list_params())),
    );
    if !modern {
        // Params are optional before 2026-07-28.
        add_request(
            c,
            "ListToolsRequest",
            "ClientRequest",
            request::<ListToolsRequest>(fx, None),
        );
    }
    let call = fx.call_tool_params();
    add_request(
        c,
        "CallToolRequest",
        "ClientRequest",
        request::<CallToolRequest>(fx, Some(call)),
    );
    add_request(
        c,
        "ReadResourceRequest",
        "ClientRequest",
        request::<ReadResourceRequest>(fx, Some(fx.read_resource_params())),
    );
    add_request(
        c,
        "GetPromptRequest",
        "ClientRequest",
        request::<GetPromptRequest>(fx, Some(fx.get_prompt_params())),
    );
    for resource in [false, true] {
        let message = request::<CompleteRequest>(fx, Some(fx.complete_params(resource)));
        add_request(c, "CompleteRequest", "ClientRequest", message);
    }
    if stateful {
        add_request(
            c,
            "InitializeRequest",
            "ClientRequest",
            request::<InitializeRequest>(fx, Some(fx.initialize_params())),
        );
        add_request(
            c,
            "PingRequest",
            "ClientRequest",
            request::<PingRequest>(fx, Some(fx.plain_request_params())),
        );
        add_request(
            c,
            "PingRequest",
            "ServerRequest",
            request::<PingRequest>(fx, None),
        );
        add_request(
            c,
            "SubscribeRequest",
            "ClientRequest",
            request::<SubscribeRequest>(fx, Some(fx.resource_params())),
        );
        add_request(
            c,
            "UnsubscribeRequest",
            "ClientRequest",
            request::<UnsubscribeRequest>(fx, Some(fx.resource_params())),
        );
        add_request(
            c,
            "SetLevelRequest",
            "ClientRequest",
            request::<SetLevelRequest>(fx, Some(fx.set_level_params())),
        );
    }
    if v == V2025_11_25 {
        c.add("InitializeRequestParams", &fx.initialize_params());
        c.add("SetLevelRequestParams", &fx.set_level_params());
        c.add("SubscribeRequestParams", &fx.resource_params());
        c.add("UnsubscribeRequestParams", &fx.resource_params());
        c.add_base("TaskAugmentedRequestParams", &fx.call_tool_params());
    }
    if modern {
        let discover = request::<DiscoverRequest>(fx, Some(fx.plain_request_params()));
        add_request(c, "DiscoverRequest", "ClientRequest", discover);
        let listen = SubscriptionsListenRequestParams {
            meta: fx.request_meta(),
            ..SubscriptionsListenRequestParams::new(fx.subscription_filter())
        };
        c.add("SubscriptionsListenRequestParams", &listen);
        c.add("SubscriptionFilter", &fx.subscription_filter());
        add_request(
            c,
            "SubscriptionsListenRequest",
            "ClientRequest",
            request::<SubscriptionsListenRequest>(fx, Some(listen)),
        );
    }

    // ----- server requests --------------------------------------------------------------------
    if stateful {
        let sampling = request::<CreateMessageRequest>(fx, Some(fx.create_message_params()));
        add_request(c, "CreateMessageRequest", "ServerRequest", sampling);
        let roots = request::<ListRootsRequest>(fx, Some(fx.plain_request_params()));
        add_request(c, "ListRootsRequest", "ServerRequest", roots);
        add_request(
            c,
            "ListRootsRequest",
            "ServerRequest",
            request::<ListRootsRequest>(fx, None),
        );
        if v >= V2025_06_18 {
            let form = request::<ElicitRequest>(fx, Some(fx.elicit_form_params().into()));
            add_request(c, "ElicitRequest", "ServerRequest", form);
        }
        if v >= V2025_11_25 {
            let url = request::<ElicitRequest>(fx, Some(fx.elicit_url_params().into()));
            add_request(c, "ElicitRequest", "ServerRequest", url);
        }
    } else {
        // 2026-07-28: these requests exist only inside an InputRequiredResult.
        for (_, input) in fx.input_requests() {
            let def = match input.request {
                ServerRequest::CreateMessage(_) => "CreateMessageRequest",
                ServerRequest::Elicit(_) => "ElicitRequest",
                ServerRequest::ListRoots(_) => "ListRootsRequest",
                _ => unreachable!(),
            };
            c.add(def, &input);
            c.add("InputRequest", &input);
        }
        c.add("InputRequests", &fx.input_requests());
        for (_, response) in fx.input_responses() {
            c.add("InputResponse", &response);
        }
        c.add("InputResponses", &fx.input_responses());
        c.add("InputRequiredResult", &fx.input_required_result());
        c.add(
            "InputRequiredResult",
            &InputRequiredResult::new(Default::default(), Some("state-only".to_owned())),
        );
        let mut retry = InputResponseRequestParams {
            meta: fx.request_meta(),
            ..InputResponseRequestParams::default()
        };
        retry.prepare_retry(&fx.input_required_result(), fx.input_responses());
        c.add("InputResponseRequestParams", &retry);
    }
}

pub(crate) fn tasks(fx: &Fx, c: &mut Checks) {
    let v = fx.v;

    // ----- tasks (2025-11-25) -----------------------------------------------------------------
    if v == V2025_11_25 {
        let task = fx.task();
        c.add("Task", &task);
        c.add("TaskStatus", &TaskStatus::InputRequired);
        c.add(
            "TaskMetadata",
            &TaskMetadata {
                ttl: Some(1000),
                ..TaskMetadata::default()
            },
        );
        c.add("RelatedTaskMetadata", &RelatedTaskMetadata::new("task-1"));
        c.add(
            "ToolExecution",
            fx.tool().execution.as_ref().expect("execution"),
        );
        let mut created = CreateTaskResult::new(task.clone());
        created.meta = Some(Meta::new());
        created.meta.as_mut().expect("meta").insert(
            meta::keys::MODEL_IMMEDIATE_RESPONSE.to_owned(),
            json!("started"),
        );
        c.add("CreateTaskResult", &created);
        let outcome: Outcome<CallToolResult> = Outcome::Task(created);
        c.add("ServerResult", &ServerResult::CallTool(outcome));
        let get = GetTaskResult {
            meta: fx.result_meta(),
            ..GetTaskResult::new(task.clone())
        };
        c.add("GetTaskResult", &get);
        c.add("CancelTaskResult", &get);
        let legacy = mcp_schema::ext::tasks::TaskGetResult::Legacy;
        c.add("ServerResult", &ServerResult::TaskGet(legacy(get.clone())));
        c.add("ClientResult", &ClientResult::TaskGet(legacy(get)));
        let mut payload =
            GetTaskPayloadResult::from_result(&fx.call_tool_result()).expect("payload");
        payload
            .meta
            .get_or_insert_with(Meta::new)
            .set_related_task(&RelatedTaskMetadata::new("task-1"));
        c.add("GetTaskPayloadResult", &payload);
        let list = ListTasksResult {
            tasks: vec![task.clone()],
            next_cursor: Some("page-2".to_owned()),
            meta: fx.result_meta(),
            ..ListTasksResult::default()
        };
        c.add("ListTasksResult", &list);
        c.add("ClientResult", &ClientResult::ListTasks(list));
        let status = TaskStatusNotificationParams {
            meta: fx.notification_meta(),
            ..TaskStatusNotificationParams::new(task)
        };
        c.add("TaskStatusNotificationParams", &status);
        let status = notification::<TaskStatusNotification>(fx, Some(status));
        c.add("TaskStatusNotification", &status);
        c.add("ClientNotification", &status);
        c.add("ServerNotification", &status);
        for (def, message) in [
            (
                "GetTaskRequest",
                request::<GetTaskRequest>(fx, Some(GetTaskRequestParams::new("task-1"))),
            ),
            (
                "GetTaskPayloadRequest",
                request::<GetTaskPayloadRequest>(fx, Some(GetTaskRequestParams::new("task-1"))),
            ),
            (
                "CancelTaskRequest",
                request::<CancelTaskRequest>(fx, Some(GetTaskRequestParams::new("task-1"))),
            ),
            (
                "ListTasksRequest",
                request::<ListTasksRequest>(fx, Some(fx.paginated_params())),
            ),
        ] {
            add_request(c, def, "ClientRequest", message.clone());
            add_request(c, def, "ServerRequest", message);
        }
        let complete = notification::<ElicitationCompleteNotification>(
            fx,
            Some(ElicitationCompleteNotificationParams {
                elicitation_id: "elicit-1".to_owned(),
                ..Default::default()
            }),
        );
        c.add("ElicitationCompleteNotification", &complete);
        c.add("ServerNotification", &complete);
        let error = UrlElicitationRequiredData {
            elicitations: vec![fx.elicit_url_params()],
            ..Default::default()
        }
        .to_error("This request requires more information.");
        c.add(
            "URLElicitationRequiredError",
            &JsonRpcErrorResponse::new(Some(RequestId::from(2)), error),
        );
    }
}
