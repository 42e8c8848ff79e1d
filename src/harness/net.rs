//! Harnesses for `toolgate::net`: each runs the classifier on arbitrary bytes
//! and panics when an invariant breaks.

use crate::net::{
    self, classify_host, embedded_ipv4, refused_name, vet_resolved, Denial, DenialCode,
    Destination, Reach, Target, IPV4_BLOCKS, IPV6_BLOCKS, MAX_URL_BYTES, METADATA_ENDPOINTS,
};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use url::{Host, Url};

/// Every denial carries a known code and a reason.
fn check_denial(d: &Denial) {
    assert!(
        DenialCode::from_str_code(d.code()).is_some(),
        "unknown code {}",
        d.code()
    );
    assert!(!d.reason().is_empty());
}

/// What an accepted destination must satisfy, whatever the input was.
fn check_destination(input: &str, dest: &Destination) {
    assert!(input.len() <= MAX_URL_BYTES);
    assert!(!input
        .chars()
        .any(|c| c.is_control() || c.is_whitespace() || c == '\\'));
    // No `@` between `//` and the first `/` after it: userinfo, or an `@`
    // behind `?`/`#` that a lax parser would read as userinfo.
    let after = input.split_once("//").map_or("", |(_, a)| a);
    let authority_zone = after.split('/').next().unwrap_or("");
    assert!(
        !authority_zone.contains('@'),
        "userinfo allowed in {input:?}"
    );
    let url = dest.url();
    assert!(matches!(url.scheme(), "http" | "https"));
    assert!(url.username().is_empty() && url.password().is_none());
    match (dest.target(), url.host()) {
        (Target::Ip(a), Some(Host::Ipv4(h))) => {
            assert_eq!(a, IpAddr::V4(h));
            assert!(
                net::classify_ip(a).is_global(),
                "{input:?} allowed non-global {a}"
            );
        }
        (Target::Ip(a), Some(Host::Ipv6(h))) => {
            assert_eq!(a, IpAddr::V6(h));
            assert!(
                net::classify_ip(a).is_global(),
                "{input:?} allowed non-global {a}"
            );
        }
        (Target::Domain(d), Some(Host::Domain(h))) => {
            assert_eq!(d, h);
            assert!(refused_name(d).is_none(), "{input:?} let {d} through");
            // A name needing DNS has two labels at least: search domains
            // complete a single label to an internal host.
            assert!(
                d.strip_suffix('.').unwrap_or(d).contains('.'),
                "{input:?} let the single-label {d} through"
            );
            assert!(d.parse::<IpAddr>().is_err());
        }
        (t, h) => panic!("target {t:?} disagrees with parsed host {h:?} for {input:?}"),
    }
    // The canonical serialisation is accepted again, with the same host
    // (when percent-encoding did not push it over the length bound).
    if url.as_str().len() <= MAX_URL_BYTES {
        let again = net::classify_url(url.as_str())
            .unwrap_or_else(|e| panic!("canonical form of {input:?} refused: {e}"));
        assert_eq!(again.target(), dest.target());
    }
}

fn check_url(input: &str) {
    let r = net::classify_url(input);
    assert_eq!(r, net::classify_url(input), "not deterministic");
    match &r {
        Ok(dest) => check_destination(input, dest),
        Err(d) => check_denial(d),
    }
    match classify_host(input) {
        Ok(dest) => assert!(dest.url().host().is_some()),
        Err(d) => check_denial(&d),
    }
}

/// Fuzz target `classify_url`: totality and the accepted-destination invariants.
pub fn classify_url(data: &[u8]) {
    check_url(&String::from_utf8_lossy(data));
}

/// The most specific refused block containing `a`, found by scanning every
/// row (no fast path, no ordering assumption).
fn reference_block(a: IpAddr) -> Option<u8> {
    let rows = match a {
        IpAddr::V4(_) => IPV4_BLOCKS,
        IpAddr::V6(_) => IPV6_BLOCKS,
    };
    rows.iter()
        .filter(|b| {
            let (p, l) = (b.prefix, u32::from(b.len));
            match (a, p) {
                (IpAddr::V4(x), IpAddr::V4(p)) => {
                    l == 0 || (x.to_bits() ^ p.to_bits()).checked_shr(32 - l).unwrap_or(0) == 0
                }
                (IpAddr::V6(x), IpAddr::V6(p)) => {
                    l == 0
                        || (x.to_bits() ^ p.to_bits())
                            .checked_shr(128 - l)
                            .unwrap_or(0)
                            == 0
                }
                _ => false,
            }
        })
        .map(|b| b.len)
        .max()
}

fn check_ip(a: IpAddr) {
    let reach = net::classify_ip(a);
    let is_metadata = METADATA_ENDPOINTS.iter().any(|m| m.addr == a);
    match reach {
        Reach::Global => {
            assert!(reference_block(a).is_none(), "{a} global but in a block");
            assert!(!is_metadata);
            if let IpAddr::V6(v6) = a {
                assert!(embedded_ipv4(v6).is_none());
                assert_eq!(v6.segments()[0] & 0xe000, 0x2000, "{a} outside 2000::/3");
            }
            assert!(reach.denial(a).is_none());
            assert_eq!(vet_resolved(&[a]), Ok(()));
        }
        Reach::Special(b) => {
            assert_eq!(
                reference_block(a),
                Some(b.len),
                "{a}: not the most specific row"
            );
            assert!(!is_metadata);
        }
        Reach::CloudMetadata(m) => assert_eq!(m.addr, a),
        Reach::Embedded { .. } => {
            assert!(matches!(a, IpAddr::V6(v6) if embedded_ipv4(v6).is_some()));
        }
    }
    if !reach.is_global() {
        let d = reach.denial(a).expect("refused address without denial");
        check_denial(&d);
        assert_eq!(
            vet_resolved(&[IpAddr::V4(Ipv4Addr::new(8, 8, 8, 8)), a]).map_err(|e| e.code()),
            Err(d.code())
        );
    }
    if let IpAddr::V4(v4) = a {
        check_embeddings(v4);
    }
}

/// Every IPv6 form of `v4` is refused, and names `v4`'s own block when it has one.
pub fn embeddings_of(v4: Ipv4Addr) -> [Ipv6Addr; 10] {
    let x = u128::from(v4.to_bits());
    let [o0, o1, o2, o3] = v4.octets();
    let local_use = (0x0064_ff9b_0001u128 << 80)
        | (u128::from(u16::from_be_bytes([o0, o1])) << 64)
        | (u128::from(u16::from_be_bytes([o2, o3])) << 40);
    [
        Ipv6Addr::from_bits(0xffff_0000_0000 | x),
        Ipv6Addr::from_bits(x),
        Ipv6Addr::from_bits((0x0064_ff9bu128 << 96) | x),
        Ipv6Addr::from_bits(local_use),
        Ipv6Addr::from_bits((0x0064_ff9b_0001u128 << 80) | x),
        Ipv6Addr::from_bits((0x2002u128 << 112) | (x << 80) | 1),
        // Teredo: server 203.0.113.1 (documentation), client obfuscated.
        Ipv6Addr::from_bits((0x2001_0000u128 << 96) | (0xcb00_7101u128 << 64) | (!x & 0xffff_ffff)),
        // SIIT IPv4-translated.
        Ipv6Addr::from_bits(0xffff_0000_0000_0000 | x),
        // ISATAP under a global /64 (2606:4700:10::/64), both u/l variants.
        Ipv6Addr::from_bits((0x2606_4700_0010_0000u128 << 64) | (0x5efeu128 << 32) | x),
        Ipv6Addr::from_bits((0x2606_4700_0010_0000u128 << 64) | (0x0200_0000_5efeu128 << 32) | x),
    ]
}

fn check_embeddings(v4: Ipv4Addr) {
    let own = net::classify_ip(IpAddr::V4(v4)).code();
    for (i, v6) in embeddings_of(v4).into_iter().enumerate() {
        let reach = net::classify_ip(IpAddr::V6(v6));
        let code = reach.code().expect("embedded form allowed");
        // `::` and `::1` are the unspecified and loopback addresses, not
        // IPv4-compatible forms of 0.0.0.0 and 0.0.0.1.
        if i == 1 && v4.to_bits() <= 1 {
            continue;
        }
        assert!(
            matches!(reach, Reach::Embedded { v4: e, .. } if e == v4),
            "{v6} does not embed {v4}"
        );
        // Teredo (last form): an all-ones client is an all-zero field, "no client".
        let teredo_without_client = i == 6 && v4 == Ipv4Addr::BROADCAST;
        if let (Some(own), false) = (own, teredo_without_client) {
            assert_eq!(code, own, "{v6} should name {v4}'s block");
        }
    }
}

/// Fuzz target `classify_ip`: agreement with a full-table scan, embeddings,
/// `vet_resolved`; plus text parsing of the same bytes.
pub fn classify_ip(data: &[u8]) {
    if let Some(b) = data.get(..16).and_then(|b| <[u8; 16]>::try_from(b).ok()) {
        check_ip(IpAddr::V6(Ipv6Addr::from(b)));
    }
    if let Some(b) = data.get(..4).and_then(|b| <[u8; 4]>::try_from(b).ok()) {
        check_ip(IpAddr::V4(Ipv4Addr::from(b)));
    }
    if let Ok(text) = std::str::from_utf8(data) {
        if let Ok(a) = text.parse::<IpAddr>() {
            check_ip(a);
        }
        let _ = classify_host(text);
    }
}

/// Fuzz target `classify_url_differential`: whenever the classifier allows a
/// URL, the `url` crate alone sees a global IP or a domain name there, and
/// inserting a tab, newline or backslash anywhere is never allowed.
pub fn classify_url_differential(data: &[u8]) {
    let (pos, rest) = match data.split_first() {
        Some((p, rest)) => (usize::from(*p), rest),
        None => (0, data),
    };
    let input = String::from_utf8_lossy(rest);
    let Ok(dest) = net::classify_url(&input) else {
        return;
    };
    let parsed = Url::parse(&input).expect("allowed but the url crate refuses it");
    match parsed.host() {
        Some(Host::Ipv4(a)) => assert!(net::classify_ip(IpAddr::V4(a)).is_global()),
        Some(Host::Ipv6(a)) => assert!(net::classify_ip(IpAddr::V6(a)).is_global()),
        Some(Host::Domain(d)) => {
            assert!(dest.needs_dns());
            assert!(d.parse::<IpAddr>().is_err());
        }
        None => panic!("allowed a URL without host: {input:?}"),
    }
    assert_eq!(&parsed, dest.url());
    let boundaries: Vec<usize> = (0..=input.len())
        .filter(|&i| input.is_char_boundary(i))
        .collect();
    let at = boundaries[pos % boundaries.len()];
    for c in ['\t', '\n', '\r', '\\', ' '] {
        let mut tampered = input.to_string();
        tampered.insert(at, c);
        assert!(
            net::classify_url(&tampered).is_err(),
            "allowed {tampered:?}"
        );
    }
}
