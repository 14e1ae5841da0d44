//! `WWW-Authenticate` challenges (RFC 9110 §11.6.1), and the Bearer parameters MCP reads from
//! them: `resource_metadata` (RFC 9728 §5.1), `scope`, `error` and `error_description`
//! (RFC 6750 §3).

/// One challenge of a `WWW-Authenticate` header: its scheme and its parameters (names in
/// lowercase, values unquoted), or its `token68`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Challenge {
    /// The auth scheme as sent (`Bearer`, `DPoP`, …); compare case-insensitively.
    pub scheme: String,
    /// The `name=value` parameters, in order.
    pub params: Vec<(String, String)>,
    /// A `token68` in place of parameters.
    pub token68: Option<String>,
}

impl Challenge {
    /// The value of parameter `name` (case-insensitive), the first if repeated.
    pub fn param(&self, name: &str) -> Option<&str> {
        self.params
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// Whether the scheme is `scheme` (case-insensitive).
    pub fn is(&self, scheme: &str) -> bool {
        self.scheme.eq_ignore_ascii_case(scheme)
    }
}

/// What an MCP client reads from a server's `Bearer` challenge.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BearerChallenge {
    /// Where the protected resource metadata is (`resource_metadata`).
    pub resource_metadata: Option<String>,
    /// The scopes the request needs (`scope`, split on spaces).
    pub scope: Option<Vec<String>>,
    /// `invalid_token`, `insufficient_scope`, …
    pub error: Option<String>,
    /// The server's explanation, for people.
    pub error_description: Option<String>,
    /// Whether the server offers the `DPoP` scheme (RFC 9449 §7.1) among its challenges.
    pub offers_dpop: bool,
}

impl BearerChallenge {
    /// The first `Bearer` challenge among the values of the `WWW-Authenticate` headers of a
    /// response, else the first `DPoP` one (they share these parameters); `None` when there is
    /// neither.
    pub fn from_headers<'a>(values: impl IntoIterator<Item = &'a str>) -> Option<Self> {
        let challenges: Vec<Challenge> = values.into_iter().flat_map(parse).collect();
        let offers_dpop = challenges.iter().any(|c| c.is("DPoP"));
        let position = challenges
            .iter()
            .position(|c| c.is("Bearer"))
            .or_else(|| challenges.iter().position(|c| c.is("DPoP")))?;
        let challenge = challenges.into_iter().nth(position)?;
        let owned = |name: &str| challenge.param(name).map(str::to_owned);
        Some(BearerChallenge {
            resource_metadata: owned("resource_metadata"),
            scope: challenge
                .param("scope")
                .map(|s| s.split_ascii_whitespace().map(str::to_owned).collect()),
            error: owned("error"),
            error_description: owned("error_description"),
            offers_dpop,
        })
    }

    /// Whether this is a step-up challenge (`error="insufficient_scope"`).
    pub fn is_insufficient_scope(&self) -> bool {
        self.error.as_deref() == Some("insufficient_scope")
    }
}

/// The challenges of one `WWW-Authenticate` header value. Lenient: a malformed part ends the
/// parse, keeping the challenges read so far (a server's typo must not hide the rest).
pub fn parse(header: &str) -> Vec<Challenge> {
    let mut parser = Parser { rest: header };
    let mut challenges = Vec::new();
    parser.skip_separators();
    while let Some(scheme) = parser.token() {
        let mut challenge = Challenge {
            scheme: scheme.to_owned(),
            params: Vec::new(),
            token68: None,
        };
        // A token68 follows the scheme after spaces only: `Negotiate abc==`.
        parser.skip_spaces();
        let before = parser.rest;
        if let Some(token) = parser.token() {
            let padding = parser.take_while(|c| c == '=');
            let after = parser.rest.trim_start_matches([' ', '\t']);
            if after.is_empty() || after.starts_with(',') {
                challenge.token68 = Some(format!("{token}{padding}"));
            } else {
                parser.rest = before;
            }
        }
        // Then `name=value` parameters, until a token not followed by `=` (the next scheme).
        if challenge.token68.is_none() {
            loop {
                parser.skip_separators();
                let before = parser.rest;
                let Some(name) = parser.token() else { break };
                parser.skip_spaces();
                if !parser.eat('=') {
                    parser.rest = before;
                    break;
                }
                parser.skip_spaces();
                let value = if parser.rest.starts_with('"') {
                    parser.quoted()
                } else {
                    parser.token().map(str::to_owned)
                };
                let Some(value) = value else {
                    challenges.push(challenge);
                    return challenges;
                };
                challenge.params.push((name.to_ascii_lowercase(), value));
            }
        }
        challenges.push(challenge);
        parser.skip_separators();
    }
    challenges
}

/// A cursor over a header value.
struct Parser<'a> {
    rest: &'a str,
}

/// `tchar` of RFC 9110, plus `/` for token68 values.
fn is_tchar(c: char) -> bool {
    c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~/".contains(c)
}

impl<'a> Parser<'a> {
    fn eat(&mut self, c: char) -> bool {
        match self.rest.strip_prefix(c) {
            Some(rest) => {
                self.rest = rest;
                true
            }
            None => false,
        }
    }

    fn skip_spaces(&mut self) {
        self.rest = self.rest.trim_start_matches([' ', '\t']);
    }

    fn skip_separators(&mut self) {
        self.rest = self.rest.trim_start_matches([' ', '\t', ',']);
    }

    fn take_while(&mut self, keep: impl Fn(char) -> bool) -> &'a str {
        let end = self
            .rest
            .char_indices()
            .find(|(_, c)| !keep(*c))
            .map_or(self.rest.len(), |(i, _)| i);
        let (taken, rest) = self.rest.split_at(end);
        self.rest = rest;
        taken
    }

    fn token(&mut self) -> Option<&'a str> {
        let token = self.take_while(is_tchar);
        (!token.is_empty()).then_some(token)
    }

    /// A quoted-string, unescaped; `None` when it does not end.
    fn quoted(&mut self) -> Option<String> {
        let mut chars = self.rest.strip_prefix('"')?.char_indices();
        let mut value = String::new();
        while let Some((i, c)) = chars.next() {
            match c {
                '"' => {
                    self.rest = &self.rest[1 + i + 1..];
                    return Some(value);
                }
                '\\' => value.push(chars.next()?.1),
                other => value.push(other),
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// A `WWW-Authenticate` value with these challenges, every value quoted and escaped.
    fn render(challenges: &[(String, Vec<(String, String)>)]) -> String {
        challenges
            .iter()
            .map(|(scheme, params)| {
                let params: Vec<String> = params
                    .iter()
                    .map(|(name, value)| {
                        let escaped = value.replace('\\', "\\\\").replace('"', "\\\"");
                        format!("{name}=\"{escaped}\"")
                    })
                    .collect();
                if params.is_empty() {
                    scheme.clone()
                } else {
                    format!("{scheme} {}", params.join(", "))
                }
            })
            .collect::<Vec<_>>()
            .join(", ")
    }

    proptest! {
        #[test]
        fn any_input_parses_without_panicking(header in "\\PC{0,200}") {
            let _ = parse(&header);
            let _ = BearerChallenge::from_headers([header.as_str()]);
        }

        #[test]
        fn rendered_challenges_parse_back(
            challenges in prop::collection::vec(
                (
                    "[A-Za-z][A-Za-z0-9_-]{0,8}",
                    prop::collection::vec(("[a-z][a-z_]{0,8}", "[ -~]{0,20}"), 1..4),
                ),
                1..4,
            )
        ) {
            let parsed = parse(&render(&challenges));
            prop_assert_eq!(parsed.len(), challenges.len());
            for (got, (scheme, params)) in parsed.iter().zip(&challenges) {
                prop_assert_eq!(&got.scheme, scheme);
                prop_assert_eq!(&got.params, params);
            }
        }
    }

    #[test]
    fn bearer_parameters_of_an_mcp_401() {
        let header = r#"Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp", scope="files:read files:write""#;
        let challenge = BearerChallenge::from_headers([header]).unwrap();
        assert_eq!(
            challenge.resource_metadata.as_deref(),
            Some("https://mcp.example.com/.well-known/oauth-protected-resource/mcp")
        );
        assert_eq!(
            challenge.scope,
            Some(vec!["files:read".to_owned(), "files:write".to_owned()])
        );
        assert!(!challenge.is_insufficient_scope());
    }

    #[test]
    fn several_challenges_tokens_and_escapes() {
        let header = r#"Basic realm="x", DPoP algs="ES256 RS256", bearer error=insufficient_scope, ERROR_description="needs \"admin\"", scope=admin"#;
        let challenges = parse(header);
        let schemes: Vec<&str> = challenges.iter().map(|c| c.scheme.as_str()).collect();
        assert_eq!(schemes, ["Basic", "DPoP", "bearer"]);
        let bearer = BearerChallenge::from_headers([header]).unwrap();
        assert!(bearer.is_insufficient_scope());
        assert_eq!(
            bearer.error_description.as_deref(),
            Some(r#"needs "admin""#)
        );
        assert_eq!(bearer.scope, Some(vec!["admin".to_owned()]));
        // A Bearer challenge in a second header value is found too.
        let found = BearerChallenge::from_headers(["Basic realm=\"a\"", "Bearer"]).unwrap();
        assert_eq!(found, BearerChallenge::default());
        // A server that only takes DPoP: its challenge is read, and says so.
        let dpop = BearerChallenge::from_headers([r#"DPoP error="use_dpop_nonce""#]).unwrap();
        assert_eq!(dpop.error.as_deref(), Some("use_dpop_nonce"));
        assert!(dpop.offers_dpop);
        assert!(bearer.offers_dpop);
    }

    #[test]
    fn token68_and_malformed_input() {
        let challenges = parse("Negotiate YIIB3wYGKwYBBQUCoIIB0zCC==");
        assert_eq!(
            challenges[0].token68.as_deref(),
            Some("YIIB3wYGKwYBBQUCoIIB0zCC==")
        );
        // An unterminated quote keeps what was read before it.
        let challenges = parse(r#"Bearer scope="a b"#);
        assert_eq!(challenges.len(), 1);
        assert!(parse("").is_empty());
        // A scheme alone, then another: not a token68.
        let schemes: Vec<String> = parse("Bearer, DPoP algs=\"ES256\"")
            .into_iter()
            .map(|c| c.scheme)
            .collect();
        assert_eq!(schemes, ["Bearer", "DPoP"]);
        assert!(BearerChallenge::from_headers(["Basic realm=\"x\""]).is_none());
    }
}
