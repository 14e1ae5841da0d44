//! The names of the streamable HTTP headers the transport itself reads and writes, for the
//! client here and for servers (lowercase, as HTTP/2 sends them; lookups ignore case).

/// `Mcp-Session-Id`: the session the server assigned, sent back on every later request.
pub const SESSION_ID: &str = "mcp-session-id";
/// `Last-Event-ID`: the last SSE event a client saw, to resume a stream after it.
pub const LAST_EVENT_ID: &str = "last-event-id";
