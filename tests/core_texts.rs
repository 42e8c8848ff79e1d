//! The bare core's public texts and accessors as an embedder reads them:
//! the bounds' values, each error's `Display` (what a log or an error
//! message shows), the pointer and domain accessors. Exact strings: a
//! message that says nothing, or the wrong thing, is a fault a user sees
//! (mutants of these survived the other core suites, #27).

use toolgate::json::{parse_strict, JsonError, Limits, SyntaxKind};
use toolgate::net::{classify_url, Denial, DenialCode};
use toolgate::rpc::parse_message;

#[test]
fn bounds_are_what_the_docs_say() {
    assert_eq!(toolgate::json::MAX_PAYLOAD_BYTES, 4 << 20);
    assert_eq!(toolgate::json::MAX_RESPONSE_BYTES, 16 << 20);
    assert_eq!(toolgate::json::MAX_JSON_DEPTH, 64);
}

#[test]
fn json_errors_say_what_and_where() {
    let limits = Limits::default();
    let err = |text: &str| parse_strict(text.as_bytes(), &limits).unwrap_err();
    let dup = err(r#"{"a":1,"a":2}"#);
    assert_eq!(dup.to_string(), r#"duplicate key "a" at /a (byte 7)"#);
    assert_eq!(dup.pointer(), Some("/a"));
    let JsonError::DuplicateKey(d) = &dup else {
        panic!("{dup:?}");
    };
    assert_eq!(d.to_string(), dup.to_string());
    let deep = err(&format!("{}{}", "[".repeat(70), "]".repeat(70)));
    assert_eq!(deep.pointer(), Some("/0".repeat(64).as_str()));
    assert!(
        deep.to_string()
            .starts_with("nesting deeper than 64 levels at /0/0"),
        "{deep}"
    );
    for (text, described) in [
        ("[1,", "unexpected end of input"),
        ("[1,]", "expected a value"),
        ("[1,//]", "comments are not allowed"),
        ("[nul]", "invalid literal (expected true, false or null)"),
        ("[-]", "invalid number"),
        ("[1e999]", "number out of range"),
        ("[\"\u{1}\"]", "control character in string"),
        (r#"["\q"]"#, "invalid escape"),
        (r#"["\ud800"]"#, "lone surrogate escape"),
        ("{1:2}", "expected an object key (a string)"),
        (r#"{"a" 1}"#, "expected ':'"),
        (r#"{"a":1 "b"}"#, "expected ',' or '}'"),
        ("[1 2]", "expected ',' or ']'"),
        ("[] x", "trailing characters after the value"),
    ] {
        let e = err(text);
        let JsonError::Syntax { kind, offset } = e else {
            panic!("{text}: {e:?}");
        };
        assert_eq!(kind.describe(), described, "{text}");
        assert_eq!(e.pointer(), None, "{text}");
        assert_eq!(
            e.to_string(),
            format!("invalid JSON: {described} at byte {offset}"),
            "{text}"
        );
    }
    assert_eq!(SyntaxKind::Rejected.describe(), "rejected by serde_json");
}

#[test]
fn rpc_rejections_display_their_error() {
    let r = parse_message(
        br#"{"jsonrpc":"2.0","id":1,"method":"x","a":1,"a":2}"#,
        &Limits::default(),
    )
    .unwrap_err();
    assert_eq!(r.to_string(), r.error.to_string());
    assert!(
        r.to_string().starts_with("parse error: duplicate key"),
        "{r}"
    );
}

#[test]
fn denials_name_the_host_and_the_rule() {
    for (url, code, says) in [
        (
            "http://localhost/",
            DenialCode::LocalhostName,
            "`localhost` is a localhost name: it resolves to loopback (RFC 6761 §6.3)",
        ),
        (
            "http://metadata.google.internal/",
            DenialCode::MetadataName,
            "`metadata.google.internal` is a cloud metadata host name",
        ),
        (
            "http://intranet/",
            DenialCode::SingleLabelName,
            "`intranet` is a single-label name: resolver search domains complete it to an internal host",
        ),
        (
            "http://db.corp/",
            DenialCode::PrivateName,
            "`db.corp` is under a suffix private by convention or platform (RFC 6762 Appendix G; Kubernetes .svc)",
        ),
    ] {
        let d: Denial = classify_url(url).unwrap_err();
        assert_eq!(d.kind(), code, "{url}");
        assert_eq!(d.reason(), says, "{url}");
        assert_eq!(d.to_string(), format!("{}: {says}", d.code()), "{url}");
    }
    let fixed = Denial::of(DenialCode::PathOutsideRoot, "the path leaves the root");
    assert_eq!(fixed.reason(), "the path leaves the root");
    assert_eq!(
        fixed.to_string(),
        "path.outside_root: the path leaves the root"
    );
}

#[test]
fn a_destination_names_its_domain() {
    let d = classify_url("https://example.com:8443/x").unwrap();
    assert_eq!(d.domain(), Some("example.com"));
    assert_eq!(d.ip(), None);
    assert_eq!(d.port(), 8443);
    let d = classify_url("https://93.184.215.14/").unwrap();
    assert_eq!(d.domain(), None);
    assert!(d.ip().is_some());
}
