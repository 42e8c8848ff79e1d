//! Stable denial codes and the [`Denial`] value carried by every refusal.

use super::ip::{classify_ipv4, Reach};
use std::borrow::Cow;
use std::fmt;
use std::net::{IpAddr, Ipv4Addr};

/// Every stable machine-readable reason a destination (or path) is refused.
///
/// The string form ([`DenialCode::as_str`]) is the contract: it never changes
/// for a given meaning. `ssrf.*` codes name an address block of the IANA
/// IPv4/IPv6 Special-Purpose Address Registries (or a documented cloud
/// service); `url.*` codes name a problem with the URL text itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum DenialCode {
    /// `0.0.0.0/32`, `::/128`.
    Unspecified,
    /// `0.0.0.0/8` "This network".
    ThisNetwork,
    /// `10/8`, `172.16/12`, `192.168/16`.
    PrivateUse,
    /// `100.64.0.0/10` (carrier-grade NAT).
    SharedAddressSpace,
    /// `127.0.0.0/8`, `::1/128`.
    Loopback,
    /// `169.254.0.0/16`, `fe80::/10`.
    LinkLocal,
    /// `192.0.0.0/24`, `2001::/23` and their anycast/dummy sub-blocks.
    IetfProtocol,
    /// TEST-NET-1/2/3, `2001:db8::/32`, `3fff::/20`.
    Documentation,
    /// `198.18.0.0/15`, `2001:2::/48`.
    Benchmarking,
    /// AS112 blocks (`192.31.196.0/24`, `192.175.48.0/24`, `2001:4:112::/48`, `2620:4f:8000::/48`).
    As112,
    /// Automatic Multicast Tunneling (`192.52.193.0/24`, `2001:3::/32`).
    Amt,
    /// `192.88.99.0/24`, deprecated 6to4 relay anycast.
    SixToFourRelayAnycast,
    /// `240.0.0.0/4`, and every IPv6 address outside `2000::/3` not named otherwise.
    Reserved,
    /// `255.255.255.255/32`.
    LimitedBroadcast,
    /// `224.0.0.0/4`, `ff00::/8`.
    Multicast,
    /// `::ffff:0:0/96` embedding a global IPv4 address.
    Ipv4Mapped,
    /// `::/96` (deprecated IPv4-compatible) embedding a global IPv4 address.
    Ipv4Compatible,
    /// `::ffff:0:0:0/96` (SIIT IPv4-translated) embedding a global IPv4 address.
    Ipv4Translated,
    /// `64:ff9b::/96`, `64:ff9b:1::/48` embedding a global IPv4 address.
    Nat64,
    /// `2002::/16` embedding a global IPv4 address.
    SixToFour,
    /// `2001::/32` embedding global IPv4 addresses.
    Teredo,
    /// An ISATAP interface identifier (`…:0:5efe:a.b.c.d`, `…:200:5efe:…`)
    /// under a global prefix, embedding a global IPv4 address.
    Isatap,
    /// `100::/64`.
    DiscardOnly,
    /// `100:0:0:1::/64`.
    DummyPrefix,
    /// `2001:10::/28`, `2001:20::/28`.
    Orchid,
    /// `2001:30::/28`.
    DroneRemoteId,
    /// `5f00::/16`.
    SegmentRouting,
    /// `fc00::/7`.
    UniqueLocal,
    /// `fec0::/10`.
    SiteLocal,
    /// A documented cloud metadata / instance-local service address.
    CloudMetadata,
    /// `localhost`, `*.localhost` and the usual `/etc/hosts` loopback aliases.
    LocalhostName,
    /// A documented cloud metadata host name.
    MetadataName,
    /// A special-use domain name that never resolves publicly (`.local`, `.internal`, ...).
    SpecialUseName,
    /// A scheme other than `http` / `https`.
    Scheme,
    /// Userinfo (`user@`, `user:pass@`, even an empty `@`) in the authority.
    Userinfo,
    /// The WHATWG parser refused the URL, or the host is empty.
    Malformed,
    /// Text that parsers read differently: controls, whitespace, backslashes,
    /// non-canonical IPv4 notation, percent-encoded hosts, missing `//`.
    Ambiguous,
    /// Longer than [`crate::net::MAX_URL_BYTES`].
    TooLong,
    /// A DNS answer with no address at all.
    NoAddress,
    /// A file path that leaves the configured root (used by the MCP server).
    PathOutsideRoot,
    /// A host or address matching an operator deny entry ([`crate::net::NetPolicy`]).
    OperatorDeny,
}

impl DenialCode {
    /// Every code, in README table order.
    pub const ALL: &'static [DenialCode] = &[
        Self::Unspecified,
        Self::ThisNetwork,
        Self::PrivateUse,
        Self::SharedAddressSpace,
        Self::Loopback,
        Self::LinkLocal,
        Self::IetfProtocol,
        Self::Documentation,
        Self::Benchmarking,
        Self::As112,
        Self::Amt,
        Self::SixToFourRelayAnycast,
        Self::Reserved,
        Self::LimitedBroadcast,
        Self::Multicast,
        Self::Ipv4Mapped,
        Self::Ipv4Compatible,
        Self::Ipv4Translated,
        Self::Nat64,
        Self::SixToFour,
        Self::Teredo,
        Self::Isatap,
        Self::DiscardOnly,
        Self::DummyPrefix,
        Self::Orchid,
        Self::DroneRemoteId,
        Self::SegmentRouting,
        Self::UniqueLocal,
        Self::SiteLocal,
        Self::CloudMetadata,
        Self::LocalhostName,
        Self::MetadataName,
        Self::SpecialUseName,
        Self::Scheme,
        Self::Userinfo,
        Self::Malformed,
        Self::Ambiguous,
        Self::TooLong,
        Self::NoAddress,
        Self::PathOutsideRoot,
        Self::OperatorDeny,
    ];

    /// The stable string, e.g. `ssrf.loopback`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Unspecified => "ssrf.unspecified",
            Self::ThisNetwork => "ssrf.this_network",
            Self::PrivateUse => "ssrf.private_use",
            Self::SharedAddressSpace => "ssrf.shared_address_space",
            Self::Loopback => "ssrf.loopback",
            Self::LinkLocal => "ssrf.link_local",
            Self::IetfProtocol => "ssrf.ietf_protocol",
            Self::Documentation => "ssrf.documentation",
            Self::Benchmarking => "ssrf.benchmarking",
            Self::As112 => "ssrf.as112",
            Self::Amt => "ssrf.amt",
            Self::SixToFourRelayAnycast => "ssrf.6to4_relay_anycast",
            Self::Reserved => "ssrf.reserved",
            Self::LimitedBroadcast => "ssrf.limited_broadcast",
            Self::Multicast => "ssrf.multicast",
            Self::Ipv4Mapped => "ssrf.ipv4_mapped",
            Self::Ipv4Compatible => "ssrf.ipv4_compatible",
            Self::Ipv4Translated => "ssrf.ipv4_translated",
            Self::Nat64 => "ssrf.nat64",
            Self::SixToFour => "ssrf.6to4",
            Self::Teredo => "ssrf.teredo",
            Self::Isatap => "ssrf.isatap",
            Self::DiscardOnly => "ssrf.discard_only",
            Self::DummyPrefix => "ssrf.dummy_prefix",
            Self::Orchid => "ssrf.orchid",
            Self::DroneRemoteId => "ssrf.drone_remote_id",
            Self::SegmentRouting => "ssrf.segment_routing",
            Self::UniqueLocal => "ssrf.unique_local",
            Self::SiteLocal => "ssrf.site_local",
            Self::CloudMetadata => "ssrf.cloud_metadata",
            Self::LocalhostName => "ssrf.localhost_name",
            Self::MetadataName => "ssrf.metadata_name",
            Self::SpecialUseName => "ssrf.special_use_name",
            Self::Scheme => "url.scheme",
            Self::Userinfo => "url.userinfo",
            Self::Malformed => "url.malformed",
            Self::Ambiguous => "url.ambiguous",
            Self::TooLong => "url.too_long",
            Self::NoAddress => "dns.no_address",
            Self::PathOutsideRoot => "path.outside_root",
            Self::OperatorDeny => "ssrf.operator_deny",
        }
    }

    /// Where the meaning comes from (RFC, registry, or policy), for the README table.
    pub const fn source(self) -> &'static str {
        match self {
            Self::Unspecified => "RFC 1122 §3.2.1.3; RFC 4291 §2.5.2",
            Self::ThisNetwork => "RFC 791 §3.2",
            Self::PrivateUse => "RFC 1918",
            Self::SharedAddressSpace => "RFC 6598",
            Self::Loopback => "RFC 1122 §3.2.1.3; RFC 4291 §2.5.3",
            Self::LinkLocal => "RFC 3927; RFC 4291 §2.5.6",
            Self::IetfProtocol => "RFC 6890 §2.1; RFC 2928; RFC 7335; RFC 7600; RFC 7723; RFC 8155; RFC 8880; RFC 9665",
            Self::Documentation => "RFC 5737; RFC 3849; RFC 9637",
            Self::Benchmarking => "RFC 2544; RFC 5180",
            Self::As112 => "RFC 7534; RFC 7535",
            Self::Amt => "RFC 7450",
            Self::SixToFourRelayAnycast => "RFC 3068; RFC 7526",
            Self::Reserved => "RFC 1112 §4; RFC 4291 §2.4 (IANA IPv6 Address Space)",
            Self::LimitedBroadcast => "RFC 919 §7; RFC 8190",
            Self::Multicast => "RFC 5771; RFC 4291 §2.7",
            Self::Ipv4Mapped => "RFC 4291 §2.5.5.2",
            Self::Ipv4Compatible => "RFC 4291 §2.5.5.1 (deprecated)",
            Self::Ipv4Translated => "RFC 2765 §2.1 (SIIT); RFC 6052 §2",
            Self::Nat64 => "RFC 6052; RFC 8215",
            Self::SixToFour => "RFC 3056",
            Self::Teredo => "RFC 4380; RFC 8190",
            Self::Isatap => "RFC 5214 §6.1",
            Self::DiscardOnly => "RFC 6666",
            Self::DummyPrefix => "RFC 9780",
            Self::Orchid => "RFC 4843; RFC 7343",
            Self::DroneRemoteId => "RFC 9374",
            Self::SegmentRouting => "RFC 9602",
            Self::UniqueLocal => "RFC 4193; RFC 8190",
            Self::SiteLocal => "RFC 3879 (deprecated)",
            Self::CloudMetadata => "AWS, GCP, Azure, Alibaba, Oracle, Tencent, Scaleway, OpenStack documentation",
            Self::LocalhostName => "RFC 6761 §6.3; draft-ietf-dnsop-let-localhost-be-localhost",
            Self::MetadataName => "GCP, AWS, Tencent, IBM Cloud, Equinix documentation",
            Self::SpecialUseName => "RFC 6761; RFC 6762; RFC 7686; RFC 8375; RFC 9476; ICANN .internal (2024)",
            Self::Scheme => "WHATWG URL Standard §4.2 (special schemes); policy: http, https only",
            Self::Userinfo => "RFC 3986 §3.2.1; WHATWG URL Standard (credentials)",
            Self::Malformed => "WHATWG URL Standard §4.4 (basic URL parser)",
            Self::Ambiguous => "WHATWG URL Standard §4.3 (IPv4 parser), RFC 3986 §7.4; policy",
            Self::TooLong => "policy (MAX_URL_BYTES)",
            Self::NoAddress => "policy (empty DNS answer)",
            Self::PathOutsideRoot => "policy (MCP server --root)",
            Self::OperatorDeny => "policy (operator deny entry: --deny, [net] deny)",
        }
    }

    /// The code whose string is `s`, if any.
    pub fn from_str_code(s: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|c| c.as_str() == s)
    }
}

impl fmt::Display for DenialCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A refused destination (or path): a stable code and a human reason.
///
/// The reason sentence is built only when asked for ([`Denial::reason`],
/// `Display`): refusing is on the hot path, reading why is not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Denial {
    code: &'static str,
    detail: Detail,
}

/// What a reason sentence is made from; formatted on demand.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Detail {
    /// A finished sentence.
    Text(Cow<'static, str>),
    /// An IP address and its classification.
    Ip(Reach, IpAddr),
    /// An IPv4 host written in a non-canonical notation.
    NonCanonicalV4(Ipv4Addr),
    /// A host name refused by name, with its code; the parsed URL (moved in,
    /// not copied: refusing allocates nothing) holds the name.
    Name(DenialCode, url::Url),
    /// A refused URL scheme, read from the parsed URL.
    Scheme(url::Url),
    /// The WHATWG parser's error.
    Parse(url::ParseError),
}

impl fmt::Display for Detail {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Detail::Text(t) => f.write_str(t),
            Detail::Ip(reach, addr) => write!(f, "{}", reach.display(*addr)),
            Detail::NonCanonicalV4(a) => write!(
                f,
                "the host is a non-canonical IPv4 notation (hex, octal, leading zero, short or \
                 single-number form, trailing dot, encoded digits) of {a}; {}",
                classify_ipv4(*a).display(IpAddr::V4(*a))
            ),
            Detail::Name(code, url) => {
                let name = url.host_str().unwrap_or_default();
                match code {
                    DenialCode::LocalhostName => write!(
                        f,
                        "`{name}` is a localhost name: it resolves to loopback (RFC 6761 §6.3)"
                    ),
                    DenialCode::MetadataName => {
                        write!(f, "`{name}` is a cloud metadata host name")
                    }
                    _ => write!(
                        f,
                        "`{name}` is under a special-use name that never resolves in the public DNS (RFC 6761)"
                    ),
                }
            }
            Detail::Scheme(url) => write!(
                f,
                "scheme `{}` is refused: only http and https",
                url.scheme()
            ),
            Detail::Parse(e) => write!(f, "not a valid URL: {e}"),
        }
    }
}

impl Denial {
    /// Builds a denial from a stable code string and a reason. Prefer
    /// [`Denial::of`] with a [`DenialCode`]; this stays for callers that
    /// carry the code as a string.
    pub fn new(code: &'static str, reason: impl Into<String>) -> Self {
        Self {
            code,
            detail: Detail::Text(Cow::Owned(reason.into())),
        }
    }

    /// Builds a denial from a [`DenialCode`].
    pub fn of(code: DenialCode, reason: impl Into<String>) -> Self {
        Self::new(code.as_str(), reason)
    }

    /// A denial whose reason is a fixed sentence (no allocation).
    pub(crate) fn fixed(code: DenialCode, reason: &'static str) -> Self {
        Self::lazy(code, Detail::Text(Cow::Borrowed(reason)))
    }

    /// A denial whose reason is formatted from `detail` on demand.
    pub(crate) fn lazy(code: DenialCode, detail: Detail) -> Self {
        Self {
            code: code.as_str(),
            detail,
        }
    }

    /// A `path.outside_root` denial (a file path leaving the server's root).
    pub fn outside_root(reason: impl Into<String>) -> Self {
        Self::of(DenialCode::PathOutsideRoot, reason)
    }

    /// The stable machine-readable code, e.g. `ssrf.loopback`.
    pub fn code(&self) -> &'static str {
        self.code
    }

    /// The code as an enum, when it is one of [`DenialCode::ALL`].
    pub fn kind(&self) -> Option<DenialCode> {
        DenialCode::from_str_code(self.code)
    }

    /// A human-readable sentence saying why. Built on each call (borrowed
    /// when it is a fixed sentence); `Display` writes it without allocating.
    pub fn reason(&self) -> Cow<'_, str> {
        match &self.detail {
            Detail::Text(t) => Cow::Borrowed(t),
            other => Cow::Owned(other.to_string()),
        }
    }
}

impl fmt::Display for Denial {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code, self.detail)
    }
}

impl std::error::Error for Denial {}
