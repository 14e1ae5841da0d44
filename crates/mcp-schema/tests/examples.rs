//! Every example message of the 2026-07-28 schema parses into its type and serializes back to
//! an equal JSON value. Each example folder is named after a schema type; the test fails when a
//! folder has no mapping here (or a mapping has no folder).

mod common;

use std::collections::BTreeMap;

use common::{read_json, spec_dir};
use mcp_schema::*;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

type Check = fn(&Value) -> Result<(), String>;

/// Parses `value` as `T`, serializes it back, and compares.
fn round_trip<T: Serialize + DeserializeOwned>(value: &Value) -> Result<T, String> {
    let parsed: T = serde_json::from_value(value.clone()).map_err(|e| format!("parse: {e}"))?;
    let back = serde_json::to_value(&parsed).map_err(|e| format!("serialize: {e}"))?;
    if &back != value {
        return Err(format!(
            "round trip changed the value:\n  in:  {value}\n  out: {back}"
        ));
    }
    Ok(parsed)
}

fn plain<T: Serialize + DeserializeOwned>(value: &Value) -> Result<(), String> {
    round_trip::<T>(value).map(drop)
}

fn ensure(ok: bool, what: &str) -> Result<(), String> {
    if ok { Ok(()) } else { Err(what.to_owned()) }
}

/// A whole client request: the typed envelope, and the `ClientRequest` union.
fn client_request<R: McpRequest>(value: &Value) -> Result<(), String> {
    let message = round_trip::<JsonRpcRequest<R::Params>>(value)?;
    ensure(message.method == R::METHOD, "method")?;
    let routed = ClientRequest::from_parts(&message.method, value.get("params").cloned())
        .map_err(|e| format!("ClientRequest: {e}"))?;
    ensure(
        routed.is_known() && routed.method() == R::METHOD,
        "ClientRequest variant",
    )?;
    ensure(
        routed.params_value().map_err(|e| e.to_string())? == value.get("params").cloned(),
        "ClientRequest params round trip",
    )
}

/// A whole server notification: the typed envelope, and the `ServerNotification` union.
fn server_notification<N: McpNotification>(value: &Value) -> Result<(), String> {
    let message = round_trip::<JsonRpcNotification<N::Params>>(value)?;
    ensure(message.method == N::METHOD, "method")?;
    let routed = round_trip::<ServerNotification>(&serde_json::json!({
        "method": message.method,
        "params": value.get("params"),
    }))?;
    ensure(
        routed.is_known() && routed.method() == N::METHOD,
        "ServerNotification variant",
    )
}

/// A success response whose result is `R`.
fn result_response<R: Serialize + DeserializeOwned>(value: &Value) -> Result<(), String> {
    round_trip::<JsonRpcResultResponse<R>>(value).map(drop)
}

/// A 2026-07-28 input request (`{method, params}` without a JSON-RPC id).
fn input_request<R: McpRequest>(value: &Value) -> Result<(), String> {
    let request = round_trip::<InputRequest>(value)?;
    ensure(
        request.method() == R::METHOD && request.request.is_known(),
        "input request method",
    )
}

/// A whole error response with this code.
fn error_response<const CODE: i64>(value: &Value) -> Result<(), String> {
    let response = round_trip::<JsonRpcErrorResponse>(value)?;
    ensure(response.error.code == CODE, "error code")
}

/// An error object with this code.
fn error_object<const CODE: i64>(value: &Value) -> Result<(), String> {
    let error = round_trip::<ErrorObject>(value)?;
    ensure(error.code == CODE, "error code")
}

fn typed_error<D: ErrorData>(value: &Value) -> Result<(), String> {
    let response = round_trip::<JsonRpcErrorResponse>(value)?;
    D::from_error(&response.error)
        .ok_or("wrong code")?
        .map_err(|e| format!("data: {e}"))?;
    Ok(())
}

/// A content block: its own type, and the `ContentBlock` union (not `Unknown`).
fn content<T: Serialize + DeserializeOwned>(value: &Value) -> Result<(), String> {
    plain::<T>(value)?;
    let block = round_trip::<ContentBlock>(value)?;
    ensure(
        !matches!(block, ContentBlock::Unknown(_)),
        "ContentBlock variant",
    )
}

fn sampling_content<T: Serialize + DeserializeOwned>(value: &Value) -> Result<(), String> {
    plain::<T>(value)?;
    let block = round_trip::<SamplingMessageContentBlock>(value)?;
    ensure(
        !matches!(block, SamplingMessageContentBlock::Unknown(_)),
        "sampling block variant",
    )
}

/// An elicitation field schema: its own type, and `PrimitiveSchemaDefinition` picking the
/// variant `expected` names.
fn field<T: Serialize + DeserializeOwned>(
    value: &Value,
    expected: fn(&PrimitiveSchemaDefinition) -> bool,
) -> Result<(), String> {
    plain::<T>(value)?;
    let definition = round_trip::<PrimitiveSchemaDefinition>(value)?;
    ensure(expected(&definition), "PrimitiveSchemaDefinition variant")
}

fn mapping() -> BTreeMap<&'static str, Check> {
    use error_codes::*;
    let mut m: BTreeMap<&'static str, Check> = BTreeMap::new();
    // Data types.
    m.insert("AudioContent", content::<AudioContent>);
    m.insert("BlobResourceContents", |v| {
        plain::<BlobResourceContents>(v)?;
        let c = round_trip::<ResourceContents>(v)?;
        ensure(
            matches!(c, ResourceContents::Blob(_)),
            "ResourceContents variant",
        )
    });
    m.insert("TextResourceContents", |v| {
        plain::<TextResourceContents>(v)?;
        let c = round_trip::<ResourceContents>(v)?;
        ensure(
            matches!(c, ResourceContents::Text(_)),
            "ResourceContents variant",
        )
    });
    m.insert("ClientCapabilities", plain::<ClientCapabilities>);
    m.insert("ServerCapabilities", plain::<ServerCapabilities>);
    m.insert("EmbeddedResource", content::<EmbeddedResource>);
    m.insert("ImageContent", content::<ImageContent>);
    m.insert("TextContent", content::<TextContent>);
    m.insert("ResourceLink", content::<ResourceLink>);
    m.insert("ToolUseContent", sampling_content::<ToolUseContent>);
    m.insert("ToolResultContent", sampling_content::<ToolResultContent>);
    m.insert("ModelPreferences", plain::<ModelPreferences>);
    m.insert("Resource", plain::<Resource>);
    m.insert("Root", plain::<Root>);
    m.insert("SamplingMessage", plain::<SamplingMessage>);
    m.insert("Tool", plain::<Tool>);
    m.insert("BooleanSchema", |v| {
        field::<BooleanSchema>(v, |d| matches!(d, PrimitiveSchemaDefinition::Boolean(_)))
    });
    m.insert("NumberSchema", |v| {
        field::<NumberSchema>(v, |d| matches!(d, PrimitiveSchemaDefinition::Number(_)))
    });
    m.insert("StringSchema", |v| {
        field::<StringSchema>(v, |d| matches!(d, PrimitiveSchemaDefinition::String(_)))
    });
    m.insert("TitledMultiSelectEnumSchema", |v| {
        field::<TitledMultiSelectEnumSchema>(v, |d| {
            matches!(
                d,
                PrimitiveSchemaDefinition::Enum(EnumSchema::MultiSelect(
                    MultiSelectEnumSchema::Titled(_)
                ))
            )
        })
    });
    m.insert("UntitledMultiSelectEnumSchema", |v| {
        field::<UntitledMultiSelectEnumSchema>(v, |d| {
            matches!(
                d,
                PrimitiveSchemaDefinition::Enum(EnumSchema::MultiSelect(
                    MultiSelectEnumSchema::Untitled(_)
                ))
            )
        })
    });
    m.insert("TitledSingleSelectEnumSchema", |v| {
        field::<TitledSingleSelectEnumSchema>(v, |d| {
            matches!(
                d,
                PrimitiveSchemaDefinition::Enum(EnumSchema::SingleSelect(
                    SingleSelectEnumSchema::Titled(_)
                ))
            )
        })
    });
    m.insert("UntitledSingleSelectEnumSchema", |v| {
        field::<UntitledSingleSelectEnumSchema>(v, |d| {
            matches!(
                d,
                PrimitiveSchemaDefinition::Enum(EnumSchema::SingleSelect(
                    SingleSelectEnumSchema::Untitled(_)
                ))
            )
        })
    });

    // Params.
    m.insert("CallToolRequestParams", plain::<CallToolRequestParams>);
    m.insert(
        "CancelledNotificationParams",
        plain::<CancelledNotificationParams>,
    );
    m.insert("CompleteRequestParams", plain::<CompleteRequestParams>);
    m.insert(
        "CreateMessageRequestParams",
        plain::<CreateMessageRequestParams>,
    );
    m.insert("ElicitRequestFormParams", |v| {
        plain::<ElicitRequestFormParams>(v)?;
        let p = round_trip::<ElicitRequestParams>(v)?;
        ensure(
            matches!(p, ElicitRequestParams::Form(_)),
            "ElicitRequestParams variant",
        )
    });
    m.insert("ElicitRequestURLParams", |v| {
        plain::<ElicitRequestUrlParams>(v)?;
        let p = round_trip::<ElicitRequestParams>(v)?;
        ensure(
            matches!(p, ElicitRequestParams::Url(_)),
            "ElicitRequestParams variant",
        )
    });
    m.insert("GetPromptRequestParams", plain::<GetPromptRequestParams>);
    m.insert(
        "LoggingMessageNotificationParams",
        plain::<LoggingMessageNotificationParams>,
    );
    m.insert("PaginatedRequestParams", plain::<PaginatedRequestParams>);
    m.insert(
        "ProgressNotificationParams",
        plain::<ProgressNotificationParams>,
    );
    m.insert(
        "ResourceUpdatedNotificationParams",
        plain::<ResourceUpdatedNotificationParams>,
    );

    // Client requests (whole JSON-RPC messages).
    m.insert("CallToolRequest", client_request::<CallToolRequest>);
    m.insert("CompleteRequest", client_request::<CompleteRequest>);
    m.insert("DiscoverRequest", client_request::<DiscoverRequest>);
    m.insert("GetPromptRequest", client_request::<GetPromptRequest>);
    m.insert("ListPromptsRequest", client_request::<ListPromptsRequest>);
    m.insert(
        "ListResourceTemplatesRequest",
        client_request::<ListResourceTemplatesRequest>,
    );
    m.insert(
        "ListResourcesRequest",
        client_request::<ListResourcesRequest>,
    );
    m.insert("ListToolsRequest", client_request::<ListToolsRequest>);
    m.insert("ReadResourceRequest", client_request::<ReadResourceRequest>);
    m.insert(
        "SubscriptionsListenRequest",
        client_request::<SubscriptionsListenRequest>,
    );

    // Input requests and responses (2026-07-28 MRTR).
    m.insert(
        "CreateMessageRequest",
        input_request::<CreateMessageRequest>,
    );
    m.insert("ElicitRequest", input_request::<ElicitRequest>);
    m.insert("ListRootsRequest", input_request::<ListRootsRequest>);
    m.insert("InputRequests", |v| {
        let requests = round_trip::<InputRequests>(v)?;
        ensure(
            requests.values().all(|r| r.request.is_known()),
            "known input requests",
        )
    });
    m.insert("InputResponses", |v| {
        let responses = round_trip::<InputResponses>(v)?;
        ensure(
            !responses
                .values()
                .any(|r| matches!(r, InputResponse::Unknown(_))),
            "known input responses",
        )
    });
    m.insert("InputRequiredResult", |v| {
        plain::<InputRequiredResult>(v)?;
        let outcome = round_trip::<Outcome<CallToolResult>>(v)?;
        ensure(
            matches!(outcome, Outcome::InputRequired(_)),
            "Outcome variant",
        )
    });
    m.insert("CreateMessageResult", |v| {
        plain::<CreateMessageResult>(v)?;
        let r = round_trip::<InputResponse>(v)?;
        ensure(
            matches!(r, InputResponse::CreateMessage(_)),
            "InputResponse variant",
        )
    });
    m.insert("ElicitResult", |v| {
        plain::<ElicitResult>(v)?;
        let r = round_trip::<InputResponse>(v)?;
        ensure(
            matches!(r, InputResponse::Elicit(_)),
            "InputResponse variant",
        )
    });
    m.insert("ListRootsResult", |v| {
        plain::<ListRootsResult>(v)?;
        let r = round_trip::<InputResponse>(v)?;
        ensure(
            matches!(r, InputResponse::ListRoots(_)),
            "InputResponse variant",
        )
    });

    // Results and result responses.
    m.insert("CallToolResult", |v| {
        plain::<CallToolResult>(v)?;
        let outcome = round_trip::<Outcome<CallToolResult>>(v)?;
        ensure(outcome.is_complete(), "Outcome variant")
    });
    m.insert(
        "CallToolResultResponse",
        result_response::<Outcome<CallToolResult>>,
    );
    m.insert("CompleteResult", plain::<CompleteResult>);
    m.insert("CompleteResultResponse", result_response::<CompleteResult>);
    m.insert("DiscoverResult", |v| {
        let r = round_trip::<DiscoverResult>(v)?;
        ensure(
            r.server_info().map_err(|e| e.to_string())?.is_some(),
            "serverInfo",
        )
    });
    m.insert("DiscoverResultResponse", result_response::<DiscoverResult>);
    m.insert("GetPromptResult", plain::<GetPromptResult>);
    m.insert(
        "GetPromptResultResponse",
        result_response::<Outcome<GetPromptResult>>,
    );
    m.insert("ListPromptsResult", plain::<ListPromptsResult>);
    m.insert(
        "ListPromptsResultResponse",
        result_response::<ListPromptsResult>,
    );
    m.insert(
        "ListResourceTemplatesResult",
        plain::<ListResourceTemplatesResult>,
    );
    m.insert(
        "ListResourceTemplatesResultResponse",
        result_response::<ListResourceTemplatesResult>,
    );
    m.insert("ListResourcesResult", plain::<ListResourcesResult>);
    m.insert(
        "ListResourcesResultResponse",
        result_response::<ListResourcesResult>,
    );
    m.insert("ListToolsResult", plain::<ListToolsResult>);
    m.insert(
        "ListToolsResultResponse",
        result_response::<ListToolsResult>,
    );
    m.insert("ReadResourceResult", plain::<ReadResourceResult>);
    m.insert(
        "ReadResourceResultResponse",
        result_response::<Outcome<ReadResourceResult>>,
    );
    m.insert("SubscriptionsListenResult", |v| {
        let r = round_trip::<SubscriptionsListenResult>(v)?;
        let id = r
            .meta
            .as_ref()
            .ok_or("_meta")?
            .subscription_id()
            .map_err(|e| e.to_string())?;
        ensure(id.is_some(), "subscriptionId")
    });
    m.insert(
        "SubscriptionsListenResultResponse",
        result_response::<SubscriptionsListenResult>,
    );

    // Notifications (whole JSON-RPC messages).
    m.insert(
        "CancelledNotification",
        server_notification::<CancelledNotification>,
    );
    m.insert(
        "LoggingMessageNotification",
        server_notification::<LoggingMessageNotification>,
    );
    m.insert(
        "ProgressNotification",
        server_notification::<ProgressNotification>,
    );
    m.insert(
        "PromptListChangedNotification",
        server_notification::<PromptListChangedNotification>,
    );
    m.insert(
        "ResourceListChangedNotification",
        server_notification::<ResourceListChangedNotification>,
    );
    m.insert(
        "ResourceUpdatedNotification",
        server_notification::<ResourceUpdatedNotification>,
    );
    m.insert(
        "SubscriptionsAcknowledgedNotification",
        server_notification::<SubscriptionsAcknowledgedNotification>,
    );
    m.insert(
        "ToolListChangedNotification",
        server_notification::<ToolListChangedNotification>,
    );

    // Errors.
    m.insert("HeaderMismatchError", error_response::<HEADER_MISMATCH>);
    m.insert(
        "MissingRequiredClientCapabilityError",
        typed_error::<MissingRequiredClientCapabilityData>,
    );
    m.insert(
        "UnsupportedProtocolVersionError",
        typed_error::<UnsupportedProtocolVersionData>,
    );
    m.insert("InternalError", error_object::<INTERNAL_ERROR>);
    m.insert("InvalidParamsError", error_object::<INVALID_PARAMS>);
    m.insert("MethodNotFoundError", error_object::<METHOD_NOT_FOUND>);
    m.insert("ParseError", error_object::<PARSE_ERROR>);
    m
}

#[test]
fn every_2026_07_28_example_round_trips() {
    let dir = spec_dir().join("mcp/2026-07-28/examples");
    assert!(dir.is_dir(), "no examples at {}", dir.display());
    let mapping = mapping();

    let mut folders: Vec<String> = std::fs::read_dir(&dir)
        .expect("examples directory")
        .map(|e| e.expect("entry"))
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().into_string().expect("utf-8 name"))
        .collect();
    folders.sort();

    let unmapped: Vec<&String> = folders
        .iter()
        .filter(|f| !mapping.contains_key(f.as_str()))
        .collect();
    assert!(
        unmapped.is_empty(),
        "example folders with no mapping to a type: {unmapped:?}"
    );
    let stale: Vec<&&str> = mapping
        .keys()
        .filter(|k| !folders.iter().any(|f| f == *k))
        .collect();
    assert!(
        stale.is_empty(),
        "mappings without an example folder: {stale:?}"
    );

    let mut failures = Vec::new();
    let mut files = 0;
    for folder in &folders {
        let check = mapping[folder.as_str()];
        let mut entries: Vec<_> = std::fs::read_dir(dir.join(folder))
            .expect("folder")
            .map(|e| e.expect("entry").path())
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect();
        entries.sort();
        assert!(!entries.is_empty(), "{folder} has no examples");
        for path in entries {
            files += 1;
            let value = read_json(&path);
            if let Err(e) = check(&value) {
                failures.push(format!(
                    "{folder}/{}: {e}",
                    path.file_name().unwrap().to_string_lossy()
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {files} examples failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert_eq!(
        folders.len(),
        88,
        "the 2026-07-28 schema has 88 example folders"
    );
    println!(
        "{files} examples in {} folders round-tripped",
        folders.len()
    );
}
