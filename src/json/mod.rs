//! `toolgate::json`: the strict JSON layer every other part of toolgate uses.
//!
//! Untrusted bytes go through, in order: the payload bound, the bound on
//! what they cost parsed ([`value_units`]), a UTF-8 check (a byte order
//! mark is refused, RFC 8259 §8.1), and one iterative scan that
//! checks the RFC 8259 grammar, the nesting depth and duplicate keys.
//! [`parse_strict`] builds the [`Value`] in that same pass (exactly the
//! value `serde_json` builds; UTF-8 is then checked string by string as
//! strings are copied out); `rpc` scans without building.
//!
//! `serde_json` alone is not strict enough: it keeps the last of two equal
//! keys silently (RFC 8259 §4 and §8.3 leave the behaviour undefined;
//! RFC 7493 §2.3 (I-JSON) forbids duplicates), and never looks inside a
//! `RawValue`. The strictness here is ours.
//!
//! # Depth
//!
//! Arrays and objects both count: a top-level scalar has depth 0, `[]` and
//! `{}` have depth 1, `{"a":[1]}` has depth 2. A document whose depth is
//! exactly [`Limits::max_depth`] is accepted; one level more is refused.
//!
//! ```
//! use toolgate::json::{parse_strict, JsonError, Limits};
//!
//! let v = parse_strict(br#"{"a": [1, 2]}"#, &Limits::default()).unwrap();
//! assert_eq!(v["a"][1], 2);
//!
//! let err = parse_strict(br#"{"a": 1, "\u0061": 2}"#, &Limits::default()).unwrap_err();
//! assert!(matches!(err, JsonError::DuplicateKey(ref d) if d.pointer == "/a" && d.offset == 9));
//! ```
use std::fmt;

use serde_json::Value;

mod build;
mod scan;

/// The scanner as it was before issue 17, the reference the current one is
/// checked against (hidden, `harness` feature only).
#[cfg(any(fuzzing, feature = "harness"))]
#[doc(hidden)]
pub mod legacy;

pub(crate) use scan::{scan, Fail, Kind, Member, NoSink, Options, Sink, Slot, Span, NO_SLOT, ROOT};

/// Default bound on a payload (one JSON text, one JSON-RPC message), in bytes: 4 MiB.
///
/// Checked before any parsing, so an oversized input costs nothing but its length.
pub const MAX_PAYLOAD_BYTES: usize = 4 * 1024 * 1024;

/// Bound on one JSON-RPC line a server writes (a response, a
/// notification), in bytes: 16 MiB. `toolgate mcp` keeps every answer
/// under it (a tool result is cut short, `truncated: true`, with a warning
/// naming `max_response_bytes`); `toolgate gate` uses it as the default
/// bound on the lines its child writes (`--max-response-bytes`).
pub const MAX_RESPONSE_BYTES: usize = 16 * 1024 * 1024;

/// Default bound on nesting depth (arrays and objects both count; a
/// top-level scalar has depth 0). Kept well below `serde_json`'s own
/// recursion limit (128) so that limit can never be what fires first.
pub const MAX_JSON_DEPTH: usize = 64;

/// The largest depth [`Limits::max_depth`] may be set to: `serde_json`
/// refuses the 128th nested level itself. Larger settings are clamped.
pub const MAX_SUPPORTED_DEPTH: usize = 127;

/// What one parsed JSON value costs beyond its text, in bytes: the size
/// of a `serde_json::Value` (32 on 64-bit targets). The unit of
/// [`MAX_JSON_VALUES`].
pub const VALUE_BYTES: usize = std::mem::size_of::<Value>();

/// What an object with at least one member costs parsed beyond its values,
/// in [`VALUE_BYTES`] units: the node of its map (a `BTreeMap` leaf holds
/// eleven keys and values, about 630 bytes, allocated at the first member).
pub const OBJECT_VALUES: usize = 20;

/// What one object member costs parsed beyond its value, in
/// [`VALUE_BYTES`] units: its key's allocation and its share of the map's
/// nodes (a `BTreeMap` node of eleven keys and values, rarely full: one
/// object of 500,000 short keys, 14.5 MB, took the gateway to 282 MiB when
/// a member counted one unit; attack s72-A, F3).
pub const MEMBER_VALUES: usize = 3;

/// Default bound on what one JSON text may cost parsed, counted in values
/// ([`value_units`]): each value one, each object member
/// [`MEMBER_VALUES`] more and each object with a member [`OBJECT_VALUES`]
/// more; 2^20, about 32 MiB parsed ([`VALUE_BYTES`] each). Without it a
/// 4 MiB line of one-key objects (`[{"a":0},…]`) parsed to some 350 MB
/// (attack s71-A, F1). Checked before any parsing, in one pass over the
/// bytes.
pub const MAX_JSON_VALUES: usize = 1 << 20;

/// Bounds applied by [`parse_strict`] and by everything in `toolgate::rpc`.
///
/// `Default` is built from [`MAX_PAYLOAD_BYTES`], [`MAX_JSON_DEPTH`] and
/// [`MAX_JSON_VALUES`]; a server can tighten or loosen each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Largest accepted input, in bytes (inclusive).
    pub max_payload_bytes: usize,
    /// Deepest accepted nesting (inclusive), clamped to [`MAX_SUPPORTED_DEPTH`].
    pub max_depth: usize,
    /// Most values an input may hold, objects and members weighed as
    /// [`value_units`] counts them (inclusive).
    pub max_values: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_payload_bytes: MAX_PAYLOAD_BYTES,
            max_depth: MAX_JSON_DEPTH,
            max_values: MAX_JSON_VALUES,
        }
    }
}

/// What `bytes` cost parsed, in values ([`MAX_JSON_VALUES`]), from above:
/// one, and one more for each `[` and `,` outside strings and each `{`
/// whose next byte other than white space is not `}` (every value but the
/// first follows one of them: an object's first member its `{`);
/// [`MEMBER_VALUES`] more for each `:` (a member) and [`OBJECT_VALUES`]
/// more for each such `{` (an object with a member). Of valid JSON, the
/// exact cost but one value more for each empty array. One pass; it stops
/// once the count passes `max`.
///
/// # Errors
/// The byte offset at which the count passed `max`.
pub fn value_units(bytes: &[u8], max: usize) -> Result<usize, usize> {
    let mut n = 1_usize;
    if n > max {
        // The text itself is one value too many, where it starts.
        return match bytes
            .iter()
            .position(|c| !matches!(c, b' ' | b'\t' | b'\n' | b'\r'))
        {
            Some(at) => Err(at),
            None => Ok(n),
        };
    }
    let mut at = 0;
    while let Some(&b) = bytes.get(at) {
        let weight = match UNIT_CLASS.get(usize::from(b)).copied().unwrap_or(0) {
            // Inside a value or white space: nothing to count.
            0 => {
                at += 1;
                continue;
            }
            QUOTE => 0,
            OPEN_OBJECT => {
                // An object weighs more when its next byte other than white
                // space is not `}`: it has a member.
                let next = bytes
                    .get(at + 1..)
                    .unwrap_or_default()
                    .iter()
                    .find(|c| !matches!(c, b' ' | b'\t' | b'\n' | b'\r'));
                if next.is_some_and(|&c| c != b'}') {
                    1 + OBJECT_VALUES
                } else {
                    0
                }
            }
            MEMBER => MEMBER_VALUES,
            _ => 1,
        };
        n = n.saturating_add(weight);
        if n > max {
            // Where the count passed: an object's first member is counted
            // at the byte after its `{` and the white space.
            return Err(if b == b'{' {
                bytes
                    .get(at + 1..)
                    .unwrap_or_default()
                    .iter()
                    .position(|c| !matches!(c, b' ' | b'\t' | b'\n' | b'\r'))
                    .map_or(at, |k| at + 1 + k)
            } else {
                at
            });
        }
        at = if b == b'"' {
            string_end(bytes, at + 1)
        } else {
            at + 1
        };
    }
    Ok(n)
}

/// The classes of byte [`value_units`] stops at outside strings (any other
/// is 0): a string's quote, an object's `{`, a member's `:`, and `[` and
/// `,`, each the start of one more value.
// Evaluated at compile time: an index out of range would not compile.
#[allow(clippy::indexing_slicing)]
const UNIT_CLASS: [u8; 256] = {
    let mut class = [0; 256];
    class[b'"' as usize] = QUOTE;
    class[b'{' as usize] = OPEN_OBJECT;
    class[b':' as usize] = MEMBER;
    class[b'[' as usize] = ONE_MORE;
    class[b',' as usize] = ONE_MORE;
    class
};
const QUOTE: u8 = 1;
const OPEN_OBJECT: u8 = 2;
const MEMBER: u8 = 3;
const ONE_MORE: u8 = 4;

/// The offset just past the closing quote of the string whose text starts
/// at `from` in `bytes` (escapes skipped), or `bytes.len()` when it is not
/// closed. Eight bytes at a time up to a quote or a backslash: most of a
/// request's bytes are inside strings, and [`value_units`] runs before
/// every parse.
fn string_end(bytes: &[u8], mut from: usize) -> usize {
    const ONES: u64 = u64::from_le_bytes([1; 8]);
    const HIGH: u64 = u64::from_le_bytes([0x80; 8]);
    // Non-zero when a byte of `word` is `b` (SWAR; only bytes after a true
    // match can read as false ones, so "any" is exact).
    let holds = |word: u64, b: u8| {
        let x = word ^ (ONES * u64::from(b));
        x.wrapping_sub(ONES) & !x & HIGH
    };
    loop {
        let rest = bytes.get(from..).unwrap_or_default();
        let mut skipped = 0;
        for chunk in rest.chunks_exact(8) {
            let word = u64::from_le_bytes(<[u8; 8]>::try_from(chunk).unwrap_or([b'"'; 8]));
            if holds(word, b'"') | holds(word, b'\\') != 0 {
                break;
            }
            skipped += 8;
        }
        let found = rest
            .get(skipped..)
            .unwrap_or_default()
            .iter()
            .position(|&c| c == b'"' || c == b'\\');
        match found.map(|k| from + skipped + k) {
            None => return bytes.len(),
            Some(k) if bytes.get(k) == Some(&b'"') => return k + 1,
            // A backslash and the byte it escapes.
            Some(k) => from = k + 2,
        }
    }
}

impl Limits {
    /// The depth bound actually enforced (`max_depth` clamped to [`MAX_SUPPORTED_DEPTH`]).
    pub fn effective_max_depth(&self) -> usize {
        self.max_depth.min(MAX_SUPPORTED_DEPTH)
    }
}

/// Two members of one object with the same key, after unescaping
/// (`"a"` and `"\u0061"` are the same key; RFC 8259 §8.3, RFC 7493 §2.3).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DuplicateKey {
    /// The key, unescaped (invalid UTF-8 replaced by U+FFFD).
    pub key: String,
    /// RFC 6901 JSON Pointer to the duplicated member, e.g. `/params/arguments/a`.
    pub pointer: String,
    /// Byte offset of the second occurrence's opening quote.
    pub offset: usize,
}

impl fmt::Display for DuplicateKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "duplicate key {:?} at {} (byte {})",
            self.key, self.pointer, self.offset
        )
    }
}

impl std::error::Error for DuplicateKey {}

/// What was wrong in a malformed JSON text (RFC 8259 grammar).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum SyntaxKind {
    /// The input ended inside a value.
    UnexpectedEnd,
    /// A value was expected (e.g. a stray `,`, `]`, or a bare word).
    ExpectedValue,
    /// `/`: comments are not JSON.
    Comment,
    /// A misspelled `true`, `false` or `null`.
    InvalidLiteral,
    /// A number not matching RFC 8259 §6 (leading zero, missing digits, ...).
    InvalidNumber,
    /// A number outside the finite `f64` range.
    NumberOutOfRange,
    /// A raw control character (U+0000..U+001F) inside a string.
    ControlCharacterInString,
    /// A backslash escape other than those of RFC 8259 §7.
    InvalidEscape,
    /// A `\uD800`..`\uDFFF` escape not part of a surrogate pair.
    LoneSurrogate,
    /// An object member name (a string) was expected.
    ExpectedKey,
    /// `:` was expected after an object key.
    ExpectedColon,
    /// `,` or `}` was expected inside an object.
    ExpectedCommaOrBrace,
    /// `,` or `]` was expected inside an array.
    ExpectedCommaOrBracket,
    /// Something other than whitespace after the top-level value.
    TrailingCharacters,
    /// `serde_json` refused a text this scanner accepted (should not happen;
    /// kept so every path stays total).
    Rejected,
}

impl SyntaxKind {
    /// A short human description.
    pub fn describe(self) -> &'static str {
        match self {
            SyntaxKind::UnexpectedEnd => "unexpected end of input",
            SyntaxKind::ExpectedValue => "expected a value",
            SyntaxKind::Comment => "comments are not allowed",
            SyntaxKind::InvalidLiteral => "invalid literal (expected true, false or null)",
            SyntaxKind::InvalidNumber => "invalid number",
            SyntaxKind::NumberOutOfRange => "number out of range",
            SyntaxKind::ControlCharacterInString => "control character in string",
            SyntaxKind::InvalidEscape => "invalid escape",
            SyntaxKind::LoneSurrogate => "lone surrogate escape",
            SyntaxKind::ExpectedKey => "expected an object key (a string)",
            SyntaxKind::ExpectedColon => "expected ':'",
            SyntaxKind::ExpectedCommaOrBrace => "expected ',' or '}'",
            SyntaxKind::ExpectedCommaOrBracket => "expected ',' or ']'",
            SyntaxKind::TrailingCharacters => "trailing characters after the value",
            SyntaxKind::Rejected => "rejected by serde_json",
        }
    }

    /// A stable machine-readable name, e.g. `lone_surrogate`.
    pub fn code(self) -> &'static str {
        match self {
            SyntaxKind::UnexpectedEnd => "unexpected_end",
            SyntaxKind::ExpectedValue => "expected_value",
            SyntaxKind::Comment => "comment",
            SyntaxKind::InvalidLiteral => "invalid_literal",
            SyntaxKind::InvalidNumber => "invalid_number",
            SyntaxKind::NumberOutOfRange => "number_out_of_range",
            SyntaxKind::ControlCharacterInString => "control_character_in_string",
            SyntaxKind::InvalidEscape => "invalid_escape",
            SyntaxKind::LoneSurrogate => "lone_surrogate",
            SyntaxKind::ExpectedKey => "expected_key",
            SyntaxKind::ExpectedColon => "expected_colon",
            SyntaxKind::ExpectedCommaOrBrace => "expected_comma_or_brace",
            SyntaxKind::ExpectedCommaOrBracket => "expected_comma_or_bracket",
            SyntaxKind::TrailingCharacters => "trailing_characters",
            SyntaxKind::Rejected => "rejected",
        }
    }
}

/// Why the strict layer refused an input. Every variant says where.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum JsonError {
    /// The input is larger than [`Limits::max_payload_bytes`] (checked before parsing).
    TooLarge {
        /// Input length in bytes.
        len: usize,
        /// The bound in force.
        limit: usize,
    },
    /// Zero bytes.
    Empty,
    /// Only whitespace (`len` bytes of it).
    WhitespaceOnly {
        /// Input length in bytes.
        len: usize,
    },
    /// A UTF-8 byte order mark at offset 0 (RFC 8259 §8.1: must not be added).
    ByteOrderMark,
    /// Not UTF-8 (RFC 8259 §8.1); `offset` is the first invalid byte.
    InvalidUtf8 {
        /// Byte offset of the first byte that is not valid UTF-8.
        offset: usize,
    },
    /// Not JSON: `kind` says what, `offset` where.
    Syntax {
        /// What was wrong.
        kind: SyntaxKind,
        /// Byte offset where the scanner stopped.
        offset: usize,
    },
    /// Nesting deeper than [`Limits::max_depth`].
    TooDeep {
        /// The depth bound in force.
        limit: usize,
        /// Byte offset of the `[` or `{` one level too deep.
        offset: usize,
        /// RFC 6901 pointer to that container.
        pointer: String,
    },
    /// Two members of one object share a key.
    DuplicateKey(DuplicateKey),
    /// More values than [`Limits::max_values`], as [`value_units`]
    /// counts them (checked before parsing).
    TooManyValues {
        /// The bound in force.
        limit: usize,
        /// Byte offset at which the count passed it.
        offset: usize,
    },
}

impl JsonError {
    /// A stable machine-readable name of the variant, e.g. `duplicate_key`.
    pub fn code(&self) -> &'static str {
        match self {
            JsonError::TooLarge { .. } => "too_large",
            JsonError::Empty => "empty",
            JsonError::WhitespaceOnly { .. } => "whitespace_only",
            JsonError::ByteOrderMark => "byte_order_mark",
            JsonError::InvalidUtf8 { .. } => "invalid_utf8",
            JsonError::Syntax { .. } => "syntax",
            JsonError::TooDeep { .. } => "too_deep",
            JsonError::DuplicateKey(_) => "duplicate_key",
            JsonError::TooManyValues { .. } => "too_many_values",
        }
    }

    /// Byte offset the error refers to, when there is one.
    pub fn offset(&self) -> Option<usize> {
        match self {
            JsonError::TooLarge { limit, .. } => Some(*limit),
            JsonError::Empty => Some(0),
            JsonError::WhitespaceOnly { len } => Some(*len),
            JsonError::ByteOrderMark => Some(0),
            JsonError::InvalidUtf8 { offset }
            | JsonError::Syntax { offset, .. }
            | JsonError::TooDeep { offset, .. }
            | JsonError::TooManyValues { offset, .. } => Some(*offset),
            JsonError::DuplicateKey(d) => Some(d.offset),
        }
    }

    /// RFC 6901 pointer the error refers to, when there is one.
    pub fn pointer(&self) -> Option<&str> {
        match self {
            JsonError::TooDeep { pointer, .. } => Some(pointer),
            JsonError::DuplicateKey(d) => Some(&d.pointer),
            _ => None,
        }
    }
}

impl fmt::Display for JsonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JsonError::TooLarge { len, limit } => {
                write!(f, "payload of {len} bytes exceeds the {limit}-byte bound")
            }
            JsonError::Empty => write!(f, "empty input (byte 0)"),
            JsonError::WhitespaceOnly { len } => {
                write!(f, "input is only whitespace (no value before byte {len})")
            }
            JsonError::ByteOrderMark => write!(f, "UTF-8 byte order mark at byte 0"),
            JsonError::InvalidUtf8 { offset } => write!(f, "invalid UTF-8 at byte {offset}"),
            JsonError::Syntax { kind, offset } => {
                write!(f, "invalid JSON: {} at byte {offset}", kind.describe())
            }
            JsonError::TooDeep {
                limit,
                offset,
                pointer,
            } => write!(
                f,
                "nesting deeper than {limit} levels at {} (byte {offset})",
                if pointer.is_empty() {
                    "the root"
                } else {
                    pointer
                }
            ),
            JsonError::DuplicateKey(d) => d.fmt(f),
            JsonError::TooManyValues { limit, offset } => write!(
                f,
                "more than {limit} weighed JSON values at byte {offset} (each value weighs 1, each object member {MEMBER_VALUES} more, each object with a member {OBJECT_VALUES} more: what they cost parsed)"
            ),
        }
    }
}

impl std::error::Error for JsonError {}

impl From<DuplicateKey> for JsonError {
    fn from(d: DuplicateKey) -> Self {
        JsonError::DuplicateKey(d)
    }
}

/// Checks what can be checked without reading the text: the bound,
/// emptiness, a byte order mark and whitespace-only input (which is UTF-8,
/// so checking it before UTF-8 changes no answer).
fn precheck_bytes(bytes: &[u8], limits: &Limits) -> Result<(), JsonError> {
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
    if bytes
        .iter()
        .all(|c| matches!(c, b' ' | b'\t' | b'\n' | b'\r'))
    {
        return Err(JsonError::WhitespaceOnly { len: bytes.len() });
    }
    value_units(bytes, limits.max_values).map_err(|offset| JsonError::TooManyValues {
        limit: limits.max_values,
        offset,
    })?;
    Ok(())
}

fn utf8(bytes: &[u8]) -> Result<&str, JsonError> {
    std::str::from_utf8(bytes).map_err(|e| JsonError::InvalidUtf8 {
        offset: e.valid_up_to(),
    })
}

/// Checks what can be checked without parsing: the bound, emptiness, a byte
/// order mark, whitespace-only input, the values bound and UTF-8. Returns
/// the text.
pub(crate) fn precheck<'a>(bytes: &'a [u8], limits: &Limits) -> Result<&'a str, JsonError> {
    precheck_bytes(bytes, limits)?;
    utf8(bytes)
}

/// Runs the strict scan (grammar, depth, duplicate keys) over a prechecked
/// text, reporting to `sink`. With `finish`, the scan reads the whole text
/// even after a depth or duplicate-key fault ([`Outcome::complete`] then says
/// whether the text is valid JSON by the grammar).
pub(crate) fn scan_strict<S: Sink>(
    text: &str,
    limits: &Limits,
    finish: bool,
    sink: &mut S,
) -> (Option<JsonError>, bool) {
    let limit = limits.effective_max_depth();
    let out = scan(
        text.as_bytes(),
        Options {
            max_depth: limit,
            finish,
        },
        sink,
    );
    (out.fault.map(|f| fail_to_error(f, limit)), out.complete)
}

fn fail_to_error(f: Fail, limit: usize) -> JsonError {
    match f {
        Fail::Syntax(kind, offset) => JsonError::Syntax { kind, offset },
        Fail::TooDeep { offset, pointer } => JsonError::TooDeep {
            limit,
            offset,
            pointer,
        },
        Fail::Duplicate(d) => JsonError::DuplicateKey(d),
    }
}

/// Parses untrusted bytes as one strict JSON text.
///
/// Checks, in order: the payload bound (before reading anything), empty or
/// whitespace-only input, a byte order mark, the values bound
/// ([`Limits::max_values`]), UTF-8 (RFC 8259 §8.1), then in
/// one iterative pass the RFC 8259 grammar, the nesting depth and duplicate
/// keys (RFC 8259 §8.3, RFC 7493 §2.3; compared after unescaping), building
/// the value in the same pass: an accepted document parses to exactly what
/// `serde_json::from_slice::<Value>` (with `float_roundtrip`) gives, numbers
/// included. An input with invalid UTF-8 anywhere is refused as
/// [`JsonError::InvalidUtf8`] whatever else is wrong with it.
///
/// Memory: the value itself plus, during the pass, the keys of the open
/// objects (at most the input length) and one frame per nesting level
/// (at most [`Limits::max_depth`]).
///
/// # Errors
///
/// * [`JsonError::TooLarge`]: more than `limits.max_payload_bytes` bytes.
/// * [`JsonError::Empty`], [`JsonError::WhitespaceOnly`]: no value at all.
/// * [`JsonError::ByteOrderMark`]: the input starts with `EF BB BF`.
/// * [`JsonError::InvalidUtf8`]: with the offset of the first bad byte.
/// * [`JsonError::Syntax`]: anything RFC 8259 (as `serde_json` reads it) refuses,
///   including comments, trailing characters, lone surrogate escapes and
///   numbers outside the `f64` range.
/// * [`JsonError::TooDeep`]: nesting beyond `limits.max_depth` (see the module docs).
/// * [`JsonError::DuplicateKey`]: two equal keys in one object, at any depth.
/// * [`JsonError::TooManyValues`]: more than `limits.max_values` values as
///   [`value_units`] weighs them (checked after the whitespace check,
///   before UTF-8).
pub fn parse_strict(bytes: &[u8], limits: &Limits) -> Result<Value, JsonError> {
    precheck_bytes(bytes, limits)?;
    let limit = limits.effective_max_depth();
    build::build(bytes, limit).map_err(|f| match utf8(bytes) {
        Err(e) => e,
        Ok(_) => fail_to_error(f, limit),
    })
}

/// Deserializes a text the scanner accepted. `serde_json` cannot refuse it
/// (same grammar, depth below its recursion limit), but stays total anyway.
pub(crate) fn from_vetted<T: serde::de::DeserializeOwned>(text: &str) -> Result<T, JsonError> {
    serde_json::from_str(text).map_err(|e| JsonError::Syntax {
        kind: SyntaxKind::Rejected,
        offset: offset_of(text, e.line(), e.column()),
    })
}

/// Converts `serde_json`'s 1-based line / column into a byte offset.
pub(crate) fn offset_of(text: &str, line: usize, column: usize) -> usize {
    let mut start = 0usize;
    for _ in 1..line {
        match text.get(start..).and_then(|t| t.find('\n')) {
            Some(i) => start = start + i + 1,
            None => break,
        }
    }
    (start + column.saturating_sub(1)).min(text.len())
}

/// Reports the first pair of equal keys in one object (RFC 8259 §8.3,
/// RFC 7493 §2.3), comparing keys after unescaping.
///
/// Works on arbitrary bytes: it reports duplicates found before the first
/// syntax error and returns `Ok(())` on malformed input or on nesting deeper
/// than [`MAX_SUPPORTED_DEPTH`] (use [`parse_strict`] to validate a document;
/// it refuses both). Invalid UTF-8 inside keys is compared byte for byte.
/// Iterative; memory is bounded by the input length.
///
/// # Errors
///
/// [`DuplicateKey`] with the key, its RFC 6901 pointer and the byte offset
/// of the second occurrence.
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

/// Nesting depth of a value: a scalar is 0, `[]` and `{}` are 1, and each
/// enclosing array or object adds 1 (the same count [`Limits::max_depth`] bounds).
///
/// Iterative (an explicit stack on the heap), so it cannot overflow the
/// call stack whatever the value; time and memory are linear in its size.
pub fn depth_of(value: &Value) -> usize {
    let mut max = 0usize;
    let mut stack: Vec<(&Value, usize)> = vec![(value, 0)];
    while let Some((v, d)) = stack.pop() {
        match v {
            Value::Array(items) => {
                let d = d + 1;
                max = max.max(d);
                stack.extend(items.iter().map(|c| (c, d)));
            }
            Value::Object(map) => {
                let d = d + 1;
                max = max.max(d);
                stack.extend(map.values().map(|c| (c, d)));
            }
            _ => max = max.max(d),
        }
    }
    max
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The byte-at-a-time count [`value_units`] was first written as: the
    /// oracle of the one that skips strings eight bytes at a time.
    fn units_one_byte_at_a_time(bytes: &[u8], max: usize) -> Result<usize, usize> {
        let (mut n, mut in_string, mut escaped, mut opened) = (1_usize, false, false, false);
        for (at, &b) in bytes.iter().enumerate() {
            if in_string {
                match (escaped, b) {
                    (true, _) => escaped = false,
                    (false, b'\\') => escaped = true,
                    (false, b'"') => in_string = false,
                    _ => {}
                }
                continue;
            }
            if matches!(b, b' ' | b'\t' | b'\n' | b'\r') {
                continue;
            }
            if std::mem::take(&mut opened) && b != b'}' {
                n = n.saturating_add(1 + OBJECT_VALUES);
            }
            match b {
                b'"' => in_string = true,
                b'{' => opened = true,
                b'[' | b',' => n = n.saturating_add(1),
                b':' => n = n.saturating_add(MEMBER_VALUES),
                _ => {}
            }
            if n > max {
                return Err(at);
            }
        }
        Ok(n)
    }

    proptest::proptest! {
        /// Skipping strings a word at a time counts what the byte-at-a-time
        /// count does, and stops at the same byte, on any bytes: escapes at
        /// a word's edge, strings left open, a backslash last.
        #[test]
        fn value_units_is_the_byte_at_a_time_count(
            parts in proptest::collection::vec(
                proptest::sample::select(vec![
                    "\"", "\\", "\\\"", "{", "}", "[", "]", ",", ":", " ", "\n", "a", "abcdefgh",
                    "0123456789abcdef", "\u{e9}", "\"k\":", "{}", "[]",
                ]),
                0..40,
            ),
            max in 0_usize..200,
        ) {
            let text = parts.concat();
            let bytes = text.as_bytes();
            proptest::prop_assert_eq!(
                value_units(bytes, usize::MAX),
                units_one_byte_at_a_time(bytes, usize::MAX)
            );
            proptest::prop_assert_eq!(value_units(bytes, max), units_one_byte_at_a_time(bytes, max));
        }
    }

    /// Values weighed: an object with a member and each member cost more;
    /// nothing inside strings counts; the count stops where it passes the
    /// bound, which `parse_strict` reports with that offset (attack s71-A,
    /// F1: `[{"a":0},…]` parsed to some 700 bytes an object).
    #[test]
    fn value_units_weigh_objects_and_members() {
        let one = 2 + MEMBER_VALUES + OBJECT_VALUES;
        for (text, units) in [
            (&b"0"[..], 1),
            (b"[]", 2),
            (b"{}", 1),
            (b"{ }", 1),
            (b"[0,0,0]", 4),
            (b"{\"a\":0}", 1 + 1 + MEMBER_VALUES + OBJECT_VALUES),
            (b"[{\"a\":0}]", 1 + one),
            (b"[{\"a\":0},{\"a\":0}]", 1 + 2 * one),
            (b" { \"a\" : { } } ", 2 + MEMBER_VALUES + OBJECT_VALUES),
            (b"[\"{:,[\\\"\",\"\\\\\"]", 3),
        ] {
            assert_eq!(
                value_units(text, usize::MAX),
                Ok(units),
                "{}",
                String::from_utf8_lossy(text)
            );
            assert_eq!(value_units(text, units), Ok(units));
            if units > 1 {
                assert!(value_units(text, units - 1).is_err());
            }
        }
        let many = format!("[{}]", vec![r#"{"a":0}"#; 100].join(","));
        let limits = Limits {
            max_values: 1000,
            ..Limits::default()
        };
        let Err(JsonError::TooManyValues { limit, offset }) =
            parse_strict(many.as_bytes(), &limits)
        else {
            panic!("accepted")
        };
        assert_eq!(limit, 1000);
        assert_eq!(value_units(many.as_bytes(), 1000), Err(offset));
        assert!(offset < many.len() / 2, "{offset}");
        assert_eq!(
            JsonError::TooManyValues { limit, offset }.code(),
            "too_many_values"
        );
    }

    /// serde_json's 1-based line and column as a byte offset: line starts
    /// counted past each `\n`, clamped to the text.
    #[test]
    fn offset_of_counts_lines_and_columns() {
        let text = "ab\ncde\n\nf";
        for (line, column, want) in [
            (1, 1, 0),
            (1, 2, 1),
            (2, 1, 3),
            (2, 3, 5),
            (3, 1, 7),
            (4, 1, 8),
            (4, 9, 9),
            (9, 1, 8),
            (1, 0, 0),
        ] {
            assert_eq!(offset_of(text, line, column), want, "{line}:{column}");
        }
    }

    /// A text serde_json refuses reaches `from_vetted`'s error as
    /// `rejected`, at serde's position.
    #[test]
    fn from_vetted_reports_serdes_position() {
        let e = from_vetted::<serde_json::Value>("[1,\n  x]").unwrap_err();
        assert_eq!(
            e,
            JsonError::Syntax {
                kind: SyntaxKind::Rejected,
                offset: 6
            }
        );
        assert_eq!(SyntaxKind::Rejected.code(), "rejected");
    }
}
