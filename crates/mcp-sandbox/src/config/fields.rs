//! Every setting once: its key in `[sandbox]`, its variable, what it means, and how its text
//! is read. The file and the environment both go through this table.

use std::path::PathBuf;
use std::time::Duration;

use mcp_server::config_value::{self as value, invalid, quoted};

use super::SandboxConfig;
use crate::backend::Network;

/// One setting.
#[derive(Debug)]
pub struct Field {
    /// The key in the `[sandbox]` table.
    pub key: &'static str,
    /// The environment variable.
    pub var: &'static str,
    /// What it sets, with its default.
    pub help: &'static str,
    pub(super) set: fn(&mut SandboxConfig, &str) -> Result<(), String>,
}

const MB: &str = "a whole number of MiB, at least 1";
const NETWORK: &str = "none (loopback only) or host";

fn seconds(text: &str) -> Result<Duration, String> {
    let d = value::duration(text)?;
    if d.is_zero() {
        return Err(invalid(&quoted(text), value::DURATION));
    }
    Ok(d)
}

fn count(text: &str) -> Result<usize, String> {
    value::count(text)
}

fn size(text: &str) -> Result<u64, String> {
    value::size(text).map(|n| n as u64)
}

fn boolean(text: &str) -> Result<bool, String> {
    match text.trim().to_ascii_lowercase().as_str() {
        "true" | "1" | "yes" => Ok(true),
        "false" | "0" | "no" => Ok(false),
        _ => Err(invalid(&quoted(text), "true or false")),
    }
}

fn path(text: &str) -> Result<Option<PathBuf>, String> {
    Ok(Some(PathBuf::from(text.trim())))
}

/// Every setting.
pub const FIELDS: &[Field] = &[
    Field {
        key: "session_timeout",
        var: "MSB_SESSION_TIMEOUT",
        help: "seconds (or \"30m\") a session may stay unused before it is stopped (1800)",
        set: |c, t| {
            c.session_timeout = seconds(t)?;
            Ok(())
        },
    },
    Field {
        key: "max_sessions",
        var: "MSB_MAX_SESSIONS",
        help: "the most sessions at once; at the cap the least recently used idle one is stopped (10)",
        set: |c, t| {
            c.max_sessions = count(t)?;
            Ok(())
        },
    },
    Field {
        key: "cleanup_interval",
        var: "MSB_CLEANUP_INTERVAL",
        help: "seconds between sweeps for idle sessions (60)",
        set: |c, t| {
            c.cleanup_interval = seconds(t)?;
            Ok(())
        },
    },
    Field {
        key: "default_flavor",
        var: "MSB_DEFAULT_FLAVOR",
        help: "small (1 CPU, 1 GiB), medium (2, 2 GiB) or large (4, 4 GiB) for new sessions (small)",
        set: |c, t| {
            c.default_flavor = t.parse().map_err(|e| format!("{e}"))?;
            Ok(())
        },
    },
    Field {
        key: "execution_timeout",
        var: "MSB_EXECUTION_TIMEOUT",
        help: "seconds an execution may run when the call gives no timeout (300)",
        set: |c, t| {
            c.execution_timeout = seconds(t)?;
            Ok(())
        },
    },
    Field {
        key: "max_execution_time",
        var: "MSB_MAX_EXECUTION_TIME",
        help: "the longest timeout a call may ask for, in seconds (1800)",
        set: |c, t| {
            c.max_execution_timeout = seconds(t)?;
            Ok(())
        },
    },
    Field {
        key: "max_total_memory_mb",
        var: "MSB_MAX_TOTAL_MEMORY_MB",
        help: "every session's memory together, in MiB; new sessions evict idle ones to fit (no cap)",
        set: |c, t| {
            let mb = t.trim().parse::<u64>().ok().filter(|n| *n > 0);
            c.max_total_memory_mb = Some(mb.ok_or_else(|| invalid(&quoted(t), MB))?);
            Ok(())
        },
    },
    Field {
        key: "shared_volumes",
        var: "MSB_SHARED_VOLUME_PATH",
        help: "host directories for every session: a JSON array or comma list of host:sandbox[:ro]",
        set: |c, t| {
            c.volumes = super::parse_volumes(t)?;
            Ok(())
        },
    },
    Field {
        key: "network",
        var: "MSB_NETWORK",
        help: "none (a loopback of its own) or host (the host's network: opt-in) (none)",
        set: |c, t| {
            c.network = match t.trim().to_ascii_lowercase().as_str() {
                "none" => Network::None,
                "host" => Network::Host,
                _ => return Err(invalid(&quoted(t), NETWORK)),
            };
            Ok(())
        },
    },
    Field {
        key: "max_output",
        var: "MSB_MAX_OUTPUT",
        help: "output kept per stream and execution, bytes or \"1MiB\" (1MiB)",
        set: |c, t| {
            c.max_output_bytes = value::size(t)?;
            Ok(())
        },
    },
    Field {
        key: "max_file_size",
        var: "MSB_MAX_FILE_SIZE",
        help: "the largest file code may write, bytes or \"1GiB\" (1GiB)",
        set: |c, t| {
            c.max_file_size = size(t)?;
            Ok(())
        },
    },
    Field {
        key: "max_processes",
        var: "MSB_MAX_PROCESSES",
        help: "processes and threads per session (256)",
        set: |c, t| {
            let n = count(t)?;
            c.max_processes = u32::try_from(n).map_err(|_| invalid(&quoted(t), value::COUNT))?;
            Ok(())
        },
    },
    Field {
        key: "max_open_files",
        var: "MSB_MAX_OPEN_FILES",
        help: "open files per process (1024)",
        set: |c, t| {
            c.max_open_files = count(t)? as u64;
            Ok(())
        },
    },
    Field {
        key: "tmp_size",
        var: "MSB_TMP_SIZE",
        help: "size of each session's private /tmp, bytes or \"256MiB\" (256MiB)",
        set: |c, t| {
            c.tmp_size = size(t)?;
            Ok(())
        },
    },
    Field {
        key: "start_timeout",
        var: "MSB_SANDBOX_START_TIMEOUT",
        help: "seconds an interpreter may take to start (10)",
        set: |c, t| {
            c.start_timeout = seconds(t)?;
            Ok(())
        },
    },
    Field {
        key: "pool_size",
        var: "MSB_POOL_SIZE",
        help: "sandboxes of the default flavor kept started per template, so new sessions do not wait (1; 0: none)",
        set: |c, t| {
            c.pool_size = t
                .trim()
                .parse()
                .map_err(|_| invalid(&quoted(t), "a whole number, 0 or more"))?;
            Ok(())
        },
    },
    Field {
        key: "workspace_root",
        var: "MSB_WORKSPACE_ROOT",
        help: "where session workspaces live (a new temporary directory, removed at shutdown)",
        set: |c, t| {
            c.workspace_root = path(t)?;
            Ok(())
        },
    },
    Field {
        key: "bwrap",
        var: "MSB_BWRAP",
        help: "the bubblewrap binary (bwrap on PATH)",
        set: |c, t| {
            c.bwrap = path(t)?;
            Ok(())
        },
    },
    Field {
        key: "python",
        var: "MSB_PYTHON",
        help: "the Python interpreter (python3 in /usr/local/bin, /usr/bin, /bin)",
        set: |c, t| {
            c.python = path(t)?;
            Ok(())
        },
    },
    Field {
        key: "node",
        var: "MSB_NODE",
        help: "the Node.js interpreter (node in /usr/local/bin, /usr/bin, /bin)",
        set: |c, t| {
            c.node = path(t)?;
            Ok(())
        },
    },
    Field {
        key: "rlimits_only",
        var: "MSB_RLIMITS_ONLY",
        help: "limit with rlimits even where cgroups are writable (false)",
        set: |c, t| {
            c.rlimits_only = boolean(t)?;
            Ok(())
        },
    },
];

pub(super) fn by_key(key: &str) -> Option<&'static Field> {
    FIELDS.iter().find(|f| f.key == key)
}

pub(super) fn unknown_key(key: &str) -> String {
    let keys: Vec<&str> = FIELDS.iter().map(|f| f.key).collect();
    match value::suggestion(key, &keys) {
        Some(close) => format!("unknown key (did you mean {close}?)"),
        None => format!("unknown key (the keys are {})", keys.join(", ")),
    }
}

/// A TOML value as the text its variable would hold (arrays as JSON).
pub(super) fn toml_text(value: &toml::Value) -> Result<String, String> {
    match value {
        toml::Value::String(s) => Ok(s.clone()),
        toml::Value::Integer(n) => Ok(n.to_string()),
        toml::Value::Boolean(b) => Ok(b.to_string()),
        toml::Value::Array(items) => {
            let texts: Option<Vec<&str>> = items.iter().map(toml::Value::as_str).collect();
            let texts = texts.ok_or_else(|| "expected an array of strings".to_owned())?;
            Ok(serde_json::to_string(&texts).expect("strings serialize"))
        }
        other => Err(format!("unexpected {}", other.type_str())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_key_and_variable_once() {
        let mut keys: Vec<&str> = FIELDS.iter().map(|f| f.key).collect();
        let mut vars: Vec<&str> = FIELDS.iter().map(|f| f.var).collect();
        keys.sort_unstable();
        keys.dedup();
        vars.sort_unstable();
        vars.dedup();
        assert_eq!((keys.len(), vars.len()), (FIELDS.len(), FIELDS.len()));
    }

    #[test]
    fn file_and_environment_share_the_parsers() {
        let table: toml::Table = "max_sessions = 4\nsession_timeout = \"2m\"\nnetwork = \"host\"\n\
             shared_volumes = [\"/a:/b:ro\"]"
            .parse()
            .unwrap();
        let config = SandboxConfig::default().with_table(&table, None).unwrap();
        assert_eq!(config.max_sessions, 4);
        assert_eq!(config.session_timeout, Duration::from_secs(120));
        assert_eq!(config.network, Network::Host);
        assert_eq!(config.volumes, ["/a:/b:ro"]);
        let table: toml::Table = "max_sesions = 4".parse().unwrap();
        let error = SandboxConfig::default()
            .with_table(&table, None)
            .unwrap_err();
        assert_eq!(
            error.to_string(),
            "sandbox.max_sesions: unknown key (did you mean max_sessions?)"
        );
        let error = SandboxConfig::default()
            .with_vars([("MSB_DEFAULT_FLAVOR", "huge")])
            .unwrap_err();
        assert!(
            error
                .to_string()
                .starts_with("MSB_DEFAULT_FLAVOR: unknown flavor `huge`")
        );
    }
}
