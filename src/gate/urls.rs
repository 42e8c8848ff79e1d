//! Which argument strings are URLs, and the gateway's verdict on them:
//! [`net::classify_url`](crate::net::classify_url) plus the operator's
//! `[net]` entries.
//!
//! A string is taken as a URL when, after the leading C0 controls and spaces
//! that WHATWG parsing strips, it starts with a scheme (`ALPHA *(ALPHA /
//! DIGIT / "+" / "-" / ".")`) and a colon, and either a slash or backslash
//! follows the colon (`scheme://…`, `scheme:/…`) or the scheme is one of
//! [`URL_SCHEMES`] (`file:…`, `gopher:…`, `http:host`). Text with a colon
//! after a word (`"Re: minutes"`, `"TODO: fix"`, `"C:\dir"` is a
//! one-letter scheme) is not a URL.

use std::net::IpAddr;

use super::code::Refusal;
use crate::net::{Admitted, NetPolicy};

/// Schemes that make a string a URL even without `//` after the colon:
/// network and file schemes that fetchers, URL libraries or JVM/PHP/curl
/// stacks open (`jar:` and `netdoc:` are Java's; `dict:` and `gopher:` are
/// curl's classic SSRF vectors). Every one but `http`/`https` is refused.
pub const URL_SCHEMES: &[&str] = &[
    "http", "https", "ws", "wss", "ftp", "ftps", "sftp", "tftp", "file", "gopher", "dict", "ldap",
    "ldaps", "jar", "netdoc", "telnet", "ssh", "scp", "smb", "nfs", "rtsp", "imap", "pop3", "smtp",
    "redis", "mongodb", "jdbc", "phar", "expect", "glob", "data", "blob",
];

/// Longest scheme considered, in bytes (RFC 3986 sets none; registered ones are short).
const MAX_SCHEME_BYTES: usize = 32;

/// `true` when `text` is to be vetted as a URL (see the module docs).
pub fn looks_like_url(text: &str) -> bool {
    let s = text.trim_start_matches(|c: char| c <= ' ');
    let Some(colon) = s.bytes().take(MAX_SCHEME_BYTES + 1).position(|b| b == b':') else {
        return false;
    };
    let (scheme, rest) = s.split_at(colon);
    let rest = rest.get(1..).unwrap_or_default();
    let valid_scheme = scheme.len() >= 2
        && scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        && scheme
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.'));
    valid_scheme
        && (rest.starts_with(['/', '\\'])
            || URL_SCHEMES.iter().any(|k| k.eq_ignore_ascii_case(scheme)))
}

/// A URL that passed, and whose host name the child will resolve: under
/// `--resolve` its addresses go through [`NetPolicy::vet_resolved`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingName(pub Admitted);

impl PendingName {
    /// The host name (canonical, lower case).
    pub fn host(&self) -> &str {
        self.0.domain().unwrap_or_default()
    }

    /// The port the child would connect to.
    pub fn port(&self) -> u16 {
        self.0.port()
    }
}

/// Vets one URL string under the operator's entries ([`NetPolicy::classify_url`]).
/// `Ok(None)`: the host is an admitted IP literal; `Ok(Some(name))`: a host
/// name the child will resolve.
///
/// # Errors
/// The core's denial (`url.*`, `ssrf.*`, `ssrf.operator_deny`) with `rule`.
pub fn vet_url(net: &NetPolicy, text: &str, rule: &str) -> Result<Option<PendingName>, Refusal> {
    match net.classify_url(text) {
        Ok(a) if a.needs_dns() => Ok(Some(PendingName(a))),
        Ok(_) => Ok(None),
        Err(d) => Err(Refusal::from_denial(&d, rule)),
    }
}

/// Vets the addresses `name` resolved to (`--resolve`): one refused address
/// refuses the whole answer.
///
/// # Errors
/// `dns.no_address`, or the refused address's code.
pub fn vet_addresses(
    net: &NetPolicy,
    name: &PendingName,
    addrs: &[IpAddr],
    rule: &str,
) -> Result<(), Refusal> {
    net.vet_resolved(&name.0, addrs)
        .map_err(|d| Refusal::from_denial(&d, rule))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(allow: &[&str], deny: &[&str]) -> NetPolicy {
        NetPolicy::parse(allow, deny).unwrap()
    }

    #[test]
    fn detection() {
        for yes in [
            "http://x",
            "HTTPS://x",
            "  http://169.254.169.254/",
            "file:/etc/passwd",
            "file:///etc/passwd",
            "gopher:x",
            "dict:x",
            "jar:http://x!/",
            "netdoc:/etc/passwd",
            "myapp://cb",
            "s3:/bucket",
            "http:example.com",
            "ftp:\\\\x",
        ] {
            assert!(looks_like_url(yes), "{yes}");
        }
        for no in [
            "Re: minutes",
            "TODO: fix",
            "C:\\dir",
            "c://x",
            "a.pdf",
            "",
            "note:remember",
            "12:30",
            "-x://y",
        ] {
            assert!(!looks_like_url(no), "{no}");
        }
    }

    fn code(r: &NetPolicy, u: &str) -> &'static str {
        vet_url(r, u, "t")
            .map(|_| "ok")
            .unwrap_or_else(|e| e.code())
    }

    #[test]
    fn core_verdicts_and_codes() {
        let r = NetPolicy::default();
        assert_eq!(
            code(&r, "http://169.254.169.254/latest"),
            "ssrf.cloud_metadata"
        );
        assert_eq!(code(&r, "http://0x7f.1/"), "url.ambiguous");
        assert_eq!(code(&r, "http://[::ffff:127.0.0.1]/"), "ssrf.loopback");
        assert_eq!(code(&r, "http://10.0.0.1/"), "ssrf.private_use");
        assert_eq!(code(&r, "ftp://example.com/"), "url.scheme");
        assert_eq!(code(&r, "file:///etc/passwd"), "url.scheme");
        assert_eq!(code(&r, "http://user@example.com/"), "url.userinfo");
        assert_eq!(code(&r, "http://93.184.216.34/"), "ok");
        let n = vet_url(&r, "https://Example.com:8443/x", "t")
            .unwrap()
            .unwrap();
        assert_eq!((n.host(), n.port()), ("example.com", 8443));
    }

    #[test]
    fn allow_lifts_ranges_never_metadata_and_deny_wins() {
        let r = rules(
            &["10.0.0.0/8", "169.254.0.0/16", "wiki.internal", "127.0.0.1"],
            &["10.9.0.0/16", "93.184.216.34", "bad.example"],
        );
        assert_eq!(code(&r, "http://10.1.2.3/"), "ok");
        assert_eq!(code(&r, "http://10.9.0.1/"), "ssrf.operator_deny");
        assert_eq!(code(&r, "http://127.0.0.1:8080/"), "ok");
        assert_eq!(code(&r, "http://127.0.0.2/"), "ssrf.loopback");
        assert_eq!(code(&r, "http://169.254.169.254/"), "ssrf.cloud_metadata");
        assert_eq!(code(&r, "http://169.254.1.1/"), "ok");
        assert_eq!(
            code(&r, "http://metadata.google.internal/"),
            "ssrf.metadata_name"
        );
        assert_eq!(code(&r, "http://wiki.internal/"), "ok");
        assert_eq!(code(&r, "http://93.184.216.34/"), "ssrf.operator_deny");
        assert_eq!(code(&r, "http://bad.example/"), "ssrf.operator_deny");
        assert_eq!(code(&r, "ftp://10.1.2.3/"), "url.scheme");
    }

    #[test]
    fn resolved_addresses() {
        let r = rules(&["10.0.0.0/8", "wiki.internal"], &["8.8.8.0/24"]);
        let name = |u: &str| vet_url(&r, u, "t").unwrap().unwrap();
        let ips = |v: &[&str]| {
            v.iter()
                .map(|a| a.parse().unwrap())
                .collect::<Vec<IpAddr>>()
        };
        let code = |n: &PendingName, a: &[&str]| {
            vet_addresses(&r, n, &ips(a), "t")
                .map(|_| "ok")
                .unwrap_or_else(|e| e.code())
        };
        let public = name("https://a.example/");
        let wiki = name("https://wiki.internal/");
        assert_eq!(code(&public, &["93.184.216.34"]), "ok");
        assert_eq!(
            code(&public, &["93.184.216.34", "127.0.0.1"]),
            "ssrf.loopback"
        );
        assert_eq!(code(&public, &["10.1.1.1"]), "ok");
        assert_eq!(code(&public, &["192.168.1.1"]), "ssrf.private_use");
        assert_eq!(code(&wiki, &["192.168.1.1"]), "ok");
        assert_eq!(code(&wiki, &["169.254.169.254"]), "ssrf.cloud_metadata");
        assert_eq!(code(&public, &["8.8.8.8"]), "ssrf.operator_deny");
        assert_eq!(code(&public, &[]), "dns.no_address");
    }
}
