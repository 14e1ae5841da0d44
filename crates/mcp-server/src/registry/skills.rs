//! The skills a server serves, and what is derived from them: the file each skill URI names,
//! and the directory tree `resources/directory/read` walks.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use base64::Engine;
use mcp_schema::ext::skills::{DIRECTORY_MIME_TYPE, SCHEME, SKILL_MD_MIME_TYPE};
use mcp_schema::{
    BlobResourceContents, ReadResourceResult, Resource, ResourceContents, TextResourceContents,
};
use parking_lot::RwLock;

use super::Registry;
use super::resource::ResourceDef;
use super::skill::{SkillDef, SkillFileData};

/// The registered skills. Readers take a snapshot ([`Index`]), rebuilt on every change.
#[derive(Default)]
pub(crate) struct Skills {
    /// Whether the server serves the extension (set by the first skill, or by
    /// `ServerBuilder::skills`; never unset, so the capability does not come and go).
    enabled: AtomicBool,
    index: RwLock<Arc<Index>>,
}

/// The skills at one moment, with their files and directories.
#[derive(Default)]
pub(crate) struct Index {
    /// Sorted by URI.
    pub(crate) skills: Vec<Arc<SkillDef>>,
    by_uri: HashMap<String, usize>,
    files: HashMap<String, Arc<SkillFileData>>,
    /// Directory URI → its direct children, sorted by URI.
    directories: HashMap<String, Vec<Arc<Resource>>>,
}

impl Index {
    fn build(skills: Vec<Arc<SkillDef>>) -> Self {
        let by_uri = skills
            .iter()
            .enumerate()
            .map(|(i, s)| (s.uri.clone(), i))
            .collect();
        let mut files = HashMap::new();
        let mut tree: BTreeMap<String, BTreeMap<String, Resource>> = BTreeMap::new();
        for skill in &skills {
            for file in &skill.files {
                files.insert(file.uri.clone(), file.clone());
                let full = format!("{}/{}", skill.path, file.relative);
                let segments: Vec<&str> = full.split('/').collect();
                for depth in 1..segments.len() {
                    let dir = format!("{SCHEME}://{}", segments[..depth].join("/"));
                    let child = if depth + 1 == segments.len() {
                        file_resource(file)
                    } else {
                        let mut r = Resource::new(
                            format!("{SCHEME}://{}", segments[..=depth].join("/")),
                            segments[depth],
                        );
                        r.mime_type = Some(DIRECTORY_MIME_TYPE.to_owned());
                        r
                    };
                    tree.entry(dir)
                        .or_default()
                        .entry(child.uri.clone())
                        .or_insert(child);
                }
            }
        }
        // A skill's SKILL.md is described as the skill, wherever it appears.
        for skill in &skills {
            if let Some(children) = tree.get_mut(&skill.root()) {
                children.insert(skill.uri.clone(), listing(skill));
            }
        }
        let directories = tree
            .into_iter()
            .map(|(dir, children)| (dir, children.into_values().map(Arc::new).collect()))
            .collect();
        Index {
            skills,
            by_uri,
            files,
            directories,
        }
    }

    /// The skill whose `SKILL.md` is `uri`.
    pub(crate) fn skill(&self, uri: &str) -> Option<&Arc<SkillDef>> {
        self.by_uri.get(uri).map(|&i| &self.skills[i])
    }

    /// The skill file `uri`.
    pub(crate) fn file(&self, uri: &str) -> Option<&Arc<SkillFileData>> {
        self.files.get(uri)
    }

    /// The children of directory `uri`, when it is a directory of a served skill namespace.
    pub(crate) fn directory(&self, uri: &str) -> Option<&[Arc<Resource>]> {
        self.directories.get(uri).map(Vec::as_slice)
    }
}

impl Skills {
    /// Serves the extension from now on.
    pub(crate) fn enable(&self) {
        self.enabled.store(true, Ordering::Release);
    }

    /// Whether the extension is served.
    pub(crate) fn enabled(&self) -> bool {
        self.enabled.load(Ordering::Acquire)
    }

    pub(crate) fn snapshot(&self) -> Arc<Index> {
        self.index.read().clone()
    }

    /// Replaces the skill list by `change(current list)`.
    fn update(&self, change: impl FnOnce(&mut Vec<Arc<SkillDef>>)) {
        let mut guard = self.index.write();
        let mut skills = guard.skills.clone();
        change(&mut skills);
        skills.sort_by(|a, b| a.uri.cmp(&b.uri));
        *guard = Arc::new(Index::build(skills));
    }
}

impl Registry {
    /// Adds (or replaces) skills: their files become resources, their `SKILL.md`s are
    /// listed. The index is rebuilt once for all of them.
    pub(crate) fn add_skills(&self, defs: Vec<SkillDef>) {
        let defs: Vec<Arc<SkillDef>> = defs.into_iter().map(Arc::new).collect();
        self.skills.enable();
        self.skills.update(|skills| {
            skills.retain(|s| defs.iter().all(|d| d.uri != s.uri));
            skills.extend(defs.iter().cloned());
        });
        for def in &defs {
            let listed = skill_md_resource(def);
            self.resources.insert(listed.resource.uri.clone(), listed);
        }
    }

    /// Removes the skill whose `SKILL.md` is `uri`; true when there was one.
    pub(crate) fn remove_skill(&self, uri: &str) -> bool {
        if self.skills.snapshot().skill(uri).is_none() {
            return false;
        }
        self.skills.update(|skills| skills.retain(|s| s.uri != uri));
        self.resources.remove(uri, |r| r.resource.uri.as_str());
        true
    }
}

/// How a skill's `SKILL.md` appears in `resources/list` and directory reads: named and
/// described by the frontmatter.
fn listing(skill: &SkillDef) -> Resource {
    let mut resource = Resource::new(skill.uri.clone(), skill.name());
    resource.description = Some(skill.description().to_owned());
    resource.mime_type = Some(SKILL_MD_MIME_TYPE.to_owned());
    resource.size = Some(skill.skill_md().bytes.len() as u64);
    resource
}

fn skill_md_resource(skill: &SkillDef) -> ResourceDef {
    let file = skill.skill_md();
    let contents = Arc::new(contents(file));
    let mut def = ResourceDef::new(file.uri.clone(), skill.name(), None, move |_| {
        let contents = (*contents).clone();
        async move { Ok(contents) }
    });
    def.resource = listing(skill);
    def
}

fn file_resource(file: &SkillFileData) -> Resource {
    let name = file.relative.rsplit('/').next().unwrap_or_default();
    let mut resource = Resource::new(file.uri.clone(), name);
    resource.mime_type = Some(file.mime_type.clone());
    resource.size = Some(file.bytes.len() as u64);
    resource
}

/// What `resources/read` answers for a skill file: its exact bytes, as text when they are
/// UTF-8, else base64.
pub(crate) fn contents(file: &SkillFileData) -> ReadResourceResult {
    let content = match std::str::from_utf8(&file.bytes) {
        Ok(text) => {
            let mut text = TextResourceContents::new(file.uri.clone(), text);
            text.mime_type = Some(file.mime_type.clone());
            ResourceContents::Text(text)
        }
        Err(_) => {
            let data = base64::engine::general_purpose::STANDARD.encode(&file.bytes);
            let mut blob = BlobResourceContents::new(file.uri.clone(), data);
            blob.mime_type = Some(file.mime_type.clone());
            ResourceContents::Blob(blob)
        }
    };
    ReadResourceResult::new(vec![content])
}
