//! The skills extension (SEP-2640) on the client: listing and getting skill entries, reading
//! directories, and loading a skill's files with the checks the SEP asks of a host — each
//! file's size and digest against the entry, and the `SKILL.md`'s frontmatter against the
//! entry's, field by field. Content that fails a check is never returned.
//!
//! Nothing here runs by itself: no file is fetched until [`Session::load_skill`] or
//! [`Session::read_skill_file`] asks for it (hosts must not prefetch skills).

use base64::Engine;
use mcp_schema::ext::skills::verify::{self, VerifyError};
use mcp_schema::ext::skills::{
    GetSkillRequestParams, GetSkillResult, ListSkillsResult, ReadDirectoryRequestParams,
    ReadDirectoryResult, SKILLS, SkillEntry, SkillResources, SkillsSettings, resolve, skill_root,
};
use mcp_schema::{
    GetSkillRequest, JsonObject, ListSkillsRequest, McpRequest, ReadDirectoryRequest,
    ResourceContents, ServerCapabilities,
};
use serde_json::json;

use super::{Session, from_result, to_params};
use crate::Error;

/// A skill's `SKILL.md`, loaded and checked against its entry.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct LoadedSkill {
    /// The `SKILL.md`'s URI.
    pub uri: String,
    /// The whole file.
    pub text: String,
    /// Its frontmatter, as JSON (equal to the entry's).
    pub frontmatter: JsonObject,
    /// Where the body starts in [`text`](Self::text), after the frontmatter.
    pub body_offset: usize,
    /// `false` when the entry's `resources` is `"dynamic"`: the server publishes no digests,
    /// so only the frontmatter could be compared.
    pub verified: bool,
}

impl LoadedSkill {
    /// The instructions after the frontmatter.
    pub fn body(&self) -> &str {
        &self.text[self.body_offset..]
    }
}

/// One file of a skill, read and checked against the skill's entry.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct SkillFileContent {
    /// The file's URI.
    pub uri: String,
    /// The MIME type the server gave, if any.
    pub mime_type: Option<String>,
    /// The raw bytes (the text's UTF-8, or the decoded blob).
    pub bytes: Vec<u8>,
    /// `false` for a `"dynamic"` skill (nothing to check against).
    pub verified: bool,
}

impl Session {
    /// The skills extension's settings the server declared; `None` when it does not serve
    /// skills.
    pub fn skills_settings(&self) -> Option<SkillsSettings> {
        let capabilities = self.negotiated.result().get("capabilities")?;
        let capabilities: ServerCapabilities = serde_json::from_value(capabilities.clone()).ok()?;
        SkillsSettings::of(&capabilities)
    }

    fn require_skills(&self, method: &str) -> Result<SkillsSettings, Error> {
        self.skills_settings()
            .ok_or_else(|| Error::ExtensionNotServed {
                server: self.server_name().to_owned(),
                extension: SKILLS.to_owned(),
                method: method.to_owned(),
            })
    }

    /// `skills/list`, one page. The listing may be empty or partial: it does not prove a
    /// server has no other skills ([`get_skill`](Self::get_skill) answers for any).
    pub async fn list_skills(&self, cursor: Option<&str>) -> Result<ListSkillsResult, Error> {
        self.require_skills(ListSkillsRequest::METHOD)?;
        let params = cursor.map(|c| json!({ "cursor": c }));
        let value = self.request(ListSkillsRequest::METHOD, params).await?;
        from_result(ListSkillsRequest::METHOD, value)
    }

    /// `skills/list`, every page.
    pub async fn list_all_skills(&self) -> Result<Vec<SkillEntry>, Error> {
        self.all_pages(ListSkillsRequest::METHOD, |cursor| async move {
            let page = self.list_skills(cursor.as_deref()).await?;
            Ok((page.skills, page.next_cursor))
        })
        .await
    }

    /// `skills/get`: the entry of the skill whose `SKILL.md` is `uri`, listed or not.
    pub async fn get_skill(&self, uri: &str) -> Result<SkillEntry, Error> {
        let method = GetSkillRequest::METHOD;
        self.require_skills(method)?;
        let params = to_params(method, Some(&GetSkillRequestParams::new(uri)))?;
        let value = self.request(method, params).await?;
        from_result::<GetSkillResult>(method, value).map(|r| r.skill)
    }

    /// `resources/directory/read`, one page: the direct children of directory `uri`
    /// (subdirectories have the MIME type `inode/directory`). Only for servers whose settings
    /// say `directoryRead`.
    pub async fn read_directory(
        &self,
        uri: &str,
        cursor: Option<&str>,
    ) -> Result<ReadDirectoryResult, Error> {
        let method = ReadDirectoryRequest::METHOD;
        if !self.require_skills(method)?.directory_read() {
            return Err(Error::ExtensionNotServed {
                server: self.server_name().to_owned(),
                extension: format!("{SKILLS} (with directoryRead)"),
                method: method.to_owned(),
            });
        }
        let mut params = ReadDirectoryRequestParams::new(uri);
        params.cursor = cursor.map(str::to_owned);
        let value = self
            .request(method, to_params(method, Some(&params))?)
            .await?;
        from_result(method, value)
    }

    /// Loads a skill: reads its `SKILL.md` and checks it against `entry` (the entry must be
    /// valid; the bytes must have the listed size and digest; the parsed frontmatter must equal
    /// the entry's field by field). Any mismatch is [`Error::SkillVerification`] and the content
    /// is not returned; get the entry again ([`get_skill`](Self::get_skill)) when the skill
    /// changed.
    pub async fn load_skill(&self, entry: &SkillEntry) -> Result<LoadedSkill, Error> {
        let fail = |reason: String| self.skill_failure(&entry.uri, reason);
        verify::validate_entry(entry).map_err(&fail)?;
        let file = self.read_verified(entry, &entry.uri).await?;
        let text = String::from_utf8(file.bytes)
            .map_err(|_| fail("the SKILL.md is not UTF-8".to_owned()))?;
        let parsed =
            verify::parse_frontmatter(&text).map_err(|r| fail(format!("SKILL.md: {r}")))?;
        verify::compare_frontmatter(&entry.uri, &entry.frontmatter, &parsed.fields)
            .map_err(|e| fail(e.to_string()))?;
        Ok(LoadedSkill {
            uri: entry.uri.clone(),
            text,
            frontmatter: parsed.fields,
            body_offset: parsed.body_offset,
            verified: file.verified,
        })
    }

    /// Reads one file of a skill — a path relative to the skill's root (`references/FORMS.md`)
    /// or a full URI — only when `entry` lists it, and checks its size and digest.
    pub async fn read_skill_file(
        &self,
        entry: &SkillEntry,
        path_or_uri: &str,
    ) -> Result<SkillFileContent, Error> {
        let fail = |reason: String| self.skill_failure(&entry.uri, reason);
        verify::validate_entry(entry).map_err(&fail)?;
        let uri = if path_or_uri.contains("://") {
            path_or_uri.to_owned()
        } else {
            resolve(&entry.uri, path_or_uri)
                .ok_or_else(|| fail(format!("`{path_or_uri}` is not a path inside the skill")))?
        };
        self.read_verified(entry, &uri).await
    }

    /// Reads `uri`, a file of `entry`, and checks it; unlisted files are not read.
    async fn read_verified(
        &self,
        entry: &SkillEntry,
        uri: &str,
    ) -> Result<SkillFileContent, Error> {
        let fail = |e: VerifyError| self.skill_failure(&entry.uri, e.to_string());
        let listed = match &entry.resources {
            SkillResources::Files(_) => Some(verify::listed(entry, uri).map_err(fail)?),
            _ => {
                let inside = skill_root(&entry.uri)
                    .and_then(|root| uri.strip_prefix(root))
                    .is_some_and(|rest| rest.starts_with('/'));
                if !inside {
                    return Err(fail(VerifyError::Unlisted {
                        uri: uri.to_owned(),
                    }));
                }
                None
            }
        };
        let result = self.read_resource(uri).await?;
        let content = result
            .contents
            .iter()
            .find(|c| c.uri() == Some(uri))
            .or(result.contents.first())
            .ok_or_else(|| {
                self.skill_failure(&entry.uri, format!("reading {uri} returned no contents"))
            })?;
        let (bytes, mime_type) = match content {
            ResourceContents::Text(t) => (t.text.as_bytes().to_vec(), t.mime_type.clone()),
            ResourceContents::Blob(b) => {
                let bytes = base64::engine::general_purpose::STANDARD
                    .decode(&b.blob)
                    .map_err(|e| {
                        self.skill_failure(
                            &entry.uri,
                            format!("{uri}: the blob is not base64: {e}"),
                        )
                    })?;
                (bytes, b.mime_type.clone())
            }
            ResourceContents::Unknown(_) => {
                return Err(self.skill_failure(
                    &entry.uri,
                    format!("{uri}: contents with neither text nor blob"),
                ));
            }
        };
        if let Some(file) = listed {
            verify::check_file(file, &bytes).map_err(fail)?;
        }
        Ok(SkillFileContent {
            uri: uri.to_owned(),
            mime_type,
            bytes,
            verified: listed.is_some(),
        })
    }

    fn skill_failure(&self, uri: &str, reason: String) -> Error {
        Error::SkillVerification {
            server: self.server_name().to_owned(),
            uri: uri.to_owned(),
            reason,
        }
    }
}
