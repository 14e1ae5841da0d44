//! Matching URIs against resource templates (the RFC 6570 forms resource templates use).
//!
//! Supported expressions: `{name}` (simple: any characters but `/ ? #`), `{+name}` (reserved:
//! anything, `/` included) and `{a,b}` lists of simple variables separated by `,`. Values are
//! percent-decoded. Other operators make the template literal-only and are reported by
//! [`UriTemplate::parse`].

use std::collections::BTreeMap;

/// A parsed resource template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UriTemplate {
    parts: Vec<Part>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    Literal(String),
    Var { names: Vec<String>, reserved: bool },
}

/// A template that uses an expression this matcher does not support.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("unsupported URI template `{template}`: {reason}")]
pub struct TemplateError {
    template: String,
    reason: &'static str,
}

/// Variables captured by a match, by name.
pub type Variables = BTreeMap<String, String>;

impl UriTemplate {
    /// Parses `template`.
    pub fn parse(template: &str) -> Result<Self, TemplateError> {
        let err = |reason| TemplateError {
            template: template.to_owned(),
            reason,
        };
        let mut parts = Vec::new();
        let mut rest = template;
        while let Some(open) = rest.find('{') {
            if open > 0 {
                parts.push(Part::Literal(rest[..open].to_owned()));
            }
            let close = rest[open..]
                .find('}')
                .ok_or_else(|| err("an expression is not closed"))?
                + open;
            let mut expr = &rest[open + 1..close];
            let reserved = expr.starts_with('+');
            if reserved {
                expr = &expr[1..];
            } else if expr.starts_with(['#', '.', '/', ';', '?', '&']) {
                return Err(err(
                    "only {name}, {+name} and {a,b} expressions are supported",
                ));
            }
            let names: Vec<String> = expr.split(',').map(str::to_owned).collect();
            if names.iter().any(|n| {
                n.is_empty()
                    || !n
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.')
            }) {
                return Err(err(
                    "a variable name is empty or has characters RFC 6570 forbids",
                ));
            }
            if matches!(parts.last(), Some(Part::Var { .. })) {
                return Err(err(
                    "two expressions follow each other without text between them",
                ));
            }
            parts.push(Part::Var { names, reserved });
            rest = &rest[close + 1..];
        }
        if !rest.is_empty() {
            parts.push(Part::Literal(rest.to_owned()));
        }
        Ok(Self { parts })
    }

    /// The variable names, in order.
    pub fn variables(&self) -> impl Iterator<Item = &str> {
        self.parts
            .iter()
            .flat_map(|p| match p {
                Part::Var { names, .. } => names.as_slice(),
                Part::Literal(_) => &[],
            })
            .map(String::as_str)
    }

    /// The variables when `uri` matches the template.
    pub fn matches(&self, uri: &str) -> Option<Variables> {
        let mut vars = Variables::new();
        match_parts(&self.parts, uri, &mut vars).then_some(vars)
    }
}

fn match_parts(parts: &[Part], uri: &str, vars: &mut Variables) -> bool {
    let Some((first, rest)) = parts.split_first() else {
        return uri.is_empty();
    };
    match first {
        Part::Literal(lit) => uri
            .strip_prefix(lit.as_str())
            .is_some_and(|tail| match_parts(rest, tail, vars)),
        Part::Var { names, reserved } => {
            // Try every split point; templates are short, so this stays cheap.
            let allowed_end = if *reserved {
                uri.len()
            } else {
                uri.find(['/', '?', '#']).unwrap_or(uri.len())
            };
            let candidates = (1..=allowed_end).rev().filter(|&i| uri.is_char_boundary(i));
            for end in candidates {
                if let Some(values) = split_values(&uri[..end], names.len())
                    && match_parts(rest, &uri[end..], vars)
                {
                    for (name, value) in names.iter().zip(values) {
                        vars.insert(name.clone(), value);
                    }
                    return true;
                }
            }
            false
        }
    }
}

fn split_values(raw: &str, count: usize) -> Option<Vec<String>> {
    let pieces: Vec<&str> = if count == 1 {
        vec![raw]
    } else {
        raw.split(',').collect()
    };
    if pieces.len() != count || pieces.iter().any(|p| p.is_empty()) {
        return None;
    }
    Some(pieces.into_iter().map(percent_decode).collect())
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let (Some(h), Some(l)) = (hex(bytes[i + 1]), hex(bytes[i + 2]))
        {
            out.push(h * 16 + l);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8(out).unwrap_or_else(|_| s.to_owned())
}

fn hex(b: u8) -> Option<u8> {
    (b as char).to_digit(16).map(|d| d as u8)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(t: &str, uri: &str) -> Option<Vec<(String, String)>> {
        UriTemplate::parse(t)
            .unwrap()
            .matches(uri)
            .map(|v| v.into_iter().collect())
    }

    #[test]
    fn simple_and_reserved() {
        assert_eq!(
            m("test://template/{id}/data", "test://template/42/data"),
            Some(vec![("id".into(), "42".into())])
        );
        assert_eq!(
            m("test://template/{id}/data", "test://template/4/2/data"),
            None
        );
        assert_eq!(
            m("test://template/{id}/data", "test://template//data"),
            None
        );
        assert_eq!(
            m("file:///{+path}", "file:///a/b/c.txt"),
            Some(vec![("path".into(), "a/b/c.txt".into())])
        );
        assert_eq!(
            m("x://{a,b}", "x://1,2"),
            Some(vec![("a".into(), "1".into()), ("b".into(), "2".into())])
        );
        assert_eq!(
            m("x://{name}", "x://hello%20world"),
            Some(vec![("name".into(), "hello world".into())])
        );
        assert_eq!(m("x://{name}", "y://a"), None);
        assert_eq!(
            m("users://{user}/posts/{post}", "users://ann/posts/7"),
            Some(vec![
                ("post".into(), "7".into()),
                ("user".into(), "ann".into())
            ])
        );
    }

    #[test]
    fn refuses_unsupported() {
        assert!(UriTemplate::parse("x://{?q}").is_err());
        assert!(UriTemplate::parse("x://{a").is_err());
        assert!(UriTemplate::parse("x://{a}{b}").is_err());
    }
}
