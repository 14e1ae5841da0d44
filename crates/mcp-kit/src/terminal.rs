//! Text for a terminal: aligned plain-text tables, and escaping what servers send before it
//! reaches one (as `mcpctl` and `mcpx` print it).

use std::fmt::Write;

/// The widest a cell gets before it is cut (with `…`) when the table has no width to fit;
/// the last column, and wrapped columns, are never cut.
const MAX_CELL: usize = 60;

/// The narrowest a column is made to fit a width (or its title, if that is wider).
const MIN_COLUMN: usize = 8;

/// A table: a header row and rows of cells, printed with aligned columns.
#[derive(Debug)]
pub struct Table {
    header: Vec<String>,
    rows: Vec<Vec<String>>,
    /// Columns wrapped onto more lines rather than cut.
    wrapped: Vec<bool>,
}

impl Table {
    /// A table with these column titles.
    pub fn new<const N: usize>(header: [&str; N]) -> Self {
        Table {
            header: header.iter().map(|h| (*h).to_owned()).collect(),
            rows: Vec::new(),
            wrapped: vec![false; N],
        }
    }

    /// Column `column` is never cut: when the table must fit a width, its cells wrap onto
    /// more lines (a command line, say, that must be shown whole).
    #[must_use]
    pub fn wrap_column(mut self, column: usize) -> Self {
        if let Some(wrapped) = self.wrapped.get_mut(column) {
            *wrapped = true;
        }
        self
    }

    /// Adds a row (missing cells are empty). Cells are flattened to one line, with control
    /// characters escaped.
    pub fn row<S: AsRef<str>>(&mut self, cells: impl IntoIterator<Item = S>) {
        let row = cells
            .into_iter()
            .map(|cell| one_line(cell.as_ref()))
            .collect();
        self.rows.push(row);
    }

    /// The table as text, one line per row, columns separated by two spaces, no trailing
    /// spaces; cells other than the last column's and wrapped ones are cut to `MAX_CELL` (60)
    /// characters.
    pub fn render(&self) -> String {
        self.render_within(None)
    }

    /// The table as text, fitted to `width` characters when given (a terminal's): columns
    /// keep their natural width when the table fits, and are narrowed, widest first, when it
    /// does not; a narrowed cell is cut with `…`, or wrapped in a
    /// [wrapped column](Self::wrap_column). Without a width, as [`render`](Self::render).
    pub fn render_within(&self, width: Option<usize>) -> String {
        let columns = self.header.len();
        let last = columns.saturating_sub(1);
        let mut widths: Vec<usize> = self.header.iter().map(|h| text_width(h)).collect();
        for row in &self.rows {
            for (i, cell) in row.iter().enumerate().take(columns) {
                let mut cell_width = text_width(cell);
                if width.is_none() && i < last && !self.wrapped[i] {
                    cell_width = cell_width.min(MAX_CELL);
                }
                widths[i] = widths[i].max(cell_width);
            }
        }
        if let Some(width) = width {
            self.narrow(&mut widths, width);
        }
        let mut out = String::new();
        for row in std::iter::once(&self.header).chain(&self.rows) {
            let cells: Vec<Vec<String>> = widths
                .iter()
                .enumerate()
                .map(|(i, width)| {
                    let cell = row.get(i).map(String::as_str).unwrap_or("");
                    if text_width(cell) <= *width {
                        vec![cell.to_owned()]
                    } else if self.wrapped[i] {
                        wrap(cell, *width)
                    } else {
                        vec![cut(cell, *width)]
                    }
                })
                .collect();
            let height = cells.iter().map(Vec::len).max().unwrap_or(1);
            for line_index in 0..height {
                let mut line = String::new();
                for (i, width) in widths.iter().enumerate() {
                    let part = cells[i].get(line_index).map(String::as_str).unwrap_or("");
                    if i + 1 == columns {
                        line.push_str(part);
                    } else {
                        let _ = write!(line, "{part:<width$}  ");
                    }
                }
                out.push_str(line.trim_end());
                out.push('\n');
            }
        }
        out
    }

    /// Narrows the widest columns, one character at a time, until the table fits `width` or
    /// no column can shrink further.
    fn narrow(&self, widths: &mut [usize], width: usize) {
        let gaps = 2 * widths.len().saturating_sub(1);
        let floor: Vec<usize> = self
            .header
            .iter()
            .zip(widths.iter())
            .map(|(title, natural)| (*natural).min(text_width(title).max(MIN_COLUMN)))
            .collect();
        while widths.iter().sum::<usize>() + gaps > width {
            let widest = (0..widths.len())
                .filter(|i| widths[*i] > floor[*i])
                .max_by_key(|i| widths[*i]);
            match widest {
                Some(i) => widths[i] -= 1,
                None => break,
            }
        }
    }
}

/// `text` in lines of at most `width` characters, broken after spaces where possible.
fn wrap(text: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split_inclusive(' ') {
        if text_width(&line) + text_width(word.trim_end()) > width && !line.is_empty() {
            lines.push(line.trim_end().to_owned());
            line = String::new();
        }
        let mut rest = word;
        while text_width(rest.trim_end()) > width {
            let split = rest
                .char_indices()
                .nth(width)
                .map_or(rest.len(), |(at, _)| at);
            lines.push(rest[..split].to_owned());
            rest = &rest[split..];
        }
        line.push_str(rest);
    }
    if !line.trim_end().is_empty() || lines.is_empty() {
        lines.push(line.trim_end().to_owned());
    }
    lines
}

/// The display width of a cell, counted in characters.
fn text_width(text: &str) -> usize {
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

    fn lines_fit(text: &str, width: usize) -> bool {
        text.lines().all(|line| text_width(line) <= width)
    }

    #[test]
    fn a_table_fits_the_width_it_is_given() {
        let description = "A tool whose description goes on and on, well past any terminal";
        let mut table = Table::new(["NAME", "ARGUMENTS", "DESCRIPTION"]);
        table.row(["search", "query*: string, limit: integer", description]);
        table.row(["x", "", "short"]);
        // Room for everything: nothing is cut, the whole width is used.
        let wide = table.render_within(Some(200));
        assert!(wide.contains(description), "{wide}");
        // Narrow: every line fits, the widest columns are cut first.
        for width in [60, 40, 30] {
            let narrow = table.render_within(Some(width));
            assert!(lines_fit(&narrow, width), "{width}:\n{narrow}");
            assert!(narrow.contains('…'), "{narrow}");
            assert!(narrow.contains("search"), "{narrow}");
        }
    }

    #[test]
    fn a_wrapped_column_is_never_cut() {
        let argv =
            "node /opt/servers/filesystem/dist/index.js --root /home/user/projects --verbose";
        let mut table = Table::new(["NAME", "TARGET", "DETAILS"]).wrap_column(1);
        table.row(["fs", argv, "env: 2 variables"]);
        let narrow = table.render_within(Some(50));
        assert!(lines_fit(&narrow, 50), "{narrow}");
        // The TARGET column, read down, is the whole command.
        let header = narrow.lines().next().unwrap();
        let (from, to) = (
            header.find("TARGET").unwrap(),
            header.find("DETAILS").unwrap(),
        );
        let column: String = narrow
            .lines()
            .skip(1)
            .map(|line| line.chars().skip(from).take(to - from).collect::<String>())
            .collect::<Vec<_>>()
            .join(" ");
        assert_eq!(
            column.split_whitespace().collect::<String>(),
            argv.replace(' ', ""),
            "{narrow}"
        );
        // Without a width it stays on one line, whole.
        assert!(table.render().contains(argv));
        assert_eq!(wrap("abcdefgh ij", 4), ["abcd", "efgh", "ij"]);
    }
}
