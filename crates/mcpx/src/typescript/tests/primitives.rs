//! Primitive types, `any` and `never`.

use serde_json::json;

use super::ts;

#[test]
fn primitive_types_are_their_keywords() {
    assert_eq!(ts(json!({"type": "string"})), "string");
    assert_eq!(ts(json!({"type": "number"})), "number");
    assert_eq!(ts(json!({"type": "boolean"})), "boolean");
    assert_eq!(ts(json!({"type": "null"})), "null");
}

#[test]
fn an_integer_is_a_number_with_an_int_note() {
    assert_eq!(ts(json!({"type": "integer"})), "// int\nnumber");
    assert_eq!(
        ts(json!({"type": "object", "properties": {"n": {"type": "integer"}}})),
        "{\nn?:number // int\n}"
    );
}

#[test]
fn an_integer_beside_number_needs_no_note() {
    assert_eq!(ts(json!({"type": ["integer", "number"]})), "number");
}

#[test]
fn no_type_or_true_is_any_and_false_is_never() {
    assert_eq!(ts(json!({})), "any");
    assert_eq!(ts(json!(true)), "any");
    assert_eq!(ts(json!(false)), "never");
    assert_eq!(ts(json!({"type": "any"})), "any");
}

#[test]
fn the_seed_example_converts() {
    let schema =
        json!({"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]});
    assert_eq!(ts(schema), "{path:string}");
}
