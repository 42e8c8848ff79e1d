//! Hostile and malformed PDFs from our own generator (`pdf_hostile/gen.rs`),
//! each run through the isolated extractor as the server runs it. Every case
//! must end in a typed error of an expected kind or an honest bounded result,
//! with the worker's peak RSS under 256 MiB, and the caller (this test) alive.
//! Prints a table: case, time, worker RSS, outcome. Times are printed, and
//! only checked against a generous bound (debug builds, shared machines).
#![cfg(feature = "cli")]

#[path = "pdf_hostile/gen.rs"]
mod gen;

use gen::{
    form_tree, in_object_stream, many_fonts, object_streams, object_streams_sharing, one_page,
    text_lines, to_unicode_all, zlib, zlib_zeros, Doc, HELLO,
};
use std::time::Duration;
use toolgate::pdf::worker::{extract_isolated_with_stats, metadata_isolated_with_stats};
use toolgate::pdf::{Isolation, Limit, Options, PdfError, Source};

const MIB: usize = 1 << 20;
/// The bound on the worker's peak resident set.
const MAX_WORKER_RSS_KIB: u64 = 256 * 1024;

struct Case {
    name: &'static str,
    data: Vec<u8>,
    /// Acceptable outcomes: error kinds, or "ok" for a (possibly partial) result.
    expect: &'static [&'static str],
}

fn case(name: &'static str, data: Vec<u8>, expect: &'static [&'static str]) -> Case {
    Case { name, data, expect }
}

fn with_page_tree(pages_body: &str, extra: Vec<(u32, String)>) -> Vec<u8> {
    let mut d = Doc::new(1)
        .obj(1, "<< /Type /Catalog /Pages 2 0 R >>")
        .obj(2, pages_body);
    for (n, b) in extra {
        d = d.obj(n, b);
    }
    d.build()
}

/// One page in Helvetica (`/F1`) whose content is `content`, flate-encoded.
fn one_page_flate(content: &[u8]) -> Vec<u8> {
    Doc::new(1)
        .obj(1, "<< /Type /Catalog /Pages 2 0 R >>")
        .obj(2, "<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
        .obj(3, "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>")
        .stream(4, "/Filter /FlateDecode", &zlib(content))
        .obj(5, "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
        .build()
}

const PAGE3: &str = "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>";

fn deep(open: &str, close: &str, n: usize) -> String {
    let mut s = open.repeat(n);
    s.push_str(&close.repeat(n));
    s
}

/// Every hostile case.
fn cases() -> Vec<Case> {
    let bomb64 = zlib_zeros(64 * MIB);
    let bomb1g = zlib_zeros(1024 * MIB);
    let bomb15 = zlib_zeros(15 * MIB);
    let valid = one_page(HELLO).build();
    let mut v = vec![
        case("empty input", Vec::new(), &["empty_input"]),
        case("not a pdf", b"GIF89a this is not a PDF".to_vec(), &["not_pdf"]),
        case("header only", b"%PDF-1.7\n".to_vec(), &["truncated", "malformed_xref"]),
        case(
            "kids self cycle",
            with_page_tree("<< /Type /Pages /Kids [2 0 R] /Count 1 >>", vec![]),
            &["page_tree_cycle"],
        ),
        case(
            "kids two-node cycle",
            with_page_tree(
                "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
                vec![(3, "<< /Type /Pages /Kids [2 0 R] /Parent 2 0 R /Count 1 >>".into())],
            ),
            &["page_tree_cycle"],
        ),
        case(
            "kids cycle beside a page",
            with_page_tree("<< /Type /Pages /Kids [3 0 R 2 0 R 3 0 R] /Count 3 >>", vec![(3, PAGE3.into())]),
            &["ok"],
        ),
        case(
            "self parent and resources",
            with_page_tree(
                "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
                vec![(3, "<< /Type /Page /Parent 3 0 R /Resources 3 0 R /Contents 4 0 R >>".into()),
                     (4, "<< /Length 0 >>\nstream\n\nendstream".into())],
            ),
            &["ok"],
        ),
        case(
            "form xobject draws itself",
            Doc::new(1)
                .obj(1, "<< /Type /Catalog /Pages 2 0 R >>")
                .obj(2, "<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
                .obj(3, "<< /Type /Page /Parent 2 0 R /Resources 5 0 R /Contents 4 0 R >>")
                .stream(4, "", b"/X1 Do")
                .obj(5, "<< /XObject << /X1 6 0 R >> /Font << /F1 7 0 R >> >>")
                .stream(6, "/Type /XObject /Subtype /Form /BBox [0 0 10 10] /Resources 5 0 R", b"BT /F1 9 Tf (loop) Tj ET /X1 Do")
                .obj(7, "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
                .build(),
            &["ok"],
        ),
        case(
            "flate bomb 1 GiB content",
            Doc::new(1)
                .obj(1, "<< /Type /Catalog /Pages 2 0 R >>")
                .obj(2, "<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
                .obj(3, "<< /Type /Page /Parent 2 0 R /Contents 4 0 R >>")
                .stream(4, "/Filter /FlateDecode", &bomb1g)
                .build(),
            &["ok"],
        ),
        case(
            "nested flate bomb",
            Doc::new(1)
                .obj(1, "<< /Type /Catalog /Pages 2 0 R >>")
                .obj(2, "<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
                .obj(3, "<< /Type /Page /Parent 2 0 R /Contents 4 0 R >>")
                .stream(4, "/Filter [/FlateDecode /FlateDecode]", &zlib(&bomb1g))
                .build(),
            &["ok"],
        ),
        case(
            "flate bomb object stream",
            in_object_stream("/Filter /FlateDecode", &bomb64, 0, 1),
            &["limit_exceeded"],
        ),
        // Object streams are decoded and parsed whole when lopdf loads the
        // file, before any per-call budget: what they cost is bounded by the
        // worker's address-space limit, a function of the input's size.
        case(
            "40 object streams of one 4 MiB string each",
            object_streams(40, 1, &[b"(".as_slice(), &vec![b'A'; 4 * MIB], b")"].concat()),
            &["ok", "limit_exceeded"],
        ),
        case(
            "object stream of 60k nested arrays",
            object_streams(1, 60_000, b"[[[[[[[[]]]]]]]]"),
            &["ok", "limit_exceeded"],
        ),
        case(
            "4 object streams of 50k dictionaries",
            object_streams(4, 50_000, b"<</A[]/B<<>>>>"),
            &["ok", "limit_exceeded"],
        ),
        // lopdf parses each entry from its offset to the end of the object
        // it finds there: 20k entries into one 100 KB run of white space
        // are 2 GB of scanning, CPU that only the call's time limit bounds.
        case(
            "object stream of 20k entries into 100 KB of white space",
            object_streams_sharing(1, 20_000, &[vec![b' '; 100_000], b"null".to_vec()].concat()),
            &["ok", "limit_exceeded"],
        ),
        // One content operation of 8 M operands (lopdf holds them all):
        // skipped past `MAX_OPERANDS`, as poppler skips it.
        case(
            "one Tj of 8M operands",
            one_page_flate(&[b"BT /F1 12 Tf 72 720 Td ".as_slice(), &b"1 ".repeat(8_000_000), b"(x) Tj ET"].concat()),
            &["ok"],
        ),
        // A 4 MiB XMP of U+0001: 13 wire bytes each in an MCP answer (cut
        // to the response bound there; the worker's answer is 6 bytes each).
        case(
            "4 MiB XMP of control characters",
            one_page(HELLO)
                .obj(1, "<< /Type /Catalog /Pages 2 0 R /Metadata 9 0 R >>")
                .stream(9, "/Type /Metadata /Subtype /XML /Filter /FlateDecode", &zlib(&[1u8; 4 * MIB]))
                .build(),
            &["ok"],
        ),
        case(
            "one object of 400k empty arrays",
            one_page(HELLO)
                .obj(8, [b"[".as_slice(), &b"[]".repeat(400_000), b"]"].concat())
                .build(),
            &["ok", "limit_exceeded"],
        ),
        case(
            "flate bomb ToUnicode",
            Doc::new(1)
                .obj(1, "<< /Type /Catalog /Pages 2 0 R >>")
                .obj(2, "<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
                .obj(3, "<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>")
                .stream(4, "", HELLO)
                .obj(5, "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /ToUnicode 6 0 R >>")
                .stream(6, "/Filter /FlateDecode", &bomb64)
                .build(),
            &["ok"],
        ),
        case("many bombs (total budget)", {
            let mut d = Doc::new(1).obj(1, "<< /Type /Catalog /Pages 2 0 R >>");
            let n = 40u32;
            let kids: Vec<String> = (0..n).map(|i| format!("{} 0 R", 10 + 2 * i)).collect();
            d = d.obj(2, format!("<< /Type /Pages /Kids [{}] /Count {n} >>", kids.join(" ")));
            for i in 0..n {
                let p = 10 + 2 * i;
                d = d
                    .obj(p, format!("<< /Type /Page /Parent 2 0 R /Contents {} 0 R >>", p + 1))
                    .stream(p + 1, "/Filter /FlateDecode", &bomb15);
            }
            d.build()
        }, &["ok"]),
        case(
            "100k-deep array in Info",
            one_page(HELLO).obj(6, deep("[", "]", 100_000)).trailer("/Info 6 0 R").build(),
            &["ok", "nesting_too_deep", "malformed_structure"],
        ),
        case(
            "100k-deep dict as Resources",
            Doc::new(1)
                .obj(1, "<< /Type /Catalog /Pages 2 0 R >>")
                .obj(2, "<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
                .obj(3, "<< /Type /Page /Parent 2 0 R /Resources 5 0 R /Contents 4 0 R >>")
                .stream(4, "", HELLO)
                .obj(5, deep("<< /A ", ">>", 100_000))
                .build(),
            &["ok", "nesting_too_deep", "malformed_structure"],
        ),
        case(
            "100k-deep array in content",
            one_page(format!("{} {}", deep("[", "]", 100_000), std::str::from_utf8(HELLO).unwrap()).as_bytes()).build(),
            &["ok"],
        ),
        case("page tree 1000 levels deep", {
            let mut d = Doc::new(1).obj(1, "<< /Type /Catalog /Pages 2 0 R >>");
            for i in 2..1002u32 {
                d = d.obj(i, format!("<< /Type /Pages /Kids [{} 0 R] /Count 1 >>", i + 1));
            }
            d.obj(1002, "<< /Type /Page >>").build()
        }, &["nesting_too_deep"]),
        case("xref offsets all zero", one_page(HELLO).build_with(|_, _| 0), &["ok"]),
        case("xref offsets past eof", one_page(HELLO).build_with(|_, _| 99_999_999), &["ok"]),
        case("xref offsets shifted", one_page(HELLO).build_with(|_, o| o + 7), &["ok"]),
        case("startxref lies", {
            let mut b = valid.clone();
            let at = b.windows(9).rposition(|w| w == b"startxref").unwrap();
            b.truncate(at);
            b.extend_from_slice(b"startxref\n5\n%%EOF\n");
            b
        }, &["ok"]),
        case(
            "/Length huge",
            Doc::new(1)
                .obj(1, "<< /Type /Catalog /Pages 2 0 R >>")
                .obj(2, "<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
                .obj(3, "<< /Type /Page /Parent 2 0 R /Contents 4 0 R >>")
                .obj(4, [b"<< /Length 999999999999 >>\nstream\n".as_slice(), HELLO, b"\nendstream"].concat())
                .build(),
            &["ok"],
        ),
        case(
            "/Length negative",
            Doc::new(1)
                .obj(1, "<< /Type /Catalog /Pages 2 0 R >>")
                .obj(2, "<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
                .obj(3, "<< /Type /Page /Parent 2 0 R /Contents 4 0 R >>")
                .obj(4, [b"<< /Length -50 >>\nstream\n".as_slice(), HELLO, b"\nendstream"].concat())
                .build(),
            &["ok"],
        ),
        case(
            "/Length refers to itself",
            Doc::new(1)
                .obj(1, "<< /Type /Catalog /Pages 2 0 R >>")
                .obj(2, "<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
                .obj(3, "<< /Type /Page /Parent 2 0 R /Contents 4 0 R >>")
                .obj(4, [b"<< /Length 4 0 R >>\nstream\n".as_slice(), HELLO, b"\nendstream"].concat())
                .build(),
            &["ok", "reference_cycle"],
        ),
        case(
            "huge /Count",
            with_page_tree("<< /Type /Pages /Kids [3 0 R] /Count 2147483647 >>", vec![(3, PAGE3.into())]),
            &["ok"],
        ),
        case("a million refs to one page", {
            let kids = "3 0 R ".repeat(1_000_000);
            with_page_tree(&format!("<< /Type /Pages /Kids [{kids}] /Count 1000000 >>"), vec![(3, PAGE3.into())])
        }, &["ok"]),
        case("a million refs to missing pages", {
            let kids: String = (10..1_000_010u32).map(|n| format!("{n} 0 R ")).collect();
            with_page_tree(&format!("<< /Type /Pages /Kids [{kids}] /Count 1000000 >>"), vec![])
        }, &["limit_exceeded"]),
        case("120k real pages", {
            let n = 120_000u32;
            let kids: String = (0..n).map(|i| format!("{} 0 R ", 3 + i)).collect();
            let mut d = Doc::new(1)
                .obj(1, "<< /Type /Catalog /Pages 2 0 R >>")
                .obj(2, format!("<< /Type /Pages /Kids [{kids}] /Count {n} >>"));
            for i in 0..n {
                d = d.obj(3 + i, "<< /Type /Page /Parent 2 0 R >>");
            }
            d.build()
        }, &["limit_exceeded"]),
        case("truncated at half", valid[..valid.len() / 2].to_vec(), &["ok", "truncated", "malformed_xref", "malformed_structure"]),
        case("truncated before %%EOF", valid[..valid.len() - 20].to_vec(), &["ok", "truncated"]),
        case(
            "unknown security handler",
            one_page(HELLO)
                .obj(9, "<< /Filter /FooSecurity /V 1 /R 2 /Length 40 /O <00> /U <00> /P -4 >>")
                .trailer("/Encrypt 9 0 R /ID [<0123456789abcdef0123456789abcdef> <0123456789abcdef0123456789abcdef>]")
                .build(),
            &["unsupported_encryption"],
        ),
        case(
            "Standard handler, unknown revision",
            one_page(HELLO)
                .obj(9, "<< /Filter /Standard /V 9 /R 9 /Length 128 /O <00> /U <00> /P -4 >>")
                .trailer("/Encrypt 9 0 R /ID [<0123456789abcdef0123456789abcdef> <0123456789abcdef0123456789abcdef>]")
                .build(),
            &["unsupported_encryption"],
        ),
        case(
            "reference cycle for /Pages",
            Doc::new(1)
                .obj(1, "<< /Type /Catalog /Pages 6 0 R >>")
                .obj(6, "7 0 R")
                .obj(7, "6 0 R")
                .build(),
            &["reference_cycle", "malformed_structure", "page_tree_cycle"],
        ),
        case("garbage after header", {
            let mut b = b"%PDF-1.7\n".to_vec();
            let mut x: u32 = 12345;
            for _ in 0..200_000 {
                x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                b.push((x >> 16) as u8);
            }
            b
        }, &["malformed_xref", "truncated", "malformed_structure"]),
        case("operator flood (500 pages share 2M operators)", {
            let n = 500u32;
            let kids: Vec<String> = (0..n).map(|i| format!("{} 0 R", 10 + i)).collect();
            let mut d = Doc::new(1)
                .obj(1, "<< /Type /Catalog /Pages 2 0 R >>")
                .obj(2, format!("<< /Type /Pages /Kids [{}] /Count {n} >>", kids.join(" ")))
                .stream(3, "/Filter /FlateDecode", &zlib("q Q ".repeat(1_000_000).as_bytes()));
            for i in 0..n {
                d = d.obj(10 + i, "<< /Type /Page /Parent 2 0 R /Contents 3 0 R >>");
            }
            d.build()
        }, &["ok"]),
        case("unusable /Length on 2000 streams", {
            let n = 2000u32;
            let kids: Vec<String> = (0..n).map(|i| format!("{} 0 R", 10 + 2 * i)).collect();
            let mut d = Doc::new(1)
                .obj(1, "<< /Type /Catalog /Pages 2 0 R >>")
                .obj(2, format!("<< /Type /Pages /Kids [{}] /Count {n} >>", kids.join(" ")));
            for i in 0..n {
                let p = 10 + 2 * i;
                d = d
                    .obj(p, format!("<< /Type /Page /Parent 2 0 R /Contents {} 0 R >>", p + 1))
                    .obj(p + 1, [b"<< /Length -1 >>\nstream\n".as_slice(), b"q Q ".repeat(5000).as_slice(), b"\nendstream"].concat());
            }
            d.build()
        }, &["ok"]),
        case("100k xref entries at one stream with no /Length", {
            // Every entry points at the same 4 MiB stream whose /Length is
            // unusable: the bytes re-read are bounded by the file size.
            let mut d = Doc::new(1)
                .obj(1, "<< /Type /Catalog /Pages 2 0 R >>")
                .obj(2, "<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
                .obj(3, "<< /Type /Page /Parent 2 0 R /Contents 4 0 R >>")
                .obj(4, [b"<< /Length /None >>\nstream\n".as_slice(), vec![b'q'; 4 << 20].as_slice(), b"\nendstream"].concat());
            for i in 5..100_005u32 {
                d = d.obj(i, "null");
            }
            let at4 = std::cell::Cell::new(0usize);
            d.build_with(|n, off| {
                if n == 4 {
                    at4.set(off);
                }
                if n > 4 { at4.get() } else { off }
            })
        }, &["ok"]),
        case("form tree 10 draws x 12 levels, 2000 pages", form_tree(2000, 10, 12, 0), &["ok"]),
        case("form tree 10 draws x 12 levels, one page", form_tree(1, 10, 12, 0), &["ok"]),
        case("annotation appearances drawing a form tree, 2000 pages", form_tree(2000, 10, 12, 4), &["ok"]),
        case("1024 fonts sharing a 65536-entry CMap, 200 pages", many_fonts(200, 1024), &["ok"]),
        case("250k short text lines", text_lines(250_000, "ab", 1, "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>", &[]), &["ok"]),
        case("10M glyphs on one page", text_lines(20_000, "abcdefgh", 64, "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>", &[]), &["ok"]),
        case("8M backslashes (escaped twice in a response)", text_lines(10_000, "\\\\", 256, "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>", &[]), &["ok"]),
        case("8M control characters through ToUnicode", text_lines(20_000, "a", 512, "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /ToUnicode 6 0 R >>", &[(6, to_unicode_all("0001"))]), &["ok"]),
    ];
    v.retain(|c| std::env::var("HOSTILE_ONLY").map_or(true, |f| c.name.contains(&f)));
    v
}

#[test]
fn hostile_files_get_typed_errors_or_bounded_results() {
    let iso = Isolation {
        timeout: Duration::from_secs(120),
        ..Isolation::new(env!("CARGO_BIN_EXE_toolgate"))
    };
    let options = Options::default();
    let mut failures = Vec::new();
    eprintln!("\n| case | bytes | extract ms | metadata ms | worker peak RSS MiB | outcome |");
    eprintln!("|---|---:|---:|---:|---:|---|");
    for c in cases() {
        let (x, xs) = extract_isolated_with_stats(Source::Bytes(&c.data), None, &options, &iso);
        let (m, ms) = metadata_isolated_with_stats(Source::Bytes(&c.data), &options, &iso);
        let describe = |r: &Result<String, toolgate::pdf::PdfError>| match r {
            Ok(s) => s.clone(),
            Err(e) => e.to_string(),
        };
        let xo = x
            .as_ref()
            .map(|x| {
                format!(
                    "ok: {} of {} pages, {} chars, {} warnings{}",
                    x.pages.len(),
                    x.page_count,
                    x.pages
                        .iter()
                        .map(|p| p.text.chars().count())
                        .sum::<usize>(),
                    x.warnings.len(),
                    if x.truncated { ", truncated" } else { "" }
                )
            })
            .map_err(Clone::clone);
        let kind = |r: Result<(), &toolgate::pdf::PdfError>| match r {
            Ok(()) => "ok",
            Err(e) => e.kind(),
        };
        let (xk, mk) = (kind(x.as_ref().map(|_| ())), kind(m.as_ref().map(|_| ())));
        let rss = [xs.max_rss_kib, ms.max_rss_kib].into_iter().flatten().max();
        eprintln!(
            "| {} | {} | {:.0} | {:.0} | {} | {} |",
            c.name,
            c.data.len(),
            xs.elapsed_us as f64 / 1000.0,
            ms.elapsed_us as f64 / 1000.0,
            rss.map_or("-".into(), |r| format!("{:.1}", r as f64 / 1024.0)),
            describe(&xo).replace('|', "/"),
        );
        for (what, k) in [("extract", xk), ("metadata", mk)] {
            if !c.expect.contains(&k) {
                failures.push(format!(
                    "{}: {what} gave {k}, expected one of {:?}",
                    c.name, c.expect
                ));
            }
        }
        // No worker runs when the parent refuses the input itself (empty, too large).
        let ran = xs.elapsed_us > 0 || ms.elapsed_us > 0;
        // A worker stopped by its address-space limit reports no RSS: the
        // limit it hit bounds it.
        let capped = [x.as_ref().err(), m.as_ref().err()].into_iter().flatten().all(|e| {
            matches!(e, PdfError::LimitExceeded { limit: Limit::WorkerMemory, max } if *max <= MAX_WORKER_RSS_KIB * 1024)
        }) && (x.is_err() || m.is_err());
        if ran && !capped && rss.is_none_or(|r| r > MAX_WORKER_RSS_KIB) {
            failures.push(format!(
                "{}: worker RSS {rss:?} KiB (limit {MAX_WORKER_RSS_KIB})",
                c.name
            ));
        }
        for (what, us) in [("extract", xs.elapsed_us), ("metadata", ms.elapsed_us)] {
            // Generous: debug builds on a shared 2-core machine. Release figures in README.
            if us > 110_000_000 {
                failures.push(format!("{}: {what} took {} ms", c.name, us / 1000));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn generated_bomb_inflates_to_its_size() {
    use std::io::Read;
    for n in [1, 2, 258, 259, 1000, 3 * MIB + 17] {
        let mut out = Vec::new();
        flate2::read::ZlibDecoder::new(&zlib_zeros(n)[..])
            .read_to_end(&mut out)
            .unwrap();
        assert_eq!(out.len(), n);
        assert!(out.iter().all(|&b| b == 0));
    }
}

#[test]
fn million_page_refs_count_once() {
    let kids = "3 0 R ".repeat(1_000_000);
    let data = with_page_tree(
        &format!("<< /Type /Pages /Kids [{kids}] /Count 1000000 >>"),
        vec![(3, PAGE3.into())],
    );
    let m = toolgate::pdf::metadata(Source::Bytes(&data)).unwrap();
    assert_eq!(m.page_count, 1);
    assert!(m.warnings.iter().any(|w| w.message.contains("repeat")));
    let huge = with_page_tree(
        "<< /Type /Pages /Kids [3 0 R] /Count 2147483647 >>",
        vec![(3, PAGE3.into())],
    );
    assert_eq!(
        toolgate::pdf::metadata(Source::Bytes(&huge))
            .unwrap()
            .page_count,
        1
    );
}

#[test]
fn caller_survives_a_worker_that_dies() {
    // A worker executable that is not toolgate: /bin/false exits 1 at once.
    let iso = Isolation::new("/bin/false");
    let r = toolgate::pdf::extract_isolated(
        Source::Bytes(&one_page(HELLO).build()),
        None,
        &Options::default(),
        &iso,
    );
    assert_eq!(r.unwrap_err().kind(), "worker_failed");
    // A worker that exits without answering.
    let iso = Isolation {
        timeout: Duration::from_millis(300),
        ..Isolation::new("/bin/sleep")
    };
    let r = toolgate::pdf::metadata_isolated(Source::Bytes(b"%PDF-1.4"), &Options::default(), &iso);
    assert_eq!(r.unwrap_err().kind(), "worker_failed");
    // A worker that never answers is killed at the timeout: the limit the
    // call reached, typed.
    let dir = tempfile::tempdir().unwrap();
    let slow = dir.path().join("slow-worker");
    std::fs::write(&slow, "#!/bin/sh\nexec sleep 30\n").unwrap();
    let mut perms = std::fs::metadata(&slow).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    std::fs::set_permissions(&slow, perms).unwrap();
    let iso = Isolation {
        timeout: Duration::from_millis(300),
        ..Isolation::new(&slow)
    };
    let r = toolgate::pdf::metadata_isolated(Source::Bytes(b"%PDF-1.4"), &Options::default(), &iso);
    match r.unwrap_err() {
        PdfError::LimitExceeded { limit, max } => {
            assert_eq!((limit, max), (Limit::WorkerTime, 300))
        }
        e => panic!("expected limit_exceeded worker_time, got {e}"),
    }
}

#[test]
fn worker_memory_limit_is_enforced() {
    // 64 MiB of address space is too little for a 32 MiB stream budget plus the
    // process itself: the worker must fail cleanly, not the caller.
    let iso = Isolation {
        memory: 24 << 20,
        ..Isolation::new(env!("CARGO_BIN_EXE_toolgate"))
    };
    let data = one_page(HELLO).obj(8, vec![b'x'; 1]).build();
    let mut big = data.clone();
    big.extend(std::iter::repeat_n(b' ', 40 * MIB));
    let r = toolgate::pdf::extract_isolated(Source::Bytes(&big), None, &Options::default(), &iso);
    // Rust's report of the failed allocation is recognised: a typed limit
    // naming the call's address-space limit, not a bare worker failure.
    match r.unwrap_err() {
        PdfError::LimitExceeded { limit, max } => {
            assert_eq!((limit, max), (Limit::WorkerMemory, 24 << 20));
        }
        e => panic!("expected limit_exceeded worker_memory, got {e}"),
    }
}

#[test]
fn a_small_file_gets_a_small_address_space() {
    // The call's limit follows the input's size, below the configured
    // ceiling: 160 MiB + 64 B per input byte for this 450 KB file of
    // object streams full of nested arrays, which lopdf parses at load.
    let iso = Isolation::new(env!("CARGO_BIN_EXE_toolgate"));
    let data = object_streams(1, 60_000, b"[[[[[[[[[[]]]]]]]]]]");
    let want = toolgate::pdf::worker::worker_memory_for(data.len(), iso.memory);
    assert!(want < 256 << 20, "{want}");
    let (r, stats) =
        extract_isolated_with_stats(Source::Bytes(&data), None, &Options::default(), &iso);
    match r {
        Err(PdfError::LimitExceeded {
            limit: Limit::WorkerMemory,
            max,
        }) => assert_eq!(max, want),
        Ok(_) => assert!(stats.max_rss_kib.is_some_and(|k| k * 1024 < want)),
        Err(e) => panic!("{e}"),
    }
}

/// Writes the small hostile cases as fuzz seeds (run on purpose:
/// `TOOLGATE_WRITE_SEEDS=1 cargo test --test pdf_hostile write_seeds`).
#[test]
fn write_seeds() {
    if std::env::var_os("TOOLGATE_WRITE_SEEDS").is_none() {
        return;
    }
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/pdf_extract");
    std::fs::create_dir_all(&dir).unwrap();
    for c in cases() {
        if c.data.len() <= 96 * 1024 {
            let name: String = c
                .name
                .chars()
                .map(|ch| if ch.is_ascii_alphanumeric() { ch } else { '-' })
                .collect();
            std::fs::write(dir.join(format!("hostile-{name}.pdf")), &c.data).unwrap();
        }
    }
}

/// Property (issue: work budgets count every content stream): whatever the
/// graph of Form XObjects (fan-out, depth), the pages drawing it and the
/// annotation appearances drawing it too, one call never does more units of
/// work than its budget, and a call that would have needed more is
/// truncated with a warning naming `operations_per_call`.
#[cfg(feature = "harness")]
mod budget_props {
    use super::gen::form_tree;
    use proptest::prelude::*;
    use proptest::test_runner::FileFailurePersistence;
    use toolgate::pdf::{Limit, Limits};

    fn config() -> ProptestConfig {
        ProptestConfig {
            cases: 48,
            failure_persistence: Some(Box::new(FileFailurePersistence::Direct(
                "proptest-regressions/pdf_hostile_budget.txt",
            ))),
            ..ProptestConfig::default()
        }
    }

    /// Units a full interpretation of `form_tree(pages, fanout, depth,
    /// annots)` needs: operators of every drawn stream plus one per
    /// character shown, counted on the graph itself, plus the one font load
    /// of the call (a simple font charges its 2 × 256 table entries).
    fn needed(pages: u32, fanout: usize, depth: u32, annots: usize) -> u128 {
        // A form of level i costs `fanout` Do operators plus `fanout`
        // draws of level i + 1; the leaf costs 5 operators + 4 characters.
        let mut cost: u128 = 9;
        for _ in 1..depth {
            cost = (fanout as u128) * (1 + cost);
        }
        let page = if annots > 0 {
            (annots as u128) * (1 + cost)
        } else {
            1 + cost
        };
        u128::from(pages) * page + 512
    }

    proptest! {
        #![proptest_config(config())]
        #[test]
        fn no_form_graph_exceeds_the_call_budget(
            pages in 1u32..12,
            fanout in 1usize..12,
            depth in 1u32..10,
            annots in 0usize..3,
            budget in 1usize..60_000,
        ) {
            let data = form_tree(pages, fanout, depth, annots);
            let limits = Limits {
                max_operations_per_call: budget,
                max_operations_per_page: usize::MAX,
                max_glyphs_per_page: usize::MAX,
                max_call_cpu_ms: 600_000,
                ..Limits::default()
            };
            let (x, work) = toolgate::harness::pdf::pdf_work(&data, &limits);
            let x = x.unwrap();
            prop_assert!(work <= budget, "{work} > {budget}");
            let spent = x.warnings.iter().any(|w| w.limit == Some(Limit::OperationsPerCall));
            if needed(pages, fanout, depth, annots) > budget as u128 {
                prop_assert!(x.truncated && spent, "{:?}", x.warnings);
            } else {
                prop_assert!(!spent, "{:?}", x.warnings);
                prop_assert_eq!(work as u128, needed(pages, fanout, depth, annots));
            }
        }
    }
}
