//! Your own streamable HTTP connection (network options, limits) under `mcp-kit`'s session
//! handling: build an [`mcp_jsonrpc::Peer`] yourself, then make it a session with
//! [`Manager::open_peer`].
//!
//! ```text
//! cargo run -p mcp-kit --example streamable_http_custom_options -- [flags] <sse_url> [http_url]
//!
//! flags:
//!   --connect-timeout-ms MS   connecting and the GET stream's response headers (default 10000)
//!   --request-timeout-ms MS   each POST exchange (default 30000)
//!   --follow-redirects        follow HTTP redirects (default: refuse them)
//!   --header NAME:VALUE       an extra header on every request (repeatable)
//!   --max-message-bytes N     the largest message accepted from the server (default 16 MiB)
//!   --requests-capacity N     queued server→client requests before `-32000 client overloaded`
//!                             (default 64)
//! ```
//!
//! `http_url` defaults to `sse_url` (one endpoint for both, as most servers have).
//!
//! Security: a connection you build yourself is not checked by the trust policy
//! ([`TrustMode`](mcp_kit::TrustMode), [`UntrustedStreamableHttpPolicy`](mcp_kit::UntrustedStreamableHttpPolicy)):
//! `open_peer` assumes you trust the URL and headers. Use it with URLs you chose, never
//! with ones read from an untrusted `mcp.json`.

mod common;

use std::time::Duration;

use mcp_jsonrpc::{Limits, Peer, SpawnOptions, StreamableHttpOptions};
use mcp_kit::Manager;

const USAGE: &str = "usage: streamable_http_custom_options [--connect-timeout-ms MS] \
                     [--request-timeout-ms MS] [--follow-redirects] [--header NAME:VALUE]... \
                     [--max-message-bytes N] [--requests-capacity N] <sse_url> [http_url]";

fn number(flag: &str, value: Option<String>) -> anyhow::Result<u64> {
    let value = value.ok_or_else(|| anyhow::anyhow!("{flag} needs a value\n{USAGE}"))?;
    value
        .parse()
        .map_err(|_| anyhow::anyhow!("{flag}: `{value}` is not a number"))
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let mut http = StreamableHttpOptions {
        request_timeout: Some(Duration::from_secs(30)),
        ..Default::default()
    };
    let mut limits = Limits::default();
    let mut urls = Vec::new();

    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--connect-timeout-ms" => {
                http.connect_timeout = Some(Duration::from_millis(number(&arg, args.next())?));
            }
            "--request-timeout-ms" => {
                http.request_timeout = Some(Duration::from_millis(number(&arg, args.next())?));
            }
            "--follow-redirects" => http.follow_redirects = true,
            "--header" => {
                let header = args.next().unwrap_or_default();
                let Some((name, value)) = header.split_once(':') else {
                    anyhow::bail!("--header needs NAME:VALUE\n{USAGE}");
                };
                http.headers
                    .insert(name.trim().to_owned(), value.trim().to_owned());
            }
            "--max-message-bytes" => {
                limits.max_message_bytes = usize::try_from(number(&arg, args.next())?)?;
            }
            "--requests-capacity" => {
                limits.requests_capacity = usize::try_from(number(&arg, args.next())?)?;
            }
            flag if flag.starts_with('-') => anyhow::bail!("unknown flag {flag}\n{USAGE}"),
            url => urls.push(url.to_owned()),
        }
    }
    let (sse_url, http_url) = match urls.as_slice() {
        [sse] => (sse.clone(), sse.clone()),
        [sse, post] => (sse.clone(), post.clone()),
        _ => anyhow::bail!("{USAGE}"),
    };

    // The JSON-RPC connection, with our options. `SpawnOptions` carries the limits (and a
    // stdout log if wanted) for every transport, not only for spawned processes.
    let client = Peer::connect_streamable_http_split_with_options(
        &sse_url,
        &http_url,
        http,
        SpawnOptions {
            limits,
            ..Default::default()
        },
    )
    .await?;

    // The manager performs the handshake on it and answers the server's requests as usual.
    let manager = Manager::default()
        .with_client_info("streamable-http-custom-options", "0.1.0")
        .with_timeout(Duration::from_secs(30));
    let session = manager.open_peer("remote", client).await?;

    let tools = session
        .request_typed::<mcp_kit::mcp::ListToolsRequest>(None)
        .await?;
    common::print_tools(&tools.tools);
    if tools.next_cursor.is_some() {
        println!("(more tools on the next page)");
    }
    Ok(())
}
