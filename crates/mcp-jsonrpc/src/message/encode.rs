//! Encoding messages straight into bytes, without building a tree.

use serde::Serialize;

use super::ErrorObject;
use crate::Id;
use crate::id::write_json_string;

fn write_params<P: Serialize + ?Sized>(
    out: &mut Vec<u8>,
    params: Option<&P>,
) -> Result<(), serde_json::Error> {
    if let Some(params) = params {
        out.extend_from_slice(b",\"params\":");
        serde_json::to_writer(&mut *out, params)?;
    }
    Ok(())
}

/// Encodes a request without building an intermediate tree.
pub fn encode_request<P: Serialize + ?Sized>(
    out: &mut Vec<u8>,
    id: &Id,
    method: &str,
    params: Option<&P>,
) -> Result<(), serde_json::Error> {
    out.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":");
    id.write_json(out);
    out.extend_from_slice(b",\"method\":");
    write_json_string(out, method);
    write_params(out, params)?;
    out.push(b'}');
    Ok(())
}

/// Encodes a notification.
pub fn encode_notification<P: Serialize + ?Sized>(
    out: &mut Vec<u8>,
    method: &str,
    params: Option<&P>,
) -> Result<(), serde_json::Error> {
    out.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"method\":");
    write_json_string(out, method);
    write_params(out, params)?;
    out.push(b'}');
    Ok(())
}

/// Encodes a success response.
pub fn encode_result<R: Serialize + ?Sized>(
    out: &mut Vec<u8>,
    id: &Id,
    result: &R,
) -> Result<(), serde_json::Error> {
    out.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":");
    id.write_json(out);
    out.extend_from_slice(b",\"result\":");
    serde_json::to_writer(&mut *out, result)?;
    out.push(b'}');
    Ok(())
}

/// Encodes an error response (`id: None` is written as `null`).
pub fn encode_error(out: &mut Vec<u8>, id: Option<&Id>, error: &ErrorObject) {
    out.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":");
    match id {
        Some(id) => id.write_json(out),
        None => out.extend_from_slice(b"null"),
    }
    out.extend_from_slice(b",\"error\":");
    // ErrorObject holds only strings, integers and a Value: serializing it cannot fail.
    let _ = serde_json::to_writer(&mut *out, error);
    out.push(b'}');
}
