//! Why a session could not be used: each message says what to do instead.

use crate::flavor::Flavor;
use crate::template::Template;

/// A session could not be found, created or used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SessionError {
    /// No live session has this id.
    #[error(
        "unknown session `{0}`: it was stopped, reaped after being idle, or never existed; omit \
         session_id to start a new session (get_sessions lists the live ones)"
    )]
    Unknown(String),
    /// The session runs another language.
    #[error(
        "session `{id}` runs {has}, not {asked}: the template is fixed per session; omit \
         session_id to start a {asked} session"
    )]
    TemplateMismatch {
        /// The session.
        id: String,
        /// Its template.
        has: Template,
        /// The template asked for.
        asked: Template,
    },
    /// The session has another size.
    #[error(
        "session `{id}` is {has}, not {asked}: the flavor is fixed per session; omit the flavor, \
         or omit session_id to start a {asked} session"
    )]
    FlavorMismatch {
        /// The session.
        id: String,
        /// Its flavor.
        has: Flavor,
        /// The flavor asked for.
        asked: Flavor,
    },
    /// This host cannot run the template.
    #[error("the {0} template is unavailable: {program} is not installed on the server's host", program = .0.program())]
    TemplateUnavailable(Template),
    /// Every session is busy and the cap is reached.
    #[error(
        "all {0} sessions are busy, so none can make room for a new one: wait for one to finish, \
         stop one with stop_session, or raise MSB_MAX_SESSIONS"
    )]
    AtCapacity(usize),
    /// The memory cap leaves no room, even after stopping every idle session.
    #[error(
        "a {flavor} session needs {needed} MiB, and the busy sessions already use {used} of the \
         {cap} MiB all sessions may use (MSB_MAX_TOTAL_MEMORY_MB): wait for one to finish, stop \
         one, or use a smaller flavor"
    )]
    MemoryCap {
        /// The flavor asked for.
        flavor: Flavor,
        /// Its memory, MiB.
        needed: u64,
        /// Memory of the sessions that cannot be evicted, MiB.
        used: u64,
        /// The cap, MiB.
        cap: u64,
    },
    /// The sandbox or its interpreter did not start.
    #[error("the session's sandbox did not start: {0}")]
    StartFailed(String),
    /// The session was stopped while the call waited for it.
    #[error("session `{0}` was stopped")]
    Stopped(String),
    /// The server is shutting down.
    #[error("the sandbox server is shutting down")]
    ShuttingDown,
}
