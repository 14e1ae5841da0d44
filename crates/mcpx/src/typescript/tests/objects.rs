//! Object types: properties, `required`, names, index signatures.

use serde_json::json;

use super::{bare, ts};

#[test]
fn properties_not_required_are_optional_and_keep_their_order() {
    let schema = json!({
        "type": "object",
        "properties": {
            "zeta": {"type": "string"},
            "alpha": {"type": "number"},
            "mid": {"type": "boolean"},
        },
        "required": ["alpha"],
    });
    assert_eq!(ts(schema), "{zeta?:string,alpha:number,mid?:boolean}");
}

#[test]
fn names_that_are_not_identifiers_are_quoted() {
    let schema = json!({
        "type": "object",
        "properties": {
            "with-dash": {"type": "string"},
            "1st": {"type": "string"},
            "$ok_1": {"type": "string"},
            "": {"type": "string"},
            "quote\"d": {"type": "string"},
        },
    });
    assert_eq!(
        ts(schema),
        r#"{"with-dash"?:string,"1st"?:string,$ok_1?:string,""?:string,"quote\"d"?:string}"#
    );
}

#[test]
fn nested_objects() {
    let schema = json!({
        "type": "object",
        "properties": {
            "filter": {
                "type": "object",
                "properties": {"state": {"type": "string"}},
                "required": ["state"],
            },
        },
        "required": ["filter"],
    });
    assert_eq!(ts(schema), "{filter:{state:string}}");
}

#[test]
fn additional_properties_are_an_index_signature() {
    let schema = json!({"type": "object", "additionalProperties": {"type": "string"}});
    assert_eq!(ts(schema), "{[k:string]:string}");
    let schema = json!({
        "type": "object",
        "properties": {"name": {"type": "string"}},
        "required": ["name"],
        "additionalProperties": true,
    });
    assert_eq!(ts(schema), "{name:string,[k:string]:any}");
}

#[test]
fn additional_properties_false_adds_nothing() {
    let schema = json!({
        "type": "object",
        "properties": {"name": {"type": "string"}},
        "additionalProperties": false,
    });
    assert_eq!(ts(schema), "{name?:string}");
}

#[test]
fn pattern_properties_are_index_signatures_with_their_pattern() {
    let schema = json!({
        "type": "object",
        "patternProperties": {"^x-": {"type": "string"}, "^n_": {"type": "integer"}},
        "additionalProperties": false,
    });
    assert_eq!(
        ts(schema),
        "{\n[k:string]:string // key pattern: ^x-\n[k:string]:number // key pattern: ^n_, int\n}"
    );
}

#[test]
fn an_empty_object_and_a_free_object() {
    // Nothing allowed: `{}`.
    assert_eq!(
        ts(json!({"type": "object", "additionalProperties": false})),
        "{}"
    );
    // Nothing said of the members: any object.
    assert_eq!(ts(json!({"type": "object"})), "object");
    assert_eq!(ts(json!({"type": "object", "properties": {}})), "object");
    assert_eq!(
        ts(json!({"type": "object", "additionalProperties": true})),
        "object"
    );
    assert_eq!(
        ts(json!({"type": "object", "properties": {}, "additionalProperties": false})),
        "{}"
    );
}

#[test]
fn required_names_without_a_schema_are_members() {
    let schema = json!({"type": "object", "required": ["id", "id"]});
    assert_eq!(ts(schema), "{id:any}");
    let schema = json!({
        "type": "object",
        "properties": {"a": {"type": "string"}},
        "required": ["b"],
        "additionalProperties": {"type": "number"},
    });
    assert_eq!(ts(schema), "{a?:string,b:number,[k:string]:number}");
}

#[test]
fn object_keywords_without_type_make_an_object() {
    let schema = json!({"properties": {"a": {"type": "string"}}, "required": ["a"]});
    assert_eq!(ts(schema), "{a:string}");
}

#[test]
fn object_constraints_are_notes() {
    let schema = json!({
        "type": "object",
        "additionalProperties": {"type": "string"},
        "minProperties": 1,
        "maxProperties": 3,
        "propertyNames": {"pattern": "^[a-z]+$"},
    });
    assert_eq!(
        bare(schema),
        "// minProperties: 1, maxProperties: 3, keys: any (pattern: ^[a-z]+$)\n{[k:string]:string}"
    );
}

#[test]
fn a_documented_member_puts_the_object_one_member_a_line() {
    let schema = json!({
        "type": "object",
        "properties": {
            "owner": {"type": "string", "description": "Repository owner"},
            "repo": {"type": "string"},
            "filter": {
                "type": "object",
                "description": "Filters.",
                "properties": {"state": {"type": "string", "description": "State."}},
            },
        },
        "required": ["owner", "repo"],
    });
    assert_eq!(
        ts(schema),
        "{\nowner:string // Repository owner\nrepo:string\n\
         // Filters.\nfilter?:{\nstate?:string // State.\n}\n}"
    );
}

#[test]
fn an_object_inside_a_comment_stays_on_one_line() {
    let schema = json!({
        "not": {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]},
    });
    assert_eq!(ts(schema), "// not: {a:number (int)}\nany");
}
