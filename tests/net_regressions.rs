//! One test per kind of bypass found while hunting (each kind fixed whole).
use std::net::IpAddr;
use toolgate::net::{classify_host, classify_ip, classify_url};

fn code(u: &str) -> &'static str {
    match classify_url(u) {
        Ok(d) => panic!("{u:?} passed as {:?}", d.target()),
        Err(d) => d.code(),
    }
}

#[test]
fn at_sign_after_query_or_fragment_right_behind_the_host() {
    // A parser that does not end the authority at `?`/`#` reads the host after `@`.
    for u in [
        "http://example.com?@127.0.0.1/",
        "http://example.com#@169.254.169.254",
        "http://example.com:80?x@10.0.0.1",
    ] {
        assert_eq!(code(u), "url.ambiguous", "{u}");
    }
    // After a `/`, every parser has ended the authority: legitimate `@` stays fine.
    for u in [
        "https://example.com/@user",
        "https://example.com/?mail=a@b.example",
        "https://example.com/#a@b",
    ] {
        assert!(classify_url(u).is_ok(), "{u}");
    }
}

#[test]
fn local_use_nat64_reads_the_96_layout_too() {
    for (a, want) in [
        ("64:ff9b:1::10.1.2.3", "ssrf.private_use"),
        ("64:ff9b:1::127.0.0.1", "ssrf.loopback"),
        ("64:ff9b:1:a9fe:a9:fe00::", "ssrf.cloud_metadata"),
        ("64:ff9b:1::8.8.8.8", "ssrf.nat64"),
    ] {
        let ip: IpAddr = a.parse().unwrap();
        assert_eq!(
            classify_ip(ip).code().map(|c| c.as_str()),
            Some(want),
            "{a}"
        );
    }
}

#[test]
fn slash_counts_other_than_two_are_ambiguous() {
    for u in [
        "http:example.com/",
        "http:/example.com/",
        "http:///example.com/",
        "https:////127.0.0.1/",
    ] {
        assert_eq!(code(u), "url.ambiguous", "{u}");
    }
}

#[test]
fn unicode_tricks_are_seen_through() {
    for (u, want) in [
        ("http://ｌｏｃａｌｈｏｓｔ/", "ssrf.localhost_name"),
        ("http://localhost\u{3002}/", "ssrf.localhost_name"),
        (
            "http://metadata.google.internal\u{FF61}/",
            "ssrf.metadata_name",
        ),
        ("http://\u{2460}\u{2461}\u{2466}.0.0.1/", "url.ambiguous"),
        ("http://127\u{3002}0\u{3002}0\u{3002}1/", "url.ambiguous"),
        ("http://loc\u{AD}alhost/", "url.ambiguous"),
        ("http://example.com\u{2028}/", "url.ambiguous"),
        ("\u{FEFF}http://example.com/", "url.ambiguous"),
    ] {
        assert_eq!(code(u), want, "{u}");
    }
}

#[test]
fn hosts_the_resolver_may_read_as_numbers_are_ambiguous() {
    for h in ["1.2.3.4..", "..", "a..b", "0x7f.0x0.0x0.0x1."] {
        assert!(classify_host(h).is_err(), "{h}");
    }
}

#[test]
fn localhost_aliases_and_special_use_names() {
    for (h, want) in [
        ("localhost.localdomain", "ssrf.localhost_name"),
        ("ip6-localhost", "ssrf.localhost_name"),
        ("printer.local", "ssrf.special_use_name"),
        ("host.docker.internal", "ssrf.special_use_name"),
        ("router.home.arpa.", "ssrf.special_use_name"),
        ("instance-data.ec2.internal", "ssrf.metadata_name"),
        ("METADATA.", "ssrf.metadata_name"),
    ] {
        assert_eq!(classify_host(h).unwrap_err().code(), want, "{h}");
    }
}

#[test]
fn single_label_names_and_private_suffixes_are_refused() {
    for (u, want) in [
        ("http://intranet/", "ssrf.single_label_name"),
        ("http://db:5432/", "ssrf.single_label_name"),
        ("https://Jenkins./job", "ssrf.single_label_name"),
        ("http://redis.default.svc:6379/", "ssrf.private_name"),
        (
            "http://kubernetes.default.svc.cluster.local/",
            "ssrf.special_use_name",
        ),
        ("http://git.corp/", "ssrf.private_name"),
        ("http://nas.home/", "ssrf.private_name"),
        ("http://printer.lan./", "ssrf.private_name"),
        ("http://wiki.intranet/", "ssrf.private_name"),
        ("http://vault.private/", "ssrf.private_name"),
        // Attack s76-B, F2: a last label that is no top-level domain.
        ("http://kubernetes.default/api", "ssrf.unknown_tld"),
        ("http://vault.vault:8200/v1/sys", "ssrf.unknown_tld"),
        ("http://vault.v_ault/x", "ssrf.unknown_tld"),
        ("http://vault.*/x", "ssrf.unknown_tld"),
        ("http://grafana.monitoring/", "ssrf.unknown_tld"),
        ("http://argocd-server.argocd/", "ssrf.unknown_tld"),
        ("HTTP://Kubernetes.Default./api", "ssrf.unknown_tld"),
        ("http://x.example/", "ssrf.special_use_name"),
    ] {
        assert_eq!(classify_url(u).unwrap_err().code(), want, "{u}");
    }
    for u in [
        "http://example.com/",
        "https://docs.rs/",
        "http://corp.example.com/",
        "http://a.b.c.io/",
        "http://x.xn--p1ai/",
        "http://x.\u{440}\u{444}/",
        // `.prod` is a delegated top-level domain.
        "http://redis.prod:6379/",
    ] {
        assert!(classify_url(u).unwrap().needs_dns(), "{u}");
    }
}

#[test]
fn teredo_fields_that_are_zero_mean_absent() {
    // An all-zero client field inverts to 255.255.255.255; zero server is 0.0.0.0:
    // neither is an embedded address, so the code is the embedding's.
    for a in ["2001:0:8000::", "2001::", "2001:0:4000::1:0:0"] {
        let ip: IpAddr = a.parse().unwrap();
        assert_eq!(
            classify_ip(ip).code().map(|c| c.as_str()),
            Some("ssrf.teredo"),
            "{a}"
        );
    }
    // RFC 4380's example: client 192.0.2.45 (documentation).
    let ip: IpAddr = "2001:0:4136:e378:8000:63bf:3fff:fdd2".parse().unwrap();
    assert_eq!(
        classify_ip(ip).code().map(|c| c.as_str()),
        Some("ssrf.documentation")
    );
}

fn ip_code(a: &str) -> Option<&'static str> {
    let ip: IpAddr = a.parse().unwrap();
    classify_ip(ip).code().map(|c| c.as_str())
}

#[test]
fn isatap_identifiers_embed_ipv4_whatever_the_prefix() {
    // RFC 5214 §6.1: 0000:5efe and 0200:5efe (u/l bit), plus the group-bit
    // variants of modified EUI-64. These were global before.
    for (a, want) in [
        ("2606:4700:10::5efe:a9fe:a9fe", "ssrf.cloud_metadata"),
        ("2606:4700:10::200:5efe:10.0.0.1", "ssrf.private_use"),
        ("2606:4700:10::100:5efe:127.0.0.1", "ssrf.loopback"),
        ("2606:4700:10::300:5efe:8.8.8.8", "ssrf.isatap"),
        ("2606:4700:10::5efe:8.8.8.8", "ssrf.isatap"),
        // Under a special prefix with a global IPv4: the prefix's block.
        ("fe80::5efe:8.8.8.8", "ssrf.link_local"),
        ("2001:db8::200:5efe:8.8.8.8", "ssrf.documentation"),
        // Multicast has no interface identifier.
        ("ff02::5efe:1.2.3.4", "ssrf.multicast"),
    ] {
        assert_eq!(ip_code(a), Some(want), "{a}");
    }
    // Not ISATAP: other bits in the first identifier octet.
    assert_eq!(ip_code("2606:4700:10::400:5efe:8.8.8.8"), None);
    assert_eq!(ip_code("2606:4700:10::5eff:8.8.8.8"), None);
}

#[test]
fn siit_translated_addresses_name_what_they_embed() {
    for (a, want) in [
        ("::ffff:0:127.0.0.1", "ssrf.loopback"),
        ("::ffff:0:a9fe:a9fe", "ssrf.cloud_metadata"),
        ("::ffff:0:10.1.2.3", "ssrf.private_use"),
        ("::ffff:0:8.8.8.8", "ssrf.ipv4_translated"),
    ] {
        assert_eq!(ip_code(a), Some(want), "{a}");
    }
}

#[test]
fn zone_identifiers_and_bare_ipv6_hosts() {
    for h in [
        "fe80::1%eth0",
        "fe80::1%25eth0",
        "[fe80::1%25eth0]",
        "::1%lo",
    ] {
        assert_eq!(classify_host(h).unwrap_err().code(), "url.malformed", "{h}");
    }
    assert_eq!(code("http://[fe80::1%25eth0]/"), "url.malformed");
    // A bare IPv6 address given as a host is read as that address.
    assert_eq!(
        classify_host("::ffff:127.0.0.1").unwrap_err().code(),
        "ssrf.loopback"
    );
    assert!(classify_host("2606:4700:4700::1111")
        .unwrap()
        .ip()
        .is_some());
}

#[test]
fn special_schemes_without_slashes_are_ambiguous_whatever_the_host() {
    for u in [
        "http:127.0.0.1",
        "http:evil.com",
        "https:8.8.8.8/",
        "HTTP:10.0.0.1",
    ] {
        assert_eq!(code(u), "url.ambiguous", "{u}");
    }
}

#[test]
fn a_port_then_query_with_at_sign_is_still_ambiguous() {
    // The verbatim fast path must not skip the `?@` check behind a port.
    for u in [
        "http://example.com:80?x@10.0.0.1",
        "http://example.com:8080#@127.0.0.1",
        "http://8.8.8.8:80?@127.0.0.1/",
    ] {
        assert_eq!(code(u), "url.ambiguous", "{u}");
    }
}
