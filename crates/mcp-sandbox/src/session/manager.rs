//! The sessions of one server: created on first use, found by id, capped in number and
//! memory (the least recently used idle session makes room), reaped when idle, all stopped
//! at shutdown.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use tokio_util::sync::CancellationToken;
use tokio_util::task::AbortOnDropHandle;

use super::pool::Pool;
use super::{Session, SessionError, SessionInfo, Shared};
use crate::backend::{Backend, Volume};
use crate::config::SandboxConfig;
use crate::flavor::Flavor;
use crate::template::Template;

/// Every session of a server.
pub struct Sessions {
    shared: Arc<Shared>,
    root: PathBuf,
    sessions: parking_lot::Mutex<HashMap<String, Arc<Session>>>,
    pool: Arc<Pool>,
    /// Creations one at a time, so that the caps hold.
    creating: tokio::sync::Mutex<()>,
    closing: CancellationToken,
    reaper: parking_lot::Mutex<Option<AbortOnDropHandle<()>>>,
}

impl std::fmt::Debug for Sessions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sessions")
            .field("root", &self.root)
            .field("sessions", &self.sessions.lock().len())
            .finish()
    }
}

/// A random session id: `sbx-` and 16 hex digits.
fn new_id() -> String {
    let mut bytes = [0u8; 8];
    getrandom::fill(&mut bytes).expect("the operating system's random source");
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    format!("sbx-{hex}")
}

impl Sessions {
    /// Sessions on `backend`, with their workspaces under `root` (which the caller creates
    /// and removes), warm sandboxes starting (`pool_size` per template), and a reaper
    /// stopping sessions idle longer than the session timeout. Call it within a Tokio
    /// runtime.
    pub fn new(
        config: SandboxConfig,
        backend: Arc<dyn Backend>,
        volumes: Vec<Volume>,
        root: &Path,
    ) -> Arc<Self> {
        let interval = config.cleanup_interval;
        let pool_size = config.pool_size;
        let shared = Arc::new(Shared {
            backend,
            config,
            volumes,
            metrics: std::sync::OnceLock::new(),
        });
        let pool = Pool::new(shared.clone(), &root.join(".pool"), pool_size);
        pool.fill();
        let sessions = Arc::new(Self {
            shared,
            root: root.to_owned(),
            sessions: parking_lot::Mutex::new(HashMap::new()),
            pool,
            creating: tokio::sync::Mutex::new(()),
            closing: CancellationToken::new(),
            reaper: parking_lot::Mutex::new(None),
        });
        let weak = Arc::downgrade(&sessions);
        let reaper = tokio::spawn(async move {
            let mut tick = tokio::time::interval(interval);
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            tick.tick().await;
            loop {
                tick.tick().await;
                let Some(sessions) = weak.upgrade() else {
                    return;
                };
                sessions.reap().await;
            }
        });
        *sessions.reaper.lock() = Some(AbortOnDropHandle::new(reaper));
        sessions
    }

    /// Records the sandbox's metrics in `metrics` (the server's): `sandbox_sessions_active`
    /// and `sandbox_executions_total` by outcome.
    pub fn set_metrics(&self, metrics: mcp_server::Metrics) {
        let _ = self.shared.metrics.set(metrics);
        self.update_gauge();
    }

    fn update_gauge(&self) {
        let active = self.sessions.lock().len() as f64;
        self.shared
            .record(|| metrics::gauge!("sandbox_sessions_active").set(active));
    }

    /// Counts an execution by outcome (`ok`, `error`, `timeout`, `cancelled`, `crashed`).
    pub fn count_execution(&self, outcome: &'static str) {
        self.shared.record(|| {
            metrics::counter!("sandbox_executions_total", "outcome" => outcome).increment(1);
        });
    }

    /// The settings.
    pub fn config(&self) -> &SandboxConfig {
        &self.shared.config
    }

    /// The backend.
    pub fn backend(&self) -> &dyn Backend {
        self.shared.backend.as_ref()
    }

    /// The volumes mounted into every session.
    pub fn volumes(&self) -> &[Volume] {
        &self.shared.volumes
    }

    /// How many warm sandboxes of each template are ready for new sessions.
    pub fn warm(&self) -> Vec<(Template, usize)> {
        self.pool.ready()
    }

    /// The live session `id`.
    pub fn get(&self, id: &str) -> Option<Arc<Session>> {
        self.sessions.lock().get(id).cloned()
    }

    /// Every live session, the most recently created first.
    pub fn list(&self) -> Vec<SessionInfo> {
        let sessions: Vec<Arc<Session>> = self.sessions.lock().values().cloned().collect();
        let mut infos: Vec<SessionInfo> = sessions.iter().map(|s| s.info()).collect();
        infos.sort_by(|a, b| {
            b.created_at
                .cmp(&a.created_at)
                .then(a.session_id.cmp(&b.session_id))
        });
        infos
    }

    /// The session `id` if given (checked against `template` and `flavor` when they are
    /// given), else a new session of `template` (default: the first this host can run,
    /// Python before Node) and `flavor` (default: the configured one). The boolean says
    /// whether it was created.
    ///
    /// # Errors
    /// See [`SessionError`].
    pub async fn acquire(
        &self,
        id: Option<&str>,
        template: Option<Template>,
        flavor: Option<Flavor>,
    ) -> Result<(Arc<Session>, bool), SessionError> {
        if self.closing.is_cancelled() {
            return Err(SessionError::ShuttingDown);
        }
        if let Some(id) = id {
            let session = self
                .get(id)
                .ok_or_else(|| SessionError::Unknown(id.to_owned()))?;
            if let Some(asked) = template
                && asked != session.template
            {
                return Err(SessionError::TemplateMismatch {
                    id: id.to_owned(),
                    has: session.template,
                    asked,
                });
            }
            if let Some(asked) = flavor
                && asked != session.flavor
            {
                return Err(SessionError::FlavorMismatch {
                    id: id.to_owned(),
                    has: session.flavor,
                    asked,
                });
            }
            return Ok((session, false));
        }
        let available = self.shared.backend.templates();
        let template = template
            .or_else(|| available.first().copied())
            .unwrap_or_default();
        if !available.contains(&template) {
            return Err(SessionError::TemplateUnavailable(template));
        }
        let flavor = flavor.unwrap_or(self.shared.config.default_flavor);
        let _creating = self.creating.lock().await;
        self.make_room(flavor).await?;
        let id = new_id();
        let workspace = self.root.join(&id);
        let warm = if flavor == self.shared.config.default_flavor {
            self.pool.take(template)
        } else {
            None
        };
        let running = match warm {
            // The sandbox keeps its mount of the directory, whatever its name on the host.
            Some(warm) => match tokio::fs::rename(&warm.workspace, &workspace).await {
                Ok(()) => Some(warm.running),
                Err(e) => {
                    tracing::warn!("cannot hand a warm sandbox its session's name: {e}");
                    let mut running = warm.running;
                    running.handle.kill().await;
                    let _ = tokio::fs::remove_dir_all(&warm.workspace).await;
                    None
                }
            },
            None => None,
        };
        if running.is_none() {
            tokio::fs::create_dir_all(&workspace).await.map_err(|e| {
                SessionError::StartFailed(format!("cannot create the workspace: {e}"))
            })?;
        }
        let session = Arc::new(Session::new(
            id.clone(),
            template,
            flavor,
            workspace,
            self.shared.clone(),
            running,
        ));
        self.sessions.lock().insert(id, session.clone());
        self.update_gauge();
        Ok((session, true))
    }

    /// Stops the least recently used idle sessions until a `flavor` session fits under the
    /// session cap and the memory cap.
    async fn make_room(&self, flavor: Flavor) -> Result<(), SessionError> {
        let config = &self.shared.config;
        loop {
            let sessions: Vec<Arc<Session>> = self.sessions.lock().values().cloned().collect();
            let used_mb: u64 = sessions.iter().map(|s| s.flavor.memory_mb()).sum();
            let over_count = sessions.len() >= config.max_sessions;
            let over_memory = config
                .max_total_memory_mb
                .is_some_and(|cap| used_mb + flavor.memory_mb() > cap);
            if !over_count && !over_memory {
                return Ok(());
            }
            let victim = sessions
                .iter()
                .filter(|s| !s.is_busy())
                .min_by_key(|s| s.last_used())
                .cloned();
            let Some(victim) = victim else {
                if over_count {
                    return Err(SessionError::AtCapacity(config.max_sessions));
                }
                return Err(SessionError::MemoryCap {
                    flavor,
                    needed: flavor.memory_mb(),
                    used: used_mb,
                    cap: config.max_total_memory_mb.unwrap_or_default(),
                });
            };
            tracing::info!(session = %victim.id, "stopping the least recently used idle session to make room");
            self.remove(&victim).await;
        }
    }

    /// Stops session `id` and removes its workspace.
    ///
    /// # Errors
    /// There is no such session.
    pub async fn stop(&self, id: &str) -> Result<(), SessionError> {
        let session = self
            .get(id)
            .ok_or_else(|| SessionError::Unknown(id.to_owned()))?;
        self.remove(&session).await;
        Ok(())
    }

    async fn remove(&self, session: &Arc<Session>) {
        self.sessions.lock().remove(&session.id);
        self.update_gauge();
        session.stop().await;
    }

    /// Stops the sessions idle longer than the session timeout.
    pub async fn reap(&self) {
        let timeout = self.shared.config.session_timeout;
        let idle: Vec<Arc<Session>> = self
            .sessions
            .lock()
            .values()
            .filter(|s| !s.is_busy() && s.last_used().elapsed() >= timeout)
            .cloned()
            .collect();
        for session in idle {
            tracing::info!(session = %session.id, "stopping a session idle for {timeout:?}");
            self.remove(&session).await;
        }
    }

    /// Refuses new sessions, stops every session (interrupting running calls) and the
    /// reaper, and releases the backend's resources.
    pub async fn shutdown(&self) {
        self.closing.cancel();
        self.reaper.lock().take();
        self.pool.shutdown().await;
        let all: Vec<Arc<Session>> = self.sessions.lock().values().cloned().collect();
        for session in all {
            self.remove(&session).await;
        }
        self.shared.backend.shutdown().await;
    }
}
