//! Pagination with opaque, signed cursors.

use std::sync::Arc;

use mcp_schema::PaginatedRequestParams;
use serde::{Deserialize, Serialize};

use crate::error::Error;
use crate::shared::Shared;

#[derive(Serialize, Deserialize)]
struct Cursor {
    /// Which list.
    l: String,
    /// Offset of the next page.
    o: usize,
}

const PURPOSE: &str = "cursor";

/// One page of a list.
pub(super) struct Page<T> {
    pub(super) items: Vec<T>,
    pub(super) next_cursor: Option<String>,
}

/// The page of `items` (shown by `show`) the request's cursor points at, with the cursor of
/// the next, if any. `list` names the list, so a cursor of one list is refused by another.
pub(super) fn page<D, T>(
    shared: &Shared,
    params: Option<&PaginatedRequestParams>,
    list: &str,
    items: &[Arc<D>],
    show: impl Fn(&D) -> T,
) -> Result<Page<T>, Error> {
    let offset = match params.and_then(|p| p.cursor.as_deref()) {
        None => 0,
        Some(token) => {
            let cursor: Cursor = shared
                .signer()
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
    };
    let size = shared.options.page_size.max(1);
    let end = offset.saturating_add(size).min(items.len());
    let start = offset.min(end);
    let next_cursor = (end < items.len()).then(|| {
        shared.signer().sign(
            PURPOSE,
            &Cursor {
                l: list.to_owned(),
                o: end,
            },
        )
    });
    Ok(Page {
        items: items[start..end].iter().map(|t| show(t)).collect(),
        next_cursor,
    })
}
