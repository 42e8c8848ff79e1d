//! Bounded newline-delimited framing for the stdio transport.
//!
//! MCP stdio transport (spec, "Transports", stdio): messages are delimited by
//! newlines and MUST NOT contain embedded newlines.
//!
//! The logic is transport-independent: [`Framer`] is a state machine fed
//! byte slices (whatever a reader has buffered) that says how many bytes it
//! took and, when a line ended, the [`Frame`]. [`LineReader`] drives it over a
//! blocking [`BufRead`]; an async reader drives the same `Framer` over its
//! own buffer. Neither ever holds more than the bound (plus four bytes) of
//! one line in memory: a longer line is discarded as it streams in and
//! reported as [`Frame::Oversized`] once its terminating newline (or end of
//! input) is seen, so the caller can answer it and keep serving.
//!
//! # What the bound counts
//!
//! The bound (`max_line_bytes`) counts the *payload* of a line, inclusively:
//! the bytes handed to the JSON layer. A line of exactly `max_line_bytes`
//! payload bytes is a [`Frame::Line`]; one more byte makes it
//! [`Frame::Oversized`]. Not counted:
//! * the terminating `\n`, and one `\r` right before it (or right before the
//!   end of input);
//! * a UTF-8 byte order mark (`EF BB BF`) at the very start of the stream.
//!
//! [`Frame::Oversized::len`] reports the same count (the payload length), so
//! `len > max_line_bytes` always holds for it.
//!
//! Deliberate choices, each covered by a test:
//! * `\r\n` endings: the `\r` before the `\n` is dropped (it is not part of the
//!   message and does not count against the bound). A `\r` elsewhere is content.
//! * A UTF-8 byte order mark is stripped at the very start of the stream only
//!   (RFC 8259 §8.1 lets a parser ignore one there), also when the reader's
//!   buffer splits it. Anywhere else it is message content, and the strict
//!   JSON layer rejects it.
//! * Blank lines (empty, or only spaces, tabs and `\r`) are skipped: they carry
//!   no message, so they get no response. They still end the stream start (a
//!   BOM on the line after a blank one is content).
//! * Invalid UTF-8 is passed through unchanged as bytes: the strict JSON layer
//!   owns that check and answers it with a parse error.
//! * A final line without a terminating newline is still a line.

use std::io::{self, BufRead};

use crate::engine::recover::line_id;
use crate::engine::wire::{Id, Vetted};

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Bytes the [`Framer`] buffers beyond the payload bound: a leading BOM
/// (three bytes, first line only) and a trailing `\r`.
const SLACK: usize = 4;

/// One unit read from the stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Frame {
    /// A line's payload: without a stream-start BOM and without its `\n` (or
    /// `\r\n`) terminator. Never blank, never longer than the bound.
    Line(Vec<u8>),
    /// A line whose payload is longer than the bound, already discarded.
    Oversized {
        /// The payload length in bytes, counted as the bound counts (no
        /// stream-start BOM, no line ending; saturates at `u64::MAX`).
        len: u64,
        /// The one id its kept start and end name ([`crate::engine::line_id`]),
        /// when a [`LineReader::with_prefix`] kept them; `None` otherwise.
        id: Option<Id>,
        /// Whether its kept start or end names a top-level `method` holding
        /// a string ([`crate::engine::names_string_member`]): a request,
        /// not an answer; `false` when nothing was kept.
        request: bool,
    },
    /// A message the transport already parsed ([`Vetted`]): the engine
    /// takes it as it would the same bytes as a [`Frame::Line`].
    Vetted(Vetted),
    /// End of input.
    Eof,
}

/// The transport-independent framing state machine.
///
/// Feed it what the reader has buffered with [`Framer::feed`], consume the
/// bytes it says it took, and repeat until it returns a frame; at end of
/// input call [`Framer::finish`]. Memory: at most `max_line_bytes + 4` bytes
/// of one line.
#[derive(Debug)]
pub struct Framer {
    max_line_bytes: usize,
    /// No line has ended yet: a BOM here is not payload.
    at_stream_start: bool,
    /// The current line's bytes so far, unless it overflowed.
    buf: Vec<u8>,
    /// Raw bytes of the current line so far (BOM and `\r` included).
    raw_len: u64,
    /// The current line overflowed the buffer: it is being discarded.
    overflowed: bool,
    /// The first bytes of the current line so far match the BOM's.
    bom_prefix: bool,
    /// The current line's last byte so far is `\r`.
    last_cr: bool,
    /// Bytes of an oversized line's start kept ([`Framer::keep_prefix`]).
    prefix_len: usize,
    /// The start of the last oversized line (at most `prefix_len` bytes).
    prefix: Vec<u8>,
    /// The end of the current (then last) oversized line: at most
    /// `2 * prefix_len + 1` bytes while it grows, `prefix_len` once it ended.
    suffix: Vec<u8>,
}

impl Framer {
    /// A framer whose lines carry at most `max_line_bytes` payload bytes.
    pub fn new(max_line_bytes: usize) -> Self {
        Self {
            max_line_bytes,
            at_stream_start: true,
            buf: Vec::new(),
            raw_len: 0,
            overflowed: false,
            bom_prefix: true,
            last_cr: false,
            prefix_len: 0,
            prefix: Vec::new(),
            suffix: Vec::new(),
        }
    }

    /// Keeps the first and the last `bytes` bytes of each oversized line
    /// (stream-start BOM included), readable with
    /// [`Framer::oversized_prefix`] and [`Framer::oversized_suffix`] after
    /// its [`Frame::Oversized`]: enough to read the id of an answer too
    /// long to forward, wherever the writer put it. Memory: `3 * bytes`
    /// beside the bound.
    pub fn keep_prefix(&mut self, bytes: usize) {
        self.prefix_len = bytes.min(self.max_line_bytes);
    }

    /// The start of the last [`Frame::Oversized`] line (empty unless
    /// [`Framer::keep_prefix`] was set).
    pub fn oversized_prefix(&self) -> &[u8] {
        &self.prefix
    }

    /// The end of the last [`Frame::Oversized`] line (its line ending
    /// aside; empty unless [`Framer::keep_prefix`] was set).
    pub fn oversized_suffix(&self) -> &[u8] {
        &self.suffix
    }

    /// Keeps the last `prefix_len` bytes seen of an overflowed line.
    fn keep_suffix(&mut self, chunk: &[u8]) {
        if self.prefix_len == 0 {
            return;
        }
        self.suffix.extend_from_slice(chunk);
        if self.suffix.len() > self.prefix_len.saturating_mul(2) {
            // One byte more: a trailing `\r` is dropped at the line's end.
            let cut = self
                .suffix
                .len()
                .saturating_sub(self.prefix_len.saturating_add(1));
            self.suffix.drain(..cut);
        }
    }

    /// The payload bound in bytes.
    pub fn max_line_bytes(&self) -> usize {
        self.max_line_bytes
    }

    /// Takes bytes from `available` (the reader's buffered input, never
    /// empty at end of input: call [`Framer::finish`] then). Returns how many
    /// bytes it took (the caller consumes them) and, when a line ended in
    /// them, its frame. Blank lines end without a frame.
    pub fn feed(&mut self, available: &[u8]) -> (usize, Option<Frame>) {
        let newline = available.iter().position(|&b| b == b'\n');
        let chunk = available
            .get(..newline.unwrap_or(available.len()))
            .unwrap_or_default();
        self.take(chunk);
        match newline {
            Some(at) => (at.saturating_add(1), self.end_line()),
            None => (available.len(), None),
        }
    }

    /// End of input: the frame of an unterminated last line, or
    /// [`Frame::Eof`]. The framer is then ready for nothing but more
    /// `finish` calls (each [`Frame::Eof`]).
    pub fn finish(&mut self) -> Frame {
        if self.raw_len == 0 {
            return Frame::Eof;
        }
        self.end_line().unwrap_or(Frame::Eof)
    }

    /// Adds `chunk` (no `\n` in it) to the current line.
    fn take(&mut self, chunk: &[u8]) {
        let Some(&last) = chunk.last() else {
            return;
        };
        if self.at_stream_start && self.bom_prefix && self.raw_len < BOM.len() as u64 {
            let done = usize::try_from(self.raw_len).unwrap_or(BOM.len());
            let want = BOM.get(done..).unwrap_or_default();
            let n = want.len().min(chunk.len());
            self.bom_prefix = want.get(..n) == chunk.get(..n);
        }
        self.raw_len = self.raw_len.saturating_add(chunk.len() as u64);
        self.last_cr = last == b'\r';
        if self.overflowed {
            self.keep_suffix(chunk);
            return;
        }
        let slack = if self.at_stream_start { SLACK } else { 1 };
        let cap = self.max_line_bytes.saturating_add(slack);
        if self.buf.len().saturating_add(chunk.len()) > cap {
            self.overflowed = true;
            let room = self.prefix_len.saturating_sub(self.buf.len());
            self.prefix.clear();
            self.prefix
                .extend_from_slice(self.buf.get(..self.prefix_len).unwrap_or(&self.buf));
            self.prefix
                .extend_from_slice(chunk.get(..room).unwrap_or(chunk));
            self.suffix.clear();
            let buf = std::mem::take(&mut self.buf);
            self.keep_suffix(&buf);
            self.keep_suffix(chunk);
            self.buf = buf;
            self.buf.clear();
            self.buf.shrink_to(self.max_line_bytes.min(64 * 1024));
        } else {
            self.buf.extend_from_slice(chunk);
        }
    }

    /// The current line ended: its frame (`None` for a blank line), and the
    /// state reset for the next line.
    fn end_line(&mut self) -> Option<Frame> {
        let bom = self.at_stream_start && self.bom_prefix && self.raw_len >= BOM.len() as u64;
        let skip = if bom { BOM.len() } else { 0 };
        let cr = usize::from(self.last_cr);
        let payload = self
            .raw_len
            .saturating_sub(skip as u64)
            .saturating_sub(cr as u64);
        let overflowed = self.overflowed;
        self.at_stream_start = false;
        self.raw_len = 0;
        self.overflowed = false;
        self.bom_prefix = true;
        self.last_cr = false;
        // Overflowing the buffer implies a payload over the bound (the
        // buffer's slack covers exactly a BOM and a `\r`).
        if overflowed || payload > self.max_line_bytes as u64 {
            if !overflowed {
                // Over the bound by its last bytes only: it is all in `buf`.
                self.prefix.clear();
                let keep = self.prefix_len.min(self.buf.len());
                self.prefix
                    .extend_from_slice(self.buf.get(..keep).unwrap_or_default());
                self.suffix.clear();
                let buf = std::mem::take(&mut self.buf);
                self.keep_suffix(&buf);
                self.buf = buf;
            }
            if self.suffix.last() == Some(&b'\r') {
                self.suffix.pop();
            }
            let cut = self.suffix.len().saturating_sub(self.prefix_len);
            self.suffix.drain(..cut);
            self.buf.clear();
            return Some(Frame::Oversized {
                len: payload,
                id: None,
                request: false,
            });
        }
        let mut line = std::mem::take(&mut self.buf);
        line.truncate(line.len().saturating_sub(cr));
        line.drain(..skip.min(line.len()));
        if line.iter().all(|b| matches!(b, b' ' | b'\t' | b'\r')) {
            // Keep the allocation for the next line.
            line.clear();
            self.buf = line;
            return None;
        }
        Some(Frame::Line(line))
    }
}

/// Reads [`Frame`]s from any [`BufRead`] through a [`Framer`].
#[derive(Debug)]
pub struct LineReader<R> {
    inner: R,
    framer: Framer,
}

impl<R: BufRead> LineReader<R> {
    /// Wraps `inner`; lines whose payload is longer than `max_line_bytes`
    /// are discarded and reported.
    pub fn new(inner: R, max_line_bytes: usize) -> Self {
        Self {
            inner,
            framer: Framer::new(max_line_bytes),
        }
    }

    /// As [`LineReader::new`], keeping the first `prefix_bytes` of each
    /// oversized line ([`Framer::keep_prefix`], [`LineReader::oversized_prefix`]).
    pub fn with_prefix(inner: R, max_line_bytes: usize, prefix_bytes: usize) -> Self {
        let mut framer = Framer::new(max_line_bytes);
        framer.keep_prefix(prefix_bytes);
        Self { inner, framer }
    }

    /// The start of the last oversized line read (see [`LineReader::with_prefix`]).
    pub fn oversized_prefix(&self) -> &[u8] {
        self.framer.oversized_prefix()
    }

    /// The end of the last oversized line read (see [`LineReader::with_prefix`]).
    pub fn oversized_suffix(&self) -> &[u8] {
        self.framer.oversized_suffix()
    }

    /// An oversized line's report with the id its kept ends name.
    fn with_id(&self, frame: Frame) -> Frame {
        match frame {
            Frame::Oversized { len, id: None, .. } if self.framer.prefix_len > 0 => {
                let (prefix, suffix) = (
                    self.framer.oversized_prefix(),
                    self.framer.oversized_suffix(),
                );
                Frame::Oversized {
                    len,
                    id: line_id(prefix, suffix),
                    request: crate::engine::names_string_member(prefix, "method")
                        || crate::engine::tail_names_string_member(suffix, "method"),
                }
            }
            other => other,
        }
    }

    /// Reads the next non-blank line, an oversized-line report, or EOF.
    ///
    /// # Errors
    /// Only I/O errors of the underlying reader (`Interrupted` is retried).
    pub fn next_frame(&mut self) -> io::Result<Frame> {
        loop {
            let available = match self.inner.fill_buf() {
                Ok(b) => b,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if available.is_empty() {
                let last = self.framer.finish();
                return Ok(self.with_id(last));
            }
            let (consumed, frame) = self.framer.feed(available);
            self.inner.consume(consumed);
            if let Some(frame) = frame {
                return Ok(self.with_id(frame));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Every frame of `input` read through a reader buffering `capacity`
    /// bytes at a time (small capacities split lines and the BOM across
    /// refills).
    fn frames_with(input: &[u8], max: usize, capacity: usize) -> Vec<Frame> {
        let mut r = LineReader::new(io::BufReader::with_capacity(capacity, input), max);
        let mut out = Vec::new();
        loop {
            let f = r.next_frame().unwrap();
            if f == Frame::Eof {
                return out;
            }
            out.push(f);
        }
    }

    /// As [`frames_with`], checking that every buffer capacity (1 to 5, and
    /// a large one) gives the same frames.
    fn frames(input: &[u8], max: usize) -> Vec<Frame> {
        let reference = frames_with(input, max, 64 * 1024);
        for capacity in 1..=5 {
            assert_eq!(
                frames_with(input, max, capacity),
                reference,
                "capacity {capacity}: {input:?}"
            );
        }
        reference
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
    fn a_cr_elsewhere_is_content() {
        assert_eq!(frames(b"a\rb\r\r\n", 10), vec![line(b"a\rb\r")]);
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
        // After a blank first line the stream has started.
        assert_eq!(
            frames(b"\n\xEF\xBB\xBF{}\n", 10),
            vec![line(b"\xEF\xBB\xBF{}")]
        );
        // A BOM's first bytes alone are content.
        assert_eq!(frames(b"\xEF\xBB{}\n", 10), vec![line(b"\xEF\xBB{}")]);
        assert_eq!(frames(b"\xEF\xBB\n", 10), vec![line(b"\xEF\xBB")]);
        // A BOM alone makes a blank line.
        assert_eq!(frames(b"\xEF\xBB\xBF\r\n{}\n", 10), vec![line(b"{}")]);
    }

    #[test]
    fn oversized_line_is_reported_and_serving_continues() {
        let mut input = vec![b'a'; 100];
        input.extend_from_slice(b"\n{}\n");
        assert_eq!(
            frames(&input, 10),
            vec![
                Frame::Oversized {
                    len: 100,
                    id: None,
                    request: false
                },
                line(b"{}")
            ]
        );
    }

    /// Every edge of the bound: with and without a BOM, `\n`, `\r\n` and
    /// end of input, one under, at, and one and two over the bound. The
    /// bound counts the payload only, and is inclusive.
    #[test]
    fn the_bound_counts_the_payload_exactly() {
        const MAX: usize = 10;
        for bom in [false, true] {
            for ending in [&b"\n"[..], b"\r\n", b""] {
                for len in [MAX - 1, MAX, MAX + 1, MAX + 2] {
                    let payload = vec![b'x'; len];
                    let mut input = Vec::new();
                    if bom {
                        input.extend_from_slice(BOM);
                    }
                    input.extend_from_slice(&payload);
                    input.extend_from_slice(ending);
                    let expected = if len <= MAX {
                        Frame::Line(payload.clone())
                    } else {
                        Frame::Oversized {
                            len: len as u64,
                            id: None,
                            request: false,
                        }
                    };
                    let mut want = vec![expected];
                    if !ending.is_empty() {
                        // The next line is read normally whatever came before.
                        input.extend_from_slice(b"{}\n");
                        want.push(line(b"{}"));
                    }
                    let got = frames(&input, MAX);
                    assert_eq!(got, want, "bom {bom}, ending {ending:?}, len {len}");
                }
            }
        }
    }

    /// The regression: with a BOM, lines at the bound (and one or two bytes
    /// under it with `\r\n`) were refused.
    #[test]
    fn a_bom_does_not_count_against_the_bound() {
        let mut input = BOM.to_vec();
        input.extend_from_slice(&[b'y'; 10]);
        input.extend_from_slice(b"\r\n");
        assert_eq!(frames(&input, 10), vec![line(&[b'y'; 10])]);
        for len in [8, 9] {
            let mut input = BOM.to_vec();
            input.extend_from_slice(&vec![b'y'; len]);
            input.extend_from_slice(b"\r\n");
            assert_eq!(frames(&input, 10), vec![line(&vec![b'y'; len])]);
        }
    }

    #[test]
    fn a_zero_bound_takes_only_blank_lines() {
        assert_eq!(
            frames(b"\xEF\xBB\xBF\r\n\nx\n", 0),
            vec![Frame::Oversized {
                len: 1,
                id: None,
                request: false
            }]
        );
    }

    #[test]
    fn an_oversized_line_keeps_its_start_when_asked() {
        let mut input = br#"{"id":7,"result":""#.to_vec();
        input.extend_from_slice(&[b'a'; 100]);
        input.extend_from_slice(b"\"}\n{}\n");
        for capacity in [1, 3, 7, 64 * 1024] {
            let reader = io::BufReader::with_capacity(capacity, &input[..]);
            let mut r = LineReader::with_prefix(reader, 50, 20);
            // The kept start names the line's one top-level id.
            assert_eq!(
                r.next_frame().unwrap(),
                Frame::Oversized {
                    len: 120,
                    id: Some(Id::Number(7.into())),
                    request: false,
                }
            );
            assert_eq!(r.oversized_prefix(), &input[..20], "capacity {capacity}");
            assert_eq!(
                r.oversized_suffix(),
                &input[100..120],
                "capacity {capacity}"
            );
            assert_eq!(r.next_frame().unwrap(), line(b"{}"));
        }
        let mut r = LineReader::new(io::BufReader::new(&input[..]), 50);
        assert!(matches!(r.next_frame().unwrap(), Frame::Oversized { .. }));
        assert!(r.oversized_prefix().is_empty() && r.oversized_suffix().is_empty());
        // Over the bound by one byte (never overflowed the buffer's slack).
        let mut r = LineReader::with_prefix(io::BufReader::new(&b"abcdef\r\n"[..]), 5, 3);
        assert_eq!(
            r.next_frame().unwrap(),
            Frame::Oversized {
                len: 6,
                id: None,
                request: false
            }
        );
        assert_eq!(
            (r.oversized_prefix(), r.oversized_suffix()),
            (&b"abc"[..], &b"def"[..])
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
        assert_eq!(
            r.next_frame().unwrap(),
            Frame::Oversized {
                len: 8 << 20,
                id: None,
                request: false,
            }
        );
        assert!(r.framer.buf.capacity() <= 64 * 1024);
        assert_eq!(r.next_frame().unwrap(), Frame::Eof);
    }

    #[test]
    fn the_framer_alone_needs_no_reader() {
        let mut f = Framer::new(4);
        assert_eq!(f.feed(b"\xEF\xBB"), (2, None));
        assert_eq!(f.feed(b"\xBFabcd\r"), (6, None));
        assert_eq!(f.feed(b"\nab"), (1, Some(line(b"abcd"))));
        assert_eq!(f.feed(b"ab"), (2, None));
        assert_eq!(f.finish(), line(b"ab"));
        assert_eq!(f.finish(), Frame::Eof);
    }

    /// The `mcp_session` seed for the bound: a BOM and `\r\n` lines at,
    /// one and two under, and one over the harness's 4096-byte bound.
    #[test]
    fn the_bound_seed_frames_as_intended() {
        let seed = include_bytes!("../../../corpus/mcp_session/bound-bom-crlf.jsonl");
        let got: Vec<Option<u64>> = frames_with(seed, 4096, 8192)
            .into_iter()
            .map(|f| match f {
                Frame::Line(l) => Some(l.len() as u64),
                Frame::Oversized { len, .. } => {
                    assert_eq!(len, 4097);
                    None
                }
                Frame::Eof | Frame::Vetted(_) => unreachable!(),
            })
            .collect();
        let mut want = vec![Some(4096), Some(4096), Some(4095), Some(4094), Some(4096)];
        want.extend([None, None, Some(40)]);
        assert_eq!(got, want);
    }

    proptest! {
        /// Exact oracle: for a payload (no `\n`, not ending in `\r`), with or
        /// without a BOM, ended by `\n`, `\r\n` or end of input, read with
        /// any buffer capacity, the frame is the payload when it is within
        /// the bound (none when blank), else `Oversized` with its length.
        #[test]
        fn frames_agree_with_the_payload_oracle(
            payload in proptest::collection::vec(
                prop_oneof![Just(b'a'), Just(b' '), Just(b'\t'), Just(b'\r'), Just(0xBFu8), Just(b'{')],
                0..24,
            ).prop_filter("ends in \\r", |p| p.last() != Some(&b'\r')),
            bom in any::<bool>(),
            ending in prop_oneof![Just(&b"\n"[..]), Just(&b"\r\n"[..]), Just(&b""[..])],
            max in 0usize..20,
            capacity in 1usize..8,
        ) {
            let mut input = Vec::new();
            if bom {
                input.extend_from_slice(BOM);
            }
            input.extend_from_slice(&payload);
            input.extend_from_slice(ending);
            let got = frames_with(&input, max, capacity);
            let blank = payload.iter().all(|b| matches!(b, b' ' | b'\t' | b'\r'));
            let want = if payload.len() > max {
                vec![Frame::Oversized { len: payload.len() as u64, id: None, request: false }]
            } else if blank {
                vec![]
            } else {
                vec![Frame::Line(payload.clone())]
            };
            prop_assert_eq!(got, want);
        }
    }
}
