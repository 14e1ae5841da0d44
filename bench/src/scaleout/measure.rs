//! The layouts of the scale-out benchmark, how each is deployed, and the measurement: a number
//! of stateful sessions (2025-11-25), each on its own keep-alive connection, calling `echo`
//! one call at a time for a fixed time, every answer checked.

use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use super::setup::{Haproxy, Process, Programs, Redis, RedisCounters, TempDir, start_replica};
use crate::load::http::Connection;
use crate::load::mcp::{self, Protocol, Tool};
use crate::load::sessions::{MEASURE, STOP, Sessions};
use crate::load::{ClosedLoop, HttpSession, percentile_us, procfs};
use crate::tools::{self, Blob};

/// How a measurement runs.
#[derive(Debug, Clone, Copy)]
pub struct Settings {
    /// Runs of every layout (each on fresh processes); medians are reported.
    pub runs: usize,
    /// Concurrent sessions, each on its own keep-alive connection, one call at a time.
    pub sessions: usize,
    /// Calls made but not counted, before the measurement.
    pub warmup: Duration,
    /// The measured time.
    pub measure: Duration,
}

/// One deployment measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    /// Short unique key (`single`, `redis-2`, …): log names, `--only`.
    pub key: &'static str,
    /// Replicas of the example server.
    pub replicas: usize,
    /// Whether the replicas share their sessions through Redis (`MCP_REDIS_URL`).
    pub redis: bool,
    /// Whether the client goes through haproxy (else straight to the one replica).
    pub balanced: bool,
}

impl Layout {
    /// What the report calls it.
    pub fn describe(&self) -> String {
        let store = if self.redis {
            "sessions in Redis"
        } else {
            "sessions in memory (no Redis)"
        };
        let route = if self.balanced {
            "through haproxy"
        } else {
            "direct"
        };
        let processes = if self.replicas == 1 {
            "1 process".to_owned()
        } else {
            format!("{} replicas", self.replicas)
        };
        format!("{processes}, {store}, {route}")
    }
}

/// Replica keys up to 8 (`redis-N`).
const REDIS_KEYS: [&str; 8] = [
    "redis-1", "redis-2", "redis-3", "redis-4", "redis-5", "redis-6", "redis-7", "redis-8",
];

/// The most replicas a run may ask for.
pub const MAX_REPLICAS: usize = REDIS_KEYS.len();

/// The layouts of a run, in the order they are measured: the single process without Redis
/// (direct, then through haproxy), one replica with Redis reached directly, then 1 to
/// `max_replicas` replicas with Redis through haproxy.
pub fn layouts(max_replicas: usize) -> Vec<Layout> {
    let mut all = vec![
        Layout {
            key: "single",
            replicas: 1,
            redis: false,
            balanced: false,
        },
        Layout {
            key: "single-haproxy",
            replicas: 1,
            redis: false,
            balanced: true,
        },
        Layout {
            key: "redis-1-direct",
            replicas: 1,
            redis: true,
            balanced: false,
        },
    ];
    all.extend(
        REDIS_KEYS
            .iter()
            .take(max_replicas.clamp(1, MAX_REPLICAS))
            .enumerate()
            .map(|(i, key)| Layout {
                key,
                replicas: i + 1,
                redis: true,
                balanced: true,
            }),
    );
    all
}

/// The processes of one layout.
pub struct Deployment {
    /// Redis, when the layout shares sessions.
    pub redis: Option<Redis>,
    /// haproxy, when the layout balances.
    pub haproxy: Option<Haproxy>,
    /// The replicas.
    pub replicas: Vec<Process>,
    /// Where the client connects.
    pub addr: SocketAddr,
    /// Redis's working directory.
    _dir: TempDir,
}

impl Deployment {
    /// Starts Redis (when the layout has it), the replicas, then haproxy (when it has it);
    /// logs and haproxy's configuration go to `log_dir`.
    pub async fn start(
        programs: &Programs,
        layout: &Layout,
        log_dir: &Path,
    ) -> Result<Self, String> {
        let dir = TempDir::new(layout.key)?;
        let redis = if layout.redis {
            Some(Redis::start(&programs.redis, dir.path()).await?)
        } else {
            None
        };
        let mut replicas = Vec::with_capacity(layout.replicas);
        let mut ports = Vec::with_capacity(layout.replicas);
        for i in 1..=layout.replicas {
            let name = format!("{}-r{i}", layout.key);
            let (process, port) = start_replica(
                &programs.example_server,
                redis.as_ref().map(|r| r.url.as_str()),
                &name,
                log_dir,
            )
            .await?;
            replicas.push(process);
            ports.push(port);
        }
        let haproxy = if layout.balanced {
            let haproxy_dir = log_dir.join(format!("{}-haproxy", layout.key));
            std::fs::create_dir_all(&haproxy_dir)
                .map_err(|e| format!("creating {}: {e}", haproxy_dir.display()))?;
            Some(Haproxy::start(&programs.haproxy, &ports, &haproxy_dir).await?)
        } else {
            None
        };
        let addr = match &haproxy {
            Some(h) => h.addr,
            None => SocketAddr::from(([127, 0, 0, 1], ports[0])),
        };
        Ok(Self {
            redis,
            haproxy,
            replicas,
            addr,
            _dir: dir,
        })
    }

    /// An error naming a process that ended (with its stderr), if one did.
    pub fn check_alive(&mut self) -> Result<(), String> {
        let processes = self
            .replicas
            .iter_mut()
            .chain(self.haproxy.as_mut().map(|h| &mut h.process))
            .chain(self.redis.as_mut().map(|r| &mut r.process));
        for process in processes {
            if !process.running() {
                return Err(format!(
                    "{} ended during the measurement: {}",
                    process.name,
                    process.log_tail()
                ));
            }
        }
        Ok(())
    }

    /// Stops every process.
    pub async fn stop(self) {
        if let Some(haproxy) = self.haproxy {
            haproxy.process.stop().await;
        }
        for replica in self.replicas {
            replica.stop().await;
        }
        if let Some(redis) = self.redis {
            redis.process.stop().await;
        }
    }

    /// CPU seconds of each group of processes, of this process and of the whole machine.
    fn cpu(&self) -> Result<Cpu, String> {
        let of = |pid: u32| {
            procfs::cpu_seconds(pid).map_err(|e| format!("reading the CPU time of {pid}: {e}"))
        };
        Ok(Cpu {
            replicas: self
                .replicas
                .iter()
                .map(|p| of(p.pid))
                .sum::<Result<f64, String>>()?,
            haproxy: self
                .haproxy
                .as_ref()
                .map_or(Ok(0.0), |h| of(h.process.pid))?,
            redis: self.redis.as_ref().map_or(Ok(0.0), |r| of(r.process.pid))?,
            client: of(std::process::id())?,
            machine: procfs::machine_busy_seconds().map_err(|e| e.to_string())?,
        })
    }
}

/// CPU seconds (or, per call, microseconds) of the processes of a measurement.
#[derive(Debug, Clone, Copy, Default)]
pub struct Cpu {
    /// All replicas together.
    pub replicas: f64,
    /// haproxy.
    pub haproxy: f64,
    /// redis-server.
    pub redis: f64,
    /// The load generator (this process).
    pub client: f64,
    /// The whole machine (busy time of every CPU, `/proc/stat`).
    pub machine: f64,
}

impl Cpu {
    /// `self − before`, scaled by `scale`.
    fn since(&self, before: &Cpu, scale: f64) -> Cpu {
        Cpu {
            replicas: (self.replicas - before.replicas) * scale,
            haproxy: (self.haproxy - before.haproxy) * scale,
            redis: (self.redis - before.redis) * scale,
            client: (self.client - before.client) * scale,
            machine: (self.machine - before.machine) * scale,
        }
    }

    /// The processes of the measurement together (not the machine).
    pub fn processes(&self) -> f64 {
        self.replicas + self.haproxy + self.redis + self.client
    }
}

/// The outcome of one measurement.
#[derive(Debug, Clone, Default)]
pub struct Sample {
    /// Checked answers per second.
    pub rate: f64,
    /// Median latency of a call, microseconds.
    pub p50_us: f64,
    /// 99th percentile, microseconds.
    pub p99_us: f64,
    /// Checked answers counted.
    pub calls: u64,
    /// CPU time per checked answer, microseconds.
    pub cpu_us: Cpu,
    /// The machine's busy share of its CPUs over the measured time (0–1).
    pub busy: f64,
    /// The share of its CPUs that went to other processes than the measurement's (0–1; the
    /// machine's busy time less the processes' own, which disagree by a few per cent).
    pub others: f64,
    /// What Redis did over the measured time (when the layout has it).
    pub redis: Option<RedisCounters>,
    /// Requests haproxy sent to each replica over the measured time (when it balances).
    pub per_replica: Vec<u64>,
    /// Calls that failed (any phase), and the first failure.
    pub failures: u64,
    /// The first failure's message.
    pub first_failure: Option<String>,
}

/// Failures seen by the sessions.
#[derive(Default)]
struct Failures {
    count: AtomicU64,
    first: Mutex<Option<String>>,
}

impl Failures {
    fn record(&self, error: String) {
        self.count.fetch_add(1, Ordering::Relaxed);
        self.first
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get_or_insert(error);
    }
}

/// Measures the deployment: `settings.sessions` stateful sessions (opened through
/// `deployment.addr`), each calling `echo` in a closed loop for the warm-up and the measured
/// time; counts the checked answers of the measured time, with the CPU time of every process,
/// Redis's command counters and haproxy's per-replica requests over that time.
pub async fn measure(deployment: &Deployment, settings: &Settings) -> Result<Sample, String> {
    let addr = deployment.addr;
    let blob = Arc::new(tools::blob());
    let failures = Arc::new(Failures::default());
    let counted = failures.clone();
    let sessions = Sessions::open(
        settings.sessions,
        |_| HttpSession::open(addr, Protocol::Stateful, Tool::Echo),
        move |session, index, phase| {
            let (blob, failures) = (blob.clone(), failures.clone());
            async move { run_session(session, index, &phase, &blob, &failures).await }
        },
    )
    .await?;
    sessions.warm_up(settings.warmup).await;

    let redis_before = match &deployment.redis {
        Some(redis) => Some(redis.counters().await?),
        None => None,
    };
    let haproxy_before = match &deployment.haproxy {
        Some(haproxy) => haproxy.requests_per_replica().await?,
        None => Vec::new(),
    };
    let cpu_before = deployment.cpu()?;
    let started = Instant::now();
    sessions.measure();
    tokio::time::sleep(settings.measure).await;
    sessions.stop();
    let elapsed = started.elapsed();
    let cpu_after = deployment.cpu()?;
    let redis = match (&deployment.redis, redis_before) {
        (Some(redis), Some(before)) => Some(redis.counters().await?.since(&before)),
        _ => None,
    };
    let per_replica = match &deployment.haproxy {
        Some(haproxy) => haproxy
            .requests_per_replica()
            .await?
            .iter()
            .zip(haproxy_before.iter().chain(std::iter::repeat(&0)))
            .map(|(after, before)| after.saturating_sub(*before))
            .collect(),
        None => Vec::new(),
    };
    let latencies = sessions.latencies().await?;
    let calls = latencies.len() as u64;
    let per_call = if calls == 0 {
        f64::NAN
    } else {
        1e6 / calls as f64
    };
    let cpus = std::thread::available_parallelism().map_or(1, usize::from) as f64;
    let cpu_us = cpu_after.since(&cpu_before, per_call);
    let spent = cpu_after.since(&cpu_before, 1.0);
    let capacity = elapsed.as_secs_f64() * cpus;
    let busy = spent.machine / capacity;
    let others = (spent.machine - spent.processes()).max(0.0) / capacity;
    let first_failure = counted
        .first
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .clone();
    Ok(Sample {
        rate: calls as f64 / elapsed.as_secs_f64(),
        p50_us: percentile_us(&latencies, 50.0),
        p99_us: percentile_us(&latencies, 99.0),
        calls,
        cpu_us,
        busy,
        others,
        redis,
        per_replica,
        failures: counted.count.load(Ordering::Relaxed),
        first_failure,
    })
}

/// The loop of one session: call `echo`, check, count while measuring; until told to stop. A
/// failed call is recorded, and the session starts again (a new connection and a new
/// `initialize`); failing to do so ends the measurement.
async fn run_session(
    mut session: HttpSession,
    index: usize,
    phase: &AtomicU8,
    blob: &Blob,
    failures: &Failures,
) -> Result<Vec<u64>, String> {
    let mut latencies = Vec::with_capacity(1 << 16);
    let mut body = Vec::with_capacity(256);
    let mut scratch = Vec::new();
    let mut message = String::with_capacity(32);
    let mut seq: u64 = 0;
    while phase.load(Ordering::Relaxed) != STOP {
        seq += 1;
        message.clear();
        {
            use std::fmt::Write as _;
            let _ = write!(message, "scale {index}-{seq}");
        }
        mcp::call_body(&mut body, seq, Tool::Echo, &message, Protocol::Stateful);
        let started = Instant::now();
        let outcome = match session.post(&body).await {
            Ok(()) => ClosedLoop::answer(&session, seq, &mut scratch)
                .and_then(|a| mcp::check_call(a, seq, Tool::Echo, &message, blob)),
            Err(e) => Err(e),
        };
        let elapsed = started.elapsed();
        match outcome {
            Ok(()) => {
                if phase.load(Ordering::Relaxed) == MEASURE {
                    latencies.push(elapsed.as_nanos() as u64);
                }
            }
            Err(e) => {
                failures.record(format!("session {index}, call {seq}: {e}"));
                session.connection = Connection::connect(session.addr)
                    .await
                    .map_err(|e| format!("reconnecting to {}: {e}", session.addr))?;
                session
                    .initialize()
                    .await
                    .map_err(|e| format!("a new session after a failed call: {e}"))?;
            }
        }
    }
    session.close().await;
    Ok(latencies)
}
