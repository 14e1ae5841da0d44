//! What a doc comment says about a schema: its description, one line and cut to length, and
//! the constraints TypeScript cannot express, as short notes.

use serde_json::{Map, Value};

use super::print::literal_text;
pub(super) use crate::text::one_line;

/// Longest `default` value kept in a note, in characters of its JSON; longer ones are cut with
/// `…`. A default tells the caller what omitting the property means; it is never needed to
/// build valid arguments, so a long one is not worth its tokens.
const MAX_DEFAULT_LEN: usize = 40;

/// The description (or, without one, the title) of a schema as comment text: whitespace runs
/// (newlines too) collapsed to one space, cut to `max_len` characters with `…`, `*/` made
/// harmless. `None` when there is none or `max_len` is 0.
pub(super) fn description(schema: &Map<String, Value>, max_len: usize) -> Option<String> {
    if max_len == 0 {
        return None;
    }
    let text = [schema.get("description"), schema.get("title")]
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(one_line)
        .find(|text| !text.is_empty())?;
    Some(safe(&cut(&text, max_len)))
}

/// The notes on the constraints of `schema` that have no TypeScript form, in a fixed order:
/// `default`, number bounds, lengths, `pattern`, `format` and encodings, item, property and
/// `contains` counts, `uniqueItems`, `deprecated`, `readOnly`. `tuple` is the number of elements of a
/// tuple type already printed for this schema (and whether it has a rest element): item counts
/// the tuple already shows are left out.
pub(super) fn constraints(
    schema: &Map<String, Value>,
    tuple: Option<(usize, bool)>,
) -> Vec<String> {
    let mut notes = Vec::new();
    if let Some(default) = schema.get("default").and_then(literal_text) {
        notes.push(format!(
            "default: {}",
            safe(&cut(&default, MAX_DEFAULT_LEN))
        ));
    }
    bounds(schema, &mut notes);
    for (keyword, label) in [("minLength", "minLength"), ("maxLength", "maxLength")] {
        if let Some(number) = schema.get(keyword).filter(|value| value.is_number()) {
            notes.push(format!("{label}: {number}"));
        }
    }
    if let Some(pattern) = schema.get("pattern").and_then(Value::as_str) {
        // Line breaks written as escapes: the same regular expression, on one line.
        let pattern = pattern.replace('\n', "\\n").replace('\r', "\\r");
        notes.push(format!("pattern: {}", safe(&pattern)));
    }
    for (keyword, label) in [
        ("format", "format"),
        ("contentEncoding", "encoding"),
        ("contentMediaType", "mediaType"),
    ] {
        if let Some(text) = schema.get(keyword).and_then(Value::as_str) {
            notes.push(format!("{label}: {}", safe(&one_line(text))));
        }
    }
    item_counts(schema, tuple, &mut notes);
    for keyword in [
        "minProperties",
        "maxProperties",
        "minContains",
        "maxContains",
    ] {
        if let Some(number) = schema.get(keyword).filter(|value| value.is_number()) {
            notes.push(format!("{keyword}: {number}"));
        }
    }
    for keyword in ["uniqueItems", "deprecated", "readOnly"] {
        if schema.get(keyword) == Some(&Value::Bool(true)) {
            notes.push(keyword.to_owned());
        }
    }
    notes
}

/// `>=1`, `<=100`, `>0`, `<1` and `multipleOf: 5`, for both forms of the exclusive bounds
/// (draft 4 booleans beside `minimum`/`maximum`, later drafts numbers).
fn bounds(schema: &Map<String, Value>, notes: &mut Vec<String>) {
    for (bound, exclusive, inclusive_op, exclusive_op) in [
        ("minimum", "exclusiveMinimum", ">=", ">"),
        ("maximum", "exclusiveMaximum", "<=", "<"),
    ] {
        let flag = schema.get(exclusive) == Some(&Value::Bool(true));
        if let Some(number) = schema.get(bound).filter(|value| value.is_number()) {
            let op = if flag { exclusive_op } else { inclusive_op };
            notes.push(format!("{op}{number}"));
        }
        if let Some(number) = schema.get(exclusive).filter(|value| value.is_number()) {
            notes.push(format!("{exclusive_op}{number}"));
        }
    }
    if let Some(number) = schema.get("multipleOf").filter(|value| value.is_number()) {
        notes.push(format!("multipleOf: {number}"));
    }
}

/// `minItems`/`maxItems`, except what a tuple of `len` elements already says: its required
/// elements are the first `minItems`, and without a rest element it has at most `len`.
fn item_counts(schema: &Map<String, Value>, tuple: Option<(usize, bool)>, notes: &mut Vec<String>) {
    let count = |keyword: &str| schema.get(keyword).filter(|value| value.is_number());
    if let Some(min) = count("minItems") {
        let shown = tuple.is_some_and(|(len, _)| min.as_u64().is_some_and(|min| min <= len as u64));
        if !shown {
            notes.push(format!("minItems: {min}"));
        }
    }
    if let Some(max) = count("maxItems") {
        let shown = tuple
            .is_some_and(|(len, rest)| !rest && max.as_u64().is_some_and(|max| max >= len as u64));
        if !shown {
            notes.push(format!("maxItems: {max}"));
        }
    }
}

/// `text` cut to at most `max_len` characters, ending with `…` when cut: after the last whole
/// sentence that keeps at least half the allowed length, else after the last whole word that
/// does, else anywhere.
pub(super) fn cut(text: &str, max_len: usize) -> String {
    if text.chars().count() <= max_len {
        return text.to_owned();
    }
    let kept: String = text.chars().take(max_len.saturating_sub(1)).collect();
    let half = max_len / 2;
    let long_enough = |index: &usize| kept[..*index].chars().count() >= half;
    let spaces = || {
        kept.char_indices()
            .filter(|(_, char)| *char == ' ')
            .map(|(index, _)| index)
    };
    let sentence_end = spaces()
        .rfind(|index| kept[..*index].ends_with(['.', '!', '?']))
        .filter(long_enough);
    let word_end = spaces().next_back().filter(long_enough);
    let kept = match sentence_end.or(word_end) {
        Some(index) => &kept[..index],
        None => kept.as_str(),
    };
    let mut out = kept.trim_end_matches([' ', ',', ';', ':']).to_owned();
    out.push('…');
    out
}

/// `text` safe inside a `/** */` comment: `*/` written `*\/`.
pub(super) fn safe(text: &str) -> String {
    text.replace("*/", "*\\/")
}
