//! The heartbeat: each replica says it is alive, which also probes Redis.

use redis::Value;

use super::{Inner, bus};

/// Says every `heartbeat` that this replica is alive, which also probes Redis: the first
/// success after a failure ends the fast failures, and puts the signing key back in case
/// Redis lost its data.
pub(super) async fn beat(store: std::sync::Weak<Inner>) {
    loop {
        let Some(inner) = store.upgrade() else {
            return;
        };
        let every = inner.options.heartbeat;
        let key = inner.heartbeat_key(&inner.replica);
        let ttl = u64::try_from((every * 3).as_millis()).unwrap_or(u64::MAX);
        let beat = match inner.conn() {
            Ok(mut conn) => {
                inner
                    .run_anyway(async move {
                        redis::cmd("SET")
                            .arg(&key)
                            .arg(1)
                            .arg("PX")
                            .arg(ttl)
                            .query_async::<Value>(&mut conn)
                            .await
                    })
                    .await
            }
            Err(e) => Err(e),
        };
        let pause = match beat {
            Ok(_) => {
                if inner.mark_up()
                    && let Err(e) = inner.signing_key().await
                {
                    tracing::warn!("could not restore the shared signing key: {e}");
                }
                bus::probe(&inner).await;
                every
            }
            // Probe more often while down, so that service comes back soon after Redis.
            Err(_) => every / 4,
        };
        drop(inner);
        tokio::time::sleep(pause).await;
    }
}
