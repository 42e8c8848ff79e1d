//! The strict scanner as it was before issue 17 (byte-at-a-time structure,
//! keys kept as `Cow`s compared with `memcmp`, a separate UTF-8 pass in
//! front), kept behind the hidden `harness` feature as the reference the
//! current scanner is checked against (`harness::json::scanners_agree`,
//! `tests/json_props.rs`) for as long as both exist. Not used by the crate.
use std::borrow::Cow;
use std::collections::HashSet;

use serde_json::Value;

use super::scan::{Fail, Kind, Member, Options, Outcome, Sink, Slot, Span, NO_SLOT, ROOT};
use super::{
    fail_to_error, DuplicateKey, JsonError, Limits, NoSink, SyntaxKind, MAX_SUPPORTED_DEPTH,
};

/// Objects with more keys than this switch from a linear duplicate check to
/// a hash set.
const LINEAR_KEY_CHECK: usize = 16;

/// `parse_strict` as it was: precheck (UTF-8 pass), the old scan, then
/// `serde_json` builds the value.
///
/// # Errors
///
/// As [`super::parse_strict`].
pub fn parse_strict(bytes: &[u8], limits: &Limits) -> Result<Value, JsonError> {
    let text = legacy_precheck(bytes, limits)?;
    let limit = limits.effective_max_depth();
    if let Some(f) = scan(
        text.as_bytes(),
        Options {
            max_depth: limit,
            finish: false,
        },
        &mut NoSink,
    )
    .fault
    {
        return Err(fail_to_error(f, limit));
    }
    super::from_vetted(text)
}

/// The precheck as it was: bound, empty, BOM, one UTF-8 pass, whitespace.
fn legacy_precheck<'a>(bytes: &'a [u8], limits: &Limits) -> Result<&'a str, JsonError> {
    if bytes.len() > limits.max_payload_bytes {
        return Err(JsonError::TooLarge {
            len: bytes.len(),
            limit: limits.max_payload_bytes,
        });
    }
    if bytes.is_empty() {
        return Err(JsonError::Empty);
    }
    if bytes.starts_with(b"\xEF\xBB\xBF") {
        return Err(JsonError::ByteOrderMark);
    }
    let text = std::str::from_utf8(bytes).map_err(|e| JsonError::InvalidUtf8 {
        offset: e.valid_up_to(),
    })?;
    if text
        .bytes()
        .all(|c| matches!(c, b' ' | b'\t' | b'\n' | b'\r'))
    {
        return Err(JsonError::WhitespaceOnly { len: bytes.len() });
    }
    Ok(text)
}

/// `refuse_duplicate_json_keys` as it was.
///
/// # Errors
///
/// As [`super::refuse_duplicate_json_keys`].
pub fn refuse_duplicate_json_keys(bytes: &[u8]) -> Result<(), DuplicateKey> {
    let out = scan(
        bytes,
        Options {
            max_depth: MAX_SUPPORTED_DEPTH,
            finish: false,
        },
        &mut NoSink,
    );
    match out.fault {
        Some(Fail::Duplicate(d)) => Err(d),
        _ => Ok(()),
    }
}

struct Frame {
    object: bool,
    /// Index in `Scanner::keys` of this object's first key.
    keys_start: usize,
    /// Array index of the current element.
    index: usize,
    /// Set once the object has more than `LINEAR_KEY_CHECK` keys.
    set: Option<HashSet<Vec<u8>>>,
    /// Where the current member value starts, and which slot records it.
    value_start: usize,
    value_kind: Kind,
    slot: Slot,
    /// The slot this container is the value of ([`NO_SLOT`]: not recorded).
    own: Slot,
}

struct Scanner<'a, 's, S: Sink> {
    b: &'a [u8],
    pos: usize,
    frames: Vec<Frame>,
    keys: Vec<(Cow<'a, [u8]>, usize)>,
    opts: Options,
    sink: &'s mut S,
    top_kind: Kind,
    top_start: usize,
    fault: Option<Fail>,
    scratch: Vec<u8>,
}

/// Scans `b` as one JSON text, reporting the members `sink` asks for.
pub(crate) fn scan<S: Sink>(b: &[u8], opts: Options, sink: &mut S) -> Outcome {
    let mut s = Scanner {
        b,
        pos: 0,
        // Typical envelopes nest 3-4 deep with a dozen keys: start there.
        frames: Vec::with_capacity(8),
        keys: Vec::with_capacity(16),
        opts,
        sink,
        top_kind: Kind::Null,
        top_start: 0,
        fault: None,
        scratch: Vec::new(),
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

#[inline]
fn is_ws(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r')
}

/// Bytes that end the fast run inside a string: quote, backslash, controls.
#[inline]
fn is_string_special(c: u8) -> bool {
    c == b'"' || c == b'\\' || c < 0x20
}

impl<'a, S: Sink> Scanner<'a, '_, S> {
    /// Remembers a depth or duplicate-key fault in `finish` mode (the first
    /// one wins); otherwise stops the scan with it.
    fn fault(&mut self, f: Fail) -> Result<(), Fail> {
        if !self.opts.finish {
            return Err(f);
        }
        if self.fault.is_none() {
            self.fault = Some(f);
        }
        Ok(())
    }

    #[inline]
    fn peek(&self) -> Option<u8> {
        self.b.get(self.pos).copied()
    }

    #[inline]
    fn skip_ws(&mut self) {
        while let Some(&c) = self.b.get(self.pos) {
            if !is_ws(c) {
                break;
            }
            self.pos += 1;
        }
    }

    fn err<T>(&self, kind: SyntaxKind, offset: usize) -> Result<T, Fail> {
        Err(Fail::Syntax(kind, offset))
    }

    fn run(&mut self) -> Result<(), Fail> {
        self.skip_ws();
        // `true` while a value is expected, `false` after one completed.
        let mut want_value = true;
        loop {
            if want_value {
                // A non-empty container leaves us wanting its first value.
                want_value = !self.value()?;
                continue;
            }
            // A value just completed: close it in the enclosing frame.
            let end = self.pos;
            let Some(frame) = self.frames.last_mut() else {
                // Top-level value done.
                let top = Member {
                    kind: self.top_kind,
                    span: Span {
                        start: self.top_start,
                        end,
                    },
                };
                self.sink.record(ROOT, top);
                self.skip_ws();
                if self.pos != self.b.len() {
                    return self.err(SyntaxKind::TrailingCharacters, self.pos);
                }
                return Ok(());
            };
            if frame.slot != NO_SLOT {
                let m = Member {
                    kind: frame.value_kind,
                    span: Span {
                        start: frame.value_start,
                        end,
                    },
                };
                let slot = frame.slot;
                self.sink.record(slot, m);
            }
            self.skip_ws();
            let Some(frame) = self.frames.last_mut() else {
                return self.err(SyntaxKind::UnexpectedEnd, self.pos);
            };
            match (self.b.get(self.pos).copied(), frame.object) {
                (Some(b','), true) => {
                    self.pos += 1;
                    self.skip_ws();
                    self.member_key()?;
                    want_value = true;
                }
                (Some(b','), false) => {
                    self.pos += 1;
                    frame.index += 1;
                    self.skip_ws();
                    self.array_element_start();
                    want_value = true;
                }
                (Some(b'}'), true) | (Some(b']'), false) => {
                    self.pos += 1;
                    self.pop();
                }
                (None, _) => return self.err(SyntaxKind::UnexpectedEnd, self.pos),
                (Some(b'/'), _) => return self.err(SyntaxKind::Comment, self.pos),
                (Some(_), true) => return self.err(SyntaxKind::ExpectedCommaOrBrace, self.pos),
                (Some(_), false) => return self.err(SyntaxKind::ExpectedCommaOrBracket, self.pos),
            }
        }
    }

    fn pop(&mut self) {
        if let Some(f) = self.frames.pop() {
            if f.object {
                self.keys.truncate(f.keys_start);
            }
        }
    }

    /// Parses one value starting at `self.pos` (whitespace already skipped).
    /// Containers are opened (a frame pushed) and left for `run` to continue.
    /// Returns whether the value is complete (scalars, empty containers).
    fn value(&mut self) -> Result<bool, Fail> {
        let start = self.pos;
        let Some(c) = self.peek() else {
            return self.err(SyntaxKind::UnexpectedEnd, start);
        };
        let kind = match c {
            b'{' => Kind::Object,
            b'[' => Kind::Array,
            b'"' => Kind::String,
            b'-' | b'0'..=b'9' => Kind::Number,
            b't' | b'f' => Kind::Bool,
            b'n' => Kind::Null,
            b'/' => return self.err(SyntaxKind::Comment, start),
            _ => return self.err(SyntaxKind::ExpectedValue, start),
        };
        self.note_value_start(kind, start);
        match kind {
            Kind::Object | Kind::Array => self.open(kind == Kind::Object),
            _ => self.scalar(c).map(|()| true),
        }
    }

    /// Reads the scalar whose first byte is `c` at `self.pos`.
    fn scalar(&mut self, c: u8) -> Result<(), Fail> {
        match c {
            b'"' => self.string(None).map(|_| ()),
            b'-' | b'0'..=b'9' => self.number(),
            b't' => self.literal(b"true"),
            b'f' => self.literal(b"false"),
            b'n' => self.literal(b"null"),
            b'/' => self.err(SyntaxKind::Comment, self.pos),
            _ => self.err(SyntaxKind::ExpectedValue, self.pos),
        }
    }

    fn note_value_start(&mut self, kind: Kind, start: usize) {
        match self.frames.last_mut() {
            Some(f) => {
                f.value_start = start;
                f.value_kind = kind;
            }
            None => {
                self.top_kind = kind;
                self.top_start = start;
            }
        }
    }

    /// Opens a container; returns `true` when it was empty (already closed).
    fn open(&mut self, object: bool) -> Result<bool, Fail> {
        let offset = self.pos;
        if self.frames.len() >= self.opts.max_depth {
            self.fault(Fail::TooDeep {
                offset,
                pointer: self.pointer(None),
            })?;
            self.skip_deep()?;
            return Ok(true);
        }
        self.pos += 1;
        let own = match self.frames.last() {
            Some(f) => f.slot,
            None => ROOT,
        };
        self.frames.push(Frame {
            object,
            keys_start: self.keys.len(),
            index: 0,
            set: None,
            value_start: 0,
            value_kind: Kind::Null,
            slot: NO_SLOT,
            own,
        });
        self.skip_ws();
        let close = if object { b'}' } else { b']' };
        if self.peek() == Some(close) {
            self.pos += 1;
            self.pop();
            return Ok(true);
        }
        if object {
            self.member_key()?;
        } else {
            self.array_element_start();
        }
        Ok(false)
    }

    fn array_element_start(&mut self) {
        if let Some(f) = self.frames.last_mut() {
            f.slot = if f.own == NO_SLOT {
                NO_SLOT
            } else {
                self.sink.element(f.own)
            };
        }
    }

    /// Reads the too-deep container at `self.pos` to its end for the grammar
    /// alone (`finish` mode, after a depth fault): no duplicate check, no
    /// sink. One byte of stack per level, so bounded by the input length.
    fn skip_deep(&mut self) -> Result<(), Fail> {
        let mut stack: Vec<bool> = Vec::new();
        loop {
            // A value is expected at `self.pos`.
            self.skip_ws();
            let Some(c) = self.peek() else {
                return self.err(SyntaxKind::UnexpectedEnd, self.pos);
            };
            let mut opened = false;
            if c == b'{' || c == b'[' {
                let object = c == b'{';
                self.pos += 1;
                self.skip_ws();
                if self.peek() == Some(if object { b'}' } else { b']' }) {
                    self.pos += 1;
                } else {
                    stack.push(object);
                    if object {
                        self.deep_key()?;
                    }
                    opened = true;
                }
            } else {
                self.scalar(c)?;
            }
            if opened {
                continue;
            }
            // A value completed: close containers until one goes on.
            loop {
                let Some(&object) = stack.last() else {
                    return Ok(());
                };
                self.skip_ws();
                match (self.peek(), object) {
                    (Some(b','), true) => {
                        self.pos += 1;
                        self.skip_ws();
                        self.deep_key()?;
                        break;
                    }
                    (Some(b','), false) => {
                        self.pos += 1;
                        break;
                    }
                    (Some(b'}'), true) | (Some(b']'), false) => {
                        self.pos += 1;
                        stack.pop();
                    }
                    (None, _) => return self.err(SyntaxKind::UnexpectedEnd, self.pos),
                    (Some(b'/'), _) => return self.err(SyntaxKind::Comment, self.pos),
                    (Some(_), true) => return self.err(SyntaxKind::ExpectedCommaOrBrace, self.pos),
                    (Some(_), false) => {
                        return self.err(SyntaxKind::ExpectedCommaOrBracket, self.pos)
                    }
                }
            }
        }
    }

    /// `"key" :` inside a skipped container (grammar only).
    fn deep_key(&mut self) -> Result<(), Fail> {
        let at = self.pos;
        match self.peek() {
            Some(b'"') => {}
            None => return self.err(SyntaxKind::UnexpectedEnd, at),
            Some(b'/') => return self.err(SyntaxKind::Comment, at),
            Some(_) => return self.err(SyntaxKind::ExpectedKey, at),
        }
        self.string(None)?;
        self.colon()
    }

    /// Whitespace, `:`, whitespace.
    fn colon(&mut self) -> Result<(), Fail> {
        self.skip_ws();
        match self.peek() {
            Some(b':') => {
                self.pos += 1;
                self.skip_ws();
                Ok(())
            }
            None => self.err(SyntaxKind::UnexpectedEnd, self.pos),
            Some(_) => self.err(SyntaxKind::ExpectedColon, self.pos),
        }
    }

    /// Reads `"key" :` in the innermost (object) frame, checking duplicates.
    fn member_key(&mut self) -> Result<(), Fail> {
        let at = self.pos;
        match self.peek() {
            Some(b'"') => {}
            None => return self.err(SyntaxKind::UnexpectedEnd, at),
            Some(b'/') => return self.err(SyntaxKind::Comment, at),
            Some(_) => return self.err(SyntaxKind::ExpectedKey, at),
        }
        let Some(key) = self.string(Some(()))? else {
            return self.err(SyntaxKind::ExpectedKey, at);
        };
        self.check_duplicate(&key, at)?;
        let own = self.frames.last().map_or(NO_SLOT, |f| f.own);
        let slot = if own == NO_SLOT {
            NO_SLOT
        } else {
            self.sink.member(own, &key)
        };
        if let Some(f) = self.frames.last_mut() {
            f.slot = slot;
        }
        self.keys.push((key, at));
        self.colon()
    }

    fn check_duplicate(&mut self, key: &[u8], at: usize) -> Result<(), Fail> {
        let Some(frame) = self.frames.last_mut() else {
            return Ok(());
        };
        let start = frame.keys_start;
        let count = self.keys.len().saturating_sub(start);
        let dup = if let Some(set) = frame.set.as_mut() {
            !set.insert(key.to_vec())
        } else {
            let dup = self
                .keys
                .get(start..)
                .unwrap_or_default()
                .iter()
                .any(|(k, _)| k.as_ref() == key);
            if !dup && count >= LINEAR_KEY_CHECK {
                let mut set: HashSet<Vec<u8>> = self
                    .keys
                    .get(start..)
                    .unwrap_or_default()
                    .iter()
                    .map(|(k, _)| k.to_vec())
                    .collect();
                set.insert(key.to_vec());
                frame.set = Some(set);
            }
            dup
        };
        if dup {
            return self.fault(Fail::Duplicate(DuplicateKey {
                key: String::from_utf8_lossy(key).into_owned(),
                pointer: self.pointer(Some(key)),
                offset: at,
            }));
        }
        Ok(())
    }

    /// RFC 6901 pointer to the current position; `last` is a key being read
    /// in the innermost object (not yet pushed).
    fn pointer(&self, last: Option<&[u8]>) -> String {
        let mut out = String::new();
        for (i, f) in self.frames.iter().enumerate() {
            let innermost = i + 1 == self.frames.len();
            if f.object {
                let key = if innermost {
                    match last {
                        Some(k) => Some(k),
                        None => self.keys.last().map(|(k, _)| k.as_ref()),
                    }
                } else {
                    self.frames
                        .get(i + 1)
                        .and_then(|n| n.keys_start.checked_sub(1))
                        .and_then(|j| self.keys.get(j))
                        .map(|(k, _)| k.as_ref())
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

    fn literal(&mut self, word: &'static [u8]) -> Result<(), Fail> {
        let end = self.pos + word.len();
        match self.b.get(self.pos..end) {
            Some(w) if w == word => {
                self.pos = end;
                Ok(())
            }
            _ => {
                // Point at the first byte that differs (or the end).
                let mut i = self.pos;
                for &w in word {
                    match self.b.get(i) {
                        Some(&c) if c == w => i += 1,
                        None => return self.err(SyntaxKind::UnexpectedEnd, i),
                        Some(_) => break,
                    }
                }
                self.err(SyntaxKind::InvalidLiteral, i)
            }
        }
    }

    fn digits(&mut self) -> usize {
        let start = self.pos;
        while let Some(c) = self.peek() {
            if !c.is_ascii_digit() {
                break;
            }
            self.pos += 1;
        }
        self.pos - start
    }

    fn number(&mut self) -> Result<(), Fail> {
        let start = self.pos;
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        let int_start = self.pos;
        match self.peek() {
            Some(b'0') => self.pos += 1,
            Some(b'1'..=b'9') => {
                self.digits();
            }
            None => return self.err(SyntaxKind::UnexpectedEnd, self.pos),
            Some(_) => return self.err(SyntaxKind::InvalidNumber, self.pos),
        }
        let int_digits = self.pos - int_start;
        let mut exp = false;
        if self.peek() == Some(b'.') {
            self.pos += 1;
            if self.digits() == 0 {
                return match self.peek() {
                    None => self.err(SyntaxKind::UnexpectedEnd, self.pos),
                    Some(_) => self.err(SyntaxKind::InvalidNumber, self.pos),
                };
            }
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            exp = true;
            self.pos += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.pos += 1;
            }
            if self.digits() == 0 {
                return match self.peek() {
                    None => self.err(SyntaxKind::UnexpectedEnd, self.pos),
                    Some(_) => self.err(SyntaxKind::InvalidNumber, self.pos),
                };
            }
        }
        // A number can only be out of f64 range with an exponent or more than
        // 300 integer digits (10^300 < f64::MAX); ask serde_json in those
        // rare cases so both agree exactly on the range.
        if exp || int_digits > 300 {
            let text = self.b.get(start..self.pos).unwrap_or_default();
            let ok = std::str::from_utf8(text)
                .ok()
                .is_some_and(|t| serde_json::from_str::<serde_json::Number>(t).is_ok());
            if !ok {
                return self.err(SyntaxKind::NumberOutOfRange, start);
            }
        }
        Ok(())
    }

    /// Scans a string at `self.pos` (on its opening quote). With `key` set,
    /// returns its unescaped bytes (borrowed when it has no escape).
    fn string(&mut self, key: Option<()>) -> Result<Option<Cow<'a, [u8]>>, Fail> {
        let b = self.b;
        self.pos += 1;
        let content_start = self.pos;
        let mut escaped = false;
        if key.is_some() {
            self.scratch.clear();
        }
        loop {
            // Fast run over ordinary bytes, eight at a time.
            while let Some(chunk) = b.get(self.pos..self.pos + 8) {
                let mut word = [0u8; 8];
                word.copy_from_slice(chunk);
                if has_special(u64::from_le_bytes(word)) {
                    break;
                }
                self.pos += 8;
            }
            while let Some(&c) = b.get(self.pos) {
                if is_string_special(c) {
                    break;
                }
                self.pos += 1;
            }
            match b.get(self.pos) {
                None => return self.err(SyntaxKind::UnexpectedEnd, self.pos),
                Some(b'"') => {
                    let end = self.pos;
                    self.pos += 1;
                    if key.is_none() {
                        return Ok(None);
                    }
                    if !escaped {
                        let raw = b.get(content_start..end).unwrap_or_default();
                        return Ok(Some(Cow::Borrowed(raw)));
                    }
                    return Ok(Some(Cow::Owned(std::mem::take(&mut self.scratch))));
                }
                Some(b'\\') => {
                    if key.is_some() && !escaped {
                        let run = b.get(content_start..self.pos).unwrap_or_default();
                        self.scratch.extend_from_slice(run);
                    }
                    escaped = true;
                    self.escape(key.is_some())?;
                }
                Some(_) => return self.err(SyntaxKind::ControlCharacterInString, self.pos),
            }
            if key.is_some() && escaped {
                // Copy the run up to the next special byte into scratch.
                let run_start = self.pos;
                while let Some(&c) = b.get(self.pos) {
                    if is_string_special(c) {
                        break;
                    }
                    self.pos += 1;
                }
                let run = b.get(run_start..self.pos).unwrap_or_default();
                self.scratch.extend_from_slice(run);
            }
        }
    }

    /// Reads one escape at `self.pos` (on the backslash), appending its
    /// unescaped bytes to `scratch` when `keep`.
    fn escape(&mut self, keep: bool) -> Result<(), Fail> {
        let at = self.pos;
        let Some(&c) = self.b.get(at + 1) else {
            return self.err(SyntaxKind::UnexpectedEnd, at + 1);
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
            _ => return self.err(SyntaxKind::InvalidEscape, at),
        };
        if let Some(byte) = simple {
            self.pos = at + 2;
            if keep {
                self.scratch.push(byte);
            }
            return Ok(());
        }
        let unit = self.hex4(at + 2)?;
        self.pos = at + 6;
        let ch = match unit {
            0xD800..=0xDBFF => {
                // A high surrogate must be followed by `\u` + low surrogate.
                if self.b.get(self.pos) != Some(&b'\\') || self.b.get(self.pos + 1) != Some(&b'u') {
                    return self.err(SyntaxKind::LoneSurrogate, at);
                }
                let low = self.hex4(self.pos + 2)?;
                if !(0xDC00..=0xDFFF).contains(&low) {
                    return self.err(SyntaxKind::LoneSurrogate, at);
                }
                self.pos += 6;
                let cp = 0x10000 + ((u32::from(unit) - 0xD800) << 10) + (u32::from(low) - 0xDC00);
                char::from_u32(cp)
            }
            0xDC00..=0xDFFF => return self.err(SyntaxKind::LoneSurrogate, at),
            _ => char::from_u32(u32::from(unit)),
        };
        let Some(ch) = ch else {
            return self.err(SyntaxKind::LoneSurrogate, at);
        };
        if keep {
            let mut buf = [0u8; 4];
            self.scratch
                .extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
        }
        Ok(())
    }

    fn hex4(&self, at: usize) -> Result<u16, Fail> {
        let mut v: u16 = 0;
        for i in at..at + 4 {
            let d = match self.b.get(i) {
                None => return self.err(SyntaxKind::UnexpectedEnd, i),
                Some(&c @ b'0'..=b'9') => c - b'0',
                Some(&c @ b'a'..=b'f') => c - b'a' + 10,
                Some(&c @ b'A'..=b'F') => c - b'A' + 10,
                Some(_) => return self.err(SyntaxKind::InvalidEscape, i),
            };
            v = (v << 4) | u16::from(d);
        }
        Ok(v)
    }
}

/// True when any byte of `w` is `"`, `\` or below 0x20 (SWAR test).
#[inline]
fn has_special(w: u64) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let zero_byte = |x: u64| x.wrapping_sub(ONES) & !x & HIGH;
    let quote = zero_byte(w ^ (ONES * u64::from(b'"')));
    let backslash = zero_byte(w ^ (ONES * u64::from(b'\\')));
    // Bytes below 0x20: (b - 0x20) borrows into the high bit, b < 0x80.
    let control = w.wrapping_sub(ONES * 0x20) & !w & HIGH;
    (quote | backslash | control) != 0
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
