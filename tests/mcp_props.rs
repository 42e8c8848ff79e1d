//! Properties of `toolgate::mcp` sessions (proptest; regressions persisted
//! under `proptest-regressions/mcp_props.txt`). Every generated session ends
//! in the `mcp_session` harness, whose invariants are the properties: one
//! answer per request line, none per notification, valid JSON-RPC 2.0
//! responses echoing the request id, `serve` equal to per-line handling.
#![cfg(all(feature = "harness", feature = "mcp"))]
use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;
use serde_json::{json, Value};
use toolgate::harness::mcp::mcp_session;

fn config() -> ProptestConfig {
    ProptestConfig {
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(
            "proptest-regressions/mcp_props.txt",
        ))),
        ..ProptestConfig::default()
    }
}

fn id() -> impl Strategy<Value = Value> {
    prop_oneof![
        (0u64..1000).prop_map(Value::from),
        "[a-z0-9]{0,6}".prop_map(Value::from),
        Just(Value::Null),
        Just(json!(1.5)),
        Just(json!(true)),
    ]
}

fn method() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("initialize"),
        Just("ping"),
        Just("tools/list"),
        Just("tools/call"),
        Just("server/discover"),
        Just("notifications/initialized"),
        Just("notifications/cancelled"),
        Just("resources/list"),
    ]
    .prop_map(str::to_owned)
}

fn params() -> impl Strategy<Value = Option<Value>> {
    let version = prop_oneof![
        Just("2024-11-05"),
        Just("2025-03-26"),
        Just("2025-06-18"),
        Just("2025-11-25"),
        Just("2026-07-28"),
        Just("1999-01-01"),
    ];
    let path = prop_oneof![
        Just("pypdf-minimal-document.pdf"),
        Just("../etc/passwd"),
        Just("missing.pdf"),
        Just("http://127.0.0.1/x.pdf"),
        Just("https://example.com/a.pdf"),
    ];
    let pages = prop_oneof![
        Just(None),
        Just(Some("1")),
        Just(Some("1-3")),
        Just(Some("0"))
    ];
    prop_oneof![
        Just(None),
        Just(Some(json!([1]))),
        version
            .clone()
            .prop_map(|v| Some(json!({"protocolVersion": v, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}))),
        (version, any::<bool>()).prop_map(|(v, caps)| {
            let mut meta = json!({"io.modelcontextprotocol/protocolVersion": v});
            if caps {
                meta["io.modelcontextprotocol/clientCapabilities"] = json!({});
            }
            Some(json!({"_meta": meta}))
        }),
        (
            prop_oneof![Just("extract"), Just("get_metadata"), Just("nope")],
            path,
            pages
        )
            .prop_map(|(tool, path, pages)| {
                let mut args = json!({"path": path});
                if let Some(p) = pages {
                    args["pages"] = json!(p);
                }
                Some(json!({"name": tool, "arguments": args}))
            }),
        "[a-z:0-9]{0,8}".prop_map(|c| Some(json!({"cursor": c}))),
    ]
}

fn message() -> impl Strategy<Value = Value> {
    (proptest::option::of(id()), method(), params()).prop_map(|(id, method, params)| {
        let mut m = json!({"jsonrpc": "2.0", "method": method});
        if let Some(id) = id {
            m["id"] = id;
        }
        if let Some(p) = params {
            m["params"] = p;
        }
        m
    })
}

fn line() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        6 => message().prop_map(|m| m.to_string().into_bytes()),
        1 => prop::collection::vec(message(), 0..4).prop_map(|b| Value::Array(b).to_string().into_bytes()),
        1 => prop::collection::vec(any::<u8>(), 0..40),
        1 => message().prop_map(|m| format!("{m}\r").into_bytes()),
    ]
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn generated_sessions_keep_the_invariants(ls in prop::collection::vec(line(), 0..12)) {
        let mut data = Vec::new();
        for l in ls {
            data.extend(l.into_iter().filter(|&b| b != b'\n'));
            data.push(b'\n');
        }
        mcp_session(&data);
    }

    #[test]
    fn arbitrary_bytes_keep_the_invariants(data in prop::collection::vec(any::<u8>(), 0..400)) {
        mcp_session(&data);
    }
}
