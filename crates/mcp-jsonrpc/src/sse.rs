//! An incremental, size-limited parser of `text/event-stream` bodies.
//!
//! It follows the WHATWG event-stream interpretation: lines end with CRLF, LF or CR; a line
//! starting with `:` is a comment; `field: value` loses one leading space of the value; the
//! `data` lines of one event are joined with `\n`; an event is dispatched at a blank line and
//! only when it has data; `id` (without NUL) becomes the last event id when its event ends at
//! the blank line, even for an event without data (an event cut off before its blank line was
//! never received, so its id does not count), and an empty `id` clears it; `retry` takes ASCII
//! digits only. The accumulated data of one event is capped: beyond the cap, bytes are not
//! kept but scanned for the message's top-level `id`.

use crate::scan::MemberScanner;
pub use crate::scan::Oversized;

/// A field value other than `data` longer than this is ignored.
const MAX_FIELD: usize = 1024;

/// One dispatched event.
#[derive(Debug, PartialEq)]
pub enum SseEvent {
    /// An event with its data (the `data` lines joined by `\n`).
    Message {
        /// The `event` field, if any.
        event: Option<String>,
        /// The joined data.
        data: Vec<u8>,
    },
    /// An event whose data exceeded the cap and was discarded.
    Oversized(Oversized),
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Field {
    Data,
    Id,
    Event,
    Retry,
    Ignored,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum LineState {
    /// At the first byte of a line.
    Start,
    /// Reading the field name.
    Name,
    /// Just after the colon: one space may be skipped.
    AfterColon(Field),
    /// Reading a field value.
    Value(Field),
    /// In a comment line.
    Comment,
}

/// The parser state. Feed it bytes as they arrive.
#[derive(Debug)]
pub struct SseParser {
    limit: usize,
    state: LineState,
    /// The previous byte was CR: a following LF belongs to the same line end.
    after_cr: bool,
    name: Vec<u8>,
    value: Vec<u8>,
    data: Vec<u8>,
    has_data: bool,
    oversized: Option<MemberScanner>,
    event: Option<String>,
    /// The `id` field of the event being read; it counts once the event is complete.
    event_id: Option<String>,
    last_event_id: Option<String>,
    retry_ms: Option<u64>,
}

impl SseParser {
    /// A parser that keeps at most `limit` bytes of one event's data.
    pub fn new(limit: usize) -> Self {
        Self {
            limit,
            state: LineState::Start,
            after_cr: false,
            name: Vec::new(),
            value: Vec::new(),
            data: Vec::new(),
            has_data: false,
            oversized: None,
            event: None,
            event_id: None,
            last_event_id: None,
            retry_ms: None,
        }
    }

    /// The id of the last complete event that set one (`id:` field), for `Last-Event-ID`;
    /// `None` when there is none or the stream cleared it with an empty `id`.
    pub fn last_event_id(&self) -> Option<&str> {
        self.last_event_id.as_deref()
    }

    /// The reconnection delay the stream asked for (`retry:` field), in milliseconds.
    pub fn retry_ms(&self) -> Option<u64> {
        self.retry_ms
    }

    /// Parses `chunk`, calling `emit` for every complete event.
    pub fn feed(&mut self, chunk: &[u8], emit: &mut impl FnMut(SseEvent)) {
        let mut i = 0;
        while i < chunk.len() {
            let b = chunk[i];
            if self.after_cr {
                self.after_cr = false;
                if b == b'\n' {
                    i += 1;
                    continue;
                }
            }
            if b == b'\r' || b == b'\n' {
                self.after_cr = b == b'\r';
                self.end_line(emit);
                i += 1;
                continue;
            }
            match self.state {
                LineState::Start => {
                    if b == b':' {
                        self.state = LineState::Comment;
                    } else {
                        self.name.clear();
                        self.name.push(b);
                        self.state = LineState::Name;
                    }
                    i += 1;
                }
                LineState::Name => {
                    if b == b':' {
                        self.state = LineState::AfterColon(self.field());
                    } else if self.name.len() < 16 {
                        // Longer names are none of ours: keeping 16 bytes tells them apart.
                        self.name.push(b);
                    }
                    i += 1;
                }
                LineState::AfterColon(field) => {
                    self.begin_value(field);
                    self.state = LineState::Value(field);
                    if b == b' ' {
                        i += 1;
                    }
                }
                LineState::Value(field) => {
                    // Take the run of bytes up to the next line end at once.
                    let rest = &chunk[i..];
                    let run = memchr::memchr2(b'\r', b'\n', rest).unwrap_or(rest.len());
                    self.push_value(field, &rest[..run]);
                    i += run;
                }
                LineState::Comment => {
                    let rest = &chunk[i..];
                    i += memchr::memchr2(b'\r', b'\n', rest).unwrap_or(rest.len());
                }
            }
        }
    }

    /// Ends the stream: an event without its terminating blank line is discarded, as the
    /// standard says.
    pub fn finish(&mut self) {
        self.reset_event();
        self.state = LineState::Start;
    }

    /// The stream broke off inside an event: forgets it as [`SseParser::finish`] does, and
    /// when it was an event over the limit being discarded, returns what was read of it (its
    /// id, when it came early), so the failure can be reported as the size limit it is.
    pub fn abandon(&mut self) -> Option<Oversized> {
        let oversized = self.oversized.take().map(MemberScanner::finish);
        self.finish();
        oversized
    }

    fn field(&self) -> Field {
        match self.name.as_slice() {
            b"data" => Field::Data,
            b"id" => Field::Id,
            b"event" => Field::Event,
            b"retry" => Field::Retry,
            _ => Field::Ignored,
        }
    }

    fn begin_value(&mut self, field: Field) {
        self.value.clear();
        if field == Field::Data {
            if self.has_data {
                self.push_data(b"\n");
            }
            self.has_data = true;
        }
    }

    fn push_value(&mut self, field: Field, bytes: &[u8]) {
        match field {
            Field::Data => self.push_data(bytes),
            Field::Ignored => {}
            _ => {
                if self.value.len() + bytes.len() <= MAX_FIELD {
                    self.value.extend_from_slice(bytes);
                } else {
                    self.value.truncate(0);
                    self.value.extend_from_slice(&[0]); // marks the value as unusable
                }
            }
        }
    }

    fn push_data(&mut self, bytes: &[u8]) {
        if let Some(scanner) = &mut self.oversized {
            scanner.feed(bytes);
        } else if self.data.len() + bytes.len() > self.limit {
            let mut scanner = MemberScanner::default();
            scanner.feed(&self.data);
            scanner.feed(bytes);
            self.oversized = Some(scanner);
            self.data = Vec::new();
        } else {
            self.data.extend_from_slice(bytes);
        }
    }

    fn end_line(&mut self, emit: &mut impl FnMut(SseEvent)) {
        match self.state {
            LineState::Start => self.dispatch(emit),
            LineState::Name => {
                // A line without a colon is a field with an empty value.
                let field = self.field();
                self.begin_value(field);
                self.end_field(field);
            }
            LineState::AfterColon(field) => {
                self.begin_value(field);
                self.end_field(field);
            }
            LineState::Value(field) => self.end_field(field),
            LineState::Comment => {}
        }
        self.state = LineState::Start;
    }

    fn end_field(&mut self, field: Field) {
        let value = std::mem::take(&mut self.value);
        match field {
            Field::Id if !value.contains(&0) => {
                self.event_id = Some(String::from_utf8_lossy(&value).into_owned());
            }
            Field::Event if !value.contains(&0) => {
                self.event = Some(String::from_utf8_lossy(&value).into_owned());
            }
            Field::Retry if !value.is_empty() && value.iter().all(u8::is_ascii_digit) => {
                if let Ok(ms) = std::str::from_utf8(&value).unwrap_or("").parse() {
                    self.retry_ms = Some(ms);
                }
            }
            _ => {}
        }
        self.value = value;
        self.value.clear();
    }

    fn dispatch(&mut self, emit: &mut impl FnMut(SseEvent)) {
        if let Some(id) = self.event_id.take() {
            self.last_event_id = (!id.is_empty()).then_some(id);
        }
        if let Some(scanner) = self.oversized.take() {
            emit(SseEvent::Oversized(scanner.finish()));
        } else if self.has_data {
            emit(SseEvent::Message {
                event: self.event.take(),
                data: std::mem::take(&mut self.data),
            });
        }
        self.reset_event();
    }

    fn reset_event(&mut self) {
        self.data.clear();
        self.has_data = false;
        self.oversized = None;
        self.event = None;
        self.event_id = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Id;

    fn parse_in(input: &[u8], piece: usize, limit: usize) -> (Vec<SseEvent>, SseParser) {
        let mut parser = SseParser::new(limit);
        let mut out = Vec::new();
        for chunk in input.chunks(piece) {
            parser.feed(chunk, &mut |e| out.push(e));
        }
        parser.finish();
        (out, parser)
    }

    fn data(e: &SseEvent) -> &str {
        match e {
            SseEvent::Message { data, .. } => std::str::from_utf8(data).unwrap(),
            SseEvent::Oversized(_) => panic!("oversized"),
        }
    }

    #[test]
    fn standard_examples() {
        let input = b": comment\n\ndata: first\ndata:  second\n\nid: 7\nretry: 250\nevent: message\ndata\n\ndata:x\r\ndata:y\r\rdata:z\r\n\r\ndata: tail-without-blank-line";
        for piece in [1, 2, 5, 1000] {
            let (events, parser) = parse_in(input, piece, 1024);
            assert_eq!(events.len(), 4, "piece {piece}");
            assert_eq!(data(&events[0]), "first\n second");
            assert_eq!(data(&events[1]), "");
            assert_eq!(data(&events[2]), "x\ny");
            assert_eq!(data(&events[3]), "z");
            assert!(
                matches!(&events[1], SseEvent::Message { event: Some(e), .. } if e == "message")
            );
            assert_eq!(parser.last_event_id(), Some("7"));
            assert_eq!(parser.retry_ms(), Some(250));
        }
    }

    #[test]
    fn an_id_without_data_still_counts_and_bad_retry_is_ignored() {
        let (events, parser) = parse_in(b"id: 42\ndata:\n\nid: a\0b\nretry: 1x\n\n", 3, 64);
        assert_eq!(events.len(), 1);
        assert_eq!(data(&events[0]), "");
        assert_eq!(parser.last_event_id(), Some("42"));
        assert_eq!(parser.retry_ms(), None);
    }

    #[test]
    fn an_id_counts_only_once_its_event_is_complete() {
        let mut parser = SseParser::new(64);
        let mut events = Vec::new();
        parser.feed(b"id: 1\ndata: a\n\nid: 2\ndata: b", &mut |e| events.push(e));
        assert_eq!(events.len(), 1);
        assert_eq!(parser.last_event_id(), Some("1"));
        // The stream broke: the second event was never received.
        parser.finish();
        assert_eq!(parser.last_event_id(), Some("1"));
        // An event without an id keeps the last one; an empty id clears it.
        parser.feed(b"data: c\n\n", &mut |e| events.push(e));
        assert_eq!(parser.last_event_id(), Some("1"));
        parser.feed(b"id: 3\n\n", &mut |e| events.push(e));
        assert_eq!(parser.last_event_id(), Some("3"));
        parser.feed(b"id\ndata: d\n\n", &mut |e| events.push(e));
        assert_eq!(parser.last_event_id(), None);
        assert_eq!(events.len(), 3);
    }

    #[test]
    fn oversized_event_is_discarded_and_attributed() {
        let mut input = b"data: {\"jsonrpc\":\"2.0\",\"id\":5,\"result\":\"".to_vec();
        input.extend(std::iter::repeat_n(b'a', 10_000));
        input.extend_from_slice(b"\"}\n\ndata: {\"small\":1}\n\n");
        let (events, _) = parse_in(&input, 333, 100);
        assert_eq!(events.len(), 2);
        assert_eq!(
            events[0],
            SseEvent::Oversized(Oversized {
                id: Some(Id::Number(5)),
                is_request: false
            })
        );
        assert_eq!(data(&events[1]), "{\"small\":1}");
    }
}
