//! `toolgate::net::fetch` end to end, loopback only: every test dials
//! through a connector that records each dial and refuses anything that is
//! not loopback without opening a socket, and resolves names through a
//! scripted resolver, so no packet can leave the machine even when the
//! fetcher is wrong. 127.0.0.1 (with an allow entry) stands for an
//! operator's intranet origin, 127.0.0.2 for an internal service.
#![cfg(feature = "fetch")]

mod fetch_support;

use fetch_support::*;
use proptest::prelude::*;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;
use toolgate::net::fetch::MAX_REDIRECTS;
use toolgate::net::NetPolicy;

const PDF: &[u8] = include_bytes!("../corpus/pdf/pypdf-minimal-document.pdf");

fn allow_origin(o: &Origin) -> Vec<String> {
    vec![format!("127.0.0.1:{}", o.port())]
}

fn pdf_origin() -> Origin {
    Origin::http("127.0.0.1", |_| {
        response(200, &[("Content-Type", "application/pdf")], PDF)
    })
}

#[tokio::test]
async fn an_allowed_local_origin_serves_a_real_pdf() {
    let origin = pdf_origin();
    let r = rig(&allow_origin(&origin), |_| {});
    let url = format!("{}/doc.pdf", origin.base("http"));
    let got = r.fetcher.fetch(&url).await.unwrap();
    assert_eq!(got.body(), PDF);
    assert_eq!(got.final_url().as_str(), url);
    assert_eq!(got.content_type(), Some("application/pdf"));
    assert_eq!(r.guard.dials(), vec![origin.addr()]);
    let head = &origin.heads()[0];
    assert!(head.contains("accept-encoding: identity\r\n"), "{head}");
    assert!(
        head.contains(&format!("host: 127.0.0.1:{}\r\n", origin.port())),
        "{head}"
    );
}

#[tokio::test]
async fn without_the_entry_the_origin_sees_no_connection() {
    let origin = pdf_origin();
    let r = rig(&[], |_| {});
    let err = r
        .fetcher
        .fetch(&format!("{}/doc.pdf", origin.base("http")))
        .await
        .unwrap_err();
    assert_eq!(err.code(), "ssrf.loopback");
    assert!(r.guard.dials().is_empty());
    assert_eq!(origin.connections(), 0);
    // An entry for another port does not cover it either.
    let r = rig(&["127.0.0.1:1".to_owned()], |_| {});
    let err = r.fetcher.fetch(&origin.base("http")).await.unwrap_err();
    assert_eq!(err.code(), "ssrf.loopback");
    assert_eq!(origin.connections(), 0);
}

#[tokio::test]
async fn https_only_unless_http_is_allowed() {
    let origin = pdf_origin();
    let r = rig(&allow_origin(&origin), |p| p.allow_http = false);
    let err = r.fetcher.fetch(&origin.base("http")).await.unwrap_err();
    assert_eq!(err.code(), "fetch.insecure_scheme");
    assert_eq!(origin.connections(), 0);
}

/// An origin that redirects `/` to `location` and serves the PDF elsewhere.
fn redirecting(location: String) -> Origin {
    Origin::http("127.0.0.1", move |head| match path_of(head) {
        "/" => redirect(302, &location),
        _ => response(200, &[], PDF),
    })
}

#[tokio::test]
async fn a_redirect_to_an_internal_address_is_refused_before_any_dial() {
    let internal = Origin::counter("127.0.0.2");
    for (location, code) in [
        (format!("{}/admin", internal.base("http")), "ssrf.loopback"),
        (
            "http://169.254.169.254/latest/meta-data/".to_owned(),
            "ssrf.cloud_metadata",
        ),
        ("http://[fd00:ec2::254]/".to_owned(), "ssrf.cloud_metadata"),
        ("http://10.0.0.1/".to_owned(), "ssrf.private_use"),
        ("http://0x7f.1/".to_owned(), "url.ambiguous"),
        (
            "http://metadata.google.internal/".to_owned(),
            "ssrf.metadata_name",
        ),
        ("http://localhost/".to_owned(), "ssrf.localhost_name"),
        ("file:///etc/passwd".to_owned(), "url.scheme"),
        ("http://user:pw@example.com/".to_owned(), "url.userinfo"),
    ] {
        let origin = redirecting(location.clone());
        let r = rig(&allow_origin(&origin), |_| {});
        let err = r.fetcher.fetch(&origin.base("http")).await.unwrap_err();
        assert_eq!(err.code(), code, "{location}: {err}");
        assert_eq!(r.guard.dials(), vec![origin.addr()], "{location}");
        assert!(r.dns.lookups().is_empty(), "{location}");
        assert!(!err.reason().contains("pw"), "{err}");
    }
    assert_eq!(internal.connections(), 0);
}

#[tokio::test]
async fn a_mapped_ipv6_literal_of_the_allowed_origin_is_refused() {
    // The entry admits 127.0.0.1:PORT in IPv4; the IPv4-mapped IPv6 form of
    // the same address is another family and stays refused.
    let origin = pdf_origin();
    let origin = redirecting(format!(
        "http://[::ffff:127.0.0.1]:{}/doc.pdf",
        origin.port()
    ));
    let r = rig(&allow_origin(&origin), |_| {});
    let err = r.fetcher.fetch(&origin.base("http")).await.unwrap_err();
    assert_eq!(err.code(), "ssrf.loopback", "{err}");
    assert_eq!(r.guard.dials(), vec![origin.addr()]);
}

#[tokio::test]
async fn an_endless_redirect_chain_stops_after_the_limit() {
    let origin = Origin::http("127.0.0.1", |head| {
        let n: usize = path_of(head).trim_start_matches('/').parse().unwrap_or(0);
        redirect(301, &format!("/{}", n + 1))
    });
    let r = rig(&allow_origin(&origin), |_| {});
    let err = r
        .fetcher
        .fetch(&format!("{}/0", origin.base("http")))
        .await
        .unwrap_err();
    assert_eq!(err.code(), "fetch.too_many_redirects");
    assert_eq!(origin.connections(), MAX_REDIRECTS + 1);
    // Exactly the limit is fine.
    let origin = Origin::http("127.0.0.1", |head| {
        let n: usize = path_of(head).trim_start_matches('/').parse().unwrap_or(0);
        if n < MAX_REDIRECTS {
            redirect(308, &format!("/{}", n + 1))
        } else {
            response(200, &[], b"end")
        }
    });
    let r = rig(&allow_origin(&origin), |_| {});
    let got = r
        .fetcher
        .fetch(&format!("{}/0", origin.base("http")))
        .await
        .unwrap();
    assert_eq!(got.body(), b"end");
    assert_eq!(got.redirects(), MAX_REDIRECTS);
}

#[tokio::test]
async fn a_rebinding_answer_is_refused_on_the_next_lookup() {
    // The name first resolves to the allowed origin, then (on the redirect's
    // own lookup) to an internal address; nothing is dialled there.
    let internal = Origin::counter("127.0.0.2");
    let origin = Origin::http("127.0.0.1", |head| match path_of(head) {
        "/" => redirect(302, "/second"),
        _ => response(200, &[], b"second"),
    });
    let r = rig(&allow_origin(&origin), |_| {});
    r.dns
        .set("docs.example.com", &[&["127.0.0.1"], &["127.0.0.2"]]);
    let url = format!("http://docs.example.com:{}/", origin.port());
    let err = r.fetcher.fetch(&url).await.unwrap_err();
    assert_eq!(err.code(), "ssrf.loopback", "{err}");
    assert_eq!(
        r.dns.lookups(),
        vec!["docs.example.com", "docs.example.com"]
    );
    assert_eq!(r.guard.dials(), vec![origin.addr()]);
    assert_eq!(internal.connections(), 0);
    // Public first, metadata second: the same.
    let r = rig(&allow_origin(&origin), |_| {});
    r.dns
        .set("docs.example.com", &[&["127.0.0.1"], &["169.254.169.254"]]);
    let err = r.fetcher.fetch(&url).await.unwrap_err();
    assert_eq!(err.code(), "ssrf.cloud_metadata");
    assert_eq!(r.guard.dials(), vec![origin.addr()]);
}

#[tokio::test]
async fn a_mixed_answer_is_refused_whole() {
    let origin = pdf_origin();
    let internal = Origin::counter("127.0.0.2");
    for (answer, code) in [
        (&["127.0.0.1", "10.0.0.1"][..], "ssrf.private_use"),
        (&["127.0.0.1", "127.0.0.2"][..], "ssrf.loopback"),
        (&["169.254.169.254", "127.0.0.1"][..], "ssrf.cloud_metadata"),
        (&[][..], "dns.no_address"),
    ] {
        let r = rig(&allow_origin(&origin), |_| {});
        r.dns.set("docs.example.com", &[answer]);
        let err = r
            .fetcher
            .fetch(&format!("http://docs.example.com:{}/", origin.port()))
            .await
            .unwrap_err();
        assert_eq!(err.code(), code, "{answer:?}");
        assert!(r.guard.dials().is_empty(), "{answer:?}");
    }
    assert_eq!(origin.connections(), 0);
    assert_eq!(internal.connections(), 0);
}

#[tokio::test]
async fn a_name_allowed_by_entry_resolves_once_per_hop() {
    let origin = pdf_origin();
    let r = rig(&[format!("docs.example.com:{}", origin.port())], |_| {});
    r.dns.set("docs.example.com", &[&["127.0.0.1"]]);
    let got = r
        .fetcher
        .fetch(&format!("http://docs.example.com:{}/a.pdf", origin.port()))
        .await
        .unwrap();
    assert_eq!(got.body(), PDF);
    assert_eq!(r.dns.lookups(), vec!["docs.example.com"]);
    assert!(origin.heads()[0].contains(&format!("host: docs.example.com:{}\r\n", origin.port())));
}

#[tokio::test]
async fn a_deny_entry_wins() {
    let origin = pdf_origin();
    let policy = NetPolicy::parse(
        &["127.0.0.0/8".to_owned()],
        &[format!("127.0.0.1:{}", origin.port())],
    )
    .unwrap();
    let r = rig(&[], |p| p.net = policy);
    let err = r.fetcher.fetch(&origin.base("http")).await.unwrap_err();
    assert_eq!(err.code(), "ssrf.operator_deny");
    assert_eq!(origin.connections(), 0);
}

#[tokio::test]
async fn credentials_are_dropped_across_origins() {
    let second = Origin::http("127.0.0.1", |_| response(200, &[], b"second"));
    let to_second = format!("{}/x", second.base("http"));
    let first = Origin::http("127.0.0.1", move |head| match path_of(head) {
        "/" => redirect(302, "/same"),
        "/same" => redirect(302, &to_second),
        _ => response(404, &[], b""),
    });
    let allow = vec![
        format!("127.0.0.1:{}", first.port()),
        format!("127.0.0.1:{}", second.port()),
    ];
    let r = rig(&allow, |_| {});
    let got = r
        .fetcher
        .fetch_with_headers(
            &first.base("http"),
            &[
                ("Authorization", "Bearer s3cret"),
                ("Cookie", "a=b"),
                ("X-Trace", "1"),
            ],
        )
        .await
        .unwrap();
    assert_eq!(got.body(), b"second");
    let heads = first.heads();
    assert!(
        heads[0].contains("authorization: Bearer s3cret"),
        "{}",
        heads[0]
    );
    assert!(
        heads[1].contains("authorization: Bearer s3cret"),
        "same origin keeps it"
    );
    let h = &second.heads()[0];
    assert!(!h.contains("authorization") && !h.contains("cookie"), "{h}");
    assert!(h.contains("x-trace: 1"), "{h}");
    // The fetcher owns the framing headers.
    let err = r
        .fetcher
        .fetch_with_headers(&first.base("http"), &[("Host", "evil")])
        .await
        .unwrap_err();
    assert_eq!(err.code(), "fetch.config");
}

#[tokio::test]
async fn statuses_encodings_and_head_caps() {
    let origin = Origin::http("127.0.0.1", |head| match path_of(head) {
        "/404?token=s3cret" => response(404, &[], b"nope"),
        "/gzip" => response(200, &[("Content-Encoding", "gzip")], b"\x1f\x8b"),
        "/te" => response(200, &[("Transfer-Encoding", "gzip, chunked")], b""),
        "/big-head" => response(200, &[("X-Pad", &"a".repeat(100 << 10))], b""),
        "/no-location" => response(302, &[], b""),
        _ => response(200, &[("Content-Encoding", "identity")], b"ok"),
    });
    let r = rig(&allow_origin(&origin), |_| {});
    let base = origin.base("http");
    let err = r
        .fetcher
        .fetch(&format!("{base}/404?token=s3cret"))
        .await
        .unwrap_err();
    assert_eq!(err.code(), "http.status");
    assert!(matches!(
        err,
        toolgate::net::fetch::FetchError::Status { status: 404, .. }
    ));
    assert!(!err.to_string().contains("s3cret"), "{err}");
    for (path, code) in [
        ("/gzip", "fetch.encoding"),
        ("/te", "fetch.encoding"),
        ("/big-head", "http.headers_too_large"),
        ("/no-location", "http.status"),
    ] {
        let err = r.fetcher.fetch(&format!("{base}{path}")).await.unwrap_err();
        assert_eq!(err.code(), code, "{path}: {err}");
    }
    assert_eq!(
        r.fetcher.fetch(&format!("{base}/ok")).await.unwrap().body(),
        b"ok"
    );
}

#[tokio::test]
async fn a_body_over_the_cap_is_cut_while_streaming() {
    const CAP: usize = 1 << 20;
    let origin = Origin::http("127.0.0.1", |head| match path_of(head) {
        // Declared too long: refused from the header.
        "/declared" => response(200, &[], &vec![b'a'; CAP + 1]),
        // Close-delimited, no length: counted while streaming.
        _ => Reply::Stream {
            head: b"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n".to_vec(),
            chunk: vec![b'b'; 64 << 10],
            times: 64,
        },
    });
    let r = rig(&allow_origin(&origin), |p| p.max_body_bytes = CAP);
    for path in ["/declared", "/stream"] {
        let err = r
            .fetcher
            .fetch(&format!("{}{path}", origin.base("http")))
            .await
            .unwrap_err();
        assert_eq!(err.code(), "fetch.too_large", "{path}");
    }
    // Exactly at the cap passes.
    let at_cap = Origin::http("127.0.0.1", |_| response(200, &[], &vec![b'c'; CAP]));
    let r = rig(&allow_origin(&at_cap), |p| p.max_body_bytes = CAP);
    assert_eq!(
        r.fetcher
            .fetch(&at_cap.base("http"))
            .await
            .unwrap()
            .body()
            .len(),
        CAP
    );
}

#[tokio::test]
async fn a_trickling_server_hits_the_deadline() {
    let origin = Origin::http("127.0.0.1", |_| Reply::Trickle {
        head: b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 1000\r\n\r\n".to_vec(),
        every: Duration::from_millis(50),
        count: 1000,
    });
    let r = rig(&allow_origin(&origin), |p| {
        p.total_timeout = Duration::from_millis(600);
        p.read_timeout = Duration::from_secs(5);
    });
    let err = r.fetcher.fetch(&origin.base("http")).await.unwrap_err();
    assert_eq!(err.code(), "fetch.timeout", "{err}");
    // A silent server hits the read timeout.
    let silent = Origin::http("127.0.0.1", |_| Reply::Trickle {
        head: Vec::new(),
        every: Duration::from_secs(3),
        count: 1,
    });
    let r = rig(&allow_origin(&silent), |p| {
        p.read_timeout = Duration::from_millis(300)
    });
    let err = r.fetcher.fetch(&silent.base("http")).await.unwrap_err();
    assert_eq!(err.code(), "fetch.timeout", "{err}");
}

#[tokio::test]
async fn tls_with_a_test_ca() {
    let ca = test_ca(&["docs.example.com", "127.0.0.1"]);
    let origin = Origin::https("127.0.0.1", ca.server.clone(), |head| match path_of(head) {
        "/down" => redirect(302, "http://docs.example.com/"),
        _ => response(200, &[], PDF),
    });
    let allow = allow_origin(&origin);
    // Trusted through the extra root, by name and by IP literal.
    let r = rig(&allow, |_| {});
    let fetcher = r
        .fetcher
        .with_extra_roots(std::slice::from_ref(&ca.root))
        .unwrap();
    r.dns.set("docs.example.com", &[&["127.0.0.1"]]);
    let by_name = format!("https://docs.example.com:{}/a.pdf", origin.port());
    assert_eq!(fetcher.fetch(&by_name).await.unwrap().body(), PDF);
    assert_eq!(
        fetcher.fetch(&origin.base("https")).await.unwrap().body(),
        PDF
    );
    // https to http is refused even with allow_http.
    let err = fetcher
        .fetch(&format!("{}/down", origin.base("https")))
        .await
        .unwrap_err();
    assert_eq!(err.code(), "fetch.downgrade");
    // Without the extra root the handshake fails.
    let r = rig(&allow, |_| {});
    let err = r.fetcher.fetch(&origin.base("https")).await.unwrap_err();
    assert_eq!(err.code(), "fetch.tls", "{err}");
    // A name the certificate does not carry fails too.
    let r = rig(&allow, |_| {});
    let fetcher = r
        .fetcher
        .with_extra_roots(std::slice::from_ref(&ca.root))
        .unwrap();
    r.dns.set("other.example.com", &[&["127.0.0.1"]]);
    let err = fetcher
        .fetch(&format!("https://other.example.com:{}/", origin.port()))
        .await
        .unwrap_err();
    assert_eq!(err.code(), "fetch.tls", "{err}");
}

// ---- the property: no dial ever goes to a refused address ----------------

/// A node of a generated redirect graph.
#[derive(Debug, Clone)]
enum Node {
    /// On the allowed origin (by literal, or by a name resolving to it):
    /// redirect to another node, or serve.
    Allowed { by_name: bool, next: Option<usize> },
    /// A refused destination.
    Refused(usize),
}

/// Refused destinations: literals, names resolving to refused addresses,
/// a mixed answer, a rebinding name (allowed on the first lookup only).
const REFUSED: &[(&str, &str)] = &[
    ("http://127.0.0.2:{INTERNAL}/", "ssrf.loopback"),
    ("http://169.254.169.254/", "ssrf.cloud_metadata"),
    ("http://[::ffff:127.0.0.1]:{PORT}/", "ssrf.loopback"),
    ("http://[::1]:{PORT}/", "ssrf.loopback"),
    ("http://10.1.2.3/", "ssrf.private_use"),
    ("http://internal.example.com:{PORT}/", "ssrf.loopback"),
    ("http://mixed.example.com:{PORT}/", "ssrf.private_use"),
    ("https://nowhere.example.com/", "fetch.dns"),
];

fn node() -> impl Strategy<Value = Node> {
    prop_oneof![
        3 => (any::<bool>(), proptest::option::of(0usize..8)).prop_map(|(by_name, next)| Node::Allowed { by_name, next }),
        1 => (0..REFUSED.len()).prop_map(Node::Refused),
    ]
}

fn url_of(nodes: &[Node], i: usize, port: u16, internal: u16) -> String {
    match &nodes[i] {
        Node::Allowed { by_name: false, .. } => format!("http://127.0.0.1:{port}/n/{i}"),
        Node::Allowed { by_name: true, .. } => format!("http://ok.example.com:{port}/n/{i}"),
        Node::Refused(k) => REFUSED[*k]
            .0
            .replace("{PORT}", &port.to_string())
            .replace("{INTERNAL}", &internal.to_string()),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]
    #[test]
    fn no_dial_ever_goes_to_a_refused_address(nodes in proptest::collection::vec(node(), 1..8)) {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let internal = Origin::counter("127.0.0.2");
        let graph = Arc::new(std::sync::Mutex::new((nodes.clone(), 0u16)));
        let g = graph.clone();
        let internal_port = internal.port();
        let origin = Origin::http("127.0.0.1", move |head| {
            let (nodes, port) = &*g.lock().unwrap();
            let i: usize = path_of(head).trim_start_matches("/n/").parse().unwrap();
            match &nodes[i] {
                Node::Allowed { next: Some(j), .. } if *j < nodes.len() => redirect(302, &url_of(nodes, *j, *port, internal_port)),
                _ => response(200, &[], format!("node {i}").as_bytes()),
            }
        });
        graph.lock().unwrap().1 = origin.port();
        let r = rig(&allow_origin(&origin), |_| {});
        r.dns.set("ok.example.com", &[&["127.0.0.1"]]);
        r.dns.set("internal.example.com", &[&["127.0.0.2"]]);
        r.dns.set("mixed.example.com", &[&["127.0.0.1", "10.0.0.7"]]);
        let start = url_of(&nodes, 0, origin.port(), internal.port());
        let got = rt.block_on(r.fetcher.fetch(&start));
        // The oracle: walk the graph.
        let mut i = 0;
        let mut hops = 0;
        let expected: Result<String, &str> = loop {
            match &nodes[i] {
                Node::Refused(k) => break Err(REFUSED[*k].1),
                Node::Allowed { next: Some(j), .. } if *j < nodes.len() => {
                    if hops == MAX_REDIRECTS { break Err("fetch.too_many_redirects"); }
                    hops += 1;
                    i = *j;
                }
                Node::Allowed { .. } => break Ok(format!("node {i}")),
            }
        };
        let got = got.map(|f| String::from_utf8(f.into_body()).unwrap()).map_err(|e| e.code());
        prop_assert_eq!(got, expected);
        for d in r.guard.dials() {
            prop_assert_eq!(d, SocketAddr::from(([127, 0, 0, 1], origin.port())));
        }
        prop_assert_eq!(internal.connections(), 0);
    }
}

#[tokio::test]
async fn the_test_connector_refuses_what_is_not_loopback() {
    // A vetted public address is dialled through the guard, which records it
    // and opens no socket: the fixture that keeps every other test local.
    let r = rig(&[], |_| {});
    r.dns.set("public.example.com", &[&["93.184.215.14"]]);
    let err = r
        .fetcher
        .fetch("https://public.example.com/")
        .await
        .unwrap_err();
    assert_eq!(err.code(), "fetch.connect", "{err}");
    assert_eq!(r.guard.dials(), vec!["93.184.215.14:443".parse().unwrap()]);
}

/// The `toolgate fetch` binary: exit codes, `error: CODE: reason`, output
/// file, environment proxies, peak memory at and over the cap.
#[cfg(feature = "cli")]
mod cli {
    use super::*;
    use std::process::{Command, Output};

    fn toolgate(args: &[&str]) -> Command {
        let mut c = Command::new(env!("CARGO_BIN_EXE_toolgate"));
        c.arg("fetch").args(args);
        c
    }

    fn stderr(o: &Output) -> String {
        String::from_utf8_lossy(&o.stderr).into_owned()
    }

    #[test]
    fn body_to_stdout_or_file_and_errors_with_their_code() {
        let origin = Origin::http("127.0.0.1", |head| match path_of(head) {
            "/doc.pdf" => response(200, &[], PDF),
            _ => response(404, &[], b"no"),
        });
        let allow = format!("127.0.0.1:{}", origin.port());
        let url = format!("{}/doc.pdf", origin.base("http"));
        let o = toolgate(&["--allow-http", "--allow", &allow, &url])
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", stderr(&o));
        assert_eq!(o.stdout, PDF);
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("out.pdf");
        let o = toolgate(&[
            "--allow-http",
            "--allow",
            &allow,
            "-o",
            file.to_str().unwrap(),
            &url,
        ])
        .output()
        .unwrap();
        assert!(o.status.success() && o.stdout.is_empty(), "{}", stderr(&o));
        assert_eq!(std::fs::read(&file).unwrap(), PDF);
        // Failures: exit 1, one line `error: CODE: reason`, no query string.
        let secret = format!("{}/missing?token=s3cret", origin.base("http"));
        for (args, code) in [
            (vec!["--allow-http", secret.as_str()], "ssrf.loopback"),
            (
                vec!["--allow", &allow, secret.as_str()],
                "fetch.insecure_scheme",
            ),
            (
                vec!["--allow-http", "--allow", &allow, secret.as_str()],
                "http.status",
            ),
            (
                vec![
                    "--allow-http",
                    "--allow",
                    &allow,
                    "--max-bytes",
                    "100",
                    url.as_str(),
                ],
                "fetch.too_large",
            ),
            (
                vec![
                    "--allow-http",
                    "--deny",
                    &allow,
                    "--allow",
                    "127.0.0.0/8",
                    url.as_str(),
                ],
                "ssrf.operator_deny",
            ),
        ] {
            let o = toolgate(&args).output().unwrap();
            let e = stderr(&o);
            assert_eq!(o.status.code(), Some(1), "{args:?}: {e}");
            assert!(e.starts_with(&format!("error: {code}: ")), "{args:?}: {e}");
            assert_eq!(e.lines().count(), 1, "{e}");
            assert!(!e.contains("s3cret"), "{e}");
            assert!(o.stdout.is_empty());
        }
        // Bad entries are usage errors.
        for bad in [
            "10.0.0.1/8",
            "169.254.169.254",
            "host:0",
            "0.0.0.0",
            "::",
            "0.0.0.0/8",
        ] {
            let o = toolgate(&["--allow", bad, &url]).output().unwrap();
            assert_eq!(o.status.code(), Some(2), "{bad}: {}", stderr(&o));
        }
    }

    #[test]
    fn environment_proxies_are_never_used() {
        let proxy = Origin::counter("127.0.0.1");
        let origin = pdf_origin();
        let p = format!("http://{}", proxy.addr());
        let allow = format!("127.0.0.1:{}", origin.port());
        let with_proxies = |args: &[&str]| {
            let mut c = toolgate(args);
            for v in [
                "HTTP_PROXY",
                "HTTPS_PROXY",
                "ALL_PROXY",
                "http_proxy",
                "https_proxy",
                "all_proxy",
            ] {
                c.env(v, &p);
            }
            c.env_remove("NO_PROXY").env_remove("no_proxy");
            c.output().unwrap()
        };
        let o = with_proxies(&[
            "--allow-http",
            "--allow",
            &allow,
            &format!("{}/doc.pdf", origin.base("http")),
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        assert_eq!(o.stdout, PDF);
        // Names a proxy would have resolved for us are still vetted here.
        let o = with_proxies(&["https://metadata.google.internal/computeMetadata/v1/"]);
        assert!(
            stderr(&o).starts_with("error: ssrf.metadata_name: "),
            "{}",
            stderr(&o)
        );
        let o = with_proxies(&["--allow-http", "http://169.254.169.254/latest/meta-data/"]);
        assert!(
            stderr(&o).starts_with("error: ssrf.cloud_metadata: "),
            "{}",
            stderr(&o)
        );
        assert_eq!(proxy.connections(), 0);
        assert_eq!(origin.connections(), 1);
    }

    /// Peak RSS (KiB) of `cmd`, read by python's `getrusage(RUSAGE_CHILDREN)`;
    /// `None` where python3 is missing.
    fn peak_rss_kib(cmd: &Command) -> Option<(i32, u64)> {
        let mut py = Command::new("python3");
        py.arg("-c").arg(
            "import resource,subprocess,sys\n\
             r=subprocess.run(sys.argv[1:],stdout=subprocess.DEVNULL,stderr=subprocess.DEVNULL)\n\
             print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)",
        );
        py.arg(cmd.get_program()).args(cmd.get_args());
        let out = py.output().ok()?;
        let text = String::from_utf8(out.stdout).ok()?;
        let mut it = text.split_whitespace();
        Some((it.next()?.parse().ok()?, it.next()?.parse().ok()?))
    }

    #[test]
    fn peak_memory_stays_near_the_cap() {
        const MIB: usize = 1 << 20;
        let origin = Origin::http("127.0.0.1", |head| match path_of(head) {
            // 64 MiB, exactly the default cap, with its length.
            "/at-cap" => Reply::Stream {
                head: format!(
                    "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: {}\r\n\r\n",
                    64 * MIB
                )
                .into_bytes(),
                chunk: vec![b'a'; MIB],
                times: 64,
            },
            // 512 MiB, no length: cut while streaming at a 16 MiB cap.
            _ => Reply::Stream {
                head: b"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n".to_vec(),
                chunk: vec![b'b'; MIB],
                times: 512,
            },
        });
        let allow = format!("127.0.0.1:{}", origin.port());
        let over = toolgate(&[
            "--allow-http",
            "--allow",
            &allow,
            "--max-bytes",
            &(16 * MIB).to_string(),
            &format!("{}/over", origin.base("http")),
        ]);
        let Some((code, over_kib)) = peak_rss_kib(&over) else {
            eprintln!("python3 not found: peak RSS not measured");
            return;
        };
        assert_eq!(code, 1);
        let at = toolgate(&[
            "--allow-http",
            "--allow",
            &allow,
            &format!("{}/at-cap", origin.base("http")),
        ]);
        let (code, at_kib) = peak_rss_kib(&at).unwrap();
        assert_eq!(code, 0);
        eprintln!(
            "peak RSS: 512 MiB body at a 16 MiB cap: {} MiB; 64 MiB body at the 64 MiB cap: {} MiB",
            over_kib / 1024,
            at_kib / 1024
        );
        assert!(over_kib < 64 * 1024, "{over_kib} KiB for a 16 MiB cap");
        assert!(at_kib < (64 + 48) * 1024, "{at_kib} KiB for a 64 MiB cap");
    }
}

#[test]
fn the_code_table_lists_every_fetch_code() {
    let doc =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/codes.md")).unwrap();
    let start = doc.find("<!-- section:codes-fetch:begin -->").unwrap();
    let end = doc.find("<!-- section:codes-fetch:end -->").unwrap();
    for c in toolgate::net::fetch::FetchCode::ALL {
        assert!(
            doc[start..end].contains(&format!("| `{}` |", c.code())),
            "docs/codes.md lacks {c}"
        );
        assert!(!c.source().is_empty());
    }
}
