//! Which server a subcommand talks to: a name in the configuration, a URL typed on the command
//! line, or a stdio server's command after `--`.
//!
//! With a command after `--` there is no SERVER positional, so every positional the user typed
//! moves one place to the left: in `mcpctl call echo message=hi -- node server.js`, clap sees
//! `echo` as SERVER and `message=hi` as TOOL; [`resolve`] puts them where they belong.

use std::collections::BTreeMap;
use std::path::Path;

use mcp_kit::arguments::split_pair;
use mcp_kit::config::{ServerConfig, StdioServer, is_valid_server_name};
use mcp_kit::security::url_host;

use crate::args::{Command, GlobalArgs, Launch, SkillsAction};
use crate::exit::usage;

/// The server of one run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Target {
    /// A server of the configuration, by name.
    Named(String),
    /// A streamable HTTP server at a URL the user typed.
    Url(String),
    /// A stdio server the user typed after `--`: program and arguments.
    Command(Vec<String>),
}

impl Target {
    /// `server` (a name or a URL), or the command after `--`.
    fn of(server: Option<String>, launch: &Launch) -> Option<Self> {
        if !launch.command.is_empty() {
            return Some(Target::Command(launch.command.clone()));
        }
        let server = server?;
        Some(if looks_like_url(&server) {
            Target::Url(server)
        } else {
            Target::Named(server)
        })
    }

    /// What the spinner and the messages call it.
    pub(crate) fn label(&self) -> String {
        match self {
            Target::Named(name) => format!("`{name}`"),
            Target::Url(url) => url.clone(),
            Target::Command(argv) => format!("`{}`", argv.join(" ")),
        }
    }

    /// The name the one-server configuration of a typed target gives it: the program's file
    /// name or the URL's host, as a valid server name.
    pub(crate) fn name(&self) -> String {
        let raw = match self {
            Target::Named(name) => return name.clone(),
            Target::Url(url) => url_host(url).unwrap_or_default(),
            Target::Command(argv) => argv
                .first()
                .and_then(|p| Path::new(p).file_name())
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
        };
        let mapped: String = raw
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '_' {
                    c
                } else {
                    '-'
                }
            })
            .collect();
        let name = mapped.trim_matches('-');
        if is_valid_server_name(name) {
            name.to_owned()
        } else {
            "server".to_owned()
        }
    }

    /// The configuration of a typed target, with the `--env` and `--header` flags; `None`
    /// for a named server. A flag that does not fit the target is a usage error rather than
    /// silently ignored.
    pub(crate) fn server_config(
        &self,
        global: &GlobalArgs,
    ) -> anyhow::Result<Option<ServerConfig>> {
        let env_flags = || (!global.env.is_empty()).then_some("-e/--env");
        let header_flags = || (!global.header.is_empty()).then_some("--header");
        let cwd_flag = || global.cwd.is_some().then_some("--cwd");
        let misplaced = match self {
            Target::Named(_) => env_flags().or(header_flags()).or(cwd_flag()),
            Target::Url(_) => env_flags().or(cwd_flag()),
            Target::Command(_) => header_flags(),
        };
        if let Some(flag) = misplaced {
            return Err(usage(format!(
                "{flag} does not apply to {}: -e/--env and --cwd are for a server command \
                 after `--`, --header for a server given by URL (a configured server takes \
                 them from the configuration)",
                self.label()
            )));
        }
        Ok(match self {
            Target::Named(_) => None,
            Target::Url(url) => {
                let mut config = ServerConfig::streamable_http(url.clone());
                if let ServerConfig::StreamableHttp(http) = &mut config {
                    http.http_headers = headers(&global.header)?;
                }
                Some(config)
            }
            Target::Command(argv) => Some(ServerConfig::Stdio(StdioServer {
                argv: argv.clone(),
                env: variables(&global.env)?,
                inherit_env: false,
                stdout_log: None,
                env_file: None,
            })),
        })
    }
}

/// `http://…` or `https://…`: a server name never has `:` or `/`.
fn looks_like_url(server: &str) -> bool {
    let lower = server.to_ascii_lowercase();
    lower.starts_with("http://") || lower.starts_with("https://")
}

/// `-e KEY=VALUE` flags.
fn variables(pairs: &[String]) -> anyhow::Result<BTreeMap<String, String>> {
    pairs
        .iter()
        .map(|pair| {
            let (key, value) = split_pair(pair, "-e").map_err(usage)?;
            Ok((key.to_owned(), value.to_owned()))
        })
        .collect()
}

/// `--header "Name: value"` flags.
fn headers(lines: &[String]) -> anyhow::Result<BTreeMap<String, String>> {
    lines
        .iter()
        .map(|line| match line.split_once(':') {
            Some((name, value)) if !name.trim().is_empty() => {
                Ok((name.trim().to_owned(), value.trim().to_owned()))
            }
            _ => Err(usage(format!(
                "--header {line:?}: expected \"Name: value\""
            ))),
        })
        .collect()
}

/// Moves `first` into `second`, returning what `second` held: one step of the shift left.
fn shift(first: &mut Option<String>, second: &mut Option<String>) -> Option<String> {
    std::mem::replace(second, first.take())
}

/// Fails when the user gave a positional too many for a command after `--`.
fn none_left(spilled: Option<String>, what: &str) -> anyhow::Result<()> {
    match spilled {
        None => Ok(()),
        Some(extra) => Err(usage(format!(
            "unexpected argument {extra:?} before `--`: with a server command after `--`, \
             give only {what} before it"
        ))),
    }
}

/// A positional the subcommand needs.
fn required(value: &Option<String>, name: &str) -> anyhow::Result<()> {
    match value {
        Some(_) => Ok(()),
        None => Err(usage(format!("missing {name}"))),
    }
}

/// Puts a subcommand's positionals in place and returns its server: with a command after
/// `--`, what clap took for SERVER is the `next` positional, whose value moves to the front of
/// `rest` (or is one too many, when there is no `rest`; `only` says what may come before `--`).
fn place(
    server: &mut Option<String>,
    launch: &Launch,
    next: Option<&mut Option<String>>,
    rest: Option<&mut Vec<String>>,
    only: &str,
) -> anyhow::Result<Option<Target>> {
    if !launch.command.is_empty() {
        let spilled = match next {
            Some(next) => shift(server, next),
            None => server.take(),
        };
        match (spilled, rest) {
            (Some(value), Some(rest)) => rest.insert(0, value),
            (spilled, _) => none_left(spilled, only)?,
        }
    }
    Ok(Target::of(server.take(), launch))
}

/// The server of `command` (`None` for the subcommands that talk to none), with its
/// positionals put in place and the required ones checked.
pub(crate) fn resolve(command: &mut Command) -> anyhow::Result<Option<Target>> {
    const SERVER: &str = "SERVER (a configured server's name or a URL), or a server command \
                          after `--`";
    const OPTIONS: &str = "the options";
    let target = match command {
        Command::ServerInfo(a)
        | Command::ListTools(a)
        | Command::ListResources(a)
        | Command::ListResourceTemplates(a)
        | Command::ListPrompts(a)
        | Command::Ping(a) => place(&mut a.server, &a.launch, None, None, OPTIONS)?,
        Command::Complete(a) => place(&mut a.server, &a.launch, None, None, OPTIONS)?,
        Command::Call(a) => {
            let target = place(
                &mut a.server,
                &a.launch,
                Some(&mut a.tool),
                Some(&mut a.pairs),
                OPTIONS,
            )?;
            required(&a.tool, "TOOL")?;
            target
        }
        Command::Task(a) => {
            let target = place(
                &mut a.server,
                &a.launch,
                Some(&mut a.id),
                None,
                "the task id",
            )?;
            required(&a.id, "ID (the task's id)")?;
            target
        }
        Command::GetPrompt(a) => {
            let target = place(
                &mut a.server,
                &a.launch,
                Some(&mut a.name),
                Some(&mut a.pairs),
                OPTIONS,
            )?;
            required(&a.name, "NAME (the prompt's name)")?;
            target
        }
        Command::ReadResource(a) => {
            let target = place(
                &mut a.server,
                &a.launch,
                Some(&mut a.uri),
                None,
                "the resource's URI",
            )?;
            required(&a.uri, "URI (the resource's URI)")?;
            target
        }
        Command::Skills(a) => match &mut a.action {
            None => place(&mut a.server, &a.launch, None, None, OPTIONS)?,
            Some(SkillsAction::Get(a) | SkillsAction::Ls(a)) => {
                let target = place(&mut a.server, &a.launch, Some(&mut a.uri), None, "the URI")?;
                required(&a.uri, "URI")?;
                target
            }
            Some(SkillsAction::Read(a)) => {
                if !a.launch.command.is_empty() {
                    // SERVER is absent: each positional belongs one place to the left.
                    let spilled = shift(&mut a.skill, &mut a.file);
                    none_left(spilled, "the skill and a file")?;
                }
                let target = place(
                    &mut a.server,
                    &a.launch,
                    Some(&mut a.skill),
                    None,
                    "the skill and a file",
                )?;
                required(&a.skill, "NAME|URI (the skill)")?;
                target
            }
        },
        Command::Request(a) | Command::Notify(a) => {
            let target = place(
                &mut a.server,
                &a.launch,
                Some(&mut a.method),
                None,
                "the method",
            )?;
            required(&a.method, "METHOD")?;
            target
        }
        Command::Login(a) => place(&mut a.server, &Launch::default(), None, None, OPTIONS)?,
        Command::Logout(a) => place(&mut a.server, &Launch::default(), None, None, OPTIONS)?,
        Command::ListServers
        | Command::Trust
        | Command::Untrust
        | Command::AuthStatus
        | Command::Completions(_) => {
            return Ok(None);
        }
    };
    match target {
        Some(target) => Ok(Some(target)),
        None => Err(usage(format!("missing {SERVER}"))),
    }
}

/// A positional [`resolve`] checked.
pub(crate) fn given(value: &Option<String>) -> &str {
    value.as_deref().unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;
    use crate::args::Cli;

    fn parse(line: &[&str]) -> (Command, anyhow::Result<Option<Target>>) {
        let mut cli = Cli::try_parse_from(std::iter::once("mcpctl").chain(line.iter().copied()))
            .expect("parses");
        let target = resolve(&mut cli.command);
        (cli.command, target)
    }

    fn command(argv: &[&str]) -> Target {
        Target::Command(argv.iter().map(|s| (*s).to_owned()).collect())
    }

    #[test]
    fn a_name_a_url_or_a_command() {
        let (_, t) = parse(&["list-tools", "docs"]);
        assert_eq!(t.unwrap(), Some(Target::Named("docs".into())));
        let (_, t) = parse(&["list-tools", "HTTPS://example.com/mcp"]);
        assert_eq!(
            t.unwrap(),
            Some(Target::Url("HTTPS://example.com/mcp".into()))
        );
        let (_, t) = parse(&["list-tools", "--", "node", "server.js", "--flag"]);
        assert_eq!(t.unwrap(), Some(command(&["node", "server.js", "--flag"])));
        let (_, t) = parse(&["list-servers"]);
        assert_eq!(t.unwrap(), None);
    }

    #[test]
    fn before_a_command_the_positionals_move_left() {
        let (c, t) = parse(&["call", "echo", "message=hi", "n=1", "--", "node", "s.js"]);
        assert_eq!(t.unwrap(), Some(command(&["node", "s.js"])));
        let Command::Call(call) = c else { panic!() };
        assert_eq!(given(&call.tool), "echo");
        assert_eq!(call.pairs, ["message=hi", "n=1"]);

        let (c, t) = parse(&["call", "https://h/mcp", "echo", "message=hi"]);
        assert_eq!(t.unwrap(), Some(Target::Url("https://h/mcp".into())));
        let Command::Call(call) = c else { panic!() };
        assert_eq!((given(&call.tool), call.pairs.len()), ("echo", 1));

        let (c, _) = parse(&["read-resource", "file:///a", "--", "srv"]);
        let Command::ReadResource(read) = c else {
            panic!()
        };
        assert_eq!(given(&read.uri), "file:///a");
        let (c, _) = parse(&["get-prompt", "greet", "name=x", "--", "srv"]);
        let Command::GetPrompt(get) = c else { panic!() };
        assert_eq!(
            (given(&get.name), get.pairs.as_slice()),
            ("greet", &["name=x".to_owned()][..])
        );
    }

    #[test]
    fn what_is_missing_or_too_much_is_named() {
        let message = |line: &[&str]| parse(line).1.unwrap_err().to_string();
        assert!(message(&["list-tools"]).contains("missing SERVER"));
        assert!(message(&["call", "docs"]).contains("missing TOOL"));
        assert!(message(&["call", "--", "node"]).contains("missing TOOL"));
        assert!(message(&["ping", "docs", "--", "node"]).contains("unexpected argument \"docs\""));
        assert!(message(&["request", "a", "b", "--", "node"]).contains("unexpected argument"));
    }

    #[test]
    fn typed_servers_get_a_valid_name_and_their_flags() {
        assert_eq!(command(&["/usr/bin/node", "x"]).name(), "node");
        assert_eq!(command(&["./my server.py"]).name(), "my-server-py");
        assert_eq!(
            Target::Url("https://api.example.com/mcp".into()).name(),
            "api-example-com"
        );
        assert_eq!(Target::Url("http://[::1]:80/".into()).name(), "1");
        assert_eq!(command(&["..."]).name(), "server");
        assert_eq!(
            Target::Url("http://127.0.0.1:8080/mcp".into()).name(),
            "127-0-0-1"
        );

        let cli = Cli::try_parse_from([
            "mcpctl", "-e", "A=1", "-e", "B=x=y", "--cwd", "/tmp", "ping", "--", "srv",
        ])
        .unwrap();
        let Some(ServerConfig::Stdio(stdio)) =
            command(&["srv"]).server_config(&cli.global).unwrap()
        else {
            panic!("stdio")
        };
        assert_eq!(stdio.env["A"], "1");
        assert_eq!(stdio.env["B"], "x=y");
        let error = Target::Named("docs".into())
            .server_config(&cli.global)
            .unwrap_err();
        assert!(
            error
                .to_string()
                .contains("-e/--env does not apply to `docs`")
        );

        let cli = Cli::try_parse_from(["mcpctl", "--header", "X-Token: abc", "ping", "https://h/"])
            .unwrap();
        let Some(ServerConfig::StreamableHttp(http)) = Target::Url("https://h/".into())
            .server_config(&cli.global)
            .unwrap()
        else {
            panic!("http")
        };
        assert_eq!(http.http_headers["X-Token"], "abc");
        let cli =
            Cli::try_parse_from(["mcpctl", "--header", "nocolon", "ping", "https://h/"]).unwrap();
        assert!(
            Target::Url("https://h/".into())
                .server_config(&cli.global)
                .is_err()
        );
    }
}
