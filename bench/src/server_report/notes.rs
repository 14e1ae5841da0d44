//! The prose of the section: the Nagle diagnostic, how the servers are set up, how to read
//! the numbers, and where `mcp-server` spends its time.

use std::fmt::Write as _;

use super::{View, ms};
use crate::load::mcp::Tool;
use crate::report::thousands;

pub(super) fn nagle(w: &mut String, v: &View<'_>) {
    let Some(nagle) = &v.results.nagle else {
        return;
    };
    let _ = writeln!(w, "### Nagle's algorithm and delayed ACKs\n");
    let with = v.get("rmcp-http", Tool::Echo, false);
    match nagle {
        Ok(m) => {
            let _ = writeln!(
                w,
                "rmcp served by plain `axum::serve` (accepted sockets keep Nagle's algorithm), \
                 `echo`, 1 session: **{} calls/s, p50 {} ms** — against {} calls/s and p50 {} ms \
                 with `TCP_NODELAY` set on every accepted socket, as in the tables above. Its SSE \
                 response goes out in several writes; the last waits for the client's delayed \
                 ACK of the first (about 40 ms on Linux). The peer servers here are therefore \
                 served with `TCP_NODELAY` (rmcp and the axum ceiling through \
                 `ListenerExt::tap_io`; Node.js and Python's asyncio set it by default). \
                 `mcp-server` sets it on every socket and writes each JSON body or SSE event in \
                 one piece: its p50 at 1 session is in the table above.\n",
                thousands(m.rate),
                ms(m.p50_us),
                with.map_or_else(|| "–".to_owned(), |s| thousands(s.rate)),
                with.map_or_else(|| "–".to_owned(), |s| ms(s.p50_us)),
            );
        }
        Err(e) => {
            let _ = writeln!(w, "rmcp with plain `axum::serve`: failed: {e}\n");
        }
    }
}

/// How the servers are set up and what the numbers mean.
pub(super) const NOTES: &str = "\
### How the servers are set up

- **mcp-server** (`bench/src/bin/bench-server.rs`): `Server::builder` with two typed tools \
(`echo` takes a `Deserialize + JsonSchema` struct, `blob` returns `Json<Blob>`, so it has an \
`outputSchema` and its `structuredContent` is validated against it on every call), served with \
`serve_stdio()` or `bind_http((\"127.0.0.1\", port), options)` with the default `HttpOptions` \
but for `max_sessions_per_client`, raised to `max_sessions` (100,000) because every session here \
comes from one client, 127.0.0.1. One process serves both eras and, at `/ws`, WebSocket; the \
stateless rows send 2026-07-28 requests (`_meta` with the version and client capabilities, \
`MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name` headers, no `initialize`).
- **rmcp 3.9** (`bench/src/bin/rmcp-server.rs`): `#[tool_router]` tools with `Parameters<T>` and \
`Json<T>`, the router kept in the server (`#[tool_handler(router = self.tool_router)]`; the \
bare attribute rebuilds it on every call), `StreamableHttpService` with \
`LocalSessionManager`: the default `StreamableHttpServerConfig` (stateful, SSE responses, \
priming events) or `legacy_session_mode: false` with `json_response: true`, under axum with \
`TCP_NODELAY` on every accepted socket (see above); over stdio `serve(stdio())`.
- **TypeScript SDK** (`bench/peers/ts_server.cjs`): `McpServer.registerTool` with zod schemas \
(`blob` with an `outputSchema`), `StdioServerTransport`, or one `StreamableHTTPServerTransport` \
and `McpServer` per session on `node:http` (the SDK's documented stateful setup, SSE responses).
- **Python SDK** (`bench/peers/python_server.py`): `MCPServer` with `@server.tool()` functions \
(`blob` returns a pydantic model, so it has an `outputSchema`), `run()` over stdio, or its \
`streamable_http_app()` under uvicorn (h11, as installed) — stateful, SSE responses — without \
uvicorn's per-request access log. The SDK writes the JSON text block of `blob` indented, so its \
answers are larger.
- **axum ceiling** (`bench/src/bin/axum-echo.rs`): one axum route that parses the same \
`tools/call` bodies and answers them the same way, with no MCP at all.
- Node.js's and uvicorn's keep-alive timeouts (5 s) are raised to 120 s so that the idle \
connections of the memory measurement stay open; nothing else is tuned.

### Reading the numbers

- **The generator shares the 2 cores with the server.** At 50 sessions both are busy, so calls/s \
is bounded by server CPU + generator CPU per call; the server CPU per call is the figure that \
does not depend on the generator. The generator's own cost is in the last column.
- **p50 at 1 session** is a round trip through the kernel's loopback and two wake-ups; on this \
virtual machine waking an idle vCPU costs tens of microseconds, which is in every server's \
figure alike.
- **Checked answers only.** Every answer is parsed and compared (`echo`'s text with the message \
sent, `blob`'s 48 records field by field); a wrong answer, an error or an HTTP status other than \
200 fails the measurement, and the table says so instead of showing a number.
- **Memory** is resident memory as the kernel counts it: allocator caches and, for Node.js and \
Python, garbage not yet collected are included.

### Where `mcp-server` spends its time

Profiles taken on this machine while preparing this report (`perf record` on `bench-server`, \
`perf stat` for the stdio counts), and what they led to:

- **stdio, sequential**: the first version paid about 100 µs of server CPU per call in thread \
hand-offs (about 11 context switches and 6 wake-ups per call): the serving loop ran on \
`block_on`'s thread, tokio's stdin and stdout went through blocking-pool threads, and a \
`JoinSet` woke the reader as each request ended. The loop now runs in a runtime task, pipes and \
unix sockets are driven by the reactor, and requests are not reaped one by one: one wake-up \
per call remains, and the server CPU per call fell to about 20 µs.
- **`echo` over HTTP at 50 sessions**: about half of the server's samples are hyper and the \
kernel's TCP. Each handler used to run in a task of its own and the tool arguments, `_meta` \
values and catalog snapshot were cloned per call; handlers now run inline (a panic still \
becomes an error response) and those copies are gone. What remains is mostly parsing the \
params into a `serde_json::Value` tree, one `Session` per stateless request, and `malloc`/`free`.
- **`blob`**: the result goes `Blob` → `Value` (`to_value`) → the JSON text block → \
`CallToolResult` → `Value` again → bytes, and `structuredContent` is validated against the \
`outputSchema` on every call (rmcp does not validate); building, serializing and dropping those \
trees dominates the server's samples.

";
