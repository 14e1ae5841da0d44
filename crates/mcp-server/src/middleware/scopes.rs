//! Authorization by scope.

use std::collections::HashMap;

use mcp_jsonrpc::ErrorObject;
use mcp_schema::ClientRequest;
use serde_json::json;

use super::{Middleware, MiddlewareFuture, Next, Request, codes};
use crate::error::Error;

/// Scope requirements per method and per tool. A request whose principal lacks a required
/// scope is refused with `-32013` (`data.requiredScopes`); over HTTP, `403` with
/// `WWW-Authenticate: Bearer error="insufficient_scope", scope="…"`. Requests without a
/// principal (no authenticator configured, stdio) pass.
#[derive(Debug, Clone, Default)]
pub struct RequireScopes {
    methods: HashMap<String, Vec<String>>,
    tools: HashMap<String, Vec<String>>,
}

impl RequireScopes {
    /// No requirements yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// `method` needs every scope of `scopes`.
    pub fn method<I: IntoIterator<Item = S>, S: Into<String>>(
        mut self,
        method: &str,
        scopes: I,
    ) -> Self {
        self.methods.insert(
            method.to_owned(),
            scopes.into_iter().map(Into::into).collect(),
        );
        self
    }

    /// Calling `tool` needs every scope of `scopes`.
    pub fn tool<I: IntoIterator<Item = S>, S: Into<String>>(
        mut self,
        tool: &str,
        scopes: I,
    ) -> Self {
        self.tools.insert(
            tool.to_owned(),
            scopes.into_iter().map(Into::into).collect(),
        );
        self
    }
}

impl Middleware for RequireScopes {
    fn handle<'a>(&'a self, request: Request<'a>, next: Next<'a>) -> MiddlewareFuture<'a> {
        Box::pin(async move {
            if let Some(principal) = request.context().principal() {
                let mut required: Vec<String> = Vec::new();
                if let Some(scopes) = self.methods.get(request.method()) {
                    required.extend(scopes.iter().cloned());
                }
                if let ClientRequest::CallTool(call) = request.request()
                    && let Some(scopes) = self.tools.get(&call.name)
                {
                    required.extend(scopes.iter().cloned());
                }
                if !principal.has_scopes(&required) {
                    return Err(Error::rpc(
                        ErrorObject::new(
                            codes::FORBIDDEN,
                            format!(
                                "insufficient scope: {} needs {}",
                                request.target().unwrap_or(request.method()),
                                required.join(" ")
                            ),
                        )
                        .with_data(json!({ "requiredScopes": required })),
                    ));
                }
            }
            next.run(request).await
        })
    }
}
