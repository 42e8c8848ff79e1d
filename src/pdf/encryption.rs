//! The trailer's `/Encrypt` dictionary (ISO 32000-1 §7.6): finding it
//! (indirect or direct), telling a malformed Standard-handler dictionary apart
//! from a real one, naming the handler, and describing a decrypted document.

use lopdf::{Dictionary, Document, Object};
use serde::{Deserialize, Serialize};

use super::error::PdfError;
use super::filewalk;
use super::message::quote_name;
use super::object::resolve;

/// How the document is encrypted (ISO 32000-1 §7.6).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Encryption {
    /// The security handler (`/Filter`), e.g. `Standard`.
    pub handler: String,
    /// `/V`, the algorithm version.
    pub version: i64,
    /// `/R`, the Standard handler's revision.
    pub revision: i64,
    /// `RC4`, `AES` (128-bit), `AES-256`: poppler's names, when known.
    pub algorithm: Option<String>,
    /// Key length in bits, when the document could be decrypted.
    pub key_bits: Option<u32>,
}

/// The `/Encrypt` dictionary named by the trailer, whether it is an indirect
/// object (the usual form) or written directly in the trailer.
pub fn encrypt_dict(doc: &Document) -> Option<&Dictionary> {
    let obj = doc.trailer.get(b"Encrypt").ok()?;
    resolve(doc, obj).ok()?.as_dict().ok()
}

/// Why a Standard security handler dictionary cannot describe any real
/// encryption, or `None` when it is well formed (or not the Standard handler).
///
/// The entries the handler needs are `/V`, `/R`, `/P` (integers) and `/O`,
/// `/U` (strings, at least 1 byte for revisions up to 4; at least 48 bytes,
/// with 32-byte `/OE` and `/UE`, for revisions 5 and 6: §7.6.3.2, ISO 32000-2
/// §7.6.4.4). Poppler reads a document whose dictionary breaks these rules as
/// unencrypted (its `StandardSecurityHandler` is then not "ok"), and so do
/// we, with a warning. A well-formed dictionary with an unknown revision is
/// not "malformed": that stays `unsupported_encryption`.
pub fn standard_dict_fault(dict: &Dictionary) -> Option<String> {
    let name = dict.get(b"Filter").and_then(Object::as_name).ok();
    if name != Some(b"Standard".as_slice()) {
        return None;
    }
    let int = |k: &[u8]| match dict.get(k) {
        Ok(Object::Integer(i)) => Some(*i),
        _ => None,
    };
    let len = |k: &[u8]| match dict.get(k) {
        Ok(Object::String(s, _)) => Some(s.len()),
        _ => None,
    };
    let (Some(_v), Some(r), Some(_p), Some(o), Some(u)) =
        (int(b"V"), int(b"R"), int(b"P"), len(b"O"), len(b"U"))
    else {
        return Some("/V, /R, /P must be integers and /O, /U strings".into());
    };
    match r {
        ..=4 if o == 0 || u == 0 => Some(format!("revision {r} with an empty /O or /U")),
        5 | 6 if o < 48 || u < 48 || len(b"OE") != Some(32) || len(b"UE") != Some(32) => Some(
            format!("revision {r} needs /O and /U of 48 bytes and /OE, /UE of 32 (found /O {o}, /U {u})"),
        ),
        _ => None,
    }
}

/// Rewrites every `/Encrypt` key of `data` (trailers and cross-reference
/// stream dictionaries) to a name of the same length that no reader knows, so
/// that the file loads as unencrypted with all byte offsets unchanged.
/// `/EncryptMetadata` and other longer names are left alone.
pub fn without_encrypt_key(data: &[u8]) -> Vec<u8> {
    const KEY: &[u8] = b"/Encrypt";
    const REPLACEMENT: &[u8] = b"/NoCrypt";
    let mut out = data.to_vec();
    let mut at = 0;
    while let Some(found) = out
        .get(at..)
        .and_then(|rest| rest.windows(KEY.len()).position(|w| w == KEY))
    {
        let start = at.saturating_add(found);
        let end = start.saturating_add(KEY.len());
        // A name ends at whitespace or a delimiter (§7.2.2).
        let ends_name = out
            .get(end)
            .is_none_or(|&b| b.is_ascii_whitespace() || b"()<>[]{}/%".contains(&b));
        if ends_name {
            if let Some(slot) = out.get_mut(start..end) {
                slot.copy_from_slice(REPLACEMENT);
            }
        }
        at = end;
    }
    out
}

/// `true` when `data` holds the name `/Encrypt` anywhere, in any spelling
/// (`#xx` escapes decoded: `/Encr#79pt`), not a longer name such as
/// `/EncryptMetadata`: the file may name an encryption dictionary, whether
/// or not a trailer that names it could be read. Deliberately blind to
/// the file's structure (a mention in a string or a stream counts too):
/// refusing such a plain file is the price of never reading an encrypted
/// one's ciphertext as text when its trailer cannot be found.
pub fn names_encrypt(data: &[u8]) -> bool {
    const KEY: &[u8] = b"Encrypt";
    let is_delimiter = |b: u8| b.is_ascii_whitespace() || b"()<>[]{}/%".contains(&b) || b == 0;
    let mut i = 0;
    while let Some(at) = data
        .get(i..)
        .and_then(|rest| rest.iter().position(|&b| b == b'/'))
    {
        let mut j = i + at + 1;
        let mut matched = 0usize;
        let mut same = true;
        while let Some(&b) = data.get(j) {
            if is_delimiter(b) {
                break;
            }
            let (byte, len) = match (b, data.get(j + 1..j + 3)) {
                (b'#', Some(&[h, l])) if h.is_ascii_hexdigit() && l.is_ascii_hexdigit() => {
                    let hex = |c: u8| (c as char).to_digit(16).unwrap_or(0) as u8;
                    (hex(h) << 4 | hex(l), 3)
                }
                _ => (b, 1),
            };
            same = same && KEY.get(matched) == Some(&byte);
            matched += 1;
            j += len;
        }
        if same && matched == KEY.len() {
            return true;
        }
        i = j.max(i + at + 1);
    }
    false
}

/// Most bytes of an `/Encrypt` dictionary lopdf could not parse that
/// [`unreadable_handler`] reads (and of each object its `/Filter`, `/V`,
/// `/R`, or the trailer's `/Encrypt`, refers to): entries past them are not
/// seen.
pub const MAX_ENCRYPT_SCAN_BYTES: usize = 16 << 10;

pub use super::filewalk::MAX_FILE_WALK_BYTES;

/// `true` when a trailer dictionary of `data` (the one after a `trailer`
/// keyword, or a cross-reference stream's) has an `/Encrypt` key (its
/// name may be written with `#xx` escapes): the file is encrypted, whether
/// or not lopdf could read that trailer. A mention of `/Encrypt` in a
/// string, a comment, a stream's data or another object does not count.
/// Past the first [`MAX_FILE_WALK_BYTES`] of `data`, any `/Encrypt` name
/// ([`names_encrypt`]) counts.
pub fn trailer_names_encrypt(data: &[u8]) -> bool {
    let (found, whole) = filewalk::last_encrypting_trailer(data);
    found.is_some()
        || (!whole && names_encrypt(data.get(MAX_FILE_WALK_BYTES..).unwrap_or_default()))
}

/// `data` with every integer outside 64 bits in its trailer dictionaries
/// (not in an `/Encrypt` entry) written as a real of the same length, as
/// poppler reads it (`/Foo 99999999999999999999` becomes `/Foo
/// 9999999999999999999.`; lopdf cannot read the trailer otherwise). `None`
/// when no trailer holds one.
pub fn with_trailer_integers_as_reals(data: &[u8]) -> Option<Vec<u8>> {
    filewalk::with_trailer_integers_as_reals(data)
}

/// The tokens of `data` up to [`MAX_ENCRYPT_SCAN_BYTES`] (PDF's token
/// rules, as the content-stream lexer reads them).
fn tokens(data: &[u8]) -> Vec<&[u8]> {
    let data = data
        .get(..data.len().min(MAX_ENCRYPT_SCAN_BYTES))
        .unwrap_or(data);
    let mut cursor = super::text::lex::Cursor::new(data);
    // Each token is at least one byte: at most `data.len()` of them.
    std::iter::from_fn(|| cursor.token())
        .filter_map(|(start, end)| data.get(start..end))
        .collect()
}

/// `N G R` at the start of `tokens`: the object it names.
fn reference_at(tokens: &[&[u8]]) -> Option<(u32, u16)> {
    let text = |i: usize| tokens.get(i).and_then(|t| std::str::from_utf8(t).ok());
    let n = text(0)?.parse::<u32>().ok()?;
    let g = text(1)?.parse::<u16>().ok()?;
    (text(2)? == "R").then_some((n, g))
}

/// Where the value starting at `tokens[start]` ends (the index past it): a
/// nested array or dictionary whole, `N G R`, or one token.
fn value_end(tokens: &[&[u8]], start: usize) -> usize {
    let rest = tokens.get(start..).unwrap_or_default();
    match rest.first() {
        None => start,
        Some(&t) if t == b">>" || t == b"]" => start,
        Some(&t) if t == b"<<" || t == b"[" => {
            let mut depth = 0usize;
            for (i, &t) in rest.iter().enumerate() {
                if t == b"<<" || t == b"[" {
                    depth = depth.saturating_add(1);
                } else if t == b">>" || t == b"]" {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        return start.saturating_add(i).saturating_add(1);
                    }
                }
            }
            tokens.len()
        }
        Some(_) if reference_at(rest).is_some() => start.saturating_add(3),
        Some(_) => start.saturating_add(1),
    }
}

/// A dictionary entry: its key (`#xx` decoded) and its value's tokens.
type Entry<'a, 't> = (Vec<u8>, &'t [&'a [u8]]);

/// The top-level entries of the dictionary whose `<<` opens `tokens`: each
/// key (`#xx` decoded) with its value's tokens; and whether its `>>` was
/// among `tokens` (else it was cut off, by the end of the data or by
/// [`MAX_ENCRYPT_SCAN_BYTES`]).
fn entries<'a, 't>(tokens: &'t [&'a [u8]]) -> (Vec<Entry<'a, 't>>, bool) {
    let mut out = Vec::new();
    if tokens.first() != Some(&b"<<".as_slice()) {
        return (out, false);
    }
    let mut i = 1usize;
    // `i` grows every round: at most `tokens.len()` rounds.
    while let Some(&t) = tokens.get(i) {
        if t == b">>" {
            return (out, true);
        }
        let start = i.saturating_add(1);
        let Some(key) = filewalk::name(t) else {
            i = start;
            continue;
        };
        let end = value_end(tokens, start);
        out.push((key, tokens.get(start..end).unwrap_or_default()));
        i = end.max(start);
    }
    (out, false)
}

/// The handler of the `/Encrypt` dictionary lopdf could not read, named from
/// the file's bytes as poppler reads them, with the entry that stopped lopdf:
/// `/Standard V1 R2 (/P: an integer outside 64 bits)`, or the trailer's own
/// entry when the dictionary holds none: `/Standard V2 R3 (the trailer's
/// /Foo: an integer outside 64 bits)`. The dictionary is the one the
/// `/Encrypt` key of the last trailer of `data` that has one names
/// (trailers and objects found by a walk that passes over comments, strings
/// and stream data; see [`trailer_names_encrypt`]): written in place, or
/// the object `N G R` it refers to (its last definition). `/Filter`, `/V`
/// and `/R` given by reference are looked up once. At most
/// [`MAX_ENCRYPT_SCAN_BYTES`] of each are read; a `/Filter` not among them
/// is `unknown`. `None` when no dictionary is found. Only the dictionary is
/// read, never the data it encrypts.
pub fn unreadable_handler(data: &[u8]) -> Option<String> {
    let (trailer, _) = filewalk::last_encrypting_trailer(data);
    let trailer = trailer?;
    let after = data.get(trailer.encrypt?..)?;
    let mut dict = tokens(after);
    if let Some(id) = reference_at(&dict) {
        dict = tokens(filewalk::object_body(data, id)?);
    }
    if dict.first() != Some(&b"<<".as_slice()) {
        return None;
    }
    let (found, closed) = entries(&dict);
    // An entry's value, looked up once when given by reference.
    let value = |key: &[u8]| -> Option<Vec<u8>> {
        let (_, v) = found.iter().find(|(k, _)| k == key)?;
        match reference_at(v) {
            Some(id) => tokens(filewalk::object_body(data, id)?)
                .first()
                .map(|t| t.to_vec()),
            None => v.first().map(|t| t.to_vec()),
        }
    };
    let filter = match value(b"Filter").and_then(|f| filewalk::name(&f)) {
        Some(name) => format!("/{}", quote_name(&name)),
        None if closed => "/(none)".into(),
        None => "unknown".into(),
    };
    let int = |key: &[u8]| {
        value(key)
            .and_then(|v| String::from_utf8(v).ok())
            .and_then(|v| v.parse::<i64>().ok())
            .map_or("?".into(), |v| v.to_string())
    };
    let in_dict = found
        .iter()
        .find(|(_, v)| v.iter().any(|t| filewalk::wide_integer(t)))
        .map(|(k, v)| {
            let key = quote_name(k);
            if v.len() == 1 {
                format!("/{key}: an integer outside 64 bits")
            } else {
                format!("/{key}: holds an integer outside 64 bits")
            }
        });
    let in_trailer = || {
        trailer.wide_key.as_ref().map(|k| {
            format!(
                "the trailer's /{}: an integer outside 64 bits",
                quote_name(k)
            )
        })
    };
    let why = in_dict
        .or_else(in_trailer)
        .unwrap_or_else(|| "the dictionary could not be read".into());
    Some(format!("{filter} V{} R{} ({why})", int(b"V"), int(b"R")))
}

/// `data` with an incremental update appended that moves a valid `/Encrypt`
/// dictionary written directly in the trailer into an object of its own:
/// lopdf decrypts only through an indirect one. The update holds that one
/// object, a one-entry cross-reference section and a copy of the trailer
/// pointing at it (`/Prev` at the last section), so no offset moves. `None`
/// when the dictionary is not direct or the last section is unknown.
pub fn with_indirect_encrypt(data: &[u8], doc: &Document) -> Option<Vec<u8>> {
    let Ok(Object::Dictionary(dict)) = doc.trailer.get(b"Encrypt") else {
        return None;
    };
    with_encrypt_object(data, doc, dict.clone())
}

/// How poppler reads a Standard-handler dictionary's numbers, when that
/// differs from what lopdf reads in the file.
#[derive(Debug, Clone, PartialEq)]
pub enum PopplerReading {
    /// lopdf reads the dictionary as poppler does.
    AsWritten,
    /// The dictionary as poppler reads it: entries given as indirect
    /// objects written directly, and the RC4 key length written as the
    /// `/Length` poppler uses.
    Patched(Dictionary),
    /// Poppler would use an RC4 key of `bits` (0 to 32) bits, which lopdf
    /// cannot: the handler, described for the error.
    ShortKey {
        /// `/Standard V.. R.. (...)`.
        handler: String,
    },
    /// A crypt filter the document uses (`/StmF`, `/StrF`) names a crypt
    /// method (`/CFM`) other than `/None`, `/V2`, `/AESV2` and `/AESV3`:
    /// poppler refuses it, and lopdf would read the data as not encrypted
    /// (a silently empty page). The handler, described for the error.
    UnknownMethod {
        /// `/Standard V.. R.. (crypt method /...)`.
        handler: String,
    },
}

/// The crypt methods of ISO 32000-2 §7.6.5 Table 25.
const CRYPT_METHODS: [&[u8]; 4] = [b"None", b"V2", b"AESV2", b"AESV3"];

/// The first crypt method (`/CFM`) of a crypt filter `dict` uses for
/// streams or strings (`/StmF`, `/StrF`; `/Identity` and absent ones use
/// none) that is not one of [`CRYPT_METHODS`]. Entries are read as
/// written (references already looked up).
fn unknown_crypt_method(dict: &Dictionary) -> Option<Vec<u8>> {
    let filters = dict.get(b"CF").ok()?.as_dict().ok()?;
    for key in [b"StmF".as_slice(), b"StrF"] {
        let Some(name) = dict.get(key).ok().and_then(|o| o.as_name().ok()) else {
            continue;
        };
        if name == b"Identity" {
            continue;
        }
        let method = filters
            .get(name)
            .ok()
            .and_then(|f| f.as_dict().ok())
            .and_then(|f| f.get(b"CFM").ok())
            .and_then(|m| m.as_name().ok());
        if let Some(m) = method {
            if !CRYPT_METHODS.contains(&m) {
                return Some(m.to_vec());
            }
        }
    }
    None
}

/// Deepest nesting of arrays and dictionaries copied out of an `/Encrypt`
/// dictionary's references (`/CF` → `/StdCF` → `/CFM` is 3).
pub const MAX_ENCRYPT_DEPTH: usize = 8;

/// Most objects copied out of an `/Encrypt` dictionary's references.
pub const MAX_ENCRYPT_OBJECTS: usize = 4096;

/// `true` when `obj` holds a reference, at most [`MAX_ENCRYPT_DEPTH`] deep.
fn holds_reference(obj: &Object, depth: usize) -> bool {
    match obj {
        Object::Reference(_) => true,
        _ if depth >= MAX_ENCRYPT_DEPTH => false,
        Object::Array(a) => a.iter().any(|o| holds_reference(o, depth + 1)),
        Object::Dictionary(d) => d.iter().any(|(_, o)| holds_reference(o, depth + 1)),
        _ => false,
    }
}

/// `true` when an entry of `dict` (at any depth) is a reference.
pub fn has_references(dict: &Dictionary) -> bool {
    dict.iter().any(|(_, o)| holds_reference(o, 0))
}

/// The trailer's `/ID` with its references looked up, when it holds any
/// (poppler looks up an `/ID` given as an indirect array; lopdf reads it
/// as absent, and the RC4 and AES-128 file keys hash its first string):
/// `None` when it holds none.
pub fn id_inlined(trailer: &Dictionary, doc: &Document) -> Option<Object> {
    let id = trailer.get(b"ID").ok()?;
    holds_reference(id, 0).then(|| inlined(id, doc, 0, &mut MAX_ENCRYPT_OBJECTS.clone()))
}

/// `obj` with every reference replaced by the object it names, as poppler
/// looks them up (a missing object, or one past [`MAX_ENCRYPT_DEPTH`] or
/// [`MAX_ENCRYPT_OBJECTS`], is `null`).
fn inlined(obj: &Object, doc: &Document, depth: usize, left: &mut usize) -> Object {
    if *left == 0 || depth > MAX_ENCRYPT_DEPTH {
        return Object::Null;
    }
    *left -= 1;
    match obj {
        Object::Reference(_) => match resolve(doc, obj) {
            Ok(o) => inlined(o, doc, depth + 1, left),
            Err(_) => Object::Null,
        },
        Object::Array(a) => {
            Object::Array(a.iter().map(|o| inlined(o, doc, depth + 1, left)).collect())
        }
        Object::Dictionary(d) => {
            let mut out = Dictionary::new();
            for (k, o) in d.iter() {
                out.set(k.clone(), inlined(o, doc, depth + 1, left));
            }
            Object::Dictionary(out)
        }
        other => other.clone(),
    }
}

/// The dictionary `dict` as poppler reads it (ISO 32000-1 §7.6.3.2 Table 21
/// allows `/Length` 40 to 128 bits, multiples of 8; poppler is lenient):
/// every entry given by reference (`/V`, `/R`, `/P`, `/Length`, `/O`,
/// `/U`, `/CF` and the crypt filters inside it, `/StmF`, `/EncryptMetadata`,
/// ...) is looked up and written directly; for the RC4 versions (`/V` 1 or 2, `/R` 2 to 4)
/// the file key is 5 bytes when `/R` is 2 or `/Length` is not a 32-bit
/// integer (a real, a name, or an integer poppler's lexer cannot hold as
/// one), else `/Length / 8` bytes, 16 when that is negative or over 16,
/// whatever `/V` says (a V1 dictionary with a longer key is read as V2,
/// the same algorithm).
/// A key of 0 to 4 bytes is [`PopplerReading::ShortKey`]. Other handlers
/// and versions only get their numbers looked up.
///
/// `doc` is where references are looked up: lopdf loads no object but the
/// dictionary of a file it could not decrypt, so pass a load of the same
/// bytes without encryption (integers are never encrypted) when
/// [`has_references`] says so.
pub fn poppler_reading(dict: &Dictionary, doc: &Document) -> PopplerReading {
    let mut left = MAX_ENCRYPT_OBJECTS;
    // The handler's name may itself be given by reference.
    let filter = dict.get(b"Filter").map(|o| inlined(o, doc, 0, &mut left));
    if filter.as_ref().ok().and_then(|f| f.as_name().ok()) != Some(b"Standard".as_slice()) {
        return PopplerReading::AsWritten;
    }
    let mut fixed = dict.clone();
    let mut changed = false;
    for (key, o) in dict.iter() {
        if holds_reference(o, 0) {
            fixed.set(key.clone(), inlined(o, doc, 0, &mut left));
            changed = true;
        }
    }
    changed |= lenient_entries(&mut fixed);
    let int = |k: &[u8]| fixed.get(k).ok().and_then(|o| o.as_i64().ok());
    let (v, r) = (int(b"V"), int(b"R"));
    if matches!(v, Some(4 | 5)) {
        if let Some(method) = unknown_crypt_method(&fixed) {
            return PopplerReading::UnknownMethod {
                handler: format!(
                    "/Standard V{} R{} (crypt method /{}, which this reader does not know)",
                    v.unwrap_or(0),
                    r.map_or("?".into(), |r| r.to_string()),
                    quote_name(&method)
                ),
            };
        }
    }
    if matches!(v, Some(1 | 2)) && matches!(r, Some(2..=4)) {
        let length = fixed.get(b"Length").ok().cloned();
        let bytes = match (r, &length) {
            (Some(2), _) | (_, None) => 5,
            (_, Some(Object::Integer(bits))) if i32::try_from(*bits).is_ok() => bits / 8,
            (_, Some(_)) => 5,
        };
        let bytes = if (0..=16).contains(&bytes) { bytes } else { 16 };
        let bits = bytes * 8;
        if bytes < 5 {
            let written = length.as_ref().and_then(|l| l.as_i64().ok()).unwrap_or(0);
            return PopplerReading::ShortKey {
                handler: format!(
                    "/Standard V{} R{} (/Length {written}: a {bits}-bit RC4 key, under the 40 bits this reader opens)",
                    v.unwrap_or(0),
                    r.unwrap_or(0)
                ),
            };
        }
        let as_read = match &length {
            Some(Object::Integer(b)) => *b == bits,
            None => bits == 40,
            Some(_) => false,
        };
        if !as_read {
            fixed.set("Length", bits);
            changed = true;
        }
        if v == Some(1) && bits != 40 {
            // V1 and V2 are the same RC4 algorithm; poppler keys it by
            // `/R` and `/Length` alone, lopdf holds V1 to 40 bits.
            fixed.set("V", 2);
            changed = true;
        }
    }
    if changed {
        PopplerReading::Patched(fixed)
    } else {
        PopplerReading::AsWritten
    }
}

/// The entries of a Standard-handler dictionary that lopdf holds to the
/// letter and poppler reads leniently, rewritten as poppler reads them;
/// `true` when one was:
/// * `/EncryptMetadata` that is not a boolean is absent (`true`);
/// * `/V 5` with a revision up to 4 is `/V 4`, `/V 4` with revision 5 or
///   6 is `/V 5` (poppler keys the algorithms by `/R` and the crypt
///   filters, and only reads `/V` to know there are crypt filters);
/// * with `/V 4` or `/V 5` the key length is the crypt filter's (128 or
///   256 bits), whatever `/Length` says;
/// * for revisions up to 4, `/O` and `/U` are 32 bytes: longer ones cut,
///   shorter ones padded with zeros (an empty one is a malformed
///   dictionary: [`standard_dict_fault`]).
fn lenient_entries(dict: &mut Dictionary) -> bool {
    let mut changed = false;
    if dict
        .get(b"EncryptMetadata")
        .is_ok_and(|o| !matches!(o, Object::Boolean(_)))
    {
        dict.remove(b"EncryptMetadata");
        changed = true;
    }
    let int = |d: &Dictionary, k: &[u8]| d.get(k).ok().and_then(|o| o.as_i64().ok());
    let r = int(dict, b"R");
    let v = match (int(dict, b"V"), r) {
        (Some(5), Some(2..=4)) => Some(4),
        (Some(4), Some(5 | 6)) => Some(5),
        (v, _) => v,
    };
    if v != int(dict, b"V") {
        dict.set("V", v.unwrap_or_default());
        changed = true;
    }
    let bits = match v {
        Some(4) => Some(128),
        Some(5) => Some(256),
        _ => None,
    };
    if let Some(bits) = bits {
        if dict.has(b"Length") && int(dict, b"Length") != Some(bits) {
            dict.set("Length", bits);
            changed = true;
        }
    }
    if matches!(r, Some(2..=4)) {
        for key in [b"O".as_slice(), b"U"] {
            if let Ok(Object::String(s, format)) = dict.get(key) {
                if !s.is_empty() && s.len() != 32 {
                    let mut s = s.clone();
                    s.resize(32, 0);
                    let format = *format;
                    dict.set(key, Object::String(s, format));
                    changed = true;
                }
            }
        }
    }
    changed
}

/// `data` with an incremental update appended whose trailer's `/Encrypt`
/// names a new object holding `dict` (see [`with_indirect_encrypt`]). The
/// file key does not depend on the dictionary's object number, so moving it
/// changes nothing else.
pub fn with_encrypt_object(data: &[u8], doc: &Document, dict: Dictionary) -> Option<Vec<u8>> {
    if doc.xref_start == 0 || doc.xref_recovery.is_some() {
        return None;
    }
    // lopdf's offsets count from the `%PDF-` header.
    let header = data.windows(5).position(|w| w == b"%PDF-")?;
    let num = doc.max_id.checked_add(1)?;
    let mut out = data.to_vec();
    out.extend_from_slice(b"\n");
    let object_at = out.len().checked_sub(header)?;
    out.extend_from_slice(format!("{num} 0 obj\n").as_bytes());
    lopdf::Writer::write_object(&mut out, &Object::Dictionary(dict)).ok()?;
    out.extend_from_slice(b"\nendobj\n");
    let xref_at = out.len().checked_sub(header)?;
    let mut trailer = doc.trailer.clone();
    trailer.set("Encrypt", Object::Reference((num, 0)));
    trailer.set("Prev", i64::try_from(doc.xref_start).ok()?);
    trailer.set("Size", i64::from(num) + 1);
    trailer.remove(b"XRefStm");
    out.extend_from_slice(format!("xref\n{num} 1\n{object_at:010} 00000 n \ntrailer\n").as_bytes());
    lopdf::Writer::write_object(&mut out, &Object::Dictionary(trailer)).ok()?;
    out.extend_from_slice(format!("\nstartxref\n{xref_at}\n%%EOF\n").as_bytes());
    Some(out)
}

/// `unsupported_encryption` for a file whose `/Encrypt` dictionary lopdf
/// could not read, naming the handler ([`unreadable_handler`]) or, when
/// its bytes are not found either, the trailer's `encrypt` entry.
pub fn unreadable_encryption(data: &[u8], encrypt: Option<&Object>) -> PdfError {
    if let Some(handler) = unreadable_handler(data) {
        return PdfError::unsupported_encryption(handler);
    }
    let at = match encrypt {
        Some(Object::Reference((n, g))) => format!(" (object {n} {g})"),
        _ => String::new(),
    };
    PdfError::unsupported_encryption(format!(
        "unknown: the /Encrypt dictionary{at} could not be read"
    ))
}

/// The error for a document lopdf left encrypted; `data` is the file.
pub fn undecryptable(data: &[u8], doc: &Document, password_given: bool) -> PdfError {
    let Some(dict) = encrypt_dict(doc) else {
        // Damaged past lopdf's reading (an integer over 64 bits, for one):
        // the handler named from the dictionary's bytes.
        return unreadable_encryption(data, doc.trailer.get(b"Encrypt").ok());
    };
    let dict = Some(dict);
    let filter = dict
        .and_then(|d| d.get(b"Filter").ok())
        .and_then(|o| o.as_name().ok())
        .map(quote_name)
        .unwrap_or_else(|| "(none)".into());
    let num = |key: &[u8]| {
        dict.and_then(|d| d.get(key).ok())
            .and_then(|o| o.as_i64().ok())
    };
    let handler = format!(
        "/{filter} V{} R{}",
        num(b"V").map_or("?".into(), |v| v.to_string()),
        num(b"R").map_or("?".into(), |v| v.to_string())
    );
    if filter != "Standard" {
        return PdfError::unsupported_encryption(handler);
    }
    // The Standard handler's published versions and revisions (ISO 32000-2
    // §7.6.2 Table 20, §7.6.4.2 Table 21; poppler accepts the same). Any
    // other pair cannot be opened with any password, so asking for one
    // would send the agent to the user for nothing.
    let known = matches!(num(b"V"), Some(1 | 2 | 4 | 5)) && matches!(num(b"R"), Some(2..=6));
    if !known {
        return PdfError::unsupported_encryption(handler);
    }
    if doc
        .trailer
        .get(b"Encrypt")
        .is_ok_and(|e| !matches!(e, Object::Reference(_)))
    {
        // lopdf decrypts only through an indirect /Encrypt dictionary.
        return PdfError::unsupported_encryption(format!(
            "{handler} (written directly in the trailer)"
        ));
    }
    match doc.authenticate_password("") {
        Err(lopdf::Error::UnsupportedSecurityHandler(_))
        | Err(lopdf::Error::Decryption(
            lopdf::encryption::DecryptionError::UnsupportedEncryption
            | lopdf::encryption::DecryptionError::UnsupportedVersion
            | lopdf::encryption::DecryptionError::UnsupportedRevision
            | lopdf::encryption::DecryptionError::InvalidVersion
            | lopdf::encryption::DecryptionError::InvalidRevision,
        )) => PdfError::unsupported_encryption(handler),
        _ => PdfError::PasswordRequired {
            incorrect: password_given,
        },
    }
}

/// Describes a decrypted document's encryption from lopdf's state (lopdf
/// removes `/Encrypt` from the trailer once it has decrypted).
pub fn describe_state(state: &lopdf::EncryptionState) -> Encryption {
    let v = state.version();
    let method = state
        .crypt_filters()
        .get(state.default_stream_filter())
        .map(|f| f.method().to_vec());
    let algorithm = match (v, method.as_deref()) {
        (5, _) | (_, Some(b"AESV3")) => Some("AES-256"),
        (_, Some(b"AESV2")) => Some("AES"),
        (1..=4, _) => Some("RC4"),
        _ => None,
    };
    Encryption {
        handler: "Standard".into(),
        version: v,
        revision: state.revision(),
        algorithm: algorithm.map(str::to_owned),
        key_bits: u32::try_from(state.file_encryption_key().len())
            .ok()
            .and_then(|n| n.checked_mul(8))
            .filter(|&n| n > 0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lopdf::dictionary;

    #[test]
    fn malformed_standard_dicts() {
        let ok = dictionary! {"Filter" => "Standard", "V" => 2, "R" => 3, "P" => -4,
        "O" => Object::string_literal(vec![1; 32]), "U" => Object::string_literal(vec![1; 32])};
        assert_eq!(standard_dict_fault(&ok), None);
        let mut empty_o = ok.clone();
        empty_o.set("O", Object::string_literal(Vec::new()));
        assert!(standard_dict_fault(&empty_o).is_some());
        let mut r6 = ok.clone();
        r6.set("R", 6);
        assert!(standard_dict_fault(&r6).is_some());
        let mut no_p = ok.clone();
        no_p.remove(b"P");
        assert!(standard_dict_fault(&no_p).is_some());
        let mut future = ok.clone();
        future.set("R", 9);
        assert_eq!(standard_dict_fault(&future), None);
        let other = dictionary! {"Filter" => "FooSecurity"};
        assert_eq!(standard_dict_fault(&other), None);
    }

    #[test]
    fn rc4_key_length_as_poppler_reads_it() {
        let doc = Document::with_version("1.7");
        let reading = |d: &Dictionary| poppler_reading(d, &doc);
        let bits = |r: i64, length: Option<Object>| {
            let mut d = dictionary! {"Filter" => "Standard", "V" => 2, "R" => r, "P" => -4};
            if let Some(l) = length {
                d.set("Length", l);
            }
            match reading(&d) {
                PopplerReading::AsWritten => None,
                PopplerReading::Patched(f) => Some(f.get(b"Length").unwrap().as_i64().unwrap()),
                PopplerReading::ShortKey { handler } => {
                    assert!(
                        handler.starts_with(&format!("/Standard V2 R{r} (/Length ")),
                        "{handler}"
                    );
                    Some(-1)
                }
                PopplerReading::UnknownMethod { handler } => panic!("{handler}"),
            }
        };
        assert_eq!(bits(2, Some(4096.into())), Some(40));
        assert_eq!(bits(2, Some(128.into())), Some(40));
        assert_eq!(bits(2, Some(8.into())), Some(40));
        assert_eq!(bits(2, Some(40.into())), None);
        assert_eq!(bits(3, Some(4096.into())), Some(128));
        assert_eq!(bits(3, Some((-128).into())), Some(128));
        assert_eq!(bits(3, Some((-1).into())), Some(-1), "-1 / 8 is 0 bytes");
        assert_eq!(bits(3, Some(999_999_999.into())), Some(128));
        assert_eq!(bits(3, Some(60.into())), Some(56));
        assert_eq!(bits(3, Some(40.into())), None);
        assert_eq!(bits(3, Some(39.into())), Some(-1));
        assert_eq!(bits(3, Some(8.into())), Some(-1));
        assert_eq!(bits(3, Some(7.into())), Some(-1));
        assert_eq!(bits(3, Some(0.into())), Some(-1));
        assert_eq!(bits(3, Some(128.into())), None);
        assert_eq!(bits(3, Some(136.into())), Some(128));
        // Integers poppler's lexer does not hold as 32-bit integers: 5 bytes.
        assert_eq!(bits(3, Some(2_147_483_647.into())), Some(128));
        assert_eq!(bits(3, Some(2_147_483_648_i64.into())), Some(40));
        assert_eq!(bits(3, Some((-2_147_483_649_i64).into())), Some(40));
        assert_eq!(bits(3, Some(i64::MAX.into())), Some(40));
        assert_eq!(bits(3, Some(Object::Real(12.5))), Some(40));
        assert_eq!(bits(3, Some(Object::Name(b"No".to_vec()))), Some(40));
        assert_eq!(bits(3, None), None);
        // V4 and V5: the crypt filter's key length, whatever /Length says;
        // /V read from /R; a non-boolean /EncryptMetadata is absent.
        let v4 = dictionary! {"Filter" => "Standard", "V" => 4, "R" => 4, "Length" => 4096};
        let want = dictionary! {"Filter" => "Standard", "V" => 4, "R" => 4, "Length" => 128};
        assert_eq!(reading(&v4), PopplerReading::Patched(want));
        let v4 = dictionary! {"Filter" => "Standard", "V" => 4, "R" => 4};
        assert_eq!(reading(&v4), PopplerReading::AsWritten);
        let v4 = dictionary! {"Filter" => "Standard", "V" => 4, "R" => 6, "Length" => 128,
        "EncryptMetadata" => "false"};
        let want = dictionary! {"Filter" => "Standard", "V" => 5, "R" => 6, "Length" => 256};
        assert_eq!(reading(&v4), PopplerReading::Patched(want));
        let v5 =
            dictionary! {"Filter" => "Standard", "V" => 5, "R" => 4, "EncryptMetadata" => false};
        let want =
            dictionary! {"Filter" => "Standard", "V" => 4, "R" => 4, "EncryptMetadata" => false};
        assert_eq!(reading(&v5), PopplerReading::Patched(want));
        for (v, r) in [(5, 5), (5, 6), (4, 4), (5, 1), (4, 7)] {
            let d = dictionary! {"Filter" => "Standard", "V" => v, "R" => r};
            assert_eq!(reading(&d), PopplerReading::AsWritten, "V{v} R{r}");
        }
        // R2 to R4: /O and /U of 32 bytes, cut or padded with zeros.
        let o = |n: usize| Object::String(vec![7; n], lopdf::StringFormat::Hexadecimal);
        let mut padded = vec![7; 16];
        padded.resize(32, 0);
        let padded = Object::String(padded, lopdf::StringFormat::Hexadecimal);
        let d = dictionary! {"Filter" => "Standard", "V" => 2, "R" => 3, "Length" => 40, "O" => o(40), "U" => o(16)};
        let want = dictionary! {"Filter" => "Standard", "V" => 2, "R" => 3, "Length" => 40, "O" => o(32), "U" => padded};
        assert_eq!(reading(&d), PopplerReading::Patched(want));
        for r in [3, 5] {
            let d = dictionary! {"Filter" => "Standard", "V" => 2, "R" => r, "Length" => 40, "O" => o(if r == 3 { 32 } else { 48 }), "U" => o(0)};
            assert_eq!(reading(&d), PopplerReading::AsWritten, "R{r}");
        }
        // V1 with R3: the key poppler computes, as V2.
        let v1 = dictionary! {"Filter" => "Standard", "V" => 1, "R" => 3, "Length" => 128};
        let want = dictionary! {"Filter" => "Standard", "V" => 2, "R" => 3, "Length" => 128};
        assert_eq!(reading(&v1), PopplerReading::Patched(want));
        let v1 = dictionary! {"Filter" => "Standard", "V" => 1, "R" => 3, "Length" => 40};
        assert_eq!(reading(&v1), PopplerReading::AsWritten);
        let v1 = dictionary! {"Filter" => "Standard", "V" => 1, "R" => 2, "Length" => 128};
        let want = dictionary! {"Filter" => "Standard", "V" => 1, "R" => 2, "Length" => 40};
        assert_eq!(reading(&v1), PopplerReading::Patched(want));
        let other = dictionary! {"Filter" => "Other", "V" => 2, "R" => 3, "Length" => 4096};
        assert_eq!(reading(&other), PopplerReading::AsWritten);
    }

    #[test]
    fn indirect_numbers_are_looked_up() {
        let mut doc = Document::with_version("1.7");
        doc.objects.insert((7, 0), Object::Integer(128));
        doc.objects.insert((8, 0), Object::Integer(3));
        doc.objects.insert((9, 0), Object::Integer(4096));
        let d = dictionary! {"Filter" => "Standard", "V" => 2, "R" => Object::Reference((8, 0)),
        "P" => -4, "Length" => Object::Reference((7, 0))};
        let want =
            dictionary! {"Filter" => "Standard", "V" => 2, "R" => 3, "P" => -4, "Length" => 128};
        assert_eq!(
            poppler_reading(&d, &doc),
            PopplerReading::Patched(want.clone())
        );
        assert_eq!(poppler_reading(&want, &doc), PopplerReading::AsWritten);
        // Looked up, then clamped.
        let mut big = d.clone();
        big.set("Length", Object::Reference((9, 0)));
        assert_eq!(poppler_reading(&big, &doc), PopplerReading::Patched(want));
        // A missing object is null to poppler: not an integer, 5 bytes.
        let mut missing = d.clone();
        missing.set("Length", Object::Reference((70, 0)));
        let PopplerReading::Patched(p) = poppler_reading(&missing, &doc) else {
            panic!("R is still looked up");
        };
        assert_eq!(p.get(b"Length").unwrap(), &Object::Integer(40));
        // Crypt filters, strings and flags by reference, at any depth; a
        // reference cycle ends at the depth bound.
        doc.objects.insert((20, 0), Object::Name(b"AESV2".to_vec()));
        doc.objects.insert(
            (21, 0),
            dictionary! {"CFM" => Object::Reference((20, 0)), "Length" => 16}.into(),
        );
        doc.objects
            .insert((22, 0), Object::string_literal(vec![7; 32]));
        doc.objects
            .insert((23, 0), Object::Array(vec![Object::Reference((23, 0))]));
        let aes = dictionary! {"Filter" => "Standard", "V" => 4, "R" => 4, "P" => -4,
        "O" => Object::Reference((22, 0)), "U" => Object::Reference((22, 0)),
        "CF" => dictionary! {"StdCF" => Object::Reference((21, 0))},
        "StmF" => "StdCF", "X" => Object::Reference((23, 0))};
        assert!(has_references(&aes));
        let PopplerReading::Patched(p) = poppler_reading(&aes, &doc) else {
            panic!("looked up");
        };
        assert!(!has_references(&p), "{p:?}");
        assert_eq!(p.get(b"O").unwrap(), &Object::string_literal(vec![7; 32]));
        let cf = p.get(b"CF").unwrap().as_dict().unwrap();
        let std_cf = cf.get(b"StdCF").unwrap().as_dict().unwrap();
        assert_eq!(
            std_cf.get(b"CFM").unwrap(),
            &Object::Name(b"AESV2".to_vec())
        );
        // Other versions: only the lookup.
        let v4 = dictionary! {"Filter" => "Standard", "V" => 4, "R" => Object::Reference((8, 0))};
        let PopplerReading::Patched(p) = poppler_reading(&v4, &doc) else {
            panic!("looked up");
        };
        assert_eq!(p.get(b"R").unwrap(), &Object::Integer(3));
    }

    #[test]
    fn an_unreadable_dictionary_is_named_from_its_bytes() {
        assert!(filewalk::wide_integer(b"9223372036854775808"));
        assert!(filewalk::wide_integer(b"-99999999999999999999"));
        assert!(filewalk::wide_integer(b"+99999999999999999999"));
        assert!(!filewalk::wide_integer(b"9223372036854775807"));
        assert!(!filewalk::wide_integer(b"-9223372036854775808"));
        assert!(!filewalk::wide_integer(b"99999999999999999999.5"));
        assert!(!filewalk::wide_integer(b"-"));
        let name = |data: &[u8]| unreadable_handler(data);
        assert_eq!(name(b"trailer << /Size 3 >>"), None);
        assert_eq!(name(b"trailer << /Encrypt 9 0 R >>"), None, "no object 9");
        assert_eq!(name(b"trailer << /Encrypt /Standard >>"), None);
        // The last /Encrypt key of the file is the newest trailer's.
        let data = b"9 0 obj << /Filter /Old >> endobj\n\
            trailer << /Encrypt 9 0 R >>\n\
            10 0 obj /Hidden endobj 9 0 obj\r<</Filter 10 0 R/V 2/R(x)\
            /Nested [1 << /Deep 99999999999999999999 >>] /P 3>>endobj\n\
            trailer << /Encrypt 9 0 R /Prev 1 >>";
        assert_eq!(
            name(data).as_deref(),
            Some("/Hidden V2 R? (/Nested: holds an integer outside 64 bits)")
        );
        // No wide integer: the dictionary is named all the same.
        assert_eq!(
            name(b"trailer << /Encrypt << /Filter /Standard /V 1 /R 2 /O ( >>").as_deref(),
            Some("/Standard V1 R2 (the dictionary could not be read)")
        );
        assert_eq!(
            name(b"trailer<</Encrypt<</V 99999999999999999999>>>>").as_deref(),
            Some("/(none) V? R? (/V: an integer outside 64 bits)")
        );
        // Only a trailer's /Encrypt key counts, and only objects outside
        // strings, comments and stream data: the decoys are passed over.
        let decoy = "<< /Filter /Decoy /V 9 /R 9 /P 99999999999999999999 >>";
        let real = "9 0 obj << /Filter /Standard /V 2 /R 3 /P 99999999999999999999 >> endobj\n\
            trailer << /Encrypt 9 0 R >>\n";
        for tail in [
            format!("% /Encrypt {decoy}\n"),
            format!("trailer (/Encrypt {decoy})\n"),
            format!(
                "10 0 obj << /Length 80 >>\nstream\n9 0 obj {decoy} endobj\nendstream\nendobj\n"
            ),
            format!("10 0 obj << /Length 5 0 R >>\nstream\n9 0 obj {decoy}\nendstream\nendobj\n"),
            format!("10 0 obj << /Encrypt {decoy} >> endobj\n"),
        ] {
            assert_eq!(
                name(format!("{real}{tail}").as_bytes()).as_deref(),
                Some("/Standard V2 R3 (/P: an integer outside 64 bits)"),
                "{tail}"
            );
        }
        assert_eq!(
            name(b"1 0 obj (trailer << /Encrypt << /V 1 >> >>) endobj"),
            None
        );
        // A cross-reference stream's dictionary is a trailer.
        assert_eq!(
            name(b"5 0 obj << /Type /XRef /Encrypt << /Filter /X /P 99999999999999999999 >> >> endobj")
                .as_deref(),
            Some("/X V? R? (/P: an integer outside 64 bits)")
        );
        // Names with `#xx` escapes are read as the names they stand for.
        assert_eq!(
            name(b"trailer << /Encr#79pt << /#46ilter /#53tandard /V 2 /R 3 /#50 99999999999999999999 >> >>")
                .as_deref(),
            Some("/Standard V2 R3 (/P: an integer outside 64 bits)")
        );
        // A readable dictionary: the trailer's own entry is named.
        assert_eq!(
            name(b"trailer << /Encrypt << /Filter /Standard /V 2 /R 3 >> /Foo 99999999999999999999 >>")
                .as_deref(),
            Some("/Standard V2 R3 (the trailer's /Foo: an integer outside 64 bits)")
        );
        // The scan stops at its bound.
        let mut long = b"trailer << /Encrypt << /Filter /Standard ".to_vec();
        long.resize(MAX_ENCRYPT_SCAN_BYTES + 100, b' ');
        long.extend_from_slice(b"/P 99999999999999999999 >>");
        assert_eq!(
            name(&long).as_deref(),
            Some("/Standard V? R? (the dictionary could not be read)")
        );
        // A /Filter past the bound is not known, not absent.
        let mut long = b"trailer << /Encrypt << /Pad ".to_vec();
        long.resize(MAX_ENCRYPT_SCAN_BYTES + 100, b' ');
        long.extend_from_slice(b"/Filter /Standard /P 99999999999999999999 >> >>");
        assert_eq!(
            name(&long).as_deref(),
            Some("unknown V? R? (the dictionary could not be read)")
        );
    }

    #[test]
    fn the_encrypt_name_is_found_alone() {
        assert!(names_encrypt(b"<< /Encrypt 5 0 R >>"));
        assert!(names_encrypt(b"<</Encrypt<</V 2>>>>"));
        assert!(names_encrypt(b"x /Encrypt"));
        assert!(!names_encrypt(b"<< /EncryptMetadata false >>"));
        assert!(!names_encrypt(b"<< /NoCrypt 5 0 R >>"));
        // Any spelling of the name (attack s82: `/Encr#79pt` hid a trailer's key).
        assert!(names_encrypt(b"<< /Encr#79pt 6 0 R >>"));
        assert!(names_encrypt(b"<</#45#6e#63rypt 6 0 R>>"));
        assert!(!names_encrypt(b"<< /Encr#79ptx 6 0 R >>"));
        assert!(!names_encrypt(b"<< /Encryp >> /t"));
        assert!(!names_encrypt(b"/Encr#7"));
        assert!(!names_encrypt(b"/Encrypted 1"));
    }

    #[test]
    fn encrypt_key_is_renamed_in_place() {
        let data = b"<< /Encrypt 5 0 R /EncryptMetadata false /Encrypt<<>> >>".to_vec();
        let out = without_encrypt_key(&data);
        assert_eq!(out.len(), data.len());
        assert_eq!(
            out,
            b"<< /NoCrypt 5 0 R /EncryptMetadata false /NoCrypt<<>> >>".to_vec()
        );
    }
}
