//! Warm sandboxes: for each template, a few sandboxes of the default flavor started ahead,
//! their interpreters ready, so that a new session takes one instead of waiting for a start
//! (joining cgroups alone can cost tens of milliseconds on cgroup v1). A taken sandbox's
//! workspace directory is renamed to the session's; the sandbox keeps seeing it as
//! `/workspace`. A replacement starts in the background.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use super::Shared;
use super::running::Running;
use crate::template::Template;

/// A started sandbox waiting for a session.
pub(crate) struct Warm {
    pub(crate) running: Running,
    pub(crate) workspace: PathBuf,
}

/// The warm sandboxes of one server.
pub(crate) struct Pool {
    shared: Arc<Shared>,
    dir: PathBuf,
    size: usize,
    ready: parking_lot::Mutex<HashMap<Template, Vec<Warm>>>,
    starting: parking_lot::Mutex<HashMap<Template, usize>>,
    tasks: TaskTracker,
    closing: CancellationToken,
}

fn pool_id() -> String {
    let mut bytes = [0u8; 8];
    getrandom::fill(&mut bytes).expect("the operating system's random source");
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    format!("pool-{hex}")
}

impl Pool {
    /// A pool of `size` sandboxes per template in `dir` (empty until [`Pool::fill`]).
    pub(crate) fn new(shared: Arc<Shared>, dir: &Path, size: usize) -> Arc<Self> {
        Arc::new(Self {
            shared,
            dir: dir.to_owned(),
            size,
            ready: parking_lot::Mutex::new(HashMap::new()),
            starting: parking_lot::Mutex::new(HashMap::new()),
            tasks: TaskTracker::new(),
            closing: CancellationToken::new(),
        })
    }

    /// Starts sandboxes until every template has `size` ready or starting.
    pub(crate) fn fill(self: &Arc<Self>) {
        if self.closing.is_cancelled() {
            return;
        }
        for template in self.shared.backend.templates() {
            let missing = {
                let ready = self.ready.lock().get(&template).map_or(0, Vec::len);
                let mut starting = self.starting.lock();
                let in_flight = starting.entry(template).or_default();
                let missing = self.size.saturating_sub(ready + *in_flight);
                *in_flight += missing;
                missing
            };
            for _ in 0..missing {
                let pool = self.clone();
                self.tasks
                    .spawn(async move { pool.start_one(template).await });
            }
        }
    }

    async fn start_one(&self, template: Template) {
        let id = pool_id();
        let workspace = self.dir.join(&id);
        let flavor = self.shared.config.default_flavor;
        let started = match tokio::fs::create_dir_all(&workspace).await {
            Ok(()) => Running::start(&self.shared, &id, template, flavor, &workspace).await,
            Err(e) => Err(super::SessionError::StartFailed(e.to_string())),
        };
        *self.starting.lock().entry(template).or_default() -= 1;
        match started {
            Ok(mut running) if self.closing.is_cancelled() => {
                running.handle.kill().await;
                let _ = tokio::fs::remove_dir_all(&workspace).await;
            }
            Ok(running) => self
                .ready
                .lock()
                .entry(template)
                .or_default()
                .push(Warm { running, workspace }),
            Err(e) => {
                tracing::warn!("a warm {template} sandbox did not start: {e}");
                let _ = tokio::fs::remove_dir_all(&workspace).await;
            }
        }
    }

    /// A ready sandbox of `template` (of the default flavor), if one is waiting; a
    /// replacement starts.
    pub(crate) fn take(self: &Arc<Self>, template: Template) -> Option<Warm> {
        if self.size == 0 {
            return None;
        }
        let warm = self.ready.lock().get_mut(&template).and_then(Vec::pop);
        self.fill();
        warm
    }

    /// How many sandboxes of each template are ready.
    pub(crate) fn ready(&self) -> Vec<(Template, usize)> {
        let ready = self.ready.lock();
        self.shared
            .backend
            .templates()
            .into_iter()
            .map(|t| (t, ready.get(&t).map_or(0, Vec::len)))
            .collect()
    }

    /// Stops starting sandboxes and ends the waiting ones.
    pub(crate) async fn shutdown(&self) {
        self.closing.cancel();
        self.tasks.close();
        self.tasks.wait().await;
        let waiting: Vec<Warm> = self.ready.lock().drain().flat_map(|(_, w)| w).collect();
        for mut warm in waiting {
            warm.running.handle.kill().await;
            let _ = tokio::fs::remove_dir_all(&warm.workspace).await;
        }
    }
}
