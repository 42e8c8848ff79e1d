//! An independent reference for `toolgate::net::classify_ip`: the IANA
//! IPv4 and IPv6 Special-Purpose Address Registries re-typed as `ipnet`
//! prefixes (not copied from `src/net`), longest-prefix match, and the
//! IPv4-in-IPv6 forms read by hand. Used by `tests/net_props.rs` and by the
//! structured URL model (`net_structured`), never by the code it checks.
use ipnet::IpNet;
use std::net::{IpAddr, Ipv4Addr};

/// The registry re-typed from the IANA pages (not copied from src/): prefix, code.
pub const REFERENCE: &[(&str, &str)] = &[
    ("0.0.0.0/8", "ssrf.this_network"),
    ("0.0.0.0/32", "ssrf.unspecified"),
    ("10.0.0.0/8", "ssrf.private_use"),
    ("100.64.0.0/10", "ssrf.shared_address_space"),
    ("127.0.0.0/8", "ssrf.loopback"),
    ("169.254.0.0/16", "ssrf.link_local"),
    ("172.16.0.0/12", "ssrf.private_use"),
    ("192.0.0.0/24", "ssrf.ietf_protocol"),
    ("192.0.2.0/24", "ssrf.documentation"),
    ("192.31.196.0/24", "ssrf.as112"),
    ("192.52.193.0/24", "ssrf.amt"),
    ("192.88.99.0/24", "ssrf.6to4_relay_anycast"),
    ("192.168.0.0/16", "ssrf.private_use"),
    ("192.175.48.0/24", "ssrf.as112"),
    ("198.18.0.0/15", "ssrf.benchmarking"),
    ("198.51.100.0/24", "ssrf.documentation"),
    ("203.0.113.0/24", "ssrf.documentation"),
    ("224.0.0.0/4", "ssrf.multicast"),
    ("240.0.0.0/4", "ssrf.reserved"),
    ("255.255.255.255/32", "ssrf.limited_broadcast"),
    ("::/0", "ssrf.reserved"), // refined by 2000::/3 below
    ("2000::/3", "global"),
    ("::/128", "ssrf.unspecified"),
    ("::1/128", "ssrf.loopback"),
    ("100::/64", "ssrf.discard_only"),
    ("100:0:0:1::/64", "ssrf.dummy_prefix"),
    ("2001::/23", "ssrf.ietf_protocol"),
    ("2001:1::1/128", "ssrf.ietf_protocol"),
    ("2001:1::2/128", "ssrf.ietf_protocol"),
    ("2001:1::3/128", "ssrf.ietf_protocol"),
    ("2001:2::/48", "ssrf.benchmarking"),
    ("2001:3::/32", "ssrf.amt"),
    ("2001:4:112::/48", "ssrf.as112"),
    ("2001:10::/28", "ssrf.orchid"),
    ("2001:20::/28", "ssrf.orchid"),
    ("2001:30::/28", "ssrf.drone_remote_id"),
    ("2001:db8::/32", "ssrf.documentation"),
    ("2620:4f:8000::/48", "ssrf.as112"),
    ("3fff::/20", "ssrf.documentation"),
    ("5f00::/16", "ssrf.segment_routing"),
    ("fc00::/7", "ssrf.unique_local"),
    ("fe80::/10", "ssrf.link_local"),
    ("fec0::/10", "ssrf.site_local"),
    ("ff00::/8", "ssrf.multicast"),
];

/// IPv6 prefixes that embed an IPv4 address, and the code when it is global.
pub const EMBEDDINGS: &[(&str, &str)] = &[
    ("::ffff:0:0/96", "ssrf.ipv4_mapped"),
    ("::/96", "ssrf.ipv4_compatible"),
    ("::ffff:0:0:0/96", "ssrf.ipv4_translated"),
    ("64:ff9b::/96", "ssrf.nat64"),
    ("64:ff9b:1::/48", "ssrf.nat64"),
    ("2002::/16", "ssrf.6to4"),
    ("2001::/32", "ssrf.teredo"),
];

pub const METADATA: &[&str] = &[
    "169.254.169.254",
    "169.254.169.253",
    "169.254.169.123",
    "169.254.170.2",
    "169.254.170.23",
    "169.254.0.23",
    "169.254.42.42",
    "100.100.100.200",
    "168.63.129.16",
    "192.0.0.192",
    "fd00:ec2::254",
    "fd00:ec2::253",
    "fd00:ec2::123",
    "fd00:ec2::23",
    "fd20:ce::254",
    "fd00:c1::a9fe:a9fe",
    "fd00:42::42",
    "fe80::a9fe:a9fe",
];

pub fn nets(rows: &[(&str, &'static str)]) -> Vec<(IpNet, &'static str)> {
    rows.iter().map(|(p, c)| (p.parse().unwrap(), *c)).collect()
}

/// Longest-prefix match over the reference rows; None when global.
pub fn reference_v4(a: Ipv4Addr) -> Option<&'static str> {
    if METADATA
        .iter()
        .any(|m| m.parse::<IpAddr>().unwrap() == IpAddr::V4(a))
    {
        return Some("ssrf.cloud_metadata");
    }
    longest(IpAddr::V4(a))
}

pub fn longest(a: IpAddr) -> Option<&'static str> {
    let rows = nets(REFERENCE);
    rows.iter()
        .filter(|(n, _)| n.contains(&a))
        .max_by_key(|(n, _)| n.prefix_len())
        .map(|(_, c)| *c)
        .filter(|c| *c != "global")
}

pub fn reference(a: IpAddr) -> Option<&'static str> {
    let v6 = match a {
        IpAddr::V4(v4) => return reference_v4(v4),
        IpAddr::V6(v6) => v6,
    };
    let b = v6.to_bits();
    for (net, code) in nets(EMBEDDINGS) {
        if !net.contains(&a) || (code == "ssrf.ipv4_compatible" && b <= 1) {
            continue;
        }
        let o = v6.octets();
        let (client, server) = match code {
            "ssrf.nat64" if net.prefix_len() == 48 && o[6..12] != [0; 6] => {
                (Ipv4Addr::new(o[6], o[7], o[9], o[10]), None)
            }
            "ssrf.6to4" => (Ipv4Addr::new(o[2], o[3], o[4], o[5]), None),
            "ssrf.teredo" => (
                Ipv4Addr::new(!o[12], !o[13], !o[14], !o[15]),
                Some(Ipv4Addr::new(o[4], o[5], o[6], o[7])),
            ),
            _ => (Ipv4Addr::new(o[12], o[13], o[14], o[15]), None),
        };
        // Teredo: an all-zero client field (255.255.255.255 once inverted) or
        // server field (0.0.0.0) means "absent".
        let client_code = if code == "ssrf.teredo" && client == Ipv4Addr::BROADCAST {
            None
        } else {
            reference_v4(client)
        };
        let server_code = server
            .filter(|s| !s.is_unspecified())
            .and_then(reference_v4);
        return Some(client_code.or(server_code).unwrap_or(code));
    }
    if METADATA.iter().any(|m| m.parse::<IpAddr>().unwrap() == a) {
        return Some("ssrf.cloud_metadata");
    }
    // ISATAP (RFC 5214 §6.1): interface identifier 0000:5efe, 0100:5efe,
    // 0200:5efe or 0300:5efe, then the IPv4 address, under any non-multicast
    // prefix: the embedded address's block, else the prefix's, else isatap.
    let o = v6.octets();
    let outer = longest(a);
    if o[8] & !3 == 0 && o[9..12] == [0, 0x5e, 0xfe] && outer != Some("ssrf.multicast") {
        let v4 = Ipv4Addr::new(o[12], o[13], o[14], o[15]);
        return Some(reference_v4(v4).or(outer).unwrap_or("ssrf.isatap"));
    }
    outer
}

/// An ISATAP interface identifier (any of the four u/g variants) around `v4`.
pub fn isatap_iid(v4: Ipv4Addr, variant: u8) -> u128 {
    (u128::from(variant & 3) << 56) | (0x5efe << 32) | u128::from(v4.to_bits())
}
