//! The skills extension: `skills/list`, `skills/get`, `resources/directory/read`.

use mcp_schema::PaginatedRequestParams;
use mcp_schema::ext::skills::{
    GetSkillRequestParams, GetSkillResult, ListSkillsResult, ReadDirectoryRequestParams,
    ReadDirectoryResult,
};

use super::paging::page;
use crate::error::{Error, reflect};
use crate::middleware::Call;

pub(super) fn list(
    call: &Call<'_>,
    params: Option<&PaginatedRequestParams>,
) -> Result<ListSkillsResult, Error> {
    let index = call.registry.skills.snapshot();
    let shared = &call.cx.inner.session.shared;
    // One entry per skill: a skill's files are never split across pages.
    let page = page(shared, params, "skills", &index.skills, |s| s.entry())?;
    Ok(ListSkillsResult {
        skills: page.items,
        next_cursor: page.next_cursor,
        ..Default::default()
    })
}

pub(super) fn get(
    call: &Call<'_>,
    params: &GetSkillRequestParams,
) -> Result<GetSkillResult, Error> {
    let index = call.registry.skills.snapshot();
    let skill = index.skill(&params.uri).ok_or_else(|| {
        Error::invalid_params(format!(
            "Unknown skill: {} (give the URI of a skill's SKILL.md; skills/list names them)",
            reflect(&params.uri)
        ))
    })?;
    Ok(GetSkillResult::new(skill.entry()))
}

pub(super) fn read_directory(
    call: &Call<'_>,
    params: &ReadDirectoryRequestParams,
) -> Result<ReadDirectoryResult, Error> {
    let index = call.registry.skills.snapshot();
    let uri = &params.uri;
    let children = index.directory(uri).ok_or_else(|| {
        let what = if index.file(uri).is_some() {
            "is a file, not a directory (read it with resources/read)"
        } else {
            "is not a directory this server serves"
        };
        Error::invalid_params(format!("{} {what}", reflect(uri)))
    })?;
    let cursor = PaginatedRequestParams {
        cursor: params.cursor.clone(),
        ..Default::default()
    };
    let shared = &call.cx.inner.session.shared;
    let list = format!("directory {uri}");
    let page = page(shared, Some(&cursor), &list, children, |r| r.clone())?;
    Ok(ReadDirectoryResult {
        resources: page.items,
        next_cursor: page.next_cursor,
        ..Default::default()
    })
}
