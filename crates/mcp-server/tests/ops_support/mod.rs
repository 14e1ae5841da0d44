//! Helpers of the `config_*` and `shutdown*` tests: the `ops_server` example as a real child
//! process, with a clean `MCP_*` environment, its URL read from the line it prints.

#![allow(dead_code)]

use std::path::PathBuf;
use std::process::{ExitStatus, Stdio};
use std::sync::OnceLock;
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};
use tokio::sync::watch;

/// The `ops_server` example, built for this test profile.
pub(crate) fn ops_server() -> &'static PathBuf {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| mcp_test_support::build_examples("mcp-server", &[]).join("ops_server"))
}

/// `ops_server ARGS` with only the given `MCP_*` variables set.
pub(crate) fn command(vars: &[(&str, &str)], args: &[&str]) -> Command {
    let mut command = Command::new(ops_server());
    for (name, _) in mcp_server::ENV_VARS {
        command.env_remove(name);
    }
    command
        .envs(vars.iter().copied())
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    command
}

/// A running `ops_server`.
pub(crate) struct Running {
    pub(crate) child: Child,
    /// Its MCP endpoint, from the `listening on` line.
    pub(crate) url: String,
    /// Its stderr lines so far.
    lines: watch::Receiver<Vec<String>>,
    /// Reads its stderr until it closes.
    collector: Option<tokio::task::JoinHandle<()>>,
}

impl Running {
    /// `http://host:port` without the MCP path.
    pub(crate) fn base(&self) -> String {
        let scheme_end = self.url.find("://").expect("a URL") + 3;
        let path_start = self.url[scheme_end..]
            .find('/')
            .map_or(self.url.len(), |i| scheme_end + i);
        self.url[..path_start].to_owned()
    }

    /// Sends `kill -SIGNAL` to the process (`TERM`, `INT`).
    pub(crate) async fn signal(&self, signal: &str) {
        let pid = self.child.id().expect("the server still runs");
        let status = Command::new("kill")
            .arg(format!("-{signal}"))
            .arg(pid.to_string())
            .status()
            .await
            .expect("kill runs");
        assert!(status.success(), "kill -{signal} {pid} failed");
    }

    /// Waits (at most 60 s) for the process to exit and for the end of its stderr.
    pub(crate) async fn exit(&mut self) -> ExitStatus {
        let status = tokio::time::timeout(Duration::from_secs(60), self.child.wait())
            .await
            .expect("the server exited within 60 s")
            .expect("waiting for the server");
        if let Some(collector) = self.collector.take() {
            collector.await.expect("the stderr reader");
        }
        status
    }

    /// Everything it printed on stderr so far.
    pub(crate) fn stderr(&self) -> String {
        self.lines.borrow().join("\n")
    }

    /// Waits (at most 60 s) until it printed a line containing `text`.
    pub(crate) async fn printed(&mut self, text: &str) {
        let seen = self
            .lines
            .wait_for(|lines| lines.iter().any(|l| l.contains(text)));
        tokio::time::timeout(Duration::from_secs(60), seen)
            .await
            .unwrap_or_else(|_| panic!("ops_server did not print {text:?} within 60 s"))
            .unwrap_or_else(|_| panic!("ops_server's stderr closed before {text:?}"));
    }
}

/// Starts `ops_server` and waits until it prints `MCP server listening on URL`.
pub(crate) async fn start(vars: &[(&str, &str)], args: &[&str]) -> Running {
    let mut child = command(vars, args).spawn().expect("ops_server starts");
    let mut lines = BufReader::new(child.stderr.take().expect("piped stderr")).lines();
    let (seen, stderr) = watch::channel(Vec::<String>::new());
    let ready = async {
        while let Some(line) = lines.next_line().await.expect("reading its stderr") {
            eprintln!("[ops_server] {line}");
            seen.send_modify(|all| all.push(line.clone()));
            if let Some(url) = line.strip_prefix("MCP server listening on ") {
                return Some(url.to_owned());
            }
        }
        None
    };
    let url = tokio::time::timeout(Duration::from_secs(60), ready)
        .await
        .expect("ops_server said where it listens within 60 s");
    let Some(url) = url else {
        panic!(
            "ops_server ended before listening: {}",
            stderr.borrow().join("\n")
        );
    };
    let collector = tokio::spawn(async move {
        while let Ok(Some(line)) = lines.next_line().await {
            eprintln!("[ops_server] {line}");
            seen.send_modify(|all| all.push(line));
        }
    });
    Running {
        child,
        url,
        lines: stderr,
        collector: Some(collector),
    }
}

/// Runs `ops_server` expecting it to refuse to start; returns its exit status and stderr.
pub(crate) async fn refused(vars: &[(&str, &str)], args: &[&str]) -> (ExitStatus, String) {
    let output = tokio::time::timeout(Duration::from_secs(60), command(vars, args).output())
        .await
        .expect("ops_server ended within 60 s")
        .expect("ops_server ran");
    (
        output.status,
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}
