use serde_json::{Value, json};

use crate::text::{
    TextFormat, ToonDelimiter, ToonOptions, compact_text, count_tokens, to_toon, to_toon_with,
};

#[test]
fn encodes_objects_and_tables() {
    let value = json!({
        "repo": "octo/hello",
        "issues": [
            {"number": 1, "title": "Crash on start", "open": true},
            {"number": 2, "title": "Docs: typo", "open": false}
        ]
    });
    assert_eq!(
        to_toon(&value),
        [
            "repo: octo/hello",
            "issues[2]{number,title,open}:",
            "  1,Crash on start,true",
            "  2,\"Docs: typo\",false",
        ]
        .join("\n")
    );
}

#[test]
fn options_choose_delimiter_and_indent() {
    let value = json!({"a": {"tags": ["x", "y"]}});
    let options = ToonOptions {
        delimiter: ToonDelimiter::Pipe,
        indent: 4,
    };
    assert_eq!(to_toon_with(&value, &options), "a:\n    tags[2|]: x|y");
    let tab = ToonOptions {
        delimiter: ToonDelimiter::Tab,
        ..ToonOptions::default()
    };
    assert_eq!(to_toon_with(&value, &tab), "a:\n  tags[2\t]: x\ty");
    // An indent of 0 is taken as 1 rather than refused.
    let zero = ToonOptions {
        indent: 0,
        ..ToonOptions::default()
    };
    assert_eq!(to_toon_with(&value, &zero), "a:\n tags[2]: x,y");
}

#[test]
fn compact_text_keeps_the_cheaper_form() {
    let rows: Vec<Value> = (0..30)
        .map(|i| json!({"id": i, "login": format!("user{i}"), "site_admin": false}))
        .collect();
    let table = json!({"users": rows});
    let (format, text) = compact_text(&table);
    assert_eq!(format, TextFormat::Toon);
    assert_eq!(text, to_toon(&table));
    assert!(count_tokens(&text) < count_tokens(&table.to_string()));

    // Arrays of arrays of numbers: TOON's `- [n]:` lines cost more than JSON's brackets.
    let matrix = json!([[1, 2], [3, 4], [5, 6], [7, 8]]);
    let toon = to_toon(&matrix);
    let json = matrix.to_string();
    let (format, text) = compact_text(&matrix);
    if count_tokens(&toon) < count_tokens(&json) {
        assert_eq!((format, text), (TextFormat::Toon, toon));
    } else {
        assert_eq!((format, text), (TextFormat::Json, json));
    }
}

#[test]
fn ties_go_to_json() {
    // A number is the same text either way.
    assert_eq!(
        compact_text(&json!(42)),
        (TextFormat::Json, "42".to_owned())
    );
    assert_eq!(
        compact_text(&json!(null)),
        (TextFormat::Json, "null".to_owned())
    );
    // `[]` in both forms.
    assert_eq!(
        compact_text(&json!([])),
        (TextFormat::Json, "[]".to_owned())
    );
}

#[test]
fn too_deep_for_toon_falls_back_to_json() {
    let mut value = json!(1);
    for _ in 0..300 {
        value = json!([value]);
    }
    let json = value.to_string();
    assert_eq!(to_toon(&value), json);
    assert_eq!(compact_text(&value), (TextFormat::Json, json));
}

#[test]
fn format_names() {
    assert_eq!(TextFormat::Toon.as_str(), "toon");
    assert_eq!(TextFormat::Json.as_str(), "json");
}
