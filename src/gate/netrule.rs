//! `[net] allow` / `deny` entries: a CIDR block, or a host name with an
//! optional port (`host[:port]`).
//!
//! An IPv4 block matches IPv4 addresses only and an IPv6 block IPv6
//! addresses only: an IPv4-mapped block such as `::ffff:0:0/96` never
//! matches a plain IPv4 address.

use std::fmt;
use std::net::IpAddr;

use ipnet::IpNet;

/// Longest entry accepted, in bytes.
pub const MAX_NET_ENTRY_BYTES: usize = 300;

/// One allow or deny entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NetEntry {
    /// An address block; a bare address is a `/32` or `/128` block.
    Cidr(IpNet),
    /// A host name (lower-case ASCII; a trailing dot removed), with an optional port.
    Host {
        /// The name.
        name: String,
        /// Only this port when `Some`.
        port: Option<u16>,
    },
}

impl NetEntry {
    /// Parses `CIDR`, `ADDRESS`, `HOST` or `HOST:PORT` (`[v6]:PORT` is not
    /// accepted: ports are given for names only).
    ///
    /// # Errors
    /// A sentence naming what is wrong with the entry.
    pub fn parse(text: &str) -> Result<Self, String> {
        if text.len() > MAX_NET_ENTRY_BYTES {
            return Err(format!("longer than {MAX_NET_ENTRY_BYTES} bytes"));
        }
        if let Ok(net) = text.parse::<IpNet>() {
            return Ok(Self::Cidr(net.trunc()));
        }
        if let Ok(addr) = text.parse::<IpAddr>() {
            return Ok(Self::Cidr(IpNet::from(addr)));
        }
        let (name, port) = match text.rsplit_once(':') {
            Some((n, p)) => {
                let port = p
                    .parse::<u16>()
                    .map_err(|_| format!("`{p}` is not a port number (0-65535)"))?;
                (n, Some(port))
            }
            None => (text, None),
        };
        let name = name.strip_suffix('.').unwrap_or(name).to_ascii_lowercase();
        let valid = !name.is_empty()
            && name.split('.').all(|label| {
                !label.is_empty()
                    && label.len() <= 63
                    && label
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
            });
        if !valid {
            return Err(format!(
                "`{text}` is neither a CIDR block, an IP address nor a host[:port]"
            ));
        }
        Ok(Self::Host { name, port })
    }

    /// `true` when `addr` lies in this block (never for a host entry).
    pub fn matches_ip(&self, addr: IpAddr) -> bool {
        match self {
            Self::Cidr(net) => net.contains(&addr),
            Self::Host { .. } => false,
        }
    }

    /// `true` when this is a host entry for `name` (compared without case
    /// and trailing dot) and, if the entry has a port, `port`.
    pub fn matches_host(&self, name: &str, port: u16) -> bool {
        match self {
            Self::Cidr(_) => false,
            Self::Host { name: n, port: p } => {
                let name = name.strip_suffix('.').unwrap_or(name);
                n.eq_ignore_ascii_case(name) && p.is_none_or(|p| p == port)
            }
        }
    }
}

impl fmt::Display for NetEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Cidr(n) => write!(f, "{n}"),
            Self::Host { name, port: None } => f.write_str(name),
            Self::Host {
                name,
                port: Some(p),
            } => write!(f, "{name}:{p}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_each_form() {
        assert_eq!(
            NetEntry::parse("10.0.0.0/8").unwrap(),
            NetEntry::Cidr("10.0.0.0/8".parse().unwrap())
        );
        assert_eq!(
            NetEntry::parse("10.1.2.3").unwrap(),
            NetEntry::Cidr("10.1.2.3/32".parse().unwrap())
        );
        assert_eq!(
            NetEntry::parse("10.1.2.3/8").unwrap(),
            NetEntry::Cidr("10.0.0.0/8".parse().unwrap())
        );
        assert_eq!(
            NetEntry::parse("Wiki.Corp.:8443").unwrap(),
            NetEntry::Host {
                name: "wiki.corp".into(),
                port: Some(8443)
            }
        );
        for bad in ["", "a..b", "host:99999", "ho st", "a/b", "http://x"] {
            assert!(NetEntry::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn families_do_not_cross() {
        let mapped = NetEntry::parse("::ffff:0:0/96").unwrap();
        assert!(!mapped.matches_ip("10.0.0.1".parse().unwrap()));
        assert!(mapped.matches_ip("::ffff:10.0.0.1".parse().unwrap()));
        let host = NetEntry::parse("wiki.corp:80").unwrap();
        assert!(host.matches_host("WIKI.corp.", 80));
        assert!(!host.matches_host("wiki.corp", 81));
        assert!(NetEntry::parse("wiki.corp")
            .unwrap()
            .matches_host("wiki.corp", 1));
    }
}
