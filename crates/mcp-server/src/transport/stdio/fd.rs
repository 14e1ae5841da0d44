//! This process's stdin and stdout, read and written through the reactor when they are pipes
//! or unix sockets (what an MCP client gives the server it starts), so that no call waits on
//! a thread of tokio's blocking pool; a terminal or a file falls back to tokio's own
//! `stdin()`/`stdout()`, which do.
//!
//! The descriptors are duplicated, never closed, and put back in blocking mode when dropped
//! (the mode belongs to the open file, which a parent shell may share).

use std::fs::File;
use std::io;
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::fs::FileTypeExt;
use std::pin::Pin;
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::UnixStream;
use tokio::net::unix::pipe;

/// A standard descriptor: a pipe end or a unix socket driven by the reactor, or tokio's own
/// handle `B` (which reads and writes on its blocking pool). The `Option`s are only emptied
/// when dropped, to put the descriptor back in blocking mode.
pub(crate) enum Stdio<P: PipeEnd, B> {
    Pipe(Option<P>),
    Socket(Option<UnixStream>),
    Blocking(B),
}

/// stdin, readable without a blocking thread when it can be.
pub(crate) type Input = Stdio<pipe::Receiver, tokio::io::Stdin>;

/// stdout, writable without a blocking thread when it can be.
pub(crate) type Output = Stdio<pipe::Sender, tokio::io::Stdout>;

/// Either end of a pipe, as tokio drives it (each calls its own inherent function).
pub(crate) trait PipeEnd: Sized {
    fn from_file(file: File) -> io::Result<Self>;
    fn into_blocking_fd(self) -> io::Result<OwnedFd>;
}

impl PipeEnd for pipe::Receiver {
    fn from_file(file: File) -> io::Result<Self> {
        pipe::Receiver::from_file(file)
    }
    fn into_blocking_fd(self) -> io::Result<OwnedFd> {
        pipe::Receiver::into_blocking_fd(self)
    }
}

impl PipeEnd for pipe::Sender {
    fn from_file(file: File) -> io::Result<Self> {
        pipe::Sender::from_file(file)
    }
    fn into_blocking_fd(self) -> io::Result<OwnedFd> {
        pipe::Sender::into_blocking_fd(self)
    }
}

/// What a standard descriptor is, as far as choosing how to drive it goes.
enum Kind {
    Fifo(File),
    Socket(std::os::unix::net::UnixStream),
    Other,
}

fn kind(fd: std::os::fd::BorrowedFd<'_>) -> Kind {
    let Ok(owned) = fd.try_clone_to_owned() else {
        return Kind::Other;
    };
    let file = File::from(owned);
    match file.metadata().map(|m| m.file_type()) {
        Ok(t) if t.is_fifo() => Kind::Fifo(file),
        Ok(t) if t.is_socket() => {
            let socket = std::os::unix::net::UnixStream::from(OwnedFd::from(file));
            // Only a unix socket has a unix address (an inherited TCP socket stays blocking).
            match socket.local_addr() {
                Ok(_) => Kind::Socket(socket),
                Err(_) => Kind::Other,
            }
        }
        _ => Kind::Other,
    }
}

fn socket(socket: std::os::unix::net::UnixStream) -> Option<UnixStream> {
    socket.set_nonblocking(true).ok()?;
    UnixStream::from_std(socket).ok()
}

impl<P: PipeEnd, B> Stdio<P, B> {
    /// `fd` through the reactor when it is a pipe or a unix socket; `blocking()` otherwise.
    fn open(fd: std::os::fd::BorrowedFd<'_>, blocking: impl FnOnce() -> B) -> Self {
        let driven = match kind(fd) {
            Kind::Fifo(file) => P::from_file(file).ok().map(|p| Self::Pipe(Some(p))),
            Kind::Socket(s) => socket(s).map(|s| Self::Socket(Some(s))),
            Kind::Other => None,
        };
        driven.unwrap_or_else(|| Self::Blocking(blocking()))
    }
}

impl Input {
    /// This process's stdin (within a tokio runtime).
    pub(crate) fn stdin() -> Self {
        Self::open(io::stdin().as_fd(), tokio::io::stdin)
    }
}

impl Output {
    /// This process's stdout (within a tokio runtime).
    pub(crate) fn stdout() -> Self {
        Self::open(io::stdout().as_fd(), tokio::io::stdout)
    }
}

fn gone() -> io::Error {
    io::Error::other("stdio used after it was closed")
}

impl AsyncRead for Input {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Self::Pipe(Some(p)) => Pin::new(p).poll_read(cx, buf),
            Self::Socket(Some(s)) => Pin::new(s).poll_read(cx, buf),
            Self::Blocking(s) => Pin::new(s).poll_read(cx, buf),
            Self::Pipe(None) | Self::Socket(None) => Poll::Ready(Err(gone())),
        }
    }
}

impl AsyncWrite for Output {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            Self::Pipe(Some(p)) => Pin::new(p).poll_write(cx, buf),
            Self::Socket(Some(s)) => Pin::new(s).poll_write(cx, buf),
            Self::Blocking(s) => Pin::new(s).poll_write(cx, buf),
            Self::Pipe(None) | Self::Socket(None) => Poll::Ready(Err(gone())),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Self::Pipe(Some(p)) => Pin::new(p).poll_flush(cx),
            Self::Socket(Some(s)) => Pin::new(s).poll_flush(cx),
            Self::Blocking(s) => Pin::new(s).poll_flush(cx),
            Self::Pipe(None) | Self::Socket(None) => Poll::Ready(Err(gone())),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            // Shutting a socket down would end the client's input too when both directions
            // share it; stdout ends when the process does.
            Self::Pipe(_) | Self::Socket(_) => Poll::Ready(Ok(())),
            Self::Blocking(s) => Pin::new(s).poll_shutdown(cx),
        }
    }
}

impl<P: PipeEnd, B> Drop for Stdio<P, B> {
    /// Puts the descriptor back in blocking mode.
    fn drop(&mut self) {
        match self {
            Self::Pipe(p) => {
                if let Some(p) = p.take() {
                    let _ = p.into_blocking_fd();
                }
            }
            Self::Socket(s) => {
                if let Some(Ok(s)) = s.take().map(UnixStream::into_std) {
                    let _ = s.set_nonblocking(false);
                }
            }
            Self::Blocking(_) => {}
        }
    }
}
