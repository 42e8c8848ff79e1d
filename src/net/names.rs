//! Host names refused without DNS: `localhost` and its aliases, cloud
//! metadata names, special-use names that never resolve publicly,
//! single-label names, and suffixes that are private by convention or by
//! platform.

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
pub const SPECIAL_USE_SUFFIXES: &[&str] = &[
    "local",
    "internal",
    "home.arpa",
    "localdomain",
    "onion",
    "invalid",
    "test",
    "alt",
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
            ("a.myhome", None),
            ("a.svc.example", None),
            ("a.scorp", None),
        ] {
            assert_eq!(refused_name(name), code, "{name}");
        }
    }
}
