//! Fuzzes `mcp_jsonrpc::message::parse`.
//!
//! Whatever the input, parsing must not panic. Every message it accepts (alone or inside a
//! batch) must survive `Message::to_vec`: the encoding parses again, as a single valid message,
//! to an identical message, and encoding that one gives the same bytes again. (This target
//! found that an error's `data` drifted by a few units in the last place on every round trip;
//! `mcp-jsonrpc` now parses numbers with serde_json's `float_roundtrip`, and the inputs that
//! showed it are kept in `seeds/message_parser/regression-*`.)

#![no_main]

use libfuzzer_sys::fuzz_target;
use mcp_jsonrpc::message::{Parsed, parse};
use mcp_jsonrpc::Message;

fuzz_target!(|data: &[u8]| {
    let Ok(parsed) = parse(data) else {
        return;
    };
    let items = match parsed {
        Parsed::Single(item) => vec![item],
        Parsed::Batch(items) => {
            assert!(!items.is_empty(), "a batch is never empty");
            items
        }
    };
    for message in items.into_iter().flatten() {
        let encoded = message.to_vec();
        let again = match parse(&encoded) {
            Ok(Parsed::Single(Ok(again))) => again,
            other => panic!(
                "the encoding of {message:?} does not parse back to one valid message: \
                 {other:?}\nencoded: {}",
                String::from_utf8_lossy(&encoded)
            ),
        };
        assert_identical(&message, &again, &encoded);
        assert_eq!(
            again.to_vec(),
            encoded,
            "encoding is not stable across a round trip"
        );
    }
});

/// Panics unless `a` and `b` carry the same message. Parameters and results are compared as
/// the raw JSON text the parser kept, since encoding copies them verbatim.
fn assert_identical(a: &Message, b: &Message, encoded: &[u8]) {
    let same = match (a, b) {
        (Message::Request(x), Message::Request(y)) => {
            x.id == y.id
                && x.method == y.method
                && x.params.as_deref().map(|p| p.get()) == y.params.as_deref().map(|p| p.get())
        }
        (Message::Notification(x), Message::Notification(y)) => {
            x.method == y.method
                && x.params.as_deref().map(|p| p.get()) == y.params.as_deref().map(|p| p.get())
        }
        (Message::Response(x), Message::Response(y)) => {
            x.id == y.id
                && match (&x.outcome, &y.outcome) {
                    (Ok(r), Ok(s)) => r.get() == s.get(),
                    (Err(e), Err(f)) => e == f,
                    _ => false,
                }
        }
        _ => false,
    };
    assert!(
        same,
        "round trip changed the message:\nbefore: {a:?}\nafter:  {b:?}\nencoded: {}",
        String::from_utf8_lossy(encoded)
    );
}
