//! The sessions of one closed-loop measurement: opened together, started together after all
//! are open, switched from warm-up to measuring to stopped, and their measured latencies
//! gathered.

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};
use std::time::Duration;

use tokio::sync::{mpsc, watch};
use tokio::task::JoinHandle;

/// Calls made before the measured time (not counted).
pub const WARMUP: u8 = 0;
/// Calls made during the measured time (counted).
pub const MEASURE: u8 = 1;
/// The sessions stop calling.
pub const STOP: u8 = 2;

/// How long opening all sessions may take.
const OPEN_WITHIN: Duration = Duration::from_secs(60);

/// Sessions that run a closed loop each: see [`Sessions::open`].
pub struct Sessions {
    phase: Arc<AtomicU8>,
    start: watch::Sender<bool>,
    tasks: Vec<JoinHandle<Result<Vec<u64>, String>>>,
}

impl Sessions {
    /// Opens `count` sessions at once with `open(index)` and waits until every one is open;
    /// each then waits for [`warm_up`](Self::warm_up) and runs `run(session, index, phase)`,
    /// which calls until the phase is [`STOP`] and returns the latencies (ns) of the calls
    /// made while it was [`MEASURE`].
    pub async fn open<S, O, OpenFut, R, RunFut>(
        count: usize,
        open: O,
        run: R,
    ) -> Result<Self, String>
    where
        S: Send + 'static,
        O: Fn(usize) -> OpenFut,
        OpenFut: Future<Output = Result<S, String>> + Send + 'static,
        R: Fn(S, usize, Arc<AtomicU8>) -> RunFut + Clone + Send + 'static,
        RunFut: Future<Output = Result<Vec<u64>, String>> + Send + 'static,
    {
        let phase = Arc::new(AtomicU8::new(WARMUP));
        let (start, start_rx) = watch::channel(false);
        let (ready_tx, mut ready_rx) = mpsc::channel::<Result<(), String>>(count.max(1));
        let mut tasks = Vec::with_capacity(count);
        for index in 0..count {
            let (phase, ready, mut go, run) = (
                phase.clone(),
                ready_tx.clone(),
                start_rx.clone(),
                run.clone(),
            );
            let opening = open(index);
            tasks.push(tokio::spawn(async move {
                let session = match opening.await {
                    Ok(session) => {
                        let _ = ready.send(Ok(())).await;
                        session
                    }
                    Err(e) => {
                        let _ = ready.send(Err(e.clone())).await;
                        return Err(e);
                    }
                };
                drop(ready);
                if go.wait_for(|go| *go).await.is_err() {
                    return Ok(Vec::new());
                }
                run(session, index, phase).await
            }));
        }
        drop(ready_tx);
        let sessions = Self {
            phase,
            start,
            tasks,
        };
        for _ in 0..count {
            let problem = match tokio::time::timeout(OPEN_WITHIN, ready_rx.recv()).await {
                Ok(Some(Ok(()))) => continue,
                Ok(None) => break,
                Ok(Some(Err(e))) => format!("opening a session: {e}"),
                Err(_) => format!("sessions not set up after {} s", OPEN_WITHIN.as_secs()),
            };
            sessions.abort();
            return Err(problem);
        }
        Ok(sessions)
    }

    fn abort(self) {
        self.phase.store(STOP, Ordering::Relaxed);
        drop(self.start);
        for task in self.tasks {
            task.abort();
        }
    }

    /// Starts every session calling, and lets them warm up for `time`.
    pub async fn warm_up(&self, time: Duration) {
        let _ = self.start.send(true);
        tokio::time::sleep(time).await;
    }

    /// From now on the calls count.
    pub fn measure(&self) {
        self.phase.store(MEASURE, Ordering::Relaxed);
    }

    /// The sessions stop calling.
    pub fn stop(&self) {
        self.phase.store(STOP, Ordering::Relaxed);
    }

    /// Waits for every session to end and gives the latencies of the counted calls, sorted;
    /// the first session's error otherwise.
    pub async fn latencies(self) -> Result<Vec<u64>, String> {
        let mut latencies = Vec::new();
        let mut first_error = None;
        for task in self.tasks {
            match task.await {
                Ok(Ok(mut l)) => latencies.append(&mut l),
                Ok(Err(e)) => {
                    first_error.get_or_insert(e);
                }
                Err(e) => {
                    first_error.get_or_insert(e.to_string());
                }
            }
        }
        if let Some(e) = first_error {
            return Err(e);
        }
        latencies.sort_unstable();
        Ok(latencies)
    }
}
