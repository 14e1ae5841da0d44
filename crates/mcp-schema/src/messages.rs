//! Typed unions over every method, for routers and proxies: [`ClientRequest`],
//! [`ServerRequest`], [`ClientNotification`], [`ServerNotification`], and the result unions
//! [`ClientResult`] / [`ServerResult`].
//!
//! The message unions parse from a method name and its params ([`ClientRequest::from_parts`],
//! or [`ClientRequest::from_raw`] straight from the raw params `mcp-jsonrpc` hands over). A
//! method this crate does not know becomes `Unknown { method, params }` rather than an error, so
//! a proxy can forward it; a known method with malformed params is an error (answer `-32602`).
//! Variants of methods whose params are optional hold `Option<Params>`, so that absent params
//! stay absent when the message is re-sent.
//!
//! Each union serializes as `{"method": …, "params": …}` (params omitted when absent) and
//! parses from that shape, ignoring other members: for whole messages with every member kept,
//! use the [`envelope`](crate::envelope) types (or [`InputRequest`](crate::InputRequest) for
//! 2026-07-28 input requests).

use serde::de::{self, DeserializeOwned};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::common::{EmptyResult, NotificationParams, RequestParams, ResultFields};
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
use crate::input_required::Outcome;
use crate::input_required::RetryParams;
use crate::lifecycle::{InitializeRequestParams, InitializeResult};
use crate::logging::{LoggingMessageNotificationParams, SetLevelRequestParams};
use crate::meta::{HasMeta, Meta};
use crate::methods::*;
use crate::notifications::{CancelledNotificationParams, ProgressNotificationParams};
use crate::pagination::PaginatedRequestParams;
use crate::prompts::{GetPromptRequestParams, GetPromptResult, ListPromptsResult};
use crate::resources::{
    ListResourceTemplatesResult, ListResourcesResult, ReadResourceRequestParams,
    ReadResourceResult, ResourceRequestParams, ResourceUpdatedNotificationParams,
};
use crate::roots::ListRootsResult;
use crate::sampling::{CreateMessageRequestParams, CreateMessageResult};
use crate::subscriptions::{
    SubscriptionsAcknowledgedNotificationParams, SubscriptionsListenRequestParams,
    SubscriptionsListenResult,
};
use crate::tasks::{
    GetTaskPayloadResult, GetTaskRequestParams, ListTasksResult, TaskStatusNotificationParams,
};
use crate::tools::{CallToolRequestParams, CallToolResult, ListToolsResult};

fn required_from_value<P: DeserializeOwned>(params: Option<Value>) -> Result<P, serde_json::Error> {
    match params {
        None | Some(Value::Null) => P::deserialize(Value::Object(Map::new())),
        Some(v) => P::deserialize(v),
    }
}

fn optional_from_value<P: DeserializeOwned>(
    params: Option<Value>,
) -> Result<Option<P>, serde_json::Error> {
    match params {
        None | Some(Value::Null) => Ok(None),
        Some(v) => P::deserialize(v).map(Some),
    }
}

fn required_from_raw<P: DeserializeOwned>(
    params: Option<&RawValue>,
) -> Result<P, serde_json::Error> {
    match params {
        Some(raw) if raw.get() != "null" => serde_json::from_str(raw.get()),
        _ => serde_json::from_str("{}"),
    }
}

fn optional_from_raw<P: DeserializeOwned>(
    params: Option<&RawValue>,
) -> Result<Option<P>, serde_json::Error> {
    match params {
        Some(raw) if raw.get() != "null" => serde_json::from_str(raw.get()).map(Some),
        _ => Ok(None),
    }
}

macro_rules! method_enum {
    (@ty req $p:ty) => { $p };
    (@ty opt $p:ty) => { Option<$p> };
    (@from_value req $p:ty, $params:expr) => { required_from_value::<$p>($params) };
    (@from_value opt $p:ty, $params:expr) => { optional_from_value::<$p>($params) };
    (@from_raw req $p:ty, $params:expr) => { required_from_raw::<$p>($params) };
    (@from_raw opt $p:ty, $params:expr) => { optional_from_raw::<$p>($params) };
    (@ser req $map:expr, $p:expr) => { $map.serialize_entry("params", $p)? };
    (@ser opt $map:expr, $p:expr) => {
        if let Some(p) = $p {
            $map.serialize_entry("params", p)?
        }
    };
    (@value req $p:expr) => { Some(serde_json::to_value($p)?) };
    (@value opt $p:expr) => { $p.as_ref().map(serde_json::to_value).transpose()? };
    (@target McpRequest, req $marker:ty, $p:expr) => { <$marker as McpRequest>::target($p) };
    (@target McpRequest, opt $marker:ty, $p:expr) => {
        $p.as_ref().and_then(|p| <$marker as McpRequest>::target(p))
    };
    (@retry McpRequest, req $marker:ty, $p:expr) => { <$marker as McpRequest>::retry_params($p) };
    (@retry McpRequest, opt $marker:ty, $p:expr) => {
        $p.as_ref().and_then(|p| <$marker as McpRequest>::retry_params(p))
    };
    (@retry McpNotification, $kind:ident $marker:ty, $p:expr) => {{
        let _ = $p;
        None
    }};
    (@meta req $p:expr) => { ParamsMeta::params_meta($p) };
    (@meta opt $p:expr) => { $p.as_ref().and_then(ParamsMeta::params_meta) };
    (@target McpNotification, $kind:ident $marker:ty, $p:expr) => {{
        let _ = $p;
        None
    }};
    (
        $(#[$meta:meta])*
        pub enum $name:ident: $trait:ident {
            $( $(#[$vmeta:meta])* $variant:ident($marker:ident, $kind:ident $params:ty), )+
        }
    ) => {
        $(#[$meta])*
        // A message is parsed once and moved into its handler: boxing the params would cost an
        // allocation per message to save a few hundred bytes of stack.
        #[allow(clippy::large_enum_variant)]
        #[derive(Debug, Clone, PartialEq)]
        pub enum $name {
            $( $(#[$vmeta])* $variant(method_enum!(@ty $kind $params)), )+
            /// A method this crate does not know, kept verbatim.
            Unknown {
                /// The method name.
                method: String,
                /// The params, as received.
                params: Option<Value>,
            },
        }

        // Each variant's params type is the one its marker binds.
        const _: () = {
            $(
                #[allow(dead_code, non_snake_case)]
                fn $variant(p: $params) -> <$marker as $trait>::Params {
                    p
                }
            )+
        };

        impl $name {
            /// The method name.
            pub fn method(&self) -> &str {
                match self {
                    $( Self::$variant(_) => <$marker as $trait>::METHOD, )+
                    Self::Unknown { method, .. } => method,
                }
            }

            /// The method's row of the method table (`None` for `Unknown`).
            pub fn info(&self) -> Option<&'static MethodInfo> {
                match self {
                    $( Self::$variant(_) => Some(&<$marker as $trait>::INFO), )+
                    Self::Unknown { .. } => None,
                }
            }

            /// What the message is about: the value of the params member the method table
            /// names as the method's target (`name` of `tools/call`, `uri` of
            /// `resources/read`), when the method has one.
            pub fn target(&self) -> Option<&str> {
                match self {
                    $( Self::$variant(p) => method_enum!(@target $trait, $kind $marker, p), )+
                    Self::Unknown { .. } => None,
                }
            }

            /// The `inputResponses` and `requestState` of a retried request, for the methods
            /// whose server may answer with an `InputRequiredResult`.
            pub fn retry_params(&self) -> Option<&dyn RetryParams> {
                match self {
                    $( Self::$variant(p) => method_enum!(@retry $trait, $kind $marker, p), )+
                    Self::Unknown { .. } => None,
                }
            }

            /// The params' `_meta` (`None` when absent, and for `Unknown`, whose params are
            /// kept as raw JSON).
            pub fn meta(&self) -> Option<&Meta> {
                match self {
                    $( Self::$variant(p) => method_enum!(@meta $kind p), )+
                    Self::Unknown { .. } => None,
                }
            }

            /// True unless this is `Unknown`.
            pub fn is_known(&self) -> bool {
                !matches!(self, Self::Unknown { .. })
            }

            /// Parses a method and its params (`None` when the message has no `params`).
            pub fn from_parts(method: &str, params: Option<Value>) -> Result<Self, serde_json::Error> {
                Ok(match method {
                    $( <$marker as $trait>::METHOD => {
                        Self::$variant(method_enum!(@from_value $kind $params, params)?)
                    } )+
                    _ => Self::Unknown { method: method.to_owned(), params },
                })
            }

            /// Parses a method and its raw params, without building a JSON tree for known
            /// methods.
            pub fn from_raw(method: &str, params: Option<&RawValue>) -> Result<Self, serde_json::Error> {
                Ok(match method {
                    $( <$marker as $trait>::METHOD => {
                        Self::$variant(method_enum!(@from_raw $kind $params, params)?)
                    } )+
                    _ => Self::Unknown {
                        method: method.to_owned(),
                        params: params.map(|p| serde_json::from_str(p.get())).transpose()?,
                    },
                })
            }

            /// The params as JSON (`None` when absent).
            pub fn params_value(&self) -> Result<Option<Value>, serde_json::Error> {
                Ok(match self {
                    $( Self::$variant(p) => method_enum!(@value $kind p), )+
                    Self::Unknown { params, .. } => params.clone(),
                })
            }

            /// Writes the `method` and `params` entries into a map being serialized.
            pub fn serialize_entries<M: SerializeMap>(&self, map: &mut M) -> Result<(), M::Error> {
                map.serialize_entry("method", self.method())?;
                match self {
                    $( Self::$variant(p) => { method_enum!(@ser $kind map, p); } )+
                    Self::Unknown { params, .. } => {
                        if let Some(p) = params {
                            map.serialize_entry("params", p)?;
                        }
                    }
                }
                Ok(())
            }
        }


        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                let mut map = serializer.serialize_map(None)?;
                self.serialize_entries(&mut map)?;
                map.end()
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let mut map = Map::<String, Value>::deserialize(deserializer)?;
                let method = match map.remove("method") {
                    Some(Value::String(m)) => m,
                    Some(_) => return Err(de::Error::custom("\"method\" must be a string")),
                    None => return Err(de::Error::missing_field("method")),
                };
                Self::from_parts(&method, map.remove("params")).map_err(de::Error::custom)
            }
        }
    };
}

method_enum! {
    /// A request a client sends to a server (`ClientRequest`, over all versions).
    pub enum ClientRequest: McpRequest {
        /// `initialize`.
        Initialize(InitializeRequest, req InitializeRequestParams),
        /// `ping`.
        Ping(PingRequest, opt RequestParams),
        /// `server/discover`.
        Discover(DiscoverRequest, req RequestParams),
        /// `tools/list`.
        ListTools(ListToolsRequest, opt PaginatedRequestParams),
        /// `tools/call`.
        CallTool(CallToolRequest, req CallToolRequestParams),
        /// `resources/list`.
        ListResources(ListResourcesRequest, opt PaginatedRequestParams),
        /// `resources/templates/list`.
        ListResourceTemplates(ListResourceTemplatesRequest, opt PaginatedRequestParams),
        /// `resources/read`.
        ReadResource(ReadResourceRequest, req ReadResourceRequestParams),
        /// `resources/subscribe`.
        Subscribe(SubscribeRequest, req ResourceRequestParams),
        /// `resources/unsubscribe`.
        Unsubscribe(UnsubscribeRequest, req ResourceRequestParams),
        /// `prompts/list`.
        ListPrompts(ListPromptsRequest, opt PaginatedRequestParams),
        /// `prompts/get`.
        GetPrompt(GetPromptRequest, req GetPromptRequestParams),
        /// `logging/setLevel`.
        SetLevel(SetLevelRequest, req SetLevelRequestParams),
        /// `completion/complete`.
        Complete(CompleteRequest, req CompleteRequestParams),
        /// `subscriptions/listen`.
        SubscriptionsListen(SubscriptionsListenRequest, req SubscriptionsListenRequestParams),
        /// `tasks/get`.
        GetTask(GetTaskRequest, req GetTaskRequestParams),
        /// `tasks/result`.
        GetTaskPayload(GetTaskPayloadRequest, req GetTaskRequestParams),
        /// `tasks/list`.
        ListTasks(ListTasksRequest, opt PaginatedRequestParams),
        /// `tasks/cancel`.
        CancelTask(CancelTaskRequest, req GetTaskRequestParams),
        /// `tasks/update`.
        UpdateTask(UpdateTaskRequest, req UpdateTaskRequestParams),
        /// `skills/list`.
        ListSkills(ListSkillsRequest, opt PaginatedRequestParams),
        /// `skills/get`.
        GetSkill(GetSkillRequest, req GetSkillRequestParams),
        /// `resources/directory/read`.
        ReadDirectory(ReadDirectoryRequest, req ReadDirectoryRequestParams),
    }
}

method_enum! {
    /// A request a server sends to a client (`ServerRequest`, stateful versions; also the
    /// requests inside a 2026-07-28 [`InputRequest`](crate::InputRequest)).
    pub enum ServerRequest: McpRequest {
        /// `ping`.
        Ping(PingRequest, opt RequestParams),
        /// `sampling/createMessage`.
        CreateMessage(CreateMessageRequest, req CreateMessageRequestParams),
        /// `elicitation/create`.
        Elicit(ElicitRequest, req ElicitRequestParams),
        /// `roots/list`.
        ListRoots(ListRootsRequest, opt RequestParams),
        /// `tasks/get`.
        GetTask(GetTaskRequest, req GetTaskRequestParams),
        /// `tasks/result`.
        GetTaskPayload(GetTaskPayloadRequest, req GetTaskRequestParams),
        /// `tasks/list`.
        ListTasks(ListTasksRequest, opt PaginatedRequestParams),
        /// `tasks/cancel`.
        CancelTask(CancelTaskRequest, req GetTaskRequestParams),
    }
}

method_enum! {
    /// A notification a client sends to a server (`ClientNotification`, over all versions).
    pub enum ClientNotification: McpNotification {
        /// `notifications/cancelled`.
        Cancelled(CancelledNotification, req CancelledNotificationParams),
        /// `notifications/progress`.
        Progress(ProgressNotification, req ProgressNotificationParams),
        /// `notifications/initialized`.
        Initialized(InitializedNotification, opt NotificationParams),
        /// `notifications/roots/list_changed`.
        RootsListChanged(RootsListChangedNotification, opt NotificationParams),
        /// `notifications/tasks/status`.
        TaskStatus(TaskStatusNotification, req TaskStatusNotificationParams),
    }
}

method_enum! {
    /// A notification a server sends to a client (`ServerNotification`, over all versions).
    pub enum ServerNotification: McpNotification {
        /// `notifications/cancelled`.
        Cancelled(CancelledNotification, req CancelledNotificationParams),
        /// `notifications/progress`.
        Progress(ProgressNotification, req ProgressNotificationParams),
        /// `notifications/message`.
        LoggingMessage(LoggingMessageNotification, req LoggingMessageNotificationParams),
        /// `notifications/resources/updated`.
        ResourceUpdated(ResourceUpdatedNotification, req ResourceUpdatedNotificationParams),
        /// `notifications/resources/list_changed`.
        ResourceListChanged(ResourceListChangedNotification, opt NotificationParams),
        /// `notifications/tools/list_changed`.
        ToolListChanged(ToolListChangedNotification, opt NotificationParams),
        /// `notifications/prompts/list_changed`.
        PromptListChanged(PromptListChangedNotification, opt NotificationParams),
        /// `notifications/elicitation/complete`.
        ElicitationComplete(ElicitationCompleteNotification, req ElicitationCompleteNotificationParams),
        /// `notifications/tasks/status`.
        TaskStatus(TaskStatusNotification, req TaskStatusNotificationParams),
        /// `notifications/tasks`.
        Task(TaskNotification, req TaskNotificationParams),
        /// `notifications/subscriptions/acknowledged`.
        SubscriptionsAcknowledged(SubscriptionsAcknowledgedNotification, req SubscriptionsAcknowledgedNotificationParams),
    }
}

/// The `_meta` of any params type (elicitation params are a union whose unknown modes are kept
/// as raw JSON, so they have no `HasMeta`).
trait ParamsMeta {
    fn params_meta(&self) -> Option<&Meta>;
}

impl<T: HasMeta> ParamsMeta for T {
    fn params_meta(&self) -> Option<&Meta> {
        self.meta()
    }
}

impl ParamsMeta for ElicitRequestParams {
    fn params_meta(&self) -> Option<&Meta> {
        match self {
            ElicitRequestParams::Form(p) => p.meta(),
            ElicitRequestParams::Url(p) => p.meta(),
            ElicitRequestParams::Unknown(_) => None,
        }
    }
}

/// A result, or an [`Outcome`] of one: the complete result inside, if any.
trait AsComplete {
    fn as_complete(&self) -> Option<&dyn ResultFields>;
    fn as_complete_mut(&mut self) -> Option<&mut dyn ResultFields>;
}

impl<T: ResultFields> AsComplete for T {
    fn as_complete(&self) -> Option<&dyn ResultFields> {
        Some(self)
    }
    fn as_complete_mut(&mut self) -> Option<&mut dyn ResultFields> {
        Some(self)
    }
}

impl<T: ResultFields> AsComplete for Outcome<T> {
    fn as_complete(&self) -> Option<&dyn ResultFields> {
        match self {
            Outcome::Complete(r) => Some(r),
            _ => None,
        }
    }
    fn as_complete_mut(&mut self) -> Option<&mut dyn ResultFields> {
        match self {
            Outcome::Complete(r) => Some(r),
            _ => None,
        }
    }
}

/// The payload of `tasks/result` (2025-11-25 only) has no common result members of its own.
impl AsComplete for GetTaskPayloadResult {
    fn as_complete(&self) -> Option<&dyn ResultFields> {
        None
    }
    fn as_complete_mut(&mut self) -> Option<&mut dyn ResultFields> {
        None
    }
}

macro_rules! result_enum {
    (
        $(#[$meta:meta])*
        pub enum $name:ident {
            $( $(#[$vmeta:meta])* $variant:ident($ty:ty) = [$($marker:ident),+], )+
        }
    ) => {
        $(#[$meta])*
        #[allow(clippy::large_enum_variant)] // as for the message unions
        #[derive(Debug, Clone, PartialEq, Serialize)]
        #[serde(untagged)]
        pub enum $name {
            $( $(#[$vmeta])* $variant($ty), )+
            /// The result of a method this crate does not know, kept verbatim.
            Unknown(Value),
        }

        // Each variant's type is the result type its markers bind.
        const _: () = {
            $($(
                #[allow(dead_code, non_snake_case)]
                fn $marker(r: <$marker as McpRequest>::Result) -> $ty {
                    r
                }
            )+)+
        };

        impl $name {
            /// The complete result, for the common result members (`resultType`, `_meta`,
            /// and the cache hints of cacheable results): `None` for an `InputRequiredResult`
            /// or a task, and for `Unknown`.
            pub fn complete(&self) -> Option<&dyn ResultFields> {
                match self {
                    $( Self::$variant(r) => r.as_complete(), )+
                    Self::Unknown(_) => None,
                }
            }

            /// [`Self::complete`], for modification.
            pub fn complete_mut(&mut self) -> Option<&mut dyn ResultFields> {
                match self {
                    $( Self::$variant(r) => r.as_complete_mut(), )+
                    Self::Unknown(_) => None,
                }
            }

            /// Parses the result of a request for `method`.
            pub fn parse(method: &str, result: Value) -> Result<Self, serde_json::Error> {
                Ok(match method {
                    $($( <$marker as McpRequest>::METHOD )|+ => Self::$variant(serde_json::from_value(result)?), )+
                    _ => Self::Unknown(result),
                })
            }

            /// Parses the raw result of a request for `method`.
            pub fn parse_raw(method: &str, result: &RawValue) -> Result<Self, serde_json::Error> {
                Ok(match method {
                    $($( <$marker as McpRequest>::METHOD )|+ => Self::$variant(serde_json::from_str(result.get())?), )+
                    _ => Self::Unknown(serde_json::from_str(result.get())?),
                })
            }
        }
    };
}

result_enum! {
    /// A result a server returns to a client (`ServerResult`, over all versions).
    pub enum ServerResult {
        /// `initialize`.
        Initialize(InitializeResult) = [InitializeRequest],
        /// `ping`, `resources/subscribe`, `resources/unsubscribe`, `logging/setLevel`,
        /// `tasks/update`.
        Empty(EmptyResult) = [
            PingRequest, SubscribeRequest, UnsubscribeRequest, SetLevelRequest, UpdateTaskRequest
        ],
        /// `server/discover`.
        Discover(DiscoverResult) = [DiscoverRequest],
        /// `tools/list`.
        ListTools(ListToolsResult) = [ListToolsRequest],
        /// `tools/call`.
        CallTool(Outcome<CallToolResult>) = [CallToolRequest],
        /// `resources/list`.
        ListResources(ListResourcesResult) = [ListResourcesRequest],
        /// `resources/templates/list`.
        ListResourceTemplates(ListResourceTemplatesResult) = [ListResourceTemplatesRequest],
        /// `resources/read`.
        ReadResource(Outcome<ReadResourceResult>) = [ReadResourceRequest],
        /// `prompts/list`.
        ListPrompts(ListPromptsResult) = [ListPromptsRequest],
        /// `prompts/get`.
        GetPrompt(Outcome<GetPromptResult>) = [GetPromptRequest],
        /// `completion/complete`.
        Complete(CompleteResult) = [CompleteRequest],
        /// `subscriptions/listen`.
        SubscriptionsListen(SubscriptionsListenResult) = [SubscriptionsListenRequest],
        /// `tasks/get`.
        TaskGet(TaskGetResult) = [GetTaskRequest],
        /// `tasks/cancel`.
        TaskCancel(TaskCancelResult) = [CancelTaskRequest],
        /// `tasks/result`.
        TaskPayload(GetTaskPayloadResult) = [GetTaskPayloadRequest],
        /// `tasks/list`.
        ListTasks(ListTasksResult) = [ListTasksRequest],
        /// `skills/list`.
        ListSkills(ListSkillsResult) = [ListSkillsRequest],
        /// `skills/get`.
        GetSkill(GetSkillResult) = [GetSkillRequest],
        /// `resources/directory/read`.
        ReadDirectory(ReadDirectoryResult) = [ReadDirectoryRequest],
    }
}

result_enum! {
    /// A result a client returns to a server (`ClientResult`, over all versions).
    pub enum ClientResult {
        /// `ping`.
        Empty(EmptyResult) = [PingRequest],
        /// `sampling/createMessage`.
        CreateMessage(Outcome<CreateMessageResult>) = [CreateMessageRequest],
        /// `elicitation/create`.
        Elicit(Outcome<ElicitResult>) = [ElicitRequest],
        /// `roots/list`.
        ListRoots(ListRootsResult) = [ListRootsRequest],
        /// `tasks/get`.
        TaskGet(TaskGetResult) = [GetTaskRequest],
        /// `tasks/cancel`.
        TaskCancel(TaskCancelResult) = [CancelTaskRequest],
        /// `tasks/result`.
        TaskPayload(GetTaskPayloadResult) = [GetTaskPayloadRequest],
        /// `tasks/list`.
        ListTasks(ListTasksResult) = [ListTasksRequest],
    }
}
