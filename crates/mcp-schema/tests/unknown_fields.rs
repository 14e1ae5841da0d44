//! Members this crate does not model, `_meta` at every level, and values of unknown kinds all
//! survive parse → serialize unchanged (compared as JSON values), as a proxy requires.

use mcp_schema::*;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

fn round_trip<T: Serialize + DeserializeOwned>(value: Value) -> T {
    let parsed: T = serde_json::from_value(value.clone()).unwrap_or_else(|e| {
        panic!(
            "{} does not parse: {e}\n{value:#}",
            std::any::type_name::<T>()
        )
    });
    let back = serde_json::to_value(&parsed).expect("serializes");
    assert_eq!(back, value, "{} lost something", std::any::type_name::<T>());
    parsed
}

fn meta(tag: &str) -> Value {
    json!({
        "com.example/tag": tag,
        "progressToken": 5,
        "nested": {"deep": [1, 2.5, null, {"x": true}]},
        "traceparent": "00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01"
    })
}

#[test]
fn call_tool_result_keeps_everything() {
    let value = json!({
        "resultType": "complete",
        "content": [
            {"type": "text", "text": "hi", "_meta": meta("text"), "x-extra": 1,
             "annotations": {"audience": ["user"], "priority": 0.25, "x-note": "kept"}},
            {"type": "image", "data": "AAAA", "mimeType": "image/png", "_meta": meta("image")},
            {"type": "audio", "data": "AAAA", "mimeType": "audio/wav", "future": {"a": 1}},
            {"type": "resource_link", "uri": "file:///a", "name": "a", "_meta": meta("link"),
             "icons": [{"src": "https://example.com/i.png", "x-dpi": 2}], "x-link": [1]},
            {"type": "resource", "resource": {"uri": "file:///b", "text": "b", "_meta": meta("contents"), "x-c": 1},
             "_meta": meta("embedded")},
            {"type": "resource", "resource": {"uri": "file:///c", "blob": "AAAA", "x-b": null}},
            {"type": "resource", "resource": {"uri": "file:///d", "future": "shape"}},
            {"type": "hologram", "frames": 3, "_meta": meta("unknown")}
        ],
        "structuredContent": [1, "two", {"three": 3.0}],
        "isError": false,
        "_meta": meta("result"),
        "x-top": {"kept": true}
    });
    let result: CallToolResult = round_trip(value.clone());
    assert!(matches!(result.content[7], ContentBlock::Unknown(_)));
    assert!(matches!(
        &result.content[6],
        ContentBlock::Resource(EmbeddedResource {
            resource: ResourceContents::Unknown(_),
            ..
        })
    ));
    assert_eq!(result.extra["x-top"], json!({"kept": true}));
    let meta = result.meta.as_ref().expect("_meta");
    assert_eq!(meta.progress_token().unwrap(), Some(RequestId::Number(5)));
    assert_eq!(meta["com.example/tag"], "result");
    // Also as the tools/call outcome, and inside a response envelope.
    let outcome: Outcome<CallToolResult> = round_trip(value.clone());
    assert!(outcome.is_complete());
    let response: JsonRpcResultResponse<Outcome<CallToolResult>> =
        round_trip(json!({"jsonrpc": "2.0", "id": 9, "result": value, "x-envelope": 1}));
    assert_eq!(response.extra["x-envelope"], 1);
}

#[test]
fn tool_definitions_keep_everything() {
    let value = json!({
        "resultType": "complete",
        "tools": [{
            "name": "t",
            "inputSchema": {
                "type": "object",
                "$defs": {"p": {"type": "string"}},
                "properties": {"a": {"$ref": "#/$defs/p", "x-mcp-header": "X-A"}},
                "additionalProperties": false,
                "oneOf": [{"required": ["a"]}]
            },
            "outputSchema": {"type": "array", "items": {"type": "integer"}},
            "annotations": {"readOnlyHint": true, "x-hint": "kept"},
            "execution": {"taskSupport": "sometimes", "x-exec": 1},
            "_meta": meta("tool"),
            "x-tool": 2
        }],
        "nextCursor": "n",
        "ttlMs": 1000,
        "cacheScope": "shared-by-future-spec",
        "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "s", "version": "1", "x-i": 1}}
    });
    let result: ListToolsResult = round_trip(value);
    assert_eq!(
        result.cache_scope,
        Some(CacheScope::Other("shared-by-future-spec".into()))
    );
    let execution = result.tools[0].execution.as_ref().unwrap();
    assert_eq!(
        execution.task_support,
        Some(TaskSupport::Other("sometimes".into()))
    );
    let info = result
        .meta
        .as_ref()
        .unwrap()
        .server_info()
        .unwrap()
        .unwrap();
    assert_eq!(info.extra["x-i"], 1);
}

#[test]
fn requests_keep_everything() {
    let params = json!({
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "c", "version": "1", "x-c": 1},
            "io.modelcontextprotocol/clientCapabilities": {
                "roots": {"x-r": 1},
                "sampling": {"tools": {}},
                "elicitation": {"url": {}, "x-e": 2},
                "x-future-capability": {"on": true}
            },
            "io.modelcontextprotocol/logLevel": "trace",
            "com.example/tag": "request"
        },
        "name": "get_weather",
        "arguments": {"city": "Paris", "units": null},
        "inputResponses": {
            "a": {"action": "accept", "content": {"n": 1.5, "m": ["x"], "o": {"nested": 1}}, "x-a": 1},
            "b": {"roots": [{"uri": "file:///r", "x-root": 1}]},
            "c": {"role": "assistant", "content": [{"type": "text", "text": "t"}, {"type": "thought", "x": 1}], "model": "m"},
            "d": {"something": "else"}
        },
        "requestState": "opaque",
        "x-params": true
    });
    let message =
        json!({"jsonrpc": "2.0", "id": "r1", "method": "tools/call", "params": params, "x-msg": 1});
    let request: JsonRpcRequest<CallToolRequestParams> = round_trip(message);
    let p = request.params.as_ref().unwrap();
    let meta = p.meta.as_ref().unwrap();
    assert_eq!(meta.protocol_version(), Some("2026-07-28"));
    assert_eq!(
        meta.log_level().unwrap(),
        Some(LoggingLevel::Other("trace".into()))
    );
    let caps = meta.client_capabilities().unwrap().unwrap();
    assert!(caps.extra.contains_key("x-future-capability"));
    assert!(caps.elicitation.unwrap().supports_url());
    assert!(matches!(
        p.input_responses.as_ref().unwrap()["d"],
        InputResponse::Unknown(_)
    ));

    // Routed through the typed union, params come back unchanged.
    let routed = ClientRequest::from_parts("tools/call", Some(params.clone())).unwrap();
    assert_eq!(routed.params_value().unwrap(), Some(params.clone()));
    let raw = serde_json::value::to_raw_value(&params).unwrap();
    let routed_raw = ClientRequest::from_raw("tools/call", Some(&raw)).unwrap();
    assert_eq!(routed, routed_raw);

    // Unknown methods and absent optional params stay as they were.
    let unknown = ClientRequest::from_parts("vendor/frobnicate", Some(json!({"a": [1]}))).unwrap();
    assert!(!unknown.is_known());
    assert_eq!(
        serde_json::to_value(&unknown).unwrap(),
        json!({"method": "vendor/frobnicate", "params": {"a": [1]}})
    );
    let bare: ClientRequest = round_trip(json!({"method": "tools/list"}));
    assert_eq!(bare, ClientRequest::ListTools(None));
    let empty: ClientRequest = round_trip(json!({"method": "tools/list", "params": {}}));
    assert_eq!(
        empty,
        ClientRequest::ListTools(Some(PaginatedRequestParams::default()))
    );
    let initialized: ClientNotification =
        round_trip(json!({"method": "notifications/initialized"}));
    assert_eq!(initialized, ClientNotification::Initialized(None));
    // A known method with malformed params is an error (the server answers -32602).
    assert!(ClientRequest::from_parts("tools/call", Some(json!({"arguments": {}}))).is_err());
}

#[test]
fn initialize_keeps_everything() {
    let value = json!({
        "protocolVersion": "2025-06-18",
        "capabilities": {
            "experimental": {"x": {"y": 1}},
            "roots": {"listChanged": true},
            "tasks": {"requests": {"sampling": {"createMessage": {}, "x-s": 1}}, "x-t": 2}
        },
        "clientInfo": {"name": "c", "version": "1", "title": "C", "icons": [{"src": "data:image/png;base64,AA", "theme": "sepia"}]},
        "_meta": meta("init"),
        "x-init": 1
    });
    let params: InitializeRequestParams = round_trip(value);
    let icons = params.client_info.icons.unwrap();
    assert_eq!(icons[0].theme, Some(IconTheme::Other("sepia".into())));
    let result = json!({
        "protocolVersion": "2025-06-18",
        "capabilities": {"tools": {"listChanged": false, "x": 1}, "resources": {"subscribe": true}, "x-cap": {}},
        "serverInfo": {"name": "s", "version": "2"},
        "instructions": "be nice",
        "_meta": meta("init-result"),
        "x-result": [1]
    });
    round_trip::<InitializeResult>(result);
}

#[test]
fn input_required_results_keep_everything() {
    let value = json!({
        "resultType": "input_required",
        "inputRequests": {
            "form": {"method": "elicitation/create", "params": {
                "mode": "form", "message": "m",
                "requestedSchema": {"type": "object", "properties": {
                    "a": {"type": "string", "x-a": 1},
                    "b": {"type": "date", "x-b": 2},
                    "c": {"type": "array", "items": {"anyOf": [{"const": "x", "title": "X", "x-o": 1}]}},
                    "d": {"type": "string", "enum": ["p"], "enumNames": ["P"]}
                }, "required": ["a"], "x-schema": 1}
            }, "x-input": 1},
            "future-mode": {"method": "elicitation/create", "params": {"mode": "telepathy", "message": "m"}},
            "roots": {"id": "list-roots-example", "method": "roots/list"},
            "vendor": {"method": "vendor/ask", "params": {"q": 1}},
            "sample": {"method": "sampling/createMessage", "params": {
                "messages": [{"role": "user", "content": {"type": "text", "text": "q", "x-m": 1}, "x-msg": 1}],
                "maxTokens": 10, "temperature": 0.5, "includeContext": "everything"
            }}
        },
        "requestState": "s",
        "_meta": meta("mrtr"),
        "x-ir": 1
    });
    let result: InputRequiredResult = round_trip(value.clone());
    let requests = result.input_requests.as_ref().unwrap();
    assert!(matches!(
        requests["future-mode"].request,
        ServerRequest::Elicit(ElicitRequestParams::Unknown(_))
    ));
    assert_eq!(requests["roots"].extra["id"], "list-roots-example");
    assert!(!requests["vendor"].request.is_known());
    let ServerRequest::Elicit(ElicitRequestParams::Form(form)) = &requests["form"].request else {
        panic!("form")
    };
    assert!(matches!(
        form.requested_schema.properties["b"],
        PrimitiveSchemaDefinition::Unknown(_)
    ));
    assert!(matches!(
        form.requested_schema.properties["d"],
        PrimitiveSchemaDefinition::Enum(EnumSchema::LegacyTitled(_))
    ));
    let outcome: Outcome<GetPromptResult> = round_trip(value);
    assert!(outcome.input_required().is_some());

    // A retry echoes the state and carries the responses.
    let mut params = GetPromptRequestParams::new("p");
    params.prepare_retry(
        &result,
        InputResponses::from([(
            "form".to_owned(),
            ElicitResult::new(ElicitAction::Cancel).into(),
        )]),
    );
    assert_eq!(params.request_state.as_deref(), Some("s"));
    let mut no_state = result.clone();
    no_state.request_state = None;
    params.prepare_retry(&no_state, InputResponses::new());
    assert_eq!((params.request_state, params.input_responses), (None, None));
}

#[test]
fn notifications_and_tasks_keep_everything() {
    let value = json!({
        "method": "notifications/tasks/status",
        "params": {
            "taskId": "t", "status": "paused", "createdAt": "c", "lastUpdatedAt": "u", "ttl": null,
            "_meta": meta("status"), "x-task": 1
        }
    });
    let notification: ServerNotification = round_trip(value);
    let ServerNotification::TaskStatus(params) = notification else {
        panic!()
    };
    assert_eq!(params.task.status, TaskStatus::Other("paused".into()));
    assert_eq!(params.task.ttl, None);

    let progress = json!({"method": "notifications/progress", "params": {
        "progressToken": "p", "progress": 50, "total": 100.0, "_meta": {"io.modelcontextprotocol/subscriptionId": 3}}});
    let notification: ServerNotification = round_trip(progress);
    let ServerNotification::Progress(p) = notification else {
        panic!()
    };
    assert_eq!(
        p.meta.unwrap().subscription_id().unwrap(),
        Some(RequestId::Number(3))
    );

    let unknown: ServerNotification =
        round_trip(json!({"method": "notifications/vendor", "params": {"a": 1}}));
    assert!(!unknown.is_known());

    let task = json!({"task": {"taskId": "t", "status": "working", "createdAt": "c", "lastUpdatedAt": "u",
        "ttl": 1000, "pollInterval": 50, "x": 1}, "_meta": {"io.modelcontextprotocol/model-immediate-response": "wait"}});
    let outcome: Outcome<CallToolResult> = round_trip(task);
    let created = outcome.task().unwrap();
    assert_eq!(
        created.meta.as_ref().unwrap().model_immediate_response(),
        Some("wait")
    );
    let get: GetTaskResult = round_trip(
        json!({"taskId": "t", "status": "completed", "createdAt": "c",
        "lastUpdatedAt": "u", "ttl": 5, "_meta": meta("get"), "x-get": 1}),
    );
    assert!(get.task.status.is_terminal());
    let payload: GetTaskPayloadResult =
        round_trip(json!({"content": [{"type": "text", "text": "done"}],
        "_meta": {"io.modelcontextprotocol/related-task": {"taskId": "t"}}}));
    let call: CallToolResult = payload.parse().unwrap();
    assert_eq!(call.text_content(), "done");
    assert_eq!(
        payload
            .meta
            .unwrap()
            .related_task()
            .unwrap()
            .unwrap()
            .task_id,
        "t"
    );
}

#[test]
fn error_responses_keep_their_id_form() {
    let null_id: JsonRpcErrorResponse = round_trip(
        json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": "Parse error"}}),
    );
    assert_eq!(null_id.id, Some(None));
    let no_id: JsonRpcErrorResponse =
        round_trip(json!({"jsonrpc": "2.0", "error": {"code": -32600, "message": "x"}, "x-e": 1}));
    assert_eq!(no_id.id, None);
    let any: JsonRpcResponse<Value> = round_trip(
        json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32022, "message": "m",
            "data": {"supported": ["2026-07-28"], "requested": "2099-01-01", "x-d": 1}}}),
    );
    let JsonRpcResponse::Error(e) = any else {
        panic!()
    };
    let data = UnsupportedProtocolVersionData::from_error(&e.error)
        .unwrap()
        .unwrap();
    assert_eq!(data.extra["x-d"], 1);
    // Members of the error object itself, and an explicit null `data`, survive too.
    let odd: JsonRpcErrorResponse = round_trip(json!({"jsonrpc": "2.0", "id": 2,
        "error": {"code": -32002, "message": "gone", "data": null, "x-vendor": {"retry": false}}}));
    assert_eq!(odd.error.data, Some(Value::Null));
    assert_eq!(odd.error.extra["x-vendor"]["retry"], false);
}

#[test]
fn has_meta_reaches_any_params_type() {
    fn stamp<P: HasMeta>(params: &mut P) {
        params.meta_or_default().set_protocol_version(V2026_07_28);
    }
    let mut call = CallToolRequestParams::new("t");
    stamp(&mut call);
    let mut list = PaginatedRequestParams::default();
    stamp(&mut list);
    let mut link = ResourceLink::new(Resource::new("file:///a", "a"));
    stamp(&mut link);
    assert_eq!(call.meta.unwrap().protocol_version(), Some(V2026_07_28));
    assert_eq!(list.meta.unwrap().protocol_version(), Some(V2026_07_28));
    assert_eq!(
        link.resource.meta.unwrap().protocol_version(),
        Some(V2026_07_28)
    );
}

#[test]
fn result_traits_stamp_any_result() {
    fn stamp_2026<R: ResultFields + CacheHints>(result: &mut R) {
        result.mark_complete();
        result.set_cache_hints(30_000, CacheScope::Private);
    }
    let mut tools = ListToolsResult::default();
    assert!(tools.is_complete()); // absent means complete
    stamp_2026(&mut tools);
    let value = serde_json::to_value(&tools).unwrap();
    assert_eq!(
        value,
        json!({"tools": [], "resultType": "complete", "ttlMs": 30000, "cacheScope": "private"})
    );
    let mut input = InputRequiredResult::new(InputRequests::new(), Some("s".into()));
    assert!(!input.is_complete());
    *input.result_type_mut() = None;
    assert!(input.is_complete());
}
