//! Printing results: the output format, JSON, and escaping what servers send before it
//! reaches a terminal.

use std::io::IsTerminal;

use serde_json::Value;

use crate::args::OutputFormat;
pub(crate) use mcp_kit::terminal::sanitize;

/// Resolves the output format: `--json`, else `--output`, else a table when stdout is a
/// terminal and pretty JSON when it is not.
pub(crate) fn resolve_format(json: bool, output: Option<OutputFormat>) -> OutputFormat {
    if json {
        return OutputFormat::Json;
    }
    output.unwrap_or_else(|| {
        if std::io::stdout().is_terminal() {
            OutputFormat::Table
        } else {
            OutputFormat::Pretty
        }
    })
}

/// Writes results on stdout in the chosen format.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Printer {
    format: OutputFormat,
}

impl Printer {
    /// A printer for `format`.
    pub(crate) fn new(format: OutputFormat) -> Self {
        Printer { format }
    }

    /// The format.
    pub(crate) fn format(self) -> OutputFormat {
        self.format
    }

    /// Prints `value` as JSON, or in table mode the text `human` makes of it.
    pub(crate) fn print(
        self,
        value: &Value,
        human: impl FnOnce(&Value) -> String,
    ) -> anyhow::Result<()> {
        let text = match self.format {
            OutputFormat::Json => serde_json::to_string(value)?,
            OutputFormat::Pretty => serde_json::to_string_pretty(value)?,
            OutputFormat::Table => human(value),
        };
        write_stdout(&text)
    }
}

/// Writes `text` and a line break (if it lacks one) on stdout; a closed pipe is not an error.
pub(crate) fn write_stdout(text: &str) -> anyhow::Result<()> {
    Ok(mcp_kit::terminal::write_stdout(text)?)
}

/// A table as text, fitted to the width of the terminal stdout is (whole, when stdout is not
/// a terminal).
pub(crate) fn fitted(table: &mcp_kit::terminal::Table) -> String {
    let width = terminal_size::terminal_size_of(std::io::stdout()).map(|(w, _)| usize::from(w.0));
    table.render_within(width)
}

/// A string member of a JSON object, if present.
pub(crate) fn str_of<'a>(value: &'a Value, key: &str) -> Option<&'a str> {
    value.get(key).and_then(Value::as_str)
}

/// The approximate decoded size of base64 `data`, for display.
fn decoded_len(data: &str) -> usize {
    let padding = data.bytes().rev().take_while(|&b| b == b'=').count();
    (data.len() * 3 / 4).saturating_sub(padding)
}

/// Content blocks (tool results, prompt messages) as text: text as it is, other kinds as a
/// one-line summary; `--json` shows everything.
pub(crate) fn render_content(blocks: &[Value]) -> String {
    let mut out = String::new();
    for block in blocks {
        let kind = str_of(block, "type").unwrap_or("?");
        let text = match kind {
            "text" => str_of(block, "text").unwrap_or_default().to_owned(),
            "image" | "audio" => format!(
                "[{kind}: {}, {} bytes]",
                str_of(block, "mimeType").unwrap_or("unknown type"),
                decoded_len(str_of(block, "data").unwrap_or_default())
            ),
            "resource_link" => {
                let name = str_of(block, "name")
                    .map(|n| format!(" ({n})"))
                    .unwrap_or_default();
                format!(
                    "[resource link: {}{name}]",
                    str_of(block, "uri").unwrap_or("?")
                )
            }
            "resource" => block
                .get("resource")
                .map(render_resource_contents)
                .unwrap_or_else(|| "[resource]".to_owned()),
            _ => format!("[{kind}] {block}"),
        };
        out.push_str(&sanitize(&text));
        if !out.ends_with('\n') {
            out.push('\n');
        }
    }
    out
}

/// One `TextResourceContents` or `BlobResourceContents`: a header line, then the text.
pub(crate) fn render_resource_contents(contents: &Value) -> String {
    let uri = str_of(contents, "uri").unwrap_or("?");
    let mime = str_of(contents, "mimeType")
        .map(|m| format!(", {m}"))
        .unwrap_or_default();
    match (str_of(contents, "text"), str_of(contents, "blob")) {
        (Some(text), _) => format!("[resource: {uri}{mime}]\n{text}"),
        (None, Some(blob)) => format!(
            "[resource: {uri}{mime}, {} bytes of binary data; use --json to get them]",
            decoded_len(blob)
        ),
        (None, None) => format!("[resource: {uri}{mime}, no contents]"),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn escapes_what_could_drive_a_terminal() {
        assert_eq!(
            sanitize("a\u{1b}]0;x\u{7}b\n\tc"),
            "a\\u{1b}]0;x\\u{7}b\n\tc"
        );
        assert_eq!(sanitize("\u{202e}abc"), "\\u{202e}abc");
    }

    #[test]
    fn content_blocks() {
        let blocks = [
            json!({"type": "text", "text": "Echo: hi"}),
            json!({"type": "image", "mimeType": "image/png", "data": "aGVsbG8="}),
            json!({"type": "resource_link", "uri": "demo://x", "name": "x"}),
            json!({"type": "resource", "resource": {"uri": "demo://t", "text": "body"}}),
        ];
        assert_eq!(
            render_content(&blocks),
            "Echo: hi\n[image: image/png, 5 bytes]\n[resource link: demo://x (x)]\n\
             [resource: demo://t]\nbody\n"
        );
    }
}
