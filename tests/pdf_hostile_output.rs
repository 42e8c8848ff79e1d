//! Hostile files against what the tools print and answer (issue: the last
//! kinds of hostile file): the response bound with text that JSON escapes
//! twice, and the terminal safety of the CLI.
#![cfg(feature = "cli")]
#[path = "pdf_hostile/gen.rs"]
#[allow(dead_code)]
mod gen;
mod mcp_support;

use std::process::Command;

use gen::{one_page, to_unicode_all};
use mcp_support::{run_with, BIN};
use serde_json::{json, Value};

const MAX_RESPONSE_BYTES: usize = toolgate::json::MAX_RESPONSE_BYTES;

fn initialize(version: &str) -> String {
    json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":version,"capabilities":{},"clientInfo":{"name":"t","version":"1"}}}).to_string()
}

/// A small file (about 40 KB) whose every shown code maps, through its
/// ToUnicode CMap, to 63 quotes and one C1 control: about 390 bytes on the
/// wire per code, 20 MB for the whole text.
fn escaped_twice() -> Vec<u8> {
    let target = "0022".repeat(64);
    let line = format!("({}) '\n", "a".repeat(256));
    let content = format!("BT /F1 1 Tf 1.2 TL 10 790 Td {}ET", line.repeat(200));
    gen::Doc::new(1)
        .obj(1, "<< /Type /Catalog /Pages 2 0 R >>")
        .obj(2, "<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
        .obj(3, "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>")
        .stream(4, "/Filter /FlateDecode", &gen::zlib(content.as_bytes()))
        .obj(5, "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /ToUnicode 6 0 R >>")
        .obj(6, to_unicode_all(&target))
        .build()
}

#[test]
fn answers_stay_under_the_response_bound() {
    let dir = tempfile::tempdir().unwrap();
    let pdf = escaped_twice();
    assert!(pdf.len() < 64 * 1024, "{}", pdf.len());
    std::fs::write(dir.path().join("q.pdf"), &pdf).unwrap();
    for version in ["2025-06-18", "2024-11-05"] {
        let call = json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"extract","arguments":{"path":"q.pdf"}}});
        let input = format!("{}\n{call}\n", initialize(version));
        let out = run_with(dir.path(), &[], input.into_bytes());
        let r = &out.responses[1];
        let line = serde_json::to_string(r).unwrap();
        assert!(
            line.len() <= MAX_RESPONSE_BYTES,
            "{version}: {} bytes",
            line.len()
        );
        assert!(
            line.len() > MAX_RESPONSE_BYTES / 2,
            "{version}: cut far too much: {}: {}",
            line.len(),
            &line[line.len() - 1500..]
        );
        assert_eq!(
            r["result"]["isError"],
            false,
            "{version}: {}",
            &line[..300.min(line.len())]
        );
        let text: Value =
            serde_json::from_str(r["result"]["content"][0]["text"].as_str().unwrap()).unwrap();
        // Once escaped (2024-11-05 has no structuredContent) the whole text
        // fits, 4 bytes a quote; twice it does not.
        let cut = version == "2025-06-18";
        assert_eq!(text["truncated"], cut, "{version}");
        let warned = text["warnings"].as_array().unwrap().iter().any(|w| {
            w["message"]
                .as_str()
                .unwrap_or_default()
                .contains("max_response_bytes")
        });
        assert_eq!(warned, cut, "{version}: {}", text["warnings"]);
        if version == "2025-06-18" {
            assert_eq!(r["result"]["structuredContent"], text, "both copies agree");
        }
    }
}

/// A file whose XMP packet is 4 MiB (`MAX_XMP_BYTES`) of U+0001 after
/// `<x:xmpmeta>`: 13 wire bytes each in a 2025-06-18 answer, 52 MB in all.
fn xmp_of_controls() -> Vec<u8> {
    let mut xmp = b"<x:xmpmeta>".to_vec();
    xmp.resize(toolgate::pdf::limits::MAX_XMP_BYTES, 1);
    one_page(gen::HELLO)
        .obj(1, "<< /Type /Catalog /Pages 2 0 R /Metadata 9 0 R >>")
        .stream(
            9,
            "/Type /Metadata /Subtype /XML /Filter /FlateDecode",
            &gen::zlib(&xmp),
        )
        .build()
}

/// Regression (attack pass on #22): a 4 MiB XMP of control characters gave
/// `response_too_large` from `get_metadata`. The XMP is cut to fit the
/// response bound, with a warning naming the limit; the rest of the
/// metadata comes back, in both revisions.
#[test]
fn an_xmp_past_the_response_bound_is_cut() {
    let dir = tempfile::tempdir().unwrap();
    let pdf = xmp_of_controls();
    assert!(pdf.len() < 16 * 1024, "{}", pdf.len());
    std::fs::write(dir.path().join("x.pdf"), &pdf).unwrap();
    for version in ["2025-06-18", "2024-11-05"] {
        let call = json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_metadata","arguments":{"path":"x.pdf"}}});
        let input = format!("{}\n{call}\n", initialize(version));
        let out = run_with(dir.path(), &[], input.into_bytes());
        let r = &out.responses[1];
        let line = serde_json::to_string(r).unwrap();
        assert!(
            line.len() <= MAX_RESPONSE_BYTES,
            "{version}: {}",
            line.len()
        );
        assert_eq!(
            r["result"]["isError"],
            false,
            "{version}: {}",
            &line[..300.min(line.len())]
        );
        let m: Value =
            serde_json::from_str(r["result"]["content"][0]["text"].as_str().unwrap()).unwrap();
        let xmp = m["xmp"].as_str().unwrap();
        assert!(xmp.starts_with("<x:xmpmeta>\u{1}"), "{version}");
        assert!(
            xmp.len() < toolgate::pdf::limits::MAX_XMP_BYTES,
            "{version}"
        );
        assert_eq!(m["pageCount"], 1);
        assert!(
            m["warnings"]
                .as_array()
                .unwrap()
                .iter()
                .any(|w| w["limit"] == "max_response_bytes"
                    && w["message"].as_str().unwrap().contains("XMP packet is cut")),
            "{version}: {}",
            m["warnings"]
        );
    }
}

/// `pages` pages each showing `lines` lines of 16 Ki quotes (200 lines:
/// the text of [`escaped_twice`], 3.3 M quotes).
fn escaped_twice_pages(pages: u32, lines: usize) -> Vec<u8> {
    let target = "0022".repeat(64);
    let line = format!("({}) '\n", "a".repeat(256));
    let content = format!("BT /F1 1 Tf 1.2 TL 10 790 Td {}ET", line.repeat(lines));
    let kids: Vec<String> = (0..pages).map(|i| format!("{} 0 R", 10 + i)).collect();
    let mut doc = gen::Doc::new(1)
        .obj(1, "<< /Type /Catalog /Pages 2 0 R >>")
        .obj(
            2,
            format!(
                "<< /Type /Pages /Kids [{}] /Count {pages} >>",
                kids.join(" ")
            ),
        )
        .stream(4, "/Filter /FlateDecode", &gen::zlib(content.as_bytes()))
        .obj(
            5,
            "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /ToUnicode 6 0 R >>",
        )
        .obj(6, to_unicode_all(&target));
    for i in 0..pages {
        doc = doc.obj(10 + i, "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>");
    }
    doc.build()
}

#[test]
fn a_cut_answer_carries_no_stale_warning() {
    // The output_chars limit (8 Mi characters) stops the text before page
    // 4; the response bound then cuts it within page 1. No warning may
    // still say where the old limit stopped it, or speak of a page that is
    // no longer in the answer.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("q.pdf"), escaped_twice_pages(6, 200)).unwrap();
    let call = json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"extract","arguments":{"path":"q.pdf"}}});
    let input = format!("{}\n{call}\n", initialize("2025-06-18"));
    let out = run_with(dir.path(), &[], input.into_bytes());
    let sc = &out.responses[1]["result"]["structuredContent"];
    assert_eq!(sc["truncated"], true);
    let last = sc["pages"].as_array().unwrap().last().unwrap()["page"]
        .as_u64()
        .unwrap();
    assert!(last < 4, "{last}");
    let warnings = sc["warnings"].as_array().unwrap();
    for w in warnings {
        assert!(w["page"].as_u64().is_none_or(|p| p <= last), "{w}");
        assert!(
            !matches!(w["limit"].as_str(), Some("output_chars" | "pages_per_call")),
            "{w}"
        );
    }
    let w = warnings.last().unwrap();
    assert_eq!(w["limit"], "max_response_bytes", "{w}");
    assert_eq!(w["page"], last, "{w}");
}

/// One page of 9.8 M quotes: the output_chars limit (8 Mi characters)
/// stops it within the page, and the response bound then cuts the same
/// page shorter. The page's output_chars warning is stale; one warning
/// says where the text stops now.
#[test]
fn a_page_cut_twice_keeps_only_the_last_cut() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("q.pdf"), escaped_twice_pages(1, 600)).unwrap();
    for version in ["2025-06-18", "2024-11-05"] {
        let call = json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"extract","arguments":{"path":"q.pdf"}}});
        let input = format!("{}\n{call}\n", initialize(version));
        let out = run_with(dir.path(), &[], input.into_bytes());
        let text = out.responses[1]["result"]["content"][0]["text"]
            .as_str()
            .unwrap();
        let v: Value = serde_json::from_str(text).unwrap();
        assert_eq!(v["truncated"], true, "{version}");
        let warnings = v["warnings"].as_array().unwrap();
        assert_eq!(warnings.len(), 1, "{version}: {warnings:?}");
        assert_eq!(warnings[0]["page"], 1, "{version}");
        assert_eq!(warnings[0]["limit"], "max_response_bytes", "{version}");
    }
}

/// Cut by the output_chars limit alone, a page's warning names the limit
/// (and no longer counts characters it no longer holds).
#[test]
fn a_page_cut_by_output_chars_names_the_limit() {
    let data = escaped_twice_pages(1, 600);
    let x = toolgate::pdf::extract_in_process(
        toolgate::pdf::Source::Bytes(&data),
        None,
        &toolgate::pdf::Options::default(),
    )
    .unwrap();
    assert!(x.truncated);
    assert!(x.pages[0].text.chars().count() <= toolgate::pdf::limits::MAX_OUTPUT_CHARS);
    let w: Vec<_> = x.warnings.iter().filter(|w| w.page == Some(1)).collect();
    assert_eq!(w.len(), 1, "{w:?}");
    assert_eq!(w[0].limit, Some(toolgate::pdf::Limit::OutputChars), "{w:?}");
    assert!(
        w[0].message.contains("page range starting at page 1"),
        "{w:?}"
    );
}

#[test]
fn a_batch_answer_stays_under_the_response_bound() {
    // 2025-03-26 batches: three answers of about 10 MB each would make one
    // 30 MB line; the first stays whole, the others become their errors.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("q.pdf"), escaped_twice()).unwrap();
    let calls: Vec<Value> = (1..=3)
        .map(|i| json!({"jsonrpc":"2.0","id":i,"method":"tools/call","params":{"name":"extract","arguments":{"path":"q.pdf"}}}))
        .collect();
    let input = format!(
        "{}\n{}\n{}\n",
        initialize("2025-03-26"),
        json!({"jsonrpc":"2.0","method":"notifications/initialized"}),
        Value::Array(calls)
    );
    let mut child = Command::new(BIN)
        .arg("mcp")
        .arg("--root")
        .arg(dir.path())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(input.as_bytes()).unwrap();
    }
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let line = text
        .lines()
        .find(|l| l.starts_with('['))
        .expect("a batch answer");
    assert!(line.len() <= MAX_RESPONSE_BYTES, "{} bytes", line.len());
    let v: Value = serde_json::from_str(line).unwrap();
    let answers = v.as_array().unwrap();
    assert_eq!(answers.len(), 3);
    let mut ids: Vec<i64> = answers.iter().map(|a| a["id"].as_i64().unwrap()).collect();
    ids.sort_unstable();
    assert_eq!(ids, [1, 2, 3]);
    let whole = answers
        .iter()
        .filter(|a| a["result"]["isError"] == false)
        .count();
    assert!(whole >= 1, "{}", &line[..300]);
    let cut: Vec<&Value> = answers
        .iter()
        .filter(|a| a.get("error").is_some())
        .collect();
    assert_eq!(whole + cut.len(), 3);
    assert!(!cut.is_empty());
    for e in cut {
        assert_eq!(e["error"]["code"], -32603, "{e}");
        assert_eq!(e["error"]["data"]["code"], "response_too_large", "{e}");
        assert_eq!(e["error"]["data"]["maxBytes"], MAX_RESPONSE_BYTES, "{e}");
    }
}

/// Text codes mapped to ESC, CSI and RLO, metadata carrying OSC, bidi
/// overrides and a forged line.
fn terminal_tricks() -> Vec<u8> {
    one_page(b"BT /F1 12 Tf 72 720 Td (\\000[2J\\001\\002) Tj ET")
        .obj(
            5,
            "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /ToUnicode 6 0 R >>",
        )
        .stream(6, "", b"begincmap 1 begincodespacerange <00> <FF> endcodespacerange 3 beginbfchar <00> <001B> <01> <009B> <02> <202E> endbfchar endcmap")
        .obj(7, "<< /Title <FEFF001B005D0030003B006F0077006E00650064 0007 202E 2066> /Author (a\\nerror: forged) /Producer <9b32 4a7f> >>")
        .trailer("/Info 7 0 R")
        .build()
}

/// Writes this suite's files as fuzz seeds (run on purpose:
/// `TOOLGATE_WRITE_SEEDS=1 cargo test --test pdf_hostile_output write_seeds`).
#[test]
fn write_seeds() {
    if std::env::var_os("TOOLGATE_WRITE_SEEDS").is_none() {
        return;
    }
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/pdf_extract");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("hostile-escaped-twice.pdf"), escaped_twice()).unwrap();
    std::fs::write(dir.join("hostile-terminal-controls.pdf"), terminal_tricks()).unwrap();
}

fn run_cli(args: &[&str], file: &std::path::Path) -> (String, String) {
    let out = Command::new(BIN).args(args).arg(file).output().unwrap();
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn acts_on_a_terminal(s: &str) -> Option<char> {
    s.chars()
        .find(|&c| {
            (c.is_control() && !matches!(c, '\n' | '\t' | '\x0c'))
                || matches!(c, '\u{61c}' | '\u{200e}' | '\u{200f}' | '\u{2028}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
        })
}

#[test]
fn the_cli_never_prints_a_control_from_the_file() {
    let dir = tempfile::tempdir().unwrap();
    // Text: code 0 maps to ESC, code 1 to U+009B (CSI); metadata with OSC
    // and a forged line; a font name with ESC in a warning.
    let pdf = terminal_tricks();
    let path = dir.path().join("t.pdf");
    std::fs::write(&path, pdf).unwrap();
    let (stdout, stderr) = run_cli(&["extract"], &path);
    assert_eq!(acts_on_a_terminal(&stdout), None, "{stdout:?}");
    assert_eq!(acts_on_a_terminal(&stderr), None, "{stderr:?}");
    assert!(stdout.contains('\u{fffd}'), "{stdout:?}");
    for args in [&["extract", "--json"][..], &["metadata"][..]] {
        let (stdout, stderr) = run_cli(args, &path);
        assert_eq!(acts_on_a_terminal(&stdout), None, "{args:?}: {stdout:?}");
        assert_eq!(acts_on_a_terminal(&stderr), None, "{args:?}: {stderr:?}");
        let v: Value =
            serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{args:?}: {e}: {stdout}"));
        if args == ["metadata"] {
            assert_eq!(
                v["info"]["Title"], "\u{1b}]0;owned\u{7}\u{202e}\u{2066}",
                "the JSON keeps the value: {v}"
            );
        }
    }
    // An error naming a value from the file: an unknown security handler
    // whose name carries ESC and a newline.
    let enc = one_page(gen::HELLO)
        .obj(
            8,
            "<< /Filter /Evil#1b[31m#0aerror:#20forged /V 1 /R 2 /O <00> /U <00> /P -4 >>",
        )
        .trailer("/Encrypt 8 0 R /ID [<00> <00>]")
        .build();
    let path = dir.path().join("e.pdf");
    std::fs::write(&path, enc).unwrap();
    for args in [&["extract"][..], &["metadata"][..]] {
        let (stdout, stderr) = run_cli(args, &path);
        assert_eq!(acts_on_a_terminal(&stderr), None, "{args:?}: {stderr:?}");
        assert_eq!(
            stderr.lines().filter(|l| l.starts_with("error:")).count(),
            1,
            "{args:?}: {stderr:?}"
        );
        assert!(stdout.is_empty() || acts_on_a_terminal(&stdout).is_none());
    }
}

/// Metadata whose Info values escape to far more bytes than text output
/// may (200 values of 65,536 U+0001 each, in a 15 KB file): the worker's
/// answer cap holds the largest metadata answer, so the call gets its
/// result, not `worker_failed` (found by the #22 attacker pass).
#[test]
fn metadata_escaping_past_the_text_cap_is_answered() {
    let file = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("corpus/pdf_extract/hostile-metadata-200-info-values-of-control-characters.pdf");
    let iso = toolgate::pdf::Isolation::new(BIN);
    let m = toolgate::pdf::metadata_isolated(
        toolgate::pdf::Source::Path(&file),
        &toolgate::pdf::Options::default(),
        &iso,
    )
    .unwrap();
    let title = m.title.unwrap();
    assert_eq!(title.chars().count(), 65_536);
    assert!(title.chars().all(|c| c == '\u{1}'));
}

/// Warnings quoting names from the file are bounded: a font name of
/// 200,000 (or 14 million) characters, 70 of them on two pages sharing one
/// content stream, gave an answer past the worker's output cap
/// (`worker_failed`) or a `response_too_large` refusal (attack pass). Each
/// message is cut at `pdf::MAX_WARNING_CHARS`, at most `pdf::MAX_WARNINGS`
/// are kept, and the text comes back.
#[test]
fn warnings_quoting_the_file_are_bounded() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/pdf_extract");
    for name in [
        "warn-k1_longname.pdf",
        "warn-k1_longname2.pdf",
        "warn-w_onename.pdf",
    ] {
        let call = json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"extract","arguments":{"path":name}}});
        let input = format!("{}\n{call}\n", initialize("2025-06-18"));
        let out = run_with(&dir, &[], input.into_bytes());
        let r = &out.responses[1];
        assert_eq!(
            r["result"]["isError"],
            false,
            "{name}: {}",
            r.to_string().chars().take(400).collect::<String>()
        );
        let sc = &r["result"]["structuredContent"];
        assert!(
            sc["pages"][0]["text"].as_str().unwrap().contains('a'),
            "{name}"
        );
        let warnings = sc["warnings"].as_array().unwrap();
        assert!(!warnings.is_empty(), "{name}");
        assert!(
            warnings.len() <= toolgate::pdf::MAX_WARNINGS + 16,
            "{name}: {}",
            warnings.len()
        );
        for w in warnings {
            let m = w["message"].as_str().unwrap();
            assert!(
                m.chars().count() <= toolgate::pdf::MAX_WARNING_CHARS + 64,
                "{name}: {} chars",
                m.chars().count()
            );
        }
        assert!(
            warnings.iter().any(|w| w["message"]
                .as_str()
                .unwrap()
                .contains("more characters cut")),
            "{name}"
        );
    }
}

/// One page whose resources are `resources` and whose content is object 4,
/// a stream with `dict` and `content`.
fn page_with(resources: &str, dict: &str, content: &[u8]) -> gen::Doc {
    gen::Doc::new(1)
        .obj(1, "<< /Type /Catalog /Pages 2 0 R >>")
        .obj(2, "<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
        .obj(
            3,
            format!("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources {resources} /Contents 4 0 R >>"),
        )
        .stream(4, dict, content)
        .obj(5, "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
}

const F1: &str = "<< /Font << /F1 5 0 R >> >>";

/// A file whose security handler (`/Filter`) is `name` (written with `#`
/// escapes), with `/V` and `/R` as given.
fn handler_named(name: &str, v: u32, r: u32) -> Vec<u8> {
    one_page(gen::HELLO)
        .obj(
            8,
            format!("<< /Filter /{name} /V {v} /R {r} /O <00> /U <00> /P -4 >>"),
        )
        .trailer("/Encrypt 8 0 R /ID [<00> <00>]")
        .build()
}

/// 70 fonts missing from the resources, then a Form XObject whose data
/// is not zlib: the form's warning survives the page's cap.
fn cap_then_form_fault() -> Vec<u8> {
    let mut content = String::new();
    for i in 0..70 {
        content.push_str(&format!("BT /G{i} 12 Tf 72 700 Td (x) Tj ET\n"));
    }
    content.push_str("BT /F1 12 Tf 72 720 Td (Visible) Tj ET /Fm Do");
    page_with(
        "<< /Font << /F1 5 0 R >> /XObject << /Fm 6 0 R >> >>",
        "",
        content.as_bytes(),
    )
    .stream(
        6,
        "/Type /XObject /Subtype /Form /BBox [0 0 612 792] /Filter /FlateDecode",
        b"\x00\x01garbage that is not zlib",
    )
    .build()
}

/// Bytes from a small deterministic generator (xorshift).
fn noise(seed: u64, n: usize) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect()
}

fn random_content(seed: u64) -> Vec<u8> {
    one_page(&noise(seed, 3000)).build()
}

fn text_then_garbage() -> Vec<u8> {
    let mut c = gen::HELLO.to_vec();
    c.extend_from_slice(b"\n");
    c.extend_from_slice(&noise(7, 2000));
    one_page(&c).build()
}

fn random_form(seed: u64) -> Vec<u8> {
    page_with(
        "<< /Font << /F1 5 0 R >> /XObject << /Fm 6 0 R >> >>",
        "",
        b"BT /F1 12 Tf 72 720 Td (Visible) Tj ET /Fm Do",
    )
    .stream(
        6,
        "/Type /XObject /Subtype /Form /BBox [0 0 612 792]",
        &noise(seed, 2000),
    )
    .build()
}

fn flate_header_then_garbage() -> Vec<u8> {
    let mut data = vec![0x78, 0x9c];
    data.extend_from_slice(&noise(3, 600));
    page_with(F1, "/Filter /FlateDecode", &data).build()
}

fn flate_truncated() -> Vec<u8> {
    let text = gen::HELLO.repeat(20);
    let z = gen::zlib(&text);
    page_with(F1, "/Filter /FlateDecode", &z[..z.len() / 2]).build()
}

/// Text, then one `Tj` with `n` operands (a flate stream: 8 M operands
/// are 16 MB of content, just under `MAX_STREAM_BYTES`, in a 16 KB file),
/// then more text.
fn many_operands(n: usize) -> Vec<u8> {
    let mut content = b"BT /F1 12 Tf 72 720 Td (Before) Tj ".to_vec();
    content.extend_from_slice(&b"1 ".repeat(n));
    content.extend_from_slice(b"(Lost) Tj (After) Tj ET");
    page_with(F1, "/Filter /FlateDecode", &gen::zlib(&content)).build()
}

/// Regression (attack pass on #22): one page of 8 M operands before one
/// operator ended the whole call at `worker_memory` (lopdf holds every
/// operand until the operator). That operation is skipped, as poppler
/// skips it ("Too many args"), with a page warning naming `MAX_OPERANDS`;
/// the text before and after it comes back, through the isolated worker.
#[test]
fn an_operation_of_too_many_operands_ends_the_text_there() {
    // `n` numbers and the string `(Lost)`: one past the bound at
    // `MAX_OPERANDS`, and far past it.
    for n in [toolgate::pdf::limits::MAX_OPERANDS, 8_000_000] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.pdf");
        std::fs::write(&path, many_operands(n)).unwrap();
        let (stdout, stderr) = run_cli(&["extract", "--json"], &path);
        let v: Value = serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stderr}"));
        let text = v["pages"][0]["text"].as_str().unwrap();
        assert!(
            text.contains("Before") && text.contains("After") && !text.contains("Lost"),
            "{text}"
        );
        let w = v["warnings"].to_string();
        assert!(
            w.contains(&format!(
                "1 operation(s) with more than {} operands, or nested more than 32 levels, skipped, the first at byte 35 of",
                toolgate::pdf::limits::MAX_OPERANDS
            )),
            "{w}"
        );
    }
    let w = cli_warnings(&many_operands(toolgate::pdf::limits::MAX_OPERANDS - 1));
    assert!(!w.iter().any(|m| m.contains("operands")), "{w:?}");
}

/// Regression (attack pass on #22): operations of 65,000 empty arrays
/// each (under `MAX_OPERANDS`, 8 M in all in one Form XObject of an 18 KB
/// file) ended the whole call at the 5 s `worker_time` limit; an array
/// nested 60,000 levels lost the text after it. The arrays are charged to
/// the call's work budget before lopdf parses them (the call stops with a
/// warning naming it, the earlier page kept), and an operation nested past
/// `MAX_OPERAND_NESTING` is skipped as poppler skips it.
#[test]
fn costly_and_deep_operands_are_bounded() {
    let empties = format!("{} Tj\n", "[]".repeat(65_000)).repeat(128);
    let data = gen::Doc::new(1)
        .obj(1, "<< /Type /Catalog /Pages 2 0 R >>")
        .obj(2, "<< /Type /Pages /Kids [3 0 R 6 0 R] /Count 2 >>")
        .obj(3, format!("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources {F1} /Contents 4 0 R >>"))
        .stream(4, "", b"BT /F1 12 Tf 72 720 Td (PAGEONE) Tj ET")
        .obj(5, "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
        .obj(6, "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> /XObject << /X0 7 0 R >> >> /Contents 8 0 R >>")
        .stream(7, "/Type /XObject /Subtype /Form /BBox [0 0 612 792] /Filter /FlateDecode", &gen::zlib(empties.as_bytes()))
        .stream(8, "", b"/X0 Do")
        .build();
    assert!(data.len() < 40 * 1024, "{}", data.len());
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("f.pdf");
    std::fs::write(&path, &data).unwrap();
    let (stdout, stderr) = run_cli(&["extract", "--json"], &path);
    let v: Value = serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stderr}"));
    assert_eq!(v["pages"][0]["text"].as_str().unwrap().trim(), "PAGEONE");
    assert_eq!(v["truncated"], true);
    assert!(
        v["warnings"].to_string().contains("operations_per_call"),
        "{}",
        v["warnings"]
    );
    let deep = format!(
        "BT /F1 12 Tf 72 720 Td (BEFORE) Tj {}{} Tj (AFTER) Tj ET",
        "[".repeat(60_000),
        "]".repeat(60_000)
    );
    let w =
        cli_warnings(&page_with(F1, "/Filter /FlateDecode", &gen::zlib(deep.as_bytes())).build());
    assert!(
        w.iter()
            .any(|m| m.contains("nested more than 32 levels, skipped")),
        "{w:?}"
    );
    let (stdout, _) = {
        std::fs::write(
            &path,
            page_with(F1, "/Filter /FlateDecode", &gen::zlib(deep.as_bytes())).build(),
        )
        .unwrap();
        run_cli(&["extract"], &path)
    };
    assert!(
        stdout.contains("BEFORE") && stdout.contains("AFTER"),
        "{stdout}"
    );
}

/// A font name of `n` characters, missing from the resources.
fn long_font_name(n: usize) -> Vec<u8> {
    let name = "X".repeat(n);
    one_page(format!("BT /F1 12 Tf 72 720 Td (Hello) Tj /{name} 12 Tf (more) Tj ET").as_bytes())
        .build()
}

/// Writes this suite's files of the content and message kinds as fuzz
/// seeds (`TOOLGATE_WRITE_SEEDS=1 cargo test --test pdf_hostile_output
/// write_message_seeds`).
#[test]
fn write_message_seeds() {
    if std::env::var_os("TOOLGATE_WRITE_SEEDS").is_none() {
        return;
    }
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/pdf_extract");
    let name = format!("{}#e2#80#ae{}", "A".repeat(600), "#01".repeat(600));
    for (file, data) in [
        (
            "hostile-error-long-security-handler-name.pdf",
            handler_named(&name, 1, 2),
        ),
        (
            "hostile-warnings-cap-hides-form-fault.pdf",
            cap_then_form_fault(),
        ),
        ("hostile-content-random-bytes.pdf", random_content(1)),
        ("hostile-content-text-then-garbage.pdf", text_then_garbage()),
        ("hostile-form-content-random-bytes.pdf", random_form(2)),
        (
            "hostile-flate-header-then-garbage.pdf",
            flate_header_then_garbage(),
        ),
        ("hostile-flate-truncated.pdf", flate_truncated()),
        ("hostile-warning-cut-note-count.pdf", long_font_name(4000)),
        ("hostile-content-8m-operands.pdf", many_operands(8_000_000)),
        (
            "hostile-warnings-call-cap-hides-lost-text.pdf",
            minor_warnings_then_lost_text(),
        ),
        (
            "hostile-metadata-4mib-xmp-of-controls.pdf",
            xmp_of_controls(),
        ),
        (
            "hostile-warnings-same-lost-text-on-300-pages.pdf",
            same_lost_text_then_another(),
        ),
    ] {
        assert!(data.len() < 20 * 1024, "{file}: {}", data.len());
        std::fs::write(dir.join(file), data).unwrap();
    }
}

/// The warnings of `extract --json` on `data`, through the CLI.
fn cli_warnings(data: &[u8]) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("f.pdf");
    std::fs::write(&path, data).unwrap();
    let (stdout, stderr) = run_cli(&["extract", "--json"], &path);
    let v: Value = serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stderr}"));
    v["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["message"].as_str().unwrap().to_owned())
        .collect()
}

/// Regression (attack pass on #22): an `/Encrypt /Filter` name of three
/// million characters made a 3 MB `unsupported_encryption` message with a
/// raw U+202E, and with `#01` bytes a `response_too_large` answer. Every
/// error's text quoting the file is escaped and cut
/// (`pdf::MAX_WARNING_CHARS`), by the CLI and the MCP server, whichever
/// path names the handler (lopdf's, or ours with a known `/V`, `/R`).
#[test]
fn errors_quoting_the_file_are_bounded_and_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let long = format!("#e2#80#ae{}", "#01".repeat(200_000));
    let cases = [
        ("a.pdf", handler_named(&long, 1, 2)),
        ("b.pdf", handler_named(&long, 4, 4)),
        (
            "c.pdf",
            handler_named(&format!("{}#e2#80#ae", "A".repeat(300_000)), 9, 9),
        ),
    ];
    let bound = toolgate::pdf::MAX_WARNING_CHARS + 200;
    for (name, data) in &cases {
        let path = dir.path().join(name);
        std::fs::write(&path, data).unwrap();
        for args in [
            &["extract"][..],
            &["extract", "--json"][..],
            &["metadata"][..],
        ] {
            let out = Command::new(BIN).args(args).arg(&path).output().unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(!out.status.success(), "{name} {args:?}");
            assert!(
                stderr.contains("unsupported_encryption"),
                "{name}: {stderr:.300}"
            );
            assert!(
                stderr.chars().count() < bound,
                "{name} {args:?}: {} chars",
                stderr.len()
            );
            assert!(!stderr.contains('\u{202e}') && !stderr.contains('\u{1}'));
            assert!(stderr.contains("more characters cut"), "{name}: {stderr}");
        }
        for tool in ["extract", "get_metadata"] {
            let call = json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":tool,"arguments":{"path":name}}});
            let input = format!("{}\n{call}\n", initialize("2025-06-18"));
            let out = run_with(dir.path(), &[], input.into_bytes());
            let r = &out.responses[1];
            assert_eq!(
                mcp_support::tool_error_kind(r),
                "unsupported_encryption",
                "{name}"
            );
            let line = r.to_string();
            assert!(
                line.len() < 4 * bound,
                "{name} {tool}: {} bytes",
                line.len()
            );
            assert!(!line.contains('\u{202e}'), "{name}");
            if *name != "c.pdf" {
                assert!(
                    line.contains("\\\\u{202e}"),
                    "{name}: the name is shown escaped: {line:.400}"
                );
            }
        }
    }
}

/// Regression (attack pass): page warnings were cut twice, so the note
/// said "(28 more characters cut)" whatever the length. The note's count
/// is exact, and a message with its note fits `MAX_WARNING_CHARS`.
#[test]
fn the_cut_note_counts_exactly() {
    for n in [600, 3000, 4000, 5000, 100_000] {
        let w = cli_warnings(&long_font_name(n));
        let m = w
            .iter()
            .find(|m| m.contains("more characters cut"))
            .unwrap();
        assert!(m.chars().count() <= toolgate::pdf::MAX_WARNING_CHARS, "{m}");
        let (kept, rest) = m.split_once("… (").unwrap();
        let cut: usize = rest.split_once(' ').unwrap().0.parse().unwrap();
        let shown = kept.chars().filter(|&c| c == 'X').count();
        assert_eq!(shown + cut, n, "{m}");
    }
}

/// Regression (attack pass): the page's cap of 64 distinct warnings
/// dropped the rest without a word, hiding a Form XObject's "not zlib"
/// after 70 missing fonts. The cap (`pdf::MAX_PAGE_WARNINGS`) ends with a
/// note of how many were left out, and warnings that text is lost keep
/// their room past the minor ones.
#[test]
fn the_page_cap_leaves_room_for_lost_text_and_says_so() {
    let w = cli_warnings(&cap_then_form_fault());
    assert!(
        w.len() <= toolgate::pdf::MAX_PAGE_WARNINGS + 1,
        "{}",
        w.len()
    );
    assert!(
        w.iter()
            .any(|m| m.contains("Form XObject /Fm") && m.contains("not zlib")),
        "{w:#?}"
    );
    // The warnings that text was lost, the note, then the minor ones.
    let note = format!(
        "{} more warnings on this page were left out",
        70 - toolgate::pdf::MAX_PAGE_MINOR_WARNINGS
    );
    let at = w.iter().position(|m| m.starts_with(&note)).expect(&note);
    assert!(w[..at].iter().all(|m| !m.contains("stand-in")), "{w:#?}");
    assert!(w[at + 1..].iter().all(|m| m.contains("stand-in")), "{w:#?}");
}

/// Six pages of 48 missing fonts each (288 minor warnings, each font
/// missing from one page only), then a page whose content is random bytes.
fn minor_warnings_then_lost_text() -> Vec<u8> {
    let kids: Vec<String> = (0..7).map(|i| format!("{} 0 R", 10 + i)).collect();
    let mut doc = gen::Doc::new(1)
        .obj(1, "<< /Type /Catalog /Pages 2 0 R >>")
        .obj(
            2,
            format!("<< /Type /Pages /Kids [{}] /Count 7 >>", kids.join(" ")),
        )
        .obj(5, "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
        .stream(7, "", &noise(5, 3000));
    for i in 0..7 {
        let contents = if i == 6 { 7 } else { 20 + i };
        let mut content = String::new();
        for f in 0..48 {
            content.push_str(&format!("BT /G{i}x{f} 12 Tf 72 700 Td (x) Tj ET\n"));
        }
        doc = doc
            .stream(20 + i, "", content.as_bytes())
            .obj(
                10 + i,
                format!("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources {F1} /Contents {contents} 0 R >>"),
            );
    }
    doc.build()
}

/// 50 pages drawing the same six Form XObjects of random bytes (the same
/// six lost-text warnings on each, 300 in all), then a page whose flate
/// stream is corrupt.
fn same_lost_text_then_another() -> Vec<u8> {
    let kids: Vec<String> = (0..51).map(|i| format!("{} 0 R", 100 + i)).collect();
    let forms: Vec<String> = (0..6).map(|f| format!("/X{f} {} 0 R", 20 + f)).collect();
    let mut garbage = vec![0x78, 0x9c];
    garbage.extend_from_slice(&noise(3, 300));
    let draw = (0..6).map(|f| format!("/X{f} Do ")).collect::<String>();
    let mut doc = gen::Doc::new(1)
        .obj(1, "<< /Type /Catalog /Pages 2 0 R >>")
        .obj(
            2,
            format!(
                "<< /Type /Pages /Kids [{}] /Count 51 /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> /XObject << {} >> >> >>",
                kids.join(" "),
                forms.join(" ")
            ),
        )
        .obj(5, "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
        .stream(6, "/Filter /FlateDecode", &garbage)
        .stream(7, "", draw.as_bytes());
    for f in 0..6 {
        doc = doc.stream(
            20 + f,
            "/Type /XObject /Subtype /Form /BBox [0 0 612 792]",
            &noise(10 + u64::from(f), 300),
        );
    }
    for i in 0..51 {
        let contents = if i == 50 { 6 } else { 7 };
        doc = doc.obj(
            100 + i,
            format!("<< /Type /Page /Parent 2 0 R /Contents {contents} 0 R >>"),
        );
    }
    doc.build()
}

/// Regression (attack pass on #22, F4): the same lost-text warning on 300
/// pages filled the call's cap of `pdf::MAX_WARNINGS` and hid the last
/// page's other one. The same page warning is now given once, naming its
/// pages, and the last page's is kept.
#[test]
fn the_same_warning_on_many_pages_hides_no_other() {
    let data = same_lost_text_then_another();
    let x = toolgate::pdf::extract(toolgate::pdf::Source::Bytes(&data), None).unwrap();
    let shown: Vec<(Option<u32>, &str)> = x
        .warnings
        .iter()
        .map(|w| (w.page, w.message.as_str()))
        .collect();
    assert_eq!(shown.len(), 7, "{shown:#?}");
    for (f, (page, message)) in shown[..6].iter().enumerate() {
        assert_eq!(*page, Some(1), "{shown:#?}");
        assert!(
            message.starts_with(&format!(
                "the content of Form XObject /X{f} is not PDF content"
            )) && message.ends_with(" (and pages 2 to 50)"),
            "{shown:#?}"
        );
    }
    assert_eq!(shown[6].0, Some(51));
    assert!(
        shown[6]
            .1
            .starts_with("page content stream: the flate stream is corrupt"),
        "{shown:#?}"
    );
    // The CLI prints the same seven.
    let w = cli_warnings(&data);
    let messages: Vec<&str> = shown.iter().map(|(_, m)| *m).collect();
    assert_eq!(w, messages);
}

/// Regression (attack pass on #22): the call's cap of 256 warnings could be
/// spent on minor font warnings of early pages, hiding that a later page's
/// text was lost. Minor warnings take at most `pdf::MAX_MINOR_WARNINGS` of
/// it; the later page's warning is kept, and the note counts the rest.
#[test]
fn minor_warnings_of_early_pages_leave_room_for_lost_text() {
    let w = cli_warnings(&minor_warnings_then_lost_text());
    assert!(w.len() <= toolgate::pdf::MAX_WARNINGS + 1, "{}", w.len());
    assert!(
        w.iter()
            .any(|m| m.contains("is not PDF content") || m.contains("has a syntax error at byte")),
        "{w:#?}"
    );
    let minor = w.iter().filter(|m| m.contains("/G")).count();
    assert_eq!(minor, toolgate::pdf::MAX_MINOR_WARNINGS);
    assert!(
        w.last().unwrap().starts_with(&format!(
            "{} more warnings were left out",
            6 * 48 - toolgate::pdf::MAX_MINOR_WARNINGS
        )),
        "{:?}",
        w.last()
    );
}

/// Regression (attack pass): random bytes as page content passed the
/// "not PDF content" check in about one case in seven, text followed by
/// garbage was silent, and Form XObject content was never checked. Every
/// such page now says so, through the CLI.
#[test]
fn content_that_is_not_pdf_content_is_named_end_to_end() {
    let named = |w: &[String]| {
        w.iter()
            .any(|m| m.contains("is not PDF content") || m.contains("has a syntax error at byte"))
    };
    for seed in 0..40 {
        let w = cli_warnings(&random_content(seed));
        assert!(named(&w), "page, seed {seed}: {w:?}");
    }
    for seed in 0..10 {
        let w = cli_warnings(&random_form(seed));
        assert!(
            w.iter().any(|m| m.contains("Form XObject /Fm")) && named(&w),
            "form, seed {seed}: {w:?}"
        );
    }
    let w = cli_warnings(&text_then_garbage());
    assert!(named(&w), "{w:?}");
    // A syntax error part way: the text before it, and where it stopped.
    let mut c = gen::HELLO.to_vec();
    c.extend_from_slice(
        b" ) BT /F1 12 Tf 72 700 Td (lost) Tj ET "
            .repeat(20)
            .as_slice(),
    );
    let w = cli_warnings(&one_page(&c).build());
    assert!(
        w.iter()
            .any(|m| m.contains(&format!("has a syntax error at byte {}", gen::HELLO.len()))),
        "{w:?}"
    );
    // Sound content, with comments, inline images and compatibility
    // sections, gives no such warning.
    for sound in [
        gen::HELLO,
        b"% comment\nq BI /W 1 /H 1 /BPC 8 /CS /G ID \x00 EI Q BX foo EX BT /F1 9 Tf (a)Tj ET % end",
        b"  \n ",
    ] {
        let w = cli_warnings(&one_page(sound).build());
        assert!(!named(&w), "{w:?}");
    }
}

/// Regression (attack pass): a zlib header followed by garbage, or a
/// flate stream cut off, gave a silently empty page; poppler says
/// "Unexpected end of file in flate stream".
#[test]
fn flate_streams_that_do_not_inflate_whole_are_named() {
    let w = cli_warnings(&flate_header_then_garbage());
    assert!(
        w.iter().any(|m| m.contains("the flate stream is corrupt")),
        "{w:?}"
    );
    let w = cli_warnings(&flate_truncated());
    assert!(
        w.iter().any(|m| m.contains("the flate stream ends early")),
        "{w:?}"
    );
    let whole = page_with(F1, "/Filter /FlateDecode", &gen::zlib(gen::HELLO)).build();
    assert_eq!(cli_warnings(&whole), Vec::<String>::new());
}

/// `"pages": null` in `tools/call` arguments is taken as absent (it was
/// refused as not a string).
#[test]
fn null_pages_is_all_pages() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("h.pdf"), one_page(gen::HELLO).build()).unwrap();
    let call = json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"extract","arguments":{"path":"h.pdf","pages":null,"password":null}}});
    let input = format!("{}\n{call}\n", initialize("2025-06-18"));
    let out = run_with(dir.path(), &[], input.into_bytes());
    let r = &out.responses[1];
    assert_eq!(r["result"]["isError"], false, "{r}");
    assert!(r["result"]["structuredContent"]["pages"][0]["text"]
        .as_str()
        .unwrap()
        .contains("Hello hostile world"));
}

/// Regression (attack pass): an AES-256 file whose crypt filter names an
/// unknown method (`/CFM /XESV3`) gave a silently empty page (lopdf read
/// the data as not encrypted); poppler refuses unknown methods. It is
/// `unsupported_encryption` naming the method, from the CLI and the MCP
/// server.
#[test]
fn an_unknown_crypt_method_is_refused_by_name() {
    let file = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("corpus/pdf_extract/hostile-encryption-unknown-crypt-method.pdf");
    for args in [&["extract"][..], &["metadata"][..]] {
        let (_, stderr) = run_cli(args, &file);
        assert!(
            stderr.contains("unsupported_encryption"),
            "{args:?}: {stderr}"
        );
        assert!(stderr.contains("crypt method /XESV3"), "{args:?}: {stderr}");
    }
    let dir = file.parent().unwrap();
    let call = json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"extract","arguments":{"path":"hostile-encryption-unknown-crypt-method.pdf"}}});
    let input = format!("{}\n{call}\n", initialize("2025-06-18"));
    let out = run_with(dir, &[], input.into_bytes());
    assert_eq!(
        mcp_support::tool_error_kind(&out.responses[1]),
        "unsupported_encryption"
    );
}

/// Regression (attack pass 22b): an AES-256 file whose `/StrF` names a
/// crypt filter missing from `/CF` gave its strings undecrypted (as
/// poppler does: a garbage Title) without a word. A document warning
/// says so, from the CLI and the MCP server.
#[test]
fn strings_under_an_unusable_crypt_filter_are_named() {
    let file = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("corpus/pdf_extract/hostile-encryption-string-filter-missing.pdf");
    let (stdout, _) = run_cli(&["metadata"], &file);
    let v: Value = serde_json::from_str(&stdout).unwrap();
    assert!(
        v["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|w| w["message"]
                .as_str()
                .unwrap()
                .contains("strings use crypt filter /Nope0")),
        "{v}"
    );
    let call = json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_metadata","arguments":{"path":"hostile-encryption-string-filter-missing.pdf"}}});
    let input = format!("{}\n{call}\n", initialize("2025-06-18"));
    let out = run_with(file.parent().unwrap(), &[], input.into_bytes());
    let line = out.responses[1].to_string();
    assert!(
        line.contains("strings use crypt filter /Nope0"),
        "{line:.600}"
    );
}

/// `toolgate extract f.pdf | head`: a reader that goes away after what it
/// wanted is no error (exit 0, nothing on stderr), as with `cat`.
#[test]
fn a_reader_that_goes_away_is_no_error() {
    use std::io::Read;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("long.pdf");
    std::fs::write(&path, escaped_twice_pages(40, 400)).unwrap();
    let (all, _) = run_cli(&["extract"], &path);
    assert!(
        all.len() > 1 << 20,
        "{} bytes: more than a pipe holds",
        all.len()
    );
    for args in [&["extract"][..], &["extract", "--json"][..]] {
        let mut child = Command::new(BIN)
            .args(args)
            .arg(&path)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut first = [0u8; 16];
        child.stdout.take().unwrap().read_exact(&mut first).unwrap();
        // The pipe's read end is closed here, with most of the text unread.
        let out = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {err}");
        assert!(!err.contains("error"), "{args:?}: {err}");
    }
}
