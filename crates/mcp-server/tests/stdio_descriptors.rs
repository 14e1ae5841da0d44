//! `serve_stdio` in a real process (`example_server`) on the descriptors clients give it: a
//! pipe on each side (what `tokio::process` and Python create), and one unix socket for both
//! (what Node.js creates). Both are served through the reactor, in non-blocking mode while the
//! server runs, and are put back in blocking mode when it ends — the mode belongs to the open
//! file, which the parent here shares through a duplicate, as a shell running the server
//! in a script would.

#![cfg(target_os = "linux")]

use std::io::{BufRead, BufReader, Read, Write};
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::net::UnixStream;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;

use serde_json::{Value, json};

fn example_server() -> &'static PathBuf {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| mcp_test_support::build_examples("mcp-server", &[]).join("example_server"))
}

/// Whether the open file behind `fd` (of this process) is in non-blocking mode, from
/// `/proc/self/fdinfo` (`flags` is octal; `O_NONBLOCK` is 04000 on Linux).
fn nonblocking(fd: &impl AsRawFd) -> bool {
    let info = std::fs::read_to_string(format!("/proc/self/fdinfo/{}", fd.as_raw_fd())).unwrap();
    let flags = info
        .lines()
        .find_map(|l| l.strip_prefix("flags:"))
        .expect("a flags line");
    let flags = u32::from_str_radix(flags.trim(), 8).unwrap();
    flags & 0o4000 != 0
}

fn line(message: &Value) -> Vec<u8> {
    let mut line = serde_json::to_vec(message).unwrap();
    line.push(b'\n');
    line
}

fn initialize() -> Vec<u8> {
    line(&json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": { "name": "descriptors-test", "version": "0" },
        },
    }))
}

fn echo(id: u64) -> Vec<u8> {
    line(&json!({
        "jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": { "name": "echo", "arguments": { "message": format!("hello {id}") } },
    }))
}

fn read_message(from: &mut impl BufRead) -> Value {
    let mut text = String::new();
    from.read_line(&mut text).expect("a line from the server");
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text:?}"))
}

/// Runs the handshake and a few calls, checking every answer.
fn converse(to: &mut impl Write, from: &mut impl BufRead) {
    to.write_all(&initialize()).unwrap();
    let init = read_message(from);
    assert_eq!(init["id"], 1, "{init}");
    assert_eq!(init["result"]["protocolVersion"], "2025-11-25", "{init}");
    to.write_all(&line(
        &json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }),
    ))
    .unwrap();
    for id in 2..12 {
        to.write_all(&echo(id)).unwrap();
        let answer = read_message(from);
        assert_eq!(answer["id"], id, "{answer}");
        assert_eq!(
            answer["result"]["content"][0]["text"],
            format!("hello {id}"),
            "{answer}"
        );
    }
}

fn exits_cleanly(mut child: Child) {
    let status = child.wait().unwrap();
    assert!(status.success(), "example_server exited with {status}");
}

#[test]
fn pipes_are_served_and_left_blocking() {
    let (stdin_r, mut stdin_w) = std::io::pipe().unwrap();
    let (stdout_r, stdout_w) = std::io::pipe().unwrap();
    // Duplicates of the server's ends: the same open files, so the same mode.
    let stdin_shared = stdin_r.try_clone().unwrap();
    let stdout_shared = stdout_w.try_clone().unwrap();
    let child = Command::new(example_server())
        .stdin(Stdio::from(OwnedFd::from(stdin_r)))
        .stdout(Stdio::from(OwnedFd::from(stdout_w)))
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut from = BufReader::new(stdout_r);
    converse(&mut stdin_w, &mut from);
    assert!(
        nonblocking(&stdin_shared),
        "stdin is read through the reactor"
    );
    assert!(
        nonblocking(&stdout_shared),
        "stdout is written through the reactor"
    );

    drop(stdin_w);
    exits_cleanly(child);
    assert!(!nonblocking(&stdin_shared), "stdin is blocking again");
    assert!(!nonblocking(&stdout_shared), "stdout is blocking again");
    // The last writer gone, the output ends: nothing followed the answers.
    drop(stdout_shared);
    let mut rest = Vec::new();
    from.read_to_end(&mut rest).unwrap();
    assert!(rest.is_empty(), "nothing after the answers: {rest:?}");
}

#[test]
fn one_socket_for_both_directions_is_served_and_left_blocking() {
    let (client, server_end) = UnixStream::pair().unwrap();
    let shared = server_end.try_clone().unwrap();
    let child = Command::new(example_server())
        .stdin(Stdio::from(OwnedFd::from(server_end.try_clone().unwrap())))
        .stdout(Stdio::from(OwnedFd::from(server_end)))
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut to = client.try_clone().unwrap();
    let mut from = BufReader::new(client);
    converse(&mut to, &mut from);
    assert!(
        nonblocking(&shared),
        "the socket is served through the reactor"
    );

    to.shutdown(std::net::Shutdown::Write).unwrap();
    exits_cleanly(child);
    assert!(!nonblocking(&shared), "the socket is blocking again");
}
