//! Text for the model: token counts (o200k), TOON or compact JSON (whichever is fewer tokens),
//! and search over tool names and descriptions.

mod lines;
mod search;
mod terms;
mod tokens;
mod toon;

pub use lines::{cut, one_line};
pub use search::{Hit, SearchDoc, SearchIndex};
pub use tokens::{count_tokens, warm_up_tokenizer};
pub use toon::{TextFormat, ToonDelimiter, ToonOptions, compact_text, to_toon, to_toon_with};

#[cfg(test)]
mod tests;
