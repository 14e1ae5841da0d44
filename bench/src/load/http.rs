//! A minimal HTTP/1.1 client for the load generator: one keep-alive connection, one request
//! at a time, `TCP_NODELAY` set, each request written with one `write` call.
//!
//! It reads `Content-Length` and chunked bodies (SSE responses to a POST are chunked by
//! every server measured here) and bodies ended by the server closing the connection. It
//! keeps the headers the generator needs (status, content type, `Mcp-Session-Id`) and decodes
//! the body into a buffer it reuses.

use std::io;
use std::net::SocketAddr;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// Response headers at most parsed.
const MAX_HEADERS: usize = 48;

/// The parts of one response the generator looks at.
#[derive(Debug, Default)]
pub struct Response {
    /// The status code.
    pub status: u16,
    /// `Content-Type` is `text/event-stream`.
    pub sse: bool,
    /// The `Mcp-Session-Id` header, if any.
    pub session_id: Option<String>,
    /// The decoded body.
    pub body: Vec<u8>,
}

/// One HTTP/1.1 connection.
#[derive(Debug)]
pub struct Connection {
    stream: TcpStream,
    /// Received bytes; `buf[start..end]` are not consumed yet.
    buf: Vec<u8>,
    start: usize,
    end: usize,
    /// The request being written (reused).
    request: Vec<u8>,
    /// `Host` header value.
    host: String,
    /// The server closes the connection after the current response.
    closing: bool,
}

impl Connection {
    /// Connects to `addr` with `TCP_NODELAY`.
    pub async fn connect(addr: SocketAddr) -> io::Result<Self> {
        let stream = TcpStream::connect(addr).await?;
        stream.set_nodelay(true)?;
        Ok(Self {
            stream,
            buf: vec![0; 64 * 1024],
            start: 0,
            end: 0,
            request: Vec::with_capacity(1024),
            host: addr.to_string(),
            closing: false,
        })
    }

    /// Whether the server announced it closes the connection (send no more requests).
    pub fn closing(&self) -> bool {
        self.closing
    }

    /// Sends `method path` with `headers` (name, value) and `body` (as JSON when not empty)
    /// and reads the whole response into `out`.
    pub async fn send(
        &mut self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: &[u8],
        out: &mut Response,
    ) -> io::Result<()> {
        use std::io::Write as _;
        let request = &mut self.request;
        request.clear();
        write!(
            request,
            "{method} {path} HTTP/1.1\r\nHost: {}\r\nAccept: application/json, text/event-stream\r\n",
            self.host
        )?;
        if !body.is_empty() {
            write!(
                request,
                "Content-Type: application/json\r\nContent-Length: {}\r\n",
                body.len()
            )?;
        }
        for (name, value) in headers {
            write!(request, "{name}: {value}\r\n")?;
        }
        request.extend_from_slice(b"\r\n");
        request.extend_from_slice(body);
        self.stream.write_all(request).await?;
        self.read_response(method == "HEAD", out).await
    }

    /// Reads one response (its head, then its body).
    async fn read_response(&mut self, head_only: bool, out: &mut Response) -> io::Result<()> {
        out.body.clear();
        out.session_id = None;
        out.sse = false;
        let mut content_length = None;
        let mut chunked = false;
        loop {
            let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
            let mut response = httparse::Response::new(&mut headers);
            let parsed = response
                .parse(&self.buf[self.start..self.end])
                .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))?;
            if let httparse::Status::Complete(len) = parsed {
                out.status = response.code.unwrap_or(0);
                for header in response.headers.iter() {
                    let value = header.value;
                    if header.name.eq_ignore_ascii_case("content-length") {
                        let text = std::str::from_utf8(value).unwrap_or("");
                        content_length = Some(text.trim().parse::<usize>().map_err(|e| {
                            io::Error::new(
                                io::ErrorKind::InvalidData,
                                format!("content-length: {e}"),
                            )
                        })?);
                    } else if header.name.eq_ignore_ascii_case("transfer-encoding") {
                        chunked = value.eq_ignore_ascii_case(b"chunked");
                    } else if header.name.eq_ignore_ascii_case("content-type") {
                        out.sse = value.starts_with(b"text/event-stream");
                    } else if header.name.eq_ignore_ascii_case("mcp-session-id") {
                        out.session_id = Some(String::from_utf8_lossy(value).into_owned());
                    } else if header.name.eq_ignore_ascii_case("connection") {
                        self.closing = value.eq_ignore_ascii_case(b"close");
                    }
                }
                self.start += len;
                break;
            }
            self.fill().await?;
        }
        if out.status == 100 {
            // An interim response; the real one follows.
            return Box::pin(self.read_response(head_only, out)).await;
        }
        let no_body = head_only || out.status == 204 || out.status == 304;
        if no_body {
        } else if chunked {
            self.read_chunked(&mut out.body).await?;
        } else if let Some(len) = content_length {
            while self.end - self.start < len {
                self.fill().await?;
            }
            out.body
                .extend_from_slice(&self.buf[self.start..self.start + len]);
            self.start += len;
        } else {
            // Delimited by the end of the connection.
            self.closing = true;
            loop {
                out.body.extend_from_slice(&self.buf[self.start..self.end]);
                self.start = self.end;
                if !self.fill_or_eof().await? {
                    break;
                }
            }
        }
        if self.start == self.end {
            self.start = 0;
            self.end = 0;
        }
        Ok(())
    }

    /// Decodes a chunked body into `body`.
    async fn read_chunked(&mut self, body: &mut Vec<u8>) -> io::Result<()> {
        loop {
            let line = self.read_line().await?;
            let size_text = line.split(|&b| b == b';').next().unwrap_or(&[]);
            let size_text = std::str::from_utf8(size_text).unwrap_or("").trim();
            let size = usize::from_str_radix(size_text, 16).map_err(|e| {
                io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!("chunk size {size_text:?}: {e}"),
                )
            })?;
            if size == 0 {
                // Trailers, then the empty line.
                while !self.read_line().await?.is_empty() {}
                return Ok(());
            }
            while self.end - self.start < size + 2 {
                self.fill().await?;
            }
            body.extend_from_slice(&self.buf[self.start..self.start + size]);
            if &self.buf[self.start + size..self.start + size + 2] != b"\r\n" {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    "chunk not followed by CRLF",
                ));
            }
            self.start += size + 2;
        }
    }

    /// One CRLF-terminated line (without the CRLF), consumed from the buffer.
    async fn read_line(&mut self) -> io::Result<Vec<u8>> {
        loop {
            let pending = &self.buf[self.start..self.end];
            if let Some(at) = pending.windows(2).position(|w| w == b"\r\n") {
                let line = pending[..at].to_vec();
                self.start += at + 2;
                return Ok(line);
            }
            self.fill().await?;
        }
    }

    /// Reads more bytes; the end of the connection is an error.
    async fn fill(&mut self) -> io::Result<()> {
        if self.fill_or_eof().await? {
            Ok(())
        } else {
            Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "the server closed the connection in the middle of a response",
            ))
        }
    }

    /// Reads more bytes; `false` at the end of the connection.
    async fn fill_or_eof(&mut self) -> io::Result<bool> {
        if self.start > 0 && self.start == self.end {
            self.start = 0;
            self.end = 0;
        }
        if self.end == self.buf.len() {
            if self.start > 0 {
                self.buf.copy_within(self.start..self.end, 0);
                self.end -= self.start;
                self.start = 0;
            } else {
                self.buf.resize(self.buf.len() * 2, 0);
            }
        }
        let n = self.stream.read(&mut self.buf[self.end..]).await?;
        self.end += n;
        Ok(n > 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncReadExt;
    use tokio::net::TcpListener;

    /// Serves `replies` in order, one per request (a request ends with an empty line plus
    /// its `Content-Length` bytes).
    async fn server(replies: Vec<&'static str>) -> SocketAddr {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move {
            let (mut socket, _) = listener.accept().await.unwrap();
            let mut seen = Vec::new();
            for reply in replies {
                loop {
                    let mut chunk = [0u8; 4096];
                    let n = socket.read(&mut chunk).await.unwrap();
                    seen.extend_from_slice(&chunk[..n]);
                    let text = String::from_utf8_lossy(&seen).into_owned();
                    if let Some(head_end) = text.find("\r\n\r\n") {
                        let len = text[..head_end]
                            .lines()
                            .find_map(|l| l.strip_prefix("Content-Length: "))
                            .map_or(0, |v| v.parse::<usize>().unwrap());
                        if seen.len() >= head_end + 4 + len {
                            seen.drain(..head_end + 4 + len);
                            break;
                        }
                    }
                }
                socket.write_all(reply.as_bytes()).await.unwrap();
            }
        });
        addr
    }

    #[tokio::test]
    async fn reads_length_chunked_and_empty_bodies_on_one_connection() {
        let addr = server(vec![
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nMcp-Session-Id: abc\r\nContent-Length: 2\r\n\r\n{}",
            "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n5\r\ndata:\r\n3;x=1\r\n {}\r\n0\r\n\r\n",
            "HTTP/1.1 202 Accepted\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
            "HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n",
        ])
        .await;
        let mut connection = Connection::connect(addr).await.unwrap();
        let mut response = Response::default();
        connection
            .send("POST", "/mcp", &[("X-A", "1")], b"{}", &mut response)
            .await
            .unwrap();
        assert_eq!(response.status, 200);
        assert_eq!(response.session_id.as_deref(), Some("abc"));
        assert_eq!(response.body, b"{}");
        connection
            .send("POST", "/mcp", &[], b"{}", &mut response)
            .await
            .unwrap();
        assert!(response.sse);
        assert_eq!(response.body, b"data: {}");
        for _ in 0..2 {
            connection
                .send("POST", "/mcp", &[], b"{}", &mut response)
                .await
                .unwrap();
            assert_eq!((response.status, response.body.len()), (202, 0));
        }
    }
}
