//! Arrays and tuples.

use serde_json::json;

use super::{bare, ts};

#[test]
fn items_make_an_array() {
    assert_eq!(
        ts(json!({"type": "array", "items": {"type": "string"}})),
        "string[]"
    );
    assert_eq!(ts(json!({"type": "array"})), "any[]");
    assert_eq!(ts(json!({"type": "array", "items": true})), "any[]");
    assert_eq!(ts(json!({"items": {"type": "number"}})), "number[]");
}

#[test]
fn items_false_is_the_empty_tuple() {
    assert_eq!(ts(json!({"type": "array", "items": false})), "[]");
}

#[test]
fn nested_arrays() {
    let schema = json!({"type": "array", "items": {"type": "array", "items": {"type": "boolean"}}});
    assert_eq!(ts(schema), "boolean[][]");
}

#[test]
fn union_items_are_parenthesized() {
    let schema = json!({"type": "array", "items": {"type": ["string", "number"]}});
    assert_eq!(ts(schema), "(string|number)[]");
    let schema = json!({"type": "array", "items": {"enum": ["a", "b"]}});
    assert_eq!(ts(schema), "(\"a\"|\"b\")[]");
}

#[test]
fn documented_items_are_parenthesized_with_their_comment() {
    let schema = json!({"type": "array", "items": {"type": "integer", "minimum": 0}});
    assert_eq!(ts(schema), "(/** int, >=0 */number)[]");
}

#[test]
fn prefix_items_make_a_tuple_with_optional_elements_and_a_rest() {
    let schema = json!({"type": "array", "prefixItems": [{"type": "string"}, {"type": "number"}]});
    assert_eq!(ts(schema), "[string?,number?,...any[]]");
    let schema = json!({
        "type": "array",
        "prefixItems": [{"type": "string"}, {"type": "number"}],
        "items": {"type": "boolean"},
        "minItems": 1,
    });
    assert_eq!(ts(schema), "[string,number?,...boolean[]]");
}

#[test]
fn a_closed_tuple_has_no_rest() {
    let schema = json!({
        "type": "array",
        "prefixItems": [{"type": "number"}, {"type": "number"}],
        "items": false,
        "minItems": 2,
    });
    assert_eq!(ts(schema), "[number,number]");
    let schema = json!({
        "type": "array",
        "prefixItems": [{"type": "number"}, {"type": "number"}],
        "minItems": 2,
        "maxItems": 2,
    });
    assert_eq!(ts(schema), "[number,number]");
}

#[test]
fn item_counts_a_tuple_cannot_show_stay_as_notes() {
    let schema = json!({
        "type": "array",
        "prefixItems": [{"type": "number"}],
        "items": {"type": "string"},
        "minItems": 3,
        "maxItems": 5,
    });
    assert_eq!(
        bare(schema),
        "// minItems: 3, maxItems: 5\n[number,...string[]]"
    );
}

#[test]
fn a_draft_7_items_array_is_a_tuple_and_additional_items_its_rest() {
    let schema = json!({
        "type": "array",
        "items": [{"type": "string"}, {"type": "boolean"}],
        "additionalItems": {"type": "number"},
        "minItems": 2,
    });
    assert_eq!(ts(schema), "[string,boolean,...number[]]");
    let schema = json!({"type": "array", "items": [{"type": "string"}], "additionalItems": false});
    assert_eq!(ts(schema), "[string?]");
}

#[test]
fn a_union_rest_is_parenthesized() {
    let schema = json!({
        "prefixItems": [{"const": 1}],
        "items": {"anyOf": [{"type": "string"}, {"type": "null"}]},
        "minItems": 1,
    });
    assert_eq!(ts(schema), "[1,...(string|null)[]]");
}

#[test]
fn array_constraints_are_notes() {
    let schema = json!({
        "type": "object",
        "properties": {
            "tags": {
                "type": "array",
                "items": {"type": "string"},
                "minItems": 1,
                "maxItems": 10,
                "uniqueItems": true,
            },
        },
    });
    assert_eq!(
        ts(schema),
        "{\ntags?:string[] // minItems: 1, maxItems: 10, uniqueItems\n}"
    );
}
