//! A minimal MCP server over stdio, the one peer both clients talk to.
//!
//! It answers `initialize` (echoing the client's `protocolVersion`, announcing
//! `{"tools":{}}`), ignores notifications, answers `tools/call` with the `message` argument as
//! one text content block, and anything else with `{}`. It is written to cost the client side
//! as little as possible: lines come from a buffered reader, requests are parsed with
//! borrowing `serde_json` types, answers go to a buffered writer that is flushed only when no
//! more input is already buffered (so a pipelined burst is answered in few writes).

use std::borrow::Cow;
use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, Write};
use std::os::fd::AsFd;

use serde::Deserialize;
use serde_json::value::RawValue;

/// The fields of an incoming message the echo server looks at.
#[derive(Deserialize)]
struct Incoming<'a> {
    /// Absent (or `null`) for a notification.
    #[serde(borrow)]
    id: Option<&'a RawValue>,
    #[serde(borrow)]
    method: Option<Cow<'a, str>>,
    #[serde(borrow)]
    params: Option<&'a RawValue>,
}

/// `initialize` parameters: only the version is echoed.
#[derive(Deserialize)]
struct InitializeParams<'a> {
    #[serde(rename = "protocolVersion", borrow)]
    protocol_version: Cow<'a, str>,
}

/// `tools/call` parameters: only `arguments.message` is used.
#[derive(Deserialize)]
struct CallParams<'a> {
    #[serde(borrow)]
    arguments: Option<EchoArguments<'a>>,
}

/// The arguments of the `echo` tool.
#[derive(Deserialize)]
struct EchoArguments<'a> {
    #[serde(borrow)]
    message: Option<Cow<'a, str>>,
}

/// Serves stdin/stdout until end of input.
///
/// Both standard streams are duplicated into plain files so that exactly one buffer sits on
/// each side (the standard library's own stdin buffer would hide whether more input is
/// already waiting).
pub fn run_stdio() -> io::Result<()> {
    let input = File::from(io::stdin().as_fd().try_clone_to_owned()?);
    let output = File::from(io::stdout().as_fd().try_clone_to_owned()?);
    serve(
        BufReader::with_capacity(64 * 1024, input),
        BufWriter::with_capacity(64 * 1024, output),
    )
}

/// Serves newline-delimited JSON-RPC from `input` to `output` until end of input.
pub fn serve<W: Write>(mut input: BufReader<File>, mut output: BufWriter<W>) -> io::Result<()> {
    let mut line = Vec::with_capacity(1024);
    loop {
        line.clear();
        if input.read_until(b'\n', &mut line)? == 0 {
            break;
        }
        answer(&line, &mut output)?;
        if input.buffer().is_empty() {
            output.flush()?;
        }
    }
    output.flush()
}

/// Writes the answer to one line, if it needs one. Lines that are not JSON-RPC requests
/// (notifications, responses, garbage) are skipped.
fn answer<W: Write>(line: &[u8], out: &mut W) -> io::Result<()> {
    let Ok(message) = serde_json::from_slice::<Incoming<'_>>(line) else {
        return Ok(());
    };
    let (Some(id), Some(method)) = (message.id, message.method) else {
        return Ok(());
    };
    out.write_all(b"{\"jsonrpc\":\"2.0\",\"id\":")?;
    out.write_all(id.get().as_bytes())?;
    out.write_all(b",\"result\":")?;
    let params = message.params.map_or("null", RawValue::get);
    match method.as_ref() {
        "initialize" => {
            let version = serde_json::from_str::<InitializeParams<'_>>(params)
                .map(|p| p.protocol_version)
                .unwrap_or(Cow::Borrowed("2025-11-25"));
            out.write_all(b"{\"protocolVersion\":")?;
            serde_json::to_writer(&mut *out, &version)?;
            out.write_all(
                b",\"capabilities\":{\"tools\":{}},\"serverInfo\":{\"name\":\"echo-child\",\"version\":\"0.0.0\"}}",
            )?;
        }
        "tools/call" => {
            let message = serde_json::from_str::<CallParams<'_>>(params)
                .ok()
                .and_then(|p| p.arguments)
                .and_then(|a| a.message)
                .unwrap_or_default();
            out.write_all(b"{\"content\":[{\"type\":\"text\",\"text\":")?;
            serde_json::to_writer(&mut *out, &message)?;
            out.write_all(b"}]}")?;
        }
        _ => out.write_all(b"{}")?,
    }
    out.write_all(b"}\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer_to(line: &str) -> String {
        let mut out = Vec::new();
        answer(line.as_bytes(), &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn answers_the_three_kinds_and_skips_notifications() {
        assert_eq!(
            answer_to(
                r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{}}}"#
            ),
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{\"tools\":{}},\"serverInfo\":{\"name\":\"echo-child\",\"version\":\"0.0.0\"}}}\n"
        );
        assert_eq!(
            answer_to(
                r#"{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"echo","arguments":{"message":"hi \"x\""}}}"#
            ),
            "{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"hi \\\"x\\\"\"}]}}\n"
        );
        assert_eq!(
            answer_to(r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#),
            "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}\n"
        );
        assert_eq!(
            answer_to(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#),
            ""
        );
        assert_eq!(answer_to("not json"), "");
    }
}
