//! Property suite for `toolgate::net` (proptest; regressions persisted under
//! proptest-regressions/net_props.txt). Real invariants: agreement with an
//! independent ipnet-based reference, every IPv4-in-IPv6 form refused, every
//! alternate IPv4 notation refused, refused IP hosts never allowed, ambiguity
//! insertion never allowed; plus totality through the fuzz harnesses.
#![cfg(feature = "harness")]
use ipnet::IpNet;
use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use toolgate::net::{classify_ip, classify_url, vet_resolved};

use toolgate::harness::net_reference::{
    isatap_iid, longest, nets, reference, reference_v4, EMBEDDINGS, METADATA, REFERENCE,
};

/// Addresses near every reference boundary, plus uniform ones.
fn any_ip() -> impl Strategy<Value = IpAddr> {
    let mut anchors: Vec<IpAddr> = nets(REFERENCE)
        .iter()
        .chain(nets(EMBEDDINGS).iter())
        .flat_map(|(n, _)| [n.network(), n.broadcast()])
        .collect();
    anchors.extend(METADATA.iter().map(|m| m.parse::<IpAddr>().unwrap()));
    let near =
        (proptest::sample::select(anchors), -2i64..=2, any::<u32>()).prop_map(|(a, d, noise)| {
            match a {
                IpAddr::V4(v) => {
                    IpAddr::V4(Ipv4Addr::from_bits(v.to_bits().wrapping_add(d as u32)))
                }
                IpAddr::V6(v) => IpAddr::V6(Ipv6Addr::from_bits(
                    v.to_bits().wrapping_add(d as u128)
                        ^ (u128::from(noise) & if d == 0 { 0xffff } else { 0 }),
                )),
            }
        });
    // ISATAP identifiers under random prefixes, and under prefixes of the
    // reference rows (link-local, documentation, multicast, ...).
    let prefixes: Vec<u128> = nets(REFERENCE)
        .iter()
        .map(|(n, _)| match n {
            IpNet::V6(n) => n.network().to_bits(),
            IpNet::V4(_) => 0x2606_4700u128 << 96,
        })
        .collect();
    let isatap = (
        prop_oneof![
            any::<u64>().prop_map(u128::from),
            proptest::sample::select(prefixes).prop_map(|p| p >> 64)
        ],
        any::<u32>(),
        any::<u8>(),
        any::<bool>(),
    )
        .prop_map(|(p, x, var, metadata)| {
            let v4 = if metadata {
                METADATA[(x as usize) % 10].parse().unwrap()
            } else {
                Ipv4Addr::from_bits(x)
            };
            IpAddr::V6(Ipv6Addr::from_bits((p << 64) | isatap_iid(v4, var)))
        });
    prop_oneof![
        isatap,
        any::<u32>().prop_map(|x| IpAddr::V4(Ipv4Addr::from_bits(x))),
        any::<u128>().prop_map(|x| IpAddr::V6(Ipv6Addr::from_bits(x))),
        // Mostly inside 2000::/3, where the global addresses are.
        any::<u128>().prop_map(|x| IpAddr::V6(Ipv6Addr::from_bits((x >> 3) | (1u128 << 125)))),
        near,
    ]
}

/// Addresses inside a refused block (random host bits).
fn refused_ip() -> impl Strategy<Value = IpAddr> {
    let mut blocks: Vec<IpNet> = nets(REFERENCE)
        .into_iter()
        .chain(nets(EMBEDDINGS))
        .filter(|(n, _)| n.prefix_len() > 0 && n.to_string() != "2000::/3")
        .map(|(n, _)| n)
        .collect();
    blocks.extend(["4000::/2", "8000::/1"].map(|n| n.parse::<IpNet>().unwrap()));
    (proptest::sample::select(blocks), any::<u128>()).prop_map(|(n, r)| match n {
        IpNet::V4(n) => {
            let host = !u32::from(n.netmask());
            IpAddr::V4(Ipv4Addr::from_bits(
                n.network().to_bits() | (r as u32 & host),
            ))
        }
        IpNet::V6(n) => {
            let host = !u128::from(n.netmask());
            IpAddr::V6(Ipv6Addr::from_bits(n.network().to_bits() | (r & host)))
        }
    })
}

/// Every way WHATWG (and inet_aton) accept to write an IPv4 address, except
/// canonical dotted-decimal.
fn alternate_notations(a: Ipv4Addr) -> Vec<String> {
    let x = a.to_bits();
    let [o0, o1, o2, o3] = a.octets();
    let dotted = a.to_string();
    let fullwidth: String = dotted
        .chars()
        .map(|c| match c {
            '0'..='9' => char::from_u32(c as u32 - '0' as u32 + 0xFF10).unwrap(),
            _ => '\u{FF0E}',
        })
        .collect();
    let first = dotted.chars().next().unwrap();
    vec![
        format!("{x}"),
        format!("0x{x:x}"),
        format!("0x{x:08X}"),
        format!("0{x:o}"),
        format!("{o0}.{}", x & 0xff_ffff),
        format!("{o0}.{o1}.{}", x & 0xffff),
        format!("0x{o0:x}.0x{o1:x}.0x{o2:x}.0x{o3:x}"),
        format!("0{o0:o}.0{o1:o}.0{o2:o}.0{o3:o}"),
        format!("{o0}.{o1}.{o2}.0{o3:o}"),
        format!("{o0}.{o1}.{o2}.{o3:04}"),
        format!("{dotted}."),
        dotted.replacen('.', "%2E", 1),
        format!("%3{first}{}", &dotted[1..]),
        fullwidth,
        dotted.replacen('.', "\u{3002}", 1),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig {
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct("proptest-regressions/net_props.txt"))),
        ..ProptestConfig::default()
    })]

    #[test]
    fn classify_ip_agrees_with_the_ipnet_reference(a in any_ip()) {
        let got = classify_ip(a).code().map(|c| c.as_str());
        prop_assert_eq!(got, reference(a), "{}", a);
    }

    #[test]
    fn every_ipv6_form_of_an_ipv4_address_is_refused(x in any::<u32>()) {
        let v4 = Ipv4Addr::from_bits(x);
        for v6 in toolgate::harness::net::embeddings_of(v4) {
            let a = IpAddr::V6(v6);
            prop_assert!(classify_ip(a).code().is_some(), "{} allowed", v6);
            let bracketed = format!("http://[{v6}]/");
            prop_assert!(classify_url(&bracketed).is_err());
            // The dotted-tail notation is the same address.
            let seg = v6.segments();
            let dotted = format!("{:x}:{:x}:{:x}:{:x}:{:x}:{:x}:{}", seg[0], seg[1], seg[2], seg[3], seg[4], seg[5], Ipv4Addr::from_bits(v6.to_bits() as u32));
            let dotted = format!("http://[{dotted}]/");
            prop_assert!(classify_url(&dotted).is_err());
        }
    }

    #[test]
    fn isatap_forms_under_a_global_prefix_are_refused(x in any::<u32>(), p in any::<u64>(), var in 0u8..4) {
        let v4 = Ipv4Addr::from_bits(x);
        // A /64 inside 2000::/3 that the reference calls global.
        let prefix = (u128::from(p) >> 3 | 1u128 << 61) << 64;
        prop_assume!(longest(IpAddr::V6(Ipv6Addr::from_bits(prefix))).is_none());
        // 6to4 (2002::/16) embeds an IPv4 address of its own in the prefix,
        // which decides first (every_ipv6_form_of_an_ipv4_address_is_refused
        // covers it): not a global prefix for this oracle.
        prop_assume!(prefix >> 112 != 0x2002);
        let v6 = Ipv6Addr::from_bits(prefix | isatap_iid(v4, var));
        let code = classify_ip(IpAddr::V6(v6)).code().map(|c| c.as_str());
        let own = reference_v4(v4);
        prop_assert_eq!(code, Some(own.unwrap_or("ssrf.isatap")), "{}", v6);
        let u = format!("http://[{v6}]/");
        prop_assert!(classify_url(&u).is_err(), "{} allowed", u);
    }

    #[test]
    fn every_alternate_ipv4_notation_in_a_url_is_refused(x in any::<u32>(), path in "[a-z/]{0,8}") {
        let a = Ipv4Addr::from_bits(x);
        for host in alternate_notations(a) {
            let u = format!("http://{host}/{path}");
            let r = classify_url(&u);
            prop_assert!(r.is_err(), "{} allowed as {:?}", u, r);
        }
        let canonical = classify_url(&format!("https://{a}/{path}"));
        prop_assert_eq!(canonical.is_ok(), classify_ip(IpAddr::V4(a)).is_global());
    }

    #[test]
    fn a_url_whose_host_is_a_refused_ip_is_never_allowed(a in refused_ip(), port in proptest::option::of(any::<u16>()), upper in any::<bool>()) {
        prop_assert!(!classify_ip(a).is_global(), "{} global", a);
        let host = match a {
            IpAddr::V4(v) => v.to_string(),
            IpAddr::V6(v) => {
                let s = format!("[{v}]");
                if upper { s.to_uppercase() } else { s }
            }
        };
        let port = port.map(|p| format!(":{p}")).unwrap_or_default();
        for scheme in ["http", "https", "HTTP"] {
            let u = format!("{scheme}://{host}{port}/x");
            prop_assert!(classify_url(&u).is_err(), "{} allowed", u);
        }
    }

    #[test]
    fn inserting_a_tab_newline_or_backslash_is_never_allowed(
        base in proptest::sample::select(vec![
            "https://8.8.4.4/", "http://1.0.0.1:8080/x", "https://[2606:4700:4700::1001]/",
            "https://www.example.com/path?q=1#f", "http://93.184.215.14/a/b",
        ]),
        at in any::<prop::sample::Index>(),
        c in proptest::sample::select(vec!['\t', '\n', '\r', '\\', ' ', '\u{0}', '\u{7f}', '\u{85}', '\u{a0}']),
    ) {
        let mut s = base.to_string();
        let i = at.index(s.len() + 1);
        s.insert(i, c);
        prop_assert!(classify_url(&s).is_err(), "{:?} allowed", s);
    }

    #[test]
    fn vet_resolved_refuses_any_answer_with_a_refused_address(addrs in proptest::collection::vec(any_ip(), 0..6)) {
        let all_global = !addrs.is_empty() && addrs.iter().all(|a| classify_ip(*a).is_global());
        prop_assert_eq!(vet_resolved(&addrs).is_ok(), all_global);
    }

    #[test]
    fn classify_url_is_total_on_strings(s in any::<String>()) {
        toolgate::harness::net::classify_url(s.as_bytes());
        toolgate::harness::net::classify_url_differential(s.as_bytes());
    }

    #[test]
    fn classify_url_is_total_on_url_like_strings(s in "(https?|HTTP|ftp|x)?:?/{0,3}[a-zA-Z0-9.:@%\\[\\]\\\\/?#\t -]{0,40}") {
        toolgate::harness::net::classify_url(s.as_bytes());
        toolgate::harness::net::classify_url_differential(s.as_bytes());
    }

    /// Names by their shape: a label alone is `ssrf.single_label_name`
    /// (unless an older name rule claims it), a name under a private
    /// suffix is `ssrf.private_name`, and a name under a public suffix
    /// needs DNS (RFC 6762 Appendix G; Kubernetes `.svc`).
    #[test]
    fn names_are_judged_by_their_labels(
        labels in proptest::collection::vec("[a-wyz][a-z0-9-]{0,8}[a-z0-9]", 1..4),
        private in prop::sample::select(&["intranet", "private", "corp", "home", "lan", "svc"][..]),
        public in prop::sample::select(&["com", "org", "rs", "io", "example.com"][..]),
        port in proptest::option::of(any::<u16>()),
        dot in any::<bool>(),
    ) {
        let port = port.map(|p| format!(":{p}")).unwrap_or_default();
        let dot = if dot { "." } else { "" };
        let name = labels.join(".");
        let under = |suffix: &str| format!("http://{name}.{suffix}{dot}{port}/");
        let code = |u: &str| classify_url(u).err().map(|d| d.code());
        let alone = format!("http://{}{dot}{port}/", labels[0]);
        let older = ["localhost", "metadata", "local", "internal", "localdomain", "onion", "invalid", "test", "alt", "example", "instance-data"];
        if !older.contains(&labels[0].as_str()) && !labels[0].starts_with("localhost") {
            prop_assert_eq!(code(&alone), Some("ssrf.single_label_name"), "{}", alone);
        }
        prop_assert_eq!(code(&under(private)), Some("ssrf.private_name"));
        if !labels.iter().any(|l| older.contains(&l.as_str()) || l == "localhost") {
            let u = under(public);
            let d = classify_url(&u);
            prop_assert!(d.as_ref().is_ok_and(|d| d.needs_dns()), "{}: {:?}", u, d);
        }
    }

    #[test]
    fn classify_ip_harness_is_total_on_bytes(b in proptest::collection::vec(any::<u8>(), 0..40)) {
        toolgate::harness::net::classify_ip(&b);
    }
}
