//! `toolgate mcp` over pipes: every bad input gets its exact answer (or, for
//! notifications, none), and the next valid request is still answered.
#![cfg(feature = "cli")]
mod mcp_support;

use mcp_support::*;
use serde_json::{json, Value};

/// Runs `bad` lines after a handshake, then a ping; returns the answers to
/// the bad lines, checking the ping (id 99) was answered last.
fn after_init(bad: &[Vec<u8>]) -> Vec<Value> {
    let mut input = lines(&[INIT, INITIALIZED]);
    for b in bad {
        input.extend_from_slice(b);
        input.push(b'\n');
    }
    input.extend_from_slice(&lines(&[&ping(99)]));
    let mut rs = run(input);
    assert_eq!(rs.remove(0)["result"]["protocolVersion"], "2025-11-25");
    assert_eq!(rs.pop().unwrap(), pong(99), "serving continues");
    rs
}

#[test]
fn deeply_nested_json_is_refused() {
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let deep_obj = format!(
        r#"{{"jsonrpc":"2.0","id":5,"method":"ping","params":{{"a":{}1{}}}}}"#,
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    let rs = after_init(&[deep.into_bytes(), deep_obj.into_bytes()]);
    assert_eq!(rs.len(), 2);
    assert_core_error(&rs[0], -32700, "too_deep", Value::Null);
    // Valid JSON with one valid top-level id: the id is echoed (JSON-RPC 2.0 §5).
    assert_core_error(&rs[1], -32700, "too_deep", json!(5));
}

#[test]
fn duplicate_keys_are_refused() {
    let dup = br#"{"jsonrpc":"2.0","id":5,"method":"ping","method":"tools/call"}"#.to_vec();
    let escaped = br#"{"jsonrpc":"2.0","id":6,"method":"ping","\u006dethod":"ping"}"#.to_vec();
    let rs = after_init(&[dup, escaped]);
    assert_core_error(&rs[0], -32700, "duplicate_key", json!(5));
    assert_eq!(rs[0]["error"]["data"]["key"], "method");
    assert_eq!(rs[0]["error"]["data"]["pointer"], "/method");
    assert_core_error(&rs[1], -32700, "duplicate_key", json!(6));
}

#[test]
fn a_32_mib_line_is_discarded_and_answered() {
    let mut big = br#"{"jsonrpc":"2.0","id":5,"method":"ping","params":{"x":""#.to_vec();
    big.resize(32 << 20, b'a');
    big.extend_from_slice(br#""}}"#);
    let len = big.len();
    // The id last (as the TypeScript SDK writes), and a line naming two ids
    // or an id only inside `params`: answered by the one id, else null.
    let mut last = br#"{"jsonrpc":"2.0","method":"ping","params":{"x":""#.to_vec();
    last.resize(32 << 20, b'a');
    last.extend_from_slice(br#""},"id":"late"}"#);
    let mut two = br#"{"jsonrpc":"2.0","id":7,"method":"ping","params":{"x":""#.to_vec();
    two.resize(32 << 20, b'a');
    two.extend_from_slice(br#""},"id":8}"#);
    let mut nested = br#"{"jsonrpc":"2.0","method":"ping","params":{"id":9,"x":""#.to_vec();
    nested.resize(32 << 20, b'a');
    nested.extend_from_slice(br#""}}"#);
    let rs = after_init(&[big, last, two, nested]);
    assert_eq!(rs.len(), 4);
    assert_core_error(&rs[0], -32700, "too_large", json!(5));
    assert_core_error(&rs[1], -32700, "too_large", json!("late"));
    assert_core_error(&rs[2], -32700, "too_large", Value::Null);
    assert_core_error(&rs[3], -32700, "too_large", Value::Null);
    assert_eq!(
        rs[0]["error"]["data"]["limit"],
        toolgate::json::MAX_PAYLOAD_BYTES
    );
    assert!(rs[0]["error"]["message"]
        .as_str()
        .unwrap()
        .contains(&len.to_string()));
}

#[test]
fn invalid_utf8_bom_and_blank_lines() {
    let rs = after_init(&[
        b"{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"p\xffing\"}".to_vec(),
        b"\xff\xfe\xfd".to_vec(),
        b"".to_vec(),
        b"   \t ".to_vec(),
        b"\xEF\xBB\xBF{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"ping\"}".to_vec(),
    ]);
    assert_eq!(rs.len(), 3, "blank lines get no answer: {rs:?}");
    // Not strict JSON, but naming one top-level id: answered by it, so
    // the request is not left waiting (`engine::line_id`); else null.
    assert_core_error(&rs[0], -32700, "invalid_utf8", json!(5));
    assert_core_error(&rs[1], -32700, "invalid_utf8", Value::Null);
    // A BOM is only ignored at the very start of the stream.
    assert_core_error(&rs[2], -32700, "byte_order_mark", json!(6));
}

#[test]
fn bom_at_stream_start_and_crlf_endings_are_accepted() {
    let mut input = b"\xEF\xBB\xBF".to_vec();
    input.extend_from_slice(INIT.as_bytes());
    input.extend_from_slice(b"\r\n");
    input.extend_from_slice(ping(2).as_bytes());
    input.extend_from_slice(b"\r\n\r\n");
    input.extend_from_slice(ping(3).as_bytes()); // no final newline
    let rs = run(input);
    assert_eq!(rs.len(), 3);
    assert_eq!(rs[1], pong(2));
    assert_eq!(rs[2], pong(3));
}

#[test]
fn envelope_errors_carry_the_detectable_id() {
    let rs = after_init(&[
        br#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#.to_vec(),
        br#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#.to_vec(),
        br#"{"jsonrpc":"2.0","id":true,"method":"ping"}"#.to_vec(),
        br#"{"jsonrpc":"1.0","id":7,"method":"ping"}"#.to_vec(),
        br#"{"jsonrpc":"2.0","id":8}"#.to_vec(),
        br#"{"jsonrpc":"2.0","id":9,"method":7}"#.to_vec(),
        br#"{"jsonrpc":"2.0","id":"s","method":"ping","params":3}"#.to_vec(),
        br#""just a string""#.to_vec(),
        br#"{"jsonrpc":"2.0","id":10,"method":"ping""#.to_vec(),
    ]);
    assert_eq!(rs.len(), 9);
    assert_core_error(&rs[0], -32600, "invalid_id", Value::Null);
    assert_core_error(&rs[1], -32600, "invalid_id", Value::Null);
    assert_core_error(&rs[2], -32600, "invalid_id", Value::Null);
    assert_core_error(&rs[3], -32600, "invalid_jsonrpc", json!(7));
    assert_core_error(&rs[4], -32600, "missing_method", json!(8));
    assert_core_error(&rs[5], -32600, "invalid_method", json!(9));
    // MCP params are objects: -32602, as the official SDKs answer.
    assert_core_error(&rs[6], -32602, "params_not_object", json!("s"));
    assert_core_error(&rs[7], -32600, "not_an_object", Value::Null);
    // Cut short, but naming one id: answered by it (`engine::line_id`).
    assert_core_error(&rs[8], -32700, "invalid_json", json!(10));
}

#[test]
fn id_zero_and_key_order_do_not_matter() {
    let rs = run(lines(&[
        r#"{"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}},"jsonrpc":"2.0","id":0}"#,
        r#"{"method":"ping","jsonrpc":"2.0","id":"zero"}"#,
    ]));
    assert_eq!(rs[0]["id"], 0);
    assert_eq!(rs[1], json!({"jsonrpc": "2.0", "id": "zero", "result": {}}));
}

#[test]
fn requests_before_initialize() {
    let rs = run(lines(&[
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
        &call(2, "extract", json!({"path": "pypdf-minimal-document.pdf"})),
        &ping(3),
        r#"{"jsonrpc":"2.0","id":4,"method":"resources/list"}"#,
        r#"[{"jsonrpc":"2.0","id":5,"method":"ping"}]"#,
        INITIALIZED,
        INIT,
    ]));
    assert_eq!(rs.len(), 6);
    assert_eq!(
        rs[0],
        json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32600, "message": "tools/list received before initialize: send initialize first, or carry the 2026-07-28 _meta envelope in every request"}})
    );
    assert_eq!(rs[1]["error"]["code"], -32600);
    assert_eq!(rs[1]["id"], 2);
    assert_eq!(rs[2], pong(3), "ping is allowed before initialize");
    assert_eq!(
        rs[3],
        json!({"jsonrpc": "2.0", "id": 4, "error": {"code": -32601, "message": "method not found: resources/list"}})
    );
    assert_eq!(
        rs[4],
        json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32600, "message": "JSON-RPC batches are refused before initialize (and initialize must not be batched)"}})
    );
    assert_eq!(rs[5]["result"]["protocolVersion"], "2025-11-25");
}

#[test]
fn second_initialize_is_refused() {
    let rs = run(lines(&[
        INIT,
        INITIALIZED,
        &init_with("2024-11-05").replace("\"id\":1", "\"id\":2"),
    ]));
    assert_eq!(
        rs[1],
        json!({"jsonrpc": "2.0", "id": 2, "error": {"code": -32600, "message": "already initialized (protocol revision 2025-11-25): initialize may be sent once per session"}})
    );
}

#[test]
fn version_negotiation() {
    for (offered, answered) in [
        ("2024-11-05", "2024-11-05"),
        ("2025-03-26", "2025-03-26"),
        ("2025-06-18", "2025-06-18"),
        ("2025-11-25", "2025-11-25"),
        ("2026-07-28", "2025-11-25"),
        ("1999-01-01", "2025-11-25"),
        ("garbage", "2025-11-25"),
    ] {
        let rs = run(lines(&[&init_with(offered)]));
        let r = &rs[0]["result"];
        assert_eq!(r["protocolVersion"], answered, "offered {offered}");
        assert_eq!(r["serverInfo"]["name"], "toolgate");
        assert_eq!(r["capabilities"], json!({"tools": {"listChanged": false}}));
    }
    let rs = run(lines(&[
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":5}}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"initialize"}"#,
    ]));
    assert_eq!(
        rs[0],
        json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32602, "message": "invalid params: /params/protocolVersion must be a string"}})
    );
    assert_eq!(
        rs[1],
        json!({"jsonrpc": "2.0", "id": 2, "error": {"code": -32602, "message": "invalid params: initialize requires /params/protocolVersion"}})
    );
}

#[test]
fn notifications_never_get_a_reply() {
    let rs = after_init(&[
        br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3,"reason":"x"}}"#.to_vec(),
        br#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}"#.to_vec(),
        br#"{"jsonrpc":"2.0","method":"no/such/notification"}"#.to_vec(),
        br#"{"jsonrpc":"2.0","method":"notifications/initialized","params":5}"#.to_vec(),
        br#"{"jsonrpc":"2.0","method":"tools/list"}"#.to_vec(),
    ]);
    assert!(rs.is_empty(), "{rs:?}");
}

#[test]
fn responses_from_the_client_are_never_answered() {
    // A client answering a server-to-client request (roots/list, ping): this
    // server sends none, and JSON-RPC 2.0 §5 never answers a response.
    let rs = after_init(&[
        br#"{"jsonrpc":"2.0","id":10,"result":{"roots":[]}}"#.to_vec(),
        br#"{"jsonrpc":"2.0","id":"s-1","result":{}}"#.to_vec(),
        br#"{"jsonrpc":"2.0","id":11,"error":{"code":-32601,"message":"no"}}"#.to_vec(),
        br#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}"#.to_vec(),
    ]);
    assert!(rs.is_empty(), "{rs:?}");
    // Not a well-formed 2.0 response and not a request: still an invalid
    // request, answered.
    let bad: Vec<Vec<u8>> = [
        &br#"{"jsonrpc":"2.0","id":12}"#[..],
        br#"{"jsonrpc":"1.0","id":12,"result":{}}"#,
        br#"{"id":12,"result":{}}"#,
        br#"{"jsonrpc":"2.0","id":12,"result":1,"error":{"code":1,"message":"x"}}"#,
        br#"{"jsonrpc":"2.0","id":12,"error":"x"}"#,
        br#"{"jsonrpc":"2.0","id":12,"result":{},"extra":1}"#,
    ]
    .iter()
    .map(|b| b.to_vec())
    .collect();
    let rs = after_init(&bad);
    assert_eq!(rs.len(), bad.len(), "{rs:?}");
    for r in &rs {
        assert_eq!(r["error"]["code"], -32600, "{r}");
    }
}

#[test]
fn an_id_bearing_notification_name_is_a_request() {
    let rs = after_init(&[
        br#"{"jsonrpc":"2.0","id":5,"method":"notifications/cancelled","params":{"requestId":1}}"#
            .to_vec(),
    ]);
    // A request for a method that does not exist: -32601 with the id (as
    // the TypeScript and Python SDKs answer).
    assert_core_error(&rs[0], -32601, "notification_method", json!(5));
}

#[test]
fn unknown_method_tool_and_arguments() {
    let rs = after_init(&[
        br#"{"jsonrpc":"2.0","id":5,"method":"prompts/list"}"#.to_vec(),
        call(6, "delete_everything", json!({})).into_bytes(),
        call(7, "extract", json!({"path": "pypdf-minimal-document.pdf", "pgaes": "1"})).into_bytes(),
        call(8, "extract", json!({"path": 3})).into_bytes(),
        call(9, "extract", json!({"path": "pypdf-minimal-document.pdf", "pages": "0-2"})).into_bytes(),
        br#"{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"arguments":{}}}"#.to_vec(),
        br#"{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"extract","arguments":[]}}"#.to_vec(),
    ]);
    assert_eq!(
        rs[0],
        json!({"jsonrpc": "2.0", "id": 5, "error": {"code": -32601, "message": "method not found: prompts/list"}})
    );
    assert_eq!(
        rs[1],
        json!({"jsonrpc": "2.0", "id": 6, "error": {"code": -32602, "message": "invalid params: unknown tool \"delete_everything\"; tools: extract, get_metadata"}})
    );
    for (i, r) in rs[2..5].iter().enumerate() {
        assert_eq!(r["id"], 7 + i);
        assert_eq!(tool_error_kind(r), "invalid_arguments");
    }
    assert!(rs[2]["result"]["content"][0]["text"]
        .as_str()
        .unwrap()
        .contains("pgaes"));
    assert_core_error(&rs[5], -32602, "missing_name", json!(10));
    assert_core_error(&rs[6], -32602, "arguments_not_object", json!(11));
}

#[test]
fn tools_list_schemas_and_pagination() {
    let rs = run_with(
        &corpus(),
        &["--page-size", "1"],
        lines(&[
            INIT,
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"cursor":"tools:1"}}"#,
            r#"{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{"cursor":"bogus"}}"#,
            r#"{"jsonrpc":"2.0","id":5,"method":"tools/list","params":{"cursor":"tools:2"}}"#,
            r#"{"jsonrpc":"2.0","id":6,"method":"tools/list","params":{"cursor":7}}"#,
        ]),
    )
    .responses;
    let first = &rs[1]["result"];
    assert_eq!(first["tools"].as_array().unwrap().len(), 1);
    assert_eq!(first["tools"][0]["name"], "extract");
    assert_eq!(first["nextCursor"], "tools:1");
    let second = &rs[2]["result"];
    assert_eq!(second["tools"][0]["name"], "get_metadata");
    assert!(second.get("nextCursor").is_none());
    for t in [&first["tools"][0], &second["tools"][0]] {
        assert_eq!(t["inputSchema"]["type"], "object");
        assert_eq!(t["inputSchema"]["additionalProperties"], false);
        assert_eq!(t["inputSchema"]["required"], json!(["path"]));
        assert_eq!(t["annotations"]["readOnlyHint"], true);
        assert_eq!(t["annotations"]["openWorldHint"], false);
        assert_eq!(t["outputSchema"]["type"], "object");
    }
    assert_eq!(
        rs[3],
        json!({"jsonrpc": "2.0", "id": 4, "error": {"code": -32602, "message": "invalid params: invalid cursor \"bogus\": pass a nextCursor value from a previous tools/list result"}})
    );
    assert_eq!(rs[4]["error"]["code"], -32602);
    assert_eq!(
        rs[5],
        json!({"jsonrpc": "2.0", "id": 6, "error": {"code": -32602, "message": "invalid params: /params/cursor must be a string"}})
    );
}

#[test]
fn batches_only_in_2025_03_26() {
    let batch = r#"[{"jsonrpc":"2.0","id":2,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":3,"method":"nope"},{"jsonrpc":"2.0","id":null,"method":"ping"},{"jsonrpc":"2.0","id":4,"method":"initialize","params":{"protocolVersion":"2025-03-26"}}]"#;
    let rs = run(lines(&[
        &init_with("2025-03-26"),
        batch,
        r#"[{"jsonrpc":"2.0","method":"notifications/initialized"}]"#,
        "[]",
    ]));
    assert_eq!(
        rs.len(),
        3,
        "an all-notification batch gets no answer: {rs:?}"
    );
    let answers = rs[1].as_array().unwrap();
    assert_eq!(answers.len(), 4);
    assert_eq!(answers[0], pong(2));
    assert_eq!(answers[1]["error"]["code"], -32601);
    assert_core_error(&answers[2], -32600, "invalid_id", Value::Null);
    assert_eq!(
        answers[3],
        json!({"jsonrpc": "2.0", "id": 4, "error": {"code": -32600, "message": "initialize must not be part of a JSON-RPC batch"}})
    );
    assert_core_error(&rs[2], -32600, "empty_batch", Value::Null);

    for v in ["2024-11-05", "2025-06-18", "2025-11-25"] {
        let rs = run(lines(&[
            &init_with(v),
            r#"[{"jsonrpc":"2.0","id":2,"method":"ping"}]"#,
        ]));
        assert_eq!(
            rs[1],
            json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32600, "message": format!("protocol revision {v} does not allow JSON-RPC batches (only 2025-03-26 does)")}})
        );
    }
}

#[test]
fn ten_thousand_pipelined_requests() {
    let mut input = lines(&[INIT, INITIALIZED]);
    for i in 0..10_000u64 {
        let l = if i % 2 == 0 {
            ping(i + 10)
        } else {
            format!(
                r#"{{"jsonrpc":"2.0","id":{},"method":"tools/list"}}"#,
                i + 10
            )
        };
        input.extend_from_slice(l.as_bytes());
        input.push(b'\n');
    }
    let rs = run(input);
    assert_eq!(rs.len(), 10_001);
    for (i, r) in rs[1..].iter().enumerate() {
        assert_eq!(r["id"], i as u64 + 10, "in order");
        assert!(r.get("result").is_some());
    }
}

#[test]
fn stateless_revision() {
    let rs = run(lines(&[
        &modern(1, "server/discover", "2026-07-28", json!({})),
        &modern(2, "tools/list", "2026-07-28", json!({})),
        &modern(3, "tools/list", "2027-01-01", json!({})),
        &modern(
            4,
            "tools/call",
            "2026-07-28",
            json!({"name": "get_metadata", "arguments": {"path": "pypdf-minimal-document.pdf"}}),
        ),
        r#"{"jsonrpc":"2.0","id":5,"method":"tools/list"}"#,
        r#"{"jsonrpc":"2.0","id":6,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#,
        &init_with("2025-11-25").replace("\"id\":1", "\"id\":7"),
        &modern(8, "ping", "2026-07-28", json!({})),
        r#"[{"jsonrpc":"2.0","id":9,"method":"ping"}]"#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    ]));
    // Answered concurrently: in id order, the batch's (id null) last.
    let mut rs = rs;
    rs.sort_by_key(|r| r["id"].as_u64().unwrap_or(u64::MAX));
    assert_eq!(rs.len(), 9);
    let d = &rs[0]["result"];
    assert_eq!(d["supportedVersions"], json!(["2026-07-28"]));
    assert_eq!(d["capabilities"], json!({"tools": {"listChanged": false}}));
    assert_eq!(d["resultType"], "complete");
    assert_eq!(
        d["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "toolgate"
    );
    assert_eq!(rs[1]["result"]["tools"].as_array().unwrap().len(), 2);
    assert_eq!(rs[1]["result"]["resultType"], "complete");
    assert_eq!(
        rs[2],
        json!({"jsonrpc": "2.0", "id": 3, "error": {"code": -32022, "message": "unsupported protocol version \"2027-01-01\"", "data": {"supported": ["2026-07-28"], "requested": "2027-01-01"}}})
    );
    assert_eq!(rs[3]["result"]["isError"], false);
    assert_eq!(rs[3]["result"]["structuredContent"]["pageCount"], 1);
    assert_eq!(rs[4]["error"]["code"], -32602, "no envelope: {}", rs[4]);
    assert_eq!(
        rs[5],
        json!({"jsonrpc": "2.0", "id": 6, "error": {"code": -32602, "message": "invalid params: /params/_meta is missing \"io.modelcontextprotocol/clientCapabilities\""}})
    );
    assert_eq!(rs[6]["error"]["code"], -32022);
    assert_eq!(
        rs[6]["error"]["data"],
        json!({"supported": ["2026-07-28"], "requested": "2025-11-25"})
    );
    assert_eq!(
        rs[7]["error"]["code"], -32601,
        "ping is not a 2026-07-28 method"
    );
    assert_eq!(rs[8]["error"]["code"], -32600);
}

#[test]
fn enveloped_request_on_a_handshake_session() {
    let rs = run(lines(&[
        INIT,
        &modern(2, "tools/list", "2026-07-28", json!({})),
    ]));
    assert_eq!(
        rs[1],
        json!({"jsonrpc": "2.0", "id": 2, "error": {"code": -32600, "message": "this session uses the initialize handshake; requests carrying the 2026-07-28 _meta envelope are not accepted on it"}})
    );
}

#[test]
fn older_revisions_get_older_shapes() {
    let rs = run(lines(&[
        &init_with("2024-11-05"),
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
        &call(
            3,
            "get_metadata",
            json!({"path": "pypdf-minimal-document.pdf"}),
        ),
    ]));
    let t = &rs[1]["result"]["tools"][0];
    assert!(t.get("annotations").is_none() && t.get("outputSchema").is_none());
    assert!(rs[2]["result"].get("structuredContent").is_none());
    assert_eq!(rs[2]["result"]["isError"], false);
}

#[test]
fn exits_cleanly_on_eof() {
    let o = run_with(&corpus(), &[], Vec::new());
    assert!(o.status.success());
    assert!(o.responses.is_empty());
    let o = run_with(Path::new("/no/such/dir"), &[], Vec::new());
    assert_eq!(o.status.code(), Some(2), "a bad --root is a usage error");
    // A --log-level typo would otherwise silently log nothing of ours.
    for bad in ["bogus", "toolgate=bogus"] {
        let o = run_with(&corpus(), &["--log-level", bad], Vec::new());
        assert_eq!(o.status.code(), Some(2), "--log-level {bad}");
    }
    for good in ["info", "toolgate=debug", "warn,toolgate=trace"] {
        let o = run_with(&corpus(), &["--log-level", good], Vec::new());
        assert!(o.status.success(), "--log-level {good}");
    }
}

/// Secure by default: no `--root` is a usage error naming what to pass;
/// `--unconfined` is explicit, warned about, and the tools say so.
#[test]
fn a_root_is_required_and_unconfined_is_loud() {
    let o = std::process::Command::new(BIN).arg("mcp").output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("--root DIR") && err.contains("--unconfined"),
        "{err}"
    );
    let both = std::process::Command::new(BIN)
        .args(["mcp", "--root", ".", "--unconfined"])
        .output()
        .unwrap();
    assert_eq!(both.status.code(), Some(2));
    let mut child = std::process::Command::new(BIN)
        .args(["mcp", "--unconfined"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().unwrap();
        stdin
            .write_all(&lines(&[
                INIT,
                INITIALIZED,
                r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
            ]))
            .unwrap();
    }
    let o = child.wait_with_output().unwrap();
    assert!(o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("--unconfined"));
    let out = String::from_utf8(o.stdout).unwrap();
    let rs: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(rs[0]["result"]["instructions"]
        .as_str()
        .unwrap()
        .contains("UNCONFINED"));
    for t in rs[1]["result"]["tools"].as_array().unwrap() {
        let d = t["inputSchema"]["properties"]["path"]["description"]
            .as_str()
            .unwrap();
        assert!(d.contains("UNCONFINED"), "{d}");
    }
}

use std::path::Path;

/// A method or tool name from the wire, logged at debug level, reaches
/// stderr escaped: no raw control or bidirectional character, no line the
/// client wrote itself.
#[test]
fn debug_logs_quote_the_wire_escaped() {
    let forged = "x\u{1b}[31m\nERROR forged \u{202e}\u{2028}";
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": forged}).to_string();
    let tool = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
        "params": {"name": forged, "arguments": {}}})
    .to_string();
    let input = lines(&[INIT, INITIALIZED, &call, &tool, &ping(99)]);
    let o = run_with(&corpus(), &["--log-level", "trace"], input);
    assert!(o.status.success());
    assert!(o.stderr.contains("x\\x1b[31m"), "{}", o.stderr);
    for line in o.stderr.lines() {
        assert!(!line.starts_with("ERROR forged"), "{line}");
        assert!(
            !line
                .chars()
                .any(|c| c.is_control() || matches!(c, '\u{2028}'..='\u{202e}')),
            "{line:?}"
        );
    }
}

/// An operator argument (`--root`) with control characters is echoed
/// escaped in the usage error.
#[test]
fn a_bad_root_is_echoed_escaped() {
    let o = run_with(
        Path::new("/no/such/\u{1b}]0;title\u{7}\nerror: forged"),
        &[],
        Vec::new(),
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(
        o.stderr.contains("\\x1b]0;title\\x07\\x0aerror: forged"),
        "{}",
        o.stderr
    );
    assert!(!o.stderr.lines().any(|l| l.starts_with("error: forged")));
}
