//! Protocol versions, eras, and version negotiation.
//!
//! MCP has two eras:
//!
//! * **Stateful** (`2024-11-05` … `2025-11-25`, "legacy" in the 2026 spec): a session starts
//!   with an `initialize` request (the client proposes a version, the server answers one) and
//!   `notifications/initialized`; capabilities are exchanged once.
//! * **Stateless** (`2026-07-28` and later, "modern"): no handshake. Every request carries its
//!   protocol version, client info and client capabilities in `params._meta`
//!   (see [`Meta`](crate::Meta)); `server/discover` lists the versions a server supports, and a
//!   server rejects a version it does not support with `UnsupportedProtocolVersionError`, whose
//!   data lists the supported ones.
//!
//! The helpers here cover both: [`client_accepts_initialize_answer`] (client side of
//! `initialize`), [`server_select_version`] / [`server_select_initialize_version`] (server side),
//! and [`select_mutual_version`] (modern clients choosing from a `DiscoverResult` or an
//! `UnsupportedProtocolVersionError`).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// `"2024-11-05"`, the first released protocol version.
pub const V2024_11_05: &str = "2024-11-05";
/// `"2025-03-26"`: audio content, tool annotations, completions capability, JSON-RPC batches.
pub const V2025_03_26: &str = "2025-03-26";
/// `"2025-06-18"`: elicitation, structured tool output, resource links, `title`, `_meta` on types.
pub const V2025_06_18: &str = "2025-06-18";
/// `"2025-11-25"`: icons, tasks, URL-mode elicitation, sampling with tools.
pub const V2025_11_25: &str = "2025-11-25";
/// `"2026-07-28"`: stateless requests, `server/discover`, MRTR, `subscriptions/listen`, caching.
pub const V2026_07_28: &str = "2026-07-28";
/// The newest protocol version this crate models.
pub const LATEST: &str = V2026_07_28;
/// Every protocol version this crate models, oldest first.
pub const SUPPORTED: &[&str] = &[
    V2024_11_05,
    V2025_03_26,
    V2025_06_18,
    V2025_11_25,
    V2026_07_28,
];

/// The two eras of the protocol.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Era {
    /// `initialize` handshake, per-session capabilities (2025-11-25 and earlier).
    Stateful,
    /// Per-request `_meta` carrying version and capabilities (2026-07-28 and later).
    Stateless,
}

impl Era {
    /// The era of a protocol version string.
    ///
    /// Known versions map exactly; an unknown version shaped like a date (`YYYY-MM-DD`) is
    /// stateless when it is `2026-07-28` or later (the spec defines "modern" as "2026-07-28 and
    /// later") and stateful otherwise. Anything else is `None`.
    pub fn of(version: &str) -> Option<Era> {
        if let Some(v) = ProtocolVersion::parse(version) {
            return Some(v.era());
        }
        is_date_shaped(version).then(|| {
            if version >= V2026_07_28 {
                Era::Stateless
            } else {
                Era::Stateful
            }
        })
    }
}

fn is_date_shaped(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 10
        && b.iter().enumerate().all(|(i, c)| match i {
            4 | 7 => *c == b'-',
            _ => c.is_ascii_digit(),
        })
}

/// A protocol version this crate models.
///
/// Ordered chronologically. Serializes as its string; parsing an unknown string fails (keep
/// unknown versions as plain strings, as the protocol messages do).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ProtocolVersion {
    /// `2024-11-05`.
    V2024_11_05,
    /// `2025-03-26`.
    V2025_03_26,
    /// `2025-06-18`.
    V2025_06_18,
    /// `2025-11-25`.
    V2025_11_25,
    /// `2026-07-28`.
    V2026_07_28,
}

impl ProtocolVersion {
    /// Every version, oldest first.
    pub const ALL: [ProtocolVersion; 5] = [
        ProtocolVersion::V2024_11_05,
        ProtocolVersion::V2025_03_26,
        ProtocolVersion::V2025_06_18,
        ProtocolVersion::V2025_11_25,
        ProtocolVersion::V2026_07_28,
    ];
    /// The newest version.
    pub const LATEST: ProtocolVersion = ProtocolVersion::V2026_07_28;

    /// The version string (`"2025-06-18"`).
    pub const fn as_str(self) -> &'static str {
        match self {
            ProtocolVersion::V2024_11_05 => V2024_11_05,
            ProtocolVersion::V2025_03_26 => V2025_03_26,
            ProtocolVersion::V2025_06_18 => V2025_06_18,
            ProtocolVersion::V2025_11_25 => V2025_11_25,
            ProtocolVersion::V2026_07_28 => V2026_07_28,
        }
    }

    /// The known version with this string.
    pub fn parse(s: &str) -> Option<ProtocolVersion> {
        ProtocolVersion::ALL.into_iter().find(|v| v.as_str() == s)
    }

    /// The era this version belongs to.
    pub const fn era(self) -> Era {
        match self {
            ProtocolVersion::V2026_07_28 => Era::Stateless,
            _ => Era::Stateful,
        }
    }

    /// True for the versions that use the `initialize` handshake.
    pub const fn is_stateful(self) -> bool {
        matches!(self.era(), Era::Stateful)
    }
}

impl fmt::Display for ProtocolVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The string is not a protocol version this crate models.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownVersion(pub String);

impl fmt::Display for UnknownVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown MCP protocol version {:?}", self.0)
    }
}

impl std::error::Error for UnknownVersion {}

impl FromStr for ProtocolVersion {
    type Err = UnknownVersion;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        ProtocolVersion::parse(s).ok_or_else(|| UnknownVersion(s.to_owned()))
    }
}

impl Serialize for ProtocolVersion {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for ProtocolVersion {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let s = String::deserialize(deserializer)?;
        ProtocolVersion::parse(&s).ok_or_else(|| serde::de::Error::custom(UnknownVersion(s)))
    }
}

/// The newest of `versions` (protocol versions are dates, so the greatest string).
pub fn latest_of<'a>(versions: &[&'a str]) -> Option<&'a str> {
    versions.iter().copied().max()
}

/// Server side: the version to use for a client that asked for `requested`.
///
/// The same version when the server supports it; otherwise the latest version the server
/// supports (the rule of the `initialize` handshake, and the choice a modern server offers in
/// `UnsupportedProtocolVersionError` data). `None` only when `supported` is empty.
pub fn server_select_version<'a>(requested: &str, supported: &[&'a str]) -> Option<&'a str> {
    supported
        .iter()
        .copied()
        .find(|v| *v == requested)
        .or_else(|| latest_of(supported))
}

/// Server side of `initialize`: like [`server_select_version`], restricted to the stateful
/// versions in `supported` (a handshake can only settle on a handshake-based version).
///
/// `None` when the server supports no stateful version: a modern-only server then answers
/// `initialize` with an error naming the versions it supports, as the 2026-07-28 versioning page
/// recommends.
pub fn server_select_initialize_version<'a>(
    requested: &str,
    supported: &[&'a str],
) -> Option<&'a str> {
    let stateful: Vec<&'a str> = supported
        .iter()
        .copied()
        .filter(|v| Era::of(v) == Some(Era::Stateful))
        .collect();
    server_select_version(requested, &stateful)
}

/// Client side of `initialize`: whether the client can continue with the version the server
/// answered.
///
/// Returns the answered version (from the client's own list) when the client supports it; `None`
/// means the client SHOULD disconnect, as the stateful specs require.
pub fn client_accepts_initialize_answer<'a>(
    answered: &str,
    supported: &[&'a str],
) -> Option<&'a str> {
    supported.iter().copied().find(|v| *v == answered)
}

/// Modern client side: the latest version both parties support.
///
/// `ours` is the client's list; `theirs` comes from [`DiscoverResult::supported_versions`] or
/// from [`UnsupportedProtocolVersionData::supported`]. `None` when there is no overlap (surface
/// an error to the user, or fall back to a stateful `initialize` if the client supports one).
///
/// [`DiscoverResult::supported_versions`]: crate::DiscoverResult::supported_versions
/// [`UnsupportedProtocolVersionData::supported`]: crate::UnsupportedProtocolVersionData::supported
pub fn select_mutual_version<'a, S: AsRef<str>>(ours: &[&'a str], theirs: &[S]) -> Option<&'a str> {
    ours.iter()
        .copied()
        .filter(|v| theirs.iter().any(|t| t.as_ref() == *v))
        .max()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_and_eras() {
        assert_eq!(SUPPORTED.len(), ProtocolVersion::ALL.len());
        for (s, v) in SUPPORTED.iter().zip(ProtocolVersion::ALL) {
            assert_eq!(v.as_str(), *s);
            assert_eq!(s.parse::<ProtocolVersion>().unwrap(), v);
        }
        assert!(ProtocolVersion::V2024_11_05 < ProtocolVersion::V2026_07_28);
        assert_eq!(ProtocolVersion::LATEST.as_str(), LATEST);
        assert_eq!(Era::of("2099-01-01"), Some(Era::Stateless));
        assert_eq!(Era::of("2025-01-01"), Some(Era::Stateful));
        assert_eq!(Era::of("draft"), None);
    }
}
