//! Unit tests of the text utilities, one file per module.

mod search;
mod terms;
mod tokens;
mod toon;
