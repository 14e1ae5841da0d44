//! The two tools every benchmarked server offers, and what their answers must contain.
//!
//! - `echo` takes `{"message": string}` and returns the message as one text block.
//! - `blob` takes no arguments and returns a structured result of about 10 KiB
//!   (`structuredContent` plus, as every SDK does for structured output, the same JSON as a
//!   text block), declared with an `outputSchema`.
//!
//! The TypeScript and Python peers (`bench/peers/`) build the very same blob; the load
//! generator compares every answer with [`blob`] field by field.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Records in the blob (about 10 KiB of JSON as `structuredContent`).
pub const BLOB_ITEMS: u32 = 48;

/// The arguments of `echo`.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
pub struct EchoArgs {
    /// The text to send back.
    pub message: String,
}

/// One record of the blob.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
pub struct Item {
    /// Its position, from 0.
    pub id: u32,
    /// `item-NNN`.
    pub name: String,
    /// A sentence naming the record.
    pub description: String,
    /// Always `["alpha", "beta", "gamma"]`.
    pub tags: Vec<String>,
    /// `id * 37 % 101`.
    pub score: u32,
    /// `id % 3 != 0`.
    pub active: bool,
}

/// The structured result of `blob`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
pub struct Blob {
    /// [`BLOB_ITEMS`] records.
    pub items: Vec<Item>,
}

/// Record `id` of the blob. The peers compute the same fields the same way.
pub fn item(id: u32) -> Item {
    Item {
        id,
        name: format!("item-{id:03}"),
        description: format!(
            "Record {id} of the benchmark blob, a structured result that every server builds \
             the same way."
        ),
        tags: vec!["alpha".into(), "beta".into(), "gamma".into()],
        score: id * 37 % 101,
        active: !id.is_multiple_of(3),
    }
}

/// The blob, built afresh (each server builds it on every call).
pub fn blob() -> Blob {
    Blob {
        items: (0..BLOB_ITEMS).map(item).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_blob_is_about_ten_kib() {
        let len = serde_json::to_vec(&blob()).unwrap().len();
        assert!((9_000..=11_500).contains(&len), "{len} bytes");
    }
}
