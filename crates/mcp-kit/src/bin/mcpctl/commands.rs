//! Running the subcommands: load the configuration, build the [`Manager`] from the flags,
//! connect, send, print.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use mcp_kit::arguments::{
    check_required, json_object, json_object_file, split_pair, string_pairs, typed_pairs,
};
use mcp_kit::config::DISCOVERED_FILES;
use mcp_kit::mcp::{CompleteContext, CompleteRequestParams, Reference};
use mcp_kit::{Config, Manager, Session, TrustMode};
use serde_json::{Map, Value, json};

use crate::args::{CallArgs, Cli, Command, CompleteArgs, GetPromptArgs, OutputFormat, RawArgs};
use crate::client::{self, CLIENT_NAME};
use crate::console::Console;
use crate::era_cache::EraCache;
use crate::exit::{Exit, Failure, server_failure, usage};
use crate::output::{Printer, resolve_format, write_stdout};
use crate::spinner::Spinner;
use crate::target::{self, Target, given};
use crate::{config_view, inputs, oauth, trust_store, views};

/// How long a stdio server gets to exit after its stdin closes, before it is killed.
const EXIT_GRACE: Duration = Duration::from_secs(2);

/// What the subcommands share.
struct Context {
    /// The manager: the loaded configuration and root, and the flags.
    manager: Manager,
    /// Where results go.
    printer: Printer,
    /// Where what the server sends besides results goes.
    console: Arc<Console>,
    /// The era the server spoke last time, and where to remember this one.
    era_cache: Option<EraCache>,
}

/// Runs the command line.
pub(crate) async fn run(cli: Cli) -> anyhow::Result<()> {
    let Cli {
        global,
        mut command,
    } = cli;
    if let Command::Completions(args) = &command {
        return write_stdout(&completion_script(args.shell)?);
    }
    let target = target::resolve(&mut command)?;
    let root = resolve_root(global.root.as_deref())?;
    let format = resolve_format(global.json, global.output);
    let printer = Printer::new(format);
    let Some(target) = target else {
        let config = Config::load(&root, global.config.clone()).await?;
        return match command {
            Command::Trust | Command::Untrust => {
                trust_store::remember(&config, &root, matches!(command, Command::Trust))
            }
            Command::AuthStatus => oauth::auth_status(&config, printer),
            _ => {
                let view = config_view::describe(&config, global.show_argv);
                printer.print(&view, config_view::human)
            }
        };
    };
    let (config, root, trust) = match target.server_config(&global)? {
        // What the user typed is trusted: no configuration file is read for it.
        Some(server) => {
            let root = match &global.cwd {
                Some(dir) => resolve_dir(dir, "--cwd")?,
                None => root,
            };
            let config = Config::default().with_server(target.name(), server);
            (config, root, TrustMode::Trusted)
        }
        None => {
            let config = Config::load(&root, global.config.clone()).await?;
            check_configured(&config, &root, &target.name())?;
            let trust = if global.trust || trust_store::trusted_by_the_user(&config, &root) {
                TrustMode::Trusted
            } else {
                TrustMode::Untrusted
            };
            (config, root, trust)
        }
    };
    let console = Arc::new(Console::new(format));
    let name = target.name();
    // A pinned version makes the handshake: nothing to remember then.
    let pinned = global.protocol_version.is_some() || config.client.protocol_version.is_some();
    let era_cache = config
        .servers
        .get(&name)
        .filter(|_| !pinned)
        .and_then(|server| EraCache::of(server, &root));
    // VS Code inputs are only used where placeholders expand: in Trusted mode.
    let inputs = match trust {
        TrustMode::Trusted => inputs::values(&config, &name, &global.input)?,
        _ => BTreeMap::new(),
    };
    let mut manager = client::build_manager(&global, config, root, trust, inputs, &name, &console)?;
    if let Some(era) = era_cache.as_ref().and_then(EraCache::get) {
        manager = manager.with_era_hint(name.clone(), era);
    }
    let ctx = Context {
        manager,
        printer,
        console,
        era_cache,
    };
    match &command {
        Command::Login(login) => {
            return oauth::login(&ctx.manager, &name, login.no_browser, printer).await;
        }
        Command::Logout(_) => return oauth::logout(&ctx.manager, &name, printer).await,
        _ => {}
    }
    match run_on_server(&ctx, &target, command.clone()).await {
        // A server that needs a login: offered on a terminal, then the command once more.
        Err(error)
            if oauth::login_would_help(&error, global.json)
                && oauth::ask_to_log_in(&name).await =>
        {
            oauth::login(&ctx.manager, &name, false, printer).await?;
            run_on_server(&ctx, &target, command).await
        }
        outcome => outcome,
    }
}

/// The script that registers mcpctl's completions with `shell`: the shell then asks mcpctl
/// itself (`COMPLETE=<shell> mcpctl -- …`) as you type, so that server names come from the
/// configuration of the directory you are in.
fn completion_script(shell: clap_complete::Shell) -> anyhow::Result<String> {
    let name = shell.to_string();
    let shells = clap_complete::env::Shells::builtins();
    let completer = shells
        .completer(&name)
        .ok_or_else(|| usage(format!("no completion support for {name}")))?;
    let mut out = Vec::new();
    completer.write_registration("COMPLETE", CLIENT_NAME, CLIENT_NAME, CLIENT_NAME, &mut out)?;
    Ok(String::from_utf8_lossy(&out).into_owned())
}

/// Fails with what to do when `server` is not in `config`: no file was found at all, or the
/// file has no such server (its servers are listed).
fn check_configured(config: &Config, root: &Path, server: &str) -> anyhow::Result<()> {
    if config.servers.contains_key(server) {
        return Ok(());
    }
    let Some(path) = &config.path else {
        return Err(usage(format!(
            "no configuration file found in {} (looked for {}), so there is no server \
             `{server}`: point --config at a file, or name the server on the command line \
             (a URL, or its command after `--`: mcpctl list-tools -- node server.js)",
            root.display(),
            DISCOVERED_FILES.join(", ")
        )));
    };
    if let Some(skipped) = config.skipped.iter().find(|s| s.name == server) {
        return Err(usage(format!(
            "server `{server}` in {} is not loaded: {}",
            path.display(),
            skipped.reason
        )));
    }
    let known: Vec<&str> = config.servers.keys().map(String::as_str).collect();
    Err(usage(format!(
        "no server `{server}` in {} (its servers: {})",
        path.display(),
        if known.is_empty() {
            "none".to_owned()
        } else {
            known.join(", ")
        }
    )))
}

/// The absolute workspace root: `--root`, else the current directory.
fn resolve_root(root: Option<&Path>) -> anyhow::Result<PathBuf> {
    match root {
        Some(root) => resolve_dir(root, "--root"),
        None => std::env::current_dir()
            .map_err(|e| usage(format!("cannot determine the current directory: {e}"))),
    }
}

/// `dir`, absolute, which must be a directory (`flag` names it in the error).
pub(crate) fn resolve_dir(dir: &Path, flag: &str) -> anyhow::Result<PathBuf> {
    let absolute = std::path::absolute(dir)
        .map_err(|e| usage(format!("invalid {flag} {}: {e}", dir.display())))?;
    if !absolute.is_dir() {
        return Err(usage(format!(
            "{flag} {} is not a directory",
            dir.display()
        )));
    }
    Ok(absolute)
}

/// Connects to the command's server, runs the command, and closes the connection whatever
/// the outcome.
async fn run_on_server(ctx: &Context, target: &Target, command: Command) -> anyhow::Result<()> {
    // Checked before connecting, so that a bad argument costs no connection.
    let early = prepare(&command)?;
    // Listening from now on: Ctrl-C while connecting drops the connection being made (a
    // spawned server is killed with it).
    let mut interrupt = std::pin::pin!(tokio::signal::ctrl_c());
    let name = target.name();
    let mut session = {
        let _spinner = Spinner::start(format!("connecting to {}…", target.label()));
        tokio::select! {
            session = ctx.manager.open(&name) => session?,
            _ = &mut interrupt => {
                return Err(Failure {
                    exit: Exit::Interrupted,
                    message: format!("interrupted while connecting to {}", target.label()),
                }
                .into());
            }
        }
    };
    if let Some(cache) = &ctx.era_cache {
        cache.put(session.negotiated().era());
    }
    let work = Box::pin(dispatch(ctx, &session, &command, early));
    let outcome = tokio::select! {
        outcome = work => outcome,
        // Dropping the command's future cancels its request (notifications/cancelled, or
        // the 2026-07-28 stream closed); shut_down then ends the session (DELETE over HTTP).
        _ = &mut interrupt => Err(interrupted(&command, &session)),
    };
    ctx.console.clear_progress();
    let outcome = match outcome {
        // A server that died mid-command: say how it ended and what it printed last.
        Err(error) => match error.downcast::<mcp_kit::Error>() {
            Ok(error) => Err(session.with_exit_details(error).await.into()),
            Err(error) => Err(error),
        },
        ok => ok,
    };
    shut_down(session).await;
    outcome
}

/// The error of a command stopped by Ctrl-C, saying what was cancelled.
fn interrupted(command: &Command, session: &Session) -> anyhow::Error {
    let what = match command {
        Command::Call(call) => format!("the call of tool `{}`", given(&call.tool)),
        Command::Task(task) => format!("the wait for task `{}`", given(&task.id)),
        Command::Request(raw) => format!("the request `{}`", given(&raw.method)),
        _ => "the command".to_owned(),
    };
    Failure {
        exit: Exit::Interrupted,
        message: format!(
            "interrupted: cancelled {what} on server `{}`",
            session.server_name()
        ),
    }
    .into()
}

/// What is parsed from the command line before connecting.
#[derive(Debug, Default)]
struct Prepared {
    /// `request`/`notify`: the params.
    params: Option<Value>,
    /// `call`: the arguments from `--arguments-json` / `--arguments-file`.
    arguments: Map<String, Value>,
    /// `get-prompt`: the prompt arguments.
    prompt_arguments: Map<String, Value>,
    /// `complete`: the params.
    complete: Option<CompleteRequestParams>,
}

/// Parses the parts of the command line that need no server.
fn prepare(command: &Command) -> anyhow::Result<Prepared> {
    let mut prepared = Prepared::default();
    match command {
        Command::Request(raw) | Command::Notify(raw) => prepared.params = raw_params(raw)?,
        Command::Call(call) => {
            if let Some(text) = &call.arguments_json {
                prepared.arguments = json_object(text, "--arguments-json").map_err(usage)?;
            } else if let Some(path) = &call.arguments_file {
                prepared.arguments = json_object_file(path).map_err(usage)?;
            }
            // The pairs are checked here for their shape; converted once the schema is known.
            for pair in &call.pairs {
                split_pair(pair, "argument").map_err(usage)?;
            }
        }
        Command::GetPrompt(GetPromptArgs { pairs, .. }) => {
            prepared.prompt_arguments = string_pairs(pairs, "prompt argument").map_err(usage)?;
        }
        Command::Complete(args) => prepared.complete = Some(complete_params(args)?),
        _ => {}
    }
    Ok(prepared)
}

/// `--params-json`: a JSON object or array.
fn raw_params(raw: &RawArgs) -> anyhow::Result<Option<Value>> {
    let Some(text) = &raw.params_json else {
        return Ok(None);
    };
    match serde_json::from_str::<Value>(text) {
        Ok(params @ (Value::Object(_) | Value::Array(_))) => Ok(Some(params)),
        Ok(_) => Err(usage("--params-json must be a JSON object or array")),
        Err(e) => Err(usage(format!("--params-json is not valid JSON: {e}"))),
    }
}

/// The params of `completion/complete` from `complete`'s flags.
fn complete_params(args: &CompleteArgs) -> anyhow::Result<CompleteRequestParams> {
    let reference = match (&args.prompt, &args.resource_template) {
        (Some(name), _) => Reference::prompt(name.clone()),
        (None, Some(uri)) => Reference::resource_template(uri.clone()),
        (None, None) => return Err(usage("complete needs --prompt or --resource-template")),
    };
    let (name, value) = split_pair(&args.argument, "--argument").map_err(usage)?;
    let mut params = CompleteRequestParams::new(reference, name, value);
    if !args.context.is_empty() {
        let arguments: BTreeMap<String, String> = string_pairs(&args.context, "--context")
            .map_err(usage)?
            .into_iter()
            .map(|(k, v)| (k, v.as_str().unwrap_or_default().to_owned()))
            .collect();
        params.context = Some(CompleteContext {
            arguments: Some(arguments),
            ..CompleteContext::default()
        });
    }
    Ok(params)
}

/// Closes the connection: a stdio server sees end of file and gets [`EXIT_GRACE`] to exit
/// before it is killed; a streamable HTTP session is ended with `DELETE`.
async fn shut_down(mut session: Session) {
    let outcome = session
        .peer_mut()
        .wait_with_timeout(
            EXIT_GRACE,
            mcp_jsonrpc::WaitOnTimeout::Kill {
                kill_timeout: EXIT_GRACE,
            },
        )
        .await;
    if let Err(e) = outcome {
        tracing::debug!(error = %e, "closing the connection");
    }
}

/// Runs one subcommand on an open session.
async fn dispatch(
    ctx: &Context,
    session: &Session,
    command: &Command,
    early: Prepared,
) -> anyhow::Result<()> {
    let printer = ctx.printer;
    match command {
        Command::ServerInfo(_) => {
            let handshake = session.negotiated().handshake();
            let info = json!({
                "server": session.server_name(),
                "protocol_version": session.protocol_version(),
                "handshake": handshake,
                "result": session.initialize_result(),
            });
            printer.print(&info, views::server_info)
        }
        Command::ListTools(_) => {
            let tools = session.list_all_tools().await?;
            printer.print(&json!({ "tools": tools }), views::tools)
        }
        Command::ListResources(_) => {
            let resources = session.list_all_resources().await?;
            printer.print(&json!({ "resources": resources }), views::resources)
        }
        Command::ListResourceTemplates(_) => {
            let templates = session.list_all_resource_templates().await?;
            printer.print(
                &json!({ "resourceTemplates": templates }),
                views::resource_templates,
            )
        }
        Command::ListPrompts(_) => {
            let prompts = session.list_all_prompts().await?;
            printer.print(&json!({ "prompts": prompts }), views::prompts)
        }
        Command::Call(call) => {
            call_tool(session, printer, &ctx.console, call, early.arguments).await
        }
        Command::Task(task) => crate::tasks::task(session, printer, &ctx.console, task).await,
        Command::ReadResource(read) => {
            let result = session.read_resource(given(&read.uri)).await?;
            printer.print(&serde_json::to_value(result)?, views::resource_contents)
        }
        Command::GetPrompt(get) => {
            let arguments = Some(early.prompt_arguments).filter(|a| !a.is_empty());
            let result = session.get_prompt(given(&get.name), arguments).await?;
            printer.print(&serde_json::to_value(result)?, views::prompt)
        }
        Command::Complete(_) => {
            let params = early
                .complete
                .ok_or_else(|| usage("complete needs --argument"))?;
            let result = session.complete(params).await?;
            printer.print(&serde_json::to_value(result)?, views::completion)
        }
        Command::Ping(_) => {
            let started = Instant::now();
            session.ping().await?;
            let elapsed = started.elapsed().as_millis();
            let server = session.server_name().to_owned();
            printer.print(&json!({}), |_| {
                format!("pong from `{server}` in {elapsed} ms")
            })
        }
        Command::Skills(args) => crate::skills::run(session, printer, args).await,
        Command::Request(raw) => {
            let result = session.request(given(&raw.method), early.params).await?;
            match printer.format() {
                OutputFormat::Table => {
                    Printer::new(OutputFormat::Pretty).print(&result, |_| String::new())
                }
                _ => printer.print(&result, |_| String::new()),
            }
        }
        Command::Notify(raw) => {
            session.notify(given(&raw.method), early.params).await?;
            Ok(())
        }
        Command::ListServers
        | Command::Trust
        | Command::Untrust
        | Command::Login(_)
        | Command::Logout(_)
        | Command::AuthStatus
        | Command::Completions(_) => Ok(()),
    }
}

/// `call`: converts `KEY=VALUE` pairs by the tool's input schema (fetched with
/// `tools/list`), merges them over the JSON arguments, calls with a progress token (progress
/// shown on the console), prints the result; a result
/// with `isError: true` is printed, then reported as a failure.
async fn call_tool(
    session: &Session,
    printer: Printer,
    console: &Console,
    call: &CallArgs,
    mut arguments: Map<String, Value>,
) -> anyhow::Result<()> {
    let name = given(&call.tool);
    // Arguments given as JSON only are sent as they are; otherwise the tool's schema types the
    // pairs and names the required arguments still missing, before the call.
    let json_only =
        call.pairs.is_empty() && (call.arguments_json.is_some() || call.arguments_file.is_some());
    if !json_only {
        let tools = session.list_all_tools().await?;
        match tools.iter().find(|t| t.name == name) {
            Some(tool) => {
                let schema = serde_json::to_value(&tool.input_schema)?;
                arguments.extend(typed_pairs(&call.pairs, &schema, name).map_err(usage)?);
                check_required(&arguments, &schema, name).map_err(usage)?;
            }
            // Without pairs to type, a tool the list does not show is still called: the
            // server has the last word on it.
            None if call.pairs.is_empty() => {}
            None => {
                return Err(server_failure(format!(
                    "server `{}` has no tool `{}` (not in its tools/list), so its KEY=VALUE \
                     arguments cannot be converted; check the name with list-tools, or pass \
                     --arguments-json",
                    session.server_name(),
                    name
                )));
            }
        }
    }
    let result = if call.task {
        match crate::tasks::call(session, console, name, arguments, call.detach).await? {
            Some(result) => result,
            None => return Ok(()),
        }
    } else {
        let (mut progress, call) = session.call_tool_with_progress(name, Some(arguments));
        let mut call = std::pin::pin!(call);
        let result = loop {
            tokio::select! {
                result = &mut call => break result?,
                Some(update) = progress.recv() => console.progress(session.server_name(), &update),
            }
        };
        // Progress that arrived with the result.
        while let Ok(update) = progress.try_recv() {
            console.progress(session.server_name(), &update);
        }
        result
    };
    console.clear_progress();
    let is_error = result.is_error == Some(true);
    printer.print(&serde_json::to_value(result)?, views::tool_result)?;
    if is_error {
        return Err(server_failure(format!(
            "tool `{}` of server `{}` returned an error result (isError: true)",
            name,
            session.server_name()
        )));
    }
    Ok(())
}
