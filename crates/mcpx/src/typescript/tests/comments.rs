//! Descriptions and notes: where they go, how they are cut, what they say.

use serde_json::json;

use super::super::{TsOptions, to_typescript};
use super::{bare, ts};

fn with_max(schema: serde_json::Value, max_description_len: usize) -> String {
    to_typescript(
        &schema,
        &TsOptions {
            max_description_len,
        },
    )
}

#[test]
fn a_description_follows_its_member_on_one_line() {
    let schema = json!({
        "type": "object",
        "properties": {"path": {"type": "string", "description": "Path of the\n  file,\ttabs too."}},
    });
    assert_eq!(
        ts(schema),
        "{\npath?:string // Path of the file, tabs too.\n}"
    );
}

#[test]
fn the_root_description_is_a_line_before_the_type() {
    let schema = json!({
        "type": "object",
        "description": "Arguments.",
        "properties": {"a": {"type": "string"}},
    });
    assert_eq!(ts(schema), "// Arguments.\n{a?:string}");
}

#[test]
fn the_title_stands_in_for_a_missing_description() {
    assert_eq!(
        ts(json!({"type": "string", "title": "Name"})),
        "// Name\nstring"
    );
    assert_eq!(
        ts(json!({"type": "string", "title": "Name", "description": "Full name."})),
        "// Full name.\nstring"
    );
}

#[test]
fn long_descriptions_are_cut_at_a_sentence_or_a_word() {
    let text = "First sentence here. Second sentence goes on and on.";
    assert_eq!(
        with_max(json!({"description": text}), 30),
        "// First sentence here.…\nany"
    );
    let text = "one two three four five six seven";
    assert_eq!(
        with_max(json!({"description": text}), 16),
        "// one two three…\nany"
    );
    let text = "abcdefghijklmnopqrstuvwxyz";
    assert_eq!(
        with_max(json!({"description": text}), 10),
        "// abcdefghi…\nany"
    );
    // Exactly the limit: kept whole. Characters, not bytes.
    assert_eq!(
        with_max(json!({"description": "ééééé"}), 5),
        "// ééééé\nany"
    );
    assert_eq!(
        with_max(json!({"description": "éééééé"}), 5),
        "// éééé…\nany"
    );
}

#[test]
fn comment_ends_in_descriptions_are_neutralized() {
    let schema = json!({"type": "array", "items": {"type": "string", "description": "a */ b"}});
    assert_eq!(ts(schema), "(/** a *\\/ b */string)[]");
}

#[test]
fn zero_drops_descriptions_but_keeps_notes() {
    let schema = json!({
        "type": "object",
        "properties": {
            "page": {
                "type": "integer",
                "description": "Page number.",
                "default": 1,
                "minimum": 1,
                "maximum": 100,
            },
            "q": {"type": "string", "description": "Query."},
        },
    });
    assert_eq!(
        bare(schema.clone()),
        "{\npage?:number // int, default: 1, >=1, <=100\nq?:string\n}"
    );
    assert_eq!(
        ts(schema),
        "{\npage?:number // Page number. int, default: 1, >=1, <=100\nq?:string // Query.\n}"
    );
}

#[test]
fn number_bounds_in_both_drafts() {
    assert_eq!(
        bare(json!({"exclusiveMinimum": 0, "exclusiveMaximum": 1})),
        "// >0, <1\nany"
    );
    assert_eq!(
        bare(json!({"minimum": 0, "exclusiveMinimum": true, "maximum": 9, "multipleOf": 3})),
        "// >0, <=9, multipleOf: 3\nany"
    );
}

#[test]
fn string_constraints() {
    let schema = json!({
        "type": "string",
        "minLength": 1,
        "maxLength": 64,
        "pattern": "^[a-z]+\n$",
        "format": "email",
    });
    assert_eq!(
        bare(schema),
        "// minLength: 1, maxLength: 64, pattern: ^[a-z]+\\n$, format: email\nstring"
    );
    let schema =
        json!({"type": "string", "contentEncoding": "base64", "contentMediaType": "image/png"});
    assert_eq!(
        bare(schema),
        "// encoding: base64, mediaType: image/png\nstring"
    );
}

#[test]
fn long_defaults_are_cut() {
    let schema =
        json!({"type": "string", "default": "a very long default value that goes on and on"});
    assert_eq!(
        bare(schema),
        "// default: \"a very long default value that goes…\nstring"
    );
}

#[test]
fn deprecated_and_read_only_are_noted() {
    let schema = json!({
        "type": "string",
        "deprecated": true,
        "readOnly": true,
        "writeOnly": true,
        "examples": ["x"],
    });
    assert_eq!(bare(schema), "// deprecated, readOnly\nstring");
}

#[test]
fn not_if_then_else_and_dependencies_are_notes() {
    let schema = json!({
        "type": "object",
        "properties": {"a": {"type": "string"}, "b": {"type": "string"}},
        "not": {"required": ["a", "b"]},
        "if": {"properties": {"a": {"const": "x"}}},
        "then": {"required": ["b"]},
        "else": {"properties": {"b": {"type": "null"}}},
        "dependentRequired": {"a": ["b", "c"]},
        "dependentSchemas": {"b": {"properties": {"a": {"minLength": 2}}}},
    });
    assert_eq!(
        bare(schema),
        "// not: {a:any,b:any}, if {a?:\"x\"} then {b:any} else {b?:null}, a requires [b, c], \
         if b: {a?:any (minLength: 2)}\n{a?:string,b?:string}"
    );
}

#[test]
fn draft_7_dependencies_and_contains() {
    let schema = json!({
        "type": "array",
        "contains": {"const": 1},
        "minContains": 2,
        "dependencies": {"x": ["y"], "z": {"required": ["w"]}},
    });
    assert_eq!(
        bare(schema),
        "// minContains: 2, x requires [y], if z: {w:any}, contains: 1\nany[]"
    );
}

#[test]
fn a_ref_with_a_description_keeps_the_outer_description_and_every_note() {
    let schema = json!({
        "type": "object",
        "properties": {"size": {"$ref": "#/$defs/Size", "description": "Outer."}},
        "$defs": {"Size": {"type": "integer", "description": "Inner.", "minimum": 1}},
    });
    assert_eq!(ts(schema), "{\nsize?:number // Outer. int, >=1\n}");
}
