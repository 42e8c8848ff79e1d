//! Host names refused without DNS: `localhost` and its aliases, cloud
//! metadata names, special-use names that never resolve publicly,
//! single-label names, suffixes that are private by convention or by
//! platform, and names whose last label is no top-level domain of the
//! root zone.

use super::code::DenialCode;

/// Names (and, for `localhost`, every subdomain) that resolve to loopback
/// without asking DNS: RFC 6761 §6.3, plus the aliases common `/etc/hosts`
/// files ship.
pub const LOCALHOST_NAMES: &[&str] = &[
    "localhost",
    "localhost.localdomain",
    "localhost4",
    "localhost4.localdomain4",
    "localhost6",
    "localhost6.localdomain6",
    "ip6-localhost",
    "ip6-loopback",
];

/// Cloud metadata host names, as the providers document them. Bare labels
/// (`metadata`, `instance-data`) are listed because the instances' DNS search
/// domains resolve them.
pub const METADATA_NAMES: &[&str] = &[
    // Google Cloud: metadata server.
    "metadata.google.internal",
    "metadata.goog",
    "metadata",
    // AWS: legacy IMDS names.
    "instance-data",
    "instance-data.ec2.internal",
    // Tencent Cloud.
    "metadata.tencentyun.com",
    // IBM Cloud VPC instance metadata service (HTTP and HTTPS endpoint name).
    "api.metadata.cloud.ibm.com",
    // Equinix Metal (formerly Packet): per-instance metadata by source address.
    "metadata.platformequinix.com",
    "metadata.packet.net",
];

/// Special-use top-level names that never resolve in the public DNS, so a
/// hit can only come from a local resolver (RFC 6761 §6.2-6.4, RFC 6762,
/// RFC 7686, RFC 8375, RFC 9476, ICANN's 2024 `.internal` reservation).
/// `example` is RFC 6761 §6.5's top-level name; `example.com`, `.net` and
/// `.org` are delegated names that resolve publicly, so they are not here.
pub const SPECIAL_USE_SUFFIXES: &[&str] = &[
    "local",
    "internal",
    "home.arpa",
    "localdomain",
    "onion",
    "invalid",
    "test",
    "alt",
    "example",
];

/// Top-level names that are private by convention or by platform: not
/// reserved in the IANA Special-Use Domain Names registry, but used inside
/// networks, so an answer for them comes from an internal resolver.
///
/// * `intranet`, `private`, `corp`, `home`, `lan`: RFC 6762 Appendix G
///   (names "used as private top-level domains"; `internal` and `local`,
///   also listed there, are in [`SPECIAL_USE_SUFFIXES`]).
/// * `svc`: Kubernetes DNS-based service discovery (`NAME.NAMESPACE.svc`
///   is resolved through the pod's search domains). The cluster domain
///   itself, `cluster.local` by default, is already under `local`.
pub const PRIVATE_SUFFIXES: &[&str] = &["intranet", "private", "corp", "home", "lan", "svc"];

/// Top-level domains of the root zone that the Public Suffix List names
/// only through rules beneath them (`*.ck`, `co.za`), not as a rule of
/// their own: the `psl` crate answers for the label alone as it answers
/// for a label it does not know, so they are listed here (a test checks
/// that the crate still knows names beneath each).
const TLDS_ONLY_BENEATH: &[&str] = &["ck", "er", "fk", "jm", "mm", "np", "pg", "za"];

/// `true` when `label` (lower-case ASCII, IDNs in their `xn--` form) is a
/// top-level domain of the IANA root zone, as the Public Suffix List the
/// `psl` crate embeds lists them: its ICANN section follows the root zone.
/// One match on the label, whatever the rest of the name.
fn is_root_zone_tld(label: &str) -> bool {
    use psl::Psl;
    psl::List
        .find(std::iter::once(label.as_bytes()))
        .typ
        .is_some()
        || TLDS_ONLY_BENEATH.contains(&label)
}

/// `true` when `name` is `suffix` or ends with `.suffix`.
fn is_or_under(name: &str, suffix: &str) -> bool {
    // Most names end in another byte: reject them before comparing strings.
    if name.as_bytes().last() != suffix.as_bytes().last() {
        return false;
    }
    name == suffix
        || name
            .strip_suffix(suffix)
            .is_some_and(|rest| rest.ends_with('.'))
}

/// The code refusing a canonical (lower-case, ASCII) domain name by name
/// alone, or `None` when it needs DNS. One trailing dot is ignored.
pub fn refused_name(domain: &str) -> Option<DenialCode> {
    let name = domain.strip_suffix('.').unwrap_or(domain);
    if is_or_under(name, "localhost") || LOCALHOST_NAMES.contains(&name) {
        return Some(DenialCode::LocalhostName);
    }
    if METADATA_NAMES.contains(&name) || is_or_under(name, "metadata.google.internal") {
        return Some(DenialCode::MetadataName);
    }
    if SPECIAL_USE_SUFFIXES.iter().any(|s| is_or_under(name, s)) {
        return Some(DenialCode::SpecialUseName);
    }
    // A name of one label is completed by the resolver's search domains
    // (RFC 1535), so it names an internal host; the public DNS has no
    // dotless host names (RFC 7085; ICANN SAC053).
    if !name.contains('.') {
        return Some(DenialCode::SingleLabelName);
    }
    if PRIVATE_SUFFIXES.iter().any(|s| is_or_under(name, s)) {
        return Some(DenialCode::PrivateName);
    }
    // A last label that is no top-level domain (`kubernetes.default`,
    // `redis.prod`): no public name ends so, and the resolver's search
    // domains complete it as they complete a single label (RFC 1535; a
    // Kubernetes pod's `ndots:5` makes `SERVICE.NAMESPACE` the usual name
    // of a service).
    // A last label of letters, digits, hyphens, underscores and `*`
    // (WHATWG and glibc take `_` and `*` in a name: a search list
    // completes `db.team_a` as any `NAME.NS`). (An empty last label,
    // `a..`, or one of other characters, `example.org}` as an unexpanded
    // curl glob leaves it, is no name a resolver's search list completes
    // to a host: the rules above and DNS decide those.)
    let tld = name.rsplit('.').next().unwrap_or(name);
    let ldh = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'*');
    if !tld.is_empty() && tld.bytes().all(ldh) && !is_root_zone_tld(tld) {
        return Some(DenialCode::UnknownTld);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn single_label_and_private_suffixes() {
        for (name, code) in [
            ("intranet", Some(DenialCode::SingleLabelName)),
            ("db", Some(DenialCode::SingleLabelName)),
            ("db.", Some(DenialCode::SingleLabelName)),
            ("xn--wgv71a", Some(DenialCode::SingleLabelName)),
            // Names of one label with an older code keep it.
            ("localhost", Some(DenialCode::LocalhostName)),
            ("metadata", Some(DenialCode::MetadataName)),
            ("test", Some(DenialCode::SpecialUseName)),
            ("api.default.svc", Some(DenialCode::PrivateName)),
            (
                "api.default.svc.cluster.local",
                Some(DenialCode::SpecialUseName),
            ),
            ("git.corp", Some(DenialCode::PrivateName)),
            ("nas.home", Some(DenialCode::PrivateName)),
            ("printer.lan.", Some(DenialCode::PrivateName)),
            ("wiki.intranet", Some(DenialCode::PrivateName)),
            ("x.private", Some(DenialCode::PrivateName)),
            // Public names, and names merely ending in the same letters.
            ("example.com", None),
            ("docs.rs", None),
            ("lan.example.com", None),
            ("myhome", Some(DenialCode::SingleLabelName)),
            ("a.myhome", Some(DenialCode::UnknownTld)),
            // A last label with `_` or `*` is no top-level domain either
            // (attack s78-A, B6).
            ("vault.v_ault", Some(DenialCode::UnknownTld)),
            ("vault.*", Some(DenialCode::UnknownTld)),
            ("db.team_a", Some(DenialCode::UnknownTld)),
            ("_svc._tcp.example.com", None),
            ("x.example.org}", None),
            ("a.svc.example", Some(DenialCode::SpecialUseName)),
            ("a.svc.example.com", None),
            ("a.scorp", Some(DenialCode::UnknownTld)),
            ("{8.8.8.8,example.org}", None),
            ("a.b_c", Some(DenialCode::UnknownTld)),
            ("a.scot", None),
            ("a..", None),
            ("..", None),
        ] {
            assert_eq!(refused_name(name), code, "{name}");
        }
    }

    #[test]
    fn last_label_no_top_level_domain() {
        for name in [
            // The names of attack s76-B, F2 (but `.prod`, below).
            "kubernetes.default",
            "kubernetes.default.",
            "vault.vault",
            "grafana.monitoring",
            "argocd-server.argocd",
            "redis.staging",
            "a.b.c.staging",
            // A label the Public Suffix List knows only below a TLD.
            "x.xn--p1ai.nope",
            "example.za.nope",
        ] {
            assert_eq!(refused_name(name), Some(DenialCode::UnknownTld), "{name}");
        }
        // `.example` is special-use; the names under `.com` are not.
        assert_eq!(refused_name("x.example"), Some(DenialCode::SpecialUseName));
        assert_eq!(refused_name("x.example."), Some(DenialCode::SpecialUseName));
        for name in [
            "example.com",
            "example.net",
            "example.org",
            "example.com.",
            "foo.co.uk",
            "co.uk",
            "xn--80ak6aa92e.com",
            "a.b.c.io",
            "x.xn--p1ai",
            "github.io",
            "user.github.io",
            "a.b.c.d.e.f.g.h.github.io",
            "nic.ck",
            "www.ck",
            "example.za",
            "example.co.za",
            "x.er",
            "x.fk",
            "x.jm",
            "x.mm",
            "x.np",
            "x.pg",
            "x.arpa",
            "x.dev",
            "x.app",
            "x.zuerich",
            // `.prod` is a delegated TLD (2014): `redis.prod` may be a
            // public name.
            "redis.prod",
        ] {
            assert_eq!(refused_name(name), None, "{name}");
        }
    }

    #[test]
    fn tlds_only_beneath_are_still_known_beneath() {
        use psl::Psl;
        for tld in TLDS_ONLY_BENEATH {
            let lookup = |name: &str| psl::List.find(name.as_bytes().rsplit(|&b| b == b'.'));
            // The list has rules beneath it.
            let beneath = ["www", "co", "com", "gov", "org"]
                .iter()
                .any(|l| lookup(&format!("{l}.{tld}")).typ.is_some());
            assert!(beneath, "{tld}");
        }
        assert!(is_root_zone_tld("com"));
        assert!(is_root_zone_tld("xn--p1ai"));
        assert!(!is_root_zone_tld("default"));
        assert!(!is_root_zone_tld(""));
        assert!(!is_root_zone_tld("example"));
    }
}
