//! `toolgate mcp` tools over pipes: real PDFs, hostile PDFs mid-session,
//! path confinement, and URL refusal with zero network connections.
#![cfg(feature = "cli")]
mod mcp_support;

use std::net::TcpListener;
use std::path::Path;

use mcp_support::*;
use serde_json::{json, Value};

fn session(root: &Path, calls: &[String]) -> Vec<Value> {
    let mut ls: Vec<&str> = vec![INIT, INITIALIZED];
    ls.extend(calls.iter().map(String::as_str));
    let o = run_with(root, &[], lines(&ls));
    assert!(o.status.success(), "{}", o.stderr);
    let mut rs = o.responses;
    rs.remove(0);
    assert_eq!(rs.len(), calls.len());
    rs
}

#[test]
fn extract_and_metadata_on_real_pdfs() {
    let rs = session(
        &corpus(),
        &[
            call(
                2,
                "extract",
                json!({"path": "pypdf-pdflatex-4-pages.pdf", "pages": "1-3"}),
            ),
            call(
                3,
                "extract",
                json!({"path": "pypdf-pdflatex-4-pages.pdf", "pages": "4"}),
            ),
            call(
                4,
                "get_metadata",
                json!({"path": "pypdf-pdflatex-4-pages.pdf"}),
            ),
            call(
                5,
                "extract",
                json!({"path": "pypdf-libreoffice-password.pdf", "password": "openpassword"}),
            ),
        ],
    );
    let x = &rs[0]["result"];
    assert_eq!(x["isError"], false);
    assert_eq!(x["structuredContent"]["pageCount"], 4);
    let pages: Vec<_> = x["structuredContent"]["pages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["page"].clone())
        .collect();
    assert_eq!(pages, [json!(1), json!(2), json!(3)]);
    assert!(x["structuredContent"]["pages"][0]["text"]
        .as_str()
        .unwrap()
        .contains("Hello, here is some text"));
    let mirror: Value = serde_json::from_str(x["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(
        mirror, x["structuredContent"],
        "the text content mirrors structuredContent"
    );
    assert_eq!(rs[1]["result"]["structuredContent"]["pages"][0]["page"], 4);
    let m = &rs[2]["result"]["structuredContent"];
    assert_eq!(m["pageCount"], 4);
    assert_eq!(m["pdfVersion"], "1.5");
    assert_eq!(m["encrypted"], false);
    assert_eq!(m["info"]["Producer"], "pdfTeX-1.40.23");
    assert_eq!(rs[3]["result"]["isError"], false, "{}", rs[3]);
}

#[test]
fn tool_failures_are_readable_results() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::write(root.join("notes.txt"), b"hello, not a pdf").unwrap();
    std::fs::write(
        root.join("junk.pdf"),
        b"%PDF-1.7\n1 0 obj << /Type /Catalog /Pages 9 0 R >> endobj\n%%EOF",
    )
    .unwrap();
    std::fs::write(root.join("empty.pdf"), b"").unwrap();
    std::fs::create_dir(root.join("dir.pdf")).unwrap();
    for f in [
        "qpdf-append-xref-loop.pdf",
        "qpdf-fuzz-16214.pdf",
        "pypdf-pdflatex-4-pages.pdf",
        "pypdf-libreoffice-password.pdf",
    ] {
        std::fs::copy(corpus().join(f), root.join(f)).unwrap();
    }
    let rs = session(
        root,
        &[
            call(2, "extract", json!({"path": "missing.pdf"})),
            call(3, "extract", json!({"path": "notes.txt"})),
            call(4, "extract", json!({"path": "junk.pdf"})),
            call(5, "get_metadata", json!({"path": "empty.pdf"})),
            call(6, "extract", json!({"path": "dir.pdf"})),
            call(7, "extract", json!({"path": "qpdf-append-xref-loop.pdf"})),
            call(8, "extract", json!({"path": "qpdf-fuzz-16214.pdf"})),
            call(
                9,
                "extract",
                json!({"path": "pypdf-pdflatex-4-pages.pdf", "pages": "9"}),
            ),
            call(
                10,
                "extract",
                json!({"path": "pypdf-libreoffice-password.pdf", "password": "wrong"}),
            ),
            // After all that, the session still serves.
            call(
                11,
                "extract",
                json!({"path": "pypdf-pdflatex-4-pages.pdf", "pages": "2"}),
            ),
        ],
    );
    assert_eq!(tool_error_kind(&rs[0]), "not_found");
    assert_eq!(tool_error_kind(&rs[1]), "not_pdf");
    assert!(
        rs[2]["result"]["isError"].is_boolean(),
        "a hostile file gets a result: {}",
        rs[2]
    );
    assert_eq!(tool_error_kind(&rs[3]), "empty_input");
    assert_eq!(tool_error_kind(&rs[4]), "not_a_file");
    for r in &rs[5..7] {
        assert!(
            r.get("result").is_some(),
            "a hostile PDF is a tool result, not a protocol error: {r}"
        );
    }
    assert_eq!(tool_error_kind(&rs[7]), "page_out_of_range");
    assert_eq!(tool_error_kind(&rs[8]), "password_required");
    assert_eq!(rs[9]["result"]["isError"], false);
    assert_eq!(rs[9]["result"]["structuredContent"]["pages"][0]["page"], 2);
}

#[test]
fn paths_leaving_the_root_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    std::fs::create_dir_all(root.join("sub")).unwrap();
    std::fs::copy(
        corpus().join("pypdf-minimal-document.pdf"),
        root.join("sub/in.pdf"),
    )
    .unwrap();
    std::fs::copy(
        corpus().join("pypdf-minimal-document.pdf"),
        dir.path().join("secret.pdf"),
    )
    .unwrap();
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(dir.path().join("secret.pdf"), root.join("link.pdf")).unwrap();
        std::os::unix::fs::symlink(dir.path(), root.join("up")).unwrap();
        std::os::unix::fs::symlink(root.join("sub/in.pdf"), root.join("inside-link.pdf")).unwrap();
    }
    let secret = dir.path().join("secret.pdf");
    let rs = session(
        &root,
        &[
            call(2, "get_metadata", json!({"path": "../secret.pdf"})),
            call(3, "get_metadata", json!({"path": "sub/../../secret.pdf"})),
            call(4, "get_metadata", json!({"path": secret.to_str().unwrap()})),
            call(5, "get_metadata", json!({"path": "/etc/passwd"})),
            call(
                6,
                "get_metadata",
                json!({"path": "../../../../../../../../etc/passwd"}),
            ),
            call(7, "get_metadata", json!({"path": "../does-not-exist.pdf"})),
            call(8, "get_metadata", json!({"path": "link.pdf"})),
            call(9, "get_metadata", json!({"path": "up/secret.pdf"})),
            call(10, "get_metadata", json!({"path": "sub/in.pdf"})),
            call(11, "get_metadata", json!({"path": "inside-link.pdf"})),
            call(
                12,
                "get_metadata",
                json!({"path": root.join("sub/in.pdf").to_str().unwrap()}),
            ),
            // No existence oracle outside: missing, and a file used as a
            // directory, through a link leaving the root.
            call(13, "get_metadata", json!({"path": "up/does-not-exist.pdf"})),
            call(14, "get_metadata", json!({"path": "up/secret.pdf/x"})),
            call(15, "get_metadata", json!({"path": "../secret.pdf/x"})),
            call(16, "get_metadata", json!({"path": "/nonexistent/x.pdf"})),
        ],
    );
    for r in rs[0..8].iter().chain(&rs[11..15]) {
        assert_eq!(tool_error_kind(r), "path.outside_root", "{r}");
    }
    for r in &rs[8..11] {
        assert_eq!(r["result"]["isError"], false, "{r}");
    }
}

/// A refused URL never causes a connection: a listener on 127.0.0.1 sees
/// none while the server refuses its address in every disguise.
#[test]
fn refused_urls_open_no_connection() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    let urls = [
        format!("http://127.0.0.1:{port}/x.pdf"),
        format!("http://localhost:{port}/x.pdf"),
        format!("http://LOCALHOST.:{port}/x.pdf"),
        format!("http://a.localhost:{port}/x.pdf"),
        format!("http://2130706433:{port}/x.pdf"),
        format!("http://0x7f.1:{port}/x.pdf"),
        format!("http://0177.0.0.1:{port}/x.pdf"),
        format!("http://127.1:{port}/x.pdf"),
        format!("http://[::1]:{port}/x.pdf"),
        format!("http://[::ffff:127.0.0.1]:{port}/x.pdf"),
        format!("http://[::ffff:7f00:1]:{port}/x.pdf"),
        format!("http://user@127.0.0.1:{port}/x.pdf"),
        format!("https://127.0.0.1:{port}/x.pdf"),
        format!("HTTP://127.0.0.1:{port}/x.pdf"),
        format!("http:\\\\127.0.0.1:{port}\\x.pdf"),
        format!(" http://127.0.0.1:{port}/x.pdf"),
        format!("http://0.0.0.0:{port}/x.pdf"),
        format!("http://[::]:{port}/x.pdf"),
        "http://169.254.169.254/latest/meta-data/".to_owned(),
        "http://metadata.google.internal/computeMetadata/v1/".to_owned(),
        "http://10.0.0.1/x.pdf".to_owned(),
        "http://192.168.1.1/x.pdf".to_owned(),
        "http://100.64.0.1/x.pdf".to_owned(),
        "file:///etc/passwd".to_owned(),
        format!("gopher://127.0.0.1:{port}/x"),
    ];
    let calls: Vec<String> = urls
        .iter()
        .enumerate()
        .map(|(i, u)| {
            call(
                i as u64 + 2,
                if i % 2 == 0 {
                    "extract"
                } else {
                    "get_metadata"
                },
                json!({"path": u}),
            )
        })
        .collect();
    let rs = session(&corpus(), &calls);
    for (u, r) in urls.iter().zip(&rs) {
        let kind = tool_error_kind(r);
        assert!(
            kind.starts_with("ssrf.") || kind.starts_with("url."),
            "{u} must be refused with a denial code, got {kind}"
        );
    }
    assert_eq!(tool_error_kind(&rs[0]), "ssrf.loopback");
    assert_eq!(tool_error_kind(&rs[18]), "ssrf.cloud_metadata");
    assert_eq!(tool_error_kind(&rs[20]), "ssrf.private_use");
    // Zero accepted connections.
    match listener.accept() {
        Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
        other => panic!("the server connected to the listener: {other:?}"),
    }
}

#[test]
fn public_urls_are_not_fetched_either() {
    let rs = session(
        &corpus(),
        &[call(
            2,
            "extract",
            json!({"path": "https://example.com/report.pdf"}),
        )],
    );
    assert_eq!(tool_error_kind(&rs[0]), "remote_disabled");
}

#[test]
fn a_non_pdf_file_is_not_quoted_back() {
    // A path to a secret that is not a PDF must not leak its first bytes
    // through the error message the agent reads.
    let dir = tempfile::tempdir().unwrap();
    let secret = "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG";
    std::fs::write(dir.path().join(".env"), secret).unwrap();
    std::fs::write(
        dir.path().join("key.bin"),
        [0x30, 0x82, 0x04, 0xa4, 0x02, 0x01],
    )
    .unwrap();
    let input = lines(&[
        INIT,
        INITIALIZED,
        &call(2, "get_metadata", serde_json::json!({"path": ".env"})),
        &call(3, "extract", serde_json::json!({"path": "key.bin"})),
    ]);
    let out = run_with(dir.path(), &[], input);
    assert_eq!(out.responses.len(), 3);
    for r in &out.responses[1..] {
        assert_eq!(tool_error_kind(r), "not_pdf", "{r}");
        let text = r.to_string();
        assert!(!text.contains("AWS_SECRET"), "{text}");
        assert!(!text.contains("wJalr"), "{text}");
    }
}
