//! Prompts with arguments.

use std::collections::{BTreeMap, HashMap};
use std::future::Future;
use std::sync::Arc;

use mcp_schema::{GetPromptResult, Icon, Meta, Prompt, PromptArgument, PromptMessage, Role};

use crate::context::RequestContext;
use crate::error::Result;
use crate::registry::BoxFuture;
use crate::registry::completion::{Completer, CompletionFn};

/// The arguments of a `prompts/get`, by name.
pub type PromptArguments = BTreeMap<String, String>;

pub(crate) type PromptFn =
    dyn Fn(PromptArguments, RequestContext) -> BoxFuture<Result<GetPromptResult>> + Send + Sync;

/// What a prompt handler may return.
pub trait IntoPromptResult: Send + 'static {
    /// The result.
    fn into_prompt_result(self) -> GetPromptResult;
}

impl IntoPromptResult for GetPromptResult {
    fn into_prompt_result(self) -> GetPromptResult {
        self
    }
}

impl IntoPromptResult for Vec<PromptMessage> {
    fn into_prompt_result(self) -> GetPromptResult {
        GetPromptResult {
            messages: self,
            ..GetPromptResult::default()
        }
    }
}

/// One user message with this text.
impl IntoPromptResult for String {
    fn into_prompt_result(self) -> GetPromptResult {
        vec![PromptMessage::new(
            Role::User,
            mcp_schema::ContentBlock::text(self),
        )]
        .into_prompt_result()
    }
}

/// A prompt and its handler.
pub struct PromptDef {
    pub(crate) prompt: Prompt,
    pub(crate) get: Arc<PromptFn>,
    pub(crate) completers: HashMap<String, Arc<CompletionFn>>,
}

impl std::fmt::Debug for PromptDef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PromptDef")
            .field("prompt", &self.prompt)
            .finish()
    }
}

impl PromptDef {
    /// A prompt whose messages `handler` builds from the arguments. Required arguments are
    /// checked before the handler runs (`-32602` naming the missing ones).
    pub fn new<R, F, Fut>(name: impl Into<String>, handler: F) -> Self
    where
        R: IntoPromptResult,
        F: Fn(PromptArguments, RequestContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<R>> + Send + 'static,
    {
        let handler = Arc::new(handler);
        let get: Arc<PromptFn> = Arc::new(move |args, cx| {
            let handler = handler.clone();
            Box::pin(async move { Ok(handler(args, cx).await?.into_prompt_result()) })
        });
        Self {
            prompt: Prompt::new(name),
            get,
            completers: HashMap::new(),
        }
    }

    /// Declares an argument.
    pub fn argument(
        mut self,
        name: impl Into<String>,
        description: impl Into<String>,
        required: bool,
    ) -> Self {
        let mut arg = PromptArgument::new(name);
        let description = description.into();
        if !description.is_empty() {
            arg.description = Some(description);
        }
        arg.required = Some(required);
        self.prompt.arguments.get_or_insert_with(Vec::new).push(arg);
        self
    }

    /// Completes values of `argument` for `completion/complete`.
    pub fn complete(mut self, argument: impl Into<String>, completer: impl Completer) -> Self {
        self.completers
            .insert(argument.into(), Arc::new(move |r| completer.complete(r)));
        self
    }

    /// A description.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.prompt.description = Some(description.into());
        self
    }

    /// A display name.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.prompt.title = Some(title.into());
        self
    }

    /// Icons.
    pub fn icons(mut self, icons: Vec<Icon>) -> Self {
        self.prompt.icons = Some(icons);
        self
    }

    /// `_meta`.
    pub fn meta(mut self, meta: Meta) -> Self {
        self.prompt.meta = Some(meta);
        self
    }

    /// The prompt's name.
    pub fn name(&self) -> &str {
        &self.prompt.name
    }

    pub(crate) fn missing_arguments(&self, given: &PromptArguments) -> Vec<&str> {
        self.prompt
            .arguments
            .iter()
            .flatten()
            .filter(|a| a.required == Some(true) && !given.contains_key(&a.name))
            .map(|a| a.name.as_str())
            .collect()
    }
}
