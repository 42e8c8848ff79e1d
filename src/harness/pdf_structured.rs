//! Structure-aware model of small PDF documents for the extractor (the
//! wasm-smith pattern): an `arbitrary` model builds a valid document as an
//! object graph (catalog, a page tree with one or two levels, pages with
//! their own or inherited resources, one of the standard 14 Latin fonts
//! with or without `/WinAnsiEncoding`, content streams plain or
//! `FlateDecode`-compressed, text shown with `Tj`, `TJ` with kerning, `'`
//! and hex strings), writes it with an exact cross-reference table (the
//! model knows every object's byte offset), and states the answer: the
//! extraction succeeds within its budget, reports exactly the pages written,
//! and each page's text, whitespace aside, is exactly the words the model
//! showed on it, in order (runs are written top to bottom).
use std::io::Write;

use arbitrary::{Arbitrary, Unstructured};

use super::pdf::{harness_limits, pdf_work};

/// Fuzz target `pdf_structured`: the document built from `data` and the
/// text that must come back.
pub fn pdf_structured(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let Ok(model) = PdfModel::arbitrary(&mut u) else {
        return;
    };
    check_model(&model);
}

/// Standard 14 fonts whose built-in encoding is StandardEncoding (Latin
/// letters and digits at their ASCII codes); Symbol and ZapfDingbats are not.
const FONTS: &[&str] = &[
    "Helvetica",
    "Helvetica-Bold",
    "Helvetica-Oblique",
    "Helvetica-BoldOblique",
    "Times-Roman",
    "Times-Bold",
    "Times-Italic",
    "Times-BoldItalic",
    "Courier",
    "Courier-Bold",
    "Courier-Oblique",
    "Courier-BoldOblique",
];

const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/// A document: pages, font, how it is stored.
#[derive(Debug, Clone, Arbitrary)]
pub struct PdfModel {
    pages: Vec<PageModel>,
    font: u8,
    win_ansi: bool,
    compress: bool,
    /// Resources on the root `/Pages` node (inherited) instead of each page.
    inherited: bool,
    /// Pages split under two intermediate `/Pages` nodes.
    two_levels: bool,
    /// Minor version of the header (`%PDF-1.N`).
    version: u8,
}

#[derive(Debug, Clone, Arbitrary)]
struct PageModel {
    runs: Vec<Run>,
}

/// One line of text: words, and the operator that shows them.
#[derive(Debug, Clone, Arbitrary)]
struct Run {
    words: Vec<Vec<u8>>,
    op: Op,
    size: u8,
}

#[derive(Debug, Clone, Copy, Arbitrary)]
enum Op {
    /// `(w1 w2) Tj`
    Tj,
    /// `[(w) -k (w)] TJ`: each word split in two with a small kern.
    Kerned(u8),
    /// `(w1 w2) '` (next line, then show).
    Quote,
    /// `<hex> Tj`
    Hex,
}

impl Run {
    /// The words as written: letters and digits only, 1–8 of them.
    fn words(&self) -> Vec<String> {
        self.words
            .iter()
            .take(6)
            .map(|w| {
                w.iter()
                    .take(8)
                    .map(|b| char::from(ALPHABET[usize::from(*b) % ALPHABET.len()]))
                    .collect::<String>()
            })
            .filter(|w| !w.is_empty())
            .collect()
    }
}

impl PdfModel {
    /// One to six pages (an empty model is one empty page).
    fn pages(&self) -> Vec<PageModel> {
        match self.pages.len() {
            0 => vec![PageModel { runs: Vec::new() }],
            n => self.pages[..n.min(6)].to_vec(),
        }
    }

    /// The content stream of a page and the words it shows (no whitespace).
    fn content(&self, page: &PageModel) -> (Vec<u8>, String) {
        let mut out = String::from("BT\n");
        let mut shown = String::new();
        for (line, run) in page.runs.iter().take(8).enumerate() {
            let words = run.words();
            if words.is_empty() {
                continue;
            }
            let size = 8 + u32::from(run.size % 10);
            let y = 760 - 40 * line;
            out.push_str(&format!("/F1 {size} Tf 14 TL 1 0 0 1 72 {y} Tm\n"));
            let text = words.join(" ");
            match run.op {
                Op::Tj => out.push_str(&format!("({text}) Tj\n")),
                Op::Quote => {
                    // `'` moves down one leading first: start one line higher.
                    out.push_str(&format!("1 0 0 1 72 {} Tm ({text}) '\n", y + 14));
                }
                Op::Hex => {
                    let hex: String = text.bytes().map(|b| format!("{b:02X}")).collect();
                    out.push_str(&format!("<{hex}> Tj\n"));
                }
                Op::Kerned(k) => {
                    out.push('[');
                    for (i, w) in words.iter().enumerate() {
                        let cut = w.len().div_ceil(2);
                        let space = if i + 1 < words.len() { " " } else { "" };
                        out.push_str(&format!(
                            "({}) -{} ({}{space}) ",
                            &w[..cut],
                            k % 40,
                            &w[cut..]
                        ));
                    }
                    out.push_str("] TJ\n");
                }
            }
            shown.push_str(&words.concat());
        }
        out.push_str("ET\n");
        (out.into_bytes(), shown)
    }

    /// The file, and per page the text it shows (whitespace removed).
    fn render(&self) -> (Vec<u8>, Vec<String>) {
        // Object numbers: 1 catalog, 2 root pages, 3 font, 4 resources,
        // 5/6 intermediate nodes, then per page (page, content).
        let pages = self.pages();
        let n = pages.len();
        let font = FONTS[usize::from(self.font) % FONTS.len()];
        let enc = if self.win_ansi {
            " /Encoding /WinAnsiEncoding"
        } else {
            ""
        };
        let page_id = |i: usize| 7 + 2 * i;
        let two = self.two_levels && n >= 2;
        let split = n / 2;
        let mut objects: Vec<(usize, Vec<u8>)> = Vec::new();
        objects.push((1, b"<< /Type /Catalog /Pages 2 0 R >>".to_vec()));
        let refs = |ids: &mut dyn Iterator<Item = usize>| {
            ids.map(|i| format!("{i} 0 R"))
                .collect::<Vec<_>>()
                .join(" ")
        };
        let inherited = if self.inherited {
            " /Resources 4 0 R"
        } else {
            ""
        };
        let kids = if two {
            "5 0 R 6 0 R".to_owned()
        } else {
            refs(&mut (0..n).map(page_id))
        };
        objects.push((
            2,
            format!("<< /Type /Pages /Kids [{kids}] /Count {n}{inherited} >>").into_bytes(),
        ));
        objects.push((
            3,
            format!("<< /Type /Font /Subtype /Type1 /BaseFont /{font}{enc} >>").into_bytes(),
        ));
        objects.push((4, b"<< /Font << /F1 3 0 R >> >>".to_vec()));
        if two {
            for (id, range) in [(5, 0..split), (6, split..n)] {
                let count = range.len();
                objects.push((
                    id,
                    format!(
                        "<< /Type /Pages /Parent 2 0 R /Kids [{}] /Count {count} >>",
                        refs(&mut range.map(page_id))
                    )
                    .into_bytes(),
                ));
            }
        }
        let mut shown = Vec::new();
        for (i, page) in pages.iter().enumerate() {
            let parent = match (two, i < split) {
                (false, _) => 2,
                (true, true) => 5,
                (true, false) => 6,
            };
            let own = if self.inherited {
                ""
            } else {
                " /Resources 4 0 R"
            };
            objects.push((
                page_id(i),
                format!(
                    "<< /Type /Page /Parent {parent} 0 R /MediaBox [0 0 612 792]{own} /Contents {} 0 R >>",
                    page_id(i) + 1
                )
                .into_bytes(),
            ));
            let (content, text) = self.content(page);
            let (data, filter) = if self.compress {
                let mut z =
                    flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::fast());
                z.write_all(&content).expect("in memory");
                (z.finish().expect("in memory"), " /Filter /FlateDecode")
            } else {
                (content, "")
            };
            let mut stream = format!("<< /Length {}{filter} >>\nstream\n", data.len()).into_bytes();
            stream.extend_from_slice(&data);
            stream.extend_from_slice(b"\nendstream");
            objects.push((page_id(i) + 1, stream));
            shown.push(text);
        }

        let mut out = format!("%PDF-1.{}\n%\u{e2}\u{e3}\n", self.version % 8).into_bytes();
        let size = objects.iter().map(|(id, _)| *id).max().unwrap_or(0) + 1;
        let mut offsets = vec![None; size];
        for (id, body) in &objects {
            offsets[*id] = Some(out.len());
            out.extend_from_slice(format!("{id} 0 obj\n").as_bytes());
            out.extend_from_slice(body);
            out.extend_from_slice(b"\nendobj\n");
        }
        let xref = out.len();
        out.extend_from_slice(format!("xref\n0 {size}\n0000000000 65535 f\r\n").as_bytes());
        for o in &offsets[1..] {
            let line = match o {
                Some(at) => format!("{at:010} 00000 n\r\n"),
                None => "0000000000 65535 f\r\n".to_owned(),
            };
            out.extend_from_slice(line.as_bytes());
        }
        out.extend_from_slice(
            format!("trailer\n<< /Size {size} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n")
                .as_bytes(),
        );
        (out, shown)
    }
}

fn check_model(model: &PdfModel) {
    let (bytes, shown) = model.render();
    let limits = harness_limits();
    let (result, work) = pdf_work(&bytes, &limits);
    assert!(work <= limits.max_operations_per_call);
    let x = result.unwrap_or_else(|e| {
        panic!(
            "a valid document was refused ({e}):\n{}",
            String::from_utf8_lossy(&bytes)
        )
    });
    assert_eq!(x.page_count as usize, shown.len(), "page count");
    assert!(!x.truncated, "truncated: {:?}", x.warnings);
    assert_eq!(x.pages.len(), shown.len());
    for (page, want) in x.pages.iter().zip(&shown) {
        let got: String = page.text.chars().filter(|c| !c.is_whitespace()).collect();
        assert_eq!(
            &got,
            want,
            "page {} of\n{}",
            page.number,
            String::from_utf8_lossy(&bytes)
        );
    }
    // The byte-level harness's invariants hold on the same document.
    super::pdf::pdf_extract(&bytes);
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        /// The exact oracle holds on documents built from any bytes.
        #[test]
        fn the_words_written_come_back(data in proptest::collection::vec(any::<u8>(), 0..1024)) {
            super::pdf_structured(&data);
        }
    }
}
