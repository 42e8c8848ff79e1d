//! Every malformed shape listed in issue 2 gets its own typed error and the
//! right JSON-RPC code; the boundaries (exactly at the bound, exactly at the
//! depth limit) are accepted.
use serde_json::json;
use toolgate::json::{JsonError, Limits, SyntaxKind, MAX_JSON_DEPTH, MAX_PAYLOAD_BYTES};
use toolgate::net::Denial;
use toolgate::rpc::{
    authorization_error, denial_error, detectable_error_id, parse_incoming, parse_message,
    parse_tool_call, parse_tool_call_with, protocol_error, EnvelopeError, Id, Incoming, Message,
    RpcError, ToolCall,
};

const OK: &str = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"extract","arguments":{"path":"a.pdf"}}}"#;

fn err(s: &[u8]) -> RpcError {
    parse_tool_call(s).unwrap_err().error
}

fn call_with(envelope: serde_json::Value) -> RpcError {
    err(envelope.to_string().as_bytes())
}

#[test]
fn accepts_a_plain_call() {
    let r = parse_tool_call(OK.as_bytes()).unwrap();
    assert_eq!(r.id, Id::from(1i64));
    assert_eq!(r.name, "extract");
    assert_eq!(r.arguments()["path"], "a.pdf");
    assert_eq!(r.arguments_json(), r#"{"path":"a.pdf"}"#);
    assert_eq!(r.meta, None);
}

#[test]
fn missing_arguments_read_as_empty_object() {
    let r = parse_tool_call(
        br#"{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"x"}}"#,
    )
    .unwrap();
    assert!(r.arguments().is_empty());
    assert_eq!(r.id, Id::from("a"));
}

#[test]
fn json_layer_failures_are_parse_errors() {
    let cases: Vec<(&[u8], &str)> = vec![
        (b"", "empty"),
        (b" \n\t\r ", "whitespace_only"),
        (b"\xEF\xBB\xBF{}", "byte_order_mark"),
        (b"{\"a\":\"\xff\"}", "invalid_utf8"),
        (br#"{"a":"\ud800"}"#, "invalid_json"),
        (br#"{"\udc00":1}"#, "invalid_json"),
        (b"{} x", "invalid_json"),
        (b"{/* c */}", "invalid_json"),
        (b"// c\n{}", "invalid_json"),
        (br#"{"a":1,"\u0061":2}"#, "duplicate_key"),
    ];
    for (input, kind) in cases {
        let e = err(input);
        assert_eq!(e.code(), kind, "{input:?}: {e}");
        assert_eq!(e.jsonrpc_code(), -32700, "{input:?}");
        assert_eq!(e.http_status(), 400);
        assert_eq!(detectable_error_id(input, &e), None);
    }
    assert!(matches!(
        err(br#"{"a":"\ud800"}"#),
        RpcError::Json(JsonError::Syntax {
            kind: SyntaxKind::LoneSurrogate,
            offset: 6
        })
    ));
    assert!(matches!(
        err(br#"{"a":1 /* c */}"#),
        RpcError::Json(JsonError::Syntax {
            kind: SyntaxKind::Comment,
            ..
        })
    ));
}

#[test]
fn duplicate_keys_at_any_depth_with_pointer() {
    let s = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"e","arguments":{"x":{"k":1,"\u006b":2}}}}"#;
    match err(s) {
        RpcError::Json(JsonError::DuplicateKey(d)) => {
            assert_eq!(d.key, "k");
            assert_eq!(d.pointer, "/params/arguments/x/k");
            assert_eq!(&s[d.offset..d.offset + 3], br#""\u"#);
        }
        other => panic!("{other}"),
    }
    assert!(matches!(
        err(br#"{"id":1,"id":2}"#),
        RpcError::Json(JsonError::DuplicateKey(_))
    ));
}

#[test]
fn top_level_shapes() {
    assert!(matches!(
        err(b"[1,2]"),
        RpcError::Envelope(EnvelopeError::Batch { len: 2 })
    ));
    assert!(matches!(
        err(b"[]"),
        RpcError::Envelope(EnvelopeError::EmptyBatch)
    ));
    for s in ["1", "\"x\"", "true", "null"] {
        let e = err(s.as_bytes());
        assert!(
            matches!(e, RpcError::Envelope(EnvelopeError::NotAnObject { .. })),
            "{s}"
        );
        assert_eq!(e.jsonrpc_code(), -32600);
    }
}

#[test]
fn envelope_shapes() {
    let cases = vec![
        (
            json!({"id":1,"method":"tools/call","params":{"name":"e"}}),
            "invalid_jsonrpc",
            -32600,
        ),
        (
            json!({"jsonrpc":"1.0","id":1,"method":"tools/call"}),
            "invalid_jsonrpc",
            -32600,
        ),
        (
            json!({"jsonrpc":2.0,"id":1,"method":"tools/call"}),
            "invalid_jsonrpc",
            -32600,
        ),
        (
            json!({"jsonrpc":"2.0","method":"tools/call","params":{"name":"e"}}),
            "notification",
            -32600,
        ),
        (
            json!({"jsonrpc":"2.0","id":null,"method":"tools/call"}),
            "invalid_id",
            -32600,
        ),
        (
            json!({"jsonrpc":"2.0","id":1.5,"method":"tools/call"}),
            "invalid_id",
            -32600,
        ),
        (
            json!({"jsonrpc":"2.0","id":true,"method":"tools/call"}),
            "invalid_id",
            -32600,
        ),
        (
            json!({"jsonrpc":"2.0","id":{},"method":"tools/call"}),
            "invalid_id",
            -32600,
        ),
        (
            json!({"jsonrpc":"2.0","id":[1],"method":"tools/call"}),
            "invalid_id",
            -32600,
        ),
        (json!({"jsonrpc":"2.0","id":1}), "missing_method", -32600),
        (
            json!({"jsonrpc":"2.0","id":1,"method":7}),
            "invalid_method",
            -32600,
        ),
        (
            json!({"jsonrpc":"2.0","id":1,"method":"tools/list"}),
            "not_tools_call",
            -32601,
        ),
        (
            json!({"jsonrpc":"2.0","id":1,"method":"tools/call"}),
            "missing_params",
            -32602,
        ),
        (
            json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":[1]}),
            "params_not_object",
            -32602,
        ),
        (
            json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}}),
            "missing_name",
            -32602,
        ),
        (
            json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":1}}),
            "invalid_name",
            -32602,
        ),
        (
            json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"e","arguments":"x"}}),
            "arguments_not_object",
            -32602,
        ),
        (
            json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"e","_meta":1}}),
            "meta_not_object",
            -32602,
        ),
    ];
    for (v, kind, code) in cases {
        let e = call_with(v.clone());
        assert_eq!(e.code(), kind, "{v}: {e}");
        assert_eq!(e.jsonrpc_code(), code, "{v}");
        assert_eq!(e.http_status(), 400);
        let bytes = v.to_string();
        let id = detectable_error_id(bytes.as_bytes(), &e);
        // The id rule: valid JSON, an object, exactly one valid `id` => echoed,
        // whatever else is wrong (here a wrong or missing `jsonrpc` too).
        let expect_id = v.get("id") == Some(&json!(1));
        assert_eq!(id.is_some(), expect_id, "{v}: {id:?}");
        let resp = protocol_error(&e, id.as_ref());
        assert_eq!(resp["error"]["code"], code);
        if expect_id {
            assert_eq!(resp["id"], 1);
        } else {
            assert!(resp["id"].is_null());
        }
    }
}

#[test]
fn payload_bound_is_inclusive() {
    let base = OK.as_bytes();
    let mut at = base.to_vec();
    at.resize(MAX_PAYLOAD_BYTES, b' ');
    assert!(parse_tool_call(&at).is_ok());
    at.push(b' ');
    let e = err(&at);
    assert!(
        matches!(e, RpcError::Json(JsonError::TooLarge { len, limit }) if len == MAX_PAYLOAD_BYTES + 1 && limit == MAX_PAYLOAD_BYTES)
    );
    assert_eq!(e.http_status(), 413);
    assert_eq!(e.jsonrpc_code(), -32700);
    let huge = vec![b'{'; 32 * 1024 * 1024];
    assert!(matches!(
        err(&huge),
        RpcError::Json(JsonError::TooLarge { .. })
    ));
}

fn nested_call(depth_in_arguments: usize) -> String {
    // envelope (1) + params (2) + arguments (3) + the nested arrays.
    format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"e","arguments":{{"x":{}0{}}}}}}}"#,
        "[".repeat(depth_in_arguments),
        "]".repeat(depth_in_arguments)
    )
}

#[test]
fn depth_limit_is_inclusive() {
    let at = nested_call(MAX_JSON_DEPTH - 3);
    assert!(parse_tool_call(at.as_bytes()).is_ok());
    let over = nested_call(MAX_JSON_DEPTH - 2);
    let e = err(over.as_bytes());
    assert!(
        matches!(
            e,
            RpcError::Json(JsonError::TooDeep {
                limit: MAX_JSON_DEPTH,
                ..
            })
        ),
        "{e}"
    );
    assert!(matches!(
        err(nested_call(100_000).as_bytes()),
        RpcError::Json(JsonError::TooDeep { .. })
    ));
    let tight = Limits {
        max_depth: 3,
        ..Limits::default()
    };
    assert!(parse_tool_call_with(nested_call(0).as_bytes(), &tight).is_ok());
    assert!(parse_tool_call_with(nested_call(1).as_bytes(), &tight).is_err());
}

#[derive(serde::Deserialize, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
struct ExtractArgs {
    path: String,
    pages: Option<String>,
}

#[test]
fn typed_arguments() {
    let r = parse_tool_call(OK.as_bytes()).unwrap();
    let a: ExtractArgs = r.arguments_as().unwrap();
    assert_eq!(
        a,
        ExtractArgs {
            path: "a.pdf".into(),
            pages: None
        }
    );
    let bad = ToolCall::new("extract")
        .arg("path", "a")
        .arg("evil", 1)
        .to_json();
    let r = parse_tool_call(bad.as_bytes()).unwrap();
    let e = r.arguments_as::<ExtractArgs>().unwrap_err();
    assert_eq!(e.jsonrpc_code(), -32602);
    assert!(e.to_string().contains("evil"), "{e}");
}

#[test]
fn builder_round_trip() {
    let call = ToolCall::new("extract")
        .arg("path", "http://x/")
        .id(7)
        .meta("progressToken", 3);
    let r = parse_tool_call(call.to_json().as_bytes()).unwrap();
    assert_eq!(r, call.to_request());
    assert_eq!(r.meta.unwrap()["progressToken"], 3);
}

#[test]
fn general_messages() {
    let l = Limits::default();
    match parse_message(br#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}"#, &l).unwrap() {
        Message::Request(r) => {
            assert_eq!(r.method, "initialize");
            assert_eq!(r.params.unwrap()["protocolVersion"], "2025-06-18");
        }
        other => panic!("{other:?}"),
    }
    let n = parse_message(
        br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        &l,
    )
    .unwrap();
    assert!(matches!(n, Message::Notification(_)));
    assert_eq!(n.id(), None);
    let e = parse_message(
        br#"{"jsonrpc":"2.0","id":1,"method":"ping","params":3}"#,
        &l,
    )
    .unwrap_err();
    assert_eq!(e.error.code(), "params_not_structured");
    match parse_incoming(
        br#"[{"jsonrpc":"2.0","id":1,"method":"ping"}, {"a":1}]"#,
        &l,
    )
    .unwrap()
    {
        Incoming::Batch(items) => {
            assert_eq!(items.len(), 2);
            assert!(parse_message(items[0].get().as_bytes(), &l).is_ok());
            assert!(parse_message(items[1].get().as_bytes(), &l).is_err());
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        parse_incoming(b"[]", &l).map_err(|r| r.error),
        Err(RpcError::Envelope(EnvelopeError::EmptyBatch))
    ));
    assert!(matches!(
        parse_incoming(br#"[{"a":1,"a":2}]"#, &l).map_err(|r| r.error),
        Err(RpcError::Json(JsonError::DuplicateKey(_)))
    ));
}

#[test]
fn policy_errors() {
    let id = Id::from(5i64);
    let a = authorization_error(&id, "no");
    assert_eq!(a["error"]["code"], -32001);
    assert_eq!(a["error"]["message"], "blocked by policy");
    assert_eq!(a["id"], 5);
    let d = denial_error(
        &id,
        &Denial::of(toolgate::net::DenialCode::Loopback, "loopback address"),
    );
    assert_eq!(d["error"]["code"], -32001);
    assert_eq!(d["error"]["data"]["code"], "ssrf.loopback");
    assert_eq!(d["error"]["data"]["reason"], "loopback address");
}

/// Regression (fuzz, parse_tool_call): an empty `_meta` must survive the
/// builder round trip as `Some({})`, not vanish.
#[test]
fn empty_meta_round_trips() {
    let line = b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"e\",\"_meta\":{\r\r}}}";
    let r = parse_tool_call(line).unwrap();
    assert_eq!(r.meta, Some(serde_json::Map::new()));
    let call = ToolCall::new("e").id(2).meta_map(serde_json::Map::new());
    assert_eq!(parse_tool_call(call.to_json().as_bytes()).unwrap(), r);
}

/// The id rule (JSON-RPC 2.0 §5, stated on `Rejected`), one raw line per
/// kind of deep fault: valid JSON, an object, exactly one valid `id` => the
/// id is echoed, whatever else is wrong.
#[test]
fn id_rule_by_kind_of_fault() {
    use toolgate::rpc::{parse_incoming_as, Dialect};
    let deep = format!(
        r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"e","arguments":{{"a":{}1{}}}}}}}"#,
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    let deep_then_id = format!(
        r#"{{"params":{{"a":{}1{}}},"jsonrpc":"2.0","id":7,"method":"tools/call"}}"#,
        "[".repeat(70),
        "]".repeat(70)
    );
    let echoed: &[(&[u8], &str)] = &[
        (deep.as_bytes(), "too_deep"),
        // The id after the deep fault: the scan goes on to find it.
        (deep_then_id.as_bytes(), "too_deep"),
        (
            br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"e","name":"f"}}"#,
            "duplicate_key",
        ),
        (
            br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"e","arguments":{"a":1,"\u0061":2}}}"#,
            "duplicate_key",
        ),
        (
            br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"e","_meta":{"p":1,"p":2}}}"#,
            "duplicate_key",
        ),
        (
            br#"{"jsonrpc":"2.0","method":"tools/call","method":"ping","id":7}"#,
            "duplicate_key",
        ),
        (
            br#"{"jsonrpc":"1.0","id":7,"method":"tools/call","params":{}}"#,
            "invalid_jsonrpc",
        ),
        (br#"{"id":7,"method":"tools/call"}"#, "invalid_jsonrpc"),
        (
            br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":3}}"#,
            "invalid_name",
        ),
        (br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":"x"}"#, "params_not_object"),
        (br#"{"jsonrpc":"2.0","id":7,"method":9}"#, "invalid_method"),
    ];
    let limits = Limits::default();
    for (line, kind) in echoed {
        let shown = String::from_utf8_lossy(&line[..line.len().min(80)]).into_owned();
        let r = parse_tool_call(line).unwrap_err();
        assert_eq!(r.error.code(), *kind, "{shown}");
        assert_eq!(r.id, Some(Id::from(7)), "{shown}: {}", r.error);
        assert_eq!(r.to_response()["id"], 7, "{shown}");
        assert_eq!(
            detectable_error_id(line, &r.error),
            Some(Id::from(7)),
            "{shown}"
        );
        // The same id from the server's parse (any error it raises).
        if let Err(r) = parse_incoming_as(line, &limits, Dialect::Mcp) {
            assert_eq!(r.id, Some(Id::from(7)), "{shown}: {}", r.error);
        }
    }
    let null: &[&[u8]] = &[
        // not valid JSON (even with a unique id before the fault)
        br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"a":1,"a":2}"#,
        br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"a":[1}}"#,
        // not an object
        br#"[{"jsonrpc":"2.0","id":7,"method":"tools/call"}]"#,
        // id absent, duplicated, invalid
        br#"{"jsonrpc":"2.0","method":"tools/call","params":{"a":1,"a":2}}"#,
        br#"{"jsonrpc":"2.0","id":7,"id":7,"method":"tools/call"}"#,
        br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"x":1,"x":1},"\u0069d":8}"#,
        br#"{"jsonrpc":"2.0","id":null,"method":"tools/call"}"#,
        br#"{"jsonrpc":"2.0","id":1.5,"method":"tools/call","params":{"a":1,"a":2}}"#,
        // invalid UTF-8
        b"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"\xff\"}",
    ];
    for line in null {
        let r = parse_tool_call(line).unwrap_err();
        assert_eq!(r.id, None, "{}: {}", String::from_utf8_lossy(line), r.error);
        assert!(r.to_response()["id"].is_null());
        assert_eq!(detectable_error_id(line, &r.error), None);
    }
    // Over the bound: null, even under a bound the line is only just over.
    let line = br#"{"jsonrpc":"2.0","id":7,"method":"tools/call"}"#;
    let tight = Limits {
        max_payload_bytes: line.len() - 1,
        ..Limits::default()
    };
    let r = parse_tool_call_with(line, &tight).unwrap_err();
    assert_eq!(r.error.code(), "too_large");
    assert_eq!(r.id, None);
    assert_eq!(detectable_error_id(line, &r.error), None);
}

/// The MCP protocol kinds of `Dialect::Mcp` (what the server parses with),
/// and `parse_tool_call` giving the same answer for the params kinds.
#[test]
fn mcp_dialect_kinds() {
    use toolgate::rpc::{parse_message_as, Dialect};
    let limits = Limits::default();
    for params in ["null", "\"s\"", "3", "true", "[1]", "[]"] {
        for method in ["tools/call", "tools/list", "ping", "initialize"] {
            let line =
                format!(r#"{{"jsonrpc":"2.0","id":4,"method":"{method}","params":{params}}}"#);
            let r = parse_message_as(line.as_bytes(), &limits, Dialect::Mcp).unwrap_err();
            assert_eq!(r.error.code(), "params_not_object", "{line}");
            assert_eq!(r.error.jsonrpc_code(), -32602, "{line}");
            assert_eq!(r.id, Some(Id::from(4)));
            assert!(!r.notification);
            if method == "tools/call" {
                // `toolgate parse` (parse_tool_call) answers exactly the same.
                let p = parse_tool_call(line.as_bytes()).unwrap_err();
                assert_eq!(p.to_response(), r.to_response(), "{line}");
            }
        }
        // JSON-RPC alone: arrays are structured, scalars are -32600.
        let line = format!(r#"{{"jsonrpc":"2.0","id":4,"method":"ping","params":{params}}}"#);
        let plain = parse_message(line.as_bytes(), &limits);
        if params.starts_with('[') {
            assert!(plain.is_ok(), "{line}");
        } else {
            assert_eq!(plain.unwrap_err().error.jsonrpc_code(), -32600, "{line}");
        }
        // A notification with such params: never answered.
        let note = format!(r#"{{"jsonrpc":"2.0","method":"notifications/x","params":{params}}}"#);
        let r = parse_message_as(note.as_bytes(), &limits, Dialect::Mcp).unwrap_err();
        assert!(r.notification && r.id.is_none(), "{note}");
    }
    // Absent params on tools/call: -32602 with the id, kept on the message.
    let line = br#"{"jsonrpc":"2.0","id":4,"method":"tools/call"}"#;
    let Message::Request(req) = parse_message_as(line, &limits, Dialect::Mcp).unwrap() else {
        panic!("a request")
    };
    let r = req.tool_call().unwrap().unwrap_err();
    assert_eq!(
        (r.error.code(), r.error.jsonrpc_code()),
        ("missing_params", -32602)
    );
    assert_eq!(r.id, Some(Id::from(4)));
    assert_eq!(parse_tool_call(line).unwrap_err(), r);
    // An id on a method named like a notification: -32601 with the id.
    for m in [
        "notifications/cancelled",
        "notifications/initialized",
        "notifications/x",
    ] {
        let line = format!(r#"{{"jsonrpc":"2.0","id":"n","method":"{m}","params":{{}}}}"#);
        let r = parse_message_as(line.as_bytes(), &limits, Dialect::Mcp).unwrap_err();
        assert_eq!(r.error.code(), "notification_method", "{line}");
        assert_eq!(r.error.jsonrpc_code(), -32601);
        assert_eq!(r.id, Some(Id::from("n")));
        // Without the id it is a notification like any other.
        let note = format!(r#"{{"jsonrpc":"2.0","method":"{m}","params":{{}}}}"#);
        assert!(matches!(
            parse_message_as(note.as_bytes(), &limits, Dialect::Mcp),
            Ok(Message::Notification(_))
        ));
    }
}

/// A `tools/call` parsed as a message keeps its call: the same request
/// `parse_tool_call` reads from the bytes.
#[test]
fn a_message_keeps_its_tool_call() {
    let line = ToolCall::new("extract")
        .arg("path", "a.pdf")
        .meta("progressToken", 3)
        .id(9)
        .to_json();
    let Message::Request(req) = parse_message(line.as_bytes(), &Limits::default()).unwrap() else {
        panic!("a request")
    };
    assert_eq!(
        req.tool_call(),
        Some(Ok(parse_tool_call(line.as_bytes()).unwrap()))
    );
    let ping = br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    let Message::Request(req) = parse_message(ping, &Limits::default()).unwrap() else {
        panic!("a request")
    };
    assert_eq!(req.tool_call(), None);
}

/// `Message`'s accessors and `Id`'s conversions give exactly what the line
/// held, for a request and a notification.
#[test]
fn message_accessors_give_what_the_line_held() {
    let m = parse_message(
        br#"{"jsonrpc":"2.0","id":"a","method":"tools/list","params":{"cursor":"c"}}"#,
        &Limits::default(),
    )
    .unwrap();
    assert_eq!(m.method(), "tools/list");
    assert_eq!(m.id(), Some(&Id::from("a")));
    assert_eq!(m.id(), Some(&Id::from(String::from("a"))));
    assert_eq!(m.params(), Some(&json!({"cursor": "c"})));
    let n = parse_message(
        br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        &Limits::default(),
    )
    .unwrap();
    assert_eq!(n.method(), "notifications/initialized");
    assert_eq!(n.id(), None);
    assert_eq!(n.params(), None);
    let n = parse_message(
        br#"{"jsonrpc":"2.0","method":"notifications/progress","params":[1]}"#,
        &Limits::default(),
    )
    .unwrap();
    assert_eq!(n.params(), Some(&json!([1])));
    assert_eq!(Id::from(7u32), Id::from(7i64));
    assert_eq!(Id::from(7u32).to_value(), json!(7));
}

/// A batch of `MAX_BATCH_LEN` elements is read; one more is refused with
/// `batch_too_long` naming both counts (-32600), before any element is.
#[test]
fn a_batch_is_bounded_at_max_batch_len() {
    use toolgate::rpc::MAX_BATCH_LEN;
    let batch = |n: usize| {
        let one = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
        format!("[{}]", vec![one; n].join(","))
    };
    match parse_incoming(batch(MAX_BATCH_LEN).as_bytes(), &Limits::default()) {
        Ok(Incoming::Batch(items)) => assert_eq!(items.len(), MAX_BATCH_LEN),
        other => panic!("{other:?}"),
    }
    let e = parse_incoming(batch(MAX_BATCH_LEN + 1).as_bytes(), &Limits::default()).unwrap_err();
    assert_eq!(
        e.error,
        RpcError::Envelope(EnvelopeError::BatchTooLong {
            len: MAX_BATCH_LEN + 1,
            limit: MAX_BATCH_LEN
        })
    );
    assert_eq!(e.error.jsonrpc_code(), -32600);
    assert_eq!(e.error.code(), "batch_too_long");
}

/// A string id longer than `rpc::MAX_ID_BYTES` (between its quotes) is an
/// invalid id, answered with a null id; one exactly that long is echoed
/// (attack s72-A, F1: ids of 4 MB held while answered).
#[test]
fn string_ids_are_bounded_in_bytes() {
    let line = |id: &str| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
               "params": {"name": "e", "arguments": {}}})
        .to_string()
    };
    let fits = "i".repeat(toolgate::rpc::MAX_ID_BYTES);
    let call = toolgate::rpc::parse_tool_call(line(&fits).as_bytes()).unwrap();
    assert_eq!(call.id.to_string().len(), toolgate::rpc::MAX_ID_BYTES + 2);
    let long = format!("{fits}i");
    let r = toolgate::rpc::parse_tool_call(line(&long).as_bytes()).unwrap_err();
    assert_eq!(r.error.code(), "invalid_id", "{:?}", r.error);
    assert_eq!(r.id, None);
    // The answer says how long it was and the bound, as a number too.
    let answer = r.to_response();
    let message = answer["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("1025 bytes") && message.contains("1024"),
        "{message}"
    );
    assert_eq!(
        answer["error"]["data"]["limit"],
        toolgate::rpc::MAX_ID_BYTES
    );
    assert_eq!(answer["error"]["data"]["pointer"], "/id");
    // Escapes count as written: an id of 1024 `\n`s is 2048 bytes.
    let escaped = "\\n".repeat(toolgate::rpc::MAX_ID_BYTES);
    let text = format!(
        r#"{{"jsonrpc":"2.0","id":"{escaped}","method":"tools/call","params":{{"name":"e"}}}}"#
    );
    let r = toolgate::rpc::parse_tool_call(text.as_bytes()).unwrap_err();
    assert_eq!(r.error.code(), "invalid_id");
}
