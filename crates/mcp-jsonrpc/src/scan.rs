//! Reads the top-level `id` of a JSON-RPC message too large to keep, as it streams past.

use crate::Id;

/// What could be learned about a message that was discarded for its size.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Oversized {
    /// The message's top-level `id`, when it could be read.
    pub id: Option<Id>,
    /// True when the message has a top-level `method` (a request or notification).
    pub is_request: bool,
}

/// Finds the top-level `id` of a JSON object fed to it in pieces, and whether the object is a
/// request (has `method`) or a response (has `result`/`error`), without buffering the object.
#[derive(Debug, Default)]
pub(crate) struct MemberScanner {
    state: ScanState,
    depth: u32,
    in_string: bool,
    escape: bool,
    key: Vec<u8>,
    key_escaped: bool,
    member: Member,
    capture: Vec<u8>,
    id: Option<Id>,
    has_method: bool,
    is_response: bool,
}

#[derive(Debug, Default, Clone, Copy, PartialEq)]
enum ScanState {
    #[default]
    Start,
    BeforeKey,
    InKey,
    BeforeColon,
    BeforeValue,
    InValue,
    AfterValue,
    Done,
}

#[derive(Debug, Default, Clone, Copy, PartialEq)]
enum Member {
    #[default]
    Other,
    Id,
    Method,
    Outcome,
}

const MAX_KEY: usize = 8;
const MAX_ID_BYTES: usize = 256;

impl MemberScanner {
    pub(crate) fn feed(&mut self, bytes: &[u8]) {
        for &b in bytes {
            if self.state == ScanState::Done {
                return;
            }
            self.step(b);
        }
    }

    pub(crate) fn finish(self) -> Oversized {
        Oversized {
            id: self.id,
            is_request: self.has_method,
        }
    }

    fn step(&mut self, b: u8) {
        use ScanState::*;
        match self.state {
            Start => match b {
                b'{' => self.state = BeforeKey,
                _ if b.is_ascii_whitespace() => {}
                _ => self.state = Done,
            },
            BeforeKey => match b {
                b'"' => {
                    self.key.clear();
                    self.key_escaped = false;
                    self.escape = false;
                    self.state = InKey;
                }
                _ if b.is_ascii_whitespace() => {}
                _ => self.state = Done,
            },
            InKey => {
                if self.escape {
                    self.escape = false;
                } else if b == b'\\' {
                    self.escape = true;
                    self.key_escaped = true;
                } else if b == b'"' {
                    self.state = BeforeColon;
                    return;
                }
                if self.key.len() <= MAX_KEY {
                    self.key.push(b);
                }
            }
            BeforeColon => match b {
                b':' => {
                    self.member = if self.key_escaped {
                        Member::Other
                    } else {
                        match self.key.as_slice() {
                            b"id" => Member::Id,
                            b"method" => Member::Method,
                            b"result" | b"error" => Member::Outcome,
                            _ => Member::Other,
                        }
                    };
                    self.state = BeforeValue;
                }
                _ if b.is_ascii_whitespace() => {}
                _ => self.state = Done,
            },
            BeforeValue => {
                if !b.is_ascii_whitespace() {
                    self.depth = 0;
                    self.in_string = false;
                    self.escape = false;
                    self.capture.clear();
                    self.state = InValue;
                    self.in_value(b);
                }
            }
            InValue => self.in_value(b),
            AfterValue => match b {
                b',' => self.state = BeforeKey,
                _ if b.is_ascii_whitespace() => {}
                _ => self.state = Done,
            },
            Done => {}
        }
    }

    fn in_value(&mut self, b: u8) {
        if self.in_string {
            self.capture_byte(b);
            if self.escape {
                self.escape = false;
            } else if b == b'\\' {
                self.escape = true;
            } else if b == b'"' {
                self.in_string = false;
                if self.depth == 0 {
                    self.end_value(ScanState::AfterValue);
                }
            }
            return;
        }
        match b {
            b'"' => {
                self.capture_byte(b);
                self.in_string = true;
            }
            b'{' | b'[' => {
                self.capture_byte(b);
                self.depth += 1;
            }
            b'}' | b']' if self.depth == 0 => self.end_value(ScanState::Done),
            b'}' | b']' => {
                self.capture_byte(b);
                self.depth -= 1;
                if self.depth == 0 {
                    self.end_value(ScanState::AfterValue);
                }
            }
            b',' if self.depth == 0 => self.end_value(ScanState::BeforeKey),
            _ => self.capture_byte(b),
        }
    }

    fn capture_byte(&mut self, b: u8) {
        if self.member == Member::Id && self.capture.len() <= MAX_ID_BYTES {
            self.capture.push(b);
        }
    }

    fn end_value(&mut self, next: ScanState) {
        match self.member {
            Member::Id if self.capture.len() <= MAX_ID_BYTES => {
                self.id = serde_json::from_slice(&self.capture).ok();
            }
            Member::Method => self.has_method = true,
            Member::Outcome => self.is_response = true,
            _ => {}
        }
        self.state = next;
        if self.id.is_some() && (self.has_method || self.is_response) {
            self.state = ScanState::Done;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scan(text: &str, piece: usize) -> Oversized {
        let mut s = MemberScanner::default();
        for chunk in text.as_bytes().chunks(piece) {
            s.feed(chunk);
        }
        s.finish()
    }

    #[test]
    fn scanner_finds_the_top_level_id_anywhere() {
        let cases = [
            (
                r#"{"jsonrpc":"2.0","id":42,"result":{"id":7}}"#,
                Some(Id::Number(42)),
                false,
            ),
            (
                r#"{"result":{"id":7,"s":"\"}{,"},"jsonrpc":"2.0","id":"x\"y"}"#,
                Some(Id::String("x\"y".into())),
                false,
            ),
            (
                r#" { "method" : "sampling/createMessage" , "id" : -3 , "params":[1,{"a":[]}]}"#,
                Some(Id::Number(-3)),
                true,
            ),
            (
                r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"id":1}}"#,
                None,
                true,
            ),
            (r#"{"i\u0064":5,"result":1}"#, None, false),
            (r#"[{"id":1}]"#, None, false),
        ];
        for (text, id, is_request) in cases {
            for piece in [1, 3, 1000] {
                let got = scan(text, piece);
                assert_eq!(got.id, id, "{text} in pieces of {piece}");
                assert_eq!(got.is_request, is_request, "{text}");
            }
        }
    }
}
