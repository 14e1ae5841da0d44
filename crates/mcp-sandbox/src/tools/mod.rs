//! The five tools of seed 004: `execute_code`, `execute_command`, `get_sessions`,
//! `stop_session`, `get_volume_path`. Their input schemas are the seed's, with the
//! additions named in each description; every tool declares an output schema.

mod execute;
mod output;

use std::sync::Arc;

use mcp_server::schema::ToolAnnotations;
use mcp_server::{Error, Json, NoArguments, ToolDef};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use self::output::{ExecutionOutput, Status};
use crate::session::{SessionInfo, Sessions};

/// The longest session id accepted (ids this server makes are 20 characters).
const MAX_SESSION_ID: usize = 128;

/// Every tool, bound to `sessions`.
pub fn tools(sessions: &Arc<Sessions>) -> Vec<ToolDef> {
    vec![
        execute::execute_code(sessions.clone()),
        execute::execute_command(sessions.clone()),
        get_sessions(sessions.clone()),
        stop_session(sessions.clone()),
        get_volume_path(sessions.clone()),
    ]
}

fn annotations(read_only: bool, destructive: bool) -> ToolAnnotations {
    ToolAnnotations {
        read_only_hint: Some(read_only),
        destructive_hint: Some(destructive),
        open_world_hint: Some(false),
        ..ToolAnnotations::default()
    }
}

/// A session id from the arguments: not empty, not absurdly long.
fn session_id(id: Option<String>) -> Result<Option<String>, Error> {
    match id {
        Some(id) if id.is_empty() || id.len() > MAX_SESSION_ID => Err(Error::msg(format!(
            "session_id must be a session's id (as returned by execute_code, execute_command \
             or get_sessions), 1 to {MAX_SESSION_ID} characters; omit it to start a new session"
        ))),
        other => Ok(other),
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct GetSessionsArgs {
    /// Only this session (default: every live session).
    session_id: Option<String>,
}

/// The `structuredContent` of `get_sessions`.
#[derive(Debug, Serialize, JsonSchema)]
struct SessionList {
    /// The live sessions, the most recently created first.
    sessions: Vec<SessionInfo>,
    /// The most sessions at once (MSB_MAX_SESSIONS).
    max_sessions: usize,
    /// Sandboxes started ahead, ready for new sessions of the default flavor, by template.
    warm_sandboxes: std::collections::BTreeMap<String, usize>,
}

fn get_sessions(sessions: Arc<Sessions>) -> ToolDef {
    ToolDef::new(
        "get_sessions",
        "List the live sandbox sessions, or one by session_id: template, flavor, how long it \
         has been idle, executions so far, memory in use.",
        move |args: GetSessionsArgs, _cx| {
            let sessions = sessions.clone();
            async move {
                let list = match session_id(args.session_id)? {
                    Some(id) => {
                        let session = sessions
                            .get(&id)
                            .ok_or_else(|| Error::msg(crate::session::SessionError::Unknown(id)))?;
                        vec![session.info()]
                    }
                    None => sessions.list(),
                };
                Ok(Json(SessionList {
                    sessions: list,
                    max_sessions: sessions.config().max_sessions,
                    warm_sandboxes: sessions
                        .warm()
                        .into_iter()
                        .map(|(template, n)| (template.name().to_owned(), n))
                        .collect(),
                }))
            }
        },
    )
    .annotations(annotations(true, false))
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct StopSessionArgs {
    /// The session to stop.
    session_id: String,
}

/// The `structuredContent` of `stop_session`.
#[derive(Debug, Serialize, JsonSchema)]
struct Stopped {
    /// The session that was stopped.
    session_id: String,
    /// Always true: its processes ended and its workspace was deleted.
    stopped: bool,
}

fn stop_session(sessions: Arc<Sessions>) -> ToolDef {
    ToolDef::new(
        "stop_session",
        "Stop a sandbox session: its processes end (a running call is interrupted) and the \
         files in its workspace are deleted.",
        move |args: StopSessionArgs, _cx| {
            let sessions = sessions.clone();
            async move {
                let id = session_id(Some(args.session_id))?.unwrap_or_default();
                sessions.stop(&id).await.map_err(Error::msg)?;
                Ok(Json(Stopped {
                    session_id: id,
                    stopped: true,
                }))
            }
        },
    )
    .annotations(annotations(false, true))
}

/// A shared volume as sessions see it.
#[derive(Debug, Serialize, JsonSchema)]
struct VolumeInfo {
    /// Where it is mounted inside every session.
    path: String,
    /// Sessions cannot write to it.
    read_only: bool,
}

/// The `structuredContent` of `get_volume_path`.
#[derive(Debug, Serialize, JsonSchema)]
struct Volumes {
    /// Each session's own writable directory (the working directory of code and commands).
    workspace: String,
    /// Host directories mounted into every session (MSB_SHARED_VOLUME_PATH).
    volumes: Vec<VolumeInfo>,
}

fn get_volume_path(sessions: Arc<Sessions>) -> ToolDef {
    ToolDef::new(
        "get_volume_path",
        "Where files live inside every sandbox session: the session's own workspace and the \
         shared volumes mounted from the host (read-only or writable).",
        move |_: NoArguments, _cx| {
            let sessions = sessions.clone();
            async move {
                let volumes = sessions
                    .volumes()
                    .iter()
                    .map(|v| VolumeInfo {
                        path: v.sandbox.display().to_string(),
                        read_only: v.read_only,
                    })
                    .collect();
                Ok(Json(Volumes {
                    workspace: crate::backend::WORKSPACE.to_owned(),
                    volumes,
                }))
            }
        },
    )
    .annotations(annotations(true, false))
}

/// The JSON schema of a tool's input, parsed from the text written in this module.
fn schema(text: &str) -> Value {
    serde_json::from_str(text).expect("the tool schemas are valid JSON")
}
