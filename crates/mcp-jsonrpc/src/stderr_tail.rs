//! A child's stderr read by us ([`StderrMode::Capture`](crate::StderrMode::Capture)): passed
//! on to our own stderr when asked, and its last lines kept, so that an error about a server
//! that exited can say what it printed last.

use std::collections::VecDeque;
use std::process::ExitStatus;
use std::sync::Arc;
use std::time::Duration;

use parking_lot::Mutex;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::ChildStderr;
use tokio::sync::watch;

/// How many of the last stderr lines are kept.
pub const STDERR_TAIL_LINES: usize = 20;

/// How much of one line is kept (the rest is cut, with `…`).
const MAX_LINE_BYTES: usize = 1024;

/// The last lines of a child's stderr, filled by a reader task.
#[derive(Debug)]
pub(crate) struct StderrTail {
    lines: Mutex<VecDeque<String>>,
    ended: watch::Sender<bool>,
}

impl StderrTail {
    /// Starts reading `stderr`, passing each line on to this process's stderr when `echo`.
    pub(crate) fn start(stderr: ChildStderr, echo: bool) -> Arc<Self> {
        let tail = Arc::new(Self {
            lines: Mutex::new(VecDeque::with_capacity(STDERR_TAIL_LINES)),
            ended: watch::Sender::new(false),
        });
        let filled = tail.clone();
        tokio::spawn(async move {
            let mut reader = BufReader::new(stderr);
            let mut line = Vec::new();
            let mut out = tokio::io::stderr();
            loop {
                line.clear();
                match reader.read_until(b'\n', &mut line).await {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {}
                }
                if echo {
                    let _ = out.write_all(&line).await;
                    let _ = out.flush().await;
                }
                filled.keep(&line);
            }
            filled.ended.send_replace(true);
        });
        tail
    }

    fn keep(&self, line: &[u8]) {
        let line = line.strip_suffix(b"\n").unwrap_or(line);
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let mut text =
            String::from_utf8_lossy(&line[..line.len().min(MAX_LINE_BYTES)]).into_owned();
        if line.len() > MAX_LINE_BYTES {
            text.push('…');
        }
        let mut lines = self.lines.lock();
        if lines.len() == STDERR_TAIL_LINES {
            lines.pop_front();
        }
        lines.push_back(text);
    }

    /// The lines kept so far, oldest first.
    pub(crate) fn lines(&self) -> Vec<String> {
        self.lines.lock().iter().cloned().collect()
    }

    /// Waits until the stream ended or `limit` passed.
    pub(crate) async fn wait_for_end(&self, limit: Duration) {
        let mut ended = self.ended.subscribe();
        let _ = tokio::time::timeout(limit, ended.wait_for(|ended| *ended)).await;
    }
}

/// How a spawned server ended, as far as could be seen: see
/// [`Peer::child_exit`](crate::Peer::child_exit).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChildExit {
    /// Its exit status, when it had exited within the time allowed.
    pub status: Option<ExitStatus>,
    /// The last lines it wrote to stderr (up to [`STDERR_TAIL_LINES`]), when its stderr was
    /// captured ([`StderrMode::Capture`](crate::StderrMode::Capture)); else empty.
    pub stderr_tail: Vec<String>,
}
