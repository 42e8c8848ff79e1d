//! Replays the byte-exact client sessions recorded from real MCP clients
//! (tests/data/mcp_recorded/, see its README) through `toolgate mcp`.
#![cfg(feature = "cli")]
mod mcp_support;

use mcp_support::*;
use serde_json::Value;

fn replay(name: &str) -> (Vec<Value>, Vec<Value>) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/mcp_recorded")
        .join(name);
    let input = std::fs::read(&path).unwrap();
    let sent: Vec<Value> = input
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).unwrap())
        .collect();
    (sent, run(input))
}

/// One response per request, same ids in order; the tools/call answers are
/// results (the recorded `report.pdf` and `a b/ü.pdf` do not exist here).
fn check_handshake_session(name: &str) {
    let (sent, rs) = replay(name);
    let requests: Vec<&Value> = sent.iter().filter(|m| m.get("id").is_some()).collect();
    assert_eq!(rs.len(), requests.len(), "{name}");
    for (q, r) in requests.iter().zip(&rs) {
        assert_eq!(q["id"], r["id"], "{name}");
        assert!(r.get("result").is_some(), "{name}: {r}");
        if q["method"] == "tools/call" {
            let path = q["params"]["arguments"]["path"].as_str().unwrap();
            let want = if path.starts_with("http") {
                "ssrf.cloud_metadata"
            } else {
                "not_found"
            };
            assert_eq!(tool_error_kind(r), want, "{name}");
        }
    }
    assert_eq!(rs[0]["result"]["protocolVersion"], "2025-11-25");
}

#[test]
fn python_sdk_legacy() {
    check_handshake_session("python-sdk-2.3.0-legacy.jsonl");
    check_handshake_session("python-sdk-2.3.0-legacy-progress.jsonl");
}

#[test]
fn ts_sdk_and_inspector() {
    check_handshake_session("ts-sdk-1.32.2.jsonl");
    check_handshake_session("ts-sdk-1.32.2-progress.jsonl");
    check_handshake_session("inspector-cli-1.0.3.jsonl");
}

/// The auto-mode recording was made against a stub that refused
/// `server/discover`, so the client fell back to `initialize`. This server
/// answers the probe, and the probe does not fix the era (MCP 2026-07-28,
/// stdio backward compatibility): the recorded fallback to the handshake
/// is served as a handshake session.
#[test]
fn python_sdk_auto_probe_then_handshake() {
    let (_, rs) = replay("python-sdk-2.3.0-auto.jsonl");
    assert_eq!(rs.len(), 6);
    assert_eq!(rs[0]["result"]["supportedVersions"][0], "2026-07-28");
    assert_eq!(
        rs[1]["result"]["protocolVersion"], "2025-11-25",
        "initialize after the probe: {}",
        rs[1]
    );
    for r in &rs[2..] {
        assert!(r["result"].is_object(), "served after the fallback: {r}");
    }
}
