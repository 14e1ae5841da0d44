//! The arguments of each subcommand (clap derive); docs/cli.md documents them.

use std::path::PathBuf;

use clap::{ArgGroup, Args, Subcommand, ValueEnum};
use clap_complete::Shell;
use clap_complete::engine::ArgValueCompleter;

use super::{TARGET_HELP, configured_servers};

/// `login`.
#[derive(Debug, Clone, Args)]
pub(crate) struct LoginArgs {
    /// The server: its name in the configuration, or a URL
    #[arg(add = ArgValueCompleter::new(configured_servers))]
    pub(crate) server: Option<String>,

    /// Print the authorization URL instead of opening a browser
    #[arg(long)]
    pub(crate) no_browser: bool,
}

/// `logout`.
#[derive(Debug, Clone, Args)]
pub(crate) struct LogoutArgs {
    /// The server: its name in the configuration, or a URL
    #[arg(add = ArgValueCompleter::new(configured_servers))]
    pub(crate) server: Option<String>,
}

/// A stdio server's command, after `--`.
#[derive(Debug, Clone, Default, Args)]
pub(crate) struct Launch {
    /// A stdio server to start instead of SERVER: its program and arguments, after `--`
    #[arg(last = true, value_name = "COMMAND")]
    pub(crate) command: Vec<String>,
}

/// A subcommand that only names a server.
#[derive(Debug, Clone, Args)]
#[command(after_help = TARGET_HELP)]
pub(crate) struct ServerArg {
    /// The server: its name in the configuration, or a URL
    #[arg(add = ArgValueCompleter::new(configured_servers))]
    pub(crate) server: Option<String>,

    #[command(flatten)]
    pub(crate) launch: Launch,
}

/// `call`.
#[derive(Debug, Clone, Args)]
#[command(
    after_help = "KEY=VALUE pairs are converted by the tool's input schema: \
                        string properties are kept verbatim; integer, number, boolean, array, \
                        object and null ones are parsed as JSON. Unknown keys are refused unless \
                        the schema sets additionalProperties. Pairs override the keys of \
                        --arguments-json / --arguments-file, which are sent as they are.\n\n\
                        SERVER is a server's name in the configuration, or an http(s) URL; \
                        instead of SERVER a stdio server's command may follow `--`: \
                        `mcpctl call echo message=hi -- node server.js`."
)]
pub(crate) struct CallArgs {
    /// The server: its name in the configuration, or a URL (omitted with `-- COMMAND`)
    #[arg(add = ArgValueCompleter::new(configured_servers))]
    pub(crate) server: Option<String>,

    /// The tool's name
    pub(crate) tool: Option<String>,

    /// Arguments as KEY=VALUE, converted by the tool's input schema
    #[arg(value_name = "KEY=VALUE")]
    pub(crate) pairs: Vec<String>,

    /// Arguments as a JSON object
    #[arg(long, value_name = "JSON", conflicts_with = "arguments_file")]
    pub(crate) arguments_json: Option<String>,

    /// Arguments from a file holding a JSON object (`-`: standard input)
    #[arg(long, value_name = "PATH")]
    pub(crate) arguments_file: Option<PathBuf>,

    /// When the server runs the call as a task (tasks extension, protocol 2026-07-28), print
    /// its id on stderr at once, then follow it (Ctrl-C cancels it)
    #[arg(long)]
    pub(crate) task: bool,

    /// With --task: print the task's id on stdout and exit without waiting (read it later with
    /// `mcpctl task get SERVER ID`)
    #[arg(long, requires = "task")]
    pub(crate) detach: bool,

    #[command(flatten)]
    pub(crate) launch: Launch,
}

/// What `task` does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum TaskAction {
    /// Show the task: status, status message, input requests, result or error
    Get,
    /// Ask the server to stop the task
    Cancel,
}

/// `task`.
#[derive(Debug, Clone, Args)]
#[command(after_help = TARGET_HELP)]
pub(crate) struct TaskArgs {
    /// What to do with the task
    pub(crate) action: TaskAction,

    /// The server: its name in the configuration, or a URL (omitted with `-- COMMAND`)
    #[arg(add = ArgValueCompleter::new(configured_servers))]
    pub(crate) server: Option<String>,

    /// The task's id (as `call --task` printed it)
    pub(crate) id: Option<String>,

    /// `get`: wait until the task ended (answering its input requests), then print its result
    #[arg(long)]
    pub(crate) wait: bool,

    #[command(flatten)]
    pub(crate) launch: Launch,
}

/// `read-resource`.
#[derive(Debug, Clone, Args)]
#[command(after_help = TARGET_HELP)]
pub(crate) struct ReadResourceArgs {
    /// The server: its name in the configuration, or a URL (omitted with `-- COMMAND`)
    #[arg(add = ArgValueCompleter::new(configured_servers))]
    pub(crate) server: Option<String>,

    /// The resource's URI
    pub(crate) uri: Option<String>,

    #[command(flatten)]
    pub(crate) launch: Launch,
}

/// `get-prompt`.
#[derive(Debug, Clone, Args)]
#[command(after_help = TARGET_HELP)]
pub(crate) struct GetPromptArgs {
    /// The server: its name in the configuration, or a URL (omitted with `-- COMMAND`)
    #[arg(add = ArgValueCompleter::new(configured_servers))]
    pub(crate) server: Option<String>,

    /// The prompt's name
    pub(crate) name: Option<String>,

    /// Prompt arguments as KEY=VALUE (values are strings)
    #[arg(value_name = "KEY=VALUE")]
    pub(crate) pairs: Vec<String>,

    #[command(flatten)]
    pub(crate) launch: Launch,
}

/// `complete`.
#[derive(Debug, Clone, Args)]
#[command(group(ArgGroup::new("reference").required(true).args(["prompt", "resource_template"])))]
#[command(after_help = TARGET_HELP)]
pub(crate) struct CompleteArgs {
    /// The server: its name in the configuration, or a URL (omitted with `-- COMMAND`)
    #[arg(add = ArgValueCompleter::new(configured_servers))]
    pub(crate) server: Option<String>,

    /// Complete an argument of this prompt
    #[arg(long, value_name = "NAME")]
    pub(crate) prompt: Option<String>,

    /// Complete a variable of this resource template (its URI template)
    #[arg(long, value_name = "URI")]
    pub(crate) resource_template: Option<String>,

    /// The argument being completed and what was typed so far
    #[arg(long, value_name = "NAME=VALUE", required = true)]
    pub(crate) argument: String,

    /// An already-resolved argument (repeatable)
    #[arg(long, value_name = "NAME=VALUE")]
    pub(crate) context: Vec<String>,

    #[command(flatten)]
    pub(crate) launch: Launch,
}

/// `request` and `notify`.
#[derive(Debug, Clone, Args)]
#[command(after_help = TARGET_HELP)]
pub(crate) struct RawArgs {
    /// The server: its name in the configuration, or a URL (omitted with `-- COMMAND`)
    #[arg(add = ArgValueCompleter::new(configured_servers))]
    pub(crate) server: Option<String>,

    /// The JSON-RPC method
    pub(crate) method: Option<String>,

    /// The params: a JSON object or array
    #[arg(long, value_name = "JSON")]
    pub(crate) params_json: Option<String>,

    #[command(flatten)]
    pub(crate) launch: Launch,
}

/// What `skills`' help adds.
const SKILLS_HELP: &str = "Without a subcommand: every skill of SERVER (skills/list, all pages) as \
                           name, description, URI, file count and size. Nothing is read but the \
                           listing. `read` checks what it reads against the skill's entry (size, \
                           SHA-256 digest, and for SKILL.md the frontmatter) and prints nothing \
                           that fails; it reads only files the entry lists.\n\n\
                           SERVER is a server's name in the configuration, or an http(s) URL; \
                           instead of SERVER a stdio server's command may follow `--`: \
                           `mcpctl skills read pdf-processing -- node server.js`.";

/// `skills`.
#[derive(Debug, Clone, Args)]
#[command(args_conflicts_with_subcommands = true, after_help = SKILLS_HELP)]
pub(crate) struct SkillsArgs {
    /// Show, read or browse one skill
    #[command(subcommand)]
    pub(crate) action: Option<SkillsAction>,

    /// The server: its name in the configuration, or a URL (omitted with `-- COMMAND`)
    #[arg(add = ArgValueCompleter::new(configured_servers))]
    pub(crate) server: Option<String>,

    #[command(flatten)]
    pub(crate) launch: Launch,
}

/// The subcommands of `skills`.
#[derive(Debug, Clone, Subcommand)]
pub(crate) enum SkillsAction {
    /// Show one skill's entry (skills/get): its frontmatter and its files with their digests
    #[command(after_help = TARGET_HELP)]
    Get(SkillUriArgs),

    /// Print a skill's SKILL.md, or one of its files, checked against the skill's entry
    #[command(after_help = SKILLS_HELP)]
    Read(SkillReadArgs),

    /// List a directory of a server's skills (resources/directory/read)
    #[command(after_help = TARGET_HELP)]
    Ls(SkillUriArgs),
}

/// `skills get` and `skills ls`.
#[derive(Debug, Clone, Args)]
pub(crate) struct SkillUriArgs {
    /// The server: its name in the configuration, or a URL (omitted with `-- COMMAND`)
    #[arg(add = ArgValueCompleter::new(configured_servers))]
    pub(crate) server: Option<String>,

    /// The URI: of a skill's SKILL.md (`get`), or of a directory (`ls`)
    pub(crate) uri: Option<String>,

    #[command(flatten)]
    pub(crate) launch: Launch,
}

/// `skills read`.
#[derive(Debug, Clone, Args)]
pub(crate) struct SkillReadArgs {
    /// The server: its name in the configuration, or a URL (omitted with `-- COMMAND`)
    #[arg(add = ArgValueCompleter::new(configured_servers))]
    pub(crate) server: Option<String>,

    /// The skill: its name (as `skills` lists it) or the URI of its SKILL.md
    #[arg(value_name = "NAME|URI")]
    pub(crate) skill: Option<String>,

    /// A file of the skill, relative to its root (`references/FORMS.md`) or as a URI; without
    /// it, the SKILL.md
    pub(crate) file: Option<String>,

    #[command(flatten)]
    pub(crate) launch: Launch,
}

/// `completions`.
#[derive(Debug, Clone, Args)]
pub(crate) struct CompletionsArgs {
    /// The shell
    #[arg(value_enum)]
    pub(crate) shell: Shell,
}
