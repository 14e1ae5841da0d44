//! TOON, and the choice between TOON and compact JSON for a value shown to the model.
//!
//! TOON (Token-Oriented Object Notation, <https://toonformat.dev>) writes the JSON data model
//! with indentation instead of braces and arrays of uniform objects as tables, which saves
//! tokens on lists of records. It costs more than JSON on other shapes (deeply nested, ragged
//! or string-heavy values), so [`compact_text`] measures both and keeps the cheaper one.

use serde_json::Value;

use super::tokens::count_tokens;

/// The separator between the values of an inline array or a table row in TOON.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum ToonDelimiter {
    /// `,`, the default.
    #[default]
    Comma,
    /// A tab character.
    Tab,
    /// `|`.
    Pipe,
}

/// How [`to_toon_with`] lays out TOON text; the default is what [`to_toon`] uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ToonOptions {
    /// The separator of inline arrays and table rows.
    pub delimiter: ToonDelimiter,
    /// Spaces per nesting level; 0 is taken as 1.
    pub indent: usize,
}

impl Default for ToonOptions {
    /// Comma-separated, two spaces per level: the TOON specification's defaults.
    fn default() -> Self {
        Self {
            delimiter: ToonDelimiter::Comma,
            indent: 2,
        }
    }
}

/// `value` as TOON text with the default options (comma, two-space indent).
///
/// TOON's encoder refuses values nested more than 256 levels deep; no value parsed from JSON
/// text by `serde_json` gets there (its parser stops at 128), but one built in code can, and
/// for such a value this returns compact JSON instead of failing.
///
/// ```
/// let value = serde_json::json!({"users": [{"id": 1, "name": "Ada"}, {"id": 2, "name": "Bob"}]});
/// assert_eq!(mcpx::text::to_toon(&value), "users[2]{id,name}:\n  1,Ada\n  2,Bob");
/// ```
pub fn to_toon(value: &Value) -> String {
    to_toon_with(value, &ToonOptions::default())
}

/// `value` as TOON text laid out with `options`; like [`to_toon`], it returns compact JSON for
/// a value nested beyond TOON's depth limit.
pub fn to_toon_with(value: &Value, options: &ToonOptions) -> String {
    try_toon(value, options).unwrap_or_else(|| compact_json(value))
}

/// The form [`compact_text`] chose.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TextFormat {
    /// TOON text, as [`to_toon`] writes it.
    Toon,
    /// Compact JSON (no whitespace between tokens), as `serde_json::to_string` writes it.
    Json,
}

impl TextFormat {
    /// The format's lowercase name: `"toon"` or `"json"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Toon => "toon",
            Self::Json => "json",
        }
    }
}

/// `value` as whichever of TOON and compact JSON is fewer o200k tokens, with the form chosen.
///
/// A tie goes to JSON, the form every model knows. The rule applies to any value, but it is
/// meant for objects and arrays: callers show a bare string result as the string itself, since
/// both encodings would only add quotes or escapes to it.
///
/// ```
/// use mcpx::text::{TextFormat, compact_text};
/// use serde_json::json;
///
/// let rows: Vec<_> = (0..20).map(|i| json!({"id": i, "state": "open", "draft": false})).collect();
/// let (format, text) = compact_text(&json!(rows));
/// assert_eq!(format, TextFormat::Toon);
/// assert!(text.starts_with("[20]{id,state,draft}:"));
///
/// assert_eq!(compact_text(&json!(42)), (TextFormat::Json, "42".to_owned()));
/// ```
pub fn compact_text(value: &Value) -> (TextFormat, String) {
    let json = compact_json(value);
    let Some(toon) = try_toon(value, &ToonOptions::default()) else {
        return (TextFormat::Json, json);
    };
    if toon == json || count_tokens(&toon) >= count_tokens(&json) {
        (TextFormat::Json, json)
    } else {
        (TextFormat::Toon, toon)
    }
}

/// Compact JSON: `serde_json`'s `Display` for a value, which cannot fail.
fn compact_json(value: &Value) -> String {
    value.to_string()
}

/// TOON text, or `None` where the encoder refuses the value (nesting beyond its limit).
fn try_toon(value: &Value, options: &ToonOptions) -> Option<String> {
    let delimiter = match options.delimiter {
        ToonDelimiter::Comma => toon_format::Delimiter::Comma,
        ToonDelimiter::Tab => toon_format::Delimiter::Tab,
        ToonDelimiter::Pipe => toon_format::Delimiter::Pipe,
    };
    let encode_options = toon_format::EncodeOptions::new()
        .with_delimiter(delimiter)
        .with_spaces(options.indent.max(1));
    toon_format::encode(value, &encode_options).ok()
}
