//! The content-stream interpreter: graphics and text state (PDF 32000-1:2008
//! §8.4 graphics state, §9.3 text state, §9.4 text objects), producing placed
//! glyphs for the layout step. Form XObjects are followed with a depth bound
//! and a cycle check; every loop is bounded by [`TextLimits`].

use std::collections::HashMap;
use std::rc::Rc;

use lopdf::content::{Content, Operation};
use lopdf::{Dictionary, Document, Object, ObjectId};

use super::font::Font;
use super::layout::Glyph;
use super::lex::{scan_operands, Cursor, OperandScan, MAX_OPERAND_NESTING};
use super::TextLimits;
use crate::pdf::budget::Work;
use crate::pdf::limits::{Limit, Limits, MAX_OPERANDS};
use crate::pdf::object::{deref, num, nums, resolve_with_id};
use crate::pdf::{MAX_PAGE_MINOR_WARNINGS, MAX_PAGE_WARNINGS};

/// Deepest `q` nesting tracked; deeper saves are counted but not stored.
pub const MAX_GSTATE_DEPTH: usize = 256;
/// Most distinct fonts loaded for one page.
pub const MAX_FONTS_PER_PAGE: usize = 1024;

/// An affine matrix `[a b c d e f]` (§8.3.4).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Matrix(pub [f64; 6]);

impl Matrix {
    pub const IDENTITY: Matrix = Matrix([1.0, 0.0, 0.0, 1.0, 0.0, 0.0]);

    /// `self × other` (apply `self` first, then `other`).
    pub fn then(&self, o: &Matrix) -> Matrix {
        let [a, b, c, d, e, f] = self.0;
        let [oa, ob, oc, od, oe, of] = o.0;
        Matrix([
            a * oa + b * oc,
            a * ob + b * od,
            c * oa + d * oc,
            c * ob + d * od,
            e * oa + f * oc + oe,
            e * ob + f * od + of,
        ])
    }

    pub fn apply(&self, x: f64, y: f64) -> (f64, f64) {
        let [a, b, c, d, e, f] = self.0;
        (a * x + c * y + e, b * x + d * y + f)
    }

    fn translate(tx: f64, ty: f64) -> Matrix {
        Matrix([1.0, 0.0, 0.0, 1.0, tx, ty])
    }

    fn finite(self) -> Option<Matrix> {
        self.0.iter().all(|v| v.is_finite()).then_some(self)
    }
}

#[derive(Clone)]
struct TextState {
    font: Option<Rc<Font>>,
    size: f64,
    char_spacing: f64,
    word_spacing: f64,
    hscale: f64,
    leading: f64,
    rise: f64,
}

#[derive(Clone)]
struct GState {
    ctm: Matrix,
    text: TextState,
}

/// Most table entries (see [`Font::entries`]) kept in a call's font cache;
/// past it the cache is emptied before the next font is added (fonts in use
/// stay alive through the graphics state).
pub const MAX_CACHED_FONT_ENTRIES: usize = 1 << 20;
/// Most decoded bytes of Form XObjects kept in a call's form cache; forms
/// past it are decoded again at each use (each decode charged to the call's
/// decode budget).
pub const MAX_CACHED_FORM_BYTES: usize = 16 << 20;

/// What one call keeps across its pages: the work budget every interpreted
/// stream draws from, the fonts loaded and the Form XObjects decoded (each
/// loaded or decoded once per call, however many pages use it).
#[derive(Debug)]
pub struct Call {
    pub(crate) work: Work,
    fonts: HashMap<usize, Rc<Font>>,
    font_entries: usize,
    forms: HashMap<ObjectId, Rc<[u8]>>,
    form_bytes: usize,
}

impl Call {
    /// A call with the work budget of `limits`; its CPU clock starts now.
    pub fn new(limits: &Limits) -> Call {
        Call {
            work: Work::new(limits),
            fonts: HashMap::new(),
            font_entries: 0,
            forms: HashMap::new(),
            form_bytes: 0,
        }
    }
}

/// Output sink shared by the page and its forms.
pub struct Sink<'c> {
    pub glyphs: Vec<Glyph>,
    pub text: String,
    /// Warnings that text of the page is lost ([`Sink::alert`]).
    warnings: Vec<String>,
    /// Minor warnings ([`Sink::warn`]: the text is still there).
    minor: Vec<String>,
    pub truncated: bool,
    /// Call limits that cut a stream of this page (its text is incomplete).
    pub limits_hit: Vec<Limit>,
    /// The visible page area `[x0, y0, x1, y1]` (default user space): glyphs
    /// wholly outside it are dropped, as pdftotext drops them.
    pub bounds: Option<[f64; 4]>,
    /// The call this page belongs to.
    pub call: &'c mut Call,
    ops: usize,
    /// Distinct warnings dropped past [`MAX_PAGE_WARNINGS`] (or past
    /// [`MAX_PAGE_MINOR_WARNINGS`] for minor ones).
    left_out: usize,
    page_fonts: Vec<usize>,
    fallback: Option<Rc<Font>>,
}

impl<'c> Sink<'c> {
    pub fn new(call: &'c mut Call) -> Sink<'c> {
        Sink {
            glyphs: Vec::new(),
            text: String::new(),
            warnings: Vec::new(),
            minor: Vec::new(),
            truncated: false,
            limits_hit: Vec::new(),
            bounds: None,
            call,
            ops: 0,
            left_out: 0,
            page_fonts: Vec::new(),
            fallback: None,
        }
    }

    fn fallback(&mut self, w: String) -> Rc<Font> {
        self.warn(w.clone());
        self.fallback
            .get_or_insert_with(|| Rc::new(Font::fallback(w)))
            .clone()
    }

    fn hit(&mut self, limit: Limit) {
        self.truncated = true;
        if !self.limits_hit.contains(&limit) {
            self.limits_hit.push(limit);
        }
    }

    /// The call's work budget ran out (operations or CPU time): the page
    /// stops here.
    pub fn budget_spent(&mut self, limit: Limit) {
        self.hit(limit);
        self.alert(format!(
            "interpretation stopped: the call's {} budget is used up",
            limit.name()
        ));
    }

    /// Charges `units` of work to the call; false (and the page cut short)
    /// when the budget is used up.
    pub fn charge(&mut self, units: usize) -> bool {
        match self.call.work.charge(units) {
            Ok(()) => true,
            Err(limit) => {
                self.budget_spent(limit);
                false
            }
        }
    }

    /// A content stream, Form XObject or appearance stream that could not be
    /// decoded: a warning, and when a size cap or the call's decode budget
    /// refused it, the page is marked cut short by that limit.
    pub fn stream_failed(&mut self, what: String, e: &crate::pdf::stream::StreamError) {
        use crate::pdf::stream::StreamError;
        let limit = match e {
            StreamError::TooLarge { .. } => Some(Limit::StreamBytes),
            StreamError::BudgetExhausted { .. } => Some(Limit::TotalDecodedBytes),
            _ => None,
        };
        if let Some(l) = limit {
            self.hit(l);
        }
        self.alert(format!("{what}: {e}"));
    }

    /// Warns about a content stream (`what`, of `len` bytes) that is not
    /// PDF content, or whose parsing stopped early; see [`StreamCheck`].
    fn check_stream(&mut self, what: &str, data: &[u8], check: StreamCheck) {
        let len = data.len();
        if Cursor::blank(data) {
            return;
        }
        let StreamCheck {
            ops,
            unknown,
            unknown_bytes,
            rest,
            failed,
        } = check;
        let stopped_at = rest.map(|(at, _)| at);
        let detail = if ops == 0 {
            Some("no operator could be read".to_owned())
        } else if unknown.saturating_mul(2) > ops {
            Some(format!("{unknown} of {ops} operators unknown"))
        } else if unknown_bytes.saturating_mul(2) > len {
            Some(format!(
                "{unknown_bytes} of its {len} bytes are operators that are not PDF's"
            ))
        } else {
            // Stopped in its first half after next to no PDF operator:
            // not content with a syntax error, but no content at all.
            stopped_at
                .filter(|at| {
                    at.saturating_mul(2) < len && ops.saturating_sub(unknown) < FEW_OPERATORS
                })
                .map(|at| format!("parsing stopped at byte {at} of {len}"))
        };
        if let Some(detail) = detail {
            self.alert(format!(
                "{what} is not PDF content ({detail}): it may be encrypted with a key or crypt filter that could not be used"
            ));
        } else if let Some(at) = stopped_at {
            self.alert(format!(
                "{what} has a syntax error at byte {at} of {len}: the text after it is lost"
            ));
        } else if failed {
            self.alert(format!(
                "{what} has a syntax error: the text after it is lost"
            ));
        }
    }

    /// A minor warning (a font read with a stand-in, say: the text is
    /// still there): kept while fewer than [`MAX_PAGE_MINOR_WARNINGS`]
    /// warnings are, so the rest of the room stays for [`Sink::alert`].
    fn warn(&mut self, w: String) {
        self.keep(w, MAX_PAGE_MINOR_WARNINGS, true);
    }

    /// A warning that text of the page is lost (a stream that could not be
    /// decoded or parsed, a limit): kept while fewer than
    /// [`MAX_PAGE_WARNINGS`] warnings are.
    pub fn alert(&mut self, w: String) {
        self.keep(w, MAX_PAGE_WARNINGS, false);
    }

    fn keep(&mut self, w: String, room: usize, minor: bool) {
        // Keep warnings few, short, safe and distinct.
        let w = crate::pdf::shorten(&w);
        if self.warnings.contains(&w) || self.minor.contains(&w) {
            return;
        }
        if self.warnings.len().saturating_add(self.minor.len()) >= room {
            self.left_out = self.left_out.saturating_add(1);
        } else if minor {
            self.minor.push(w);
        } else {
            self.warnings.push(w);
        }
    }

    /// The page's warnings that text is lost, one saying how many were
    /// left out, then the minor ones; and how many of the list are minor
    /// (its last ones).
    pub fn take_warnings(&mut self) -> (Vec<String>, usize) {
        let mut list = std::mem::take(&mut self.warnings);
        if self.left_out > 0 {
            list.push(format!(
                "{} more warnings on this page were left out (at most {MAX_PAGE_WARNINGS} per page, {MAX_PAGE_MINOR_WARNINGS} of them about fonts and other minor faults)",
                self.left_out
            ));
            self.left_out = 0;
        }
        let minor = std::mem::take(&mut self.minor);
        let count = minor.len();
        list.extend(minor);
        (list, count)
    }
}

/// PDF operators read before parsing stopped, below which a stream that
/// stopped in its first half is named as not PDF content rather than as
/// content with a syntax error.
const FEW_OPERATORS: usize = 4;

/// What [`Interp::run_ops`] saw of one content stream, for
/// [`Sink::check_stream`]: operations read, how many had an operator
/// that is none of PDF's (ISO 32000-1 Annex A) and the bytes of those
/// operators, where lopdf's parser
/// stopped with bytes left unread (offset, bytes left), and whether it
/// failed with an error.
struct StreamCheck {
    ops: usize,
    unknown: usize,
    unknown_bytes: usize,
    rest: Option<(usize, usize)>,
    failed: bool,
}

/// Interprets one content stream (`data`) with `resources`.
pub struct Interp<'a> {
    doc: &'a Document,
    limits: &'a TextLimits,
    /// Form XObjects being interpreted (cycle check).
    stack: Vec<ObjectId>,
}

impl<'a> Interp<'a> {
    pub fn new(doc: &'a Document, limits: &'a TextLimits) -> Self {
        Interp {
            doc,
            limits,
            stack: Vec::new(),
        }
    }

    fn sub_dict(&self, res: Option<&'a Dictionary>, key: &[u8]) -> Option<&'a Dictionary> {
        match deref(self.doc, res?.get(key).ok()?)? {
            Object::Dictionary(d) => Some(d),
            _ => None,
        }
    }

    fn font(&self, sink: &mut Sink, res: Option<&'a Dictionary>, name: &[u8]) -> Option<Rc<Font>> {
        let fonts = self.sub_dict(res, b"Font");
        let Some(entry) = fonts.and_then(|f| f.get(name).ok()) else {
            return Some(sink.fallback(format!(
                "font /{} not in resources; using a stand-in",
                crate::pdf::quote_name(name)
            )));
        };
        let (id, obj) = resolve_with_id(self.doc, entry).unwrap_or((None, entry));
        let Object::Dictionary(dict) = obj else {
            return Some(sink.fallback(format!(
                "font /{} is not a dictionary; using a stand-in",
                crate::pdf::quote_name(name)
            )));
        };
        // Key: the object id, else the dictionary's address (inline font dict).
        let key = match id {
            Some((n, g)) => ((n as usize) << 16) ^ usize::from(g),
            None => dict as *const Dictionary as usize,
        };
        if !sink.page_fonts.contains(&key) {
            if sink.page_fonts.len() >= MAX_FONTS_PER_PAGE {
                sink.alert(format!("more than {MAX_FONTS_PER_PAGE} fonts on the page"));
                return None;
            }
            sink.page_fonts.push(key);
        }
        if let Some(f) = sink.call.fonts.get(&key) {
            return Some(f.clone());
        }
        if let Err(limit) = sink.call.work.check_clock() {
            sink.budget_spent(limit);
            return None;
        }
        let font = Font::load(self.doc, dict, self.limits);
        for w in &font.warnings {
            sink.warn(format!("font /{}: {w}", crate::pdf::quote_name(name)));
        }
        let entries = font.entries();
        // The work is done either way: a font past the budget is still used
        // for what is drawn before the next operator finds the budget spent.
        sink.charge(entries);
        let font = Rc::new(font);
        if sink.call.font_entries.saturating_add(entries) > MAX_CACHED_FONT_ENTRIES {
            sink.call.fonts.clear();
            sink.call.font_entries = 0;
        }
        sink.call.font_entries = sink.call.font_entries.saturating_add(entries);
        sink.call.fonts.insert(key, font.clone());
        Some(font)
    }

    /// Runs the content stream `data` (`what`, for warnings) under `ctm`
    /// with `resources`.
    pub fn run(
        &mut self,
        sink: &mut Sink,
        what: &str,
        data: &[u8],
        resources: Option<&'a Dictionary>,
        ctm: Matrix,
    ) {
        let mut gs = GState {
            ctm,
            text: TextState {
                font: None,
                size: 0.0,
                char_spacing: 0.0,
                word_spacing: 0.0,
                hscale: 1.0,
                leading: 0.0,
                rise: 0.0,
            },
        };
        self.run_ops(sink, what, data, resources, &mut gs);
    }

    /// Interprets the content stream `data` (`what`, for warnings), then
    /// warns when it is not PDF content or its parsing stopped early
    /// ([`Sink::check_stream`]), unless a limit cut the page short.
    fn run_ops(
        &mut self,
        sink: &mut Sink,
        what: &str,
        data: &[u8],
        resources: Option<&'a Dictionary>,
        gs: &mut GState,
    ) {
        // Operations of more operands than lopdf should hold are blanked
        // out (the same length, so offsets in warnings stay), as poppler
        // skips them ("Too many args").
        let OperandScan {
            skipped: overlong,
            work,
        } = scan_operands(data, MAX_OPERANDS);
        // lopdf's parse of the operands, charged before it runs.
        if !sink.charge(work) {
            return;
        }
        let blanked;
        let data = if overlong.is_empty() {
            data
        } else {
            let mut copy = data.to_vec();
            for (from, to) in &overlong {
                if let Some(span) = copy.get_mut(*from..*to) {
                    span.fill(b' ');
                }
            }
            blanked = copy;
            &blanked
        };
        let mut cursor = Cursor::new(data);
        let mut check = StreamCheck {
            ops: 0,
            unknown: 0,
            unknown_bytes: 0,
            rest: None,
            failed: false,
        };
        let mut saved: Vec<GState> = Vec::new();
        let mut dropped_saves = 0usize;
        // Open marked-content sequences: for an `/ActualText` one, where its
        // glyphs and text start in the sink, and the replacement text.
        let mut marked: Vec<Option<(usize, usize, String)>> = Vec::new();
        let mut dropped_marks = 0usize;
        let mut tm = Matrix::IDENTITY;
        let mut tlm = Matrix::IDENTITY;
        for op in Content::decode_iter(data) {
            if sink.truncated {
                return;
            }
            sink.ops += 1;
            if sink.ops > self.limits.max_operations {
                sink.truncated = true;
                sink.alert(format!(
                    "stopped after {} content-stream operations on this page",
                    self.limits.max_operations
                ));
                return;
            }
            if !sink.charge(1) {
                return;
            }
            let op: Operation = match op {
                Ok(op) => op,
                Err(_) => {
                    check.failed = true;
                    break;
                }
            };
            cursor.past(&op.operator);
            check.ops = check.ops.saturating_add(1);
            let args = op.operands.as_slice();
            match op.operator.as_str() {
                "q" => {
                    if saved.len() < MAX_GSTATE_DEPTH {
                        saved.push(gs.clone());
                    } else {
                        dropped_saves += 1;
                    }
                }
                "Q" => {
                    if dropped_saves > 0 {
                        dropped_saves -= 1;
                    } else if let Some(s) = saved.pop() {
                        *gs = s;
                    }
                }
                "cm" => {
                    if let Some(m) = nums::<6>(args) {
                        if let Some(m) = Matrix(m).then(&gs.ctm).finite() {
                            gs.ctm = m;
                        }
                    }
                }
                "BT" => {
                    tm = Matrix::IDENTITY;
                    tlm = Matrix::IDENTITY;
                }
                "Tf" => {
                    if let Some([size]) = nums::<1>(args) {
                        gs.text.size = size;
                    }
                    let name = args.iter().find_map(|o| o.as_name().ok());
                    if let Some(name) = name {
                        gs.text.font = self.font(sink, resources, name);
                    }
                }
                "Tc" => {
                    if let Some([v]) = nums::<1>(args) {
                        gs.text.char_spacing = v;
                    }
                }
                "Tw" => {
                    if let Some([v]) = nums::<1>(args) {
                        gs.text.word_spacing = v;
                    }
                }
                "Tz" => {
                    if let Some([v]) = nums::<1>(args) {
                        gs.text.hscale = v / 100.0;
                    }
                }
                "TL" => {
                    if let Some([v]) = nums::<1>(args) {
                        gs.text.leading = v;
                    }
                }
                "Ts" => {
                    if let Some([v]) = nums::<1>(args) {
                        gs.text.rise = v;
                    }
                }
                "Td" | "TD" => {
                    if let Some([tx, ty]) = nums::<2>(args) {
                        if op.operator == "TD" {
                            gs.text.leading = -ty;
                        }
                        tlm = Matrix::translate(tx, ty).then(&tlm);
                        tm = tlm;
                    }
                }
                "Tm" => {
                    if let Some(m) = nums::<6>(args).and_then(|m| Matrix(m).finite()) {
                        tlm = m;
                        tm = m;
                    }
                }
                "T*" => {
                    tlm = Matrix::translate(0.0, -gs.text.leading).then(&tlm);
                    tm = tlm;
                }
                "Tj" | "'" | "\"" => {
                    if op.operator != "Tj" {
                        if op.operator == "\"" {
                            if let (Some(aw), Some(ac)) =
                                (args.first().and_then(num), args.get(1).and_then(num))
                            {
                                gs.text.word_spacing = aw;
                                gs.text.char_spacing = ac;
                            }
                        }
                        tlm = Matrix::translate(0.0, -gs.text.leading).then(&tlm);
                        tm = tlm;
                    }
                    if let Some(Object::String(s, _)) = args.last() {
                        self.show(sink, gs, &mut tm, s);
                    }
                }
                "TJ" => {
                    if let Some(Object::Array(items)) = args.last() {
                        for item in items {
                            match item {
                                Object::String(s, _) => self.show(sink, gs, &mut tm, s),
                                other => {
                                    if let Some(n) = num(other) {
                                        let t = &gs.text;
                                        let vertical = t.font.as_ref().is_some_and(|f| f.vertical);
                                        let d = -n / 1000.0 * t.size;
                                        tm = if vertical {
                                            Matrix::translate(0.0, d)
                                        } else {
                                            Matrix::translate(d * t.hscale, 0.0)
                                        }
                                        .then(&tm);
                                    }
                                }
                            }
                        }
                    }
                }
                "Do" => {
                    if let Some(name) = args.last().and_then(|o| o.as_name().ok()) {
                        self.do_xobject(sink, resources, name, gs);
                    }
                }
                "BMC" | "BDC" => {
                    if marked.len() >= MAX_MARKED_DEPTH {
                        dropped_marks += 1;
                    } else {
                        let actual = (op.operator == "BDC")
                            .then(|| self.actual_text(resources, args.last()))
                            .flatten()
                            .map(|t| (sink.glyphs.len(), sink.text.len(), t));
                        marked.push(actual);
                    }
                }
                "EMC" => {
                    if dropped_marks > 0 {
                        dropped_marks -= 1;
                    } else if let Some(Some((g0, t0, actual))) = marked.pop() {
                        replace_with_actual_text(sink, g0, t0, &actual, self.limits.max_chars);
                    }
                }
                other if !is_pdf_operator(other) => {
                    check.unknown = check.unknown.saturating_add(1);
                    check.unknown_bytes = check.unknown_bytes.saturating_add(other.len());
                }
                _ => {}
            }
        }
        if sink.truncated {
            return;
        }
        check.rest = cursor.rest();
        sink.check_stream(what, data, check);
        if let Some((at, _)) = overlong.first() {
            sink.alert(format!(
                "{what}: {} operation(s) with more than {MAX_OPERANDS} operands, or nested more than {MAX_OPERAND_NESTING} levels, skipped, the first at byte {at} of {}; their text is lost",
                overlong.len(),
                data.len()
            ));
        }
    }

    /// The `/ActualText` of a `BDC` property list (inline, or named in the
    /// resources' `/Properties`), decoded (§14.9.4).
    fn actual_text(
        &self,
        res: Option<&'a Dictionary>,
        props: Option<&'a Object>,
    ) -> Option<String> {
        let dict = match deref(self.doc, props?)? {
            Object::Dictionary(d) => d,
            Object::Name(n) => {
                match deref(self.doc, self.sub_dict(res, b"Properties")?.get(n).ok()?)? {
                    Object::Dictionary(d) => d,
                    _ => return None,
                }
            }
            _ => return None,
        };
        match deref(self.doc, dict.get(b"ActualText").ok()?)? {
            Object::String(bytes, _) => Some(crate::pdf::textstring::decode_text_string(
                bytes,
                self.limits.max_chars,
            )),
            _ => None,
        }
    }

    fn do_xobject(
        &mut self,
        sink: &mut Sink,
        resources: Option<&'a Dictionary>,
        name: &[u8],
        gs: &GState,
    ) {
        let Some(entry) = self
            .sub_dict(resources, b"XObject")
            .and_then(|x| x.get(name).ok())
        else {
            return;
        };
        let Ok((id, Object::Stream(stream))) = resolve_with_id(self.doc, entry) else {
            return;
        };
        if stream
            .dict
            .get(b"Subtype")
            .ok()
            .and_then(|o| o.as_name().ok())
            != Some(&b"Form"[..])
        {
            return;
        }
        let cacheable = id.is_some();
        let id = id.unwrap_or((0, 0));
        if self.stack.contains(&id) {
            sink.alert(format!(
                "Form XObject /{} draws itself; cycle cut",
                crate::pdf::quote_name(name)
            ));
            return;
        }
        if self.stack.len() >= self.limits.max_form_depth {
            sink.alert(format!(
                "Form XObjects nested deeper than {}; inner ones skipped",
                self.limits.max_form_depth
            ));
            return;
        }
        let data = match sink.call.forms.get(&id).filter(|_| cacheable) {
            Some(d) => d.clone(),
            None => match crate::pdf::stream::decode_stream(stream, self.limits.max_stream_bytes) {
                Ok(d) => {
                    let max = self.limits.max_stream_bytes;
                    if let Some(fault) = crate::pdf::stream::flate_fault(stream, max) {
                        sink.alert(format!(
                            "Form XObject /{}: {fault}",
                            crate::pdf::quote_name(name)
                        ));
                    }
                    let d: Rc<[u8]> = d.into();
                    if cacheable
                        && sink.call.form_bytes.saturating_add(d.len()) <= MAX_CACHED_FORM_BYTES
                    {
                        sink.call.form_bytes = sink.call.form_bytes.saturating_add(d.len());
                        sink.call.forms.insert(id, d.clone());
                    }
                    d
                }
                Err(e) => {
                    sink.stream_failed(
                        format!("Form XObject /{}", crate::pdf::quote_name(name)),
                        &e,
                    );
                    return;
                }
            },
        };
        let matrix = stream
            .dict
            .get(b"Matrix")
            .ok()
            .and_then(|o| crate::pdf::object::number_array::<6>(self.doc, o))
            .map(Matrix)
            .unwrap_or(Matrix::IDENTITY);
        let form_res = match stream
            .dict
            .get(b"Resources")
            .ok()
            .and_then(|o| deref(self.doc, o))
        {
            Some(Object::Dictionary(d)) => Some(d),
            _ => resources,
        };
        let mut inner = gs.clone();
        if let Some(m) = matrix.then(&gs.ctm).finite() {
            inner.ctm = m;
        }
        let what = format!(
            "the content of Form XObject /{}",
            crate::pdf::quote_name(name)
        );
        self.stack.push(id);
        self.run_ops(sink, &what, &data, form_res, &mut inner);
        self.stack.pop();
    }

    /// Shows string `s`: one glyph per code, advancing `tm` (§9.4.4).
    fn show(&self, sink: &mut Sink, gs: &GState, tm: &mut Matrix, s: &[u8]) {
        let t = &gs.text;
        let Some(font) = t.font.clone() else {
            sink.warn("text shown before a font was set".into());
            return;
        };
        let mut rest = s;
        while !rest.is_empty() {
            if sink.text.len() >= self.limits.max_chars {
                // The characters left to the call (`output_chars`): the
                // page's warning names the limit, so a later cut of the
                // answer can tell it is stale.
                sink.hit(Limit::OutputChars);
                return;
            }
            if sink.glyphs.len() >= self.limits.max_glyphs {
                sink.hit(Limit::GlyphsPerPage);
                sink.alert(format!(
                    "page cut at {} glyphs ({})",
                    self.limits.max_glyphs,
                    Limit::GlyphsPerPage.name()
                ));
                return;
            }
            // Each code shown is a unit of work (decoding, placing, laying out).
            if !sink.charge(1) {
                return;
            }
            let code = font.next_code(rest);
            let len = usize::from(code.len).min(rest.len()).max(1);
            let (bytes, tail) = rest.split_at(len);
            rest = tail;
            let start = sink.text.len();
            font.push_text(&code, bytes, &mut sink.text);
            let w0 = font.width(&code);
            // Tw applies to the one-byte code 32, in simple fonts and in
            // composite fonts whose CMap has one-byte codes (§9.3.3).
            let word_space = if code.code == 32 && code.len == 1 {
                t.word_spacing
            } else {
                0.0
            };
            // Glyph box in device space: origin, advance end and top.
            let trm = Matrix([t.size * t.hscale, 0.0, 0.0, t.size, 0.0, t.rise])
                .then(tm)
                .then(&gs.ctm);
            let (x0, y0) = trm.apply(0.0, 0.0);
            let (advance, next) = if font.vertical {
                // Vertical advance: the default w1 of -1000 (§9.7.4.3).
                let ty = -t.size + t.char_spacing + word_space;
                ((0.0, -1.0), Matrix::translate(0.0, ty))
            } else {
                let tx = (w0 * t.size + t.char_spacing + word_space) * t.hscale;
                ((w0, 0.0), Matrix::translate(tx, 0.0))
            };
            let (x1, y1) = trm.apply(advance.0, advance.1);
            let unit = if font.vertical {
                (0.0, -1.0)
            } else {
                (1.0, 0.0)
            };
            let (xd, yd) = trm.apply(unit.0, unit.1);
            let dir = direction(xd - x0, yd - y0);
            let (xu, yu) = trm.apply(0.0, font.height);
            let size = ((xu - x0).powi(2) + (yu - y0).powi(2)).sqrt();
            *tm = next.then(tm);
            let end = sink.text.len();
            if size.is_finite()
                && x0.is_finite()
                && y0.is_finite()
                && x1.is_finite()
                && y1.is_finite()
                && sink.bounds.is_none_or(|b| on_page(b, x0, y0, x1, y1))
            {
                sink.glyphs.push(Glyph {
                    x0,
                    y0,
                    x1,
                    y1,
                    size,
                    dir,
                    text: start..end,
                });
            } else {
                sink.text.truncate(start);
            }
        }
    }
}

/// Runs an annotation's appearance stream `form` (a Form XObject) placed by
/// `ctm`, with the form's own resources (§12.5.5).
pub fn run_appearance(
    doc: &Document,
    limits: &TextLimits,
    sink: &mut Sink,
    form: &lopdf::Stream,
    ctm: Matrix,
) {
    let data = match crate::pdf::stream::decode_stream(form, limits.max_stream_bytes) {
        Ok(d) => {
            if let Some(fault) = crate::pdf::stream::flate_fault(form, limits.max_stream_bytes) {
                sink.alert(format!("annotation appearance: {fault}"));
            }
            d
        }
        Err(e) => {
            sink.stream_failed("annotation appearance".into(), &e);
            return;
        }
    };
    let resources = match form.dict.get(b"Resources").ok().and_then(|o| deref(doc, o)) {
        Some(Object::Dictionary(d)) => Some(d),
        _ => None,
    };
    let mut interp = Interp::new(doc, limits);
    interp.run(sink, "an annotation appearance", &data, resources, ctm);
}

/// Runs `data` as a page content stream.
pub fn run_page(
    doc: &Document,
    limits: &TextLimits,
    sink: &mut Sink,
    data: &[u8],
    resources: Option<&Dictionary>,
    ctm: Matrix,
) {
    let mut interp = Interp::new(doc, limits);
    interp.run(sink, "the page content", data, resources, ctm);
}

/// Most nested marked-content sequences tracked (`BMC`/`BDC` … `EMC`).
pub const MAX_MARKED_DEPTH: usize = 256;

/// Replaces the glyphs placed since `(g0, t0)` by one glyph spanning them
/// whose text is `actual` (pdftotext does the same); an empty replacement
/// removes them. Nothing is added when the sequence drew no glyph, nor
/// past `max_chars` of page text.
fn replace_with_actual_text(sink: &mut Sink, g0: usize, t0: usize, actual: &str, max_chars: usize) {
    let (Some(first), Some(last)) = (sink.glyphs.get(g0), sink.glyphs.last()) else {
        return;
    };
    if sink.glyphs.len() <= g0 || t0 > sink.text.len() || !sink.text.is_char_boundary(t0) {
        return;
    }
    let glyph = Glyph {
        x0: first.x0,
        y0: first.y0,
        x1: last.x1,
        y1: last.y1,
        size: first.size,
        dir: first.dir,
        text: t0..t0 + actual.len(),
    };
    sink.glyphs.truncate(g0);
    sink.text.truncate(t0);
    if !actual.is_empty() && sink.text.len() + actual.len() <= max_chars {
        sink.text.push_str(actual);
        sink.glyphs.push(glyph);
    }
}

/// Whether a glyph's advance from `(x0, y0)` to `(x1, y1)` touches the page
/// area `b`, and is not larger than it (pdftotext's sanity check on sizes).
fn on_page(b: [f64; 4], x0: f64, y0: f64, x1: f64, y1: f64) -> bool {
    let [bx0, by0, bx1, by1] = b;
    x0.max(x1) >= bx0
        && x0.min(x1) <= bx1
        && y0.max(y1) >= by0
        && y0.min(y1) <= by1
        && (x1 - x0).abs() <= bx1 - bx0
        && (y1 - y0).abs() <= by1 - by0
}

/// Quantises a baseline direction to 0 (rightwards), 1 (up), 2 (left), 3 (down).
fn direction(dx: f64, dy: f64) -> u8 {
    if dx.abs() >= dy.abs() {
        if dx >= 0.0 {
            0
        } else {
            2
        }
    } else if dy > 0.0 {
        1
    } else {
        3
    }
}

/// Whether `op` is one of PDF's content-stream operators (ISO 32000-1
/// Annex A, Table A.1, 73 of them).
fn is_pdf_operator(op: &str) -> bool {
    matches!(
        op,
        "b" | "B"
            | "b*"
            | "B*"
            | "BDC"
            | "BI"
            | "BMC"
            | "BT"
            | "BX"
            | "c"
            | "cm"
            | "CS"
            | "cs"
            | "d"
            | "d0"
            | "d1"
            | "Do"
            | "DP"
            | "EI"
            | "EMC"
            | "ET"
            | "EX"
            | "f"
            | "F"
            | "f*"
            | "G"
            | "g"
            | "gs"
            | "h"
            | "i"
            | "ID"
            | "j"
            | "J"
            | "K"
            | "k"
            | "l"
            | "m"
            | "M"
            | "MP"
            | "n"
            | "q"
            | "Q"
            | "re"
            | "RG"
            | "rg"
            | "ri"
            | "s"
            | "S"
            | "SC"
            | "sc"
            | "SCN"
            | "scn"
            | "sh"
            | "T*"
            | "Tc"
            | "Td"
            | "TD"
            | "Tf"
            | "Tj"
            | "TJ"
            | "TL"
            | "Tm"
            | "Tr"
            | "Ts"
            | "Tw"
            | "Tz"
            | "v"
            | "w"
            | "W"
            | "W*"
            | "y"
            | "'"
            | "\""
    )
}
