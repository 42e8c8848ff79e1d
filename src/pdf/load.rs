//! Loading a document with lopdf under our caps, and mapping lopdf's errors
//! and encryption states onto [`PdfError`] kinds.

use lopdf::{Document, LoadOptions, Object};

pub use super::encryption::Encryption;
use super::encryption::{
    describe_state, encrypt_dict, id_inlined, names_encrypt, poppler_reading, standard_dict_fault,
    undecryptable, unreadable_encryption, with_encrypt_object, with_indirect_encrypt,
    with_trailer_integers_as_reals, without_encrypt_key, PopplerReading,
};
use super::error::PdfError;
use super::limits::{Limit, Limits, HEADER_SEARCH_BYTES};
use super::message::quote_name;
use super::nesting::{flatten_deep, KEPT_NESTING};
use super::object::resolve;
use super::perms::with_perms_as_read;
use super::salvage;

/// A loaded document and what loading learned about it.
#[derive(Debug)]
pub struct Loaded {
    /// The decrypted document.
    pub doc: Document,
    /// Encryption parameters when the trailer named `/Encrypt`.
    pub encryption: Option<Encryption>,
    /// lopdf had to correct or rebuild the cross-reference data.
    pub xref_repaired: bool,
    /// The file does not end with `%%EOF` (possibly cut off).
    pub missing_eof: bool,
    /// The file has no `%PDF-` header but starts with objects; the version
    /// is then reported as `0.0`, as poppler does.
    pub missing_header: bool,
    /// The trailer's `/Encrypt` names a malformed Standard-handler
    /// dictionary (see [`standard_dict_fault`]): why it was ignored and the
    /// file read as unencrypted, as poppler does.
    pub encryption_ignored: Option<String>,
    /// The page count `/N` of the linearization dictionary, when the file
    /// starts with one whose `/L` equals the file's length (poppler's test
    /// that the file is still linearized).
    pub linearized_pages: Option<u64>,
    /// Page objects (`/Type /Page` in their bytes) that lopdf could not
    /// parse; each is in `doc` as an empty page dictionary (see
    /// [`salvage::restore_unparsed_pages`]).
    pub unparsed_pages: usize,
    /// Streams whose data lopdf dropped for an unusable `/Length` and which
    /// were read again up to `endstream` (see [`salvage::restore_stream_data`]).
    pub restored_streams: usize,
}

/// lopdf 0.47's fixed cap on nested arrays and dictionaries (`reader::MAX_NESTING_DEPTH`).
pub const LOPDF_MAX_NESTING: u64 = 100;

/// Finds the `%PDF-` header within the first [`HEADER_SEARCH_BYTES`] bytes.
///
/// # Errors
/// `empty_input`, `not_pdf`.
pub fn check_header(data: &[u8]) -> Result<(), PdfError> {
    if data.is_empty() {
        return Err(PdfError::EmptyInput);
    }
    let head = data.get(..HEADER_SEARCH_BYTES).unwrap_or(data);
    if head.windows(5).any(|w| w == b"%PDF-") {
        return Ok(());
    }
    // The file's own bytes are never quoted back: the message reaches the
    // agent, and a path to a non-PDF (`.env`, a key file) would otherwise
    // leak its first bytes. Only its shape is said.
    let shape = if std::str::from_utf8(head).is_ok() {
        "text"
    } else {
        "binary data"
    };
    Err(PdfError::NotPdf {
        detail: format!(
            "no %PDF- header in the first {HEADER_SEARCH_BYTES} bytes (the file is {shape})"
        ),
    })
}

/// True when `%%EOF` appears in the last 1 KiB (incremental updates and
/// trailing junk allowed).
fn has_eof_marker(data: &[u8]) -> bool {
    let tail = data.get(data.len().saturating_sub(1024)..).unwrap_or(data);
    tail.windows(5).any(|w| w == b"%%EOF")
}

/// Parses `data` (bounded: header check, lopdf's per-stream cap set to
/// `limits.max_stream_bytes`) and decrypts it with the empty user password or
/// `password`.
///
/// # Errors
/// `empty_input`, `not_pdf`, `truncated`, `malformed_xref`,
/// `malformed_structure`, `reference_cycle`, `nesting_too_deep`,
/// `limit_exceeded` (`stream_bytes`, `stream_filters`),
/// `unsupported_encryption`, `password_required`.
pub fn load(data: &[u8], password: Option<&str>, limits: &Limits) -> Result<Loaded, PdfError> {
    load_unbounded(data, password, limits).map_err(PdfError::bounded)
}

/// [`load`] before its error is bounded ([`PdfError::bounded`]).
fn load_unbounded(
    data: &[u8],
    password: Option<&str>,
    limits: &Limits,
) -> Result<Loaded, PdfError> {
    match check_header(data) {
        Ok(()) => load_checked(data, password, limits),
        // Poppler opens a file without a header when objects follow (and
        // reports version 0.0); so do we, with a warning, else `not_pdf`.
        Err(not_pdf @ PdfError::NotPdf { .. }) if starts_with_object(data) => {
            let patched = [HEADERLESS_PREFIX, data].concat();
            match load_checked(&patched, password, limits) {
                Ok(mut loaded) => {
                    loaded.doc.version = "0.0".into();
                    loaded.missing_header = true;
                    Ok(loaded)
                }
                Err(_) => Err(not_pdf),
            }
        }
        Err(e) => Err(e),
    }
}

/// Put in front of a header-less file so that lopdf reads it.
const HEADERLESS_PREFIX: &[u8] = b"%PDF-1.0\n";

/// True when an indirect object header (`N G obj`) appears within the first
/// [`HEADER_SEARCH_BYTES`] bytes.
fn starts_with_object(data: &[u8]) -> bool {
    let head = data.get(..HEADER_SEARCH_BYTES).unwrap_or(data);
    head.windows(3).enumerate().any(|(at, w)| {
        w == b"obj" && {
            // Backwards from `obj`: whitespace, digits (G), whitespace, digits (N).
            let before = head.get(..at).unwrap_or_default();
            let gen = field_before(before);
            gen.is_some_and(|rest| field_before(rest).is_some())
        }
    })
}

/// Strips trailing whitespace then trailing digits from `s`; `Some(rest)`
/// when both were present.
fn field_before(s: &[u8]) -> Option<&[u8]> {
    let spaces = s
        .iter()
        .rev()
        .take_while(|b| b.is_ascii_whitespace())
        .count();
    let s = s.get(..s.len().saturating_sub(spaces))?;
    let digits = s.iter().rev().take_while(|b| b.is_ascii_digit()).count();
    (spaces > 0 && digits > 0).then(|| s.get(..s.len().saturating_sub(digits)))?
}

/// lopdf's options for every load of this module: the password, the
/// per-stream decompression cap, and whether to rebuild the cross-reference
/// table from a scan for object headers instead of reading it.
fn load_options(password: Option<&str>, limits: &Limits, reconstruct: bool) -> LoadOptions {
    LoadOptions {
        password: password.map(str::to_owned),
        max_decompressed_size: Some(limits.max_stream_bytes),
        force_reconstruct: reconstruct,
        ..LoadOptions::default()
    }
}

/// `data` with its encryption dictionary as poppler reads it
/// ([`poppler_reading`]), when that differs from the file: `Ok(None)` when
/// it does not. The patched file's dictionary is then read as written:
/// loading it cannot come back here.
///
/// # Errors
/// `unsupported_encryption` for an RC4 key poppler would make shorter than
/// 40 bits.
fn with_poppler_reading(data: &[u8], doc: &Document) -> Result<Option<Vec<u8>>, PdfError> {
    let Some(dict) = encrypt_dict(doc) else {
        return Ok(None);
    };
    // References in the dictionary were looked up before this load
    // (`with_encrypt_inlined`); one that could not be stays as it is.
    match poppler_reading(dict, doc) {
        PopplerReading::AsWritten => Ok(None),
        PopplerReading::Patched(fixed) => Ok(with_encrypt_object(data, doc, fixed)),
        PopplerReading::ShortKey { handler } | PopplerReading::UnknownMethod { handler } => {
            Err(PdfError::unsupported_encryption(handler))
        }
    }
}

/// `data` with its `/Encrypt` dictionary as poppler reads it, when lopdf
/// would read it otherwise: entries by reference (`/CF` → `/StdCF` →
/// `/CFM`, `/O` in an object of its own) and a trailer `/ID` by reference
/// written directly (lopdf reads them as absent and would decrypt with the
/// wrong filter, key or none), the lenient readings of
/// [`poppler_reading`], and a revision 5 or 6 `/Perms` that `password`
/// shows wrong written anew ([`with_perms_as_read`]). Looked up in a load
/// without encryption (the dictionary's own objects are never encrypted).
///
/// # Errors
/// `unsupported_encryption` for an RC4 key poppler would make shorter than
/// 40 bits.
fn with_encrypt_inlined(
    data: &[u8],
    password: Option<&str>,
    limits: &Limits,
) -> Result<Option<Vec<u8>>, PdfError> {
    const RENAMED: &[u8] = b"NoCrypt";
    if !names_encrypt(data) {
        return Ok(None);
    }
    if let Some(flattened) = with_trailers_flattened(data) {
        // A trailer nested too deep for lopdf takes its /Encrypt with it.
        return Ok(Some(flattened));
    }
    let Ok(mut plain) = Document::load_mem_with_options(
        &without_encrypt_key(data),
        load_options(None, limits, false),
    ) else {
        return Ok(None);
    };
    if let Some(flattened) = with_encrypt_flattened(data, &plain) {
        return Ok(Some(flattened));
    }
    let Some(dict) = plain
        .trailer
        .get(RENAMED)
        .ok()
        .and_then(|o| resolve(&plain, o).ok())
        .and_then(|o| o.as_dict().ok())
    else {
        return Ok(None);
    };
    let id = id_inlined(&plain.trailer, &plain);
    let (read, mut changed) = match poppler_reading(dict, &plain) {
        PopplerReading::AsWritten => (dict.clone(), false),
        PopplerReading::Patched(fixed) => (fixed, true),
        PopplerReading::ShortKey { handler } | PopplerReading::UnknownMethod { handler } => {
            return Err(PdfError::unsupported_encryption(handler))
        }
    };
    let fixed = match with_perms_as_read(&read, password) {
        Some(fixed) => {
            changed = true;
            fixed
        }
        None => read,
    };
    if !changed && id.is_none() {
        return Ok(None);
    }
    plain.trailer.remove(RENAMED);
    if let Some(id) = id {
        plain.trailer.set("ID", id);
    }
    Ok(with_encrypt_object(data, &plain, fixed))
}

/// How many levels of references below the trailer's `/Encrypt` are
/// followed to objects to flatten: the dictionary itself, `/CF`, a crypt
/// filter (`/StdCF`), and one of its entries.
const FLATTENED_REFERENCE_DEPTH: usize = 4;

/// Most values of the encryption dictionary and the objects it refers to
/// that [`with_encrypt_flattened`] looks at (a Standard handler's has
/// about 15); past it nothing is flattened.
const MAX_ENCRYPT_VALUES_WALKED: usize = 1024;

/// `data` with the objects of its encryption dictionary that lopdf could
/// not parse (`plain` loaded without encryption: the indirect `/Encrypt`
/// dictionary, or an object it refers to, such as `/CF` or `/StdCF`, up to
/// [`FLATTENED_REFERENCE_DEPTH`] levels down) flattened below lopdf's
/// nesting limit in place ([`flatten_deep`]): poppler reads objects with an
/// unused key nested 100 to 500 levels deep. `None` when no such object is
/// unparsed at a known offset with anything that deep (so a load of the
/// result cannot come back here with the same change; each round flattens
/// one level more of references, at most [`FLATTENED_REFERENCE_DEPTH`]).
fn with_encrypt_flattened(data: &[u8], plain: &Document) -> Option<Vec<u8>> {
    let root = plain.trailer.get(b"NoCrypt").ok()?;
    let mut unparsed = Vec::new();
    let mut stack = vec![(root, 1usize)];
    let mut left = MAX_ENCRYPT_VALUES_WALKED;
    while let Some((o, depth)) = stack.pop() {
        left = left.checked_sub(1)?;
        match o {
            Object::Reference(id) => match plain.objects.get(id) {
                Some(o) if depth < FLATTENED_REFERENCE_DEPTH => stack.push((o, depth + 1)),
                Some(_) => {}
                None => unparsed.push(*id),
            },
            Object::Dictionary(d) => stack.extend(d.iter().map(|(_, v)| (v, depth))),
            Object::Array(a) => stack.extend(a.iter().map(|v| (v, depth))),
            _ => {}
        }
    }
    let header = pdf_header(data)?;
    let mut budget = data.len();
    flattened(
        data,
        unparsed
            .into_iter()
            .filter_map(|id| object_span(data, header, plain, id, &mut budget)),
    )
}

/// `data` with every object of `doc`'s table that lopdf could not parse
/// flattened below its nesting limit in place ([`flatten_deep`]): poppler
/// reads a page, an Info dictionary or a font with an unused key nested
/// 100 to 500 levels deep, where lopdf drops the whole object. Objects in
/// object streams are not reached. Each distinct offset is scanned once,
/// to its `endobj`, and no more bytes than the file holds in all; an
/// object whose span cannot be found ([`object_span`]) is passed over.
/// `None` when nothing was that deep (so a load of the result cannot come
/// back here with a change).
fn with_unparsed_flattened(data: &[u8], doc: &Document) -> Option<Vec<u8>> {
    let mut offsets: Vec<(usize, lopdf::ObjectId)> = doc
        .reference_table
        .entries
        .iter()
        .filter_map(|(num, entry)| match entry {
            lopdf::xref::XrefEntry::Normal { offset, generation } => {
                let id = (*num, *generation);
                (!doc.objects.contains_key(&id)).then_some((usize::try_from(*offset).ok()?, id))
            }
            _ => None,
        })
        .collect();
    if offsets.is_empty() {
        return None;
    }
    offsets.sort_unstable();
    offsets.dedup_by_key(|(offset, _)| *offset);
    let header = pdf_header(data)?;
    let mut budget = data.len();
    let spans = offsets
        .into_iter()
        .filter_map(|(_, id)| object_span(data, header, doc, id, &mut budget));
    flattened(data, spans)
}

/// `data` with each of `spans` flattened in place ([`flatten_deep`]),
/// copied only when one changes; `None` when none did.
fn flattened(data: &[u8], spans: impl Iterator<Item = (usize, usize)>) -> Option<Vec<u8>> {
    let mut out: Option<Vec<u8>> = None;
    for (from, to) in spans {
        let Some(span) = data.get(from..to) else {
            continue;
        };
        let mut span = span.to_vec();
        if flatten_deep(&mut span, KEPT_NESTING) {
            let whole = out.get_or_insert_with(|| data.to_vec());
            if let Some(at) = whole.get_mut(from..to) {
                at.copy_from_slice(&span);
            }
        }
    }
    out
}

/// Where `%PDF-` starts in `data`: lopdf's offsets count from there.
fn pdf_header(data: &[u8]) -> Option<usize> {
    data.windows(5).position(|w| w == b"%PDF-")
}

/// Where indirect object `id` lies in `data` (from its xref offset to its
/// `endobj`, or to the end of `data` when none follows), when `doc`'s
/// table gives it an offset in the file (counted from `header`, where
/// `%PDF-` starts) and its `N G obj` header is there. The search for
/// `endobj` reads at most `budget` bytes and takes what it read from it:
/// past the budget, no span is found.
fn object_span(
    data: &[u8],
    header: usize,
    doc: &Document,
    id: lopdf::ObjectId,
    budget: &mut usize,
) -> Option<(usize, usize)> {
    const ENDOBJ: &[u8] = b"endobj";
    let Some(lopdf::xref::XrefEntry::Normal { offset, .. }) = doc.reference_table.get(id.0) else {
        return None;
    };
    let offset = usize::try_from(*offset).ok()?;
    if !object_header_at(data.get(header..)?, offset, id.0, id.1) {
        return None;
    }
    let start = header.checked_add(offset)?;
    let rest = data.get(start..)?;
    let window = rest.get(..*budget).unwrap_or(rest);
    let found = window.windows(ENDOBJ.len()).position(|w| w == ENDOBJ);
    *budget =
        budget.saturating_sub(found.map_or(window.len(), |at| at.saturating_add(ENDOBJ.len())));
    let len = match found {
        Some(at) => at,
        None if window.len() == rest.len() => rest.len(),
        None => return None,
    };
    Some((start, start.checked_add(len)?))
}

/// `data` with every `trailer` dictionary flattened below lopdf's nesting
/// limit in place ([`flatten_deep`]; each from its keyword to the next
/// `startxref`, so one pass over the file): lopdf refuses a trailer with a
/// key nested past 100 levels, and with it the file's `/Encrypt`, where
/// poppler reads 500. `None` when no trailer nests that deep.
fn with_trailers_flattened(data: &[u8]) -> Option<Vec<u8>> {
    const TRAILER: &[u8] = b"trailer";
    const STARTXREF: &[u8] = b"startxref";
    let find = |from: usize, what: &[u8]| {
        data.get(from..)
            .and_then(|rest| rest.windows(what.len()).position(|w| w == what))
            .map(|at| at.saturating_add(from))
    };
    let mut from = 0usize;
    let spans = std::iter::from_fn(|| {
        let start = find(from, TRAILER)?;
        let end = find(start, STARTXREF).unwrap_or(data.len());
        from = end.max(start.saturating_add(TRAILER.len()));
        Some((start, end))
    });
    flattened(data, spans)
}

/// The readings left for a file lopdf did not decrypt (`doc`, as lopdf
/// loaded it), in order: its `/Encrypt` dictionary as poppler reads it; a
/// dictionary that describes no encryption read as unencrypted whatever the
/// password (as poppler does); a direct `/Encrypt` moved into an object of
/// its own. Each patched file is read as written, so none comes back here
/// with the same change.
///
/// # Errors
/// Those of [`load_checked`] on the patched file; `unsupported_encryption`
/// or `password_required` (`incorrect` when a password was refused) when no
/// reading applies.
fn read_otherwise(
    data: &[u8],
    doc: &Document,
    password: Option<&str>,
    limits: &Limits,
    incorrect: bool,
) -> Result<Loaded, PdfError> {
    if let Some(patched) = with_poppler_reading(data, doc)? {
        return load_checked(&patched, password, limits);
    }
    if let Some(fault) = encrypt_dict(doc).and_then(standard_dict_fault) {
        // The renamed key is not /Encrypt: this cannot come back here.
        let mut loaded = load_checked(&without_encrypt_key(data), password, limits)?;
        loaded.encryption_ignored = Some(fault);
        return Ok(loaded);
    }
    if let Some(patched) = with_indirect_encrypt(data, doc) {
        // The update's trailer names an indirect /Encrypt: no recursion.
        return load_checked(&patched, password, limits);
    }
    Err(undecryptable(data, doc, incorrect))
}

fn load_checked(data: &[u8], password: Option<&str>, limits: &Limits) -> Result<Loaded, PdfError> {
    check_header(data)?;
    if let Some(patched) = with_encrypt_inlined(data, password, limits)? {
        // The patched dictionary holds no reference: no second round.
        return load_checked(&patched, password, limits);
    }
    let missing_eof = !has_eof_marker(data);
    let options = |password: Option<&str>| load_options(password, limits, false);
    let doc = match Document::load_mem_with_options(data, options(password)) {
        Ok(doc) => doc,
        Err(lopdf::Error::InvalidPassword) if password.is_some() => {
            // Tell a wrong password apart from a handler we cannot use.
            let doc = Document::load_mem_with_options(data, options(None))
                .map_err(|e| map_error(e, limits, missing_eof))?;
            return read_otherwise(data, &doc, password, limits, true);
        }
        Err(e) => match reconstruct_after(&e, data, limits, password) {
            // Poppler rebuilds the table from a scan for object headers
            // whenever the cross-reference data cannot be used, whatever
            // the reason (an unknown filter on an xref stream, a cut-off
            // table); lopdf gives up on some of these.
            Some(doc) => doc,
            None => return Err(map_error(e, limits, missing_eof)),
        },
    };
    let (mut doc, rebuilt) = if doc.xref_recovery.is_some() {
        (doc, true)
    } else {
        match rebuild_if_misplaced(data, &doc, limits, password) {
            Some(rebuilt) => (rebuilt, true),
            None => (doc, false),
        }
    };
    if doc.trailer.has(b"Encrypt") && encrypt_dict(&doc).is_none() {
        // The encryption dictionary itself was lost to damage elsewhere in
        // the file (lopdf then decrypts nothing): a rebuilt table may reach it.
        let options = load_options(password, limits, true);
        if let Some(rebuilt) = Document::load_mem_with_options(data, options)
            .ok()
            .filter(|d| !d.trailer.has(b"Encrypt") && catalog(d).is_ok())
        {
            doc = rebuilt;
        }
    }
    let still_encrypted = doc.trailer.has(b"Encrypt");
    if still_encrypted {
        return read_otherwise(data, &doc, password, limits, password.is_some());
    }
    if let Some(patched) = with_unparsed_flattened(data, &doc) {
        // What parses now stays parsed: no second change.
        return load_checked(&patched, password, limits);
    }
    let encryption = doc.encryption_state.as_ref().map(describe_state);
    let unparsed_pages = salvage::restore_unparsed_pages(data, &mut doc, limits.max_pages);
    let restored_streams = salvage::restore_stream_data(data, &mut doc, limits.max_stream_bytes);
    let xref_repaired = rebuilt || doc.xref_recovery.is_some();
    if xref_repaired && encryption.is_none() && names_encrypt(data) {
        // The table was rebuilt and what came out is not encrypted, yet the
        // file names /Encrypt (in any spelling, anywhere: no reading of its
        // structure is trusted here, since a damaged file can hide its
        // trailer from any reading of it; attack s82): perhaps a trailer
        // lopdf could not read (an integer over 64 bits, say). Reading the
        // objects as plain could return ciphertext as text. Poppler reads such an
        // integer as a real: so do we, in the trailer, when that is what
        // stopped lopdf (the patched file has none left: no second round).
        if let Some(patched) = with_trailer_integers_as_reals(data) {
            match load_checked(&patched, password, limits) {
                Err(e) if !matches!(e, PdfError::PasswordRequired { .. }) => {}
                read => return read,
            }
        }
        return Err(unreadable_encryption(data, None));
    }
    if xref_repaired && !doc.trailer.has(b"Info") {
        if let Some(id) = salvage::find_info_reference(data, &doc) {
            doc.trailer.set("Info", Object::Reference(id));
        }
    }
    Ok(Loaded {
        doc,
        encryption,
        xref_repaired,
        missing_eof,
        missing_header: false,
        encryption_ignored: None,
        linearized_pages: linearized_pages(data),
        unparsed_pages,
        restored_streams,
    })
}

/// When an in-use cross-reference entry points somewhere other than its
/// `N G obj` header (lopdf then silently loses the object, e.g. a stream's
/// indirect `/Length`, leaving the stream empty), reloads the file with the
/// table rebuilt from a scan for object headers, as poppler does. At most
/// [`MAX_XREF_ENTRIES_CHECKED`] entries are checked.
fn rebuild_if_misplaced(
    data: &[u8],
    doc: &Document,
    limits: &Limits,
    password: Option<&str>,
) -> Option<Document> {
    if doc.xref_recovery.is_some() {
        return None;
    }
    // lopdf reads offsets from the first `%PDF-` on.
    let start = pdf_header(data)?;
    let body = data.get(start..)?;
    let misplaced = doc
        .reference_table
        .entries
        .iter()
        .take(MAX_XREF_ENTRIES_CHECKED)
        .any(|(&num, entry)| match *entry {
            lopdf::xref::XrefEntry::Normal { offset, generation } => {
                !object_header_at(body, offset as usize, num, generation)
            }
            _ => false,
        });
    if !misplaced {
        return None;
    }
    let options = load_options(password, limits, true);
    Document::load_mem_with_options(data, options)
        .ok()
        .filter(|d| d.xref_recovery == Some(lopdf::xref::XrefRecovery::Reconstructed))
        .filter(|d| catalog(d).is_ok())
}

/// After lopdf failed to load `data` with `error`, a reload with the table
/// rebuilt from a scan for object headers, when the error is one a rebuild
/// can cure (not a password or an encryption problem) and the rebuilt
/// document has a usable catalog. A stream past a decoding limit is one: a
/// cross-reference stream whose predictor `/Columns` asks for gigabytes is
/// damaged cross-reference data, which poppler rebuilds too; the rebuild
/// decodes object streams under the same limits, so a real bomb there
/// fails it again and `error` stands.
fn reconstruct_after(
    error: &lopdf::Error,
    data: &[u8],
    limits: &Limits,
    password: Option<&str>,
) -> Option<Document> {
    use lopdf::Error as E;
    let incurable = matches!(
        error,
        E::InvalidPassword
            | E::UnsupportedSecurityHandler(_)
            | E::Decryption(_)
            | E::IO(_)
            | E::Parse(lopdf::ParseError::InvalidFileHeader)
    );
    if incurable {
        return None;
    }
    let options = load_options(password, limits, true);
    if let Some(doc) = Document::load_mem_with_options(data, options.clone())
        .ok()
        .filter(|d| catalog(d).is_ok())
    {
        return Some(doc);
    }
    // No usable trailer and no catalog the scan recognises (both damaged):
    // give the objects an empty catalog of our own, so that the pages can
    // still be found by the object scan of `pagetree::walk` (poppler
    // recovers such files too). Appended, so no offset moves.
    // Only worth it when the file has a page to find; otherwise the
    // original error says more than "no /Pages" about our own catalog.
    let patched = [data, SYNTHETIC_CATALOG].concat();
    let mut doc = Document::load_mem_with_options(&patched, options).ok()?;
    // A trailer lost with its cross-reference stream (its dictionary is the
    // trailer): a catalog the scan found is the root, as in poppler's
    // reconstruction, before our empty one.
    if let Some(id) = scanned_catalog(&doc) {
        doc.trailer.set("Root", Object::Reference(id));
    }
    salvage::restore_unparsed_pages(data, &mut doc, limits.max_pages);
    let has_page = doc.objects.values().any(|o| {
        o.as_dict()
            .ok()
            .and_then(|d| d.get(b"Type").ok())
            .and_then(|t| t.as_name().ok())
            == Some(b"Page".as_slice())
    });
    (has_page && catalog(&doc).is_ok()).then_some(doc)
}

/// The catalog the scan found: the `/Root` of the cross-reference stream
/// found last in the file (its dictionary was the trailer, even when its
/// data cannot be decoded), when that is a catalog with `/Pages`; else the
/// lowest-numbered such catalog (`/Type /Catalog`), never our own
/// [`SYNTHETIC_CATALOG`].
fn scanned_catalog(doc: &Document) -> Option<lopdf::ObjectId> {
    let is_catalog = |d: &lopdf::Dictionary| {
        d.get(b"Type").and_then(Object::as_name).ok() == Some(b"Catalog".as_slice())
            && d.has(b"Pages")
    };
    let offset = |id: &lopdf::ObjectId| match doc.reference_table.get(id.0) {
        Some(lopdf::xref::XrefEntry::Normal { offset, .. }) => Some(*offset),
        _ => None,
    };
    let named = doc
        .objects
        .iter()
        .filter_map(|(id, o)| Some((offset(id)?, o.as_stream().ok()?)))
        .filter(|(_, s)| {
            s.dict.get(b"Type").and_then(Object::as_name).ok() == Some(b"XRef".as_slice())
        })
        .max_by_key(|(at, _)| *at)
        .and_then(|(_, s)| s.dict.get(b"Root").and_then(Object::as_reference).ok())
        .filter(|root| root.0 != SYNTHETIC_CATALOG_NUMBER)
        .filter(|root| {
            doc.objects
                .get(root)
                .and_then(|o| o.as_dict().ok())
                .is_some_and(is_catalog)
        });
    named.or_else(|| {
        doc.objects
            .iter()
            .filter(|(id, _)| id.0 != SYNTHETIC_CATALOG_NUMBER)
            .filter_map(|(id, o)| Some((*id, o.as_dict().ok()?)))
            .filter(|(_, d)| is_catalog(d))
            .map(|(id, _)| id)
            .min()
    })
}

/// The object number of [`SYNTHETIC_CATALOG`].
const SYNTHETIC_CATALOG_NUMBER: u32 = 999_999;

/// Appended to a file whose trailer and catalog are both unusable; object
/// 999 999 is the highest number lopdf's scan accepts (it rejects numbers
/// past 1 000 000), so a real object is unlikely to be shadowed.
const SYNTHETIC_CATALOG: &[u8] =
    b"\n999999 0 obj\n<< /Type /Catalog >>\nendobj\ntrailer\n<< /Root 999999 0 R /Size 1000000 >>\n";

/// Most cross-reference entries checked against the file by
/// `rebuild_if_misplaced`.
pub const MAX_XREF_ENTRIES_CHECKED: usize = 1_000_000;

/// True when `N G obj` starts at `offset` (after at most a few bytes of
/// whitespace, which readers tolerate).
fn object_header_at(body: &[u8], offset: usize, num: u32, generation: u16) -> bool {
    let Some(rest) = body.get(offset..) else {
        return false;
    };
    let skip = rest
        .iter()
        .take(16)
        .take_while(|b| b.is_ascii_whitespace())
        .count();
    let rest = rest.get(skip..).unwrap_or_default();
    let mut fields = rest
        .get(..rest.len().min(48))
        .unwrap_or_default()
        .split(|b| b.is_ascii_whitespace())
        .filter(|f| !f.is_empty());
    let num_ok = fields.next() == Some(num.to_string().as_bytes());
    let gen_ok = fields.next() == Some(generation.to_string().as_bytes());
    let obj_ok = fields.next().is_some_and(|f| f.starts_with(b"obj"));
    num_ok && gen_ok && obj_ok
}

/// `/N` of the linearization dictionary (ISO 32000-1 Annex F.2.2), when the
/// first object after the header is one and its `/L` equals the file length.
/// Only the first [`HEADER_SEARCH_BYTES`] bytes after the header are read.
pub fn linearized_pages(data: &[u8]) -> Option<u64> {
    let start = pdf_header(data)?;
    let head = data.get(start..)?;
    let head = head.get(..head.len().min(HEADER_SEARCH_BYTES))?;
    let at = head.windows(11).position(|w| w == b"/Linearized")?;
    // The dictionary must be the first object: no other `obj` before it.
    let before = head.get(..at)?;
    if before.windows(3).filter(|w| *w == b"obj").count() != 1 {
        return None;
    }
    let rest = head.get(at..)?;
    let end = rest.windows(2).position(|w| w == b">>")?;
    let dict = rest.get(..end)?;
    // Tokens: split at whitespace and at '/', keeping names as "/Name".
    let text = String::from_utf8_lossy(dict).replace('/', " /");
    let tokens: Vec<&str> = text.split_ascii_whitespace().collect();
    let value = |key: &str| -> Option<u64> {
        let i = tokens.iter().position(|t| *t == key)?;
        tokens.get(i.saturating_add(1))?.parse().ok()
    };
    let length = u64::try_from(data.len()).ok()?;
    (value("/L")? == length).then(|| value("/N"))?
}

/// Maps a lopdf load error onto our kinds.
fn map_error(e: lopdf::Error, limits: &Limits, missing_eof: bool) -> PdfError {
    use lopdf::{DecompressError as D, Error as E, ParseError as P};
    let detail = e.to_string();
    let xref_like = matches!(
        e,
        E::Parse(P::InvalidXref | P::InvalidTrailer | P::EndOfInput)
            | E::Xref(_)
            | E::MissingXrefEntry
            | E::InvalidOffset(_)
            | E::IndirectObject { .. }
            | E::ObjectNotFound(_)
    );
    match e {
        _ if xref_like && missing_eof => PdfError::Truncated {
            detail: format!("no %%EOF at the end; {detail}"),
        },
        E::Parse(P::InvalidFileHeader) => PdfError::NotPdf { detail },
        E::Parse(P::EndOfInput) => PdfError::Truncated { detail },
        E::Parse(P::InvalidXref | P::InvalidTrailer) | E::Xref(_) | E::MissingXrefEntry => {
            PdfError::MalformedXref { detail }
        }
        E::InvalidOffset(_) => PdfError::MalformedXref { detail },
        E::Decompress(D::MemoryLimitExceeded { .. }) => {
            PdfError::limit(Limit::StreamBytes, limits.max_stream_bytes)
        }
        E::Decompress(D::TooManyFilters { limit, .. }) => {
            PdfError::limit(Limit::StreamFilters, limit)
        }
        E::ReferenceCycle(id) => PdfError::ReferenceCycle { object: id.0 },
        E::ReferenceLimit => PdfError::ReferenceCycle { object: 0 },
        E::RecursionLimit => PdfError::NestingTooDeep {
            limit: Limit::ObjectNesting,
            max: LOPDF_MAX_NESTING,
        },
        E::InvalidPassword => PdfError::PasswordRequired { incorrect: true },
        E::UnsupportedSecurityHandler(h) => PdfError::unsupported_encryption(quote_name(&h)),
        E::Decryption(
            lopdf::encryption::DecryptionError::UnsupportedEncryption
            | lopdf::encryption::DecryptionError::UnsupportedVersion
            | lopdf::encryption::DecryptionError::UnsupportedRevision,
        ) => PdfError::unsupported_encryption(detail),
        E::IO(io) => PdfError::Io {
            detail: io.to_string(),
        },
        _ => PdfError::MalformedStructure { detail },
    }
}

/// The catalog (`/Root`) dictionary.
///
/// # Errors
/// `malformed_structure` when the trailer has no usable `/Root`.
pub fn catalog(doc: &Document) -> Result<&lopdf::Dictionary, PdfError> {
    let root = doc
        .trailer
        .get(b"Root")
        .map_err(|_| PdfError::structure("the trailer has no /Root (catalog)"))?;
    resolve(doc, root)?
        .as_dict()
        .map_err(|_| PdfError::structure("the catalog (/Root) is not a dictionary"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use lopdf::xref::XrefEntry;

    /// A classic-xref file of `objects` (number, body), in order.
    fn file(objects: &[(u32, String)]) -> Vec<u8> {
        let mut out = b"%PDF-1.4\n".to_vec();
        let mut offsets = Vec::new();
        for (num, body) in objects {
            offsets.push((*num, out.len()));
            out.extend_from_slice(format!("{num} 0 obj\n{body}\nendobj\n").as_bytes());
        }
        let size = offsets.iter().map(|(n, _)| n + 1).max().unwrap_or(1);
        let xref = out.len();
        out.extend_from_slice(format!("xref\n0 {size}\n0000000000 65535 f \n").as_bytes());
        for num in 1..size {
            let line = match offsets.iter().find(|(n, _)| *n == num) {
                Some((_, at)) => format!("{at:010} 00000 n \n"),
                None => "0000000000 65535 f \n".to_owned(),
            };
            out.extend_from_slice(line.as_bytes());
        }
        out.extend_from_slice(
            format!("trailer\n<< /Size {size} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n")
                .as_bytes(),
        );
        out
    }

    fn deep(k: usize) -> String {
        format!("{}{}", "[".repeat(k), "]".repeat(k))
    }

    /// Regression (review of the F6 fix): the spans were taken with
    /// `map_while`, so the first unparsed object whose span could not be
    /// found ended the walk. Here the first one (by offset) is an entry
    /// that points at no object header; the font after it is still
    /// flattened, and nothing else changes.
    #[test]
    fn an_object_without_a_span_does_not_stop_the_flattening() {
        let data = file(&[
            (1, "<< /Type /Catalog /Pages 2 0 R >>".into()),
            (2, "<< /Type /Pages /Kids [] /Count 0 >>".into()),
            (5, format!("<< /Type /Font /Junk {} >>", deep(150))),
        ]);
        let mut doc = Document::load_mem(&data).unwrap();
        assert!(!doc.objects.contains_key(&(5, 0)));
        // Offset 0 is the header line, not `40 0 obj`: no span.
        doc.reference_table.insert(
            40,
            XrefEntry::Normal {
                offset: 0,
                generation: 0,
            },
        );
        let out = with_unparsed_flattened(&data, &doc).unwrap();
        let at = data.windows(7).position(|w| w == b"5 0 obj").unwrap();
        assert_eq!(out[..at], data[..at]);
        let end = at + data[at..].windows(6).position(|w| w == b"endobj").unwrap();
        assert_eq!(out[end..], data[end..]);
        let mut span = data[at..end].to_vec();
        assert!(flatten_deep(&mut span, KEPT_NESTING));
        assert_eq!(out[at..end], span[..]);
        let fixed = Document::load_mem(&out).unwrap();
        let font = fixed.get_object((5, 0)).unwrap().as_dict().unwrap();
        assert_eq!(font.get(b"Type").unwrap().as_name().unwrap(), b"Font");
    }

    /// The same kind through a whole load (the entry that points at the
    /// header has the table rebuilt first): the page's deep font is read.
    /// Written as a fuzz seed under `TOOLGATE_WRITE_SEEDS`.
    #[test]
    fn a_stray_entry_before_a_deep_font_keeps_the_text() {
        let content = "BT /F1 12 Tf 72 720 Td (Hello deep font) Tj ET";
        let mut data = file(&[
            (1, "<< /Type /Catalog /Pages 2 0 R >>".into()),
            (2, "<< /Type /Pages /Kids [3 0 R] /Count 1 >>".into()),
            (3, "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>".into()),
            (4, format!("<< /Length {} >>\nstream\n{content}\nendstream", content.len())),
            (5, format!("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Junk {} >>", deep(150))),
            (6, "null".into()),
        ]);
        // Object 6's entry (the last) points at the header instead.
        let at = data.windows(6).rposition(|w| w == b" 00000").unwrap() - 10;
        data[at..at + 10].copy_from_slice(b"0000000000");
        let x = crate::pdf::extract(crate::pdf::Source::Bytes(&data), None).unwrap();
        assert_eq!(
            x.pages[0].text.trim(),
            "Hello deep font",
            "{:?}",
            x.warnings
        );
        if std::env::var_os("TOOLGATE_WRITE_SEEDS").is_some() {
            let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/pdf_extract");
            std::fs::write(
                dir.join("hostile-deep-font-after-a-stray-xref-entry.pdf"),
                &data,
            )
            .unwrap();
        }
    }

    /// The search for `endobj` reads within its budget: an object with no
    /// `endobj` reaches the end of the file when the budget covers it, and
    /// has no span when it does not; a wrong object header has none either.
    #[test]
    fn object_spans_are_read_within_the_budget() {
        let data = file(&[
            (1, "<< /Type /Catalog /Pages 2 0 R >>".into()),
            (2, "<< /Type /Pages /Kids [] /Count 0 >>".into()),
        ]);
        let doc = Document::load_mem(&data).unwrap();
        let at = data.windows(7).position(|w| w == b"2 0 obj").unwrap();
        let end = at + data[at..].windows(6).position(|w| w == b"endobj").unwrap();
        let mut budget = data.len();
        assert_eq!(
            object_span(&data, 0, &doc, (2, 0), &mut budget),
            Some((at, end))
        );
        assert_eq!(budget, data.len() - (end + 6 - at));
        let mut budget = end - at + 6;
        assert_eq!(
            object_span(&data, 0, &doc, (2, 0), &mut budget),
            Some((at, end))
        );
        assert_eq!(budget, 0);
        let mut budget = end - at + 5;
        assert_eq!(object_span(&data, 0, &doc, (2, 0), &mut budget), None);
        assert_eq!(budget, 0);
        // A generation that is not the header's.
        let mut budget = data.len();
        assert_eq!(object_span(&data, 0, &doc, (2, 1), &mut budget), None);
        assert_eq!(budget, data.len());
        // No `endobj` after the object: the span runs to the end.
        let cut = &data[..end];
        let mut budget = cut.len();
        assert_eq!(
            object_span(cut, 0, &doc, (2, 0), &mut budget),
            Some((at, cut.len()))
        );
        assert_eq!(budget, at);
    }
}
