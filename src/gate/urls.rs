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

use url::{Host, Url};

use super::code::{GateCode, Refusal};
use super::netrule::NetEntry;
use crate::net::{classify_ip, classify_url, DenialCode, Reach};

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

/// The operator's `[net]` entries.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NetRules {
    /// Destinations let through the special-purpose range checks.
    pub allow: Vec<NetEntry>,
    /// Destinations always refused; wins over every allow entry.
    pub deny: Vec<NetEntry>,
}

/// A URL that passed, and whose host name still needs DNS.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingName {
    /// The host name (canonical, lower case).
    pub host: String,
    /// The port the child would connect to.
    pub port: u16,
    /// `true` when an allow entry names this host: its addresses may be
    /// special-purpose ones (never a cloud metadata address).
    pub allowed: bool,
}

/// Codes an allow entry can lift: address ranges and local names, never
/// cloud metadata and never a problem with the URL text itself.
fn liftable(code: &str) -> bool {
    code.starts_with("ssrf.")
        && code != DenialCode::CloudMetadata.as_str()
        && code != DenialCode::MetadataName.as_str()
}

impl NetRules {
    fn deny_ip(&self, ip: IpAddr) -> Option<&NetEntry> {
        self.deny.iter().find(|e| e.matches_ip(ip))
    }
    fn deny_host(&self, host: &str, port: u16) -> Option<&NetEntry> {
        self.deny.iter().find(|e| e.matches_host(host, port))
    }
    fn allow_ip(&self, ip: IpAddr) -> Option<&NetEntry> {
        self.allow.iter().find(|e| e.matches_ip(ip))
    }
    fn allow_host(&self, host: &str, port: u16) -> Option<&NetEntry> {
        self.allow.iter().find(|e| e.matches_host(host, port))
    }

    /// Vets one URL string. `Ok(None)`: the host is a vetted IP literal (or
    /// an allowed one); `Ok(Some(name))`: a host name the child will resolve
    /// (vet its addresses with [`NetRules::vet_addresses`] under `--resolve`).
    ///
    /// # Errors
    /// The core's denial (`url.*`, `ssrf.*`), or `policy.net_denied`.
    pub fn vet_url(&self, text: &str, rule: &str) -> Result<Option<PendingName>, Refusal> {
        match classify_url(text) {
            Ok(dest) => {
                let port = dest.port();
                if let Some(ip) = dest.ip() {
                    if let Some(e) = self.deny_ip(ip) {
                        return Err(net_denied(e));
                    }
                    return Ok(None);
                }
                let host = dest.domain().unwrap_or_default();
                if let Some(e) = self.deny_host(host, port) {
                    return Err(net_denied(e));
                }
                Ok(Some(PendingName {
                    host: host.to_owned(),
                    port,
                    allowed: self.allow_host(host, port).is_some(),
                }))
            }
            Err(denial) => {
                let refused = || Refusal::from_denial(&denial, rule);
                if !liftable(denial.code()) || self.allow.is_empty() {
                    return Err(refused());
                }
                // classify_url parses with the same WHATWG parser: the host
                // read here is the one it refused.
                let Ok(url) = Url::parse(text) else {
                    return Err(refused());
                };
                let port = url.port_or_known_default().unwrap_or(80);
                match url.host() {
                    Some(Host::Ipv4(a)) => self.lift_ip(IpAddr::V4(a)).map_err(|_| refused()),
                    Some(Host::Ipv6(a)) => self.lift_ip(IpAddr::V6(a)).map_err(|_| refused()),
                    Some(Host::Domain(d)) => {
                        if let Some(e) = self.deny_host(d, port) {
                            return Err(net_denied(e));
                        }
                        if self.allow_host(d, port).is_some() {
                            Ok(Some(PendingName {
                                host: d.to_owned(),
                                port,
                                allowed: true,
                            }))
                        } else {
                            Err(refused())
                        }
                    }
                    None => Err(refused()),
                }
            }
        }
    }

    /// An IP literal refused by range: let through when an allow entry
    /// covers it, no deny entry does and it is not a metadata address.
    fn lift_ip(&self, ip: IpAddr) -> Result<Option<PendingName>, ()> {
        let metadata = matches!(classify_ip(ip), Reach::CloudMetadata(_));
        if metadata || self.deny_ip(ip).is_some() || self.allow_ip(ip).is_none() {
            return Err(());
        }
        Ok(None)
    }

    /// Vets the addresses a name resolved to (`--resolve`): every one must be
    /// global, or covered by an allow entry (block, or the name itself when
    /// `name.allowed`); none may be a cloud metadata address or match a deny
    /// entry. One refused address refuses the whole answer.
    ///
    /// # Errors
    /// `dns.no_address`, the refused address's `ssrf.*` code, or `policy.net_denied`.
    pub fn vet_addresses(
        &self,
        name: &PendingName,
        addrs: &[IpAddr],
        rule: &str,
    ) -> Result<(), Refusal> {
        if addrs.is_empty() {
            return Err(Refusal::from_denial(
                &crate::net::Denial::of(
                    DenialCode::NoAddress,
                    format!("`{}` resolved to no address", name.host),
                ),
                rule,
            ));
        }
        for &a in addrs {
            if let Some(e) = self.deny_ip(a) {
                return Err(net_denied(e));
            }
            let reach = classify_ip(a);
            let Some(denial) = reach.denial(a) else {
                continue;
            };
            let lifted = !matches!(reach, Reach::CloudMetadata(_))
                && (name.allowed || self.allow_ip(a).is_some());
            if !lifted {
                return Err(Refusal::from_denial(
                    &crate::net::Denial::new(
                        denial.code(),
                        format!(
                            "`{}` resolved to {}; one refused address refuses the whole answer",
                            name.host,
                            denial.reason()
                        ),
                    ),
                    rule,
                ));
            }
        }
        Ok(())
    }
}

fn net_denied(entry: &NetEntry) -> Refusal {
    Refusal::new(
        GateCode::NetDenied,
        format!("the destination matches the deny entry `{entry}`"),
        format!("net.deny \"{entry}\""),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(allow: &[&str], deny: &[&str]) -> NetRules {
        NetRules {
            allow: allow.iter().map(|e| NetEntry::parse(e).unwrap()).collect(),
            deny: deny.iter().map(|e| NetEntry::parse(e).unwrap()).collect(),
        }
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

    #[test]
    fn core_verdicts_and_codes() {
        let r = NetRules::default();
        let code = |u: &str| r.vet_url(u, "t").map(|_| "ok").unwrap_or_else(|e| e.code());
        assert_eq!(code("http://169.254.169.254/latest"), "ssrf.cloud_metadata");
        assert_eq!(code("http://0x7f.1/"), "url.ambiguous");
        assert_eq!(code("http://[::ffff:127.0.0.1]/"), "ssrf.loopback");
        assert_eq!(code("http://10.0.0.1/"), "ssrf.private_use");
        assert_eq!(code("ftp://example.com/"), "url.scheme");
        assert_eq!(code("file:///etc/passwd"), "url.scheme");
        assert_eq!(code("http://user@example.com/"), "url.userinfo");
        assert_eq!(code("http://93.184.216.34/"), "ok");
        assert_eq!(
            r.vet_url("https://Example.com:8443/x", "t").unwrap(),
            Some(PendingName {
                host: "example.com".into(),
                port: 8443,
                allowed: false
            })
        );
    }

    #[test]
    fn allow_lifts_ranges_never_metadata_and_deny_wins() {
        let r = rules(
            &["10.0.0.0/8", "169.254.0.0/16", "wiki.internal", "127.0.0.1"],
            &["10.9.0.0/16", "93.184.216.34", "bad.example"],
        );
        let code = |u: &str| r.vet_url(u, "t").map(|_| "ok").unwrap_or_else(|e| e.code());
        assert_eq!(code("http://10.1.2.3/"), "ok");
        assert_eq!(code("http://10.9.0.1/"), "ssrf.private_use");
        assert_eq!(code("http://127.0.0.1:8080/"), "ok");
        assert_eq!(code("http://127.0.0.2/"), "ssrf.loopback");
        assert_eq!(code("http://169.254.169.254/"), "ssrf.cloud_metadata");
        assert_eq!(code("http://169.254.1.1/"), "ok");
        assert_eq!(
            code("http://metadata.google.internal/"),
            "ssrf.metadata_name"
        );
        assert_eq!(code("http://wiki.internal/"), "ok");
        assert_eq!(code("http://93.184.216.34/"), "policy.net_denied");
        assert_eq!(code("http://bad.example/"), "policy.net_denied");
        assert_eq!(code("ftp://10.1.2.3/"), "url.scheme");
    }

    #[test]
    fn resolved_addresses() {
        let r = rules(&["10.0.0.0/8"], &["8.8.8.0/24"]);
        let name = |allowed| PendingName {
            host: "h".into(),
            port: 80,
            allowed,
        };
        let ips = |v: &[&str]| {
            v.iter()
                .map(|a| a.parse().unwrap())
                .collect::<Vec<IpAddr>>()
        };
        let code = |n: &PendingName, a: &[&str]| {
            r.vet_addresses(n, &ips(a), "t")
                .map(|_| "ok")
                .unwrap_or_else(|e| e.code())
        };
        assert_eq!(code(&name(false), &["93.184.216.34"]), "ok");
        assert_eq!(
            code(&name(false), &["93.184.216.34", "127.0.0.1"]),
            "ssrf.loopback"
        );
        assert_eq!(code(&name(false), &["10.1.1.1"]), "ok");
        assert_eq!(code(&name(false), &["192.168.1.1"]), "ssrf.private_use");
        assert_eq!(code(&name(true), &["192.168.1.1"]), "ok");
        assert_eq!(
            code(&name(true), &["169.254.169.254"]),
            "ssrf.cloud_metadata"
        );
        assert_eq!(code(&name(true), &["8.8.8.8"]), "policy.net_denied");
        assert_eq!(code(&name(false), &[]), "dns.no_address");
    }
}
