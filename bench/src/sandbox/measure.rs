//! The timed measurements: the interpreters' bare start (the floor), a new session's first
//! result, a call in an existing session, and ten sessions at once. Every answer is checked
//! (status `ok` and the expected output); times are the client's, around the whole
//! `tools/call`.

use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use super::server::{Client, Template, TemplateExt};
use crate::load::percentile_us;

/// The code of a new session's first call, and what it prints (the value of the last
/// expression, as in a REPL).
pub const FIRST: (&str, &str) = ("1", "1\n");
/// The code of a call in an existing session, and what it prints.
pub const WARM: (&str, &str) = ("1+1", "2\n");

/// Pause before each cold sample, after the previous session was stopped and (with a pool)
/// a warm sandbox is ready, so that no earlier work overlaps the sample.
pub const SETTLE: Duration = Duration::from_millis(50);

/// How much each measurement does.
#[derive(Debug, Clone, Copy)]
pub struct Settings {
    /// Bare starts of each interpreter.
    pub floor_runs: usize,
    /// New sessions per template, transport and pool setting.
    pub cold_runs: usize,
    /// Untimed calls in an existing session before the timed ones.
    pub warmup_calls: usize,
    /// Timed calls in an existing session.
    pub calls: usize,
    /// Sessions created, then called, at once.
    pub sessions: usize,
    /// Concurrent calls before counting.
    pub warmup: Duration,
    /// Counted time of the concurrent calls.
    pub measure: Duration,
}

/// p50 and p99 of a set of latencies.
#[derive(Debug, Clone, Copy)]
pub struct Spread {
    /// Samples.
    pub n: usize,
    /// Median, ms.
    pub p50_ms: f64,
    /// 99th percentile (nearest rank), ms.
    pub p99_ms: f64,
}

impl Spread {
    /// Of `durations` (any order).
    pub fn of(durations: &[Duration]) -> Self {
        let mut ns: Vec<u64> = durations
            .iter()
            .map(|d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX))
            .collect();
        ns.sort_unstable();
        Self {
            n: ns.len(),
            p50_ms: percentile_us(&ns, 50.0) / 1_000.0,
            p99_ms: percentile_us(&ns, 99.0) / 1_000.0,
        }
    }
}

/// The environment of the bare starts: what a sandbox's interpreter gets
/// (`driver_environment` of `mcp-sandbox`'s backend), none of the benchmark's own. It
/// matters: `NODE_EXTRA_CA_CERTS` alone makes Node.js read a certificate bundle at start.
pub const FLOOR_ENV: [(&str, &str); 4] = [
    ("PATH", "/usr/local/bin:/usr/bin:/bin"),
    ("HOME", "/tmp"),
    ("LANG", "C.UTF-8"),
    ("TMPDIR", "/tmp"),
];

/// `runs` bare starts of `template`'s interpreter (spawn to exit) with [`FLOOR_ENV`] only,
/// after one untimed.
pub fn floor(template: Template, runs: usize) -> Result<Spread, String> {
    let mut times = Vec::with_capacity(runs);
    for run in 0..=runs {
        let start = Instant::now();
        let status = std::process::Command::new(template.interpreter())
            .args(template.bare_args())
            .env_clear()
            .envs(FLOOR_ENV)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .map_err(|e| format!("running {}: {e}", template.interpreter()))?;
        let elapsed = start.elapsed();
        if !status.success() {
            return Err(format!("{} exited with {status}", template.interpreter()));
        }
        if run > 0 {
            times.push(elapsed);
        }
    }
    Ok(Spread::of(&times))
}

/// `runs` new sessions of `template`, one at a time: stop the previous session, wait for a
/// warm sandbox if the server keeps them (`pool`), pause [`SETTLE`], then time
/// `execute_code` of `1` without a `session_id`. One untimed session first.
pub async fn cold(
    client: &Client,
    template: Template,
    pool: bool,
    runs: usize,
) -> Result<Spread, String> {
    let mut times = Vec::with_capacity(runs);
    let mut previous: Option<String> = None;
    for run in 0..=runs {
        if let Some(id) = previous.take() {
            client.stop(&id).await?;
        }
        if pool {
            client.wait_warm(template).await?;
        }
        tokio::time::sleep(SETTLE).await;
        let start = Instant::now();
        let outcome = client.execute(template, FIRST.0, None, FIRST.1).await?;
        let elapsed = start.elapsed();
        if !outcome.created {
            return Err(format!(
                "execute_code without session_id did not create a session: {outcome:?}"
            ));
        }
        if run > 0 {
            times.push(elapsed);
        }
        previous = Some(outcome.session_id);
    }
    if let Some(id) = previous {
        client.stop(&id).await?;
    }
    Ok(Spread::of(&times))
}

/// Sequential calls of `1+1` in one session of `template` (created first, stopped after).
pub async fn warm(
    client: &Client,
    template: Template,
    settings: &Settings,
) -> Result<Spread, String> {
    let id = client
        .execute(template, FIRST.0, None, FIRST.1)
        .await?
        .session_id;
    for _ in 0..settings.warmup_calls {
        client.execute(template, WARM.0, Some(&id), WARM.1).await?;
    }
    let mut times = Vec::with_capacity(settings.calls);
    for _ in 0..settings.calls {
        let start = Instant::now();
        client.execute(template, WARM.0, Some(&id), WARM.1).await?;
        times.push(start.elapsed());
    }
    client.stop(&id).await?;
    Ok(Spread::of(&times))
}

/// Sessions created at once, then called at once.
#[derive(Debug, Clone, Copy)]
pub struct Crowd {
    /// Sessions.
    pub sessions: usize,
    /// Time until every session had its first result.
    pub all_first: Duration,
    /// Time until the first session had its first result.
    pub fastest_first: Duration,
    /// Counted calls per second of all sessions together.
    pub rate: f64,
    /// Latency of the counted calls.
    pub latency: Spread,
}

/// `settings.sessions` sessions of `template` created by as many concurrent calls (after
/// stopping every other session and, with a pool, waiting for a warm sandbox), then each
/// looping on `1+1` in its own session: calls that end within `settings.measure`, after
/// `settings.warmup`, count.
pub async fn crowd(
    client: &Client,
    template: Template,
    pool: bool,
    settings: &Settings,
) -> Result<Crowd, String> {
    client.stop_all().await?;
    if pool {
        client.wait_warm(template).await?;
    }
    tokio::time::sleep(SETTLE).await;
    let start = Instant::now();
    let created: Vec<_> = (0..settings.sessions)
        .map(|_| {
            let client = client.clone();
            tokio::spawn(async move {
                let outcome = client.execute(template, FIRST.0, None, FIRST.1).await?;
                Ok::<_, String>((outcome.session_id, start.elapsed()))
            })
        })
        .collect();
    let mut ids = Vec::new();
    let mut firsts = Vec::new();
    for task in created {
        let (id, elapsed) = task.await.map_err(|e| e.to_string())??;
        ids.push(id);
        firsts.push(elapsed);
    }
    ids.sort();
    ids.dedup();
    if ids.len() != settings.sessions {
        return Err(format!(
            "{} concurrent calls made {} sessions",
            settings.sessions,
            ids.len()
        ));
    }
    let from = Instant::now() + settings.warmup;
    let until = from + settings.measure;
    let loops: Vec<_> = ids
        .iter()
        .map(|id| {
            let (client, id) = (client.clone(), id.clone());
            tokio::spawn(async move {
                let mut counted = Vec::new();
                while Instant::now() < until {
                    let begin = Instant::now();
                    client.execute(template, WARM.0, Some(&id), WARM.1).await?;
                    let end = Instant::now();
                    if end >= from && end <= until {
                        counted.push(end - begin);
                    }
                }
                Ok::<_, String>(counted)
            })
        })
        .collect();
    let mut latencies = Vec::new();
    for task in loops {
        latencies.extend(task.await.map_err(|e| e.to_string())??);
    }
    for id in &ids {
        client.stop(id).await?;
    }
    Ok(Crowd {
        sessions: settings.sessions,
        all_first: firsts.iter().copied().max().unwrap_or_default(),
        fastest_first: firsts.iter().copied().min().unwrap_or_default(),
        rate: latencies.len() as f64 / settings.measure.as_secs_f64(),
        latency: Spread::of(&latencies),
    })
}

/// The first line `program --check` prints that starts with `label` (`limits:`), without it.
pub fn check_line(program: &Path, label: &str) -> Option<String> {
    let output = std::process::Command::new(program)
        .arg("--check")
        .env("RUST_LOG", "error")
        .output()
        .ok()?;
    String::from_utf8(output.stdout)
        .ok()?
        .lines()
        .find_map(|l| l.strip_prefix(label).map(|rest| rest.trim().to_owned()))
}
