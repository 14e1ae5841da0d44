//! `to_typescript` on arbitrary JSON: schema-like objects with the keywords it reads, holding
//! values of every type, references that resolve, loop or go nowhere. It never panics, always
//! ends, and says the same thing twice.

use std::sync::mpsc;
use std::time::Duration;

use proptest::prelude::*;
use serde_json::{Map, Value};

use mcpx::typescript::{TsOptions, to_typescript};

/// Longer than any conversion takes, even in a debug build on a loaded machine.
const TIME_LIMIT: Duration = Duration::from_secs(20);

const KEYS: &[&str] = &[
    "type",
    "properties",
    "required",
    "additionalProperties",
    "patternProperties",
    "items",
    "prefixItems",
    "additionalItems",
    "$ref",
    "$defs",
    "definitions",
    "anyOf",
    "oneOf",
    "allOf",
    "not",
    "if",
    "then",
    "else",
    "enum",
    "const",
    "nullable",
    "description",
    "title",
    "default",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "minLength",
    "pattern",
    "format",
    "minItems",
    "maxItems",
    "uniqueItems",
    "dependentRequired",
    "dependentSchemas",
    "dependencies",
    "contains",
    "propertyNames",
    "$anchor",
    "$id",
    "$dynamicRef",
    "deprecated",
    "a",
    "b",
    "x-y",
    "",
];

const STRINGS: &[&str] = &[
    "string",
    "number",
    "integer",
    "boolean",
    "null",
    "object",
    "array",
    "#",
    "#/$defs/a",
    "#/$defs/b",
    "#/definitions/a",
    "#/properties/a",
    "#/anyOf/0",
    "#/items",
    "#/$defs/a~1b",
    "#/%24defs/a",
    "#a",
    "#b",
    "https://example.com/s.json#/x",
    "other.json",
    "#/",
    "*/",
    "a",
    "^x-",
    "line\nbreak",
];

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        (-5i64..200).prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        prop::sample::select(STRINGS).prop_map(Value::from),
        "\\PC{0,12}".prop_map(Value::from),
    ]
}

fn json() -> impl Strategy<Value = Value> {
    leaf().prop_recursive(10, 300, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::vec((prop::sample::select(KEYS), inner), 0..7).prop_map(|pairs| {
                Value::Object(
                    pairs
                        .into_iter()
                        .map(|(key, value)| (key.to_owned(), value))
                        .collect::<Map<_, _>>(),
                )
            }),
        ]
    })
}

/// The conversion, run on another thread so that one that does not end fails the test.
fn convert(schema: &Value, max_description_len: usize) -> String {
    let (sender, receiver) = mpsc::channel();
    let schema = schema.clone();
    std::thread::spawn(move || {
        let text = to_typescript(
            &schema,
            &TsOptions {
                max_description_len,
            },
        );
        let _ = sender.send(text);
    });
    match receiver.recv_timeout(TIME_LIMIT) {
        Ok(text) => text,
        Err(mpsc::RecvTimeoutError::Timeout) => panic!("no result after {TIME_LIMIT:?}"),
        Err(mpsc::RecvTimeoutError::Disconnected) => panic!("the conversion panicked"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, ..ProptestConfig::default() })]

    #[test]
    fn any_json_converts_and_always_the_same_way(schema in json()) {
        for max_description_len in [0, 1, 120] {
            let first = convert(&schema, max_description_len);
            prop_assert!(!first.is_empty());
            prop_assert_eq!(&first, &to_typescript(&schema, &TsOptions { max_description_len }));
        }
    }

    #[test]
    fn any_json_under_defs_and_refs_converts(
        defs in prop::collection::vec(json(), 1..4),
        root in json(),
    ) {
        // Definitions `a`, `b`, … that the generated `$ref`s can reach, beside a root.
        let mut schema = match root {
            Value::Object(map) => map,
            other => Map::from_iter([("items".to_owned(), other)]),
        };
        let names = ["a", "b", "a/b", "c"];
        let defs: Map<String, Value> =
            names.iter().zip(defs).map(|(name, def)| ((*name).to_owned(), def)).collect();
        schema.insert("$defs".to_owned(), Value::Object(defs));
        let schema = Value::Object(schema);
        let _ = convert(&schema, 120);
    }
}

/// A schema nested 2 000 levels deep, each level `{wrapper: …}`.
fn deep(wrapper: &str) -> Value {
    let mut schema = Value::from("string");
    for _ in 0..2_000 {
        let inner = if matches!(wrapper, "enum" | "anyOf") {
            Value::Array(vec![schema])
        } else {
            schema
        };
        schema = Value::Object(Map::from_iter([(wrapper.to_owned(), inner)]));
    }
    schema
}

#[test]
fn very_deep_values_convert_on_a_small_stack() {
    for wrapper in ["items", "not", "const", "default", "enum", "anyOf"] {
        // Built and converted on a thread with the default 2 MiB stack; cloning or dropping
        // such a value recurses in serde_json, so it is dropped on a thread with a large stack.
        let (sender, receiver) = mpsc::channel();
        let owned = wrapper.to_owned();
        std::thread::spawn(move || {
            let schema = deep(&owned);
            let text = to_typescript(&schema, &TsOptions::default());
            let _ = sender.send((text, schema));
        });
        let (text, schema) = match receiver.recv_timeout(TIME_LIMIT) {
            Ok(result) => result,
            Err(error) => panic!("{wrapper}: no result ({error})"),
        };
        assert!(!text.is_empty(), "{wrapper}");
        std::thread::Builder::new()
            .stack_size(256 << 20)
            .spawn(move || drop(schema))
            .expect("a thread")
            .join()
            .expect("dropped");
    }
}
