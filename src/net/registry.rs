//! The address tables, one row per block, each with its source, so they can
//! be audited line by line against the IANA IPv4 and IPv6 Special-Purpose
//! Address Registries (RFC 6890, RFC 8190; registries as of 2025-10) and the
//! cloud providers' documentation.
//!
//! Rows are ordered so that a more specific block comes before any block that
//! contains it: the first matching row is the most specific one (a unit test
//! checks this ordering).

use super::code::DenialCode::{self, *};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// One special-purpose address block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Block {
    /// The first address of the block.
    pub prefix: IpAddr,
    /// The prefix length in bits.
    pub len: u8,
    /// The registry's name for the block.
    pub name: &'static str,
    /// The RFC (and section) that defines it.
    pub rfc: &'static str,
    /// The denial code for addresses in it.
    pub code: DenialCode,
    bits: u128,
    mask: u128,
}

impl Block {
    const fn v4(
        a: Ipv4Addr,
        len: u8,
        name: &'static str,
        rfc: &'static str,
        code: DenialCode,
    ) -> Self {
        let mask = if len == 0 {
            0
        } else {
            (u32::MAX << (32 - len)) as u128
        };
        Block {
            prefix: IpAddr::V4(a),
            len,
            name,
            rfc,
            code,
            bits: a.to_bits() as u128,
            mask,
        }
    }

    const fn v6(
        a: Ipv6Addr,
        len: u8,
        name: &'static str,
        rfc: &'static str,
        code: DenialCode,
    ) -> Self {
        let mask = if len == 0 {
            0
        } else {
            u128::MAX << (128 - len)
        };
        Block {
            prefix: IpAddr::V6(a),
            len,
            name,
            rfc,
            code,
            bits: a.to_bits(),
            mask,
        }
    }

    /// The block as `prefix/len` text, e.g. `10.0.0.0/8` (also its `Display`).
    pub fn cidr(&self) -> String {
        self.to_string()
    }
}

impl std::fmt::Display for Block {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.prefix, self.len)
    }
}

const fn a4(a: u8, b: u8, c: u8, d: u8) -> Ipv4Addr {
    Ipv4Addr::new(a, b, c, d)
}

#[allow(clippy::too_many_arguments)]
const fn a6(a: u16, b: u16, c: u16, d: u16, e: u16, f: u16, g: u16, h: u16) -> Ipv6Addr {
    Ipv6Addr::new(a, b, c, d, e, f, g, h)
}

/// IANA IPv4 Special-Purpose Address Registry, plus multicast (IPv4 Address
/// Space registry, RFC 5771). Every row is refused, whatever its "Globally
/// Reachable" flag.
pub static IPV4_BLOCKS: &[Block] = V4_ROWS;

#[rustfmt::skip]
const V4_ROWS: &[Block] = &[
    Block::v4(a4(0, 0, 0, 0), 32, "\"This host on this network\"", "RFC 1122 §3.2.1.3", Unspecified),
    Block::v4(a4(0, 0, 0, 0), 8, "\"This network\"", "RFC 791 §3.2", ThisNetwork),
    Block::v4(a4(10, 0, 0, 0), 8, "Private-Use", "RFC 1918", PrivateUse),
    Block::v4(a4(100, 64, 0, 0), 10, "Shared Address Space (CGNAT)", "RFC 6598", SharedAddressSpace),
    Block::v4(a4(127, 0, 0, 0), 8, "Loopback", "RFC 1122 §3.2.1.3", Loopback),
    Block::v4(a4(169, 254, 0, 0), 16, "Link Local", "RFC 3927", LinkLocal),
    Block::v4(a4(172, 16, 0, 0), 12, "Private-Use", "RFC 1918", PrivateUse),
    Block::v4(a4(192, 0, 0, 0), 29, "IPv4 Service Continuity Prefix", "RFC 7335", IetfProtocol),
    Block::v4(a4(192, 0, 0, 8), 32, "IPv4 dummy address", "RFC 7600", IetfProtocol),
    Block::v4(a4(192, 0, 0, 9), 32, "Port Control Protocol Anycast", "RFC 7723", IetfProtocol),
    Block::v4(a4(192, 0, 0, 10), 32, "Traversal Using Relays around NAT Anycast", "RFC 8155", IetfProtocol),
    Block::v4(a4(192, 0, 0, 170), 32, "NAT64/DNS64 Discovery", "RFC 8880; RFC 7050 §2.2", IetfProtocol),
    Block::v4(a4(192, 0, 0, 171), 32, "NAT64/DNS64 Discovery", "RFC 8880; RFC 7050 §2.2", IetfProtocol),
    Block::v4(a4(192, 0, 0, 0), 24, "IETF Protocol Assignments", "RFC 6890 §2.1", IetfProtocol),
    Block::v4(a4(192, 0, 2, 0), 24, "Documentation (TEST-NET-1)", "RFC 5737", Documentation),
    Block::v4(a4(192, 31, 196, 0), 24, "AS112-v4", "RFC 7535", As112),
    Block::v4(a4(192, 52, 193, 0), 24, "AMT", "RFC 7450", Amt),
    Block::v4(a4(192, 88, 99, 0), 24, "Deprecated (6to4 Relay Anycast)", "RFC 7526", SixToFourRelayAnycast),
    Block::v4(a4(192, 168, 0, 0), 16, "Private-Use", "RFC 1918", PrivateUse),
    Block::v4(a4(192, 175, 48, 0), 24, "Direct Delegation AS112 Service", "RFC 7534", As112),
    Block::v4(a4(198, 18, 0, 0), 15, "Benchmarking", "RFC 2544", Benchmarking),
    Block::v4(a4(198, 51, 100, 0), 24, "Documentation (TEST-NET-2)", "RFC 5737", Documentation),
    Block::v4(a4(203, 0, 113, 0), 24, "Documentation (TEST-NET-3)", "RFC 5737", Documentation),
    Block::v4(a4(224, 0, 0, 0), 4, "Multicast", "RFC 5771", Multicast),
    Block::v4(a4(255, 255, 255, 255), 32, "Limited Broadcast", "RFC 8190; RFC 919 §7", LimitedBroadcast),
    Block::v4(a4(240, 0, 0, 0), 4, "Reserved", "RFC 1112 §4", Reserved),
];

/// IANA IPv6 Special-Purpose Address Registry, plus the deprecated
/// IPv4-compatible and site-local blocks, multicast, and everything outside
/// `2000::/3` (IANA IPv6 Address Space: "Reserved by IETF").
pub static IPV6_BLOCKS: &[Block] = V6_ROWS;

#[rustfmt::skip]
const V6_ROWS: &[Block] = &[
    Block::v6(a6(0, 0, 0, 0, 0, 0, 0, 0), 128, "Unspecified Address", "RFC 4291 §2.5.2", Unspecified),
    Block::v6(a6(0, 0, 0, 0, 0, 0, 0, 1), 128, "Loopback Address", "RFC 4291 §2.5.3", Loopback),
    Block::v6(a6(0, 0, 0, 0, 0, 0xffff, 0, 0), 96, "IPv4-mapped Address", "RFC 4291 §2.5.5.2", Ipv4Mapped),
    Block::v6(a6(0, 0, 0, 0, 0, 0, 0, 0), 96, "IPv4-compatible Address (deprecated)", "RFC 4291 §2.5.5.1", Ipv4Compatible),
    Block::v6(a6(0x64, 0xff9b, 0, 0, 0, 0, 0, 0), 96, "IPv4-IPv6 Translat. (well-known NAT64)", "RFC 6052", Nat64),
    Block::v6(a6(0x64, 0xff9b, 1, 0, 0, 0, 0, 0), 48, "IPv4-IPv6 Translat. (local-use NAT64)", "RFC 8215", Nat64),
    Block::v6(a6(0x100, 0, 0, 0, 0, 0, 0, 0), 64, "Discard-Only Address Block", "RFC 6666", DiscardOnly),
    Block::v6(a6(0x100, 0, 0, 1, 0, 0, 0, 0), 64, "Dummy IPv6 Prefix", "RFC 9780", DummyPrefix),
    Block::v6(a6(0x2001, 1, 0, 0, 0, 0, 0, 1), 128, "Port Control Protocol Anycast", "RFC 7723", IetfProtocol),
    Block::v6(a6(0x2001, 1, 0, 0, 0, 0, 0, 2), 128, "Traversal Using Relays around NAT Anycast", "RFC 8155", IetfProtocol),
    Block::v6(a6(0x2001, 1, 0, 0, 0, 0, 0, 3), 128, "DNS-SD Service Registration Protocol Anycast", "RFC 9665", IetfProtocol),
    Block::v6(a6(0x2001, 2, 0, 0, 0, 0, 0, 0), 48, "Benchmarking", "RFC 5180", Benchmarking),
    Block::v6(a6(0x2001, 3, 0, 0, 0, 0, 0, 0), 32, "AMT", "RFC 7450", Amt),
    Block::v6(a6(0x2001, 4, 0x112, 0, 0, 0, 0, 0), 48, "AS112-v6", "RFC 7535", As112),
    Block::v6(a6(0x2001, 0x10, 0, 0, 0, 0, 0, 0), 28, "Deprecated (previously ORCHID)", "RFC 4843", Orchid),
    Block::v6(a6(0x2001, 0x20, 0, 0, 0, 0, 0, 0), 28, "ORCHIDv2", "RFC 7343", Orchid),
    Block::v6(a6(0x2001, 0x30, 0, 0, 0, 0, 0, 0), 28, "Drone Remote ID Protocol Entity Tags (DETs) Prefix", "RFC 9374", DroneRemoteId),
    Block::v6(a6(0x2001, 0, 0, 0, 0, 0, 0, 0), 32, "TEREDO", "RFC 4380; RFC 8190", Teredo),
    Block::v6(a6(0x2001, 0, 0, 0, 0, 0, 0, 0), 23, "IETF Protocol Assignments", "RFC 2928", IetfProtocol),
    Block::v6(a6(0x2001, 0xdb8, 0, 0, 0, 0, 0, 0), 32, "Documentation", "RFC 3849", Documentation),
    Block::v6(a6(0x2002, 0, 0, 0, 0, 0, 0, 0), 16, "6to4", "RFC 3056", SixToFour),
    Block::v6(a6(0x2620, 0x4f, 0x8000, 0, 0, 0, 0, 0), 48, "Direct Delegation AS112 Service", "RFC 7534", As112),
    Block::v6(a6(0x3fff, 0, 0, 0, 0, 0, 0, 0), 20, "Documentation", "RFC 9637", Documentation),
    Block::v6(a6(0x5f00, 0, 0, 0, 0, 0, 0, 0), 16, "Segment Routing (SRv6) SIDs", "RFC 9602", SegmentRouting),
    Block::v6(a6(0xfc00, 0, 0, 0, 0, 0, 0, 0), 7, "Unique-Local", "RFC 4193; RFC 8190", UniqueLocal),
    Block::v6(a6(0xfe80, 0, 0, 0, 0, 0, 0, 0), 10, "Link-Local Unicast", "RFC 4291 §2.5.6", LinkLocal),
    Block::v6(a6(0xfec0, 0, 0, 0, 0, 0, 0, 0), 10, "Site-Local Unicast (deprecated)", "RFC 3879", SiteLocal),
    Block::v6(a6(0xff00, 0, 0, 0, 0, 0, 0, 0), 8, "Multicast", "RFC 4291 §2.7", Multicast),
    Block::v6(a6(0, 0, 0, 0, 0, 0, 0, 0), 3, "Reserved by IETF (outside 2000::/3)", "RFC 4291 §2.4", Reserved),
    Block::v6(a6(0x4000, 0, 0, 0, 0, 0, 0, 0), 2, "Reserved by IETF (outside 2000::/3)", "RFC 4291 §2.4", Reserved),
    Block::v6(a6(0x8000, 0, 0, 0, 0, 0, 0, 0), 1, "Reserved by IETF (outside 2000::/3)", "RFC 4291 §2.4", Reserved),
];

/// A documented cloud metadata or instance-local service address.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MetadataEndpoint {
    /// The address.
    pub addr: IpAddr,
    /// Who documents it, and what it serves.
    pub service: &'static str,
}

const fn m4(a: Ipv4Addr, service: &'static str) -> MetadataEndpoint {
    MetadataEndpoint {
        addr: IpAddr::V4(a),
        service,
    }
}

const fn m6(a: Ipv6Addr, service: &'static str) -> MetadataEndpoint {
    MetadataEndpoint {
        addr: IpAddr::V6(a),
        service,
    }
}

/// Cloud metadata and instance-local service addresses: refused with
/// `ssrf.cloud_metadata` even where a special-purpose block already covers
/// them (168.63.129.16 is inside Microsoft's public space and only this
/// row catches it).
pub static METADATA_ENDPOINTS: &[MetadataEndpoint] = METADATA_ROWS;

#[rustfmt::skip]
const METADATA_ROWS: &[MetadataEndpoint] = &[
    m4(a4(169, 254, 169, 254), "instance metadata (AWS IMDS, GCP, Azure IMDS, Oracle OCI, DigitalOcean, OpenStack, Hetzner, Linode, Vultr, Huawei, IBM)"),
    m4(a4(169, 254, 169, 253), "AWS Amazon DNS (Route 53 Resolver)"),
    m4(a4(169, 254, 169, 123), "AWS Time Sync Service"),
    m4(a4(169, 254, 170, 2), "AWS ECS task metadata / credentials"),
    m4(a4(169, 254, 170, 23), "AWS EKS Pod Identity agent"),
    m4(a4(169, 254, 0, 23), "Tencent Cloud metadata"),
    m4(a4(169, 254, 42, 42), "Scaleway instance metadata"),
    m4(a4(100, 100, 100, 200), "Alibaba Cloud ECS metadata"),
    m4(a4(168, 63, 129, 16), "Azure WireServer / platform DNS"),
    m4(a4(192, 0, 0, 192), "Oracle Cloud (classic, Cloud@Customer) metadata"),
    m6(a6(0xfd00, 0xec2, 0, 0, 0, 0, 0, 0x254), "AWS IMDS (IPv6)"),
    m6(a6(0xfd00, 0xec2, 0, 0, 0, 0, 0, 0x253), "AWS Amazon DNS (IPv6)"),
    m6(a6(0xfd00, 0xec2, 0, 0, 0, 0, 0, 0x123), "AWS Time Sync Service (IPv6)"),
    m6(a6(0xfd00, 0xec2, 0, 0, 0, 0, 0, 0x23), "AWS EKS Pod Identity agent (IPv6)"),
    m6(a6(0xfd20, 0xce, 0, 0, 0, 0, 0, 0x254), "GCP metadata server (IPv6)"),
    m6(a6(0xfd00, 0xc1, 0, 0, 0, 0, 0xa9fe, 0xa9fe), "Oracle OCI IMDS (IPv6)"),
    m6(a6(0xfd00, 0x42, 0, 0, 0, 0, 0, 0x42), "Scaleway instance metadata (IPv6)"),
    m6(a6(0xfe80, 0, 0, 0, 0, 0, 0xa9fe, 0xa9fe), "OpenStack metadata (IPv6 link-local)"),
];

/// Top 16 bits of every IPv6 row inside `2000::/3` (all such rows are /16 or
/// longer, checked at compile time); any other address in `2000::/3` whose
/// top 16 bits are not listed is global without scanning the table.
pub(crate) static V6_GLOBAL_HOT16: [u16; 8] = v6_hot16();

#[allow(clippy::indexing_slicing)]
const fn v6_hot16() -> [u16; 8] {
    let mut out = [0u16; 8];
    let mut n = 0;
    let mut i = 0;
    while i < V6_ROWS.len() {
        let b = &V6_ROWS[i];
        if b.len >= 3 && (b.bits >> 125) == 1 {
            assert!(
                b.len >= 16,
                "a 2000::/3 row shorter than /16 breaks the fast path"
            );
            let top = (b.bits >> 112) as u16;
            let mut seen = false;
            let mut k = 0;
            while k < n {
                if out[k] == top {
                    seen = true;
                }
                k += 1;
            }
            if !seen {
                assert!(n < 8, "grow V6_GLOBAL_HOT16");
                out[n] = top;
                n += 1;
            }
        }
        i += 1;
    }
    let mut j = 0;
    while j < METADATA_ROWS.len() {
        if let IpAddr::V6(a) = METADATA_ROWS[j].addr {
            assert!(
                (a.to_bits() >> 125) != 1,
                "a global metadata v6 address needs the hot list"
            );
        }
        j += 1;
    }
    // Unused slots repeat a listed value so they never widen the set.
    let mut k = n;
    while k < 8 {
        out[k] = out[0];
        k += 1;
    }
    out
}

/// One candidate of a bucket: `(network bits, mask, what)`, where
/// `what` is a row index, or [`METADATA_TAG`] plus an index into
/// [`METADATA_ENDPOINTS`].
pub(crate) type V4Candidate = (u32, u32, u16);
/// [`V4Candidate`] for IPv6.
pub(crate) type V6Candidate = (u128, u128, u16);

/// Marks a bucket candidate that is a metadata address, not a table row.
pub(crate) const METADATA_TAG: u16 = 0x8000;

/// Bits of the address that pick a bucket: 12 for IPv4 (4096 buckets: the
/// busy 192/8 and 169/8 split apart), 8 for IPv6.
pub(crate) const V4_KEY_BITS: u32 = 12;
/// See [`V4_KEY_BITS`].
pub(crate) const V6_KEY_BITS: u32 = 8;
const V4_BUCKETS_N: usize = 1 << V4_KEY_BITS;
const V6_BUCKETS_N: usize = 1 << V6_KEY_BITS;

/// An index derived from the tables above (the tables stay the single source
/// of truth): for each value of the top key bits of an address, the metadata
/// addresses and rows that can contain such an address, metadata first, then
/// rows in table order, so the first match is still the most specific row.
/// `*_BUCKET_START[b]..*_BUCKET_START[b + 1]` is the slice of bucket `b`.
pub(crate) static V4_BUCKET_START: [u16; V4_BUCKETS_N + 1] = bucket_starts(false);
/// See [`V4_BUCKET_START`].
pub(crate) static V4_BUCKETS: [V4Candidate; bucket_total(false)] = v4_buckets();
/// The same index for IPv6.
pub(crate) static V6_BUCKET_START: [u16; V6_BUCKETS_N + 1] = bucket_starts(true);
/// See [`V6_BUCKET_START`].
pub(crate) static V6_BUCKETS: [V6Candidate; bucket_total(true)] = v6_buckets();

/// Width of an address family in bits.
const fn width(v6: bool) -> u32 {
    if v6 {
        128
    } else {
        32
    }
}

/// Key bits of an address family.
const fn key_bits(v6: bool) -> u32 {
    if v6 {
        V6_KEY_BITS
    } else {
        V4_KEY_BITS
    }
}

/// Number of buckets of an address family.
const fn buckets(v6: bool) -> usize {
    1 << key_bits(v6)
}

/// The bucket of address bits `bits`.
const fn key(bits: u128, v6: bool) -> usize {
    (bits >> (width(v6) - key_bits(v6))) as usize
}

/// Bucket range `[lo, hi]` a row of `len` bits starting at `bits` spans.
const fn byte_span(bits: u128, len: u8, v6: bool) -> (usize, usize) {
    let first = key(bits, v6);
    let k = key_bits(v6);
    if len as u32 >= k {
        (first, first)
    } else {
        (first, first + (1usize << (k - len as u32)) - 1)
    }
}

/// Number of candidates in bucket `b` (metadata addresses, then rows).
#[allow(clippy::indexing_slicing)]
const fn bucket_len(b: usize, v6: bool) -> usize {
    let rows = if v6 { V6_ROWS } else { V4_ROWS };
    let mut n = 0;
    let mut j = 0;
    while j < METADATA_ROWS.len() {
        if let Some(bits) = metadata_bits(j, v6) {
            if key(bits, v6) == b {
                n += 1;
            }
        }
        j += 1;
    }
    let mut i = 0;
    while i < rows.len() {
        let (lo, hi) = byte_span(rows[i].bits, rows[i].len, v6);
        if lo <= b && b <= hi {
            n += 1;
        }
        i += 1;
    }
    n
}

/// The bits of metadata row `j` when it is of the requested family.
#[allow(clippy::indexing_slicing)]
const fn metadata_bits(j: usize, v6: bool) -> Option<u128> {
    match METADATA_ROWS[j].addr {
        IpAddr::V4(a) if !v6 => Some(a.to_bits() as u128),
        IpAddr::V6(a) if v6 => Some(a.to_bits()),
        _ => None,
    }
}

const fn bucket_total(v6: bool) -> usize {
    let mut n = 0;
    let mut b = 0;
    while b < buckets(v6) {
        n += bucket_len(b, v6);
        b += 1;
    }
    n
}

#[allow(clippy::indexing_slicing)]
const fn bucket_starts<const N: usize>(v6: bool) -> [u16; N] {
    let mut out = [0u16; N];
    assert!(N == buckets(v6) + 1);
    let mut b = 0;
    while b < buckets(v6) {
        out[b + 1] = out[b] + bucket_len(b, v6) as u16;
        b += 1;
    }
    out
}

/// Fills the candidates of every bucket, as `(bits, mask, what)` in u128.
#[allow(clippy::indexing_slicing)]
const fn fill<const N: usize>(v6: bool) -> [(u128, u128, u16); N] {
    let rows = if v6 { V6_ROWS } else { V4_ROWS };
    let full = if v6 { u128::MAX } else { u32::MAX as u128 };
    let mut out = [(0u128, 0u128, 0u16); N];
    let mut n = 0;
    let mut b = 0;
    while b < buckets(v6) {
        let mut j = 0;
        while j < METADATA_ROWS.len() {
            if let Some(bits) = metadata_bits(j, v6) {
                if key(bits, v6) == b {
                    out[n] = (bits, full, METADATA_TAG | j as u16);
                    n += 1;
                }
            }
            j += 1;
        }
        let mut i = 0;
        while i < rows.len() {
            let (lo, hi) = byte_span(rows[i].bits, rows[i].len, v6);
            if lo <= b && b <= hi {
                out[n] = (rows[i].bits, rows[i].mask, i as u16);
                n += 1;
            }
            i += 1;
        }
        b += 1;
    }
    assert!(n == N && N < u16::MAX as usize);
    assert!(METADATA_ROWS.len() < METADATA_TAG as usize);
    out
}

#[allow(clippy::indexing_slicing)]
const fn v4_buckets() -> [V4Candidate; bucket_total(false)] {
    let wide: [(u128, u128, u16); bucket_total(false)] = fill(false);
    let mut out = [(0u32, 0u32, 0u16); bucket_total(false)];
    let mut i = 0;
    while i < out.len() {
        out[i] = (wide[i].0 as u32, wide[i].1 as u32, wide[i].2);
        i += 1;
    }
    out
}

const fn v6_buckets() -> [V6Candidate; bucket_total(true)] {
    fill(true)
}
