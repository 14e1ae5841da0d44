//! Pagination with opaque, signed cursors.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::Call;
use crate::error::Error;

#[derive(Serialize, Deserialize)]
struct Cursor {
    /// Which list.
    l: String,
    /// Offset of the next page.
    o: usize,
}

const PURPOSE: &str = "cursor";

/// One page of `items` (mapped to JSON by `show`) and the cursor of the next, if any.
pub(super) fn page<T>(
    call: &Call<'_>,
    list: &str,
    items: &[std::sync::Arc<T>],
    show: impl Fn(&T) -> Value,
) -> Result<(Vec<Value>, Option<String>), Error> {
    let server = &call.session().server;
    let offset = match call.params.get("cursor") {
        None | Some(Value::Null) => 0,
        Some(Value::String(token)) => {
            let cursor: Cursor = server
                .inner
                .signer
                .verify(PURPOSE, token)
                .map_err(|e| Error::invalid_params(format!("Invalid cursor: {e}")))?;
            if cursor.l != list {
                return Err(Error::invalid_params(format!(
                    "Invalid cursor: it belongs to {}, not {list}",
                    cursor.l
                )));
            }
            cursor.o
        }
        Some(_) => return Err(Error::invalid_params("Invalid cursor: it must be a string")),
    };
    let size = server.inner.options.page_size.max(1);
    let end = offset.saturating_add(size).min(items.len());
    let start = offset.min(end);
    let page = items[start..end].iter().map(|t| show(t)).collect();
    let next = (end < items.len()).then(|| {
        server.inner.signer.sign(
            PURPOSE,
            &Cursor {
                l: list.to_owned(),
                o: end,
            },
        )
    });
    Ok((page, next))
}

/// `{ <key>: page, nextCursor? }`.
pub(super) fn listing(key: &str, (page, next): (Vec<Value>, Option<String>)) -> Value {
    let mut obj = serde_json::Map::new();
    obj.insert(key.to_owned(), Value::Array(page));
    if let Some(next) = next {
        obj.insert("nextCursor".to_owned(), Value::String(next));
    }
    Value::Object(obj)
}
