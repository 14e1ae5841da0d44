//! `${VAR}` placeholders: expanded from the process environment, in Trusted mode only.

use std::collections::BTreeMap;
use std::env::{self, VarError};
use std::path::Path;

use super::{ConfigError, HttpUrls, ServerConfig};

/// Placeholders replaced by the root instead of an environment variable (Claude Code's
/// plugin root, ours, and VS Code's and Cursor's workspace folder).
const ROOT_PLACEHOLDERS: [&str; 3] = ["CLAUDE_PLUGIN_ROOT", "MCP_ROOT", "workspaceFolder"];

/// The placeholder replaced by the user's home directory (VS Code, Cursor).
const HOME_PLACEHOLDER: &str = "userHome";

/// What a placeholder names an environment variable with in VS Code and Cursor: `${env:NAME}`.
const ENV_PREFIX: &str = "env:";

/// What a placeholder names an input with in VS Code: `${input:ID}`.
const INPUT_PREFIX: &str = "input:";

/// What separates a variable from its default in Claude Code: `${NAME:-default}`.
const DEFAULT_SEPARATOR: &str = ":-";

/// What [`ServerConfig::each_expandable`] calls for each field: its name (built on demand) and
/// its value.
type FieldVisitor<'a> = dyn FnMut(&dyn Fn() -> String, &mut String) -> Result<(), ConfigError> + 'a;

/// Expands the `${NAME}` placeholders of one configuration value.
///
/// - `${CLAUDE_PLUGIN_ROOT}`, `${MCP_ROOT}` and `${workspaceFolder}` become `root` (as given,
///   not canonicalized), whatever the environment says; `${userHome}` becomes the user's home
///   directory;
/// - any other `${NAME}`, or `${env:NAME}` (VS Code's and Cursor's form), becomes the value of
///   the process environment variable `NAME`; a variable that is not set is an error naming
///   it ([`ConfigError::UnsetVariable`]), unless the placeholder gives a default:
///   `${NAME:-default}` (Claude Code's form) becomes `default` then;
/// - a `$` not followed by `{` is kept as is (there is no escape: `$$` stays `$$`);
/// - a `${` without a closing `}` is an error ([`ConfigError::UnterminatedPlaceholder`]), and
///   so is a name that is empty or uses anything but ASCII letters, digits and `_`
///   ([`ConfigError::InvalidPlaceholder`]);
/// - substituted text is not expanded again.
///
/// **Trusted mode only.** Expansion reads the process environment, which usually holds
/// secrets; an untrusted configuration could use a placeholder to send one to a server of its
/// choosing. The connection manager therefore calls this (through
/// [`ServerConfig::expanded`]) only in [`TrustMode::Trusted`](crate::TrustMode::Trusted) and
/// uses the values verbatim otherwise.
///
/// # Errors
///
/// [`ConfigError::UnsetVariable`], [`ConfigError::UnterminatedPlaceholder`] or
/// [`ConfigError::InvalidPlaceholder`]; they never include the value being expanded (it may
/// hold a secret).
pub fn expand_placeholders(value: &str, root: &Path) -> Result<String, ConfigError> {
    expand(value, root, &BTreeMap::new())
}

/// [`expand_placeholders`], with the values of `${input:ID}` placeholders.
fn expand(
    value: &str,
    root: &Path,
    inputs: &BTreeMap<String, String>,
) -> Result<String, ConfigError> {
    let mut out = String::with_capacity(value.len());
    let mut rest = value;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let end = after
            .find('}')
            .ok_or(ConfigError::UnterminatedPlaceholder { field: None })?;
        out.push_str(&resolve(&after[..end], root, inputs)?);
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// The value of one placeholder.
fn resolve(
    placeholder: &str,
    root: &Path,
    inputs: &BTreeMap<String, String>,
) -> Result<String, ConfigError> {
    if let Some(id) = placeholder.strip_prefix(INPUT_PREFIX) {
        return inputs
            .get(id)
            .cloned()
            .ok_or_else(|| ConfigError::MissingInput {
                id: id.to_owned(),
                field: None,
            });
    }
    let invalid = |reason: String| ConfigError::InvalidPlaceholder {
        placeholder: placeholder.to_owned(),
        field: None,
        reason,
    };
    let (name, default) = match placeholder.split_once(DEFAULT_SEPARATOR) {
        Some((name, default)) => (name, Some(default)),
        None => (placeholder, None),
    };
    let from_env = name.strip_prefix(ENV_PREFIX);
    let name = from_env.unwrap_or(name);
    if name.is_empty() || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
        return Err(invalid(
            "a variable name must be non-empty and use only ASCII letters, digits and `_` \
             (write `${NAME}`)"
                .to_owned(),
        ));
    }
    if from_env.is_none() && name == HOME_PLACEHOLDER {
        return match env::home_dir() {
            Some(home) => home
                .to_str()
                .map(str::to_owned)
                .ok_or_else(|| invalid("the home directory is not valid UTF-8".to_owned())),
            None => Err(invalid(
                "the home directory is not known (set HOME)".to_owned(),
            )),
        };
    }
    if from_env.is_none() && ROOT_PLACEHOLDERS.contains(&name) {
        return root.to_str().map(str::to_owned).ok_or_else(|| {
            invalid(format!(
                "the root {} is not valid UTF-8 (use a root whose path is UTF-8)",
                root.display()
            ))
        });
    }
    match (env::var(name), default) {
        (Ok(value), _) => Ok(value),
        (Err(VarError::NotPresent), Some(default)) => Ok(default.to_owned()),
        (Err(VarError::NotPresent), None) => Err(ConfigError::UnsetVariable {
            name: name.to_owned(),
            field: None,
        }),
        (Err(VarError::NotUnicode(_)), _) => Err(invalid(format!(
            "the value of environment variable `{name}` is not valid UTF-8 (set it to UTF-8 \
             text)"
        ))),
    }
}

impl ServerConfig {
    /// A copy with the `${VAR}` placeholders expanded (see [`expand_placeholders`]) in the
    /// fields that allow them: a stdio server's `argv` and `env` values, a streamable HTTP
    /// server's `url` (or `sse_url` and `http_url`) and `http_headers` values. Nothing else
    /// changes; a unix server is returned as is.
    ///
    /// **Trusted mode only**: the manager calls this in
    /// [`TrustMode::Trusted`](crate::TrustMode::Trusted) and never otherwise, so an untrusted
    /// configuration cannot read the environment. A placeholder error names the field
    /// (`argv[1]`, `env.KEY`, `url`, `http_headers.X-Api-Key`, …).
    ///
    /// # Errors
    ///
    /// The first placeholder error, as for [`expand_placeholders`], with its field set.
    pub fn expanded(&self, root: &Path) -> Result<ServerConfig, ConfigError> {
        self.expanded_with_inputs(root, &BTreeMap::new())
    }

    /// [`expanded`](Self::expanded), with the values of `${input:ID}` placeholders (VS Code's
    /// `inputs`), and a stdio server's `env_file` read: its variables are added to `env`
    /// (those of `env` win) and `env_file` is cleared. **Trusted mode only**, like
    /// [`expanded`](Self::expanded).
    ///
    /// # Errors
    ///
    /// As [`expanded`](Self::expanded); [`ConfigError::MissingInput`] for an input without a
    /// value; [`ConfigError::EnvFile`] for an env file that cannot be read or parsed.
    pub fn expanded_with_inputs(
        &self,
        root: &Path,
        inputs: &BTreeMap<String, String>,
    ) -> Result<ServerConfig, ConfigError> {
        let mut out = self.clone();
        out.each_expandable(&mut |field, value| {
            *value = expand(value, root, inputs).map_err(|e| e.in_field(field))?;
            Ok(())
        })?;
        if let ServerConfig::Stdio(stdio) = &mut out
            && let Some(file) = stdio.env_file.take()
        {
            for (name, value) in read_env_file(&root.join(&file))? {
                stdio.env.entry(name).or_insert(value);
            }
        }
        Ok(out)
    }

    /// The ids of the `${input:ID}` placeholders in the fields that allow placeholders, each
    /// once, in order.
    pub fn inputs_used(&self) -> Vec<String> {
        let mut ids: Vec<String> = Vec::new();
        let mut copy = self.clone();
        let _ = copy.each_expandable(&mut |_, value| {
            let mut rest = value.as_str();
            while let Some(start) = rest.find("${") {
                let after = &rest[start + 2..];
                let Some(end) = after.find('}') else { break };
                if let Some(id) = after[..end].strip_prefix(INPUT_PREFIX)
                    && !ids.iter().any(|known| known == id)
                {
                    ids.push(id.to_owned());
                }
                rest = &after[end + 1..];
            }
            Ok(())
        });
        ids
    }

    /// The fields that hold a `${…}` placeholder (`argv[1]`, `env.KEY`, `url`,
    /// `http_headers.X-Api-Key`, …): in Untrusted mode they are sent as written, which the
    /// manager warns about.
    pub fn fields_with_placeholders(&self) -> Vec<String> {
        let mut fields = Vec::new();
        let mut copy = self.clone();
        let _ = copy.each_expandable(&mut |field, value| {
            if value.contains("${") {
                fields.push(field());
            }
            Ok(())
        });
        fields
    }

    /// Calls `visit` with the name and value of each field that may hold placeholders.
    fn each_expandable(&mut self, visit: &mut FieldVisitor<'_>) -> Result<(), ConfigError> {
        match self {
            ServerConfig::Stdio(stdio) => {
                for (i, arg) in stdio.argv.iter_mut().enumerate() {
                    visit(&|| format!("argv[{i}]"), arg)?;
                }
                for (key, value) in &mut stdio.env {
                    visit(&|| format!("env.{key}"), value)?;
                }
                if let Some(file) = &mut stdio.env_file {
                    visit(&|| "envFile".to_owned(), file)?;
                }
            }
            ServerConfig::Unix(_) => {}
            ServerConfig::StreamableHttp(http) => {
                match &mut http.urls {
                    HttpUrls::Single(url) => visit(&|| "url".to_owned(), url)?,
                    HttpUrls::Split { sse_url, http_url } => {
                        visit(&|| "sse_url".to_owned(), sse_url)?;
                        visit(&|| "http_url".to_owned(), http_url)?;
                    }
                }
                for (name, value) in &mut http.http_headers {
                    visit(&|| format!("http_headers.{name}"), value)?;
                }
            }
        }
        Ok(())
    }
}

/// The variables of a dotenv file (VS Code's `envFile`).
fn read_env_file(path: &Path) -> Result<Vec<(String, String)>, ConfigError> {
    let failed = |reason: String| ConfigError::EnvFile {
        path: path.to_path_buf(),
        reason,
    };
    let entries = dotenvy::from_path_iter(path).map_err(|e| failed(e.to_string()))?;
    entries
        .map(|entry| entry.map_err(|e| failed(e.to_string())))
        .collect()
}
