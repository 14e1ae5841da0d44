//! The server run by an unprivileged user, where cgroups are not writable: sandboxes still
//! start (unprivileged user namespaces), and the limits fall back to rlimits. As root (CI),
//! the server is started as `nobody` with `setpriv`; as another user it already is
//! unprivileged, and rlimits are asked for explicitly.

mod support;

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::time::Duration;

use mcp_kit::{Config, Manager, ServerConfig, StdioServer, TrustMode};
use serde_json::{Value, json};
use support::{processes_with, require_bwrap, sandbox_bin};

async fn call(session: &mcp_kit::Session, tool: &str, arguments: Value) -> Value {
    let result = session
        .call_tool(tool, arguments.as_object().cloned())
        .await
        .unwrap_or_else(|e| panic!("{tool}: {e}"));
    serde_json::to_value(result).unwrap()["structuredContent"].clone()
}

#[tokio::test(flavor = "multi_thread")]
async fn an_unprivileged_server_limits_with_rlimits() {
    require_bwrap();
    let root = tempfile::tempdir().unwrap();
    std::fs::set_permissions(root.path(), std::fs::Permissions::from_mode(0o777)).unwrap();
    let is_root = std::fs::metadata("/proc/self").unwrap().uid() == 0;
    let mut argv = Vec::new();
    if is_root {
        assert!(
            std::path::Path::new("/usr/bin/setpriv").exists(),
            "setpriv (util-linux) is needed to run the server as nobody"
        );
        argv.extend(
            [
                "setpriv",
                "--reuid=65534",
                "--regid=65534",
                "--clear-groups",
            ]
            .map(String::from),
        );
    }
    argv.extend([sandbox_bin().to_owned(), "--stdio".to_owned()]);
    let mut env = std::collections::BTreeMap::from([
        (
            "MSB_WORKSPACE_ROOT".to_owned(),
            root.path().display().to_string(),
        ),
        ("MSB_MAX_PROCESSES".to_owned(), "64".to_owned()),
        ("PATH".to_owned(), std::env::var("PATH").unwrap_or_default()),
        ("RUST_LOG".to_owned(), "warn".to_owned()),
    ]);
    if !is_root {
        env.insert("MSB_RLIMITS_ONLY".to_owned(), "true".to_owned());
    }
    let server = ServerConfig::Stdio(StdioServer {
        argv,
        env,
        inherit_env: false,
        stdout_log: None,
        env_file: None,
    });
    let manager = Manager::new(Config::default().with_server("s", server), root.path())
        .with_trust_mode(TrustMode::Trusted)
        .with_timeout(Duration::from_secs(60));
    let session = manager
        .open("s")
        .await
        .expect("the unprivileged server starts");

    let first = call(
        &session,
        "execute_code",
        json!({ "code": "import os\nn = 1\nos.getuid()" }),
    )
    .await;
    assert_eq!(first["stdout"], "1000\n", "{first:#}");
    let id = first["session_id"].as_str().unwrap().to_owned();
    let again = call(
        &session,
        "execute_code",
        json!({ "code": "n + 1", "session_id": id }),
    )
    .await;
    assert_eq!(again["stdout"], "2\n");

    // Memory: the address-space limit refuses the allocation; the interpreter lives on.
    let memory = call(
        &session,
        "execute_code",
        json!({ "code": "b = bytearray(1536 * 1024 * 1024)", "session_id": id }),
    )
    .await;
    assert_eq!(memory["error"]["name"], "MemoryError", "{memory:#}");
    let after = call(
        &session,
        "execute_code",
        json!({ "code": "n", "session_id": id }),
    )
    .await;
    assert_eq!(after["stdout"], "1\n");

    // A fork bomb meets the process limit, the timeout ends it, nothing is left.
    let bomb = call(
        &session,
        "execute_command",
        json!({ "command": "bomb() { bomb | bomb & }; bomb; sleep 3210987", "timeout": 2, "session_id": id }),
    )
    .await;
    assert_eq!(bomb["status"], "timeout");
    assert!(processes_with("3210987").is_empty());
    let still = call(
        &session,
        "execute_command",
        json!({ "command": "echo alive" }),
    )
    .await;
    assert_eq!(still["stdout"], "alive\n");
}
