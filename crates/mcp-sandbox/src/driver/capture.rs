//! One stream's output of one execution: kept up to a limit, counted beyond it.

/// Which output stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Stream {
    /// Standard output.
    Stdout,
    /// Standard error.
    Stderr,
}

impl Stream {
    /// `stdout` or `stderr`.
    pub fn name(self) -> &'static str {
        match self {
            Stream::Stdout => "stdout",
            Stream::Stderr => "stderr",
        }
    }
}

/// The output of one stream, the first `limit` bytes kept.
#[derive(Debug, Clone, Default)]
pub struct Capture {
    bytes: Vec<u8>,
    limit: usize,
    total: u64,
    /// Bytes kept that were not yet handed out as progress (a UTF-8 character cut at the end
    /// of a read waits for its rest).
    progress_from: usize,
}

impl Capture {
    /// An empty capture keeping at most `limit` bytes.
    pub fn new(limit: usize) -> Self {
        Self {
            limit,
            ..Self::default()
        }
    }

    /// Appends `data`; the part past the limit is only counted.
    pub fn push(&mut self, data: &[u8]) {
        self.total += data.len() as u64;
        let room = self.limit.saturating_sub(self.bytes.len());
        self.bytes.extend_from_slice(&data[..data.len().min(room)]);
    }

    /// True when output was dropped for the limit.
    pub fn truncated(&self) -> bool {
        self.total > self.bytes.len() as u64
    }

    /// Every byte the stream produced, kept or not.
    pub fn total(&self) -> u64 {
        self.total
    }

    /// The kept output as text (invalid UTF-8 replaced).
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.bytes).into_owned()
    }

    /// The kept output not handed out yet, up to the last whole UTF-8 character; `None`
    /// when there is none.
    pub fn take_progress(&mut self) -> Option<String> {
        let fresh = &self.bytes[self.progress_from..];
        let whole = match std::str::from_utf8(fresh) {
            Ok(_) => fresh.len(),
            // A character cut at the end: wait for its rest. Invalid bytes elsewhere: hand
            // them out (replaced) rather than hold everything back.
            Err(e) if e.error_len().is_none() => e.valid_up_to(),
            Err(_) => fresh.len(),
        };
        if whole == 0 {
            return None;
        }
        let text = String::from_utf8_lossy(&fresh[..whole]).into_owned();
        self.progress_from += whole;
        Some(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_up_to_the_limit_and_counts_the_rest() {
        let mut capture = Capture::new(4);
        capture.push(b"ab");
        capture.push(b"cdef");
        assert_eq!((capture.text().as_str(), capture.total()), ("abcd", 6));
        assert!(capture.truncated());
    }

    #[test]
    fn progress_waits_for_a_cut_character() {
        let mut capture = Capture::new(100);
        let euro = "€".as_bytes();
        capture.push(&[b'a', euro[0]]);
        assert_eq!(capture.take_progress().as_deref(), Some("a"));
        assert_eq!(capture.take_progress(), None);
        capture.push(&euro[1..]);
        assert_eq!(capture.take_progress().as_deref(), Some("€"));
    }
}
