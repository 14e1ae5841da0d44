//! Memory stays bounded against a hostile peer: a 64 MiB line and a flood of server→client
//! requests from a peer that never reads our answers.
//!
//! One test in its own binary, so that the process's peak RSS belongs to it alone.

use std::time::Duration;

use mcp_jsonrpc::{Error, Limits, Peer, SpawnOptions};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::UnixStream;
use tokio::time::timeout;

const MIB: u64 = 1024 * 1024;

/// A field of /proc/self/status, in bytes.
fn status_bytes(field: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("procfs");
    let line = status
        .lines()
        .find(|l| l.starts_with(field))
        .unwrap_or_else(|| panic!("{field} in /proc/self/status"));
    let kib: u64 = line
        .split_whitespace()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .expect("a number of kB");
    kib * 1024
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn memory_stays_bounded_against_hostile_peers() {
    let (ours, theirs) = UnixStream::pair().unwrap();
    let (read, write) = ours.into_split();
    let mut client = Peer::connect_io_with_options(
        read,
        write,
        SpawnOptions {
            limits: Limits::default(), // 16 MiB messages, 64 queued requests
            ..Default::default()
        },
    )
    .await
    .unwrap();
    let mut notifications = client.take_notifications().unwrap();
    let _requests = client.take_requests().unwrap(); // taken, never consumed
    let (peer_read, mut peer_write) = theirs.into_split();
    let mut peer_lines = BufReader::new(peer_read).lines();
    let baseline = status_bytes("VmHWM:");

    // 1. A 64 MiB response line, four times the limit, streamed in 1 MiB pieces.
    let handle = client.handle();
    let call = tokio::spawn(async move { handle.request("resources/read", None).await });
    let request: Value =
        serde_json::from_str(&peer_lines.next_line().await.unwrap().unwrap()).unwrap();
    let chunk = vec![b'A'; MIB as usize];
    peer_write
        .write_all(
            format!(
                "{{\"jsonrpc\":\"2.0\",\"id\":{},\"result\":{{\"blob\":\"",
                request["id"]
            )
            .as_bytes(),
        )
        .await
        .unwrap();
    for _ in 0..64 {
        peer_write.write_all(&chunk).await.unwrap();
    }
    peer_write.write_all(b"\"}}\n").await.unwrap();
    let outcome = timeout(Duration::from_secs(20), call)
        .await
        .unwrap()
        .unwrap();
    assert!(
        matches!(outcome, Err(Error::MessageTooLarge { .. })),
        "{outcome:?}"
    );
    let after_line = status_bytes("VmHWM:");
    eprintln!(
        "peak RSS grew by {:.1} MiB for a 64 MiB line (limit 16 MiB)",
        (after_line - baseline) as f64 / MIB as f64
    );
    assert!(
        after_line - baseline < 40 * MIB,
        "a 64 MiB line must not be buffered whole: peak grew by {} MiB",
        (after_line - baseline) / MIB
    );

    // 2. A flood of 200,000 server→client requests from a peer that never reads our answers:
    // the request queue holds 64, the rest are refused; the refusals that cannot be written
    // are dropped rather than queued without bound.
    let before_flood = status_bytes("VmRSS:");
    let mut batch = Vec::with_capacity(8 * MIB as usize);
    for id in 0..200_000 {
        batch.extend_from_slice(
            format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"sampling/createMessage\",\"params\":{{}}}}\n")
                .as_bytes(),
        );
        if batch.len() > MIB as usize {
            peer_write.write_all(&batch).await.unwrap();
            batch.clear();
        }
    }
    peer_write.write_all(&batch).await.unwrap();
    drop(batch);
    // Lines are processed in order: this notification arrives after every request.
    peer_write
        .write_all(b"{\"jsonrpc\":\"2.0\",\"method\":\"flood/done\"}\n")
        .await
        .unwrap();
    let done = timeout(Duration::from_secs(60), notifications.recv())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(done.method, "flood/done");
    let stats = client.stats();
    assert_eq!(stats.requests_overloaded, 200_000 - 64);
    assert!(
        stats.replies_dropped > 0,
        "the unread peer made us drop refusals: {stats:?}"
    );
    let after_flood = status_bytes("VmRSS:");
    eprintln!(
        "RSS grew by {:.1} MiB during the flood ({} refusals dropped)",
        after_flood.saturating_sub(before_flood) as f64 / MIB as f64,
        stats.replies_dropped
    );
    assert!(
        after_flood.saturating_sub(before_flood) < 32 * MIB,
        "memory grew by {} MiB during the flood",
        after_flood.saturating_sub(before_flood) / MIB
    );
    // The peer starts reading again: what was queued arrives, and the connection works.
    let handle = client.handle();
    let call = tokio::spawn(async move { handle.request("ping", None).await });
    let ping = timeout(Duration::from_secs(20), async {
        loop {
            let line = peer_lines.next_line().await.unwrap().unwrap();
            let message: Value = serde_json::from_str(&line).unwrap();
            if message["method"] == "ping" {
                return message;
            }
        }
    })
    .await
    .unwrap();
    peer_write
        .write_all(
            format!(
                "{}\n",
                json!({ "jsonrpc": "2.0", "id": ping["id"], "result": {} })
            )
            .as_bytes(),
        )
        .await
        .unwrap();
    timeout(Duration::from_secs(20), call)
        .await
        .unwrap()
        .unwrap()
        .unwrap();
}
