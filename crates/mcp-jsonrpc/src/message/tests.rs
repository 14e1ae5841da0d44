use super::*;

fn single(text: &str) -> Result<Message, InvalidMessage> {
    match parse(text.as_bytes()).expect("valid JSON") {
        Parsed::Single(m) => m,
        Parsed::Batch(_) => panic!("unexpected batch"),
    }
}

fn invalid(text: &str) -> InvalidMessage {
    single(text).expect_err("must be invalid")
}

#[test]
fn classifies_the_four_shapes() {
    let Message::Request(r) =
        single(r#"{"jsonrpc":"2.0","id":1,"method":"ping","params":{}}"#).unwrap()
    else {
        panic!()
    };
    assert_eq!((r.id, r.method.as_str()), (Id::Number(1), "ping"));
    assert_eq!(r.params.unwrap().get(), "{}");

    let Message::Notification(n) =
        single(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#).unwrap()
    else {
        panic!()
    };
    assert!(n.params.is_none());

    let Message::Response(r) =
        single(r#"{"jsonrpc":"2.0","id":"a","result":{"x":[1, 2]}}"#).unwrap()
    else {
        panic!()
    };
    assert_eq!(r.id, Some(Id::String("a".into())));
    assert_eq!(r.outcome.unwrap().get(), r#"{"x":[1, 2]}"#);

    let Message::Response(r) =
        single(r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}"#)
            .unwrap()
    else {
        panic!()
    };
    assert_eq!(r.id, None);
    assert_eq!(r.outcome.unwrap_err().code, -32700);
}

#[test]
fn reports_invalid_values_with_their_id() {
    let e = invalid(r#"{"jsonrpc":"1.0","id":5,"method":"x"}"#);
    assert_eq!((e.id, e.is_request), (Some(Id::Number(5)), true));
    let e = invalid(r#"{"id":5,"method":"x"}"#);
    assert_eq!(e.id, Some(Id::Number(5)));
    let e = invalid(r#"{"jsonrpc":"2.0","id":5,"method":7}"#);
    assert!(e.reason.contains("method"));
    let e = invalid(r#"{"jsonrpc":"2.0","id":5,"method":"x","params":3}"#);
    assert!(e.reason.contains("params"));
    let e = invalid(r#"{"jsonrpc":"2.0","id":null,"method":"x"}"#);
    assert!(e.reason.contains("null"));
    let e = invalid(r#"{"jsonrpc":"2.0","id":1.5,"method":"x"}"#);
    assert_eq!(e.id, None);
    let e = invalid(r#"{"jsonrpc":"2.0","id":1,"result":1,"error":{"code":1,"message":""}}"#);
    assert_eq!(e.id, Some(Id::Number(1)));
    invalid(r#"{"jsonrpc":"2.0","id":1}"#);
    invalid(r#"{"jsonrpc":"2.0","result":{}}"#);
    invalid(r#"{"jsonrpc":"2.0","id":null,"result":{}}"#);
    invalid(r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"x"}"#);
    invalid(r#"{"jsonrpc":"2.0","id":1,"error":{"message":"no code"}}"#);
    invalid("42");
    invalid("\"str\"");
}

#[test]
fn not_json_is_a_parse_error() {
    // The last one has a duplicate member before it breaks off: still not JSON.
    for text in [
        "",
        "garbage",
        "{\"jsonrpc\":\"2.0\"",
        "{\"a\":}",
        "[1,",
        "{\"id\":1,\"id\":2,",
    ] {
        assert!(parse(text.as_bytes()).is_err(), "{text:?}");
    }
}

#[test]
fn batches() {
    let Parsed::Batch(items) =
        parse(br#"[{"jsonrpc":"2.0","id":1,"method":"a"},{"jsonrpc":"2.0","method":"b"},5]"#)
            .unwrap()
    else {
        panic!()
    };
    assert_eq!(items.len(), 3);
    assert!(matches!(items[0], Ok(Message::Request(_))));
    assert!(matches!(items[1], Ok(Message::Notification(_))));
    assert!(items[2].is_err());
    // An empty batch is one invalid request.
    assert!(matches!(parse(b" [ ] ").unwrap(), Parsed::Single(Err(_))));
}

#[test]
fn encodes_compactly_and_round_trips() {
    let cases = [
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"h\"i\n"}}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}"#,
        r#"{"jsonrpc":"2.0","id":"x","result":{}}"#,
        r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}"#,
        r#"{"jsonrpc":"2.0","id":3,"error":{"code":-32000,"message":"m","data":{"a":1}}}"#,
        r#"{"jsonrpc":"2.0","id":4,"error":{"code":-32000,"message":"m","data":null,"hint":"x"}}"#,
        // Numbers in parsed values re-encode exactly (float_roundtrip; found by fuzzing).
        r#"{"jsonrpc":"2.0","id":5,"error":{"code":1,"message":"m","data":[-1.2222222222222221e+61]}}"#,
    ];
    for text in cases {
        let Parsed::Single(Ok(message)) = parse(text.as_bytes()).unwrap() else {
            panic!("{text}")
        };
        assert_eq!(String::from_utf8(message.to_vec()).unwrap(), text);
    }
}

#[test]
fn unicode_and_escapes_in_method_survive() {
    let Message::Notification(n) = single(r#"{"jsonrpc":"2.0","method":"a\u00e9\"b"}"#).unwrap()
    else {
        panic!()
    };
    assert_eq!(n.method, "aé\"b");
}
