//! The names of what a server makes outside its own memory (its directory of workspaces, its
//! cgroups): `mcp-sandbox-<pid>`, so that the next server can tell those whose owner died.

use std::path::Path;

const PREFIX: &str = "mcp-sandbox-";

/// This server's name: `mcp-sandbox-<pid>`.
pub(crate) fn own_name() -> String {
    format!("{PREFIX}{}", std::process::id())
}

/// True when `name` is another server's and that server is gone.
pub(crate) fn is_stale(name: &std::ffi::OsStr) -> bool {
    name.to_str()
        .and_then(|n| n.strip_prefix(PREFIX))
        .and_then(|p| p.parse::<u32>().ok())
        .is_some_and(|pid| {
            pid != std::process::id() && !Path::new(&format!("/proc/{pid}")).exists()
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_dead_servers_names_are_stale() {
        assert!(!is_stale(own_name().as_ref()));
        assert!(!is_stale("mcp-sandbox-server".as_ref()));
        assert!(!is_stale("pool-1".as_ref()));
        // pid_max is at most 2^22.
        assert!(is_stale("mcp-sandbox-4294967295".as_ref()));
    }
}
