//! The gateway's readers of a document's own charset and of Python's
//! codecs, on arbitrary bytes: `gate::prescan::own_label` (the label an
//! XML declaration, a coding cookie, a CSS `@charset` or a `<meta>`
//! declares) on the whole input, and `gate::pycodec::PyCodec` (`cp850`,
//! `cp932`, `gb18030` as CPython reads them) on the rest of it, its codec
//! picked by the first byte among the keys `pycodec::for_key` knows.
//! CPython itself is the oracle of the codecs' readings in
//! `gate::pycodec`'s `cpython_oracle` test; here, their invariants.

use crate::gate::prescan::{
    own_label, Reader, TooLong, MAX_DECLARATION_BYTES, MAX_LABEL_LEN, MAX_PRESCAN_BYTES,
};
use crate::gate::pycodec::{self, PyCodec};

/// Every key `pycodec::for_key` knows; the first byte of an input picks
/// one.
pub const CODEC_KEYS: &[&str] = &[
    "cp850",
    "850",
    "ibm850",
    "cspc850multilingual",
    "cp932",
    "ms932",
    "mskanji",
    "gb18030",
    "gb180302000",
];

/// Fuzz target `gate_codecs`: `check_own_label` on `data`, then
/// `check_codec` of the codec its first byte picks on the rest.
pub fn gate_codecs(data: &[u8]) {
    check_own_label(data);
    let Some((&pick, body)) = data.split_first() else {
        return;
    };
    let key = CODEC_KEYS[usize::from(pick) % CODEC_KEYS.len()];
    let codec = pycodec::for_key(key).expect("every key is known");
    check_codec(codec, body);
}

/// `own_label`'s answer is a label the document holds where its reader
/// looks: ASCII, trimmed, at most `MAX_LABEL_LEN` bytes, found within the
/// first `MAX_DECLARATION_BYTES` (a parser's) or `MAX_PRESCAN_BYTES` (a
/// browser's, and then one WHATWG knows; `x-user-defined` read as
/// `windows-1252`); a parser's from a document that starts with `<?xml`
/// or holds `coding`; `TooLong` only for a document past the bound.
fn check_own_label(data: &[u8]) {
    let (label, reader) = match own_label(data) {
        Err(TooLong) => {
            assert!(
                data.len() > MAX_DECLARATION_BYTES,
                "too long at {}",
                data.len()
            );
            return;
        }
        Ok(None) => return,
        Ok(Some(found)) => found,
    };
    assert!(
        !label.is_empty() && label.len() <= MAX_LABEL_LEN && label.is_ascii(),
        "{label:?}"
    );
    assert_eq!(label, label.trim());
    let bound = match reader {
        Reader::Parser => MAX_DECLARATION_BYTES,
        Reader::Browser => MAX_PRESCAN_BYTES,
    };
    let head = &data[..data.len().min(bound)];
    let holds = |needle: &[u8]| {
        head.windows(needle.len())
            .any(|w| w.eq_ignore_ascii_case(needle))
    };
    let x_user_defined = reader == Reader::Browser && label == "windows-1252";
    assert!(
        holds(label.as_bytes()) || (x_user_defined && holds(b"x-user-defined")),
        "{label:?} is not in the bytes read"
    );
    match reader {
        Reader::Parser => assert!(data.starts_with(b"<?xml") || holds(b"coding")),
        Reader::Browser => {
            assert!(encoding_rs::Encoding::for_label(label.as_bytes()).is_some());
        }
    }
}

/// `PyCodec`'s readings agree with each other: the strict one, when it
/// reads, is the lossy one; when it does not, the lossy one holds U+FFFD;
/// the lossy one never has more characters than `body` has bytes; what
/// `encode` writes of any reading reads strictly; `cp850`, one byte a
/// character, reads every byte and writes back the bytes it read but 0xF0
/// (its soft hyphen, which IBM866 lacks); each code read otherwise reads
/// as its character wherever a code starts (after ASCII).
fn check_codec(codec: &PyCodec, body: &[u8]) {
    let strict = codec.decode(body);
    let lossy = codec.decode_lossy(body);
    match &strict {
        Some(text) => assert_eq!(&lossy, text),
        None => assert!(lossy.contains('\u{FFFD}'), "{body:02X?}: {lossy:?}"),
    }
    assert!(
        lossy.chars().count() <= body.len(),
        "{body:02X?}: {lossy:?}"
    );
    assert!(
        codec.decode(&codec.encode(&lossy)).is_some(),
        "{body:02X?}: {lossy:?}"
    );
    if codec == &pycodec::CP850 {
        let text = strict.expect("cp850 reads every byte");
        if !body.contains(&0xF0) {
            assert_eq!(codec.encode(&text), body);
        }
    }
    let prefix: Vec<u8> = body.iter().copied().take_while(u8::is_ascii).collect();
    for &(code, c) in codec.codes() {
        let text = codec.decode(&[&prefix[..], code].concat());
        let want: String = String::from_utf8(prefix.clone()).expect("ASCII") + &c.to_string();
        assert_eq!(text.as_deref(), Some(want.as_str()), "{code:02X?}");
    }
}
