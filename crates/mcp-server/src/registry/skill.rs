//! One skill (SEP-2640): a directory whose `SKILL.md` starts with YAML frontmatter, loaded
//! into memory at registration so that the bytes served always match the digests published.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use mcp_schema::JsonObject;
use mcp_schema::ext::skills::verify::{self, digest, parse_frontmatter};
use mcp_schema::ext::skills::{
    MAX_BYTES_PER_SKILL, MAX_FILES_PER_SKILL, SCHEME, SKILL_MD, SKILL_MD_MIME_TYPE, SkillEntry,
    SkillFile, SkillResources, is_valid_name,
};

/// Why a skill could not be registered.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SkillError {
    /// A file or directory of the skill could not be read.
    #[error("cannot read {}: {source}", path.display())]
    Io {
        /// What was being read.
        path: PathBuf,
        /// The error.
        #[source]
        source: std::io::Error,
    },
    /// The skill breaks a rule of the Agent Skills format or of SEP-2640.
    #[error("skill `{skill}`: {reason}")]
    Invalid {
        /// The skill's path (`acme/billing/refunds`).
        skill: String,
        /// What is wrong and how to fix it.
        reason: String,
    },
}

impl SkillError {
    fn invalid(skill: &str, reason: impl Into<String>) -> Self {
        SkillError::Invalid {
            skill: skill.to_owned(),
            reason: reason.into(),
        }
    }

    fn io(path: &Path, source: std::io::Error) -> Self {
        SkillError::Io {
            path: path.to_owned(),
            source,
        }
    }
}

/// One file of a registered skill, with the bytes it is served with.
#[derive(Debug)]
pub(crate) struct SkillFileData {
    /// The path inside the skill (`references/FORMS.md`).
    pub(crate) relative: String,
    pub(crate) uri: String,
    pub(crate) bytes: Arc<[u8]>,
    pub(crate) digest: String,
    pub(crate) mime_type: String,
}

/// A skill, ready to serve: its frontmatter and every file's bytes, digest and MIME type.
///
/// Its files are served as resources `skill://<path>/<file>`; its `SKILL.md` is also listed in
/// `resources/list`. Build one from a directory ([`SkillDef::from_dir`]), from files held in
/// memory ([`SkillDef::from_files`]), or load every skill below a folder
/// ([`SkillDef::load_tree`]).
///
/// Rules checked when loading (each breach is a [`SkillError`] saying what to fix):
/// `SKILL.md` exists, is UTF-8 and starts with YAML frontmatter that has a `name` (1–64
/// lowercase letters, digits and single hyphens) equal to the path's last segment, and a
/// non-empty `description`; at most [`MAX_FILES_PER_SKILL`] files and [`MAX_BYTES_PER_SKILL`]
/// bytes; path segments use only URI-safe characters (letters, digits, `-._~!$&'()*+,;=`).
/// From a directory, symbolic links are never followed (they are skipped, with a warning), nor
/// are entries whose name starts with `.` (`.git`, `.DS_Store`) served.
#[derive(Debug, Clone)]
pub struct SkillDef {
    pub(crate) path: String,
    pub(crate) uri: String,
    pub(crate) frontmatter: JsonObject,
    /// Sorted by path; `SKILL.md` among them.
    pub(crate) files: Vec<Arc<SkillFileData>>,
}

impl SkillDef {
    /// The skill in directory `dir`, served at `skill://<path>/…`; `path` is `/`-separated and
    /// ends with the skill's name (`git-workflow`, `acme/billing/refunds`).
    pub fn from_dir(path: impl Into<String>, dir: impl AsRef<Path>) -> Result<Self, SkillError> {
        let path = path.into();
        let mut files = Vec::new();
        let mut budget = Budget::default();
        walk(&path, dir.as_ref(), "", &mut files, &mut budget)?;
        Self::build(path, files)
    }

    /// A skill from files held in memory (`(path inside the skill, bytes)`), served at
    /// `skill://<path>/…`.
    pub fn from_files<I, P, B>(path: impl Into<String>, files: I) -> Result<Self, SkillError>
    where
        I: IntoIterator<Item = (P, B)>,
        P: Into<String>,
        B: Into<Vec<u8>>,
    {
        let path = path.into();
        let files = files
            .into_iter()
            .map(|(p, b)| (p.into(), b.into()))
            .collect();
        Self::build(path, files)
    }

    /// Every skill below `root`: each directory holding a `SKILL.md` becomes the skill
    /// `skill://<its path relative to root>/SKILL.md` (`root` itself, when it holds one, is
    /// served under its own name). Skills may nest: a nested skill's files belong to the
    /// enclosing skill too. Sorted by path.
    pub fn load_tree(root: impl AsRef<Path>) -> Result<Vec<Self>, SkillError> {
        let root = root.as_ref();
        let mut found = Vec::new();
        let mut prefix = String::new();
        if root.join(SKILL_MD).is_file() {
            let canonical = std::fs::canonicalize(root).map_err(|e| SkillError::io(root, e))?;
            let name = canonical
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or_default()
                .to_owned();
            // Skills nested in it are named below it.
            prefix = format!("{name}/");
            found.push(Self::from_dir(name, root)?);
        }
        find_skills(root, &prefix, &mut found)?;
        found.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(found)
    }

    fn build(path: String, mut files: Vec<(String, Vec<u8>)>) -> Result<Self, SkillError> {
        check_segments(&path, &path)?;
        let name = path.rsplit('/').next().unwrap_or_default();
        if !is_valid_name(name) {
            return Err(SkillError::invalid(
                &path,
                format!(
                    "the last path segment `{name}` is not a valid skill name: use 1-64 \
                     lowercase letters, digits and single hyphens"
                ),
            ));
        }
        files.sort_by(|a, b| a.0.cmp(&b.0));
        if files.len() > MAX_FILES_PER_SKILL {
            return Err(too_many(&path, files.len()));
        }
        let mut total: u64 = 0;
        for (i, (relative, bytes)) in files.iter().enumerate() {
            check_segments(&path, relative)?;
            if i > 0 && files[i - 1].0 == *relative {
                return Err(SkillError::invalid(
                    &path,
                    format!("{relative} is given twice"),
                ));
            }
            total = total.saturating_add(bytes.len() as u64);
        }
        if total > MAX_BYTES_PER_SKILL {
            return Err(too_large(&path, total));
        }
        let skill_md = files.iter().find(|(p, _)| p == SKILL_MD).ok_or_else(|| {
            SkillError::invalid(&path, "there is no SKILL.md at the skill's root")
        })?;
        let text = std::str::from_utf8(&skill_md.1)
            .map_err(|_| SkillError::invalid(&path, "SKILL.md is not UTF-8"))?;
        let frontmatter = parse_frontmatter(text)
            .map_err(|r| SkillError::invalid(&path, format!("SKILL.md: {r}")))?
            .fields;
        let uri = format!("{SCHEME}://{path}/{SKILL_MD}");
        let files: Vec<Arc<SkillFileData>> = files
            .into_iter()
            .map(|(relative, bytes)| {
                Arc::new(SkillFileData {
                    uri: format!("{SCHEME}://{path}/{relative}"),
                    digest: digest(&bytes),
                    mime_type: mime_type(&relative, &bytes),
                    relative,
                    bytes: bytes.into(),
                })
            })
            .collect();
        let skill = SkillDef {
            path,
            uri,
            frontmatter,
            files,
        };
        // The checks a host makes on the entry, made before anyone sees it.
        verify::validate_entry(&skill.entry())
            .map_err(|reason| SkillError::invalid(&skill.path, reason))?;
        Ok(skill)
    }

    /// The URI of the skill's `SKILL.md` (`skill://acme/billing/refunds/SKILL.md`).
    pub fn uri(&self) -> &str {
        &self.uri
    }

    /// The skill's path (`acme/billing/refunds`).
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The skill's name (the frontmatter's `name`, the path's last segment).
    pub fn name(&self) -> &str {
        self.path.rsplit('/').next().unwrap_or_default()
    }

    /// The frontmatter's `description`.
    pub fn description(&self) -> &str {
        self.frontmatter
            .get("description")
            .and_then(|d| d.as_str())
            .unwrap_or_default()
    }

    /// The `SKILL.md` frontmatter, as JSON.
    pub fn frontmatter(&self) -> &JsonObject {
        &self.frontmatter
    }

    /// The number of files, `SKILL.md` included.
    pub fn file_count(&self) -> usize {
        self.files.len()
    }

    /// The sum of the files' sizes.
    pub fn total_size(&self) -> u64 {
        self.files.iter().map(|f| f.bytes.len() as u64).sum()
    }

    /// The skill's root directory URI (`skill://acme/billing/refunds`).
    pub(crate) fn root(&self) -> String {
        format!("{SCHEME}://{}", self.path)
    }

    pub(crate) fn skill_md(&self) -> &SkillFileData {
        self.files
            .iter()
            .find(|f| f.relative == SKILL_MD)
            .expect("a SkillDef always has its SKILL.md (checked when built)")
    }

    /// The skill's entry, as `skills/list` and `skills/get` publish it.
    pub fn entry(&self) -> SkillEntry {
        SkillEntry {
            uri: self.uri.clone(),
            frontmatter: self.frontmatter.clone(),
            resources: SkillResources::Files(
                self.files
                    .iter()
                    .map(|f| SkillFile {
                        uri: f.uri.clone(),
                        digest: f.digest.clone(),
                        size: f.bytes.len() as u64,
                        extra: Default::default(),
                    })
                    .collect(),
            ),
            extra: Default::default(),
        }
    }
}

fn too_many(skill: &str, count: usize) -> SkillError {
    SkillError::invalid(
        skill,
        format!(
            "{count} files or more, over the limit of {MAX_FILES_PER_SKILL} per skill that every \
             host accepts; split the skill"
        ),
    )
}

fn too_large(skill: &str, bytes: u64) -> SkillError {
    SkillError::invalid(
        skill,
        format!(
            "{bytes} bytes or more, over the limit of {MAX_BYTES_PER_SKILL} bytes (16 MiB) per \
             skill that every host accepts; split the skill"
        ),
    )
}

/// The MIME type of a skill file: `text/markdown` for `SKILL.md`, else by extension; a file of
/// unknown type is `text/plain` when UTF-8, else `application/octet-stream`.
fn mime_type(relative: &str, bytes: &[u8]) -> String {
    if relative == SKILL_MD {
        return SKILL_MD_MIME_TYPE.to_owned();
    }
    match mime_guess::from_path(relative).first_raw() {
        Some(known) => known.to_owned(),
        None if std::str::from_utf8(bytes).is_ok() => "text/plain".to_owned(),
        None => "application/octet-stream".to_owned(),
    }
}

/// Checks that every `/`-separated segment of `path` is non-empty, not `.` or `..`, and
/// made of characters a URI path carries unescaped.
fn check_segments(skill: &str, path: &str) -> Result<(), SkillError> {
    for segment in path.split('/') {
        let safe = segment
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=".contains(&b));
        if segment.is_empty() || segment == "." || segment == ".." || !safe {
            return Err(SkillError::invalid(
                skill,
                format!(
                    "`{path}`: path segments must be non-empty and use only letters, digits and \
                     -._~!$&'()*+,;= (rename `{segment}`)"
                ),
            ));
        }
    }
    Ok(())
}

/// How much of a skill's limits a directory walk has used.
#[derive(Default)]
struct Budget {
    files: usize,
    bytes: u64,
}

/// The entries of `dir` worth looking at, sorted: no dotfiles, symbolic links skipped (with a
/// warning). Each with whether it is a directory.
fn entries(dir: &Path) -> Result<Vec<(String, PathBuf, bool)>, SkillError> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(|e| SkillError::io(dir, e))? {
        let entry = entry.map_err(|e| SkillError::io(dir, e))?;
        let path = entry.path();
        let Some(name) = entry.file_name().to_str().map(str::to_owned) else {
            tracing::warn!(path = %path.display(), "skipping a skill file whose name is not UTF-8");
            continue;
        };
        if name.starts_with('.') {
            continue;
        }
        // `DirEntry::file_type` does not follow symbolic links.
        let kind = entry.file_type().map_err(|e| SkillError::io(&path, e))?;
        if kind.is_symlink() {
            tracing::warn!(path = %path.display(), "skipping a symbolic link in a skill (links are never followed)");
        } else if kind.is_dir() || kind.is_file() {
            out.push((name, path, kind.is_dir()));
        }
    }
    out.sort();
    Ok(out)
}

/// Reads every file below `dir` into `files` (paths relative to the skill, `prefix` first),
/// within the skill's limits.
fn walk(
    skill: &str,
    dir: &Path,
    prefix: &str,
    files: &mut Vec<(String, Vec<u8>)>,
    budget: &mut Budget,
) -> Result<(), SkillError> {
    for (name, path, is_dir) in entries(dir)? {
        let relative = format!("{prefix}{name}");
        if is_dir {
            walk(skill, &path, &format!("{relative}/"), files, budget)?;
            continue;
        }
        budget.files += 1;
        if budget.files > MAX_FILES_PER_SKILL {
            return Err(too_many(skill, budget.files));
        }
        // The size on disk first, so that a huge file is refused without being read.
        let len = std::fs::symlink_metadata(&path)
            .map_err(|e| SkillError::io(&path, e))?
            .len();
        if budget.bytes.saturating_add(len) > MAX_BYTES_PER_SKILL {
            return Err(too_large(skill, budget.bytes.saturating_add(len)));
        }
        let bytes = std::fs::read(&path).map_err(|e| SkillError::io(&path, e))?;
        budget.bytes = budget.bytes.saturating_add(bytes.len() as u64);
        files.push((relative, bytes));
    }
    Ok(())
}

/// Loads every skill strictly below `dir` (`prefix`: `dir`'s path relative to the root).
fn find_skills(dir: &Path, prefix: &str, found: &mut Vec<SkillDef>) -> Result<(), SkillError> {
    for (name, path, is_dir) in entries(dir)? {
        if !is_dir {
            continue;
        }
        let relative = format!("{prefix}{name}");
        let skill_md = path.join(SKILL_MD);
        let holds_skill = std::fs::symlink_metadata(&skill_md).is_ok_and(|m| m.is_file());
        if holds_skill {
            found.push(SkillDef::from_dir(relative.clone(), &path)?);
        }
        find_skills(&path, &format!("{relative}/"), found)?;
    }
    Ok(())
}
