//! Harness for the fetcher's per-hop policy ([`FetchPolicy::admit`] and
//! [`FetchPolicy::next_hop`]): the decisions taken before every connection,
//! without any network.

use crate::net::fetch::{FetchCode, FetchError, FetchPolicy, MAX_REDIRECTS};
use crate::net::{
    classify_ip, refused_name, Admitted, DenialCode, NetPolicy, Target, MAX_URL_BYTES,
};

/// Allow lists the first input byte picks from.
const ALLOW: &[&[&str]] = &[
    &[],
    &["127.0.0.1:8080"],
    &[
        "10.0.0.0/8",
        "::ffff:0:0/96",
        "intranet.local",
        "*.corp.example:443",
    ],
    &["0.0.0.0/0", "::/0", "*.internal", "localhost"],
];

/// Deny lists.
const DENY: &[&[&str]] = &[&[], &["10.9.0.0/16", "evil.example", "127.0.0.1:8080"]];

/// Fuzz target `fetch_redirects`: byte 0 picks the policy (bit 0
/// allow-http, bits 1-2 the allow list, bit 3 the deny list); the rest is
/// lines: the first URL, then one `Location` value per redirect. Every hop
/// the policy admits is one the fetcher may connect to, so it must satisfy
/// the rules of [`crate::net::NetPolicy`] and the scheme rules; every
/// refusal carries a known code. At most [`MAX_REDIRECTS`] redirects are
/// walked, as the fetcher does.
pub fn fetch_redirects(data: &[u8]) {
    let Some((&flags, rest)) = data.split_first() else {
        return;
    };
    let allow = ALLOW[usize::from(flags >> 1) & 3];
    let deny = DENY[usize::from(flags >> 3) & 1];
    let policy = FetchPolicy {
        allow_http: flags & 1 == 1,
        net: NetPolicy::parse(allow, deny).unwrap(),
        ..FetchPolicy::default()
    };
    let mut lines = rest.split(|&b| b == b'\n');
    let Some(first) = lines.next() else {
        return;
    };
    let Ok(first) = std::str::from_utf8(first) else {
        return;
    };
    let mut current = match policy.admit(first) {
        Ok(a) => a,
        Err(e) => return check_error(&e),
    };
    check_admitted(&policy, &current);
    for location in lines.take(MAX_REDIRECTS) {
        match policy.next_hop(&current, location) {
            Ok(next) => {
                check_admitted(&policy, &next);
                assert!(
                    !(current.url().scheme() == "https" && next.url().scheme() == "http"),
                    "downgrade {} -> {}",
                    current.url(),
                    next.url()
                );
                current = next;
            }
            Err(e) => {
                if e.kind() == Some(FetchCode::Downgrade) {
                    assert_eq!(current.url().scheme(), "https");
                }
                return check_error(&e);
            }
        }
    }
}

fn check_error(e: &FetchError) {
    let code = e.code();
    assert!(
        DenialCode::from_code(code).is_some() || FetchCode::from_code(code).is_some(),
        "unknown code {code}"
    );
    assert!(!e.reason().is_empty());
    if let Some(d) = e.denial() {
        assert_eq!(d.code(), code);
    }
}

/// What a hop the fetcher may connect to satisfies.
fn check_admitted(policy: &FetchPolicy, a: &Admitted) {
    let url = a.url();
    match url.scheme() {
        "https" => {}
        "http" => assert!(policy.allow_http, "http admitted without allow_http: {url}"),
        s => panic!("scheme {s} admitted: {url}"),
    }
    assert!(url.username().is_empty() && url.password().is_none());
    assert_eq!(Some(a.port()), url.port_or_known_default());
    let net = &policy.net;
    match a.target() {
        Target::Ip(ip) => {
            let reach = classify_ip(ip);
            assert_ne!(reach.code(), Some(DenialCode::CloudMetadata), "{url}");
            assert!(
                reach.is_global() || net.allow().iter().any(|e| e.matches_addr(ip, a.port())),
                "{url}: non-global {ip} without an allow entry"
            );
            assert!(
                !net.deny().iter().any(|e| e.matches_addr(ip, a.port())),
                "{url}: {ip} is denied"
            );
            assert!(net.check_addr(ip, a.port(), None).is_ok());
        }
        Target::Domain(d) => {
            let refused = refused_name(d);
            assert_ne!(refused, Some(DenialCode::MetadataName), "{url}");
            assert!(
                refused.is_none() || net.allow().iter().any(|e| e.matches_name(d, a.port())),
                "{url}: refused name without an allow entry"
            );
            assert!(
                !net.deny().iter().any(|e| e.matches_name(d, a.port())),
                "{url}: {d} is denied"
            );
        }
    }
    // Admitting the vetted serialisation again gives the same hop.
    if url.as_str().len() <= MAX_URL_BYTES {
        let again = policy.admit(url.as_str()).unwrap();
        assert_eq!(again.url(), url);
    }
}
