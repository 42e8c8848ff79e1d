//! `classify_ip`: which special-purpose block (if any) an address is in,
//! looking through every IPv6 form that embeds an IPv4 address.

use super::code::{Denial, DenialCode, Detail};
use super::registry::{
    bucket_of, Block, MetadataEndpoint, What, GLOBAL_TAG, IPV4_BLOCKS, IPV6_BLOCKS,
    METADATA_ENDPOINTS, METADATA_TAG, UNIFORM, V4_BUCKETS, V4_SEGMENTS, V6_BUCKETS, V6_SEGMENTS,
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
    /// `::ffff:0:a.b.c.d`, the SIIT IPv4-translated form (RFC 2765 §2.1).
    Translated,
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
    /// `PREFIX:0000:5efe:a.b.c.d` (and the `0100`, `0200`, `0300` variants):
    /// an ISATAP interface identifier (RFC 5214 §6.1) under any unicast /64.
    Isatap {
        /// The special-purpose block the /64 prefix is in, if any.
        within: Option<&'static Block>,
    },
}

impl Embedding {
    /// The code used when the embedded address is itself global (for
    /// ISATAP: the block of its prefix, when special).
    pub fn code(self) -> DenialCode {
        match self {
            Self::Mapped => DenialCode::Ipv4Mapped,
            Self::Compatible => DenialCode::Ipv4Compatible,
            Self::Translated => DenialCode::Ipv4Translated,
            Self::Isatap { within } => within.map_or(DenialCode::Isatap, |b| b.code),
            Self::Nat64 | Self::Nat64LocalUse => DenialCode::Nat64,
            Self::SixToFour => DenialCode::SixToFour,
            Self::Teredo { .. } => DenialCode::Teredo,
        }
    }

    fn describe(self) -> &'static str {
        match self {
            Self::Mapped => "an IPv4-mapped address (::ffff:0:0/96, RFC 4291)",
            Self::Compatible => "an IPv4-compatible address (::/96, deprecated, RFC 4291)",
            Self::Translated => {
                "an IPv4-translated (SIIT) address (::ffff:0:0:0/96, RFC 2765 §2.1)"
            }
            Self::Isatap { .. } => {
                "an ISATAP address (interface identifier 0:5efe::/32 or \
                 200:5efe::/32, RFC 5214 §6.1)"
            }
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
    #[inline]
    pub fn denial(&self, addr: IpAddr) -> Option<Denial> {
        if self.is_global() {
            return None;
        }
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
                    Embedding::Isatap { within } => {
                        write!(f, " embedding {}", Summary(v4))?;
                        if let Some(b) = within {
                            write!(f, ", under {b} ({}, {})", b.name, b.rfc)?;
                        }
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
/// SIIT-translated, NAT64, 6to4, Teredo, ISATAP) are always
/// [`Reach::Embedded`], whatever they embed.
///
/// Total and allocation-free; a bucket load and, in a few crowded buckets, a
/// short binary search (see `benches/core_net.rs` for the figure).
#[inline]
pub fn classify_ip(addr: IpAddr) -> Reach {
    match addr {
        IpAddr::V4(a) => classify_ipv4(a),
        IpAddr::V6(a) => classify_ipv6(a),
    }
}

/// [`classify_ip`] for an IPv4 address.
#[inline]
pub fn classify_ipv4(a: Ipv4Addr) -> Reach {
    let bits = a.to_bits();
    let what = lookup(
        &V4_BUCKETS,
        &V4_SEGMENTS,
        bucket_of(bits.into(), false),
        bits,
    );
    found(what, IPV4_BLOCKS)
}

/// The classification of `x` from a segment index (see `registry`): one
/// load when its bucket holds a single segment, else a binary search of the
/// bucket's few segments.
#[inline(always)]
fn lookup<T: Copy + Ord>(buckets: &[u32], segs: &[(T, What)], bucket: usize, x: T) -> What {
    // Unreachable fallbacks: indices are built at compile time.
    let e = buckets
        .get(bucket)
        .copied()
        .unwrap_or(UNIFORM | u32::from(GLOBAL_TAG));
    if e & UNIFORM != 0 {
        return e as What;
    }
    let (lo, hi) = ((e & 0xffff) as usize, (e >> 16) as usize);
    let i = lo
        + segs
            .get(lo + 1..=hi)
            .unwrap_or(&[])
            .partition_point(|s| s.0 <= x);
    segs.get(i).map_or(GLOBAL_TAG, |s| s.1)
}

/// The reach a segment's classification stands for.
#[inline(always)]
fn found(what: What, rows: &'static [Block]) -> Reach {
    if what == GLOBAL_TAG {
        return Reach::Global;
    }
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

/// The IPv4 address an IPv6 address embeds, and how (every form of
/// [`Embedding`], ISATAP included).
pub fn embedded_ipv4(a: Ipv6Addr) -> Option<(Embedding, Ipv4Addr)> {
    match classify_ipv6(a) {
        Reach::Embedded { form, v4 } => Some((form, v4)),
        _ => None,
    }
}

/// The embedding whose *prefix* says an IPv4 address is inside.
#[inline(always)]
fn prefix_embedding(b: u128) -> Option<(Embedding, Ipv4Addr)> {
    let low32 = Ipv4Addr::from_bits(b as u32);
    let high96 = b >> 32;
    if high96 == 0xffff {
        return Some((Embedding::Mapped, low32));
    }
    // `::` and `::1` are the unspecified and loopback addresses, not
    // IPv4-compatible ones (the trap in `Ipv6Addr::to_ipv4`).
    if high96 == 0 && b > 1 {
        return Some((Embedding::Compatible, low32));
    }
    if high96 == 0xffff_0000 {
        return Some((Embedding::Translated, low32));
    }
    if high96 == 0x0064_ff9b_0000_0000_0000_0000 {
        return Some((Embedding::Nat64, low32));
    }
    if b >> 80 == 0x0064_ff9b_0001 {
        // RFC 8215 lets operators use any RFC 6052 prefix length inside the
        // /48. `64:ff9b:1::a.b.c.d` (bits 48..96 zero) is the /96 layout;
        // otherwise read the /48 layout: bits 48..64 hold the first 16 bits,
        // bits 64..72 are the zero "u" octet, bits 72..88 the last 16.
        if high96 & 0xffff_ffff_ffff == 0 {
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

/// An ISATAP interface identifier (RFC 5214 §6.1): `0000:5efe:a.b.c.d`, or
/// with the modified EUI-64 u (`0x02`) and/or g (`0x01`) bits of its first
/// octet set (`0200:5efe`, `0100:5efe`, `0300:5efe`).
#[inline(always)]
pub(crate) const fn is_isatap(b: u128) -> bool {
    (b >> 32) as u32 & 0xfcff_ffff == 0x0000_5efe
}

/// [`classify_ip`] for an IPv6 address.
#[inline]
pub fn classify_ipv6(a: Ipv6Addr) -> Reach {
    let bits = a.to_bits();
    // Every prefix embedding (::/96, ::ffff:0:0/96, ::ffff:0:0:0/96,
    // 64:ff9b::/96, 64:ff9b:1::/48, 2001::/32, 2002::/16) starts with byte
    // 0x00 or 0x20.
    let top8 = bits >> 120;
    if top8 == 0 || top8 == 0x20 {
        if let Some((form, v4)) = prefix_embedding(bits) {
            return Reach::Embedded { form, v4 };
        }
    }
    let reach = found(
        lookup(&V6_BUCKETS, &V6_SEGMENTS, bucket_of(bits, true), bits),
        IPV6_BLOCKS,
    );
    if is_isatap(bits) {
        let within = match reach {
            // Multicast addresses have no interface identifier.
            Reach::Special(b) if b.code == DenialCode::Multicast => return reach,
            Reach::Special(b) => Some(b),
            Reach::CloudMetadata(_) => return reach,
            _ => None,
        };
        return Reach::Embedded {
            form: Embedding::Isatap { within },
            v4: Ipv4Addr::from_bits(bits as u32),
        };
    }
    reach
}
