//! The skills the skills extension's scenarios (SEP-2640, `sep-2640-skills-*`) discover:
//! `fixtures/skills`, one nested path (`acme/billing/refunds`) and one top-level skill
//! (`pdf-processing`), each with a subdirectory (the directory scenario needs one). Their
//! frontmatter holds plain strings only, which every YAML parser reads alike.

use std::path::PathBuf;

use mcp_server::ServerBuilder;

/// The folder of fixture skills.
pub fn fixtures_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/skills")
}

/// `builder`, serving the fixture skills.
pub(super) fn skills(builder: ServerBuilder) -> ServerBuilder {
    let dir = fixtures_dir();
    builder
        .skills_dir(&dir)
        .unwrap_or_else(|e| panic!("the fixture skills in {} do not load: {e}", dir.display()))
}
