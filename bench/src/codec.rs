//! Part (b): parse + serialize throughput of one large response line.

use std::hint::black_box;
use std::time::{Duration, Instant};

use mcp_jsonrpc::Message;
use mcp_jsonrpc::message::{self, Parsed};
use rmcp::model::{JsonRpcMessage, ServerJsonRpcMessage, ServerResult};
use serde_json::Value;

/// One way of decoding a line and encoding it again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Codec {
    /// mcp-jsonrpc: `message::parse` → [`Message`] (result kept raw) → [`Message::to_vec`].
    OursRaw,
    /// mcp-jsonrpc, then the raw result deserialized into a [`Value`] and encoded back with
    /// `message::encode_result`: what a caller that wants a tree pays.
    OursTyped,
    /// rmcp: `serde_json::from_slice::<ServerJsonRpcMessage>` (as its stdio codec does) →
    /// `serde_json::to_vec`.
    Rmcp,
}

impl Codec {
    /// Decodes `line` and encodes it again, returning the encoded bytes.
    pub fn round_trip(self, line: &[u8]) -> Result<Vec<u8>, String> {
        match self {
            Codec::OursRaw => Ok(ours_message(line)?.to_vec()),
            Codec::OursTyped => {
                let Message::Response(response) = ours_message(line)? else {
                    return Err("not a response".into());
                };
                let (Some(id), Ok(raw)) = (response.id, response.outcome) else {
                    return Err("not a success response".into());
                };
                let value: Value = serde_json::from_str(raw.get()).map_err(|e| e.to_string())?;
                let mut out = Vec::with_capacity(line.len() + 64);
                message::encode_result(&mut out, &id, &value).map_err(|e| e.to_string())?;
                Ok(out)
            }
            Codec::Rmcp => {
                let message: ServerJsonRpcMessage =
                    serde_json::from_slice(line).map_err(|e| e.to_string())?;
                let JsonRpcMessage::Response(response) = &message else {
                    return Err("rmcp did not read a response".into());
                };
                if !matches!(response.result, ServerResult::CallToolResult(_)) {
                    return Err("rmcp did not read a CallToolResult".into());
                }
                serde_json::to_vec(&message).map_err(|e| e.to_string())
            }
        }
    }

    /// Checks that a round trip preserves the message (compared as JSON trees).
    pub fn verify(self, line: &[u8]) -> Result<(), String> {
        let out = self.round_trip(line)?;
        let before: Value = serde_json::from_slice(line).map_err(|e| e.to_string())?;
        let after: Value = serde_json::from_slice(&out).map_err(|e| e.to_string())?;
        if before == after {
            Ok(())
        } else {
            Err(format!("{self:?}: the round trip changed the message"))
        }
    }

    /// Round-trips `line` repeatedly for `warmup`, then for `measure`; returns the throughput
    /// in MB/s (10^6 bytes of input line per second).
    pub fn throughput(self, line: &[u8], warmup: Duration, measure: Duration) -> f64 {
        let run = |duration: Duration| {
            let start = Instant::now();
            let mut iterations = 0u64;
            while start.elapsed() < duration {
                let out = self
                    .round_trip(black_box(line))
                    .expect("verified beforehand");
                black_box(out);
                iterations += 1;
            }
            (iterations, start.elapsed())
        };
        run(warmup);
        let (iterations, elapsed) = run(measure);
        (iterations as f64 * line.len() as f64) / elapsed.as_secs_f64() / 1e6
    }
}

/// Parses `line` with mcp-jsonrpc, expecting one valid message.
fn ours_message(line: &[u8]) -> Result<Message, String> {
    match message::parse(line) {
        Ok(Parsed::Single(Ok(message))) => Ok(message),
        Ok(Parsed::Single(Err(invalid))) => Err(format!("not a valid message: {invalid}")),
        Ok(Parsed::Batch(_)) => Err("a batch, not a single message".into()),
        Err(e) => Err(e.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_codec_preserves_the_payload() {
        let line = crate::payload::call_tool_response_line();
        for codec in [Codec::OursRaw, Codec::OursTyped, Codec::Rmcp] {
            codec.verify(&line).unwrap();
        }
    }
}
