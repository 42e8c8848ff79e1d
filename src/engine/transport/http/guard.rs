//! The checks on a request's head, before its body is read: whom it
//! addresses (`Host`), where a browser sent it from (`Origin`), who sent
//! it (`Authorization`), what it carries (`Content-Type`), what it takes
//! back (`Accept`) and which revision it speaks (`MCP-Protocol-Version`).
//!
//! Every function here is a pure function of header values, so each
//! refusal is decided the same way whichever front asks. A header that
//! must appear at most once and appears twice is refused, never read as
//! its first or its last value.

use hyper::header::{GetAll, HeaderMap, HeaderValue, ACCEPT, AUTHORIZATION, CONTENT_TYPE, HOST};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use super::refusal::{Kind, Refusal};
use crate::engine::Revision;

/// The `MCP-Protocol-Version` header (names compare case-insensitively).
pub const PROTOCOL_VERSION_HEADER: &str = "mcp-protocol-version";
/// The `Mcp-Session-Id` header.
pub const SESSION_HEADER: &str = "mcp-session-id";

/// The names a request may address this server by (`Host`) and the origins
/// a browser request may come from (`Origin`): authorities `host:port`,
/// compared in ASCII lowercase, IPv6 in brackets.
///
/// An empty list allows nothing, never everything.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Allowlist {
    authorities: Vec<String>,
}

impl Allowlist {
    /// The loopback names with `port`: `127.0.0.1`, `localhost` and
    /// `[::1]` (the default of a loopback bind).
    pub fn loopback(port: u16) -> Self {
        Self::new(["127.0.0.1", "localhost", "[::1]"], port)
    }

    /// `entries`, each `host` or `host:port`; a host without a port takes
    /// `port` (the port the server listens on). Empty entries are skipped:
    /// a list of only empty entries allows nothing.
    pub fn new<I, S>(entries: I, port: u16) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let authorities = entries
            .into_iter()
            .filter_map(|e| {
                let e = e.as_ref().trim().to_ascii_lowercase();
                if e.is_empty() {
                    return None;
                }
                Some(match split_authority(&e) {
                    Some((_, Some(_))) => e,
                    _ => format!("{e}:{port}"),
                })
            })
            .collect();
        Self { authorities }
    }

    /// The authorities allowed, each `host:port`.
    pub fn authorities(&self) -> &[String] {
        &self.authorities
    }

    /// Whether `authority` (`host[:port]`, `default_port` when it has none)
    /// is listed.
    pub fn allows(&self, authority: &str, default_port: u16) -> bool {
        let lower = authority.to_ascii_lowercase();
        let Some((host, port)) = split_authority(&lower) else {
            return false;
        };
        if host.is_empty() {
            return false;
        }
        let full = match port {
            Some(p) => format!("{host}:{p}"),
            None => format!("{host}:{default_port}"),
        };
        self.authorities.contains(&full)
    }
}

/// `host[:port]` split at the port's colon (IPv6 in brackets); `None` for
/// anything else (userinfo, a path, a bad port, characters no host name
/// has).
fn split_authority(a: &str) -> Option<(&str, Option<u16>)> {
    let bad =
        |c: char| !(c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_' | ':' | '[' | ']'));
    if a.is_empty() || a.chars().any(bad) {
        return None;
    }
    let (host, port) = if let Some(rest) = a.strip_prefix('[') {
        let end = rest.find(']')?;
        let host = a.get(..end + 2)?;
        let after = rest.get(end + 1..)?;
        match after.strip_prefix(':') {
            Some(p) => (host, Some(p)),
            None if after.is_empty() => (host, None),
            None => return None,
        }
    } else {
        match a.split_once(':') {
            Some((h, p)) => (h, Some(p)),
            None => (a, None),
        }
    };
    if host.contains(['[', ']']) && !host.starts_with('[') {
        return None;
    }
    let port = match port {
        None => None,
        // Digits as a port is written: no sign, no leading zero.
        Some(p)
            if !p.is_empty()
                && p.bytes().all(|b| b.is_ascii_digit())
                && (p == "0" || !p.starts_with('0')) =>
        {
            Some(p.parse().ok()?)
        }
        Some(_) => return None,
    };
    Some((host, port))
}

/// The one value of header `name`: `Ok(None)` when absent, refused as
/// `kind` when it appears more than once or is not visible ASCII.
fn one<'a>(values: GetAll<'a, HeaderValue>, kind: Kind) -> Result<Option<&'a str>, Refusal> {
    let mut it = values.iter();
    let first = it.next();
    if it.next().is_some() {
        return Err(Refusal::new(kind, "the header appears more than once"));
    }
    match first {
        None => Ok(None),
        Some(v) => v
            .to_str()
            .map(Some)
            .map_err(|_| Refusal::new(kind, "the header value is not visible ASCII")),
    }
}

/// Checks `Host` (exactly one, listed) and `Origin` (absent, or exactly
/// one whose `scheme://authority` is listed; `null` is refused).
///
/// # Errors
/// [`Kind::HostNotAllowed`] or [`Kind::OriginNotAllowed`] (HTTP 403).
pub fn check_origin(headers: &HeaderMap, allow: &Allowlist) -> Result<(), Refusal> {
    check_origin_of(headers, None, allow)
}

/// [`check_origin`], and the authority of an absolute-form request target
/// (`POST http://host/mcp`) when there is one: it must be listed too (RFC
/// 9112 §3.2.2: it replaces `Host`).
///
/// # Errors
/// As [`check_origin`].
pub fn check_origin_of(
    headers: &HeaderMap,
    target: Option<&str>,
    allow: &Allowlist,
) -> Result<(), Refusal> {
    if let Some(t) = target {
        if !allow.allows(t, 80) {
            return Err(Refusal::new(
                Kind::HostNotAllowed,
                format!("the request target names {t:?}, not an allowed name for this server"),
            ));
        }
    }
    let host = one(headers.get_all(HOST), Kind::HostNotAllowed)?
        .ok_or_else(|| Refusal::new(Kind::HostNotAllowed, "no Host header"))?;
    if !allow.allows(host, 80) {
        return Err(Refusal::new(
            Kind::HostNotAllowed,
            format!("Host {host:?} is not an allowed name for this server"),
        ));
    }
    let Some(origin) = one(
        headers.get_all(hyper::header::ORIGIN),
        Kind::OriginNotAllowed,
    )?
    else {
        return Ok(());
    };
    let (default_port, authority) = if let Some(a) = origin.strip_prefix("http://") {
        (80, a)
    } else if let Some(a) = origin.strip_prefix("https://") {
        (443, a)
    } else {
        return Err(Refusal::new(
            Kind::OriginNotAllowed,
            format!("Origin {origin:?} is not an allowed origin"),
        ));
    };
    if authority.contains('/') || !allow.allows(authority, default_port) {
        return Err(Refusal::new(
            Kind::OriginNotAllowed,
            format!("Origin {origin:?} is not an allowed origin"),
        ));
    }
    Ok(())
}

/// A bearer token, kept as its SHA-256 so a comparison takes the same time
/// whatever the bytes and the length of the presented one.
#[derive(Clone)]
pub struct BearerToken {
    digest: [u8; 32],
}

impl std::fmt::Debug for BearerToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("BearerToken(..)")
    }
}

impl BearerToken {
    /// The token `secret` (surrounding white space removed: a token file
    /// usually ends in a newline).
    ///
    /// # Errors
    /// When `secret` is empty or holds characters a `b64token` (RFC 6750
    /// §2.1) cannot: such a token could never be presented.
    pub fn new(secret: &str) -> Result<Self, String> {
        let secret = secret.trim();
        if secret.is_empty() {
            return Err("the token is empty".into());
        }
        if !secret.bytes().all(is_b64token_byte) {
            return Err(
                "the token holds a character a bearer token cannot (RFC 6750 b64token)".into(),
            );
        }
        Ok(Self {
            digest: Sha256::digest(secret.as_bytes()).into(),
        })
    }

    fn matches(&self, presented: &str) -> bool {
        let digest: [u8; 32] = Sha256::digest(presented.as_bytes()).into();
        digest.ct_eq(&self.digest).into()
    }
}

fn is_b64token_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'+' | b'/' | b'=')
}

/// Checks `Authorization: Bearer <token>` (the scheme in any case, one
/// header) when a token is required.
///
/// # Errors
/// [`Kind::Unauthorized`] (HTTP 401) when it is missing, not a bearer
/// token, or not the token.
pub fn check_bearer(headers: &HeaderMap, token: Option<&BearerToken>) -> Result<(), Refusal> {
    let Some(token) = token else {
        return Ok(());
    };
    let value = one(headers.get_all(AUTHORIZATION), Kind::Unauthorized)?
        .ok_or_else(|| Refusal::new(Kind::Unauthorized, "a bearer token is required"))?;
    let presented = value
        .split_once(' ')
        .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
        .map(|(_, t)| t.trim_start_matches(' '));
    match presented {
        Some(t) if token.matches(t) => Ok(()),
        // RFC 6750 §3.1: a token was presented and is not the token.
        Some(_) => Err(
            Refusal::new(Kind::Unauthorized, "the bearer token is not valid")
                .with_data("error", "invalid_token".into()),
        ),
        None => Err(Refusal::new(
            Kind::Unauthorized,
            "the Authorization header is not a bearer token",
        )),
    }
}

/// A digest of the credential in `Authorization` (all zeros without one):
/// a session is bound to the credential that created it. A bearer token
/// counts as its token (the scheme in any case, the spaces before it not
/// counted); any other value as written.
pub fn credential(headers: &HeaderMap) -> [u8; 32] {
    let mut h = Sha256::new();
    let mut any = false;
    for v in &headers.get_all(AUTHORIZATION) {
        let bytes = v.as_bytes();
        let token = bytes
            .iter()
            .position(|b| *b == b' ')
            .filter(|&i| {
                bytes
                    .get(..i)
                    .is_some_and(|s| s.eq_ignore_ascii_case(b"bearer"))
            })
            .and_then(|i| bytes.get(i..))
            .map(|t| {
                let start = t.iter().position(|b| *b != b' ').unwrap_or(t.len());
                t.get(start..).unwrap_or_default()
            });
        match token {
            Some(t) => {
                h.update(b"bearer\0");
                h.update(t);
            }
            None => h.update(bytes),
        }
        h.update([0]);
        any = true;
    }
    if any {
        h.finalize().into()
    } else {
        [0; 32]
    }
}

/// Checks that the body is declared `application/json` (parameters such as
/// `charset=utf-8` allowed): a cross-site `text/plain` POST never reaches
/// the engine.
///
/// # Errors
/// [`Kind::UnsupportedMediaType`] (HTTP 415).
pub fn check_content_type(headers: &HeaderMap) -> Result<(), Refusal> {
    let value =
        one(headers.get_all(CONTENT_TYPE), Kind::UnsupportedMediaType)?.ok_or_else(|| {
            Refusal::new(
                Kind::UnsupportedMediaType,
                "Content-Type must be application/json",
            )
        })?;
    let essence = value.split(';').next().unwrap_or("").trim();
    if essence.eq_ignore_ascii_case("application/json") {
        Ok(())
    } else {
        Err(Refusal::new(
            Kind::UnsupportedMediaType,
            format!("Content-Type {value:?} is not application/json"),
        ))
    }
}

/// What a client takes back, from its `Accept` headers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Accepts {
    /// `application/json` is acceptable.
    pub json: bool,
    /// `text/event-stream` is acceptable.
    pub sse: bool,
}

/// Reads `Accept` (every header, each a comma-separated list; a range with
/// `q=0` is not acceptable). No `Accept` header takes anything.
///
/// # Errors
/// [`Kind::NotAcceptable`] (HTTP 406) when neither JSON nor an event
/// stream is acceptable.
pub fn check_accept(headers: &HeaderMap) -> Result<Accepts, Refusal> {
    let mut any_header = false;
    let mut accepts = Accepts {
        json: false,
        sse: false,
    };
    for value in &headers.get_all(ACCEPT) {
        any_header = true;
        let Ok(value) = value.to_str() else {
            continue;
        };
        for range in value.split(',') {
            let mut parts = range.split(';');
            let media = parts.next().unwrap_or("").trim().to_ascii_lowercase();
            let refused = parts.any(|p| {
                let p = p.trim();
                p.get(..2).is_some_and(|k| k.eq_ignore_ascii_case("q="))
                    && p.get(2..).and_then(|q| q.parse::<f32>().ok()) == Some(0.0)
            });
            if refused {
                continue;
            }
            match media.as_str() {
                "*/*" => {
                    accepts.json = true;
                    accepts.sse = true;
                }
                "application/*" | "application/json" => accepts.json = true,
                "text/*" | "text/event-stream" => accepts.sse = true,
                _ => {}
            }
        }
    }
    if !any_header {
        return Ok(Accepts {
            json: true,
            sse: true,
        });
    }
    if accepts.json || accepts.sse {
        Ok(accepts)
    } else {
        Err(Refusal::new(
            Kind::NotAcceptable,
            "Accept must allow application/json or text/event-stream",
        ))
    }
}

/// Reads `MCP-Protocol-Version`: `Ok(None)` when absent, else a revision
/// this server speaks.
///
/// # Errors
/// [`Kind::BadProtocolVersion`] (HTTP 400) for a repeated header or a
/// version not served.
pub fn protocol_version(headers: &HeaderMap) -> Result<Option<Revision>, Refusal> {
    let Some(v) = one(
        headers.get_all(PROTOCOL_VERSION_HEADER),
        Kind::BadProtocolVersion,
    )?
    else {
        return Ok(None);
    };
    Revision::parse(v).map(Some).ok_or_else(|| {
        Refusal::new(
            Kind::BadProtocolVersion,
            format!(
                "MCP-Protocol-Version {v:?} is not a revision this server speaks ({})",
                crate::engine::supported_versions().join(", ")
            ),
        )
        .with_data("requested", v.into())
    })
}

/// Reads `Mcp-Session-Id`: `Ok(None)` when absent.
///
/// # Errors
/// [`Kind::UnknownSession`] (HTTP 404) for a repeated header or a value
/// that is not visible ASCII (no session has such an id).
pub fn session_id(headers: &HeaderMap) -> Result<Option<&str>, Refusal> {
    one(headers.get_all(SESSION_HEADER), Kind::UnknownSession)
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// A header map of `pairs`, in order (repeated names kept).
    pub(in crate::engine::transport::http) fn headers(pairs: &[(&str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.append(
                hyper::header::HeaderName::from_bytes(k.as_bytes()).unwrap(),
                HeaderValue::from_str(v).unwrap(),
            );
        }
        h
    }

    fn kind(r: Result<(), Refusal>) -> Option<Kind> {
        r.err().map(|r| r.kind)
    }

    #[test]
    fn loopback_names_with_the_port_and_nothing_else() {
        let allow = Allowlist::loopback(8080);
        for ok in [
            "127.0.0.1:8080",
            "localhost:8080",
            "LOCALHOST:8080",
            "[::1]:8080",
        ] {
            assert!(allow.allows(ok, 80), "{ok}");
        }
        for bad in [
            "127.0.0.1",
            "localhost",
            "localhost:8081",
            "evil.example:8080",
            "127.0.0.1.nip.io:8080",
            "localhost.:8080",
            "user@localhost:8080",
            "localhost:8080/x",
            "[::1]x:8080",
            "::1:8080",
            "",
            ":8080",
            "localhost:",
            "localhost:+8080",
            "localhost:08080",
            "127.0.0.1:0008080",
        ] {
            assert!(!allow.allows(bad, 80), "{bad}");
        }
        assert!(Allowlist::loopback(80).allows("localhost", 80));
    }

    #[test]
    fn an_empty_list_allows_nothing() {
        let allow = Allowlist::new([""], 8080);
        assert!(allow.authorities().is_empty());
        assert!(!allow.allows("localhost:8080", 80));
        let h = headers(&[("host", "localhost:8080")]);
        assert_eq!(kind(check_origin(&h, &allow)), Some(Kind::HostNotAllowed));
    }

    #[test]
    fn entries_without_a_port_take_the_servers() {
        let allow = Allowlist::new(["mcp.example.com", "10.0.0.5:9000", "[fd00::1]"], 8443);
        assert!(allow.allows("mcp.example.com:8443", 80));
        assert!(!allow.allows("mcp.example.com", 80));
        assert!(allow.allows("10.0.0.5:9000", 80));
        assert!(allow.allows("[FD00::1]:8443", 80));
    }

    #[test]
    fn host_and_origin() {
        let allow = Allowlist::loopback(3000);
        let ok = |pairs: &[(&str, &str)]| check_origin(&headers(pairs), &allow);
        assert_eq!(kind(ok(&[("host", "127.0.0.1:3000")])), None);
        assert_eq!(
            kind(ok(&[
                ("host", "localhost:3000"),
                ("origin", "http://localhost:3000")
            ])),
            None
        );
        assert_eq!(kind(ok(&[])), Some(Kind::HostNotAllowed));
        assert_eq!(
            kind(ok(&[("host", "evil.example:3000")])),
            Some(Kind::HostNotAllowed)
        );
        assert_eq!(
            kind(ok(&[
                ("host", "localhost:3000"),
                ("host", "localhost:3000")
            ])),
            Some(Kind::HostNotAllowed)
        );
        for origin in [
            "http://evil.example:3000",
            "null",
            "http://localhost:3001",
            "http://localhost",
            "file://",
            "http://localhost:3000/",
            "http://localhost:3000.evil.example",
            "ftp://localhost:3000",
        ] {
            assert_eq!(
                kind(ok(&[("host", "localhost:3000"), ("origin", origin)])),
                Some(Kind::OriginNotAllowed),
                "{origin}"
            );
        }
        assert_eq!(
            kind(ok(&[
                ("host", "localhost:3000"),
                ("origin", "http://localhost:3000"),
                ("origin", "http://localhost:3000")
            ])),
            Some(Kind::OriginNotAllowed)
        );
        // The attacker's name for both (DNS rebinding): the Host is not listed.
        assert_eq!(
            kind(ok(&[
                ("host", "rebind.evil.example:3000"),
                ("origin", "http://rebind.evil.example:3000")
            ])),
            Some(Kind::HostNotAllowed)
        );
        let https = Allowlist::new(["mcp.example.com:443"], 8443);
        let h = headers(&[
            ("host", "mcp.example.com:443"),
            ("origin", "https://mcp.example.com"),
        ]);
        assert_eq!(kind(check_origin(&h, &https)), None);
    }

    #[test]
    fn bearer_tokens() {
        let token = BearerToken::new("s3cr3t-Token_1\n").unwrap();
        let check = |pairs: &[(&str, &str)]| check_bearer(&headers(pairs), Some(&token));
        assert_eq!(
            kind(check(&[("authorization", "Bearer s3cr3t-Token_1")])),
            None
        );
        assert_eq!(
            kind(check(&[("authorization", "bearer s3cr3t-Token_1")])),
            None
        );
        for bad in [
            "Bearer s3cr3t-Token_",
            "Bearer s3cr3t-Token_12",
            "Bearer S3CR3T-TOKEN_1",
            "Basic s3cr3t-Token_1",
            "Bearer",
            "s3cr3t-Token_1",
            "Bearer  s3cr3t-Token_1 ",
        ] {
            assert_eq!(
                kind(check(&[("authorization", bad)])),
                Some(Kind::Unauthorized),
                "{bad}"
            );
        }
        assert_eq!(kind(check(&[])), Some(Kind::Unauthorized));
        assert_eq!(
            kind(check(&[
                ("authorization", "Bearer s3cr3t-Token_1"),
                ("authorization", "Bearer s3cr3t-Token_1")
            ])),
            Some(Kind::Unauthorized)
        );
        assert_eq!(kind(check_bearer(&headers(&[]), None)), None);
        assert!(BearerToken::new(" \n").is_err());
        assert!(BearerToken::new("a b").is_err());
    }

    #[test]
    fn credentials_differ_by_header() {
        let none = credential(&headers(&[]));
        let a = credential(&headers(&[("authorization", "Bearer a")]));
        let b = credential(&headers(&[("authorization", "Bearer b")]));
        assert_eq!(none, [0; 32]);
        assert_ne!(a, b);
        assert_ne!(a, none);
        // The scheme's case and the spaces before the token do not count.
        assert_eq!(a, credential(&headers(&[("authorization", "bearer a")])));
        assert_eq!(a, credential(&headers(&[("authorization", "BEARER   a")])));
        assert_ne!(a, credential(&headers(&[("authorization", "Basic a")])));
        assert_ne!(a, credential(&headers(&[("authorization", "Bearer A")])));
    }

    #[test]
    fn content_types() {
        let ct = |v: &str| kind(check_content_type(&headers(&[("content-type", v)])));
        assert_eq!(ct("application/json"), None);
        assert_eq!(ct("Application/JSON; charset=utf-8"), None);
        for bad in [
            "text/plain",
            "application/x-www-form-urlencoded",
            "multipart/form-data; boundary=x",
            "application/json5",
            "application/jsonx",
            "",
        ] {
            assert_eq!(ct(bad), Some(Kind::UnsupportedMediaType), "{bad}");
        }
        assert_eq!(
            kind(check_content_type(&headers(&[]))),
            Some(Kind::UnsupportedMediaType)
        );
    }

    #[test]
    fn accept_ranges() {
        let acc = |vs: &[&str]| {
            let pairs: Vec<(&str, &str)> = vs.iter().map(|v| ("accept", *v)).collect();
            check_accept(&headers(&pairs)).map_err(|r| r.kind)
        };
        let both = Accepts {
            json: true,
            sse: true,
        };
        assert_eq!(acc(&[]), Ok(both));
        assert_eq!(acc(&["application/json, text/event-stream"]), Ok(both));
        assert_eq!(acc(&["*/*"]), Ok(both));
        assert_eq!(
            acc(&["application/json"]),
            Ok(Accepts {
                json: true,
                sse: false
            })
        );
        assert_eq!(
            acc(&["text/event-stream"]),
            Ok(Accepts {
                json: false,
                sse: true
            })
        );
        assert_eq!(
            acc(&["application/json;q=0, text/event-stream"]),
            Ok(Accepts {
                json: false,
                sse: true
            })
        );
        assert_eq!(acc(&["text/html"]), Err(Kind::NotAcceptable));
        assert_eq!(acc(&["*/*;q=0"]), Err(Kind::NotAcceptable));
    }

    #[test]
    fn session_ids() {
        let sid = |vs: &[&str]| {
            let pairs: Vec<(&str, &str)> = vs.iter().map(|v| ("mcp-session-id", *v)).collect();
            session_id(&headers(&pairs))
                .map(|s| s.map(str::to_owned))
                .map_err(|r| r.kind)
        };
        assert_eq!(sid(&[]), Ok(None));
        assert_eq!(sid(&["0123abcd"]), Ok(Some("0123abcd".to_owned())));
        assert_eq!(sid(&["a", "a"]), Err(Kind::UnknownSession));
    }

    #[test]
    fn protocol_versions() {
        let pv = |vs: &[&str]| {
            let pairs: Vec<(&str, &str)> =
                vs.iter().map(|v| ("mcp-protocol-version", *v)).collect();
            protocol_version(&headers(&pairs)).map_err(|r| r.kind)
        };
        assert_eq!(pv(&[]), Ok(None));
        assert_eq!(pv(&["2025-11-25"]), Ok(Some(Revision::V2025_11_25)));
        assert_eq!(pv(&["2026-07-28"]), Ok(Some(Revision::V2026_07_28)));
        for bad in ["1900-01-01", "not-a-version", "2025-11-25 ", ""] {
            assert_eq!(pv(&[bad]), Err(Kind::BadProtocolVersion), "{bad:?}");
        }
        assert_eq!(
            pv(&["2025-11-25", "2025-11-25"]),
            Err(Kind::BadProtocolVersion)
        );
    }
}
