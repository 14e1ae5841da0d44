//! `${VAR}` placeholders: expanded from the process environment, in Trusted mode only.

use std::env::{self, VarError};
use std::path::Path;

use super::{ConfigError, HttpUrls, ServerConfig};

/// Placeholders replaced by the root instead of an environment variable.
const ROOT_PLACEHOLDERS: [&str; 2] = ["CLAUDE_PLUGIN_ROOT", "MCP_ROOT"];

/// Expands the `${NAME}` placeholders of one configuration value.
///
/// - `${CLAUDE_PLUGIN_ROOT}` and `${MCP_ROOT}` become `root` (as given, not canonicalized),
///   whatever the environment says;
/// - any other `${NAME}` becomes the value of the process environment variable `NAME`; a
///   variable that is not set is an error naming it ([`ConfigError::UnsetVariable`]);
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
    let mut out = String::with_capacity(value.len());
    let mut rest = value;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let end = after
            .find('}')
            .ok_or(ConfigError::UnterminatedPlaceholder { field: None })?;
        out.push_str(&resolve(&after[..end], root)?);
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// The value of one placeholder.
fn resolve(name: &str, root: &Path) -> Result<String, ConfigError> {
    let invalid = |reason: String| ConfigError::InvalidPlaceholder {
        placeholder: name.to_owned(),
        field: None,
        reason,
    };
    if name.is_empty() || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
        return Err(invalid(
            "a variable name must be non-empty and use only ASCII letters, digits and `_` \
             (write `${NAME}`)"
                .to_owned(),
        ));
    }
    if ROOT_PLACEHOLDERS.contains(&name) {
        return root.to_str().map(str::to_owned).ok_or_else(|| {
            invalid(format!(
                "the root {} is not valid UTF-8 (use a root whose path is UTF-8)",
                root.display()
            ))
        });
    }
    match env::var(name) {
        Ok(value) => Ok(value),
        Err(VarError::NotPresent) => Err(ConfigError::UnsetVariable {
            name: name.to_owned(),
            field: None,
        }),
        Err(VarError::NotUnicode(_)) => Err(invalid(format!(
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
        let expand = |value: &str, field: &dyn Fn() -> String| {
            expand_placeholders(value, root).map_err(|e| e.in_field(field))
        };
        match self {
            ServerConfig::Stdio(stdio) => {
                let mut out = stdio.clone();
                for (i, arg) in out.argv.iter_mut().enumerate() {
                    *arg = expand(arg, &|| format!("argv[{i}]"))?;
                }
                for (key, value) in &mut out.env {
                    *value = expand(value, &|| format!("env.{key}"))?;
                }
                Ok(ServerConfig::Stdio(out))
            }
            ServerConfig::Unix(unix) => Ok(ServerConfig::Unix(unix.clone())),
            ServerConfig::StreamableHttp(http) => {
                let mut out = http.clone();
                match &mut out.urls {
                    HttpUrls::Single(url) => *url = expand(url, &|| "url".to_owned())?,
                    HttpUrls::Split { sse_url, http_url } => {
                        *sse_url = expand(sse_url, &|| "sse_url".to_owned())?;
                        *http_url = expand(http_url, &|| "http_url".to_owned())?;
                    }
                }
                for (name, value) in &mut out.http_headers {
                    *value = expand(value, &|| format!("http_headers.{name}"))?;
                }
                Ok(ServerConfig::StreamableHttp(out))
            }
        }
    }
}
