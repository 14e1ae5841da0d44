//! The spinner shown on stderr while connecting, only when stderr is a terminal.

use std::io::IsTerminal;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};

/// A spinner on stderr, cleared when dropped; nothing at all when stderr is not a terminal.
#[derive(Debug)]
pub(crate) struct Spinner(Option<ProgressBar>);

impl Spinner {
    /// Starts spinning with `message`, if stderr is a terminal.
    pub(crate) fn start(message: String) -> Self {
        if !std::io::stderr().is_terminal() {
            return Spinner(None);
        }
        // `new_spinner` draws on stderr.
        let bar = ProgressBar::new_spinner().with_message(message);
        if let Ok(style) = ProgressStyle::with_template("{spinner} {wide_msg}") {
            bar.set_style(style);
        }
        bar.enable_steady_tick(Duration::from_millis(100));
        Spinner(Some(bar))
    }
}

impl Drop for Spinner {
    fn drop(&mut self) {
        if let Some(bar) = self.0.take() {
            bar.finish_and_clear();
        }
    }
}
