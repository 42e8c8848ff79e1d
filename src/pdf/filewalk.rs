//! A walk over a whole file's bytes with PDF's token rules (ISO 32000-1
//! §7.2, §7.3, §7.5), for what must be found where lopdf could not read
//! it: the trailer dictionaries (the one after each `trailer` keyword, and
//! each cross-reference stream's, `N G obj << /Type /XRef ... >>`) with
//! their `/Encrypt` entries, and the definitions `N G obj` of objects.
//!
//! Comments, literal and hexadecimal strings and the data of streams are
//! passed over (a stream's data by its direct `/Length` when `endstream`
//! follows there, else up to the next `endstream`), so text that only
//! mentions `/Encrypt`, `trailer` or `6 0 obj` is not taken for structure.
//! The keywords `trailer`, `N G obj` and `endobj` start over at the top
//! level, as poppler's reconstruction does, so an array or dictionary left
//! open does not hide what follows; so does a string left open at the end of
//! the file (it is read as a stray `(`).
//!
//! The walk reads at most [`MAX_FILE_WALK_BYTES`]. Every token starts past
//! the start of the one before, and each stream's data is searched for
//! `endstream` at most once (after a search that found none, none is
//! searched for again): the work is linear in the bytes read.

use super::text::lex::Cursor;

/// Most bytes of a file read by the walk for trailers and object
/// definitions that [`super::encryption::trailer_names_encrypt`] and
/// [`super::encryption::unreadable_handler`] make (the first ones): as
/// many as [`super::limits::MAX_INPUT_BYTES`] lets a file hold. Past them
/// nothing is seen, and the walk says the file was not read whole.
pub const MAX_FILE_WALK_BYTES: usize = 64 << 20;

/// Most white-space bytes between a stream's data, as its `/Length` gives
/// it, and `endstream`, for that `/Length` to be taken.
const MAX_SPACE_BEFORE_ENDSTREAM: usize = 16;

/// `true` when `token` is an integer (ISO 32000-1 §7.3.3) that does not fit
/// in 64 bits: lopdf cannot read it, poppler reads it as a real number.
pub(crate) fn wide_integer(token: &[u8]) -> bool {
    let digits = token.strip_prefix(b"-").or(token.strip_prefix(b"+"));
    let digits = digits.unwrap_or(token);
    !digits.is_empty()
        && digits.iter().all(u8::is_ascii_digit)
        && std::str::from_utf8(token)
            .ok()
            .and_then(|t| t.parse::<i64>().ok())
            .is_none()
}

/// The name a name token (`/…`) stands for, its `#xx` escapes decoded
/// (§7.3.5: `/#53tandard` is `Standard`); `None` for any other token.
pub(crate) fn name(token: &[u8]) -> Option<Vec<u8>> {
    let raw = token.strip_prefix(b"/")?;
    let hex = |b: Option<&u8>| b.and_then(|&b| char::from(b).to_digit(16));
    let mut out = Vec::with_capacity(raw.len());
    let mut i = 0usize;
    // `i` grows every round: at most `raw.len()` rounds.
    while let Some(&b) = raw.get(i) {
        let escaped = (b == b'#')
            .then(|| {
                Some(hex(raw.get(i.saturating_add(1)))? * 16 + hex(raw.get(i.saturating_add(2)))?)
            })
            .flatten()
            .and_then(|v| u8::try_from(v).ok());
        match escaped {
            Some(v) => {
                out.push(v);
                i = i.saturating_add(3);
            }
            None => {
                out.push(b);
                i = i.saturating_add(1);
            }
        }
    }
    Some(out)
}

/// What [`walk`] reports, in the order of the file.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Seen {
    /// `N G obj`: the definition of object `id`, whose body starts at
    /// `body`.
    Object {
        /// The object's number and generation.
        id: (u32, u16),
        /// Where the bytes after the `obj` keyword start.
        body: usize,
    },
    /// An integer outside 64 bits ([`wide_integer`]) at `start..end` in a
    /// top-level dictionary, outside the value of its `/Encrypt` entry.
    Wide {
        /// Where the integer starts.
        start: usize,
        /// Where it ends.
        end: usize,
    },
    /// A top-level dictionary ended; `Some` when it is a trailer (or a
    /// cross-reference stream's dictionary).
    DictEnd(Option<Trailer>),
}

/// A trailer dictionary, as [`walk`] saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Trailer {
    /// Where the value of its `/Encrypt` key starts (the last such key).
    pub encrypt: Option<usize>,
    /// The key (`#xx` decoded) of its first entry, other than `/Encrypt`,
    /// that holds an integer outside 64 bits.
    pub wide_key: Option<Vec<u8>>,
}

/// What the dictionary opened at the top level belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Opened {
    Trailer,
    Object,
    Other,
}

/// A top-level dictionary being read.
#[derive(Debug)]
struct Dict {
    opened: Opened,
    /// The key whose value is being read, `#xx` decoded.
    key: Option<Vec<u8>>,
    /// Tokens of that value read at the dictionary's own level.
    values: usize,
    encrypt: Option<usize>,
    xref: bool,
    /// A direct, non-negative `/Length`.
    length: Option<usize>,
    wide_key: Option<Vec<u8>>,
}

impl Dict {
    fn new(opened: Opened) -> Self {
        Dict {
            opened,
            key: None,
            values: 0,
            encrypt: None,
            xref: false,
            length: None,
            wide_key: None,
        }
    }

    /// A token at the dictionary's own level (not `>>`), ending at `end`.
    fn entry(&mut self, token: &[u8], end: usize) {
        let as_name = name(token);
        if let Some(key) = as_name
            .clone()
            .filter(|_| self.key.is_none() || self.values > 0)
        {
            if key == b"Encrypt" {
                self.encrypt = Some(end);
            }
            self.key = Some(key);
            self.values = 0;
            return;
        }
        self.values = self.values.saturating_add(1);
        match self.key.as_deref() {
            Some(b"Length") if self.values == 1 => {
                self.length = std::str::from_utf8(token).ok().and_then(|t| t.parse().ok());
            }
            // `/Length 5 0 R`: an indirect length, not known here.
            Some(b"Length") if token == b"R" => self.length = None,
            Some(b"Type") if self.values == 1 => {
                self.xref = as_name.as_deref() == Some(b"XRef".as_slice());
            }
            _ => {}
        }
    }

    /// `true` while the value being read is not `/Encrypt`'s.
    fn outside_encrypt(&self) -> bool {
        self.key.as_deref() != Some(b"Encrypt".as_slice())
    }
}

/// `N G` as the two tokens before an `obj` keyword.
fn object_id(before: [&[u8]; 2]) -> Option<(u32, u16)> {
    let [n, g] = before.map(|t| std::str::from_utf8(t).ok());
    let digits = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
    let (n, g) = (n.filter(|t| digits(t))?, g.filter(|t| digits(t))?);
    Some((n.parse().ok()?, g.parse().ok()?))
}

/// A string token that runs to the end of the data without being closed.
fn cut_off(token: &[u8]) -> bool {
    token.len() > 1
        && match token.first() {
            Some(b'(') => token.last() != Some(&b')'),
            Some(b'<') => token.get(1) != Some(&b'<') && token.last() != Some(&b'>'),
            _ => false,
        }
}

/// Where the walk goes on after the data of a stream whose `stream`
/// keyword ends at `keyword_end` (past its `endstream`), or `None` when no
/// `endstream` follows (the bytes are then read as tokens). `no_endstream`
/// is where a search found none before: none is looked for past it again.
fn past_stream(
    data: &[u8],
    keyword_end: usize,
    length: Option<usize>,
    no_endstream: &mut usize,
) -> Option<usize> {
    const ENDSTREAM: &[u8] = b"endstream";
    // The data starts after the end of line that follows the keyword
    // (§7.3.8.1): CR LF, LF, or (leniently) CR.
    let mut start = keyword_end;
    if data.get(start) == Some(&b'\r') {
        start = start.saturating_add(1);
    }
    if data.get(start) == Some(&b'\n') {
        start = start.saturating_add(1);
    }
    if let Some(end) = length.and_then(|n| start.checked_add(n)) {
        let rest = data.get(end..).unwrap_or_default();
        let spaces = rest
            .iter()
            .take(MAX_SPACE_BEFORE_ENDSTREAM)
            .take_while(|b| b.is_ascii_whitespace() || **b == 0)
            .count();
        if rest.get(spaces..).is_some_and(|r| r.starts_with(ENDSTREAM)) {
            return end.checked_add(spaces)?.checked_add(ENDSTREAM.len());
        }
    }
    if start >= *no_endstream {
        return None;
    }
    let found = data
        .get(start..)?
        .windows(ENDSTREAM.len())
        .position(|w| w == ENDSTREAM);
    match found {
        Some(at) => start.checked_add(at)?.checked_add(ENDSTREAM.len()),
        None => {
            *no_endstream = start;
            None
        }
    }
}

/// Walks `data` (its first [`MAX_FILE_WALK_BYTES`]), telling `seen` what
/// it finds (see the module's documentation); `true` when the whole of
/// `data` was read.
pub(crate) fn walk(data: &[u8], mut seen: impl FnMut(Seen)) -> bool {
    let whole = data.len() <= MAX_FILE_WALK_BYTES;
    let data = data.get(..MAX_FILE_WALK_BYTES).unwrap_or(data);
    let mut cursor = Cursor::new(data);
    let mut before: [&[u8]; 2] = [b"", b""];
    let mut next = Opened::Other;
    let mut depth = 0usize;
    let mut dict: Option<Dict> = None;
    // `Some(length)` right after an object's dictionary ended.
    let mut object_ended: Option<Option<usize>> = None;
    let mut no_endstream = usize::MAX;
    // Every token starts past the one before: at most `data.len()` rounds.
    while let Some((start, end)) = cursor.token() {
        let token = data.get(start..end).unwrap_or_default();
        if end == data.len() && cut_off(token) {
            cursor.jump(start.saturating_add(1));
            continue;
        }
        let opening = std::mem::replace(&mut next, Opened::Other);
        let stream_length = object_ended.take();
        match token {
            b"stream" if depth == 0 => {
                if let Some(length) = stream_length {
                    if let Some(past) = past_stream(data, end, length, &mut no_endstream) {
                        cursor.jump(past);
                    }
                }
            }
            b"trailer" => {
                (depth, dict, next) = (0, None, Opened::Trailer);
            }
            b"obj" => {
                if let Some(id) = object_id(before) {
                    (depth, dict, next) = (0, None, Opened::Object);
                    seen(Seen::Object { id, body: end });
                }
            }
            b"endobj" => (depth, dict) = (0, None),
            b"<<" | b"[" => {
                if depth == 0 && token == b"<<" {
                    dict = Some(Dict::new(opening));
                } else if depth == 1 {
                    if let Some(d) = dict.as_mut() {
                        d.entry(token, end);
                    }
                }
                depth = depth.saturating_add(1);
            }
            b">>" | b"]" => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    if let Some(d) = dict.take() {
                        let trailer =
                            d.opened == Opened::Trailer || (d.opened == Opened::Object && d.xref);
                        if d.opened == Opened::Object {
                            object_ended = Some(d.length);
                        }
                        seen(Seen::DictEnd(trailer.then_some(Trailer {
                            encrypt: d.encrypt,
                            wide_key: d.wide_key,
                        })));
                    }
                }
            }
            _ => {
                if let Some(d) = dict.as_mut() {
                    if depth == 1 {
                        d.entry(token, end);
                    }
                    if wide_integer(token) && d.outside_encrypt() {
                        d.wide_key
                            .get_or_insert_with(|| d.key.clone().unwrap_or_default());
                        seen(Seen::Wide { start, end });
                    }
                }
            }
        }
        before = [before[1], token];
    }
    // A trailer left open at the end still names what it holds.
    if let Some(d) = dict.filter(|d| d.opened == Opened::Trailer || d.xref) {
        seen(Seen::DictEnd(Some(Trailer {
            encrypt: d.encrypt,
            wide_key: d.wide_key,
        })));
    }
    whole
}

/// The last trailer dictionary of `data` with an `/Encrypt` key ([`walk`]),
/// and whether the whole of `data` was read.
pub(crate) fn last_encrypting_trailer(data: &[u8]) -> (Option<Trailer>, bool) {
    let mut last = None;
    let whole = walk(data, |seen| {
        if let Seen::DictEnd(Some(t)) = seen {
            if t.encrypt.is_some() {
                last = Some(t);
            }
        }
    });
    (last, whole)
}

/// The bytes after the `obj` keyword of the last definition of object
/// `id` in `data` ([`walk`]: not one written inside a string, a comment or
/// a stream's data).
pub(crate) fn object_body(data: &[u8], id: (u32, u16)) -> Option<&[u8]> {
    let mut body = None;
    walk(data, |seen| {
        if let Seen::Object {
            id: found,
            body: at,
        } = seen
        {
            if found == id {
                body = Some(at);
            }
        }
    });
    data.get(body?..)
}

/// `data` with every integer outside 64 bits in a trailer dictionary (not
/// in its `/Encrypt` entry) written as a real of the same length, its last
/// digit made the decimal point (`99999999999999999999` →
/// `9999999999999999999.`): poppler reads such an integer as a real; lopdf
/// cannot read it, and with it the trailer. No offset moves. `None` when
/// no trailer holds one.
pub(crate) fn with_trailer_integers_as_reals(data: &[u8]) -> Option<Vec<u8>> {
    let mut out: Option<Vec<u8>> = None;
    // The wide integers of the top-level dictionary being read.
    let mut pending = Vec::new();
    walk(data, |seen| match seen {
        Seen::Wide { end, .. } => pending.push(end),
        Seen::DictEnd(trailer) => {
            if trailer.is_some() {
                for &end in &pending {
                    let whole = out.get_or_insert_with(|| data.to_vec());
                    if let Some(last) = end.checked_sub(1).and_then(|at| whole.get_mut(at)) {
                        *last = b'.';
                    }
                }
            }
            pending.clear();
        }
        Seen::Object { .. } => pending.clear(),
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn trailers(data: &[u8]) -> Vec<Trailer> {
        let mut out = Vec::new();
        walk(data, |s| {
            if let Seen::DictEnd(Some(t)) = s {
                out.push(t);
            }
        });
        out
    }

    #[test]
    fn names_are_decoded() {
        assert_eq!(name(b"/#53tandard").unwrap(), b"Standard");
        assert_eq!(name(b"/A#2").unwrap(), b"A#2");
        assert_eq!(name(b"/A#zz").unwrap(), b"A#zz");
        assert_eq!(name(b"/").unwrap(), b"");
        assert_eq!(name(b"Standard"), None);
    }

    #[test]
    fn only_trailer_keys_count() {
        let at = |d: &[u8], what: &[u8]| d.windows(what.len()).position(|w| w == what).unwrap();
        let data = b"1 0 obj << /Note (trailer << /Encrypt 5 0 R >>) >> endobj\n\
            % trailer << /Encrypt 6 0 R >>\n\
            2 0 obj << /Length 24 >>\nstream\ntrailer << /Encrypt 7 0 R >>\nendstream endobj\n\
            3 0 obj << /Encrypt 8 0 R >> endobj\n\
            trailer << /Size 4 /Encr#79pt 9 0 R /Foo 99999999999999999999 >>";
        let found = trailers(data);
        assert_eq!(
            found,
            [Trailer {
                encrypt: Some(at(data, b" 9 0 R")),
                wide_key: Some(b"Foo".to_vec())
            }]
        );
        // A cross-reference stream's dictionary is a trailer; its data is skipped.
        let xref =
            b"5 0 obj << /Type /XRef /Encrypt 6 0 R /Length 5 >>\nstream\n1 0 obj\nendstream";
        assert_eq!(trailers(xref)[0].encrypt, Some(at(xref, b" 6 0 R")));
        assert_eq!(object_body(xref, (1, 0)), None);
        // A /Length that is wrong: up to `endstream`.
        let lying = b"5 0 obj << /Length 2 >>\nstream\n6 0 obj\nendstream 6 0 obj /Real endobj";
        assert_eq!(object_body(lying, (6, 0)), Some(&b" /Real endobj"[..]));
        // No `endstream`: the bytes are read as tokens.
        let open = b"5 0 obj << /Length 2 >>\nstream\n6 0 obj /Found";
        assert_eq!(object_body(open, (6, 0)), Some(&b" /Found"[..]));
        // A string left open at the end, and an array left open, hide nothing.
        let cut = b"1 0 obj << /A [ [ (open trailer << /Encrypt 3 0 R >>";
        assert_eq!(trailers(cut).len(), 1);
    }

    #[test]
    fn trailer_integers_become_reals_in_place() {
        let data = b"1 0 obj << /Foo 99999999999999999999 >> endobj \
            trailer << /Foo -99999999999999999999 /Encrypt << /P 99999999999999999999 >> >>";
        let out = with_trailer_integers_as_reals(data).unwrap();
        assert_eq!(out.len(), data.len());
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "1 0 obj << /Foo 99999999999999999999 >> endobj \
            trailer << /Foo -9999999999999999999. /Encrypt << /P 99999999999999999999 >> >>"
        );
        assert_eq!(
            with_trailer_integers_as_reals(b"trailer << /Size 9 >>"),
            None
        );
    }
}
