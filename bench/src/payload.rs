//! The large response of the parse/serialize benchmark: a JSON-RPC response line whose result
//! is a realistic `CallToolResult` of about 1 MiB.
//!
//! It models a code-search tool: `structuredContent` holds the hits as objects (strings,
//! integers, floats, booleans, arrays), and `content` holds one text block per hit with the
//! human-readable form, as MCP asks tools with structured output to provide. The text has
//! quotes, newlines, tabs and non-ASCII characters, so string escaping is exercised.

use serde::Serialize;

/// The size the payload line is scaled to, in bytes.
pub const TARGET_BYTES: usize = 1024 * 1024;

/// The JSON-RPC response envelope.
#[derive(Serialize)]
struct Envelope<'a> {
    jsonrpc: &'static str,
    id: u64,
    result: &'a ToolResult,
}

/// A `CallToolResult`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ToolResult {
    content: Vec<TextBlock>,
    structured_content: SearchResults,
    is_error: bool,
}

/// A text content block.
#[derive(Serialize)]
struct TextBlock {
    #[serde(rename = "type")]
    kind: &'static str,
    text: String,
}

/// The structured output of the modelled search tool.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SearchResults {
    query: &'static str,
    total: usize,
    truncated: bool,
    hits: Vec<Hit>,
}

/// One search hit.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Hit {
    id: usize,
    path: String,
    line: usize,
    column: usize,
    score: f64,
    exact: bool,
    language: &'static str,
    snippet: String,
    tags: Vec<&'static str>,
}

/// Languages the hits cycle through.
const LANGUAGES: [&str; 4] = ["rust", "typescript", "python", "go"];
/// Tags the hits take a varying slice of.
const TAGS: [&str; 6] = [
    "handler",
    "async",
    "public",
    "test",
    "deprecated",
    "generated",
];

/// The `i`-th search hit.
fn hit(i: usize) -> Hit {
    let snippet = format!(
        "pub async fn handle_request_{i}(ctx: &Context, req: Request) -> Result<Response, Error> {{\n\
         \tlet span = tracing::info_span!(\"request\", id = {i}, path = \"/api/v1/items/{i}\");\n\
         \t// Übergabe an den Dienst — réessayer après échec: \"{q}\"\n\
         \tctx.service.call(req).instrument(span).await\n}}",
        q = i % 97
    );
    Hit {
        id: i,
        path: format!(
            "services/gateway/src/handlers/module_{:03}/item_{i}.rs",
            i % 200
        ),
        line: 17 + (i * 37) % 2_000,
        column: 1 + i % 80,
        // Multiples of 1/64 print exactly, so every implementation can round-trip them.
        score: 1.0 - (i % 64) as f64 / 64.0,
        exact: i.is_multiple_of(3),
        language: LANGUAGES[i % LANGUAGES.len()],
        snippet,
        tags: TAGS.iter().copied().skip(i % 4).take(2 + i % 3).collect(),
    }
}

/// The response line with `hits` hits.
fn render(hits: usize) -> Vec<u8> {
    let hits: Vec<Hit> = (0..hits).map(hit).collect();
    let content = hits
        .iter()
        .map(|h| TextBlock {
            kind: "text",
            text: format!("{}:{}:{}: {}", h.path, h.line, h.column, h.snippet),
        })
        .collect();
    let result = ToolResult {
        content,
        structured_content: SearchResults {
            query: "handle_request",
            total: hits.len(),
            truncated: false,
            hits,
        },
        is_error: false,
    };
    serde_json::to_vec(&Envelope {
        jsonrpc: "2.0",
        id: 42,
        result: &result,
    })
    .expect("serializing plain structs cannot fail")
}

/// The response line (no trailing newline): the fewest hits that reach [`TARGET_BYTES`].
pub fn call_tool_response_line() -> Vec<u8> {
    // Hits grow slowly with their index, so the length is monotonic in the count.
    let (mut low, mut high) = (1, 1);
    while render(high).len() < TARGET_BYTES {
        low = high;
        high *= 2;
    }
    while low < high {
        let mid = (low + high) / 2;
        if render(mid).len() < TARGET_BYTES {
            low = mid + 1;
        } else {
            high = mid;
        }
    }
    render(high)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn is_about_one_mebibyte_of_valid_json() {
        let line = call_tool_response_line();
        assert!(line.len() >= TARGET_BYTES && line.len() < TARGET_BYTES + 2048);
        let value: serde_json::Value = serde_json::from_slice(&line).unwrap();
        assert_eq!(value["result"]["content"][0]["type"], "text");
        assert!(!line.contains(&b'\n'));
    }
}
