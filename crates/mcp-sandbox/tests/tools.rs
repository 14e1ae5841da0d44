//! The five tools end to end, over stdio and streamable HTTP, with mcp-kit as the client:
//! state that persists in both templates, commands and exit codes, sessions listed, stopped,
//! reaped and evicted, volumes, timeouts, progress and workspace resources.

mod support;

use std::time::{Duration, Instant};

use serde_json::json;
use support::{Sandbox, Transport, processes_with, start, start_with, text};

async fn persists(sandbox: &Sandbox) {
    // Python: variables, imports and functions; the last expression is shown.
    let first = sandbox
        .python(None, "import math\nx = 41\ndef twice(n):\n    return 2 * n")
        .await;
    assert_eq!(first["session_created"], true);
    assert_eq!(first["status"], "ok", "{first:#}");
    let id = first["session_id"].as_str().unwrap();
    let second = sandbox
        .python(Some(id), "print(math.floor(2.5))\ntwice(x + 1)")
        .await;
    assert_eq!(second["session_created"], false);
    assert_eq!(second["stdout"], "2\n84\n", "{second:#}");
    // Files written by code are there for commands, and back.
    sandbox
        .python(Some(id), "open('data.txt', 'w').write('from python')")
        .await;
    let cat = sandbox
        .shell(Some(id), "cat data.txt && echo ' and sh' > more.txt")
        .await;
    assert_eq!(cat["stdout"], "from python");
    let back = sandbox.python(Some(id), "open('more.txt').read()").await;
    assert_eq!(back["stdout"], "' and sh\\n'\n");

    // Node: top-level await, redeclared let/const, require.
    let node = sandbox
        .code(
            "node",
            None,
            "const x = await Promise.resolve(41)\nlet y = 1",
        )
        .await;
    assert_eq!(node["template"], "node");
    let id = node["session_id"].as_str().unwrap();
    let again = sandbox
        .code(
            "node",
            Some(id),
            "let y = 2\nconst fs = require('fs')\nfs.writeFileSync('n.txt', String(x + y))\nx + y",
        )
        .await;
    assert_eq!(again["stdout"], "43\n", "{again:#}");
    let file = sandbox.shell(Some(id), "cat n.txt").await;
    assert_eq!(file["stdout"], "43");
    // Without a template, a call into an existing session runs in its language.
    let result = sandbox
        .call(
            "execute_code",
            json!({ "code": "typeof x", "session_id": id }),
        )
        .await;
    assert_eq!(
        result["structuredContent"]["stdout"], "'number'\n",
        "{result:#}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn state_persists_in_both_templates_over_stdio_and_http() {
    for transport in [Transport::Stdio, Transport::Http] {
        let sandbox = start(transport, &[]).await;
        persists(&sandbox).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn state_persists_for_a_stateful_era_client() {
    let sandbox = support::start_with(Transport::Http, &[], Some("2025-06-18")).await;
    persists(&sandbox).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn errors_exit_codes_and_direct_arguments() {
    let sandbox = start(Transport::Stdio, &[]).await;
    let raised = sandbox
        .call("execute_code", json!({ "code": "1 / 0" }))
        .await;
    assert_eq!(raised["isError"], true);
    let out = &raised["structuredContent"];
    assert_eq!(out["error"]["name"], "ZeroDivisionError");
    assert_eq!(out["exit_code"], 1);
    let stderr = out["stderr"].as_str().unwrap();
    assert!(
        stderr.contains("ZeroDivisionError: division by zero"),
        "{stderr}"
    );
    assert!(
        !stderr.contains("python.py"),
        "driver frames shown: {stderr}"
    );
    let id = out["session_id"].as_str().unwrap();
    // The session survives an exception.
    assert_eq!(sandbox.python(Some(id), "1 + 1").await["stdout"], "2\n");

    let failed = sandbox
        .call(
            "execute_command",
            json!({ "command": "echo out; echo err >&2; exit 3" }),
        )
        .await;
    assert_eq!(failed["isError"], true);
    assert_eq!(failed["structuredContent"]["exit_code"], 3);
    assert_eq!(text(&failed), "stdout:\nout\nstderr:\nerr\n[exit code 3]");

    let direct = sandbox
        .call(
            "execute_command",
            json!({ "command": "printf", "args": ["%s|%s", "a b", "$HOME;c"] }),
        )
        .await;
    assert_eq!(
        direct["structuredContent"]["stdout"], "a b|$HOME;c",
        "{direct:#}"
    );
    let missing = sandbox
        .call(
            "execute_command",
            json!({ "command": "no-such-program", "args": [] }),
        )
        .await;
    assert_eq!(missing["isError"], true);
    assert_eq!(missing["structuredContent"]["exit_code"], 127);
    let killed = sandbox.shell(None, "kill -9 $$").await;
    assert_eq!(
        (killed["status"].as_str(), killed["signal"].as_i64()),
        (Some("error"), Some(9))
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn sessions_are_listed_stopped_and_then_unknown() {
    let sandbox = start(Transport::Http, &[]).await;
    let a = sandbox.new_session().await;
    let b = sandbox.python(None, "import time").await["session_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let mut ids = sandbox.session_ids().await;
    ids.sort();
    let mut expected = vec![a.clone(), b.clone()];
    expected.sort();
    assert_eq!(ids, expected);
    let one = sandbox.ok("get_sessions", json!({ "session_id": a })).await;
    assert_eq!(one["sessions"][0]["template"], "python");
    assert_eq!(one["sessions"][0]["flavor"], "small");
    assert_eq!(one["sessions"][0]["executions"], 1);

    let workspace = sandbox.workspace(&a);
    assert!(workspace.is_dir());
    sandbox.ok("stop_session", json!({ "session_id": a })).await;
    assert!(!workspace.exists(), "the workspace was removed");
    assert_eq!(sandbox.session_ids().await, std::slice::from_ref(&b));
    let gone = sandbox
        .call("execute_code", json!({ "code": "1", "session_id": a }))
        .await;
    assert_eq!(gone["isError"], true);
    assert!(
        text(&gone).starts_with(&format!("unknown session `{a}`")),
        "{gone:#}"
    );
    // A template or flavor other than the session's is refused, naming both.
    let mismatch = sandbox
        .call(
            "execute_code",
            json!({ "code": "1", "session_id": b, "template": "node" }),
        )
        .await;
    assert!(
        text(&mismatch).contains("runs python, not node"),
        "{mismatch:#}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn idle_sessions_are_reaped() {
    let sandbox = start(
        Transport::Stdio,
        &[("MSB_SESSION_TIMEOUT", "1"), ("MSB_CLEANUP_INTERVAL", "1")],
    )
    .await;
    let id = sandbox.new_session().await;
    let workspace = sandbox.workspace(&id);
    // Reaping forgets the session first (no call lands on it any more), then stops it and
    // removes its workspace: both are awaited.
    let deadline = Instant::now() + Duration::from_secs(20);
    while !sandbox.session_ids().await.is_empty() || workspace.exists() {
        assert!(
            Instant::now() < deadline,
            "the idle session was not reaped (listed: {:?}, workspace left: {})",
            sandbox.session_ids().await,
            workspace.exists()
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn the_least_recently_used_idle_session_makes_room() {
    let sandbox = start(Transport::Stdio, &[("MSB_MAX_SESSIONS", "2")]).await;
    let a = sandbox.new_session().await;
    let b = sandbox.new_session().await;
    sandbox.python(Some(&a), "1").await; // a is now more recently used than b
    let c = sandbox.new_session().await;
    let mut ids = sandbox.session_ids().await;
    ids.sort();
    let mut expected = vec![a, c];
    expected.sort();
    assert_eq!(ids, expected, "b was evicted");
    assert!(!sandbox.workspace(&b).exists());
}

#[tokio::test(flavor = "multi_thread")]
async fn volumes_are_mounted_and_read_only_where_marked() {
    let host = tempfile::tempdir().unwrap();
    let (rw, ro) = (host.path().join("rw"), host.path().join("ro"));
    std::fs::create_dir_all(&rw).unwrap();
    std::fs::create_dir_all(&ro).unwrap();
    std::fs::write(ro.join("input.txt"), "shared input").unwrap();
    let volumes = format!(
        r#"["{}:/mnt/rw", "{}:/mnt/ro:ro"]"#,
        rw.display(),
        ro.display()
    );
    let sandbox = start(Transport::Stdio, &[("MSB_SHARED_VOLUME_PATH", &volumes)]).await;
    let paths = sandbox.ok("get_volume_path", json!({})).await;
    assert_eq!(
        paths,
        json!({ "workspace": "/workspace", "volumes": [
            { "path": "/mnt/rw", "read_only": false },
            { "path": "/mnt/ro", "read_only": true }
        ]})
    );
    let read = sandbox
        .shell(None, "cat /mnt/ro/input.txt && echo made > /mnt/rw/out.txt")
        .await;
    assert_eq!(read["stdout"], "shared input");
    assert_eq!(
        std::fs::read_to_string(rw.join("out.txt")).unwrap(),
        "made\n"
    );
    let write = sandbox.shell(None, "echo no > /mnt/ro/x.txt").await;
    assert_eq!(write["status"], "error");
    assert!(
        write["stderr"]
            .as_str()
            .unwrap()
            .contains("Read-only file system"),
        "{write:#}"
    );
    assert!(!ro.join("x.txt").exists());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_timeout_stops_everything_the_call_started_and_the_session_goes_on() {
    let sandbox = start(Transport::Stdio, &[]).await;
    let id = sandbox.new_session().await;
    sandbox
        .python(Some(&id), "x = 1\nopen('kept.txt', 'w').write('kept')")
        .await;
    let started = Instant::now();
    let result = sandbox
        .call(
            "execute_code",
            json!({
                "session_id": id,
                "timeout": 1,
                "code": "import subprocess, time\nsubprocess.Popen(['sleep', '7654321'])\nprint('before', flush=True)\ntime.sleep(60)"
            }),
        )
        .await;
    assert!(started.elapsed() < Duration::from_secs(15));
    let out = &result["structuredContent"];
    assert_eq!(
        (out["status"].as_str(), out["timed_out"].as_bool()),
        (Some("timeout"), Some(true))
    );
    assert_eq!(out["stdout"], "before\n", "output so far is kept");
    assert!(
        text(&result).contains("timed out after 1.0 s"),
        "{result:#}"
    );
    assert!(
        processes_with("7654321").is_empty(),
        "the background process is gone"
    );
    // The session is usable; its interpreter is new (x is gone), its files are not.
    let after = sandbox
        .python(Some(&id), "print(open('kept.txt').read())\nx")
        .await;
    assert_eq!(after["interpreter_restarted"], true);
    assert_eq!(after["error"]["name"], "NameError");
    assert_eq!(after["stdout"], "kept\n");
    let listed = sandbox
        .ok("get_sessions", json!({ "session_id": id }))
        .await;
    assert_eq!(listed["sessions"][0]["interpreter_restarts"], 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn output_streams_as_progress_while_the_code_runs() {
    let sandbox = start(Transport::Http, &[]).await;
    let code =
        "import time\nfor i in range(3):\n    print('line', i, flush=True)\n    time.sleep(0.2)";
    let (mut progress, call) = sandbox
        .session
        .call_tool_with_progress("execute_code", json!({ "code": code }).as_object().cloned());
    let result = call.await.expect("execute_code");
    assert_eq!(
        serde_json::to_value(&result).unwrap()["structuredContent"]["stdout"],
        "line 0\nline 1\nline 2\n"
    );
    let mut messages = String::new();
    let mut count = 0;
    while let Ok(update) = progress.try_recv() {
        messages.push_str(update.message.as_deref().unwrap_or_default());
        count += 1;
    }
    assert!(count >= 2, "output came in {count} notifications");
    assert_eq!(messages, "line 0\nline 1\nline 2\n");
}

#[tokio::test(flavor = "multi_thread")]
async fn workspace_files_are_resources() {
    let sandbox = start(Transport::Http, &[]).await;
    let out = sandbox
        .python(
            None,
            "import os\nos.makedirs('out', exist_ok=True)\nopen('out/report.txt', 'w').write('done')\n\
             open('out/pixel.png', 'wb').write(bytes([137, 80, 78, 71, 0, 255]))\n\
             os.symlink('/etc/hostname', 'escape')\nos.symlink('../../..', 'up')",
        )
        .await;
    let id = out["session_id"].as_str().unwrap();
    let session = &sandbox.session;
    let read = |path: &str| {
        let uri = format!("sandbox://{id}/{path}");
        async move {
            session
                .read_resource(&uri)
                .await
                .map(|r| serde_json::to_value(r).unwrap())
        }
    };
    let report = read("out/report.txt").await.expect("read");
    assert_eq!(report["contents"][0]["text"], "done");
    assert_eq!(report["contents"][0]["mimeType"], "text/plain");
    let image = read("out/pixel.png").await.expect("read");
    assert_eq!(image["contents"][0]["blob"], "iVBORwD/");
    assert_eq!(image["contents"][0]["mimeType"], "image/png");
    let listing = read("out").await.expect("read");
    assert_eq!(
        listing["contents"][0]["text"],
        "pixel.png\t6\nreport.txt\t4"
    );
    for escape in ["escape", "up/etc/passwd", "../x"] {
        let error = read(escape).await.expect_err("refused");
        assert!(
            error.to_string().contains("out of the workspace")
                || error.to_string().contains("leaves"),
            "{escape}: {error}"
        );
    }
    let templates = sandbox
        .session
        .list_all_resource_templates()
        .await
        .expect("templates");
    assert_eq!(templates[0].uri_template, "sandbox://{session_id}/{+path}");
}

async fn warm(sandbox: &Sandbox) -> u64 {
    let list = sandbox.ok("get_sessions", json!({})).await;
    list["warm_sandboxes"]["python"].as_u64().unwrap()
}

/// A new session of the default flavor takes a sandbox started ahead (its workspace directory
/// is renamed to the session's), and another one starts in its place.
#[tokio::test(flavor = "multi_thread")]
async fn new_sessions_take_warm_sandboxes() {
    let sandbox = start(Transport::Stdio, &[("MSB_POOL_SIZE", "1")]).await;
    let deadline = Instant::now() + Duration::from_secs(30);
    while warm(&sandbox).await == 0 {
        assert!(Instant::now() < deadline, "no warm sandbox");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let pool = sandbox.workspace("x").parent().unwrap().join(".pool");
    let names = |dir: &std::path::Path| -> Vec<String> {
        std::fs::read_dir(dir)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect()
    };
    let before = names(&pool);
    let out = sandbox.python(None, "'warm'").await;
    assert_eq!(out["stdout"], "'warm'\n");
    let after = names(&pool);
    let taken: Vec<&String> = before.iter().filter(|n| !after.contains(n)).collect();
    assert_eq!(
        taken.len(),
        1,
        "one warm sandbox was taken: {before:?} → {after:?}"
    );
    while warm(&sandbox).await == 0 {
        assert!(Instant::now() < deadline, "the pool was not refilled");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // Without a pool, nothing is started ahead.
    let cold = start(Transport::Stdio, &[("MSB_POOL_SIZE", "0")]).await;
    assert_eq!(warm(&cold).await, 0);
    assert_eq!(cold.python(None, "1").await["stdout"], "1\n");
}

/// A client that gives up on a call cancels it: everything it started ends, and the session's
/// next call says its interpreter was restarted.
#[tokio::test(flavor = "multi_thread")]
async fn a_cancelled_call_stops_what_it_started() {
    for transport in [Transport::Stdio, Transport::Http] {
        let sandbox = start(transport, &[]).await;
        let id = sandbox.new_session().await;
        sandbox.python(Some(&id), "x = 1").await;
        let code = "import subprocess, time\nsubprocess.Popen(['sleep', '8765432'])\n\
                    print('running', flush=True)\ntime.sleep(60)";
        let (mut progress, call) = sandbox.session.call_tool_with_progress(
            "execute_code",
            json!({ "code": code, "session_id": id })
                .as_object()
                .cloned(),
        );
        // Give up once the code runs (its first output arrived): dropping the call cancels it.
        let gave_up = async {
            tokio::select! {
                _ = call => panic!("the call ended by itself"),
                update = progress.recv() => assert!(update.is_some()),
            }
        };
        tokio::time::timeout(Duration::from_secs(30), gave_up)
            .await
            .expect("output came");
        let after = sandbox.python(Some(&id), "print('fresh')\nx").await;
        assert_eq!(
            after["interpreter_restarted"], true,
            "{transport:?}: {after:#}"
        );
        assert_eq!(after["error"]["name"], "NameError");
        assert!(
            processes_with("8765432").is_empty(),
            "{transport:?}: left running"
        );
    }
}

/// `MSB_MAX_TOTAL_MEMORY_MB` counts every session's flavor: an idle session makes room, busy
/// ones do not, and the refusal says so.
#[tokio::test(flavor = "multi_thread")]
async fn the_total_memory_cap_evicts_idle_sessions_and_refuses_when_all_are_busy() {
    let sandbox = start(Transport::Http, &[("MSB_MAX_TOTAL_MEMORY_MB", "2048")]).await;
    let a = sandbox.new_session().await;
    let b = sandbox.new_session().await;
    // A medium session (2 GiB) needs both small ones gone.
    let medium = sandbox
        .call("execute_code", json!({ "code": "1", "flavor": "medium" }))
        .await;
    assert_eq!(
        medium["structuredContent"]["flavor"], "medium",
        "{medium:#}"
    );
    let ids = sandbox.session_ids().await;
    assert!(!ids.contains(&a) && !ids.contains(&b), "{ids:?}");
    // With the medium session busy, nothing can make room.
    let busy_id = medium["structuredContent"]["session_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let code = "print('busy', flush=True)\nimport time\ntime.sleep(3)";
    let (mut progress, busy) = sandbox.session.call_tool_with_progress(
        "execute_code",
        json!({ "code": code, "session_id": busy_id })
            .as_object()
            .cloned(),
    );
    let refused = async {
        progress.recv().await.expect("the busy call runs");
        sandbox.call("execute_code", json!({ "code": "1" })).await
    };
    let (busy, refused) = tokio::join!(busy, refused);
    busy.expect("the busy call finished");
    assert_eq!(refused["isError"], true);
    assert!(
        text(&refused).contains("MSB_MAX_TOTAL_MEMORY_MB"),
        "{refused:#}"
    );
}

/// For a client that follows tasks (2026-07-28), a command that runs longer than two seconds
/// becomes a task: the HTTP request ends, the task's status shows the latest output while it
/// runs, the result comes with the task, and cancelling the task stops what it started.
#[tokio::test(flavor = "multi_thread")]
async fn a_long_command_becomes_a_task_that_shows_its_output_and_can_be_cancelled() {
    use mcp_kit::ToolCall;
    let sandbox = start_with(Transport::Http, &[], Some("2026-07-28")).await;
    let command = "for i in 1 2 3 4 5 6; do echo step $i; sleep 1; done";
    let call = sandbox
        .session
        .call_tool_as_task(
            "execute_command",
            json!({ "command": command }).as_object().cloned(),
        )
        .await
        .expect("execute_command");
    let ToolCall::Task(task) = call else {
        panic!("a six-second command becomes a task");
    };
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let now = task.get().await.expect("tasks/get");
        let message = now.task.status_message.clone().unwrap_or_default();
        if message.contains("step 3") {
            assert_eq!(now.task.status.as_str(), "working", "{message}");
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the output never showed: {now:?}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let result = task.wait().await.expect("the task completes");
    let value = serde_json::to_value(&result).unwrap();
    assert!(
        value["structuredContent"]["stdout"]
            .as_str()
            .unwrap()
            .ends_with("step 6\n"),
        "{value}"
    );

    // Quick calls are answered inline, tasks or not.
    let quick = sandbox.shell(None, "echo quick").await;
    assert_eq!(quick["stdout"], "quick\n");

    let call = sandbox
        .session
        .call_tool_as_task(
            "execute_command",
            json!({ "command": "echo started; sleep 8765433" })
                .as_object()
                .cloned(),
        )
        .await
        .expect("execute_command");
    let ToolCall::Task(task) = call else {
        panic!("a long sleep becomes a task");
    };
    task.cancel().await.expect("tasks/cancel");
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let now = task.get().await.expect("tasks/get");
        if now.task.status.as_str() == "cancelled" {
            break;
        }
        assert!(Instant::now() < deadline, "never cancelled: {now:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(processes_with("8765433").is_empty(), "left running");
}
