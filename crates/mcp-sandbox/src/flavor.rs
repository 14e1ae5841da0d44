//! Flavors: the size of a session's sandbox, enforced (cgroups, else rlimits).

use std::fmt;
use std::str::FromStr;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// How much CPU and memory a session gets: `small` 1 CPU and 1 GiB, `medium` 2 and 2 GiB,
/// `large` 4 and 4 GiB (the seed's sizes). Fixed when the session is created.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Flavor {
    /// 1 CPU, 1 GiB.
    #[default]
    Small,
    /// 2 CPUs, 2 GiB.
    Medium,
    /// 4 CPUs, 4 GiB.
    Large,
}

impl Flavor {
    /// Every flavor, smallest first.
    pub const ALL: [Flavor; 3] = [Flavor::Small, Flavor::Medium, Flavor::Large];

    /// The flavor's name, as in the tools' arguments.
    pub fn name(self) -> &'static str {
        match self {
            Flavor::Small => "small",
            Flavor::Medium => "medium",
            Flavor::Large => "large",
        }
    }

    /// CPUs (a CFS quota of this many full CPUs).
    pub fn cpus(self) -> u32 {
        match self {
            Flavor::Small => 1,
            Flavor::Medium => 2,
            Flavor::Large => 4,
        }
    }

    /// Memory, in MiB.
    pub fn memory_mb(self) -> u64 {
        u64::from(self.cpus()) * 1024
    }

    /// Memory, in bytes.
    pub fn memory_bytes(self) -> u64 {
        self.memory_mb() * 1024 * 1024
    }
}

impl fmt::Display for Flavor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A flavor name that is not one of `small`, `medium`, `large`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown flavor `{0}`: use small (1 CPU, 1 GiB), medium (2 CPUs, 2 GiB) or large (4 CPUs, 4 GiB)"
)]
pub struct UnknownFlavor(pub String);

impl FromStr for Flavor {
    type Err = UnknownFlavor;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Flavor::ALL
            .into_iter()
            .find(|f| f.name().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| UnknownFlavor(s.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_names() {
        assert_eq!(Flavor::Medium.memory_bytes(), 2 << 30);
        assert_eq!("LARGE".parse::<Flavor>().unwrap().cpus(), 4);
        let error = "huge".parse::<Flavor>().unwrap_err().to_string();
        assert!(
            error.starts_with("unknown flavor `huge`: use small"),
            "{error}"
        );
    }
}
