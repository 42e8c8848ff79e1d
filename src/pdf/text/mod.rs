//! Page text: a content-stream interpreter that places glyphs, decodes them
//! to Unicode and lays them out in reading order the way pdftotext does.
//!
//! INTERFACE CONTRACT (used by the document-level extractor):
//! `page_text(doc, page_id, limits)` never panics and never fails as a whole:
//! it returns whatever text it could place, plus warnings for what it could
//! not read (a bad font, an undecodable stream, a limit reached).
//!
//! Modules, one job each:
//! * `interp` — operators, graphics/text state, Form XObjects → placed glyphs.
//! * `lex` — where lopdf's content parser stopped in a stream (bytes left unread).
//! * `font` — code splitting, text and widths of simple and composite fonts.
//! * `encoding` — simple encodings, `/Differences`, glyph names → Unicode.
//! * `cmap` — ToUnicode and embedded encoding CMaps.
//! * `embedded` — built-in encodings and cmaps of embedded font programs.
//! * `layout` — glyphs → words → lines → columns → text.

pub mod cmap;
mod embedded;
pub mod encoding;
mod font;
mod interp;
pub mod layout;
pub(crate) mod lex;
mod std14;

pub(crate) use interp::Call;

pub use cmap::{MAX_BFRANGE_SPAN, MAX_CMAP_ENTRIES, MAX_CODESPACE_RANGES};
pub use font::{MAX_SIMPLE_WIDTHS, MAX_W_ENTRIES};
pub use interp::{MAX_FONTS_PER_PAGE, MAX_GSTATE_DEPTH, MAX_MARKED_DEPTH};

/// Default for [`TextLimits::max_chars`]: characters of text per page.
pub const MAX_PAGE_CHARS: usize = 1 << 20;
/// Most content streams of one page (`/Contents` array entries) read.
pub const MAX_CONTENT_STREAMS: usize = 4096;

use lopdf::{Dictionary, Document, Object, ObjectId};

use crate::pdf::limits;
use crate::pdf::object::{deref, number_array};

/// Bounds for interpreting one page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TextLimits {
    /// Most characters of text produced for the page (in an extraction,
    /// the characters left to the call: reaching it is `output_chars`).
    pub max_chars: usize,
    /// Deepest nesting of Form XObjects followed ([`limits::MAX_FORM_DEPTH`]).
    pub max_form_depth: usize,
    /// Most content-stream operators interpreted, all streams of the page
    /// ([`limits::MAX_OPERATIONS_PER_PAGE`]).
    pub max_operations: usize,
    /// Most decoded bytes of any one stream: content, form, CMap, font
    /// ([`limits::MAX_STREAM_BYTES`]).
    pub max_stream_bytes: usize,
    /// Most glyphs placed ([`limits::MAX_GLYPHS_PER_PAGE`]).
    pub max_glyphs: usize,
}

impl Default for TextLimits {
    fn default() -> Self {
        Self {
            max_chars: MAX_PAGE_CHARS,
            max_form_depth: limits::MAX_FORM_DEPTH,
            max_operations: limits::MAX_OPERATIONS_PER_PAGE,
            max_stream_bytes: limits::MAX_STREAM_BYTES,
            max_glyphs: limits::MAX_GLYPHS_PER_PAGE,
        }
    }
}

/// The text of one page.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PageText {
    /// Text in reading order; lines separated by `\n`.
    pub text: String,
    /// What could not be read on this page, for humans: first those that
    /// say text was lost, then [`minor_warnings`](Self::minor_warnings)
    /// minor ones (a font read with a stand-in: the text is still there).
    pub warnings: Vec<String>,
    /// How many of `warnings`, at its end, are minor.
    pub minor_warnings: usize,
    /// True when a limit cut the page short.
    pub truncated: bool,
    /// The call limits ([`crate::pdf::limits::Limit::StreamBytes`],
    /// [`crate::pdf::limits::Limit::TotalDecodedBytes`]) that refused a
    /// stream of this page, so that its text is incomplete.
    pub limits_hit: Vec<crate::pdf::limits::Limit>,
}

/// Extracts the text of page `page_id` of `doc`: lines separated by `\n`,
/// words by a space, in reading order, with a fresh call budget
/// ([`crate::pdf::Limits::default`]).
///
/// Total: never panics, never fails as a whole. Unreadable fonts, streams
/// and operators become `warnings`; hitting a [`TextLimits`] bound or the
/// call's work budget sets `truncated` and keeps the text placed so far.
pub fn page_text(doc: &Document, page_id: ObjectId, limits: &TextLimits) -> PageText {
    let mut call = interp::Call::new(&limits::Limits::default());
    page_text_in(doc, page_id, limits, &mut call)
}

/// [`page_text`] as one page of `call`: its work draws from the call's
/// budget, and fonts and forms loaded by earlier pages are reused.
pub(crate) fn page_text_in(
    doc: &Document,
    page_id: ObjectId,
    limits: &TextLimits,
    call: &mut interp::Call,
) -> PageText {
    let mut sink = interp::Sink::new(call);
    let Ok(page) = doc.get_dictionary(page_id) else {
        return PageText {
            warnings: vec![format!(
                "page {} {} R is not a dictionary",
                page_id.0, page_id.1
            )],
            ..PageText::default()
        };
    };
    let resources = inherited(doc, page, b"Resources").and_then(|o| match o {
        Object::Dictionary(d) => Some(d),
        _ => None,
    });
    sink.bounds = page_bounds(doc, page);
    let data = page_content(doc, page, limits, &mut sink);
    interp::run_page(
        doc,
        limits,
        &mut sink,
        &data,
        resources,
        interp::Matrix::IDENTITY,
    );
    run_annotations(doc, page, limits, &mut sink);
    let mut text = layout::layout(&sink.glyphs, &sink.text);
    let mut truncated = sink.truncated;
    if text.len() > limits.max_chars {
        // Layout adds spaces, line breaks and ligature expansions: cut again.
        let mut cut = limits.max_chars;
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        text.truncate(cut);
        truncated = true;
    }
    let (warnings, minor_warnings) = sink.take_warnings();
    PageText {
        text,
        warnings,
        minor_warnings,
        truncated,
        limits_hit: sink.limits_hit,
    }
}

/// The visible area of a page: its `/CropBox` clipped to its `/MediaBox`
/// (both inherited, §7.7.3.3 and §14.11.2), normalised to `[x0, y0, x1, y1]`
/// with `x0 < x1` and `y0 < y1`. `None` when the page has no usable
/// `/MediaBox` (nothing is then dropped as off-page).
pub fn page_bounds(doc: &Document, page: &Dictionary) -> Option<[f64; 4]> {
    let rect = |key: &[u8]| -> Option<[f64; 4]> {
        let [a, b, c, d] = number_array::<4>(doc, inherited(doc, page, key)?)?;
        let (x0, y0, x1, y1) = (a.min(c), b.min(d), a.max(c), b.max(d));
        (x0 < x1 && y0 < y1).then_some([x0, y0, x1, y1])
    };
    let media = rect(b"MediaBox")?;
    let Some([cx0, cy0, cx1, cy1]) = rect(b"CropBox") else {
        return Some(media);
    };
    let [mx0, my0, mx1, my1] = media;
    let (x0, y0, x1, y1) = (cx0.max(mx0), cy0.max(my0), cx1.min(mx1), cy1.min(my1));
    // A crop box outside the media box is ignored.
    Some(if x0 < x1 && y0 < y1 {
        [x0, y0, x1, y1]
    } else {
        media
    })
}

/// Most annotations of one page whose appearance is read.
pub const MAX_ANNOTATIONS: usize = 4096;

/// Annotation flags (§12.5.3): Hidden and NoView annotations are not shown.
const ANNOT_HIDDEN: i64 = 1 << 1;
const ANNOT_NO_VIEW: i64 = 1 << 5;

/// Draws the normal appearance of each visible annotation (filled form
/// fields, free text, stamps), as a viewer and pdftotext do: the appearance
/// stream's `/BBox`, transformed by its `/Matrix`, is fitted onto the
/// annotation's `/Rect` (§12.5.5).
fn run_annotations<'a>(
    doc: &'a Document,
    page: &'a Dictionary,
    limits: &TextLimits,
    sink: &mut interp::Sink,
) {
    let deref = |o: &'a Object| deref(doc, o);
    let Some(Object::Array(annots)) = page.get(b"Annots").ok().and_then(deref) else {
        return;
    };
    for annot in annots.iter().take(MAX_ANNOTATIONS) {
        if sink.truncated {
            return;
        }
        let Some(Object::Dictionary(a)) = deref(annot) else {
            continue;
        };
        let flags = match a.get(b"F").ok().and_then(deref) {
            Some(Object::Integer(f)) => *f,
            _ => 0,
        };
        if flags & (ANNOT_HIDDEN | ANNOT_NO_VIEW) != 0 {
            continue;
        }
        let Some(Object::Dictionary(ap)) = a.get(b"AP").ok().and_then(deref) else {
            continue;
        };
        let form = match ap.get(b"N").ok().and_then(deref) {
            Some(Object::Stream(s)) => s,
            Some(Object::Dictionary(states)) => {
                let state = a
                    .get(b"AS")
                    .ok()
                    .and_then(deref)
                    .and_then(|o| o.as_name().ok());
                match state.and_then(|n| states.get(n).ok()).and_then(deref) {
                    Some(Object::Stream(s)) => s,
                    _ => continue,
                }
            }
            _ => continue,
        };
        let Some(rect) = rect_of(doc, a.get(b"Rect").ok()) else {
            continue;
        };
        let Some(bbox) = rect_of(doc, form.dict.get(b"BBox").ok()) else {
            continue;
        };
        let matrix = form
            .dict
            .get(b"Matrix")
            .ok()
            .and_then(|m| number_array::<6>(doc, m))
            .map(interp::Matrix)
            .unwrap_or(interp::Matrix::IDENTITY);
        // The transformed box's bounds, then the map of those onto /Rect.
        let [bx0, by0, bx1, by1] = bbox;
        let corners =
            [(bx0, by0), (bx1, by0), (bx0, by1), (bx1, by1)].map(|(x, y)| matrix.apply(x, y));
        let (mut x0, mut y0, mut x1, mut y1) = (
            f64::INFINITY,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NEG_INFINITY,
        );
        for (x, y) in corners {
            x0 = x0.min(x);
            y0 = y0.min(y);
            x1 = x1.max(x);
            y1 = y1.max(y);
        }
        let [rx0, ry0, rx1, ry1] = rect;
        let sx = if x1 > x0 {
            (rx1 - rx0) / (x1 - x0)
        } else {
            1.0
        };
        let sy = if y1 > y0 {
            (ry1 - ry0) / (y1 - y0)
        } else {
            1.0
        };
        let fit = interp::Matrix([sx, 0.0, 0.0, sy, rx0 - x0 * sx, ry0 - y0 * sy]);
        let ctm = matrix.then(&fit);
        if ctm.0.iter().all(|v| v.is_finite()) {
            interp::run_appearance(doc, limits, sink, form, ctm);
        }
    }
}

/// A rectangle `[x0 y0 x1 y1]`, normalised so that `x0 <= x1`, `y0 <= y1`.
fn rect_of(doc: &Document, o: Option<&Object>) -> Option<[f64; 4]> {
    let [a, b, c, d] = number_array::<4>(doc, o?)?;
    Some([a.min(c), b.min(d), a.max(c), b.max(d)])
}

/// Most levels of `/Parent` climbed looking for inherited page attributes.
pub const MAX_INHERIT_DEPTH: usize = 64;

/// A page attribute, inherited through `/Parent` (§7.7.3.4).
fn inherited<'a>(doc: &'a Document, page: &'a Dictionary, key: &[u8]) -> Option<&'a Object> {
    let mut node = page;
    for _ in 0..MAX_INHERIT_DEPTH {
        if let Ok(v) = node.get(key) {
            return deref(doc, v);
        }
        let parent = node.get(b"Parent").ok()?;
        node = match deref(doc, parent)? {
            Object::Dictionary(d) => d,
            _ => return None,
        };
    }
    None
}

/// The page's content streams, decoded and joined (§7.8.2: split at any token boundary).
fn page_content(
    doc: &Document,
    page: &Dictionary,
    limits: &TextLimits,
    sink: &mut interp::Sink,
) -> Vec<u8> {
    let mut out = Vec::new();
    let Ok(contents) = page.get(b"Contents") else {
        return out;
    };
    let streams: Vec<&Object> = match crate::pdf::object::resolve(doc, contents) {
        Ok(Object::Array(a)) => a.iter().take(MAX_CONTENT_STREAMS).collect(),
        Ok(o) => vec![o],
        Err(e) => {
            sink.alert(format!("page /Contents: {e}"));
            return out;
        }
    };
    for s in streams {
        let Some(Object::Stream(stream)) = deref(doc, s) else {
            continue;
        };
        let room = limits.max_stream_bytes.saturating_sub(out.len());
        match crate::pdf::stream::decode_stream(stream, room) {
            Ok(d) => {
                if let Some(fault) = crate::pdf::stream::flate_fault(stream, room) {
                    sink.alert(format!("page content stream: {fault}"));
                }
                out.extend_from_slice(&d);
                out.push(b'\n');
            }
            Err(e) => sink.stream_failed("page content stream".into(), &e),
        }
    }
    out
}
