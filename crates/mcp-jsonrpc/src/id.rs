//! JSON-RPC request ids.

use std::fmt;

use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A JSON-RPC request id: an integer or a string.
///
/// JSON-RPC 2.0 allows fractional numbers and `null` as ids but discourages both; MCP forbids
/// `null` and every MCP schema declares ids as `string | integer`. This type accepts exactly
/// that: integers in the `i64` range and strings. Anything else is rejected when parsing, so a
/// message carrying it is an invalid request (`-32600`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Id {
    /// An integer id (`"id": 7`).
    Number(i64),
    /// A string id (`"id": "abc"`).
    String(String),
}

impl Id {
    /// The integer, if this is a numeric id.
    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Id::Number(n) => Some(*n),
            Id::String(_) => None,
        }
    }

    /// The string, if this is a string id.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Id::Number(_) => None,
            Id::String(s) => Some(s),
        }
    }

    /// Writes the id as JSON into `out`.
    pub(crate) fn write_json(&self, out: &mut Vec<u8>) {
        match self {
            Id::Number(n) => {
                use std::io::Write as _;
                // Writing into a Vec cannot fail.
                let _ = write!(out, "{n}");
            }
            Id::String(s) => write_json_string(out, s),
        }
    }
}

impl fmt::Display for Id {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Id::Number(n) => write!(f, "{n}"),
            Id::String(s) => write!(f, "{s:?}"),
        }
    }
}

impl From<i64> for Id {
    fn from(n: i64) -> Self {
        Id::Number(n)
    }
}

impl From<i32> for Id {
    fn from(n: i32) -> Self {
        Id::Number(n.into())
    }
}

impl From<u32> for Id {
    fn from(n: u32) -> Self {
        Id::Number(n.into())
    }
}

impl From<String> for Id {
    fn from(s: String) -> Self {
        Id::String(s)
    }
}

impl From<&str> for Id {
    fn from(s: &str) -> Self {
        Id::String(s.to_owned())
    }
}

impl Serialize for Id {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Id::Number(n) => serializer.serialize_i64(*n),
            Id::String(s) => serializer.serialize_str(s),
        }
    }
}

impl<'de> Deserialize<'de> for Id {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct IdVisitor;

        impl Visitor<'_> for IdVisitor {
            type Value = Id;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an integer or a string")
            }

            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Id, E> {
                Ok(Id::Number(v))
            }

            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Id, E> {
                i64::try_from(v)
                    .map(Id::Number)
                    .map_err(|_| E::custom(format_args!("id {v} is out of the i64 range")))
            }

            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Id, E> {
                Err(E::custom(format_args!(
                    "id {v} is not an integer (MCP ids are strings or integers)"
                )))
            }

            fn visit_str<E: de::Error>(self, v: &str) -> Result<Id, E> {
                Ok(Id::String(v.to_owned()))
            }

            fn visit_string<E: de::Error>(self, v: String) -> Result<Id, E> {
                Ok(Id::String(v))
            }
        }

        deserializer.deserialize_any(IdVisitor)
    }
}

/// Writes `s` as a JSON string literal.
pub(crate) fn write_json_string(out: &mut Vec<u8>, s: &str) {
    // Serializing a str into a Vec cannot fail.
    let _ = serde_json::to_writer(&mut *out, s);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_round_trip() {
        for text in ["7", "-3", "\"abc\"", "\"\"", "9223372036854775807"] {
            let id: Id = serde_json::from_str(text).unwrap();
            assert_eq!(serde_json::to_string(&id).unwrap(), text);
            let mut out = Vec::new();
            id.write_json(&mut out);
            assert_eq!(std::str::from_utf8(&out).unwrap(), text);
        }
    }

    #[test]
    fn rejects_what_mcp_forbids() {
        for text in ["null", "1.5", "true", "[1]", "{}", "18446744073709551615"] {
            assert!(
                serde_json::from_str::<Id>(text).is_err(),
                "{text} must be rejected"
            );
        }
    }
}
