//! Where lopdf's content parser stopped in a content stream.
//!
//! lopdf's operation iterator ends silently at the first thing it cannot
//! parse and does not say where: the text after it would be lost without
//! a word. [`Cursor`] walks the same bytes with PDF's token rules
//! (ISO 32000-1 §7.2, §7.8.2) in step with the operations lopdf yields,
//! so that when lopdf stops, [`Cursor::rest`] tells how many bytes were
//! left unread. It never claims more than it saw: when it cannot follow
//! lopdf (an operator it does not find) it gives up and reports nothing
//! left, so a disagreement can hide a loss but never invent one.
//!
//! Every loop advances through the stream and ends at its end: the work is
//! linear in the stream's length, which [`super::TextLimits::max_stream_bytes`]
//! bounds.

/// PDF white space (§7.2.2, Table 1).
fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n' | b'\x0c' | b'\0')
}

/// PDF delimiters (§7.2.2, Table 2).
fn is_delimiter(b: u8) -> bool {
    matches!(
        b,
        b'(' | b')' | b'<' | b'>' | b'[' | b']' | b'{' | b'}' | b'/' | b'%'
    )
}

/// The characters of an operator as lopdf reads one.
fn is_operator_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'*' | b'\'' | b'"')
}

/// A position in a content stream, moved forward in step with lopdf.
#[derive(Debug)]
pub struct Cursor<'a> {
    data: &'a [u8],
    pos: usize,
    lost: bool,
}

impl<'a> Cursor<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        Cursor {
            data,
            pos: 0,
            lost: false,
        }
    }

    fn byte(&self, at: usize) -> Option<u8> {
        self.data.get(at).copied()
    }

    /// Past white space and comments.
    fn skip_space(&mut self) {
        while let Some(b) = self.byte(self.pos) {
            if is_space(b) {
                self.pos += 1;
            } else if b == b'%' {
                while self
                    .byte(self.pos)
                    .is_some_and(|b| b != b'\n' && b != b'\r')
                {
                    self.pos += 1;
                }
            } else {
                break;
            }
        }
    }

    /// Past a literal string whose `(` is at `self.pos`.
    fn skip_string(&mut self) {
        let mut depth = 0usize;
        while let Some(b) = self.byte(self.pos) {
            self.pos += 1;
            match b {
                b'\\' => self.pos = self.pos.saturating_add(1).min(self.data.len()),
                b'(' => depth = depth.saturating_add(1),
                b')' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        return;
                    }
                }
                _ => {}
            }
        }
    }

    /// The next token: its start and end. Strings, hex strings and names
    /// are one token each; `<<`, `>>` and every other delimiter one; a run
    /// of regular characters splits where lopdf's operators do. Every token
    /// is at least one byte: a loop over them ends at the data's end.
    pub(crate) fn token(&mut self) -> Option<(usize, usize)> {
        self.skip_space();
        let start = self.pos;
        let b = self.byte(start)?;
        match b {
            b'(' => self.skip_string(),
            b'<' if self.byte(start + 1) == Some(b'<') => self.pos += 2,
            b'>' if self.byte(start + 1) == Some(b'>') => self.pos += 2,
            b'<' => {
                while self.byte(self.pos).is_some_and(|b| b != b'>') {
                    self.pos += 1;
                }
                self.pos = self.pos.saturating_add(1).min(self.data.len());
            }
            b'/' => {
                self.pos += 1;
                while self
                    .byte(self.pos)
                    .is_some_and(|b| !is_space(b) && !is_delimiter(b))
                {
                    self.pos += 1;
                }
            }
            _ if is_delimiter(b) => self.pos += 1,
            _ if is_operator_char(b) && !b.is_ascii_digit() => {
                while self.byte(self.pos).is_some_and(is_operator_char) {
                    self.pos += 1;
                }
            }
            // A number ends where lopdf's does: `5Tj` is `5` then `Tj`.
            b'0'..=b'9' | b'+' | b'-' | b'.' => {
                self.pos += 1;
                while self
                    .byte(self.pos)
                    .is_some_and(|b| b.is_ascii_digit() || b == b'.')
                {
                    self.pos += 1;
                }
            }
            _ => {
                self.pos += 1;
                while self
                    .byte(self.pos)
                    .is_some_and(|b| !is_space(b) && !is_delimiter(b))
                {
                    self.pos += 1;
                }
            }
        }
        Some((start, self.pos))
    }

    /// Moves to `pos` (at most the data's end), where the next token is
    /// looked for: a reader of a whole file skips a stream's data with it.
    pub(crate) fn jump(&mut self, pos: usize) {
        self.pos = pos.min(self.data.len());
    }

    /// Moves past the next operator `op` (the one lopdf just read), and
    /// for `BI` past its inline image's `EI`.
    pub fn past(&mut self, op: &str) {
        if self.lost {
            return;
        }
        while let Some((start, end)) = self.token() {
            if self.data.get(start..end) == Some(op.as_bytes()) {
                if op == "BI" {
                    self.past_inline_image();
                }
                return;
            }
        }
        // Not found: this cursor cannot follow; claim nothing.
        self.lost = true;
    }

    /// Past `ID`, the image data and `EI` (after white space, followed by
    /// white space or the end), as lopdf skips an image it cannot size.
    fn past_inline_image(&mut self) {
        while let Some((start, end)) = self.token() {
            if self.data.get(start..end) == Some(&b"ID"[..]) {
                break;
            }
        }
        while self.pos < self.data.len() {
            let at = self.pos;
            let ei = self.byte(at).is_some_and(is_space)
                && self.data.get(at + 1..at + 3) == Some(&b"EI"[..])
                && self.byte(at + 3).is_none_or(is_space);
            if ei {
                self.pos = at + 3;
                return;
            }
            self.pos += 1;
        }
    }

    /// Where the bytes left unread start, when anything but white space
    /// and comments is left: `(offset, bytes left)`.
    pub fn rest(&mut self) -> Option<(usize, usize)> {
        if self.lost {
            return None;
        }
        let at = self.pos;
        self.skip_space();
        (self.pos < self.data.len()).then(|| (at, self.data.len().saturating_sub(at)))
    }

    /// Whether the stream holds nothing but white space and comments.
    pub fn blank(data: &[u8]) -> bool {
        let mut c = Cursor::new(data);
        c.skip_space();
        c.pos >= data.len()
    }
}

/// Deepest nesting of arrays and dictionaries among one operation's
/// operands that is parsed; an operation nested deeper is skipped as one
/// with too many operands is (real content nests two or three levels: a
/// `TJ` array, a `BDC` property list).
pub const MAX_OPERAND_NESTING: usize = 32;

/// Plain operands (numbers, names, strings) that cost one unit of the
/// call's work beside their operator: lopdf parses them fast.
pub const OPERANDS_PER_UNIT: usize = 16;

/// What [`scan_operands`] found in a content stream.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct OperandScan {
    /// The operations to skip: more than the bound of operands, or nested
    /// deeper than [`MAX_OPERAND_NESTING`]; each from its first operand to
    /// the end of its operator (or of the stream). At most one per
    /// `max` bytes.
    pub skipped: Vec<(usize, usize)>,
    /// The work lopdf's parser will do on the rest beyond one unit per
    /// operator: one unit per [`OPERANDS_PER_UNIT`] plain operands, and one
    /// per array or dictionary past the first of its operation (each is an
    /// allocation: an operation of 65,000 empty arrays costs 65,000).
    pub work: usize,
}

/// Scans the operations of `data` ahead of lopdf's parser (see
/// [`OperandScan`]): every object before an operator counts as an operand,
/// and so does every element of an array or dictionary among them
/// (`[(a) -120 (b)] TJ` is four), for lopdf holds all of them in memory
/// until the operator comes. Linear in the stream's length; allocates only
/// the list of skipped spans.
pub fn scan_operands(data: &[u8], max: usize) -> OperandScan {
    let mut c = Cursor::new(data);
    let mut scan = OperandScan::default();
    let mut run_start = 0usize;
    let mut operands = 0usize;
    let mut containers = 0usize;
    let mut depth = 0usize;
    let mut deepest = 0usize;
    let end_run = |scan: &mut OperandScan,
                   operands: usize,
                   containers: usize,
                   deepest: usize,
                   from: usize,
                   to: usize| {
        if operands > max || deepest > MAX_OPERAND_NESTING {
            scan.skipped.push((from, to));
        } else {
            let plain = operands.saturating_sub(containers);
            scan.work = scan
                .work
                .saturating_add(plain / OPERANDS_PER_UNIT)
                .saturating_add(containers.saturating_sub(1));
        }
    };
    while let Some((start, end)) = c.token() {
        let token = data.get(start..end).unwrap_or_default();
        let first = token.first().copied().unwrap_or_default();
        let operator = is_operator_char(first)
            && !first.is_ascii_digit()
            && !matches!(token, b"true" | b"false" | b"null");
        if operator {
            if token == b"BI" {
                c.past_inline_image();
            }
            end_run(&mut scan, operands, containers, deepest, run_start, c.pos);
            (operands, containers, depth, deepest) = (0, 0, 0, 0);
            continue;
        }
        match token {
            b"]" | b">>" | b"}" => {
                depth = depth.saturating_sub(1);
                continue;
            }
            b"[" | b"<<" => {
                containers = containers.saturating_add(1);
                depth = depth.saturating_add(1);
                deepest = deepest.max(depth);
            }
            _ => {}
        }
        if operands == 0 {
            run_start = start;
        }
        operands = operands.saturating_add(1);
    }
    if operands > 0 {
        end_run(
            &mut scan,
            operands,
            containers,
            deepest,
            run_start,
            data.len(),
        );
    }
    scan
}

#[cfg(test)]
mod tests {
    use super::*;
    use lopdf::content::Content;

    /// What is left after lopdf's operations, followed by the cursor.
    fn left(data: &[u8]) -> Option<(usize, usize)> {
        let mut c = Cursor::new(data);
        for op in Content::decode_iter(data) {
            match op {
                Ok(op) => c.past(&op.operator),
                Err(_) => break,
            }
        }
        c.rest()
    }

    #[test]
    fn the_cursor_finds_where_lopdf_stopped() {
        for whole in [
            &b""[..],
            b"  % only a comment\n",
            b"BT /F1 12 Tf 72 720 Td (Hello (nested) \\) x) Tj ET",
            b"q 1 0 0 1 0 0 cm BI /W 2 /H 1 /BPC 8 /CS /G ID \x00\xff EI Q",
            b"[(a) -120 (b)] TJ <0041 42> Tj /Name gs 0.5 -.2 +3 d0 % end",
            b"BX foo bar EX << /A [1 2] >> BDC EMC T* ' \"",
            b"BT 12 0 0 12 72 720 Tm(x)Tj[(y)]TJ ET",
        ] {
            assert_eq!(left(whole), None, "{}", String::from_utf8_lossy(whole));
        }
        let text = b"BT /F1 12 Tf (Hello) Tj ET ";
        let mut broken = text.to_vec();
        broken.extend_from_slice(b") \x8f garbage Tj");
        assert_eq!(
            left(&broken),
            Some((text.len() - 1, broken.len() - text.len() + 1))
        );
        assert_eq!(left(b"q Q 1 0 0"), Some((3, 6)));
        assert!(Cursor::blank(b" \n% x\r\n\0"));
    }

    /// Exact: the operands of each operation counted, array and
    /// dictionary members included, closers and operators not; each
    /// operation past the bound, or nested past `MAX_OPERAND_NESTING`,
    /// spans from its first operand to the end of its operator.
    #[test]
    fn operations_with_too_many_operands_are_found() {
        let skipped = |d: &[u8], max| scan_operands(d, max).skipped;
        let ok = b"BT /F1 12 Tf [(a) -120 (b)] TJ << /A [1 2] >> BDC true 1 null d0 ET";
        let at = |p: &[u8]| ok.windows(p.len()).position(|w| w == p).unwrap();
        assert_eq!(skipped(ok, 5), vec![]);
        assert_eq!(
            skipped(ok, 4),
            vec![(at(b"<<"), at(b"BDC") + 3)],
            "the dictionary is five"
        );
        assert_eq!(
            skipped(ok, 3),
            vec![(at(b"[("), at(b"TJ") + 2), (at(b"<<"), at(b"BDC") + 3)],
            "the TJ array is four"
        );
        assert_eq!(skipped(b"q 1 2 3 4 5 6 cm", 6), vec![]);
        assert_eq!(skipped(b"q 1 2 3 4 5 6 cm Q", 5), vec![(2, 16)]);
        assert_eq!(skipped(b"1 2 3", 2), vec![(0, 5)], "no operator");
        assert_eq!(
            skipped(b"BI /W 1 /H 1 ID 1 2 3 4 5 6 7 EI 1 2 3 Tj", 3),
            vec![],
            "an inline image's data is not operands"
        );
        let many = "1 ".repeat(70_000) + "Tj (x) Tj";
        assert_eq!(skipped(many.as_bytes(), 65_536), vec![(0, 140_002)]);
        assert_eq!(skipped(many.as_bytes(), 70_000), vec![]);
        // Nesting: 32 levels parse, 33 are skipped, whatever the count.
        let nest = |k: usize| format!("(a) Tj {}{} Tj (b) Tj", "[".repeat(k), "]".repeat(k));
        assert_eq!(
            skipped(nest(MAX_OPERAND_NESTING).as_bytes(), 65_536),
            vec![]
        );
        let deep = nest(MAX_OPERAND_NESTING + 1);
        assert_eq!(
            skipped(deep.as_bytes(), 65_536),
            vec![(7, 7 + 2 * (MAX_OPERAND_NESTING + 1) + 3)]
        );
    }

    /// The work beyond one unit per operator: a unit per 16 plain
    /// operands, and per array or dictionary past the first of an
    /// operation; skipped operations cost nothing.
    #[test]
    fn operand_work_is_counted() {
        let work = |d: &[u8]| scan_operands(d, 65_536).work;
        assert_eq!(work(b"BT /F1 12 Tf [(a) -120 (b)] TJ ET"), 0);
        assert_eq!(work("1 ".repeat(33).as_bytes()), 2);
        assert_eq!(work(format!("{} Tj", "[]".repeat(1000)).as_bytes()), 999);
        assert_eq!(work(b"[[1] [2]] TJ << /A << /B 1 >> >> BDC"), 2 + 1);
        assert_eq!(
            work(format!("{} Tj", "[]".repeat(70_000)).as_bytes()),
            0,
            "skipped"
        );
        assert!(!Cursor::blank(b" x"));
    }
}
