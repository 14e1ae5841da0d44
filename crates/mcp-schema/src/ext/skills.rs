//! The skills extension (`io.modelcontextprotocol/skills`, SEP-2640; every protocol era).
//!
//! An Agent Skill is a directory whose `SKILL.md` starts with YAML frontmatter (`name`,
//! `description`, …). A server serves each file of a skill as an ordinary resource,
//! `skill://<skill-path>/<file-path>`, where the last segment of `<skill-path>` is the skill's
//! `name`. On top of `resources/read` the extension adds:
//!
//! * `skills/list` ([`ListSkillsResult`]): one [`SkillEntry`] per skill, paged, never split
//!   across pages; from 2026-07-28 with cache hints;
//! * `skills/get` ([`GetSkillRequestParams`] → [`GetSkillResult`]): one skill's entry by the
//!   URI of its `SKILL.md`, listed or not;
//! * `resources/directory/read` ([`ReadDirectoryRequestParams`] → [`ReadDirectoryResult`]):
//!   the direct children of a directory resource (subdirectories have the MIME type
//!   [`DIRECTORY_MIME_TYPE`]), when the server's settings say [`SkillsSettings::directory_read`].
//!
//! An entry's `resources` lists every file of the skill with its SHA-256 digest and size, so a
//! client can check what it reads; [`verify`] holds those checks (and, with the `frontmatter`
//! feature, the parser that decides whether a `SKILL.md`'s frontmatter is the entry's).
//!
//! ```
//! use mcp_schema::ext::skills::{self, SkillEntry, SkillResources};
//! use serde_json::json;
//!
//! let entry: SkillEntry = serde_json::from_value(json!({
//!     "uri": "skill://acme/billing/refunds/SKILL.md",
//!     "frontmatter": {"name": "refunds", "description": "Handle refund requests"},
//!     "resources": "dynamic"
//! })).unwrap();
//! assert_eq!(entry.resources, SkillResources::Dynamic);
//! assert_eq!(skills::skill_root(&entry.uri), Some("skill://acme/billing/refunds"));
//! assert_eq!(skills::skill_name(&entry.uri), Some("refunds"));
//! assert!(skills::is_valid_name("refunds") && !skills::is_valid_name("Refunds"));
//! ```

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::capabilities::ServerCapabilities;
use crate::common::{CacheScope, JsonObject, ResultType};
use crate::macros::{cache_hints, extensible, has_meta, result_fields, value_union_serde};
use crate::meta::Meta;
use crate::pagination::Cursor;
use crate::resources::Resource;

pub mod verify;

pub use super::SKILLS;

/// The file every skill has at its root.
pub const SKILL_MD: &str = "SKILL.md";
/// The scheme skills are served under by convention (`skill://`); no scheme is privileged.
pub const SCHEME: &str = "skill";
/// The MIME type of a `SKILL.md`.
pub const SKILL_MD_MIME_TYPE: &str = "text/markdown";
/// The MIME type of a directory resource (`resources/directory/read`).
pub const DIRECTORY_MIME_TYPE: &str = "inode/directory";
/// The `resources` value of a skill whose content is generated, so that no digests exist.
pub const DYNAMIC: &str = "dynamic";
/// The most files a skill may have (its `resources` entries, `SKILL.md` included) that every
/// host must accept.
pub const MAX_FILES_PER_SKILL: usize = 512;
/// The most bytes a skill's files may add up to that every host must accept (16 MiB).
pub const MAX_BYTES_PER_SKILL: u64 = 16 * 1024 * 1024;
/// The longest skill name.
pub const MAX_NAME_LEN: usize = 64;
/// The `_meta` prefix reserved for this extension's keys on skill resources.
pub const META_PREFIX: &str = "io.modelcontextprotocol.skills/";
/// The `frontmatter.metadata` prefix reserved for keys defined by MCP extensions.
pub const METADATA_PREFIX: &str = "io.modelcontextprotocol/";
/// The capability setting that says the server implements `resources/directory/read`.
pub const DIRECTORY_READ: &str = "directoryRead";

/// The extension's settings in the server's capabilities
/// (`extensions["io.modelcontextprotocol/skills"]`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SkillsSettings {
    /// Whether the server implements `resources/directory/read` (absent: no).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub directory_read: Option<bool>,
    /// Members not modelled here.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl SkillsSettings {
    /// The settings `capabilities` declare for the extension, if it declares it (settings
    /// that do not parse count as none).
    pub fn of(capabilities: &ServerCapabilities) -> Option<Self> {
        let settings = capabilities.extension(SKILLS)?;
        Some(serde_json::from_value(Value::Object(settings.clone())).unwrap_or_default())
    }

    /// Whether `resources/directory/read` may be called.
    pub fn directory_read(&self) -> bool {
        self.directory_read == Some(true)
    }

    /// The settings as the JSON object a capability declaration carries.
    pub fn to_object(&self) -> JsonObject {
        match serde_json::to_value(self) {
            Ok(Value::Object(object)) => object,
            _ => JsonObject::new(),
        }
    }
}

/// One file of a skill as its entry lists it (`{uri, digest, size}`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SkillFile {
    /// The file's resource URI.
    pub uri: String,
    /// `sha256:` and 64 lowercase hex digits of the file's raw bytes.
    pub digest: String,
    /// The length of the file's raw bytes.
    pub size: u64,
    /// Members not modelled here.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A skill's files: the complete list with digests, or `"dynamic"` (no digests exist).
#[derive(Debug, Clone, PartialEq)]
pub enum SkillResources {
    /// Every file of the skill, each once, `SKILL.md` included.
    Files(Vec<SkillFile>),
    /// The string `"dynamic"`: the content is generated and cannot be verified.
    Dynamic,
    /// Anything else (an invalid entry a host must not load), kept verbatim.
    Unknown(Value),
}

impl Serialize for SkillResources {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            SkillResources::Files(files) => files.serialize(serializer),
            SkillResources::Dynamic => serializer.serialize_str(DYNAMIC),
            SkillResources::Unknown(value) => value.serialize(serializer),
        }
    }
}

value_union_serde!(SkillResources, |v| Ok(match v {
    Value::String(s) if s == DYNAMIC => SkillResources::Dynamic,
    Value::Array(_) => match serde_json::from_value(v.clone()) {
        Ok(files) => SkillResources::Files(files),
        Err(_) => SkillResources::Unknown(v),
    },
    other => SkillResources::Unknown(other),
}));

impl SkillResources {
    /// The files, when the entry lists them.
    pub fn files(&self) -> Option<&[SkillFile]> {
        match self {
            SkillResources::Files(files) => Some(files),
            _ => None,
        }
    }

    /// The listed file `uri`.
    pub fn file(&self, uri: &str) -> Option<&SkillFile> {
        self.files()?.iter().find(|f| f.uri == uri)
    }

    /// The sum of the listed sizes (0 for `"dynamic"`).
    pub fn total_size(&self) -> u64 {
        self.files()
            .map_or(0, |f| f.iter().map(|f| f.size).fold(0, u64::saturating_add))
    }
}

/// One skill as `skills/list` and `skills/get` describe it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SkillEntry {
    /// The URI of the skill's `SKILL.md`.
    pub uri: String,
    /// The `SKILL.md` frontmatter, verbatim, as JSON (`name` and `description` at least).
    pub frontmatter: JsonObject,
    /// The skill's files, or `"dynamic"`.
    pub resources: SkillResources,
    /// Members not modelled here.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl SkillEntry {
    /// The frontmatter's `name`.
    pub fn name(&self) -> Option<&str> {
        self.frontmatter.get("name").and_then(Value::as_str)
    }

    /// The frontmatter's `description`.
    pub fn description(&self) -> Option<&str> {
        self.frontmatter.get("description").and_then(Value::as_str)
    }

    /// The skill's root directory (the URI without `/SKILL.md`).
    pub fn root(&self) -> Option<&str> {
        skill_root(&self.uri)
    }
}

/// The result of `skills/list`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListSkillsResult {
    /// The skills of this page (may be empty or partial).
    pub skills: Vec<SkillEntry>,
    /// The cursor of the next page; absent on the last page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<Cursor>,
    /// Freshness hint in milliseconds (2026-07-28).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl_ms: Option<u64>,
    /// Cache scope (2026-07-28).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_scope: Option<CacheScope>,
    /// `resultType` (2026-07-28; absent means complete).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members not modelled here.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Params of `skills/get`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct GetSkillRequestParams {
    /// The URI of the skill's `SKILL.md`.
    pub uri: String,
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members not modelled here.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl GetSkillRequestParams {
    /// Params asking for the skill whose `SKILL.md` is `uri`.
    pub fn new(uri: impl Into<String>) -> Self {
        Self {
            uri: uri.into(),
            ..Self::default()
        }
    }
}

/// The result of `skills/get`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetSkillResult {
    /// The skill's entry, as the server holds it now.
    pub skill: SkillEntry,
    /// Freshness hint in milliseconds (2026-07-28).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl_ms: Option<u64>,
    /// Cache scope (2026-07-28).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_scope: Option<CacheScope>,
    /// `resultType` (2026-07-28; absent means complete).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members not modelled here.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl GetSkillResult {
    /// The result carrying `skill`.
    pub fn new(skill: SkillEntry) -> Self {
        Self {
            skill,
            ttl_ms: None,
            cache_scope: None,
            result_type: None,
            meta: None,
            extra: Map::new(),
        }
    }
}

/// Params of `resources/directory/read`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ReadDirectoryRequestParams {
    /// The directory's URI (no trailing slash).
    pub uri: String,
    /// Where to continue from (a previous result's `nextCursor`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<Cursor>,
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members not modelled here.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl ReadDirectoryRequestParams {
    /// Params asking for the children of directory `uri`.
    pub fn new(uri: impl Into<String>) -> Self {
        Self {
            uri: uri.into(),
            ..Self::default()
        }
    }
}

/// The result of `resources/directory/read`: the directory's direct children.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReadDirectoryResult {
    /// Files with their resource metadata; subdirectories with [`DIRECTORY_MIME_TYPE`].
    pub resources: Vec<Resource>,
    /// The cursor of the next page; absent on the last page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<Cursor>,
    /// `resultType` (2026-07-28; absent means complete).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members not modelled here.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Whether `name` follows the Agent Skills naming rules: 1 to 64 characters, lowercase ASCII
/// letters, digits and hyphens, no hyphen first, last or twice in a row.
pub fn is_valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= MAX_NAME_LEN
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !name.starts_with('-')
        && !name.ends_with('-')
        && !name.contains("--")
}

/// Whether `digest` has the form `sha256:` and 64 lowercase hex digits.
pub fn is_valid_digest(digest: &str) -> bool {
    digest.strip_prefix("sha256:").is_some_and(|hex| {
        hex.len() == 64
            && hex
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    })
}

/// The root directory of the skill whose `SKILL.md` is `uri` (`skill://a/b/SKILL.md` →
/// `skill://a/b`); `None` unless `uri` is `<scheme>://<skill-path>/SKILL.md`.
pub fn skill_root(uri: &str) -> Option<&str> {
    let root = uri.strip_suffix(SKILL_MD)?.strip_suffix('/')?;
    let (_, path) = root.split_once("://")?;
    (!path.is_empty() && path.split('/').all(|s| !s.is_empty())).then_some(root)
}

/// The skill name a `SKILL.md` URI implies: the last segment of its skill path.
pub fn skill_name(uri: &str) -> Option<&str> {
    skill_root(uri)?.rsplit('/').next()
}

/// The URI of `path`, relative to the root of the skill whose `SKILL.md` is `skill_uri`
/// (`references/GUIDE.md` → `skill://…/references/GUIDE.md`); `None` when `path` is empty,
/// absolute, or steps out of the skill (`..`, `.`, empty segments).
pub fn resolve(skill_uri: &str, path: &str) -> Option<String> {
    let root = skill_root(skill_uri)?;
    let clean = !path.is_empty()
        && path
            .split('/')
            .all(|s| !s.is_empty() && s != "." && s != "..");
    clean.then(|| format!("{root}/{path}"))
}

has_meta!(
    ListSkillsResult,
    GetSkillRequestParams,
    GetSkillResult,
    ReadDirectoryRequestParams,
    ReadDirectoryResult
);
extensible!(
    SkillsSettings,
    SkillFile,
    SkillEntry,
    ListSkillsResult,
    GetSkillRequestParams,
    GetSkillResult,
    ReadDirectoryRequestParams,
    ReadDirectoryResult
);
cache_hints!(ListSkillsResult, GetSkillResult);
result_fields!(ReadDirectoryResult);

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn names_follow_the_agent_skills_rules() {
        for good in ["a", "pdf-processing", "x1-2", &"a".repeat(64)] {
            assert!(is_valid_name(good), "{good}");
        }
        for bad in ["", "-a", "a-", "a--b", "A", "a_b", "a.b", &"a".repeat(65)] {
            assert!(!is_valid_name(bad), "{bad}");
        }
    }

    #[test]
    fn digests_are_sha256_in_lowercase_hex() {
        let hex = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
        assert!(is_valid_digest(&format!("sha256:{hex}")));
        assert!(!is_valid_digest(&format!("sha256:{}", hex.to_uppercase())));
        assert!(!is_valid_digest(&format!("sha512:{hex}")));
        assert!(!is_valid_digest("sha256:abc"));
    }

    #[test]
    fn skill_uris() {
        assert_eq!(skill_root("skill://git/SKILL.md"), Some("skill://git"));
        assert_eq!(skill_name("github://o/r/refunds/SKILL.md"), Some("refunds"));
        assert_eq!(skill_root("skill:///SKILL.md"), None);
        assert_eq!(skill_root("skill://a//SKILL.md"), None);
        assert_eq!(skill_root("skill://a/README.md"), None);
        assert_eq!(
            resolve("skill://a/b/SKILL.md", "references/G.md").as_deref(),
            Some("skill://a/b/references/G.md")
        );
        assert_eq!(resolve("skill://a/b/SKILL.md", "../c/SKILL.md"), None);
        assert_eq!(resolve("skill://a/b/SKILL.md", "/etc"), None);
    }

    #[test]
    fn resources_are_files_dynamic_or_kept_verbatim() {
        let files = json!([{"uri": "skill://a/SKILL.md", "digest": "sha256:00", "size": 3}]);
        let parsed: SkillResources = serde_json::from_value(files.clone()).unwrap();
        assert_eq!(parsed.files().unwrap()[0].size, 3);
        assert_eq!(serde_json::to_value(&parsed).unwrap(), files);
        let dynamic: SkillResources = serde_json::from_value(json!("dynamic")).unwrap();
        assert_eq!(serde_json::to_value(&dynamic).unwrap(), json!("dynamic"));
        for other in [json!("static"), json!(7), json!([{"uri": 1}])] {
            let parsed: SkillResources = serde_json::from_value(other.clone()).unwrap();
            assert_eq!(parsed, SkillResources::Unknown(other));
        }
    }

    #[test]
    fn settings_round_trip_through_capabilities() {
        let settings = SkillsSettings {
            directory_read: Some(true),
            ..Default::default()
        };
        let caps = ServerCapabilities::default().with_extension(SKILLS, settings.to_object());
        assert_eq!(
            serde_json::to_value(&caps).unwrap()["extensions"][SKILLS],
            json!({"directoryRead": true})
        );
        assert!(SkillsSettings::of(&caps).unwrap().directory_read());
        assert!(SkillsSettings::of(&ServerCapabilities::default()).is_none());
    }
}
