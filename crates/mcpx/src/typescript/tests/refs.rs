//! `$ref`: resolution, inlining, named aliases for recursion and sharing, unresolved refs.

use serde_json::json;

use super::{bare, ts};

#[test]
fn a_local_ref_is_written_out_in_place() {
    let schema = json!({
        "type": "object",
        "properties": {"user": {"$ref": "#/$defs/User"}},
        "$defs": {
            "User": {
                "type": "object",
                "properties": {"name": {"type": "string"}},
                "required": ["name"],
            },
        },
    });
    assert_eq!(ts(schema), "{user?:{name:string}}");
}

#[test]
fn definitions_pointer_escapes_and_percent_encoding_resolve() {
    let schema = json!({
        "type": "object",
        "properties": {
            "a": {"$ref": "#/definitions/a~1b"},
            "b": {"$ref": "#/definitions/t~0n"},
            "c": {"$ref": "#/definitions/with%20space"},
            "d": {"$ref": "#/definitions/list/1"},
        },
        "definitions": {
            "a/b": {"type": "string"},
            "t~n": {"type": "number"},
            "with space": {"type": "boolean"},
            "list": [{"type": "null"}, {"const": 7}],
        },
    });
    assert_eq!(ts(schema), "{a?:string,b?:number,c?:boolean,d?:7}");
}

#[test]
fn anchors_and_the_root_id_resolve() {
    let schema = json!({
        "$id": "https://example.com/tool.json",
        "type": "object",
        "properties": {
            "a": {"$ref": "#item"},
            "b": {"$ref": "https://example.com/tool.json#/$defs/n"},
        },
        "$defs": {"x": {"$anchor": "item", "type": "string"}, "n": {"type": "null"}},
    });
    assert_eq!(ts(schema), "{a?:string,b?:null}");
}

#[test]
fn a_recursive_definition_is_named() {
    let schema = json!({
        "$ref": "#/$defs/node",
        "$defs": {
            "node": {
                "type": "object",
                "properties": {
                    "value": {"type": "string"},
                    "children": {"type": "array", "items": {"$ref": "#/$defs/node"}},
                },
                "required": ["value"],
            },
        },
    });
    assert_eq!(
        ts(schema),
        "type Node = {value:string,children?:Node[]};\nNode"
    );
}

#[test]
fn a_root_that_refers_to_itself_is_named_root() {
    let schema = json!({
        "type": "object",
        "properties": {"next": {"$ref": "#"}, "v": {"type": "number"}},
    });
    assert_eq!(ts(schema), "type Root = {next?:Root,v?:number};\nRoot");
}

#[test]
fn mutual_recursion_names_the_cycle_once() {
    let schema = json!({
        "type": "object",
        "properties": {"a": {"$ref": "#/$defs/A"}},
        "$defs": {
            "A": {"type": "object", "properties": {"b": {"$ref": "#/$defs/B"}}},
            "B": {"type": "object", "properties": {"a": {"$ref": "#/$defs/A"}}},
        },
    });
    assert_eq!(ts(schema), "type A = {b?:{a?:A}};\n{a?:A}");
}

#[test]
fn a_shared_definition_is_named_when_that_is_shorter() {
    let address = json!({
        "type": "object",
        "properties": {
            "street": {"type": "string"},
            "city": {"type": "string"},
            "zip": {"type": "string"},
        },
        "required": ["street", "city"],
    });
    let schema = json!({
        "type": "object",
        "properties": {"home": {"$ref": "#/$defs/Address"}, "work": {"$ref": "#/$defs/Address"}},
        "$defs": {"Address": address},
    });
    assert_eq!(
        ts(schema),
        "type Address = {street:string,city:string,zip?:string};\n{home?:Address,work?:Address}"
    );
}

#[test]
fn a_short_shared_definition_stays_inline() {
    let schema = json!({
        "type": "object",
        "properties": {"a": {"$ref": "#/$defs/Id"}, "b": {"$ref": "#/$defs/Id"}},
        "$defs": {"Id": {"type": "string"}},
    });
    assert_eq!(ts(schema), "{a?:string,b?:string}");
}

#[test]
fn a_named_definition_keeps_its_description_before_its_line() {
    let schema = json!({
        "$ref": "#/$defs/list",
        "$defs": {
            "list": {"description": "A list.", "type": "array", "items": {"$ref": "#/$defs/list"}},
        },
    });
    assert_eq!(ts(schema), "// A list.\ntype List = List[];\nList");
}

#[test]
fn remote_and_unresolvable_refs_are_any_with_a_note() {
    let schema = json!({
        "type": "object",
        "properties": {
            "a": {"$ref": "https://example.com/schema.json#/X"},
            "b": {"$ref": "#/$defs/Missing"},
            "c": {"$ref": "#/$defs/list/9"},
            "d": {"$ref": "other.json"},
        },
        "$defs": {"list": []},
    });
    assert_eq!(
        bare(schema),
        "{\na?:any // ref: https://example.com/schema.json#/X\nb?:any // ref: #/$defs/Missing\n\
         c?:any // ref: #/$defs/list/9\nd?:any // ref: other.json\n}"
    );
}

#[test]
fn a_ref_to_itself_ends() {
    assert_eq!(ts(json!({"$ref": "#"})), "type Root = Root;\nRoot");
    let schema = json!({
        "$ref": "#/$defs/a",
        "$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}},
    });
    assert_eq!(ts(schema), "type A = A;\nA");
}

#[test]
fn a_ref_chain_is_followed() {
    let schema = json!({
        "$ref": "#/$defs/a",
        "$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/c"}, "c": {"type": "string"}},
    });
    assert_eq!(ts(schema), "string");
}

#[test]
fn alias_names_are_identifiers_and_unique() {
    let schema = json!({
        "type": "object",
        "properties": {
            "a": {"$ref": "#/$defs/my-node"},
            "b": {"$ref": "#/$defs/My_node"},
            "c": {"$ref": "#/$defs/9lives"},
        },
        "$defs": {
            "my-node": {"type": "array", "items": {"$ref": "#/$defs/my-node"}},
            "My_node": {"type": "array", "items": {"$ref": "#/$defs/My_node"}},
            "9lives": {"type": "array", "items": {"$ref": "#/$defs/9lives"}},
        },
    });
    assert_eq!(
        ts(schema),
        "type My_node = My_node[];\ntype My_node2 = My_node2[];\ntype T9lives = T9lives[];\n\
         {a?:My_node,b?:My_node2,c?:T9lives}"
    );
}
