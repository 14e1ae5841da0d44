//! The HTTP headers 2026-07-28 mirrors from each request's body: `Mcp-Method`, `Mcp-Name`,
//! and (during the handshake) `MCP-Protocol-Version`.

use serde_json::Value;

/// The headers of one request on streamable HTTP in the 2026-07-28 era.
pub(crate) fn request_headers(
    method: &str,
    params: Option<&Value>,
    protocol_version: Option<&str>,
) -> Vec<(String, String)> {
    let mut headers = Vec::with_capacity(3);
    if let Some(version) = protocol_version {
        headers.push(("MCP-Protocol-Version".to_owned(), version.to_owned()));
    }
    headers.push(("Mcp-Method".to_owned(), encode_value(method)));
    let name_field = match method {
        "tools/call" | "prompts/get" => Some("name"),
        "resources/read" => Some("uri"),
        _ => None,
    };
    if let Some(name) = name_field
        .and_then(|field| params?.get(field))
        .and_then(Value::as_str)
    {
        headers.push(("Mcp-Name".to_owned(), encode_value(name)));
    }
    headers
}

/// A header value as the spec's value encoding wants it: plain when it is visible ASCII
/// (inner spaces allowed) and does not look like the sentinel, `=?base64?…?=` otherwise.
pub(crate) fn encode_value(value: &str) -> String {
    let plain = !value.is_empty()
        && value.bytes().all(|b| (0x20..0x7f).contains(&b))
        && !value.starts_with(' ')
        && !value.ends_with(' ')
        && (!value.starts_with("=?base64?") || !value.ends_with("?="));
    if plain {
        value.to_owned()
    } else {
        format!("=?base64?{}?=", base64(value.as_bytes()))
    }
}

/// Standard base64 with padding (RFC 4648 §4).
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_spec_examples() {
        assert_eq!(encode_value("us-west1"), "us-west1");
        assert_eq!(
            encode_value("Hello, 世界"),
            "=?base64?SGVsbG8sIOS4lueVjA==?="
        );
        assert_eq!(encode_value(" padded "), "=?base64?IHBhZGRlZCA=?=");
        assert_eq!(encode_value("line1\nline2"), "=?base64?bGluZTEKbGluZTI=?=");
        assert_eq!(
            encode_value("=?base64?literal?="),
            "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="
        );
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foo"), "Zm9v");
    }

    #[test]
    fn names_come_from_the_body() {
        let h = request_headers("tools/call", Some(&json!({"name": "get_weather"})), None);
        assert_eq!(
            h,
            [
                ("Mcp-Method".into(), "tools/call".into()),
                ("Mcp-Name".into(), "get_weather".into())
            ]
        );
        let h = request_headers(
            "resources/read",
            Some(&json!({"uri": "file:///a b"})),
            Some("2026-07-28"),
        );
        assert_eq!(h[0], ("MCP-Protocol-Version".into(), "2026-07-28".into()));
        assert_eq!(h[2], ("Mcp-Name".into(), "file:///a b".into()));
        assert_eq!(request_headers("tools/list", None, None).len(), 1);
    }
}
