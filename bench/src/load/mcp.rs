//! The MCP messages the load generator sends, and the checks every answer must pass before
//! it counts.

use std::borrow::Cow;
use std::io::Write as _;

use serde::Deserialize;
use serde_json::value::RawValue;

use crate::tools::{Blob, Item};

/// The stateful-era protocol version the generator asks for.
pub const STATEFUL_VERSION: &str = "2025-11-25";
/// The stateless-era protocol version.
pub const STATELESS_VERSION: &str = "2026-07-28";

/// Which tool a measurement calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Tool {
    /// `echo` with a message that differs on every call.
    Echo,
    /// `blob`, about 10 KiB of structured content.
    Blob,
}

impl Tool {
    /// The tool's name.
    pub fn name(self) -> &'static str {
        match self {
            Tool::Echo => "echo",
            Tool::Blob => "blob",
        }
    }
}

/// How requests are framed for a server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Protocol {
    /// `initialize`, `notifications/initialized`, then calls in the session (2025-11-25;
    /// over HTTP with `Mcp-Session-Id`).
    Stateful,
    /// 2026-07-28: no handshake; every call carries its version and capabilities in `_meta`
    /// and the `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name` headers.
    Stateless,
    /// 2025-11-25 calls without `initialize` and without a session, with the
    /// `MCP-Protocol-Version` header: what rmcp's stateless mode serves to older clients.
    StatelessLegacy,
    /// No MCP at all: the same `tools/call` bodies to a plain JSON endpoint.
    Plain,
}

/// The `initialize` request.
pub fn initialize_body(id: u64) -> Vec<u8> {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"initialize","params":{{"protocolVersion":"{STATEFUL_VERSION}","capabilities":{{}},"clientInfo":{{"name":"server-bench","version":"0.0.0"}}}}}}"#
    )
    .into_bytes()
}

/// The `notifications/initialized` notification.
pub const INITIALIZED_BODY: &[u8] = br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

/// Writes a `tools/call` request for `tool` into `out` (cleared first). `message` is the
/// `echo` argument.
pub fn call_body(out: &mut Vec<u8>, id: u64, tool: Tool, message: &str, protocol: Protocol) {
    out.clear();
    let _ = write!(
        out,
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{}","arguments":"#,
        tool.name()
    );
    match tool {
        Tool::Echo => {
            out.extend_from_slice(br#"{"message":"#);
            // Messages are plain ASCII without quotes or backslashes.
            let _ = write!(out, "\"{message}\"}}");
        }
        Tool::Blob => out.extend_from_slice(b"{}"),
    }
    if protocol == Protocol::Stateless {
        let _ = write!(
            out,
            r#","_meta":{{"io.modelcontextprotocol/protocolVersion":"{STATELESS_VERSION}","io.modelcontextprotocol/clientCapabilities":{{}},"io.modelcontextprotocol/clientInfo":{{"name":"server-bench","version":"0.0.0"}}}}"#
        );
    }
    out.extend_from_slice(b"}}");
}

/// The JSON-RPC envelope of an answer.
#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(borrow)]
    id: Option<&'a RawValue>,
    #[serde(borrow)]
    result: Option<&'a RawValue>,
    #[serde(borrow)]
    error: Option<&'a RawValue>,
}

/// The parts of an `echo` result that are checked.
#[derive(Deserialize)]
struct EchoResult<'a> {
    #[serde(borrow)]
    content: Vec<Block<'a>>,
    #[serde(rename = "isError", default)]
    is_error: bool,
}

/// A content block.
#[derive(Deserialize)]
struct Block<'a> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    #[serde(borrow, default)]
    text: Option<Cow<'a, str>>,
}

/// The parts of a `blob` result that are checked.
#[derive(Deserialize)]
struct BlobResult<'a> {
    #[serde(borrow)]
    content: Vec<Block<'a>>,
    #[serde(rename = "structuredContent", borrow)]
    structured: Option<BlobView<'a>>,
    #[serde(rename = "isError", default)]
    is_error: bool,
}

/// `structuredContent` of `blob`.
#[derive(Deserialize)]
struct BlobView<'a> {
    #[serde(borrow)]
    items: Vec<ItemView<'a>>,
}

/// One record, borrowed from the answer.
#[derive(Deserialize)]
struct ItemView<'a> {
    id: u32,
    #[serde(borrow)]
    name: Cow<'a, str>,
    #[serde(borrow)]
    description: Cow<'a, str>,
    #[serde(borrow)]
    tags: Vec<Cow<'a, str>>,
    score: u32,
    active: bool,
}

impl ItemView<'_> {
    fn matches(&self, item: &Item) -> bool {
        self.id == item.id
            && self.name == item.name
            && self.description == item.description
            && self.tags.len() == item.tags.len()
            && self.tags.iter().zip(&item.tags).all(|(a, b)| a == b)
            && self.score == item.score
            && self.active == item.active
    }
}

/// The JSON-RPC message in a response body: the body itself for JSON, else the SSE event
/// whose data is the response with `id` (`scratch` holds multi-line data).
pub fn response_in<'a>(
    body: &'a [u8],
    sse: bool,
    id: u64,
    scratch: &'a mut Vec<u8>,
) -> Result<&'a [u8], String> {
    if !sse {
        return Ok(body);
    }
    let id_text = id.to_string();
    let mut found = None;
    for event in body
        .split(|&b| b == b'\n')
        .collect::<Vec<_>>()
        .split(|line| line.is_empty() || *line == b"\r")
    {
        let data: Vec<&[u8]> = event
            .iter()
            .filter_map(|line| line.strip_prefix(b"data:"))
            .map(|d| d.strip_prefix(b" ").unwrap_or(d))
            .map(|d| d.strip_suffix(b"\r").unwrap_or(d))
            .collect();
        let joined_len: usize = data.iter().map(|d| d.len()).sum();
        if joined_len == 0 {
            continue;
        }
        let envelope_id = |bytes: &[u8]| {
            serde_json::from_slice::<Envelope<'_>>(bytes)
                .ok()
                .and_then(|e| e.id.map(|id| id.get() == id_text))
                .unwrap_or(false)
        };
        if let [single] = data.as_slice() {
            if envelope_id(single) {
                found = Some(Ok(*single));
                break;
            }
        } else {
            let joined = data.join(&b'\n');
            if envelope_id(&joined) {
                found = Some(Err(joined));
                break;
            }
        }
    }
    match found {
        Some(Ok(single)) => Ok(single),
        Some(Err(joined)) => {
            *scratch = joined;
            Ok(scratch)
        }
        None => Err(format!(
            "no response with id {id} in the event stream: {}",
            preview(body)
        )),
    }
}

/// Checks a `tools/call` answer: the id, then `echo`'s text or `blob`'s every field.
pub fn check_call(
    message: &[u8],
    id: u64,
    tool: Tool,
    echo_message: &str,
    blob: &Blob,
) -> Result<(), String> {
    let envelope: Envelope<'_> = serde_json::from_slice(message)
        .map_err(|e| format!("not a JSON-RPC message ({e}): {}", preview(message)))?;
    if envelope.id.map(RawValue::get) != Some(id.to_string().as_str()) {
        return Err(format!("answer to another id: {}", preview(message)));
    }
    if let Some(error) = envelope.error {
        return Err(format!("error answer: {}", error.get()));
    }
    let result = envelope
        .result
        .ok_or_else(|| format!("neither result nor error: {}", preview(message)))?
        .get();
    match tool {
        Tool::Echo => {
            let r: EchoResult<'_> = serde_json::from_str(result)
                .map_err(|e| format!("echo result ({e}): {}", preview(result.as_bytes())))?;
            match r.content.first() {
                Some(Block {
                    kind,
                    text: Some(text),
                }) if !r.is_error && kind == "text" && text == echo_message => Ok(()),
                _ => Err(format!(
                    "echo answered something else than {echo_message:?}: {}",
                    preview(result.as_bytes())
                )),
            }
        }
        Tool::Blob => {
            let r: BlobResult<'_> = serde_json::from_str(result)
                .map_err(|e| format!("blob result ({e}): {}", preview(result.as_bytes())))?;
            let structured = r
                .structured
                .ok_or("blob result without structuredContent")?;
            let text_ok = matches!(r.content.first(), Some(Block { kind, text: Some(t) }) if kind == "text" && t.len() > 1_000);
            if r.is_error || !text_ok {
                return Err(format!(
                    "blob result without its JSON text block: {}",
                    preview(result.as_bytes())
                ));
            }
            if structured.items.len() != blob.items.len()
                || !structured
                    .items
                    .iter()
                    .zip(&blob.items)
                    .all(|(got, want)| got.matches(want))
            {
                return Err(format!(
                    "blob differs from the expected records: {}",
                    preview(result.as_bytes())
                ));
            }
            Ok(())
        }
    }
}

/// Just enough of a message to route it.
#[derive(Deserialize)]
struct Routing<'a> {
    #[serde(borrow)]
    id: Option<&'a RawValue>,
    #[serde(borrow, default)]
    method: Option<&'a RawValue>,
}

/// The id (as JSON text) of a message that answers a request; `None` for a notification or a
/// request (which these tools never send). An error when it is not a JSON-RPC message.
pub fn answer_id(message: &[u8]) -> Result<Option<&str>, String> {
    let routing: Routing<'_> = serde_json::from_slice(message)
        .map_err(|e| format!("not a JSON-RPC message ({e}): {}", preview(message)))?;
    Ok(match (routing.id, routing.method) {
        (Some(id), None) => Some(id.get()),
        _ => None,
    })
}

/// The `protocolVersion` of an `initialize` answer.
pub fn initialize_version(message: &[u8]) -> Result<String, String> {
    #[derive(Deserialize)]
    struct InitResult {
        #[serde(rename = "protocolVersion")]
        protocol_version: String,
    }
    let envelope: Envelope<'_> = serde_json::from_slice(message)
        .map_err(|e| format!("initialize: not JSON-RPC ({e}): {}", preview(message)))?;
    let result = envelope
        .result
        .ok_or_else(|| format!("initialize failed: {}", preview(message)))?;
    serde_json::from_str::<InitResult>(result.get())
        .map(|r| r.protocol_version)
        .map_err(|e| format!("initialize result ({e}): {}", preview(message)))
}

/// The start of `bytes`, for error messages.
pub fn preview(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(&bytes[..bytes.len().min(300)]).into_owned();
    if bytes.len() > 300 {
        format!("{text}…")
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools;

    #[test]
    fn call_bodies_are_json() {
        let mut out = Vec::new();
        for protocol in [Protocol::Stateful, Protocol::Stateless] {
            for tool in [Tool::Echo, Tool::Blob] {
                call_body(&mut out, 7, tool, "m-1", protocol);
                let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
                assert_eq!(v["params"]["name"], tool.name());
                assert_eq!(
                    v["params"]["_meta"].is_object(),
                    protocol == Protocol::Stateless
                );
            }
        }
        let v: serde_json::Value = serde_json::from_slice(&initialize_body(0)).unwrap();
        assert_eq!(v["params"]["protocolVersion"], STATEFUL_VERSION);
    }

    #[test]
    fn checks_echo_and_blob_answers() {
        let blob = tools::blob();
        let echo =
            br#"{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"m-1"}]}}"#;
        assert!(check_call(echo, 3, Tool::Echo, "m-1", &blob).is_ok());
        assert!(check_call(echo, 4, Tool::Echo, "m-1", &blob).is_err());
        assert!(check_call(echo, 3, Tool::Echo, "m-2", &blob).is_err());
        let structured = serde_json::to_string(&blob).unwrap();
        let good = serde_json::json!({"jsonrpc":"2.0","id":5,"result":{
            "content":[{"type":"text","text":structured}],
            "structuredContent": blob,
        }});
        let good = serde_json::to_vec(&good).unwrap();
        assert!(check_call(&good, 5, Tool::Blob, "", &blob).is_ok());
        let mut short = blob.clone();
        short.items.pop();
        let bad = serde_json::json!({"jsonrpc":"2.0","id":5,"result":{
            "content":[{"type":"text","text":structured}],
            "structuredContent": short,
        }});
        let bad = serde_json::to_vec(&bad).unwrap();
        assert!(check_call(&bad, 5, Tool::Blob, "", &blob).is_err());
    }

    #[test]
    fn finds_the_response_event() {
        let body = b"data: \nid: 0\nretry: 3000\n\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"x\"}\n\ndata: {\"jsonrpc\":\"2.0\",\ndata: \"id\":9,\"result\":{}}\n\n";
        let mut scratch = Vec::new();
        let found = response_in(body, true, 9, &mut scratch).unwrap();
        assert_eq!(found, b"{\"jsonrpc\":\"2.0\",\n\"id\":9,\"result\":{}}");
        let mut scratch = Vec::new();
        assert!(response_in(body, true, 8, &mut scratch).is_err());
    }
}
