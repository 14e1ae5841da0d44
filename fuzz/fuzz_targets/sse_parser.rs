//! Fuzzes `mcp_jsonrpc::sse::SseParser`.
//!
//! The first six bytes of the input choose three cut points; the rest is the stream. Fed in
//! those pieces or in one piece, the parser must produce the same events and end in the same
//! state (last event id, retry), and no event may carry more data than the limit.

#![no_main]

use libfuzzer_sys::fuzz_target;
use mcp_jsonrpc::sse::{SseEvent, SseParser};

/// The per-event data limit: small, so that oversized events are common within libFuzzer's
/// default maximum input length (4096 bytes).
const LIMIT: usize = 256;

/// Runs a parser over `pieces`, returning its events and final state.
fn run(pieces: &[&[u8]]) -> (Vec<SseEvent>, Option<String>, Option<u64>) {
    let mut parser = SseParser::new(LIMIT);
    let mut events = Vec::new();
    for piece in pieces {
        parser.feed(piece, &mut |event| events.push(event));
    }
    parser.finish();
    let last_event_id = parser.last_event_id().map(str::to_owned);
    (events, last_event_id, parser.retry_ms())
}

fuzz_target!(|data: &[u8]| {
    if data.len() < 6 {
        return;
    }
    let (control, stream) = data.split_at(6);
    let mut cuts: Vec<usize> = control
        .chunks_exact(2)
        .map(|c| usize::from(u16::from_le_bytes([c[0], c[1]])) % (stream.len() + 1))
        .collect();
    cuts.sort_unstable();
    let mut pieces = Vec::with_capacity(4);
    let mut start = 0;
    for cut in cuts {
        pieces.push(&stream[start..cut]);
        start = cut;
    }
    pieces.push(&stream[start..]);

    let whole = run(&[stream]);
    let split = run(&pieces);
    for event in &whole.0 {
        if let SseEvent::Message { data, .. } = event {
            assert!(
                data.len() <= LIMIT,
                "an event carries {} bytes of data, over the limit of {LIMIT}",
                data.len()
            );
        }
    }
    assert_eq!(
        whole,
        split,
        "feeding in pieces at {:?} changed the result",
        pieces.iter().map(|p| p.len()).collect::<Vec<_>>()
    );
});
