//! The address tables are well-formed: no host bits in a prefix, and no row
//! shadowed by an earlier, wider one (first match = most specific match).
use ipnet::IpNet;
use toolgate::net::{
    classify_ip, Block, DenialCode, Reach, IPV4_BLOCKS, IPV6_BLOCKS, METADATA_ENDPOINTS,
};

fn net(b: &Block) -> IpNet {
    IpNet::new(b.prefix, b.len).unwrap()
}

fn check(rows: &[Block]) {
    for (i, r) in rows.iter().enumerate() {
        let n = net(r);
        assert_eq!(n.network(), r.prefix, "{} has host bits", r.cidr());
        for earlier in &rows[..i] {
            let e = net(earlier);
            assert!(
                !(e.contains(&n) && e != n),
                "{} is shadowed by the earlier {}",
                r.cidr(),
                e
            );
        }
        // The first address of every row classifies to that row (or a more
        // specific one listed before it, or a metadata address).
        match classify_ip(r.prefix) {
            Reach::Special(b) => assert!(net(b).prefix_len() >= r.len || b == r),
            Reach::Embedded { .. } | Reach::CloudMetadata(_) => {}
            Reach::Global => panic!("{} classifies as global", r.cidr()),
        }
    }
}

#[test]
fn ipv4_rows_are_ordered_most_specific_first() {
    check(IPV4_BLOCKS);
}

#[test]
fn ipv6_rows_are_ordered_most_specific_first() {
    check(IPV6_BLOCKS);
}

#[test]
fn metadata_addresses_have_their_own_code() {
    for m in METADATA_ENDPOINTS {
        assert_eq!(
            classify_ip(m.addr).code(),
            Some(DenialCode::CloudMetadata),
            "{}",
            m.addr
        );
    }
}

#[test]
fn every_code_string_is_unique_and_round_trips() {
    let mut seen = std::collections::HashSet::new();
    for c in DenialCode::ALL {
        assert!(seen.insert(c.as_str()), "duplicate {}", c.as_str());
        assert_eq!(DenialCode::from_str_code(c.as_str()), Some(*c));
        assert!(!c.source().is_empty());
    }
    let d = toolgate::net::Denial::outside_root("x");
    assert_eq!(d.code(), "path.outside_root");
    assert_eq!(d.kind(), DenialCode::PathOutsideRoot);
}

#[test]
fn code_table_lists_every_code() {
    let doc =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/codes.md")).unwrap();
    let start = doc.find("<!-- section:codes-net:begin -->").unwrap();
    let end = doc.find("<!-- section:codes-net:end -->").unwrap();
    let section = &doc[start..end];
    for c in DenialCode::ALL {
        assert!(
            section.contains(&format!("| `{}` |", c.as_str())),
            "docs/codes.md lacks {}",
            c.as_str()
        );
    }
}
