//! Where a `$ref` points: a place in the same document (`#`, a JSON pointer such as
//! `#/$defs/X` with `~0`/`~1` escapes and percent-encoding, or a plain-name anchor `#name`),
//! or nowhere we can see. Nothing is ever fetched: a reference to another document is
//! unresolved, unless it names the document itself through the root's `$id`.

use serde_json::Value;

/// Keywords whose values are data, not schemas: an anchor search does not look inside them.
const DATA_KEYWORDS: [&str; 4] = ["enum", "const", "default", "examples"];

/// The schema `reference` points to inside `root`, and a name for it (the last pointer token,
/// the anchor, or `Root`), or `None` when it points elsewhere or to nothing.
pub(super) fn resolve<'a>(root: &'a Value, reference: &str) -> Option<(&'a Value, String)> {
    let (base, fragment) = reference.split_once('#').unwrap_or((reference, ""));
    if !base.is_empty() && !names_root(root, base) {
        return None;
    }
    let fragment = percent_decode(fragment);
    if fragment.is_empty() {
        return Some((root, "Root".to_owned()));
    }
    match fragment.strip_prefix('/') {
        Some(pointer) => {
            let mut target = root;
            let mut name = "Root".to_owned();
            for token in pointer.split('/') {
                let token = token.replace("~1", "/").replace("~0", "~");
                target = match target {
                    Value::Object(map) => map.get(&token)?,
                    Value::Array(items) => items.get(array_index(&token)?)?,
                    _ => return None,
                };
                name = token;
            }
            Some((target, name))
        }
        None => anchor(root, &fragment).map(|target| (target, fragment)),
    }
}

/// Whether `base` is the root's own `$id` (ignoring an empty fragment on either).
fn names_root(root: &Value, base: &str) -> bool {
    root.get("$id")
        .and_then(Value::as_str)
        .is_some_and(|id| id.trim_end_matches('#') == base)
}

/// A JSON pointer array index: digits without a leading zero.
fn array_index(token: &str) -> Option<usize> {
    let digits = !token.is_empty() && token.bytes().all(|byte| byte.is_ascii_digit());
    if !digits || (token.len() > 1 && token.starts_with('0')) {
        return None;
    }
    token.parse().ok()
}

/// The first schema, in document order, that declares the plain-name anchor `name`
/// (`$anchor`, `$dynamicAnchor`, or a draft 6/7 `$id` of `#name`).
fn anchor<'a>(root: &'a Value, name: &str) -> Option<&'a Value> {
    let mut stack = vec![root];
    while let Some(value) = stack.pop() {
        match value {
            Value::Object(map) => {
                let declares = |keyword: &str, expected: &str| {
                    map.get(keyword).and_then(Value::as_str) == Some(expected)
                };
                let legacy_id = format!("#{name}");
                if declares("$anchor", name)
                    || declares("$dynamicAnchor", name)
                    || declares("$id", &legacy_id)
                {
                    return Some(value);
                }
                let children = map
                    .iter()
                    .filter(|(keyword, _)| !DATA_KEYWORDS.contains(&keyword.as_str()))
                    .map(|(_, child)| child);
                let before = stack.len();
                stack.extend(children);
                stack[before..].reverse();
            }
            Value::Array(items) => stack.extend(items.iter().rev()),
            _ => {}
        }
    }
    None
}

/// `text` with `%XX` escapes decoded (invalid UTF-8 replaced); other `%` kept as they are.
fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut index = 0;
    while index < bytes.len() {
        let escaped = bytes
            .get(index + 1..index + 3)
            .filter(|hex| bytes[index] == b'%' && hex.iter().all(u8::is_ascii_hexdigit))
            .and_then(|hex| std::str::from_utf8(hex).ok())
            .and_then(|hex| u8::from_str_radix(hex, 16).ok());
        match escaped {
            Some(byte) => {
                out.push(byte);
                index += 3;
            }
            None => {
                out.push(bytes[index]);
                index += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}
