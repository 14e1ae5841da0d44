//! stdio: one JSON-RPC message per line on stdin and stdout; stdout carries nothing else.

use std::io;

use mcp_jsonrpc::ErrorObject;
use mcp_jsonrpc::framing::{LineEvent, LineReader, LineWriter};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::mpsc;

use super::connection::Connection;
use crate::Server;
use crate::session::Outbound;

#[cfg(unix)]
mod fd;

/// Messages queued for the writer before handlers wait (back-pressure on a slow reader).
const OUTBOUND_QUEUE: usize = 1024;

impl Server {
    /// Serves one client on this process's stdin and stdout until stdin closes (or
    /// [`Server::shutdown`]); then lets in-flight requests finish, flushes and returns. A
    /// client that closed its end before reading every answer is a normal end (`Ok`).
    ///
    /// Log with `tracing` to stderr: anything else on stdout corrupts the protocol.
    pub async fn serve_stdio(&self) -> io::Result<()> {
        // On a runtime worker, not on the thread that awaits this (often `block_on`'s, where
        // every wake-up would cross threads).
        let server = self.clone();
        tokio::spawn(async move {
            #[cfg(unix)]
            return server
                .serve_io(fd::Input::stdin(), fd::Output::stdout())
                .await;
            #[cfg(not(unix))]
            server
                .serve_io(tokio::io::stdin(), tokio::io::stdout())
                .await
        })
        .await
        .map_err(|e| io::Error::other(format!("the stdio server task failed: {e}")))?
    }

    /// Serves one client on any byte stream pair (a pipe, a unix socket, a child's stdio),
    /// exactly as [`Server::serve_stdio`] does.
    pub async fn serve_io<R, W>(&self, mut read: R, write: W) -> io::Result<()>
    where
        R: AsyncRead + Unpin + Send,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let (tx, rx) = mpsc::channel::<Outbound>(OUTBOUND_QUEUE);
        let writer = tokio::spawn(write_loop(write, rx));
        let connection = Connection::new(self.new_session(None), tx);
        let limit = self.options().max_message_bytes;
        let mut lines = LineReader::new(limit);
        let mut read_error = None;
        loop {
            let event = tokio::select! {
                event = lines.next(&mut read) => event,
                _ = self.shutting_down() => break,
            };
            match event {
                Ok(LineEvent::Line(range)) => {
                    let line = lines.line(range);
                    if line.iter().all(u8::is_ascii_whitespace) {
                        continue;
                    }
                    connection.on_frame(line).await;
                }
                Ok(LineEvent::Oversized(o)) => {
                    tracing::warn!(limit, "a message over the size limit was discarded");
                    if o.is_request {
                        let error = ErrorObject::invalid_request(format!(
                            "message too large: the limit is {limit} bytes"
                        ));
                        connection.send_error(o.id.as_ref(), &error).await;
                    }
                }
                Ok(LineEvent::Eof) => break,
                Err(e) => {
                    read_error = Some(e);
                    break;
                }
            }
        }
        connection.finish().await;
        drop(connection);
        match writer
            .await
            .map_err(|e| io::Error::other(format!("the stdout writer failed: {e}")))?
        {
            // The client went away without reading its last answers: an end, not a failure.
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {
                tracing::debug!("the client closed its end of the output before the last write");
            }
            written => written?,
        }
        match read_error {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

async fn write_loop<W: AsyncWrite + Unpin>(
    write: W,
    mut rx: mpsc::Receiver<Outbound>,
) -> io::Result<()> {
    // Poll requests, which only streamable HTTP understands, are not lines: skipped.
    let mut writer = LineWriter::new(write);
    while let Some(first) = rx.recv().await {
        writer.write_queued(first, &mut rx).await?;
    }
    writer.shutdown().await.or(Ok(()))
}
