//! Text for a terminal: aligned plain-text tables, and escaping what servers send before it
//! reaches one (as `mcpctl` and `mcpx` print it).

use std::fmt::Write;

/// The widest a cell gets before it is cut (with `…`); the last column is never cut.
const MAX_CELL: usize = 60;

/// A table: a header row and rows of cells, printed with aligned columns.
#[derive(Debug)]
pub struct Table {
    header: Vec<String>,
    rows: Vec<Vec<String>>,
}

impl Table {
    /// A table with these column titles.
    pub fn new<const N: usize>(header: [&str; N]) -> Self {
        Table {
            header: header.iter().map(|h| (*h).to_owned()).collect(),
            rows: Vec::new(),
        }
    }

    /// Adds a row (missing cells are empty). Cells are flattened to one line, control
    /// characters escaped, and cut to [`MAX_CELL`] characters except in the last column.
    pub fn row<S: AsRef<str>>(&mut self, cells: impl IntoIterator<Item = S>) {
        let last = self.header.len().saturating_sub(1);
        let row = cells
            .into_iter()
            .enumerate()
            .map(|(i, cell)| {
                let cell = one_line(cell.as_ref());
                if i < last { cut(&cell, MAX_CELL) } else { cell }
            })
            .collect();
        self.rows.push(row);
    }

    /// The table as text, one line per row, columns separated by two spaces, no trailing
    /// spaces.
    pub fn render(&self) -> String {
        let columns = self.header.len();
        let mut widths: Vec<usize> = self.header.iter().map(|h| width(h)).collect();
        for row in &self.rows {
            for (i, cell) in row.iter().enumerate().take(columns) {
                widths[i] = widths[i].max(width(cell));
            }
        }
        let mut out = String::new();
        for row in std::iter::once(&self.header).chain(&self.rows) {
            let mut line = String::new();
            for (i, width) in widths.iter().enumerate() {
                let cell = row.get(i).map(String::as_str).unwrap_or("");
                if i + 1 == columns {
                    line.push_str(cell);
                } else {
                    let _ = write!(line, "{cell:<width$}  ");
                }
            }
            out.push_str(line.trim_end());
            out.push('\n');
        }
        out
    }
}

/// The display width of a cell, counted in characters.
fn width(text: &str) -> usize {
    text.chars().count()
}

/// The text on one line: line breaks and tabs become spaces, control characters are escaped.
pub fn one_line(text: &str) -> String {
    let joined: String = text
        .chars()
        .map(|c| {
            if matches!(c, '\n' | '\r' | '\t') {
                ' '
            } else {
                c
            }
        })
        .collect();
    sanitize(joined.trim())
}

/// At most `max` characters, the last one `…` when the text was cut.
pub fn cut(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let mut cut: String = text.chars().take(max.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

/// `text` with control characters (other than line breaks and tabs) and bidirectional
/// overrides escaped as `\u{..}`, so that what a server sends cannot drive the terminal.
pub fn sanitize(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        let bidi = matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}');
        if (c.is_control() && c != '\n' && c != '\t') || bidi {
            out.push_str(&format!("\\u{{{:x}}}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    out
}

/// Writes `text` and a line break (if it lacks one) on stdout. A closed pipe (`… | head`) is
/// not an error.
///
/// # Errors
/// Any other write error.
pub fn write_stdout(text: &str) -> std::io::Result<()> {
    use std::io::Write as _;
    let mut stdout = std::io::stdout().lock();
    let written = stdout
        .write_all(text.as_bytes())
        .and_then(|()| {
            if text.ends_with('\n') {
                Ok(())
            } else {
                stdout.write_all(b"\n")
            }
        })
        .and_then(|()| stdout.flush());
    match written {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(e),
        _ => Ok(()),
    }
}

/// The messages of an error and its causes, each cause kept only when the messages before it
/// do not already say it (a wrapper often repeats its source's text).
pub fn error_messages(error: &(dyn std::error::Error + 'static)) -> Vec<String> {
    let mut shown = error.to_string();
    let mut messages = vec![shown.clone()];
    let mut cause = error.source();
    while let Some(current) = cause {
        let text = current.to_string();
        if !shown.contains(&text) {
            shown.push_str(&text);
            messages.push(text);
        }
        cause = current.source();
    }
    messages
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_align_and_long_cells_are_cut() {
        let mut table = Table::new(["NAME", "DESCRIPTION"]);
        table.row(["echo", "Echoes\nback"]);
        table.row(["a-much-longer-name", "x"]);
        assert_eq!(
            table.render(),
            "NAME                DESCRIPTION\necho                Echoes back\na-much-longer-name  x\n"
        );
        assert_eq!(cut("abcdef", 4), "abc…");
        assert_eq!(cut("abc", 4), "abc");
        assert_eq!(one_line("a\u{1b}[31mb"), "a\\u{1b}[31mb");
    }
}
