//! Typed Model Context Protocol (MCP) messages for every protocol version — `2024-11-05`,
//! `2025-03-26`, `2025-06-18`, `2025-11-25` and `2026-07-28` — as plain serde types. No I/O:
//! framing and transports live in `mcp-jsonrpc`, this crate only says what the JSON means.
//!
//! # One family of types for five versions
//!
//! Versions mostly *add* members. Each schema type is one Rust type holding the union of its
//! members over all versions; members that not every version has are `Option`s skipped when
//! `None`, and their docs say which version introduced them (`title` since 2025-06-18, `icons`
//! since 2025-11-25, `ttlMs` / `cacheScope` / `resultType` in 2026-07-28, …). Sending to an
//! older peer means leaving the newer members `None`.
//!
//! Where the eras really differ, the types differ too (see [`version`]):
//!
//! * **Stateful** (2024-11-05 … 2025-11-25): the [`InitializeRequest`] handshake
//!   ([`InitializeRequestParams`], [`InitializeResult`], [`InitializedNotification`]), server
//!   requests ([`ServerRequest`]), `resources/subscribe`, `logging/setLevel`, `ping`, and in
//!   2025-11-25 [`tasks`] and URL elicitation.
//! * **Stateless** (2026-07-28): no handshake. Every request carries its protocol version and
//!   client capabilities in `params._meta` ([`Meta::for_request`],
//!   [`Meta::protocol_version`], [`Meta::client_capabilities`]); [`DiscoverRequest`] lists
//!   supported versions; servers ask for input with an [`InputRequiredResult`] instead of
//!   requests of their own ([`input_required`]); change notifications flow on a
//!   [`SubscriptionsListenRequest`] stream; results carry [`ResultType`] and cacheable ones
//!   `ttl_ms` / `cache_scope`.
//!
//! [`ProtocolVersion`] and [`Era`] name versions; [`version`] has the negotiation helpers for
//! both eras.
//!
//! # Nothing is lost
//!
//! Every object type keeps the members it does not model in an `extra` map
//! (`#[serde(flatten)]`), `_meta` is a [`Meta`] that keeps every key, numbers that may be
//! fractional are [`serde_json::Number`]s (so `50` stays `50`), and every union has an
//! `Unknown` variant holding the raw JSON of a shape this crate does not know (a content block
//! with a new `type`, a new elicitation mode, a new method). Parsing then serializing gives back
//! an equal JSON value, which is what a proxy needs. (The limits: an explicit `null` for an
//! optional member, which no schema allows, is dropped; an integer member must hold an integer.)
//!
//! Generic code reaches the common members through traits: [`HasMeta`] (`_meta` of any params,
//! result or data type), [`ResultFields`] (`resultType`), [`CacheHints`] (`ttlMs`,
//! `cacheScope`), [`RetryParams`] (`inputResponses`, `requestState`) and [`Extensible`] (the
//! unmodelled members).
//!
//! # Methods
//!
//! Each method has a marker type named after the schema's request or notification type,
//! binding the method name to its params and result types through [`McpRequest`] /
//! [`McpNotification`]; [`methods::METHODS`] says in which versions and directions each method
//! exists. For routing, [`ClientRequest`], [`ServerRequest`], [`ClientNotification`] and
//! [`ServerNotification`] parse any method from `(method, params)`, and [`ServerResult`] /
//! [`ClientResult`] parse a result given the method it answers. Requests that may need more
//! input or run as a task yield an [`Outcome`].
//!
//! # Example
//!
//! ```
//! use mcp_schema::{
//!     CallToolRequest, CallToolRequestParams, ClientCapabilities, ClientRequest, ContentBlock,
//!     Implementation, McpRequest, Meta, Outcome, JsonRpcRequest, V2026_07_28,
//! };
//! use serde_json::json;
//!
//! // A 2026-07-28 client builds a tools/call request; the per-request `_meta` carries the
//! // protocol version, the client identity and its capabilities.
//! let meta = Meta::for_request(
//!     V2026_07_28,
//!     Some(&Implementation::new("example-client", "1.0.0")),
//!     &ClientCapabilities::default(),
//! );
//! let mut params = CallToolRequestParams::new("get_weather").with_argument("city", "Paris");
//! params.meta = Some(meta);
//! let request = JsonRpcRequest::of::<CallToolRequest>(1, params);
//! let wire = serde_json::to_value(&request).unwrap();
//! assert_eq!(wire["method"], "tools/call");
//! assert_eq!(wire["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"], "2026-07-28");
//!
//! // A server routes it by method.
//! let routed = ClientRequest::from_parts("tools/call", Some(wire["params"].clone())).unwrap();
//! let ClientRequest::CallTool(p) = routed else { unreachable!() };
//! assert_eq!(p.meta.unwrap().protocol_version(), Some("2026-07-28"));
//!
//! // The client reads the result: complete, or (2026-07-28) a request for more input.
//! let result = json!({
//!     "resultType": "complete",
//!     "content": [
//!         {"type": "text", "text": "18°C, partly cloudy"},
//!         {"type": "hologram", "data": "…"}
//!     ],
//!     "structuredContent": {"temperature": 18},
//!     "_meta": {"com.example/trace": "abc"}
//! });
//! let outcome: <CallToolRequest as McpRequest>::Result =
//!     serde_json::from_value(result.clone()).unwrap();
//! let Outcome::Complete(r) = &outcome else { panic!("input required") };
//! assert_eq!(r.content[0].as_text(), Some("18°C, partly cloudy"));
//! assert!(matches!(r.content[1], ContentBlock::Unknown(_))); // a future content type
//! assert!(!r.is_error());
//! // Nothing was lost.
//! assert_eq!(serde_json::to_value(&outcome).unwrap(), result);
//! ```
//!
//! # Modules
//!
//! | module | contents |
//! |--------|----------|
//! | [`version`] | version constants, [`ProtocolVersion`], [`Era`], negotiation |
//! | [`meta`] | [`Meta`] and the reserved `_meta` keys, [`HasMeta`] |
//! | [`error`] | MCP error codes, typed error data ([`ErrorData`]) |
//! | [`common`] | [`Implementation`], [`Icon`], [`Annotations`], [`Role`], [`EmptyResult`], [`RequestParams`], [`ResultFields`], … |
//! | [`capabilities`] | [`ClientCapabilities`], [`ServerCapabilities`] |
//! | [`content`] | [`ContentBlock`] and its blocks, [`ResourceContents`] |
//! | [`tools`], [`resources`], [`prompts`], [`completion`], [`logging`] | server features; [`StructuredContent`] of tool results |
//! | [`sampling`], [`elicitation`], [`roots`] | client features |
//! | [`lifecycle`], [`discover`] | `initialize` (stateful) and `server/discover` (stateless) |
//! | [`subscriptions`], [`input_required`], [`tasks`] | `subscriptions/listen`, multi round-trip requests (MRTR) and [`Outcome`], tasks |
//! | [`notifications`], [`pagination`] | cancellation and progress, cursors |
//! | [`methods`], [`messages`] | [`McpRequest`] / [`McpNotification`] markers, typed method unions |
//! | [`envelope`] | typed JSON-RPC envelopes |
//! | [`headers`] | the 2026-07-28 HTTP headers mirroring a request (`Mcp-Method`, `Mcp-Name`, `Mcp-Param-*`) |
//! | [`tags`] | the constant `type` / `mode` / `jsonrpc` discriminators |

mod macros;

pub mod authorization;
pub mod capabilities;
pub mod common;
pub mod completion;
pub mod content;
pub mod discover;
pub mod elicitation;
pub mod envelope;
pub mod error;
pub mod ext;
pub mod headers;
pub mod input_required;
pub mod lifecycle;
pub mod logging;
pub mod messages;
pub mod meta;
pub mod methods;
pub mod notifications;
pub mod pagination;
pub mod prompts;
pub mod resources;
pub mod roots;
pub mod sampling;
pub mod structured;
pub mod subscriptions;
pub mod tags;
pub mod tasks;
pub mod tools;
pub mod version;

pub use capabilities::*;
pub use common::*;
pub use completion::*;
pub use content::*;
pub use discover::*;
pub use elicitation::*;
pub use envelope::*;
pub use error::*;
pub use input_required::*;
pub use lifecycle::*;
pub use logging::*;
pub use messages::*;
pub use meta::{HasMeta, Meta, ProgressToken, RequestId};
pub use methods::{
    CallToolRequest, CancelTaskRequest, CancelledNotification, CompleteRequest,
    CreateMessageRequest, DiscoverRequest, ElicitRequest, ElicitationCompleteNotification,
    GetPromptRequest, GetSkillRequest, GetTaskPayloadRequest, GetTaskRequest, InitializeRequest,
    InitializedNotification, ListPromptsRequest, ListResourceTemplatesRequest,
    ListResourcesRequest, ListRootsRequest, ListSkillsRequest, ListTasksRequest, ListToolsRequest,
    LoggingMessageNotification, PingRequest, ProgressNotification, PromptListChangedNotification,
    ReadDirectoryRequest, ReadResourceRequest, ResourceListChangedNotification,
    ResourceUpdatedNotification, RootsListChangedNotification, SetLevelRequest, SubscribeRequest,
    SubscriptionsAcknowledgedNotification, SubscriptionsListenRequest, TaskNotification,
    TaskStatusNotification, ToolListChangedNotification, UnsubscribeRequest, UpdateTaskRequest,
};
pub use methods::{McpNotification, McpRequest};
pub use notifications::*;
pub use pagination::*;
pub use prompts::*;
pub use resources::*;
pub use roots::*;
pub use sampling::*;
pub use structured::StructuredContent;
pub use subscriptions::*;
pub use tasks::*;
pub use tools::*;
pub use version::{
    Era, LATEST, ProtocolVersion, SUPPORTED, V2024_11_05, V2025_03_26, V2025_06_18, V2025_11_25,
    V2026_07_28,
};
