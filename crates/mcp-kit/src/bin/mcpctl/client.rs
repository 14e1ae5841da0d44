//! The client mcpctl runs: a [`Manager`] built from the configuration and the flags, with what
//! the server sends going to the console and what it asks answered by [`Answers`].

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use mcp_jsonrpc::StderrMode;
use mcp_kit::arguments::json_object_file;
use mcp_kit::{
    Config, Manager, Root, ServerConfig, ServerNotificationContext, TrustMode,
    UntrustedStreamableHttpPolicy,
};
use serde_json::{Map, Value};

use crate::answers::{Answers, Elicit, Sampling};
use crate::args::{ElicitAnswer, GlobalArgs};
use crate::commands::resolve_dir;
use crate::console::Console;
use crate::exit::usage;
use crate::wire;

/// The name the client announces in `clientInfo`.
pub(crate) const CLIENT_NAME: &str = "mcpctl";

/// The manager: the configuration's `client` section, then the flags; what the server sends
/// goes to `console`, what it asks is answered by [`Answers`].
pub(crate) fn build_manager(
    global: &GlobalArgs,
    config: Config,
    root: PathBuf,
    trust: TrustMode,
    inputs: BTreeMap<String, String>,
    server: &str,
    console: &Arc<Console>,
) -> anyhow::Result<Manager> {
    let timeout = Duration::from_millis(global.timeout_ms);
    let policy = UntrustedStreamableHttpPolicy {
        require_https: !global.allow_http,
        allow_localhost: global.allow_localhost,
        allow_private_ips: global.allow_private_ip,
        dns_check: global.dns_check,
        dns_timeout: Duration::from_millis(global.dns_timeout_ms),
        dns_fail_open: global.dns_fail_open,
        allowed_hosts: global.allow_host.clone(),
    };
    let answers = Arc::new(Answers {
        console: console.clone(),
        elicit: elicit_answer(global.elicit.as_ref())?,
        sampling: match (&global.sampling_reply, &global.sampling_command) {
            (Some(text), _) => Sampling::Reply(text.clone()),
            (None, Some(command)) => Sampling::Command(command.clone()),
            (None, None) => Sampling::Refuse,
        },
        asking: tokio::sync::Mutex::new(()),
    });
    let mut capabilities = config.client.capabilities.clone().unwrap_or_default();
    answers.declare(&mut capabilities);
    let mut roots = config.client.roots.clone().unwrap_or_default();
    for dir in &global.root_dir {
        roots.push(root_of(&resolve_dir(dir, "--root-dir")?)?);
    }
    // Worked out only for --wire: it expands the configuration (and reads an env file) once
    // more.
    let secrets = match config.servers.get(server) {
        Some(configured) if global.wire => wire_secrets(configured, &root, trust, &inputs),
        _ => Vec::new(),
    };
    let notifications = console.clone();
    let mut manager = Manager::new(config, root)
        .with_client_info(CLIENT_NAME, env!("CARGO_PKG_VERSION"))
        .with_timeout(timeout)
        .with_trust_mode(trust)
        .with_untrusted_streamable_http_policy(policy)
        .with_allow_stdout_log_outside_root(global.allow_stdout_log_outside_root)
        .with_stderr(StderrMode::Capture {
            echo: !global.quiet,
        })
        // Ctrl-C reaches mcpctl only, which cancels and closes the server itself.
        .with_own_process_group(true)
        .with_inputs(inputs)
        // Tokens from `mcpctl login`; a server that needs a new one fails "log in first".
        .with_oauth(crate::oauth::options())
        .with_capabilities(Value::Object(capabilities))
        .with_server_request_handler(answers.handler())
        .with_server_notification_handler(Arc::new(move |n: ServerNotificationContext| {
            notifications.notification(&n.server_name, &n.method, n.params.as_ref());
            Box::pin(async {})
        }));
    if !roots.is_empty() {
        manager = manager.with_roots(roots);
    }
    if let Some(level) = &global.log_level {
        manager = manager.with_log_level(level.clone());
    }
    if global.wire {
        manager = manager.with_wire_tap(wire::tap(console.clone(), server.to_owned(), secrets));
    }
    Ok(match &global.protocol_version {
        Some(version) => manager.with_protocol_version(Some(version.clone())),
        None => manager,
    })
}

/// `--elicit`, with the file of `json=FILE` read now (a bad file is a usage error before
/// connecting); without it, a form on a terminal.
fn elicit_answer(flag: Option<&ElicitAnswer>) -> anyhow::Result<Elicit> {
    Ok(match flag {
        None => Elicit::by_default(),
        Some(ElicitAnswer::Decline) => Elicit::Decline,
        Some(ElicitAnswer::Cancel) => Elicit::Cancel,
        Some(ElicitAnswer::Accept(None)) => Elicit::Accept(Map::new()),
        Some(ElicitAnswer::Accept(Some(path))) => {
            Elicit::Accept(json_object_file(path).map_err(usage)?)
        }
    })
}

/// A `--root-dir`: its `file://` URI and its name.
fn root_of(dir: &Path) -> anyhow::Result<Root> {
    let uri = url::Url::from_directory_path(dir).map_err(|()| {
        usage(format!(
            "--root-dir {} cannot be a file:// URI",
            dir.display()
        ))
    })?;
    Ok(Root {
        uri: uri.to_string(),
        name: dir.file_name().map(|n| n.to_string_lossy().into_owned()),
    })
}

/// The values `--wire` hides wherever they appear: the server's environment variables and
/// headers, as written and (when trusted) expanded, inputs and env file included.
fn wire_secrets(
    server: &ServerConfig,
    root: &Path,
    trust: TrustMode,
    inputs: &BTreeMap<String, String>,
) -> Vec<String> {
    let values = |config: &ServerConfig| -> Vec<String> {
        match config {
            ServerConfig::Stdio(stdio) => stdio.env.values().cloned().collect(),
            ServerConfig::StreamableHttp(http) => http.http_headers.values().cloned().collect(),
            _ => Vec::new(),
        }
    };
    let mut secrets = values(server);
    if trust == TrustMode::Trusted
        && let Ok(expanded) = server.expanded_with_inputs(root, inputs)
    {
        secrets.extend(values(&expanded));
    }
    secrets
}
