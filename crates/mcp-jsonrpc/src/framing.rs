//! Newline-delimited messages, for both sides of any transport that carries JSON lines (the
//! client's stream transports, a server's stdio): [`LineReader`] reads them within a size
//! limit, [`LineWriter`] writes them, coalescing what is queued.

use std::io;
use std::ops::Range;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::sync::mpsc;

use crate::scan::MemberScanner;
pub use crate::scan::Oversized;

/// What a reader produced.
#[derive(Debug, PartialEq)]
pub enum LineEvent {
    /// A complete line (without its `\n`) at this range of [`LineReader::buf`].
    Line(Range<usize>),
    /// A line longer than the limit was discarded as it streamed in.
    Oversized(Oversized),
    /// End of stream.
    Eof,
}

const READ_CHUNK: usize = 64 * 1024;
/// A buffer that grew past this is returned to [`READ_CHUNK`] once it is empty again.
const SHRINK_ABOVE: usize = 1024 * 1024;

/// Reads newline-delimited frames, never holding more than `limit` bytes of one line.
pub struct LineReader {
    buf: Vec<u8>,
    start: usize,
    end: usize,
    scanned: usize,
    limit: usize,
    discarding: Option<MemberScanner>,
    eof: bool,
}

impl LineReader {
    /// A reader that never holds more than `limit` bytes of one line.
    pub fn new(limit: usize) -> Self {
        Self {
            buf: vec![0; READ_CHUNK],
            start: 0,
            end: 0,
            scanned: 0,
            limit: limit.max(1),
            discarding: None,
            eof: false,
        }
    }

    /// The bytes of a [`LineEvent::Line`].
    pub fn line(&self, range: Range<usize>) -> &[u8] {
        &self.buf[range]
    }

    /// The next line, oversized line or end of stream.
    pub async fn next<R: AsyncRead + Unpin>(&mut self, reader: &mut R) -> io::Result<LineEvent> {
        loop {
            if let Some(event) = self.take_buffered() {
                return Ok(event);
            }
            if self.eof {
                return Ok(LineEvent::Eof);
            }
            self.make_room();
            let n = reader.read(&mut self.buf[self.end..]).await?;
            if n == 0 {
                self.eof = true;
                if let Some(scanner) = self.discarding.take() {
                    return Ok(LineEvent::Oversized(scanner.finish()));
                }
                if self.start < self.end {
                    // A last line without its newline still counts.
                    let range = self.start..self.end;
                    self.start = self.end;
                    return Ok(self.complete(range));
                }
                return Ok(LineEvent::Eof);
            }
            self.end += n;
        }
    }

    /// A complete line from the buffer, if there is one.
    fn take_buffered(&mut self) -> Option<LineEvent> {
        let found = memchr::memchr(b'\n', &self.buf[self.scanned..self.end]);
        match found {
            Some(offset) => {
                let line_end = self.scanned + offset;
                let range = self.start..line_end;
                self.start = line_end + 1;
                self.scanned = self.start;
                if let Some(mut scanner) = self.discarding.take() {
                    scanner.feed(&self.buf[range]);
                    return Some(LineEvent::Oversized(scanner.finish()));
                }
                Some(self.complete(range))
            }
            None => {
                self.scanned = self.end;
                let held = self.end - self.start;
                if let Some(scanner) = &mut self.discarding {
                    scanner.feed(&self.buf[self.start..self.end]);
                    self.start = self.end;
                } else if held > self.limit {
                    let mut scanner = MemberScanner::default();
                    scanner.feed(&self.buf[self.start..self.end]);
                    self.discarding = Some(scanner);
                    self.start = self.end;
                }
                None
            }
        }
    }

    fn complete(&self, range: Range<usize>) -> LineEvent {
        if range.len() > self.limit {
            let mut scanner = MemberScanner::default();
            scanner.feed(&self.buf[range]);
            LineEvent::Oversized(scanner.finish())
        } else {
            LineEvent::Line(range)
        }
    }

    /// Ensures free space after `end`: compacts, grows up to about the limit, or shrinks a
    /// buffer that a past large line left behind.
    fn make_room(&mut self) {
        if self.start == self.end {
            self.start = 0;
            self.end = 0;
            self.scanned = 0;
            if self.buf.len() > SHRINK_ABOVE {
                self.buf = vec![0; READ_CHUNK];
            }
        }
        if self.buf.len() - self.end >= READ_CHUNK / 4 {
            return;
        }
        if self.start > 0 {
            self.buf.copy_within(self.start..self.end, 0);
            self.end -= self.start;
            self.scanned -= self.start;
            self.start = 0;
        }
        if self.buf.len() - self.end < READ_CHUNK / 4 {
            // Room for one more chunk than the limit, so that a line of exactly `limit` bytes
            // and its newline fit.
            let cap = self.limit.saturating_add(READ_CHUNK);
            let grown = (self.buf.len() * 2).clamp(READ_CHUNK, cap.max(self.end + READ_CHUNK));
            self.buf.resize(grown, 0);
        }
    }
}

/// The writer coalesces queued messages into writes of up to this size.
const MAX_WRITE_BATCH: usize = 256 * 1024;

/// Something queued for a [`LineWriter`]: the line to write (without its `\n`), or `None` for
/// an item that is not written (a signal meant for another transport).
pub trait AsLine {
    /// The line.
    fn line(&self) -> Option<&[u8]>;
}

impl AsLine for Vec<u8> {
    fn line(&self) -> Option<&[u8]> {
        Some(self)
    }
}

/// Writes messages as lines: each followed by `\n`, those already queued coalesced into one
/// write (up to 256 KiB), then one flush — one system call per burst, not per message.
#[derive(Debug)]
pub struct LineWriter<W> {
    write: W,
    buf: Vec<u8>,
}

impl<W: AsyncWrite + Unpin> LineWriter<W> {
    /// A writer on `write`.
    pub fn new(write: W) -> Self {
        Self {
            write,
            buf: Vec::with_capacity(16 * 1024),
        }
    }

    /// Writes `first` and whatever `queue` already holds, then flushes.
    pub async fn write_queued<M: AsLine>(
        &mut self,
        first: M,
        queue: &mut mpsc::Receiver<M>,
    ) -> io::Result<()> {
        self.buf.clear();
        let mut next = Some(first);
        while let Some(item) = next.take() {
            if let Some(line) = item.line() {
                self.buf.extend_from_slice(line);
                self.buf.push(b'\n');
            }
            if self.buf.len() < MAX_WRITE_BATCH {
                next = queue.try_recv().ok();
            }
        }
        if !self.buf.is_empty() {
            self.write.write_all(&self.buf).await?;
            self.write.flush().await?;
        }
        if self.buf.capacity() > MAX_WRITE_BATCH * 4 {
            self.buf = Vec::with_capacity(16 * 1024);
        }
        Ok(())
    }

    /// Flushes and shuts the stream down (the reader sees end of file).
    pub async fn shutdown(&mut self) -> io::Result<()> {
        self.write.flush().await?;
        self.write.shutdown().await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Id;

    async fn events(input: &[u8], limit: usize) -> Vec<Result<String, Oversized>> {
        let mut reader = LineReader::new(limit);
        let mut src = input;
        let mut out = Vec::new();
        loop {
            match reader.next(&mut src).await.unwrap() {
                LineEvent::Line(r) => {
                    out.push(Ok(String::from_utf8(reader.line(r).to_vec()).unwrap()))
                }
                LineEvent::Oversized(o) => out.push(Err(o)),
                LineEvent::Eof => return out,
            }
        }
    }

    #[tokio::test]
    async fn lines_and_limits() {
        let got = events(b"a\n\nbc\r\nlast", 16).await;
        assert_eq!(
            got,
            vec![
                Ok("a".into()),
                Ok("".into()),
                Ok("bc\r".into()),
                Ok("last".into())
            ]
        );

        // A line of exactly the limit passes; one byte more does not.
        let got = events(b"0123456789\n01234567890\nok\n", 10).await;
        assert_eq!(got[0], Ok("0123456789".into()));
        assert!(got[1].is_err());
        assert_eq!(got[2], Ok("ok".into()));
    }

    #[tokio::test]
    async fn a_huge_line_is_discarded_while_streaming_and_attributed() {
        let mut input = br#"{"jsonrpc":"2.0","id":9,"result":{"blob":""#.to_vec();
        input.extend(std::iter::repeat_n(b'x', 5 * 1024 * 1024));
        input.extend_from_slice(b"\"}}\n{\"jsonrpc\":\"2.0\",\"method\":\"n\"}\n");
        let got = events(&input, 1024).await;
        assert_eq!(got.len(), 2);
        assert_eq!(
            got[0],
            Err(Oversized {
                id: Some(Id::Number(9)),
                is_request: false
            })
        );
        assert_eq!(got[1], Ok(r#"{"jsonrpc":"2.0","method":"n"}"#.into()));
    }

    #[tokio::test]
    async fn buffer_stays_bounded() {
        let mut reader = LineReader::new(4096);
        let input = vec![b'y'; 3 * 1024 * 1024];
        let mut src = input.as_slice();
        assert!(matches!(
            reader.next(&mut src).await.unwrap(),
            LineEvent::Oversized(_)
        ));
        assert!(
            reader.buf.len() <= 4096 + READ_CHUNK * 2,
            "{}",
            reader.buf.len()
        );
    }
}
