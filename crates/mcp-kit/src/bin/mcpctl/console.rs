//! stderr while a command runs: what the server sends besides results (progress, log
//! messages, other notifications, the wire with `--wire`), as text on a terminal or as one
//! JSON object per line in JSON mode. Results stay on stdout.

use std::io::{IsTerminal, Write};
use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};
use mcp_kit::mcp::{LoggingMessageNotification, ProgressNotification};
use mcp_kit::{McpNotification, ProgressUpdate};
use parking_lot::Mutex;
use serde_json::{Value, json};

use crate::args::OutputFormat;
use crate::output::sanitize;

/// How many steps the bar has when the server gives a total (progress values are numbers,
/// not necessarily integers).
const BAR_STEPS: u64 = 1000;

/// The stderr of one mcpctl run.
#[derive(Debug)]
pub(crate) struct Console {
    /// One JSON object per line instead of text.
    json: bool,
    /// A progress bar may be drawn (stderr is a terminal, text mode).
    bar_allowed: bool,
    /// The bar of the call in progress, drawn on the first progress notification.
    bar: Mutex<Option<ProgressBar>>,
}

impl Console {
    /// The console for an output format: JSON lines with `--json`/`--output json|pretty`,
    /// text (and a progress bar when stderr is a terminal) with tables.
    pub(crate) fn new(format: OutputFormat) -> Self {
        let json = format != OutputFormat::Table;
        Console {
            json,
            bar_allowed: !json && std::io::stderr().is_terminal(),
            bar: Mutex::new(None),
        }
    }

    /// Whether lines are JSON.
    pub(crate) fn is_json(&self) -> bool {
        self.json
    }

    /// Writes one line on stderr, above the progress bar when there is one.
    pub(crate) fn line(&self, text: &str) {
        match &*self.bar.lock() {
            Some(bar) => bar.println(text),
            None => {
                let mut err = std::io::stderr().lock();
                let _ = writeln!(err, "{text}");
            }
        }
    }

    /// Writes an event: its JSON (`value`) in JSON mode, else `text`.
    pub(crate) fn event(&self, value: &Value, text: impl FnOnce() -> String) {
        if self.json {
            self.line(&value.to_string());
        } else {
            self.line(&text());
        }
    }

    /// A notification from the server: log messages as `[server] level logger: data`, others
    /// by their method. `…/list_changed` is left to `--wire` in text mode: servers send it
    /// as they start, and it says nothing about the command.
    pub(crate) fn notification(&self, server: &str, method: &str, params: Option<&Value>) {
        if !self.json && method.ends_with("/list_changed") {
            return;
        }
        let value = json!({ "server": server, "notification": method, "params": params });
        self.event(&value, || match method {
            LoggingMessageNotification::METHOD => log_line(server, params),
            _ => sanitize(&format!("[{server}] {method}")),
        });
    }

    /// A progress notification of the running call: the bar on a terminal, else a line.
    pub(crate) fn progress(&self, server: &str, update: &ProgressUpdate) {
        let summary = progress_summary(update);
        if !self.bar_allowed {
            let value = json!({
                "server": server,
                "notification": ProgressNotification::METHOD,
                "params": update,
            });
            return self.event(&value, || format!("[{server}] progress {summary}"));
        }
        let mut slot = self.bar.lock();
        let bar = slot.get_or_insert_with(|| new_bar(update.total.is_some()));
        let total = update.total.as_ref().and_then(serde_json::Number::as_f64);
        if let Some(total) = total.filter(|t| *t > 0.0) {
            let done = (update.progress.as_f64().unwrap_or(0.0) / total).clamp(0.0, 1.0);
            // Truncation is intended: a fraction of BAR_STEPS.
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
            bar.set_position((done * BAR_STEPS as f64) as u64);
        }
        bar.set_message(summary);
    }

    /// Removes the progress bar (before a prompt, or when the call ends); the next progress
    /// notification draws a new one.
    pub(crate) fn clear_progress(&self) {
        if let Some(bar) = self.bar.lock().take() {
            bar.finish_and_clear();
        }
    }
}

/// `[server] level logger: data` for a `notifications/message`.
fn log_line(server: &str, params: Option<&Value>) -> String {
    let field = |key: &str| params.and_then(|p| p.get(key));
    let level = field("level").and_then(Value::as_str).unwrap_or("log");
    let logger = field("logger")
        .and_then(Value::as_str)
        .map(|l| format!(" {l}"))
        .unwrap_or_default();
    let data = match field("data") {
        Some(Value::String(text)) => text.clone(),
        Some(other) => other.to_string(),
        None => String::new(),
    };
    sanitize(&format!("[{server}] {level}{logger}: {data}"))
}

/// `3/10 counting` (or `3 counting` without a total).
fn progress_summary(update: &ProgressUpdate) -> String {
    let mut summary = match &update.total {
        Some(total) => format!("{}/{}", update.progress, total),
        None => update.progress.to_string(),
    };
    if let Some(message) = &update.message {
        summary.push(' ');
        summary.push_str(message);
    }
    sanitize(&summary)
}

/// A bar (with a total) or a spinner (without), drawing on stderr.
fn new_bar(has_total: bool) -> ProgressBar {
    let (bar, template) = if has_total {
        (ProgressBar::new(BAR_STEPS), "{bar:30} {wide_msg}")
    } else {
        (ProgressBar::new_spinner(), "{spinner} {wide_msg}")
    };
    if let Ok(style) = ProgressStyle::with_template(template) {
        bar.set_style(style);
    }
    bar.enable_steady_tick(Duration::from_millis(100));
    bar
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_lines_name_the_server_level_and_logger() {
        let params = json!({ "level": "warning", "logger": "db", "data": "slow\u{1b}[2J" });
        assert_eq!(
            log_line("s", Some(&params)),
            "[s] warning db: slow\\u{1b}[2J"
        );
        let params = json!({ "level": "info", "data": { "n": 1 } });
        assert_eq!(log_line("s", Some(&params)), r#"[s] info: {"n":1}"#);
    }

    #[test]
    fn progress_with_and_without_total() {
        let mut update: ProgressUpdate =
            serde_json::from_value(json!({ "progressToken": "t", "progress": 3 })).unwrap();
        assert_eq!(progress_summary(&update), "3");
        update.total = Some(10.into());
        update.message = Some("counting".into());
        assert_eq!(progress_summary(&update), "3/10 counting");
    }
}
