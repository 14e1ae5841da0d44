//! Properties of the parsers, checked on generated inputs in every test run (the fuzz targets
//! in `fuzz/` explore further, outside CI).

use mcp_jsonrpc::message::{self, Parsed};
use mcp_jsonrpc::sse::{SseEvent, SseParser};
use mcp_jsonrpc::{ErrorObject, Id, Message};
use proptest::prelude::*;
use serde_json::{Value, json};

fn id() -> impl Strategy<Value = Id> {
    prop_oneof![
        any::<i64>().prop_map(Id::Number),
        any::<String>().prop_map(Id::String)
    ]
}

/// JSON values with strings of any Unicode, numbers of any kind, and nesting.
fn value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
        any::<String>().prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 32, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map(any::<String>(), inner, 0..6)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

fn object() -> impl Strategy<Value = Value> {
    prop::collection::btree_map(any::<String>(), value(), 0..6)
        .prop_map(|m| Value::Object(m.into_iter().collect()))
}

/// The message a value was built from, and its wire form.
fn message() -> impl Strategy<Value = Value> {
    prop_oneof![
        (id(), any::<String>(), proptest::option::of(object())).prop_map(|(id, method, params)| {
            let mut m = json!({ "jsonrpc": "2.0", "id": id, "method": method });
            if let Some(p) = params {
                m["params"] = p;
            }
            m
        }),
        (any::<String>(), proptest::option::of(object())).prop_map(|(method, params)| {
            let mut m = json!({ "jsonrpc": "2.0", "method": method });
            if let Some(p) = params {
                m["params"] = p;
            }
            m
        }),
        (id(), value())
            .prop_map(|(id, result)| json!({ "jsonrpc": "2.0", "id": id, "result": result })),
        (
            proptest::option::of(id()),
            any::<i64>(),
            any::<String>(),
            proptest::option::of(value())
        )
            .prop_map(|(id, code, text, data)| {
                let mut error = ErrorObject::new(code, text);
                error.data = data;
                json!({ "jsonrpc": "2.0", "id": id, "error": error })
            }),
    ]
}

fn single(bytes: &[u8]) -> Message {
    match message::parse(bytes) {
        Ok(Parsed::Single(Ok(m))) => m,
        other => panic!(
            "{} did not parse as one message: {other:?}",
            String::from_utf8_lossy(bytes)
        ),
    }
}

proptest! {
    /// Every valid message parses, and its encoding is the same JSON value and stable.
    #[test]
    fn messages_round_trip(wire in message()) {
        let bytes = serde_json::to_vec(&wire).unwrap();
        let parsed = single(&bytes);
        let encoded = parsed.to_vec();
        let reparsed: Value = serde_json::from_slice(&encoded).unwrap();
        prop_assert_eq!(&reparsed, &wire);
        prop_assert_eq!(single(&encoded).to_vec(), encoded);
    }

    /// Cutting an event stream anywhere gives the same events as reading it whole.
    #[test]
    fn sse_parsing_does_not_depend_on_chunking(
        events in prop::collection::vec((proptest::option::of("[a-z0-9-]{0,8}"), "[^\r\n]{0,40}", 1usize..3), 0..8),
        line_end in prop_oneof![Just("\n"), Just("\r\n"), Just("\r")],
        cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..6),
        limit in 1usize..64,
    ) {
        let mut stream = String::new();
        for (id, data, lines) in &events {
            if let Some(id) = id {
                stream.push_str(&format!("id: {id}{line_end}"));
            }
            stream.push_str(&format!(":comment{line_end}"));
            for _ in 0..*lines {
                stream.push_str(&format!("data: {data}{line_end}"));
            }
            stream.push_str(line_end);
        }
        let bytes = stream.as_bytes();
        let run = |pieces: Vec<&[u8]>| {
            let mut parser = SseParser::new(limit);
            let mut out = Vec::new();
            for piece in pieces {
                parser.feed(piece, &mut |e| out.push(e));
            }
            (out, parser.last_event_id().map(str::to_owned))
        };
        let whole = run(vec![bytes]);
        let mut points: Vec<usize> = cuts.iter().map(|i| i.index(bytes.len() + 1)).collect();
        points.sort_unstable();
        let mut pieces = Vec::new();
        let mut start = 0;
        for p in points {
            pieces.push(&bytes[start..p]);
            start = p;
        }
        pieces.push(&bytes[start..]);
        let cut = run(pieces);
        prop_assert_eq!(&whole, &cut);
        prop_assert_eq!(whole.0.len(), events.len());
        for event in &whole.0 {
            if let SseEvent::Message { data, .. } = event {
                prop_assert!(data.len() <= limit);
            }
        }
    }
}
