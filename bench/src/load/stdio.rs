//! Calls over stdio: one child, one session, a fixed number of requests in flight (1 is
//! sequential round trips).
//!
//! One task keeps the window full: every answer read is checked, and a new request takes its
//! place; requests are buffered and written when no further answer is already buffered, so a
//! burst of answers is replaced in one write.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, BufWriter};
use tokio::process::{ChildStdin, ChildStdout};

use super::mcp::{self, Protocol, Tool};
use super::server::Running;
use super::{Sample, Scenario, Timing, cpu_pair, sample};
use crate::tools::{self, Blob};

/// An initialized stdio session with a child.
pub struct StdioSession {
    reader: BufReader<ChildStdout>,
    writer: BufWriter<ChildStdin>,
    line: Vec<u8>,
    next_id: u64,
    blob: Blob,
}

impl StdioSession {
    /// Takes the child's pipes and runs `initialize` and `notifications/initialized`.
    pub async fn open(server: &mut Running) -> Result<Self, String> {
        let stdin = server
            .child
            .stdin
            .take()
            .ok_or("the child has no stdin pipe")?;
        let stdout = server
            .child
            .stdout
            .take()
            .ok_or("the child has no stdout pipe")?;
        let mut session = StdioSession {
            reader: BufReader::with_capacity(256 * 1024, stdout),
            writer: BufWriter::with_capacity(256 * 1024, stdin),
            line: Vec::with_capacity(64 * 1024),
            next_id: 1,
            blob: tools::blob(),
        };
        session.write(&mcp::initialize_body(0)).await?;
        session.flush().await?;
        let answer = tokio::time::timeout(Duration::from_secs(60), session.read_response(0))
            .await
            .map_err(|_| format!("no answer to initialize after 60 s: {}", server.log_tail()))?
            .map_err(|e| format!("{e}: {}", server.log_tail()))?;
        mcp::initialize_version(&answer)?;
        session.write(mcp::INITIALIZED_BODY).await?;
        session.flush().await?;
        Ok(session)
    }

    async fn write(&mut self, message: &[u8]) -> Result<(), String> {
        self.writer
            .write_all(message)
            .await
            .and(self.writer.write_all(b"\n").await)
            .map_err(|e| format!("writing to the child: {e}"))
    }

    async fn flush(&mut self) -> Result<(), String> {
        self.writer
            .flush()
            .await
            .map_err(|e| format!("writing to the child: {e}"))
    }

    /// Reads the next line that answers a request; returns its id (as text) in `self.line`.
    async fn read_answer(&mut self) -> Result<String, String> {
        loop {
            self.line.clear();
            let n = self
                .reader
                .read_until(b'\n', &mut self.line)
                .await
                .map_err(|e| format!("reading from the child: {e}"))?;
            if n == 0 {
                return Err("the child closed its stdout".into());
            }
            let Ok(answer) = mcp::answer_id(&self.line) else {
                return Err(format!(
                    "the child wrote a line that is not JSON-RPC: {}",
                    mcp::preview(&self.line)
                ));
            };
            match answer {
                Some(id) => return Ok(id.to_owned()),
                // Notifications (and requests, which these tools never send) are skipped.
                None => continue,
            }
        }
    }

    /// Reads until the answer to `id`; returns that line.
    async fn read_response(&mut self, id: u64) -> Result<Vec<u8>, String> {
        loop {
            if self.read_answer().await? == id.to_string() {
                return Ok(self.line.clone());
            }
        }
    }

    /// Measures `scenario` (the tool, `concurrency` requests in flight) against the child
    /// `pid`: warm-up, then the measured time, then the requests still in flight are drained
    /// without being counted.
    pub async fn measure(
        &mut self,
        pid: u32,
        scenario: Scenario,
        timing: Timing,
    ) -> Result<Sample, String> {
        let mut in_flight: HashMap<u64, (Instant, String)> =
            HashMap::with_capacity(scenario.concurrency * 2);
        let mut body = Vec::with_capacity(1024);
        let started = Instant::now();
        let measure_from = started + timing.warmup;
        let measure_until = measure_from + timing.measure;
        let mut measuring: Option<(Instant, (f64, f64))> = None;
        let mut finished: Option<(Duration, (f64, f64))> = None;
        let mut latencies = Vec::with_capacity(1 << 18);
        for _ in 0..scenario.concurrency {
            self.send_call(scenario.tool, &mut body, &mut in_flight)
                .await?;
        }
        self.flush().await?;
        while !in_flight.is_empty() {
            let id_text = self.read_answer().await?;
            let now = Instant::now();
            let Some(id) = id_text.parse::<u64>().ok() else {
                return Err(format!("answer with an unexpected id {id_text}"));
            };
            let (sent, message) = in_flight
                .remove(&id)
                .ok_or_else(|| format!("answer to id {id}, which is not in flight"))?;
            mcp::check_call(&self.line, id, scenario.tool, &message, &self.blob)?;
            if measuring.is_none() && now >= measure_from {
                measuring = Some((now, cpu_pair(pid)?));
            }
            if let (None, Some((from, _))) = (finished, measuring)
                && now >= measure_until
            {
                finished = Some((now - from, cpu_pair(pid)?));
            }
            match (measuring, finished) {
                (Some(_), None) => {
                    latencies.push((now - sent).as_nanos() as u64);
                }
                (Some(_), Some(_)) => {}
                (None, _) => {}
            }
            if finished.is_none() {
                self.send_call(scenario.tool, &mut body, &mut in_flight)
                    .await?;
            }
            if !self.reader.buffer().contains(&b'\n') {
                self.flush().await?;
            }
        }
        let (Some((_, before)), Some((elapsed, after))) = (measuring, finished) else {
            return Err("the measurement ended before it began".into());
        };
        Ok(sample(
            latencies,
            elapsed,
            after.0 - before.0,
            after.1 - before.1,
        ))
    }

    /// Buffers one `tools/call` request and notes it as in flight.
    async fn send_call(
        &mut self,
        tool: Tool,
        body: &mut Vec<u8>,
        in_flight: &mut HashMap<u64, (Instant, String)>,
    ) -> Result<(), String> {
        let id = self.next_id;
        self.next_id += 1;
        let message = format!("bench {id}");
        mcp::call_body(body, id, tool, &message, Protocol::Stateful);
        let written = self.write(body).await;
        in_flight.insert(id, (Instant::now(), message));
        written
    }

    /// Closes the child's stdin (the end of the session).
    pub async fn close(mut self) {
        let _ = self.writer.shutdown().await;
    }
}
