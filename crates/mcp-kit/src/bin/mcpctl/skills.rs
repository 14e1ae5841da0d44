//! `skills`: a server's skills (SEP-2640) — the listing, one entry, a verified read, a
//! directory — and their table views.

use base64::Engine;
use mcp_kit::Session;
use mcp_kit::mcp::ext::skills::{SkillEntry, SkillResources};
use mcp_kit::terminal::{Table, one_line};
use serde_json::{Value, json};

use crate::args::{SkillsAction, SkillsArgs};
use crate::exit::server_failure;
use crate::output::{Printer, fitted, sanitize, str_of};
use crate::target::given;

/// The most directory pages `skills ls` follows.
const MAX_PAGES: usize = 1000;

/// Runs `skills` on an open session.
pub(crate) async fn run(
    session: &Session,
    printer: Printer,
    args: &SkillsArgs,
) -> anyhow::Result<()> {
    match &args.action {
        None => {
            let skills = session.list_all_skills().await?;
            printer.print(&json!({ "skills": skills }), listing)
        }
        Some(SkillsAction::Get(get)) => {
            let skill = session.get_skill(given(&get.uri)).await?;
            printer.print(&json!({ "skill": skill }), entry)
        }
        Some(SkillsAction::Ls(ls)) => {
            let uri = given(&ls.uri);
            let mut resources = Vec::new();
            let mut cursor: Option<String> = None;
            for _ in 0..MAX_PAGES {
                let page = session.read_directory(uri, cursor.as_deref()).await?;
                resources.extend(page.resources);
                cursor = page.next_cursor;
                if cursor.is_none() {
                    break;
                }
            }
            printer.print(&json!({ "uri": uri, "resources": resources }), directory)
        }
        Some(SkillsAction::Read(read)) => {
            let skill = find(session, given(&read.skill)).await?;
            let value = match &read.file {
                None => {
                    let loaded = session.load_skill(&skill).await?;
                    json!({
                        "uri": loaded.uri,
                        "verified": loaded.verified,
                        "frontmatter": loaded.frontmatter,
                        "text": loaded.text,
                    })
                }
                Some(file) => {
                    let content = session.read_skill_file(&skill, file).await?;
                    let mut value = json!({
                        "uri": content.uri,
                        "mimeType": content.mime_type,
                        "verified": content.verified,
                    });
                    match String::from_utf8(content.bytes) {
                        Ok(text) => value["text"] = json!(text),
                        Err(e) => {
                            let blob =
                                base64::engine::general_purpose::STANDARD.encode(e.as_bytes());
                            value["blob"] = json!(blob);
                        }
                    }
                    value
                }
            };
            printer.print(&value, file)
        }
    }
}

/// The entry of skill `name_or_uri`: `skills/get` for a URI, else the listed skill of that
/// name (an error names every URI when the name is not unique).
async fn find(session: &Session, name_or_uri: &str) -> anyhow::Result<SkillEntry> {
    if name_or_uri.contains("://") {
        return Ok(session.get_skill(name_or_uri).await?);
    }
    let skills = session.list_all_skills().await?;
    let mut named: Vec<SkillEntry> = skills
        .into_iter()
        .filter(|s| s.name() == Some(name_or_uri))
        .collect();
    match named.len() {
        1 => Ok(named.remove(0)),
        0 => Err(server_failure(format!(
            "server `{}` lists no skill named `{name_or_uri}` (see `mcpctl skills`); an unlisted \
             skill is read by the URI of its SKILL.md",
            session.server_name()
        ))),
        _ => Err(server_failure(format!(
            "server `{}` lists several skills named `{name_or_uri}`; give one's URI: {}",
            session.server_name(),
            named
                .iter()
                .map(|s| s.uri.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ))),
    }
}

/// `(file count, total bytes)` of an entry, as shown.
fn size_of(entry: &Value) -> (String, String) {
    let parsed: Option<SkillEntry> = serde_json::from_value(entry.clone()).ok();
    match parsed.map(|e| e.resources) {
        Some(resources @ SkillResources::Files(_)) => (
            resources.files().map_or(0, <[_]>::len).to_string(),
            resources.total_size().to_string(),
        ),
        Some(SkillResources::Dynamic) => ("dynamic".to_owned(), String::new()),
        _ => ("?".to_owned(), String::new()),
    }
}

fn frontmatter_str<'a>(entry: &'a Value, key: &str) -> &'a str {
    entry["frontmatter"]
        .get(key)
        .and_then(Value::as_str)
        .unwrap_or_default()
}

/// `skills`.
fn listing(result: &Value) -> String {
    let skills = result["skills"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
    if skills.is_empty() {
        return "(no skills)\n".to_owned();
    }
    let mut table = Table::new(["NAME", "DESCRIPTION", "URI", "FILES", "BYTES"]);
    for skill in skills {
        let (files, bytes) = size_of(skill);
        table.row([
            frontmatter_str(skill, "name"),
            &one_line(frontmatter_str(skill, "description")),
            str_of(skill, "uri").unwrap_or("?"),
            &files,
            &bytes,
        ]);
    }
    fitted(&table)
}

/// `skills get`.
fn entry(result: &Value) -> String {
    let skill = &result["skill"];
    let mut out = format!(
        "{} — {}\n{}\n",
        sanitize(frontmatter_str(skill, "name")),
        sanitize(&one_line(frontmatter_str(skill, "description"))),
        sanitize(str_of(skill, "uri").unwrap_or("?"))
    );
    if let Some(frontmatter) = skill["frontmatter"].as_object() {
        for (key, value) in frontmatter
            .iter()
            .filter(|(k, _)| !matches!(k.as_str(), "name" | "description"))
        {
            let shown = value
                .as_str()
                .map_or_else(|| value.to_string(), str::to_owned);
            out.push_str(&format!("  {}: {}\n", sanitize(key), sanitize(&shown)));
        }
    }
    match skill["resources"].as_array() {
        Some(files) => {
            let mut table = Table::new(["FILE", "BYTES", "DIGEST"]);
            for f in files {
                let size = f["size"]
                    .as_u64()
                    .map(|s| s.to_string())
                    .unwrap_or_default();
                table.row([
                    str_of(f, "uri").unwrap_or("?"),
                    &size,
                    str_of(f, "digest").unwrap_or("?"),
                ]);
            }
            out.push('\n');
            out.push_str(&fitted(&table));
        }
        None => out.push_str("files: dynamic (no digests: content cannot be verified)\n"),
    }
    out
}

/// `skills ls`.
fn directory(result: &Value) -> String {
    let children = result["resources"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
    if children.is_empty() {
        return "(empty directory)\n".to_owned();
    }
    let mut table = Table::new(["URI", "NAME", "MIME TYPE", "BYTES"]);
    for child in children {
        let size = child["size"]
            .as_u64()
            .map(|s| s.to_string())
            .unwrap_or_default();
        table.row([
            str_of(child, "uri").unwrap_or("?"),
            str_of(child, "name").unwrap_or_default(),
            str_of(child, "mimeType").unwrap_or_default(),
            &size,
        ]);
    }
    fitted(&table)
}

/// `skills read`: the text, or what a binary file is.
fn file(result: &Value) -> String {
    let mut out = match str_of(result, "text") {
        Some(text) => sanitize(text),
        None => format!(
            "({} bytes of {}, not shown: use --json)\n",
            base64::engine::general_purpose::STANDARD
                .decode(str_of(result, "blob").unwrap_or_default())
                .map_or(0, |b| b.len()),
            str_of(result, "mimeType").unwrap_or("binary data")
        ),
    };
    if result["verified"] == false {
        out.push_str(
            "\n(unverified: the skill's files are dynamic, the server publishes no digests)\n",
        );
    }
    out
}
