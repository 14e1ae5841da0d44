//! Running the real `mcpctl` binary in tests: with pipes ([`mcpctl`]) or under a
//! pseudo-terminal ([`on_terminal`]), in a temporary workspace.
#![allow(dead_code)] // Each test crate uses a part.

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use serde_json::Value;
use tempfile::TempDir;

/// The longest a single mcpctl run may take.
pub(crate) const RUN_LIMIT: Duration = Duration::from_secs(60);

/// What one mcpctl run produced.
#[derive(Debug)]
pub(crate) struct Run {
    pub(crate) code: i32,
    pub(crate) stdout: String,
    pub(crate) stderr: String,
}

impl Run {
    /// Asserts the exit code, showing the run when it differs.
    pub(crate) fn expect(self, code: i32) -> Self {
        assert_eq!(self.code, code, "unexpected exit code: {self:#?}");
        self
    }

    /// Asserts success and parses stdout as JSON.
    pub(crate) fn json(self) -> Value {
        let run = self.expect(0);
        serde_json::from_str(&run.stdout)
            .unwrap_or_else(|e| panic!("stdout is not JSON ({e}): {run:#?}"))
    }
}

/// Runs mcpctl in `dir` (its default root) with `args`.
pub(crate) async fn mcpctl(dir: &Path, args: &[&str]) -> Run {
    mcpctl_with_stdin(dir, args, None).await
}

/// Runs mcpctl in `dir`, feeding `stdin` when given.
pub(crate) async fn mcpctl_with_stdin(dir: &Path, args: &[&str], stdin: Option<&str>) -> Run {
    use tokio::io::AsyncWriteExt;

    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_mcpctl"));
    command
        .args(args)
        .current_dir(dir)
        .env_remove("RUST_LOG")
        .env("MCPCTL_CACHE_DIR", cache_dir(dir))
        .env("MCPCTL_CONFIG_DIR", dir.join(".mcpctl-config"))
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    let mut child = command.spawn().expect("mcpctl starts");
    if let Some(input) = stdin {
        let mut pipe = child.stdin.take().expect("piped stdin");
        pipe.write_all(input.as_bytes()).await.expect("write stdin");
    }
    let output = tokio::time::timeout(RUN_LIMIT, child.wait_with_output())
        .await
        .unwrap_or_else(|_| panic!("mcpctl {args:?} did not finish in {RUN_LIMIT:?}"))
        .expect("mcpctl runs");
    Run {
        code: output
            .status
            .code()
            .expect("mcpctl exited (not killed by a signal)"),
        stdout: String::from_utf8(output.stdout).expect("UTF-8 stdout"),
        stderr: String::from_utf8(output.stderr).expect("UTF-8 stderr"),
    }
}

/// Where the runs in `dir` keep mcpctl's cache (shared by the runs of one test, never with
/// the user's own).
pub(crate) fn cache_dir(dir: &Path) -> std::path::PathBuf {
    dir.join(".mcpctl-cache")
}

/// A temporary workspace whose `.mcp.json` is `config`.
pub(crate) fn workspace(config: Value) -> TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join(".mcp.json"), config.to_string()).expect("write .mcp.json");
    dir
}

/// One step of a terminal session: wait for text, or type.
#[derive(Debug, Clone)]
pub(crate) enum Step {
    /// Wait until this text appears (after what the previous `Expect` matched).
    Expect(&'static str),
    /// Type this (`"\u{3}"` is Ctrl-C).
    Send(String),
    /// Wait until mcpctl turns the terminal's echo off (a password prompt).
    NoEcho,
}

/// What a terminal session produced.
#[derive(Debug)]
pub(crate) struct TerminalRun {
    /// Everything mcpctl wrote to the terminal (stdout and stderr together, as a user sees
    /// them, escape sequences included).
    pub(crate) transcript: String,
    /// The exit code.
    pub(crate) code: i32,
}

/// Runs mcpctl in `dir` under a pseudo-terminal (its stdin, stdout and stderr), playing
/// `steps`. The terminal is driven by Python's `pty` module (`python3`, which the sandbox
/// tests need too). Fails when a step is not met in [`RUN_LIMIT`].
pub(crate) async fn on_terminal(dir: &Path, args: &[&str], steps: &[Step]) -> TerminalRun {
    let mut argv = vec![env!("CARGO_BIN_EXE_mcpctl").to_owned()];
    argv.extend(args.iter().map(|a| (*a).to_owned()));
    let steps: Vec<Value> = steps
        .iter()
        .map(|step| match step {
            Step::Expect(text) => serde_json::json!({ "expect": text }),
            Step::Send(text) => serde_json::json!({ "send": text }),
            Step::NoEcho => serde_json::json!({ "no_echo": true }),
        })
        .collect();
    let plan = serde_json::json!({
        "argv": argv,
        "cwd": dir,
        "steps": steps,
        "limit": RUN_LIMIT.as_secs(),
    });
    let driver = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cli_support/pty_driver.py");
    let output = tokio::process::Command::new("python3")
        .arg(&driver)
        .arg(plan.to_string())
        .env_remove("RUST_LOG")
        .env("MCPCTL_CACHE_DIR", cache_dir(dir))
        .env("MCPCTL_CONFIG_DIR", dir.join(".mcpctl-config"))
        .env("TERM", "xterm-256color")
        .stdin(Stdio::null())
        .kill_on_drop(true)
        .output()
        .await
        .unwrap_or_else(|e| {
            panic!(
                "cannot run python3 (the pseudo-terminal driver): {e}; install it with \
                 scripts/install-system-deps.sh (Debian package python3)"
            )
        });
    let report: Value = serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "the pty driver failed ({e}): {}",
            String::from_utf8_lossy(&output.stderr)
        )
    });
    let run = TerminalRun {
        transcript: report["transcript"].as_str().unwrap_or_default().to_owned(),
        code: i32::try_from(report["exit"].as_i64().unwrap_or(-1)).unwrap_or(-1),
    };
    if let Some(failed) = report["failed"].as_str() {
        panic!(
            "terminal session of mcpctl {args:?}: {failed}\n{}",
            run.transcript
        );
    }
    run
}

/// A minimal stdio MCP server: answers `initialize` with the version it was asked for and
/// reports, through its one tool, the `initialize` params it received and its working
/// directory.
pub(crate) const PROBE_JS: &str = r#"
const readline = require('readline');
let init = null;
const send = (message) => process.stdout.write(JSON.stringify(message) + '\n');
readline.createInterface({ input: process.stdin }).on('line', (line) => {
  const msg = JSON.parse(line);
  if (msg.id === undefined || msg.method === undefined) return;
  if (msg.method === 'initialize') {
    init = msg.params;
    send({ jsonrpc: '2.0', id: msg.id, result: {
      protocolVersion: msg.params.protocolVersion,
      capabilities: { tools: {} },
      serverInfo: { name: 'probe', version: '1.0.0' } } });
  } else if (msg.method === 'tools/list') {
    send({ jsonrpc: '2.0', id: msg.id, result: { tools: [
      { name: 'whoami', inputSchema: { type: 'object', properties: {} } }] } });
  } else if (msg.method === 'tools/call' && msg.params.name === 'die') {
    process.stderr.write('dying on purpose\n');
    process.exit(7);
  } else if (msg.method === 'tools/call') {
    const text = JSON.stringify({ init, cwd: process.cwd(), arguments: msg.params.arguments,
      probe_value: process.env.PROBE_VALUE ?? null, parent_secret: process.env.MCPCTL_TEST_SECRET ?? null,
      from_file: process.env.FROM_FILE ?? null, token: process.env.TOKEN ?? null });
    send({ jsonrpc: '2.0', id: msg.id, result: { content: [{ type: 'text', text }] } });
  } else {
    send({ jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: 'Method not found' } });
  }
});
"#;
