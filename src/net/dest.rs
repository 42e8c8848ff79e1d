//! `classify_url`, `classify_host` and `vet_resolved`: from untrusted URL
//! text to a [`Destination`] or a [`Denial`].

use super::code::{Denial, DenialCode, Detail};
use super::ip::classify_ip;
use super::names::refused_name;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use url::{Host, Url};

/// Longest URL accepted, in bytes (UTF-8). Longer input is refused
/// (`url.too_long`) before any parsing.
pub const MAX_URL_BYTES: usize = 8192;

/// The host a vetted URL names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target<'a> {
    /// An IP literal already classified as global: connect to it directly.
    Ip(IpAddr),
    /// A domain name (canonical: lower-case ASCII, IDNA-encoded) that needs a
    /// DNS lookup, whose answer must then pass [`vet_resolved`].
    Domain(&'a str),
}

/// A URL that passed [`classify_url`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Destination {
    url: Url,
    /// `Some` for an IP literal host; `None` for a domain (read from `url`).
    ip: Option<IpAddr>,
}

impl Destination {
    /// The parsed URL (WHATWG-serialised). Use this, not the original text,
    /// for the request: it is what was vetted.
    pub fn url(&self) -> &Url {
        &self.url
    }

    /// The vetted host.
    pub fn target(&self) -> Target<'_> {
        match self.ip {
            Some(a) => Target::Ip(a),
            None => Target::Domain(self.url.host_str().unwrap_or_default()),
        }
    }

    /// The IP literal, when the host is one (always global here).
    pub fn ip(&self) -> Option<IpAddr> {
        self.ip
    }

    /// The domain name, when the host is one.
    pub fn domain(&self) -> Option<&str> {
        match self.target() {
            Target::Ip(_) => None,
            Target::Domain(d) => Some(d),
        }
    }

    /// `true` when the host is a domain name: resolve it once, pass every
    /// address to [`vet_resolved`], then connect to a vetted address.
    pub fn needs_dns(&self) -> bool {
        self.ip.is_none()
    }

    /// The port to connect to (explicit, or the scheme's default: 80, 443).
    pub fn port(&self) -> u16 {
        self.url.port_or_known_default().unwrap_or(80)
    }
}

/// Refuses text that different URL parsers read differently, before any
/// parsing: over [`MAX_URL_BYTES`]; ASCII or Unicode control characters,
/// any whitespace (tab, CR, LF, space, NBSP, ...), invisible format
/// characters (soft hyphen, zero-width, bidi controls, BOM), and backslashes.
///
/// # Errors
/// `url.too_long`, or `url.ambiguous` naming the byte offset of the first
/// offending character.
pub fn refuse_ambiguous_text(input: &str) -> Result<(), Denial> {
    if input.len() > MAX_URL_BYTES {
        return Err(Denial::of(
            DenialCode::TooLong,
            format!(
                "input is {} bytes, over the {MAX_URL_BYTES}-byte bound",
                input.len()
            ),
        ));
    }
    // Fast path: a branch-free pass (vectorises) over plain printable ASCII;
    // only text with a byte outside it gets the character-level look below.
    let suspicious = input.bytes().fold(false, |acc, b| {
        acc | (b <= b' ') | (b >= 0x7f) | (b == b'\\')
    });
    if !suspicious {
        return Ok(());
    }
    for (offset, c) in input.char_indices() {
        let what = if c == '\\' {
            "a backslash"
        } else if c.is_control() {
            "a control character"
        } else if c.is_whitespace() {
            "whitespace"
        } else if is_invisible(c) {
            "an invisible format character"
        } else {
            continue;
        };
        return Err(Denial::of(
            DenialCode::Ambiguous,
            format!(
                "{what} (U+{:04X}) at byte {offset}: URL parsers strip or rewrite it differently",
                c as u32
            ),
        ));
    }
    Ok(())
}

/// Default-ignorable and bidi format characters that IDNA or browsers drop.
fn is_invisible(c: char) -> bool {
    matches!(c,
        '\u{00AD}' | '\u{034F}' | '\u{061C}' | '\u{115F}' | '\u{1160}' | '\u{17B4}' | '\u{17B5}'
        | '\u{180B}'..='\u{180F}' | '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}'
        | '\u{2060}'..='\u{206F}' | '\u{3164}' | '\u{FE00}'..='\u{FE0F}' | '\u{FEFF}'
        | '\u{FFA0}' | '\u{FFF0}'..='\u{FFFB}' | '\u{E0000}'..='\u{E0FFF}'
        | '\u{1BCA0}'..='\u{1BCA3}' | '\u{1D173}'..='\u{1D17A}')
}

/// Classifies an untrusted URL as an SSRF destination.
///
/// Policy, in order (the first failing step names the denial):
/// 1. [`refuse_ambiguous_text`]: length bound, controls, whitespace, backslashes.
/// 2. One parse with the WHATWG parser (`url` crate); failure is `url.malformed`,
///    never a DNS lookup.
/// 3. Scheme `http` or `https` only (`url.scheme`), written with `//`
///    (`http:x` and `http:/x` are `url.ambiguous`).
/// 4. No userinfo at all, not even an empty `@` (`url.userinfo`).
/// 5. The host text must be what the parser understood: an IPv4 host written
///    any way but canonical dotted-decimal (hex, octal, leading zeros, short
///    or single-number forms, trailing dot, percent-encoded or full-width
///    digits) is `url.ambiguous`, even when public; so is a percent-encoded
///    domain, a domain with an empty label, or one made only of numbers.
/// 6. IP hosts go through [`classify_ip`](super::classify_ip); every refused
///    block is denied with its code.
/// 7. Domain names: `localhost` and its aliases, cloud metadata names and
///    special-use names are denied by name; any other name yields a
///    [`Destination`] that [`needs_dns`](Destination::needs_dns): never
///    "allowed" before its addresses pass [`vet_resolved`].
///
/// Sources: WHATWG URL Standard; RFC 6890 registries; RFC 6761.
///
/// # Errors
/// A [`Denial`] with one of the codes of [`DenialCode`] (`url.*` or `ssrf.*`).
pub fn classify_url(input: &str) -> Result<Destination, Denial> {
    refuse_ambiguous_text(input)?;
    let url =
        Url::parse(input).map_err(|e| Denial::lazy(DenialCode::Malformed, Detail::Parse(e)))?;
    let scheme = url.scheme();
    if scheme != "http" && scheme != "https" {
        return Err(Denial::lazy(
            DenialCode::Scheme,
            Detail::Scheme(scheme.into()),
        ));
    }
    let authority = raw_authority(input, scheme.len())?;
    if authority.bytes().any(|b| b == b'@')
        || !url.username().is_empty()
        || url.password().is_some()
    {
        return Err(Denial::fixed(
            DenialCode::Userinfo,
            "the URL carries userinfo (`user@` or `user:pass@`): refused, it hides the real host",
        ));
    }
    let raw_host = raw_host(authority);
    let target = match url.host() {
        None => {
            return Err(Denial::fixed(DenialCode::Malformed, "the URL has no host"));
        }
        Some(Host::Ipv4(a)) => {
            // std's parser takes canonical dotted-decimal only (four decimal
            // parts, no leading zeros, no trailing dot).
            if raw_host.parse::<Ipv4Addr>() != Ok(a) {
                return Err(Denial::lazy(
                    DenialCode::Ambiguous,
                    Detail::NonCanonicalV4(raw_host.into(), a),
                ));
            }
            IpAddr::V4(a)
        }
        Some(Host::Ipv6(a)) => {
            let inner = raw_host
                .strip_prefix('[')
                .and_then(|h| h.strip_suffix(']'))
                .unwrap_or(raw_host);
            // The `url` crate parsed exactly this text (it takes the bracketed
            // host verbatim). Plain hex-and-colon text reads the same in every
            // RFC 4291 parser; anything else (a dotted IPv4 tail, ...) is
            // checked again with std's strict parser.
            let plain = inner.bytes().all(|b| b.is_ascii_hexdigit() || b == b':');
            if !plain && inner.parse::<Ipv6Addr>() != Ok(a) {
                return Err(Denial::of(
                    DenialCode::Ambiguous,
                    format!("IPv6 host `{raw_host}` does not read as {a} with a strict parser"),
                ));
            }
            IpAddr::V6(a)
        }
        Some(Host::Domain(d)) => {
            check_domain(raw_host, d)?;
            if let Some(code) = refused_name(d) {
                return Err(Denial::lazy(code, Detail::Name(code, d.into())));
            }
            return Ok(Destination { url, ip: None });
        }
    };
    let reach = classify_ip(target);
    match reach.denial(target) {
        Some(d) => Err(d),
        None => Ok(Destination {
            url,
            ip: Some(target),
        }),
    }
}

/// Classifies a bare host (`example.com`, `10.0.0.1`, `0x7f.1`, `[::1]`,
/// optionally with `:port`) as [`classify_url`] would inside `http://HOST/`.
///
/// # Errors
/// As [`classify_url`]; a host containing `/`, `?` or `#` is `url.malformed`.
pub fn classify_host(host: &str) -> Result<Destination, Denial> {
    refuse_ambiguous_text(host)?;
    if let Some(c) = host.chars().find(|c| matches!(c, '/' | '?' | '#')) {
        return Err(Denial::of(
            DenialCode::Malformed,
            format!("`{c}` cannot appear in a host"),
        ));
    }
    classify_url(&format!("http://{host}/"))
}

/// Vets every address a DNS lookup returned for a [`Destination`] that
/// [`needs_dns`](Destination::needs_dns). Refuses the whole answer if *any*
/// address is refused: a mixed answer is a DNS-rebinding attempt.
///
/// Callers must then connect to one of these vetted addresses (never resolve
/// the name again: the second answer may differ), and must run every
/// redirect target through [`classify_url`] and this function again.
///
/// # Errors
/// `dns.no_address` for an empty answer; otherwise the first refused
/// address's [`Denial`] (see [`classify_ip`](super::classify_ip)).
pub fn vet_resolved(addrs: &[IpAddr]) -> Result<(), Denial> {
    if addrs.is_empty() {
        return Err(Denial::of(
            DenialCode::NoAddress,
            "the DNS answer holds no address",
        ));
    }
    for &a in addrs {
        if let Some(d) = classify_ip(a).denial(a) {
            return Err(Denial::new(
                d.code(),
                format!(
                    "resolved address {}; one refused address refuses the whole answer (DNS rebinding)",
                    d.reason()
                ),
            ));
        }
    }
    Ok(())
}

/// The raw authority text of an http(s) URL the WHATWG parser accepted,
/// requiring the `scheme://` form.
fn raw_authority(input: &str, scheme_len: usize) -> Result<&str, Denial> {
    let rest = input
        .get(scheme_len..)
        .and_then(|r| r.strip_prefix("://"))
        .ok_or_else(|| {
            Denial::fixed(
                DenialCode::Ambiguous,
                "an http(s) URL must be written `scheme://host`: other slash counts are read differently by other parsers",
            )
        })?;
    if rest.starts_with('/') {
        return Err(Denial::fixed(
            DenialCode::Ambiguous,
            "more than two slashes after the scheme are read differently by other parsers",
        ));
    }
    let end = rest
        .bytes()
        .position(|b| matches!(b, b'/' | b'?' | b'#'))
        .unwrap_or(rest.len());
    // `http://evil.com?@127.0.0.1/` and `http://evil.com#@127.0.0.1`: a parser
    // that does not end the authority at `?` or `#` sees the host after `@`.
    let tail = rest.get(end..).unwrap_or("");
    if tail.bytes().take_while(|b| *b != b'/').any(|b| b == b'@') {
        return Err(Denial::fixed(
            DenialCode::Ambiguous,
            "`@` after `?` or `#` right behind the host: parsers that do not end the authority there read another host",
        ));
    }
    Ok(rest.get(..end).unwrap_or(rest))
}

/// The host part of a raw authority without userinfo (callers refuse `@`
/// first): `[v6]` kept bracketed, the `:port` dropped.
fn raw_host(authority: &str) -> &str {
    let end = if authority.starts_with('[') {
        authority.bytes().position(|b| b == b']').map(|i| i + 1)
    } else {
        authority.bytes().position(|b| b == b':')
    };
    end.and_then(|i| authority.get(..i)).unwrap_or(authority)
}

/// Refuses a domain whose text is not plainly what the parser understood.
fn check_domain(raw: &str, canonical: &str) -> Result<(), Denial> {
    let ambiguous = |why: String| Err(Denial::of(DenialCode::Ambiguous, why));
    // The parser never leaves `%` in a domain, so an identical raw text
    // (the common case) needs no further look.
    if raw != canonical {
        if raw.bytes().any(|b| b == b'%') {
            return ambiguous(format!(
                "host `{raw}` is percent-encoded (decodes to `{canonical}`)"
            ));
        }
        if raw.is_ascii() && !raw.eq_ignore_ascii_case(canonical) {
            return ambiguous(format!(
                "host `{raw}` was rewritten to `{canonical}` by the parser"
            ));
        }
    }
    let trimmed = canonical.strip_suffix('.').unwrap_or(canonical);
    let mut empty_label = trimmed.is_empty();
    let mut all_numeric = true;
    // Byte-level split: hosts are short, and `str::split` costs a searcher per label.
    for label in trimmed.as_bytes().split(|b| *b == b'.') {
        empty_label |= label.is_empty();
        all_numeric = all_numeric && is_numeric_label(label);
    }
    if empty_label {
        return ambiguous(format!("host `{canonical}` has an empty label"));
    }
    if all_numeric {
        return ambiguous(format!(
            "host `{canonical}` is made of numbers only: some resolvers read it as an IPv4 address"
        ));
    }
    Ok(())
}

/// A label `inet_aton` would read as a number: decimal, octal or `0x` hex.
fn is_numeric_label(label: &[u8]) -> bool {
    match label
        .strip_prefix(b"0x")
        .or_else(|| label.strip_prefix(b"0X"))
    {
        Some(hex) => hex.iter().all(u8::is_ascii_hexdigit),
        None => !label.is_empty() && label.iter().all(u8::is_ascii_digit),
    }
}
