//! The host side of the interpreter driver: one request at a time over the control
//! channel, the output streams read until the request's fence.
//!
//! # The protocol
//!
//! The driver (`python.py`, `node.js`, run by the session's interpreter inside the sandbox)
//! reads requests on descriptor 3 and answers on descriptor 4, one JSON object per line:
//!
//! | direction | frame |
//! |---|---|
//! | driver → host, once | `{"type":"ready","language":"python","version":"3.11.2","pid":2}` |
//! | host → driver | `{"type":"exec","id":1,"code":"x = 1","fence":"<32 hex>"}`: code in the session's namespace, the last expression's value shown like a REPL |
//! | host → driver | `{"type":"run","id":2,"shell":"ls -l","fence":"…"}` or `{"type":"run","id":2,"argv":["ls","-l"],"fence":"…"}`: a program in the workspace, waited for |
//! | driver → host | `{"type":"done","id":1,"ok":false,"error":{"name":"ZeroDivisionError","message":"division by zero"}}`, for `run` with `exit_code` and `signal` |
//!
//! Output goes to descriptors 1 and 2 as the code writes it; before `done`, the driver
//! writes the request's fence to both ([`fence`]).

mod capture;
mod fence;

use std::time::Duration;

use serde::{Deserialize, Serialize};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;
use tokio_util::task::AbortOnDropHandle;

pub use self::capture::{Capture, Stream};
use self::fence::{FenceScanner, Scan};
use crate::backend::{Reader, Sandbox, Writer};

/// The longest control frame accepted from a driver.
const MAX_FRAME: usize = 1 << 20;
/// How long the streams' fences may lag behind the `done` frame (or the streams' end behind
/// the driver's) before the request is finished without them.
const FENCE_GRACE: Duration = Duration::from_secs(2);

/// What to run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Job {
    /// Code for the session's interpreter.
    Code(String),
    /// A command line for `/bin/sh -c`.
    Shell(String),
    /// A program and its arguments, run directly.
    Argv(Vec<String>),
}

/// An error the code raised, or why a program could not start.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RaisedError {
    /// The exception's class (`ZeroDivisionError`, `TypeError`) or the system error
    /// (`ENOENT`).
    pub name: String,
    /// Its message.
    pub message: String,
}

/// The driver's answer to a request.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Done {
    id: Option<u64>,
    /// The code ran without raising; the program exited 0.
    pub ok: bool,
    /// What the code raised.
    #[serde(default)]
    pub error: Option<RaisedError>,
    /// A program's exit code.
    #[serde(default)]
    pub exit_code: Option<i32>,
    /// The signal that ended a program.
    #[serde(default)]
    pub signal: Option<i32>,
}

#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
enum Frame {
    Ready { language: String, version: String },
    Done(Done),
}

/// How a request ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// The driver answered.
    Done(Done),
    /// The driver stopped (the interpreter exited or was killed, or broke the protocol).
    Ended(String),
    /// The deadline passed first; the request is still running.
    TimedOut,
    /// The interruption came first; the request is still running.
    Cancelled,
}

/// A finished request: how it ended and what it wrote.
#[derive(Debug, Clone)]
pub struct Finished {
    /// How it ended.
    pub outcome: Outcome,
    /// Its standard output.
    pub stdout: Capture,
    /// Its standard error.
    pub stderr: Capture,
}

/// The interpreter a driver runs on, as it reported itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ready {
    /// `python` or `node`.
    pub language: String,
    /// The interpreter's version.
    pub version: String,
}

struct Chunk {
    stream: Stream,
    /// `None`: the stream ended.
    data: Option<Vec<u8>>,
}

/// A connected driver.
pub struct Driver {
    control_in: Writer,
    frames: mpsc::Receiver<Result<Frame, String>>,
    output: mpsc::Receiver<Chunk>,
    /// Output that followed a fence: the next request's.
    carry: [Vec<u8>; 2],
    ended: [bool; 2],
    next_id: u64,
    ready: Ready,
    _tasks: Vec<AbortOnDropHandle<()>>,
}

impl std::fmt::Debug for Driver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Driver")
            .field("ready", &self.ready)
            .finish()
    }
}

fn index(stream: Stream) -> usize {
    match stream {
        Stream::Stdout => 0,
        Stream::Stderr => 1,
    }
}

async fn read_frames(control_out: Reader, frames: mpsc::Sender<Result<Frame, String>>) {
    let mut reader = BufReader::new(control_out);
    let mut line = Vec::new();
    loop {
        line.clear();
        let read = (&mut reader)
            .take(MAX_FRAME as u64 + 1)
            .read_until(b'\n', &mut line)
            .await;
        let frame = match read {
            Ok(0) | Err(_) => return,
            Ok(_) if line.len() > MAX_FRAME => Err(format!(
                "the driver sent a control frame over {MAX_FRAME} bytes"
            )),
            Ok(_) => serde_json::from_slice::<Frame>(&line).map_err(|e| {
                format!(
                    "the driver sent an invalid control frame ({e}): {}",
                    String::from_utf8_lossy(&line[..line.len().min(200)])
                )
            }),
        };
        let failed = frame.is_err();
        if frames.send(frame).await.is_err() || failed {
            return;
        }
    }
}

async fn read_output(mut reader: Reader, stream: Stream, output: mpsc::Sender<Chunk>) {
    let mut buffer = vec![0u8; 32 * 1024];
    loop {
        let data = match reader.read(&mut buffer).await {
            Ok(0) | Err(_) => None,
            Ok(n) => Some(buffer[..n].to_vec()),
        };
        let end = data.is_none();
        if output.send(Chunk { stream, data }).await.is_err() || end {
            return;
        }
    }
}

impl Driver {
    /// Takes over `sandbox`'s streams and waits up to `startup` for the driver's `ready`.
    /// Returns the handle for the caller to keep.
    ///
    /// # Errors
    /// The driver did not report ready in time, or the sandbox ended first: the message
    /// carries what it wrote to stderr (bubblewrap's own errors land there).
    pub async fn connect(
        sandbox: Sandbox,
        startup: Duration,
    ) -> (
        Result<Driver, String>,
        Box<dyn crate::backend::SandboxHandle>,
    ) {
        let Sandbox {
            control_in,
            control_out,
            stdout,
            stderr,
            handle,
        } = sandbox;
        let (frame_tx, frames) = mpsc::channel(4);
        let (output_tx, output) = mpsc::channel(32);
        let tasks = vec![
            AbortOnDropHandle::new(tokio::spawn(read_frames(control_out, frame_tx))),
            AbortOnDropHandle::new(tokio::spawn(read_output(
                stdout,
                Stream::Stdout,
                output_tx.clone(),
            ))),
            AbortOnDropHandle::new(tokio::spawn(read_output(stderr, Stream::Stderr, output_tx))),
        ];
        let mut driver = Driver {
            control_in,
            frames,
            output,
            carry: [Vec::new(), Vec::new()],
            ended: [false, false],
            next_id: 1,
            ready: Ready {
                language: String::new(),
                version: String::new(),
            },
            _tasks: tasks,
        };
        let result = match tokio::time::timeout(startup, driver.frames.recv()).await {
            Ok(Some(Ok(Frame::Ready { language, version }))) => {
                driver.ready = Ready { language, version };
                Ok(driver)
            }
            Ok(Some(Ok(Frame::Done(_)))) => Err("the driver answered before it was ready".into()),
            Ok(Some(Err(e))) => Err(e),
            Ok(None) => Err(driver.early_output("the interpreter exited at start").await),
            Err(_) => Err(driver
                .early_output(&format!("the interpreter did not start within {startup:?}"))
                .await),
        };
        (result, handle)
    }

    /// `reason`, with what the sandbox wrote before it ended.
    async fn early_output(&mut self, reason: &str) -> String {
        let mut text = Vec::new();
        let wait = tokio::time::sleep(FENCE_GRACE);
        tokio::pin!(wait);
        while !(self.ended[0] && self.ended[1]) {
            tokio::select! {
                chunk = self.output.recv() => match chunk {
                    Some(Chunk { data: Some(data), .. }) => text.extend(data),
                    Some(Chunk { stream, data: None }) => self.ended[index(stream)] = true,
                    None => break,
                },
                () = &mut wait => break,
            }
        }
        let text = String::from_utf8_lossy(&text);
        let text = text.trim();
        if text.is_empty() {
            reason.to_owned()
        } else {
            format!("{reason}: {}", text.chars().take(2000).collect::<String>())
        }
    }

    /// The interpreter, as it reported itself.
    pub fn ready(&self) -> &Ready {
        &self.ready
    }

    /// Runs `job` and returns once the driver answered and both streams reached the fence,
    /// keeping at most `limit` bytes of each stream. While it runs, output goes to
    /// `progress` (until a stream's limit is reached). At `deadline`, or when `interrupt`
    /// completes, it returns what was written so far with [`Outcome::TimedOut`] or
    /// [`Outcome::Cancelled`]: the request is still running then, and the driver is of no
    /// further use (the caller ends the sandbox).
    pub async fn run(
        &mut self,
        job: &Job,
        limit: usize,
        progress: Option<&mpsc::Sender<(Stream, String)>>,
        deadline: tokio::time::Instant,
        interrupt: impl std::future::Future<Output = ()>,
    ) -> Finished {
        tokio::pin!(interrupt);
        let fence = fence::new_fence();
        let mut run = Run {
            scanners: [
                Some(FenceScanner::new(&fence)),
                Some(FenceScanner::new(&fence)),
            ],
            captures: [Capture::new(limit), Capture::new(limit)],
            limit,
        };
        let id = self.next_id;
        self.next_id += 1;
        let mut request = match job {
            Job::Code(code) => serde_json::json!({"type": "exec", "id": id, "code": code}),
            Job::Shell(line) => serde_json::json!({"type": "run", "id": id, "shell": line}),
            Job::Argv(argv) => serde_json::json!({"type": "run", "id": id, "argv": argv}),
        };
        request["fence"] = fence.clone().into();
        let mut line = request.to_string();
        line.push('\n');
        if let Err(e) = self.control_in.write_all(line.as_bytes()).await {
            return run.finish(Outcome::Ended(format!("the interpreter is gone ({e})")));
        }
        let _ = self.control_in.flush().await;
        for stream in [Stream::Stdout, Stream::Stderr] {
            let carried = std::mem::take(&mut self.carry[index(stream)]);
            if self.ended[index(stream)] {
                run.scanners[index(stream)] = None;
            }
            if !carried.is_empty() {
                self.feed(&mut run, stream, &carried, progress).await;
            }
        }
        let mut outcome = None;
        let grace = tokio::time::sleep(Duration::MAX / 4);
        tokio::pin!(grace);
        loop {
            let fenced = run.scanners.iter().all(Option::is_none);
            if outcome.is_some() && fenced {
                break;
            }
            tokio::select! {
                frame = self.frames.recv(), if outcome.is_none() => {
                    outcome = Some(match frame {
                        Some(Ok(Frame::Done(done))) if done.id == Some(id) => Outcome::Done(done),
                        Some(Ok(_)) => continue,
                        Some(Err(e)) => Outcome::Ended(e),
                        None => Outcome::Ended("the interpreter exited".to_owned()),
                    });
                    grace.as_mut().reset(tokio::time::Instant::now() + FENCE_GRACE);
                }
                chunk = self.output.recv() => match chunk {
                    Some(Chunk { stream, data: Some(data) }) => {
                        self.feed(&mut run, stream, &data, progress).await;
                    }
                    Some(Chunk { stream, data: None }) => {
                        self.ended[index(stream)] = true;
                        if let Some(mut scanner) = run.scanners[index(stream)].take() {
                            run.captures[index(stream)].push(&scanner.finish());
                        }
                    }
                    None => run.scanners = [None, None],
                },
                () = &mut grace, if outcome.is_some() => {
                    tracing::debug!("an execution's output did not reach its fence in time");
                    break;
                }
                () = tokio::time::sleep_until(deadline), if outcome.is_none() => {
                    return run.finish(Outcome::TimedOut);
                }
                () = &mut interrupt, if outcome.is_none() => {
                    return run.finish(Outcome::Cancelled);
                }
            }
        }
        run.finish(outcome.expect("set before the loop ends"))
    }

    async fn feed(
        &mut self,
        run: &mut Run,
        stream: Stream,
        data: &[u8],
        progress: Option<&mpsc::Sender<(Stream, String)>>,
    ) {
        let i = index(stream);
        let Some(scanner) = run.scanners[i].as_mut() else {
            // Output after the fence is the next request's: kept up to its limit (a background
            // process flooding the stream meanwhile costs no more memory than that).
            let room = run.limit.saturating_sub(self.carry[i].len());
            self.carry[i].extend_from_slice(&data[..data.len().min(room)]);
            return;
        };
        let capture = &mut run.captures[i];
        match scanner.push(data) {
            Scan::Output(bytes) => capture.push(&bytes),
            Scan::Fenced { before, mut after } => {
                capture.push(&before);
                after.truncate(run.limit);
                self.carry[i] = after;
                run.scanners[i] = None;
            }
        }
        if let Some(progress) = progress
            && let Some(text) = run.captures[i].take_progress()
        {
            let _ = progress.send((stream, text)).await;
        }
    }
}

struct Run {
    scanners: [Option<FenceScanner>; 2],
    captures: [Capture; 2],
    limit: usize,
}

impl Run {
    fn finish(self, outcome: Outcome) -> Finished {
        let [stdout, stderr] = self.captures;
        Finished {
            outcome,
            stdout,
            stderr,
        }
    }
}
