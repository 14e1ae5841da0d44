//! The proxy's options: the optional `mcpx` object of the configuration file, then the
//! `MCPX_*` environment variables over it.
//!
//! ```json
//! {
//!   "mcpServers": { "github": { "command": "github-mcp-server", "args": ["stdio"] } },
//!   "mcpx": {
//!     "schema_compression_enabled": true,
//!     "max_description_len": 120,
//!     "listing_budget_tokens": 2000,
//!     "connect_timeout": 10,
//!     "call_timeout": 60,
//!     "servers": {
//!       "github": { "call_timeout": 120, "include": ["get_*", "list_*"], "exclude": ["delete_*"] },
//!       "legacy": { "protocol_version": "2025-11-25" }
//!     }
//!   }
//! }
//! ```
//!
//! Timeouts are seconds (fractions allowed). Unknown keys are errors, so a misspelt option is
//! never silently ignored.

use std::collections::BTreeMap;
use std::time::Duration;

use globset::{Glob, GlobSet, GlobSetBuilder};
use mcp_kit::config::value_kind;
use serde_json::{Map, Value};

/// The key of the proxy's own object in the configuration file.
pub const CONFIG_KEY: &str = "mcpx";

/// The environment variables that override the file, with what each sets.
pub const ENV_VARS: &[(&str, &str)] = &[
    (
        "MCPX_CONFIG",
        "the configuration file (as --config; a file named so is trusted)",
    ),
    (
        "MCPX_SCHEMA_COMPRESSION",
        "`true`/`false`: schemas as TypeScript types (schema_compression_enabled)",
    ),
    (
        "MCPX_MAX_DESCRIPTION_LEN",
        "longest description kept in a schema, in characters (max_description_len)",
    ),
    (
        "MCPX_LISTING_BUDGET_TOKENS",
        "token budget of the `inspect` description (listing_budget_tokens)",
    ),
    (
        "MCPX_CONNECT_TIMEOUT",
        "seconds to connect to an upstream, for every upstream (connect_timeout)",
    ),
    (
        "MCPX_CALL_TIMEOUT",
        "seconds an upstream call may take, for every upstream (call_timeout)",
    ),
];

/// Descriptions longer than this are cut in schemas (characters).
pub const DEFAULT_MAX_DESCRIPTION_LEN: usize = 120;
/// The `inspect` description's budget (o200k tokens). Measured on GitHub's 117 tools
/// (`docs/benchmarks.md`, mcpx section): the full listing is about 2,300 tokens, names only
/// about 600; at 1,500 that catalog keeps a 20-character line per tool and mcpx's whole
/// `tools/list` is 4.6% of the tools' own, and setups of up to about 60 tools keep the full
/// listing.
pub const DEFAULT_LISTING_BUDGET_TOKENS: usize = 1500;
/// How long connecting to one upstream may take, handshake and `tools/list` included.
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// How long one call to an upstream may take.
pub const DEFAULT_CALL_TIMEOUT: Duration = Duration::from_secs(60);

/// Everything the proxy can be told, besides the upstream servers themselves.
#[derive(Debug, Clone)]
pub struct ProxyOptions {
    /// Schemas in `inspect` text as TypeScript types (`schema_compression_enabled`).
    pub schema_compression: bool,
    /// Longest description kept in a schema (characters; 0 drops them).
    pub max_description_len: usize,
    /// The token budget of the `inspect` description.
    pub listing_budget_tokens: usize,
    /// Options of every upstream not named in [`upstreams`](Self::upstreams).
    pub defaults: UpstreamOptions,
    /// Options per upstream, by server name.
    pub upstreams: BTreeMap<String, UpstreamOptions>,
}

impl Default for ProxyOptions {
    fn default() -> Self {
        Self {
            schema_compression: true,
            max_description_len: DEFAULT_MAX_DESCRIPTION_LEN,
            listing_budget_tokens: DEFAULT_LISTING_BUDGET_TOKENS,
            defaults: UpstreamOptions::default(),
            upstreams: BTreeMap::new(),
        }
    }
}

/// Options of one upstream.
#[derive(Debug, Clone)]
pub struct UpstreamOptions {
    /// How long connecting may take (handshake and every page of `tools/list`).
    pub connect_timeout: Duration,
    /// How long one call may take.
    pub call_timeout: Duration,
    /// Which tools are shown: all when `None`, else those matching one of these globs.
    pub include: Option<ToolFilter>,
    /// Tools matching one of these globs are hidden (after `include`).
    pub exclude: Option<ToolFilter>,
    /// A protocol version to use instead of negotiating (e.g. `2025-11-25`).
    pub protocol_version: Option<String>,
}

impl Default for UpstreamOptions {
    fn default() -> Self {
        Self {
            connect_timeout: DEFAULT_CONNECT_TIMEOUT,
            call_timeout: DEFAULT_CALL_TIMEOUT,
            include: None,
            exclude: None,
            protocol_version: None,
        }
    }
}

impl UpstreamOptions {
    /// True when the tool `name` is shown (and callable) through the proxy.
    pub fn shows(&self, name: &str) -> bool {
        self.include.as_ref().is_none_or(|f| f.matches(name))
            && !self.exclude.as_ref().is_some_and(|f| f.matches(name))
    }
}

/// Glob patterns over tool names (`*`, `?`, `[abc]`, `{a,b}`).
#[derive(Debug, Clone)]
pub struct ToolFilter {
    patterns: Vec<String>,
    set: GlobSet,
}

impl ToolFilter {
    /// A filter of these patterns.
    ///
    /// # Errors
    /// The first pattern that is not a valid glob, with the reason.
    pub fn new(patterns: Vec<String>) -> Result<Self, String> {
        let mut builder = GlobSetBuilder::new();
        for pattern in &patterns {
            let glob = Glob::new(pattern).map_err(|e| format!("`{pattern}`: {e}"))?;
            builder.add(glob);
        }
        let set = builder.build().map_err(|e| e.to_string())?;
        Ok(Self { patterns, set })
    }

    /// True when `name` matches one of the patterns.
    pub fn matches(&self, name: &str) -> bool {
        self.set.is_match(name)
    }

    /// The patterns as written.
    pub fn patterns(&self) -> &[String] {
        &self.patterns
    }
}

/// An `mcpx` object that does not follow the schema; `at` names the key (`mcpx.servers.x`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{at}`: {message}")]
pub struct OptionsError {
    /// Where: the dotted path of the key.
    pub at: String,
    /// What is wrong and how to fix it.
    pub message: String,
}

fn error(at: &str, message: impl Into<String>) -> OptionsError {
    OptionsError {
        at: at.to_owned(),
        message: message.into(),
    }
}

const TOP_KEYS: &[&str] = &[
    "schema_compression_enabled",
    "max_description_len",
    "listing_budget_tokens",
    "connect_timeout",
    "call_timeout",
    "servers",
];
const UPSTREAM_KEYS: &[&str] = &[
    "connect_timeout",
    "call_timeout",
    "include",
    "exclude",
    "protocol_version",
];

impl ProxyOptions {
    /// Reads the `mcpx` object of a configuration file; `servers` are the configured server
    /// names, which `mcpx.servers` may only refer to.
    ///
    /// # Errors
    /// An unknown key, a value of the wrong type or range, or options for a server that is
    /// not configured, naming the key.
    pub fn from_json(value: &Value, servers: &[&str]) -> Result<Self, OptionsError> {
        let at = CONFIG_KEY;
        let top = object(at, value)?;
        known_keys(at, top, TOP_KEYS)?;
        let mut options = Self::default();
        if let Some(v) = top.get("schema_compression_enabled") {
            options.schema_compression = v.as_bool().ok_or_else(|| {
                error(
                    &key(at, "schema_compression_enabled"),
                    "expected true or false",
                )
            })?;
        }
        if let Some(v) = top.get("max_description_len") {
            options.max_description_len = count(&key(at, "max_description_len"), v)?;
        }
        if let Some(v) = top.get("listing_budget_tokens") {
            options.listing_budget_tokens = count(&key(at, "listing_budget_tokens"), v)?;
        }
        upstream_fields(at, top, &mut options.defaults, false)?;
        if let Some(v) = top.get("servers") {
            let at = key(at, "servers");
            for (name, entry) in object(&at, v)? {
                let at = key(&at, name);
                if !servers.contains(&name.as_str()) {
                    return Err(error(
                        &at,
                        format!(
                            "no server named `{name}` is configured (configured: {})",
                            servers.join(", ")
                        ),
                    ));
                }
                let mut upstream = options.defaults.clone();
                let entry = object(&at, entry)?;
                known_keys(&at, entry, UPSTREAM_KEYS)?;
                upstream_fields(&at, entry, &mut upstream, true)?;
                options.upstreams.insert(name.clone(), upstream);
            }
        }
        Ok(options)
    }

    /// Applies the `MCPX_*` variables of [`ENV_VARS`] found in `vars` over these options (the
    /// caller passes `std::env::vars()`; tests pass their own).
    ///
    /// # Errors
    /// A variable whose value does not parse, naming it.
    pub fn apply_env(
        &mut self,
        vars: impl IntoIterator<Item = (String, String)>,
    ) -> Result<(), OptionsError> {
        for (name, raw) in vars {
            let number = || {
                raw.trim()
                    .parse::<f64>()
                    .map(Value::from)
                    .map_err(|_| error(&name, "expected a number"))
            };
            let whole = || {
                raw.trim()
                    .parse::<usize>()
                    .map_err(|_| error(&name, "expected a whole number ≥ 0"))
            };
            match name.as_str() {
                "MCPX_SCHEMA_COMPRESSION" => {
                    self.schema_compression = match raw.trim() {
                        "true" | "1" | "yes" | "on" => true,
                        "false" | "0" | "no" | "off" => false,
                        _ => return Err(error(&name, "expected true or false")),
                    }
                }
                "MCPX_MAX_DESCRIPTION_LEN" => self.max_description_len = whole()?,
                "MCPX_LISTING_BUDGET_TOKENS" => self.listing_budget_tokens = whole()?,
                "MCPX_CONNECT_TIMEOUT" => {
                    let timeout = seconds(&name, &number()?)?;
                    self.for_each_upstream(|u| u.connect_timeout = timeout);
                }
                "MCPX_CALL_TIMEOUT" => {
                    let timeout = seconds(&name, &number()?)?;
                    self.for_each_upstream(|u| u.call_timeout = timeout);
                }
                _ => {}
            }
        }
        Ok(())
    }

    fn for_each_upstream(&mut self, mut set: impl FnMut(&mut UpstreamOptions)) {
        set(&mut self.defaults);
        self.upstreams.values_mut().for_each(set);
    }

    /// The options of the upstream `name`.
    pub fn upstream(&self, name: &str) -> &UpstreamOptions {
        self.upstreams.get(name).unwrap_or(&self.defaults)
    }
}

fn upstream_fields(
    at: &str,
    object: &Map<String, Value>,
    upstream: &mut UpstreamOptions,
    filters: bool,
) -> Result<(), OptionsError> {
    if let Some(v) = object.get("connect_timeout") {
        upstream.connect_timeout = seconds(&key(at, "connect_timeout"), v)?;
    }
    if let Some(v) = object.get("call_timeout") {
        upstream.call_timeout = seconds(&key(at, "call_timeout"), v)?;
    }
    if filters {
        if let Some(v) = object.get("include") {
            upstream.include = Some(filter(&key(at, "include"), v)?);
        }
        if let Some(v) = object.get("exclude") {
            upstream.exclude = Some(filter(&key(at, "exclude"), v)?);
        }
        if let Some(v) = object.get("protocol_version") {
            let at = key(at, "protocol_version");
            let version = v
                .as_str()
                .filter(|v| mcp_schema::Era::of(v).is_some())
                .ok_or_else(|| {
                    error(
                        &at,
                        format!("expected a protocol version such as \"2025-11-25\", got {v}"),
                    )
                })?;
            upstream.protocol_version = Some(version.to_owned());
        }
    }
    Ok(())
}

fn key(at: &str, name: &str) -> String {
    format!("{at}.{name}")
}

fn object<'a>(at: &str, value: &'a Value) -> Result<&'a Map<String, Value>, OptionsError> {
    value
        .as_object()
        .ok_or_else(|| error(at, format!("expected an object, got {}", value_kind(value))))
}

fn known_keys(at: &str, object: &Map<String, Value>, known: &[&str]) -> Result<(), OptionsError> {
    match object.keys().find(|k| !known.contains(&k.as_str())) {
        Some(unknown) => Err(error(
            &key(at, unknown),
            format!("unknown option (expected one of: {})", known.join(", ")),
        )),
        None => Ok(()),
    }
}

fn count(at: &str, value: &Value) -> Result<usize, OptionsError> {
    value
        .as_u64()
        .and_then(|n| usize::try_from(n).ok())
        .ok_or_else(|| error(at, format!("expected a whole number ≥ 0, got {value}")))
}

/// Longest timeout accepted: a day (a larger one is certainly a unit mistake).
const MAX_TIMEOUT_SECS: f64 = 86_400.0;

fn seconds(at: &str, value: &Value) -> Result<Duration, OptionsError> {
    match value.as_f64() {
        Some(s) if s > 0.0 && s <= MAX_TIMEOUT_SECS => Ok(Duration::from_secs_f64(s)),
        _ => Err(error(
            at,
            format!("expected a number of seconds greater than 0 and at most 86400, got {value}"),
        )),
    }
}

fn filter(at: &str, value: &Value) -> Result<ToolFilter, OptionsError> {
    let patterns = value
        .as_array()
        .and_then(|items| {
            items
                .iter()
                .map(|v| v.as_str().map(str::to_owned))
                .collect::<Option<Vec<_>>>()
        })
        .ok_or_else(|| error(at, "expected an array of tool-name globs, e.g. [\"get_*\"]"))?;
    ToolFilter::new(patterns).map_err(|e| error(at, format!("invalid glob {e}")))
}
