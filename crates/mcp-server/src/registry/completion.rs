//! Argument completion for prompts and resource templates (`completion/complete`).

use std::collections::BTreeMap;

/// What a completer is asked.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CompletionRequest {
    /// The argument (prompt argument or template variable) being completed.
    pub argument: String,
    /// What the user typed so far.
    pub value: String,
    /// Arguments already resolved (`context.arguments`).
    pub context: BTreeMap<String, String>,
}

pub(crate) type CompletionFn = dyn Fn(&CompletionRequest) -> Vec<String> + Send + Sync;

/// Produces candidate values for one argument. The framework caps the answer at 100 values
/// (the protocol's limit) and reports `total` and `hasMore`.
pub trait Completer: Send + Sync + 'static {
    /// The candidates for `request.value`.
    fn complete(&self, request: &CompletionRequest) -> Vec<String>;
}

impl<F> Completer for F
where
    F: Fn(&CompletionRequest) -> Vec<String> + Send + Sync + 'static,
{
    fn complete(&self, request: &CompletionRequest) -> Vec<String> {
        self(request)
    }
}

/// A fixed list of values: those that start with what was typed (case-insensitively).
#[derive(Debug, Clone)]
pub struct Choices(pub Vec<String>);

impl Choices {
    /// Choices from any list of strings.
    pub fn new<I: IntoIterator<Item = S>, S: Into<String>>(values: I) -> Self {
        Self(values.into_iter().map(Into::into).collect())
    }
}

impl Completer for Choices {
    fn complete(&self, request: &CompletionRequest) -> Vec<String> {
        let typed = request.value.to_lowercase();
        self.0
            .iter()
            .filter(|v| v.to_lowercase().starts_with(&typed))
            .cloned()
            .collect()
    }
}
