//! Memory of idle sessions: `n` sessions of a template, each having run `1`, then idle; the
//! memory of the server's descendant processes (the sandboxes: bubblewrap and the
//! interpreter in each) divided by `n`.
//!
//! The server runs without warm sandboxes (`MSB_POOL_SIZE=0`), so that its descendants are
//! the sessions' sandboxes only. Each process counts with its proportional set size (Pss,
//! `/proc/<pid>/smaps_rollup`: private pages plus a share of the pages it maps with other
//! processes, so that the interpreter's shared code counts once across sessions); where that
//! file cannot be read the process counts with its resident set (`VmRSS`), and the result
//! says how many did. The resident sets' plain sum, which counts shared pages once per
//! process, is reported beside it, as is the server's own figure (`memory_bytes` of
//! `get_sessions`: the session's cgroup, which also counts page cache and kernel memory).

use std::time::{Duration, Instant};

use super::measure::FIRST;
use super::server::{Client, Template};
use crate::load::procfs;

/// How long idle sessions are left alone before their memory is read.
pub const IDLE: Duration = Duration::from_secs(1);

/// The memory of `n` idle sessions of one template.
#[derive(Debug, Clone, Copy)]
pub struct Idle {
    /// The template.
    pub template: Template,
    /// Sessions.
    pub sessions: usize,
    /// The server's descendant processes.
    pub processes: usize,
    /// Those counted with `VmRSS` because their `smaps_rollup` could not be read.
    pub rss_fallbacks: usize,
    /// Sum of Pss (or `VmRSS`) of the descendants, KiB.
    pub pss_kib: u64,
    /// Sum of `VmRSS` of the descendants, KiB.
    pub rss_kib: u64,
    /// Sum of the sessions' `memory_bytes` in `get_sessions`, when every session had one.
    pub reported_bytes: Option<u64>,
    /// The server's own `VmRSS` with these sessions, KiB.
    pub server_rss_kib: u64,
}

impl Idle {
    /// Per session, MiB, of a sum in KiB.
    pub fn per_session_mib(&self, kib: u64) -> f64 {
        kib as f64 / 1_024.0 / self.sessions.max(1) as f64
    }
}

/// The server's `VmRSS`, KiB.
pub fn server_rss_kib(server: u32) -> Result<u64, String> {
    procfs::status_kib(server, "VmRSS").map_err(|e| format!("VmRSS of mcp-sandbox: {e}"))
}

/// Opens `n` sessions of `template` one after another on the server `server` (pid) that
/// `client` reaches, leaves them idle for [`IDLE`], reads their memory and stops them.
pub async fn idle(
    client: &Client,
    server: u32,
    template: Template,
    n: usize,
) -> Result<Idle, String> {
    client.stop_all().await?;
    settle(server).await?;
    let mut ids = Vec::with_capacity(n);
    for _ in 0..n {
        let outcome = client.execute(template, FIRST.0, None, FIRST.1).await?;
        ids.push(outcome.session_id);
    }
    tokio::time::sleep(IDLE).await;
    let mut idle = Idle {
        template,
        sessions: n,
        processes: 0,
        rss_fallbacks: 0,
        pss_kib: 0,
        rss_kib: 0,
        reported_bytes: None,
        server_rss_kib: server_rss_kib(server)?,
    };
    for pid in procfs::descendants(server) {
        // A process that ended meanwhile counts for nothing.
        let Ok(rss) = procfs::status_kib(pid, "VmRSS") else {
            continue;
        };
        idle.processes += 1;
        idle.rss_kib += rss;
        idle.pss_kib += procfs::pss_kib(pid).unwrap_or_else(|_| {
            idle.rss_fallbacks += 1;
            rss
        });
    }
    let sessions = client.sessions().await?;
    let listed = sessions["sessions"].as_array().cloned().unwrap_or_default();
    let reported: Option<Vec<u64>> = listed
        .iter()
        .filter(|s| ids.iter().any(|id| s["session_id"] == id.as_str()))
        .map(|s| s["memory_bytes"].as_u64())
        .collect();
    idle.reported_bytes = reported.filter(|r| r.len() == n).map(|r| r.iter().sum());
    for id in &ids {
        client.stop(id).await?;
    }
    settle(server).await?;
    Ok(idle)
}

/// Waits until the server has no descendant process left (its sandboxes stopped).
async fn settle(server: u32) -> Result<(), String> {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !procfs::descendants(server).is_empty() {
        if Instant::now() > deadline {
            return Err("the stopped sessions' processes still run after 10 s".into());
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    Ok(())
}
