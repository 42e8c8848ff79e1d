//! From placed glyphs to reading-order text, in the spirit of pdftotext's
//! default (non-`-layout`) mode: glyphs join into words while they follow
//! each other on one baseline; a gap wider than [`WORD_GAP`] × font size
//! breaks a word; words on one baseline form a line; lines read top to bottom,
//! and a page's columns are read one after the other.
//!
//! Everything is `O(n log n)` in the number of glyphs.

use std::ops::Range;

/// Gap between glyphs, as a fraction of the font size, above which a word breaks
/// (pdftotext uses 0.1 too).
pub const WORD_GAP: f64 = 0.1;
/// A spacing accent combines with a letter when their centres are closer
/// than this fraction of the letter's width (pdftotext: 0.3).
pub const ACCENT_MID: f64 = 0.3;
/// ... and their baselines closer than this fraction of the font size (pdftotext: 0.4 of the word height).
pub const ACCENT_BASE: f64 = 0.4;
/// Overlap (negative gap), as a fraction of the font size, that breaks a word.
pub const OVERLAP_BREAK: f64 = 0.2;
/// Gap between two words of a line, as a fraction of the line's first font
/// size, from which a space separates them in the output (pdftotext: 0.03).
pub const SPACE_GAP: f64 = 0.03;
/// On a line of one-character words, a gap under this multiple of the
/// line's smallest gap joins letters into one word (pdftotext: 1.3).
pub const LETTER_SPACED_GAP: f64 = 1.3;
/// Cap of the letter-spaced join gap, as a fraction of the font size (pdftotext: 0.4).
pub const LETTER_SPACED_MAX: f64 = 0.4;
/// Baseline distance, as a fraction of the larger font size, within which a
/// word joins a line (keeps super- and subscripts on their line).
pub const LINE_JOIN: f64 = 0.45;
/// Words of a line looked back over for a sub- or superscript's base.
pub const SCRIPT_LOOKBACK: usize = 64;
/// Baseline shift, as a fraction of the font size, above which a glyph starts a new line.
pub const BASELINE_SHIFT: f64 = 0.5;
/// Gap between words, as a fraction of the font size, that separates two
/// columns when a neighbouring line has the same gap (a gutter).
pub const GUTTER_GAP: f64 = 0.7;
/// Horizontal gap, as a fraction of the font size, that separates two columns on a line.
pub const COLUMN_GAP: f64 = 1.5;

/// One glyph placed on the page (device space, PDF units, y up).
#[derive(Debug, Clone)]
pub struct Glyph {
    /// Origin.
    pub x0: f64,
    /// Origin.
    pub y0: f64,
    /// End of the advance.
    pub x1: f64,
    /// End of the advance.
    pub y1: f64,
    /// Font size in device space.
    pub size: f64,
    /// Writing direction: 0 = left to right, 1 = upwards, 2 = right to left (upside down), 3 = downwards.
    pub dir: u8,
    /// Its text in the page's text buffer.
    pub text: Range<usize>,
}

/// A word in direction-normalised coordinates (u along the baseline, v down the page).
#[derive(Debug, Clone)]
struct Word {
    dir: u8,
    u0: f64,
    u1: f64,
    v: f64,
    size: f64,
    text: String,
    /// Extent of the last glyph along the baseline.
    last: (f64, f64),
}

fn normalise(dir: u8, x: f64, y: f64) -> (f64, f64) {
    match dir {
        1 => (y, x),
        2 => (-x, y),
        3 => (-y, -x),
        _ => (x, -y),
    }
}

fn expand_ligature(c: char, out: &mut String) {
    match c {
        '\u{FB00}' => out.push_str("ff"),
        '\u{FB01}' => out.push_str("fi"),
        '\u{FB02}' => out.push_str("fl"),
        '\u{FB03}' => out.push_str("ffi"),
        '\u{FB04}' => out.push_str("ffl"),
        '\u{FB05}' | '\u{FB06}' => out.push_str("st"),
        '\0' => {}
        c => out.push(c),
    }
}

fn words(glyphs: &[Glyph], text: &str) -> Vec<Word> {
    let mut out: Vec<Word> = Vec::new();
    let mut cur: Option<Word> = None;
    for g in glyphs {
        let t = text.get(g.text.clone()).unwrap_or_default();
        let (u0, v) = normalise(g.dir, g.x0, g.y0);
        let (u1, _) = normalise(g.dir, g.x1, g.y1);
        let (u0, u1) = (u0.min(u1), u0.max(u1));
        let size = g.size.max(0.01);
        if t.is_empty() {
            // A glyph without text (unmapped): keeps its place, breaks nothing.
            if let Some(w) = cur.as_mut() {
                if w.dir == g.dir && (v - w.v).abs() <= BASELINE_SHIFT * size {
                    w.u1 = w.u1.max(u1);
                }
            }
            continue;
        }
        let blank = t.chars().all(char::is_whitespace);
        if let Some(w) = cur.as_mut() {
            if w.dir == g.dir && combine_accent(w, t, u0, u1, v, size) {
                continue;
            }
            let gap = u0 - w.u1;
            // A change of font size also ends a word (a superscript is its own
            // word; the line step below decides whether a space separates them).
            let same = w.dir == g.dir
                && (v - w.v).abs() <= BASELINE_SHIFT * size.min(w.size)
                && gap <= WORD_GAP * w.size
                && gap >= -OVERLAP_BREAK * w.size
                && (size - w.size).abs() <= 0.01 * w.size
                && !blank;
            if same {
                for c in t.chars() {
                    expand_ligature(c, &mut w.text);
                }
                w.u1 = w.u1.max(u1);
                w.last = (u0, u1);
                continue;
            }
        }
        if let Some(w) = cur.take() {
            out.push(w);
        }
        if !blank {
            let mut s = String::new();
            for c in t.chars() {
                expand_ligature(c, &mut s);
            }
            cur = Some(Word {
                dir: g.dir,
                u0,
                u1,
                v,
                size,
                text: s,
                last: (u0, u1),
            });
        }
    }
    out.extend(cur);
    out
}

/// The combining form of a spacing diacritic (TeX and other typesetters
/// draw accents as separate glyphs over the letter). The ogonek, drawn
/// under and beside its letter, stays spacing (as in pdftotext).
fn combining_form(c: char) -> Option<char> {
    Some(match c {
        '`' => '\u{300}',
        '\u{a8}' => '\u{308}',
        '\u{af}' => '\u{304}',
        '\u{b4}' => '\u{301}',
        '\u{b8}' => '\u{327}',
        '\u{2c6}' => '\u{302}',
        '\u{2c7}' => '\u{30c}',
        '\u{2d8}' => '\u{306}',
        '\u{2d9}' => '\u{307}',
        '\u{2da}' => '\u{30a}',
        '\u{2dc}' => '\u{303}',
        '\u{2dd}' => '\u{30b}',
        _ => return None,
    })
}

/// Puts a spacing accent drawn over a letter onto it as a combining mark
/// (letter first or accent first), as pdftotext does: the two glyphs'
/// centres within [`ACCENT_MID`] × the letter's width, baselines within
/// [`ACCENT_BASE`] × the font size. True when `t` was absorbed into `w`.
fn combine_accent(w: &mut Word, t: &str, u0: f64, u1: f64, v: f64, size: f64) -> bool {
    let mut chars = t.chars();
    let (Some(c), None) = (chars.next(), chars.next()) else {
        return false;
    };
    let Some(prev) = w.text.chars().next_back() else {
        return false;
    };
    let (p0, p1) = w.last;
    let near = |width: f64| {
        ((u0 + u1) / 2.0 - (p0 + p1) / 2.0).abs() < ACCENT_MID * width.abs()
            && (v - w.v).abs() < ACCENT_BASE * size.max(w.size)
    };
    if let Some(mark) = combining_form(c) {
        if prev.is_alphanumeric() && near(p1 - p0) {
            w.text.push(mark);
            return true;
        }
    } else if let Some(mark) = combining_form(prev) {
        if c.is_alphanumeric() && near(u1 - u0) {
            w.text.pop();
            w.text.push(c);
            w.text.push(mark);
            w.u0 = w.u0.min(u0);
            w.u1 = w.u1.max(u1);
            w.last = (u0, u1);
            if w.text.chars().count() == 2 {
                // The word was the accent alone: it takes the letter's place.
                w.v = v;
                w.size = size;
            }
            return true;
        }
    }
    false
}

struct Line {
    dir: u8,
    v: f64,
    u0: f64,
    u1: f64,
    size: f64,
    words: Vec<Word>,
}

/// Lays out the glyphs of a page into text.
pub fn layout(glyphs: &[Glyph], text: &str) -> String {
    let mut words = words(glyphs, text);
    // Group by direction, then by baseline, then along the baseline.
    words.sort_by(|a, b| {
        a.dir
            .cmp(&b.dir)
            .then(a.v.total_cmp(&b.v))
            .then(a.u0.total_cmp(&b.u0))
    });
    let mut lines: Vec<Line> = Vec::new();
    for w in words {
        if let Some(l) = lines.last_mut() {
            let tol = LINE_JOIN * l.size.max(w.size);
            // A smaller word (sub- or superscript) also joins when it sits
            // near a larger word of the line: with two columns' lines a
            // little apart sharing one line, the line's own baseline may be
            // the other column's.
            let script = || {
                l.words
                    .iter()
                    .rev()
                    .take(SCRIPT_LOOKBACK)
                    .any(|x| x.size > 1.05 * w.size && (w.v - x.v).abs() <= LINE_JOIN * x.size)
            };
            if l.dir == w.dir && ((w.v - l.v).abs() <= tol || script()) {
                l.u0 = l.u0.min(w.u0);
                l.u1 = l.u1.max(w.u1);
                // The line's baseline is its largest text's: a superscript
                // met first must not pull the line up, away from the
                // subscripts below the main baseline.
                if w.size > l.size * 1.01 {
                    l.v = w.v;
                }
                l.size = l.size.max(w.size);
                l.words.push(w);
                continue;
            }
        }
        lines.push(Line {
            dir: w.dir,
            v: w.v,
            u0: w.u0,
            u1: w.u1,
            size: w.size,
            words: vec![w],
        });
    }
    // Split each line at wide gaps into segments (columns): a gap over
    // COLUMN_GAP, or over GUTTER_GAP where a neighbouring line is empty over
    // the same stretch (a gutter running down the page).
    for line in lines.iter_mut() {
        line.words.sort_by(|a, b| a.u0.total_cmp(&b.u0));
    }
    let gutters: Vec<Vec<(f64, f64)>> = (0..lines.len())
        .map(|i| {
            let Some(line) = lines.get(i) else {
                return Vec::new();
            };
            let neighbours: Vec<&Line> = [i.checked_sub(1), i.checked_add(1)]
                .into_iter()
                .flatten()
                .filter_map(|j| lines.get(j))
                .filter(|n| {
                    n.dir == line.dir && (n.v - line.v).abs() <= 2.0 * n.size.max(line.size)
                })
                .collect();
            gutters_of(line, &neighbours)
        })
        .collect();
    let mut segments: Vec<Line> = Vec::new();
    for (line, gutters) in lines.into_iter().zip(gutters) {
        let mut seg: Option<Line> = None;
        for w in line.words {
            if let Some(s) = seg.as_mut() {
                let gap = w.u0 - s.u1;
                let gutter = gutters.iter().any(|&(a, b)| s.u1 <= a && b <= w.u0);
                if gap <= COLUMN_GAP * s.size.max(w.size) && !gutter {
                    // Drop a word drawn twice at the same place (fake bold).
                    let dup = s
                        .words
                        .last()
                        .is_some_and(|p| p.text == w.text && (p.u0 - w.u0).abs() < 0.2 * w.size);
                    if !dup {
                        s.u1 = s.u1.max(w.u1);
                        s.size = s.size.max(w.size);
                        s.words.push(w);
                    }
                    continue;
                }
            }
            segments.extend(seg.take());
            seg = Some(Line {
                dir: line.dir,
                v: line.v,
                u0: w.u0,
                u1: w.u1,
                size: w.size,
                words: vec![w],
            });
        }
        segments.extend(seg);
    }
    let mut out = String::new();
    for block in reading_order(&segments) {
        let mut lines = block.iter().filter_map(|&i| segments.get(i)).peekable();
        while let Some(seg) = lines.next() {
            let mut prev_end: Option<f64> = None;
            let space = space_threshold(&seg.words);
            for w in &seg.words {
                if let Some(end) = prev_end {
                    if w.u0 - end >= space {
                        out.push(' ');
                    }
                }
                push_visual(&w.text, &mut out);
                prev_end = Some(w.u1);
            }
            // A line of a block ending in a hyphenated word continues on the
            // next line: drop the hyphen and the line break (pdftotext does).
            if lines.peek().is_some() && ends_hyphenated(&out) {
                out.pop();
                continue;
            }
            out.push('\n');
        }
    }
    out
}

/// The gaps `(start, end)` of `line` wider than [`GUTTER_GAP`] × its size
/// that overlap a gap as wide on a neighbouring line (a column gutter running
/// down the page, as opposed to a wide space that only one line has).
fn gutters_of(line: &Line, neighbours: &[&Line]) -> Vec<(f64, f64)> {
    let wide_gaps = |l: &Line| -> Vec<(f64, f64)> {
        l.words
            .windows(2)
            .filter_map(|pair| match pair {
                [a, b] if b.u0 - a.u1 > GUTTER_GAP * a.size.max(b.size) => Some((a.u1, b.u0)),
                _ => None,
            })
            .collect()
    };
    let theirs: Vec<(f64, f64)> = neighbours.iter().flat_map(|n| wide_gaps(n)).collect();
    wide_gaps(line)
        .into_iter()
        .filter(|&(start, end)| {
            theirs
                .iter()
                .any(|&(c, d)| end.min(d) - start.max(c) > 0.1 * line.size)
        })
        .collect()
}

/// The gap from which two words of a line are separated by a space.
///
/// Normally [`SPACE_GAP`] × the line's first font size. A line made only of
/// one-character words is letter-spaced text (`Tc`, or glyphs placed one by
/// one): its letters are further apart than [`WORD_GAP`], so the threshold
/// becomes [`LETTER_SPACED_GAP`] × the smallest gap on the line, at most
/// [`LETTER_SPACED_MAX`] × the font size (pdftotext's rule, so "S p a c e d"
/// reads as one word while the wider gaps at real spaces still separate).
fn space_threshold(words: &[Word]) -> f64 {
    let size = words.first().map_or(0.0, |w| w.size);
    let normal = SPACE_GAP * size;
    if words.len() < 2 || words.iter().any(|w| w.text.chars().count() != 1) {
        return normal;
    }
    let min_gap = words
        .windows(2)
        .filter_map(|p| match p {
            [a, b] => Some(b.u0 - a.u1),
            _ => None,
        })
        .fold(f64::INFINITY, f64::min);
    if min_gap > 0.0 && min_gap.is_finite() {
        (LETTER_SPACED_GAP * min_gap).min(LETTER_SPACED_MAX * size)
    } else {
        normal
    }
}

/// Right-to-left letters (Hebrew, Arabic and their presentation forms) and
/// the combining marks inside such runs.
fn is_rtl(c: char) -> bool {
    matches!(c as u32, 0x0590..=0x08FF | 0xFB1D..=0xFDFF | 0xFE70..=0xFEFF)
}

/// Appends a word whose glyphs are in left-to-right page order, turning each
/// right-to-left run into reading (logical) order, as pdftotext does.
fn push_visual(word: &str, out: &mut String) {
    if !word.chars().any(is_rtl) {
        out.push_str(word);
        return;
    }
    let mut run: Vec<char> = Vec::new();
    for c in word.chars() {
        if is_rtl(c) {
            run.push(c);
        } else {
            out.extend(run.drain(..).rev());
            out.push(c);
        }
    }
    out.extend(run.drain(..).rev());
}

/// Whether `text` ends with a letter followed by a hyphen.
fn ends_hyphenated(text: &str) -> bool {
    let mut rev = text.chars().rev();
    matches!(rev.next(), Some('-' | '\u{ad}')) && rev.next().is_some_and(char::is_alphabetic)
}

/// Orders segments into columns: segments are grouped into blocks of
/// vertically adjacent segments with overlapping horizontal extents; blocks
/// read top to bottom, and side-by-side blocks left to right.
fn reading_order(segs: &[Line]) -> Vec<Vec<usize>> {
    // Segments arrive sorted by (dir, v). Assign each to a block: the most
    // recent block whose last segment is just above it and overlaps it.
    struct Block {
        dir: u8,
        v0: f64,
        v_last: f64,
        u0: f64,
        u1: f64,
        size: f64,
        members: Vec<usize>,
    }
    let mut blocks: Vec<Block> = Vec::new();
    let mut open: Vec<usize> = Vec::new();
    for (i, s) in segs.iter().enumerate() {
        // Close blocks left too far above.
        open.retain(|&b| {
            blocks
                .get(b)
                .is_some_and(|bl| bl.dir == s.dir && s.v - bl.v_last <= 2.0 * bl.size.max(s.size))
        });
        let found = open.iter().copied().find(|&b| {
            blocks.get(b).is_some_and(|bl| {
                let overlap = s.u1.min(bl.u1) - s.u0.max(bl.u0);
                overlap > 0.0 && (s.size - bl.size).abs() <= 0.4 * bl.size.max(s.size) + 0.5
            })
        });
        match found.and_then(|b| blocks.get_mut(b)) {
            Some(bl) => {
                bl.v_last = s.v;
                bl.u0 = bl.u0.min(s.u0);
                bl.u1 = bl.u1.max(s.u1);
                bl.members.push(i);
            }
            None => {
                blocks.push(Block {
                    dir: s.dir,
                    v0: s.v,
                    v_last: s.v,
                    u0: s.u0,
                    u1: s.u1,
                    size: s.size,
                    members: vec![i],
                });
                open.push(blocks.len() - 1);
            }
        }
        if open.len() > 64 {
            open.remove(0);
        }
    }
    // Bands: consecutive blocks (by top) whose vertical extents overlap sit
    // side by side; a band reads its blocks left to right, each block whole.
    let mut idx: Vec<usize> = (0..blocks.len()).collect();
    let key = |b: usize| blocks.get(b).map(|bl| (bl.dir, bl.v0)).unwrap_or((0, 0.0));
    idx.sort_by(|&a, &b| {
        let (ka, kb) = (key(a), key(b));
        ka.0.cmp(&kb.0).then(ka.1.total_cmp(&kb.1))
    });
    let mut order = Vec::with_capacity(blocks.len());
    let mut band: Vec<usize> = Vec::new();
    let mut band_end = f64::NEG_INFINITY;
    let mut band_dir = 0u8;
    let flush = |band: &mut Vec<usize>, order: &mut Vec<Vec<usize>>| {
        band.sort_by(|&a, &b| {
            let ua = blocks.get(a).map_or(0.0, |bl| bl.u0);
            let ub = blocks.get(b).map_or(0.0, |bl| bl.u0);
            ua.total_cmp(&ub)
        });
        for b in band.drain(..) {
            if let Some(bl) = blocks.get(b) {
                order.push(bl.members.clone());
            }
        }
    };
    for b in idx {
        let Some(bl) = blocks.get(b) else { continue };
        if band.is_empty() || bl.dir != band_dir || bl.v0 > band_end {
            flush(&mut band, &mut order);
            band_end = f64::NEG_INFINITY;
            band_dir = bl.dir;
        }
        band_end = band_end.max(bl.v_last + 0.2 * bl.size);
        band.push(b);
    }
    flush(&mut band, &mut order);
    order
}
