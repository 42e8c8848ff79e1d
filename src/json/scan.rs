//! The strict scanner: one iterative pass over the bytes that checks the
//! RFC 8259 grammar exactly as `serde_json` accepts it, the nesting depth and
//! duplicate keys (compared after unescaping), and reports the members a
//! caller's [`Sink`] asks for (their kind and span), so a caller such as `rpc`
//! never builds a `Value` for what it only needs to locate. The scanner knows
//! no member names: the sink's table decides what is recorded.
//!
//! In `finish` mode a depth or duplicate-key fault is remembered and the scan
//! goes on to the end of the input (grammar only below the depth bound, an
//! explicit stack of one byte per level, so it is bounded by the input
//! length), so the caller learns whether the whole text is valid JSON and
//! what its top-level members are.
//!
//! Why a hand-written pass rather than a serde visitor: it knows byte offsets
//! (serde only reports line/column) and it never allocates for values, which
//! is what lets the vetted `parse_tool_call` outrun an unvetted parse.
//!
//! What keeps it cheap (issue 17): string bodies are skipped a word at a
//! time (the first special byte found from the word's mask, no byte loop);
//! keys are never copied unless they hold an escape, and each carries a
//! 64-bit fingerprint so the duplicate check is integer compares, with the
//! bytes compared only when two fingerprints match. The lexing functions
//! (strings, escapes, numbers, literals) are shared with the one-pass value
//! builder of [`super::build`].
use std::borrow::Cow;
use std::collections::HashSet;

use super::{DuplicateKey, SyntaxKind};

/// Objects with more keys than this switch from a linear duplicate check to
/// a hash set, so duplicate detection stays O(n) on huge objects.
pub(crate) const LINEAR_KEY_CHECK: usize = 16;

/// A byte range `start..end` of the input.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Span {
    pub start: usize,
    pub end: usize,
}

/// The JSON type of a value, known from its first byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Object,
    Array,
    String,
    Number,
    Bool,
    Null,
}

impl Kind {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Kind::Object => "an object",
            Kind::Array => "an array",
            Kind::String => "a string",
            Kind::Number => "a number",
            Kind::Bool => "a boolean",
            Kind::Null => "null",
        }
    }
}

/// A value seen by the scanner: its type and where it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Member {
    pub kind: Kind,
    pub span: Span,
}

/// What a [`Sink`] calls a member it wants recorded; [`NO_SLOT`] records nothing.
pub(crate) type Slot = u8;

/// The slot of nothing: a member the sink does not want.
pub(crate) const NO_SLOT: Slot = 0;

/// The slot of the top-level value (the parent of its members or elements).
pub(crate) const ROOT: Slot = 1;

/// Receives the members a caller's table asks for. Only containers that
/// are the value of a recorded slot ask the sink about their members, so a
/// sink that wants little costs little.
pub(crate) trait Sink {
    /// The slot of member `key` (unescaped) of an object that is the value
    /// of `parent` ([`ROOT`] for the top-level value).
    fn member(&mut self, parent: Slot, key: &[u8]) -> Slot;
    /// The slot of the next element of an array that is the value of `parent`.
    fn element(&mut self, parent: Slot) -> Slot;
    /// The value of `slot` is complete: its kind and span.
    fn record(&mut self, slot: Slot, m: Member);
}

/// A sink that records nothing.
pub(crate) struct NoSink;

impl Sink for NoSink {
    fn member(&mut self, _: Slot, _: &[u8]) -> Slot {
        NO_SLOT
    }
    fn element(&mut self, _: Slot) -> Slot {
        NO_SLOT
    }
    fn record(&mut self, _: Slot, _: Member) {}
}

/// Why a scan stopped.
#[derive(Debug)]
pub(crate) enum Fail {
    Syntax(SyntaxKind, usize),
    TooDeep { offset: usize, pointer: String },
    Duplicate(DuplicateKey),
}

#[cold]
#[inline(never)]
fn syntax<T>(kind: SyntaxKind, offset: usize) -> Result<T, Fail> {
    Err(Fail::Syntax(kind, offset))
}

/// One open array or object.
pub(super) struct Frame<'a> {
    pub(super) object: bool,
    /// Index in [`Keys`] of this object's first key.
    pub(super) keys_start: usize,
    /// Array index of the current element.
    pub(super) index: usize,
    /// Set once the object has more than [`LINEAR_KEY_CHECK`] keys.
    set: Option<HashSet<Cow<'a, [u8]>>>,
    /// Where this container starts.
    start: usize,
    /// The slot the current member or element is recorded in.
    slot: Slot,
    /// The slot this container is the value of ([`NO_SLOT`]: not recorded).
    own: Slot,
}

impl Frame<'_> {
    pub(super) fn new(object: bool, keys_start: usize, start: usize) -> Self {
        Frame {
            object,
            keys_start,
            index: 0,
            set: None,
            start,
            slot: NO_SLOT,
            own: NO_SLOT,
        }
    }
}

/// One key of an open object: its fingerprint, its unescaped bytes
/// (borrowed from the input unless it held an escape) and its offset.
struct KeyRec<'a> {
    fp: u64,
    key: Cow<'a, [u8]>,
}

/// The keys of every open object, innermost last.
#[derive(Default)]
pub(super) struct Keys<'a> {
    recs: Vec<KeyRec<'a>>,
}

impl<'a> Keys<'a> {
    pub(super) fn with_capacity(n: usize) -> Self {
        Keys {
            recs: Vec::with_capacity(n),
        }
    }

    pub(super) fn len(&self) -> usize {
        self.recs.len()
    }

    pub(super) fn truncate(&mut self, n: usize) {
        self.recs.truncate(n);
    }

    /// Whether `key` (fingerprint `fp`) is already a key of `frame`, the
    /// innermost object; then records it as one.
    #[inline(always)]
    pub(super) fn insert(&mut self, frame: &mut Frame<'a>, key: Cow<'a, [u8]>, fp: u64) -> bool {
        let own = self.recs.get(frame.keys_start..).unwrap_or_default();
        let dup = if own.len() < LINEAR_KEY_CHECK {
            // Integer compares; the bytes only when a fingerprint matches.
            own.iter().any(|r| r.fp == fp) && same_key(own, fp, &key)
        } else {
            large_insert(own, frame, key.clone())
        };
        self.recs.push(KeyRec { fp, key });
        dup
    }

    /// The last key recorded.
    fn last(&self) -> Option<&[u8]> {
        self.recs.last().map(|r| r.key.as_ref())
    }

    fn get(&self, i: usize) -> Option<&[u8]> {
        self.recs.get(i).map(|r| r.key.as_ref())
    }
}

/// Whether a key of `own` with fingerprint `fp` equals `key`.
#[cold]
#[inline(never)]
fn same_key(own: &[KeyRec<'_>], fp: u64, key: &[u8]) -> bool {
    own.iter().any(|r| r.fp == fp && r.key.as_ref() == key)
}

/// The duplicate check of an object that already has [`LINEAR_KEY_CHECK`]
/// keys (`own`): a hash set of its keys, built on first use.
#[inline(never)]
fn large_insert<'a>(own: &[KeyRec<'a>], frame: &mut Frame<'a>, key: Cow<'a, [u8]>) -> bool {
    let set = frame
        .set
        .get_or_insert_with(|| own.iter().map(|r| r.key.clone()).collect());
    !set.insert(key)
}

/// RFC 6901 pointer to the current position in `frames`; `last` is a key
/// being read in the innermost object (`None`: its last recorded key).
pub(super) fn pointer(frames: &[Frame<'_>], keys: &Keys<'_>, last: Option<&[u8]>) -> String {
    let mut out = String::new();
    for (i, f) in frames.iter().enumerate() {
        let innermost = i + 1 == frames.len();
        if f.object {
            let key = if innermost {
                match last {
                    Some(k) => Some(k),
                    None => keys.last(),
                }
            } else {
                frames
                    .get(i + 1)
                    .and_then(|n| n.keys_start.checked_sub(1))
                    .and_then(|j| keys.get(j))
            };
            if let Some(k) = key {
                out.push('/');
                push_pointer_token(&mut out, k);
            }
        } else {
            out.push('/');
            out.push_str(&f.index.to_string());
        }
    }
    out
}

/// Options of one scan.
pub(crate) struct Options {
    pub max_depth: usize,
    /// Go on after a depth or duplicate-key fault (see the module docs).
    pub finish: bool,
}

/// What a scan found.
#[derive(Debug)]
pub(crate) struct Outcome {
    /// The first fault, if any.
    pub fault: Option<Fail>,
    /// The whole input is one JSON text by the grammar (depth and duplicate
    /// keys aside). Only meaningful in `finish` mode; otherwise it is false
    /// whenever `fault` is set.
    pub complete: bool,
}

struct Scanner<'a, 's, S: Sink> {
    b: &'a [u8],
    frames: Vec<Frame<'a>>,
    keys: Keys<'a>,
    opts: Options,
    sink: &'s mut S,
    fault: Option<Fail>,
}

/// Scans `b` as one JSON text, reporting the members `sink` asks for.
pub(crate) fn scan<S: Sink>(b: &[u8], opts: Options, sink: &mut S) -> Outcome {
    let mut s = Scanner {
        b,
        // Typical envelopes nest 3-4 deep with a dozen keys: start there.
        frames: Vec::with_capacity(8),
        keys: Keys::with_capacity(16),
        opts,
        sink,
        fault: None,
    };
    match s.run() {
        Ok(()) => Outcome {
            fault: s.fault,
            complete: true,
        },
        Err(f) => Outcome {
            fault: Some(s.fault.unwrap_or(f)),
            complete: false,
        },
    }
}

#[inline(always)]
pub(super) fn is_ws(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r')
}

/// The first non-whitespace offset at or after `pos`.
#[inline(always)]
pub(super) fn skip_ws(b: &[u8], mut pos: usize) -> usize {
    while let Some(&c) = b.get(pos) {
        if !is_ws(c) {
            break;
        }
        pos += 1;
    }
    pos
}

/// Bytes that end a run inside a string: quote, backslash, controls.
#[inline(always)]
fn is_string_special(c: u8) -> bool {
    c == b'"' || c == b'\\' || c < 0x20
}

/// `0x01` in every byte.
const ONES: u64 = u64::from_le_bytes([1; 8]);
/// `0x80` in every byte.
const HIGH: u64 = u64::from_le_bytes([0x80; 8]);

/// A mask whose lowest set bit is the high bit of the first byte of `w`
/// (little-endian) that is `"`, `\` or below 0x20; zero when none is. Bits
/// above the lowest may be false positives (borrows), never below it.
#[inline(always)]
fn special_mask(w: u64) -> u64 {
    // Each term has the high bit of a byte set where that byte is zero
    // (after the xor) or below 0x20; the high bits are kept once, at the end.
    let zero_byte = |x: u64| x.wrapping_sub(ONES) & !x;
    let quote = zero_byte(w ^ (ONES * u64::from(b'"')));
    let backslash = zero_byte(w ^ (ONES * u64::from(b'\\')));
    // Bytes below 0x20: (b - 0x20) borrows into the high bit, b < 0x80.
    let control = w.wrapping_sub(ONES * 0x20) & !w;
    (quote | backslash | control) & HIGH
}

/// The eight bytes at `at`, little-endian, when there are eight.
#[inline(always)]
fn word_at(b: &[u8], at: usize) -> Option<u64> {
    let chunk = b.get(at..at.checked_add(8)?)?;
    <[u8; 8]>::try_from(chunk).ok().map(u64::from_le_bytes)
}

/// The offset of the first `"`, `\` or control byte at or after `pos`
/// (`b.len()` when none): a word at a time, the byte found from the mask.
#[inline(always)]
fn string_run(b: &[u8], mut pos: usize) -> usize {
    while let Some(w) = word_at(b, pos) {
        let m = special_mask(w);
        if m != 0 {
            return pos + (m.trailing_zeros() / 8) as usize;
        }
        pos += 8;
    }
    while let Some(&c) = b.get(pos) {
        if is_string_special(c) {
            break;
        }
        pos += 1;
    }
    pos
}

/// Reads the string whose opening quote is at `pos`; returns the offset
/// after its closing quote and whether it held an escape. With `out`, an
/// escaped string's unescaped bytes are appended to it (all of them: the
/// runs between escapes too); an unescaped string appends nothing.
#[inline(always)]
pub(super) fn string(
    b: &[u8],
    pos: usize,
    out: Option<&mut Vec<u8>>,
) -> Result<(usize, bool), Fail> {
    let p = string_run(b, pos + 1);
    if b.get(p) == Some(&b'"') {
        return Ok((p + 1, false));
    }
    string_rest(b, pos + 1, p, out)
}

/// The rest of a string whose content starts at `content` and whose first
/// special byte (not a closing quote) is at `p`.
#[inline(never)]
fn string_rest(
    b: &[u8],
    content: usize,
    mut p: usize,
    mut out: Option<&mut Vec<u8>>,
) -> Result<(usize, bool), Fail> {
    let mut run = content;
    let mut escaped = false;
    loop {
        match b.get(p) {
            Some(b'"') => {
                if let (true, Some(o)) = (escaped, out.as_deref_mut()) {
                    o.extend_from_slice(b.get(run..p).unwrap_or_default());
                }
                return Ok((p + 1, escaped));
            }
            Some(b'\\') => {
                if let Some(o) = out.as_deref_mut() {
                    o.extend_from_slice(b.get(run..p).unwrap_or_default());
                }
                escaped = true;
                p = escape(b, p, out.as_deref_mut())?;
                run = p;
            }
            Some(_) => return syntax(SyntaxKind::ControlCharacterInString, p),
            None => return syntax(SyntaxKind::UnexpectedEnd, p),
        }
        p = string_run(b, p);
    }
}

/// Reads one escape at `at` (on the backslash); returns the offset after
/// it, appending its unescaped bytes to `out` when given.
fn escape(b: &[u8], at: usize, out: Option<&mut Vec<u8>>) -> Result<usize, Fail> {
    let Some(&c) = b.get(at + 1) else {
        return syntax(SyntaxKind::UnexpectedEnd, at + 1);
    };
    let simple = match c {
        b'"' => Some(b'"'),
        b'\\' => Some(b'\\'),
        b'/' => Some(b'/'),
        b'b' => Some(0x08),
        b'f' => Some(0x0c),
        b'n' => Some(b'\n'),
        b'r' => Some(b'\r'),
        b't' => Some(b'\t'),
        b'u' => None,
        _ => return syntax(SyntaxKind::InvalidEscape, at),
    };
    if let Some(byte) = simple {
        if let Some(o) = out {
            o.push(byte);
        }
        return Ok(at + 2);
    }
    let unit = hex4(b, at + 2)?;
    let mut end = at + 6;
    let ch = match unit {
        0xD800..=0xDBFF => {
            // A high surrogate must be followed by `\u` + low surrogate.
            if b.get(end) != Some(&b'\\') || b.get(end + 1) != Some(&b'u') {
                return syntax(SyntaxKind::LoneSurrogate, at);
            }
            let low = hex4(b, end + 2)?;
            if !(0xDC00..=0xDFFF).contains(&low) {
                return syntax(SyntaxKind::LoneSurrogate, at);
            }
            end += 6;
            let cp = 0x10000 + ((u32::from(unit) - 0xD800) << 10) + (u32::from(low) - 0xDC00);
            char::from_u32(cp)
        }
        0xDC00..=0xDFFF => return syntax(SyntaxKind::LoneSurrogate, at),
        _ => char::from_u32(u32::from(unit)),
    };
    let Some(ch) = ch else {
        return syntax(SyntaxKind::LoneSurrogate, at);
    };
    if let Some(o) = out {
        let mut buf = [0u8; 4];
        o.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
    }
    Ok(end)
}

fn hex4(b: &[u8], at: usize) -> Result<u16, Fail> {
    let mut v: u16 = 0;
    for i in at..at + 4 {
        let d = match b.get(i) {
            None => return syntax(SyntaxKind::UnexpectedEnd, i),
            Some(&c @ b'0'..=b'9') => c - b'0',
            Some(&c @ b'a'..=b'f') => c - b'a' + 10,
            Some(&c @ b'A'..=b'F') => c - b'A' + 10,
            Some(_) => return syntax(SyntaxKind::InvalidEscape, i),
        };
        v = (v << 4) | u16::from(d);
    }
    Ok(v)
}

/// Reads `word` (`true`, `false`, `null`) at `pos`; returns the offset after it.
#[inline]
pub(super) fn literal(b: &[u8], pos: usize, word: &'static [u8]) -> Result<usize, Fail> {
    let end = pos + word.len();
    if b.get(pos..end) == Some(word) {
        return Ok(end);
    }
    // Point at the first byte that differs (or the end).
    let mut i = pos;
    for &w in word {
        match b.get(i) {
            Some(&c) if c == w => i += 1,
            None => return syntax(SyntaxKind::UnexpectedEnd, i),
            Some(_) => break,
        }
    }
    syntax(SyntaxKind::InvalidLiteral, i)
}

#[inline(always)]
fn digits(b: &[u8], mut pos: usize) -> usize {
    while let Some(c) = b.get(pos) {
        if !c.is_ascii_digit() {
            break;
        }
        pos += 1;
    }
    pos
}

/// A number token's end and shape, as [`number`] read it.
pub(super) struct NumberToken {
    pub(super) end: usize,
    /// It has a fraction or an exponent (so it is a float for `serde_json`).
    pub(super) float: bool,
}

/// Integers of at most this many digits are read on the fast path (more
/// may be out of `f64` range: see [`number_slow`]).
const FAST_INT_DIGITS: usize = 300;

/// Reads the number at `pos` (RFC 8259 §6, refusing what `serde_json`
/// refuses, out-of-range included).
#[inline(always)]
pub(super) fn number(b: &[u8], pos: usize) -> Result<NumberToken, Fail> {
    // Fast path: `-?(0|[1-9][0-9]*)(\.[0-9]+)?` with no exponent after it.
    let p = pos + usize::from(b.get(pos) == Some(&b'-'));
    let int_end = match b.get(p) {
        Some(b'0') => p + 1,
        Some(b'1'..=b'9') => digits(b, p + 1),
        _ => return number_slow(b, pos),
    };
    if int_end - p > FAST_INT_DIGITS {
        return number_slow(b, pos);
    }
    let (end, float) = if b.get(int_end) == Some(&b'.') {
        let end = digits(b, int_end + 1);
        if end == int_end + 1 {
            return number_slow(b, pos);
        }
        (end, true)
    } else {
        (int_end, false)
    };
    if matches!(b.get(end), Some(b'e' | b'E')) {
        return number_slow(b, pos);
    }
    Ok(NumberToken { end, float })
}

/// [`number`] for every form: a leading zero, a fraction, an exponent, a
/// long integer, or an error.
#[inline(never)]
fn number_slow(b: &[u8], pos: usize) -> Result<NumberToken, Fail> {
    let start = pos;
    let mut p = pos;
    if b.get(p) == Some(&b'-') {
        p += 1;
    }
    let int_start = p;
    match b.get(p) {
        Some(b'0') => p += 1,
        Some(b'1'..=b'9') => p = digits(b, p + 1),
        None => return syntax(SyntaxKind::UnexpectedEnd, p),
        Some(_) => return syntax(SyntaxKind::InvalidNumber, p),
    }
    let int_digits = p - int_start;
    let mut float = false;
    let mut exp = false;
    if b.get(p) == Some(&b'.') {
        float = true;
        let d = p + 1;
        p = digits(b, d);
        if p == d {
            return match b.get(p) {
                None => syntax(SyntaxKind::UnexpectedEnd, p),
                Some(_) => syntax(SyntaxKind::InvalidNumber, p),
            };
        }
    }
    if matches!(b.get(p), Some(b'e' | b'E')) {
        float = true;
        exp = true;
        p += 1;
        if matches!(b.get(p), Some(b'+' | b'-')) {
            p += 1;
        }
        let d = p;
        p = digits(b, d);
        if p == d {
            return match b.get(p) {
                None => syntax(SyntaxKind::UnexpectedEnd, p),
                Some(_) => syntax(SyntaxKind::InvalidNumber, p),
            };
        }
    }
    // A number can only be out of f64 range with an exponent or more than
    // 300 integer digits (10^300 < f64::MAX); ask serde_json in those
    // rare cases so both agree exactly on the range.
    if exp || int_digits > FAST_INT_DIGITS {
        let text = b.get(start..p).unwrap_or_default();
        let ok = std::str::from_utf8(text)
            .ok()
            .is_some_and(|t| serde_json::from_str::<serde_json::Number>(t).is_ok());
        if !ok {
            return syntax(SyntaxKind::NumberOutOfRange, start);
        }
    }
    Ok(NumberToken { end: p, float })
}

/// A 64-bit fingerprint of a key: equal keys have equal fingerprints. For
/// keys of at most seven bytes it is exact (the bytes and the length).
#[inline(always)]
fn fingerprint_of(first: u64, last: u64, len: usize) -> u64 {
    if len < 8 {
        first | ((len as u64) << 56)
    } else {
        first ^ last.rotate_left(31) ^ (len as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
    }
}

/// The fingerprint of `key` (an owned, unescaped key).
pub(super) fn fingerprint(key: &[u8]) -> u64 {
    let len = key.len();
    let mut first = [0u8; 8];
    let n = len.min(8);
    if let (Some(dst), Some(src)) = (first.get_mut(..n), key.get(..n)) {
        dst.copy_from_slice(src);
    }
    let last = len
        .checked_sub(8)
        .and_then(|s| word_at(key, s))
        .unwrap_or(0);
    fingerprint_of(u64::from_le_bytes(first), last, len)
}

/// The fingerprint of the unescaped key `b[start..end]`, read with whole
/// words from the input where it has them.
#[inline(always)]
pub(super) fn fingerprint_in(b: &[u8], start: usize, end: usize) -> u64 {
    let len = end - start;
    match word_at(b, start) {
        Some(w) if len < 8 => fingerprint_of(w & ((1u64 << (8 * len)) - 1), 0, len),
        Some(w) => fingerprint_of(w, word_at(b, end - 8).unwrap_or(0), len),
        None => fingerprint(b.get(start..end).unwrap_or_default()),
    }
}

/// Reads the key whose opening quote is at `at`; returns the offset after
/// its closing quote, the unescaped key and its fingerprint. `scratch` is
/// the buffer an escaped key is unescaped into.
#[inline(always)]
pub(super) fn key<'a>(
    b: &'a [u8],
    at: usize,
    scratch: &mut Vec<u8>,
) -> Result<(usize, Cow<'a, [u8]>, u64), Fail> {
    match b.get(at) {
        Some(b'"') => {}
        None => return syntax(SyntaxKind::UnexpectedEnd, at),
        Some(b'/') => return syntax(SyntaxKind::Comment, at),
        Some(_) => return syntax(SyntaxKind::ExpectedKey, at),
    }
    let p = string_run(b, at + 1);
    if b.get(p) == Some(&b'"') {
        let raw = b.get(at + 1..p).unwrap_or_default();
        return Ok((p + 1, Cow::Borrowed(raw), fingerprint_in(b, at + 1, p)));
    }
    // `p` is not the closing quote, so it is an escape (any other byte
    // there is a fault): the key is unescaped into `scratch`.
    scratch.clear();
    let (end, _) = string_rest(b, at + 1, p, Some(scratch))?;
    let k = std::mem::take(scratch);
    let fp = fingerprint(&k);
    Ok((end, Cow::Owned(k), fp))
}

/// Whitespace, `:`, whitespace at `pos`; returns the offset after them.
#[inline(always)]
pub(super) fn colon(b: &[u8], pos: usize) -> Result<usize, Fail> {
    let p = skip_ws(b, pos);
    match b.get(p) {
        Some(b':') => Ok(skip_ws(b, p + 1)),
        None => syntax(SyntaxKind::UnexpectedEnd, p),
        Some(_) => syntax(SyntaxKind::ExpectedColon, p),
    }
}

/// The error for byte `c` (or the end) where a value was expected.
#[cold]
pub(super) fn not_a_value<T>(c: Option<u8>, at: usize) -> Result<T, Fail> {
    match c {
        None => syntax(SyntaxKind::UnexpectedEnd, at),
        Some(b'/') => syntax(SyntaxKind::Comment, at),
        Some(_) => syntax(SyntaxKind::ExpectedValue, at),
    }
}

/// The error for byte `c` (or the end) where `,` or the close of an object
/// (`object`) or array was expected.
#[cold]
pub(super) fn not_a_separator<T>(c: Option<u8>, at: usize, object: bool) -> Result<T, Fail> {
    match (c, object) {
        (None, _) => syntax(SyntaxKind::UnexpectedEnd, at),
        (Some(b'/'), _) => syntax(SyntaxKind::Comment, at),
        (Some(_), true) => syntax(SyntaxKind::ExpectedCommaOrBrace, at),
        (Some(_), false) => syntax(SyntaxKind::ExpectedCommaOrBracket, at),
    }
}

/// Reads the scalar whose first byte `c` is at `pos`; returns its kind and
/// the offset after it.
#[inline(always)]
fn scalar(b: &[u8], pos: usize, c: u8) -> Result<(Kind, usize), Fail> {
    match c {
        b'"' => Ok((Kind::String, string(b, pos, None)?.0)),
        b'-' | b'0'..=b'9' => Ok((Kind::Number, number(b, pos)?.end)),
        b't' => Ok((Kind::Bool, literal(b, pos, b"true")?)),
        b'f' => Ok((Kind::Bool, literal(b, pos, b"false")?)),
        b'n' => Ok((Kind::Null, literal(b, pos, b"null")?)),
        _ => not_a_value(Some(c), pos),
    }
}

impl<'a, S: Sink> Scanner<'a, '_, S> {
    /// Remembers a depth or duplicate-key fault in `finish` mode (the first
    /// one wins); otherwise stops the scan with it.
    #[cold]
    fn fault(&mut self, f: Fail) -> Result<(), Fail> {
        if !self.opts.finish {
            return Err(f);
        }
        if self.fault.is_none() {
            self.fault = Some(f);
        }
        Ok(())
    }

    fn run(&mut self) -> Result<(), Fail> {
        let b = self.b;
        let mut scratch = Vec::new();
        let mut pos = skip_ws(b, 0);
        loop {
            // A value is expected at `pos`.
            let start = pos;
            let c = b.get(pos).copied();
            let (mut kind, mut end) = match c {
                Some(open @ (b'{' | b'[')) => {
                    let object = open == b'{';
                    let kind = if object { Kind::Object } else { Kind::Array };
                    if self.frames.len() >= self.opts.max_depth {
                        let pointer = pointer(&self.frames, &self.keys, None);
                        self.fault(Fail::TooDeep {
                            offset: pos,
                            pointer,
                        })?;
                        (kind, self.skip_deep(pos)?)
                    } else {
                        let own = match self.frames.last() {
                            Some(f) => f.slot,
                            None => ROOT,
                        };
                        let mut frame = Frame::new(object, self.keys.len(), pos);
                        frame.own = own;
                        self.frames.push(frame);
                        pos = skip_ws(b, pos + 1);
                        let close = if object { b'}' } else { b']' };
                        if b.get(pos) == Some(&close) {
                            self.frames.pop();
                            (kind, pos + 1)
                        } else {
                            pos = if object {
                                self.member_key(pos, &mut scratch)?
                            } else {
                                self.element_start();
                                pos
                            };
                            continue;
                        }
                    }
                }
                Some(c) => scalar(b, pos, c)?,
                None => return not_a_value(None, pos),
            };
            let mut start = start;
            // A value `start..end` of `kind` just completed: close it in the
            // enclosing frames until one goes on.
            loop {
                let Some(frame) = self.frames.last_mut() else {
                    self.sink.record(
                        ROOT,
                        Member {
                            kind,
                            span: Span { start, end },
                        },
                    );
                    let p = skip_ws(b, end);
                    if p != b.len() {
                        return syntax(SyntaxKind::TrailingCharacters, p);
                    }
                    return Ok(());
                };
                if frame.slot != NO_SLOT {
                    let slot = frame.slot;
                    self.sink.record(
                        slot,
                        Member {
                            kind,
                            span: Span { start, end },
                        },
                    );
                }
                let Some(frame) = self.frames.last_mut() else {
                    return syntax(SyntaxKind::UnexpectedEnd, end);
                };
                let p = skip_ws(b, end);
                let c = b.get(p).copied();
                if c == Some(b',') {
                    let q = skip_ws(b, p + 1);
                    if frame.object {
                        pos = self.member_key(q, &mut scratch)?;
                    } else {
                        frame.index += 1;
                        self.element_start();
                        pos = q;
                    }
                    break;
                }
                if c == Some(if frame.object { b'}' } else { b']' }) {
                    kind = if frame.object {
                        Kind::Object
                    } else {
                        Kind::Array
                    };
                    start = frame.start;
                    end = p + 1;
                    let keys_start = frame.keys_start;
                    self.frames.pop();
                    self.keys.truncate(keys_start);
                    continue;
                }
                return not_a_separator(c, p, frame.object);
            }
        }
    }

    fn element_start(&mut self) {
        if let Some(f) = self.frames.last_mut() {
            f.slot = if f.own == NO_SLOT {
                NO_SLOT
            } else {
                self.sink.element(f.own)
            };
        }
    }

    /// Reads `"key" :` at `at` in the innermost (object) frame, checking
    /// duplicates; returns the offset of the member's value.
    #[inline(always)]
    fn member_key(&mut self, at: usize, scratch: &mut Vec<u8>) -> Result<usize, Fail> {
        let b = self.b;
        let (end, key, fp) = key(b, at, scratch)?;
        let Some(frame) = self.frames.last_mut() else {
            return colon(b, end);
        };
        if self.keys.insert(frame, key, fp) {
            self.duplicate(at)?;
        }
        if let Some(frame) = self.frames.last_mut() {
            frame.slot = if frame.own == NO_SLOT {
                NO_SLOT
            } else {
                self.sink
                    .member(frame.own, self.keys.last().unwrap_or_default())
            };
        }
        colon(b, end)
    }

    /// The duplicate key just recorded, at `at`.
    #[cold]
    fn duplicate(&mut self, at: usize) -> Result<(), Fail> {
        let key = self.keys.last().unwrap_or_default();
        let d = DuplicateKey {
            key: String::from_utf8_lossy(key).into_owned(),
            pointer: pointer(&self.frames, &self.keys, None),
            offset: at,
        };
        self.fault(Fail::Duplicate(d))
    }

    /// Reads the too-deep container at `pos` to its end for the grammar
    /// alone (`finish` mode, after a depth fault): no duplicate check, no
    /// sink. One byte of stack per level, so bounded by the input length.
    /// Returns the offset after it.
    #[cold]
    fn skip_deep(&mut self, pos: usize) -> Result<usize, Fail> {
        let b = self.b;
        let mut p = pos;
        let mut stack: Vec<bool> = Vec::new();
        loop {
            // A value is expected at `p`.
            p = skip_ws(b, p);
            let c = b.get(p).copied();
            match c {
                Some(open @ (b'{' | b'[')) => {
                    let object = open == b'{';
                    p = skip_ws(b, p + 1);
                    if b.get(p) == Some(if object { &b'}' } else { &b']' }) {
                        p += 1;
                    } else {
                        stack.push(object);
                        if object {
                            p = deep_key(b, p)?;
                        }
                        continue;
                    }
                }
                Some(c) => p = scalar(b, p, c)?.1,
                None => return not_a_value(None, p),
            }
            // A value completed: close containers until one goes on.
            loop {
                let Some(&object) = stack.last() else {
                    return Ok(p);
                };
                p = skip_ws(b, p);
                let c = b.get(p).copied();
                if c == Some(b',') {
                    p = skip_ws(b, p + 1);
                    if object {
                        p = deep_key(b, p)?;
                    }
                    break;
                }
                if c == Some(if object { b'}' } else { b']' }) {
                    p += 1;
                    stack.pop();
                    continue;
                }
                return not_a_separator(c, p, object);
            }
        }
    }
}

/// `"key" :` at `at` inside a skipped container (grammar only); returns
/// the offset of the member's value.
fn deep_key(b: &[u8], at: usize) -> Result<usize, Fail> {
    match b.get(at) {
        Some(b'"') => {}
        None => return syntax(SyntaxKind::UnexpectedEnd, at),
        Some(b'/') => return syntax(SyntaxKind::Comment, at),
        Some(_) => return syntax(SyntaxKind::ExpectedKey, at),
    }
    let (end, _) = string(b, at, None)?;
    colon(b, end)
}

/// Appends `key` to `out` as an RFC 6901 reference token (`~` -> `~0`, `/` -> `~1`).
fn push_pointer_token(out: &mut String, key: &[u8]) {
    for ch in String::from_utf8_lossy(key).chars() {
        match ch {
            '~' => out.push_str("~0"),
            '/' => out.push_str("~1"),
            c => out.push(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn reference_run(b: &[u8], pos: usize) -> usize {
        b.iter()
            .skip(pos)
            .position(|&c| is_string_special(c))
            .map_or(b.len(), |i| pos + i)
    }

    proptest! {
        /// The word-at-a-time run ends exactly where a byte loop does.
        #[test]
        fn string_run_agrees_with_a_byte_loop(
            b in prop::collection::vec(prop_oneof![Just(b'a'), Just(b'"'), Just(b'\\'), Just(0x1f), Just(0x20), Just(0x80), Just(0xff), Just(0x5c ^ 0x80), any::<u8>()], 0..40),
            pos in 0usize..40,
        ) {
            let pos = pos.min(b.len());
            prop_assert_eq!(string_run(&b, pos), reference_run(&b, pos));
        }

        /// Reading a key's fingerprint from the input equals computing it
        /// from the key alone, and equal keys have equal fingerprints.
        #[test]
        fn fingerprints_agree(
            b in prop::collection::vec(any::<u8>(), 0..40),
            start in 0usize..40,
            len in 0usize..20,
        ) {
            let start = start.min(b.len());
            let end = (start + len).min(b.len());
            let key = &b[start..end];
            prop_assert_eq!(fingerprint_in(&b, start, end), fingerprint(key));
            let copy = key.to_vec();
            prop_assert_eq!(fingerprint(&copy), fingerprint(key));
        }
    }

    /// Each syntax fault names its kind and the exact byte offset, through
    /// both public entry points that scan (duplicate check and value build).
    #[test]
    fn syntax_faults_have_their_exact_kind_and_offset() {
        use crate::json::{parse_strict, refuse_duplicate_json_keys, JsonError, Limits};
        let long_int = |digits: usize, first: char| {
            let mut s = String::from("[");
            s.push(first);
            s.push_str(&"0".repeat(digits - 1));
            s.push(']');
            s
        };
        let cases: Vec<(String, SyntaxKind, usize)> = vec![
            // An escape cut off after its backslash, or inside its four digits.
            (r#""\"#.into(), SyntaxKind::UnexpectedEnd, 2),
            (r#"["\"#.into(), SyntaxKind::UnexpectedEnd, 3),
            (r#""\u12"#.into(), SyntaxKind::UnexpectedEnd, 5),
            (r#""\u12x4""#.into(), SyntaxKind::InvalidEscape, 5),
            (r#""\q""#.into(), SyntaxKind::InvalidEscape, 1),
            (r#"{"a\q":1}"#.into(), SyntaxKind::InvalidEscape, 3),
            (r#""\ud800""#.into(), SyntaxKind::LoneSurrogate, 1),
            (r#""\ud800\u0041""#.into(), SyntaxKind::LoneSurrogate, 1),
            (r#""x\udc00""#.into(), SyntaxKind::LoneSurrogate, 2),
            (r#""\ud800\ud800""#.into(), SyntaxKind::LoneSurrogate, 1),
            // A high surrogate whose next escape is not `\u`, or whose next `u` has no
            // backslash, even when a low surrogate's digits follow.
            (r#""\ud800\ndc00""#.into(), SyntaxKind::LoneSurrogate, 1),
            (r#""\ud800xudc00""#.into(), SyntaxKind::LoneSurrogate, 1),
            ("\"\u{1}\"".into(), SyntaxKind::ControlCharacterInString, 1),
            (r#""abc"#.into(), SyntaxKind::UnexpectedEnd, 4),
            ("tru".into(), SyntaxKind::UnexpectedEnd, 3),
            ("trUe".into(), SyntaxKind::InvalidLiteral, 2),
            ("[nul]".into(), SyntaxKind::InvalidLiteral, 4),
            ("-".into(), SyntaxKind::UnexpectedEnd, 1),
            ("[-x]".into(), SyntaxKind::InvalidNumber, 2),
            ("[1.]".into(), SyntaxKind::InvalidNumber, 3),
            ("1.".into(), SyntaxKind::UnexpectedEnd, 2),
            ("[1e]".into(), SyntaxKind::InvalidNumber, 3),
            ("1e+".into(), SyntaxKind::UnexpectedEnd, 3),
            ("[1e999]".into(), SyntaxKind::NumberOutOfRange, 1),
            // Past the fast path's digit count: serde_json's range decides.
            (long_int(310, '1'), SyntaxKind::NumberOutOfRange, 1),
            (long_int(309, '2'), SyntaxKind::NumberOutOfRange, 1),
        ];
        for (text, kind, offset) in cases {
            let want = JsonError::Syntax { kind, offset };
            // The scanner the rpc layer runs (no value built).
            let rpc = crate::rpc::parse_tool_call(text.as_bytes());
            let got = rpc.as_ref().err().map(|r| &r.error);
            assert_eq!(
                got,
                Some(&crate::rpc::RpcError::Json(want.clone())),
                "{text:?}"
            );
            assert_eq!(refuse_duplicate_json_keys(text.as_bytes()), Ok(()));
            let strict = parse_strict(text.as_bytes(), &Limits::default());
            assert_eq!(strict.as_ref().err(), Some(&want), "{text:?}: {strict:?}");
        }
        // Up to the edge of the range, long integers are read as floats.
        for (digits, first) in [(300, '9'), (301, '1'), (309, '1')] {
            let text = long_int(digits, first);
            let v = parse_strict(text.as_bytes(), &Limits::default());
            let plain: serde_json::Value = serde_json::from_str(&text).unwrap();
            assert_eq!(v.ok(), Some(plain), "{digits} digits");
        }
    }

    #[test]
    fn short_fingerprints_are_exact() {
        let keys: [&[u8]; 6] = [b"", b"\0", b"a", b"a\0", b"ab", b"abcdefg"];
        for (i, a) in keys.iter().enumerate() {
            for (j, b) in keys.iter().enumerate() {
                assert_eq!(fingerprint(a) == fingerprint(b), i == j, "{a:?} {b:?}");
            }
        }
    }
}
