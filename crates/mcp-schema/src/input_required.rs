//! Multi round-trip requests (MRTR, 2026-07-28) and the result outcomes of requests.
//!
//! A 2026-07-28 server never sends requests of its own. When `tools/call`, `prompts/get` or
//! `resources/read` needs input (sampling, elicitation, roots), the server answers with an
//! [`InputRequiredResult`] (`resultType: "input_required"`) carrying [`InputRequests`] and/or an
//! opaque `requestState`; the client fulfils the requests and retries the original request, with
//! a new id, adding `inputResponses` and echoing `requestState` ([`RetryParams::prepare_retry`]).
//!
//! [`Outcome`] is what such a request yields: the complete result, an `InputRequiredResult`, or
//! (2025-11-25 task-augmented requests) a `CreateTaskResult`.

use std::collections::BTreeMap;

use serde::de::{self, DeserializeOwned};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use crate::common::{ResultType, has_member, str_member};
use crate::elicitation::{ElicitRequestParams, ElicitResult};
use crate::macros::{extensible, has_meta, value_union_serde};
use crate::messages::ServerRequest;
use crate::meta::Meta;
use crate::prompts::GetPromptRequestParams;
use crate::resources::ReadResourceRequestParams;
use crate::roots::ListRootsResult;
use crate::sampling::{CreateMessageRequestParams, CreateMessageResult};
use crate::tasks::CreateTaskResult;
use crate::tools::CallToolRequestParams;

/// A request the server needs the client to fulfil (`InputRequest`): `{ method, params }`
/// without a JSON-RPC id. 2026-07-28 allows `sampling/createMessage`, `elicitation/create` and
/// `roots/list`; other methods are parsed like any [`ServerRequest`].
#[derive(Debug, Clone, PartialEq)]
pub struct InputRequest {
    /// The method and params.
    pub request: ServerRequest,
    /// Other members of the request object (kept as received).
    pub extra: Map<String, Value>,
}

impl InputRequest {
    /// Wraps a server request.
    pub fn new(request: ServerRequest) -> Self {
        Self {
            request,
            extra: Map::new(),
        }
    }

    /// A `sampling/createMessage` input request.
    pub fn create_message(params: CreateMessageRequestParams) -> Self {
        Self::new(ServerRequest::CreateMessage(params))
    }

    /// An `elicitation/create` input request.
    pub fn elicit(params: impl Into<ElicitRequestParams>) -> Self {
        Self::new(ServerRequest::Elicit(params.into()))
    }

    /// A `roots/list` input request (no params).
    pub fn list_roots() -> Self {
        Self::new(ServerRequest::ListRoots(None))
    }

    /// The method name.
    pub fn method(&self) -> &str {
        self.request.method()
    }
}

impl Serialize for InputRequest {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        self.request.serialize_entries(&mut map)?;
        for (k, v) in &self.extra {
            if k != "method" && k != "params" {
                map.serialize_entry(k, v)?;
            }
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for InputRequest {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let mut extra = Map::<String, Value>::deserialize(deserializer)?;
        let method = match extra.remove("method") {
            Some(Value::String(m)) => m,
            Some(_) => return Err(de::Error::custom("\"method\" must be a string")),
            None => return Err(de::Error::missing_field("method")),
        };
        let params = extra.remove("params");
        let request = ServerRequest::from_parts(&method, params).map_err(de::Error::custom)?;
        Ok(Self { request, extra })
    }
}

/// Server-assigned keys to the requests the client must fulfil (`InputRequests`).
pub type InputRequests = BTreeMap<String, InputRequest>;

/// The client's result for one [`InputRequest`] (`InputResponse`), told apart by its members:
/// `action` (elicitation), `roots` (roots), `model` (sampling).
// Responses are few per retry; boxing would only add allocations.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum InputResponse {
    /// A `sampling/createMessage` result.
    CreateMessage(CreateMessageResult),
    /// A `roots/list` result.
    ListRoots(ListRootsResult),
    /// An `elicitation/create` result.
    Elicit(ElicitResult),
    /// Anything else, kept verbatim.
    Unknown(Value),
}

value_union_serde!(InputResponse, |v| if has_member(&v, "action") {
    serde_json::from_value(v).map(InputResponse::Elicit)
} else if has_member(&v, "roots") {
    serde_json::from_value(v).map(InputResponse::ListRoots)
} else if has_member(&v, "model") {
    serde_json::from_value(v).map(InputResponse::CreateMessage)
} else {
    Ok(InputResponse::Unknown(v))
});

impl From<CreateMessageResult> for InputResponse {
    fn from(r: CreateMessageResult) -> Self {
        InputResponse::CreateMessage(r)
    }
}
impl From<ListRootsResult> for InputResponse {
    fn from(r: ListRootsResult) -> Self {
        InputResponse::ListRoots(r)
    }
}
impl From<ElicitResult> for InputResponse {
    fn from(r: ElicitResult) -> Self {
        InputResponse::Elicit(r)
    }
}

/// The client's results, under the keys of the [`InputRequests`] they answer
/// (`InputResponses`).
pub type InputResponses = BTreeMap<String, InputResponse>;

/// The server needs input before it can complete the request (`InputRequiredResult`).
///
/// At least one of `input_requests` and `request_state` must be present.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InputRequiredResult {
    /// The requests to fulfil before retrying.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_requests: Option<InputRequests>,
    /// Opaque state to echo verbatim in the retry.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_state: Option<String>,
    /// `resultType` (`"input_required"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members not modelled here.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl InputRequiredResult {
    /// A result asking for `input_requests` (may be empty when only state is returned) with
    /// optional opaque state.
    pub fn new(input_requests: InputRequests, request_state: Option<String>) -> Self {
        Self {
            input_requests: (!input_requests.is_empty()).then_some(input_requests),
            request_state,
            result_type: Some(ResultType::InputRequired),
            meta: None,
            extra: Map::new(),
        }
    }
}

/// Params of a retry carrying input responses (`InputResponseRequestParams`). The requests
/// that accept retries embed these members directly ([`CallToolRequestParams`],
/// [`GetPromptRequestParams`], [`ReadResourceRequestParams`]); this type serves generic code.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InputResponseRequestParams {
    /// Answers to the previous [`InputRequests`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_responses: Option<InputResponses>,
    /// The previous `requestState`, echoed verbatim.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_state: Option<String>,
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members not modelled here.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Params that can carry a multi round-trip retry (`inputResponses` and `requestState`).
pub trait RetryParams {
    /// `inputResponses`.
    fn input_responses(&self) -> Option<&InputResponses>;
    /// `requestState`.
    fn request_state(&self) -> Option<&str>;
    /// `inputResponses`.
    fn input_responses_mut(&mut self) -> &mut Option<InputResponses>;
    /// `requestState`.
    fn request_state_mut(&mut self) -> &mut Option<String>;

    /// Turns these params into the retry of a request answered by `previous`: echoes its
    /// `requestState` exactly (or removes ours when it had none, as the spec requires) and sets
    /// `inputResponses` (removed when empty). Send the retry with a new request id.
    fn prepare_retry(&mut self, previous: &InputRequiredResult, responses: InputResponses) {
        *self.request_state_mut() = previous.request_state.clone();
        *self.input_responses_mut() = (!responses.is_empty()).then_some(responses);
    }
}

macro_rules! retry_params {
    ($($ty:ty),+) => {$(
        impl RetryParams for $ty {
            fn input_responses(&self) -> Option<&InputResponses> {
                self.input_responses.as_ref()
            }
            fn request_state(&self) -> Option<&str> {
                self.request_state.as_deref()
            }
            fn input_responses_mut(&mut self) -> &mut Option<InputResponses> {
                &mut self.input_responses
            }
            fn request_state_mut(&mut self) -> &mut Option<String> {
                &mut self.request_state
            }
        }
    )+};
}

retry_params!(
    CallToolRequestParams,
    GetPromptRequestParams,
    ReadResourceRequestParams,
    InputResponseRequestParams
);

/// What a request that may need more input (or run as a task) yields.
///
/// * [`Outcome::Complete`]: the ordinary result (any version).
/// * [`Outcome::InputRequired`]: 2026-07-28 `tools/call`, `prompts/get`, `resources/read`.
/// * [`Outcome::Task`]: 2025-11-25 task-augmented `tools/call`, `sampling/createMessage`,
///   `elicitation/create`.
/// * [`Outcome::TaskHandle`]: `tools/call` with the tasks extension (2026-07-28).
///
/// Parsing: `resultType: "input_required"` selects `InputRequired`, `resultType: "task"`
/// `TaskHandle`; otherwise the value is parsed as `T`, and if that fails but it has a `task`
/// member, as a 2025-11-25 `CreateTaskResult`.
/// Serializing writes the inner result unchanged. A handler can return `result.into()`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Outcome<T> {
    /// The complete result.
    Complete(T),
    /// More input is needed (2026-07-28).
    InputRequired(InputRequiredResult),
    /// The request now runs as a task (2025-11-25).
    Task(CreateTaskResult),
    /// The request now runs as a task (the tasks extension, 2026-07-28).
    TaskHandle(crate::ext::tasks::CreateTaskResult),
}

impl<T> Outcome<T> {
    /// The complete result, if this is one.
    pub fn complete(&self) -> Option<&T> {
        match self {
            Outcome::Complete(t) => Some(t),
            _ => None,
        }
    }

    /// The complete result, if this is one.
    pub fn into_complete(self) -> Option<T> {
        match self {
            Outcome::Complete(t) => Some(t),
            _ => None,
        }
    }

    /// The input request, if this is one.
    pub fn input_required(&self) -> Option<&InputRequiredResult> {
        match self {
            Outcome::InputRequired(r) => Some(r),
            _ => None,
        }
    }

    /// The created task, if this is one.
    pub fn task(&self) -> Option<&CreateTaskResult> {
        match self {
            Outcome::Task(r) => Some(r),
            _ => None,
        }
    }

    /// The task handle of the tasks extension, if this is one.
    pub fn task_handle(&self) -> Option<&crate::ext::tasks::CreateTaskResult> {
        match self {
            Outcome::TaskHandle(r) => Some(r),
            _ => None,
        }
    }

    /// True for [`Outcome::Complete`].
    pub fn is_complete(&self) -> bool {
        matches!(self, Outcome::Complete(_))
    }
}

impl<T> From<T> for Outcome<T> {
    fn from(t: T) -> Self {
        Outcome::Complete(t)
    }
}

impl<'de, T: DeserializeOwned> Deserialize<'de> for Outcome<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let v = Value::deserialize(deserializer)?;
        if str_member(&v, "resultType") == Some("input_required") {
            return serde_json::from_value(v)
                .map(Outcome::InputRequired)
                .map_err(de::Error::custom);
        }
        if str_member(&v, "resultType") == Some("task") {
            return serde_json::from_value(v)
                .map(Outcome::TaskHandle)
                .map_err(de::Error::custom);
        }
        match T::deserialize(&v) {
            Ok(t) => Ok(Outcome::Complete(t)),
            Err(e) if has_member(&v, "task") => serde_json::from_value(v)
                .map(Outcome::Task)
                .map_err(|_| de::Error::custom(e)),
            Err(e) => Err(de::Error::custom(e)),
        }
    }
}

has_meta!(InputRequiredResult, InputResponseRequestParams);
extensible!(InputRequiredResult, InputResponseRequestParams);
crate::macros::result_fields!(InputRequiredResult);
