//! Structure-aware model of URLs for `classify_url` (the wasm-smith
//! pattern): a URL is built from parts (scheme and its case, userinfo, a
//! host as an IPv4 address in one of its notations, an IPv6 address in one
//! of its transition forms and spellings, or a name in ASCII, IDNA or
//! full-width letters; port; path), rendered to text, and the verdict and
//! denial code are computed from the parts alone by an independent model:
//! the policy of `docs/net.md` step by step, the address computed from the
//! parts and classified by [`super::net_reference`] (IANA prefixes as
//! `ipnet` rows), names by a table written here. `classify_url` must give
//! exactly that verdict and code, and for an allowed IP the same address.
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use arbitrary::{Arbitrary, Unstructured};

use super::net_reference::reference;
use crate::net::{self, Target};

/// Fuzz target `classify_url_structured`: the URL model built from `data`
/// and the exact verdict.
pub fn classify_url_structured(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let Ok(model) = UrlModel::arbitrary(&mut u) else {
        return;
    };
    check_model(&model);
}

/// A URL from parts.
#[derive(Debug, Clone, Arbitrary)]
pub struct UrlModel {
    scheme: Scheme,
    /// One URL in eight has another scheme, one in eight userinfo: the
    /// rest reach the host checks.
    odd: u8,
    other_scheme: u8,
    userinfo: Userinfo,
    host: HostModel,
    port: Option<u16>,
    path: u8,
}

#[derive(Debug, Clone, Copy, Arbitrary)]
enum Scheme {
    Http,
    Https,
    /// `http` or `https` with upper-case letters where the bits say.
    Cased {
        https: bool,
        bits: u8,
    },
}

/// Schemes that parse with an authority but are not http(s).
const OTHER_SCHEMES: &[&str] = &["ftp", "ws", "wss", "gopher", "ssh", "FTP"];

#[derive(Debug, Clone, Copy, Arbitrary)]
enum Userinfo {
    /// A bare `@`.
    Empty,
    User,
    UserPass,
    /// `:@`.
    EmptyPass,
}

#[derive(Debug, Clone, Arbitrary)]
enum HostModel {
    V4 { addr: V4Pick, notation: V4Notation },
    V6 { addr: V6Pick, spelling: V6Spelling },
    Name(NameModel),
}

/// Addresses on the edges of the registry, and any address.
const V4_TABLE: &[[u8; 4]] = &[
    [127, 0, 0, 1],
    [127, 255, 255, 254],
    [0, 0, 0, 0],
    [0, 1, 2, 3],
    [10, 0, 0, 1],
    [100, 64, 0, 1],
    [100, 127, 255, 255],
    [100, 100, 100, 200],
    [169, 254, 169, 254],
    [169, 254, 0, 1],
    [168, 63, 129, 16],
    [172, 16, 0, 1],
    [172, 32, 0, 1],
    [192, 0, 0, 192],
    [192, 0, 2, 1],
    [192, 88, 99, 1],
    [192, 168, 1, 1],
    [198, 18, 0, 1],
    [203, 0, 113, 9],
    [224, 0, 0, 1],
    [240, 0, 0, 1],
    [255, 255, 255, 255],
    [8, 8, 8, 8],
    [1, 1, 1, 1],
    [93, 184, 216, 34],
];

#[derive(Debug, Clone, Copy, Arbitrary)]
enum V4Pick {
    Table(u8),
    Any(u32),
}

impl V4Pick {
    fn addr(self) -> Ipv4Addr {
        match self {
            V4Pick::Table(i) => Ipv4Addr::from(V4_TABLE[usize::from(i) % V4_TABLE.len()]),
            V4Pick::Any(x) => Ipv4Addr::from_bits(x),
        }
    }
}

/// How an IPv4 address is written (WHATWG reads every one of these).
#[derive(Debug, Clone, Copy, Arbitrary)]
enum V4Notation {
    /// `a.b.c.d`: the only canonical one.
    Dotted,
    /// 1 to 4 parts (the last holds the remaining bytes), each part decimal,
    /// hex (`0x`, `0X`) or octal (`0…`) by `radix` (2 bits per part).
    Parts { parts: u8, radix: u8, upper: bool },
    /// `a.b.c.d.`
    TrailingDot,
    /// A leading zero on one part (`127.0.00.1`: octal, same value).
    LeadingZero(u8),
    /// Full-width digits (U+FF10…) and, per `dots`, ideographic dots.
    FullWidth { dots: u8 },
    /// The first digit percent-encoded (`%31`).
    Percent,
}

/// Plain IPv6 addresses around the registry's edges.
const V6_TABLE: &[&str] = &[
    "::1",
    "::",
    "fe80::1",
    "febf:ffff::1",
    "fec0::1",
    "fc00::1",
    "fd00:ec2::254",
    "2001:db8::1",
    "3fff::1",
    "ff02::1",
    "100::1",
    "5f00::1",
    "2001:2::1",
    "2001:20::1",
    "2606:4700:4700::1111",
    "2001:4860:4860::8888",
    "2a00:1450:4001::1",
    "4000::1",
    "::2",
];

#[derive(Debug, Clone, Copy, Arbitrary)]
enum V6Pick {
    Table(u8),
    /// An IPv4 address in one of the transition forms.
    Embedded {
        form: Form,
        v4: V4Pick,
    },
    Any(u128),
}

/// IPv6 forms that embed an IPv4 address.
#[derive(Debug, Clone, Copy, Arbitrary)]
enum Form {
    /// `::ffff:a.b.c.d`
    Mapped,
    /// `::a.b.c.d`
    Compatible,
    /// `::ffff:0:a.b.c.d` (SIIT)
    Translated,
    /// `64:ff9b::a.b.c.d`
    Nat64,
    /// `64:ff9b:1::/48`, RFC 6052 layout (the `u` octet skipped)
    Nat64Local,
    /// `2002:aabb:ccdd::/48`
    SixToFour { low: u16 },
    /// `2001:0:server::/32`, the client inverted in the last 32 bits
    Teredo { server: u8, port: u16 },
}

impl V6Pick {
    fn addr(self) -> Ipv6Addr {
        match self {
            V6Pick::Table(i) => V6_TABLE[usize::from(i) % V6_TABLE.len()]
                .parse()
                .expect("table row"),
            V6Pick::Any(x) => Ipv6Addr::from_bits(x),
            V6Pick::Embedded { form, v4 } => {
                let v4 = v4.addr();
                let x = u128::from(v4.to_bits());
                let [o0, o1, o2, o3] = v4.octets();
                Ipv6Addr::from_bits(match form {
                    Form::Mapped => 0xffff_0000_0000 | x,
                    Form::Compatible => x,
                    Form::Translated => 0xffff_0000_0000_0000 | x,
                    Form::Nat64 => (0x64_ff9b_u128 << 96) | x,
                    Form::Nat64Local => {
                        (0x64_ff9b_0001_u128 << 80)
                            | (u128::from(u16::from_be_bytes([o0, o1])) << 64)
                            | (u128::from(u16::from_be_bytes([o2, o3])) << 40)
                    }
                    Form::SixToFour { low } => (0x2002_u128 << 112) | (x << 80) | u128::from(low),
                    Form::Teredo { server, port } => {
                        let server = V4_TABLE[usize::from(server) % V4_TABLE.len()];
                        (0x2001_0000_u128 << 96)
                            | (u128::from(u32::from_be_bytes(server)) << 64)
                            | (u128::from(port) << 32)
                            | (!x & 0xffff_ffff)
                    }
                })
            }
        }
    }
}

/// How an IPv6 address is written inside the brackets.
#[derive(Debug, Clone, Copy, Arbitrary)]
enum V6Spelling {
    /// `std`'s text (RFC 5952; `::ffff:a.b.c.d` for mapped addresses).
    Display,
    /// The same in upper case.
    Upper,
    /// Eight groups of four digits.
    Expanded,
    /// Six groups, then the last 32 bits as canonical dotted-decimal.
    DottedTail,
}

/// A host name: a label (or none), a suffix, with how the letters are written.
#[derive(Debug, Clone, Arbitrary)]
struct NameModel {
    kind: NameKind,
    label: u8,
    suffix: u8,
    spelling: LabelSpelling,
    upper_suffix: bool,
    trailing_dot: bool,
}

#[derive(Debug, Clone, Copy, Arbitrary)]
enum NameKind {
    Public,
    Localhost,
    SubLocalhost,
    Metadata,
    SpecialUse,
    Private,
    SingleLabel,
}

#[derive(Debug, Clone, Copy, Arbitrary)]
enum LabelSpelling {
    Plain,
    Upper,
    /// Full-width letters (U+FF41…): IDNA maps them to ASCII.
    FullWidth,
    /// The first letter percent-encoded (`%77ww`).
    Percent,
}

// The name tables are re-typed from docs/net.md (policy step 6), not taken
// from src/net/names.rs, so the expected verdict does not come from the
// table it checks.
const LABELS: &[&str] = &["www", "api", "printer", "db", "a", "x-1", "bücher", "ñandú"];
const PUBLIC_SUFFIXES: &[&str] = &[
    "example.com",
    "example.org",
    "example.co.uk",
    "rust-lang.org",
];
const METADATA_NAMES: &[&str] = &[
    "metadata.google.internal",
    "metadata.goog",
    "instance-data.ec2.internal",
    "metadata.tencentyun.com",
    "metadata.platformequinix.com",
];
const SPECIAL_USE: &[&str] = &[
    "local",
    "internal",
    "home.arpa",
    "localdomain",
    "onion",
    "invalid",
    "test",
    "alt",
];
const PRIVATE: &[&str] = &["corp", "home", "lan", "intranet", "private", "svc"];

const PATHS: &[&str] = &[
    "", "/", "/a/b", "/x?y=1", "/#f", "?q=1", "#frag", "/p%20q", "/é", "/..", "/a@b",
];

/// What the independent model expects.
#[derive(Debug, PartialEq)]
enum Verdict {
    Allow(IpAddr),
    NeedsDns,
    Deny(&'static str),
}

fn fullwidth(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            'a'..='z' | 'A'..='Z' | '0'..='9' => {
                char::from_u32(c as u32 + 0xfee0).expect("full-width form")
            }
            c => c,
        })
        .collect()
}

fn percent_first(s: &str) -> String {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) if c.is_ascii() => format!("%{:02X}{}", c as u32, chars.as_str()),
        _ => s.to_owned(),
    }
}

fn write_part(out: &mut String, value: u32, radix: u8, upper: bool) {
    match radix % 3 {
        0 => out.push_str(&value.to_string()),
        1 if upper => out.push_str(&format!("0X{value:X}")),
        1 => out.push_str(&format!("0x{value:x}")),
        _ => out.push_str(&format!("0{value:o}")),
    }
}

/// The host text and whether it is the canonical dotted-decimal form.
fn v4_text(a: Ipv4Addr, notation: V4Notation) -> (String, bool) {
    let o = a.octets();
    let dotted = a.to_string();
    match notation {
        V4Notation::Dotted => (dotted, true),
        V4Notation::Parts {
            parts,
            radix,
            upper,
        } => {
            let parts = usize::from(parts % 4) + 1;
            let mut out = String::new();
            let mut canonical = parts == 4;
            for i in 0..parts {
                let r = (radix >> (2 * i)) & 3;
                canonical &= r % 3 == 0;
                let value = if i + 1 < parts {
                    u32::from(o[i])
                } else {
                    o[i..]
                        .iter()
                        .fold(0u32, |acc, b| (acc << 8) | u32::from(*b))
                };
                if i > 0 {
                    out.push('.');
                }
                write_part(&mut out, value, r, upper);
            }
            (out, canonical)
        }
        V4Notation::TrailingDot => (format!("{dotted}."), false),
        V4Notation::LeadingZero(i) => {
            let i = usize::from(i % 4);
            let text = o
                .iter()
                .enumerate()
                .map(|(j, b)| {
                    if j == i && *b < 8 {
                        // `0` + a digit below 8: the same value in octal.
                        format!("0{b}")
                    } else if j == i {
                        format!("0{b:o}")
                    } else {
                        b.to_string()
                    }
                })
                .collect::<Vec<_>>()
                .join(".");
            (text, false)
        }
        V4Notation::FullWidth { dots } => {
            let mut out = String::new();
            for (i, part) in dotted.split('.').enumerate() {
                if i > 0 {
                    out.push(match (dots >> (2 * i)) & 3 {
                        0 => '.',
                        1 => '\u{3002}',
                        2 => '\u{ff0e}',
                        _ => '\u{ff61}',
                    });
                }
                out.push_str(&fullwidth(part));
            }
            (out, false)
        }
        V4Notation::Percent => (percent_first(&dotted), false),
    }
}

fn v6_text(a: Ipv6Addr, spelling: V6Spelling) -> String {
    match spelling {
        V6Spelling::Display => a.to_string(),
        V6Spelling::Upper => a.to_string().to_uppercase(),
        V6Spelling::Expanded => a
            .segments()
            .iter()
            .map(|s| format!("{s:04x}"))
            .collect::<Vec<_>>()
            .join(":"),
        V6Spelling::DottedTail => {
            let s = a.segments();
            let o = a.octets();
            format!(
                "{:x}:{:x}:{:x}:{:x}:{:x}:{:x}:{}",
                s[0],
                s[1],
                s[2],
                s[3],
                s[4],
                s[5],
                Ipv4Addr::new(o[12], o[13], o[14], o[15])
            )
        }
    }
}

fn spell_label(label: &str, spelling: LabelSpelling) -> String {
    match spelling {
        LabelSpelling::Plain => label.to_owned(),
        LabelSpelling::Upper => label.to_uppercase(),
        LabelSpelling::FullWidth => fullwidth(label),
        LabelSpelling::Percent => percent_first(label),
    }
}

/// The host text and the verdict the policy gives a name host.
fn name_text(n: &NameModel) -> (String, Verdict) {
    let label = LABELS[usize::from(n.label) % LABELS.len()];
    let pick = |t: &[&'static str]| t[usize::from(n.suffix) % t.len()];
    let (first, suffix, verdict): (Option<&str>, &str, Verdict) = match n.kind {
        NameKind::Public => (Some(label), pick(PUBLIC_SUFFIXES), Verdict::NeedsDns),
        NameKind::Localhost => (None, "localhost", Verdict::Deny("ssrf.localhost_name")),
        NameKind::SubLocalhost => (
            Some(label),
            "localhost",
            Verdict::Deny("ssrf.localhost_name"),
        ),
        NameKind::Metadata => (
            None,
            pick(METADATA_NAMES),
            Verdict::Deny("ssrf.metadata_name"),
        ),
        NameKind::SpecialUse => (
            Some(label),
            pick(SPECIAL_USE),
            Verdict::Deny("ssrf.special_use_name"),
        ),
        NameKind::Private => (
            Some(label),
            pick(PRIVATE),
            Verdict::Deny("ssrf.private_name"),
        ),
        NameKind::SingleLabel => (None, label, Verdict::Deny("ssrf.single_label_name")),
    };
    let suffix = if n.upper_suffix {
        suffix.to_uppercase()
    } else {
        suffix.to_owned()
    };
    // The spelling applies to the first label (the whole name when it is one).
    let mut text = match first {
        Some(l) => format!("{}.{suffix}", spell_label(l, n.spelling)),
        None => {
            let (head, tail) = suffix.split_once('.').map_or((suffix.as_str(), ""), |x| x);
            let head = spell_label(head, n.spelling);
            if tail.is_empty() {
                head
            } else {
                format!("{head}.{tail}")
            }
        }
    };
    if n.trailing_dot {
        text.push('.');
    }
    // Percent-encoded names are ambiguous whatever they decode to.
    let verdict = match n.spelling {
        LabelSpelling::Percent if text.contains('%') => Verdict::Deny("url.ambiguous"),
        _ => verdict,
    };
    (text, verdict)
}

impl UrlModel {
    /// The URL text and the verdict computed from the parts.
    fn render(&self) -> (String, Verdict) {
        let (scheme, http) = match self.scheme {
            Scheme::Http => ("http".to_owned(), true),
            Scheme::Https => ("https".to_owned(), true),
            Scheme::Cased { https, bits } => {
                let s = if https { "https" } else { "http" };
                let cased = s
                    .chars()
                    .enumerate()
                    .map(|(i, c)| {
                        if bits >> i & 1 == 1 {
                            c.to_ascii_uppercase()
                        } else {
                            c
                        }
                    })
                    .collect();
                (cased, true)
            }
        };
        let (scheme, http) = if self.odd.is_multiple_of(8) {
            let i = usize::from(self.other_scheme) % OTHER_SCHEMES.len();
            (OTHER_SCHEMES[i].to_owned(), false)
        } else {
            (scheme, http)
        };
        let has_userinfo = self.odd % 8 == 1 || self.odd == 0;
        let userinfo = match (has_userinfo, self.userinfo) {
            (false, _) => "",
            (true, Userinfo::Empty) => "@",
            (true, Userinfo::User) => "user@",
            (true, Userinfo::UserPass) => "user:pass@",
            (true, Userinfo::EmptyPass) => ":@",
        };
        let (host, host_verdict) = match &self.host {
            HostModel::V4 { addr, notation } => {
                let a = addr.addr();
                let (text, canonical) = v4_text(a, *notation);
                let v = if canonical {
                    ip_verdict(IpAddr::V4(a))
                } else {
                    Verdict::Deny("url.ambiguous")
                };
                (text, v)
            }
            HostModel::V6 { addr, spelling } => {
                let a = addr.addr();
                (
                    format!("[{}]", v6_text(a, *spelling)),
                    ip_verdict(IpAddr::V6(a)),
                )
            }
            HostModel::Name(n) => name_text(n),
        };
        let port = self.port.map(|p| format!(":{p}")).unwrap_or_default();
        let path = PATHS[usize::from(self.path) % PATHS.len()];
        let text = format!("{scheme}://{userinfo}{host}{port}{path}");
        // The policy's order: scheme, userinfo, then the host.
        let verdict = if !http {
            Verdict::Deny("url.scheme")
        } else if has_userinfo {
            Verdict::Deny("url.userinfo")
        } else {
            host_verdict
        };
        (text, verdict)
    }
}

fn ip_verdict(a: IpAddr) -> Verdict {
    match reference(a) {
        None => Verdict::Allow(a),
        Some(code) => Verdict::Deny(code),
    }
}

fn check_model(model: &UrlModel) {
    let (text, expected) = model.render();
    let got = match net::classify_url(&text) {
        Ok(dest) => match dest.target() {
            Target::Ip(a) => {
                assert!(!dest.needs_dns());
                Verdict::Allow(a)
            }
            Target::Domain(_) => {
                assert!(dest.needs_dns());
                Verdict::NeedsDns
            }
        },
        Err(d) => Verdict::Deny(d.code()),
    };
    assert_eq!(got, expected, "{text:?} from {model:?}");
    // The byte-level harness's invariants hold on the same text.
    super::net::classify_url(text.as_bytes());
}
