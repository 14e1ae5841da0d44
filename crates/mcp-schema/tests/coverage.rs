//! Every definition of every version's schema.json has a Rust type, and the method markers
//! agree with the schemas (names, methods, params types, and which versions have them).

mod common;

use std::any::type_name;
use std::collections::{BTreeMap, BTreeSet};

use common::Schema;
use mcp_schema::envelope::*;
use mcp_schema::methods::{Direction, METHODS, MethodKind, method_info};
use mcp_schema::*;
use serde_json::Value;

/// Schema definition name → the Rust type that models it.
fn coverage() -> BTreeMap<&'static str, &'static str> {
    macro_rules! table {
        ($($name:literal => $ty:ty,)+) => {
            BTreeMap::from([$(($name, type_name::<$ty>())),+])
        };
    }
    table! {
        // JSON-RPC and base shapes.
        "JSONRPCMessage" => mcp_jsonrpc::Message,
        "JSONRPCBatchRequest" => Vec<JsonRpcRequest>,
        "JSONRPCBatchResponse" => Vec<JsonRpcResponse>,
        "JSONRPCRequest" => JsonRpcRequest,
        "JSONRPCNotification" => JsonRpcNotification,
        "JSONRPCResponse" => JsonRpcResponse,
        "JSONRPCResultResponse" => JsonRpcResultResponse,
        "JSONRPCError" => JsonRpcErrorResponse,
        "JSONRPCErrorResponse" => JsonRpcErrorResponse,
        "Request" => JsonRpcRequest,
        "Notification" => JsonRpcNotification,
        "Result" => GenericResult,
        "EmptyResult" => EmptyResult,
        "Error" => ErrorObject,
        "RequestId" => RequestId,
        "ProgressToken" => ProgressToken,
        "Cursor" => Cursor,
        "JSONValue" => Value,
        "JSONObject" => JsonObject,
        "JSONArray" => Vec<Value>,
        "MetaObject" => Meta,
        "RequestMetaObject" => Meta,
        "NotificationMetaObject" => Meta,
        "ResultMetaObject" => Meta,
        "SubscriptionsListenResultMetaObject" => Meta,
        "RequestParams" => RequestParams,
        "NotificationParams" => NotificationParams,
        "PaginatedRequest" => JsonRpcRequest<PaginatedRequestParams>,
        "PaginatedRequestParams" => PaginatedRequestParams,
        // Base interfaces whose members every extending type declares itself.
        "PaginatedResult" => ListToolsResult,
        "CacheableResult" => ListToolsResult,
        "BaseMetadata" => PromptArgument,
        "Icons" => Icons,
        "Annotated" => Annotations,
        "TaskAugmentedRequestParams" => CallToolRequestParams,
        "ResultType" => ResultType,
        // Errors.
        "ParseError" => ErrorObject,
        "InvalidRequestError" => ErrorObject,
        "MethodNotFoundError" => ErrorObject,
        "InvalidParamsError" => ErrorObject,
        "InternalError" => ErrorObject,
        "HeaderMismatchError" => JsonRpcErrorResponse,
        "UnsupportedProtocolVersionError" => UnsupportedProtocolVersionData,
        "MissingRequiredClientCapabilityError" => MissingRequiredClientCapabilityData,
        "URLElicitationRequiredError" => UrlElicitationRequiredData,
        // Common types.
        "Implementation" => Implementation,
        "Icon" => Icon,
        "Role" => Role,
        "Annotations" => Annotations,
        "ClientCapabilities" => ClientCapabilities,
        "ServerCapabilities" => ServerCapabilities,
        "LoggingLevel" => LoggingLevel,
        // Content.
        "ContentBlock" => ContentBlock,
        "TextContent" => TextContent,
        "ImageContent" => ImageContent,
        "AudioContent" => AudioContent,
        "ResourceLink" => ResourceLink,
        "EmbeddedResource" => EmbeddedResource,
        "ResourceContents" => ResourceContents,
        "TextResourceContents" => TextResourceContents,
        "BlobResourceContents" => BlobResourceContents,
        // Lifecycle and discovery.
        "InitializeRequest" => InitializeRequest,
        "InitializeRequestParams" => InitializeRequestParams,
        "InitializeResult" => InitializeResult,
        "InitializedNotification" => InitializedNotification,
        "PingRequest" => PingRequest,
        "DiscoverRequest" => DiscoverRequest,
        "DiscoverResult" => DiscoverResult,
        "DiscoverResultResponse" => JsonRpcResultResponse<DiscoverResult>,
        // Tools.
        "Tool" => Tool,
        "ToolAnnotations" => ToolAnnotations,
        "ToolExecution" => ToolExecution,
        "ListToolsRequest" => ListToolsRequest,
        "ListToolsResult" => ListToolsResult,
        "ListToolsResultResponse" => JsonRpcResultResponse<ListToolsResult>,
        "CallToolRequest" => CallToolRequest,
        "CallToolRequestParams" => CallToolRequestParams,
        "CallToolResult" => CallToolResult,
        "CallToolResultResponse" => JsonRpcResultResponse<Outcome<CallToolResult>>,
        "ToolListChangedNotification" => ToolListChangedNotification,
        // Resources.
        "Resource" => Resource,
        "ResourceTemplate" => ResourceTemplate,
        "ListResourcesRequest" => ListResourcesRequest,
        "ListResourcesResult" => ListResourcesResult,
        "ListResourcesResultResponse" => JsonRpcResultResponse<ListResourcesResult>,
        "ListResourceTemplatesRequest" => ListResourceTemplatesRequest,
        "ListResourceTemplatesResult" => ListResourceTemplatesResult,
        "ListResourceTemplatesResultResponse" => JsonRpcResultResponse<ListResourceTemplatesResult>,
        "ResourceRequestParams" => ResourceRequestParams,
        "ReadResourceRequest" => ReadResourceRequest,
        "ReadResourceRequestParams" => ReadResourceRequestParams,
        "ReadResourceResult" => ReadResourceResult,
        "ReadResourceResultResponse" => JsonRpcResultResponse<Outcome<ReadResourceResult>>,
        "SubscribeRequest" => SubscribeRequest,
        "SubscribeRequestParams" => SubscribeRequestParams,
        "UnsubscribeRequest" => UnsubscribeRequest,
        "UnsubscribeRequestParams" => UnsubscribeRequestParams,
        "ResourceUpdatedNotification" => ResourceUpdatedNotification,
        "ResourceUpdatedNotificationParams" => ResourceUpdatedNotificationParams,
        "ResourceListChangedNotification" => ResourceListChangedNotification,
        // Prompts.
        "Prompt" => Prompt,
        "PromptArgument" => PromptArgument,
        "PromptMessage" => PromptMessage,
        "ListPromptsRequest" => ListPromptsRequest,
        "ListPromptsResult" => ListPromptsResult,
        "ListPromptsResultResponse" => JsonRpcResultResponse<ListPromptsResult>,
        "GetPromptRequest" => GetPromptRequest,
        "GetPromptRequestParams" => GetPromptRequestParams,
        "GetPromptResult" => GetPromptResult,
        "GetPromptResultResponse" => JsonRpcResultResponse<Outcome<GetPromptResult>>,
        "PromptListChangedNotification" => PromptListChangedNotification,
        // Completion.
        "CompleteRequest" => CompleteRequest,
        "CompleteRequestParams" => CompleteRequestParams,
        "CompleteResult" => CompleteResult,
        "CompleteResultResponse" => JsonRpcResultResponse<CompleteResult>,
        "PromptReference" => PromptReference,
        "ResourceTemplateReference" => ResourceTemplateReference,
        "ResourceReference" => ResourceReference,
        // Logging.
        "SetLevelRequest" => SetLevelRequest,
        "SetLevelRequestParams" => SetLevelRequestParams,
        "LoggingMessageNotification" => LoggingMessageNotification,
        "LoggingMessageNotificationParams" => LoggingMessageNotificationParams,
        // Progress and cancellation.
        "ProgressNotification" => ProgressNotification,
        "ProgressNotificationParams" => ProgressNotificationParams,
        "CancelledNotification" => CancelledNotification,
        "CancelledNotificationParams" => CancelledNotificationParams,
        // Sampling.
        "CreateMessageRequest" => CreateMessageRequest,
        "CreateMessageRequestParams" => CreateMessageRequestParams,
        "CreateMessageResult" => CreateMessageResult,
        "SamplingMessage" => SamplingMessage,
        "SamplingMessageContentBlock" => SamplingMessageContentBlock,
        "ToolUseContent" => ToolUseContent,
        "ToolResultContent" => ToolResultContent,
        "ToolChoice" => ToolChoice,
        "ModelPreferences" => ModelPreferences,
        "ModelHint" => ModelHint,
        // Elicitation.
        "ElicitRequest" => ElicitRequest,
        "ElicitRequestParams" => ElicitRequestParams,
        "ElicitRequestFormParams" => ElicitRequestFormParams,
        "ElicitRequestURLParams" => ElicitRequestUrlParams,
        "ElicitResult" => ElicitResult,
        "ElicitationCompleteNotification" => ElicitationCompleteNotification,
        "PrimitiveSchemaDefinition" => PrimitiveSchemaDefinition,
        "StringSchema" => StringSchema,
        "NumberSchema" => NumberSchema,
        "BooleanSchema" => BooleanSchema,
        "EnumSchema" => EnumSchema,
        "SingleSelectEnumSchema" => SingleSelectEnumSchema,
        "MultiSelectEnumSchema" => MultiSelectEnumSchema,
        "UntitledSingleSelectEnumSchema" => UntitledSingleSelectEnumSchema,
        "TitledSingleSelectEnumSchema" => TitledSingleSelectEnumSchema,
        "UntitledMultiSelectEnumSchema" => UntitledMultiSelectEnumSchema,
        "TitledMultiSelectEnumSchema" => TitledMultiSelectEnumSchema,
        "LegacyTitledEnumSchema" => LegacyTitledEnumSchema,
        // Roots.
        "Root" => Root,
        "ListRootsRequest" => ListRootsRequest,
        "ListRootsResult" => ListRootsResult,
        "RootsListChangedNotification" => RootsListChangedNotification,
        // Tasks.
        "Task" => Task,
        "TaskStatus" => TaskStatus,
        "TaskMetadata" => TaskMetadata,
        "RelatedTaskMetadata" => RelatedTaskMetadata,
        "CreateTaskResult" => CreateTaskResult,
        "GetTaskRequest" => GetTaskRequest,
        "GetTaskResult" => GetTaskResult,
        "GetTaskPayloadRequest" => GetTaskPayloadRequest,
        "GetTaskPayloadResult" => GetTaskPayloadResult,
        "ListTasksRequest" => ListTasksRequest,
        "ListTasksResult" => ListTasksResult,
        "CancelTaskRequest" => CancelTaskRequest,
        "CancelTaskResult" => CancelTaskResult,
        "TaskStatusNotification" => TaskStatusNotification,
        "TaskStatusNotificationParams" => TaskStatusNotificationParams,
        // Subscriptions.
        "SubscriptionFilter" => SubscriptionFilter,
        "SubscriptionsListenRequest" => SubscriptionsListenRequest,
        "SubscriptionsListenRequestParams" => SubscriptionsListenRequestParams,
        "SubscriptionsListenResult" => SubscriptionsListenResult,
        "SubscriptionsListenResultResponse" => JsonRpcResultResponse<SubscriptionsListenResult>,
        "SubscriptionsAcknowledgedNotification" => SubscriptionsAcknowledgedNotification,
        "SubscriptionsAcknowledgedNotificationParams" => SubscriptionsAcknowledgedNotificationParams,
        // Multi round-trip requests.
        "InputRequest" => InputRequest,
        "InputRequests" => InputRequests,
        "InputResponse" => InputResponse,
        "InputResponses" => InputResponses,
        "InputRequiredResult" => InputRequiredResult,
        "InputResponseRequestParams" => InputResponseRequestParams,
        // Unions over all messages.
        "ClientRequest" => ClientRequest,
        "ServerRequest" => ServerRequest,
        "ClientNotification" => ClientNotification,
        "ServerNotification" => ServerNotification,
        "ClientResult" => ClientResult,
        "ServerResult" => ServerResult,
    }
}

fn all_schemas() -> Vec<Schema> {
    ProtocolVersion::ALL.into_iter().map(Schema::load).collect()
}

#[test]
fn every_schema_definition_has_a_rust_type() {
    let table = coverage();
    let mut all = BTreeSet::new();
    let mut missing = Vec::new();
    for schema in all_schemas() {
        for name in schema.def_names() {
            if !table.contains_key(name.as_str()) {
                missing.push(format!("{}: {name}", schema.version));
            }
            all.insert(name);
        }
    }
    assert!(
        missing.is_empty(),
        "definitions without a Rust type: {missing:#?}"
    );
    let stale: Vec<_> = table.keys().filter(|k| !all.contains(**k)).collect();
    assert!(
        stale.is_empty(),
        "table entries naming no definition: {stale:?}"
    );
    println!(
        "{} distinct definitions over {} versions covered",
        all.len(),
        ProtocolVersion::ALL.len()
    );
}

/// The `method` constant of a request or notification definition.
fn method_const(schema: &Schema, def: &str) -> Option<String> {
    let node = &schema.root[schema.defs_key][def];
    node.pointer("/properties/method/const")
        .and_then(Value::as_str)
        .map(str::to_owned)
}

/// The definitions an `anyOf` union lists (or the definition itself when it is not a union).
fn union_members(schema: &Schema, def: &str) -> Vec<String> {
    let node = &schema.root[schema.defs_key][def];
    match node.get("anyOf").and_then(Value::as_array) {
        Some(branches) => branches
            .iter()
            .map(|b| {
                b["$ref"]
                    .as_str()
                    .expect("$ref")
                    .rsplit('/')
                    .next()
                    .unwrap()
                    .to_owned()
            })
            .collect(),
        None => vec![def.to_owned()],
    }
}

/// Marker name → (method, params type name), for every marker.
fn markers() -> BTreeMap<&'static str, (&'static str, &'static str)> {
    macro_rules! markers {
        (requests: $($r:ident),+; notifications: $($n:ident),+;) => {
            BTreeMap::from([
                $((stringify!($r), (<$r as McpRequest>::METHOD, type_name::<<$r as McpRequest>::Params>()))),+,
                $((stringify!($n), (<$n as McpNotification>::METHOD, type_name::<<$n as McpNotification>::Params>()))),+
            ])
        };
    }
    markers! {
        requests: InitializeRequest, PingRequest, DiscoverRequest, ListToolsRequest, CallToolRequest,
            ListResourcesRequest, ListResourceTemplatesRequest, ReadResourceRequest, SubscribeRequest,
            UnsubscribeRequest, ListPromptsRequest, GetPromptRequest, SetLevelRequest, CompleteRequest,
            SubscriptionsListenRequest, CreateMessageRequest, ElicitRequest, ListRootsRequest,
            GetTaskRequest, GetTaskPayloadRequest, ListTasksRequest, CancelTaskRequest,
            UpdateTaskRequest, ListSkillsRequest, GetSkillRequest, ReadDirectoryRequest;
        notifications: CancelledNotification, ProgressNotification, InitializedNotification,
            RootsListChangedNotification, LoggingMessageNotification, ResourceUpdatedNotification,
            ResourceListChangedNotification, ToolListChangedNotification, PromptListChangedNotification,
            ElicitationCompleteNotification, TaskStatusNotification, SubscriptionsAcknowledgedNotification,
            TaskNotification;
    }
}

#[test]
fn markers_match_the_schemas() {
    let markers = markers();
    assert_eq!(markers.len(), METHODS.len(), "one marker per method");
    let mut seen = BTreeSet::new();
    for schema in all_schemas() {
        for def in schema.def_names() {
            let union = [
                "ClientRequest",
                "ServerRequest",
                "ClientNotification",
                "ServerNotification",
            ];
            if union.contains(&def.as_str()) {
                continue; // 2026-07-28 writes a one-member union as the member itself
            }
            let Some(method) = method_const(&schema, &def) else {
                continue;
            };
            let (marker_method, params) = markers
                .get(def.as_str())
                .unwrap_or_else(|| panic!("{}: no marker named {def} ({method})", schema.version));
            assert_eq!(*marker_method, method, "{}: {def}", schema.version);
            seen.insert(def.clone());
            // Since 2025-11-25 the schema names the params type; the marker must use it.
            let params_ref = schema.root[schema.defs_key][&def]
                .pointer("/properties/params/$ref")
                .and_then(Value::as_str)
                .map(|r| r.rsplit('/').next().unwrap().to_owned());
            if let Some(expected) = params_ref {
                let aliases: &[(&str, &str)] = &[
                    ("SubscribeRequestParams", "ResourceRequestParams"),
                    ("UnsubscribeRequestParams", "ResourceRequestParams"),
                    ("ElicitRequestURLParams", "ElicitRequestUrlParams"),
                ];
                let expected = aliases
                    .iter()
                    .find(|(schema_name, _)| *schema_name == expected)
                    .map_or(expected.as_str(), |(_, rust)| rust);
                assert!(
                    params.ends_with(&format!("::{expected}")),
                    "{}: {def} params are {expected} in the schema, {params} here",
                    schema.version
                );
            }
        }
    }
    // An extension's methods are in no core schema (tests/extensions.rs checks them).
    let core_somewhere = |method: &str| {
        let info = method_info(method).expect("in table");
        ProtocolVersion::ALL.iter().any(|v| info.is_core_in(*v))
    };
    let unused: Vec<_> = markers
        .iter()
        .filter(|(m, (method, _))| !seen.contains(**m) && core_somewhere(method))
        .collect();
    assert!(
        unused.is_empty(),
        "markers naming no schema definition: {unused:?}"
    );
}

#[test]
fn method_table_matches_the_schemas() {
    for schema in all_schemas() {
        let v = schema.version;
        // (method, kind, sent by client, sent by server) as the schema's unions list them.
        let mut from_schema: BTreeMap<String, (MethodKind, bool, bool)> = BTreeMap::new();
        for (union, kind, client) in [
            ("ClientRequest", MethodKind::Request, true),
            ("ServerRequest", MethodKind::Request, false),
            ("ClientNotification", MethodKind::Notification, true),
            ("ServerNotification", MethodKind::Notification, false),
        ] {
            if !schema.has_def(union) {
                continue;
            }
            for member in union_members(&schema, union) {
                let method = method_const(&schema, &member).expect("member has a method");
                let entry = from_schema.entry(method).or_insert((kind, false, false));
                if client {
                    entry.1 = true;
                } else {
                    entry.2 = true;
                }
            }
        }
        let from_table: BTreeSet<&str> = METHODS
            .iter()
            .filter(|m| m.is_core_in(v))
            .map(|m| m.method)
            .collect();
        let schema_methods: BTreeSet<&str> = from_schema.keys().map(String::as_str).collect();
        assert_eq!(schema_methods, from_table, "{v}: methods");
        for (method, &(kind, client, server)) in &from_schema {
            let info = method_info(method).expect("in table");
            assert_eq!(info.kind, kind, "{v}: {method} kind");
            assert!(
                !client || info.direction.from_client(),
                "{v}: {method} is sent by clients"
            );
            assert!(
                !server || info.direction.from_server(),
                "{v}: {method} is sent by servers"
            );
            if info.direction == Direction::Both && v.is_stateful() {
                assert!(client && server, "{v}: {method} is not sent by both sides");
            }
        }
        // 2026-07-28 input requests: in the InputRequest union, not a JSON-RPC message.
        if schema.has_def("InputRequest") {
            for member in union_members(&schema, "InputRequest") {
                let method = method_const(&schema, &member).expect("method");
                let info = method_info(&method).expect("in table");
                assert!(!info.exists_in(v) && info.direction == Direction::ServerToClient);
            }
        }
    }
}

/// The definition a `$ref` points at.
fn ref_name(node: &Value) -> Option<String> {
    let reference = node.get("$ref")?.as_str()?;
    Some(reference.rsplit('/').next()?.to_owned())
}

#[test]
fn method_facts_match_the_2026_schema() {
    let schema = Schema::load(ProtocolVersion::V2026_07_28);
    let defs = &schema.root[schema.defs_key];
    let requests: BTreeMap<String, String> = schema
        .def_names()
        .into_iter()
        .filter_map(|def| Some((method_const(&schema, &def)?, def)))
        .collect();
    for info in METHODS
        .iter()
        .filter(|m| m.kind == MethodKind::Request && m.is_core_in(ProtocolVersion::V2026_07_28))
    {
        let method = info.method;
        let request = &requests[method];
        let params = defs[request]
            .pointer("/properties/params")
            .and_then(ref_name)
            .map(|name| defs[&name].clone())
            .unwrap_or_default();
        let properties = params.get("properties").cloned().unwrap_or_default();
        // The target member is a required string member of the params.
        if let Some(target) = info.target {
            let field = target.as_str();
            assert_eq!(properties[field]["type"], "string", "{method}: {field}");
            let required = params["required"].as_array().cloned().unwrap_or_default();
            assert!(required.contains(&Value::from(field)), "{method}: {field}");
        }
        // Requests that may need input carry the retry members.
        assert_eq!(
            info.may_require_input,
            properties.get("inputResponses").is_some() && properties.get("requestState").is_some(),
            "{method}: may_require_input"
        );
        // The spec's table of standard headers: Mcp-Name for tools/call, resources/read,
        // prompts/get — the methods whose target may ask for input.
        assert_eq!(
            info.target_header,
            info.target.is_some() && info.may_require_input,
            "{method}: Mcp-Name"
        );
        // Cacheable results carry ttlMs and cacheScope; so does their Rust type.
        let result = request.replace("Request", "Result");
        let result_props = &defs[&result]["properties"];
        let cacheable = result_props.get("ttlMs").is_some();
        assert_eq!(info.cacheable, cacheable, "{method}: cacheable ({result})");
    }
    // The Rust result types agree: a cacheable method's complete result has cache hints.
    for (method, body) in [
        (
            "server/discover",
            serde_json::json!({"supportedVersions": [], "capabilities": {}}),
        ),
        ("tools/list", serde_json::json!({"tools": []})),
        ("prompts/list", serde_json::json!({"prompts": []})),
        ("resources/list", serde_json::json!({"resources": []})),
        (
            "resources/templates/list",
            serde_json::json!({"resourceTemplates": []}),
        ),
        ("resources/read", serde_json::json!({"contents": []})),
        ("tools/call", serde_json::json!({"content": []})),
        (
            "completion/complete",
            serde_json::json!({"completion": {"values": []}}),
        ),
    ] {
        let mut result = ServerResult::parse(method, body).unwrap();
        let fields = result.complete_mut().expect("complete");
        assert_eq!(
            fields.cache_hints_mut().is_some(),
            method_info(method).unwrap().cacheable,
            "{method}"
        );
    }
}
