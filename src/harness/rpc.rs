//! Harnesses for `toolgate::rpc`.
use serde_json::{Map, Value};

use crate::json::{parse_strict, JsonError, Limits, MAX_PAYLOAD_BYTES};
use crate::rpc::{
    self, detectable_error_id, parse_incoming, parse_message, protocol_error, Incoming, Message,
    Rejected, RpcError, ToolCall,
};

/// Fuzz target `parse_tool_call`: total; an accepted request matches the
/// strict `Value` of the same bytes and round-trips through the builder; a
/// refused one has a JSON-RPC code consistent with the strict layer, an id
/// that is in the input, and a well-formed error response.
pub fn parse_tool_call(data: &[u8]) {
    let limits = Limits::default();
    let res = rpc::parse_tool_call(data);
    let strict = parse_strict(data, &limits);
    if let Ok(v) = &strict {
        super::numbers::check_numbers(data, v);
    }
    match &res {
        Ok(req) => {
            let v = strict.as_ref().expect("accepted request is strict JSON");
            assert_eq!(v["jsonrpc"], "2.0");
            assert_eq!(v["method"], rpc::TOOLS_CALL);
            assert_eq!(v["id"], req.id.to_value());
            assert_eq!(v["params"]["name"], req.name.as_str());
            let args = v["params"]
                .get("arguments")
                .cloned()
                .unwrap_or_else(|| Value::Object(Map::new()));
            assert_eq!(args, Value::Object(req.arguments()));
            assert_eq!(
                v["params"].get("_meta").cloned(),
                req.meta.clone().map(Value::Object)
            );
            let _: Map<String, Value> = req.arguments_as().expect("arguments are an object");
            let mut call = ToolCall::new(req.name.clone())
                .id(req.id.clone())
                .arguments(req.arguments());
            if let Some(meta) = &req.meta {
                call = call.meta_map(meta.clone());
            }
            let again = call.to_json();
            if again.len() <= MAX_PAYLOAD_BYTES {
                assert_eq!(rpc::parse_tool_call(again.as_bytes()).as_ref(), Ok(req));
            }
            match parse_message(data, &limits) {
                Ok(Message::Request(r)) => {
                    assert_eq!(r.id, req.id);
                    assert_eq!(r.method, rpc::TOOLS_CALL);
                }
                other => panic!("parse_message disagrees: {other:?}"),
            }
        }
        Err(e) => check_error(data, e, strict.as_ref().err().cloned().map(RpcError::from)),
    }
    match parse_message(data, &limits) {
        Ok(m) => {
            assert!(strict.is_ok());
            assert_eq!(
                m.id().map(|i| i.to_value()),
                strict.as_ref().ok().and_then(|v| v.get("id").cloned())
            );
        }
        Err(e) => check_error(data, &e, strict.as_ref().err().cloned().map(RpcError::from)),
    }
    match parse_incoming(data, &limits) {
        Ok(Incoming::Batch(items)) => {
            assert!(!items.is_empty() && items.len() <= rpc::MAX_BATCH_LEN);
            let v = strict.as_ref().expect("a batch is strict JSON");
            let arr = v.as_array().expect("a batch is an array");
            assert_eq!(arr.len(), items.len());
            for (raw, val) in items.iter().zip(arr) {
                let parsed: Value = serde_json::from_str(raw.get()).unwrap();
                assert_eq!(&parsed, val);
                let _ = parse_message(raw.get().as_bytes(), &limits);
            }
        }
        Ok(Incoming::Single(_)) => assert!(strict.is_ok()),
        Err(e) => check_error(data, &e, strict.as_ref().err().cloned().map(RpcError::from)),
    }
}

fn check_error(data: &[u8], r: &Rejected, strict_err: Option<RpcError>) {
    let e = &r.error;
    let code = e.jsonrpc_code();
    assert!(
        matches!(code, -32700 | -32600 | -32601 | -32602),
        "code {code}"
    );
    let status = e.http_status();
    assert_eq!(
        status == 413,
        matches!(e, RpcError::Json(JsonError::TooLarge { .. }))
    );
    assert!(status == 400 || status == 413);
    match strict_err {
        Some(se) => assert_eq!(&se, e, "strict layer and rpc disagree"),
        None => assert_ne!(code, -32700, "valid JSON reported as a parse error: {e}"),
    }
    let _ = e.to_string();
    // The id the parser carries is the id rule's, which the public wrapper
    // states for callers holding only the error.
    let id = r.id.clone();
    assert_eq!(
        detectable_error_id(data, e),
        id,
        "wrapper and parser disagree"
    );
    if let Some(id) = &id {
        assert!(!matches!(e, RpcError::Json(JsonError::TooLarge { .. })));
        assert!(data.len() <= MAX_PAYLOAD_BYTES);
        // serde_json (recursion limit 128) as the independent reader when it
        // can read the text; the id is unique, so its last-wins is harmless.
        if let Ok(v) = serde_json::from_slice::<Value>(data) {
            assert_eq!(v.get("id"), Some(&id.to_value()), "id not from the input");
        }
    } else if let Ok(Value::Object(o)) = serde_json::from_slice::<Value>(data) {
        // serde_json read it as an object: the id is null only when the
        // top-level id is absent, invalid, or (serde_json keeps the last of
        // two) duplicated.
        let valid = |v: &Value| v.is_string() || v.is_i64() || v.is_u64();
        if let Some(v) = o.get("id").filter(|v| valid(v)) {
            assert!(
                top_level_key_count(data, "id") != 1,
                "a unique valid id {v} was not echoed for {e}"
            );
        }
    }
    let resp = r.to_response();
    assert_eq!(resp, protocol_error(e, id.as_ref()));
    assert_eq!(resp["jsonrpc"], "2.0");
    assert_eq!(resp["error"]["code"], code);
    assert!(resp["error"]["message"].is_string());
    assert_eq!(resp["id"], id.map_or(Value::Null, |i| i.to_value()));
}

/// How many members named `key` the top-level object of `data` has (keys
/// compared after unescaping), read by serde_json's own map visitor.
fn top_level_key_count(data: &[u8], key: &str) -> usize {
    use serde::de::{Deserializer, IgnoredAny, MapAccess, Visitor};
    struct Count<'k>(&'k str);
    impl<'de> Visitor<'de> for Count<'_> {
        type Value = usize;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("an object")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<usize, A::Error> {
            let mut n = 0;
            while let Some(k) = a.next_key::<String>()? {
                if k == self.0 {
                    n += 1;
                }
                a.next_value::<IgnoredAny>()?;
            }
            Ok(n)
        }
    }
    let mut de = serde_json::Deserializer::from_slice(data);
    de.deserialize_map(Count(key)).unwrap_or(0)
}
