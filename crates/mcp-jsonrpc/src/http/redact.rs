//! URLs as messages may show them.

use reqwest::Url;

/// What stands for a hidden part.
const HIDDEN: &str = "***";

/// `url` with its secrets hidden, for error messages, logs and displays: credentials
/// (`user:pass@`), query values and the fragment become `***`; scheme, host, port, path and
/// query keys stay. A string that is not a URL keeps only what comes before any `@`, `?` or
/// `#` it holds.
///
/// ```
/// use mcp_jsonrpc::redact_url;
///
/// assert_eq!(
///     redact_url("https://user:pw@example.com:8443/mcp?token=abc&debug#frag"),
///     "https://***@example.com:8443/mcp?token=***&debug#***"
/// );
/// ```
pub fn redact_url(url: &str) -> String {
    let Ok(mut parsed) = Url::parse(url) else {
        let cut = url.find(['@', '?', '#']).unwrap_or(url.len());
        let mut shown = url[..cut].to_owned();
        if cut < url.len() {
            shown.push_str(HIDDEN);
        }
        return shown;
    };
    if !parsed.username().is_empty() || parsed.password().is_some() {
        let _ = parsed.set_password(None);
        let _ = parsed.set_username(HIDDEN);
    }
    if let Some(query) = parsed.query() {
        let hidden: Vec<String> = query
            .split('&')
            .map(|pair| match pair.split_once('=') {
                Some((key, _)) => format!("{key}={HIDDEN}"),
                None => pair.to_owned(),
            })
            .collect();
        parsed.set_query(Some(&hidden.join("&")));
    }
    if parsed.fragment().is_some() {
        parsed.set_fragment(Some(HIDDEN));
    }
    // `***` in the userinfo is percent-encoded by the setter; show it as written.
    parsed.to_string().replace("%2A%2A%2A@", "***@")
}

#[cfg(test)]
mod tests {
    use super::redact_url;

    #[test]
    fn urls_lose_their_secrets() {
        assert_eq!(
            redact_url("https://example.com/mcp"),
            "https://example.com/mcp"
        );
        assert_eq!(
            redact_url("https://user:pw@example.com:8443/a/b?token=abc&flag#frag"),
            "https://***@example.com:8443/a/b?token=***&flag#***"
        );
        assert_eq!(
            redact_url("https://example.com?k=v"),
            "https://example.com/?k=***"
        );
        assert_eq!(
            redact_url("https://h/mcp?t=${TOKEN}"),
            "https://h/mcp?t=***"
        );
        assert_eq!(redact_url("not a url@secret"), "not a url***");
    }
}
