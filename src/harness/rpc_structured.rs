//! Structure-aware model of MCP `tools/call` messages (the wasm-smith
//! pattern): an `arbitrary` model builds a *valid* request as a tree that
//! knows how each string is spelled (plain or escaped), the member order and
//! the whitespace; one typed `Mutation` is applied to the tree; the tree is
//! rendered to bytes while every value's and key's byte offset and RFC 6901
//! pointer are recorded; and the model states the exact answer:
//! `parse_tool_call` must return exactly the expected [`RpcError`] (kind,
//! JSON-RPC code, pointer, offset, excerpt) with the id the id rule gives,
//! or, with no error expected, exactly the modelled request (id, name,
//! arguments down to their exact text, `_meta`).
//!
//! Nothing here calls the parser to learn the answer: the expectation is
//! computed from the tree alone (decoded strings, the offsets the renderer
//! wrote, the depth the model built).
use arbitrary::{Arbitrary, Unstructured};
use serde_json::{Map, Number, Value};

use crate::json::{JsonError, SyntaxKind, MAX_JSON_DEPTH};
use crate::rpc::{
    self, EnvelopeError, Id, Message, MethodError, ParamsError, RpcError, MAX_ERROR_EXCERPT,
};

/// Fuzz target `parse_tool_call_structured`: the model built from `data`,
/// one mutation, the exact expected answer.
pub fn parse_tool_call_structured(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let Ok(model) = CallModel::arbitrary(&mut u) else {
        return;
    };
    check_model(&model);
}

// ---------------------------------------------------------------------------
// Strings

/// A JSON string: its decoded text and how each char is written.
#[derive(Debug, Clone)]
pub struct JStr {
    text: String,
    /// Per char (cycled): 0 plain where allowed, 1 `\uXXXX`, 2 a short
    /// escape where one exists (`\/` for `/`), 3 upper-case `\uXXXX`.
    spelling: Vec<u8>,
}

/// Strings the model likes to reach for: envelope names, characters that
/// need escapes or pointer escaping, non-ASCII, astral.
const POOL: &[&str] = &[
    "a",
    "id",
    "name",
    "path",
    "jsonrpc",
    "method",
    "params",
    "arguments",
    "_meta",
    "progressToken",
    "a/b",
    "~1",
    "q\"uote",
    "back\\slash",
    "tab\there",
    "line\nbreak",
    "\u{0}\u{1f}",
    "é",
    "ａ",
    "😀",
    "\u{2028}",
    "",
];

impl JStr {
    fn plain(text: &str) -> Self {
        Self {
            text: text.to_owned(),
            spelling: vec![0],
        }
    }

    fn spelled(text: &str, spelling: Vec<u8>) -> Self {
        Self {
            text: text.to_owned(),
            spelling: if spelling.is_empty() {
                vec![0]
            } else {
                spelling
            },
        }
    }

    /// The same text with another spelling (an escaped twin when `spelling`
    /// escapes something).
    fn respelled(&self, spelling: Vec<u8>) -> Self {
        Self::spelled(&self.text, spelling)
    }

    fn render(&self, out: &mut String) {
        self.render_marked(out, &mut Vec::new());
    }

    /// [`Self::render`], noting in `highs` the offset of each `\uD800`..
    /// `\uDBFF` escape written (the first half of an escaped pair).
    fn render_marked(&self, out: &mut String, highs: &mut Vec<usize>) {
        out.push('"');
        for (i, c) in self.text.chars().enumerate() {
            let s = self.spelling[i % self.spelling.len()] % 4;
            let short = match c {
                '"' => Some("\\\""),
                '\\' => Some("\\\\"),
                '\n' => Some("\\n"),
                '\t' => Some("\\t"),
                '\r' => Some("\\r"),
                '\u{8}' => Some("\\b"),
                '\u{c}' => Some("\\f"),
                '/' => Some("\\/"),
                _ => None,
            };
            let must_escape = matches!(c, '"' | '\\') || (c as u32) < 0x20;
            match (s, short) {
                (2, Some(e)) => out.push_str(e),
                (0, Some(e)) if must_escape => out.push_str(e),
                (0, _) if !must_escape => out.push(c),
                _ => {
                    let mut buf = [0u16; 2];
                    for unit in c.encode_utf16(&mut buf) {
                        if (0xD800..=0xDBFF).contains(&*unit) {
                            highs.push(out.len());
                        }
                        if s == 3 {
                            out.push_str(&format!("\\u{unit:04X}"));
                        } else {
                            out.push_str(&format!("\\u{unit:04x}"));
                        }
                    }
                }
            }
        }
        out.push('"');
    }
}

impl<'a> Arbitrary<'a> for JStr {
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Self> {
        let text = if u.ratio(2, 3)? {
            (*u.choose(POOL)?).to_owned()
        } else {
            let s: String = u.arbitrary()?;
            s.chars().take(12).collect()
        };
        let n = u.int_in_range(0..=4)?;
        let spelling = (0..n)
            .map(|_| u.arbitrary::<u8>())
            .collect::<arbitrary::Result<_>>()?;
        Ok(Self::spelled(&text, spelling))
    }
}

/// RFC 6901 reference token of a key.
fn token(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

// ---------------------------------------------------------------------------
// The document tree

/// A JSON value as the model writes it.
#[derive(Debug, Clone)]
enum J {
    Null,
    Bool(bool),
    Int(i64),
    UInt(u64),
    Float(f64),
    /// Number text written as is (bad ids: `1e3`, `-0`, out of range).
    RawNum(&'static str),
    Str(JStr),
    Arr(Vec<J>),
    Obj(Vec<(JStr, J)>),
}

impl J {
    fn value(&self) -> Value {
        match self {
            J::Null => Value::Null,
            J::Bool(b) => Value::Bool(*b),
            J::Int(i) => Value::from(*i),
            J::UInt(i) => Value::from(*i),
            J::Float(f) => Number::from_f64(*f).map_or(Value::Null, Value::Number),
            J::RawNum(t) => panic!("no value for the raw number {t} in an accepted document"),
            J::Str(s) => Value::String(s.text.clone()),
            J::Arr(items) => Value::Array(items.iter().map(J::value).collect()),
            J::Obj(members) => Value::Object(object_map(members)),
        }
    }

    /// The scanner's name for the kind of this value.
    fn kind_name(&self) -> &'static str {
        match self {
            J::Null => "null",
            J::Bool(_) => "a boolean",
            J::Int(_) | J::UInt(_) | J::Float(_) | J::RawNum(_) => "a number",
            J::Str(_) => "a string",
            J::Arr(_) => "an array",
            J::Obj(_) => "an object",
        }
    }

    fn members(&self) -> &[(JStr, J)] {
        match self {
            J::Obj(m) => m,
            _ => &[],
        }
    }

    fn members_mut(&mut self) -> Option<&mut Vec<(JStr, J)>> {
        match self {
            J::Obj(m) => Some(m),
            _ => None,
        }
    }

    fn get(&self, key: &str) -> Option<&J> {
        self.members()
            .iter()
            .find(|(k, _)| k.text == key)
            .map(|(_, v)| v)
    }

    fn remove(&mut self, key: &str) {
        if let Some(m) = self.members_mut() {
            m.retain(|(k, _)| k.text != key);
        }
    }

    fn set(&mut self, key: &str, value: J) {
        if let Some(m) = self.members_mut() {
            match m.iter_mut().find(|(k, _)| k.text == key) {
                Some((_, v)) => *v = value,
                None => m.push((JStr::plain(key), value)),
            }
        }
    }
}

fn object_map(members: &[(JStr, J)]) -> Map<String, Value> {
    members
        .iter()
        .map(|(k, v)| (k.text.clone(), v.value()))
        .collect()
}

/// Keeps the first member of each decoded key, and none of `reserved`.
fn dedup(members: Vec<(JStr, J)>, reserved: &[&str]) -> Vec<(JStr, J)> {
    let mut seen: Vec<String> = reserved.iter().map(|s| (*s).to_owned()).collect();
    let mut out = Vec::new();
    for (k, v) in members {
        if !seen.contains(&k.text) {
            seen.push(k.text.clone());
            out.push((k, v));
        }
    }
    out
}

/// A nested value of at most `depth` more levels.
fn gen_value(u: &mut Unstructured<'_>, depth: usize) -> arbitrary::Result<J> {
    let top = if depth == 0 { 5 } else { 7 };
    Ok(match u.int_in_range(0..=top)? {
        0 => J::Null,
        1 => J::Bool(u.arbitrary()?),
        2 => J::Int(u.arbitrary()?),
        3 => {
            let f: f64 = u.arbitrary()?;
            if f.is_finite() {
                J::Float(f)
            } else {
                J::UInt(u.arbitrary()?)
            }
        }
        4 | 5 => J::Str(u.arbitrary()?),
        6 => {
            let n = u.int_in_range(0..=3)?;
            J::Arr(
                (0..n)
                    .map(|_| gen_value(u, depth - 1))
                    .collect::<arbitrary::Result<_>>()?,
            )
        }
        _ => J::Obj(gen_members(u, depth - 1, &[])?),
    })
}

fn gen_members(
    u: &mut Unstructured<'_>,
    depth: usize,
    reserved: &[&str],
) -> arbitrary::Result<Vec<(JStr, J)>> {
    let n = u.int_in_range(0..=4)?;
    let members = (0..n)
        .map(|_| Ok((u.arbitrary()?, gen_value(u, depth)?)))
        .collect::<arbitrary::Result<Vec<_>>>()?;
    Ok(dedup(members, reserved))
}

/// Members of an object: the model's own nested values (depth bounded).
#[derive(Debug, Clone)]
pub struct Members(Vec<(JStr, J)>);

impl<'a> Arbitrary<'a> for Members {
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Self> {
        Ok(Self(gen_members(u, 4, &[])?))
    }
}

// ---------------------------------------------------------------------------
// The model

/// A valid `tools/call` request, and one mutation.
#[derive(Debug, Arbitrary)]
pub struct CallModel {
    id: IdModel,
    /// `"jsonrpc"` written with these escapes (still `"2.0"`).
    jsonrpc_spelling: Vec<u8>,
    /// `"tools/call"` written with these escapes (`\u0074ools\/call`).
    method_spelling: Vec<u8>,
    /// Member names of the envelope spelled with these escapes.
    key_spelling: Vec<u8>,
    name: JStr,
    arguments: Option<Members>,
    meta: Option<Members>,
    /// Unknown members of the envelope and of `params` (vetted, ignored).
    extra_top: Members,
    extra_params: Members,
    /// Sort keys of the members (order is free in JSON).
    order: Vec<u8>,
    /// Whitespace between tokens, cycled.
    whitespace: Vec<u8>,
    mutation: Mutation,
    /// A change to the grammar of the rendered request; when present, it
    /// is the one mutation (`mutation` is not applied). Last, so inputs
    /// written before it existed decode as they did.
    syntax: Option<Syntax>,
}

#[derive(Debug, Clone, Arbitrary)]
enum IdModel {
    Int(i64),
    Big(u64),
    Str(JStr),
}

impl IdModel {
    fn tree(&self) -> J {
        match self {
            IdModel::Int(i) => J::Int(*i),
            IdModel::Big(b) => J::UInt(*b),
            IdModel::Str(s) => J::Str(s.clone()),
        }
    }

    fn id(&self) -> Id {
        match self {
            IdModel::Int(i) => Id::Number((*i).into()),
            IdModel::Big(b) => Id::Number((*b).into()),
            IdModel::Str(s) => Id::String(s.text.clone()),
        }
    }
}

/// A value of the wrong type for a member that must be an object or a string.
#[derive(Debug, Clone, Copy, Arbitrary)]
enum Wrong {
    Null,
    Bool(bool),
    Number(i8),
    String,
    Array,
    Object,
}

impl Wrong {
    fn tree(self) -> J {
        match self {
            Wrong::Null => J::Null,
            Wrong::Bool(b) => J::Bool(b),
            Wrong::Number(n) => J::Int(n.into()),
            Wrong::String => J::Str(JStr::plain("x")),
            Wrong::Array => J::Arr(vec![J::Int(1)]),
            Wrong::Object => J::Obj(vec![(JStr::plain("k"), J::Null)]),
        }
    }
}

/// An id that is not a string or an integer.
#[derive(Debug, Clone, Copy, Arbitrary)]
enum BadId {
    Null,
    Bool(bool),
    Fraction,
    Exponent,
    UpperExponent,
    NegativeZero,
    NegativeZeroFraction,
    TooLarge,
    TooSmall,
    Array,
    Object,
}

impl BadId {
    fn tree_and_found(self) -> (J, &'static str) {
        const FRACTION: &str = "a number with a fraction or exponent";
        const RANGE: &str = "an integer outside the 64-bit range";
        match self {
            BadId::Null => (J::Null, "null"),
            BadId::Bool(b) => (J::Bool(b), "a boolean"),
            BadId::Fraction => (J::RawNum("1.5"), FRACTION),
            BadId::Exponent => (J::RawNum("1e3"), FRACTION),
            BadId::UpperExponent => (J::RawNum("7E+0"), FRACTION),
            BadId::NegativeZero => (J::RawNum("-0"), "negative zero"),
            BadId::NegativeZeroFraction => (J::RawNum("-0.0"), FRACTION),
            BadId::TooLarge => (J::RawNum("18446744073709551616"), RANGE),
            BadId::TooSmall => (J::RawNum("-9223372036854775809"), RANGE),
            BadId::Array => (J::Arr(vec![]), "an array"),
            BadId::Object => (J::Obj(vec![]), "an object"),
        }
    }
}

/// `jsonrpc` values other than `"2.0"`.
const BAD_JSONRPC: &[&str] = &[
    "1.0",
    "2.00",
    "2",
    "2.0 ",
    " 2.0",
    "",
    "2.0\u{0}",
    "２.0",
    // Longer than the excerpt bound, cut inside a two-byte character.
    "2.0-ééééééééééééééééééééééééééééééééééééé",
];

/// Methods that are not `tools/call` (near misses).
const NEAR_MISS: &[&str] = &[
    "tools/Call",
    "TOOLS/CALL",
    "tools/call ",
    " tools/call",
    "tools/calls",
    "tools/cal",
    "tool/call",
    "tools\\call",
    "tools/call\u{0}",
    "tools/list",
    "notifications/tools/call",
    "",
    // Longer than the excerpt bound, cut inside a four-byte character.
    "tools/call/a😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀",
];

/// Byte sequences that are not UTF-8 (RFC 3629): a byte never used, a
/// lone continuation, an overlong encoding, a UTF-16 surrogate, a code
/// point past U+10FFFF, sequences cut short.
const NOT_UTF8: &[&[u8]] = &[
    &[0xff],
    &[0x80],
    &[0xc0, 0x80],
    &[0xe0, 0x80, 0xaf],
    &[0xed, 0xa0, 0x80],
    &[0xf4, 0x90, 0x80, 0x80],
    &[0xe2, 0x82],
    &[0xf0, 0x9f, 0x98],
];

/// One typed change to the valid request, each with a known answer.
#[derive(Debug, Clone, Arbitrary)]
enum Mutation {
    None,
    /// A second member with the key of an existing one (spelled anew, so
    /// often an escaped twin) in the `site`-th object that has members.
    DuplicateKey {
        site: u8,
        member: u8,
        spelling: Vec<u8>,
        position: u8,
    },
    /// A new member holding containers nested to one level past
    /// `MAX_JSON_DEPTH` (or exactly to it when `exact`: accepted); past the
    /// limit, `beyond` more levels of objects with members (read for the
    /// grammar only, never reported).
    Deep {
        site: u8,
        arrays: bool,
        exact: bool,
        beyond: u8,
    },
    /// 17 to 80 new members in the `site`-th object that has members (past
    /// any small-object shortcut of the duplicate check), then, when
    /// `duplicate` says so, a twin of one of its members at the end.
    ManyMembers {
        site: u8,
        count: u8,
        duplicate: Option<(u8, Vec<u8>)>,
    },
    /// One of [`NOT_UTF8`] written right after the opening quote of the
    /// `site`-th string (keys and values, in document order).
    NotUtf8 {
        site: u8,
        bytes: u8,
    },
    JsonrpcMissing,
    JsonrpcWrongString(u8),
    JsonrpcNotString(Wrong),
    IdMissing,
    IdInvalid(BadId),
    MethodMissing,
    MethodNotString(Wrong),
    MethodNearMiss(u8),
    ParamsMissing,
    ParamsWrong(Wrong),
    NameMissing,
    NameWrong(Wrong),
    ArgumentsWrong(Wrong),
    MetaWrong(Wrong),
    /// A top-level array (0 to 3 copies of the request) or scalar.
    TopLevel {
        copies: u8,
        scalar: Option<Wrong>,
    },
}

/// A change to the grammar of the rendered (valid) request at the
/// `site`-th place its kind applies to (in writing order, cycled).
#[derive(Debug, Clone, Arbitrary)]
pub struct Syntax {
    site: u8,
    change: SyntaxChange,
}

/// One typed syntax mutation; the scanner's exact answer is known from the
/// bytes the model wrote around the place.
#[derive(Debug, Clone, Copy, Arbitrary)]
enum SyntaxChange {
    /// The text cut inside a key or value (`at` bytes past its first byte,
    /// within it): unexpected end at the cut, or invalid UTF-8 at the first
    /// byte of a character cut, or a lone surrogate at the escape of a
    /// pair cut after its first half.
    Truncate { at: u16 },
    /// A byte of [`STRAY`] where a value is expected (before a value).
    StrayValue(u8),
    /// A byte of [`STRAY`] where a member name is expected.
    StrayKey(u8),
    /// A byte of [`STRAY_AFTER`] right after a key (`:` expected) or a value
    /// (`,` or the container's close expected; the end after the top level).
    StrayAfter(u8),
    /// A `:` removed, or replaced by `=`.
    NoColon { removed: bool },
    /// A `,` between two members or elements replaced by a space.
    NoComma,
    /// A `,` before the close of an object or array (`{,}` when empty).
    TrailingComma,
    /// An escape of [`BAD_ESCAPES`] right after the opening quote of a key
    /// or string value.
    BadEscape(u8),
    /// A raw control character (U+0000..U+001F) right after the opening
    /// quote of a key or string value.
    RawControl(u8),
    /// A value (not the top level) replaced by a malformed number or
    /// literal of [`BAD_SCALARS`].
    BadScalar(u8),
    /// The whole line replaced by nothing (`empty`) or by whitespace only
    /// (`whitespace_only` with its length).
    Blank(u8),
}

/// Bytes that start no JSON value and are no whitespace or close. The
/// first [`STRAY_AFTER`] of them also continue no number or literal.
const STRAY: &[&[u8]] = &[
    b"#",
    b"'",
    b"+",
    b"/",
    b"x",
    b"t",
    b"n",
    b"f",
    b"=",
    b"\x01",
    b"\x0b",
    "\u{a0}".as_bytes(),
    "\u{feff}".as_bytes(),
    b".",
    b",",
    b":",
];

/// How many of [`STRAY`] may follow a value or key.
const STRAY_AFTER: usize = 13;

/// Escapes RFC 8259 §7 does not allow, each with the scanner's verdict and
/// its offset from the backslash. What follows them in the string is never
/// read.
const BAD_ESCAPES: &[(&str, SyntaxKind, usize)] = &[
    ("\\x", SyntaxKind::InvalidEscape, 0),
    ("\\'", SyntaxKind::InvalidEscape, 0),
    ("\\U0041", SyntaxKind::InvalidEscape, 0),
    ("\\\u{1}", SyntaxKind::InvalidEscape, 0),
    ("\\é", SyntaxKind::InvalidEscape, 0),
    ("\\0", SyntaxKind::InvalidEscape, 0),
    ("\\u00G0", SyntaxKind::InvalidEscape, 4),
    ("\\u12\"", SyntaxKind::InvalidEscape, 4),
    ("\\u 041", SyntaxKind::InvalidEscape, 2),
    ("\\uDC00", SyntaxKind::LoneSurrogate, 0),
    ("\\uD800x", SyntaxKind::LoneSurrogate, 0),
    ("\\uD800\\u0041", SyntaxKind::LoneSurrogate, 0),
    ("\\uDBFF\\n", SyntaxKind::LoneSurrogate, 0),
    ("\\ud83d\\uD83D\\uDE00", SyntaxKind::LoneSurrogate, 0),
    ("\\uD83D\\uZ000", SyntaxKind::InvalidEscape, 8),
];

/// Malformed numbers and literals: the text, then the scanner's verdict and
/// its offset from the text's first byte; `None`: the token read ends
/// there and what follows is no separator. What follows the text is what
/// followed the value (whitespace, `,` or a close).
const BAD_SCALARS: &[(&str, Option<SyntaxKind>, usize)] = &[
    ("-", Some(SyntaxKind::InvalidNumber), 1),
    ("--1", Some(SyntaxKind::InvalidNumber), 1),
    ("-.5", Some(SyntaxKind::InvalidNumber), 1),
    ("1.", Some(SyntaxKind::InvalidNumber), 2),
    ("1.e5", Some(SyntaxKind::InvalidNumber), 2),
    ("1e", Some(SyntaxKind::InvalidNumber), 2),
    ("1E+", Some(SyntaxKind::InvalidNumber), 3),
    ("2e-x", Some(SyntaxKind::InvalidNumber), 3),
    ("1e400", Some(SyntaxKind::NumberOutOfRange), 0),
    ("-1E999", Some(SyntaxKind::NumberOutOfRange), 0),
    (".5", Some(SyntaxKind::ExpectedValue), 0),
    ("+1", Some(SyntaxKind::ExpectedValue), 0),
    ("Infinity", Some(SyntaxKind::ExpectedValue), 0),
    ("NaN", Some(SyntaxKind::ExpectedValue), 0),
    ("True", Some(SyntaxKind::ExpectedValue), 0),
    ("'a'", Some(SyntaxKind::ExpectedValue), 0),
    ("nan", Some(SyntaxKind::InvalidLiteral), 1),
    ("tru", Some(SyntaxKind::InvalidLiteral), 3),
    ("nul", Some(SyntaxKind::InvalidLiteral), 3),
    ("fals", Some(SyntaxKind::InvalidLiteral), 4),
    ("nill", Some(SyntaxKind::InvalidLiteral), 1),
    ("01", None, 1),
    ("00", None, 1),
    ("-01", None, 2),
    ("0x1F", None, 1),
    ("1_000", None, 1),
    ("1.5.2", None, 3),
    ("truex", None, 4),
    ("nulll", None, 4),
    ("0e", Some(SyntaxKind::InvalidNumber), 2),
    ("0.", Some(SyntaxKind::InvalidNumber), 2),
    ("-0.", Some(SyntaxKind::InvalidNumber), 3),
    ("0E+", Some(SyntaxKind::InvalidNumber), 3),
];

/// What the parser must answer.
#[derive(Debug)]
enum Expected {
    /// The request, with the exact text of its arguments.
    Call {
        id: Id,
        name: String,
        arguments: Map<String, Value>,
        arguments_text: String,
        meta: Option<Map<String, Value>>,
    },
    Error {
        error: RpcError,
        id: Option<Id>,
    },
}

// ---------------------------------------------------------------------------
// Rendering with offsets

#[derive(Default)]
struct Rendered {
    out: String,
    whitespace: Vec<u8>,
    next_ws: usize,
    /// (pointer, byte offset of the value's first byte), in writing order.
    values: Vec<(String, usize)>,
    /// (pointer of the member, byte offset of its key's opening quote).
    keys: Vec<(String, usize)>,
    /// Every key and value written, in writing order (a container after
    /// its contents).
    tokens: Vec<Token>,
    /// (offset of a `:`, offset of the value after it).
    colons: Vec<(usize, usize)>,
    /// (offset of a `,`, offset of the key or value after it, the container).
    commas: Vec<(usize, usize, Parent)>,
    /// Offsets of the `\uD800`..`\uDBFF` escapes written.
    highs: Vec<usize>,
    /// A change of the bytes: at `.0`, `.1` bytes of `out` replaced by `.2`
    /// (bytes that are not UTF-8, or a syntax mutation).
    edit: Option<(usize, usize, Vec<u8>)>,
}

/// What a token of the rendered text is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tok {
    Key,
    Str,
    /// A number or a literal.
    Scalar,
    Object,
    Array,
}

/// What a token is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Parent {
    Top,
    Object,
    Array,
}

/// A key or value the renderer wrote at `start..end` of `out`.
#[derive(Debug, Clone, Copy)]
struct Token {
    tok: Tok,
    start: usize,
    end: usize,
    parent: Parent,
}

impl Rendered {
    /// The document's bytes: `out` with the edit, if any.
    fn bytes(&self) -> Vec<u8> {
        let mut b = self.out.as_bytes().to_vec();
        if let Some((at, len, new)) = &self.edit {
            b.splice(*at..*at + *len, new.iter().copied());
        }
        b
    }

    fn ws(&mut self) {
        if self.whitespace.is_empty() {
            return;
        }
        let w = self.whitespace[self.next_ws % self.whitespace.len()];
        self.next_ws += 1;
        self.out.push_str(match w % 8 {
            0 => " ",
            1 => "\n",
            2 => "\t",
            3 => "\r\n",
            4 => "  ",
            _ => "",
        });
    }

    fn value(&mut self, j: &J, pointer: &str) {
        self.value_in(j, pointer, Parent::Top);
    }

    fn value_in(&mut self, j: &J, pointer: &str, parent: Parent) {
        let start = self.out.len();
        self.values.push((pointer.to_owned(), start));
        let tok = match j {
            J::Str(_) => Tok::Str,
            J::Arr(_) => Tok::Array,
            J::Obj(_) => Tok::Object,
            _ => Tok::Scalar,
        };
        match j {
            J::Null => self.out.push_str("null"),
            J::Bool(b) => self.out.push_str(if *b { "true" } else { "false" }),
            J::Int(i) => self.out.push_str(&i.to_string()),
            J::UInt(i) => self.out.push_str(&i.to_string()),
            // Debug: the shortest text that reads back as the same f64,
            // always with a `.` or an exponent (so it stays a float).
            J::Float(f) => self.out.push_str(&format!("{f:?}")),
            J::RawNum(t) => self.out.push_str(t),
            J::Str(s) => s.render_marked(&mut self.out, &mut self.highs),
            J::Arr(items) => {
                self.out.push('[');
                for (i, item) in items.iter().enumerate() {
                    let comma = self.out.len();
                    if i > 0 {
                        self.out.push(',');
                    }
                    self.ws();
                    if i > 0 {
                        self.commas.push((comma, self.out.len(), Parent::Array));
                    }
                    self.value_in(item, &format!("{pointer}/{i}"), Parent::Array);
                    self.ws();
                }
                self.out.push(']');
            }
            J::Obj(members) => {
                self.out.push('{');
                for (i, (k, v)) in members.iter().enumerate() {
                    let comma = self.out.len();
                    if i > 0 {
                        self.out.push(',');
                    }
                    self.ws();
                    if i > 0 {
                        self.commas.push((comma, self.out.len(), Parent::Object));
                    }
                    let p = format!("{pointer}/{}", token(&k.text));
                    let key_start = self.out.len();
                    self.keys.push((p.clone(), key_start));
                    k.render_marked(&mut self.out, &mut self.highs);
                    self.tokens.push(Token {
                        tok: Tok::Key,
                        start: key_start,
                        end: self.out.len(),
                        parent: Parent::Object,
                    });
                    self.ws();
                    let colon = self.out.len();
                    self.out.push(':');
                    self.ws();
                    self.colons.push((colon, self.out.len()));
                    self.value_in(v, &p, Parent::Object);
                    self.ws();
                }
                self.out.push('}');
            }
        }
        self.tokens.push(Token {
            tok,
            start,
            end: self.out.len(),
            parent,
        });
    }

    fn value_at(&self, pointer: &str) -> usize {
        self.values
            .iter()
            .rev()
            .find(|(p, _)| p == pointer)
            .map(|(_, o)| *o)
            .unwrap_or_else(|| panic!("model bug: nothing written at {pointer}"))
    }

    fn key_at(&self, pointer: &str) -> usize {
        self.keys
            .iter()
            .rev()
            .find(|(p, _)| p == pointer)
            .map(|(_, o)| *o)
            .unwrap_or_else(|| panic!("model bug: no key written at {pointer}"))
    }
}

/// Pointers (and depths: the object itself is at depth `d`) of every object
/// with at least one member, in document order.
fn object_sites(j: &J, pointer: &str, depth: usize, out: &mut Vec<(String, usize)>) {
    match j {
        J::Obj(members) => {
            if !members.is_empty() {
                out.push((pointer.to_owned(), depth));
            }
            for (k, v) in members {
                object_sites(v, &format!("{pointer}/{}", token(&k.text)), depth + 1, out);
            }
        }
        J::Arr(items) => {
            for (i, v) in items.iter().enumerate() {
                object_sites(v, &format!("{pointer}/{i}"), depth + 1, out);
            }
        }
        _ => {}
    }
}

/// The object at `pointer` (a pointer `object_sites` produced).
fn object_at_mut<'t>(root: &'t mut J, pointer: &str) -> &'t mut J {
    let mut cur = root;
    for tok in pointer.split('/').skip(1) {
        let key = tok.replace("~1", "/").replace("~0", "~");
        cur = match cur {
            J::Obj(m) => {
                &mut m
                    .iter_mut()
                    .find(|(k, _)| k.text == key)
                    .expect("model bug: pointer")
                    .1
            }
            J::Arr(items) => &mut items[key.parse::<usize>().expect("model bug: index")],
            _ => panic!("model bug: pointer through a scalar"),
        };
    }
    cur
}

impl CallModel {
    /// The valid request as a tree (top-level object).
    fn tree(&self) -> J {
        let key = |k: &str| JStr::spelled(k, self.key_spelling.clone());
        let mut params = vec![(key("name"), J::Str(self.name.clone()))];
        if let Some(a) = &self.arguments {
            params.push((key("arguments"), J::Obj(a.0.clone())));
        }
        if let Some(m) = &self.meta {
            params.push((key("_meta"), J::Obj(m.0.clone())));
        }
        params.extend(dedup(
            self.extra_params.0.clone(),
            &["name", "arguments", "_meta"],
        ));
        let mut top = vec![
            (
                key("jsonrpc"),
                J::Str(JStr::spelled("2.0", self.jsonrpc_spelling.clone())),
            ),
            (key("id"), self.id.tree()),
            (
                key("method"),
                J::Str(JStr::spelled(rpc::TOOLS_CALL, self.method_spelling.clone())),
            ),
            (key("params"), J::Obj(self.shuffled(params, 1))),
        ];
        top.extend(dedup(
            self.extra_top.0.clone(),
            &["jsonrpc", "id", "method", "params"],
        ));
        J::Obj(self.shuffled(top, 0))
    }

    fn shuffled(&self, members: Vec<(JStr, J)>, salt: usize) -> Vec<(JStr, J)> {
        if self.order.is_empty() {
            return members;
        }
        let mut keyed: Vec<_> = members
            .into_iter()
            .enumerate()
            .map(|(i, m)| (self.order[(i + salt * 7) % self.order.len()], i, m))
            .collect();
        keyed.sort_by_key(|(k, i, _)| (*k, *i));
        keyed.into_iter().map(|(_, _, m)| m).collect()
    }
}

/// Applies the mutation, renders, and states the answer.
fn render_and_expect(model: &CallModel) -> (Rendered, Expected) {
    let mut tree = model.tree();
    let id = model.id.id();
    let mut r = Rendered {
        whitespace: model.whitespace.clone(),
        ..Rendered::default()
    };
    // Errors whose offset is that of a value get it after rendering.
    let mut expected_id = Some(id.clone());
    let mut error: Option<RpcError> = None;
    let mut top_level: Option<(u8, Option<Wrong>)> = None;
    // Pointer of the container one level too deep.
    let mut deep: Option<String> = None;
    // (pointer of the second member, its key).
    let mut duplicate: Option<(String, String)> = None;

    let mutation = if model.syntax.is_some() {
        // Not JSON: no id to echo.
        expected_id = None;
        &Mutation::None
    } else {
        &model.mutation
    };
    match mutation {
        Mutation::None => {}
        Mutation::DuplicateKey {
            site,
            member,
            spelling,
            position,
        } => {
            let mut sites = Vec::new();
            object_sites(&tree, "", 1, &mut sites);
            let (site_ptr, _) = sites[usize::from(*site) % sites.len()].clone();
            let (pointer, key) =
                insert_twin(&mut tree, &site_ptr, *member, spelling, Some(*position));
            if site_ptr.is_empty() && key == "id" {
                expected_id = None;
            }
            duplicate = Some((pointer, key));
        }
        Mutation::ManyMembers {
            site,
            count,
            duplicate: twin,
        } => {
            let mut sites = Vec::new();
            object_sites(&tree, "", 1, &mut sites);
            let (site_ptr, _) = sites[usize::from(*site) % sites.len()].clone();
            let members = object_at_mut(&mut tree, &site_ptr)
                .members_mut()
                .expect("a site is an object");
            for i in 0..17 + usize::from(*count % 64) {
                // U+0002 keeps them apart from the keys of the POOL, but a
                // key the fuzzer spelled may be one of them: skip past it
                // (as the depth mutation does), or that member is the
                // first duplicate, not the twin below.
                let mut key = format!("\u{2}m{i}");
                while members.iter().any(|(k, _)| k.text == key) {
                    key.push('~');
                }
                members.push((JStr::plain(&key), J::Int(i as i64)));
            }
            if let Some((member, spelling)) = twin {
                // At the end, so the object has all its members first.
                let (pointer, key) = insert_twin(&mut tree, &site_ptr, *member, spelling, None);
                if site_ptr.is_empty() && key == "id" {
                    expected_id = None;
                }
                duplicate = Some((pointer, key));
            }
        }
        Mutation::NotUtf8 { .. } => {
            // Written into the rendered bytes below.
            expected_id = None;
        }
        Mutation::Deep {
            site,
            arrays,
            exact,
            beyond,
        } => {
            let mut sites = Vec::new();
            object_sites(&tree, "", 1, &mut sites);
            let (site_ptr, depth) = sites[usize::from(*site) % sites.len()].clone();
            let obj = object_at_mut(&mut tree, &site_ptr);
            let mut key = "\u{1}deep".to_owned();
            while obj.get(&key).is_some() {
                key.push('~');
            }
            // The object is at `depth`; n containers below it reach depth + n.
            let n = MAX_JSON_DEPTH + usize::from(!*exact) - depth;
            let mut v = if *arrays {
                J::Arr(vec![])
            } else {
                J::Obj(vec![])
            };
            if !*exact {
                // Below the first container past the limit: objects with
                // members, read for their grammar only.
                for i in 0..*beyond % 4 {
                    v = J::Obj(vec![
                        (JStr::plain("k"), J::Int(i.into())),
                        (JStr::plain("k"), v),
                    ]);
                }
            }
            for _ in 1..n {
                v = if *arrays {
                    J::Arr(vec![v])
                } else {
                    J::Obj(vec![(JStr::plain("d"), v)])
                };
            }
            obj.members_mut()
                .expect("a site is an object")
                .push((JStr::plain(&key), v));
            if !*exact {
                let mut p = format!("{site_ptr}/{}", token(&key));
                for _ in 1..n {
                    p.push_str(if *arrays { "/0" } else { "/d" });
                }
                deep = Some(p);
            }
        }
        Mutation::JsonrpcMissing => {
            tree.remove("jsonrpc");
            error = Some(EnvelopeError::InvalidJsonrpc { found: None }.into());
        }
        Mutation::JsonrpcWrongString(i) => {
            let s = JStr::spelled(
                BAD_JSONRPC[usize::from(*i) % BAD_JSONRPC.len()],
                model.jsonrpc_spelling.clone(),
            );
            let mut raw = String::new();
            s.render(&mut raw);
            tree.set("jsonrpc", J::Str(s));
            error = Some(
                EnvelopeError::InvalidJsonrpc {
                    found: Some(excerpt(&raw)),
                }
                .into(),
            );
        }
        Mutation::JsonrpcNotString(w) => {
            tree.set("jsonrpc", w.tree());
            // The excerpt is of the text as written: known after rendering.
            error = Some(
                EnvelopeError::InvalidJsonrpc {
                    found: Some(String::new()),
                }
                .into(),
            );
        }
        Mutation::IdMissing => {
            tree.remove("id");
            expected_id = None;
            error = Some(
                EnvelopeError::Notification {
                    method: rpc::TOOLS_CALL.to_owned(),
                }
                .into(),
            );
        }
        Mutation::IdInvalid(b) => {
            let (v, found) = b.tree_and_found();
            tree.set("id", v);
            expected_id = None;
            let found: &'static str = found;
            error = Some(EnvelopeError::InvalidId { found, offset: 0 }.into());
        }
        Mutation::MethodMissing => {
            tree.remove("method");
            error = Some(EnvelopeError::MissingMethod.into());
        }
        Mutation::MethodNotString(w) => {
            let w = match w {
                Wrong::String => Wrong::Null,
                w => *w,
            };
            tree.set("method", w.tree());
            error = Some(
                EnvelopeError::InvalidMethod {
                    found: w.tree().kind_name(),
                    offset: 0,
                }
                .into(),
            );
        }
        Mutation::MethodNearMiss(i) => {
            let m = NEAR_MISS[usize::from(*i) % NEAR_MISS.len()];
            tree.set(
                "method",
                J::Str(JStr::spelled(m, model.method_spelling.clone())),
            );
            error = Some(MethodError::NotToolsCall { method: excerpt(m) }.into());
        }
        Mutation::ParamsMissing => {
            tree.remove("params");
            error = Some(ParamsError::MissingParams.into());
        }
        Mutation::ParamsWrong(w) => {
            let w = not_object(*w);
            tree.set("params", w.tree());
            error = Some(
                ParamsError::ParamsNotObject {
                    found: w.tree().kind_name(),
                    offset: 0,
                }
                .into(),
            );
        }
        Mutation::NameMissing => {
            object_at_mut(&mut tree, "/params").remove("name");
            error = Some(ParamsError::MissingName.into());
        }
        Mutation::NameWrong(w) | Mutation::ArgumentsWrong(w) | Mutation::MetaWrong(w) => {
            type Make = fn(&'static str, usize) -> ParamsError;
            let (key, w, make): (&str, Wrong, Make) = match mutation {
                Mutation::NameWrong(_) => (
                    "name",
                    match w {
                        Wrong::String => Wrong::Object,
                        w => *w,
                    },
                    |found, offset| ParamsError::InvalidName { found, offset },
                ),
                Mutation::ArgumentsWrong(_) => ("arguments", not_object(*w), |found, offset| {
                    ParamsError::ArgumentsNotObject { found, offset }
                }),
                _ => ("_meta", not_object(*w), |found, offset| {
                    ParamsError::MetaNotObject { found, offset }
                }),
            };
            object_at_mut(&mut tree, "/params").set(key, w.tree());
            error = Some(make(w.tree().kind_name(), 0).into());
        }
        Mutation::TopLevel { copies, scalar } => {
            top_level = Some((*copies % 4, scalar.map(not_container)));
            expected_id = None;
        }
    }

    // Render.
    match top_level {
        None => r.value(&tree, ""),
        Some((_, Some(w))) => {
            let v = w.tree();
            r.value(&v, "");
            error = Some(
                EnvelopeError::NotAnObject {
                    found: v.kind_name(),
                }
                .into(),
            );
        }
        Some((copies, None)) => {
            let v = J::Arr(vec![tree.clone(); usize::from(copies)]);
            r.value(&v, "");
            error = Some(if copies == 0 {
                EnvelopeError::EmptyBatch.into()
            } else {
                EnvelopeError::Batch {
                    len: usize::from(copies),
                }
                .into()
            });
        }
    }

    if let Some(syntax) = &model.syntax {
        error = Some(RpcError::Json(apply_syntax(&mut r, syntax)));
    }
    if let Mutation::NotUtf8 { site, bytes } = mutation {
        // Every string, key or value, in document order.
        let mut strings: Vec<usize> = r
            .values
            .iter()
            .map(|(_, o)| *o)
            .chain(r.keys.iter().map(|(_, o)| *o))
            .filter(|o| r.out.as_bytes()[*o] == b'"')
            .collect();
        strings.sort_unstable();
        let at = strings[usize::from(*site) % strings.len()] + 1;
        r.edit = Some((
            at,
            0,
            NOT_UTF8[usize::from(*bytes) % NOT_UTF8.len()].to_vec(),
        ));
        error = Some(RpcError::Json(JsonError::InvalidUtf8 { offset: at }));
    }

    // Offsets now known.
    if let Some(e) = &mut error {
        let fill = |e: &mut RpcError, r: &Rendered| match e {
            RpcError::Envelope(EnvelopeError::InvalidId { offset, .. }) => {
                *offset = r.value_at("/id")
            }
            RpcError::Envelope(EnvelopeError::InvalidMethod { offset, .. }) => {
                *offset = r.value_at("/method")
            }
            RpcError::Params(ParamsError::ParamsNotObject { offset, .. }) => {
                *offset = r.value_at("/params")
            }
            RpcError::Params(ParamsError::InvalidName { offset, .. }) => {
                *offset = r.value_at("/params/name")
            }
            RpcError::Params(ParamsError::ArgumentsNotObject { offset, .. }) => {
                *offset = r.value_at("/params/arguments")
            }
            RpcError::Params(ParamsError::MetaNotObject { offset, .. }) => {
                *offset = r.value_at("/params/_meta")
            }
            RpcError::Envelope(EnvelopeError::InvalidJsonrpc { found: Some(f) })
                if f.is_empty() =>
            {
                let start = r.value_at("/jsonrpc");
                *f = excerpt(value_text(&r.out, start));
            }
            _ => {}
        };
        fill(e, &r);
    }
    if let Some((pointer, key)) = duplicate {
        error = Some(RpcError::Json(JsonError::DuplicateKey(
            crate::json::DuplicateKey {
                key,
                offset: r.key_at(&pointer),
                pointer,
            },
        )));
    }
    if let Some(pointer) = deep {
        error = Some(RpcError::Json(JsonError::TooDeep {
            limit: MAX_JSON_DEPTH,
            offset: r.value_at(&pointer),
            pointer,
        }));
    }

    let expected = match error {
        Some(error) => Expected::Error {
            error,
            id: expected_id,
        },
        None => {
            let params = tree.get("params").expect("params");
            let (arguments, arguments_text) = match params.get("arguments") {
                Some(a) => (
                    object_map(a.members()),
                    span_of_container(&r.out, r.value_at("/params/arguments")).to_owned(),
                ),
                None => (Map::new(), "{}".to_owned()),
            };
            Expected::Call {
                id,
                name: match params.get("name") {
                    Some(J::Str(s)) => s.text.clone(),
                    other => panic!("model bug: name {other:?}"),
                },
                arguments,
                arguments_text,
                meta: params.get("_meta").map(|m| object_map(m.members())),
            }
        }
    };
    (r, expected)
}

/// The token chosen by `site` among those `keep` selects.
fn pick(r: &Rendered, site: u8, keep: impl Fn(&Token) -> bool) -> Token {
    let sites: Vec<Token> = r.tokens.iter().copied().filter(|t| keep(t)).collect();
    sites[usize::from(site) % sites.len()]
}

/// The error where `,` or the close of `parent` (or the end, at the top
/// level) was expected and another byte stands at `at`.
fn not_a_separator(parent: Parent, at: usize) -> JsonError {
    let kind = match parent {
        Parent::Top => SyntaxKind::TrailingCharacters,
        Parent::Object => SyntaxKind::ExpectedCommaOrBrace,
        Parent::Array => SyntaxKind::ExpectedCommaOrBracket,
    };
    JsonError::Syntax { kind, offset: at }
}

fn syntax_at(kind: SyntaxKind, offset: usize) -> JsonError {
    JsonError::Syntax { kind, offset }
}

/// Applies the syntax mutation to the rendered valid request (as
/// `r.edit`) and returns the error the strict layer must report.
fn apply_syntax(r: &mut Rendered, syntax: &Syntax) -> JsonError {
    let site = syntax.site;
    let stray = |i: u8, n: usize| STRAY[usize::from(i) % n].to_vec();
    let (edit, error) = match syntax.change {
        SyntaxChange::Truncate { at } => {
            let t = pick(r, site, |_| true);
            let cut = if t.end - t.start >= 2 {
                t.start + 1 + usize::from(at) % (t.end - t.start - 1)
            } else {
                t.start
            };
            let error = if !r.out.is_char_boundary(cut) {
                let mut first = cut;
                while !r.out.is_char_boundary(first) {
                    first -= 1;
                }
                JsonError::InvalidUtf8 { offset: first }
            } else if let Some(h) = r.highs.iter().find(|h| cut == **h + 6 || cut == **h + 7) {
                // `\uD83D` or `\uD83D\` at the end: no low half follows.
                syntax_at(SyntaxKind::LoneSurrogate, *h)
            } else {
                syntax_at(SyntaxKind::UnexpectedEnd, cut)
            };
            ((cut, r.out.len() - cut, vec![]), error)
        }
        SyntaxChange::StrayValue(i) => {
            let t = pick(r, site, |t| t.tok != Tok::Key);
            let b = stray(i, STRAY.len());
            let error = match b[0] {
                0xef if t.start == 0 => JsonError::ByteOrderMark,
                b'/' => syntax_at(SyntaxKind::Comment, t.start),
                // No value starts with `r`, `u` or `a`.
                b't' | b'n' | b'f' => syntax_at(SyntaxKind::InvalidLiteral, t.start + 1),
                _ => syntax_at(SyntaxKind::ExpectedValue, t.start),
            };
            ((t.start, 0, b), error)
        }
        SyntaxChange::StrayKey(i) => {
            let t = pick(r, site, |t| t.tok == Tok::Key);
            let b = stray(i, STRAY.len());
            let kind = if b[0] == b'/' {
                SyntaxKind::Comment
            } else {
                SyntaxKind::ExpectedKey
            };
            ((t.start, 0, b), syntax_at(kind, t.start))
        }
        SyntaxChange::StrayAfter(i) => {
            let t = pick(r, site, |_| true);
            let b = stray(i, STRAY_AFTER);
            let error = match (t.tok, t.parent, b[0]) {
                // `colon` has no case for a comment.
                (Tok::Key, _, _) => syntax_at(SyntaxKind::ExpectedColon, t.end),
                (_, Parent::Object | Parent::Array, b'/') => syntax_at(SyntaxKind::Comment, t.end),
                (_, parent, _) => not_a_separator(parent, t.end),
            };
            ((t.end, 0, b), error)
        }
        SyntaxChange::NoColon { removed } => {
            let (colon, value) = r.colons[usize::from(site) % r.colons.len()];
            if removed {
                (
                    (colon, 1, vec![]),
                    syntax_at(SyntaxKind::ExpectedColon, value - 1),
                )
            } else {
                (
                    (colon, 1, b"=".to_vec()),
                    syntax_at(SyntaxKind::ExpectedColon, colon),
                )
            }
        }
        SyntaxChange::NoComma => {
            let (comma, next, parent) = r.commas[usize::from(site) % r.commas.len()];
            // A space, not nothing: `1,2` without its comma is one number.
            // The next key's quote or value's first byte is the error.
            ((comma, 1, b" ".to_vec()), not_a_separator(parent, next))
        }
        SyntaxChange::TrailingComma => {
            let t = pick(r, site, |t| matches!(t.tok, Tok::Object | Tok::Array));
            let close = t.end - 1;
            // After `{` or `[` the comma itself is where a key or value was
            // expected; after a member or element, the close behind it.
            let at = if t.end - t.start == 2 { close } else { t.end };
            let kind = if t.tok == Tok::Object {
                SyntaxKind::ExpectedKey
            } else {
                SyntaxKind::ExpectedValue
            };
            ((close, 0, b",".to_vec()), syntax_at(kind, at))
        }
        SyntaxChange::BadEscape(i) => {
            let t = pick(r, site, |t| matches!(t.tok, Tok::Key | Tok::Str));
            let (text, kind, rel) = BAD_ESCAPES[usize::from(i) % BAD_ESCAPES.len()];
            let at = t.start + 1;
            ((at, 0, text.as_bytes().to_vec()), syntax_at(kind, at + rel))
        }
        SyntaxChange::RawControl(c) => {
            let t = pick(r, site, |t| matches!(t.tok, Tok::Key | Tok::Str));
            let at = t.start + 1;
            (
                (at, 0, vec![c % 0x20]),
                syntax_at(SyntaxKind::ControlCharacterInString, at),
            )
        }
        SyntaxChange::BadScalar(i) => {
            let t = pick(r, site, |t| t.tok != Tok::Key && t.parent != Parent::Top);
            let (text, kind, rel) = BAD_SCALARS[usize::from(i) % BAD_SCALARS.len()];
            let at = t.start + rel;
            let error = match kind {
                Some(kind) => syntax_at(kind, at),
                None => not_a_separator(t.parent, at),
            };
            ((t.start, t.end - t.start, text.as_bytes().to_vec()), error)
        }
        SyntaxChange::Blank(k) => {
            let blank = ["", " ", "\r\n\t ", "\n"][usize::from(k) % 4];
            let error = if blank.is_empty() {
                JsonError::Empty
            } else {
                JsonError::WhitespaceOnly { len: blank.len() }
            };
            ((0, r.out.len(), blank.as_bytes().to_vec()), error)
        }
    };
    r.edit = Some(edit);
    error
}

/// Inserts, after the `member`-th member of the object at `site_ptr`, a
/// twin of that member's key (spelled by `spelling`) at a later position
/// chosen by `position` (`None`: last); returns the twin's pointer and key.
fn insert_twin(
    tree: &mut J,
    site_ptr: &str,
    member: u8,
    spelling: &[u8],
    position: Option<u8>,
) -> (String, String) {
    let members = object_at_mut(tree, site_ptr)
        .members_mut()
        .expect("a site is an object");
    let i = usize::from(member) % members.len();
    let (k, _) = members[i].clone();
    let twin = k.respelled(spelling.to_vec());
    let at_pos = match position {
        Some(p) => i + 1 + usize::from(p) % (members.len() - i),
        None => members.len(),
    };
    members.insert(at_pos, (twin, J::Int(0)));
    (format!("{site_ptr}/{}", token(&k.text)), k.text)
}

fn not_container(w: Wrong) -> Wrong {
    match w {
        Wrong::Object | Wrong::Array => Wrong::Null,
        w => w,
    }
}

fn not_object(w: Wrong) -> Wrong {
    match w {
        Wrong::Object => Wrong::Array,
        w => w,
    }
}

fn excerpt(s: &str) -> String {
    if s.len() <= MAX_ERROR_EXCERPT {
        return s.to_owned();
    }
    let mut end = MAX_ERROR_EXCERPT;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &s[..end])
}

/// The string starting at `start`.
fn string_span(text: &str, start: usize) -> &str {
    let b = text.as_bytes();
    let mut i = start + 1;
    while b[i] != b'"' {
        i += if b[i] == b'\\' { 2 } else { 1 };
    }
    &text[start..=i]
}

/// The text of the value starting at `start` in a document the model wrote
/// (a string's or container's end found by reading its brackets and quotes,
/// a literal's or number's at the first delimiter).
fn value_text(text: &str, start: usize) -> &str {
    match text.as_bytes()[start] {
        b'{' | b'[' | b'"' => span_of_container(text, start),
        _ => {
            let rest = &text[start..];
            let end = rest
                .find([',', '}', ']', ' ', '\t', '\r', '\n'])
                .unwrap_or(rest.len());
            &rest[..end]
        }
    }
}

/// The text of the object, array or string starting at `start` in a
/// document the model wrote (brackets inside strings skipped).
fn span_of_container(text: &str, start: usize) -> &str {
    let b = text.as_bytes();
    let (mut depth, mut in_str, mut esc) = (0usize, false, false);
    for (i, &c) in b.iter().enumerate().skip(start) {
        if in_str {
            match (esc, c) {
                (true, _) => esc = false,
                (false, b'\\') => esc = true,
                (false, b'"') => in_str = false,
                _ => {}
            }
            continue;
        }
        match c {
            b'"' if i == start => return string_span(text, start),
            b'"' => in_str = true,
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                depth -= 1;
                if depth == 0 {
                    return &text[start..=i];
                }
            }
            _ => {}
        }
    }
    panic!("model bug: unclosed container at {start}")
}

fn check_model(model: &CallModel) {
    let (r, expected) = render_and_expect(model);
    let bytes = &r.bytes()[..];
    let got = rpc::parse_tool_call(bytes);
    match (&expected, &got) {
        (
            Expected::Call {
                id,
                name,
                arguments,
                arguments_text,
                meta,
            },
            Ok(req),
        ) => {
            assert_eq!(&req.id, id, "id of {:?}", r.out);
            assert_eq!(&req.name, name, "name of {:?}", r.out);
            assert_eq!(&req.arguments(), arguments, "arguments of {:?}", r.out);
            assert_eq!(req.arguments_json(), arguments_text, "arguments text");
            assert_eq!(&req.meta, meta, "_meta of {:?}", r.out);
            // The general parser reads the same call from the same scan.
            match crate::rpc::parse_message(bytes, &crate::json::Limits::default()) {
                Ok(Message::Request(m)) => {
                    assert_eq!(m.method, rpc::TOOLS_CALL);
                    assert_eq!(m.tool_call(), Some(Ok(req.clone())));
                }
                other => panic!("parse_message disagrees on {:?}: {other:?}", r.out),
            }
        }
        (Expected::Error { error, id }, Err(rej)) => {
            assert_eq!(&rej.error, error, "error for {:?}", r.out);
            assert_eq!(rej.error.code(), error.code());
            assert_eq!(rej.error.jsonrpc_code(), error.jsonrpc_code());
            assert_eq!(rej.error.pointer(), error.pointer());
            assert_eq!(rej.error.offset(), error.offset());
            assert_eq!(&rej.id, id, "echoed id for {:?} ({error})", r.out);
            if let RpcError::Json(JsonError::Syntax { kind, offset }) = error {
                // The response a client reads: -32700, `"id": null`, the
                // offset in `data` and the kind in the message.
                let resp = rej.to_response();
                assert_eq!(resp["id"], Value::Null);
                assert_eq!(resp["error"]["code"], -32700);
                assert_eq!(resp["error"]["data"]["kind"], error.code());
                assert_eq!(resp["error"]["data"]["offset"], *offset);
                let message = resp["error"]["message"].as_str().unwrap_or_default();
                assert!(message.contains(kind.describe()), "{message}");
            }
        }
        _ => panic!(
            "for {:?} (mutation {:?}, syntax {:?}: {:?}) the model expects {expected:?}, the parser says {got:?}",
            r.out, model.mutation, model.syntax, String::from_utf8_lossy(bytes)
        ),
    }
    // The byte-level harness's invariants hold on the same bytes.
    super::rpc::parse_tool_call(bytes);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn base(mutation: Mutation) -> CallModel {
        let members = |k: &str, v: J| Members(vec![(JStr::spelled(k, vec![0, 1]), v)]);
        CallModel {
            id: IdModel::Str(JStr::spelled("r\"1", vec![1, 0])),
            jsonrpc_spelling: vec![0, 3],
            method_spelling: vec![0, 2],
            key_spelling: vec![0, 1],
            name: JStr::plain("extract"),
            arguments: Some(members(
                "a/b",
                J::Obj(vec![(
                    JStr::plain("n"),
                    J::Arr(vec![J::Float(0.1), J::Null]),
                )]),
            )),
            meta: Some(members("progressToken", J::Int(7))),
            extra_top: members("x", J::Bool(true)),
            extra_params: Members(vec![]),
            order: vec![3, 1, 2, 0],
            whitespace: vec![0, 5, 1],
            mutation,
            syntax: None,
        }
    }

    /// Every syntax mutation kind, at every site of the fixed model (the
    /// sites cycle), with the tool name spelled three ways: plain, `é`
    /// escaped and `😀` raw (four bytes to cut inside), `é` raw and `😀`
    /// as an escaped surrogate pair (to cut after its first half).
    #[test]
    fn every_syntax_mutation_has_its_exact_answer() {
        let mut changes = vec![SyntaxChange::NoComma, SyntaxChange::TrailingComma];
        for removed in [false, true] {
            changes.push(SyntaxChange::NoColon { removed });
        }
        for at in 0..24 {
            changes.push(SyntaxChange::Truncate { at });
        }
        for i in 0..STRAY.len() as u8 {
            changes.push(SyntaxChange::StrayValue(i));
            changes.push(SyntaxChange::StrayKey(i));
            changes.push(SyntaxChange::StrayAfter(i));
        }
        for i in 0..BAD_ESCAPES.len() as u8 {
            changes.push(SyntaxChange::BadEscape(i));
        }
        for c in [0, 1, 9, 10, 13, 31] {
            changes.push(SyntaxChange::RawControl(c));
        }
        for i in 0..BAD_SCALARS.len() as u8 {
            changes.push(SyntaxChange::BadScalar(i));
        }
        for k in 0..4 {
            changes.push(SyntaxChange::Blank(k));
        }
        // The fourth: no whitespace at all, numbers side by side.
        let variants = [
            (JStr::plain("extract"), None),
            (JStr::spelled("é😀x", vec![1, 0]), None),
            (JStr::spelled("é😀x", vec![0, 1]), None),
            (JStr::plain("e"), Some(vec![5])),
        ];
        let numbers = J::Arr(vec![J::Int(1), J::Int(-2), J::Float(1.5), J::UInt(3)]);
        for (name, whitespace) in variants {
            let make = |mutation| {
                let mut m = base(mutation);
                m.name = name.clone();
                if let Some(w) = &whitespace {
                    m.whitespace = w.clone();
                    m.arguments = Some(Members(vec![(JStr::plain("n"), numbers.clone())]));
                }
                m
            };
            let tokens = render_and_expect(&make(Mutation::None)).0.tokens.len();
            for site in 0..tokens + 2 {
                for change in &changes {
                    // The tree's mutation is not applied with a syntax one.
                    let mut m = make(Mutation::DuplicateKey {
                        site: 0,
                        member: 0,
                        spelling: vec![],
                        position: 0,
                    });
                    m.syntax = Some(Syntax {
                        site: site as u8,
                        change: *change,
                    });
                    check_model(&m);
                }
            }
        }
    }

    /// A cut inside a character is invalid UTF-8 at its first byte; a cut
    /// after the first half of an escaped pair is a lone surrogate.
    #[test]
    fn cuts_inside_characters_and_pairs() {
        for (spelling, want) in [(vec![1, 0], "invalid_utf8"), (vec![0, 1], "invalid_json")] {
            let mut m = base(Mutation::None);
            m.name = JStr::spelled("é😀x", spelling);
            let (r, _) = render_and_expect(&m);
            let start = r.value_at("/params/name");
            let name = r.tokens.iter().position(|t| t.start == start).unwrap();
            let found = (0..16).any(|at| {
                m.syntax = Some(Syntax {
                    site: name as u8,
                    change: SyntaxChange::Truncate { at },
                });
                let (_, e) = render_and_expect(&m);
                check_model(&m);
                matches!(e, Expected::Error { error, .. } if error.code() == want
                    && (want != "invalid_json" || matches!(error, RpcError::Json(JsonError::Syntax { kind: SyntaxKind::LoneSurrogate, .. }))))
            });
            assert!(found, "{want}");
        }
    }

    /// Every kind of mutation, at every site, against the parser.
    #[test]
    fn every_mutation_has_its_exact_answer() {
        let w = [
            Wrong::Null,
            Wrong::Bool(true),
            Wrong::Number(-3),
            Wrong::String,
            Wrong::Array,
            Wrong::Object,
        ];
        let mut all = vec![
            Mutation::None,
            Mutation::JsonrpcMissing,
            Mutation::IdMissing,
            Mutation::MethodMissing,
            Mutation::ParamsMissing,
            Mutation::NameMissing,
        ];
        for site in 0..6 {
            for member in 0..4 {
                all.push(Mutation::DuplicateKey {
                    site,
                    member,
                    spelling: vec![member, 1],
                    position: site,
                });
            }
            for (arrays, exact) in [(true, true), (true, false), (false, true), (false, false)] {
                for beyond in 0..4 {
                    all.push(Mutation::Deep {
                        site,
                        arrays,
                        exact,
                        beyond,
                    });
                }
            }
            for count in [0, 1, 63] {
                all.push(Mutation::ManyMembers {
                    site,
                    count,
                    duplicate: None,
                });
                for member in [0, 5, 200] {
                    all.push(Mutation::ManyMembers {
                        site,
                        count,
                        duplicate: Some((member, vec![site, 1])),
                    });
                }
            }
        }
        for i in 0..16 {
            all.push(Mutation::JsonrpcWrongString(i));
            all.push(Mutation::MethodNearMiss(i));
        }
        for b in [
            BadId::Null,
            BadId::Bool(false),
            BadId::Fraction,
            BadId::Exponent,
            BadId::UpperExponent,
            BadId::NegativeZero,
            BadId::NegativeZeroFraction,
            BadId::TooLarge,
            BadId::TooSmall,
            BadId::Array,
            BadId::Object,
        ] {
            all.push(Mutation::IdInvalid(b));
        }
        for w in w {
            all.push(Mutation::JsonrpcNotString(w));
            all.push(Mutation::MethodNotString(w));
            all.push(Mutation::ParamsWrong(w));
            all.push(Mutation::NameWrong(w));
            all.push(Mutation::ArgumentsWrong(w));
            all.push(Mutation::MetaWrong(w));
            all.push(Mutation::TopLevel {
                copies: 0,
                scalar: Some(w),
            });
        }
        for copies in 0..4 {
            all.push(Mutation::TopLevel {
                copies,
                scalar: None,
            });
        }
        for site in 0..24 {
            for bytes in 0..NOT_UTF8.len() as u8 {
                all.push(Mutation::NotUtf8 { site, bytes });
            }
        }
        for m in all {
            check_model(&base(m));
        }
    }

    /// The escaped twin of a key is a duplicate, at the offset of its quote.
    #[test]
    fn escaped_twin_is_reported_where_the_model_wrote_it() {
        let m = base(Mutation::DuplicateKey {
            site: 0,
            member: 0,
            spelling: vec![1],
            position: 0,
        });
        let (r, expected) = render_and_expect(&m);
        assert!(r.out.contains("\\u00"), "{}", r.out);
        match expected {
            Expected::Error {
                error: RpcError::Json(JsonError::DuplicateKey(d)),
                ..
            } => assert_eq!(&r.out[d.offset..d.offset + 2], "\"\\"),
            other => panic!("{other:?}"),
        }
        check_model(&m);
    }
}
