//! A generator of malformed and hostile PDFs, written for these tests.
//! `Doc` collects numbered objects and serialises them with a cross-reference
//! table that is correct unless a case asks it to lie.

#![allow(clippy::write_with_newline)]

use std::io::Write;

/// A PDF under construction: objects by number, and the trailer's extra keys.
pub struct Doc {
    pub version: &'static str,
    pub objects: Vec<(u32, Vec<u8>)>,
    pub trailer_extra: String,
    pub root: u32,
}

impl Doc {
    pub fn new(root: u32) -> Self {
        Self {
            version: "1.7",
            objects: Vec::new(),
            trailer_extra: String::new(),
            root,
        }
    }

    pub fn obj(mut self, num: u32, body: impl AsRef<[u8]>) -> Self {
        self.objects.push((num, body.as_ref().to_vec()));
        self
    }

    /// A stream object with `dict` (without /Length) and raw `data`.
    pub fn stream(self, num: u32, dict: &str, data: &[u8]) -> Self {
        let mut body = format!("<< {dict} /Length {} >>\nstream\n", data.len()).into_bytes();
        body.extend_from_slice(data);
        body.extend_from_slice(b"\nendstream");
        self.obj(num, body)
    }

    pub fn trailer(mut self, extra: &str) -> Self {
        self.trailer_extra.push_str(extra);
        self
    }

    /// Serialises with a correct xref table; `lie` may rewrite each offset.
    pub fn build_with(&self, lie: impl Fn(u32, usize) -> usize) -> Vec<u8> {
        let mut out = format!("%PDF-{}\n%\u{e2}\u{e3}\u{cf}\u{d3}\n", self.version).into_bytes();
        let mut offsets = Vec::new();
        for (num, body) in &self.objects {
            offsets.push((*num, out.len()));
            write!(out, "{num} 0 obj\n").unwrap();
            out.extend_from_slice(body);
            out.extend_from_slice(b"\nendobj\n");
        }
        let size = self.objects.iter().map(|(n, _)| *n).max().unwrap_or(0) + 1;
        let xref = out.len();
        write!(out, "xref\n0 {size}\n0000000000 65535 f \n").unwrap();
        let mut by_num = vec![None; size as usize];
        for (n, off) in &offsets {
            by_num[*n as usize] = Some(*off);
        }
        for n in 1..size {
            match by_num[n as usize] {
                Some(off) => write!(out, "{:010} 00000 n \n", lie(n, off)).unwrap(),
                None => write!(out, "0000000000 65535 f \n").unwrap(),
            }
        }
        write!(
            out,
            "trailer\n<< /Size {size} /Root {} 0 R {} >>\nstartxref\n{xref}\n%%EOF\n",
            self.root, self.trailer_extra
        )
        .unwrap();
        out
    }

    pub fn build(&self) -> Vec<u8> {
        self.build_with(|_, off| off)
    }
}

/// zlib-compresses `data`.
pub fn zlib(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

/// A zlib stream of `n` zero bytes, written directly as one fixed-Huffman
/// deflate block (RFC 1951 §3.2.6): a literal 0, then matches of length 258
/// at distance 1 (13 bits each), so a 1 GiB bomb costs ~850 KB and no time.
pub fn zlib_zeros(n: usize) -> Vec<u8> {
    struct Bits {
        out: Vec<u8>,
        acc: u64,
        len: u32,
    }
    impl Bits {
        /// Writes `count` bits of `v`, least significant first.
        fn put(&mut self, v: u64, count: u32) {
            self.acc |= v << self.len;
            self.len += count;
            while self.len >= 8 {
                self.out.push(self.acc as u8);
                self.acc >>= 8;
                self.len -= 8;
            }
        }
        /// Writes a Huffman code, most significant bit first.
        fn code(&mut self, code: u64, count: u32) {
            let mut rev = 0u64;
            for i in 0..count {
                rev |= ((code >> i) & 1) << (count - 1 - i);
            }
            self.put(rev, count);
        }
    }
    assert!(n >= 1);
    let mut b = Bits {
        out: vec![0x78, 0xDA],
        acc: 0,
        len: 0,
    };
    b.put(1, 1); // BFINAL
    b.put(1, 2); // BTYPE = fixed Huffman
    let literal0 = |b: &mut Bits| b.code(0b0011_0000, 8);
    literal0(&mut b);
    let matches = (n - 1) / 258;
    for _ in 0..matches {
        b.code(0b1100_0101, 8); // length code 285 = 258
        b.code(0, 5); // distance code 0 = 1
    }
    for _ in 0..(n - 1) % 258 {
        literal0(&mut b);
    }
    b.code(0, 7); // end of block (256)
    if b.len > 0 {
        b.out.push(b.acc as u8);
    }
    let adler = (((n % 65521) as u32) << 16) | 1;
    b.out.extend_from_slice(&adler.to_be_bytes());
    b.out
}

/// Catalog 1, Pages 2 with one page 3 whose content is object 4.
pub fn one_page(content: &[u8]) -> Doc {
    Doc::new(1)
        .obj(1, "<< /Type /Catalog /Pages 2 0 R >>")
        .obj(2, "<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
        .obj(
            3,
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
        )
        .stream(4, "", content)
        .obj(5, "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
}

pub const HELLO: &[u8] = b"BT /F1 12 Tf 72 720 Td (Hello hostile world) Tj ET";

/// Appends object `num` with `body` to `out`, noting its offset in `offs`.
fn push_object(out: &mut Vec<u8>, offs: &mut Vec<(u32, usize)>, num: u32, body: &[u8]) {
    offs.push((num, out.len()));
    write!(out, "{num} 0 obj\n").unwrap();
    out.extend_from_slice(body);
    out.extend_from_slice(b"\nendobj\n");
}

/// A file whose object 3 (the page) lives in an object stream that is
/// `objstm` (already-encoded bytes with `filter`), with an xref stream.
pub fn in_object_stream(
    objstm_filter: &str,
    objstm_data: &[u8],
    first: usize,
    n: usize,
) -> Vec<u8> {
    let mut out = b"%PDF-1.5\n%\xe2\xe3\xcf\xd3\n".to_vec();
    let mut offs = Vec::new();
    let mut push =
        |out: &mut Vec<u8>, num: u32, body: &[u8]| push_object(out, &mut offs, num, body);
    push(&mut out, 1, b"<< /Type /Catalog /Pages 2 0 R >>");
    push(&mut out, 2, b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>");
    let mut s = format!(
        "<< /Type /ObjStm /N {n} /First {first} {objstm_filter} /Length {} >>\nstream\n",
        objstm_data.len()
    )
    .into_bytes();
    s.extend_from_slice(objstm_data);
    s.extend_from_slice(b"\nendstream");
    push(&mut out, 4, &s);
    // xref stream, object 5: W [1 4 2]
    let xref_off = out.len();
    let mut rows = Vec::new();
    let mut row = |t: u8, a: u32, b: u16| {
        rows.push(t);
        rows.extend_from_slice(&a.to_be_bytes());
        rows.extend_from_slice(&b.to_be_bytes());
    };
    row(0, 0, 65535);
    for num in 1..=5u32 {
        match num {
            3 => row(2, 4, 0),
            5 => row(1, xref_off as u32, 0),
            _ => {
                let off = offs.iter().find(|(m, _)| *m == num).unwrap().1;
                row(1, off as u32, 0)
            }
        }
    }
    write!(
        out,
        "5 0 obj\n<< /Type /XRef /Size 6 /W [1 4 2] /Root 1 0 R /Length {} >>\nstream\n",
        rows.len()
    )
    .unwrap();
    out.extend_from_slice(&rows);
    write!(out, "\nendstream\nendobj\nstartxref\n{xref_off}\n%%EOF\n").unwrap();
    out
}

/// Forms `/X0` … `/X{depth-1}` (objects 10…): each draws the next `fanout`
/// times, the last shows a word; `pages` pages (objects 100…) draw `/X0`
/// from their content (object 3), and each carries `annots` stamp
/// annotations whose appearance draws `/X0` too. Resources are object 4,
/// the font object 5.
pub fn form_tree(pages: u32, fanout: usize, depth: u32, annots: usize) -> Vec<u8> {
    let xobjects: String = (0..depth)
        .map(|i| format!("/X{i} {} 0 R ", 10 + i))
        .collect();
    let kids: Vec<String> = (0..pages).map(|i| format!("{} 0 R", 100 + i)).collect();
    let mut d = Doc::new(1)
        .obj(1, "<< /Type /Catalog /Pages 2 0 R >>")
        .obj(
            2,
            format!(
                "<< /Type /Pages /Kids [{}] /Count {pages} >>",
                kids.join(" ")
            ),
        )
        .stream(3, "", if annots > 0 { b"" } else { b"/X0 Do" })
        .obj(
            4,
            format!("<< /XObject << {xobjects}>> /Font << /F1 5 0 R >> >>"),
        )
        .obj(5, "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
        .obj(
            6,
            "<< /Type /Annot /Subtype /Stamp /Rect [0 0 100 100] /AP << /N 7 0 R >> >>",
        )
        .stream(
            7,
            "/Type /XObject /Subtype /Form /BBox [0 0 100 100] /Resources 4 0 R",
            b"/X0 Do",
        );
    for i in 0..depth {
        let data = if i + 1 < depth {
            format!("/X{} Do ", i + 1).repeat(fanout)
        } else {
            "BT /F1 9 Tf 72 720 Td (leaf) Tj ET".to_string()
        };
        d = d.stream(
            10 + i,
            "/Type /XObject /Subtype /Form /BBox [0 0 612 792] /Resources 4 0 R",
            data.as_bytes(),
        );
    }
    let annots = vec!["6 0 R"; annots].join(" ");
    for i in 0..pages {
        d = d.obj(
            100 + i,
            format!("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources 4 0 R /Contents 3 0 R /Annots [{annots}] >>"),
        );
    }
    d.build()
}

/// One page whose flate-compressed content shows `lines` lines of
/// `per_line` copies of `chars` with font `/F1` (object 5, `font` its
/// dictionary body, `extra` further objects from 6 on).
pub fn text_lines(
    lines: usize,
    chars: &str,
    per_line: usize,
    font: &str,
    extra: &[(u32, Vec<u8>)],
) -> Vec<u8> {
    let line = format!("({}) '\n", chars.repeat(per_line));
    let content = format!("BT /F1 1 Tf 0.003 TL 10 790 Td {}ET", line.repeat(lines));
    let mut d = Doc::new(1)
        .obj(1, "<< /Type /Catalog /Pages 2 0 R >>")
        .obj(2, "<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
        .obj(3, "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>")
        .stream(4, "/Filter /FlateDecode", &zlib(content.as_bytes()))
        .obj(5, font);
    for (n, body) in extra {
        d = d.obj(*n, body);
    }
    d.build()
}

/// A ToUnicode CMap mapping every one-byte code to `target` (hex UTF-16BE).
pub fn to_unicode_all(target: &str) -> Vec<u8> {
    let cmap = format!("begincmap 1 begincodespacerange <00> <FF> endcodespacerange 1 beginbfrange <00> <FF> <{target}> endbfrange endcmap");
    format!("<< /Length {} >>\nstream\n{cmap}\nendstream", cmap.len()).into_bytes()
}

/// `pages` pages each drawing one character with each of `fonts` fonts
/// that share one ToUnicode CMap of 65 536 entries.
pub fn many_fonts(pages: u32, fonts: u32) -> Vec<u8> {
    let cmap = "begincmap 1 begincodespacerange <0000> <FFFF> endcodespacerange 1 beginbfrange <0000> <FFFF> <0041> endbfrange endcmap";
    let names: String = (0..fonts)
        .map(|i| format!("/F{i} {} 0 R ", 1000 + i))
        .collect();
    let content: String = (0..fonts).map(|i| format!("/F{i} 9 Tf (a) Tj ")).collect();
    let kids: Vec<String> = (0..pages).map(|i| format!("{} 0 R", 100 + i)).collect();
    let mut d = Doc::new(1)
        .obj(1, "<< /Type /Catalog /Pages 2 0 R >>")
        .obj(
            2,
            format!(
                "<< /Type /Pages /Kids [{}] /Count {pages} >>",
                kids.join(" ")
            ),
        )
        .stream(3, "", format!("BT {content}ET").as_bytes())
        .obj(4, format!("<< /Font << {names}>> >>"))
        .stream(6, "", cmap.as_bytes());
    for i in 0..fonts {
        d = d.obj(
            1000 + i,
            "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /ToUnicode 6 0 R >>",
        );
    }
    for i in 0..pages {
        d = d.obj(100 + i, "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources 4 0 R /Contents 3 0 R >>");
    }
    d.build()
}

/// `pages` pages sharing one content stream of `ops` `Tj` operators in
/// Helvetica: real text, as much work per page as `ops` says.
#[allow(dead_code)] // used by tests/mcp_engine.rs and benches/mcp_engine.rs
pub fn text_pages(pages: u32, ops: usize) -> Vec<u8> {
    let kids: Vec<String> = (0..pages).map(|i| format!("{} 0 R", 10 + i)).collect();
    let mut d = Doc::new(1)
        .obj(1, "<< /Type /Catalog /Pages 2 0 R >>")
        .obj(
            2,
            format!(
                "<< /Type /Pages /Kids [{}] /Count {pages} >>",
                kids.join(" ")
            ),
        )
        .obj(4, "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
        .stream(
            3,
            "",
            format!("BT /F1 12 Tf {}ET", "(word) Tj ".repeat(ops)).as_bytes(),
        );
    for i in 0..pages {
        d = d.obj(
            10 + i,
            "<< /Type /Page /Parent 2 0 R /Contents 3 0 R /Resources << /Font << /F1 4 0 R >> >> >>",
        );
    }
    d.build()
}

/// A one-page file ("Hello", Helvetica) followed by `streams` flate object
/// streams, each holding `per_stream` copies of the object `body` (numbered
/// from 1000 on, all listed in the xref stream so that lopdf loads them),
/// with a compressed xref stream (`/W [1 4 4]`).
pub fn object_streams(streams: usize, per_stream: usize, body: &[u8]) -> Vec<u8> {
    object_streams_of(streams, per_stream, body, false)
}

/// [`object_streams`] whose entries all point at offset 0 of one copy of
/// `body`: each entry is parsed from there to the end of what `body` holds.
pub fn object_streams_sharing(streams: usize, per_stream: usize, body: &[u8]) -> Vec<u8> {
    object_streams_of(streams, per_stream, body, true)
}

fn object_streams_of(streams: usize, per_stream: usize, body: &[u8], shared: bool) -> Vec<u8> {
    let mut out = b"%PDF-1.5\n%\xe2\xe3\xcf\xd3\n".to_vec();
    let mut offs: Vec<(u32, usize)> = Vec::new();
    let mut push =
        |out: &mut Vec<u8>, num: u32, body: &[u8]| push_object(out, &mut offs, num, body);
    push(&mut out, 1, b"<< /Type /Catalog /Pages 2 0 R >>");
    push(&mut out, 2, b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>");
    push(&mut out, 3, b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> >> >> >>");
    let mut content = format!("<< /Length {} >>\nstream\n", HELLO.len()).into_bytes();
    content.extend_from_slice(HELLO);
    content.extend_from_slice(b"\nendstream");
    push(&mut out, 4, &content);
    let first_compressed = 1000u32;
    let mut compressed = Vec::new(); // (object, container, index)
    let mut next = first_compressed;
    for s in 0..streams {
        let container = 5 + s as u32;
        let (mut header, mut objects) = (Vec::new(), Vec::new());
        for i in 0..per_stream {
            write!(
                header,
                "{} {} ",
                next,
                if shared { 0 } else { objects.len() }
            )
            .unwrap();
            if !shared || i == 0 {
                objects.extend_from_slice(body);
                objects.push(b' ');
            }
            compressed.push((next, container, i as u32));
            next += 1;
        }
        let first = header.len();
        header.extend_from_slice(&objects);
        let z = zlib(&header);
        let mut s = format!(
            "<< /Type /ObjStm /N {per_stream} /First {first} /Filter /FlateDecode /Length {} >>\nstream\n",
            z.len()
        )
        .into_bytes();
        s.extend_from_slice(&z);
        s.extend_from_slice(b"\nendstream");
        push(&mut out, container, &s);
    }
    let xref_num = 5 + streams as u32;
    let size = next.max(xref_num + 1);
    let xref_off = out.len();
    let mut rows = Vec::new();
    let mut row = |t: u8, a: u32, b: u32| {
        rows.push(t);
        rows.extend_from_slice(&a.to_be_bytes());
        rows.extend_from_slice(&b.to_be_bytes());
    };
    for num in 0..size {
        if num == 0 {
            row(0, 0, 65535);
        } else if num == xref_num {
            row(1, xref_off as u32, 0);
        } else if let Some((_, off)) = offs.iter().find(|(m, _)| *m == num) {
            row(1, *off as u32, 0);
        } else if num >= first_compressed {
            let (_, container, index) = compressed[(num - first_compressed) as usize];
            row(2, container, index);
        } else {
            row(0, 0, 0);
        }
    }
    let z = zlib(&rows);
    write!(
        out,
        "{xref_num} 0 obj\n<< /Type /XRef /Size {size} /W [1 4 4] /Root 1 0 R /Filter /FlateDecode /Length {} >>\nstream\n",
        z.len()
    )
    .unwrap();
    out.extend_from_slice(&z);
    write!(out, "\nendstream\nendobj\nstartxref\n{xref_off}\n%%EOF\n").unwrap();
    out
}
