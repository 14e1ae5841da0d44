//! Text on one line, and cut to a length.

/// `text` with every whitespace run, newlines included, made one space, and no space at the
/// ends.
pub fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `text` cut to at most `max` characters, ending with `...` when cut (the listing's form,
/// as the seed asks for instructions).
pub fn cut(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let kept: String = text.chars().take(max.saturating_sub(3)).collect();
    format!("{}...", kept.trim_end())
}
