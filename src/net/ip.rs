//! `classify_ip`: which special-purpose block (if any) an address is in,
//! looking through every IPv6 form that embeds an IPv4 address.

use super::code::{Denial, DenialCode, Detail};
use super::registry::{
    Block, MetadataEndpoint, IPV4_BLOCKS, IPV6_BLOCKS, METADATA_ENDPOINTS, METADATA_TAG,
    V4_BUCKETS, V4_BUCKET_START, V4_KEY_BITS, V6_BUCKETS, V6_BUCKET_START, V6_GLOBAL_HOT16,
    V6_KEY_BITS,
};
use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// How an IPv6 address carries an IPv4 address.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Embedding {
    /// `::ffff:a.b.c.d` (RFC 4291 §2.5.5.2).
    Mapped,
    /// `::a.b.c.d`, deprecated (RFC 4291 §2.5.5.1); `::` and `::1` excluded.
    Compatible,
    /// `64:ff9b::a.b.c.d` (RFC 6052 §2.1).
    Nat64,
    /// `64:ff9b:1::/48` (RFC 8215): `64:ff9b:1::a.b.c.d` when bits 48..96 are
    /// zero, else the /48 layout, bits 48..64 and 72..88 (RFC 6052 §2.2).
    Nat64LocalUse,
    /// `2002:AABB:CCDD::/48` (RFC 3056 §2).
    SixToFour,
    /// `2001:0:SSSS:SSSS:flags:port:CCCC:CCCC`: server `S`, client `C` stored
    /// bit-inverted (RFC 4380 §4). `v4` is the client; the server is here.
    Teredo {
        /// The Teredo server's IPv4 address.
        server: Ipv4Addr,
    },
}

impl Embedding {
    /// The code used when the embedded address is itself global.
    pub fn code(self) -> DenialCode {
        match self {
            Self::Mapped => DenialCode::Ipv4Mapped,
            Self::Compatible => DenialCode::Ipv4Compatible,
            Self::Nat64 | Self::Nat64LocalUse => DenialCode::Nat64,
            Self::SixToFour => DenialCode::SixToFour,
            Self::Teredo { .. } => DenialCode::Teredo,
        }
    }

    fn describe(self) -> &'static str {
        match self {
            Self::Mapped => "an IPv4-mapped address (::ffff:0:0/96, RFC 4291)",
            Self::Compatible => "an IPv4-compatible address (::/96, deprecated, RFC 4291)",
            Self::Nat64 => "a NAT64 address (64:ff9b::/96, RFC 6052)",
            Self::Nat64LocalUse => "a local-use NAT64 address (64:ff9b:1::/48, RFC 8215)",
            Self::SixToFour => "a 6to4 address (2002::/16, RFC 3056)",
            Self::Teredo { .. } => "a Teredo address (2001::/32, RFC 4380)",
        }
    }
}

/// Where an address can reach, per the IANA special-purpose registries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reach {
    /// Outside every refused block: an ordinary global unicast address.
    Global,
    /// Inside a special-purpose (or reserved, multicast, ...) block: the most specific row.
    Special(&'static Block),
    /// A documented cloud metadata / instance-local service address.
    CloudMetadata(&'static MetadataEndpoint),
    /// An IPv6 address embedding an IPv4 address; always refused.
    Embedded {
        /// How the address is embedded.
        form: Embedding,
        /// The embedded IPv4 address (for Teredo: the client).
        v4: Ipv4Addr,
    },
}

impl Reach {
    /// `true` only for [`Reach::Global`].
    #[inline]
    pub fn is_global(&self) -> bool {
        matches!(self, Reach::Global)
    }

    /// The denial code, or `None` for [`Reach::Global`]. An embedded address
    /// reports the embedded address's own block where it has one
    /// (`::ffff:127.0.0.1` is `ssrf.loopback`), else the embedding's code.
    pub fn code(&self) -> Option<DenialCode> {
        match self {
            Reach::Global => None,
            Reach::Special(b) => Some(b.code),
            Reach::CloudMetadata(_) => Some(DenialCode::CloudMetadata),
            Reach::Embedded { form, v4 } => {
                let inner = match form {
                    // An all-zero client field decodes to 255.255.255.255: no
                    // client at all, not a broadcast address.
                    Embedding::Teredo { server } => {
                        let client =
                            (*v4 != Ipv4Addr::BROADCAST).then(|| classify_ipv4(*v4).code());
                        let server =
                            (!server.is_unspecified()).then(|| classify_ipv4(*server).code());
                        client.flatten().or(server.flatten())
                    }
                    _ => classify_ipv4(*v4).code(),
                };
                Some(inner.unwrap_or(form.code()))
            }
        }
    }

    /// A human sentence for `addr` classified as `self`.
    pub fn describe(&self, addr: IpAddr) -> String {
        self.display(addr).to_string()
    }

    /// [`Reach::describe`] without allocating, for use inside larger messages.
    pub fn display(&self, addr: IpAddr) -> impl fmt::Display + '_ {
        Described { reach: *self, addr }
    }

    /// The refusal for `addr`, or `None` when global.
    pub fn denial(&self, addr: IpAddr) -> Option<Denial> {
        self.code()
            .map(|c| Denial::lazy(c, Detail::Ip(*self, addr)))
    }
}

struct Described {
    reach: Reach,
    addr: IpAddr,
}

impl fmt::Display for Described {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let addr = self.addr;
        match self.reach {
            Reach::Global => write!(f, "{addr} is a global unicast address"),
            Reach::Special(b) => write!(f, "{addr} is in {b} ({}, {})", b.name, b.rfc),
            Reach::CloudMetadata(m) => {
                write!(f, "{addr} is a cloud metadata address: {}", m.service)
            }
            Reach::Embedded { form, v4 } => {
                write!(f, "{addr} is {}", form.describe())?;
                match form {
                    Embedding::Teredo { server } => {
                        if v4 == Ipv4Addr::BROADCAST {
                            f.write_str(" with no client address")?;
                        } else {
                            write!(f, " embedding client {}", Summary(v4))?;
                        }
                        write!(f, ", server {}", Summary(server))?;
                    }
                    _ => write!(f, " embedding {}", Summary(v4))?,
                }
                f.write_str("; every IPv4-embedding IPv6 form is refused")
            }
        }
    }
}

/// `a.b.c.d (what it is)` for an embedded IPv4 address.
struct Summary(Ipv4Addr);

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let v4 = self.0;
        match classify_ipv4(v4) {
            Reach::Global => write!(f, "{v4} (global unicast)"),
            Reach::Special(b) => write!(f, "{v4} ({b} {}, {})", b.name, b.rfc),
            Reach::CloudMetadata(m) => write!(f, "{v4} (cloud metadata: {})", m.service),
            Reach::Embedded { .. } => write!(f, "{v4}"),
        }
    }
}

/// Classifies an address against the IANA IPv4/IPv6 Special-Purpose Address
/// Registries (RFC 6890, RFC 8190), multicast, limited broadcast, site-local,
/// every IPv6 address outside `2000::/3`, and documented cloud metadata
/// addresses. IPv6 forms that embed an IPv4 address (mapped, compatible,
/// NAT64, 6to4, Teredo) are always [`Reach::Embedded`], whatever they embed.
///
/// Total and allocation-free; about a dozen nanoseconds (see `benches/core_net.rs`).
#[inline]
pub fn classify_ip(addr: IpAddr) -> Reach {
    match addr {
        IpAddr::V4(a) => classify_ipv4(a),
        IpAddr::V6(a) => classify_ipv6(a),
    }
}

/// [`classify_ip`] for an IPv4 address.
pub fn classify_ipv4(a: Ipv4Addr) -> Reach {
    let bits = a.to_bits();
    let bucket_no = (bits >> (32 - V4_KEY_BITS)) as usize;
    for &(net, mask, what) in bucket(&V4_BUCKET_START, &V4_BUCKETS, bucket_no) {
        if bits & mask == net {
            return found(what, IPV4_BLOCKS);
        }
    }
    Reach::Global
}

/// The candidates of bucket `b` of a first-byte index (see `registry`).
#[inline]
fn bucket<T>(starts: &[u16], all: &'static [T], b: usize) -> &'static [T] {
    let lo = starts.get(b).copied().unwrap_or(0) as usize;
    let hi = starts.get(b + 1).copied().unwrap_or(0) as usize;
    all.get(lo..hi).unwrap_or(&[])
}

/// The reach a matching bucket candidate stands for.
#[inline]
fn found(what: u16, rows: &'static [Block]) -> Reach {
    let hit = if what & METADATA_TAG != 0 {
        METADATA_ENDPOINTS
            .get(usize::from(what & !METADATA_TAG))
            .map(Reach::CloudMetadata)
    } else {
        rows.get(usize::from(what)).map(Reach::Special)
    };
    // Unreachable: indices are built at compile time from these tables.
    hit.unwrap_or(Reach::Global)
}

/// The IPv4 address an IPv6 address embeds, and how.
pub fn embedded_ipv4(a: Ipv6Addr) -> Option<(Embedding, Ipv4Addr)> {
    let b = a.to_bits();
    let low32 = Ipv4Addr::from_bits(b as u32);
    if b >> 32 == 0xffff {
        return Some((Embedding::Mapped, low32));
    }
    // `::` and `::1` are the unspecified and loopback addresses, not
    // IPv4-compatible ones (the trap in `Ipv6Addr::to_ipv4`).
    if b >> 32 == 0 && b > 1 {
        return Some((Embedding::Compatible, low32));
    }
    if b >> 32 == 0x0064_ff9b_0000_0000_0000_0000 {
        return Some((Embedding::Nat64, low32));
    }
    if b >> 80 == 0x0064_ff9b_0001 {
        // RFC 8215 lets operators use any RFC 6052 prefix length inside the
        // /48. `64:ff9b:1::a.b.c.d` (bits 48..96 zero) is the /96 layout;
        // otherwise read the /48 layout: bits 48..64 hold the first 16 bits,
        // bits 64..72 are the zero "u" octet, bits 72..88 the last 16.
        if (b >> 32) & 0xffff_ffff_ffff == 0 {
            return Some((Embedding::Nat64LocalUse, low32));
        }
        let hi = ((b >> 64) & 0xffff) as u32;
        let lo = ((b >> 40) & 0xffff) as u32;
        return Some((Embedding::Nat64LocalUse, Ipv4Addr::from_bits(hi << 16 | lo)));
    }
    if b >> 112 == 0x2002 {
        return Some((Embedding::SixToFour, Ipv4Addr::from_bits((b >> 80) as u32)));
    }
    if b >> 96 == 0x2001_0000 {
        let server = Ipv4Addr::from_bits((b >> 64) as u32);
        let client = Ipv4Addr::from_bits(!(b as u32));
        return Some((Embedding::Teredo { server }, client));
    }
    None
}

/// [`classify_ip`] for an IPv6 address.
pub fn classify_ipv6(a: Ipv6Addr) -> Reach {
    let bits = a.to_bits();
    let top16 = (bits >> 112) as u16;
    if bits >> 125 == 1 && !V6_GLOBAL_HOT16.contains(&top16) {
        return Reach::Global;
    }
    // Every embedding (::/96, ::ffff:0:0/96, 64:ff9b::/96, 64:ff9b:1::/48,
    // 2001::/32, 2002::/16) starts with byte 0x00 or 0x20.
    let top8 = top16 >> 8;
    if top8 == 0 || top8 == 0x20 {
        if let Some((form, v4)) = embedded_ipv4(a) {
            return Reach::Embedded { form, v4 };
        }
    }
    let bucket_no = (bits >> (128 - V6_KEY_BITS)) as usize;
    for &(net, mask, what) in bucket(&V6_BUCKET_START, &V6_BUCKETS, bucket_no) {
        if bits & mask == net {
            return found(what, IPV6_BLOCKS);
        }
    }
    Reach::Global
}
