//! Where the metadata documents are: the protected resource metadata of an MCP server
//! (RFC 9728) and the metadata of its authorization server (RFC 8414, OpenID Connect
//! Discovery), in the order the MCP specification has clients try them; and the canonical
//! resource URI that `resource` (RFC 8707) carries.

use mcp_schema::authorization;
use url::Url;

/// The URLs to try for the protected resource metadata of the MCP server at `server`, in
/// order: the challenge's `resource_metadata` when the server gave one (it is then the only
/// one); else the path-inserted well-known URL (`/.well-known/oauth-protected-resource/mcp`
/// for `…/mcp`), then the root one.
///
/// # Errors
///
/// A `resource_metadata` that is not a URL.
pub fn protected_resource_metadata_urls(
    server: &Url,
    resource_metadata: Option<&str>,
) -> Result<Vec<Url>, url::ParseError> {
    if let Some(hinted) = resource_metadata {
        return Ok(vec![Url::parse(hinted)?]);
    }
    let (origin, path) = origin_and_path(server);
    parsed(authorization::protected_resource_metadata_urls(
        &origin, path,
    ))
}

/// The URLs to try for the metadata of the authorization server `issuer`, in the order the
/// specification gives: for an issuer with a path (`https://as.example/tenant`), RFC 8414 with
/// the path inserted, OpenID Connect with the path inserted, OpenID Connect with the path
/// appended; for one without, RFC 8414 then OpenID Connect at the root.
pub fn authorization_server_metadata_urls(issuer: &Url) -> Vec<Url> {
    let (origin, path) = origin_and_path(issuer);
    parsed(authorization::authorization_server_metadata_urls(
        &origin, path,
    ))
    .unwrap_or_default()
}

/// A URL's origin, and its path without the trailing `/` (RFC 8414 §3.1 removes it before
/// inserting the well-known suffix).
fn origin_and_path(url: &Url) -> (String, &str) {
    (
        url.origin().ascii_serialization(),
        url.path().trim_end_matches('/'),
    )
}

/// URLs built from a parsed one's parts parse again.
fn parsed(urls: Vec<String>) -> Result<Vec<Url>, url::ParseError> {
    urls.iter().map(|u| Url::parse(u)).collect()
}

/// The canonical URI of the MCP server at `server` (RFC 8707; MCP's canonical form): scheme
/// and host in lowercase (the URL parser does that), no fragment, no query, and no trailing
/// `/` on the path. It is what the protected resource metadata's `resource` is checked
/// against; the `resource` parameter itself carries that metadata's string as written.
pub fn canonical_resource(server: &Url) -> String {
    let mut canonical = server.clone();
    canonical.set_fragment(None);
    canonical.set_query(None);
    let text = canonical.to_string();
    match text.strip_suffix('/') {
        Some(trimmed) => trimmed.to_owned(),
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(text: &str) -> Url {
        Url::parse(text).unwrap()
    }

    fn strings(urls: &[Url]) -> Vec<String> {
        urls.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn protected_resource_metadata_in_the_specified_order() {
        let server = url("https://example.com/public/mcp?x=1");
        assert_eq!(
            strings(&protected_resource_metadata_urls(&server, None).unwrap()),
            [
                "https://example.com/.well-known/oauth-protected-resource/public/mcp",
                "https://example.com/.well-known/oauth-protected-resource",
            ]
        );
        // At the root, only the root document.
        assert_eq!(
            strings(&protected_resource_metadata_urls(&url("https://example.com/"), None).unwrap()),
            ["https://example.com/.well-known/oauth-protected-resource"]
        );
        // The challenge's URL is the only one tried.
        let hinted = "https://example.com/prm.json";
        assert_eq!(
            strings(&protected_resource_metadata_urls(&server, Some(hinted)).unwrap()),
            [hinted]
        );
        assert!(protected_resource_metadata_urls(&server, Some("not a url")).is_err());
    }

    #[test]
    fn authorization_server_metadata_in_the_specified_order() {
        assert_eq!(
            strings(&authorization_server_metadata_urls(&url(
                "https://auth.example.com/tenant1"
            ))),
            [
                "https://auth.example.com/.well-known/oauth-authorization-server/tenant1",
                "https://auth.example.com/.well-known/openid-configuration/tenant1",
                "https://auth.example.com/tenant1/.well-known/openid-configuration",
            ]
        );
        for issuer in ["https://auth.example.com", "https://auth.example.com/"] {
            assert_eq!(
                strings(&authorization_server_metadata_urls(&url(issuer))),
                [
                    "https://auth.example.com/.well-known/oauth-authorization-server",
                    "https://auth.example.com/.well-known/openid-configuration",
                ]
            );
        }
        // A trailing slash is removed before the path is inserted (RFC 8414 §3.1).
        assert_eq!(
            authorization_server_metadata_urls(&url("https://auth.example.com/t/"))[0].as_str(),
            "https://auth.example.com/.well-known/oauth-authorization-server/t"
        );
    }

    #[test]
    fn canonical_resource_uris() {
        for (given, canonical) in [
            ("HTTPS://MCP.Example.COM/mcp", "https://mcp.example.com/mcp"),
            ("https://mcp.example.com/", "https://mcp.example.com"),
            (
                "https://mcp.example.com:8443",
                "https://mcp.example.com:8443",
            ),
            (
                "https://mcp.example.com/server/mcp#frag",
                "https://mcp.example.com/server/mcp",
            ),
            (
                "https://mcp.example.com:443/mcp",
                "https://mcp.example.com/mcp",
            ),
        ] {
            assert_eq!(canonical_resource(&url(given)), canonical, "{given}");
        }
    }
}
