//! The rotating stdout log on a real filesystem: naming, continued numbering, retention,
//! symlink refusal, and a write failure that disables the log once without hurting the
//! connection.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_jsonrpc::{Error, Peer, SpawnOptions, StdoutLog};
use serde_json::json;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

/// Runs a child that prints `{"n":1}` … `{"n":count}` and exits; returns when it is done.
async fn run_printer(log: StdoutLog, count: usize) {
    let script =
        format!("i=1; while [ $i -le {count} ]; do echo '{{\"n\":'$i'}}'; i=$((i+1)); done");
    let mut client = Peer::spawn_with_options(
        "sh",
        &["-c", &script],
        SpawnOptions {
            stdout_log: Some(log),
            ..Default::default()
        },
    )
    .await
    .expect("spawn");
    tokio::time::timeout(Duration::from_secs(10), client.handle().closed())
        .await
        .expect("the printer finishes");
    client.wait().await.expect("wait");
}

fn expected_lines(range: std::ops::RangeInclusive<usize>) -> Vec<String> {
    range.map(|n| format!("{{\"n\":{n}}}")).collect()
}

/// Segment numbers present in `dir` for the base name `server.stdout.log`.
fn segments(dir: &Path) -> Vec<u64> {
    let mut found: Vec<u64> = fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| {
            let name = e.unwrap().file_name().into_string().unwrap();
            let digits = name
                .strip_prefix("server.stdout.segment-")?
                .strip_suffix(".log")?;
            let n = digits.parse().ok()?;
            assert_eq!(digits.len(), 4, "four-digit numbering: {name}");
            Some(n)
        })
        .collect();
    found.sort_unstable();
    found
}

fn segment(dir: &Path, n: u64) -> PathBuf {
    dir.join(format!("server.stdout.segment-{n:04}.log"))
}

fn lines_of(path: &Path) -> Vec<String> {
    fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect()
}

#[tokio::test]
async fn rotates_by_size_with_ordered_segments() {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().join("logs/mcp/server.stdout.log");
    let log = StdoutLog {
        path: base.clone(),
        max_bytes_per_part: 40,
        max_parts: None,
    };
    run_printer(log, 60).await;
    let dir = base.parent().unwrap();
    let numbers = segments(dir);
    assert!(numbers.len() > 5, "{numbers:?}");
    assert_eq!(numbers, (1..=numbers.len() as u64).collect::<Vec<_>>());
    let mut all = Vec::new();
    for n in &numbers {
        let path = segment(dir, *n);
        assert!(
            fs::metadata(&path).unwrap().len() <= 40,
            "{} too big",
            path.display()
        );
        all.extend(lines_of(&path));
    }
    assert!(fs::metadata(&base).unwrap().len() <= 40);
    all.extend(lines_of(&base));
    assert_eq!(all, expected_lines(1..=60), "every line once, in order");
}

#[tokio::test]
async fn numbering_continues_after_the_highest_existing_part_and_retention_keeps_the_newest() {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().join("server.stdout.log");
    fs::write(segment(dir.path(), 7), "old seven\n").unwrap();
    fs::write(segment(dir.path(), 3), "old three\n").unwrap();
    fs::write(
        dir.path().join("server.stdout.segment-x.log"),
        "not a segment\n",
    )
    .unwrap();
    let log = StdoutLog {
        path: base.clone(),
        max_bytes_per_part: 20,
        max_parts: Some(3),
    };
    run_printer(log, 30).await;
    let numbers = segments(dir.path());
    assert_eq!(
        numbers.len(),
        3,
        "only the newest three are kept: {numbers:?}"
    );
    assert!(numbers[0] > 7, "numbering continued after 7: {numbers:?}");
    assert_eq!(numbers, (numbers[0]..numbers[0] + 3).collect::<Vec<_>>());
    assert!(
        dir.path().join("server.stdout.segment-x.log").exists(),
        "foreign files untouched"
    );
    let mut tail: Vec<String> = numbers
        .iter()
        .flat_map(|n| lines_of(&segment(dir.path(), *n)))
        .collect();
    tail.extend(lines_of(&base));
    let expected = expected_lines(1..=30);
    assert!(
        expected.ends_with(&tail),
        "the newest lines survive: {tail:?}"
    );

    // The same log reopened: appends, and rotation continues the numbering again.
    let before = *segments(dir.path()).last().unwrap();
    let log = StdoutLog {
        path: base,
        max_bytes_per_part: 20,
        max_parts: Some(3),
    };
    run_printer(log, 6).await;
    assert!(*segments(dir.path()).last().unwrap() > before);
}

async fn open_error(path: PathBuf) -> Error {
    Peer::spawn_with_options(
        "true",
        &[] as &[&str],
        SpawnOptions {
            stdout_log: Some(StdoutLog::new(path)),
            ..Default::default()
        },
    )
    .await
    .expect_err("the log must be refused")
}

#[tokio::test]
async fn symlinks_anywhere_in_the_path_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let real = dir.path().join("real");
    fs::create_dir(&real).unwrap();
    std::os::unix::fs::symlink(&real, dir.path().join("link")).unwrap();
    let error = open_error(dir.path().join("link/sub/out.log")).await;
    assert!(matches!(error, Error::StdoutLog(_)), "{error}");
    assert!(error.to_string().contains("symlink"), "{error}");
    assert!(
        !real.join("sub").exists(),
        "nothing was created through the link"
    );

    std::os::unix::fs::symlink(dir.path().join("target.log"), real.join("out.log")).unwrap();
    let error = open_error(real.join("out.log")).await;
    assert!(error.to_string().contains("symlink"), "{error}");
    assert!(!dir.path().join("target.log").exists());

    let error = open_error(dir.path().join("real/../real/out.log")).await;
    assert!(error.to_string().contains(".."), "{error}");

    // Initialisation failures are errors too: a parent that is a file.
    fs::write(dir.path().join("file"), "").unwrap();
    let error = open_error(dir.path().join("file/out.log")).await;
    assert!(matches!(error, Error::StdoutLog(_)), "{error}");
}

/// Captures what the library logs.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[tokio::test]
async fn a_write_failure_disables_the_log_once_and_the_connection_goes_on() {
    let captured = Captured::default();
    let writer = captured.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_writer(move || writer.clone())
        .with_ansi(false)
        .finish();
    let _guard = tracing::subscriber::set_default(subscriber);

    let dir = tempfile::tempdir().unwrap();
    let logs = dir.path().join("logs");
    let (ours, theirs) = tokio::net::UnixStream::pair().unwrap();
    let (read, write) = ours.into_split();
    let client = Peer::connect_io_with_options(
        read,
        write,
        SpawnOptions {
            stdout_log: Some(StdoutLog {
                path: logs.join("server.stdout.log"),
                max_bytes_per_part: 100,
                max_parts: None,
            }),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    let (peer_read, mut peer_write) = theirs.into_split();
    let mut peer_lines = BufReader::new(peer_read).lines();
    // One exchange: answers a ping, after writing `extra` lines first.
    let mut exchange = async |extra: &str| {
        let handle = client.handle();
        let call = tokio::spawn(async move { handle.request("ping", None).await });
        let request: serde_json::Value =
            serde_json::from_str(&peer_lines.next_line().await.unwrap().unwrap()).unwrap();
        let reply = json!({ "jsonrpc": "2.0", "id": request["id"], "result": {} });
        peer_write
            .write_all(format!("{extra}{reply}\n").as_bytes())
            .await
            .unwrap();
        call.await.unwrap().expect("the connection keeps working");
    };
    exchange("").await;
    assert!(logs.join("server.stdout.log").exists());
    // Take the directory away: the next rotation cannot rename into it.
    fs::remove_dir_all(&logs).unwrap();
    let long = format!("{}\n", "L".repeat(150));
    exchange(&long).await;
    exchange(&long).await;
    exchange(&long).await;
    let text = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
    assert_eq!(
        text.matches("stdout log write failed").count(),
        1,
        "one error: {text}"
    );
    assert!(!logs.exists(), "nothing is written after the failure");
}
