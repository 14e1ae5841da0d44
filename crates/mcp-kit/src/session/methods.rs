//! Typed helpers for every client→server method of both eras.

use std::future::Future;

use mcp_schema::{
    CallToolRequest, CallToolResult, CompleteRequest, CompleteRequestParams, CompleteResult,
    DiscoverRequest, DiscoverResult, Era, GetPromptRequest, GetPromptResult, ListPromptsRequest,
    ListPromptsResult, ListResourceTemplatesRequest, ListResourceTemplatesResult,
    ListResourcesRequest, ListResourcesResult, ListToolsRequest, ListToolsResult, LoggingLevel,
    McpRequest, PingRequest, Prompt, ReadResourceRequest, ReadResourceResult, Resource,
    ResourceTemplate, SetLevelRequest, SubscribeRequest, Tool, UnsubscribeRequest,
};
use serde_json::{Map, Value, json};
use tokio::sync::mpsc;

use super::request::ProgressUpdate;
use super::{Session, from_result};
use crate::Error;

/// The most pages the `list_all_*` methods follow before giving up on a server whose
/// cursors never end.
pub(super) const MAX_PAGES: usize = 1000;

fn cursor_params(cursor: Option<&str>) -> Option<Value> {
    cursor.map(|c| json!({ "cursor": c }))
}

impl Session {
    /// Checks that the server answers, in either era: `ping` where the negotiated version
    /// has it; otherwise (2026-07-28 has no `ping`) `server/discover`, the request every
    /// stateless server answers.
    pub async fn ping(&self) -> Result<(), Error> {
        let has_ping = mcp_schema::ProtocolVersion::parse(self.protocol_version())
            .zip(mcp_schema::methods::method_info(PingRequest::METHOD))
            .is_none_or(|(version, ping)| ping.exists_in(version));
        if has_ping {
            self.request(PingRequest::METHOD, None).await.map(drop)
        } else {
            self.discover().await.map(drop)
        }
    }

    /// `tools/list`, one page.
    ///
    /// In the 2026-07-28 era over streamable HTTP, a tool whose `x-mcp-header` declarations
    /// are invalid is left out (with a warning), as the transport requires; the valid
    /// declarations are remembered so that [`call_tool`](Self::call_tool) mirrors those
    /// parameters into `Mcp-Param-*` headers.
    pub async fn list_tools(&self, cursor: Option<&str>) -> Result<ListToolsResult, Error> {
        let value = self
            .request(ListToolsRequest::METHOD, cursor_params(cursor))
            .await?;
        let mut result: ListToolsResult = from_result(ListToolsRequest::METHOD, value)?;
        if self.shared.http && self.negotiated.era() == mcp_schema::Era::Stateless {
            self.screen_tools(&mut result.tools);
        }
        Ok(result)
    }

    /// `tools/list`, following `nextCursor` until the last page.
    pub async fn list_all_tools(&self) -> Result<Vec<Tool>, Error> {
        self.all_pages(ListToolsRequest::METHOD, |cursor| async move {
            let page = self.list_tools(cursor.as_deref()).await?;
            Ok((page.tools, page.next_cursor))
        })
        .await
    }

    /// `resources/list`, every page.
    pub async fn list_all_resources(&self) -> Result<Vec<Resource>, Error> {
        self.all_pages(ListResourcesRequest::METHOD, |cursor| async move {
            let page = self.list_resources(cursor.as_deref()).await?;
            Ok((page.resources, page.next_cursor))
        })
        .await
    }

    /// `resources/templates/list`, every page.
    pub async fn list_all_resource_templates(&self) -> Result<Vec<ResourceTemplate>, Error> {
        self.all_pages(ListResourceTemplatesRequest::METHOD, |cursor| async move {
            let page = self.list_resource_templates(cursor.as_deref()).await?;
            Ok((page.resource_templates, page.next_cursor))
        })
        .await
    }

    /// `prompts/list`, every page.
    pub async fn list_all_prompts(&self) -> Result<Vec<Prompt>, Error> {
        self.all_pages(ListPromptsRequest::METHOD, |cursor| async move {
            let page = self.list_prompts(cursor.as_deref()).await?;
            Ok((page.prompts, page.next_cursor))
        })
        .await
    }

    /// Asks for pages (`page(cursor)` → items and the next cursor) until the last one. A
    /// cursor repeated, or more than [`MAX_PAGES`] pages, is the server's error.
    pub(super) async fn all_pages<T, F, Fut>(
        &self,
        method: &str,
        mut page: F,
    ) -> Result<Vec<T>, Error>
    where
        F: FnMut(Option<String>) -> Fut,
        Fut: Future<Output = Result<(Vec<T>, Option<String>), Error>>,
    {
        let mut items = Vec::new();
        let mut cursor: Option<String> = None;
        for _ in 0..MAX_PAGES {
            let (page_items, next) = page(cursor.clone()).await?;
            items.extend(page_items);
            match next {
                None => return Ok(items),
                Some(next) if cursor.as_ref() == Some(&next) => {
                    return Err(
                        self.protocol_error(format!("{method} returned the same cursor twice"))
                    );
                }
                Some(next) => cursor = Some(next),
            }
        }
        Err(self.protocol_error(format!("{method} did not end after {MAX_PAGES} pages")))
    }

    fn protocol_error(&self, message: String) -> Error {
        Error::Protocol {
            server: self.server_name().to_owned(),
            message,
        }
    }

    /// `tools/call`. A tool's own failure is a result with `isError: true`, not an `Err`.
    pub async fn call_tool(
        &self,
        name: &str,
        arguments: Option<Map<String, Value>>,
    ) -> Result<CallToolResult, Error> {
        let value = self
            .request(CallToolRequest::METHOD, Some(named_params(name, arguments)))
            .await?;
        from_result(CallToolRequest::METHOD, value)
    }

    /// `tools/call` with progress: see [`request_with_progress`](Self::request_with_progress).
    pub fn call_tool_with_progress<'a>(
        &'a self,
        name: &str,
        arguments: Option<Map<String, Value>>,
    ) -> (
        mpsc::Receiver<ProgressUpdate>,
        impl Future<Output = Result<CallToolResult, Error>> + Send + 'a,
    ) {
        let (progress, call) = self
            .request_with_progress(CallToolRequest::METHOD, Some(named_params(name, arguments)));
        (progress, async move {
            from_result(CallToolRequest::METHOD, call.await?)
        })
    }

    /// `resources/list`, one page.
    pub async fn list_resources(&self, cursor: Option<&str>) -> Result<ListResourcesResult, Error> {
        let value = self
            .request(ListResourcesRequest::METHOD, cursor_params(cursor))
            .await?;
        from_result(ListResourcesRequest::METHOD, value)
    }

    /// `resources/templates/list`, one page.
    pub async fn list_resource_templates(
        &self,
        cursor: Option<&str>,
    ) -> Result<ListResourceTemplatesResult, Error> {
        let value = self
            .request(ListResourceTemplatesRequest::METHOD, cursor_params(cursor))
            .await?;
        from_result(ListResourceTemplatesRequest::METHOD, value)
    }

    /// `resources/read`.
    pub async fn read_resource(&self, uri: &str) -> Result<ReadResourceResult, Error> {
        let value = self
            .request(ReadResourceRequest::METHOD, Some(json!({ "uri": uri })))
            .await?;
        from_result(ReadResourceRequest::METHOD, value)
    }

    /// `resources/subscribe` (stateful era): `notifications/resources/updated` for `uri`
    /// then reach the notification handler.
    pub async fn subscribe_resource(&self, uri: &str) -> Result<(), Error> {
        self.request(SubscribeRequest::METHOD, Some(json!({ "uri": uri })))
            .await
            .map(drop)
    }

    /// `resources/unsubscribe` (stateful era).
    pub async fn unsubscribe_resource(&self, uri: &str) -> Result<(), Error> {
        self.request(UnsubscribeRequest::METHOD, Some(json!({ "uri": uri })))
            .await
            .map(drop)
    }

    /// `prompts/list`, one page.
    pub async fn list_prompts(&self, cursor: Option<&str>) -> Result<ListPromptsResult, Error> {
        let value = self
            .request(ListPromptsRequest::METHOD, cursor_params(cursor))
            .await?;
        from_result(ListPromptsRequest::METHOD, value)
    }

    /// `prompts/get` with string arguments.
    pub async fn get_prompt(
        &self,
        name: &str,
        arguments: Option<Map<String, Value>>,
    ) -> Result<GetPromptResult, Error> {
        let params = Some(named_params(name, arguments));
        let value = self.request(GetPromptRequest::METHOD, params).await?;
        from_result(GetPromptRequest::METHOD, value)
    }

    /// Asks the server for log messages (`notifications/message`) at `level` and above, in
    /// either era: `logging/setLevel` in the stateful era; in 2026-07-28, which has no such
    /// request, every later request of this session carries the level in its `_meta`
    /// (`io.modelcontextprotocol/logLevel`).
    pub async fn set_logging_level(&self, level: LoggingLevel) -> Result<(), Error> {
        match self.negotiated.era() {
            Era::Stateful => self
                .request(SetLevelRequest::METHOD, Some(json!({ "level": level })))
                .await
                .map(drop),
            Era::Stateless => {
                *self.log_level.lock() = Some(level);
                Ok(())
            }
        }
    }

    /// [`set_logging_level`](Self::set_logging_level), except that in the stateful era a
    /// server without the `logging` capability is left alone (it would answer -32601), with
    /// a debug log. In 2026-07-28 the level is always sent: it is only a `_meta` key, and
    /// servers log without declaring the capability (the Python SDK's does).
    pub(crate) async fn ask_log_level(&self, level: LoggingLevel) -> Result<(), Error> {
        if self.negotiated.era() == Era::Stateful && self.server_capability("logging").is_none() {
            tracing::debug!(
                server = self.server_name(),
                "the server does not declare `logging`: no log level asked"
            );
            return Ok(());
        }
        self.set_logging_level(level).await
    }

    /// The capability `name` the server declared in its handshake result.
    pub fn server_capability(&self, name: &str) -> Option<&Value> {
        self.negotiated.result().get("capabilities")?.get(name)
    }

    /// The log level sent in each request's `_meta` (2026-07-28), if one was set.
    pub(crate) fn log_level(&self) -> Option<LoggingLevel> {
        self.log_level.lock().clone()
    }

    /// `completion/complete`.
    pub async fn complete(&self, params: CompleteRequestParams) -> Result<CompleteResult, Error> {
        let params = super::to_params(CompleteRequest::METHOD, Some(&params))?;
        let value = self.request(CompleteRequest::METHOD, params).await?;
        from_result(CompleteRequest::METHOD, value)
    }

    /// `server/discover` (2026-07-28): the server's versions, capabilities and identity,
    /// asked again.
    pub async fn discover(&self) -> Result<DiscoverResult, Error> {
        let value = self.request(DiscoverRequest::METHOD, None).await?;
        from_result(DiscoverRequest::METHOD, value)
    }
}

impl Session {
    /// Drops tools with invalid `x-mcp-header` declarations; remembers the valid ones.
    fn screen_tools(&self, tools: &mut Vec<Tool>) {
        let mut known = self.tool_headers.lock();
        tools.retain(|tool| {
            let schema = serde_json::to_value(&tool.input_schema).unwrap_or(Value::Null);
            match mcp_schema::headers::param_headers(&schema) {
                Ok(declarations) => {
                    if declarations.is_empty() {
                        known.remove(&tool.name);
                    } else {
                        known.insert(tool.name.clone(), declarations);
                    }
                    true
                }
                Err(why) => {
                    tracing::warn!(server = self.server_name(), tool = %tool.name, %why, "leaving out a tool with an invalid x-mcp-header");
                    known.remove(&tool.name);
                    false
                }
            }
        });
    }

    /// The `Mcp-Param-*` headers of a `tools/call` with these params.
    pub(crate) fn param_headers(&self, params: Option<&Value>) -> Vec<(String, String)> {
        let Some(params) = params else {
            return Vec::new();
        };
        let Some(name) = params.get("name").and_then(Value::as_str) else {
            return Vec::new();
        };
        let known = self.tool_headers.lock();
        match (
            known.get(name),
            params.get("arguments").and_then(Value::as_object),
        ) {
            (Some(declarations), Some(arguments)) => declarations
                .iter()
                .filter_map(|d| Some((d.header_name(), d.header_value(arguments)?)))
                .collect(),
            _ => Vec::new(),
        }
    }
}

/// `{"name", "arguments"}`: the params of `tools/call` and `prompts/get`.
pub(super) fn named_params(name: &str, arguments: Option<Map<String, Value>>) -> Value {
    let mut params = json!({ "name": name });
    if let Some(arguments) = arguments {
        params["arguments"] = Value::Object(arguments);
    }
    params
}
