//! Each session's workspace as MCP resources: `sandbox://{session_id}/{path}` reads a file
//! the code produced (text as text, anything else as base64, with its MIME type) or lists a
//! directory, without another execution. Paths resolve inside the workspace only.

use std::io::Read;
use std::path::Path;
use std::sync::Arc;

use mcp_server::schema::{
    BlobResourceContents, ReadResourceResult, ResourceContents, TextResourceContents,
};
use mcp_server::{Error, ResourceTemplateDef};

use crate::session::Sessions;
use crate::workspace::open_beneath;

/// The URI template of workspace files.
pub const TEMPLATE: &str = "sandbox://{session_id}/{+path}";

/// The largest file served as a resource, in bytes.
pub const MAX_RESOURCE_BYTES: u64 = 16 << 20;

/// The URI of `path` in session `session_id`'s workspace.
pub fn uri(session_id: &str, path: &str) -> String {
    format!("sandbox://{session_id}/{path}")
}

/// The workspace template, bound to `sessions`.
pub fn workspace_files(sessions: &Arc<Sessions>) -> ResourceTemplateDef {
    let reader = sessions.clone();
    let completer = sessions.clone();
    ResourceTemplateDef::new(TEMPLATE, "workspace", None, move |uri, variables, _cx| {
        let sessions = reader.clone();
        async move {
            let id = variables.get("session_id").cloned().unwrap_or_default();
            let path = variables.get("path").cloned().unwrap_or_default();
            let session = sessions.get(&id).ok_or_else(|| {
                Error::invalid_params(format!(
                    "unknown session `{}` in {uri}: get_sessions lists the live ones",
                    id.chars().take(128).collect::<String>()
                ))
            })?;
            let root = session.workspace().to_owned();
            tokio::task::spawn_blocking(move || read(&root, &path, &uri))
                .await
                .map_err(|e| Error::msg(format!("reading the file failed: {e}")))?
        }
    })
    .expect("a supported template")
    .description(
        "A file in a sandbox session's /workspace (a directory gives its listing). Text \
         files come back as text, others base64-encoded with their MIME type.",
    )
    .complete(
        "session_id",
        move |request: &mcp_server::CompletionRequest| -> Vec<String> {
            completer
                .list()
                .into_iter()
                .map(|s| s.session_id)
                .filter(|id| id.starts_with(&request.value))
                .collect()
        },
    )
}

fn read(root: &Path, path: &str, uri: &str) -> Result<ReadResourceResult, Error> {
    let not_found = || Error::resource_not_found(uri);
    let file = open_beneath(root, Path::new(path.trim_end_matches('/'))).map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotFound {
            not_found()
        } else {
            Error::invalid_params(format!("{uri}: {e}"))
        }
    })?;
    let metadata = file.metadata().map_err(|e| Error::msg(e.to_string()))?;
    if metadata.is_dir() {
        return Ok(listing(file, uri));
    }
    if !metadata.is_file() {
        return Err(Error::invalid_params(format!(
            "{uri} is not a regular file"
        )));
    }
    if metadata.len() > MAX_RESOURCE_BYTES {
        return Err(Error::invalid_params(format!(
            "{uri} is {} bytes; files over {} MiB are not served as resources (read a part with \
             execute_command, such as head -c)",
            metadata.len(),
            MAX_RESOURCE_BYTES >> 20
        )));
    }
    let mut bytes = Vec::with_capacity(metadata.len() as usize);
    file.take(MAX_RESOURCE_BYTES)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::msg(format!("{uri}: {e}")))?;
    let guessed = mime_guess::from_path(path).first_raw();
    let contents = match String::from_utf8(bytes) {
        Ok(text) if guessed.is_none_or(|m| m.starts_with("text/") || is_textual(m)) => {
            let mut text = TextResourceContents::new(uri, text);
            text.mime_type = Some(guessed.unwrap_or("text/plain").to_owned());
            ResourceContents::Text(text)
        }
        Ok(text) => blob(uri, text.into_bytes(), guessed),
        Err(e) => blob(uri, e.into_bytes(), guessed),
    };
    Ok(ReadResourceResult::new(vec![contents]))
}

fn is_textual(mime: &str) -> bool {
    matches!(
        mime,
        "application/json" | "application/javascript" | "application/xml" | "application/toml"
    ) || mime.ends_with("+json")
        || mime.ends_with("+xml")
}

fn blob(uri: &str, bytes: Vec<u8>, mime: Option<&str>) -> ResourceContents {
    use base64::Engine as _;
    let mut blob =
        BlobResourceContents::new(uri, base64::engine::general_purpose::STANDARD.encode(bytes));
    blob.mime_type = Some(mime.unwrap_or("application/octet-stream").to_owned());
    ResourceContents::Blob(blob)
}

/// A directory as text: one entry per line, directories with a trailing `/`, files with
/// their size.
fn listing(dir: std::fs::File, uri: &str) -> ReadResourceResult {
    let path = format!("/proc/self/fd/{}", std::os::fd::AsRawFd::as_raw_fd(&dir));
    let mut entries: Vec<String> = std::fs::read_dir(path)
        .map(|entries| {
            entries
                .flatten()
                .map(|entry| {
                    let name = entry.file_name().to_string_lossy().into_owned();
                    match entry.metadata() {
                        Ok(m) if m.is_dir() => format!("{name}/"),
                        Ok(m) if m.is_file() => format!("{name}\t{}", m.len()),
                        _ => name,
                    }
                })
                .collect()
        })
        .unwrap_or_default();
    entries.sort();
    let mut text = TextResourceContents::new(uri, entries.join("\n"));
    text.mime_type = Some("text/plain".to_owned());
    ReadResourceResult::new(vec![ResourceContents::Text(text)])
}
