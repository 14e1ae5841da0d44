//! The transport for any byte stream: newline-delimited JSON, one reader task, one writer task.

use std::future::Future;
use std::sync::{Arc, Weak};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite};
use tokio::sync::mpsc;

use crate::connection::{Frame, InboundReceivers, OUTBOUND_QUEUE, Outbound, Shared};
use crate::framing::{LineEvent, LineReader, LineWriter};
use crate::stdout_log::StdoutLogWriter;
use crate::{Limits, WireTap};

/// How long queued messages may take to drain once the connection is closed.
const CLOSE_GRACE: Duration = Duration::from_secs(5);

/// What the reader does with the peer's output once the connection is closed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum AfterClose {
    /// Keep reading (and discarding) until end of file, so that a child process that is
    /// still writing while it shuts down never dies of a broken pipe. The child's exit
    /// ends the read.
    DrainUntilEof,
    /// Drain for at most [`CLOSE_GRACE`], then drop the stream.
    DrainBriefly,
}

/// Starts the reader and writer tasks of a stream connection.
pub(crate) fn start<R, W>(
    read: R,
    write: W,
    limits: Limits,
    wire: Option<WireTap>,
    log: Option<StdoutLogWriter>,
    after_close: AfterClose,
) -> (Arc<Shared>, InboundReceivers)
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (tx, rx) = mpsc::channel(OUTBOUND_QUEUE);
    let (shared, receivers) = Shared::new(Outbound::Stream(tx), limits, wire);
    tokio::spawn(write_loop(write, rx, Arc::downgrade(&shared)));
    tokio::spawn(read_loop(read, shared.clone(), log, after_close));
    (shared, receivers)
}

async fn read_loop<R: AsyncRead + Unpin>(
    mut read: R,
    shared: Arc<Shared>,
    mut log: Option<StdoutLogWriter>,
    after_close: AfterClose,
) {
    let mut lines = LineReader::new(shared.limits.max_message_bytes);
    loop {
        let event = tokio::select! {
            biased;
            event = lines.next(&mut read) => event,
            () = shared.closed() => break,
        };
        match event {
            Ok(LineEvent::Line(range)) => {
                let line = lines.line(range);
                if let Some(log) = &mut log {
                    log.write_line(line);
                }
                shared.dispatch(line);
            }
            Ok(LineEvent::Oversized(o)) => shared.oversized(o.id, o.is_request),
            Ok(LineEvent::Eof) => {
                shared.close("the peer closed its output (end of file)");
                return;
            }
            Err(e) => {
                shared.close(format!("reading from the peer failed: {e}"));
                return;
            }
        }
    }
    drop(shared);
    let mut sink = [0u8; 8192];
    let drain = async { while matches!(read.read(&mut sink).await, Ok(n) if n > 0) {} };
    match after_close {
        AfterClose::DrainUntilEof => drain.await,
        AfterClose::DrainBriefly => {
            let _ = tokio::time::timeout(CLOSE_GRACE, drain).await;
        }
    }
}

async fn write_loop<W: AsyncWrite + Unpin>(
    write: W,
    mut rx: mpsc::Receiver<Frame>,
    shared: Weak<Shared>,
) {
    let mut writer = LineWriter::new(write);
    let Some(closed) = shared.upgrade().map(|s| s.closed_token()) else {
        return;
    };
    let mut closing = false;
    loop {
        let first = if closing {
            match rx.try_recv() {
                Ok(frame) => frame,
                Err(_) => break,
            }
        } else {
            tokio::select! {
                biased;
                frame = rx.recv() => match frame {
                    Some(frame) => frame,
                    None => break,
                },
                () = closed.cancelled() => {
                    closing = true;
                    continue;
                }
            }
        };
        let written = within_grace(writer.write_queued(first, &mut rx), &closed).await;
        match written {
            Some(Ok(())) => {}
            Some(Err(e)) => {
                if let Some(shared) = shared.upgrade() {
                    shared.close(format!("writing to the peer failed: {e}"));
                }
                return;
            }
            None => return,
        }
    }
    let _ = tokio::time::timeout(CLOSE_GRACE, writer.shutdown()).await;
}

/// Runs `fut` to completion, but gives it only [`CLOSE_GRACE`] once the connection closes.
async fn within_grace<F: Future>(
    fut: F,
    closed: &tokio_util::sync::CancellationToken,
) -> Option<F::Output> {
    tokio::pin!(fut);
    tokio::select! {
        biased;
        out = &mut fut => return Some(out),
        () = closed.cancelled() => {}
    }
    tokio::time::timeout(CLOSE_GRACE, fut).await.ok()
}
