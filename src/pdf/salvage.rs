//! Salvage from damaged files what lopdf's strict parser drops but poppler
//! still reads: the trailer's `/Info` after the trailer was lost, and page
//! objects whose dictionaries no longer parse. Byte scans over the input,
//! each linear in its size and bounded.

use lopdf::{dictionary, Document, Object, ObjectId};

/// The Info dictionary of a file whose trailer was lost to damage: the last
/// `/Info N G R` written in the file (in a trailer or a cross-reference stream
/// dictionary of any revision) that names a dictionary of `doc`. Poppler's
/// reconstruction reads the trailers it finds in the same way; lopdf's keeps
/// only `/Root`.
pub fn find_info_reference(data: &[u8], doc: &Document) -> Option<lopdf::ObjectId> {
    const KEY: &[u8] = b"/Info";
    let mut found = None;
    let mut at = 0usize;
    while let Some(pos) = data
        .get(at..)
        .and_then(|rest| rest.windows(KEY.len()).position(|w| w == KEY))
    {
        let key_at = at.saturating_add(pos);
        let start = key_at.saturating_add(KEY.len());
        at = start;
        if !is_top_level_key(data, key_at) {
            continue;
        }
        // `N G R` after optional whitespace; at most 40 bytes are looked at.
        let tail = data.get(start..data.len().min(start.saturating_add(40)))?;
        let text = String::from_utf8_lossy(tail);
        let mut fields = text.split_ascii_whitespace();
        let (Some(n), Some(g), Some(r)) = (fields.next(), fields.next(), fields.next()) else {
            continue;
        };
        if !tail.first().is_some_and(u8::is_ascii_whitespace) || !r.starts_with('R') {
            continue;
        }
        let (Ok(n), Ok(g)) = (n.parse::<u32>(), g.parse::<u16>()) else {
            continue;
        };
        if doc
            .objects
            .get(&(n, g))
            .is_some_and(|o| o.as_dict().is_ok())
        {
            found = Some((n, g));
        }
    }
    found
}

/// True when the key at `key_at` belongs to a dictionary opened right after
/// `trailer` or `obj` (a trailer or a cross-reference stream dictionary),
/// with no nested dictionary before it: a `/Info` buried in nested
/// dictionaries is not the trailer's.
fn is_top_level_key(data: &[u8], key_at: usize) -> bool {
    let Some(before) = data.get(key_at.saturating_sub(1024)..key_at) else {
        return false;
    };
    let Some(open) = before.windows(2).rposition(|w| w == b"<<") else {
        return false;
    };
    let between = before.get(open.saturating_add(2)..).unwrap_or_default();
    if between.windows(2).any(|w| w == b">>") {
        return false;
    }
    let head = before.get(..open).unwrap_or_default();
    let head = head
        .get(
            ..head.len().saturating_sub(
                head.iter()
                    .rev()
                    .take_while(|b| b.is_ascii_whitespace())
                    .count(),
            ),
        )
        .unwrap_or_default();
    head.ends_with(b"trailer") || head.ends_with(b"obj")
}

/// Most stream objects [`restore_stream_data`] repairs in one document.
pub const MAX_STREAMS_RESTORED: usize = 10_000;

/// Gives back the data of streams that lopdf loaded empty because their
/// `/Length` is unusable (negative, not a number, a reference to a missing
/// object or to the stream itself): the bytes between the `stream` keyword's
/// end of line and the next `endstream`, as poppler reads them, at most
/// `max_bytes` of them. Unencrypted documents only (lopdf decrypts while
/// loading; bytes read here again would still be encrypted). Returns how
/// many streams were restored.
pub fn restore_stream_data(data: &[u8], doc: &mut Document, max_bytes: usize) -> usize {
    if doc.encryption_state.is_some() {
        return 0;
    }
    // lopdf's offsets count from the `%PDF-` header.
    let Some(start) = data.windows(5).position(|w| w == b"%PDF-") else {
        return 0;
    };
    let body = data.get(start..).unwrap_or_default();
    // Streams loaded empty, and in-use entries whose object lopdf dropped
    // altogether (it drops a stream whose /Length points nowhere useful).
    let lost: Vec<(ObjectId, usize)> = doc
        .reference_table
        .entries
        .iter()
        .filter_map(|(&num, entry)| match *entry {
            lopdf::xref::XrefEntry::Normal { offset, generation } => {
                let id = (num, generation);
                let wanted = match doc.objects.get(&id) {
                    None => true,
                    Some(Object::Stream(s)) => s.content.is_empty() && !length_usable(doc, s),
                    Some(_) => false,
                };
                wanted.then_some((id, usize::try_from(offset).ok()?))
            }
            _ => None,
        })
        .take(MAX_STREAMS_RESTORED)
        .collect();
    // Entries may all point at one huge stream: the bytes restored over the
    // document are bounded by the file's own size.
    let mut budget = data.len();
    let mut restored = 0usize;
    for (id, offset) in lost {
        let Some(stream) = reparse_stream(body, offset, max_bytes.min(budget)) else {
            continue;
        };
        budget = budget.saturating_sub(stream.content.len());
        doc.objects.insert(id, Object::Stream(stream));
        restored = restored.saturating_add(1);
    }
    restored
}

/// The stream object `id` written at `offset`, read again with its data
/// taken up to `endstream` and its `/Length` set to match: the dictionary is
/// parsed by lopdf itself, in a one-object document of our making.
fn reparse_stream(body: &[u8], offset: usize, max_bytes: usize) -> Option<lopdf::Stream> {
    let from = body.get(offset..)?;
    let head = from.get(..from.len().min(MAX_OBJECT_SCAN))?;
    let obj = head.windows(3).position(|w| w == b"obj")?.checked_add(3)?;
    let kw = head.windows(6).position(|w| w == b"stream")?;
    let dict = head.get(obj..kw)?.trim_ascii();
    let dict = dict.strip_prefix(b"<<")?.strip_suffix(b">>")?;
    let data = stream_bytes_after(from, kw, max_bytes)?;
    if data.is_empty() {
        return None;
    }
    // A later duplicate key wins in lopdf's dictionaries.
    let mut mini = b"%PDF-1.7\n1 0 obj\n<<".to_vec();
    mini.extend_from_slice(dict);
    mini.extend_from_slice(format!(" /Length {} >>\nstream\n", data.len()).as_bytes());
    mini.extend_from_slice(data);
    mini.extend_from_slice(b"\nendstream\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n");
    let options = lopdf::LoadOptions {
        max_decompressed_size: Some(max_bytes.max(1)),
        force_reconstruct: true,
        ..lopdf::LoadOptions::default()
    };
    let mut doc = Document::load_mem_with_options(&mini, options).ok()?;
    match doc.objects.remove(&(1, 0))? {
        Object::Stream(s) if s.content.len() == data.len() => Some(s),
        _ => None,
    }
}

/// True when the stream's `/Length` is a non-negative integer, directly or
/// through one reference to another object.
fn length_usable(doc: &Document, stream: &lopdf::Stream) -> bool {
    match stream.dict.get(b"Length") {
        Ok(Object::Integer(n)) => *n >= 0,
        Ok(Object::Reference(r)) => {
            matches!(doc.objects.get(r), Some(Object::Integer(n)) if *n >= 0)
        }
        _ => false,
    }
}

/// The raw data of a stream whose `stream` keyword is at `kw` in `from`:
/// after the keyword's end of line, up to the next `endstream` (minus the end
/// of line before it), at most `max_bytes`.
fn stream_bytes_after(from: &[u8], kw: usize, max_bytes: usize) -> Option<&[u8]> {
    let mut at = kw.checked_add(6)?;
    match (from.get(at), from.get(at.saturating_add(1))) {
        (Some(b'\r'), Some(b'\n')) => at = at.saturating_add(2),
        (Some(b'\r' | b'\n'), _) => at = at.saturating_add(1),
        _ => {}
    }
    let rest = from.get(at..)?;
    let window = rest.get(..rest.len().min(max_bytes.saturating_add(16)))?;
    let end = window.windows(9).position(|w| w == b"endstream")?;
    let mut data = window.get(..end)?;
    if let Some(d) = data.strip_suffix(b"\r\n") {
        data = d;
    } else if let Some(d) = data
        .strip_suffix(b"\n")
        .or_else(|| data.strip_suffix(b"\r"))
    {
        data = d;
    }
    (data.len() <= max_bytes).then_some(data)
}

/// Most bytes of one object looked at by [`restore_unparsed_pages`].
const MAX_OBJECT_SCAN: usize = 64 << 10;

/// Finds objects whose bytes say `/Type /Page` (not `/Pages`) but which lopdf
/// could not parse (a fuzzed token in the dictionary), and puts an empty page
/// dictionary in their place in `doc`: the page tree (or the page scan) then
/// counts them, as poppler's lenient parser does, and the text extractor
/// finds no content for them. At most `max_pages` are restored. Returns how
/// many were.
pub fn restore_unparsed_pages(data: &[u8], doc: &mut Document, max_pages: usize) -> usize {
    let mut restored = 0usize;
    let mut at = 0usize;
    while let Some(pos) = data
        .get(at..)
        .and_then(|rest| rest.windows(3).position(|w| w == b"obj"))
    {
        let obj_at = at.saturating_add(pos);
        at = obj_at.saturating_add(3);
        if restored >= max_pages {
            break;
        }
        let Some(id) = object_id_before(data, obj_at) else {
            continue;
        };
        if doc.objects.contains_key(&id) {
            continue;
        }
        let body_end = data.len().min(at.saturating_add(MAX_OBJECT_SCAN));
        let body = data.get(at..body_end).unwrap_or_default();
        // Up to `endobj`, or the next object's header when `endobj` is lost.
        let body = body
            .windows(3)
            .position(|w| w == b"obj")
            .and_then(|end| body.get(..end))
            .unwrap_or(body);
        if says_page(body) {
            doc.objects
                .insert(id, Object::Dictionary(dictionary! {"Type" => "Page"}));
            restored = restored.saturating_add(1);
        }
    }
    restored
}

/// `N G` written right before the `obj` keyword at `obj_at`, at the start of
/// a line or after whitespace.
pub(crate) fn object_id_before(data: &[u8], obj_at: usize) -> Option<ObjectId> {
    let before = data.get(obj_at.saturating_sub(24)..obj_at)?;
    let text = std::str::from_utf8(before).ok()?;
    if !text.ends_with(|c: char| c.is_ascii_whitespace()) {
        return None;
    }
    let mut fields = text.split_ascii_whitespace().rev();
    let generation = fields.next()?.parse::<u16>().ok()?;
    let number = fields.next()?;
    // The number must be a whole token (not the tail of other digits).
    let number = number.parse::<u32>().ok()?;
    Some((number, generation))
}

/// True when `body` holds `/Type /Page` (whitespace optional) not followed by
/// more name characters (so not `/Pages`).
fn says_page(body: &[u8]) -> bool {
    const KEY: &[u8] = b"/Type";
    body.windows(KEY.len()).enumerate().any(|(i, w)| {
        w == KEY && {
            let rest = body.get(i.saturating_add(KEY.len())..).unwrap_or_default();
            let skip = rest.iter().take_while(|b| b.is_ascii_whitespace()).count();
            let rest = rest.get(skip..).unwrap_or_default();
            rest.starts_with(b"/Page")
                && rest
                    .get(5)
                    .is_none_or(|b| b.is_ascii_whitespace() || b"()<>[]{}/%".contains(b))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_type_is_recognised() {
        assert!(says_page(b"<< /Type/Page >>"));
        assert!(says_page(b"<< R/X 1 /Type /Page/Parent 2 0 R >>"));
        assert!(!says_page(b"<< /Type /Pages >>"));
        assert!(!says_page(b"<< /Type /PageLabel >>"));
    }

    #[test]
    fn ids_before_obj() {
        assert_eq!(object_id_before(b"\n15 0 obj", 6), Some((15, 0)));
        assert_eq!(object_id_before(b"x 15 0obj", 6), None);
    }
}
