//! Fences: how the host knows it has read all of one execution's output. When a request is
//! finished, the driver writes `NUL` + the request's fence (32 hex digits the host chose at
//! random) + `NUL` to its stdout and its stderr, then answers on the control channel. A
//! stream's output up to its fence belongs to the request; what follows (a background
//! process still writing) belongs to the next one.

use memchr::memmem;

/// A new random fence: 32 lowercase hex digits.
pub(crate) fn new_fence() -> String {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).expect("the operating system's random source");
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Looks for one fence in a stream read in chunks (the fence may straddle two).
#[derive(Debug)]
pub(crate) struct FenceScanner {
    marker: Vec<u8>,
    held: Vec<u8>,
}

/// What a chunk held.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Scan {
    /// Output of the request (possibly empty while a possible fence start is held back).
    Output(Vec<u8>),
    /// The fence: the request's last output, and what came after it.
    Fenced { before: Vec<u8>, after: Vec<u8> },
}

impl FenceScanner {
    /// A scanner for `fence`.
    pub(crate) fn new(fence: &str) -> Self {
        let mut marker = Vec::with_capacity(fence.len() + 2);
        marker.push(0);
        marker.extend_from_slice(fence.as_bytes());
        marker.push(0);
        Self {
            marker,
            held: Vec::new(),
        }
    }

    /// Feeds the next bytes of the stream.
    pub(crate) fn push(&mut self, data: &[u8]) -> Scan {
        self.held.extend_from_slice(data);
        if let Some(at) = memmem::find(&self.held, &self.marker) {
            let after = self.held.split_off(at + self.marker.len());
            self.held.truncate(at);
            return Scan::Fenced {
                before: std::mem::take(&mut self.held),
                after,
            };
        }
        // Hold back the longest tail that could be the start of the fence.
        let keep = (1..self.marker.len())
            .rev()
            .find(|&k| self.held.ends_with(&self.marker[..k]))
            .unwrap_or(0);
        let rest = self.held.split_off(self.held.len() - keep);
        Scan::Output(std::mem::replace(&mut self.held, rest))
    }

    /// The bytes held back (the stream ended without its fence).
    pub(crate) fn finish(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.held)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_a_fence_split_across_chunks_and_keeps_what_follows() {
        let fence = new_fence();
        assert_eq!(fence.len(), 32);
        let mut stream = b"hello\0".to_vec();
        stream.extend_from_slice(fence.as_bytes());
        stream.extend_from_slice(b"\0late");
        for split in 0..stream.len() {
            let mut scanner = FenceScanner::new(&fence);
            let mut output = Vec::new();
            let mut after: Option<Vec<u8>> = None;
            for part in [&stream[..split], &stream[split..]] {
                if let Some(after) = after.as_mut() {
                    after.extend_from_slice(part);
                    continue;
                }
                match scanner.push(part) {
                    Scan::Output(bytes) => output.extend(bytes),
                    Scan::Fenced { before, after: a } => {
                        output.extend(before);
                        after = Some(a);
                    }
                }
            }
            assert_eq!(output, b"hello", "split at {split}");
            assert_eq!(after.as_deref(), Some(&b"late"[..]), "split at {split}");
        }
    }

    #[test]
    fn output_that_only_looks_like_a_fence_start_is_passed_on() {
        // A fixed fence: a random one starting with `b` would rightly hold back "\0b".
        let mut scanner = FenceScanner::new("0123456789abcdef0123456789abcdef");
        assert_eq!(scanner.push(b"a\0b"), Scan::Output(b"a\0b".to_vec()));
        assert_eq!(scanner.push(b"c\0"), Scan::Output(b"c".to_vec()));
        assert_eq!(scanner.finish(), b"\0");
    }
}
