//! Responses the transport writes itself: JSON bodies, JSON-RPC errors with their HTTP
//! status, and the status a 2026-07-28 error response travels with.

use axum::body::Body;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;
use mcp_jsonrpc::message::encode_error;
use mcp_jsonrpc::{ErrorObject, Id, error_codes};
use mcp_schema::error_codes as mcp_codes;

/// A JSON body, written in one piece.
pub(super) fn json(status: StatusCode, body: Vec<u8>) -> Response {
    let mut response = Response::new(Body::from(body));
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

/// A JSON-RPC error response (`id: None` is `null`) with an HTTP status.
pub(super) fn error(status: StatusCode, id: Option<&Id>, error: ErrorObject) -> Response {
    let mut body = Vec::new();
    encode_error(&mut body, id, &error);
    json(status, body)
}

/// `-32600` with an HTTP status: what the transport answers when the HTTP exchange itself
/// is wrong (a header, the session).
pub(super) fn invalid(
    status: StatusCode,
    id: Option<&Id>,
    detail: impl std::fmt::Display,
) -> Response {
    error(status, id, ErrorObject::invalid_request(detail))
}

/// The answer when the shared session store does not answer: `503` with `Retry-After`, and
/// `-32012` naming the store and the cause, so that clients retry instead of starting over.
pub(super) fn store_unavailable(id: Option<&Id>, e: &super::session_store::StoreError) -> Response {
    let error = ErrorObject::new(
        crate::middleware::codes::OVERLOADED,
        format!("{e}; this request needs it: retry shortly"),
    )
    .with_data(serde_json::json!({ "retryAfterMs": 1000 }));
    let mut body = Vec::new();
    encode_error(&mut body, id, &error);
    answered(body, false, None)
}

/// A response without a body.
pub(super) fn empty(status: StatusCode) -> Response {
    let mut response = Response::new(Body::empty());
    *response.status_mut() = status;
    response
}

/// The HTTP status of a 2026-07-28 response: `404` for an unknown method, `400` for a request
/// the server refused as malformed (bad params or `_meta`, header mismatch, missing client
/// capability, unsupported version), `200` otherwise.
pub(super) fn stateless_status(response: &[u8]) -> StatusCode {
    match error_code(response) {
        Some(error_codes::METHOD_NOT_FOUND) => StatusCode::NOT_FOUND,
        Some(
            error_codes::PARSE_ERROR
            | error_codes::INVALID_REQUEST
            | error_codes::INVALID_PARAMS
            | mcp_codes::HEADER_MISMATCH
            | mcp_codes::MISSING_REQUIRED_CLIENT_CAPABILITY
            | mcp_codes::UNSUPPORTED_PROTOCOL_VERSION,
        ) => StatusCode::BAD_REQUEST,
        _ => StatusCode::OK,
    }
}

/// A response body of a handled request, with the HTTP status its outcome asks for: a
/// refusal by the rate limit or the concurrency limit is `429` / `503` with `Retry-After` (in
/// any era); in 2026-07-28 the statuses of [`stateless_status`] apply; otherwise `200`. A
/// scope refusal is `403` with its `insufficient_scope` challenge, naming the protected
/// resource metadata (`metadata_url`) when the server publishes one.
pub(super) fn answered(body: Vec<u8>, stateless: bool, metadata_url: Option<&str>) -> Response {
    let code = error_code(&body);
    let status = match code {
        Some(crate::middleware::codes::RATE_LIMITED) => StatusCode::TOO_MANY_REQUESTS,
        Some(crate::middleware::codes::OVERLOADED) => StatusCode::SERVICE_UNAVAILABLE,
        Some(crate::middleware::codes::FORBIDDEN) => StatusCode::FORBIDDEN,
        _ if stateless => stateless_status(&body),
        _ => StatusCode::OK,
    };
    let retry_after = matches!(
        status,
        StatusCode::TOO_MANY_REQUESTS | StatusCode::SERVICE_UNAVAILABLE
    )
    .then(|| retry_after_secs(&body))
    .flatten();
    let scope_challenge = (status == StatusCode::FORBIDDEN)
        .then(|| insufficient_scope(&body, metadata_url))
        .flatten();
    let mut response = json(status, body);
    if let Some(challenge) = scope_challenge {
        response
            .headers_mut()
            .insert(header::WWW_AUTHENTICATE, challenge);
    }
    if let Some(secs) = retry_after {
        response
            .headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from(secs));
    }
    response
}

/// `Bearer error="insufficient_scope", scope="…"` for a `-32013` refusal (RFC 6750 §3.1),
/// with `resource_metadata="…"` (RFC 9728 §5.1) when there is one.
fn insufficient_scope(body: &[u8], metadata_url: Option<&str>) -> Option<HeaderValue> {
    let value: serde_json::Value = serde_json::from_slice(body).ok()?;
    let scopes: Vec<&str> = value["error"]["data"]["requiredScopes"]
        .as_array()?
        .iter()
        .filter_map(serde_json::Value::as_str)
        .collect();
    let scope = super::auth::quoted(&scopes.join(" "));
    let mut challenge = format!("Bearer error=\"insufficient_scope\", scope=\"{scope}\"");
    if let Some(url) = metadata_url {
        challenge.push_str(&format!(", resource_metadata=\"{url}\""));
    }
    HeaderValue::from_str(&challenge).ok()
}

/// `error.data.retryAfterMs` of an error response, in whole seconds rounded up (at least 1).
fn retry_after_secs(body: &[u8]) -> Option<u64> {
    let value: serde_json::Value = serde_json::from_slice(body).ok()?;
    let ms = value["error"]["data"]["retryAfterMs"].as_u64()?;
    Some(ms.div_ceil(1000).max(1))
}

/// The error code of an encoded error response (as `encode_error` writes it:
/// `{"jsonrpc":"2.0","id":…,"error":{"code":…`), read without parsing the rest; `None` for a
/// result.
pub(super) fn error_code(response: &[u8]) -> Option<i64> {
    let rest = response.strip_prefix(b"{\"jsonrpc\":\"2.0\",\"id\":")?;
    let rest = skip_id(rest)?;
    let rest = rest.strip_prefix(b",\"error\":{\"code\":")?;
    let end = rest
        .iter()
        .position(|b| !(b.is_ascii_digit() || *b == b'-'))?;
    std::str::from_utf8(&rest[..end]).ok()?.parse().ok()
}

/// The bytes after a JSON id (a string, an integer or `null`).
fn skip_id(bytes: &[u8]) -> Option<&[u8]> {
    match bytes.first()? {
        b'"' => {
            let mut escaped = false;
            for (i, b) in bytes.iter().enumerate().skip(1) {
                match (escaped, b) {
                    (true, _) => escaped = false,
                    (false, b'\\') => escaped = true,
                    (false, b'"') => return Some(&bytes[i + 1..]),
                    _ => {}
                }
            }
            None
        }
        _ => {
            let end = bytes
                .iter()
                .position(|b| !(b.is_ascii_alphanumeric() || *b == b'-'))?;
            Some(&bytes[end..])
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn encoded(id: Option<Id>, code: i64) -> Vec<u8> {
        let mut out = Vec::new();
        encode_error(&mut out, id.as_ref(), &ErrorObject::new(code, "x"));
        out
    }

    #[test]
    fn error_codes_are_found_without_parsing_results() {
        assert_eq!(
            error_code(&encoded(Some(Id::from(7)), -32601)),
            Some(-32601)
        );
        assert_eq!(
            error_code(&encoded(
                Some(Id::from("a\\\",\"error\":{\"code\":1".to_owned())),
                -32020
            )),
            Some(-32020)
        );
        assert_eq!(error_code(&encoded(None, -32700)), Some(-32700));
        let result = br#"{"jsonrpc":"2.0","id":1,"result":{"x":1,"error":{"code":5}}}"#;
        assert_eq!(error_code(result), None);
        assert_eq!(stateless_status(result), StatusCode::OK);
        assert_eq!(
            stateless_status(&encoded(Some(Id::from(1)), -32601)),
            StatusCode::NOT_FOUND
        );
        assert_eq!(
            stateless_status(&encoded(Some(Id::from(1)), -32022)),
            StatusCode::BAD_REQUEST
        );
        assert_eq!(
            stateless_status(&encoded(Some(Id::from(1)), -32603)),
            StatusCode::OK
        );
    }
}
