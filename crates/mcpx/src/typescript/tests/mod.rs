//! Unit tests of the JSON Schema → TypeScript conversion, one file per group of constructs.

mod arrays;
mod combinators;
mod comments;
mod literals;
mod malformed;
mod objects;
mod primitives;
mod refs;

use serde_json::Value;

use super::{TsOptions, to_typescript};

/// The conversion of `schema` with the default options.
fn ts(schema: Value) -> String {
    to_typescript(&schema, &TsOptions::default())
}

/// The conversion of `schema` without descriptions.
fn bare(schema: Value) -> String {
    to_typescript(
        &schema,
        &TsOptions {
            max_description_len: 0,
        },
    )
}
