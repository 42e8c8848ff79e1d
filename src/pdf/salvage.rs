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
fn object_id_before(data: &[u8], obj_at: usize) -> Option<ObjectId> {
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
