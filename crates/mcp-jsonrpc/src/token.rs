//! HTTP header names and values (RFC 9110), as both sides check them: a client before sending
//! headers, a server reading `x-mcp-header` declarations.

/// True for a valid HTTP header name: a non-empty RFC 9110 `token` (letters, digits and
/// `` !#$%&'*+-.^_`|~ ``).
pub fn is_header_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

/// True for a header value that can be sent as it is: visible ASCII, spaces and tabs.
pub fn is_header_value(value: &str) -> bool {
    value
        .bytes()
        .all(|b| b == b'\t' || (0x20..0x7f).contains(&b))
}
