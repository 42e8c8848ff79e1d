//! Stable codes: the `codes!` table macro, the [`StableCode`] trait every
//! code family implements, and the `net` family itself ([`DenialCode`]) with
//! the [`Denial`] value carried by every refusal.
//!

use super::ip::{classify_ipv4, Reach};
use std::borrow::Cow;
use std::fmt;
use std::net::{IpAddr, Ipv4Addr};

/// A family of stable machine-readable codes, made by the crate's `codes!`
/// table macro (see the [`net`](crate::net) module docs for the families).
///
/// `code()` is the contract: the same string for the same meaning forever.
pub trait StableCode: Copy + Eq + fmt::Debug + fmt::Display + 'static {
    /// Every code of the family, in table order.
    const ALL: &'static [Self];
    /// The stable string, e.g. `ssrf.loopback`.
    fn code(self) -> &'static str;
    /// Where the meaning comes from (RFC, registry, or policy).
    fn source(self) -> &'static str;
    /// The code whose string is `s`, if any.
    fn from_code(s: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|c| c.code() == s)
    }
}

/// One table makes a code enum, its stable strings and its sources:
///
/// ```ignore
/// codes! {
///     /// Why the policy refused a call.
///     pub enum PolicyCode {
///         /// The tool is not in `[tools] allow`.
///         ToolNotAllowed => "policy.tool_not_allowed", "policy file [tools]";
///     }
/// }
/// ```
///
/// The enum gets `Debug, Clone, Copy, PartialEq, Eq, Hash`, `#[non_exhaustive]`,
/// inherent `ALL`, `code()`, `source()`, `from_code()`, `Display` (the code)
/// and [`StableCode`]. Used inside the crate as `crate::net::codes!`.
macro_rules! codes {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident {
            $( $(#[$vmeta:meta])* $variant:ident => $code:literal, $source:literal; )+
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        $vis enum $name {
            $( $(#[$vmeta])* $variant, )+
        }

        impl $name {
            /// Every code, in table order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// The stable string.
            pub const fn code(self) -> &'static str {
                match self { $($name::$variant => $code),+ }
            }

            /// Where the meaning comes from (RFC, registry, or policy).
            pub const fn source(self) -> &'static str {
                match self { $($name::$variant => $source),+ }
            }

            /// The code whose string is `s`, if any.
            pub fn from_code(s: &str) -> Option<Self> {
                <Self as $crate::net::StableCode>::from_code(s)
            }
        }

        impl ::std::fmt::Display for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.code())
            }
        }

        impl $crate::net::StableCode for $name {
            const ALL: &'static [Self] = $name::ALL;
            fn code(self) -> &'static str {
                $name::code(self)
            }
            fn source(self) -> &'static str {
                $name::source(self)
            }
        }
    };
}
pub(crate) use codes;

codes! {
    /// Every stable machine-readable reason a destination (or path) is refused.
    ///
    /// The string form ([`DenialCode::code`]) is the contract: it never changes
    /// for a given meaning. `ssrf.*` codes name an address block of the IANA
    /// IPv4/IPv6 Special-Purpose Address Registries (or a documented cloud
    /// service); `url.*` codes name a problem with the URL text itself;
    /// `dns.*` a DNS answer; `path.*` a file path. The table in
    /// `docs/codes.md` lists every code (a test keeps it complete).
    pub enum DenialCode {
        /// `0.0.0.0/32`, `::/128`.
        Unspecified => "ssrf.unspecified", "RFC 1122 §3.2.1.3; RFC 4291 §2.5.2";
        /// `0.0.0.0/8` "This network".
        ThisNetwork => "ssrf.this_network", "RFC 791 §3.2";
        /// `10/8`, `172.16/12`, `192.168/16`.
        PrivateUse => "ssrf.private_use", "RFC 1918";
        /// `100.64.0.0/10` (carrier-grade NAT).
        SharedAddressSpace => "ssrf.shared_address_space", "RFC 6598";
        /// `127.0.0.0/8`, `::1/128`.
        Loopback => "ssrf.loopback", "RFC 1122 §3.2.1.3; RFC 4291 §2.5.3";
        /// `169.254.0.0/16`, `fe80::/10`.
        LinkLocal => "ssrf.link_local", "RFC 3927; RFC 4291 §2.5.6";
        /// `192.0.0.0/24`, `2001::/23` and their anycast/dummy sub-blocks.
        IetfProtocol => "ssrf.ietf_protocol", "RFC 6890 §2.1; RFC 2928; RFC 7335; RFC 7600; RFC 7723; RFC 8155; RFC 8880; RFC 9665";
        /// TEST-NET-1/2/3, `2001:db8::/32`, `3fff::/20`.
        Documentation => "ssrf.documentation", "RFC 5737; RFC 3849; RFC 9637";
        /// `198.18.0.0/15`, `2001:2::/48`.
        Benchmarking => "ssrf.benchmarking", "RFC 2544; RFC 5180";
        /// AS112 blocks (`192.31.196.0/24`, `192.175.48.0/24`, `2001:4:112::/48`, `2620:4f:8000::/48`).
        As112 => "ssrf.as112", "RFC 7534; RFC 7535";
        /// Automatic Multicast Tunneling (`192.52.193.0/24`, `2001:3::/32`).
        Amt => "ssrf.amt", "RFC 7450";
        /// `192.88.99.0/24`, deprecated 6to4 relay anycast.
        SixToFourRelayAnycast => "ssrf.6to4_relay_anycast", "RFC 3068; RFC 7526";
        /// `240.0.0.0/4`, and every IPv6 address outside `2000::/3` not named otherwise.
        Reserved => "ssrf.reserved", "RFC 1112 §4; RFC 4291 §2.4 (IANA IPv6 Address Space)";
        /// `255.255.255.255/32`.
        LimitedBroadcast => "ssrf.limited_broadcast", "RFC 919 §7; RFC 8190";
        /// `224.0.0.0/4`, `ff00::/8`.
        Multicast => "ssrf.multicast", "RFC 5771; RFC 4291 §2.7";
        /// `::ffff:0:0/96` embedding a global IPv4 address.
        Ipv4Mapped => "ssrf.ipv4_mapped", "RFC 4291 §2.5.5.2";
        /// `::/96` (deprecated IPv4-compatible) embedding a global IPv4 address.
        Ipv4Compatible => "ssrf.ipv4_compatible", "RFC 4291 §2.5.5.1 (deprecated)";
        /// `::ffff:0:0:0/96` (SIIT IPv4-translated) embedding a global IPv4 address.
        Ipv4Translated => "ssrf.ipv4_translated", "RFC 2765 §2.1 (SIIT); RFC 6052 §2";
        /// `64:ff9b::/96`, `64:ff9b:1::/48` embedding a global IPv4 address.
        Nat64 => "ssrf.nat64", "RFC 6052; RFC 8215";
        /// `2002::/16` embedding a global IPv4 address.
        SixToFour => "ssrf.6to4", "RFC 3056";
        /// `2001::/32` embedding global IPv4 addresses.
        Teredo => "ssrf.teredo", "RFC 4380; RFC 8190";
        /// An ISATAP interface identifier (`…:0:5efe:a.b.c.d`, `…:200:5efe:…`)
        /// under a global prefix, embedding a global IPv4 address.
        Isatap => "ssrf.isatap", "RFC 5214 §6.1";
        /// `100::/64`.
        DiscardOnly => "ssrf.discard_only", "RFC 6666";
        /// `100:0:0:1::/64`.
        DummyPrefix => "ssrf.dummy_prefix", "RFC 9780";
        /// `2001:10::/28`, `2001:20::/28`.
        Orchid => "ssrf.orchid", "RFC 4843; RFC 7343";
        /// `2001:30::/28`.
        DroneRemoteId => "ssrf.drone_remote_id", "RFC 9374";
        /// `5f00::/16`.
        SegmentRouting => "ssrf.segment_routing", "RFC 9602";
        /// `fc00::/7`.
        UniqueLocal => "ssrf.unique_local", "RFC 4193; RFC 8190";
        /// `fec0::/10`.
        SiteLocal => "ssrf.site_local", "RFC 3879 (deprecated)";
        /// A documented cloud metadata / instance-local service address.
        CloudMetadata => "ssrf.cloud_metadata", "AWS, GCP, Azure, Alibaba, Oracle, Tencent, Scaleway, OpenStack documentation";
        /// `localhost`, `*.localhost` and the usual `/etc/hosts` loopback aliases.
        LocalhostName => "ssrf.localhost_name", "RFC 6761 §6.3; draft-ietf-dnsop-let-localhost-be-localhost";
        /// A documented cloud metadata host name.
        MetadataName => "ssrf.metadata_name", "GCP, AWS, Tencent, IBM Cloud, Equinix documentation";
        /// A special-use domain name that never resolves publicly (`.local`, `.internal`, ...).
        SpecialUseName => "ssrf.special_use_name", "RFC 6761; RFC 6762; RFC 7686; RFC 8375; RFC 9476; ICANN .internal (2024)";
        /// A host name of one label (`intranet`, `db`): the resolver's search
        /// domains complete it to an internal host.
        SingleLabelName => "ssrf.single_label_name", "RFC 1535 (search lists); RFC 7085; ICANN SAC053 (dotless domains)";
        /// A name under a suffix private by convention or by platform (`.corp`,
        /// `.home`, `.lan`, `.intranet`, `.private`, Kubernetes `.svc`).
        PrivateName => "ssrf.private_name", "RFC 6762 Appendix G (.intranet .private .corp .home .lan); Kubernetes DNS-Based Service Discovery (.svc)";
        /// A host name whose last label is no top-level domain of the root
        /// zone (`kubernetes.default`, `vault.vault`): the resolver's search
        /// domains complete it to an internal host, as they complete a
        /// single label.
        UnknownTld => "ssrf.unknown_tld", "RFC 1535 (search lists); ICANN SAC053; IANA Root Zone Database (through the Public Suffix List)";
        /// A scheme other than `http` / `https`.
        Scheme => "url.scheme", "WHATWG URL Standard §4.2 (special schemes); policy: http, https only";
        /// Userinfo (`user@`, `user:pass@`, even an empty `@`) in the authority.
        Userinfo => "url.userinfo", "RFC 3986 §3.2.1; WHATWG URL Standard (credentials)";
        /// The WHATWG parser refused the URL, or the host is empty.
        Malformed => "url.malformed", "WHATWG URL Standard §4.4 (basic URL parser)";
        /// Text that parsers read differently: controls, whitespace, backslashes,
        /// non-canonical IPv4 notation, percent-encoded hosts, missing `//`.
        Ambiguous => "url.ambiguous", "WHATWG URL Standard §4.3 (IPv4 parser), RFC 3986 §7.4; policy";
        /// Longer than [`crate::net::MAX_URL_BYTES`].
        TooLong => "url.too_long", "policy (MAX_URL_BYTES)";
        /// A DNS answer with no address at all.
        NoAddress => "dns.no_address", "policy (empty DNS answer)";
        /// The name was not resolved within its deadline (`toolgate gate --resolve`).
        DnsTimeout => "dns.timeout", "policy (resolution deadline)";
        /// A file path that leaves the configured root (used by the MCP server).
        PathOutsideRoot => "path.outside_root", "policy (MCP server --root)";
        /// A file with more than one hard link, refused by `toolgate mcp
        /// --refuse-hard-links` (a hard link may name a file outside the root).
        PathMultiplyLinked => "path.multiply_linked", "policy (toolgate mcp --refuse-hard-links)";
        /// A host or address matching an operator deny entry ([`crate::net::NetPolicy`]).
        OperatorDeny => "ssrf.operator_deny", "policy (operator deny entry: --deny, [net] deny)";
    }
}

impl DenialCode {
    /// The stable string (same as [`DenialCode::code`]).
    pub const fn as_str(self) -> &'static str {
        self.code()
    }

    /// The code whose string is `s` (same as [`DenialCode::from_code`]).
    pub fn from_str_code(s: &str) -> Option<Self> {
        Self::from_code(s)
    }
}

/// A refused destination (or path): a stable code and a human reason.
///
/// The reason sentence is built only when asked for ([`Denial::reason`],
/// `Display`): refusing is on the hot path, reading why is not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Denial {
    code: DenialCode,
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
                    DenialCode::SingleLabelName => write!(
                        f,
                        "`{name}` is a single-label name: resolver search domains complete it to an internal host"
                    ),
                    DenialCode::PrivateName => write!(
                        f,
                        "`{name}` is under a suffix private by convention or platform (RFC 6762 Appendix G; Kubernetes .svc)"
                    ),
                    DenialCode::UnknownTld => write!(
                        f,
                        "`{name}` ends in a label that is no top-level domain of the root zone: resolver search domains complete it to an internal host"
                    ),
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
    /// Builds a denial from its code and a reason sentence.
    pub fn of(code: DenialCode, reason: impl Into<String>) -> Self {
        Self::lazy(code, Detail::Text(Cow::Owned(reason.into())))
    }

    /// A denial whose reason is a fixed sentence (no allocation).
    pub(crate) fn fixed(code: DenialCode, reason: &'static str) -> Self {
        Self::lazy(code, Detail::Text(Cow::Borrowed(reason)))
    }

    /// A denial whose reason is formatted from `detail` on demand.
    pub(crate) fn lazy(code: DenialCode, detail: Detail) -> Self {
        Self { code, detail }
    }

    /// A `path.outside_root` denial (a file path leaving the server's root).
    pub fn outside_root(reason: impl Into<String>) -> Self {
        Self::of(DenialCode::PathOutsideRoot, reason)
    }

    /// The stable machine-readable code, e.g. `ssrf.loopback`.
    pub fn code(&self) -> &'static str {
        self.code.code()
    }

    /// The code as an enum.
    pub fn kind(&self) -> DenialCode {
        self.code
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
