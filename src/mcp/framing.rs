//! Bounded newline-delimited framing for the stdio transport.
//!
//! MCP stdio transport (spec, "Transports", stdio): messages are delimited by
//! newlines and MUST NOT contain embedded newlines. This reader never holds
//! more than `max_line_bytes` of one line in memory: a longer line is
//! discarded as it streams in and reported as [`Frame::Oversized`] once its
//! terminating newline (or end of input) is seen, so the caller can answer it
//! and keep serving.
//!
//! Deliberate choices, each covered by a test:
//! * `\r\n` endings: the `\r` before the `\n` is dropped (it is not part of the
//!   message and does not count against the bound).
//! * A UTF-8 byte order mark (`EF BB BF`) is stripped at the very start of the
//!   stream only (RFC 8259 §8.1 lets a parser ignore one there). Anywhere else
//!   it is message content, and the strict JSON layer rejects it.
//! * Blank lines (empty, or only spaces, tabs and `\r`) are skipped: they carry
//!   no message, so they get no response.
//! * Invalid UTF-8 is passed through unchanged as bytes: the strict JSON layer
//!   owns that check and answers it with a parse error.
//! * A final line without a terminating newline is still a line.

use std::io::{self, BufRead};

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// One unit read from the stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Frame {
    /// A line's bytes, without its `\n` (or `\r\n`) terminator. Never blank.
    Line(Vec<u8>),
    /// A line longer than the bound, already discarded. `len` is the number of
    /// bytes before its `\n` (a `\r` there included; saturates at `u64::MAX`).
    Oversized {
        /// Length of the discarded line in bytes.
        len: u64,
    },
    /// End of input.
    Eof,
}

/// Reads [`Frame`]s from any [`BufRead`], holding at most `max_line_bytes`
/// (plus one `\r`) of a line at a time.
#[derive(Debug)]
pub struct LineReader<R> {
    inner: R,
    max_line_bytes: usize,
    at_stream_start: bool,
    buf: Vec<u8>,
}

impl<R: BufRead> LineReader<R> {
    /// Wraps `inner`; lines longer than `max_line_bytes` are discarded.
    pub fn new(inner: R, max_line_bytes: usize) -> Self {
        Self {
            inner,
            max_line_bytes,
            at_stream_start: true,
            buf: Vec::new(),
        }
    }

    /// Reads the next non-blank line, an oversized-line report, or EOF.
    ///
    /// # Errors
    /// Only I/O errors of the underlying reader (`Interrupted` is retried).
    pub fn next_frame(&mut self) -> io::Result<Frame> {
        loop {
            match self.read_raw_line()? {
                Raw::Eof => return Ok(Frame::Eof),
                Raw::Oversized(len) => return Ok(Frame::Oversized { len }),
                Raw::Line => {
                    let mut line = std::mem::take(&mut self.buf);
                    if self.at_stream_start {
                        self.at_stream_start = false;
                        if line.starts_with(BOM) {
                            line.drain(..BOM.len());
                        }
                    }
                    if line.last() == Some(&b'\r') {
                        line.pop();
                    }
                    if line.iter().all(|b| matches!(b, b' ' | b'\t' | b'\r')) {
                        continue;
                    }
                    return Ok(Frame::Line(line));
                }
            }
        }
    }

    /// Fills `self.buf` with the next line (terminator removed) or discards it.
    fn read_raw_line(&mut self) -> io::Result<Raw> {
        self.buf.clear();
        // One spare byte for a `\r` that a `\r\n` ending will strip.
        let cap = self.max_line_bytes.saturating_add(1);
        let mut discarded: Option<u64> = None;
        loop {
            let available = match self.inner.fill_buf() {
                Ok(b) => b,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if available.is_empty() {
                return Ok(match discarded {
                    Some(len) => {
                        self.at_stream_start = false;
                        Raw::Oversized(len)
                    }
                    None if self.buf.is_empty() => Raw::Eof,
                    None => Raw::Line,
                });
            }
            let newline = available.iter().position(|&b| b == b'\n');
            let chunk_len = newline.unwrap_or(available.len());
            let chunk = available.get(..chunk_len).unwrap_or_default();
            match discarded.as_mut() {
                Some(len) => *len = len.saturating_add(chunk_len as u64),
                None if self.buf.len().saturating_add(chunk_len) > cap => {
                    discarded = Some((self.buf.len() as u64).saturating_add(chunk_len as u64));
                    self.buf.clear();
                    self.buf.shrink_to(self.max_line_bytes.min(64 * 1024));
                }
                None => self.buf.extend_from_slice(chunk),
            }
            let consumed = newline.map_or(chunk_len, |p| p.saturating_add(1));
            self.inner.consume(consumed);
            if newline.is_some() {
                return Ok(match discarded {
                    Some(len) => {
                        self.at_stream_start = false;
                        Raw::Oversized(len)
                    }
                    None if self.fits() => Raw::Line,
                    None => {
                        // Exactly one byte over: a line of max+1 bytes whose
                        // last byte is not a `\r`.
                        let len = self.buf.len() as u64;
                        self.buf.clear();
                        self.at_stream_start = false;
                        Raw::Oversized(len)
                    }
                });
            }
        }
    }

    /// Whether the buffered line is within the bound once a trailing `\r`
    /// (the `\r\n` case) is discounted, and once a leading BOM is discounted
    /// at the start of the stream.
    fn fits(&self) -> bool {
        let mut len = self.buf.len();
        if self.buf.last() == Some(&b'\r') {
            len = len.saturating_sub(1);
        }
        if self.at_stream_start && self.buf.starts_with(BOM) {
            len = len.saturating_sub(BOM.len());
        }
        len <= self.max_line_bytes
    }
}

enum Raw {
    Line,
    Oversized(u64),
    Eof,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frames(input: &[u8], max: usize) -> Vec<Frame> {
        // A tiny BufReader capacity exercises lines split across refills.
        let mut r = LineReader::new(io::BufReader::with_capacity(3, input), max);
        let mut out = Vec::new();
        loop {
            let f = r.next_frame().unwrap();
            if f == Frame::Eof {
                return out;
            }
            out.push(f);
        }
    }

    fn line(s: &[u8]) -> Frame {
        Frame::Line(s.to_vec())
    }

    #[test]
    fn splits_lines_and_strips_crlf() {
        assert_eq!(
            frames(b"{}\r\n[1]\nx", 10),
            vec![line(b"{}"), line(b"[1]"), line(b"x")]
        );
    }

    #[test]
    fn skips_blank_lines() {
        assert_eq!(frames(b"\n \t\r\n\r\n{}\n\n", 10), vec![line(b"{}")]);
    }

    #[test]
    fn strips_bom_at_stream_start_only() {
        assert_eq!(
            frames(b"\xEF\xBB\xBF{}\n\xEF\xBB\xBF{}\n", 10),
            vec![line(b"{}"), line(b"\xEF\xBB\xBF{}")]
        );
    }

    #[test]
    fn oversized_line_is_reported_and_serving_continues() {
        let mut input = vec![b'a'; 100];
        input.extend_from_slice(b"\n{}\n");
        assert_eq!(
            frames(&input, 10),
            vec![Frame::Oversized { len: 100 }, line(b"{}")]
        );
    }

    #[test]
    fn bound_is_exact() {
        assert_eq!(frames(b"0123456789\n", 10), vec![line(b"0123456789")]);
        assert_eq!(frames(b"0123456789\r\n", 10), vec![line(b"0123456789")]);
        assert_eq!(
            frames(b"0123456789a\n", 10),
            vec![Frame::Oversized { len: 11 }]
        );
        assert_eq!(
            frames(b"0123456789ab\r\n", 10),
            vec![Frame::Oversized { len: 13 }]
        );
        assert_eq!(
            frames(b"0123456789abc", 10),
            vec![Frame::Oversized { len: 13 }]
        );
    }

    #[test]
    fn invalid_utf8_passes_through() {
        assert_eq!(frames(b"\xff\xfe\n", 10), vec![line(b"\xff\xfe")]);
    }

    #[test]
    fn memory_stays_bounded_on_a_huge_line() {
        let big = vec![b'x'; 8 << 20];
        let mut r = LineReader::new(io::BufReader::new(&big[..]), 1024);
        assert_eq!(r.next_frame().unwrap(), Frame::Oversized { len: 8 << 20 });
        assert!(r.buf.capacity() <= 64 * 1024);
    }
}
