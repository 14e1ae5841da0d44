//! Plain-text tables for the human-readable output.

use std::fmt::Write;

use crate::output::sanitize;

/// The widest a cell gets before it is cut (with `…`); the last column is never cut.
const MAX_CELL: usize = 60;

/// A table: a header row and rows of cells, printed with aligned columns.
#[derive(Debug)]
pub(crate) struct Table {
    header: Vec<String>,
    rows: Vec<Vec<String>>,
}

impl Table {
    /// A table with these column titles.
    pub(crate) fn new<const N: usize>(header: [&str; N]) -> Self {
        Table {
            header: header.iter().map(|h| (*h).to_owned()).collect(),
            rows: Vec::new(),
        }
    }

    /// Adds a row (missing cells are empty). Cells are flattened to one line, control
    /// characters escaped, and cut to [`MAX_CELL`] characters except in the last column.
    pub(crate) fn row<S: AsRef<str>>(&mut self, cells: impl IntoIterator<Item = S>) {
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
    pub(crate) fn render(&self) -> String {
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
pub(crate) fn one_line(text: &str) -> String {
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
pub(crate) fn cut(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let mut cut: String = text.chars().take(max.saturating_sub(1)).collect();
    cut.push('…');
    cut
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
