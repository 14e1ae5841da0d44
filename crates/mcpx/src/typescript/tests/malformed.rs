//! Malformed and hostile schemas: wrong types, deep nesting, reference cycles. Nothing panics,
//! everything ends.

use serde_json::{Value, json};

use super::ts;

#[test]
fn values_that_are_not_schemas_are_any() {
    for value in [
        json!(null),
        json!(1),
        json!("string"),
        json!([1, 2]),
        json!(-0.5),
    ] {
        assert_eq!(ts(value), "any");
    }
}

#[test]
fn keywords_of_the_wrong_type_are_ignored() {
    let schema = json!({
        "type": 5,
        "properties": [1, 2],
        "required": "a",
        "enum": "nope",
        "anyOf": {"x": 1},
        "allOf": null,
        "items": 3,
        "description": 7,
        "minimum": "one",
        "pattern": 1,
        "$ref": 12,
    });
    assert_eq!(ts(schema), "any");
}

#[test]
fn required_names_that_are_not_strings_are_skipped() {
    let schema = json!({
        "type": "object",
        "properties": {"a": {"type": "string"}},
        "required": [1, null, "a", {"b": 2}],
    });
    assert_eq!(ts(schema), "{a:string}");
}

#[test]
fn unknown_type_names_are_any() {
    assert_eq!(ts(json!({"type": "color"})), "any");
    assert_eq!(ts(json!({"type": ["color", "string"]})), "any|string");
}

#[test]
fn deep_nesting_stops_at_the_cap() {
    let mut schema = json!({"type": "string"});
    for _ in 0..200 {
        schema = json!({"type": "array", "items": schema});
    }
    let text = ts(schema);
    assert_eq!(text, format!("any{}", "[]".repeat(33)));
}

#[test]
fn deep_nesting_of_objects_stops_at_the_cap() {
    let mut schema = json!({"type": "string"});
    for _ in 0..100 {
        schema = json!({"type": "object", "properties": {"a": schema}, "required": ["a"]});
    }
    let text = ts(schema);
    assert_eq!(text, format!("{}any{}", "{a:".repeat(33), "}".repeat(33)));
}

#[test]
fn a_long_ref_chain_is_followed() {
    let mut defs = serde_json::Map::new();
    for index in 0..100 {
        defs.insert(
            format!("d{index}"),
            json!({"$ref": format!("#/$defs/d{}", index + 1)}),
        );
    }
    defs.insert("d100".to_owned(), json!({"type": "string"}));
    let schema = json!({"$ref": "#/$defs/d0", "$defs": Value::Object(defs)});
    assert_eq!(ts(schema), "string");
}

#[test]
fn a_long_chain_of_documented_refs_is_named_past_the_cap_and_loses_nothing() {
    let mut defs = serde_json::Map::new();
    for index in 0..100 {
        let next = format!("#/$defs/d{}", index + 1);
        defs.insert(
            format!("d{index}"),
            json!({"$ref": next, "minLength": index}),
        );
    }
    defs.insert("d100".to_owned(), json!({"type": "string"}));
    let schema = json!({"$ref": "#/$defs/d0", "$defs": Value::Object(defs)});
    let text = super::bare(schema);
    assert!(text.ends_with("\nD32"), "{text}");
    assert!(text.contains("type D32 = D65;"), "{text}");
    assert!(text.contains("type D98 = string;"), "{text}");
    assert!(!text.contains("any"), "{text}");
}

#[test]
fn wide_and_deep_sharing_stays_small() {
    // Each definition refers to the next twice: written out, the type would double at each
    // level. Named, it grows by one line a level.
    let mut defs = serde_json::Map::new();
    for index in 0..40 {
        let next = format!("#/$defs/d{}", index + 1);
        defs.insert(
            format!("d{index}"),
            json!({"prefixItems": [{"$ref": next}, {"$ref": next}], "items": false, "minItems": 2}),
        );
    }
    defs.insert("d40".to_owned(), json!({"type": "string"}));
    let schema = json!({"$ref": "#/$defs/d0", "$defs": Value::Object(defs)});
    let text = ts(schema);
    assert!(text.len() < 2_000, "{} bytes: {text}", text.len());
    assert!(text.contains("type D1 = [D2,D2];"), "{text}");
}

#[test]
fn refs_that_loop_through_combinators_end() {
    let schema = json!({
        "anyOf": [{"$ref": "#"}, {"allOf": [{"$ref": "#/anyOf/1"}]}, {"not": {"$ref": "#"}}],
        "if": {"$ref": "#"},
    });
    let text = ts(schema);
    assert!(text.ends_with("Root"), "{text}");
}

#[test]
fn pointers_that_go_nowhere_are_unresolved() {
    for reference in [
        "#/",
        "#/a/b/c",
        "#/properties/0",
        "#/%zz",
        "#/x/-",
        "#/list/01",
        "#%",
    ] {
        let schema = json!({"$ref": reference, "list": [{"type": "string"}, {"type": "string"}]});
        assert_eq!(
            ts(schema),
            format!("// ref: {reference}\nany"),
            "{reference}"
        );
    }
}

#[test]
fn long_enums_and_required_lists_take_linear_time() {
    // Quadratic work on these would take minutes in a debug build.
    let values: Vec<Value> = (0..50_000)
        .map(|index| json!(format!("v{index}")))
        .collect();
    let names: Vec<Value> = (0..50_000)
        .map(|index| json!(format!("p{index}")))
        .collect();
    let properties: serde_json::Map<String, Value> = (0..50_000)
        .map(|index| (format!("p{index}"), json!({"type": "string"})))
        .collect();
    let schema = json!({
        "type": "object",
        "properties": {"e": {"enum": values}},
        "required": names,
        "additionalProperties": {"type": "object", "properties": properties},
    });
    let started = std::time::Instant::now();
    let text = super::bare(schema);
    assert!(text.starts_with("{e?:\"v0\"|\"v1\"|"), "{}", &text[..40]);
    assert!(text.contains(",p49999:any,"));
    assert!(
        started.elapsed() < std::time::Duration::from_secs(20),
        "{:?}",
        started.elapsed()
    );
}
