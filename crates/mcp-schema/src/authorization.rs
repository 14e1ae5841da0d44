//! Where the documents of MCP authorization are published: an MCP server's protected resource
//! metadata (RFC 9728 §3) and its authorization server's metadata (RFC 8414 §3, OpenID
//! Connect Discovery 1.0 §4), in the order the specification has clients look for them
//! (2025-11-25 and 2026-07-28, "Authorization Server Discovery").
//!
//! Plain strings, so that clients and servers build the same URLs: `origin` is
//! `scheme://host[:port]` (a parsed URL's origin), `path` is the URL's path without its
//! trailing `/` (empty at the root).

/// The well-known suffix of protected resource metadata (RFC 9728 §3).
pub const PROTECTED_RESOURCE_METADATA: &str = "/.well-known/oauth-protected-resource";
/// The well-known suffix of OAuth 2.0 authorization server metadata (RFC 8414 §3).
pub const AUTHORIZATION_SERVER_METADATA: &str = "/.well-known/oauth-authorization-server";
/// The well-known suffix of OpenID Connect discovery.
pub const OPENID_CONFIGURATION: &str = "/.well-known/openid-configuration";

/// Where the resource at `origin` + `path` publishes its metadata: the well-known suffix
/// inserted before the path (RFC 9728 §3.1).
pub fn protected_resource_metadata_url(origin: &str, path: &str) -> String {
    format!("{origin}{PROTECTED_RESOURCE_METADATA}{path}")
}

/// The URLs a client tries for a server's protected resource metadata when the server's
/// challenge names none: the path-inserted one (when the server's URL has a path), then the
/// root one.
pub fn protected_resource_metadata_urls(origin: &str, path: &str) -> Vec<String> {
    let root = protected_resource_metadata_url(origin, "");
    if path.is_empty() {
        vec![root]
    } else {
        vec![protected_resource_metadata_url(origin, path), root]
    }
}

/// The URLs of an authorization server's metadata, in the specified order: for an issuer with
/// a path (`https://auth.example.com/tenant1`), RFC 8414 with the path inserted, OpenID
/// Connect with the path inserted, OpenID Connect with the path appended; for one without,
/// RFC 8414 then OpenID Connect at the root.
pub fn authorization_server_metadata_urls(origin: &str, path: &str) -> Vec<String> {
    if path.is_empty() {
        vec![
            format!("{origin}{AUTHORIZATION_SERVER_METADATA}"),
            format!("{origin}{OPENID_CONFIGURATION}"),
        ]
    } else {
        vec![
            format!("{origin}{AUTHORIZATION_SERVER_METADATA}{path}"),
            format!("{origin}{OPENID_CONFIGURATION}{path}"),
            format!("{origin}{path}{OPENID_CONFIGURATION}"),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_specified_orders() {
        assert_eq!(
            protected_resource_metadata_urls("https://mcp.example.com", "/public/mcp"),
            [
                "https://mcp.example.com/.well-known/oauth-protected-resource/public/mcp",
                "https://mcp.example.com/.well-known/oauth-protected-resource",
            ]
        );
        assert_eq!(
            protected_resource_metadata_urls("https://mcp.example.com", ""),
            ["https://mcp.example.com/.well-known/oauth-protected-resource"]
        );
        assert_eq!(
            authorization_server_metadata_urls("https://auth.example.com", "/tenant1"),
            [
                "https://auth.example.com/.well-known/oauth-authorization-server/tenant1",
                "https://auth.example.com/.well-known/openid-configuration/tenant1",
                "https://auth.example.com/tenant1/.well-known/openid-configuration",
            ]
        );
        assert_eq!(
            authorization_server_metadata_urls("https://auth.example.com", ""),
            [
                "https://auth.example.com/.well-known/oauth-authorization-server",
                "https://auth.example.com/.well-known/openid-configuration",
            ]
        );
    }
}
