//! The method table: every method of every version, said once. Each row binds a marker type
//! (named after the schema's request / notification type) to the method's name, params and
//! result types ([`McpRequest`] / [`McpNotification`]) and to the facts both sides act on
//! ([`MethodInfo`]): the versions and direction it exists in, the params member naming its
//! target (`name` / `uri`), whether the 2026-07-28 `Mcp-Name` header carries that target,
//! whether the server may answer it with an `InputRequiredResult`, and whether its result may
//! be cached. [`METHODS`] lists the rows, [`method_info`] finds one by name.
//!
//! ```
//! use mcp_schema::{CallToolRequest, McpRequest, Outcome, CallToolResult};
//!
//! fn method_of<R: McpRequest>() -> &'static str {
//!     R::METHOD
//! }
//! assert_eq!(method_of::<CallToolRequest>(), "tools/call");
//! let info = mcp_schema::methods::method_info("tools/call").unwrap();
//! assert_eq!(info.target.map(|t| t.as_str()), Some("name"));
//! assert!(info.target_header && info.may_require_input && !info.cacheable);
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
use crate::ext::skills::{
    GetSkillRequestParams, GetSkillResult, ListSkillsResult, ReadDirectoryRequestParams,
    ReadDirectoryResult,
};
use crate::ext::tasks::{
    TaskCancelResult, TaskGetResult, TaskNotificationParams, UpdateTaskRequestParams,
};
use crate::ext::{SKILLS, TASKS};
use crate::input_required::{Outcome, RetryParams};
use crate::lifecycle::{InitializeRequestParams, InitializeResult};
use crate::logging::{LoggingMessageNotificationParams, SetLevelRequestParams};
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
    CancelTaskRequestParams, GetTaskPayloadRequestParams, GetTaskPayloadResult,
    GetTaskRequestParams, ListTasksResult, TaskStatusNotificationParams,
};
use crate::tools::{CallToolRequestParams, CallToolResult, ListToolsResult};
use crate::version::ProtocolVersion;

/// A request method: its name, params type, result type, and its row of the method table.
pub trait McpRequest {
    /// The method name (`"tools/call"`).
    const METHOD: &'static str;
    /// Where and how the method exists: its row of [`METHODS`].
    const INFO: MethodInfo;
    /// The params type.
    type Params: Serialize + DeserializeOwned + Send + Sync + 'static;
    /// The result type.
    type Result: Serialize + DeserializeOwned + Send + Sync + 'static;

    /// What the request is about: the value of the params member [`MethodInfo::target`] names
    /// (`name` of `tools/call`, `uri` of `resources/read`), for methods that have one.
    fn target(params: &Self::Params) -> Option<&str> {
        let _ = params;
        None
    }

    /// The `inputResponses` and `requestState` of a retried request, for the methods whose
    /// server may answer with an `InputRequiredResult` ([`MethodInfo::may_require_input`]).
    fn retry_params(params: &Self::Params) -> Option<&dyn RetryParams> {
        let _ = params;
        None
    }
}

/// A notification method: its name, params type, and its row of the method table.
pub trait McpNotification {
    /// The method name (`"notifications/progress"`).
    const METHOD: &'static str;
    /// Where the method exists: its row of [`METHODS`].
    const INFO: MethodInfo;
    /// The params type.
    type Params: Serialize + DeserializeOwned + Send + Sync + 'static;
}

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

/// The params member that names what a request is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TargetField {
    /// `params.name`: a tool (`tools/call`) or a prompt (`prompts/get`).
    Name,
    /// `params.uri`: a resource (`resources/read`, `resources/subscribe`, …).
    Uri,
    /// `params.taskId`: a task (`tasks/get`, `tasks/update`, `tasks/cancel`).
    TaskId,
}

impl TargetField {
    /// The member's name in the params object.
    pub const fn as_str(self) -> &'static str {
        match self {
            TargetField::Name => "name",
            TargetField::Uri => "uri",
            TargetField::TaskId => "taskId",
        }
    }
}

/// The extension a method belongs to, from some version on (SEP-2133).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct ExtensionRow {
    /// The extension's identifier ([`crate::ext::TASKS`], …).
    pub id: &'static str,
    /// The first version in which the method belongs to the extension.
    pub since: ProtocolVersion,
    /// Whether the client must declare the extension (in the request's capabilities) to use
    /// the method; a server answers `-32021` otherwise.
    pub client_declares: bool,
}

/// One row of the method table: everything the protocol says about a method that code on
/// either side acts on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
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
    /// The params member naming what the request is about (a tool, a prompt, a resource).
    pub target: Option<TargetField>,
    /// Whether, on 2026-07-28 streamable HTTP, the `Mcp-Name` header mirrors the target.
    pub target_header: bool,
    /// Whether a 2026-07-28 server may answer with an `InputRequiredResult` (a multi
    /// round-trip request: the client answers the input requests and sends the request again).
    pub may_require_input: bool,
    /// Whether a 2026-07-28 result may carry cache hints (`ttlMs`, `cacheScope`).
    pub cacheable: bool,
    /// The extension the method belongs to, from [`ExtensionRow::since`] on. Before that
    /// version the row's `since` … `until` is where the method is core protocol; a method that
    /// only an extension defines has `since` equal to the extension's.
    pub extension: Option<ExtensionRow>,
    /// Whether a server may answer with a task (the tasks extension's `CreateTaskResult`).
    pub task_augmentable: bool,
}

impl MethodInfo {
    const fn new(direction: Direction, since: ProtocolVersion) -> Self {
        Self {
            method: "",
            kind: MethodKind::Request,
            direction,
            since,
            until: None,
            target: None,
            target_header: false,
            may_require_input: false,
            cacheable: false,
            extension: None,
            task_augmentable: false,
        }
    }

    const fn extension(
        mut self,
        id: &'static str,
        since: ProtocolVersion,
        client_declares: bool,
    ) -> Self {
        self.extension = Some(ExtensionRow {
            id,
            since,
            client_declares,
        });
        self
    }

    const fn task_augmentable(mut self) -> Self {
        self.task_augmentable = true;
        self
    }

    const fn until(mut self, version: ProtocolVersion) -> Self {
        self.until = Some(version);
        self
    }

    const fn target(mut self, field: TargetField) -> Self {
        self.target = Some(field);
        self
    }

    const fn named_in_header(mut self) -> Self {
        self.target_header = true;
        self
    }

    const fn may_require_input(mut self) -> Self {
        self.may_require_input = true;
        self
    }

    const fn cacheable(mut self) -> Self {
        self.cacheable = true;
        self
    }

    const fn named(mut self, method: &'static str, kind: MethodKind) -> Self {
        self.method = method;
        self.kind = kind;
        self
    }

    /// Whether the method is a JSON-RPC message of `version`, in the core protocol or in an
    /// extension.
    pub fn exists_in(&self, version: ProtocolVersion) -> bool {
        self.is_core_in(version) || self.extension_at(version).is_some()
    }

    /// Whether the method is a core protocol message of `version` (not an extension's).
    pub fn is_core_in(&self, version: ProtocolVersion) -> bool {
        version >= self.since
            && self.until.is_none_or(|u| version <= u)
            && self.extension_at(version).is_none()
    }

    /// The extension the method belongs to in `version`, if any.
    pub fn extension_at(&self, version: ProtocolVersion) -> Option<&ExtensionRow> {
        self.extension.as_ref().filter(|e| version >= e.since)
    }

    /// Whether the method exists only in the stateless era (2026-07-28 and later).
    pub fn is_stateless_only(&self) -> bool {
        !self.since.is_stateful()
    }
}

/// The method table: one row per method, each binding the marker type to its name, params,
/// result, eras, direction, target and flags. Generates the markers, their trait impls,
/// [`METHODS`] and [`method_info`].
macro_rules! methods {
    (
        requests {
            $(
                $(#[$rmeta:meta])*
                $request:ident = $rmethod:literal, $rparams:ty => $result:ty;
                    $rinfo:expr $(, target: $field:ident)? $(, input: $retry:ident)?;
            )+
        }
        notifications {
            $(
                $(#[$nmeta:meta])*
                $notification:ident = $nmethod:literal, $nparams:ty; $ninfo:expr;
            )+
        }
    ) => {
        $(
            $(#[$rmeta])*
            #[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
            pub struct $request;

            impl McpRequest for $request {
                const METHOD: &'static str = $rmethod;
                const INFO: MethodInfo = $rinfo $(.$retry())? .named($rmethod, MethodKind::Request);
                type Params = $rparams;
                type Result = $result;
                $(
                    fn target(params: &Self::Params) -> Option<&str> {
                        Some(&params.$field)
                    }
                )?
                $(
                    // `$retry` is `may_require_input`: such params carry the retry members.
                    fn retry_params(params: &Self::Params) -> Option<&dyn RetryParams> {
                        let _ = MethodInfo::$retry;
                        Some(params)
                    }
                )?
            }
        )+
        $(
            $(#[$nmeta])*
            #[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
            pub struct $notification;

            impl McpNotification for $notification {
                const METHOD: &'static str = $nmethod;
                const INFO: MethodInfo = $ninfo.named($nmethod, MethodKind::Notification);
                type Params = $nparams;
            }
        )+

        /// Every method of every version, requests first.
        pub const METHODS: &[MethodInfo] = &[
            $( <$request as McpRequest>::INFO, )+
            $( <$notification as McpNotification>::INFO, )+
        ];

        /// Where `method` exists, if it is a method of any version.
        pub fn method_info(method: &str) -> Option<&'static MethodInfo> {
            match method {
                $( $rmethod => Some(&<$request as McpRequest>::INFO), )+
                $( $nmethod => Some(&<$notification as McpNotification>::INFO), )+
                _ => None,
            }
        }
    };
}

use Direction::{Both, ClientToServer as C2S, ServerToClient as S2C};
use ProtocolVersion::{V2024_11_05 as V1, V2025_06_18 as V3, V2025_11_25 as V4, V2026_07_28 as V5};
use TargetField::{Name, TaskId, Uri};

const fn row(direction: Direction, since: ProtocolVersion) -> MethodInfo {
    MethodInfo::new(direction, since)
}

methods! {
    requests {
        /// `initialize` (client → server, 2024-11-05 … 2025-11-25).
        InitializeRequest = "initialize", InitializeRequestParams => InitializeResult;
            row(C2S, V1).until(V4);
        /// `ping` (both directions, 2024-11-05 … 2025-11-25). Params optional.
        PingRequest = "ping", RequestParams => EmptyResult;
            row(Both, V1).until(V4);
        /// `server/discover` (client → server, 2026-07-28).
        DiscoverRequest = "server/discover", RequestParams => DiscoverResult;
            row(C2S, V5).cacheable();
        /// `tools/list` (client → server). Params optional before 2026-07-28.
        ListToolsRequest = "tools/list", PaginatedRequestParams => ListToolsResult;
            row(C2S, V1).cacheable();
        /// `tools/call` (client → server). May yield an `InputRequiredResult` (2026-07-28) or a
        /// `CreateTaskResult` (2025-11-25, and the tasks extension).
        CallToolRequest = "tools/call", CallToolRequestParams => Outcome<CallToolResult>;
            row(C2S, V1).target(Name).named_in_header().task_augmentable(),
            target: name, input: may_require_input;
        /// `resources/list` (client → server). Params optional before 2026-07-28.
        ListResourcesRequest = "resources/list", PaginatedRequestParams => ListResourcesResult;
            row(C2S, V1).cacheable();
        /// `resources/templates/list` (client → server). Params optional before 2026-07-28.
        ListResourceTemplatesRequest = "resources/templates/list",
            PaginatedRequestParams => ListResourceTemplatesResult;
            row(C2S, V1).cacheable();
        /// `resources/read` (client → server). May yield an `InputRequiredResult` (2026-07-28).
        ReadResourceRequest = "resources/read",
            ReadResourceRequestParams => Outcome<ReadResourceResult>;
            row(C2S, V1).target(Uri).named_in_header().cacheable(), target: uri, input: may_require_input;
        /// `resources/subscribe` (client → server, 2024-11-05 … 2025-11-25).
        SubscribeRequest = "resources/subscribe", SubscribeRequestParams => EmptyResult;
            row(C2S, V1).until(V4).target(Uri), target: uri;
        /// `resources/unsubscribe` (client → server, 2024-11-05 … 2025-11-25).
        UnsubscribeRequest = "resources/unsubscribe", UnsubscribeRequestParams => EmptyResult;
            row(C2S, V1).until(V4).target(Uri), target: uri;
        /// `prompts/list` (client → server). Params optional before 2026-07-28.
        ListPromptsRequest = "prompts/list", PaginatedRequestParams => ListPromptsResult;
            row(C2S, V1).cacheable();
        /// `prompts/get` (client → server). May yield an `InputRequiredResult` (2026-07-28).
        GetPromptRequest = "prompts/get", GetPromptRequestParams => Outcome<GetPromptResult>;
            row(C2S, V1).target(Name).named_in_header(), target: name, input: may_require_input;
        /// `logging/setLevel` (client → server, 2024-11-05 … 2025-11-25).
        SetLevelRequest = "logging/setLevel", SetLevelRequestParams => EmptyResult;
            row(C2S, V1).until(V4);
        /// `completion/complete` (client → server).
        CompleteRequest = "completion/complete", CompleteRequestParams => CompleteResult;
            row(C2S, V1);
        /// `subscriptions/listen` (client → server, 2026-07-28).
        SubscriptionsListenRequest = "subscriptions/listen",
            SubscriptionsListenRequestParams => SubscriptionsListenResult;
            row(C2S, V5);
        /// `sampling/createMessage` (server → client; in 2026-07-28 only inside an
        /// `InputRequiredResult`). May yield a `CreateTaskResult` (2025-11-25).
        CreateMessageRequest = "sampling/createMessage",
            CreateMessageRequestParams => Outcome<CreateMessageResult>;
            row(S2C, V1).until(V4);
        /// `elicitation/create` (server → client, 2025-06-18+; in 2026-07-28 only inside an
        /// `InputRequiredResult`). May yield a `CreateTaskResult` (2025-11-25).
        ElicitRequest = "elicitation/create", ElicitRequestParams => Outcome<ElicitResult>;
            row(S2C, V3).until(V4);
        /// `roots/list` (server → client; in 2026-07-28 only inside an `InputRequiredResult`).
        /// Params optional.
        ListRootsRequest = "roots/list", RequestParams => ListRootsResult;
            row(S2C, V1).until(V4);
        /// `tasks/get` (both directions, 2025-11-25; client → server in the tasks extension,
        /// 2026-07-28).
        GetTaskRequest = "tasks/get", GetTaskRequestParams => TaskGetResult;
            row(Both, V4).target(TaskId).named_in_header().extension(TASKS, V5, true),
            target: task_id;
        /// `tasks/result` (both directions, 2025-11-25).
        GetTaskPayloadRequest = "tasks/result", GetTaskPayloadRequestParams => GetTaskPayloadResult;
            row(Both, V4).until(V4);
        /// `tasks/list` (both directions, 2025-11-25). Params optional.
        ListTasksRequest = "tasks/list", PaginatedRequestParams => ListTasksResult;
            row(Both, V4).until(V4);
        /// `tasks/cancel` (both directions, 2025-11-25; client → server in the tasks extension,
        /// 2026-07-28).
        CancelTaskRequest = "tasks/cancel", CancelTaskRequestParams => TaskCancelResult;
            row(Both, V4).target(TaskId).named_in_header().extension(TASKS, V5, true),
            target: task_id;
        /// `tasks/update` (client → server, the tasks extension, 2026-07-28).
        UpdateTaskRequest = "tasks/update", UpdateTaskRequestParams => EmptyResult;
            row(C2S, V5).target(TaskId).named_in_header().extension(TASKS, V5, true),
            target: task_id;
        /// `skills/list` (client → server, the skills extension, every era). Params optional.
        ListSkillsRequest = "skills/list", PaginatedRequestParams => ListSkillsResult;
            row(C2S, V1).cacheable().extension(SKILLS, V1, false);
        /// `skills/get` (client → server, the skills extension, every era).
        GetSkillRequest = "skills/get", GetSkillRequestParams => GetSkillResult;
            row(C2S, V1).target(Uri).cacheable().extension(SKILLS, V1, false), target: uri;
        /// `resources/directory/read` (client → server, the skills extension, every era; only
        /// when the server's settings say `directoryRead`).
        ReadDirectoryRequest = "resources/directory/read",
            ReadDirectoryRequestParams => ReadDirectoryResult;
            row(C2S, V1).target(Uri).extension(SKILLS, V1, false), target: uri;
    }
    notifications {
        /// `notifications/cancelled` (both directions).
        CancelledNotification = "notifications/cancelled", CancelledNotificationParams;
            row(Both, V1);
        /// `notifications/progress` (both directions; server → client in 2026-07-28).
        ProgressNotification = "notifications/progress", ProgressNotificationParams;
            row(Both, V1);
        /// `notifications/initialized` (client → server, 2024-11-05 … 2025-11-25). Params
        /// optional.
        InitializedNotification = "notifications/initialized", NotificationParams;
            row(C2S, V1).until(V4);
        /// `notifications/roots/list_changed` (client → server, 2024-11-05 … 2025-11-25).
        /// Params optional.
        RootsListChangedNotification = "notifications/roots/list_changed", NotificationParams;
            row(C2S, V1).until(V4);
        /// `notifications/message` (server → client).
        LoggingMessageNotification = "notifications/message", LoggingMessageNotificationParams;
            row(S2C, V1);
        /// `notifications/resources/updated` (server → client).
        ResourceUpdatedNotification = "notifications/resources/updated",
            ResourceUpdatedNotificationParams;
            row(S2C, V1);
        /// `notifications/resources/list_changed` (server → client). Params optional.
        ResourceListChangedNotification = "notifications/resources/list_changed",
            NotificationParams;
            row(S2C, V1);
        /// `notifications/tools/list_changed` (server → client). Params optional.
        ToolListChangedNotification = "notifications/tools/list_changed", NotificationParams;
            row(S2C, V1);
        /// `notifications/prompts/list_changed` (server → client). Params optional.
        PromptListChangedNotification = "notifications/prompts/list_changed", NotificationParams;
            row(S2C, V1);
        /// `notifications/elicitation/complete` (server → client, 2025-11-25 only).
        ElicitationCompleteNotification = "notifications/elicitation/complete",
            ElicitationCompleteNotificationParams;
            row(S2C, V4).until(V4);
        /// `notifications/tasks/status` (both directions, 2025-11-25).
        TaskStatusNotification = "notifications/tasks/status", TaskStatusNotificationParams;
            row(Both, V4).until(V4);
        /// `notifications/tasks` (server → client, the tasks extension, 2026-07-28).
        TaskNotification = "notifications/tasks", TaskNotificationParams;
            row(S2C, V5).extension(TASKS, V5, true);
        /// `notifications/subscriptions/acknowledged` (server → client, 2026-07-28).
        SubscriptionsAcknowledgedNotification = "notifications/subscriptions/acknowledged",
            SubscriptionsAcknowledgedNotificationParams;
            row(S2C, V5);
    }
}
