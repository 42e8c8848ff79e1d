//! `toolgate mcp --http`, tried as clients and attackers would over raw
//! HTTP/1.1 on loopback: both eras on one endpoint, every refusal with its
//! status (forged Host and Origin, missing or wrong tokens, media types,
//! oversized and slow bodies, unknown sessions, batches, mirrored
//! headers), the bounds, and two clients using the same ids at once.
#![cfg(feature = "cli")]
mod mcp_support;

#[allow(dead_code)]
#[path = "pdf_hostile/gen.rs"]
mod gen;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use mcp_support::{corpus, BIN, INIT};
use serde_json::{json, Value};

const META: &str = "io.modelcontextprotocol/protocolVersion";
const CAPS: &str = "io.modelcontextprotocol/clientCapabilities";

/// A running `toolgate mcp --http 127.0.0.1:0`.
struct Server {
    child: Child,
    port: u16,
}

impl Server {
    fn start(root: &Path, extra: &[&str]) -> Self {
        let mut args = vec!["--root".into(), root.as_os_str().to_owned()];
        args.extend(extra.iter().map(Into::into));
        Self::spawn(&args)
    }

    /// The conformance suite's fixtures (hidden `--conformance-fixtures`).
    fn fixtures() -> Self {
        Self::spawn(&["--conformance-fixtures".into()])
    }

    fn spawn(args: &[std::ffi::OsString]) -> Self {
        let mut child = Command::new(BIN)
            .arg("mcp")
            .args(args)
            .args(["--http", "127.0.0.1:0"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut err = BufReader::new(child.stderr.take().unwrap());
        let mut line = String::new();
        err.read_line(&mut line).unwrap();
        let url = line
            .trim()
            .strip_prefix("toolgate mcp: serving MCP at http://127.0.0.1:")
            .unwrap_or_else(|| panic!("unexpected first stderr line {line:?}"));
        let port = url.strip_suffix("/mcp").unwrap().parse().unwrap();
        // Keep draining stderr so the server never blocks on it.
        std::thread::spawn(move || {
            let mut sink = Vec::new();
            let _ = err.read_to_end(&mut sink);
        });
        Self { child, port }
    }

    fn host(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    /// Sends `head` (request line and fields, without the blank line) and
    /// `body` on a fresh connection; reads the whole reply.
    fn raw(&self, head: &str, body: &[u8]) -> Reply {
        let mut s = TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
        let mut req = head.replace('\n', "\r\n").into_bytes();
        req.extend_from_slice(b"\r\nConnection: close\r\n\r\n");
        req.extend_from_slice(body);
        s.write_all(&req).unwrap();
        let mut out = Vec::new();
        let _ = s.read_to_end(&mut out);
        Reply::parse(&out)
    }

    /// A POST of `body` to /mcp with the usual fields, `extra` added after
    /// them (a field named in `extra` replaces the usual one).
    fn post(&self, extra: &[(&str, &str)], body: &str) -> Reply {
        let head = self.post_head(extra, body);
        self.raw(&head, body.as_bytes())
    }

    /// Starts the POST of [`post`](Self::post) and hands back the reply's
    /// `data:` lines as they come, parsed.
    fn post_streaming(&self, extra: &[(&str, &str)], body: &str) -> impl Iterator<Item = Value> {
        let head = self.post_head(extra, body);
        let mut s = TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
        let mut req = head.replace('\n', "\r\n").into_bytes();
        req.extend_from_slice(b"\r\nConnection: close\r\n\r\n");
        req.extend_from_slice(body.as_bytes());
        s.write_all(&req).unwrap();
        // A read that times out fails the test: a stream that should end
        // (the answer came, or the request was cancelled) must not hang.
        BufReader::new(s)
            .lines()
            .map(|l| l.expect("the event stream neither ended nor went on"))
            .filter_map(|l| {
                l.strip_prefix("data: ")
                    .map(|d| serde_json::from_str(d).unwrap())
            })
    }

    fn post_head(&self, extra: &[(&str, &str)], body: &str) -> String {
        let mut fields: Vec<(String, String)> = vec![
            ("Host".into(), self.host()),
            ("Content-Type".into(), "application/json".into()),
            (
                "Accept".into(),
                "application/json, text/event-stream".into(),
            ),
        ];
        for (k, _) in extra {
            fields.retain(|(n, _)| !n.eq_ignore_ascii_case(k));
        }
        for (k, v) in extra {
            fields.push(((*k).into(), (*v).into()));
        }
        let mut head = String::from("POST /mcp HTTP/1.1");
        for (k, v) in &fields {
            head.push_str(&format!("\n{k}: {v}"));
        }
        head.push_str(&format!("\nContent-Length: {}", body.len()));
        head
    }

    /// `initialize` at `version`: the session id.
    fn session(&self, version: &str, extra: &[(&str, &str)]) -> String {
        let r = self.post(extra, &mcp_support::init_with(version));
        assert_eq!(r.status, 200, "{r:?}");
        let id = r.header("mcp-session-id").expect("a session id").to_owned();
        let mut with = extra.to_vec();
        with.push(("Mcp-Session-Id", &id));
        let n = self.post(&with, mcp_support::INITIALIZED);
        assert_eq!(n.status, 202, "{n:?}");
        id
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[derive(Debug)]
struct Reply {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Reply {
    fn parse(raw: &[u8]) -> Self {
        let split = raw
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
            .unwrap_or_else(|| panic!("no reply head in {:?}", String::from_utf8_lossy(raw)));
        let head = std::str::from_utf8(&raw[..split]).unwrap();
        let mut lines = head.split("\r\n");
        let status = lines
            .next()
            .unwrap()
            .split(' ')
            .nth(1)
            .unwrap()
            .parse()
            .unwrap();
        let headers: Vec<(String, String)> = lines
            .filter_map(|l| l.split_once(':'))
            .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_owned()))
            .collect();
        let mut body = raw[split + 4..].to_vec();
        let chunked = headers
            .iter()
            .any(|(k, v)| k == "transfer-encoding" && v.contains("chunked"));
        if chunked {
            body = dechunk(&body);
        }
        Self {
            status,
            headers,
            body,
        }
    }

    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    fn json(&self) -> Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&self.body)))
    }

    /// The `data:` payloads of an event stream.
    fn events(&self) -> Vec<Value> {
        String::from_utf8_lossy(&self.body)
            .lines()
            .filter_map(|l| l.strip_prefix("data: "))
            .map(|d| serde_json::from_str(d).unwrap())
            .collect()
    }

    fn kind(&self) -> String {
        self.json()["error"]["data"]["kind"]
            .as_str()
            .unwrap_or_default()
            .to_owned()
    }
}

fn dechunk(mut b: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let Some(eol) = b.windows(2).position(|w| w == b"\r\n") else {
            return out;
        };
        let size =
            usize::from_str_radix(std::str::from_utf8(&b[..eol]).unwrap().trim(), 16).unwrap();
        if size == 0 {
            return out;
        }
        out.extend_from_slice(&b[eol + 2..eol + 2 + size]);
        b = &b[eol + 2 + size + 2..];
    }
}

fn stateless(id: u64, method: &str, mut params: Value) -> String {
    params["_meta"] = json!({META: "2026-07-28", CAPS: {}});
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string()
}

fn modern_headers<'a>(method: &'a str, name: Option<&'a str>) -> Vec<(&'a str, &'a str)> {
    let mut h = vec![
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", method),
    ];
    if let Some(n) = name {
        h.push(("Mcp-Name", n));
    }
    h
}

#[test]
fn handshake_sessions_list_call_and_end() {
    let server = Server::start(&corpus(), &[]);
    let sid = server.session("2025-11-25", &[]);
    let s = [
        ("Mcp-Session-Id", sid.as_str()),
        ("MCP-Protocol-Version", "2025-11-25"),
    ];
    let list = server.post(&s, r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#);
    assert_eq!(list.status, 200, "{list:?}");
    assert_eq!(list.header("content-type"), Some("application/json"));
    let listed = list.json();
    let names: Vec<&str> = listed["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["extract", "get_metadata"]);
    let call = mcp_support::call(
        3,
        "get_metadata",
        json!({"path": "pypdf-pdflatex-4-pages.pdf"}),
    );
    let meta = server.post(&s, &call);
    assert_eq!(
        meta.json()["result"]["structuredContent"]["pageCount"],
        4,
        "{meta:?}"
    );
    // Another revision than the session's, an unknown one.
    let other = server.post(
        &[
            ("Mcp-Session-Id", sid.as_str()),
            ("MCP-Protocol-Version", "2025-06-18"),
        ],
        &mcp_support::ping(4),
    );
    assert_eq!(
        (other.status, other.kind().as_str()),
        (400, "bad_protocol_version")
    );
    assert_eq!(other.json()["id"], 4);
    let bogus = server.post(
        &[
            ("Mcp-Session-Id", sid.as_str()),
            ("MCP-Protocol-Version", "1900-01-01"),
        ],
        &mcp_support::ping(5),
    );
    assert_eq!(bogus.status, 400);
    assert_eq!(bogus.json()["error"]["data"]["requested"], "1900-01-01");
    // A batch after 2025-03-26.
    let batch = server.post(&s, &format!("[{}]", mcp_support::ping(6)));
    assert_eq!(
        (batch.status, batch.kind().as_str()),
        (400, "batch_not_allowed")
    );
    // A notification and a response get 202.
    let note = server.post(
        &s,
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":99}}"#,
    );
    assert_eq!(note.status, 202);
    let resp = server.post(&s, r#"{"jsonrpc":"2.0","id":"s1","result":{}}"#);
    assert_eq!(resp.status, 202);
    // GET offers no stream; DELETE ends the session; then it is unknown.
    let get = server.raw(
        &format!(
            "GET /mcp HTTP/1.1\nHost: {}\nAccept: text/event-stream\nMcp-Session-Id: {sid}",
            server.host()
        ),
        b"",
    );
    assert_eq!(get.status, 405);
    assert_eq!(get.header("allow"), Some("POST, DELETE"));
    let del = server.raw(
        &format!(
            "DELETE /mcp HTTP/1.1\nHost: {}\nMcp-Session-Id: {sid}",
            server.host()
        ),
        b"",
    );
    assert_eq!(del.status, 204);
    let gone = server.post(&s, &mcp_support::ping(7));
    assert_eq!(
        (gone.status, gone.kind().as_str()),
        (404, "unknown_session")
    );
    // A request without a session that is not initialize.
    let bare = server.post(&[], &mcp_support::ping(8));
    assert_eq!(
        (bare.status, bare.kind().as_str()),
        (400, "session_required")
    );
    assert_eq!(bare.json()["id"], 8);
}

#[test]
fn the_2025_03_26_batches_and_a_failed_initialize_keeps_no_session() {
    let server = Server::start(&corpus(), &[]);
    let sid = server.session("2025-03-26", &[]);
    let s = [("Mcp-Session-Id", sid.as_str())];
    let batch = server.post(
        &s,
        &format!("[{},{}]", mcp_support::ping(1), mcp_support::ping(2)),
    );
    assert_eq!(batch.status, 200, "{batch:?}");
    let ids: Vec<Value> = batch
        .json()
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].clone())
        .collect();
    assert_eq!(ids, [json!(1), json!(2)]);
    let notes = server.post(&s, &format!("[{}]", mcp_support::INITIALIZED));
    assert_eq!(notes.status, 202);
    let bad = server.post(
        &[],
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}"#,
    );
    assert_eq!(bad.status, 200);
    assert!(bad.json()["error"].is_object(), "{bad:?}");
    assert_eq!(bad.header("mcp-session-id"), None);
}

#[test]
fn stateless_requests_stand_alone_with_mirrored_headers() {
    let server = Server::start(&corpus(), &[]);
    let list = server.post(
        &modern_headers("tools/list", None),
        &stateless(1, "tools/list", json!({})),
    );
    assert_eq!(list.status, 200, "{list:?}");
    assert_eq!(list.json()["result"]["resultType"], "complete");
    assert_eq!(list.header("mcp-session-id"), None);
    let args = json!({"name": "get_metadata", "arguments": {"path": "pypdf-pdflatex-4-pages.pdf"}});
    let ok = server.post(
        &modern_headers("tools/call", Some("get_metadata")),
        &stateless(2, "tools/call", args.clone()),
    );
    assert_eq!(
        ok.json()["result"]["structuredContent"]["pageCount"],
        4,
        "{ok:?}"
    );
    for headers in [
        modern_headers("tools/call", Some("extract")),
        modern_headers("tools/call", None),
        modern_headers("TOOLS/CALL", Some("get_metadata")),
        modern_headers("tools/list", Some("get_metadata")),
        vec![("Mcp-Method", "tools/call"), ("Mcp-Name", "get_metadata")],
    ] {
        let r = server.post(&headers, &stateless(3, "tools/call", args.clone()));
        assert_eq!(r.status, 400, "{headers:?}: {r:?}");
        assert_eq!(r.json()["error"]["code"], -32020, "{headers:?}");
        assert_eq!(r.json()["id"], 3);
    }
    // Removed and unknown methods: 404 with -32601; bad _meta: 400 with -32602.
    for method in ["ping", "initialize", "no/such"] {
        let r = server.post(
            &modern_headers(method, None),
            &stateless(4, method, json!({})),
        );
        assert_eq!(
            (r.status, r.json()["error"]["code"].clone()),
            (404, json!(-32601)),
            "{method}"
        );
    }
    let no_meta =
        json!({"jsonrpc": "2.0", "id": 5, "method": "tools/list", "params": {}}).to_string();
    let r = server.post(
        &[
            ("MCP-Protocol-Version", "2026-07-28"),
            ("Mcp-Method", "tools/list"),
        ],
        &no_meta,
    );
    assert_eq!(
        (r.status, r.json()["error"]["code"].clone()),
        (400, json!(-32602))
    );
}

#[test]
fn forged_hosts_and_origins_are_refused_on_every_method() {
    let server = Server::start(&corpus(), &[]);
    let ok = server.post(
        &[("Origin", &format!("http://localhost:{}", server.port))],
        INIT,
    );
    assert_eq!(ok.status, 200, "{ok:?}");
    let port = server.port.to_string();
    let cases: Vec<Vec<(&str, String)>> = vec![
        vec![("Host", format!("evil.example:{port}"))],
        vec![
            ("Host", format!("localhost:{port}")),
            ("Origin", format!("http://evil.example:{port}")),
        ],
        vec![
            ("Host", format!("localhost:{port}")),
            ("Origin", "null".into()),
        ],
        vec![
            ("Host", format!("rebind.evil.example:{port}")),
            ("Origin", format!("http://rebind.evil.example:{port}")),
        ],
        vec![("Host", "localhost".into())],
        vec![
            ("Host", format!("localhost:{port}")),
            ("Origin", format!("http://localhost:{port}")),
            ("Origin", format!("http://localhost:{port}")),
        ],
    ];
    for case in &cases {
        let fields: Vec<(&str, &str)> = case.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let r = server.post(&fields, INIT);
        assert_eq!(r.status, 403, "{case:?}: {r:?}");
        assert!(r.kind().ends_with("_not_allowed"), "{case:?}");
        assert_eq!(r.header("mcp-session-id"), None);
    }
    // An absolute-form target names the host too (RFC 9112 §3.2.2).
    for target in ["http://evil.example/mcp", "http://evil@127.0.0.1:1/mcp"] {
        let r = server.raw(
            &format!(
                "POST {target} HTTP/1.1\nHost: {}\nContent-Type: application/json\nContent-Length: {}",
                server.host(),
                INIT.len()
            ),
            INIT.as_bytes(),
        );
        assert_eq!(r.status, 403, "{target}: {r:?}");
    }
    let padded = server.post(&[("Host", &format!("127.0.0.1:0{port}"))], INIT);
    assert_eq!(padded.status, 403);
    for method in ["GET", "DELETE", "OPTIONS", "PUT"] {
        let r = server.raw(
            &format!("{method} /mcp HTTP/1.1\nHost: evil.example:{port}"),
            b"",
        );
        assert_eq!(r.status, 403, "{method}");
    }
}

#[test]
fn media_types_accept_paths_and_methods() {
    let server = Server::start(&corpus(), &[]);
    let plain = server.post(&[("Content-Type", "text/plain")], INIT);
    assert_eq!(
        (plain.status, plain.kind().as_str()),
        (415, "unsupported_media_type")
    );
    let form = server.post(
        &[("Content-Type", "application/x-www-form-urlencoded")],
        INIT,
    );
    assert_eq!(form.status, 415);
    let html = server.post(&[("Accept", "text/html")], INIT);
    assert_eq!((html.status, html.kind().as_str()), (406, "not_acceptable"));
    let sse_only = server.post(&[("Accept", "text/event-stream")], INIT);
    assert_eq!(sse_only.status, 200);
    assert_eq!(sse_only.header("content-type"), Some("text/event-stream"));
    assert_eq!(
        sse_only.events()[0]["result"]["protocolVersion"],
        "2025-11-25"
    );
    let elsewhere = server.raw(
        &format!(
            "POST /other HTTP/1.1\nHost: {}\nContent-Type: application/json\nContent-Length: 2",
            server.host()
        ),
        b"{}",
    );
    assert_eq!(elsewhere.status, 404);
    let bad_json = server.post(&[], "{\"jsonrpc\":\"2.0\",\"id\":1,");
    assert_eq!(bad_json.status, 400);
    assert_eq!(bad_json.json()["error"]["code"], -32700);
}

#[test]
fn bodies_over_the_payload_bound_are_refused_as_they_arrive() {
    let server = Server::start(&corpus(), &[]);
    let max = toolgate::json::MAX_PAYLOAD_BYTES;
    // Declared too long: refused before any body byte is read.
    let declared = server.raw(
        &format!(
            "POST /mcp HTTP/1.1\nHost: {}\nContent-Type: application/json\nContent-Length: {}",
            server.host(),
            max + 1
        ),
        b"",
    );
    assert_eq!(
        (declared.status, declared.kind().as_str()),
        (413, "payload_too_large")
    );
    // Chunked, no length: refused once past the bound.
    let mut body = Vec::new();
    let chunk = vec![b' '; 64 * 1024];
    for _ in 0..(max / chunk.len() + 2) {
        body.extend_from_slice(format!("{:x}\r\n", chunk.len()).as_bytes());
        body.extend_from_slice(&chunk);
        body.extend_from_slice(b"\r\n");
    }
    body.extend_from_slice(b"0\r\n\r\n");
    let chunked = server.raw(
        &format!(
            "POST /mcp HTTP/1.1\nHost: {}\nContent-Type: application/json\nTransfer-Encoding: chunked",
            server.host()
        ),
        &body,
    );
    assert_eq!(chunked.status, 413, "{:?}", chunked.status);
    // At the bound it is read (and answered as JSON-RPC).
    let mut fits = INIT.to_owned();
    fits.push_str(&" ".repeat(max - INIT.len()));
    assert_eq!(server.post(&[], &fits).status, 200);
}

#[test]
fn bearer_tokens_and_sessions_bound_to_them() {
    let dir = tempfile::tempdir().unwrap();
    let token_file = dir.path().join("token");
    std::fs::write(&token_file, "s3cret-token\n").unwrap();
    let server = Server::start(
        &corpus(),
        &[
            "--auth-token-file",
            token_file.to_str().unwrap(),
            "--auth-issuer",
            "https://auth.example.com",
        ],
    );
    let none = server.post(&[], INIT);
    assert_eq!((none.status, none.kind().as_str()), (401, "unauthorized"));
    let challenge = none.header("www-authenticate").unwrap();
    assert!(challenge.starts_with("Bearer"), "{challenge}");
    assert!(
        challenge.contains("/.well-known/oauth-protected-resource/mcp"),
        "{challenge}"
    );
    // No token: no error code (RFC 6750 §3.1); a wrong one: invalid_token.
    assert!(!challenge.contains("error="), "{challenge}");
    for wrong in [
        "Bearer s3cret-toke",
        "Bearer s3cret-token2",
        "Basic s3cret-token",
        "s3cret-token",
    ] {
        let r = server.post(&[("Authorization", wrong)], INIT);
        assert_eq!(r.status, 401, "{wrong}");
        let challenge = r.header("www-authenticate").unwrap();
        assert_eq!(
            challenge.contains("error=\"invalid_token\""),
            wrong.starts_with("Bearer"),
            "{wrong}: {challenge}"
        );
    }
    let auth = [("Authorization", "Bearer s3cret-token")];
    let sid = server.session("2025-11-25", &auth);
    let mine = server.post(&[auth[0], ("Mcp-Session-Id", &sid)], &mcp_support::ping(2));
    assert_eq!(mine.json()["result"], json!({}));
    // The same token with the scheme in another case is the same credential.
    let lower = server.post(
        &[
            ("Authorization", "bearer s3cret-token"),
            ("Mcp-Session-Id", &sid),
        ],
        &mcp_support::ping(3),
    );
    assert_eq!(lower.json()["result"], json!({}));
    let prm = server.raw(
        &format!(
            "GET /.well-known/oauth-protected-resource/mcp HTTP/1.1\nHost: {}",
            server.host()
        ),
        b"",
    );
    assert_eq!(prm.status, 200);
    assert_eq!(
        prm.json()["authorization_servers"],
        json!(["https://auth.example.com"]),
        "the issuer exactly as given"
    );
    assert_eq!(
        prm.json()["resource"],
        format!("http://{}/mcp", server.host())
    );
}

#[test]
fn sessions_are_bound_to_the_credential_that_made_them() {
    let server = Server::start(&corpus(), &[]);
    let sid = server.session("2025-11-25", &[("Authorization", "Bearer alice")]);
    let other = server.post(
        &[
            ("Authorization", "Bearer mallory"),
            ("Mcp-Session-Id", &sid),
        ],
        &mcp_support::ping(2),
    );
    assert_eq!(
        (other.status, other.kind().as_str()),
        (404, "unknown_session")
    );
    let none = server.post(&[("Mcp-Session-Id", &sid)], &mcp_support::ping(3));
    assert_eq!(none.status, 404);
    let del = server.raw(
        &format!(
            "DELETE /mcp HTTP/1.1\nHost: {}\nMcp-Session-Id: {sid}",
            server.host()
        ),
        b"",
    );
    assert_eq!(del.status, 404);
    let mine = server.post(
        &[("Authorization", "Bearer alice"), ("Mcp-Session-Id", &sid)],
        &mcp_support::ping(4),
    );
    assert_eq!(mine.status, 200);
}

#[test]
fn two_clients_with_the_same_ids_get_only_their_own_answers() {
    let server = Server::start(&corpus(), &[]);
    let files = ["pypdf-pdflatex-4-pages.pdf", "pdfjs-tracemonkey.pdf"];
    let sessions: Vec<String> = files
        .iter()
        .map(|_| server.session("2025-11-25", &[]))
        .collect();
    std::thread::scope(|scope| {
        let handles: Vec<_> = files
            .iter()
            .zip(&sessions)
            .map(|(file, sid)| {
                let server = &server;
                scope.spawn(move || {
                    let mut pages = Vec::new();
                    for _ in 0..4 {
                        let call = mcp_support::call(1, "get_metadata", json!({"path": file}));
                        let r = server.post(&[("Mcp-Session-Id", sid)], &call);
                        assert_eq!(r.json()["id"], 1);
                        pages.push(r.json()["result"]["structuredContent"]["pageCount"].clone());
                    }
                    pages
                })
            })
            .collect();
        let got: Vec<Vec<Value>> = handles.into_iter().map(|h| h.join().unwrap()).collect();
        assert_eq!(got[0], vec![json!(4); 4]);
        assert_eq!(got[1], vec![json!(14); 4]);
    });
}

#[test]
fn progress_streams_as_events_before_the_result() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("busy.pdf"), gen::text_pages(300, 2_000)).unwrap();
    let server = Server::start(dir.path(), &[]);
    let call = json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {
        "name": "extract", "arguments": {"path": "busy.pdf"}, "_meta": {"progressToken": "p1"}}})
    .to_string();
    let sid = server.session("2025-11-25", &[]);
    let r = server.post(&[("Mcp-Session-Id", &sid)], &call);
    assert_eq!(r.status, 200);
    assert_eq!(r.header("content-type"), Some("text/event-stream"));
    let events = r.events();
    let (last, progress) = events.split_last().unwrap();
    assert_eq!(last["id"], 9, "{last}");
    assert_eq!(last["result"]["structuredContent"]["pageCount"], 300);
    assert!(!progress.is_empty(), "no progress event");
    for p in progress {
        assert_eq!(p["method"], "notifications/progress");
        assert_eq!(p["params"]["progressToken"], "p1");
    }
    // Without an event stream accepted, the same call is answered as JSON.
    let call = call.replace("\"id\":9", "\"id\":10");
    let plain = server.post(
        &[("Mcp-Session-Id", &sid), ("Accept", "application/json")],
        &call,
    );
    assert_eq!(plain.header("content-type"), Some("application/json"));
    assert_eq!(plain.json()["id"], 10);
}

#[test]
fn unsafe_configurations_refuse_to_start() {
    let out = Command::new(BIN)
        .args(["mcp", "--root"])
        .arg(corpus())
        .args(["--http", "0.0.0.0:0"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("--allowed-host"));
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty");
    std::fs::write(&empty, "\n").unwrap();
    let out = Command::new(BIN)
        .args(["mcp", "--root"])
        .arg(corpus())
        .args(["--http", "127.0.0.1:0", "--auth-token-file"])
        .arg(&empty)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    // An empty allowlist allows nothing.
    let server = Server::start(&corpus(), &["--allowed-host", ""]);
    let r = server.post(&[], INIT);
    assert_eq!((r.status, r.kind().as_str()), (403, "host_not_allowed"));
    // A listed name, with the server's port.
    let named = Server::start(&corpus(), &["--allowed-host", "mcp.internal"]);
    let host = format!("mcp.internal:{}", named.port);
    assert_eq!(named.post(&[("Host", &host)], INIT).status, 200);
    assert_eq!(named.post(&[], INIT).status, 403);
}

#[test]
fn heads_over_their_bounds_and_slow_heads_are_cut_off() {
    let server = Server::start(&corpus(), &[]);
    let many: String = (0..toolgate::engine::transport::http::MAX_HEADERS + 8)
        .map(|i| format!("\nX-Filler-{i}: x"))
        .collect();
    let r = server.raw(
        &format!("POST /mcp HTTP/1.1\nHost: {}{many}", server.host()),
        b"",
    );
    assert_eq!(r.status, 431, "{r:?}");
    let long = format!(
        "\nX-Long: {}",
        "a".repeat(toolgate::engine::transport::http::MAX_HEAD_BYTES)
    );
    let r = server.raw(
        &format!("POST /mcp HTTP/1.1\nHost: {}{long}", server.host()),
        b"",
    );
    assert_eq!(r.status, 431, "{r:?}");
    // A head that never ends: the server answers or closes once its read
    // timeout passes (the read here waits far longer than that).
    let mut s = TcpStream::connect(("127.0.0.1", server.port)).unwrap();
    s.set_read_timeout(Some(
        toolgate::engine::transport::http::HEADER_READ_TIMEOUT * 6,
    ))
    .unwrap();
    s.write_all(format!("POST /mcp HTTP/1.1\r\nHost: {}\r\nX-Slow: ", server.host()).as_bytes())
        .unwrap();
    let mut out = Vec::new();
    let read = s.read_to_end(&mut out);
    assert!(read.is_ok(), "the connection was left open: {read:?}");
    assert!(
        out.is_empty() || out.starts_with(b"HTTP/1.1 408"),
        "{:?}",
        String::from_utf8_lossy(&out)
    );
}

#[test]
fn connections_over_the_bound_get_503() {
    let server = Server::start(&corpus(), &[]);
    let held: Vec<TcpStream> = (0..toolgate::engine::transport::http::DEFAULT_MAX_CONNECTIONS)
        .map(|_| TcpStream::connect(("127.0.0.1", server.port)).unwrap())
        .collect();
    // The accept loop takes them in order: the next one is over the bound.
    let mut r = None;
    for _ in 0..50 {
        let reply = server.post(&[], INIT);
        if reply.status == 503 {
            r = Some(reply);
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let r = r.expect("a connection over the bound was served");
    assert_eq!(r.header("retry-after"), Some("1"));
    assert_eq!(r.kind(), "server_busy");
    drop(held);
    // Once they close, requests are served again.
    let mut served = false;
    for _ in 0..100 {
        if server.post(&[], INIT).status == 200 {
            served = true;
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(served);
}

#[test]
fn a_full_session_table_ends_the_least_recently_used_session() {
    let server = Server::start(&corpus(), &[]);
    let max = toolgate::engine::transport::http::DEFAULT_MAX_SESSIONS;
    let first = server.session("2025-11-25", &[]);
    let rest: Vec<String> = (1..max)
        .map(|_| server.session("2025-11-25", &[]))
        .collect();
    // The first is used again: the second is now the least recently used.
    let used = server.post(&[("Mcp-Session-Id", &first)], &mcp_support::ping(2));
    assert_eq!(used.status, 200);
    let newest = server.session("2025-11-25", &[]);
    let evicted = server.post(&[("Mcp-Session-Id", &rest[0])], &mcp_support::ping(3));
    assert_eq!(
        (evicted.status, evicted.kind().as_str()),
        (404, "unknown_session")
    );
    for sid in [&first, &rest[1], &newest] {
        let r = server.post(&[("Mcp-Session-Id", sid)], &mcp_support::ping(4));
        assert_eq!(r.status, 200, "{r:?}");
    }
}

/// A tool that asks the client (elicitation) sends its request on the
/// call's own event stream and answers once the client's response arrives
/// as a POST of its own (202), in the same session.
#[test]
fn a_tool_asks_the_client_on_its_own_stream_and_waits_for_the_answer() {
    let server = Server::fixtures();
    let sid = server.session("2025-11-25", &[]);
    let with = [("Mcp-Session-Id", sid.as_str())];
    let call = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {
        "name": "test_elicitation", "arguments": {"message": "who?"}}})
    .to_string();
    let mut events = server.post_streaming(&with, &call);
    let ask = events.next().expect("the elicitation request");
    assert_eq!(ask["method"], "elicitation/create", "{ask}");
    assert_eq!(ask["params"]["message"], "who?");
    let answer = json!({"jsonrpc": "2.0", "id": ask["id"], "result": {
        "action": "accept", "content": {"username": "u", "email": "e@example.com"}}})
    .to_string();
    assert_eq!(server.post(&with, &answer).status, 202);
    let result = events.next().expect("the call's result");
    assert_eq!(result["id"], 7, "{result}");
    assert_eq!(
        result["result"]["content"][0]["text"],
        "User response: action=accept, content={\"email\":\"e@example.com\",\"username\":\"u\"}"
    );
    assert!(events.next().is_none(), "nothing after the result");
    // An answer to a request nobody sent is taken (202) and changes nothing.
    let stray = json!({"jsonrpc": "2.0", "id": "toolgate-fixture-99", "result": {}}).to_string();
    assert_eq!(server.post(&with, &stray).status, 202);
    let ping = server.post(&with, r#"{"jsonrpc":"2.0","id":8,"method":"ping"}"#);
    assert_eq!(ping.json()["result"], json!({}));
}

/// Messages a tool sends about its call (log messages) open an event
/// stream before the result; without an event stream accepted, or in the
/// stateless era without a log level asked for, the result comes alone.
#[test]
fn log_messages_stream_before_the_result_only_when_wanted() {
    let server = Server::fixtures();
    let sid = server.session("2025-11-25", &[]);
    let call = |id: u64| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
            "name": "test_tool_with_logging", "arguments": {}}})
        .to_string()
    };
    let r = server.post(&[("Mcp-Session-Id", &sid)], &call(1));
    assert_eq!(r.header("content-type"), Some("text/event-stream"));
    let events = r.events();
    let (last, logs) = events.split_last().unwrap();
    assert_eq!(last["id"], 1, "{last}");
    let said: Vec<&str> = logs
        .iter()
        .map(|l| l["params"]["data"].as_str().unwrap())
        .collect();
    assert_eq!(
        said,
        [
            "Tool execution started",
            "Tool processing data",
            "Tool execution completed"
        ]
    );
    let plain = server.post(
        &[("Mcp-Session-Id", &sid), ("Accept", "application/json")],
        &call(2),
    );
    assert_eq!(plain.header("content-type"), Some("application/json"));
    assert_eq!(plain.json()["id"], 2);
    // logging/setLevel above info silences them.
    let set = r#"{"jsonrpc":"2.0","id":3,"method":"logging/setLevel","params":{"level":"error"}}"#;
    assert_eq!(
        server.post(&[("Mcp-Session-Id", &sid)], set).json()["result"],
        json!({})
    );
    let quiet = server.post(&[("Mcp-Session-Id", &sid)], &call(4));
    assert_eq!(quiet.header("content-type"), Some("application/json"));
    // Stateless: a log message only when _meta names a log level.
    let headers = modern_headers("tools/call", Some("test_logging_tool"));
    let bare = stateless(5, "tools/call", json!({"name": "test_logging_tool"}));
    let r = server.post(&headers, &bare);
    assert_eq!(r.header("content-type"), Some("application/json"), "{r:?}");
    assert_eq!(r.json()["result"]["resultType"], "complete");
    let mut asked: Value = serde_json::from_str(&bare).unwrap();
    asked["params"]["_meta"]["io.modelcontextprotocol/logLevel"] = json!("info");
    let r = server.post(&headers, &asked.to_string());
    let events = r.events();
    assert_eq!(events.len(), 2, "{r:?}");
    assert_eq!(events[0]["method"], "notifications/message");
    assert_eq!(events[1]["id"], 5);
}

/// A request the client cancels ends its POST: the event stream closes
/// with no answer (or, before any event, an empty stream, or 204 for a
/// client that takes JSON only), and its id is free again.
#[test]
fn a_cancelled_request_ends_its_post() {
    let server = Server::fixtures();
    let sid = server.session("2025-11-25", &[]);
    let with = [("Mcp-Session-Id", sid.as_str())];
    let call = |id: u64| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
            "name": "test_elicitation", "arguments": {"message": "who?"}}})
        .to_string()
    };
    let cancel = |id: u64| {
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
            "params": {"requestId": id, "reason": "changed my mind"}})
        .to_string()
    };
    let mut events = server.post_streaming(&with, &call(7));
    assert_eq!(
        events.next().expect("the ask")["method"],
        "elicitation/create"
    );
    assert_eq!(server.post(&with, &cancel(7)).status, 202);
    assert!(events.next().is_none(), "the stream ends with no answer");
    let ping = server.post(&with, r#"{"jsonrpc":"2.0","id":7,"method":"ping"}"#);
    assert_eq!(ping.json()["result"], json!({}), "the id is free again");
    // A client that takes JSON only: the ask cannot reach it, the call
    // waits; cancelled, its POST is answered 204.
    let json_only = [
        ("Mcp-Session-Id", sid.as_str()),
        ("Accept", "application/json"),
    ];
    std::thread::scope(|scope| {
        let waiting = scope.spawn(|| server.post(&json_only, &call(8)));
        // The call is in flight once its id is taken.
        let mut taken = false;
        for _ in 0..200 {
            let probe = server.post(&with, r#"{"jsonrpc":"2.0","id":8,"method":"ping"}"#);
            if probe.json()["error"]["code"] == -32600 {
                taken = true;
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        assert!(taken, "the call never started");
        assert_eq!(server.post(&with, &cancel(8)).status, 202);
        let r = waiting.join().unwrap();
        assert_eq!(r.status, 204, "{r:?}");
    });
}

/// Requests waiting for their answers never keep a client's answer (or a
/// notification) out: those need no in-flight slot.
#[test]
fn a_full_in_flight_bound_still_takes_the_clients_answers() {
    // Calls waiting on the client's answer to a request of the server
    // (at most MAX_ASKS a session): enough sessions to fill the bound.
    let server = Server::fixtures();
    let bound = toolgate::engine::transport::http::DEFAULT_MAX_IN_FLIGHT;
    let per_session = toolgate::mcp::fixtures::MAX_ASKS;
    let sessions: Vec<String> = (0..bound.div_ceil(per_session))
        .map(|_| server.session("2025-11-25", &[]))
        .collect();
    let mut asks = Vec::new();
    let held: Vec<_> = (0..bound)
        .map(|n| {
            let sid = &sessions[n / per_session];
            let call = json!({"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": {
                "name": "test_sampling", "arguments": {"prompt": "hi"}}})
            .to_string();
            let mut events = server.post_streaming(&[("Mcp-Session-Id", sid)], &call);
            let ask = events.next().expect("the sampling request");
            asks.push((sid.clone(), ask["id"].clone()));
            events
        })
        .collect();
    let with = [("Mcp-Session-Id", sessions[0].as_str())];
    let mut full = false;
    for _ in 0..500 {
        let r = server.post(&with, r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#);
        if r.status == 503 {
            full = true;
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    assert!(full, "the in-flight bound was never reached");
    // Straight after a request was refused for the bound: an answer and a
    // notification are still taken.
    let (sid, id) = &asks[0];
    let answer = json!({"jsonrpc": "2.0", "id": id, "result": {
        "role": "assistant", "content": {"type": "text", "text": "hello"}, "model": "m"}})
    .to_string();
    assert_eq!(server.post(&[("Mcp-Session-Id", sid)], &answer).status, 202);
    let note = r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"x","progress":1}}"#;
    assert_eq!(server.post(&with, note).status, 202);
    // The answered call completes on its own stream.
    let mut held = held;
    let result = held[0].next().expect("the call's result");
    assert_eq!(
        result["result"]["content"][0]["text"],
        "LLM response: hello"
    );
}
