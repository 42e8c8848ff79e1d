//! `toolgate parse` and `toolgate json-check` as the README's CLI section specifies them
//! (runs where the binary is built, i.e. with feature `cli`).
use std::io::Write;
use std::process::{Command, Stdio};

fn run(args: &[&str], stdin: &[u8]) -> Option<(i32, String, String)> {
    // Cargo may name the binary even where its required feature is off (and it was never
    // built): the feature, not the variable, says whether it exists.
    if !cfg!(feature = "cli") {
        return None;
    }
    let bin = option_env!("CARGO_BIN_EXE_toolgate")?;
    let mut child = Command::new(bin)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    let _ = input.write_all(stdin);
    drop(input);
    let out = child.wait_with_output().unwrap();
    Some((
        out.status.code().unwrap(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    ))
}

#[test]
fn parse_prints_the_request() {
    let Some((code, out, _)) = run(
        &["parse"],
        br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"extract","arguments":{"path":"a.pdf"}}}"#,
    ) else {
        return;
    };
    assert_eq!(code, 0);
    assert_eq!(
        out,
        "{\"id\":7,\"name\":\"extract\",\"arguments\":{\"path\":\"a.pdf\"}}\n"
    );
}

#[test]
fn parse_prints_the_error_response() {
    let Some((code, out, _)) = run(
        &["parse"],
        br#"{"jsonrpc":"2.0","id":"q","method":"tools/call","params":{"name":"e","arguments":{"a":1,"\u0061":2}}}"#,
    ) else {
        return;
    };
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["jsonrpc"], "2.0");
    assert_eq!(v["error"]["code"], -32700);
    assert_eq!(v["error"]["data"]["pointer"], "/params/arguments/a");
    // A duplicate key deep inside: the unique top-level id is still echoed.
    assert_eq!(v["id"], "q");
    let (code, out, _) = run(&["parse"], br#"{"jsonrpc":"2.0","id":"q","method":"x"}"#).unwrap();
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["error"]["code"], -32601);
    assert_eq!(v["id"], "q");
}

#[test]
fn parse_bounds_its_input() {
    let big = vec![b' '; toolgate::json::MAX_PAYLOAD_BYTES + 10];
    let Some((code, out, _)) = run(&["parse"], &big) else {
        return;
    };
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["error"]["data"]["kind"], "too_large");
    assert!(v["error"]["message"]
        .as_str()
        .unwrap()
        .contains(&format!("{} bytes", toolgate::json::MAX_PAYLOAD_BYTES + 10)));
}

#[test]
fn json_check_exit_codes() {
    let Some((code, _, err)) = run(&["json-check"], br#"{"a":[1,2]}"#) else {
        return;
    };
    assert_eq!(code, 0);
    assert!(err.is_empty());
    let (code, _, err) = run(&["json-check"], br#"{"a":1,"a":2}"#).unwrap();
    assert_eq!(code, 1);
    assert!(err.contains("duplicate_key"), "{err}");
    let (code, _, _) = run(&["json-check", "a", "b"], b"").unwrap();
    assert_eq!(code, 2);
    let (code, _, _) = run(&["parse", "--bogus"], b"").unwrap();
    assert_eq!(code, 2);
    // An unreadable file is a bad input (1, `io:`), not a usage error (2).
    for cmd in ["json-check", "parse"] {
        let (code, out, err) = run(&[cmd, "/nonexistent/toolgate-test.json"], b"").unwrap();
        assert_eq!(code, 1, "{cmd}: {err}");
        assert!(out.is_empty(), "{cmd}: {out}");
        assert!(err.contains("io:"), "{cmd}: {err}");
    }
}

/// Nothing a terminal acts on reaches it raw from `parse`, `json-check` or
/// `classify`: JSON keeps its value with DEL, C1 and bidirectional
/// characters escaped; messages escape every control; a refused argument
/// is quoted escaped (clap's usage error).
#[test]
fn output_is_inert_on_a_terminal() {
    let acts = |s: &str| {
        s.chars().any(|c| {
            (c.is_control() && c != '\n')
                || matches!(c, '\u{61c}' | '\u{200e}' | '\u{200f}' | '\u{2028}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
        })
    };
    let name = "ext\u{202e}fdp.exe\u{2028}\u{9b}2J";
    let req = serde_json::json!({"jsonrpc": "2.0", "id": name, "method": "tools/call",
        "params": {"name": name, "arguments": {"k": name}}})
    .to_string();
    let Some((code, out, _)) = run(&["parse"], req.as_bytes()) else {
        return;
    };
    assert_eq!(code, 0);
    assert!(!acts(&out), "{out:?}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["name"], name);
    // A refusal echoes the id.
    let bad = serde_json::json!({"jsonrpc": "2.0", "id": name, "method": "tools/call"}).to_string();
    let (code, out, _) = run(&["parse"], bad.as_bytes()).unwrap();
    assert_eq!(code, 1);
    assert!(!acts(&out), "{out:?}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["id"], name);
    let (code, out, _) = run(
        &["classify", "http://a\u{202e}b/", "\u{2028}\u{1b}[2J"],
        b"",
    )
    .unwrap();
    assert_eq!(code, 0);
    assert!(!acts(&out), "{out:?}");
    let (code, _, err) = run(
        &["json-check"],
        "{\"a\u{202e}\u{2028}\":1,\"a\u{202e}\u{2028}\":2}".as_bytes(),
    )
    .unwrap();
    assert_eq!(code, 1);
    assert!(!acts(&err), "{err:?}");
    let (code, _, err) = run(&["parse", "/no/such\u{1b}[2J\nerror: forged"], b"").unwrap();
    assert_eq!(code, 1);
    assert!(
        !acts(&err) && !err.lines().any(|l| l.starts_with("error: forged")),
        "{err:?}"
    );
    let (code, _, err) = run(
        &["classify", "--bogus\u{1b}[2J\nerror: forged\u{202e}"],
        b"",
    )
    .unwrap();
    assert_eq!(code, 2);
    assert!(err.contains("\\x1b[2J\\x0aerror: forged\\u{202e}"), "{err}");
    assert!(
        !acts(&err) && !err.lines().any(|l| l.starts_with("error: forged")),
        "{err:?}"
    );
}

/// `--help` and `--version` are clap's own text, on stdout, exit 0.
#[test]
fn help_and_version_go_to_stdout() {
    for (args, want) in [
        (&["--help"][..], "Usage: toolgate"),
        (&["--version"], "toolgate "),
    ] {
        let Some((code, out, err)) = run(args, b"") else {
            return;
        };
        assert_eq!(code, 0, "{args:?}");
        assert!(out.contains(want), "{args:?}: {out}");
        assert!(err.is_empty(), "{args:?}: {err}");
    }
}

/// An endless input (`/dev/zero`) ends: the bytes past the payload bound
/// are counted up to a bound, then the input is refused as too large with a
/// note that counting stopped (both commands hung; found by a newcomer).
#[test]
fn an_endless_input_ends() {
    for cmd in ["json-check", "parse"] {
        let Some((code, _, err)) = run(&[cmd, "/dev/zero"], b"") else {
            return;
        };
        assert_eq!(code, 1, "{cmd}: {err}");
        assert!(err.contains("counting stopped"), "{cmd}: {err}");
        assert!(err.contains("1073741824"), "{cmd}: {err}");
    }
    // Below the counting bound the length is exact.
    let big = vec![b' '; (4 << 20) + 10];
    let (code, _, err) = run(&["json-check"], &big).unwrap();
    assert_eq!(code, 1);
    assert!(
        err.contains(&format!("payload of {} bytes", big.len())),
        "{err}"
    );
    assert!(!err.contains("counting stopped"), "{err}");
}

/// `extract` and `metadata` refuse a FIFO at once (the open blocked
/// forever), as the MCP server does.
#[test]
fn extract_refuses_a_fifo() {
    let t = tempfile::tempdir().unwrap();
    let fifo = t.path().join("f.pdf");
    let made = Command::new("mkfifo").arg(&fifo).status();
    if !made.is_ok_and(|s| s.success()) {
        return;
    }
    for cmd in ["extract", "metadata"] {
        let Some((code, _, err)) = run(&[cmd, fifo.to_str().unwrap()], b"") else {
            return;
        };
        assert_eq!(code, 1, "{cmd}: {err}");
        assert!(err.contains("not a regular file"), "{cmd}: {err}");
    }
}
