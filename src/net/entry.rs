//! Operator allow and deny entries ([`Entry`], `CIDR` or `host[:port]`) and
//! the [`NetPolicy`] that applies them on top of the classifier.
//!
//! One type serves every front that takes an operator's network list: the
//! fetcher's `--allow`/`--deny`, and the gateway policy file's
//! `[net] allow/deny`.
//!
//! Rules, in order, for an address `a` on port `p` (reached through the name
//! `n`, when there is one):
//! 1. a **deny** entry matching `a` (or the IPv4 address `a` embeds, when `a`
//!    is an IPv6 form that embeds one) or `n` refuses it
//!    (`ssrf.operator_deny`): deny wins over every allow;
//! 2. a global address ([`classify_ip`] says [`Reach::Global`](super::Reach))
//!    passes;
//! 3. a cloud metadata address (`ssrf.cloud_metadata`, also when embedded in
//!    IPv6) or name (`ssrf.metadata_name`) stays refused whatever the allow
//!    list says, and so does an unspecified or "this network" address
//!    (`ssrf.unspecified`, `ssrf.this_network`: `0.0.0.0/8`, `::`, also
//!    embedded), which no server listens on: a kernel connects a dial to
//!    `0.0.0.0` or `::` to this host itself;
//! 4. an **allow** entry matching `a` in its own address family, or matching
//!    `n`, lets it through the special-purpose checks (loopback, private
//!    use, link-local, ...): an operator's intranet document server;
//! 5. anything else keeps the classifier's denial.
//!
//! Families stay apart on the allow side: an IPv6 entry never matches an IPv4
//! address and an IPv4 entry never matches an IPv6 address, whatever it
//! embeds, so `::ffff:0:0/96` lets no IPv4 address through, and `127.0.0.1`
//! does not admit `[::ffff:127.0.0.1]`. A refused IPv6 address that embeds
//! an IPv4 address (IPv4-mapped, NAT64, 6to4, Teredo, ...) is lifted by no
//! entry at all (`::/0` does not admit `[::ffff:127.0.0.1]`, which is dialled
//! as 127.0.0.1): write the IPv4 address, with an IPv4 entry. Deny entries look through embedded
//! IPv4 addresses (a refusal more is the safe side).
//!
//! A name entry trusts that name's DNS: every address it resolves to passes
//! (metadata addresses and deny entries aside). Prefer CIDR entries where the
//! addresses are known.

use super::code::{Denial, DenialCode};
use super::dest::{classify_url, Destination, Target};
use super::ip::{classify_ip, embedded_ipv4};
use super::names::refused_name;
use ipnet::{IpNet, Ipv4Net, Ipv6Net};
use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::str::FromStr;
use url::{Host, Url};

/// Longest entry text accepted, in bytes.
pub const MAX_ENTRY_BYTES: usize = 256;

/// Most entries in one list (allow or deny) of a [`NetPolicy`].
pub const MAX_ENTRIES: usize = 1024;

/// What an entry names: an address range or a host name.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum EntryHost {
    /// An address range; a single address is a `/32` or `/128`.
    Net(IpNet),
    /// A canonical host name (lower-case ASCII, IDNA-encoded, no trailing dot).
    Name(String),
    /// `*.suffix`: every name strictly under `suffix` (not `suffix` itself).
    Suffix(String),
}

/// One operator entry: `CIDR`, or `host[:port]` where host is a name, an
/// IPv4 address, or an IPv6 address (bare, or bracketed when a port follows),
/// optionally `*.name` for every name under `name`.
///
/// Parse with [`Entry::parse`] (or `str::parse`); `Display` writes the
/// canonical text, which parses back to the same entry.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Entry {
    host: EntryHost,
    port: Option<u16>,
}

/// What is wrong with an entry's text.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum EntryErrorKind {
    /// The text is empty.
    Empty,
    /// Longer than [`MAX_ENTRY_BYTES`].
    TooLong {
        /// The length in bytes.
        len: usize,
    },
    /// A control character, whitespace, backslash or other character that
    /// cannot appear in a host.
    Character {
        /// The character.
        c: char,
    },
    /// A URL (`scheme://`, a path, a query) where a host was expected.
    NotAHost,
    /// Text before `/` that is not an IP address, or a bad prefix length.
    Cidr,
    /// A CIDR with bits set below its prefix (`10.0.0.1/8`).
    HostBits {
        /// The network the text probably meant (`10.0.0.0/8`).
        network: IpNet,
    },
    /// A port that is not a decimal number in `1..=65535`.
    Port,
    /// A port after a CIDR (`10.0.0.0/8:443`): ranges match every port.
    PortOnCidr,
    /// An IPv6 zone identifier (`fe80::1%eth0`).
    Zone,
    /// An IPv4 address in another notation than dotted decimal (`0x7f.1`,
    /// `127.1`, `010.0.0.1`).
    NonCanonicalIpv4 {
        /// The address it reads as.
        addr: Ipv4Addr,
    },
    /// A malformed host name (empty label, percent-encoding, numbers only,
    /// rejected by IDNA, or rewritten by the URL parser).
    Name,
    /// A `*` anywhere but a leading `*.`.
    Wildcard,
}

/// A refused entry text: what is wrong, and where (byte offset in the text).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntryError {
    kind: EntryErrorKind,
    at: usize,
}

impl EntryError {
    fn new(kind: EntryErrorKind, at: usize) -> Self {
        Self { kind, at }
    }

    /// What is wrong.
    pub fn kind(&self) -> &EntryErrorKind {
        &self.kind
    }

    /// The byte offset in the entry text where the problem starts.
    pub fn at(&self) -> usize {
        self.at
    }
}

impl fmt::Display for EntryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = self.at;
        match &self.kind {
            EntryErrorKind::Empty => f.write_str("empty entry: expected CIDR or host[:port]"),
            EntryErrorKind::TooLong { len } => {
                write!(
                    f,
                    "entry is {len} bytes, over the {MAX_ENTRY_BYTES}-byte bound"
                )
            }
            EntryErrorKind::Character { c } => write!(
                f,
                "character U+{:04X} at byte {at} cannot appear in a host",
                *c as u32
            ),
            EntryErrorKind::NotAHost => write!(
                f,
                "a URL or path at byte {at}: an entry is CIDR or host[:port], no scheme or path"
            ),
            EntryErrorKind::Cidr => write!(f, "not a CIDR (address/prefix-length) at byte {at}"),
            EntryErrorKind::HostBits { network } => write!(
                f,
                "bits set below the prefix length at byte {at}: did you mean {network}?"
            ),
            EntryErrorKind::Port => write!(f, "port at byte {at} is not a number in 1..=65535"),
            EntryErrorKind::PortOnCidr => write!(
                f,
                "port at byte {at} after a CIDR: a range matches every port"
            ),
            EntryErrorKind::Zone => write!(
                f,
                "IPv6 zone identifier at byte {at}: a zone names a local interface, not a host"
            ),
            EntryErrorKind::NonCanonicalIpv4 { addr } => write!(
                f,
                "host at byte {at} reads as {addr} in a non-canonical notation: write {addr}"
            ),
            EntryErrorKind::Name => write!(f, "malformed host name at byte {at}"),
            EntryErrorKind::Wildcard => write!(
                f,
                "`*` at byte {at}: only a leading `*.` (every name under a suffix) is allowed"
            ),
        }
    }
}

impl std::error::Error for EntryError {}

impl Entry {
    /// Parses `CIDR` or `host[:port]`.
    ///
    /// # Errors
    /// An [`EntryError`] naming the problem and its byte offset; never
    /// panics, whatever the text.
    pub fn parse(text: &str) -> Result<Self, EntryError> {
        if text.is_empty() {
            return Err(EntryError::new(EntryErrorKind::Empty, 0));
        }
        if text.len() > MAX_ENTRY_BYTES {
            return Err(EntryError::new(
                EntryErrorKind::TooLong { len: text.len() },
                MAX_ENTRY_BYTES,
            ));
        }
        if let Some((at, c)) = text
            .char_indices()
            .find(|&(_, c)| c.is_control() || c.is_whitespace() || c == '\\' || c == '@')
        {
            return Err(EntryError::new(EntryErrorKind::Character { c }, at));
        }
        if let Some(at) = text.find(['?', '#']).or_else(|| text.find("//")) {
            return Err(EntryError::new(EntryErrorKind::NotAHost, at));
        }
        if let Some(at) = text.find('%') {
            // A zone in an IPv6 literal, or a percent-encoded name.
            let inner = text.trim_start_matches('[');
            let head = inner.split('%').next().unwrap_or_default();
            let kind = if head.parse::<Ipv6Addr>().is_ok() {
                EntryErrorKind::Zone
            } else {
                EntryErrorKind::Name
            };
            return Err(EntryError::new(kind, at));
        }
        if let Some(slash) = text.find('/') {
            return parse_cidr(text, slash);
        }
        // Bracketed IPv6, optionally with a port.
        if let Some(rest) = text.strip_prefix('[') {
            let Some(close) = rest.find(']') else {
                return Err(EntryError::new(EntryErrorKind::Cidr, 0));
            };
            let inner = rest.get(..close).unwrap_or_default();
            let addr: Ipv6Addr = inner
                .parse()
                .map_err(|_| EntryError::new(EntryErrorKind::Cidr, 1))?;
            let after = rest.get(close + 1..).unwrap_or_default();
            let port = match after.strip_prefix(':') {
                Some(p) => Some(parse_port(p, close + 3)?),
                None if after.is_empty() => None,
                None => return Err(EntryError::new(EntryErrorKind::Port, close + 2)),
            };
            return Ok(Self::addr(IpAddr::V6(addr), port));
        }
        // A bare IPv6 address (no port: brackets are needed for one).
        if let Ok(a) = text.parse::<Ipv6Addr>() {
            return Ok(Self::addr(IpAddr::V6(a), None));
        }
        let (host, port) = match text.rsplit_once(':') {
            Some((h, p)) => {
                if h.contains(':') {
                    // Several colons and not an IPv6 address.
                    return Err(EntryError::new(EntryErrorKind::Cidr, 0));
                }
                (h, Some(parse_port(p, h.len() + 1)?))
            }
            None => (text, None),
        };
        let host = parse_host(host)?;
        Ok(Self { host, port })
    }

    /// An entry for one address (a `/32` or `/128`), on one port or all.
    pub fn addr(addr: IpAddr, port: Option<u16>) -> Self {
        Self {
            host: EntryHost::Net(IpNet::from(addr)),
            port,
        }
    }

    /// An entry for an address range, every port.
    pub fn net(net: IpNet) -> Self {
        Self {
            host: EntryHost::Net(net),
            port: None,
        }
    }

    /// What the entry names.
    pub fn host(&self) -> &EntryHost {
        &self.host
    }

    /// The port it is limited to; `None` matches every port.
    pub fn port(&self) -> Option<u16> {
        self.port
    }

    fn port_matches(&self, port: u16) -> bool {
        self.port.is_none_or(|p| p == port)
    }

    /// `true` when `addr` on `port` is in this entry's range, in the same
    /// address family (an IPv4-mapped IPv6 range never matches an IPv4
    /// address, an IPv4 range never matches an IPv6 address). Name entries
    /// match no address.
    pub fn matches_addr(&self, addr: IpAddr, port: u16) -> bool {
        let in_net = match (&self.host, addr) {
            (EntryHost::Net(IpNet::V4(n)), IpAddr::V4(a)) => n.contains(&a),
            (EntryHost::Net(IpNet::V6(n)), IpAddr::V6(a)) => n.contains(&a),
            _ => false,
        };
        in_net && self.port_matches(port)
    }

    /// `true` when the canonical host name `name` (one trailing dot ignored)
    /// on `port` is this entry's name, or under its `*.` suffix. Address
    /// entries match no name.
    pub fn matches_name(&self, name: &str, port: u16) -> bool {
        let name = name.strip_suffix('.').unwrap_or(name);
        let hit = match &self.host {
            EntryHost::Net(_) => false,
            EntryHost::Name(n) => n == name,
            EntryHost::Suffix(s) => name
                .strip_suffix(s.as_str())
                .is_some_and(|head| head.len() > 1 && head.ends_with('.')),
        };
        hit && self.port_matches(port)
    }

    /// `true` when this entry names exactly an address or a block no allow
    /// entry can unblock: unspecified (`0.0.0.0`, `::`) or "this network"
    /// (`0.0.0.0/8`), also written IPv4-mapped.
    fn is_unspecified(&self) -> bool {
        match &self.host {
            EntryHost::Net(n) => {
                let within = |c: Option<DenialCode>| {
                    matches!(c, Some(DenialCode::Unspecified | DenialCode::ThisNetwork))
                };
                within(classify_ip(n.network()).code()) && within(classify_ip(n.broadcast()).code())
            }
            EntryHost::Name(_) | EntryHost::Suffix(_) => false,
        }
    }

    /// `true` when this entry names exactly a cloud metadata address or
    /// name (which no allow entry can unblock).
    fn is_metadata(&self) -> bool {
        match &self.host {
            EntryHost::Net(n) => {
                n.prefix_len() == n.max_prefix_len()
                    && classify_ip(n.addr()).code() == Some(DenialCode::CloudMetadata)
            }
            EntryHost::Name(n) => refused_name(n) == Some(DenialCode::MetadataName),
            EntryHost::Suffix(_) => false,
        }
    }
}

impl FromStr for Entry {
    type Err = EntryError;
    fn from_str(s: &str) -> Result<Self, EntryError> {
        Self::parse(s)
    }
}

impl fmt::Display for Entry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.host, self.port) {
            (EntryHost::Net(n), port) if n.prefix_len() == n.max_prefix_len() => {
                match (n.addr(), port) {
                    (IpAddr::V4(a), Some(p)) => write!(f, "{a}:{p}"),
                    (IpAddr::V6(a), Some(p)) => write!(f, "[{a}]:{p}"),
                    (a, None) => write!(f, "{a}"),
                }
            }
            (EntryHost::Net(n), _) => write!(f, "{n}"),
            (EntryHost::Name(n), None) => f.write_str(n),
            (EntryHost::Name(n), Some(p)) => write!(f, "{n}:{p}"),
            (EntryHost::Suffix(s), None) => write!(f, "*.{s}"),
            (EntryHost::Suffix(s), Some(p)) => write!(f, "*.{s}:{p}"),
        }
    }
}

/// `ADDR/LEN`, `slash` bytes into `text`.
fn parse_cidr(text: &str, slash: usize) -> Result<Entry, EntryError> {
    let (addr_text, len_text) = (
        text.get(..slash).unwrap_or_default(),
        text.get(slash + 1..).unwrap_or_default(),
    );
    let addr_text = match addr_text
        .strip_prefix('[')
        .and_then(|a| a.strip_suffix(']'))
    {
        Some(inner) => inner,
        None => addr_text,
    };
    if let Some(colon) = len_text.find(':') {
        return Err(EntryError::new(
            EntryErrorKind::PortOnCidr,
            slash + 1 + colon,
        ));
    }
    let addr: IpAddr = addr_text
        .parse()
        .map_err(|_| EntryError::new(EntryErrorKind::Cidr, 0))?;
    let len_at = slash + 1;
    if len_text.is_empty()
        || len_text.len() > 3
        || !len_text.bytes().all(|b| b.is_ascii_digit())
        || (len_text.len() > 1 && len_text.starts_with('0'))
    {
        return Err(EntryError::new(EntryErrorKind::Cidr, len_at));
    }
    let len: u8 = len_text
        .parse()
        .map_err(|_| EntryError::new(EntryErrorKind::Cidr, len_at))?;
    let net = match addr {
        IpAddr::V4(a) => Ipv4Net::new(a, len).map(IpNet::V4),
        IpAddr::V6(a) => Ipv6Net::new(a, len).map(IpNet::V6),
    }
    .map_err(|_| EntryError::new(EntryErrorKind::Cidr, len_at))?;
    if net.trunc() != net {
        return Err(EntryError::new(
            EntryErrorKind::HostBits {
                network: net.trunc(),
            },
            0,
        ));
    }
    Ok(Entry::net(net))
}

/// Decimal `1..=65535`, no sign, no leading zero; `at` is its offset.
fn parse_port(p: &str, at: usize) -> Result<u16, EntryError> {
    let bad = || EntryError::new(EntryErrorKind::Port, at);
    if p.is_empty() || p.len() > 5 || !p.bytes().all(|b| b.is_ascii_digit()) || p.starts_with('0') {
        return Err(bad());
    }
    p.parse::<u16>().map_err(|_| bad())
}

/// An IPv4 address (dotted decimal only) or a host name, optionally `*.`.
fn parse_host(host: &str) -> Result<EntryHost, EntryError> {
    if host.is_empty() {
        return Err(EntryError::new(EntryErrorKind::Name, 0));
    }
    // Rust's parser takes canonical dotted decimal only (no leading zeros).
    if let Ok(a) = host.parse::<Ipv4Addr>() {
        return Ok(EntryHost::Net(IpNet::from(IpAddr::V4(a))));
    }
    let (wild, name) = match host.strip_prefix("*.") {
        Some(rest) => (true, rest),
        None => (false, host),
    };
    let offset = if wild { 2 } else { 0 };
    if let Some(at) = name.find('*') {
        return Err(EntryError::new(EntryErrorKind::Wildcard, offset + at));
    }
    let name_err = || EntryError::new(EntryErrorKind::Name, offset);
    let canonical = match Host::parse(name) {
        Ok(Host::Domain(d)) => d,
        Ok(Host::Ipv4(addr)) => {
            return Err(EntryError::new(
                EntryErrorKind::NonCanonicalIpv4 { addr },
                offset,
            ))
        }
        _ => return Err(name_err()),
    };
    if name.is_ascii() && !name.eq_ignore_ascii_case(&canonical) {
        return Err(name_err());
    }
    let canonical = canonical
        .strip_suffix('.')
        .map(str::to_owned)
        .unwrap_or(canonical);
    let labels_ok = !canonical.is_empty()
        && canonical.split('.').all(|l| !l.is_empty())
        && !canonical
            .split('.')
            .all(|l| l.bytes().all(|b| b.is_ascii_digit()));
    // IDNA maps some characters to ASCII punctuation (U+FE61 to `*`): the
    // canonical name must be letters, digits, `-`, `_` and dots only.
    let ldh = canonical
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'));
    if !labels_ok || !ldh {
        return Err(name_err());
    }
    Ok(if wild {
        EntryHost::Suffix(canonical)
    } else {
        EntryHost::Name(canonical)
    })
}

/// Which list of a [`NetPolicy`] an error is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum List {
    /// The allow list.
    Allow,
    /// The deny list.
    Deny,
}

impl fmt::Display for List {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            List::Allow => "allow",
            List::Deny => "deny",
        })
    }
}

/// A [`NetPolicy`] that cannot be built.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum PolicyError {
    /// An entry's text is malformed.
    Entry {
        /// Which list.
        list: List,
        /// Its 0-based position in the list.
        index: usize,
        /// What is wrong.
        error: EntryError,
    },
    /// More than [`MAX_ENTRIES`] entries in one list.
    TooMany {
        /// Which list.
        list: List,
        /// How many were given.
        count: usize,
    },
    /// An allow entry naming exactly a cloud metadata address or name: no
    /// allow entry unblocks those, so the entry is a mistake, said loudly.
    Metadata {
        /// Its 0-based position in the allow list.
        index: usize,
        /// The entry.
        entry: Entry,
    },
    /// An allow entry naming only unspecified or "this network" addresses
    /// (`0.0.0.0/8`, `::`): no allow entry unblocks those (a dial to them
    /// reaches this host), so the entry is a mistake, said loudly.
    Unspecified {
        /// Its 0-based position in the allow list.
        index: usize,
        /// The entry.
        entry: Entry,
    },
}

impl fmt::Display for PolicyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PolicyError::Entry { list, index, error } => {
                write!(f, "{list} entry {index}: {error}")
            }
            PolicyError::TooMany { list, count } => write!(
                f,
                "{count} {list} entries, over the bound of {MAX_ENTRIES}"
            ),
            PolicyError::Metadata { index, entry } => write!(
                f,
                "allow entry {index} (`{entry}`) is a cloud metadata address or name: those are never allowed"
            ),
            PolicyError::Unspecified { index, entry } => write!(
                f,
                "allow entry {index} (`{entry}`) is an unspecified or \"this network\" address (0.0.0.0/8, ::): a dial there reaches this host, so those are never allowed"
            ),
        }
    }
}

impl std::error::Error for PolicyError {}

/// Operator allow and deny lists applied on top of the classifier (see the
/// module docs for the rules). The default policy has no entries: it agrees
/// with [`classify_url`] and [`vet_resolved`](super::vet_resolved) exactly.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NetPolicy {
    allow: Vec<Entry>,
    deny: Vec<Entry>,
}

/// A URL that passed [`NetPolicy::classify_url`]: global, or let through by
/// an allow entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Admitted {
    url: Url,
    ip: Option<IpAddr>,
    port: u16,
}

impl Admitted {
    /// The URL of a host name the core refuses by name alone, kept as a
    /// name to resolve by a caller that reads the text as a path as likely
    /// as a host (the gateway's URI-named keys): `None` for a URL whose host
    /// is no name.
    #[cfg(feature = "gate")]
    pub(crate) fn unvetted_name(url: Url) -> Option<Self> {
        let Some(Host::Domain(_)) = url.host() else {
            return None;
        };
        let port = url.port_or_known_default().unwrap_or(80);
        Some(Admitted {
            url,
            ip: None,
            port,
        })
    }

    /// The parsed URL (WHATWG-serialised): what was vetted.
    pub fn url(&self) -> &Url {
        &self.url
    }

    /// The vetted host: an IP literal (connect to it), or a name whose DNS
    /// answer must pass [`NetPolicy::vet_resolved`].
    pub fn target(&self) -> Target<'_> {
        match self.ip {
            Some(a) => Target::Ip(a),
            None => Target::Domain(self.url.host_str().unwrap_or_default()),
        }
    }

    /// The domain name, when the host is one.
    pub fn domain(&self) -> Option<&str> {
        self.ip
            .is_none()
            .then(|| self.url.host_str().unwrap_or_default())
    }

    /// The IP literal, when the host is one.
    pub fn ip(&self) -> Option<IpAddr> {
        self.ip
    }

    /// `true` when the host is a name that must be resolved.
    pub fn needs_dns(&self) -> bool {
        self.ip.is_none()
    }

    /// The port to connect to (explicit, or 80 / 443).
    pub fn port(&self) -> u16 {
        self.port
    }
}

impl From<Destination> for Admitted {
    fn from(d: Destination) -> Self {
        let port = d.port();
        let ip = d.ip();
        Self {
            url: d.url().clone(),
            ip,
            port,
        }
    }
}

/// Codes an allow entry may lift: the special-purpose address blocks and
/// the localhost and special-use names. Never `ssrf.cloud_metadata`,
/// `ssrf.metadata_name`, `ssrf.unspecified`, `ssrf.this_network`, or a
/// `url.*` code.
fn liftable(code: &str) -> bool {
    code.starts_with("ssrf.")
        && ![
            DenialCode::CloudMetadata,
            DenialCode::MetadataName,
            DenialCode::Unspecified,
            DenialCode::ThisNetwork,
        ]
        .iter()
        .any(|c| c.code() == code)
}

impl NetPolicy {
    /// A policy from parsed entries.
    ///
    /// # Errors
    /// [`PolicyError::TooMany`] over [`MAX_ENTRIES`] in a list;
    /// [`PolicyError::Metadata`] for an allow entry that names exactly a
    /// cloud metadata address or name; [`PolicyError::Unspecified`] for one
    /// that names only unspecified or "this network" addresses.
    pub fn new(allow: Vec<Entry>, deny: Vec<Entry>) -> Result<Self, PolicyError> {
        for (list, v) in [(List::Allow, &allow), (List::Deny, &deny)] {
            if v.len() > MAX_ENTRIES {
                return Err(PolicyError::TooMany {
                    list,
                    count: v.len(),
                });
            }
        }
        if let Some((index, entry)) = allow.iter().enumerate().find(|(_, e)| e.is_metadata()) {
            return Err(PolicyError::Metadata {
                index,
                entry: entry.clone(),
            });
        }
        if let Some((index, entry)) = allow.iter().enumerate().find(|(_, e)| e.is_unspecified()) {
            return Err(PolicyError::Unspecified {
                index,
                entry: entry.clone(),
            });
        }
        Ok(Self { allow, deny })
    }

    /// A policy from entry texts, as given on a command line or in a policy
    /// file.
    ///
    /// # Errors
    /// As [`NetPolicy::new`], and [`PolicyError::Entry`] naming the list,
    /// the position and the problem of the first malformed entry.
    pub fn parse<S: AsRef<str>>(allow: &[S], deny: &[S]) -> Result<Self, PolicyError> {
        let parse_list = |list: List, v: &[S]| -> Result<Vec<Entry>, PolicyError> {
            if v.len() > MAX_ENTRIES {
                return Err(PolicyError::TooMany {
                    list,
                    count: v.len(),
                });
            }
            v.iter()
                .enumerate()
                .map(|(index, s)| {
                    Entry::parse(s.as_ref()).map_err(|error| PolicyError::Entry {
                        list,
                        index,
                        error,
                    })
                })
                .collect()
        };
        Self::new(
            parse_list(List::Allow, allow)?,
            parse_list(List::Deny, deny)?,
        )
    }

    /// The allow entries.
    pub fn allow(&self) -> &[Entry] {
        &self.allow
    }

    /// The deny entries.
    pub fn deny(&self) -> &[Entry] {
        &self.deny
    }

    /// `true` when the policy has no entries at all.
    pub fn is_empty(&self) -> bool {
        self.allow.is_empty() && self.deny.is_empty()
    }

    fn denied(entry: &Entry, what: impl fmt::Display) -> Denial {
        Denial::of(
            DenialCode::OperatorDeny,
            format!("{what} matches the operator's deny entry `{entry}`"),
        )
    }

    /// The deny entry matching `addr` (or the IPv4 address it embeds).
    fn deny_addr(&self, addr: IpAddr, port: u16) -> Option<&Entry> {
        let embedded = match addr {
            IpAddr::V6(a) => embedded_ipv4(a).map(|(_, v4)| IpAddr::V4(v4)),
            IpAddr::V4(_) => None,
        };
        self.deny.iter().find(|e| {
            e.matches_addr(addr, port) || embedded.is_some_and(|v| e.matches_addr(v, port))
        })
    }

    fn deny_name(&self, name: &str, port: u16) -> Option<&Entry> {
        self.deny.iter().find(|e| e.matches_name(name, port))
    }

    fn allow_name(&self, name: &str, port: u16) -> bool {
        self.allow.iter().any(|e| e.matches_name(name, port))
    }

    /// Classifies an untrusted URL under this policy: [`classify_url`], then
    /// the deny entries, then (for a refused IP literal or a refused
    /// localhost / special-use name) the allow entries.
    ///
    /// # Errors
    /// The classifier's [`Denial`], or `ssrf.operator_deny` for a host or
    /// address matching a deny entry.
    pub fn classify_url(&self, input: &str) -> Result<Admitted, Denial> {
        let denial = match classify_url(input) {
            Ok(dest) => {
                let admitted = Admitted::from(dest);
                let port = admitted.port;
                match admitted.target() {
                    Target::Ip(a) => {
                        if let Some(e) = self.deny_addr(a, port) {
                            return Err(Self::denied(e, format_args!("{a} port {port}")));
                        }
                    }
                    Target::Domain(d) => {
                        if let Some(e) = self.deny_name(d, port) {
                            return Err(Self::denied(e, format_args!("`{d}` port {port}")));
                        }
                    }
                }
                return Ok(admitted);
            }
            Err(d) => d,
        };
        if self.allow.is_empty() || !liftable(denial.code()) {
            return Err(denial);
        }
        // Every syntax check passed (`ssrf.*` codes come last); the host is
        // a refused IP literal or a refused name.
        let Ok(url) = Url::parse(input) else {
            return Err(denial);
        };
        let port = url.port_or_known_default().unwrap_or(80);
        let ip = match url.host() {
            Some(Host::Ipv4(a)) => IpAddr::V4(a),
            Some(Host::Ipv6(a)) => IpAddr::V6(a),
            Some(Host::Domain(d)) => {
                if let Some(e) = self.deny_name(d, port) {
                    return Err(Self::denied(e, format_args!("`{d}` port {port}")));
                }
                if refused_name(d) == Some(DenialCode::MetadataName) || !self.allow_name(d, port) {
                    return Err(denial);
                }
                return Ok(Admitted {
                    url,
                    ip: None,
                    port,
                });
            }
            None => return Err(denial),
        };
        self.check_addr(ip, port, None)?;
        Ok(Admitted {
            url,
            ip: Some(ip),
            port,
        })
    }

    /// Checks one address on `port`, reached through the name `name` when
    /// given (a DNS answer's address, or the peer a connection reached).
    ///
    /// # Errors
    /// `ssrf.operator_deny` for a deny entry; otherwise the classifier's
    /// denial for a non-global address no allow entry lets through.
    pub fn check_addr(&self, addr: IpAddr, port: u16, name: Option<&str>) -> Result<(), Denial> {
        if let Some(e) = self.deny_addr(addr, port) {
            return Err(Self::denied(e, format_args!("{addr} port {port}")));
        }
        if let Some(n) = name {
            if let Some(e) = self.deny_name(n, port) {
                return Err(Self::denied(e, format_args!("`{n}` port {port}")));
            }
        }
        let reach = classify_ip(addr);
        let Some(denial) = reach.denial(addr) else {
            return Ok(());
        };
        if !liftable(denial.code()) {
            return Err(denial);
        }
        if let IpAddr::V6(v6) = addr {
            if embedded_ipv4(v6).is_some() {
                // `[::ffff:127.0.0.1]` is dialled as 127.0.0.1: an IPv6
                // entry (`::/0`) must not lift the IPv4 address inside,
                // and an IPv4 entry does not match an IPv6 address.
                return Err(denial);
            }
        }
        let allowed = self.allow.iter().any(|e| e.matches_addr(addr, port))
            || name.is_some_and(|n| {
                refused_name(n) != Some(DenialCode::MetadataName) && self.allow_name(n, port)
            });
        if allowed {
            Ok(())
        } else {
            Err(denial)
        }
    }

    /// Vets every address of the DNS answer for `dest` (a name): the whole
    /// answer is refused if any address is (a mixed answer is a rebinding
    /// attempt). Connect only to one of these addresses afterwards.
    ///
    /// # Errors
    /// `dns.no_address` for an empty answer; otherwise the first refused
    /// address's denial (see [`NetPolicy::check_addr`]).
    pub fn vet_resolved(&self, dest: &Admitted, addrs: &[IpAddr]) -> Result<(), Denial> {
        if addrs.is_empty() {
            return Err(Denial::of(
                DenialCode::NoAddress,
                "the DNS answer holds no address",
            ));
        }
        let name = dest.domain();
        for &a in addrs {
            self.check_addr(a, dest.port, name).map_err(|d| {
                Denial::of(
                    d.kind(),
                    format!(
                        "resolved address: {}; one refused address refuses the whole answer (DNS rebinding)",
                        d.reason()
                    ),
                )
            })?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn e(s: &str) -> Entry {
        Entry::parse(s).unwrap_or_else(|err| panic!("{s}: {err}"))
    }

    fn kind(s: &str) -> EntryErrorKind {
        Entry::parse(s).unwrap_err().kind().clone()
    }

    fn policy(allow: &[&str], deny: &[&str]) -> NetPolicy {
        NetPolicy::parse(allow, deny).unwrap()
    }

    #[test]
    fn entry_forms() {
        assert_eq!(
            e("10.0.0.0/8").host(),
            &EntryHost::Net("10.0.0.0/8".parse().unwrap())
        );
        assert_eq!(e("127.0.0.1:8080").port(), Some(8080));
        assert_eq!(e("[::1]:8080").to_string(), "[::1]:8080");
        assert_eq!(e("::1").to_string(), "::1");
        assert_eq!(
            e("Intranet.Example:443").to_string(),
            "intranet.example:443"
        );
        assert_eq!(e("docs.example.").to_string(), "docs.example");
        assert_eq!(e("*.corp.example").to_string(), "*.corp.example");
        assert_eq!(e("::ffff:0:0/96").to_string(), "::ffff:0.0.0.0/96");
        assert_eq!(e("bücher.example").to_string(), "xn--bcher-kva.example");
        assert_eq!(e("1.2.3.4/32"), e("1.2.3.4"));
    }

    #[test]
    fn entry_errors_say_what_and_where() {
        assert_eq!(kind(""), EntryErrorKind::Empty);
        assert_eq!(
            kind("10.0.0.1/8"),
            EntryErrorKind::HostBits {
                network: "10.0.0.0/8".parse().unwrap()
            }
        );
        assert_eq!(kind("10.0.0.0/33"), EntryErrorKind::Cidr);
        assert_eq!(kind("10.0.0.0/08"), EntryErrorKind::Cidr);
        assert_eq!(kind("10.0.0.0/8:443"), EntryErrorKind::PortOnCidr);
        assert_eq!(kind("host:0"), EntryErrorKind::Port);
        assert_eq!(kind("host:65536"), EntryErrorKind::Port);
        assert_eq!(kind("host:+80"), EntryErrorKind::Port);
        assert_eq!(kind("host:"), EntryErrorKind::Port);
        assert_eq!(kind("fe80::1%eth0"), EntryErrorKind::Zone);
        assert_eq!(kind("[fe80::1%25eth0]:80"), EntryErrorKind::Zone);
        assert_eq!(
            kind("0x7f.1"),
            EntryErrorKind::NonCanonicalIpv4 {
                addr: Ipv4Addr::new(127, 0, 0, 1)
            }
        );
        assert_eq!(
            kind("127.1:80"),
            EntryErrorKind::NonCanonicalIpv4 {
                addr: Ipv4Addr::new(127, 0, 0, 1)
            }
        );
        assert_eq!(
            kind("010.0.0.1"),
            EntryErrorKind::NonCanonicalIpv4 {
                addr: Ipv4Addr::new(8, 0, 0, 1)
            }
        );
        assert_eq!(kind("http://example.com"), EntryErrorKind::NotAHost);
        assert_eq!(kind("a..b"), EntryErrorKind::Name);
        assert_eq!(kind("a%2eb"), EntryErrorKind::Name);
        assert_eq!(kind("a.*.b"), EntryErrorKind::Wildcard);
        // IDNA maps U+FE61 to `*` and U+FF1A to `:`: not a name.
        assert_eq!(kind("\u{FE61}"), EntryErrorKind::Name);
        assert_eq!(kind("a\u{FF1A}80"), EntryErrorKind::Name);
        assert_eq!(kind("user@host"), EntryErrorKind::Character { c: '@' });
        assert_eq!(kind("a b"), EntryErrorKind::Character { c: ' ' });
        assert_eq!(
            kind(&"a".repeat(MAX_ENTRY_BYTES + 1)),
            EntryErrorKind::TooLong {
                len: MAX_ENTRY_BYTES + 1
            }
        );
        let err = Entry::parse("host:99999").unwrap_err();
        assert_eq!(err.at(), 5);
        assert!(err.to_string().contains("byte 5"), "{err}");
    }

    #[test]
    fn policy_errors_name_list_and_index() {
        let err = NetPolicy::parse(&["10.0.0.0/8", "bad host"], &[]).unwrap_err();
        assert!(
            matches!(
                err,
                PolicyError::Entry {
                    list: List::Allow,
                    index: 1,
                    ..
                }
            ),
            "{err}"
        );
        let err = NetPolicy::parse(&["169.254.169.254"], &[]).unwrap_err();
        assert!(
            matches!(err, PolicyError::Metadata { index: 0, .. }),
            "{err}"
        );
        let err = NetPolicy::parse(&["metadata.google.internal:80"], &[]).unwrap_err();
        assert!(matches!(err, PolicyError::Metadata { .. }), "{err}");
        // As deny entries they are fine.
        policy(&[], &["169.254.169.254"]);
        let many = vec!["10.0.0.0/8"; MAX_ENTRIES + 1];
        assert!(matches!(
            NetPolicy::parse(&many, &[]),
            Err(PolicyError::TooMany {
                list: List::Allow,
                ..
            })
        ));
    }

    #[test]
    fn allow_lets_an_intranet_origin_through() {
        let p = policy(&["127.0.0.1:8080", "10.0.0.0/8", "intranet.local"], &[]);
        assert!(p.classify_url("http://127.0.0.1:8080/a.pdf").is_ok());
        assert_eq!(
            p.classify_url("http://127.0.0.1:8081/").unwrap_err().code(),
            "ssrf.loopback"
        );
        assert_eq!(
            p.classify_url("http://127.0.0.2:8080/").unwrap_err().code(),
            "ssrf.loopback"
        );
        assert!(p.classify_url("https://10.1.2.3/").is_ok());
        let a = p.classify_url("http://intranet.local/").unwrap();
        assert!(a.needs_dns());
        p.vet_resolved(&a, &["192.168.1.1".parse().unwrap()])
            .unwrap();
        assert_eq!(
            p.vet_resolved(
                &a,
                &[
                    "192.168.1.1".parse().unwrap(),
                    "169.254.169.254".parse().unwrap()
                ]
            )
            .unwrap_err()
            .code(),
            "ssrf.cloud_metadata"
        );
        assert_eq!(
            p.classify_url("http://other.local/").unwrap_err().code(),
            "ssrf.special_use_name"
        );
        // A name refused by name is not unblocked by an address entry.
        assert_eq!(
            p.classify_url("http://localhost:8080/").unwrap_err().code(),
            "ssrf.localhost_name"
        );
    }

    #[test]
    fn an_ipv6_entry_does_not_lift_the_ipv4_address_inside() {
        let p = policy(&["::/0", "::ffff:0:0/96", "2002::/16", "64:ff9b::/96"], &[]);
        for u in [
            "http://[::ffff:127.0.0.1]:8080/",
            "http://[::ffff:7f00:1]/",
            "http://[::ffff:10.0.0.1]/",
            "http://[::ffff:127.0.0.2]/",
            "http://[64:ff9b::10.0.0.1]/",
            "http://[2002:7f00:1::]/",
        ] {
            let d = p.classify_url(u).unwrap_err();
            assert!(d.code().starts_with("ssrf."), "{u}: {}", d.code());
        }
        // A native IPv6 address in the entry is still lifted.
        assert!(p.classify_url("http://[::1]/").is_ok());
        assert!(p.classify_url("http://[fd00::1]/").is_ok());
        // The IPv4 form with an IPv4 entry is the way in.
        let p = policy(&["127.0.0.1"], &[]);
        assert!(p.classify_url("http://127.0.0.1/").is_ok());
        assert!(p.classify_url("http://[::ffff:127.0.0.1]/").is_err());
    }

    #[test]
    fn unspecified_is_never_unblocked() {
        // A dial to 0.0.0.0 or :: reaches this host: no allow entry lifts
        // those, and an entry naming only them is refused at start.
        for only in [
            "0.0.0.0",
            "0.0.0.0/8",
            "0.1.2.3",
            "::",
            "::/128",
            "::ffff:0.0.0.0",
            "0.0.0.0:8080",
        ] {
            let err = NetPolicy::parse(&[only], &[]).unwrap_err();
            assert!(
                matches!(err, PolicyError::Unspecified { index: 0, .. }),
                "{only}: {err}"
            );
            assert!(err.to_string().contains("never allowed"), "{err}");
        }
        // A wider entry is fine, but does not lift them; as deny entries they are fine.
        policy(&[], &["0.0.0.0", "::"]);
        let p = policy(&["0.0.0.0/0", "::/0", "0.0.0.0/7"], &[]);
        for (a, code) in [
            ("0.0.0.0", "ssrf.unspecified"),
            ("0.255.255.255", "ssrf.this_network"),
            ("::", "ssrf.unspecified"),
        ] {
            let ip: IpAddr = a.parse().unwrap();
            assert_eq!(p.check_addr(ip, 80, None).unwrap_err().code(), code, "{a}");
        }
        for u in [
            "http://0.0.0.0:8080/",
            "http://[::]/",
            "http://[::ffff:0.0.0.0]/",
            "http://[0:0:0:0:0:0:0:0]:80/",
        ] {
            let d = p.classify_url(u).unwrap_err();
            assert!(
                d.code() == "ssrf.unspecified" || d.code() == "ssrf.this_network",
                "{u}: {}",
                d.code()
            );
        }
        // A name resolving to 0.0.0.0 is refused even when the name is allowed.
        let p = policy(&["intranet.example"], &[]);
        let a = p.classify_url("http://intranet.example/").unwrap();
        assert_eq!(
            p.vet_resolved(&a, &["0.0.0.0".parse().unwrap()])
                .unwrap_err()
                .code(),
            "ssrf.unspecified"
        );
        assert!(p.classify_url("http://127.0.0.1/").is_err());
        // The rest of the loopback block is still liftable.
        let p = policy(&["127.0.0.0/8"], &[]);
        assert!(p.classify_url("http://127.0.0.2/").is_ok());
    }

    #[test]
    fn metadata_is_never_unblocked() {
        let p = policy(
            &["0.0.0.0/0", "::/0", "*.google.internal", "*.internal"],
            &[],
        );
        for u in [
            "http://169.254.169.254/",
            "http://[::ffff:169.254.169.254]/",
            "http://[fd00:ec2::254]/",
            "http://metadata.google.internal/",
            "http://100.100.100.200/",
        ] {
            let code = p.classify_url(u).unwrap_err().code();
            assert!(
                code == "ssrf.cloud_metadata" || code == "ssrf.metadata_name",
                "{u}: {code}"
            );
        }
        assert!(p
            .check_addr("169.254.169.254".parse().unwrap(), 80, Some("x.internal"))
            .is_err());
        // Everything else is let through by the catch-all entries.
        assert!(p.classify_url("http://127.0.0.1/").is_ok());
        assert!(p.classify_url("http://x.internal/").is_ok());
    }

    #[test]
    fn mapped_ranges_stay_in_their_family() {
        let p = policy(&["::ffff:0:0/96"], &[]);
        assert_eq!(
            p.classify_url("http://127.0.0.1/").unwrap_err().code(),
            "ssrf.loopback"
        );
        assert_eq!(
            p.classify_url("http://10.0.0.1/").unwrap_err().code(),
            "ssrf.private_use"
        );
        let p = policy(&["127.0.0.1:8080"], &[]);
        assert_eq!(
            p.classify_url("http://[::ffff:127.0.0.1]:8080/")
                .unwrap_err()
                .code(),
            "ssrf.loopback"
        );
        // Deny looks through the embedding.
        let p = policy(&["::/0"], &["127.0.0.0/8"]);
        assert_eq!(
            p.classify_url("http://[::ffff:127.0.0.1]/")
                .unwrap_err()
                .code(),
            "ssrf.operator_deny"
        );
    }

    #[test]
    fn deny_wins() {
        let p = policy(
            &["10.0.0.0/8", "docs.example"],
            &["10.0.0.5", "docs.example:80", "8.8.8.0/24"],
        );
        assert_eq!(
            p.classify_url("http://10.0.0.5/").unwrap_err().code(),
            "ssrf.operator_deny"
        );
        assert!(p.classify_url("http://10.0.0.6/").is_ok());
        assert_eq!(
            p.classify_url("http://docs.example/").unwrap_err().code(),
            "ssrf.operator_deny"
        );
        let a = p.classify_url("https://docs.example/").unwrap();
        assert_eq!(
            p.vet_resolved(&a, &["10.0.0.5".parse().unwrap()])
                .unwrap_err()
                .code(),
            "ssrf.operator_deny"
        );
        assert_eq!(
            p.classify_url("http://8.8.8.8/").unwrap_err().code(),
            "ssrf.operator_deny"
        );
    }

    #[test]
    fn suffix_entries() {
        let x = e("*.corp.example:443");
        assert!(x.matches_name("a.corp.example", 443));
        assert!(x.matches_name("a.b.corp.example.", 443));
        assert!(!x.matches_name("corp.example", 443));
        assert!(!x.matches_name("evilcorp.example", 443));
        assert!(!x.matches_name("a.corp.example", 80));
    }

    fn any_entry() -> impl Strategy<Value = Entry> {
        let port = proptest::option::of(1u16..);
        prop_oneof![
            (any::<u32>(), 0u8..=32).prop_map(|(a, l)| Entry::net(IpNet::V4(
                Ipv4Net::new(Ipv4Addr::from_bits(a), l).unwrap().trunc()
            ))),
            (any::<u128>(), 0u8..=128).prop_map(|(a, l)| Entry::net(IpNet::V6(
                Ipv6Net::new(Ipv6Addr::from_bits(a), l).unwrap().trunc()
            ))),
            (any::<u32>(), port.clone())
                .prop_map(|(a, p)| Entry::addr(IpAddr::V4(Ipv4Addr::from_bits(a)), p)),
            (any::<u128>(), port.clone())
                .prop_map(|(a, p)| Entry::addr(IpAddr::V6(Ipv6Addr::from_bits(a)), p)),
            (
                "[a-z][a-z0-9-]{0,8}(\\.[a-z][a-z0-9]{0,5}){0,3}",
                any::<bool>(),
                port
            )
                // Names the generator can spell but IDNA refuses (an `xn--`
                // label that is not valid Punycode, `--` in the third and
                // fourth places) are not entries: left out, not unwrapped.
                .prop_filter_map("a name IDNA refuses", |(n, w, p)| Entry::parse(&format!(
                    "{}{n}{}",
                    if w { "*." } else { "" },
                    p.map(|p| format!(":{p}")).unwrap_or_default()
                ))
                .ok()),
        ]
    }

    fn any_ip() -> impl Strategy<Value = IpAddr> {
        prop_oneof![
            any::<u32>().prop_map(|a| IpAddr::V4(Ipv4Addr::from_bits(a))),
            any::<u128>().prop_map(|a| IpAddr::V6(Ipv6Addr::from_bits(a))),
            // Interesting neighbourhoods: loopback, private, metadata, mapped.
            (0u32..256).prop_map(|a| IpAddr::V4(Ipv4Addr::from_bits(0x7f00_0000 | a))),
            (0u32..256).prop_map(|a| IpAddr::V4(Ipv4Addr::from_bits(0xa9fe_a900 | a))),
            any::<u32>().prop_map(|a| IpAddr::V6(Ipv4Addr::from_bits(a).to_ipv6_mapped())),
        ]
    }

    /// The rules of the module docs, written out independently.
    fn oracle(p: &NetPolicy, a: IpAddr, port: u16) -> Result<(), String> {
        let net_has = |e: &Entry, x: IpAddr| match (e.host(), x) {
            (EntryHost::Net(n), x) => {
                n.contains(&x)
                    && std::mem::discriminant(n) == std::mem::discriminant(&IpNet::from(x))
                    && e.port().is_none_or(|q| q == port)
            }
            _ => false,
        };
        let v4 = match a {
            IpAddr::V6(x) => embedded_ipv4(x).map(|(_, v)| IpAddr::V4(v)),
            _ => None,
        };
        if p.deny()
            .iter()
            .any(|e| net_has(e, a) || v4.is_some_and(|v| net_has(e, v)))
        {
            return Err("ssrf.operator_deny".into());
        }
        let embeds = matches!(a, IpAddr::V6(x) if embedded_ipv4(x).is_some());
        match classify_ip(a).code() {
            None => Ok(()),
            Some(c) if embeds => Err(c.code().into()),
            Some(
                c @ (DenialCode::CloudMetadata | DenialCode::Unspecified | DenialCode::ThisNetwork),
            ) => Err(c.code().into()),
            Some(c) if p.allow().iter().any(|e| net_has(e, a)) => {
                let _ = c;
                Ok(())
            }
            Some(c) => Err(c.code().into()),
        }
    }

    proptest! {
        #[test]
        fn display_parses_back(x in any_entry()) {
            prop_assert_eq!(Entry::parse(&x.to_string()), Ok(x));
        }

        #[test]
        fn parse_is_total(s in "[\\[\\]0-9a-fA-F:./*%@x-]{0,40}|\\PC{0,20}") {
            match Entry::parse(&s) {
                Ok(x) => prop_assert_eq!(Entry::parse(&x.to_string()), Ok(x)),
                Err(err) => { prop_assert!(err.at() <= s.len()); prop_assert!(!err.to_string().is_empty()); }
            }
        }

        #[test]
        fn check_addr_follows_the_rules(
            allow in proptest::collection::vec(any_entry(), 0..4),
            deny in proptest::collection::vec(any_entry(), 0..3),
            a in any_ip(),
            port in 1u16..,
        ) {
            let allow: Vec<Entry> = allow.into_iter().filter(|x| !x.is_metadata() && !x.is_unspecified()).collect();
            let p = NetPolicy::new(allow, deny).unwrap();
            prop_assert_eq!(p.check_addr(a, port, None).map_err(|d| d.code().to_string()), oracle(&p, a, port));
        }

        #[test]
        fn ipv6_entries_never_admit_ipv4(n in any::<u128>(), l in 0u8..=128, a in any::<u32>(), port in 1u16..) {
            let p = NetPolicy::new(vec![Entry::net(IpNet::V6(Ipv6Net::new(Ipv6Addr::from_bits(n), l).unwrap().trunc()))], vec![]).unwrap();
            let a = IpAddr::V4(Ipv4Addr::from_bits(a));
            prop_assert_eq!(p.check_addr(a, port, None).is_ok(), classify_ip(a).is_global());
        }

        #[test]
        fn empty_policy_agrees_with_the_classifier(s in "https?://[a-z0-9.:\\[\\]-]{1,30}(/[a-z]{0,5})?") {
            let p = NetPolicy::default();
            let ours = p.classify_url(&s).map(|a| a.url().clone()).map_err(|d| d.code());
            let core = classify_url(&s).map(|d| d.url().clone()).map_err(|d| d.code());
            prop_assert_eq!(ours, core);
        }
    }
}
