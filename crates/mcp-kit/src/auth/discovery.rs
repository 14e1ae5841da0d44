//! Where the metadata documents are: the protected resource metadata of an MCP server
//! (RFC 9728) and the metadata of its authorization server (RFC 8414, OpenID Connect
//! Discovery), in the order the MCP specification has clients try them; and the canonical
//! resource URI that `resource` (RFC 8707) carries.

use url::Url;

/// The well-known suffix of protected resource metadata (RFC 9728 §3).
const PROTECTED_RESOURCE: &str = ".well-known/oauth-protected-resource";
/// The well-known suffix of OAuth authorization server metadata (RFC 8414 §3).
const OAUTH_SERVER: &str = ".well-known/oauth-authorization-server";
/// The well-known suffix of OpenID Connect discovery.
const OPENID: &str = ".well-known/openid-configuration";

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
    Ok(well_known(server, PROTECTED_RESOURCE)
        .into_iter()
        .chain(std::iter::once(at_root(server, PROTECTED_RESOURCE)))
        .collect())
}

/// The URLs to try for the metadata of the authorization server `issuer`, in the order the
/// specification gives: for an issuer with a path (`https://as.example/tenant`), RFC 8414 with
/// the path inserted, OpenID Connect with the path inserted, OpenID Connect with the path
/// appended; for one without, RFC 8414 then OpenID Connect at the root.
pub fn authorization_server_metadata_urls(issuer: &Url) -> Vec<Url> {
    match well_known(issuer, OAUTH_SERVER) {
        Some(oauth) => {
            let mut appended = issuer.clone();
            appended.set_query(None);
            appended.set_fragment(None);
            let path = format!("{}/{OPENID}", issuer.path().trim_end_matches('/'));
            appended.set_path(&path);
            vec![
                oauth,
                well_known(issuer, OPENID).unwrap_or_else(|| at_root(issuer, OPENID)),
                appended,
            ]
        }
        None => vec![at_root(issuer, OAUTH_SERVER), at_root(issuer, OPENID)],
    }
}

/// `suffix` inserted between the host and the path of `url` (its trailing `/` removed), or
/// `None` when `url` has no path.
fn well_known(url: &Url, suffix: &str) -> Option<Url> {
    let path = url.path().trim_end_matches('/');
    if path.is_empty() {
        return None;
    }
    let mut inserted = at_root(url, suffix);
    inserted.set_path(&format!("/{suffix}{path}"));
    Some(inserted)
}

/// `suffix` at the root of `url`'s origin.
fn at_root(url: &Url, suffix: &str) -> Url {
    let mut root = url.clone();
    root.set_query(None);
    root.set_fragment(None);
    root.set_path(&format!("/{suffix}"));
    root
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
