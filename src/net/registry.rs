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

// ---------------------------------------------------------------------------
// The lookup index, derived at compile time from the tables above (which stay
// the single audited source of truth).
//
// The address space of a family is cut into *segments*: maximal runs of
// addresses that classify the same way. A segment starts at 0, at the first
// address of a row or one past its last, or at a metadata address or one past
// it; its classification is the first match of a linear scan of the tables
// (metadata addresses first, then rows in table order: the most specific
// row). Adjacent segments that classify the same are merged.
//
// A first-level index keyed on the top `KEY_BITS` bits of an address gives,
// for each bucket, its classification when the bucket lies inside one
// segment (most buckets: one load decides), else the range of segments
// that meet it, which is binary-searched.

/// What a segment classifies to: a row index, [`METADATA_TAG`] plus an index
/// into [`METADATA_ENDPOINTS`], or [`GLOBAL_TAG`].
pub(crate) type What = u16;
/// Marks a segment that is a metadata address, not a table row.
pub(crate) const METADATA_TAG: What = 0x8000;
/// Marks a segment outside every row: global.
pub(crate) const GLOBAL_TAG: What = 0xFFFF;

/// Bits of the address that pick a first-level bucket (4096 buckets per
/// family: `192/8`, `169/8`, `2001::/16` and `fc00::/7` split apart).
pub(crate) const KEY_BITS: u32 = 12;
const BUCKETS: usize = 1 << KEY_BITS;

/// Width of an address family in bits.
const fn width(v6: bool) -> u32 {
    if v6 {
        128
    } else {
        32
    }
}

/// The all-ones address of a family.
const fn all_ones(v6: bool) -> u128 {
    if v6 {
        u128::MAX
    } else {
        u32::MAX as u128
    }
}

const fn rows_of(v6: bool) -> &'static [Block] {
    if v6 {
        V6_ROWS
    } else {
        V4_ROWS
    }
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

/// The reference classification of address bits `x`: a linear scan of the
/// tables, metadata addresses first, then the first (most specific) row.
#[allow(clippy::indexing_slicing)]
const fn classify_linear(x: u128, v6: bool) -> What {
    let mut j = 0;
    while j < METADATA_ROWS.len() {
        if let Some(m) = metadata_bits(j, v6) {
            if m == x {
                return METADATA_TAG | j as What;
            }
        }
        j += 1;
    }
    let rows = rows_of(v6);
    let mut i = 0;
    while i < rows.len() {
        if x & rows[i].mask == rows[i].bits {
            return i as What;
        }
        i += 1;
    }
    GLOBAL_TAG
}

/// Room for every boundary point: 0, plus two per row and per metadata address.
const fn max_points(v6: bool) -> usize {
    1 + 2 * (rows_of(v6).len() + METADATA_ROWS.len())
}

const V4_MAX_POINTS: usize = max_points(false);
const V6_MAX_POINTS: usize = max_points(true);

/// The sorted, distinct points where the classification may change, and
/// how many there are.
#[allow(clippy::indexing_slicing)]
const fn boundary_points<const N: usize>(v6: bool) -> ([u128; N], usize) {
    let mut p = [0u128; N];
    let mut n = 1; // p[0] = 0
    let full = all_ones(v6);
    let rows = rows_of(v6);
    let mut i = 0;
    while i < rows.len() {
        p[n] = rows[i].bits;
        n += 1;
        let last = rows[i].bits | (!rows[i].mask & full);
        if last != full {
            p[n] = last + 1;
            n += 1;
        }
        i += 1;
    }
    let mut j = 0;
    while j < METADATA_ROWS.len() {
        if let Some(m) = metadata_bits(j, v6) {
            p[n] = m;
            n += 1;
            if m != full {
                p[n] = m + 1;
                n += 1;
            }
        }
        j += 1;
    }
    // Insertion sort, then drop duplicates.
    let mut k = 1;
    while k < n {
        let mut m = k;
        while m > 0 && p[m - 1] > p[m] {
            let t = p[m];
            p[m] = p[m - 1];
            p[m - 1] = t;
            m -= 1;
        }
        k += 1;
    }
    let mut out = [0u128; N];
    let mut d = 0;
    let mut k = 0;
    while k < n {
        if d == 0 || out[d - 1] != p[k] {
            out[d] = p[k];
            d += 1;
        }
        k += 1;
    }
    (out, d)
}

/// Segments as `(start, what)`, merged; returns them and their count.
#[allow(clippy::indexing_slicing)]
const fn segments<const N: usize>(v6: bool) -> ([(u128, What); N], usize) {
    let (p, n) = boundary_points::<N>(v6);
    let mut out = [(0u128, 0 as What); N];
    let mut d = 0;
    let mut k = 0;
    while k < n {
        let what = classify_linear(p[k], v6);
        if d == 0 || out[d - 1].1 != what {
            out[d] = (p[k], what);
            d += 1;
        }
        k += 1;
    }
    (out, d)
}

const V4_SEGMENTS_N: usize = segments::<V4_MAX_POINTS>(false).1;
const V6_SEGMENTS_N: usize = segments::<V6_MAX_POINTS>(true).1;

/// The IPv4 segments, `(first address, what)`, sorted.
pub(crate) static V4_SEGMENTS: [(u32, What); V4_SEGMENTS_N] = v4_segments();
/// The IPv6 segments, `(first address, what)`, sorted.
pub(crate) static V6_SEGMENTS: [(u128, What); V6_SEGMENTS_N] = v6_segments();
/// For each IPv4 bucket: [`UNIFORM`] plus the classification when the whole
/// bucket is one segment, else the bucket's segments as `first | last << 16`
/// (indices into [`V4_SEGMENTS`]).
pub(crate) static V4_BUCKETS: [u32; BUCKETS] = bucket_index::<V4_MAX_POINTS>(false);
/// [`V4_BUCKETS`] for IPv6 ([`V6_SEGMENTS`]).
pub(crate) static V6_BUCKETS: [u32; BUCKETS] = bucket_index::<V6_MAX_POINTS>(true);

/// Marks a bucket entry that is a classification, not a segment range.
pub(crate) const UNIFORM: u32 = 1 << 31;

#[allow(clippy::indexing_slicing)]
const fn v4_segments() -> [(u32, What); V4_SEGMENTS_N] {
    let (wide, n) = segments::<V4_MAX_POINTS>(false);
    let mut out = [(0u32, 0 as What); V4_SEGMENTS_N];
    let mut i = 0;
    while i < n {
        out[i] = (wide[i].0 as u32, wide[i].1);
        i += 1;
    }
    out
}

#[allow(clippy::indexing_slicing)]
const fn v6_segments() -> [(u128, What); V6_SEGMENTS_N] {
    let (wide, n) = segments::<V6_MAX_POINTS>(true);
    let mut out = [(0u128, 0 as What); V6_SEGMENTS_N];
    let mut i = 0;
    while i < n {
        out[i] = wide[i];
        i += 1;
    }
    out
}

/// Walks buckets and segments together: the segments of bucket `k` run
/// from the last one starting at or before the bucket's first address to
/// the last one starting at or before the next bucket's first address.
#[allow(clippy::indexing_slicing)]
const fn bucket_index<const N: usize>(v6: bool) -> [u32; BUCKETS] {
    let (segs, n) = segments::<N>(v6);
    assert!(n < (1 << 15));
    assert!(rows_of(v6).len() < METADATA_TAG as usize);
    assert!(METADATA_ROWS.len() < (GLOBAL_TAG & !METADATA_TAG) as usize);
    let shift = width(v6) - KEY_BITS;
    let mut first = [0usize; BUCKETS];
    let mut s = 0;
    let mut k = 0;
    while k < BUCKETS {
        let start = (k as u128) << shift;
        while s + 1 < n && segs[s + 1].0 <= start {
            s += 1;
        }
        first[k] = s;
        k += 1;
    }
    let mut out = [0u32; BUCKETS];
    let mut k = 0;
    while k < BUCKETS {
        let lo = first[k];
        let hi = if k + 1 < BUCKETS { first[k + 1] } else { n - 1 };
        out[k] = if lo == hi {
            UNIFORM | segs[lo].1 as u32
        } else {
            (lo as u32) | ((hi as u32) << 16)
        };
        k += 1;
    }
    out
}

/// The bucket of an address of `width` bits.
#[inline(always)]
pub(crate) const fn bucket_of(bits: u128, v6: bool) -> usize {
    (bits >> (width(v6) - KEY_BITS)) as usize
}
