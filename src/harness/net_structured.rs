//! Structure-aware model of URLs for `classify_url` (the wasm-smith
//! pattern): a URL is built from parts (scheme and its case, userinfo, a
//! host as an IPv4 address in one of its notations, an IPv6 address in one
//! of its transition forms and spellings, or a name in ASCII, IDNA or
//! full-width letters; port; path), rendered to text, and the verdict and
//! denial code are computed from the parts alone by an independent model:
//! the policy of `docs/net.md` step by step, the address computed from the
//! parts and classified by [`super::net_reference`] (IANA prefixes as
//! `ipnet` rows), names by a table written here. At most one `Twist` then
//! bends the text the way an attacker would (an invisible or ambiguous
//! character anywhere, another slash count after the scheme, an empty
//! label, an IPv6 zone identifier, an `@` right after `?` or `#`), with
//! the verdict the policy gives that twist. `classify_url` must give
//! exactly that verdict and code, and for an allowed IP the same address.
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use arbitrary::{Arbitrary, Unstructured};

use super::net_reference::{isatap_iid, reference};
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
    twist: Option<Twist>,
    /// How the host is also given to `classify_host` (see [`HostCall`]).
    /// Last, so inputs written before it existed decode as they did.
    host_call: HostCall,
}

/// The host (with its port) given to `classify_host`, which reads it as
/// `classify_url` reads `http://HOST/`, with refusals of its own.
#[derive(Debug, Clone, Copy, Default, Arbitrary)]
enum HostCall {
    /// As written in the URL: the verdict of `http://HOST/`.
    #[default]
    AsWritten,
    /// An IPv6 host without its brackets (with no port): bracketed by
    /// `classify_host`, the same verdict; with a zone, `url.malformed`.
    Bare,
    /// Followed by one of `/`, `/a`, `?`, `?q=1`, `#`, `#f`: no host holds
    /// them, `url.malformed`.
    Suffix(u8),
    /// An IPv6 host with a zone written `%eth0` (not `%25`): `url.malformed`.
    RawZone,
}

/// One way to bend a rendered URL, each with the policy's answer.
#[derive(Debug, Clone, Copy, Arbitrary)]
enum Twist {
    /// One of [`AMBIGUOUS_CHARS`] inserted before the `at`-th character
    /// (modulo the length): `url.ambiguous` wherever it lands (policy
    /// step 1, before everything else).
    Insert { what: u8, at: u16 },
    /// `scheme:` followed by 0, 1, 3 or 4 slashes instead of 2: http(s)
    /// gets `url.ambiguous` (step 3), other schemes `url.scheme`.
    Slashes(u8),
    /// A name host with an empty label (a doubled, leading or trailing
    /// extra dot): `url.ambiguous` (step 4).
    EmptyLabel(u8),
    /// An IPv6 host with a zone identifier (`%25eth0`): no URL can carry
    /// one, so the parser refuses it: `url.malformed` (step 2).
    Zone(u8),
    /// `?` or `#` right behind the host, then an `@` before any `/`
    /// (`http://evil.com?@127.0.0.1/`): `url.ambiguous` for http(s),
    /// before the userinfo check (step 3).
    AtAfter { hash: bool, word: bool },
    /// A fragment padding the URL to one byte under, exactly at, or one
    /// byte over `MAX_URL_BYTES` (`k % 3`): over the bound is
    /// `url.too_long` before any other step (step 1); at or under it, the
    /// verdict of the URL without the padding.
    Length(u8),
    /// The host replaced by a name with no label at all (`.`, `..`, an
    /// ideographic or full-width dot that IDNA maps to `.`): an empty label,
    /// `url.ambiguous` (step 5).
    EmptyName(u8),
    /// The host replaced by one of [`HEX_LOOKING`]: a last label starting
    /// `0x` that is no number (a domain, as WHATWG reads it), or numbers
    /// WHATWG reads as an IPv4 address; each with its verdict.
    HexLooking(u8),
}

/// Hosts with `0x` labels, and the policy's verdict for each (after the
/// scheme and userinfo steps): WHATWG reads a last label as a number only
/// when it is decimal, `0x` followed by hex digits (or nothing), or octal;
/// `0xzf` is a label, so the host is a name (step 7), refused when its
/// last label is no top-level domain (`ssrf.unknown_tld`); `0x7f.1` and
/// `0x.0x` are IPv4 addresses in another notation (step 5).
const HEX_LOOKING: &[(&str, Verdict)] = &[
    ("www.0xzf", Verdict::Deny("ssrf.unknown_tld")),
    ("0x1.0xgx", Verdict::Deny("ssrf.unknown_tld")),
    ("api.0XZF", Verdict::Deny("ssrf.unknown_tld")),
    ("a.b.0xabcx", Verdict::Deny("ssrf.unknown_tld")),
    ("www.0xzf.com", Verdict::NeedsDns),
    ("0x1.0xgx.io", Verdict::NeedsDns),
    ("0xzf", Verdict::Deny("ssrf.single_label_name")),
    ("0xzf.local", Verdict::Deny("ssrf.special_use_name")),
    ("0x7f.1", Verdict::Deny("url.ambiguous")),
    ("0x.0x", Verdict::Deny("url.ambiguous")),
];

/// Hosts with no label: WHATWG keeps `.` (IDNA maps the other dots to it).
const EMPTY_NAMES: &[&str] = &[".", "..", "\u{3002}", "\u{ff0e}", "\u{ff61}"];

/// Characters the policy refuses anywhere in a URL (step 1 of
/// `docs/net.md`): controls (C0, DEL, C1), whitespace of every kind, the
/// invisible format characters it names, and the backslash. Re-typed from
/// the policy's words and the Unicode tables, not from `src/net`.
const AMBIGUOUS_CHARS: &[char] = &[
    '\\',
    '\0',
    '\t',
    '\n',
    '\r',
    '\u{1b}',
    '\u{7f}',
    '\u{85}',
    '\u{9b}',
    ' ',
    '\u{a0}',
    '\u{1680}',
    '\u{2009}',
    '\u{2028}',
    '\u{2029}',
    '\u{3000}',
    '\u{ad}',
    '\u{180e}',
    '\u{200b}',
    '\u{200c}',
    '\u{200d}',
    '\u{200e}',
    '\u{202e}',
    '\u{2060}',
    '\u{2066}',
    '\u{feff}',
    '\u{fe0f}',
    '\u{e0041}',
    '\u{34f}',
    '\u{115f}',
    '\u{3164}',
    '\u{fff9}',
    '\u{fffb}',
    '\u{e0fff}',
    '\u{1bca0}',
    '\u{1bca3}',
    '\u{1d173}',
    '\u{1d17a}',
];

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
    /// An ISATAP interface identifier (`…:0:5efe:a.b.c.d`, the u/g bits
    /// by `variant`) under a /64 of [`ISATAP_PREFIXES`]
    Isatap { prefix: u8, variant: u8 },
}

/// /64 prefixes an ISATAP identifier sits under: global, documentation,
/// link-local, unique-local, 6to4, multicast (not ISATAP at all).
const ISATAP_PREFIXES: &[u64] = &[
    0x2a00_1450_4001_081c,
    0x2606_4700_0000_0001,
    0x2001_0db8_0001_0002,
    0xfe80_0000_0000_0000,
    0xfd12_3456_789a_0001,
    0x2002_0808_0808_0001,
    0xff02_0000_0000_0001,
];

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
                    Form::Isatap { prefix, variant } => {
                        let p = ISATAP_PREFIXES[usize::from(prefix) % ISATAP_PREFIXES.len()];
                        (u128::from(p) << 64) | isatap_iid(v4, variant)
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
#[derive(Debug, Clone, PartialEq)]
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
        let (host, host_verdict) = match (self.twist, &self.host) {
            (Some(Twist::EmptyLabel(k)), HostModel::Name(_)) => {
                (empty_label(&host, k), Verdict::Deny("url.ambiguous"))
            }
            (Some(Twist::EmptyName(k)), _) => (
                EMPTY_NAMES[usize::from(k) % EMPTY_NAMES.len()].to_owned(),
                Verdict::Deny("url.ambiguous"),
            ),
            (Some(Twist::HexLooking(k)), _) => {
                let (host, v) = &HEX_LOOKING[usize::from(k) % HEX_LOOKING.len()];
                ((*host).to_owned(), v.clone())
            }
            (Some(Twist::Zone(z)), HostModel::V6 { .. }) => {
                let zone = ["eth0", "1", "lo", "%65th0"][usize::from(z % 4)];
                let inner = host.trim_end_matches(']');
                (format!("{inner}%25{zone}]"), Verdict::Deny("url.malformed"))
            }
            _ => (host, host_verdict),
        };
        let port = self.port.map(|p| format!(":{p}")).unwrap_or_default();
        let mut path = PATHS[usize::from(self.path) % PATHS.len()];
        let mut slashes = "://";
        match self.twist {
            Some(Twist::Slashes(n)) => slashes = [":", ":/", ":///", ":////"][usize::from(n % 4)],
            Some(Twist::AtAfter { hash, word }) => {
                path = match (hash, word) {
                    (false, false) => "?@127.0.0.1/",
                    (false, true) => "?next=x@169.254.169.254/latest",
                    (true, false) => "#@localhost",
                    (true, true) => "#a@b/c",
                };
            }
            _ => {}
        }
        let mut text = format!("{scheme}{slashes}{userinfo}{host}{port}{path}");
        if let Some(Twist::Length(k)) = self.twist {
            let want = crate::net::MAX_URL_BYTES - 1 + usize::from(k % 3);
            if !text.contains('#') {
                text.push('#');
            }
            let pad = want.saturating_sub(text.len());
            text.push_str(&"a".repeat(pad));
        }
        // The policy's order: the text (step 1), the parse (2), the scheme
        // and how it is written (3), userinfo, then the host (4-6).
        let verdict = match self.twist {
            Some(Twist::Insert { what, at }) => {
                let c = AMBIGUOUS_CHARS[usize::from(what) % AMBIGUOUS_CHARS.len()];
                let at = usize::from(at) % (text.chars().count() + 1);
                let byte = text.char_indices().nth(at).map_or(text.len(), |(i, _)| i);
                text.insert(byte, c);
                Verdict::Deny("url.ambiguous")
            }
            Some(Twist::Length(_)) if text.len() > crate::net::MAX_URL_BYTES => {
                Verdict::Deny("url.too_long")
            }
            Some(Twist::Zone(_)) if matches!(self.host, HostModel::V6 { .. }) => host_verdict,
            _ if !http => Verdict::Deny("url.scheme"),
            Some(Twist::Slashes(_) | Twist::AtAfter { .. }) => Verdict::Deny("url.ambiguous"),
            _ if has_userinfo => Verdict::Deny("url.userinfo"),
            _ => host_verdict,
        };
        (text, verdict)
    }
}

/// `host` (a name) with one empty label: a doubled dot inside, or an
/// extra dot in front or at the end.
fn empty_label(host: &str, k: u8) -> String {
    match k % 3 {
        0 => match host.split_once('.') {
            Some((a, b)) => format!("{a}..{b}"),
            None => format!("{host}.."),
        },
        1 => format!(".{host}"),
        _ if host.ends_with('.') => format!("{host}."),
        _ => format!("{host}.."),
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
    check_host(model);
}

fn verdict_of(r: Result<net::Destination, net::Denial>) -> Verdict {
    match r {
        Ok(dest) => match dest.target() {
            Target::Ip(a) => Verdict::Allow(a),
            Target::Domain(_) => Verdict::NeedsDns,
        },
        Err(d) => Verdict::Deny(d.code()),
    }
}

/// `classify_host` on the model's host (and port), as its [`HostCall`] says.
fn check_host(model: &UrlModel) {
    // The same host in `http://HOST/`: the twists of the host kept, the
    // others (of the text, the scheme, the path) left out.
    let twist = match model.twist {
        t @ Some(
            Twist::EmptyLabel(_) | Twist::Zone(_) | Twist::EmptyName(_) | Twist::HexLooking(_),
        ) => t,
        _ => None,
    };
    let plain = UrlModel {
        scheme: Scheme::Http,
        odd: 2,
        path: 1,
        twist,
        ..model.clone()
    };
    let (url, verdict) = plain.render();
    let host = url
        .strip_prefix("http://")
        .and_then(|h| h.strip_suffix('/'))
        .expect("model bug: http://HOST/");
    let v6 = matches!(model.host, HostModel::V6 { .. })
        && !matches!(twist, Some(Twist::EmptyName(_) | Twist::HexLooking(_)));
    let zoned = v6 && matches!(twist, Some(Twist::Zone(_)));
    let (text, expected) = match model.host_call {
        HostCall::Bare if v6 && model.port.is_none() => {
            let bare = host.trim_start_matches('[').trim_end_matches(']');
            (bare.to_owned(), verdict)
        }
        HostCall::Suffix(k) => {
            let suffix = ["/", "/a", "?", "?q=1", "#", "#f"][usize::from(k) % 6];
            (format!("{host}{suffix}"), Verdict::Deny("url.malformed"))
        }
        HostCall::RawZone if v6 && !zoned => {
            let (addr, port) = host.split_once(']').expect("model bug: [v6]");
            (
                format!("{addr}%eth0]{port}"),
                Verdict::Deny("url.malformed"),
            )
        }
        _ => (host.to_owned(), verdict),
    };
    let got = verdict_of(net::classify_host(&text));
    assert_eq!(got, expected, "classify_host({text:?}) from {model:?}");
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hosts() -> Vec<HostModel> {
        let mut hosts = vec![
            HostModel::V4 {
                addr: V4Pick::Table(0),
                notation: V4Notation::Dotted,
            },
            HostModel::V4 {
                addr: V4Pick::Table(22),
                notation: V4Notation::Dotted,
            },
            HostModel::V6 {
                addr: V6Pick::Table(14),
                spelling: V6Spelling::Display,
            },
        ];
        for prefix in 0..ISATAP_PREFIXES.len() as u8 {
            for (v4, variant) in [(22, 0), (0, 2), (23, 1), (8, 3)] {
                hosts.push(HostModel::V6 {
                    addr: V6Pick::Embedded {
                        form: Form::Isatap { prefix, variant },
                        v4: V4Pick::Table(v4),
                    },
                    spelling: V6Spelling::DottedTail,
                });
            }
        }
        for kind in [NameKind::Public, NameKind::Localhost, NameKind::SingleLabel] {
            hosts.push(HostModel::Name(NameModel {
                kind,
                label: 0,
                suffix: 0,
                spelling: LabelSpelling::FullWidth,
                upper_suffix: false,
                trailing_dot: false,
            }));
        }
        hosts
    }

    fn twists() -> Vec<Option<Twist>> {
        let mut twists = vec![None];
        for what in 0..AMBIGUOUS_CHARS.len() as u8 {
            for at in [0, 7, 1000] {
                twists.push(Some(Twist::Insert { what, at }));
            }
        }
        for k in 0..4 {
            twists.push(Some(Twist::Slashes(k)));
            twists.push(Some(Twist::EmptyLabel(k)));
            twists.push(Some(Twist::Zone(k)));
            twists.push(Some(Twist::Length(k)));
        }
        for (hash, word) in [(false, false), (false, true), (true, false), (true, true)] {
            twists.push(Some(Twist::AtAfter { hash, word }));
        }
        for k in 0..EMPTY_NAMES.len() as u8 {
            twists.push(Some(Twist::EmptyName(k)));
        }
        for k in 0..HEX_LOOKING.len() as u8 {
            twists.push(Some(Twist::HexLooking(k)));
        }
        twists
    }

    fn host_calls() -> Vec<HostCall> {
        let mut calls = vec![HostCall::AsWritten, HostCall::Bare, HostCall::RawZone];
        for k in 0..6 {
            calls.push(HostCall::Suffix(k));
        }
        calls
    }

    /// Every twist on every kind of host, with and without another scheme
    /// and userinfo: `classify_url` gives the model's exact verdict.
    #[test]
    fn every_twist_has_its_exact_verdict() {
        for host in hosts() {
            for twist in twists() {
                for odd in [0, 1, 2] {
                    for (i, host_call) in host_calls().into_iter().enumerate() {
                        check_model(&UrlModel {
                            scheme: Scheme::Https,
                            odd,
                            other_scheme: 3,
                            userinfo: Userinfo::User,
                            host: host.clone(),
                            // Without a port too: a bare IPv6 host has none.
                            port: (i % 2 == 0).then_some(8443),
                            path: 2,
                            twist,
                            host_call,
                        });
                    }
                }
            }
        }
    }

    /// The model's own arithmetic: an ISATAP host renders as RFC 5214 writes it.
    #[test]
    fn isatap_renders_its_interface_identifier() {
        let model = UrlModel {
            scheme: Scheme::Http,
            odd: 2,
            other_scheme: 0,
            userinfo: Userinfo::Empty,
            host: HostModel::V6 {
                addr: V6Pick::Embedded {
                    form: Form::Isatap {
                        prefix: 3,
                        variant: 0,
                    },
                    v4: V4Pick::Table(22),
                },
                spelling: V6Spelling::DottedTail,
            },
            port: None,
            path: 0,
            twist: None,
            host_call: HostCall::AsWritten,
        };
        let (text, verdict) = model.render();
        assert_eq!(text, "http://[fe80:0:0:0:0:5efe:8.8.8.8]");
        assert_eq!(verdict, Verdict::Deny("ssrf.link_local"));
    }
}
