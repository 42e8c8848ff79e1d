//! `classify_url`, `classify_host` and `vet_resolved`: from untrusted URL
//! text to a [`Destination`] or a [`Denial`].

use super::code::{Denial, DenialCode, Detail};
use super::ip::classify_ip;
use super::names::refused_name;
use std::net::{IpAddr, Ipv6Addr};
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
    // Fast path: eight bytes at a time (SWAR, safe code); only from the first
    // word holding a byte outside printable ASCII does the character-level
    // look below run.
    let Some(from) = first_suspicious_word(input.as_bytes()) else {
        return Ok(());
    };
    // `from` is a byte offset that may fall inside a character: step back to
    // its start (at most three bytes).
    let mut at = (0..=from)
        .rev()
        .find(|&i| input.is_char_boundary(i))
        .unwrap_or(0);
    let bytes = input.as_bytes();
    // Printable ASCII is judged per byte; only other characters are decoded.
    while let Some(&b) = bytes.get(at) {
        if b > b' ' && b < 0x7f && b != b'\\' {
            at += 1;
            continue;
        }
        let Some(c) = input.get(at..).and_then(|t| t.chars().next()) else {
            break;
        };
        let what = if c == '\\' {
            "a backslash"
        } else if c.is_control() {
            "a control character"
        } else if c.is_whitespace() {
            "whitespace"
        } else if is_invisible(c) {
            "an invisible format character"
        } else {
            at += c.len_utf8();
            continue;
        };
        return Err(Denial::of(
            DenialCode::Ambiguous,
            format!(
                "{what} (U+{:04X}) at byte {at}: URL parsers strip or rewrite it differently",
                c as u32
            ),
        ));
    }
    Ok(())
}

/// `0x0101…01`: one in every byte of a word.
const ONES: u64 = u64::from_ne_bytes([1; 8]);
/// `0x80` in every byte of `x` that is zero, `0` elsewhere (exact per byte:
/// no borrow crosses bytes).
#[inline(always)]
const fn zero_bytes(x: u64) -> u64 {
    const LOW7: u64 = u64::from_ne_bytes([0x7f; 8]);
    !(((x & LOW7).wrapping_add(LOW7)) | x | LOW7)
}

/// `true` for a byte outside printable ASCII (`<= 0x20`, `>= 0x7f`) or a
/// backslash. Branch-free, so a fixed-size loop of it vectorises.
#[inline(always)]
const fn byte_suspicious(b: u8) -> bool {
    (b.wrapping_sub(0x21) >= 0x5e) | (b == b'\\')
}

/// One pass over `bytes`, sixteen at a time (a fixed-size block the
/// compiler turns into vector compares, in safe code): the offset of the
/// first block holding a byte outside printable ASCII or a backslash, if
/// any. The last block overlaps the one before it, so no byte-by-byte tail
/// is needed.
#[inline]
fn first_suspicious_word(bytes: &[u8]) -> Option<usize> {
    const BLOCK: usize = 16;
    /// The block of `bytes` at `at` holds a suspicious byte.
    #[inline(always)]
    fn block_bad(bytes: &[u8], at: usize) -> bool {
        let mut acc = 0u8;
        let block = bytes
            .get(at..at + BLOCK)
            .and_then(|b| <&[u8; BLOCK]>::try_from(b).ok());
        if let Some(block) = block {
            for &b in block {
                acc |= u8::from(byte_suspicious(b));
            }
        }
        acc != 0
    }
    let n = bytes.len();
    if n < BLOCK {
        return bytes.iter().any(|&b| byte_suspicious(b)).then_some(0);
    }
    let mut at = 0;
    while at + BLOCK <= n {
        if block_bad(bytes, at) {
            return Some(at);
        }
        at += BLOCK;
    }
    block_bad(bytes, n - BLOCK).then_some(n - BLOCK)
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
/// 7. Domain names: `localhost` and its aliases, cloud metadata names,
///    special-use names, single-label names and private-by-convention
///    suffixes are denied by name; any other name yields a
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
    let scheme_len = url.scheme().len();
    if !matches!(url.scheme(), "http" | "https") {
        return Err(Denial::lazy(DenialCode::Scheme, Detail::Scheme(url)));
    }
    // The parser's canonical host text (`a.b.c.d`, `[v6]`, the domain).
    let canonical = url.host_str().unwrap_or_default();
    // Raw host text equal to the canonical one was read as written; most
    // URLs are written that way, which one comparison shows.
    let (raw_host, verbatim) = match verbatim_host(input, &url, canonical, scheme_len) {
        Some(host) => (host, true),
        None => {
            let authority = RawAuthority::read(input, scheme_len)?;
            // Without an `@` in the authority (which ends at `/`, `?`, `#` or
            // the end, backslashes being refused above) WHATWG reads no
            // credentials: `url.username()` and `url.password()` are then
            // empty (a fuzzed invariant).
            if authority.at_sign {
                return Err(Denial::fixed(
                    DenialCode::Userinfo,
                    "the URL carries userinfo (`user@` or `user:pass@`): refused, it hides the real host",
                ));
            }
            (authority.host, authority.host == canonical)
        }
    };
    let target = match url.host() {
        None => {
            return Err(Denial::fixed(DenialCode::Malformed, "the URL has no host"));
        }
        Some(Host::Ipv4(a)) => {
            // The serialisation is canonical dotted-decimal: any other raw
            // text (hex, octal, leading zeros, short forms, trailing dot,
            // encoded digits) is another notation of `a`.
            if !verbatim {
                return Err(Denial::lazy(
                    DenialCode::Ambiguous,
                    Detail::NonCanonicalV4(a),
                ));
            }
            IpAddr::V4(a)
        }
        Some(Host::Ipv6(a)) => {
            if !verbatim {
                check_ipv6_text(raw_host, a)?;
            }
            IpAddr::V6(a)
        }
        Some(Host::Domain(d)) => {
            if !verbatim {
                check_domain_text(raw_host, d)?;
            }
            check_domain_labels(d)?;
            if let Some(code) = refused_name(d) {
                return Err(Denial::lazy(code, Detail::Name(code, url)));
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

/// Bracketed IPv6 text that is not the canonical serialisation (upper case,
/// leading zeros, uncompressed, a dotted IPv4 tail) must read the same in
/// every RFC 4291 parser. Hex-and-colon text does (the `url` crate parsed
/// exactly this text: it takes the bracketed host verbatim); a dotted tail
/// must be canonical dotted-decimal for the same last 32 bits, and the text
/// before it plain hex and colons.
#[inline(never)] // off the common path: keeps the hot code small
fn check_ipv6_text(raw_host: &str, a: Ipv6Addr) -> Result<(), Denial> {
    let inner = raw_host
        .strip_prefix('[')
        .and_then(|h| h.strip_suffix(']'))
        .unwrap_or(raw_host);
    let bytes = inner.as_bytes();
    let plain = |t: &[u8]| t.iter().all(|b| b.is_ascii_hexdigit() || *b == b':');
    // Short byte loops: a library search costs more than these hosts are long.
    let last_colon = bytes.iter().rposition(|&b| b == b':').unwrap_or(0);
    let (head, tail) = bytes.split_at(last_colon);
    let tail = tail.get(1..).unwrap_or_default();
    let ok = if tail.contains(&b'.') {
        plain(head)
            && std::str::from_utf8(tail)
                .ok()
                .and_then(|t| t.parse::<std::net::Ipv4Addr>().ok())
                == Some(low32(a))
    } else {
        plain(bytes)
    };
    if !ok {
        return Err(Denial::of(
            DenialCode::Ambiguous,
            format!("IPv6 host `{raw_host}` does not read as {a} with a strict parser"),
        ));
    }
    Ok(())
}

/// The last 32 bits of an IPv6 address, as IPv4.
fn low32(a: Ipv6Addr) -> std::net::Ipv4Addr {
    std::net::Ipv4Addr::from_bits(a.to_bits() as u32)
}

/// Classifies a bare host (`example.com`, `10.0.0.1`, `0x7f.1`, `[::1]`, a
/// bare IPv6 address `::1`, optionally with `:port`) as [`classify_url`]
/// would inside `http://HOST/`.
///
/// # Errors
/// As [`classify_url`]; a host containing `/`, `?` or `#`, or an IPv6
/// address with a zone identifier (`fe80::1%eth0`), is `url.malformed`.
pub fn classify_host(host: &str) -> Result<Destination, Denial> {
    refuse_ambiguous_text(host)?;
    if let Some(c) = host.chars().find(|c| matches!(c, '/' | '?' | '#')) {
        return Err(Denial::of(
            DenialCode::Malformed,
            format!("`{c}` cannot appear in a host"),
        ));
    }
    let inner = host
        .strip_prefix('[')
        .and_then(|h| h.strip_suffix(']'))
        .unwrap_or(host);
    if let Some((addr, _zone)) = inner.split_once('%') {
        if let Ok(a) = addr.parse::<Ipv6Addr>() {
            return Err(Denial::of(
                DenialCode::Malformed,
                format!(
                    "`{host}` carries an IPv6 zone identifier (RFC 4007 §11): it names a local \
                     interface and a URL cannot carry it (WHATWG URL Standard); the address: {}",
                    classify_ip(IpAddr::V6(a)).display(IpAddr::V6(a))
                ),
            ));
        }
    }
    // A bare IPv6 address is written bracketed inside a URL.
    if !host.starts_with('[') && host.parse::<Ipv6Addr>().is_ok() {
        return classify_url(&format!("http://[{host}]/"));
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
            return Err(Denial::of(
                d.kind(),
                format!(
                    "resolved address {}; one refused address refuses the whole answer (DNS rebinding)",
                    d.reason()
                ),
            ));
        }
    }
    Ok(())
}

/// Byte classes of [`AUTHORITY_CLASS`].
const END: u8 = 1;
const AT: u8 = 2;

/// `END` for the bytes that end an authority (`/`, `?`, `#`; backslashes
/// are refused before parsing), `AT` for `@`, 0 for the rest.
#[allow(clippy::indexing_slicing)] // constant indices, evaluated at compile time
static AUTHORITY_CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    t[b'/' as usize] = END;
    t[b'?' as usize] = END;
    t[b'#' as usize] = END;
    t[b'@' as usize] = AT;
    t
};

/// What one pass over the raw authority of an http(s) URL found.
struct RawAuthority<'a> {
    /// The host as written: `[v6]` kept bracketed, `:port` dropped.
    host: &'a str,
    /// An `@` anywhere in the authority (userinfo).
    at_sign: bool,
}

impl<'a> RawAuthority<'a> {
    /// Reads the authority of `input` (an http(s) URL the WHATWG parser
    /// accepted, scheme `scheme_len` bytes long), requiring the `scheme://`
    /// form. One pass: the authority ends at the first `/`, `?` or `#`.
    fn read(input: &'a str, scheme_len: usize) -> Result<Self, Denial> {
        let rest = input
            .get(scheme_len..)
            .and_then(|r| r.strip_prefix("://"))
            .ok_or_else(|| {
                Denial::fixed(
                    DenialCode::Ambiguous,
                    "an http(s) URL must be written `scheme://host`: other slash counts are read differently by other parsers",
                )
            })?;
        let bytes = rest.as_bytes();
        if bytes.first() == Some(&b'/') {
            return Err(Denial::fixed(
                DenialCode::Ambiguous,
                "more than two slashes after the scheme are read differently by other parsers",
            ));
        }
        // One pass with a byte-class table: one predictable branch per byte.
        let mut at_sign = false;
        let mut end = bytes.len();
        for (i, &b) in bytes.iter().enumerate() {
            let class = AUTHORITY_CLASS.get(usize::from(b)).copied().unwrap_or(0);
            at_sign |= class == AT;
            if class == END {
                end = i;
                break;
            }
        }
        let authority = bytes.get(..end).unwrap_or_default();
        // `[v6]` stays bracketed; otherwise the host ends at the port's `:`.
        let host_end = if authority.first() == Some(&b'[') {
            authority.iter().position(|&b| b == b']').map(|i| i + 1)
        } else {
            authority.iter().position(|&b| b == b':')
        };
        // `http://evil.com?@127.0.0.1/` and `http://evil.com#@127.0.0.1`: a
        // parser that does not end the authority at `?` or `#` sees the host
        // after `@`.
        if let Some(tail) = bytes.get(end..) {
            if tail.first().is_some_and(|b| *b != b'/')
                && tail.iter().take_while(|b| **b != b'/').any(|b| *b == b'@')
            {
                return Err(Denial::fixed(
                    DenialCode::Ambiguous,
                    "`@` after `?` or `#` right behind the host: parsers that do not end the authority there read another host",
                ));
            }
        }
        let host = rest.get(..host_end.unwrap_or(end)).unwrap_or("");
        Ok(RawAuthority { host, at_sign })
    }
}

/// Refuses a domain host written other than as the parser's canonical
/// text, except for ASCII case.
fn check_domain_text(raw: &str, canonical: &str) -> Result<(), Denial> {
    if raw.bytes().any(|b| b == b'%') {
        return Err(Denial::of(
            DenialCode::Ambiguous,
            format!("host `{raw}` is percent-encoded (decodes to `{canonical}`)"),
        ));
    }
    if raw.is_ascii() && !raw.eq_ignore_ascii_case(canonical) {
        return Err(Denial::of(
            DenialCode::Ambiguous,
            format!("host `{raw}` was rewritten to `{canonical}` by the parser"),
        ));
    }
    Ok(())
}

/// Refuses a canonical domain with an empty label, or made only of numbers.
fn check_domain_labels(canonical: &str) -> Result<(), Denial> {
    let trimmed = canonical.strip_suffix('.').unwrap_or(canonical);
    let b = trimmed.as_bytes();
    let (Some(&first), Some(&last)) = (b.first(), b.last()) else {
        return Err(empty_label(canonical));
    };
    if first == b'.' || last == b'.' || has_double_dot(b) {
        return Err(empty_label(canonical));
    }
    // WHATWG reads a host whose last label is a number as IPv4, so a domain
    // host never gets here with one; kept as a guard for the parser. Only a
    // last label ending in a hex digit or `x` (`0x`) can be numeric.
    if last.is_ascii_hexdigit() || last.eq_ignore_ascii_case(&b'x') {
        let last_label = b
            .iter()
            .rposition(|&c| c == b'.')
            .and_then(|i| b.get(i + 1..))
            .unwrap_or(b);
        if is_numeric_label(last_label) && b.split(|c| *c == b'.').all(is_numeric_label) {
            return Err(Denial::of(
                DenialCode::Ambiguous,
                format!(
                    "host `{canonical}` is made of numbers only: some resolvers read it as an IPv4 address"
                ),
            ));
        }
    }
    Ok(())
}

#[cold]
fn empty_label(canonical: &str) -> Denial {
    Denial::of(
        DenialCode::Ambiguous,
        format!("host `{canonical}` has an empty label"),
    )
}

/// `..` anywhere in `b`: words taken every seven bytes overlap by one, so
/// every pair of neighbours lies inside some word.
fn has_double_dot(b: &[u8]) -> bool {
    let n = b.len();
    if n < 8 {
        return b.windows(2).any(|w| w == b"..");
    }
    let pair = |at: usize| {
        let mut a = [0u8; 8];
        if let Some(w) = b.get(at..at + 8) {
            a.copy_from_slice(w);
        }
        let dots = zero_bytes(u64::from_le_bytes(a) ^ ONES.wrapping_mul(u64::from(b'.')));
        dots & (dots >> 8) != 0
    };
    let mut at = 0;
    let mut found = false;
    while at + 8 <= n {
        found |= pair(at);
        at += 7;
    }
    found | pair(n - 8)
}

/// The `url` host text when the input wrote `scheme://HOST` exactly as the
/// parser serialised it (lower-case scheme, canonical host, no userinfo),
/// followed by `:digits` at most, then `/` or the end. Then the raw host is the canonical
/// one and the authority holds no `@` (an `@` would have made the parser
/// read userinfo, or another host). `None` sends the caller to the full
/// check of the raw authority (also for `?`/`#` right after the host).
fn verbatim_host<'a>(input: &'a str, url: &Url, host: &str, scheme_len: usize) -> Option<&'a str> {
    let ser = url.as_str();
    // `host` is a slice of the serialisation: its offset there.
    let host_start = (host.as_ptr() as usize).wrapping_sub(ser.as_ptr() as usize);
    if host_start != scheme_len + 3 || host.is_empty() {
        return None;
    }
    let host_end = host_start + host.len();
    if input.as_bytes().get(..host_end) != ser.as_bytes().get(..host_end) {
        return None;
    }
    // Then `:digits` at most, then `/` or the end.
    let after = input.as_bytes().get(host_end..).unwrap_or_default();
    let after = match after.split_first() {
        Some((b':', port)) => {
            let digits = port.iter().take_while(|b| b.is_ascii_digit()).count();
            port.get(digits..).unwrap_or_default()
        }
        _ => after,
    };
    match after.first() {
        None | Some(b'/') => input.get(host_start..host_end),
        _ => None,
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The verbatim fast path never sees a host, or misses an `@`, that the
    /// full raw-authority reading would see differently.
    fn fast_path_agrees(input: &str) -> Result<(), TestCaseError> {
        let Ok(url) = Url::parse(input) else {
            return Ok(());
        };
        let scheme_len = url.scheme().len();
        let host = url.host_str().unwrap_or_default();
        if let Some(fast) = verbatim_host(input, &url, host, scheme_len) {
            let full = RawAuthority::read(input, scheme_len);
            prop_assert!(full.is_ok(), "{:?}: fast path took an ambiguous URL", input);
            let full = full.unwrap();
            prop_assert_eq!(fast, full.host, "{:?}", input);
            prop_assert!(!full.at_sign, "{:?}: fast path missed an @", input);
            prop_assert_eq!(fast, host);
        }
        Ok(())
    }

    proptest! {
        #[test]
        fn verbatim_host_agrees_with_the_raw_authority(
            s in "(https?|HTTP)://[a-z0-9.:@\\[\\]%?#/-]{0,30}(:[0-9]{0,5})?[/?#@a-z]{0,6}"
        ) {
            fast_path_agrees(&s)?;
        }
    }

    proptest! {
        #[test]
        fn double_dot_scan_agrees_with_windows(s in "[a.]{0,40}") {
            let b = s.as_bytes();
            prop_assert_eq!(has_double_dot(b), b.windows(2).any(|w| w == b".."));
        }
    }

    #[test]
    fn verbatim_host_agrees_on_tricky_inputs() {
        for s in [
            "http://a@b/",
            "http://@b/",
            "http://b:@b/",
            "http://b:80@b/",
            "http://example.com:80?x@10.0.0.1",
            "http://example.com#@1.2.3.4",
            "http://[::1]:80/",
            "http://[::1]@x/",
            "https://example.com:/",
        ] {
            fast_path_agrees(s).unwrap();
        }
    }

    #[test]
    fn the_vector_scan_finds_every_suspicious_byte() {
        // Every position, every length: the block scan and a plain byte
        // scan agree on whether something is there.
        for len in 0..48 {
            for at in 0..len {
                for bad in [b' ', b'\t', 0x7f, b'\\', 0xc3, 0x00] {
                    let mut v = vec![b'a'; len];
                    v[at] = bad;
                    let found = first_suspicious_word(&v);
                    assert!(
                        found.is_some_and(|f| f <= at && at < f + 16),
                        "{len} {at} {bad}"
                    );
                }
                let clean = vec![b'~'; len];
                assert_eq!(first_suspicious_word(&clean), None);
            }
        }
    }
}
