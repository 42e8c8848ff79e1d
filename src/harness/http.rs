//! Fuzz target `http_head`: the Streamable HTTP transport's head checks
//! ([`crate::engine::transport::http::guard`] and
//! [`mirror`](crate::engine::transport::http::mirror)) on arbitrary header
//! fields, each against an independent model of what it must accept.
//!
//! Input: lines; the first is `METHOD NAME` (the body's method and its
//! mirrored member, `-` for none), every other `field-name: value` (lines
//! that are no valid header field are skipped, as a parser would refuse
//! them). The allowlist is the loopback names and `mcp.example.com` at port
//! 8080, the token `s3cret`.

use hyper::header::{HeaderMap, HeaderName, HeaderValue};
use serde_json::{json, Map, Value};

use crate::engine::transport::http::guard::{self, Allowlist, BearerToken};
use crate::engine::transport::http::{mirror, Kind};
use crate::engine::META_PROTOCOL_VERSION;

const PORT: u16 = 8080;
const NAMES: [&str; 4] = ["127.0.0.1", "localhost", "[::1]", "mcp.example.com"];
const TOKEN: &str = "s3cret";

/// The values of `name` as the checks see them.
fn values<'a>(h: &'a HeaderMap, name: &str) -> Vec<&'a HeaderValue> {
    h.get_all(name).iter().collect()
}

/// The model's reading of an authority: `host` lowercase and the port as a
/// number (`default` without one); `None` when it is no authority.
fn authority(a: &str, default: u16) -> Option<(String, u16)> {
    let a = a.to_ascii_lowercase();
    let (host, port) = match a.rfind(':') {
        Some(i) if !a[..i].is_empty() && (!a.starts_with('[') || a[..i].ends_with(']')) => {
            let p = &a[i + 1..];
            // A port as written: digits, no leading zero.
            if p.is_empty()
                || !p.bytes().all(|b| b.is_ascii_digit())
                || (p.len() > 1 && p.starts_with('0'))
            {
                return None;
            }
            (a[..i].to_owned(), p.parse().ok()?)
        }
        _ => (a.clone(), default),
    };
    Some((host, port))
}

fn listed(a: &str, default: u16) -> bool {
    authority(a, default).is_some_and(|(h, p)| p == PORT && NAMES.contains(&h.as_str()))
}

fn host_ok(h: &HeaderMap) -> bool {
    match values(h, "host").as_slice() {
        [v] => v.to_str().is_ok_and(|s| listed(s, 80)),
        _ => false,
    }
}

fn origin_ok(h: &HeaderMap) -> bool {
    match values(h, "origin").as_slice() {
        [] => true,
        [v] => v.to_str().is_ok_and(|s| {
            let (rest, default) = if let Some(r) = s.strip_prefix("http://") {
                (r, 80)
            } else if let Some(r) = s.strip_prefix("https://") {
                (r, 443)
            } else {
                return false;
            };
            !rest.contains('/') && listed(rest, default)
        }),
        _ => false,
    }
}

fn bearer_ok(h: &HeaderMap) -> bool {
    match values(h, "authorization").as_slice() {
        [v] => v.to_str().is_ok_and(|s| {
            s.split_once(' ').is_some_and(|(scheme, rest)| {
                scheme.eq_ignore_ascii_case("bearer") && rest.trim_start_matches(' ') == TOKEN
            })
        }),
        _ => false,
    }
}

fn content_type_ok(h: &HeaderMap) -> bool {
    match values(h, "content-type").as_slice() {
        [v] => v.to_str().is_ok_and(|s| {
            s.split(';')
                .next()
                .is_some_and(|e| e.trim().eq_ignore_ascii_case("application/json"))
        }),
        _ => false,
    }
}

/// The one value of `name` as the mirror reads it; `Err` when repeated or
/// an undecodable sentinel.
fn mirrored(h: &HeaderMap, name: &str) -> Result<Option<Vec<u8>>, ()> {
    use base64::Engine as _;
    match values(h, name).as_slice() {
        [] => Ok(None),
        [v] => {
            let b = v.as_bytes();
            if b.len() >= 11 && b.starts_with(b"=?base64?") && b.ends_with(b"?=") {
                base64::engine::general_purpose::STANDARD
                    .decode(&b[9..b.len() - 2])
                    .map(Some)
                    .map_err(|_| ())
            } else {
                Ok(Some(b.to_vec()))
            }
        }
        _ => Err(()),
    }
}

fn mirror_ok(h: &HeaderMap, method: &str, name: Option<&str>) -> bool {
    let (Ok(version), Ok(m), Ok(n)) = (
        mirrored(h, "mcp-protocol-version"),
        mirrored(h, "mcp-method"),
        mirrored(h, "mcp-name"),
    ) else {
        return false;
    };
    let mirrors_a_name = mirror::named_member(method).is_some();
    version.as_deref() == Some(b"2026-07-28".as_slice())
        && m.as_deref() == Some(method.as_bytes())
        && match (n, name.filter(|_| mirrors_a_name)) {
            (None, None) => true,
            (Some(h), Some(b)) => h == b.as_bytes(),
            _ => false,
        }
}

/// Fuzz target `http_head`.
pub fn http_head(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let mut lines = text.split('\n');
    let first = lines.next().unwrap_or("");
    let (method, name) = first.split_once(' ').unwrap_or((first, "-"));
    let name = (name != "-").then_some(name);
    let mut h = HeaderMap::new();
    for line in lines {
        let Some((k, v)) = line.split_once(':') else {
            continue;
        };
        let (Ok(k), Ok(v)) = (
            HeaderName::from_bytes(k.trim().as_bytes()),
            HeaderValue::from_str(v.trim_matches([' ', '\t'])),
        ) else {
            continue;
        };
        h.append(k, v);
    }

    let allow = Allowlist::new(NAMES, PORT);
    let origin = guard::check_origin(&h, &allow);
    match (host_ok(&h), origin_ok(&h)) {
        (true, true) => assert!(origin.is_ok(), "{origin:?} for {h:?}"),
        (false, _) => assert_eq!(
            origin.map_err(|r| r.kind),
            Err(Kind::HostNotAllowed),
            "{h:?}"
        ),
        (true, false) => {
            assert_eq!(
                origin.map_err(|r| r.kind),
                Err(Kind::OriginNotAllowed),
                "{h:?}"
            );
        }
    }

    let token = BearerToken::new(TOKEN).unwrap();
    let bearer = guard::check_bearer(&h, Some(&token));
    assert_eq!(bearer.is_ok(), bearer_ok(&h), "{bearer:?} for {h:?}");
    assert!(guard::check_bearer(&h, None).is_ok());

    let ct = guard::check_content_type(&h);
    assert_eq!(ct.is_ok(), content_type_ok(&h), "{ct:?} for {h:?}");

    // Accept: at least one of the two whenever it answers Ok; no header takes both.
    match guard::check_accept(&h) {
        Ok(a) => assert!(a.json || a.sse),
        Err(r) => {
            assert_eq!(r.kind, Kind::NotAcceptable);
            assert!(!values(&h, "accept").is_empty());
        }
    }

    let mut params = Map::new();
    params.insert(
        "_meta".into(),
        json!({ META_PROTOCOL_VERSION: "2026-07-28" }),
    );
    if let (Some(member), Some(n)) = (mirror::named_member(method), name) {
        params.insert(member.into(), Value::from(n));
    }
    let checked = mirror::check(&h, true, method, Some(&params));
    assert_eq!(
        checked.is_ok(),
        mirror_ok(&h, method, name),
        "{checked:?} for {method} {name:?} {h:?}"
    );
    if let Err(r) = checked {
        assert_eq!(r.kind, Kind::HeaderMismatch);
    }
}
