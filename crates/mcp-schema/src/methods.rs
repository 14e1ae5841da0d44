//! Method ⇄ params ⇄ result bindings: [`McpRequest`] and [`McpNotification`], implemented by
//! one marker type per method (named after the schema's request / notification type), and a
//! table of which versions and directions each method exists in ([`METHODS`]).
//!
//! ```
//! use mcp_schema::{CallToolRequest, McpRequest, Outcome, CallToolResult};
//!
//! fn method_of<R: McpRequest>() -> &'static str {
//!     R::METHOD
//! }
//! assert_eq!(method_of::<CallToolRequest>(), "tools/call");
//! let _: <CallToolRequest as McpRequest>::Result = Outcome::Complete(CallToolResult::text("hi"));
//! ```
//!
//! # Optional params
//!
//! Several methods have optional params (`ping`, the `*/list` requests, `roots/list`, the
//! `list_changed` and `initialized` notifications). Their `Params` type has only optional
//! members and a `Default` that serializes as `{}`, which every version accepts. To send "no
//! params", omit the `params` member altogether (e.g. pass `None` to
//! [`JsonRpcRequest::new`](crate::envelope::JsonRpcRequest::new)) — the params types have an
//! `is_empty()` helper for deciding that. Receivers treat absent params as `Params::default()`;
//! the typed enums in [`messages`](crate::messages) keep `None` for them so that a proxy
//! re-sends exactly what it received.

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::common::{EmptyResult, NotificationParams, RequestParams};
use crate::completion::{CompleteRequestParams, CompleteResult};
use crate::discover::DiscoverResult;
use crate::elicitation::{
    ElicitRequestParams, ElicitResult, ElicitationCompleteNotificationParams,
};
use crate::lifecycle::{InitializeRequestParams, InitializeResult};
use crate::logging::{LoggingMessageNotificationParams, SetLevelRequestParams};
use crate::mrtr::Outcome;
use crate::notifications::{CancelledNotificationParams, ProgressNotificationParams};
use crate::pagination::PaginatedRequestParams;
use crate::prompts::{GetPromptRequestParams, GetPromptResult, ListPromptsResult};
use crate::resources::{
    ListResourceTemplatesResult, ListResourcesResult, ReadResourceRequestParams,
    ReadResourceResult, ResourceUpdatedNotificationParams, SubscribeRequestParams,
    UnsubscribeRequestParams,
};
use crate::roots::ListRootsResult;
use crate::sampling::{CreateMessageRequestParams, CreateMessageResult};
use crate::subscriptions::{
    SubscriptionsAcknowledgedNotificationParams, SubscriptionsListenRequestParams,
    SubscriptionsListenResult,
};
use crate::tasks::{
    CancelTaskRequestParams, CancelTaskResult, GetTaskPayloadRequestParams, GetTaskPayloadResult,
    GetTaskRequestParams, GetTaskResult, ListTasksResult, TaskStatusNotificationParams,
};
use crate::tools::{CallToolRequestParams, CallToolResult, ListToolsResult};
use crate::version::ProtocolVersion;

/// A request method: its name, params type and result type.
pub trait McpRequest {
    /// The method name (`"tools/call"`).
    const METHOD: &'static str;
    /// The params type.
    type Params: Serialize + DeserializeOwned + Send + Sync + 'static;
    /// The result type.
    type Result: Serialize + DeserializeOwned + Send + Sync + 'static;
}

/// A notification method: its name and params type.
pub trait McpNotification {
    /// The method name (`"notifications/progress"`).
    const METHOD: &'static str;
    /// The params type.
    type Params: Serialize + DeserializeOwned + Send + Sync + 'static;
}

macro_rules! request {
    ($(#[$meta:meta])* $name:ident = $method:literal, $params:ty => $result:ty) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
        pub struct $name;

        impl McpRequest for $name {
            const METHOD: &'static str = $method;
            type Params = $params;
            type Result = $result;
        }
    };
}

macro_rules! notification {
    ($(#[$meta:meta])* $name:ident = $method:literal, $params:ty) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
        pub struct $name;

        impl McpNotification for $name {
            const METHOD: &'static str = $method;
            type Params = $params;
        }
    };
}

request!(
    /// `initialize` (client → server, 2024-11-05 … 2025-11-25).
    InitializeRequest = "initialize", InitializeRequestParams => InitializeResult
);
request!(
    /// `ping` (both directions, 2024-11-05 … 2025-11-25). Params optional.
    PingRequest = "ping", RequestParams => EmptyResult
);
request!(
    /// `server/discover` (client → server, 2026-07-28).
    DiscoverRequest = "server/discover", RequestParams => DiscoverResult
);
request!(
    /// `tools/list` (client → server). Params optional before 2026-07-28.
    ListToolsRequest = "tools/list", PaginatedRequestParams => ListToolsResult
);
request!(
    /// `tools/call` (client → server). May yield an `InputRequiredResult` (2026-07-28) or a
    /// `CreateTaskResult` (2025-11-25).
    CallToolRequest = "tools/call", CallToolRequestParams => Outcome<CallToolResult>
);
request!(
    /// `resources/list` (client → server). Params optional before 2026-07-28.
    ListResourcesRequest = "resources/list", PaginatedRequestParams => ListResourcesResult
);
request!(
    /// `resources/templates/list` (client → server). Params optional before 2026-07-28.
    ListResourceTemplatesRequest = "resources/templates/list",
    PaginatedRequestParams => ListResourceTemplatesResult
);
request!(
    /// `resources/read` (client → server). May yield an `InputRequiredResult` (2026-07-28).
    ReadResourceRequest = "resources/read", ReadResourceRequestParams => Outcome<ReadResourceResult>
);
request!(
    /// `resources/subscribe` (client → server, 2024-11-05 … 2025-11-25).
    SubscribeRequest = "resources/subscribe", SubscribeRequestParams => EmptyResult
);
request!(
    /// `resources/unsubscribe` (client → server, 2024-11-05 … 2025-11-25).
    UnsubscribeRequest = "resources/unsubscribe", UnsubscribeRequestParams => EmptyResult
);
request!(
    /// `prompts/list` (client → server). Params optional before 2026-07-28.
    ListPromptsRequest = "prompts/list", PaginatedRequestParams => ListPromptsResult
);
request!(
    /// `prompts/get` (client → server). May yield an `InputRequiredResult` (2026-07-28).
    GetPromptRequest = "prompts/get", GetPromptRequestParams => Outcome<GetPromptResult>
);
request!(
    /// `logging/setLevel` (client → server, 2024-11-05 … 2025-11-25).
    SetLevelRequest = "logging/setLevel", SetLevelRequestParams => EmptyResult
);
request!(
    /// `completion/complete` (client → server).
    CompleteRequest = "completion/complete", CompleteRequestParams => CompleteResult
);
request!(
    /// `subscriptions/listen` (client → server, 2026-07-28).
    SubscriptionsListenRequest = "subscriptions/listen",
    SubscriptionsListenRequestParams => SubscriptionsListenResult
);
request!(
    /// `sampling/createMessage` (server → client; in 2026-07-28 only inside an
    /// `InputRequiredResult`). May yield a `CreateTaskResult` (2025-11-25).
    CreateMessageRequest = "sampling/createMessage",
    CreateMessageRequestParams => Outcome<CreateMessageResult>
);
request!(
    /// `elicitation/create` (server → client, 2025-06-18+; in 2026-07-28 only inside an
    /// `InputRequiredResult`). May yield a `CreateTaskResult` (2025-11-25).
    ElicitRequest = "elicitation/create", ElicitRequestParams => Outcome<ElicitResult>
);
request!(
    /// `roots/list` (server → client; in 2026-07-28 only inside an `InputRequiredResult`).
    /// Params optional.
    ListRootsRequest = "roots/list", RequestParams => ListRootsResult
);
request!(
    /// `tasks/get` (both directions, 2025-11-25).
    GetTaskRequest = "tasks/get", GetTaskRequestParams => GetTaskResult
);
request!(
    /// `tasks/result` (both directions, 2025-11-25).
    GetTaskPayloadRequest = "tasks/result", GetTaskPayloadRequestParams => GetTaskPayloadResult
);
request!(
    /// `tasks/list` (both directions, 2025-11-25). Params optional.
    ListTasksRequest = "tasks/list", PaginatedRequestParams => ListTasksResult
);
request!(
    /// `tasks/cancel` (both directions, 2025-11-25).
    CancelTaskRequest = "tasks/cancel", CancelTaskRequestParams => CancelTaskResult
);

notification!(
    /// `notifications/cancelled` (both directions).
    CancelledNotification = "notifications/cancelled", CancelledNotificationParams
);
notification!(
    /// `notifications/progress` (both directions; server → client in 2026-07-28).
    ProgressNotification = "notifications/progress", ProgressNotificationParams
);
notification!(
    /// `notifications/initialized` (client → server, 2024-11-05 … 2025-11-25). Params optional.
    InitializedNotification = "notifications/initialized", NotificationParams
);
notification!(
    /// `notifications/roots/list_changed` (client → server, 2024-11-05 … 2025-11-25). Params
    /// optional.
    RootsListChangedNotification = "notifications/roots/list_changed", NotificationParams
);
notification!(
    /// `notifications/message` (server → client).
    LoggingMessageNotification = "notifications/message", LoggingMessageNotificationParams
);
notification!(
    /// `notifications/resources/updated` (server → client).
    ResourceUpdatedNotification = "notifications/resources/updated",
    ResourceUpdatedNotificationParams
);
notification!(
    /// `notifications/resources/list_changed` (server → client). Params optional.
    ResourceListChangedNotification = "notifications/resources/list_changed", NotificationParams
);
notification!(
    /// `notifications/tools/list_changed` (server → client). Params optional.
    ToolListChangedNotification = "notifications/tools/list_changed", NotificationParams
);
notification!(
    /// `notifications/prompts/list_changed` (server → client). Params optional.
    PromptListChangedNotification = "notifications/prompts/list_changed", NotificationParams
);
notification!(
    /// `notifications/elicitation/complete` (server → client, 2025-11-25 only).
    ElicitationCompleteNotification = "notifications/elicitation/complete",
    ElicitationCompleteNotificationParams
);
notification!(
    /// `notifications/tasks/status` (both directions, 2025-11-25).
    TaskStatusNotification = "notifications/tasks/status", TaskStatusNotificationParams
);
notification!(
    /// `notifications/subscriptions/acknowledged` (server → client, 2026-07-28).
    SubscriptionsAcknowledgedNotification = "notifications/subscriptions/acknowledged",
    SubscriptionsAcknowledgedNotificationParams
);

/// Whether a method is a request or a notification.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MethodKind {
    /// Expects a response.
    Request,
    /// One-way.
    Notification,
}

/// Who sends a method.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Direction {
    /// The client sends it.
    ClientToServer,
    /// The server sends it.
    ServerToClient,
    /// Either side sends it.
    Both,
}

impl Direction {
    /// Whether a client may send it.
    pub fn from_client(self) -> bool {
        matches!(self, Direction::ClientToServer | Direction::Both)
    }

    /// Whether a server may send it.
    pub fn from_server(self) -> bool {
        matches!(self, Direction::ServerToClient | Direction::Both)
    }
}

/// Where a method exists.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MethodInfo {
    /// The method name.
    pub method: &'static str,
    /// Request or notification.
    pub kind: MethodKind,
    /// Who sends it.
    pub direction: Direction,
    /// The first version with it.
    pub since: ProtocolVersion,
    /// The last version with it as a JSON-RPC message (`None`: still current).
    ///
    /// `sampling/createMessage`, `elicitation/create` and `roots/list` end at 2025-11-25 here:
    /// 2026-07-28 carries them only inside an `InputRequiredResult`.
    pub until: Option<ProtocolVersion>,
}

impl MethodInfo {
    /// Whether the method is a JSON-RPC message of `version`.
    pub fn exists_in(&self, version: ProtocolVersion) -> bool {
        version >= self.since && self.until.is_none_or(|u| version <= u)
    }
}

const fn info(
    method: &'static str,
    kind: MethodKind,
    direction: Direction,
    since: ProtocolVersion,
    until: Option<ProtocolVersion>,
) -> MethodInfo {
    MethodInfo {
        method,
        kind,
        direction,
        since,
        until,
    }
}

use Direction::{Both, ClientToServer as C2S, ServerToClient as S2C};
use MethodKind::{Notification as N, Request as R};
use ProtocolVersion::{V2024_11_05 as V1, V2025_06_18 as V3, V2025_11_25 as V4, V2026_07_28 as V5};

/// Every method of every version.
pub const METHODS: &[MethodInfo] = &[
    info(InitializeRequest::METHOD, R, C2S, V1, Some(V4)),
    info(PingRequest::METHOD, R, Both, V1, Some(V4)),
    info(DiscoverRequest::METHOD, R, C2S, V5, None),
    info(ListToolsRequest::METHOD, R, C2S, V1, None),
    info(CallToolRequest::METHOD, R, C2S, V1, None),
    info(ListResourcesRequest::METHOD, R, C2S, V1, None),
    info(ListResourceTemplatesRequest::METHOD, R, C2S, V1, None),
    info(ReadResourceRequest::METHOD, R, C2S, V1, None),
    info(SubscribeRequest::METHOD, R, C2S, V1, Some(V4)),
    info(UnsubscribeRequest::METHOD, R, C2S, V1, Some(V4)),
    info(ListPromptsRequest::METHOD, R, C2S, V1, None),
    info(GetPromptRequest::METHOD, R, C2S, V1, None),
    info(SetLevelRequest::METHOD, R, C2S, V1, Some(V4)),
    info(CompleteRequest::METHOD, R, C2S, V1, None),
    info(SubscriptionsListenRequest::METHOD, R, C2S, V5, None),
    info(CreateMessageRequest::METHOD, R, S2C, V1, Some(V4)),
    info(ElicitRequest::METHOD, R, S2C, V3, Some(V4)),
    info(ListRootsRequest::METHOD, R, S2C, V1, Some(V4)),
    info(GetTaskRequest::METHOD, R, Both, V4, Some(V4)),
    info(GetTaskPayloadRequest::METHOD, R, Both, V4, Some(V4)),
    info(ListTasksRequest::METHOD, R, Both, V4, Some(V4)),
    info(CancelTaskRequest::METHOD, R, Both, V4, Some(V4)),
    info(CancelledNotification::METHOD, N, Both, V1, None),
    info(ProgressNotification::METHOD, N, Both, V1, None),
    info(InitializedNotification::METHOD, N, C2S, V1, Some(V4)),
    info(RootsListChangedNotification::METHOD, N, C2S, V1, Some(V4)),
    info(LoggingMessageNotification::METHOD, N, S2C, V1, None),
    info(ResourceUpdatedNotification::METHOD, N, S2C, V1, None),
    info(ResourceListChangedNotification::METHOD, N, S2C, V1, None),
    info(ToolListChangedNotification::METHOD, N, S2C, V1, None),
    info(PromptListChangedNotification::METHOD, N, S2C, V1, None),
    info(
        ElicitationCompleteNotification::METHOD,
        N,
        S2C,
        V4,
        Some(V4),
    ),
    info(TaskStatusNotification::METHOD, N, Both, V4, Some(V4)),
    info(
        SubscriptionsAcknowledgedNotification::METHOD,
        N,
        S2C,
        V5,
        None,
    ),
];

/// Where `method` exists, if it is a method of any version.
pub fn method_info(method: &str) -> Option<&'static MethodInfo> {
    METHODS.iter().find(|m| m.method == method)
}
