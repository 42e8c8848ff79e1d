//! `toolgate mcp` with remote fetch (`Config::remote`, `--allow-remote`):
//! the PDF tools fetch `http(s)` URLs through the SSRF-safe fetcher.
//!
//! Loopback only: the server's fetcher dials through `fetch_support::Guard`
//! (records every dial, refuses anything not loopback without opening a
//! socket) and resolves names with a scripted resolver, so no packet leaves
//! the machine even when the code is wrong. 127.0.0.1 with an allow entry
//! stands for an operator's intranet origin; 127.0.0.2 for an internal
//! service nobody allowed.
#![cfg(feature = "cli")]

mod fetch_support;

use fetch_support::*;
use serde_json::{json, Value};
use std::io::BufReader;
use std::sync::Arc;
use std::time::Duration;
use toolgate::engine::transport::stdio;
use toolgate::mcp::{Config, DefaultPdf, Server};
use toolgate::net::fetch::Fetcher;

const PDF: &[u8] = include_bytes!("../corpus/pdf/pypdf-minimal-document.pdf");
const INIT: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

/// Runs one stdio session of the PDF server with `fetcher` (and `tweak` on
/// its config) over `calls`; returns every line it wrote after the
/// `initialize` result.
fn session(
    fetcher: Option<Fetcher>,
    tweak: impl FnOnce(&mut Config),
    calls: &[Value],
) -> Vec<Value> {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("local.pdf"), PDF).unwrap();
    let mut config = Config {
        root: Some(dir.path().to_path_buf()),
        remote: fetcher.map(Arc::new),
        ..Config::default()
    };
    tweak(&mut config);
    let backend = DefaultPdf::for_config(env!("CARGO_BIN_EXE_toolgate"), &config);
    let server = Server::new(config.clone(), backend).unwrap();
    let mut input = format!("{INIT}\n{INITIALIZED}\n");
    for c in calls {
        input.push_str(&c.to_string());
        input.push('\n');
    }
    let (_, out) = stdio::serve(
        server,
        config.engine(),
        BufReader::new(std::io::Cursor::new(input.into_bytes())),
        Vec::new(),
    )
    .unwrap();
    let mut lines: Vec<Value> = String::from_utf8(out)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.remove(0)["id"], 0);
    lines
}

fn extract(id: u64, path: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"name": "extract", "arguments": {"path": path}}})
}

fn with_progress(mut call: Value, token: u64) -> Value {
    call["params"]["_meta"] = json!({"progressToken": token});
    call
}

fn answer_to(lines: &[Value], id: u64) -> &Value {
    lines
        .iter()
        .find(|l| l["id"] == id)
        .unwrap_or_else(|| panic!("no response {id} in {lines:?}"))
}

/// The error kind of a tool result (`isError: true`), or `None`.
fn error_kind(r: &Value) -> Option<String> {
    if r["result"]["isError"] != true {
        return None;
    }
    let text = r["result"]["content"][0]["text"].as_str()?;
    let v: Value = serde_json::from_str(text).ok()?;
    v["error"]["kind"].as_str().map(str::to_owned)
}

fn pdf_origin() -> Origin {
    Origin::http("127.0.0.1", |_| {
        response(200, &[("Content-Type", "application/pdf")], PDF)
    })
}

#[test]
fn an_allowed_loopback_origin_serves_a_pdf_to_the_tools() {
    let origin = pdf_origin();
    let r = rig(&[format!("127.0.0.1:{}", origin.port())], |_| {});
    let url = format!("{}/doc.pdf", origin.base("http"));
    let metadata = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "get_metadata", "arguments": {"path": url}}});
    let lines = session(
        Some(r.fetcher),
        |_| {},
        &[extract(1, &url), metadata, extract(3, "local.pdf")],
    );
    let x = answer_to(&lines, 1);
    assert_eq!(x["result"]["isError"], false, "{x}");
    let local = answer_to(&lines, 3);
    assert_eq!(
        x["result"]["structuredContent"], local["result"]["structuredContent"],
        "the fetched file extracts as the same file from disk"
    );
    assert!(x["result"]["structuredContent"]["pages"][0]["text"]
        .as_str()
        .unwrap()
        .contains("Lorem ipsum"));
    assert_eq!(
        answer_to(&lines, 2)["result"]["structuredContent"]["pageCount"],
        1
    );
    assert_eq!(origin.connections(), 2);
    assert!(r.guard.dials().iter().all(|a| a.ip().is_loopback()));
}

#[test]
fn remote_off_refuses_every_url_and_dials_nothing() {
    let origin = pdf_origin();
    let url = format!("{}/doc.pdf", origin.base("http"));
    let lines = session(
        None,
        |_| {},
        &[
            extract(1, &url),
            extract(2, "https://example.com/a.pdf"),
            extract(3, "http://169.254.169.254/latest/meta-data/"),
        ],
    );
    assert_eq!(
        error_kind(answer_to(&lines, 1)).as_deref(),
        Some("ssrf.loopback")
    );
    assert_eq!(
        error_kind(answer_to(&lines, 2)).as_deref(),
        Some("remote_disabled")
    );
    assert_eq!(
        error_kind(answer_to(&lines, 3)).as_deref(),
        Some("ssrf.cloud_metadata")
    );
    assert_eq!(origin.connections(), 0);
}

#[test]
fn refusals_are_tool_errors_with_their_code_and_open_no_connection() {
    let origin = pdf_origin();
    // Only this origin's port is allowed: 127.0.0.2, another port, the
    // metadata address, a name resolving to loopback, https-only.
    let internal = Origin::counter("127.0.0.2");
    let r = rig(&[format!("127.0.0.1:{}", origin.port())], |_| {});
    r.dns.set("intranet.example.com", &[&["127.0.0.2"]]);
    r.dns
        .set("rebind.example.com", &[&["93.184.216.34", "127.0.0.2"]]);
    let calls = [
        extract(1, &format!("{}/x.pdf", internal.base("http"))),
        extract(2, "http://169.254.169.254/latest/meta-data/"),
        extract(3, "http://[::ffff:169.254.169.254]/"),
        extract(
            4,
            &format!("http://intranet.example.com:{}/x.pdf", internal.port()),
        ),
        extract(
            5,
            &format!("http://rebind.example.com:{}/x.pdf", internal.port()),
        ),
        extract(6, "http://0x7f.1/x.pdf"),
        extract(7, "ftp://127.0.0.1/x.pdf"),
    ];
    let lines = session(Some(r.fetcher), |_| {}, &calls);
    let kinds: Vec<_> = (1..=7).map(|i| error_kind(answer_to(&lines, i))).collect();
    assert_eq!(kinds[0].as_deref(), Some("ssrf.loopback"), "{lines:?}");
    assert_eq!(kinds[1].as_deref(), Some("ssrf.cloud_metadata"));
    assert!(
        kinds[2].as_deref().is_some_and(|k| k.starts_with("ssrf.")),
        "{kinds:?}"
    );
    assert_eq!(kinds[3].as_deref(), Some("ssrf.loopback"));
    assert_eq!(
        kinds[4].as_deref(),
        Some("ssrf.loopback"),
        "a mixed answer is a rebinding attempt"
    );
    assert_eq!(kinds[5].as_deref(), Some("url.ambiguous"));
    assert!(kinds[6].is_some(), "{:?}", answer_to(&lines, 7));
    assert_eq!(internal.connections(), 0);
    assert_eq!(origin.connections(), 0);
    assert!(r.guard.dials().is_empty(), "{:?}", r.guard.dials());
}

#[test]
fn the_unspecified_address_is_never_dialled_even_under_a_catch_all_allow() {
    // A dial to 0.0.0.0 or :: reaches this host: with the catch-all entries
    // an attacker would otherwise reach the loopback origin (and learn its
    // port) through them.
    let origin = pdf_origin();
    let r = rig(&["0.0.0.0/0".to_string(), "::/0".to_string()], |_| {});
    r.dns.set("zero.example.com", &[&["0.0.0.0"]]);
    let port = origin.port();
    let calls = [
        extract(1, &format!("http://0.0.0.0:{port}/x.pdf")),
        extract(2, &format!("http://[::]:{port}/x.pdf")),
        extract(3, &format!("http://[::ffff:0.0.0.0]:{port}/x.pdf")),
        extract(4, &format!("http://zero.example.com:{port}/x.pdf")),
        extract(5, &format!("http://0.1.2.3:{port}/x.pdf")),
    ];
    let lines = session(Some(r.fetcher), |_| {}, &calls);
    // 127.0.0.1 written as IPv4-mapped IPv6: `::/0` does not lift it.
    let mapped = [
        extract(6, &format!("http://[::ffff:127.0.0.1]:{port}/x.pdf")),
        extract(7, &format!("http://[::ffff:7f00:1]:{port}/x.pdf")),
    ];
    let r6 = rig(&["::/0".to_string()], |_| {});
    let more = session(Some(r6.fetcher), |_| {}, &mapped);
    for i in 6..=7 {
        let k = error_kind(answer_to(&more, i));
        assert_eq!(k.as_deref(), Some("ssrf.loopback"), "{i}: {more:?}");
    }
    assert!(r6.guard.dials().is_empty(), "{:?}", r6.guard.dials());
    for i in 1..=5 {
        let k = error_kind(answer_to(&lines, i));
        assert!(
            matches!(k.as_deref(), Some("ssrf.unspecified" | "ssrf.this_network")),
            "{i}: {k:?} {lines:?}"
        );
    }
    assert_eq!(origin.connections(), 0);
    assert!(r.guard.dials().is_empty(), "{:?}", r.guard.dials());
}

#[test]
fn a_redirect_to_an_internal_address_is_refused_before_it_is_dialled() {
    let internal = Origin::counter("127.0.0.2");
    let target = format!("{}/secret", internal.base("http"));
    let origin = Origin::http("127.0.0.1", move |_| redirect(302, &target));
    let r = rig(&[format!("127.0.0.1:{}", origin.port())], |_| {});
    let lines = session(
        Some(r.fetcher),
        |_| {},
        &[extract(1, &format!("{}/a.pdf", origin.base("http")))],
    );
    assert_eq!(
        error_kind(answer_to(&lines, 1)).as_deref(),
        Some("ssrf.loopback")
    );
    assert_eq!(origin.connections(), 1);
    assert_eq!(internal.connections(), 0);
}

/// A redirect to the cloud metadata address (IPv4 and the AWS IPv6 one)
/// is refused before it is dialled, even when every address is allowed:
/// the metadata rule is not one an allow entry lifts.
#[test]
fn a_redirect_to_the_metadata_address_is_refused_whatever_the_allow_list() {
    for target in [
        "http://169.254.169.254/latest/meta-data/",
        "http://[fd00:ec2::254]/latest/meta-data/",
    ] {
        let origin = Origin::http("127.0.0.1", move |_| redirect(302, target));
        let r = rig(&["0.0.0.0/0".to_owned(), "::/0".to_owned()], |_| {});
        let lines = session(
            Some(r.fetcher),
            |_| {},
            &[extract(1, &format!("{}/a.pdf", origin.base("http")))],
        );
        assert_eq!(
            error_kind(answer_to(&lines, 1)).as_deref(),
            Some("ssrf.cloud_metadata"),
            "{target}"
        );
        assert_eq!(origin.connections(), 1);
        assert!(
            r.guard.dials().iter().all(|a| a.ip().is_loopback()),
            "{target}"
        );
    }
}

/// The PDF tools ignore the environment's proxies: with `HTTP_PROXY`,
/// `HTTPS_PROXY` and `ALL_PROXY` naming a listening proxy, the file still
/// comes straight from the allowed origin and the proxy sees nothing. (The
/// binary, run as a user runs it, in its own process: the environment is
/// its own.)
#[test]
fn environment_proxies_are_ignored() {
    use std::io::{BufRead, Write};
    let origin = pdf_origin();
    let proxy = Origin::counter("127.0.0.1");
    let dir = tempfile::tempdir().unwrap();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_toolgate"))
        .args(["mcp", "--root"])
        .arg(dir.path())
        .args(["--allow-remote", "--allow-http", "--allow"])
        .arg(format!("127.0.0.1:{}", origin.port()))
        .env("HTTP_PROXY", proxy.base("http"))
        .env("http_proxy", proxy.base("http"))
        .env("HTTPS_PROXY", proxy.base("http"))
        .env("ALL_PROXY", proxy.base("http"))
        .env_remove("NO_PROXY")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let call = extract(1, &format!("{}/doc.pdf", origin.base("http")));
    writeln!(stdin, "{INIT}\n{INITIALIZED}\n{call}").unwrap();
    drop(stdin);
    let out = BufReader::new(child.stdout.take().unwrap());
    let lines: Vec<Value> = out
        .lines()
        .map(|l| serde_json::from_str(&l.unwrap()).unwrap())
        .collect();
    child.wait().unwrap();
    let x = answer_to(&lines, 1);
    assert_eq!(x["result"]["isError"], false, "{x}");
    assert_eq!(origin.connections(), 1);
    assert_eq!(proxy.connections(), 0);
}

#[test]
fn the_file_bound_is_the_body_cap() {
    // A 2 MiB body against a 1 MiB file bound: refused while streaming,
    // whether or not the origin declares its length.
    let big = vec![b'x'; 2 << 20];
    let declared = {
        let big = big.clone();
        Origin::http("127.0.0.1", move |_| response(200, &[], &big))
    };
    let chunked = Origin::http("127.0.0.1", |_| Reply::Stream {
        head: b"HTTP/1.1 200 OK\r\nConnection: close\r\nTransfer-Encoding: chunked\r\n\r\n"
            .to_vec(),
        chunk: [b"10000\r\n".as_slice(), &[b'y'; 0x10000], b"\r\n"].concat(),
        times: 32,
    });
    let r = rig(
        &[
            format!("127.0.0.1:{}", declared.port()),
            format!("127.0.0.1:{}", chunked.port()),
        ],
        |_| {},
    );
    let lines = session(
        Some(r.fetcher),
        |c| c.max_pdf_bytes = 1 << 20,
        &[
            extract(1, &format!("{}/big.pdf", declared.base("http"))),
            extract(2, &format!("{}/big.pdf", chunked.base("http"))),
        ],
    );
    assert_eq!(
        error_kind(answer_to(&lines, 1)).as_deref(),
        Some("fetch.too_large")
    );
    assert_eq!(
        error_kind(answer_to(&lines, 2)).as_deref(),
        Some("fetch.too_large")
    );
    drop(big);
}

#[test]
fn the_download_reports_bytes_then_pages_and_progress_only_grows() {
    let origin = pdf_origin();
    let r = rig(&[format!("127.0.0.1:{}", origin.port())], |_| {});
    let url = format!("{}/doc.pdf", origin.base("http"));
    let lines = session(
        Some(r.fetcher),
        |_| {},
        &[with_progress(extract(1, &url), 9)],
    );
    let answer_at = lines.iter().position(|l| l["id"] == 1).unwrap();
    let progress: Vec<&Value> = lines
        .iter()
        .filter(|l| l["method"] == "notifications/progress")
        .collect();
    assert!(!progress.is_empty(), "{lines:?}");
    assert!(lines[answer_at + 1..]
        .iter()
        .all(|l| l["method"] != "notifications/progress"));
    let values: Vec<u64> = progress
        .iter()
        .map(|p| p["params"]["progress"].as_u64().unwrap())
        .collect();
    assert!(values.windows(2).all(|w| w[0] < w[1]), "{values:?}");
    assert!(
        values.iter().any(|&v| v == PDF.len() as u64)
            || values.iter().any(|&v| v > PDF.len() as u64),
        "{values:?}"
    );
    assert!(progress.iter().all(|p| p["params"]["progressToken"] == 9));
}

#[test]
fn a_stalled_download_ends_at_the_fetch_deadline() {
    let origin = Origin::http("127.0.0.1", |_| Reply::Trickle {
        head: b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 100\r\n\r\n".to_vec(),
        every: Duration::from_millis(200),
        count: 100,
    });
    let r = rig(&[format!("127.0.0.1:{}", origin.port())], |p| {
        p.total_timeout = Duration::from_millis(600);
    });
    let lines = session(
        Some(r.fetcher),
        |_| {},
        &[extract(1, &format!("{}/slow.pdf", origin.base("http")))],
    );
    assert_eq!(
        error_kind(answer_to(&lines, 1)).as_deref(),
        Some("fetch.timeout")
    );
}

/// The download counts toward the call's deadline: a file still arriving
/// when the call's deadline passes ends the call (the fetcher's own,
/// longer deadline never comes into play), and the session goes on.
#[test]
fn the_download_counts_toward_the_call_deadline() {
    let origin = Origin::http("127.0.0.1", |_| Reply::Trickle {
        head: b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 100\r\n\r\n".to_vec(),
        every: Duration::from_millis(200),
        count: 100,
    });
    let r = rig(&[format!("127.0.0.1:{}", origin.port())], |p| {
        p.total_timeout = Duration::from_secs(60);
    });
    let lines = session(
        Some(r.fetcher),
        |c| c.call_timeout = Duration::from_millis(700),
        &[
            extract(1, &format!("{}/slow.pdf", origin.base("http"))),
            extract(2, "local.pdf"),
        ],
    );
    let slow = answer_to(&lines, 1);
    assert_eq!(
        error_kind(slow).as_deref(),
        Some("limit_exceeded"),
        "{slow}"
    );
    let text: Value =
        serde_json::from_str(slow["result"]["content"][0]["text"].as_str().unwrap()).unwrap();
    let message = text["error"]["message"].to_string();
    assert!(
        message.contains("call_time") && message.contains("700 ms"),
        "{message}"
    );
    assert_eq!(error_kind(answer_to(&lines, 2)), None);
}

#[test]
fn tools_list_says_remote_fetch_is_on() {
    let r = rig(&[], |_| {});
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
    let on = session(Some(r.fetcher), |_| {}, std::slice::from_ref(&list));
    let off = session(None, |_| {}, &[list]);
    let path = |l: &[Value]| {
        answer_to(l, 1)["result"]["tools"][0]["inputSchema"]["properties"]["path"]["description"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    assert!(path(&on).contains("REMOTE FETCH IS ON"), "{}", path(&on));
    assert!(path(&off).contains("URLs are never fetched"));
}

#[test]
fn cancellation_stops_the_download_and_no_result_follows() {
    // The origin would trickle its body for 20 s: cancelled at once, the
    // call sends nothing, and the next call is served.
    let origin = Origin::http("127.0.0.1", |_| Reply::Trickle {
        head: b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 100\r\n\r\n".to_vec(),
        every: Duration::from_millis(200),
        count: 100,
    });
    let r = rig(&[format!("127.0.0.1:{}", origin.port())], |_| {});
    let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                        "params": {"requestId": 1, "reason": "user"}});
    let lines = session(
        Some(r.fetcher),
        |_| {},
        &[
            with_progress(extract(1, &format!("{}/slow.pdf", origin.base("http"))), 5),
            cancel,
            extract(2, "local.pdf"),
        ],
    );
    assert!(lines.iter().all(|l| l["id"] != 1), "{lines:?}");
    assert_eq!(answer_to(&lines, 2)["result"]["isError"], false);
}
