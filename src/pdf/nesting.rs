//! Same-length flattening of values nested deeper than lopdf reads.
//!
//! lopdf 0.47 refuses any object nested deeper than
//! [`super::load::LOPDF_MAX_NESTING`] levels, where poppler reads 500. In
//! most objects that costs the one object; in the `/Encrypt` dictionary it
//! costs the whole file, although no security handler reads deeper than
//! three levels (`/CF` → `/StdCF` → `/CFM`). [`flatten_deep`] overwrites
//! what lies deeper than [`KEPT_NESTING`] in place, so no offset of the file
//! moves and its cross-reference data stays right.

/// Deepest array or dictionary nesting [`flatten_deep`] keeps, counting the
/// object's own outer dictionary as 1: far above any key a security handler
/// reads, far below lopdf's limit.
pub const KEPT_NESTING: usize = 32;

/// Overwrites each array or dictionary of `object` (the bytes of one
/// indirect object) that opens deeper than `kept` levels with `null` (or
/// `0` where `null` does not fit) and spaces, the same length. Literal and
/// hexadecimal strings and comments are skipped as PDF lexes them (ISO
/// 32000-1 §7.2, §7.3.4), so their bytes are never taken for brackets. A
/// container left open at the end of `object` is kept. Returns whether
/// anything changed. One pass over `object`.
pub fn flatten_deep(object: &mut [u8], kept: usize) -> bool {
    let mut depth = 0usize;
    let mut deep_from: Option<usize> = None;
    let mut changed = false;
    let mut at = 0usize;
    while let Some(&b) = object.get(at) {
        let next = object.get(at.saturating_add(1)).copied();
        let (opens, closes, width) = match (b, next) {
            (b'[', _) => (true, false, 1),
            (b'<', Some(b'<')) => (true, false, 2),
            (b']', _) => (false, true, 1),
            (b'>', Some(b'>')) => (false, true, 2),
            (b'(', _) => {
                at = literal_string_end(object, at);
                continue;
            }
            (b'<', _) => {
                at = until(object, at, |c| c == b'>').saturating_add(1);
                continue;
            }
            (b'%', _) => {
                at = until(object, at, |c| c == b'\r' || c == b'\n');
                continue;
            }
            _ => (false, false, 1),
        };
        if opens {
            if depth == kept {
                // The container past `kept`: none is open deeper than it.
                deep_from = Some(at);
            }
            depth = depth.saturating_add(1);
        } else if closes {
            depth = depth.saturating_sub(1);
            if depth == kept {
                if let Some(from) = deep_from.take() {
                    let to = at.saturating_add(width);
                    if let Some(span) = object.get_mut(from..to) {
                        overwrite(span);
                        changed = true;
                    }
                }
            }
        }
        at = at.saturating_add(width);
    }
    changed
}

/// `span` as `null` (or `0`) followed by spaces.
fn overwrite(span: &mut [u8]) {
    let word: &[u8] = if span.len() >= 4 { b"null" } else { b"0" };
    for (i, slot) in span.iter_mut().enumerate() {
        *slot = word.get(i).copied().unwrap_or(b' ');
    }
}

/// The index of the first byte at or after `from + 1` for which `stop`
/// holds, or the length of `bytes`.
fn until(bytes: &[u8], from: usize, stop: impl Fn(u8) -> bool) -> usize {
    let start = from.saturating_add(1);
    bytes
        .get(start..)
        .and_then(|rest| rest.iter().position(|&c| stop(c)))
        .map_or(bytes.len(), |p| start.saturating_add(p))
}

/// The index just past the literal string opening at `from`: balanced
/// parentheses, a backslash escaping the next byte (§7.3.4.2).
fn literal_string_end(bytes: &[u8], from: usize) -> usize {
    let mut open = 0usize;
    let mut at = from;
    while let Some(&b) = bytes.get(at) {
        match b {
            b'\\' => at = at.saturating_add(1),
            b'(' => open = open.saturating_add(1),
            b')' => {
                open = open.saturating_sub(1);
                if open == 0 {
                    return at.saturating_add(1);
                }
            }
            _ => {}
        }
        at = at.saturating_add(1);
    }
    bytes.len()
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;

    fn flat(s: &str, kept: usize) -> (String, bool) {
        let mut b = s.as_bytes().to_vec();
        let changed = flatten_deep(&mut b, kept);
        (String::from_utf8(b).unwrap(), changed)
    }

    #[test]
    fn deeper_containers_become_null_of_the_same_length() {
        let (out, changed) = flat("<< /A [[[1]]] /B << /C [2] >> >>", 2);
        assert_eq!(out, "<< /A [null ] /B << /C 0   >> >>");
        assert!(changed);
        let (out, changed) = flat("<< /A [[[1]]] >>", 4);
        assert_eq!(out, "<< /A [[[1]]] >>");
        assert!(!changed);
        // `[]` is too short for null.
        assert_eq!(flat("<</K[[]]>>", 2).0, "<</K[0 ]>>");
    }

    #[test]
    fn strings_and_comments_are_not_brackets() {
        let s = "<< /S ([[[\\(]]]) /H <5b5b> /C [% [[[[\n[1]] >>";
        assert_eq!(flat(s, 2), (s.replace("[1]", "0  "), true));
        let s = "<< /S ([[[[) >>";
        assert_eq!(flat(s, 1), (s.to_owned(), false));
    }

    #[test]
    fn an_open_container_at_the_end_is_kept() {
        assert_eq!(flat("<< /A [[[[", 2), ("<< /A [[[[".to_owned(), false));
        assert!(!flat("]]>> <<", 0).1);
    }

    /// Exact oracle: the flattened bytes keep their length and nest no
    /// deeper than `kept` outside strings, and every byte kept is the input's.
    #[test]
    fn property_flattened_nesting_is_bounded() {
        use proptest::prelude::*;
        let piece = prop::sample::select(vec![
            "[", "]", "<<", ">>", "(", ")", "\\", "<", ">", "%", "\n", " ", "1", "/N",
        ]);
        proptest!(|(pieces in prop::collection::vec(piece, 0..64), kept in 0usize..6)| {
            let input: String = pieces.concat();
            let mut out = input.as_bytes().to_vec();
            flatten_deep(&mut out, kept);
            prop_assert_eq!(out.len(), input.len());
            for (o, i) in out.iter().zip(input.as_bytes()) {
                prop_assert!(o == i || b"null0 ".contains(o));
            }
            // Bracket depth outside strings and comments, on the output.
            let mut depth = 0usize;
            let mut max = 0usize;
            let mut at = 0;
            while let Some(&b) = out.get(at) {
                let next = out.get(at + 1).copied();
                match (b, next) {
                    (b'(', _) => { at = literal_string_end(&out, at); continue; }
                    (b'<', Some(b'<')) | (b'[', _) => {
                        depth += 1;
                        max = max.max(depth);
                        at += if b == b'[' { 1 } else { 2 };
                        continue;
                    }
                    (b'>', Some(b'>')) | (b']', _) => {
                        depth = depth.saturating_sub(1);
                        at += if b == b']' { 1 } else { 2 };
                        continue;
                    }
                    (b'<', _) => { at = until(&out, at, |c| c == b'>') + 1; continue; }
                    (b'%', _) => { at = until(&out, at, |c| c == b'\r' || c == b'\n'); continue; }
                    _ => at += 1,
                }
            }
            // Only a container left open at the end may pass `kept`.
            prop_assert!(max <= kept || depth > kept, "{input:?} -> {:?}", String::from_utf8_lossy(&out));
        });
    }
}
