//! Properties of `toolgate::rpc` (proptest; regressions persisted under
//! `proptest-regressions/rpc_props.txt`).
#![cfg(feature = "harness")]
use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;
use serde_json::{json, Map, Value};
use toolgate::harness;
use toolgate::rpc::{parse_tool_call, Id, ToolCall};

fn config() -> ProptestConfig {
    ProptestConfig {
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(
            "proptest-regressions/rpc_props.txt",
        ))),
        ..ProptestConfig::default()
    }
}

fn value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        // Floats serde_json reads back exactly (without its `float_roundtrip`
        // feature some are one ulp off, which is serde_json's business).
        any::<f64>()
            .prop_filter("finite, round-trips", |f| f.is_finite()
                && serde_json::from_str::<f64>(&serde_json::to_string(f).unwrap())
                    .ok()
                    == Some(*f))
            .prop_map(Value::from),
        ".{0,10}".prop_map(Value::String),
    ];
    leaf.prop_recursive(5, 32, 5, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::btree_map(".{0,6}", inner, 0..5)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

fn id() -> impl Strategy<Value = Id> {
    prop_oneof![
        any::<i64>().prop_map(Id::from),
        any::<u64>().prop_map(Id::from),
        ".{0,12}".prop_map(Id::from),
    ]
}

/// Envelope-shaped objects with every member possibly missing or of a wrong type.
fn envelope() -> impl Strategy<Value = Value> {
    let member = |good: Value| {
        prop_oneof![
            3 => Just(Some(good)),
            1 => Just(None),
            1 => value().prop_map(Some),
        ]
    };
    (
        member(json!("2.0")),
        member(json!(1)),
        member(json!("tools/call")),
        member(json!({"name": "extract", "arguments": {"path": "a"}})),
        member(json!("extract")),
        member(json!({"path": "a"})),
    )
        .prop_map(|(jsonrpc, id, method, params, name, args)| {
            let mut m = Map::new();
            if let Some(v) = jsonrpc {
                m.insert("jsonrpc".into(), v);
            }
            if let Some(v) = id {
                m.insert("id".into(), v);
            }
            if let Some(v) = method {
                m.insert("method".into(), v);
            }
            if let Some(mut p) = params {
                if let Value::Object(po) = &mut p {
                    if let Some(n) = name {
                        po.insert("name".into(), n);
                    }
                    if let Some(a) = args {
                        po.insert("arguments".into(), a);
                    }
                }
                m.insert("params".into(), p);
            }
            Value::Object(m)
        })
}

proptest! {
    #![proptest_config(config())]

    /// Totality on arbitrary bytes, with every harness invariant (code
    /// consistency, `detectable_error_id` only returns ids in the input).
    #[test]
    fn total_on_arbitrary_bytes(data in prop::collection::vec(any::<u8>(), 0..256)) {
        harness::rpc::parse_tool_call(&data);
    }

    /// Envelope variants: right codes, and ids echoed only from the input.
    #[test]
    fn envelopes_get_consistent_errors(v in envelope()) {
        harness::rpc::parse_tool_call(v.to_string().as_bytes());
    }

    /// Builder -> bytes -> parse_tool_call -> the same request.
    #[test]
    fn builder_round_trips(
        id in id(),
        name in ".{0,16}",
        args in prop::collection::btree_map(".{0,8}", value(), 0..6),
        progress in proptest::option::of(any::<i64>()),
    ) {
        let mut call = ToolCall::new(name.clone()).id(id.clone()).arguments(args.clone().into_iter().collect());
        if let Some(p) = progress { call = call.meta("progressToken", p); }
        let bytes = call.to_json();
        let req = parse_tool_call(bytes.as_bytes()).unwrap();
        prop_assert_eq!(&req, &call.to_request());
        prop_assert_eq!(&req.id, &id);
        prop_assert_eq!(&req.name, &name);
        prop_assert_eq!(req.arguments(), args.into_iter().collect::<Map<_, _>>());
        harness::rpc::parse_tool_call(bytes.as_bytes());
    }
}

/// Lines around `tools/call`: the envelope variants, some with a deep fault
/// or a duplicate key spliced into `params`, some whose `params` or method is
/// of another kind.
fn tool_call_line() -> impl Strategy<Value = String> {
    (
        envelope(),
        prop_oneof![
            Just(None),
            Just(Some("tools/list")),
            Just(Some("notifications/x"))
        ],
        0..4u8,
    )
        .prop_map(|(mut v, method, fault)| {
            if let (Some(m), Value::Object(o)) = (method, &mut v) {
                o.insert("method".into(), json!(m));
            }
            let text = v.to_string();
            match fault {
                // A duplicate key inside params (when params is an object).
                1 => text.replacen(r#""params":{"#, r#""params":{"d":1,"d":2,"#, 1),
                // Nesting over the limit inside params.
                2 => text.replacen(
                    r#""params":{"#,
                    &format!(
                        r#""params":{{"deep":{}0{},"#,
                        "[".repeat(80),
                        "]".repeat(80)
                    ),
                    1,
                ),
                // A second id after params.
                3 => text.replacen(r#""params":{"#, r#""id":5,"params":{"#, 1),
                _ => text,
            }
        })
}

proptest! {
    #![proptest_config(config())]

    /// The single-parse path (the call kept from the message's one scan)
    /// gives exactly the answers of the old two-parse path.
    #[test]
    fn one_parse_answers_like_two_parses(line in tool_call_line()) {
        let limits = toolgate::json::Limits::default();
        let one = toolgate::rpc::legacy::one_parse_tool_call(line.as_bytes(), &limits);
        let two = toolgate::rpc::legacy::two_parse_tool_call(line.as_bytes(), &limits);
        prop_assert_eq!(one, two, "{}", line);
        harness::rpc::parse_tool_call(line.as_bytes());
    }
}
