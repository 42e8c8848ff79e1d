//! Structure-aware model of small PDF documents for the extractor (the
//! wasm-smith pattern): an `arbitrary` model builds a valid document as an
//! object graph (catalog, a page tree with one or two levels, pages with
//! their own or inherited resources, one of the standard 14 Latin fonts
//! with its built-in encoding, `/WinAnsiEncoding`, a `/Differences` array
//! that moves every letter to another code, or a `/ToUnicode` CMap that
//! maps the codes shown to other characters (Latin, Cyrillic, astral math
//! letters written as UTF-16 surrogate pairs), content streams plain or
//! `FlateDecode`-compressed, text shown with `Tj`, `TJ` with kerning, `'`
//! and hex strings), writes it with an exact cross-reference table (the
//! model knows every object's byte offset), optionally encrypts it with an
//! empty user password (lopdf's writer: RC4 40 to 128 bits, revisions 2 to
//! 4, AES-128 and AES-256), and states the answer: the
//! extraction succeeds within its budget, without warnings or truncation,
//! reports exactly the pages written, and each page's text is exactly the
//! model's: one line per run (runs are written top to bottom), its words
//! separated by one space, except that a line of one-character words in a
//! proportional font reads as one word (pdftotext's letter-spacing rule,
//! predicted from the fonts' AFM space widths).
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
/// letters and digits at their ASCII codes; Symbol and ZapfDingbats are not),
/// each with the width of its `space` glyph in thousandths of an em (Adobe's
/// AFM files).
const FONTS: &[(&str, u32)] = &[
    ("Helvetica", 278),
    ("Helvetica-Bold", 278),
    ("Helvetica-Oblique", 278),
    ("Helvetica-BoldOblique", 278),
    ("Times-Roman", 250),
    ("Times-Bold", 250),
    ("Times-Italic", 250),
    ("Times-BoldItalic", 250),
    ("Courier", 600),
    ("Courier-Bold", 600),
    ("Courier-Oblique", 600),
    ("Courier-BoldOblique", 600),
];

/// pdftotext's rule for a line made only of one-character words (letter
/// spacing): a space separates two of them only where their gap reaches
/// 0.4 em (or 1.3 times the line's smallest gap, when that is less). All
/// gaps of a run are equal, so that is: when the gap reaches 0.4 em.
const LETTER_SPACED_GAP: u32 = 400;

const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/// A document: pages, font, how it is stored.
#[derive(Debug, Clone, Arbitrary)]
pub struct PdfModel {
    pages: Vec<PageModel>,
    font: u8,
    encoding: Encoding,
    compress: bool,
    /// Resources on the root `/Pages` node (inherited) instead of each page.
    inherited: bool,
    /// Pages split under two intermediate `/Pages` nodes.
    two_levels: bool,
    /// Minor version of the header (`%PDF-1.N`).
    version: u8,
    /// Encrypted with an empty user password (any reader opens it).
    crypt: Option<Crypt>,
    /// An Info dictionary and an XMP packet (`metadata` reads them back).
    info: Option<InfoModel>,
    /// The cross-reference data damaged after writing (a reader repairs
    /// it by scanning for objects: `xref_repaired`, the same text).
    damage: Option<Damage>,
}

/// What the document says about itself: a `/Title` and an `/Author` from
/// the model's letters, as a literal PDFDocEncoding string or a UTF-16BE
/// hex string with its byte order mark, and optionally an XMP packet
/// naming the title, from the catalog's `/Metadata`.
#[derive(Debug, Clone, Arbitrary)]
struct InfoModel {
    title: Vec<u8>,
    author: u8,
    utf16: bool,
    xmp: bool,
}

impl InfoModel {
    fn title(&self) -> String {
        self.title
            .iter()
            .take(40)
            .map(|b| char::from(ALPHABET[usize::from(*b) % ALPHABET.len()]))
            .collect()
    }

    fn author(&self) -> String {
        format!("Author {}", self.author)
    }

    /// `text` as a PDF string object of this model's kind.
    fn string(&self, text: &str) -> String {
        if self.utf16 {
            let hex: String = text.encode_utf16().map(|u| format!("{u:04X}")).collect();
            format!("<FEFF{hex}>")
        } else {
            format!("({text})")
        }
    }

    fn xmp_packet(&self) -> String {
        format!(
            "<?xpacket begin=\"\" id=\"W5M0MpCehiHzreSzNTczkc9d\"?><x:xmpmeta xmlns:x=\"adobe:ns:meta/\"><rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\"><rdf:Description xmlns:dc=\"http://purl.org/dc/elements/1.1/\"><dc:title>{}</dc:title></rdf:Description></rdf:RDF></x:xmpmeta><?xpacket end=\"r\"?>",
            self.title()
        )
    }
}

/// How the cross-reference data is damaged after the document is written
/// (and encrypted): each leaves every object whole, so a reader that
/// rebuilds the table by scanning finds the same document.
#[derive(Debug, Clone, Copy, Arbitrary)]
enum Damage {
    /// `startxref` names an offset `k + 1` bytes off the table.
    StartxrefOff(u8),
    /// The `xref` keyword misspelt.
    XrefKeyword,
    /// No `startxref` at all.
    NoStartxref,
}

impl Damage {
    fn apply(self, mut pdf: Vec<u8>) -> Vec<u8> {
        let Some(at) = rfind(&pdf, b"startxref") else {
            return pdf;
        };
        match self {
            Damage::StartxrefOff(k) => {
                let digits = at + b"startxref\n".len();
                let end = pdf[digits..]
                    .iter()
                    .position(|b| !b.is_ascii_digit())
                    .map_or(pdf.len(), |n| digits + n);
                let offset: usize = std::str::from_utf8(&pdf[digits..end])
                    .ok()
                    .and_then(|t| t.parse().ok())
                    .unwrap_or(0);
                let wrong = (offset + usize::from(k) + 1).to_string();
                pdf.splice(digits..end, wrong.into_bytes());
            }
            Damage::XrefKeyword => {
                let Ok(offset) = std::str::from_utf8(&pdf[at + b"startxref\n".len()..])
                    .unwrap_or("")
                    .split_whitespace()
                    .next()
                    .unwrap_or("")
                    .parse::<usize>()
                else {
                    return pdf;
                };
                if pdf.get(offset..offset + 4) == Some(b"xref") {
                    pdf[offset + 3] = b'x';
                }
            }
            Damage::NoStartxref => {
                pdf.truncate(at);
                pdf.extend_from_slice(b"%%EOF\n");
            }
        }
        pdf
    }
}

fn rfind(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).rposition(|w| w == needle)
}

/// How the document is encrypted: the standard security handler with an
/// empty user password and the owner password `owner`, written by lopdf.
#[derive(Debug, Clone, Arbitrary)]
struct Crypt {
    kind: CryptKind,
    /// The first element of the trailer's `/ID` (the RC4 key depends on it).
    id: [u8; 16],
    /// `/EncryptMetadata` of revision 4 and up.
    metadata: bool,
}

#[derive(Debug, Clone, Copy, Arbitrary)]
enum CryptKind {
    /// `/V 1 /R 2`: RC4, 40 bits.
    Rc4V1,
    /// `/V 2 /R 3`: RC4 with a key of 40 + 8 × (`bytes` % 11) bits.
    Rc4V2 { bytes: u8 },
    /// `/V 4 /R 4` with the RC4 crypt filter (`/V2`).
    Rc4V4,
    /// `/V 4 /R 4` with AES-128 (`/AESV2`).
    Aes128,
    /// `/V 5 /R 6` with AES-256 (`/AESV3`), this file key.
    Aes256 { key: [u8; 32] },
}

impl Crypt {
    /// `plain` encrypted by lopdf (which writes its own cross-reference
    /// table).
    fn apply(&self, plain: &[u8]) -> Vec<u8> {
        use lopdf::encryption::crypt_filters::{
            Aes128CryptFilter, Aes256CryptFilter, CryptFilter, Rc4CryptFilter,
        };
        use lopdf::{EncryptionState, EncryptionVersion, Object, Permissions, StringFormat};
        use std::collections::BTreeMap;
        use std::sync::Arc;

        let mut doc = lopdf::Document::load_mem(plain).expect("the model's own document");
        let id = Object::String(self.id.to_vec(), StringFormat::Hexadecimal);
        doc.trailer.set("ID", Object::Array(vec![id.clone(), id]));
        let filters = |f: Arc<dyn CryptFilter>| BTreeMap::from([(b"StdCF".to_vec(), f)]);
        let (owner_password, user_password) = ("owner", "");
        let permissions = Permissions::all();
        let version = match self.kind {
            CryptKind::Rc4V1 => EncryptionVersion::V1 {
                document: &doc,
                owner_password,
                user_password,
                permissions,
            },
            CryptKind::Rc4V2 { bytes } => EncryptionVersion::V2 {
                document: &doc,
                owner_password,
                user_password,
                key_length: 40 + 8 * usize::from(bytes % 11),
                permissions,
            },
            CryptKind::Rc4V4 | CryptKind::Aes128 => EncryptionVersion::V4 {
                document: &doc,
                encrypt_metadata: self.metadata,
                crypt_filters: filters(match self.kind {
                    CryptKind::Rc4V4 => Arc::new(Rc4CryptFilter),
                    _ => Arc::new(Aes128CryptFilter),
                }),
                stream_filter: b"StdCF".to_vec(),
                string_filter: b"StdCF".to_vec(),
                owner_password,
                user_password,
                permissions,
            },
            CryptKind::Aes256 { ref key } => EncryptionVersion::V5 {
                encrypt_metadata: self.metadata,
                crypt_filters: filters(Arc::new(Aes256CryptFilter)),
                file_encryption_key: key,
                stream_filter: b"StdCF".to_vec(),
                string_filter: b"StdCF".to_vec(),
                owner_password,
                user_password,
                permissions,
            },
        };
        let state = EncryptionState::try_from(version).expect("lopdf encrypts the model");
        doc.encrypt(&state).expect("lopdf encrypts the model");
        let mut out = Vec::new();
        doc.save_to(&mut out).expect("in memory");
        out
    }
}

/// How the font's codes become text.
#[derive(Debug, Clone, Copy, Arbitrary)]
enum Encoding {
    /// The font's built-in encoding (StandardEncoding: letters and digits
    /// at their ASCII codes).
    Builtin,
    /// `/Encoding /WinAnsiEncoding`.
    WinAnsi,
    /// `/Differences` over WinAnsi naming each letter and digit at a code
    /// from 128 up (`[128 /A /B …]`): the content shows those codes.
    Differences,
    /// A `/ToUnicode` CMap: each letter or digit is shown as the one
    /// `shift` places further in [`ALPHABET`] and mapped back to `target`'s
    /// character for the letter meant (in one `bfchar` block, or in blocks
    /// of at most `block` entries).
    ToUnicode {
        shift: u8,
        target: Target,
        block: u8,
    },
}

/// The characters a ToUnicode CMap maps to.
#[derive(Debug, Clone, Copy, Arbitrary)]
enum Target {
    /// The letter itself.
    Same,
    /// Cyrillic capitals and small letters (U+0410…, U+0430…), digits kept.
    Cyrillic,
    /// Mathematical bold (U+1D400…, U+1D41A…, U+1D7CE…): outside the BMP,
    /// so the CMap writes surrogate pairs.
    MathBold,
}

impl Target {
    fn map(self, c: char) -> char {
        let plus = |base: u32, from: char| char::from_u32(base + (c as u32 - from as u32));
        let mapped = match (self, c) {
            (Target::Same, _) => Some(c),
            (Target::Cyrillic, 'A'..='Z') => plus(0x410, 'A'),
            (Target::Cyrillic, 'a'..='z') => plus(0x430, 'a'),
            (Target::Cyrillic, _) => Some(c),
            (Target::MathBold, 'A'..='Z') => plus(0x1d400, 'A'),
            (Target::MathBold, 'a'..='z') => plus(0x1d41a, 'a'),
            (Target::MathBold, '0'..='9') => plus(0x1d7ce, '0'),
            (Target::MathBold, _) => Some(c),
        };
        mapped.expect("in the Unicode tables")
    }
}

/// Adobe glyph names of [`ALPHABET`]'s characters.
fn glyph_name(c: u8) -> String {
    const DIGITS: [&str; 10] = [
        "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
    ];
    match c {
        b'0'..=b'9' => DIGITS[usize::from(c - b'0')].to_owned(),
        _ => char::from(c).to_string(),
    }
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

/// Page width in points: twice a letter page, so that the longest line the
/// model writes (53 characters of the widest glyph, 1 em, at 17 pt from
/// x = 72: 973 pt) stays on the page. A glyph past the page's edge is not
/// extracted (as pdftotext does); a campaign found a Times-Bold line at
/// 17 pt that ended 1 pt past a 612 pt page.
const PAGE_WIDTH: u32 = 1224;

impl PdfModel {
    /// One to six pages (an empty model is one empty page).
    fn pages(&self) -> Vec<PageModel> {
        match self.pages.len() {
            0 => vec![PageModel { runs: Vec::new() }],
            n => self.pages[..n.min(6)].to_vec(),
        }
    }

    /// The font: its name and the width of its space.
    fn font(&self) -> (&'static str, u32) {
        FONTS[usize::from(self.font) % FONTS.len()]
    }

    /// The code shown for the letter or digit `c` (a space stays 32).
    fn code(&self, c: u8) -> u8 {
        let at = ALPHABET.iter().position(|a| *a == c);
        match (self.encoding, at) {
            (_, None) => c,
            (Encoding::Differences, Some(i)) => 128 + u8::try_from(i).expect("62 letters"),
            (Encoding::ToUnicode { shift, .. }, Some(i)) => {
                ALPHABET[(i + usize::from(shift)) % ALPHABET.len()]
            }
            (Encoding::Builtin | Encoding::WinAnsi, Some(_)) => c,
        }
    }

    /// `text` as the codes the content stream shows.
    fn codes(&self, text: &str) -> String {
        // Codes from 128 are kept as chars U+0080..U+00BD here and written
        // as single bytes by `latin1`.
        text.bytes().map(|c| char::from(self.code(c))).collect()
    }

    /// The text a reader must get for what the model wrote as `text`.
    fn meant(&self, text: &str) -> String {
        match self.encoding {
            Encoding::ToUnicode { target, .. } => text.chars().map(|c| target.map(c)).collect(),
            _ => text.to_owned(),
        }
    }

    /// The content stream of a page and the text it must read as: one line
    /// per run that shows words, each ending in `\n`.
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
            let coded = self.codes(&text);
            let mut kern = 0;
            match run.op {
                Op::Tj => out.push_str(&format!("({coded}) Tj\n")),
                Op::Quote => {
                    // `'` moves down one leading first: start one line higher.
                    out.push_str(&format!("1 0 0 1 72 {} Tm ({coded}) '\n", y + 14));
                }
                Op::Hex => {
                    let hex: String = coded.chars().map(|b| format!("{:02X}", b as u32)).collect();
                    out.push_str(&format!("<{hex}> Tj\n"));
                }
                Op::Kerned(k) => {
                    kern = u32::from(k % 40);
                    out.push('[');
                    for (i, w) in words.iter().enumerate() {
                        let cut = w.len().div_ceil(2);
                        let space = if i + 1 < words.len() { " " } else { "" };
                        out.push_str(&format!(
                            "({}) -{} ({}{space}) ",
                            self.codes(&w[..cut]),
                            kern,
                            self.codes(&w[cut..])
                        ));
                    }
                    out.push_str("] TJ\n");
                }
            }
            // Between two one-character words the gap is the space plus
            // the kern after the letter.
            let letter_spaced = words.len() >= 2 && words.iter().all(|w| w.len() == 1);
            if letter_spaced && self.font().1 + kern < LETTER_SPACED_GAP {
                shown.push_str(&self.meant(&words.concat()));
            } else {
                shown.push_str(&self.meant(&text));
            }
            shown.push('\n');
        }
        out.push_str("ET\n");
        (latin1(&out), shown)
    }

    /// The font dictionary's encoding entries, and the ToUnicode CMap
    /// stream (object `cmap_id`) when there is one.
    fn font_entries(&self, cmap_id: usize) -> (String, Option<Vec<u8>>) {
        match self.encoding {
            Encoding::Builtin => (String::new(), None),
            Encoding::WinAnsi => (" /Encoding /WinAnsiEncoding".to_owned(), None),
            Encoding::Differences => {
                let names: Vec<String> = ALPHABET
                    .iter()
                    .map(|c| format!("/{}", glyph_name(*c)))
                    .collect();
                (
                    format!(
                        " /Encoding << /Type /Encoding /BaseEncoding /WinAnsiEncoding /Differences [128 {}] >>",
                        names.join(" ")
                    ),
                    None,
                )
            }
            Encoding::ToUnicode { target, block, .. } => {
                // Every code shown (letters, digits, the space) to what it means.
                let mut pairs: Vec<(u8, char)> = ALPHABET
                    .iter()
                    .map(|c| (self.code(*c), target.map(char::from(*c))))
                    .collect();
                pairs.push((b' ', ' '));
                let block = usize::from(block % 100).max(1);
                let mut cmap = String::from(
                    "/CIDInit /ProcSet findresource begin\n12 dict begin\nbegincmap\n\
                     /CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def\n\
                     /CMapName /Adobe-Identity-UCS def\n/CMapType 2 def\n\
                     1 begincodespacerange\n<00> <FF>\nendcodespacerange\n",
                );
                for chunk in pairs.chunks(block) {
                    cmap.push_str(&format!("{} beginbfchar\n", chunk.len()));
                    for (code, ch) in chunk {
                        let mut units = [0u16; 2];
                        let hex: String = ch
                            .encode_utf16(&mut units)
                            .iter()
                            .map(|u| format!("{u:04X}"))
                            .collect();
                        cmap.push_str(&format!("<{code:02X}> <{hex}>\n"));
                    }
                    cmap.push_str("endbfchar\n");
                }
                cmap.push_str("endcmap\nCMapName currentdict /CMap defineresource pop\nend\nend\n");
                let mut stream = format!("<< /Length {} >>\nstream\n", cmap.len()).into_bytes();
                stream.extend_from_slice(cmap.as_bytes());
                stream.extend_from_slice(b"\nendstream");
                (format!(" /ToUnicode {cmap_id} 0 R"), Some(stream))
            }
        }
    }

    /// The file, and per page the text it must read as.
    fn render(&self) -> (Vec<u8>, Vec<String>) {
        // Object numbers: 1 catalog, 2 root pages, 3 font, 4 resources,
        // 5/6 intermediate nodes, then per page (page, content).
        let pages = self.pages();
        let n = pages.len();
        let (font, _) = self.font();
        let page_id = |i: usize| 7 + 2 * i;
        let (enc, cmap) = self.font_entries(page_id(n));
        let two = self.two_levels && n >= 2;
        let split = n / 2;
        let mut objects: Vec<(usize, Vec<u8>)> = Vec::new();
        // The Info dictionary and the XMP stream come after every page.
        let info_id = page_id(n) + 1;
        let xmp_id = info_id + 1;
        let catalog = match &self.info {
            Some(i) if i.xmp => format!("<< /Type /Catalog /Pages 2 0 R /Metadata {xmp_id} 0 R >>"),
            _ => "<< /Type /Catalog /Pages 2 0 R >>".to_owned(),
        };
        objects.push((1, catalog.into_bytes()));
        if let Some(i) = &self.info {
            let info = format!(
                "<< /Title {} /Author {} >>",
                i.string(&i.title()),
                i.string(&i.author())
            );
            objects.push((info_id, info.into_bytes()));
            if i.xmp {
                let packet = i.xmp_packet();
                let mut stream = format!(
                    "<< /Type /Metadata /Subtype /XML /Length {} >>\nstream\n",
                    packet.len()
                )
                .into_bytes();
                stream.extend_from_slice(packet.as_bytes());
                stream.extend_from_slice(b"\nendstream");
                objects.push((xmp_id, stream));
            }
        }
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
        if let Some(cmap) = cmap {
            objects.push((page_id(n), cmap));
        }
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
                    "<< /Type /Page /Parent {parent} 0 R /MediaBox [0 0 {PAGE_WIDTH} 792]{own} /Contents {} 0 R >>",
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
            format!(
                "trailer\n<< /Size {size} /Root 1 0 R{} >>\nstartxref\n{xref}\n%%EOF\n",
                if self.info.is_some() {
                    format!(" /Info {info_id} 0 R")
                } else {
                    String::new()
                }
            )
            .as_bytes(),
        );
        let out = match &self.crypt {
            Some(c) => c.apply(&out),
            None => out,
        };
        match self.damage {
            Some(d) => (d.apply(out), shown),
            None => (out, shown),
        }
    }
}

/// `text` (chars up to U+00FF) as one byte per char.
fn latin1(text: &str) -> Vec<u8> {
    text.chars()
        .map(|c| u8::try_from(u32::from(c)).expect("the model writes Latin-1"))
        .collect()
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
    if model.damage.is_none() {
        assert!(x.warnings.is_empty(), "warnings: {:?}", x.warnings);
    }
    let options = crate::pdf::Options {
        password: None,
        limits,
    };
    let meta = crate::pdf::metadata_in_process(crate::pdf::Source::Bytes(&bytes), &options)
        .unwrap_or_else(|e| panic!("metadata of a valid document failed: {e}"));
    assert_eq!(meta.page_count as usize, shown.len(), "metadata page count");
    assert_eq!(meta.encrypted, model.crypt.is_some());
    assert_eq!(meta.xref_repaired, model.damage.is_some(), "xref_repaired");
    match &model.info {
        Some(i) => {
            assert_eq!(meta.title.as_deref(), Some(i.title().as_str()), "title");
            assert_eq!(meta.author.as_deref(), Some(i.author().as_str()), "author");
            match (&meta.xmp, i.xmp) {
                (Some(x), true) => assert_eq!(x.trim_end(), i.xmp_packet()),
                (None, false) => {}
                (got, _) => panic!("xmp {got:?}, model {}", i.xmp),
            }
        }
        None => assert_eq!((&meta.title, &meta.xmp), (&None, &None)),
    }
    assert_eq!(x.pages.len(), shown.len());
    for (i, (page, want)) in x.pages.iter().zip(&shown).enumerate() {
        assert_eq!(page.number as usize, i + 1, "page numbers");
        assert_eq!(
            &page.text,
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
    use super::*;

    /// Every font with every operator, on a fixed two-page document: a run
    /// of one-character words (letter-spaced: joined in Helvetica and Times,
    /// apart in Courier) and a run of longer words, under each storage
    /// variant. Random inputs rarely hit the letter-spaced runs; the bolero
    /// test in `tests/corpus_replay.rs` covers the rest.
    #[test]
    fn every_font_and_operator() {
        let ops = [Op::Tj, Op::Kerned(0), Op::Kerned(39), Op::Quote, Op::Hex];
        for (font, (_, space)) in FONTS.iter().enumerate() {
            for (i, op) in ops.into_iter().enumerate() {
                let run = |words: Vec<Vec<u8>>| Run { words, op, size: 9 };
                let page = PageModel {
                    runs: vec![
                        run(vec![vec![0], vec![27], vec![52]]),
                        run(vec![vec![7, 30, 11], vec![61]]),
                    ],
                };
                let model = PdfModel {
                    pages: vec![page.clone(), page],
                    font: u8::try_from(font).unwrap(),
                    encoding: if i % 2 == 0 {
                        Encoding::WinAnsi
                    } else {
                        Encoding::Builtin
                    },
                    compress: font % 2 == 0,
                    inherited: i % 3 == 0,
                    two_levels: font % 3 == 0,
                    version: 7,
                    crypt: None,
                    info: None,
                    damage: None,
                };
                let spaced = *space >= LETTER_SPACED_GAP;
                let (_, shown) = model.render();
                let letters = if spaced { "A b 0" } else { "Ab0" };
                assert_eq!(shown[0], format!("{letters}\nHeL 9\n"));
                check_model(&model);
            }
        }
    }

    /// Every way the model encrypts, with a CMap and with `/Differences`
    /// (strings inside streams and the CMap stream are decrypted too).
    #[test]
    fn every_encryption_opens_with_the_empty_password() {
        let kinds = [
            CryptKind::Rc4V1,
            CryptKind::Rc4V2 { bytes: 0 },
            CryptKind::Rc4V2 { bytes: 5 },
            CryptKind::Rc4V2 { bytes: 10 },
            CryptKind::Rc4V4,
            CryptKind::Aes128,
            CryptKind::Aes256 { key: [7; 32] },
        ];
        for (i, kind) in kinds.into_iter().enumerate() {
            for encoding in [
                Encoding::Differences,
                Encoding::ToUnicode {
                    shift: 5,
                    target: Target::MathBold,
                    block: 9,
                },
            ] {
                let run = |op| Run {
                    words: vec![vec![7, 30], vec![61, 2, 9]],
                    op,
                    size: 10,
                };
                let model = PdfModel {
                    pages: vec![PageModel {
                        runs: vec![run(Op::Tj), run(Op::Hex), run(Op::Kerned(9))],
                    }],
                    font: 4,
                    encoding,
                    compress: i % 2 == 0,
                    inherited: i % 3 == 0,
                    two_levels: false,
                    version: 6,
                    crypt: Some(Crypt {
                        kind,
                        id: [i as u8; 16],
                        metadata: i % 2 == 1,
                    }),
                    info: None,
                    damage: None,
                };
                let (bytes, _) = model.render();
                assert!(
                    bytes.windows(8).any(|w| w == b"/Encrypt"),
                    "{kind:?} wrote no /Encrypt"
                );
                check_model(&model);
            }
        }
    }

    /// Every encoding the model writes, with every operator, in a
    /// proportional and a fixed-pitch font: the text is the letters meant,
    /// not the codes shown.
    #[test]
    fn every_encoding_reads_as_the_letters_meant() {
        let ops = [Op::Tj, Op::Kerned(3), Op::Quote, Op::Hex];
        let mut encodings = vec![Encoding::Builtin, Encoding::WinAnsi, Encoding::Differences];
        for target in [Target::Same, Target::Cyrillic, Target::MathBold] {
            for (shift, block) in [(0, 0), (17, 5), (61, 99)] {
                encodings.push(Encoding::ToUnicode {
                    shift,
                    target,
                    block,
                });
            }
        }
        for encoding in encodings {
            for font in [0u8, 8] {
                for (i, op) in ops.into_iter().enumerate() {
                    let run = |words: Vec<Vec<u8>>| Run {
                        words,
                        op,
                        size: 11,
                    };
                    let page = PageModel {
                        runs: vec![
                            run(vec![vec![7, 30, 11, 61], vec![26, 51, 52]]),
                            run(vec![vec![0], vec![27], vec![52]]),
                        ],
                    };
                    let model = PdfModel {
                        pages: vec![page],
                        font,
                        encoding,
                        compress: i % 2 == 0,
                        inherited: false,
                        two_levels: false,
                        version: 4,
                        crypt: None,
                        info: None,
                        damage: None,
                    };
                    if let Encoding::ToUnicode {
                        target: Target::Cyrillic,
                        shift: 17,
                        ..
                    } = encoding
                    {
                        let (bytes, shown) = model.render();
                        assert!(shown[0].starts_with("ЗдЛ9 ащ0\n"), "{:?}", shown[0]);
                        // What is shown is other letters: "HeL9" moved 17 on.
                        let text = String::from_utf8_lossy(&bytes);
                        assert!(!text.contains("HeL9") && !text.contains("48654C39"));
                    }
                    check_model(&model);
                }
            }
        }
    }
    /// Info strings in both encodings, with and without an XMP packet,
    /// under each kind of damage to the cross-reference data and each
    /// encryption: the metadata reads back exactly, the text is the same,
    /// and `xref_repaired` is set exactly when the table was damaged.
    #[test]
    fn every_info_and_damage_reads_back() {
        let damages = [
            None,
            Some(Damage::StartxrefOff(0)),
            Some(Damage::StartxrefOff(200)),
            Some(Damage::XrefKeyword),
            Some(Damage::NoStartxref),
        ];
        let crypts = [
            None,
            Some(CryptKind::Rc4V2 { bytes: 5 }),
            Some(CryptKind::Aes256 { key: [3; 32] }),
        ];
        for damage in damages {
            for crypt in crypts {
                for (utf16, xmp) in [(false, false), (true, true), (false, true)] {
                    let model = PdfModel {
                        pages: vec![PageModel {
                            runs: vec![Run {
                                words: vec![b"Hello".to_vec(), b"world".to_vec()],
                                op: Op::Tj,
                                size: 9,
                            }],
                        }],
                        font: 0,
                        encoding: Encoding::Builtin,
                        compress: utf16,
                        inherited: false,
                        two_levels: false,
                        version: 7,
                        crypt: crypt.map(|kind| Crypt {
                            kind,
                            id: [9; 16],
                            metadata: xmp,
                        }),
                        info: Some(InfoModel {
                            title: vec![7, 30, 61, 2],
                            author: 42,
                            utf16,
                            xmp,
                        }),
                        damage,
                    };
                    check_model(&model);
                }
            }
        }
    }
}
