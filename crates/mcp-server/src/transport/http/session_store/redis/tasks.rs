//! Tasks (the tasks extension) in Redis: any replica answers `tasks/get` for a task another
//! replica runs, and a task whose replica stopped is ended `failed` by the first replica that
//! reads it.
//!
//! A task is one key, `P:task:ID`, holding the record as JSON and expiring with the task.
//! Changes are compare-and-set (a script writes the new record only if the key still holds
//! the one the change was made to), so that concurrent changes from several replicas never
//! lose one. Every change is announced on the bus, so that the replica running the task and
//! the replicas following it on `subscriptions/listen` streams hear of it.

use std::sync::{Arc, LazyLock};
use std::time::Duration;

use redis::{AsyncCommands as _, Script};

use super::{Inner, bus};
use crate::registry::BoxFuture;
use crate::tasks::{Applied, Ending, TaskChange, TaskRecord, TaskStore, TaskStoreError};
use crate::transport::http::session_store::{BusMessage, StoreError};

/// How many times a change is tried again after another replica changed the task first.
const ATTEMPTS: usize = 16;

/// Why a task whose replica stopped ended.
pub(crate) const OWNER_GONE: &str = "the replica running this task stopped before it finished";

/// `SET KEYS[1] ARGV[2] KEEPTTL` if `KEYS[1]` holds `ARGV[1]`: 1 if written, 0 if not, -1 if
/// the key is gone.
static SWAP: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"local now = redis.call('GET', KEYS[1])
if not now then return -1 end
if now ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL')
return 1",
    )
});

/// The tasks of a [`RedisSessionStore`](super::RedisSessionStore).
pub(super) struct RedisTasks {
    pub(super) inner: Arc<Inner>,
}

fn failed(e: StoreError) -> TaskStoreError {
    TaskStoreError(e.to_string())
}

impl RedisTasks {
    fn key(&self, id: &str) -> String {
        format!("{}:task:{id}", self.inner.options.prefix)
    }

    async fn get(&self, key: &str) -> Result<Option<(String, TaskRecord)>, TaskStoreError> {
        let mut conn = self.inner.conn().map_err(failed)?;
        let raw: Option<String> = self.inner.run(conn.get(key)).await.map_err(failed)?;
        let Some(raw) = raw else {
            return Ok(None);
        };
        let record = serde_json::from_str(&raw)
            .map_err(|e| TaskStoreError(format!("{key} does not hold a task: {e}")))?;
        Ok(Some((raw, record)))
    }

    /// Whether the replica that runs `record` still beats.
    async fn owner_alive(&self, record: &TaskRecord) -> Result<bool, TaskStoreError> {
        if record.owner == self.inner.replica {
            return Ok(true);
        }
        let mut conn = self.inner.conn().map_err(failed)?;
        let key = self.inner.heartbeat_key(&record.owner);
        self.inner.run(conn.exists(key)).await.map_err(failed)
    }

    async fn apply_now(
        &self,
        id: &str,
        change: TaskChange,
        now_ms: u64,
    ) -> Result<Option<(TaskRecord, Applied)>, TaskStoreError> {
        let key = self.key(id);
        for _ in 0..ATTEMPTS {
            let Some((raw, mut record)) = self.get(&key).await? else {
                return Ok(None);
            };
            let applied = record.apply(change.clone(), now_ms);
            if !applied.changed {
                return Ok(Some((record, applied)));
            }
            let new = serde_json::to_string(&record).map_err(|e| TaskStoreError(e.to_string()))?;
            let mut conn = self.inner.conn().map_err(failed)?;
            let mut call = SWAP.prepare_invoke();
            call.key(&key).arg(&raw).arg(&new);
            let swapped: i64 = self
                .inner
                .run(call.invoke_async(&mut conn))
                .await
                .map_err(failed)?;
            match swapped {
                1 => {
                    let message = BusMessage::TaskChanged {
                        task: id.to_owned(),
                    };
                    if let Err(e) = bus::publish(&self.inner, None, &message).await {
                        tracing::warn!("{message} not told to the other replicas: {e}");
                    }
                    return Ok(Some((record, applied)));
                }
                -1 => return Ok(None),
                _ => continue,
            }
        }
        Err(TaskStoreError(format!(
            "task {id} kept changing under {ATTEMPTS} attempts to change it"
        )))
    }
}

impl TaskStore for RedisTasks {
    fn create(&self, record: TaskRecord) -> BoxFuture<Result<(), TaskStoreError>> {
        let inner = self.inner.clone();
        let key = self.key(&record.id);
        Box::pin(async move {
            let json = serde_json::to_string(&record).map_err(|e| TaskStoreError(e.to_string()))?;
            let mut conn = inner.conn().map_err(failed)?;
            let mut set = redis::cmd("SET");
            set.arg(&key).arg(json).arg("NX");
            if let Some(expires) = record.expires_ms() {
                set.arg("PXAT").arg(expires);
            }
            let _: redis::Value = inner
                .run(set.query_async(&mut conn))
                .await
                .map_err(failed)?;
            Ok(())
        })
    }

    fn load(&self, id: &str) -> BoxFuture<Result<Option<TaskRecord>, TaskStoreError>> {
        let this = RedisTasks {
            inner: self.inner.clone(),
        };
        let id = id.to_owned();
        Box::pin(async move {
            let Some((_, record)) = this.get(&this.key(&id)).await? else {
                return Ok(None);
            };
            if record.is_terminal() || this.owner_alive(&record).await? {
                return Ok(Some(record));
            }
            let ending = Ending::Failed(crate::tasks::failure(OWNER_GONE));
            let now = crate::tasks::now_ms();
            Ok(this
                .apply_now(&id, TaskChange::Finish(ending), now)
                .await?
                .map(|(record, _)| record))
        })
    }

    fn apply(
        &self,
        id: &str,
        change: TaskChange,
        now_ms: u64,
    ) -> BoxFuture<Result<Option<(TaskRecord, Applied)>, TaskStoreError>> {
        let this = RedisTasks {
            inner: self.inner.clone(),
        };
        let id = id.to_owned();
        Box::pin(async move { this.apply_now(&id, change, now_ms).await })
    }

    /// A replica is taken for gone once its heartbeat key expired: three heartbeats.
    fn liveness_window(&self) -> Duration {
        self.inner.options.heartbeat * 3
    }
}
