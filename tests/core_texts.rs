//! The bare core's public texts and accessors as an embedder reads them:
//! the bounds' values, each error's `Display` (what a log or an error
//! message shows), the pointer and domain accessors. Exact strings: a
//! message that says nothing, or the wrong thing, is a fault a user sees
//! (mutants of these survived the other core suites, #27).

use toolgate::json::{parse_strict, JsonError, Limits, SyntaxKind};
use toolgate::net::{classify_url, Denial, DenialCode};
use toolgate::rpc::{
    parse_incoming, parse_message, parse_message_as, parse_tool_call, Dialect, EnvelopeError,
    MethodError, ParamsError, RpcError, MAX_BATCH_LEN,
};

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

/// Byte offset of the only occurrence of `value` in `line`, the position an
/// error about that value must report (every offset below is > 1 and
/// distinct from the others).
fn at(line: &str, value: &str) -> usize {
    assert_eq!(line.matches(value).count(), 1, "{value} in {line}");
    line.find(value).unwrap()
}

#[test]
fn params_errors_name_their_offset_pointer_and_value() {
    let call = |params: &str| {
        format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{params}}}"#)
    };
    for (params, value, code, pointer, says) in [
        (
            "[7]",
            "[7]",
            "params_not_object",
            "/params",
            "/params must be an object, found an array",
        ),
        (
            r#"{"name":42}"#,
            "42",
            "invalid_name",
            "/params/name",
            "/params/name must be a string, found a number",
        ),
        (
            r#"{"name":"x","arguments":[3]}"#,
            "[3]",
            "arguments_not_object",
            "/params/arguments",
            "/params/arguments must be an object, found an array",
        ),
        (
            r#"{"name":"x","_meta":true}"#,
            "true",
            "meta_not_object",
            "/params/_meta",
            "/params/_meta must be an object, found a boolean",
        ),
    ] {
        let line = call(params);
        let offset = at(&line, value);
        let e = parse_tool_call(line.as_bytes()).unwrap_err().error;
        let RpcError::Params(p) = &e else {
            panic!("{line}: {e:?}");
        };
        assert_eq!(p.code(), code, "{line}");
        assert_eq!(e.offset(), Some(offset), "{line}");
        assert_eq!(e.pointer(), Some(pointer), "{line}");
        assert_eq!(p.to_string(), format!("{says} (byte {offset})"), "{line}");
        assert_eq!(e.to_string(), format!("invalid params: {p}"), "{line}");
    }
    let no_params = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call"}"#;
    let e = parse_tool_call(no_params).unwrap_err().error;
    assert_eq!(e, RpcError::Params(ParamsError::MissingParams));
    assert_eq!((e.offset(), e.pointer()), (None, Some("/params")));
    assert_eq!(e.to_string(), "invalid params: /params is missing");
    let e = parse_tool_call(&call("{}").into_bytes()).unwrap_err().error;
    assert_eq!(e, RpcError::Params(ParamsError::MissingName));
    assert_eq!((e.offset(), e.pointer()), (None, Some("/params/name")));
    assert_eq!(e.to_string(), "invalid params: /params/name is missing");
    let req =
        parse_tool_call(&call(r#"{"name":"x","arguments":{"n":"one"}}"#).into_bytes()).unwrap();
    let e = req
        .arguments_as::<std::collections::BTreeMap<String, u32>>()
        .unwrap_err();
    let RpcError::Params(ParamsError::InvalidArguments { message }) = &e else {
        panic!("{e:?}");
    };
    assert!(!message.is_empty());
    assert_eq!((e.offset(), e.pointer()), (None, Some("/params/arguments")));
    assert_eq!(
        e.to_string(),
        format!("invalid params: /params/arguments: {message}")
    );
}

#[test]
fn envelope_errors_say_what_and_where() {
    let limits = Limits::default();
    let envelope = |line: &str| match parse_incoming(line.as_bytes(), &limits) {
        Err(r) => match r.error {
            RpcError::Envelope(e) => e,
            other => panic!("{line}: {other:?}"),
        },
        Ok(m) => panic!("{line}: {m:?}"),
    };
    let id = r#"{"jsonrpc":"2.0","id":null,"method":"m"}"#;
    let method = r#"{"jsonrpc":"2.0","id":1,"method":12}"#;
    let params = r#"{"jsonrpc":"2.0","id":1,"method":"m","params":"p"}"#;
    for (line, pointer, offset, says) in [
        (
            r#""hi""#,
            "",
            None,
            "the message is a string, not an object".to_owned(),
        ),
        ("[]", "", None, "empty batch".to_owned()),
        (
            r#"{"id":1,"method":"m"}"#,
            "/jsonrpc",
            None,
            r#"/jsonrpc is missing (must be "2.0")"#.to_owned(),
        ),
        (
            r#"{"jsonrpc":"1.0","id":1,"method":"m"}"#,
            "/jsonrpc",
            None,
            r#"/jsonrpc must be "2.0", found "1.0""#.to_owned(),
        ),
        (
            id,
            "/id",
            Some(at(id, "null")),
            format!(
                "/id must be a string or an integer, found null (byte {})",
                at(id, "null")
            ),
        ),
        (
            r#"{"jsonrpc":"2.0","id":1}"#,
            "/method",
            None,
            "/method is missing".to_owned(),
        ),
        (
            method,
            "/method",
            Some(at(method, "12")),
            format!(
                "/method must be a string, found a number (byte {})",
                at(method, "12")
            ),
        ),
        (
            params,
            "/params",
            Some(at(params, r#""p""#)),
            format!(
                "/params must be an object or an array, found a string (byte {})",
                at(params, r#""p""#)
            ),
        ),
    ] {
        let e = envelope(line);
        let rpc = RpcError::Envelope(e.clone());
        assert_eq!(e.to_string(), says, "{line}");
        assert_eq!(
            rpc.to_string(),
            format!("invalid request: {says}"),
            "{line}"
        );
        assert_eq!(rpc.pointer(), Some(pointer), "{line}");
        assert_eq!(rpc.offset(), offset, "{line}");
    }
    let two = parse_message(b"[1,2]", &limits).unwrap_err().error;
    assert_eq!(two, RpcError::Envelope(EnvelopeError::Batch { len: 2 }));
    assert_eq!(
        two.to_string(),
        "invalid request: batch of 2 messages is not accepted here"
    );
    let many = format!("[{}1]", "1,".repeat(MAX_BATCH_LEN));
    let e = envelope(&many);
    assert_eq!(
        e.to_string(),
        format!(
            "batch of {} messages exceeds the bound of {MAX_BATCH_LEN}",
            MAX_BATCH_LEN + 1
        )
    );
    let e = parse_tool_call(br#"{"jsonrpc":"2.0","method":"tools/call","params":{}}"#)
        .unwrap_err()
        .error;
    assert_eq!(e.pointer(), Some("/id"));
    assert_eq!(
        e.to_string(),
        r#"invalid request: /id is missing: notification "tools/call" is not a call"#
    );
}

#[test]
fn method_errors_quote_the_method() {
    let e = parse_tool_call(br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#)
        .unwrap_err()
        .error;
    let RpcError::MethodNotFound(m @ MethodError::NotToolsCall { .. }) = &e else {
        panic!("{e:?}");
    };
    assert_eq!(m.to_string(), r#""tools/list" (at /method)"#);
    assert_eq!(
        e.to_string(),
        r#"method not found: "tools/list" (at /method)"#
    );
    assert_eq!((e.offset(), e.pointer()), (None, Some("/method")));
    let e = parse_message_as(
        br#"{"jsonrpc":"2.0","id":1,"method":"notifications/initialized"}"#,
        &Limits::default(),
        Dialect::Mcp,
    )
    .unwrap_err()
    .error;
    let RpcError::MethodNotFound(m @ MethodError::NotificationMethod { .. }) = &e else {
        panic!("{e:?}");
    };
    assert_eq!(
        m.to_string(),
        r#""notifications/initialized" is a notification, not a request method: send it without an id (at /method)"#
    );
    assert_eq!(e.to_string(), format!("method not found: {m}"));
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
        (
            "http://kubernetes.default/api",
            DenialCode::UnknownTld,
            "`kubernetes.default` ends in a label that is no top-level domain of the root zone: resolver search domains complete it to an internal host",
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
