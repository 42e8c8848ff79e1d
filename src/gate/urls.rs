//! Which argument strings are URLs, and the gateway's verdict on them:
//! [`net::classify_url`](crate::net::classify_url) plus the operator's
//! `[net]` entries.
//!
//! URL-ness is decided on the text a lenient parser would see
//! ([`lenient_form`]): every ASCII tab, CR and LF deleted (WHATWG URL
//! parsing and Python's `urlsplit` delete them anywhere), then leading and
//! trailing C0 controls, spaces and Unicode whitespace trimmed (what
//! `strip()`/`trim()` remove before a server parses). That text is a URL when
//! it starts with a scheme of two or more characters (`ALPHA *(ALPHA /
//! DIGIT / "+" / "-" / ".")`, RFC 3986) followed by a colon and a character
//! that is not whitespace: `javascript:alert(1)`, `gopher:x`, `myapp://cb`,
//! `ht<TAB>tp://…`; so is a scheme whose URL a parser still reads with white
//! space after the colon (`data: ,x`, `javascript: x`, `file: /etc`: see
//! `spaced_url`). `"Re: minutes"` and `"TODO: fix"` (a space after the
//! colon), `"Summary:\nThe report…"` (a heading in prose: a tab or line
//! break after the colon as written, a word of no scheme in
//! [`URL_SCHEMES`], no `/` after), `"C:\dir"` (a one-letter scheme) and
//! `"12:30"` stay text. A
//! scheme-less text a server adding a scheme would fetch is a URL too
//! ([`url_form`]): `//host/…`, an IP literal followed by a path or a port,
//! a bare dotted quad, and a name only a local resolver answers
//! (`localhost/admin`, `metadata.google.internal/computeMetadata/v1/`,
//! `db.internal:5432`; `internal_name` says which forms).
//!
//! Network notation stays text: an address block in CIDR notation
//! (`10.0.0.0/8`, `fd00::/8`) and a bare IPv6 address (`fe80::1`)
//! (`is_address_notation`).
//!
//! Accepted false positives (text taken for a URL and refused with
//! `url.scheme`, whitespace after the colon or not): `key:value`,
//! `note:remember` and `Note:remember to call Bob`, `std::vec::Vec`,
//! `urn:isbn:…`, `mailto:a@b`, `host:8080`, a single host in CIDR notation
//! (`10.0.0.1/32`); with `url.ambiguous`: a three-part version whose
//! address is internal (`10.2.1` reads as 10.2.0.1). A policy exempts an
//! argument that holds such text with an `[[args]]` rule of
//! `kind = "text"`. Accepted false negatives: a bare two-part decimal
//! (`127.1`, `10.5`) and a bare single number (`2130706433`) stay text,
//! as numbers and prices are written so; with a port or a path they are
//! addresses.

use std::net::IpAddr;

use super::code::Refusal;
use super::curlglob;
use crate::net::{Admitted, Denial, DenialCode, NetPolicy};

/// Schemes some fetcher, parser or shell handler acts on: the classic SSRF
/// vectors and the schemes that run code. Every scheme but `http`/`https`
/// is refused; this list decides one thing only: a word of none of these
/// schemes whose colon a tab or line break follows is a heading in prose,
/// not a URL (`Summary:\nThe report…`; see the module docs).
pub const URL_SCHEMES: &[&str] = &[
    "http",
    "https",
    "ws",
    "wss",
    "ftp",
    "ftps",
    "sftp",
    "tftp",
    "file",
    "gopher",
    "dict",
    "ldap",
    "ldaps",
    "jar",
    "netdoc",
    "telnet",
    "ssh",
    "scp",
    "smb",
    "nfs",
    "rtsp",
    "imap",
    "pop3",
    "smtp",
    "redis",
    "mongodb",
    "jdbc",
    "phar",
    "expect",
    "glob",
    "data",
    "blob",
    "javascript",
    "vbscript",
    "view-source",
    "gophers",
    "imaps",
    "pop3s",
    "smtps",
    "smbs",
    "mqtt",
    "mqtts",
    "rtmp",
    "rtmps",
    "ldapi",
    "jrt",
    "zip",
    "php",
    "ssh2",
    "compress.zlib",
    "ms-msdt",
    "search-ms",
    "ms-officecmd",
    "mailto",
];

/// `text` as a lenient URL parser would see it: ASCII tab, CR and LF
/// deleted everywhere, C0 controls, spaces, Unicode whitespace and the BOM
/// (U+FEFF, which JavaScript's `trim()` removes) trimmed at both ends, and
/// the delimiters of a URL in text removed as Python's `urllib.request`
/// removes them (`urllib.parse.unwrap`; RFC 3986 Appendix C): `<…>` and a
/// leading `URL:` (`<URL:http://127.0.0.1/>` is `http://127.0.0.1/`).
/// Bounded by the text's length.
pub fn lenient_form(text: &str) -> std::borrow::Cow<'_, str> {
    let mut form = if text.contains(['\t', '\r', '\n']) {
        let deleted: String = text
            .chars()
            .filter(|c| !matches!(c, '\t' | '\r' | '\n'))
            .collect();
        std::borrow::Cow::Owned(deleted.trim_matches(lenient_trim).to_owned())
    } else {
        std::borrow::Cow::Borrowed(text.trim_matches(lenient_trim))
    };
    // Each step shortens the text.
    while let Some(inner) = unwrapped(&form) {
        form = std::borrow::Cow::Owned(inner.trim_matches(lenient_trim).to_owned());
    }
    form
}

/// `s` without the `<` and `>` around it, or without a leading `URL:` in
/// any case (what `urllib.parse.unwrap` removes), or without the quotes,
/// backticks or parentheses around it (what a server that strips an
/// argument's quotes removes: `'http://127.0.0.1/'`). `None` when none of
/// them is there.
fn unwrapped(s: &str) -> Option<&str> {
    [('<', '>'), ('\'', '\''), ('"', '"'), ('`', '`'), ('(', ')')]
        .iter()
        .find_map(|&(open, close)| s.strip_prefix(open)?.strip_suffix(close))
        .or_else(|| {
            s.get(..4)
                .filter(|p| p.eq_ignore_ascii_case("url:"))
                .and_then(|_| s.get(4..))
        })
}

/// The characters [`lenient_form`] trims: C0 controls, space, Unicode
/// whitespace and the BOM.
fn lenient_trim(c: char) -> bool {
    c <= ' ' || c.is_whitespace() || c == '\u{feff}'
}

/// `text` as JavaScript's `unescape` reads it, when it holds a `%uXXXX`
/// escape (a server written in JavaScript may unescape its argument so):
/// `%uXXXX` a UTF-16 code unit (a lone surrogate becomes U+FFFD), `%XX` a
/// Latin-1 character, any other `%` itself. `None` when `text` holds no
/// `%uXXXX`. Bounded by the text's length.
pub(crate) fn js_unescape(text: &str) -> Option<String> {
    let hex = |b: &[u8]| -> Option<u32> {
        let s = std::str::from_utf8(b).ok()?;
        if !s.bytes().all(|c| c.is_ascii_hexdigit()) {
            return None;
        }
        u32::from_str_radix(s, 16).ok()
    };
    let bytes = text.as_bytes();
    let mut units: Vec<u16> = Vec::with_capacity(text.len());
    let mut found = false;
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        if b == b'%' {
            if let Some(u) = bytes
                .get(i + 1)
                .filter(|c| matches!(c, b'u' | b'U'))
                .and_then(|_| bytes.get(i + 2..i + 6))
                .and_then(hex)
            {
                units.push(u16::try_from(u).unwrap_or(0xfffd));
                found = true;
                i += 6;
                continue;
            }
            if let Some(u) = bytes.get(i + 1..i + 3).and_then(hex) {
                units.push(u16::try_from(u).unwrap_or(0xfffd));
                i += 3;
                continue;
            }
        }
        // One character of the text as its UTF-16 units.
        let ch = text.get(i..).and_then(|t| t.chars().next());
        let Some(ch) = ch else { break };
        let mut buf = [0u16; 2];
        units.extend_from_slice(ch.encode_utf16(&mut buf));
        i += ch.len_utf8();
    }
    found.then(|| String::from_utf16_lossy(&units))
}

/// `true` when `text` is to be vetted as a URL (see the module docs): as
/// written, or in one of its other readings (`readings`: a curl glob's
/// expansion, HTTPie's localhost shorthand, a package's direct
/// reference), or a glob of more expansions than are read.
pub fn looks_like_url(text: &str) -> bool {
    looks_like_url_one(text) || readings(text).map_or(true, |r| r.all().any(looks_like_url_one))
}

/// The texts besides itself a tool may read a text as ([`readings`]).
struct Readings {
    /// curl's glob expansions ([`curlglob::expansions`]): `{http,x}://…`
    /// is `http://…`, `https://{tenant}.example.com` is
    /// `https://tenant.example.com`.
    glob: Vec<String>,
    /// URLs the text stands for: HTTPie's localhost shorthand
    /// ([`httpie_localhost`]) and a package's direct reference
    /// ([`direct_reference`]).
    urls: Vec<String>,
}

impl Readings {
    fn all(&self) -> impl Iterator<Item = &str> {
        self.glob.iter().chain(&self.urls).map(String::as_str)
    }
}

/// The other readings of `text` ([`lenient_form`]), each vetted as the
/// text itself would be.
///
/// # Errors
/// `url.ambiguous` for a curl glob of more than
/// [`MAX_GLOB_EXPANSIONS`](super::MAX_GLOB_EXPANSIONS) texts.
fn readings(text: &str) -> Result<Readings, Denial> {
    let s = lenient_form(text);
    let glob = match curlglob::expansions(&s) {
        curlglob::Glob::Plain => Vec::new(),
        curlglob::Glob::Texts(t) => t,
        curlglob::Glob::TooMany => {
            return Err(Denial::of(
                DenialCode::Ambiguous,
                format!(
                    "a curl glob (`{{a,b}}`, `[1-9]`) of more than {} texts, or of a head longer than a URL: a tool that shells out to curl fetches each",
                    curlglob::MAX_GLOB_EXPANSIONS
                ),
            ))
        }
    };
    let urls = httpie_localhost(&s)
        .into_iter()
        .chain(direct_reference(&s).map(str::to_owned))
        .collect();
    Ok(Readings { glob, urls })
}

/// How many texts [`vet_url`] may vet for `text` besides itself: its
/// [`readings`] (a caller's scan bound counts them).
pub(crate) fn other_readings(text: &str) -> usize {
    readings(text).map_or(0, |r| r.all().count())
}

/// HTTPie's localhost shorthand (`httpie/cli/argparser.py`: a URL
/// matching `^:(?!:)(\d*)(/?.*)$`): `:8003/x`, `:8003` and `:/admin` are
/// `http://localhost:8003/x`, `http://localhost:8003` and
/// `http://localhost/admin`. Only a port and a path, query or fragment
/// without whitespace are read so (`::1`, `:)`, `:smile:` and `: word`
/// stay text).
fn httpie_localhost(s: &str) -> Option<String> {
    let rest = s.strip_prefix(':')?;
    let digits = rest
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(rest.len());
    let (port, tail) = rest.split_at(digits);
    let shaped = tail.is_empty() || tail.starts_with(['/', '?', '#']);
    if (port.is_empty() && tail.is_empty()) || !shaped || tail.contains(char::is_whitespace) {
        return None;
    }
    let colon = if port.is_empty() { "" } else { ":" };
    Some(format!("http://localhost{colon}{port}{tail}"))
}

/// The URL of a package spec with a direct reference (PEP 508
/// `name[extra] @ URL`, npm `name@URL`, `@scope/name@URL`): the text after
/// an `@` (white space around it allowed) that starts with a scheme of
/// [`URL_SCHEMES`], or a VCS one (`git+http:`). `x@http://` is no e-mail
/// address; `git@github.com:org/x.git` and `a@b.example` name no scheme.
/// Bounded by the text's length.
fn direct_reference(s: &str) -> Option<&str> {
    s.match_indices('@').find_map(|(i, _)| {
        let url = s.get(i.saturating_add(1)..)?.trim_matches(lenient_trim);
        let scheme_len = url
            .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')))
            .unwrap_or(url.len());
        let scheme = url.get(..scheme_len)?;
        let last = scheme.rsplit('+').next()?;
        let known = URL_SCHEMES.iter().any(|k| k.eq_ignore_ascii_case(last));
        (known && url.get(scheme_len..)?.starts_with(':')).then_some(url)
    })
}

/// [`looks_like_url`] of the text as written only.
fn looks_like_url_one(text: &str) -> bool {
    let s = lenient_form(text);
    !is_address_notation(&s)
        && ((has_scheme(&s) && !heading_in_prose(text, &s)) || scheme_less_host(&s))
}

/// `true` for a word and a colon that a tab or line break follows as
/// written, where the word is no scheme of [`URL_SCHEMES`] and no `/` or
/// `\` follows: a heading in prose (`Summary:\nThe report…`,
/// `Steps:\n1. open`), which only the deletion of the line break joins into
/// `word:nonspace`. No fetcher knows such a scheme; `file:\n/etc/passwd`,
/// `javascript:\nalert(1)` and `myapp:\n//cb` stay URLs.
fn heading_in_prose(text: &str, lenient: &str) -> bool {
    let Some((scheme, rest)) = lenient.split_once(':') else {
        return false;
    };
    let fetchable = URL_SCHEMES.iter().any(|k| k.eq_ignore_ascii_case(scheme));
    !fetchable
        && !rest.starts_with(['/', '\\'])
        && text
            .split_once(':')
            .is_some_and(|(_, after)| after.starts_with(['\t', '\r', '\n']))
}

/// An address block in CIDR notation whose host bits are zero, shorter
/// than one address (`10.0.0.0/8`, `192.168.0.0/16`, `fd00::/8`), or a
/// bare IPv6 address (`fe80::1`, `::1`, zoned `fe80::1%eth0`): the notation of networks and
/// firewall rules. A server adding a scheme fetches none of them: an IPv6
/// address in a URL needs brackets, and a network address with a prefix
/// length is no host. A single host stays a URL (`10.0.0.1/8`,
/// `10.0.0.1/32`, `fd00::1/128`), and so does a non-canonical address
/// (`010.0.0.0/8`).
fn is_address_notation(s: &str) -> bool {
    if bare_ipv6(s).is_some() {
        return true;
    }
    let Some((addr, len)) = s.split_once('/') else {
        return false;
    };
    if len.is_empty() || len.len() > 3 || !len.bytes().all(|b| b.is_ascii_digit()) {
        return false;
    }
    let Ok(len) = len.parse::<u32>() else {
        return false;
    };
    match addr.parse::<IpAddr>() {
        Ok(IpAddr::V4(a)) => len < 32 && u32::from(a).checked_shl(len).unwrap_or(0) == 0,
        Ok(IpAddr::V6(a)) => len < 128 && u128::from(a).checked_shl(len).unwrap_or(0) == 0,
        Err(_) => false,
    }
}

/// `s` as a bare IPv6 address, with or without a zone (RFC 4007 §11:
/// `fe80::1%eth0`, `fe80::1%25eth0` as URLs write it; letters, digits,
/// `-`, `_` and `.`), the zone dropped.
fn bare_ipv6(s: &str) -> Option<std::net::Ipv6Addr> {
    let (addr, zone) = s.split_once('%').unwrap_or((s, "a"));
    let zone_ok = !zone.is_empty()
        && zone
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'));
    addr.parse().ok().filter(|_| zone_ok)
}

/// The text [`vet_url`] classifies: [`lenient_form`], with `http:` put
/// before a scheme-less form (`scheme_less_host`), as a server that adds
/// a scheme would.
pub fn url_form(text: &str) -> std::borrow::Cow<'_, str> {
    let s = lenient_form(text);
    if !has_scheme(&s) && scheme_less_host(&s) {
        // git's `[user@]host:path`: the host, and the path under it.
        if let Some(scp) = scp_like(&s) {
            let (host, path) = (scp.host, scp.path);
            return std::borrow::Cow::Owned(format!("http://{host}/{path}"));
        }
        let network_path =
            s.starts_with(['/', '\\']) && s.get(1..).is_some_and(|r| r.starts_with(['/', '\\']));
        let sep = if network_path { "" } else { "//" };
        return std::borrow::Cow::Owned(format!("http:{sep}{s}"));
    }
    s
}

/// A scheme-less text that names a host a server would fetch from once it
/// adds a scheme, read as WHATWG URL parsing reads it after `http://`: a
/// network-path reference (two or more slashes, `\\` either way round, as
/// in `//host/…`, `///host/…`, `\\\\host\\x` or `/\\host`), or a host (after any
/// `user@`, percent-decoded and mapped by UTS 46 as the URL parser maps
/// it, so `１６９．２５４．１６９．２５４` and `localhost%2e` are what they
/// spell) that is an IP literal (`[v6]`, or an IPv4 form as WHATWG
/// parses it, dotted or a single number such as `2852039166` or
/// `0xa9fea9fe`) followed by a port, or by a path, a query or a fragment
/// (but a version, two or three decimal parts of a global address:
/// `1.2/intro`), or a bare dotted quad (`169.254.169.254`, `169.254.169.254.`), or a bare
/// IPv4 form no number is written in (three parts: `127.0.1`,
/// `169.254.43518`; a hexadecimal part: `0x7f.1`, `0xa9fea9fe`) of an
/// address the core refuses, outside `0.0.0.0/8` but `0.0.0.0` (`1.2.3`
/// and `0.1.2` are versions, `0xdeadbeef` a number), or a name
/// only a local resolver answers (`internal_name`). A domain name without
/// a scheme stays text, and so does a single number that reads as an
/// address in `0.0.0.0/8` (`2024/12/01`, `3:30`): no server reaches those,
/// but `0` with a port (`0:8080/`) is 0.0.0.0. An empty port (`host:`) is
/// no port, as in WHATWG.
pub(crate) fn scheme_less_host(s: &str) -> bool {
    let slash = |c: char| c == '/' || c == '\\';
    let mut lead = s.chars();
    if lead.next().is_some_and(slash) && lead.next().is_some_and(slash) {
        // WHATWG skips every further slash and backslash before the host
        // (`///host/`, `\\\\\\host`, `/\\/host`).
        return s.trim_start_matches(slash).starts_with(|c: char| c > ' ');
    }
    // git's, scp's and rsync's `[user@]host:path` (`git@10.0.0.5:x.git`,
    // `[127.0.0.1:22]:x`) names its host as a URL with a path would.
    if let Some(scp) = scp_like(s) {
        return scp.names_a_host();
    }
    // The host ends where a path, a query, a fragment or path
    // parameters (`;`, which servers that split a host off at it read
    // so: `localhost;x`) start.
    let end = s.find(['/', '?', '#', '\\', ';']).unwrap_or(s.len());
    let (authority, tail) = s.split_at(end);
    let authority = authority.rsplit('@').next().unwrap_or(authority);
    let (host, port) = match authority.rfind(':') {
        Some(i) if !authority.ends_with(']') => {
            let (h, p) = authority.split_at(i);
            let p = p.get(1..).unwrap_or_default();
            (h, (!p.is_empty()).then_some(p))
        }
        _ => (authority, None),
    };
    if port.is_some_and(|p| !p.bytes().all(|b| b.is_ascii_digit())) {
        return false;
    }
    if host.starts_with('[') && host.ends_with(']') {
        return matches!(url::Host::parse(host), Ok(url::Host::Ipv6(_)));
    }
    // Prose is no host: WHATWG refuses whitespace in one, mapped or not.
    if host.is_empty() || host.chars().any(|c| c.is_whitespace() || c < ' ') {
        return false;
    }
    let decoded = percent_encoding::percent_decode_str(host).decode_utf8_lossy();
    let Ok(ascii) = idna::domain_to_ascii(&decoded) else {
        return false;
    };
    match url::Host::parse(&ascii) {
        Ok(url::Host::Ipv4(a)) => {
            let dotted = ascii.strip_suffix('.').unwrap_or(&ascii);
            let hex = dotted.split('.').any(|p| p.starts_with("0x"));
            // 0.0.0.0 with a port, or in hexadecimal with a path (`0x0/x`;
            // `0/10` is a fraction).
            let is_ip = dotted.contains('.')
                || a.octets()[0] != 0
                || (a.is_unspecified() && (port.is_some() || (hex && !tail.is_empty())));
            if !is_ip {
                return false;
            }
            let parts = dotted.split('.').count();
            let refused = !matches!(crate::net::classify_ipv4(a), crate::net::Reach::Global);
            if port.is_some() {
                return true;
            }
            if !tail.is_empty() {
                // A version before a path (`1.2/intro`, `2.0.1/notes`):
                // two or three decimal parts without leading zeros naming
                // a global address are text (attack s68-A, FP1); an
                // address the core refuses (`127.1/x`, `10.1/x`) or any
                // other notation is a host.
                let version = (2..=3).contains(&parts)
                    && dotted.split('.').all(|p| {
                        !p.is_empty()
                            && p.bytes().all(|b| b.is_ascii_digit())
                            && (p == "0" || !p.starts_with('0'))
                    });
                return !version || refused;
            }
            // Bare: a dotted quad; or a form no number or version is
            // written in (three parts, a hexadecimal part) of an address
            // the core refuses, outside `0.0.0.0/8` but 0.0.0.0 (`1.2.3`,
            // `0.1.2` and `0xdeadbeef` stay text).
            let quad = parts == 4 && dotted.bytes().all(|b| b.is_ascii_digit() || b == b'.');
            quad || ((parts >= 3 || hex) && refused && (a.octets()[0] != 0 || a.is_unspecified()))
        }
        Ok(url::Host::Domain(name)) => internal_name(&name, port.is_some(), tail),
        _ => false,
    }
}

/// A text read as git, scp and rsync read an scp-like remote
/// ([`scp_like`]).
struct Scp<'a> {
    /// The host: a name, an IPv4 form, or an IPv6 address in brackets.
    host: String,
    /// What follows the `:` after the host.
    path: &'a str,
    /// The host was in brackets (`[127.0.0.1:22]:x`).
    bracketed: bool,
    /// A `user@` came before the host.
    user: bool,
}

impl Scp<'_> {
    /// `true` when the remote names a host a URL with a path would
    /// (refused as that URL): an IP literal in any notation `inet_aton`
    /// reads, or a name [`scheme_less_host`] takes for one. A section or
    /// verse number is no host (`10.1:Overview`, `3.2:Results`,
    /// `100.64:foo`, `12:30pm`): a number of two or three parts only in
    /// brackets, a single number only when it is `0` (0.0.0.0, the local
    /// host to `connect`) or, in brackets or after `user@`, one past
    /// `0.255.255.255` (`[2130706433]:x`); and a "path" with whitespace
    /// is prose (`1.1:In the beginning`).
    fn names_a_host(&self) -> bool {
        let host = self.host.as_str();
        if self.path.contains(char::is_whitespace) || host.contains(char::is_whitespace) {
            return false;
        }
        let parts: Vec<&str> = host.split('.').collect();
        let numeric = parts
            .iter()
            .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()));
        if numeric {
            let zero = host.bytes().all(|b| b == b'0');
            let big = host.parse::<u64>().map_or(true, |n| n > 0x00ff_ffff);
            let marked = self.bracketed || self.user;
            // `0:x/y.git`, but not a time (`0:30pm`, `00:00:00Z`).
            let zero_host =
                zero && (marked || !self.path.starts_with(|c: char| c.is_ascii_digit()));
            let reads = match parts.len() {
                1 => zero_host || (marked && big),
                4 => true,
                _ => self.bracketed,
            };
            return reads && matches!(url::Host::parse(host), Ok(url::Host::Ipv4(_)));
        }
        host.starts_with('[')
            || matches!(url::Host::parse(host), Ok(url::Host::Ipv4(_)))
            || scheme_less_host(&format!("{host}/"))
    }
}

/// The host name of an scp-like remote ([`scp_like`]: `git@name.example:x`,
/// `[name.example:22]:x`) that is no URL itself, for `--resolve`: git
/// and scp look it up and dial port 22. Every address a lookup finds is
/// vetted; none lets it pass (`git@github.com:org/x.git` is text as
/// well). `None` for a text that is no such remote, a dotless name, or a
/// name the core refuses unresolved (the URL check reads those).
pub(crate) fn scp_name(net: &NetPolicy, text: &str) -> Option<PendingName> {
    let s = lenient_form(text);
    if has_scheme(&s) && !s.starts_with('[') {
        return None;
    }
    let scp = scp_like(&s)?;
    let host = scp.host.as_str();
    let named = host.contains('.')
        && host.contains(|c: char| c.is_ascii_alphabetic())
        && !host.starts_with('[')
        && !scp.path.contains(char::is_whitespace);
    if !named {
        return None;
    }
    match net.classify_url(&format!("http://{host}:22/")) {
        Ok(a) if a.needs_dns() => Some(PendingName::scheme_less(a)),
        _ => None,
    }
}

/// `s` read as git (`connect.c`), scp and rsync read an scp-like remote
/// `[user@]host:path` (`git@10.0.0.5:team/x.git`): a host before the
/// first `:` of the authority, followed by something other than a
/// decimal port (`host:8080` is a URL's); or a host in brackets at the
/// start or after `user@` (`[::1]:x`, `user@[10.0.0.5]:/srv`), which may
/// hold a `user@` and a `:port` itself (`[git@127.0.0.1:22]:x.git`),
/// followed by `:` and a path (`[::1]:80` is a URL's `[v6]:port`).
/// `None` otherwise.
fn scp_like(s: &str) -> Option<Scp<'_>> {
    let start = match s.find("@[") {
        Some(i) if !s.get(..i)?.contains(['/', '\\', '?', '#', '[']) => i.checked_add(1)?,
        _ => 0,
    };
    if let Some(inner_rest) = s.get(start..)?.strip_prefix('[') {
        let close = inner_rest.find(']')?;
        let inner = inner_rest.get(..close)?;
        let path = inner_rest.get(close.checked_add(1)?..)?.strip_prefix(':')?;
        let (user_inside, host_port) = match inner.rsplit_once('@') {
            Some((_, hp)) => (true, hp),
            None => (false, inner),
        };
        let host = match bare_ipv6(host_port) {
            Some(v6) => {
                let url_port =
                    start == 0 && !user_inside && path.bytes().all(|b| b.is_ascii_digit());
                if url_port {
                    return None;
                }
                format!("[{v6}]")
            }
            None => host_port.split(':').next()?.to_owned(),
        };
        if host.is_empty() {
            return None;
        }
        return Some(Scp {
            host,
            path,
            bracketed: true,
            user: start > 0 || user_inside,
        });
    }
    let authority = s.split(['/', '?', '#', '\\']).next()?;
    let (user, host_port) = match authority.rsplit_once('@') {
        Some((_, hp)) => (true, hp),
        None => (false, authority),
    };
    let host_len = host_port.find(':')?;
    let host = host_port.get(..host_len)?;
    let port = host_port.get(host_len..)?.strip_prefix(':')?;
    // A decimal port last (`host:8080`, `12:30:15`), or a hardware
    // address (`00:1a:2b:3c:4d:5e`), is no remote.
    let last = port.rsplit(':').next().unwrap_or(port);
    if host.is_empty()
        || host.contains(['[', ']'])
        || last.bytes().all(|b| b.is_ascii_digit())
        || is_mac_address(authority)
    {
        return None;
    }
    let start = authority
        .len()
        .checked_sub(host_port.len())?
        .checked_add(host_len)?
        .checked_add(1)?;
    Some(Scp {
        host: host.to_owned(),
        path: s.get(start..)?,
        bracketed: false,
        user,
    })
}

/// A scheme-less host name (already mapped, userinfo removed) that only a
/// local resolver answers, in a form a server adding `http://` would fetch
/// from ([`crate::net::refused_name`]): a localhost name in any form
/// (`localhost`, `localhost/admin`, `app.localhost:3000`); a dotted
/// metadata name in any form (`metadata.google.internal/computeMetadata/v1/`);
/// the bare metadata labels (`metadata`, `instance-data`) only with a port;
/// a dotted special-use or private name (`db.internal`, `git.corp`) only
/// with a port or a path; a name whose last label is no top-level domain
/// only with a port, a path, a query, a fragment or parameters, no empty
/// label but one trailing dot, and not as initials
/// (`kubernetes.default/api`, `kubernetes.default?x=1`,
/// `kubernetes.default./api`), and with a query, a fragment or parameters
/// only when the last label is no file extension ([`FILE_EXTENSIONS`]),
/// file names being written so too. Other words and relative paths stay
/// text (`metadata/schema.json`, `notes.local`, `db`, `config.yaml`,
/// `index.html#intro`, `.tmpab12/x`).
fn internal_name(host: &str, port: bool, tail: &str) -> bool {
    let dns_like = !host.is_empty()
        && host
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'_'));
    if !dns_like {
        return false;
    }
    let dotted = host.trim_end_matches('.').contains('.');
    match crate::net::refused_name(host) {
        Some(DenialCode::LocalhostName) => true,
        Some(DenialCode::MetadataName) => dotted || port,
        Some(DenialCode::SpecialUseName | DenialCode::PrivateName) => {
            dotted && (port || !tail.is_empty())
        }
        // Not a hidden directory (`.tmpab12/x`): no empty label but one
        // trailing dot; not initials (`e.g.;`); not a file name before a
        // query, fragment or parameters (`index.html#intro`).
        Some(DenialCode::UnknownTld) => {
            let name = host.strip_suffix('.').unwrap_or(host);
            let labels = || name.split('.');
            let initials = labels().all(|l| l.len() == 1);
            let file = name.rsplit('.').next().is_some_and(is_file_extension);
            !labels().any(str::is_empty)
                && !initials
                && (port
                    || tail.starts_with(['/', '\\'])
                    || (tail.starts_with(['?', '#', ';']) && !file))
        }
        _ => false,
    }
}

/// File name extensions (lower case) that are no top-level domain: a
/// name under one of them before a query, a fragment or parameters
/// (`index.html#intro`, `image.png?v=2`, `app.vue?vue&type=script`) is a
/// file's name. Extensions that are top-level domains (`.md`, `.py`,
/// `.rs`, `.sh`, `.zip`) need no entry: such names are no
/// `ssrf.unknown_tld`.
const FILE_EXTENSIONS: &[&str] = &[
    "7z",
    "adoc",
    "apk",
    "asc",
    "asm",
    "astro",
    "avi",
    "avro",
    "avsc",
    "bak",
    "bak2",
    "bash",
    "bat",
    "bib",
    "bin",
    "bmp",
    "bz2",
    "c",
    "cabal",
    "cc",
    "cer",
    "cfg",
    "cjs",
    "ckpt",
    "clj",
    "cljs",
    "cmd",
    "conf",
    "config",
    "cpp",
    "crt",
    "cs",
    "csproj",
    "csr",
    "css",
    "csv",
    "cts",
    "cxx",
    "dart",
    "dat",
    "db",
    "deb",
    "der",
    "diff",
    "dll",
    "dmg",
    "doc",
    "dockerfile",
    "docx",
    "dylib",
    "ear",
    "edn",
    "egg",
    "ejs",
    "entitlements",
    "env",
    "eot",
    "erb",
    "erl",
    "ex",
    "exe",
    "exs",
    "flac",
    "fs",
    "fsi",
    "fsx",
    "gemspec",
    "gguf",
    "gif",
    "go",
    "gpg",
    "gql",
    "gradle",
    "graphql",
    "groovy",
    "gz",
    "h",
    "h5",
    "hbs",
    "hcl",
    "hh",
    "hpp",
    "hrl",
    "hs",
    "htm",
    "html",
    "ico",
    "img",
    "ini",
    "ino",
    "ipa",
    "ipynb",
    "iso",
    "j2",
    "jar",
    "java",
    "jl",
    "jpeg",
    "jpg",
    "js",
    "json",
    "json5",
    "jsonc",
    "jsonl",
    "jsx",
    "key",
    "kt",
    "kts",
    "less",
    "lhs",
    "lib",
    "lock",
    "log",
    "lproj",
    "lua",
    "m4a",
    "map",
    "markdown",
    "mdx",
    "mjs",
    "mkv",
    "ml",
    "mli",
    "mod",
    "mp3",
    "mp4",
    "mpeg",
    "mts",
    "ndjson",
    "nim",
    "nix",
    "npy",
    "npz",
    "odp",
    "ods",
    "odt",
    "ogg",
    "old",
    "onnx",
    "orc",
    "orig",
    "otf",
    "p12",
    "parquet",
    "patch",
    "pbxproj",
    "pdf",
    "pem",
    "pfx",
    "php",
    "phtml",
    "pickle",
    "pkl",
    "pl",
    "plist",
    "pm",
    "png",
    "podspec",
    "ppt",
    "pptx",
    "props",
    "proto",
    "ps1",
    "psm1",
    "pt",
    "pth",
    "pxd",
    "pyc",
    "pyi",
    "pyx",
    "rake",
    "rar",
    "rb",
    "resx",
    "rpm",
    "rst",
    "rtf",
    "safetensors",
    "sass",
    "sbt",
    "scala",
    "scss",
    "sig",
    "sln",
    "so",
    "sql",
    "sqlite",
    "sqlite3",
    "storyboard",
    "strings",
    "styl",
    "sum",
    "svelte",
    "svg",
    "swift",
    "tar",
    "targets",
    "tex",
    "tfvars",
    "tgz",
    "thrift",
    "tif",
    "tiff",
    "tmp",
    "tmpl",
    "toml",
    "tpl",
    "ts",
    "tsv",
    "tsx",
    "ttf",
    "txt",
    "vb",
    "vbs",
    "vcxproj",
    "vhd",
    "vhdl",
    "vue",
    "war",
    "wasm",
    "wav",
    "webm",
    "webp",
    "whl",
    "woff",
    "woff2",
    "xcconfig",
    "xhtml",
    "xib",
    "xls",
    "xlsx",
    "xml",
    "xsd",
    "xsl",
    "xslt",
    "xz",
    "yaml",
    "yml",
    "zig",
    "zsh",
];

/// `true` when `label` is one of [`FILE_EXTENSIONS`].
fn is_file_extension(label: &str) -> bool {
    FILE_EXTENSIONS.contains(&label)
}

/// `true` when `s` starts with an RFC 3986 scheme (two or more characters)
/// followed by `:` and a character that is not whitespace.
pub(crate) fn has_scheme(s: &str) -> bool {
    let Some(colon) = s.find(':') else {
        return false;
    };
    let (scheme, rest) = s.split_at(colon);
    let valid_scheme = scheme.len() >= 2
        && scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        && scheme
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.'));
    valid_scheme
        && (rest
            .chars()
            .nth(1)
            .is_some_and(|c| !c.is_whitespace() && c > ' ')
            || rest.get(1..).is_some_and(|after| spaced_url(scheme, after)))
}

/// `true` when `after`, the text after `scheme:`, starts with white space
/// (Unicode's, as `trim` takes it) and goes on as a URL of a scheme that
/// runs code or carries its own data still reads with that space: WHATWG
/// parsers keep it in an opaque path (`data: ,x`, `javascript: alert(1)`)
/// or percent-encode it (`file: /etc/passwd` is `file:///%20/etc/passwd`),
/// and Node's `fetch` and Python's `urlopen` read `data: text/html;base64,…`
/// (attack s62, F1). So: `javascript:` or `vbscript:` and anything; `data:`
/// and a media type (`type/subtype`, or none) with its parameters up to a
/// comma (`Data: 1, 2` stays text); `file:` and a slash or backslash; a
/// scheme of [`URL_SCHEMES`] and `//`. `Re: minutes` stays text.
fn spaced_url(scheme: &str, after: &str) -> bool {
    let rest = after.trim_start();
    if rest.len() == after.len() || rest.is_empty() {
        return false;
    }
    let is = |k: &str| scheme.eq_ignore_ascii_case(k);
    if is("javascript") || is("vbscript") {
        return true;
    }
    if is("data") {
        return super::poison::data_head(rest);
    }
    if is("file") && rest.starts_with(['/', '\\']) {
        return true;
    }
    URL_SCHEMES.iter().any(|k| is(k)) && (rest.starts_with("//") || rest.starts_with("\\\\"))
}

/// A URL that passed, and whose host name the child will resolve: under
/// `--resolve` its addresses go through [`NetPolicy::vet_resolved`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingName {
    dest: Admitted,
    maybe_text: bool,
}

impl PendingName {
    /// A name the child resolves for the URL `dest`: a lookup that finds
    /// no address refuses it (`dns.no_address`).
    pub fn new(dest: Admitted) -> Self {
        Self {
            dest,
            maybe_text: false,
        }
    }

    /// The name of a scheme-less text under a URI-named key
    /// (`{"url": "rebind.example/x"}`), which a server that adds `http://`
    /// fetches and any other reads as text (`report.pdf`): every address a
    /// lookup finds is vetted, and a lookup that finds none lets it pass.
    pub fn scheme_less(dest: Admitted) -> Self {
        Self {
            dest,
            maybe_text: true,
        }
    }

    /// The same name, passed when a lookup finds no address (a name a
    /// curl glob reads, which may be a template).
    fn lenient(mut self) -> Self {
        self.maybe_text = true;
        self
    }

    /// The same kind of name for another destination, `dest`.
    pub(crate) fn renamed(&self, dest: Admitted) -> Self {
        Self {
            dest,
            maybe_text: self.maybe_text,
        }
    }

    /// The host name (canonical, lower case).
    pub fn host(&self) -> &str {
        self.dest.domain().unwrap_or_default()
    }

    /// The port the child would connect to.
    pub fn port(&self) -> u16 {
        self.dest.port()
    }

    /// `true` for a [`PendingName::scheme_less`] name.
    pub fn maybe_text(&self) -> bool {
        self.maybe_text
    }

    /// Makes a [`PendingName::scheme_less`] name strict: the same host and
    /// port named by a URL as well must resolve.
    pub(crate) fn make_strict(&mut self) {
        self.maybe_text = false;
    }
}

/// Vets one URL string under the operator's entries ([`NetPolicy::classify_url`]).
/// `Ok(None)`: the host is an admitted IP literal; `Ok(Some(name))`: a host
/// name the child will resolve.
///
/// # Errors
/// The core's denial (`url.*`, `ssrf.*`, `ssrf.operator_deny`) with `rule`;
/// for a text the core finds ambiguous (whitespace, controls, invisible
/// characters, backslashes) that starts with a scheme other than `http` or
/// `https`, `url.scheme` naming that scheme, as the core answers the same
/// text without them (`Note:remember to call Bob` as `Answer:42`): what
/// the text reads as is a URL of that scheme.
///
/// The text's other `readings` that look like URLs are vetted too (a
/// curl glob's expansions, HTTPie's `:8003/`, `foo@http://…`), and their
/// host names returned; a text that only they make a URL
/// (`{http,x}://…`) is vetted in them only. The host names a glob reads
/// may resolve or not (a template, `https://{tenant}.example.com`): every
/// address found is vetted ([`PendingName::scheme_less`]).
///
/// # Errors
/// Also `url.ambiguous` for a glob of more than
/// [`MAX_GLOB_EXPANSIONS`](super::MAX_GLOB_EXPANSIONS) texts.
pub fn vet_url(net: &NetPolicy, text: &str, rule: &str) -> Result<Vec<PendingName>, Refusal> {
    let r = readings(text).map_err(|d| Refusal::from_denial(&d, rule))?;
    let glob = !r.glob.is_empty();
    let mut names = Vec::new();
    let mut read = false;
    for t in r.all() {
        if looks_like_url_one(t) {
            read = true;
            let name = vet_url_one(net, t, rule, false)?;
            names.extend(name.map(|n| if glob { n.lenient() } else { n }));
        }
    }
    if !read || looks_like_url_one(text) {
        match vet_url_one(net, text, rule, glob) {
            Ok(name) => names.extend(name.map(|n| if glob { n.lenient() } else { n })),
            // A glob no URL parser reads as written (`http://[a-z].example/`)
            // is what its expansions are.
            Err(e) if glob && read && e.code() == "url.malformed" => {}
            Err(e) => return Err(e),
        }
    }
    Ok(names)
}

/// [`vet_url`] of the text as written only; `glob`: the text's curl glob
/// is read ([`readings`]), so a host may hold its `{`, `}` and `,`.
fn vet_url_one(
    net: &NetPolicy,
    text: &str,
    rule: &str,
    glob: bool,
) -> Result<Option<PendingName>, Refusal> {
    let form = url_form(text);
    match net.classify_url(&form) {
        Ok(a) if a.needs_dns() => dns_name(&a, rule, glob).map(|()| Some(PendingName::new(a))),
        Ok(_) => Ok(None),
        Err(d) if d.kind() == DenialCode::Ambiguous => Err(Refusal::from_denial(
            &refused_scheme(&form).unwrap_or(d),
            rule,
        )),
        Err(d) => Err(Refusal::from_denial(&d, rule)),
    }
}

/// Refuses a host name that holds a character no DNS name has (anything
/// but letters, digits, `-`, `_`, `.` and the wildcard `*`, which no tool
/// expands, once UTS 46 has mapped it), which
/// WHATWG parsers take in a domain: no resolver answers it, but tools
/// rewrite it first (curl's globbing reads `{example.com,127.0.0.1}` as
/// two hosts). With `glob` (the text's glob expansions are vetted
/// themselves) a glob's `{`, `}` and `,` are let through
/// (`{tenant}.example.com`).
///
/// # Errors
/// `url.ambiguous` with `rule`.
fn dns_name(dest: &Admitted, rule: &str, glob: bool) -> Result<(), Refusal> {
    let name = dest.domain().unwrap_or_default();
    match name.chars().find(|&c| {
        !(c.is_ascii_alphanumeric()
            || matches!(c, '-' | '_' | '.' | '*')
            || (glob && matches!(c, '{' | '}' | ',')))
    }) {
        None => Ok(()),
        Some(c) => Err(Refusal::from_denial(
            &Denial::of(
                DenialCode::Ambiguous,
                format!(
                    "the host name `{name}` holds `{c}`, which no DNS name holds: a tool may rewrite it (curl expands `{{a,b}}` and `[1-2]`)"
                ),
            ),
            rule,
        )),
    }
}

/// `url.scheme` for `form` when it starts with an RFC 3986 scheme
/// (`ALPHA *(ALPHA / DIGIT / "+" / "-" / ".")`) and a colon, the scheme
/// (in any case) neither `http` nor `https`: the core refuses such a URL
/// for its scheme whatever follows, once the text is unambiguous. `None`
/// for `http:`/`https:` (`http://a b/` stays `url.ambiguous`) and for a
/// text whose scheme is not clean (`ht tp://`).
fn refused_scheme(form: &str) -> Option<Denial> {
    let (scheme, _) = form.split_once(':')?;
    let clean = scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        && scheme
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.'));
    if !clean || scheme.eq_ignore_ascii_case("http") || scheme.eq_ignore_ascii_case("https") {
        return None;
    }
    let scheme = scheme.to_ascii_lowercase();
    Some(Denial::of(
        DenialCode::Scheme,
        format!(
            "scheme `{scheme}` is refused: only http and https (the text reads as a `{scheme}:` URL)"
        ),
    ))
}

/// Vets the addresses `name` resolved to (`--resolve`): one refused address
/// refuses the whole answer; no address passes a
/// [`PendingName::scheme_less`] name only.
///
/// # Errors
/// `dns.no_address`, or the refused address's code.
pub fn vet_addresses(
    net: &NetPolicy,
    name: &PendingName,
    addrs: &[IpAddr],
    rule: &str,
) -> Result<(), Refusal> {
    if addrs.is_empty() && name.maybe_text {
        return Ok(());
    }
    net.vet_resolved(&name.dest, addrs)
        .map_err(|d| Refusal::from_denial(&d, rule))
}

/// The name a server that adds `http://` to a scheme-less `text` would
/// resolve (`rebind.example/x`, `user@host?q`: the host after the user),
/// under the operator's
/// entries: `None` when `text` is a URL already ([`looks_like_url`]), or
/// does not read as one after `http://` (prose, `a b`), or names an
/// admitted address.
///
/// # Errors
/// The core's denial of the host it names (`ssrf.*`, `ssrf.operator_deny`).
pub(crate) fn scheme_less_name(
    net: &NetPolicy,
    text: &str,
    rule: &str,
) -> Result<Vec<PendingName>, Refusal> {
    scheme_less(net, text, rule, Reading::MaybePath)
}

/// How [`scheme_less`] takes a name the core refuses unresolved.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Reading {
    /// Under a URI-named key: a single label (`src/main.rs`) is a relative
    /// path as likely as a host, so text.
    MaybePath,
    /// Under a host-named key: a host, refused as the core refuses it in a
    /// URL (`db`, `metadata`: `ssrf.single_label_name`, ...).
    Host,
    /// A word of a host-named text that whitespace separates (`my laptop`,
    /// `example.com ::1`), or of a string in an object under a host-named
    /// key (`{"server": {"command": "npx"}}`): a host as under
    /// [`Reading::Host`], but a single label without a port (`laptop`,
    /// `npx`) is a word, and so is a dotted word under no top-level
    /// domain (`J.R.R.`).
    Word,
    /// A word of a host-named text that whitespace separates where a word
    /// is a host ([`host_word`]: `example.com kubernetes.default`): as
    /// [`Reading::Word`], but a dotted word under no top-level domain is a
    /// host (`ssrf.unknown_tld`).
    HostWords,
}

impl Reading {
    /// `true` for the readings of words among words.
    fn words(self) -> bool {
        matches!(self, Self::Word | Self::HostWords)
    }
}

/// [`scheme_less_name`], and [`host_argument`]'s reading of a text that is
/// no bare IPv6 address, names the core refuses taken as `reading` says;
/// a curl glob's expansions ([`readings`]) each read so too, their names
/// passed when a lookup finds no address.
///
/// # Errors
/// Also `url.ambiguous` for a glob of more than
/// [`MAX_GLOB_EXPANSIONS`](super::MAX_GLOB_EXPANSIONS) texts.
fn scheme_less(
    net: &NetPolicy,
    text: &str,
    rule: &str,
    reading: Reading,
) -> Result<Vec<PendingName>, Refusal> {
    let r = readings(text).map_err(|d| Refusal::from_denial(&d, rule))?;
    let glob = !r.glob.is_empty();
    let mut names: Vec<PendingName> = scheme_less_one(net, text, rule, reading, glob)?
        .into_iter()
        .map(|n| if glob { n.lenient() } else { n })
        .collect();
    for t in &r.glob {
        names.extend(scheme_less_one(net, t, rule, reading, false)?.map(PendingName::lenient));
    }
    Ok(names)
}

/// [`scheme_less`] of the text as written only; `glob` as for
/// [`vet_url_one`].
fn scheme_less_one(
    net: &NetPolicy,
    text: &str,
    rule: &str,
    reading: Reading,
    glob: bool,
) -> Result<Option<PendingName>, Refusal> {
    let s = lenient_form(text);
    // A hardware address (`00:1a:2b:3c:4d:5e`) names no host.
    // Text without a letter or a digit (`*`, a wildcard origin) names no
    // host; `::` is read as IPv6 before this.
    if !s.chars().any(char::is_alphanumeric)
        || looks_like_url_one(&s)
        || s.starts_with(['/', '\\', '.', '~'])
        || is_mac_address(&s)
    {
        return Ok(None);
    }
    // A backslash before an `@` in the authority as RFC 3986 reads it (up
    // to `/`, `?` or `#`): WHATWG ends the host at the backslash
    // (`example.com`), Python's `urlsplit` and httpx read the host after
    // the `@` (`example.com\\@127.0.0.1`). The core refuses the URL it
    // would be for its backslash, as it refuses it with a scheme.
    let authority = s.split(['/', '?', '#']).next().unwrap_or_default();
    if authority
        .find('\\')
        .is_some_and(|b| authority.get(b..).is_some_and(|rest| rest.contains('@')))
    {
        return vet_url_one(net, &format!("http://{s}"), rule, glob);
    }
    // The host as a WHATWG parser reads it after `http://` (Node's
    // `new URL`): past any `user@`, `\\` a slash, percent-decoded and
    // UTS 46 mapped (`rebind%2Eexample\\x`, `re\u{ad}bind.example`).
    let Ok(parsed) = url::Url::parse(&format!("http://{s}")) else {
        // A client that reads a port leniently (`+80`, `8_003`, `0x50`,
        // `٨٠`, as Python's `int` and JavaScript's `Number` do) or keeps
        // an IPv6 zone (`[::1%1]:8003`) connects to the host before it.
        let mut name = None;
        match lenient_host(&s) {
            Some(LenientHost::Ipv6(v6)) => {
                name = vet_url_one(net, &format!("http://[{v6}]/"), rule, glob)?;
            }
            Some(LenientHost::Name(head)) if looks_like_url_one(head) => {
                name = vet_url_one(net, head, rule, glob)?;
            }
            Some(LenientHost::Name(head)) => {
                name = scheme_less_one(net, head, rule, reading, glob)?;
            }
            None => {}
        }
        // A host no URL parser reads that a client may still read an
        // address or a port in (a control character, `%`, `\\`, `:` or
        // `@`: `127.0.0.1\0x`, `[::1%1]`): under a host-named key, the
        // core's refusal of the URL it would be. Other such text (`#general`,
        // `python>=3.10`, `[default]`) names no address.
        if reading == Reading::Host && s.contains(|c: char| c.is_control() || "%\\:@".contains(c)) {
            return vet_url_one(net, &format!("http://{s}/"), rule, glob);
        }
        return Ok(name);
    };
    let (host, literal) = match parsed.host() {
        Some(url::Host::Domain(d)) => (d.to_owned(), false),
        Some(url::Host::Ipv4(a)) => (a.to_string(), true),
        Some(url::Host::Ipv6(a)) => (format!("[{a}]"), true),
        None => return Ok(None),
    };
    let port = parsed.port_or_known_default().unwrap_or(80);
    match net.classify_url(&format!("http://{host}:{port}/")) {
        Ok(a) if a.needs_dns() && !reading.words() => {
            dns_name(&a, rule, glob).map(|()| Some(PendingName::scheme_less(a)))
        }
        Ok(a) if a.needs_dns() => Ok(Some(PendingName::scheme_less(a))),
        Ok(_) => Ok(None),
        Err(d) if d.kind() == DenialCode::OperatorDeny => Err(Refusal::from_denial(&d, rule)),
        // A word among words: a single label without a port, or a dotted
        // word whose last label is no top-level domain (`P.O.`, `U.S.A.`,
        // `J.R.R.`).
        Err(d)
            if reading.words()
                && parsed.port().is_none()
                && (d.kind() == DenialCode::SingleLabelName
                    || (d.kind() == DenialCode::UnknownTld && reading == Reading::Word)) =>
        {
            Ok(None)
        }
        // A count or a version among words (`2`, `0.9`) without a port
        // that reads as an address in `0.0.0.0/8` other than `0.0.0.0`: no
        // host a server reaches. Any other number is the address it spells
        // (`127.1`, `10.1`, `2130706433`, `0`).
        // So is a version after `@` (`node@20`, `mcp-server-git@0.6.2`: a
        // package, whose version WHATWG reads as the host `0.0.0.20`).
        Err(d)
            if parsed.port().is_none()
                && d.kind() == DenialCode::ThisNetwork
                && host != "0.0.0.0"
                && ((reading.words() && is_number_or_version(&s))
                    || s.rsplit_once('@')
                        .is_some_and(|(_, v)| is_number_or_version(v))) =>
        {
            Ok(None)
        }
        // An address: refused. A name the core refuses unresolved (a
        // single label: `src/main.rs`) is a relative path as likely as a
        // host under a URI-named key: text; under a host-named key, a
        // host (`db`).
        Err(d) if literal || reading != Reading::MaybePath => Err(Refusal::from_denial(&d, rule)),
        // A file name (`report.pdf`) as likely as a name whose last label is
        // no top-level domain (`kubernetes.default`): a name to resolve, as
        // any other, passed when nothing resolves.
        Err(d) if d.kind() == DenialCode::UnknownTld => {
            Ok(url::Url::parse(&format!("http://{host}:{port}/"))
                .ok()
                .and_then(crate::net::Admitted::unvetted_name)
                .map(PendingName::scheme_less))
        }
        Err(_) => Ok(None),
    }
}

/// The host a lenient client connects to for a scheme-less text no URL
/// parser reads, from [`lenient_host`].
enum LenientHost<'a> {
    /// An IPv6 address, its zone dropped.
    Ipv6(std::net::Ipv6Addr),
    /// The text before the port, without a `:` in it.
    Name(&'a str),
}

/// The host of `s`'s authority (up to `/`, `?`, `#` or `\\`, after the
/// last `@`) as a client that keeps an IPv6 zone and reads the port
/// leniently reads it: an IPv6 address in brackets or bare, with any zone
/// (`[::1%1]:8003`, `::1%a:b`, as Node's `net.isIP` takes zones), or one
/// followed by a port (`::1:000080`); otherwise the text before the last
/// `:` when it holds no other (`127.0.0.1` of `127.0.0.1:+80`). `None`
/// for an authority with no `:` or a head that still holds one.
fn lenient_host(s: &str) -> Option<LenientHost<'_>> {
    let zoneless = |t: &str| t.split('%').next().and_then(|a| a.parse().ok());
    let authority = s.split(['/', '?', '#', '\\']).next()?;
    let host_port = authority.rsplit('@').next()?;
    if let Some(rest) = host_port.strip_prefix('[') {
        return rest
            .split(']')
            .next()
            .and_then(zoneless)
            .map(LenientHost::Ipv6);
    }
    if let Some(v6) = zoneless(host_port) {
        return Some(LenientHost::Ipv6(v6));
    }
    let (head, _) = host_port.rsplit_once(':')?;
    if let Some(v6) = zoneless(head) {
        return Some(LenientHost::Ipv6(v6));
    }
    (!head.is_empty() && !head.contains(':')).then_some(LenientHost::Name(head))
}

/// `true` for an EUI-48 hardware address, six pairs of hexadecimal digits
/// that `:` or `-` separates (`00:1a:2b:3c:4d:5e`): no host.
fn is_mac_address(s: &str) -> bool {
    [':', '-'].iter().any(|&sep| {
        s.split(sep).count() == 6
            && s.split(sep)
                .all(|p| p.len() == 2 && p.bytes().all(|b| b.is_ascii_hexdigit()))
    })
}

/// `true` for decimal digits in at most three dot-separated parts
/// (`2`, `0.9`, `1.2.3`): a count, a price or a version among words.
fn is_number_or_version(s: &str) -> bool {
    !s.is_empty()
        && s.split('.').count() <= 3
        && s.split('.')
            .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
}

/// Where a host-named text sits, for [`host_argument`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum HostPlace {
    /// The value of a host-named key, or an element of its array.
    Named,
    /// A string in an object under a host-named key whose own name says
    /// nothing (`{"host": {"value": "::1"}}`).
    Member,
}

/// The text of a host-named argument (`gate::HOST_ARGUMENT_WORDS`:
/// `{"host": "::1"}`) read as the hosts a server hands to `getaddrinfo` or
/// `connect`, vetted under the operator's entries whether or not names are
/// resolved.
///
/// A text that is no single URL is a list of hosts when `,`, `;`, `|` or
/// whitespace (a line break, and U+001C to U+001F as Python's
/// `str.split()` reads them) separates it (`a.example:9092,127.0.0.1:9092`,
/// as Kafka, Redis Cluster and Elasticsearch clients split theirs), each
/// element without the quotes, parentheses or angle brackets around it
/// (`'127.0.0.1'`). Each element is read as one host
/// ([`Reading::Host`]: `db,example.com` refuses `db`), but a single label
/// is a word ([`Reading::Word`]) among words that spaces or tabs separate
/// (`my laptop`) and in a list that also holds spaces where no element has
/// a dot inside, a `:`, `/`, `[`, `\\`, `@` or `%` (`Alice, Bob`,
/// `1 Main St, Springfield`). Hosts one per line are a list of hosts.
///
/// The text is read as written and as a resolver's IDNA step maps it
/// ([`host_mapping`]: `::\u{ad}1`, `：：１`, `::1\u{200b}` are `::1`, as
/// Python's `idna` codec and Node's `dns.lookup` read them). A bare IPv6
/// address, with or without a zone (`::1`, `::ffff:169.254.169.254`,
/// `fe80::1%eth0`), is that address, which [`looks_like_url`] takes for
/// network notation in any other place, and so is one followed by `:` and
/// a port without brackets (`::ffff:127.0.0.1:8003`, as clients that split
/// at the last `:` read it); an element that looks like a URL is vetted as
/// one; any other is read as a server that adds `http://` reads it
/// ([`scheme_less_name`]), so an IPv4 address in every notation WHATWG
/// reads (`127.1`, `2130706433`, `0x7f.1`, `0177.1`, `0`), which stays
/// text in other places, is vetted as the address it is, and a name the
/// core refuses unresolved in a URL (a single label, `db`; `metadata`,
/// `localhost`) is refused here too. A count or a version among words that
/// reads as an address in `0.0.0.0/8` other than `0.0.0.0` (`my laptop 2`,
/// `0.9`) names no host.
/// An element with a control character inside is also read up to it, as a
/// resolver handed a C string reads it (`127.0.0.1\0x`); one no URL parser
/// reads as a host (`a|b`, `127.0.0.1\0x`) is refused, as the core refuses
/// the URL it would be, except as a word. [`HostPlace::Member`] reads
/// every element as a word.
///
/// `spend` is called once per element before it is read: the caller's
/// bound on the strings one decision reads (`gate::MAX_SCANNED_STRINGS`).
///
/// Returns the host names the server will resolve (looked up under
/// `--resolve`).
///
/// # Errors
/// `spend`'s refusal; the core's denial of an address or a name, or
/// `ssrf.operator_deny` for a host the operator denies.
pub(crate) fn host_argument(
    net: &NetPolicy,
    text: &str,
    rule: &str,
    place: HostPlace,
    spend: &mut dyn FnMut() -> Result<(), Refusal>,
) -> Result<Vec<PendingName>, Refusal> {
    let mapped = host_mapping(text);
    // As a server that strips terminal escapes first reads it
    // (`example.com \x1b[0m127.0.0.1` lists 127.0.0.1; attack s78-B,
    // F1), and that text as a resolver maps it.
    let unescaped = super::hidden::without_escapes(text);
    let unescaped_mapped = unescaped.as_deref().and_then(host_mapping);
    // What a resolver handed a C string reads: the text up to its first
    // NUL, a list of its own (`runsc\0 x` is the single label `runsc`).
    let c_string = |t: &str| t.find('\0').and_then(|i| t.get(..i)).map(str::to_owned);
    let cut = [c_string(text), mapped.as_deref().and_then(c_string)];
    let forms = || {
        mapped
            .as_deref()
            .into_iter()
            .chain(std::iter::once(text))
            .chain(unescaped_mapped.as_deref())
            .chain(unescaped.as_deref())
            .chain(cut.iter().flatten().map(String::as_str))
    };
    // An empty host is the local host to common clients, as `0` is:
    // Node's `net.connect({host: ""})` dials `localhost`, CPython's
    // `connect(("", port))` reads `INADDR_ANY`.
    if place == HostPlace::Named && forms().any(|f| list_element(f).is_empty()) {
        return Err(Refusal::from_denial(
            &Denial::of(
                DenialCode::Unspecified,
                "an empty host, which clients read as the local host",
            ),
            rule,
        ));
    }
    let mut names = Vec::new();
    // The mapped form first: what the text spells is refused for what it
    // is before the written form is refused as no host.
    for form in forms() {
        host_list(net, form, rule, place, spend, &mut names)?;
    }
    Ok(names)
}

/// [`host_argument`] of one form of the text: its elements, each vetted
/// as one host; the names to resolve go to `names`.
fn host_list(
    net: &NetPolicy,
    text: &str,
    rule: &str,
    place: HostPlace,
    spend: &mut dyn FnMut() -> Result<(), Refusal>,
    names: &mut Vec<PendingName>,
) -> Result<(), Refusal> {
    let s = lenient_form(text);
    let inner = text.trim_matches(lenient_trim);
    // Whitespace inside the text as written: a line break a URL parser
    // deletes separates hosts written one per line.
    let spaced = inner.contains(list_space);
    // One URL (`https://example.com/a,b`) is one element: the URL check
    // reads it whole.
    let split = spaced || !looks_like_url(&s);
    let elements: Vec<std::borrow::Cow<'_, str>> = if split {
        text.split(|c: char| LIST_SEPARATORS.contains(&c) || list_space(c))
            .map(list_element)
            .filter(|e| !e.is_empty())
            .collect()
    } else {
        vec![s]
    };
    let reading = match place {
        HostPlace::Named if !spaced || host_lines(inner) => Reading::Host,
        // `Alice, Bob` and `1 Main St, Springfield` are words; a list
        // with a dotted name, an address or a port in it is a host list.
        HostPlace::Named
            if inner.contains(LIST_SEPARATORS) && elements.iter().any(|e| network_element(e)) =>
        {
            Reading::Host
        }
        // Words of which one is a host (`example.com kubernetes.default`):
        // every dotted word is a host.
        HostPlace::Named if elements.iter().any(|e| host_word(e)) => Reading::HostWords,
        _ => Reading::Word,
    };
    for element in &elements {
        spend()?;
        vet_element(net, element, rule, reading, names)?;
        // A resolver handed a C string stops at its first control
        // character (`127.0.0.1\0x` is 127.0.0.1 to `getaddrinfo`).
        if let Some(cut) = element.find(|c: char| c.is_control()) {
            spend()?;
            let head = element.get(..cut).unwrap_or_default();
            vet_element(net, head, rule, reading, names)?;
        }
    }
    Ok(())
}

/// `true` for a list element only a network name, an address or a port
/// has: a dot inside it (`example.com`, `10.0.0.1`; `St.` and `Mr.` end
/// with theirs, `U.S.A.` are initials, `22.04` a version, `Node.js` a
/// file's name, as [`host_word`] reads them), a `:` before its end
/// (`Attn:` ends with its), a `[`, `/`, `\\`, `@` or `%`, or an IPv6
/// address (`fe80::`).
fn network_element(e: &str) -> bool {
    let dotted = e.trim_end_matches('.');
    let labels = || dotted.split('.');
    // Initials (`J.R.R.`, `U.S.A.`, `e.g.`) and numbers or versions of
    // fewer than four parts (`22.04`, `1.20.4`) are words; a number is
    // vetted as the address it spells in either reading.
    let initials = labels().all(|l| l.chars().count() == 1 && l.chars().all(char::is_alphabetic));
    let short_number = labels().count() < 4 && is_number_or_version(dotted);
    (dotted.contains('.') && !initials && !short_number && !file_word(e))
        || e.trim_end_matches(':')
            .contains([':', '[', '/', '\\', '@', '%'])
        || bare_ipv6(e).is_some()
}

/// `true` for a dotted word that is a file's name as [`host_word`] reads
/// one: a name whose last label is a file extension and no top-level
/// domain (`Node.js`, `config.yaml`), without a port (attack s80 on #20,
/// 4).
fn file_word(e: &str) -> bool {
    let Ok(parsed) = url::Url::parse(&format!("http://{e}")) else {
        return false;
    };
    match parsed.host() {
        Some(url::Host::Domain(d)) if parsed.port().is_none() => {
            let name = d.trim_end_matches('.');
            name.contains('.')
                && name.rsplit('.').next().is_some_and(is_file_extension)
                && crate::net::refused_name(d) == Some(DenialCode::UnknownTld)
        }
        _ => false,
    }
}

/// `true` for a word that is a host on its own, as a URL parser reads it
/// after `http://`: an IP address (a dotted quad, or any form of four
/// parts or more; an IPv6 address), a host with a port (`db:5432`), or a
/// dotted name under a top-level domain (`example.com`). Initials,
/// numbers and versions of fewer than four parts (`J.R.R.`, `22.04`) and
/// dotted words under no top-level domain (`vault.vault`) are not.
fn host_word(e: &str) -> bool {
    if bare_ipv6(e).is_some() {
        return true;
    }
    let Ok(parsed) = url::Url::parse(&format!("http://{e}")) else {
        return false;
    };
    if parsed.port().is_some() {
        return true;
    }
    let dotted = e.trim_end_matches('.');
    match parsed.host() {
        Some(url::Host::Ipv4(_)) => {
            !(dotted.split('.').count() < 4 && is_number_or_version(dotted))
        }
        Some(url::Host::Ipv6(_)) => true,
        Some(url::Host::Domain(d)) => {
            let name = d.trim_end_matches('.');
            // A name under no top-level domain (`vault.vault`, a
            // service and its namespace) is a host too, but initials
            // (`e.g.`, `a.k.a.`) and a file's name (`Node.js`) are words
            // (attack s78-A, B5).
            let labels = || name.split('.');
            let initials = labels().all(|l| l.chars().count() == 1);
            let file = labels().next_back().is_some_and(is_file_extension);
            name.contains('.')
                && match crate::net::refused_name(d) {
                    None => true,
                    Some(DenialCode::UnknownTld) => !initials && !file,
                    Some(_) => false,
                }
        }
        None => false,
    }
}

/// The characters besides [`list_space`] that separate the hosts of a
/// host-named text: `,` (Kafka, Redis Cluster, Elasticsearch), `;` and
/// `|`.
const LIST_SEPARATORS: [char; 3] = [',', ';', '|'];

/// Whitespace that separates the hosts of a host-named text: Unicode
/// whitespace, U+001C to U+001F, which Python's `str.split()` splits on
/// too, and the BOM (U+FEFF), which JavaScript's `\s` matches.
pub(crate) fn list_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c) || c == '\u{feff}'
}

/// `true` when the whitespace inside `inner` only breaks lines (`\n`,
/// `\r`, `\u{b}`, `\u{c}`, U+001C to U+001F, U+0085, U+2028, U+2029):
/// hosts written one per line, a list of hosts.
fn host_lines(inner: &str) -> bool {
    inner.chars().filter(|&c| list_space(c)).all(|c| {
        matches!(
            c,
            '\n' | '\r' | '\u{b}' | '\u{c}' | '\u{85}' | '\u{2028}' | '\u{2029}'
        ) || ('\u{1c}'..='\u{1f}').contains(&c)
    })
}

/// An element of a host list as a client that strips it reads it:
/// [`lenient_form`], then without the quotes, parentheses or angle
/// brackets around it (`'127.0.0.1'`, `(::1)`, `<10.0.0.1>`). Bounded by
/// the element's length.
fn list_element(element: &str) -> std::borrow::Cow<'_, str> {
    let mut e = lenient_form(element);
    loop {
        let inner = [('"', '"'), ('\'', '\''), ('`', '`'), ('(', ')'), ('<', '>')]
            .iter()
            .find_map(|&(open, close)| e.strip_prefix(open)?.strip_suffix(close))
            .map(str::to_owned);
        match inner {
            Some(i) => e = std::borrow::Cow::Owned(i.trim_matches(lenient_trim).to_owned()),
            None => return e,
        }
    }
}

/// One element of a host list, vetted as one host: as a URL when it looks
/// like one; as an IPv6 address, bare or zoned, and as one followed by a
/// port without brackets (`::ffff:127.0.0.1:8003`, `::1%lo:8003`, as
/// clients that split at the last `:` read it); else as a server that
/// adds `http://` reads it ([`scheme_less`]).
fn vet_element(
    net: &NetPolicy,
    element: &str,
    rule: &str,
    reading: Reading,
    names: &mut Vec<PendingName>,
) -> Result<(), Refusal> {
    // As written, and without the punctuation a client may trim around
    // it when an address is left (`127.0.0.1)`, `.127.0.0.1`; `#general`
    // stays a word).
    let core = host_core(element);
    let address = |h: &str| {
        bare_ipv6(h).is_some()
            || url::Url::parse(&format!("http://{h}"))
                .is_ok_and(|u| matches!(u.host(), Some(url::Host::Ipv4(_) | url::Host::Ipv6(_))))
    };
    let trimmed = (core != element && address(core)).then_some(core);
    for element in std::iter::once(element).chain(trimmed) {
        let v6_port = element.rsplit_once(':').and_then(|(a, p)| {
            let port = !p.is_empty() && p.len() <= 5 && p.bytes().all(|b| b.is_ascii_digit());
            bare_ipv6(a).filter(|_| port).map(|v6| (v6, p))
        });
        if let Some((v6, port)) = v6_port {
            names.extend(vet_url(net, &format!("http://[{v6}]:{port}/"), rule)?);
        }
        if let Some(v6) = bare_ipv6(element) {
            names.extend(vet_url(net, &format!("http://[{v6}]/"), rule)?);
        } else if v6_port.is_none() {
            if looks_like_url(element) {
                names.extend(vet_url(net, element, rule)?);
            } else {
                names.extend(scheme_less(net, element, rule, reading)?);
            }
        }
    }
    Ok(())
}

/// `element` without the punctuation a client may strip around a host
/// (`rstrip(').,;')`, a regular expression that picks the address out):
/// leading characters other than letters, digits, `[`, `:`, `/` and `\\`
/// (a socket path, a share), trailing ones other than letters, digits,
/// `]`, `:` and `/` (`127.0.0.1)`, `"127.0.0.1'`, `.127.0.0.1`,
/// `127.0.0.1）`). Bounded by the element's length.
fn host_core(element: &str) -> &str {
    element
        .trim_start_matches(|c: char| !(c.is_alphanumeric() || "[:/\\".contains(c)))
        .trim_end_matches(|c: char| !(c.is_alphanumeric() || "]:/".contains(c)))
}

/// The four characters that IDNA 2003 and UTS 46 transitional processing
/// map otherwise than the non-transitional processing of the core and of
/// WHATWG URL parsers ([`transitional_form`]).
const IDNA_DEVIATIONS: [char; 4] = ['\u{df}', '\u{3c2}', '\u{200c}', '\u{200d}'];

/// The host name `host` (ASCII, as the core reads it: `xn--zca.example`)
/// as IDNA 2003 (Python's `idna` codec, nameprep) and UTS 46 transitional
/// processing read the name it encodes (`ss.example`), when that differs:
/// a server may look up either. `None` for a name without a deviation
/// character ([`IDNA_DEVIATIONS`]). Bounded by the name's length.
pub(crate) fn idna2003_name(host: &str) -> Option<String> {
    if !host.contains("xn--") {
        return None;
    }
    let (unicode, decoded) = idna::domain_to_unicode(host);
    decoded.ok()?;
    let other = idna::domain_to_ascii(&transitional_form(&unicode)?).ok()?;
    (other != host).then_some(other)
}

/// `text` as IDNA 2003 and UTS 46 transitional processing read its
/// deviation characters: `ß` is `ss`, `ς` is `σ`, U+200C and U+200D are
/// removed. `None` when `text` holds none of [`IDNA_DEVIATIONS`]. Bounded
/// by the text's length.
fn transitional_form(text: &str) -> Option<String> {
    if !text.contains(IDNA_DEVIATIONS) {
        return None;
    }
    let mut form = String::with_capacity(text.len().saturating_add(8));
    for c in text.chars() {
        match c {
            '\u{df}' => form.push_str("ss"),
            '\u{3c2}' => form.push('\u{3c3}'),
            '\u{200c}' | '\u{200d}' => {}
            c => form.push(c),
        }
    }
    Some(form)
}

/// `text` as a resolver's IDNA step maps it before it reads an address
/// (Python's `idna` codec, nameprep: RFC 3491; UTS 46 in Node and
/// browsers): the default-ignorable code points (U+00AD, U+034F, U+200B,
/// U+2060, variation selectors, ...) and U+1806 removed, Unicode NFKC
/// (full-width `：１` are `:1`), and the ideographic full stops (U+3002,
/// U+FF61) dots. `None` for ASCII text, which maps to itself. Bounded by
/// the text's length.
fn host_mapping(text: &str) -> Option<String> {
    use icu_properties::{props::DefaultIgnorableCodePoint, CodePointSetData};
    if text.is_ascii() {
        return None;
    }
    let ignorable = CodePointSetData::new::<DefaultIgnorableCodePoint>();
    let kept: String = text
        .chars()
        .filter(|&c| !ignorable.contains(c) && c != '\u{1806}')
        .collect();
    let nfkc = icu_normalizer::ComposingNormalizerBorrowed::new_nfkc().normalize(&kept);
    Some(nfkc.replace(['\u{3002}', '\u{ff61}'], "."))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(allow: &[&str], deny: &[&str]) -> NetPolicy {
        NetPolicy::parse(allow, deny).unwrap()
    }

    /// Attack s76-B, F2: a scheme-less name whose last label is no
    /// top-level domain is a host with a path; a file name, a fragment and
    /// a hidden directory stay text.
    #[test]
    fn names_under_no_top_level_domain() {
        for t in [
            "kubernetes.default/api",
            "argocd-server.argocd/",
            "grafana.monitoring/",
        ] {
            assert!(looks_like_url(t), "{t}");
            let code = crate::net::classify_url(&url_form(t)).map_err(|d| d.code());
            assert_eq!(code.err(), Some("ssrf.unknown_tld"), "{t}");
        }
        for t in [
            "config.yaml",
            "index.html#intro",
            ".tmpab12/x",
            "example.com/x",
        ] {
            assert!(!looks_like_url(t), "{t}");
        }
    }

    /// Attack s77-A, F1: a scheme-less name under no top-level domain is
    /// read with the delimiters (`/`, `\\`, `?`, `#`, `;`, a port) and the
    /// host normalisation (one trailing dot in any spelling) every other
    /// name class gets; file names, initials and hidden directories stay
    /// text.
    #[test]
    fn names_under_no_top_level_domain_every_delimiter() {
        let net = rules(&[], &[]);
        for (t, want) in [
            ("kubernetes.default?x=1", "ssrf.unknown_tld"),
            ("vault.vault?token=1", "ssrf.unknown_tld"),
            ("kubernetes.default#frag", "ssrf.unknown_tld"),
            ("kubernetes.default./api", "ssrf.unknown_tld"),
            ("kubernetes.default.?x", "ssrf.unknown_tld"),
            ("kubernetes\u{3002}default\u{3002}/api", "ssrf.unknown_tld"),
            ("kubernetes.default\u{ff0e}/api", "ssrf.unknown_tld"),
            ("user@kubernetes.default?x", "url.userinfo"),
            // No host a resolver reads (`;` is no DNS character): refused
            // all the same.
            ("kubernetes.default\\api", "url.ambiguous"),
            ("kubernetes.default;x", "refused"),
            ("kubernetes.default%2e/api", "url.ambiguous"),
            // The other classes with `;`.
            ("localhost;x", "refused"),
            ("db.internal;x", "refused"),
        ] {
            assert!(looks_like_url(t), "{t}");
            let code = vet_url(&net, t, "r")
                .map(|_| "ok")
                .unwrap_or_else(|r| r.code());
            if want == "refused" {
                assert_ne!(code, "ok", "{t}");
            } else {
                assert_eq!(code, want, "{t}");
            }
        }
        for t in [
            "config.yaml",
            "notes.txt",
            "index.html#intro",
            "notes.txt?raw=1",
            "notes.txt;x",
            "image.png?v=2",
            "app.vue?vue&type=script",
            ".tmpab12/x",
            "..default?x",
            "e.g.;",
            "U.S.A.?",
            "kubernetes.default",
            "example.com?x=1",
            // More extensions (attack s78-A, FP3).
            "Program.cs#L10",
            "build.gradle#L3",
            "App.scala#L1",
            "go.sum#L1",
            "model.onnx?download=1",
            "data.parquet?x=1",
        ] {
            assert!(!looks_like_url(t), "{t}");
        }
    }

    /// JavaScript's `unescape`, checked against what node prints.
    #[test]
    fn js_unescape_reads_as_javascript() {
        for (text, want) in [
            ("%u0041", Some("A")),
            ("%u00e9%41%e9", Some("\u{e9}A\u{e9}")),
            ("%uD83D%uDE00", Some("\u{1F600}")),
            ("%uD83D", Some("\u{FFFD}")),
            ("%u004", None),
            ("%u00zz %u0020", Some("%u00zz  ")),
            ("100% %zz %u", None),
            ("x%U002fy", Some("x/y")),
        ] {
            assert_eq!(js_unescape(text).as_deref(), want, "{text}");
        }
    }

    #[test]
    fn detection() {
        for yes in [
            "http://x",
            "HTTPS://x",
            "  http://169.254.169.254/",
            // Delimited as `urllib.parse.unwrap` reads it (#20 attack s49, F20).
            "<http://127.0.0.1:8003/>",
            "<URL:http://127.0.0.1:8003/>",
            " <URL: http://127.0.0.1:8003/> ",
            "<\thttp://x/>",
            "url:http://x",
            "<<file:///etc/hostname>>",
            "'http://127.0.0.1/'",
            "`http://127.0.0.1/`",
            "(http://127.0.0.1/)",
            "\"<http://127.0.0.1/>\"",
            "file:/etc/passwd",
            "file:///etc/passwd",
            "gopher:x",
            "dict:x",
            "jar:http://x!/",
            "netdoc:/etc/passwd",
            "myapp://cb",
            "s3:/bucket",
            "http:example.com",
            "ftp:\\\\x",
            "ht\ttp://169.254.169.254/",
            "http\r\n://x",
            "\u{a0}http://x",
            "\u{2028}http://x",
            "\u{3000}file:/etc/passwd",
            "javascript:alert(1)",
            "note:remember",
            "std::vec",
            "x-custom+1.0:payload",
            "Answer:42",
            // A fetchable scheme, or a `/` after the colon, with a line break
            // between stays a URL (#20 re-attack, FP1).
            "file:\n/etc/passwd",
            "javascript:\nalert(1)",
            "JavaScript:\r\nalert(document.cookie)",
            "data:\ntext/html,<script>",
            "gopher:\t//127.0.0.1:6379/_x",
            "myapp:\n//cb",
            "notes:\n/etc/passwd",
            "ms-msdt:\n/id PCWDiagnostic",
            "ht\ttp:\n//169.254.169.254/",
            "\u{feff}http://169.254.169.254/",
            "//169.254.169.254/latest",
            "169.254.169.254/latest/meta-data",
            "169.254.169.254",
            "[::1]:80/x",
            "[::1]",
            "10.0.0.1:8080",
            "0x7f.1/x",
            "127.1?q",
            "2852039166/latest",
            "0xa9fea9fe/latest",
            "2130706433:8080/x",
            "0x7f000001/x",
            "2852039166?x",
            "4294967295#f",
            "017700000001/x",
            "0:8080/x",
            // A host in CIDR notation is a host (#20 attack pass, I).
            "10.0.0.1/8",
            "10.0.0.1/32",
            "169.254.169.254/32",
            "169.254.0.0/33",
            "010.0.0.0/8",
            "10.0.0.0/8/x",
            "fd00::1/128",
            "fd00::1/64",
            "[fd00::]/8",
            // Any run of leading slashes, and bare IPv4 forms no number is
            // written in (#20 attack pass, F2).
            "///169.254.169.254/latest/meta-data/",
            "////127.0.0.1/x",
            "\\\\\\127.0.0.1/x",
            "/\\/127.0.0.1/x",
            "\\/\\127.0.0.1/x",
            "///localhost/x",
            "///[::1]/x",
            "///x",
            "0x7f.1",
            "127.0.1",
            "192.168.1",
            "0xA9.0xFE.0xA9.0xFE",
            "169.254.43518",
            "0xa9fea9fe",
            "0.0.0",
            "10.2.1",
            "0x0/x",
            "0x00000000/x",
            // A short form of an address the core refuses before a path,
            // or a version-like one with a port (attack s68-A, FP1).
            "127.1/x",
            "10.1/intro",
            "192.168.1/x",
            "1.2:8080/x",
            "01.2/x",
            "1.02/x",
            "1.0x2/x",
        ] {
            assert!(looks_like_url(yes), "{yes}");
        }
        for no in [
            "Re: minutes",
            "TODO: fix",
            // A heading in prose (#20 re-attack, FP1).
            "TODO:\tfix",
            "Summary:\nThe report looks fine.",
            "Steps:\n1. open the file",
            "Fix:\r\nuse the new API",
            "Result:\n- one\n- two",
            "  Note:\n\nhttp://169.254.169.254/ is mentioned",
            "C:\\dir",
            "c://x",
            "a.pdf",
            "",
            "12:30",
            "-x://y",
            "Re:",
            "word : x",
            "plain text with a: colon",
            "1.5",
            "3.14",
            "1.2.3",
            "v1.2.3/x",
            "example.com/x",
            "docs/readme.md",
            "///",
            "// ",
            "0.1.2",
            "0xdeadbeef",
            "0xFF00FF",
            "127.1",
            "10.5",
            "229.99",
            "1.2.3.",
            "deadbeef.cafe/x",
            "[not v6]/x",
            "2024/12/01",
            "3:30",
            "1/2",
            "0/10",
            "12345/x",
            "cafe/menu",
            "2852039166",
            "4294967296/x",
            // A version before a path: two or three decimal parts of a
            // global address (attack s68-A, FP1).
            "1.2/intro",
            "2.0.1/notes",
            "3.14/x",
            "1.0/",
            "1.2?q",
            "1.2#x",
            // Network blocks and bare IPv6 addresses (#20 attack pass, I).
            "10.0.0.0/8",
            " 192.168.0.0/16 ",
            "169.254.0.0/16",
            "0.0.0.0/0",
            "127.0.0.0/8",
            "fd00::/8",
            "fe80::/10",
            "::/0",
            "fe80::1",
            "::1",
            "::ffff:127.0.0.1",
        ] {
            assert!(!looks_like_url(no), "{no}");
        }
    }

    /// How a host-named text is cut into elements (#20 attack s47):
    /// Python's whitespace, `|`, quotes around an element, lines, and what
    /// only a network name holds.
    #[test]
    fn host_list_parts() {
        for c in [
            ' ', '\t', '\n', '\u{b}', '\u{1c}', '\u{1d}', '\u{1e}', '\u{1f}', '\u{3000}',
            '\u{feff}',
        ] {
            assert!(list_space(c), "{c:?}");
        }
        for c in ['\u{0}', '\u{1b}', '!', 'a', '\u{7f}'] {
            assert!(!list_space(c), "{c:?}");
        }
        assert!(host_lines("a\nb\r\nc\u{1e}d\u{2028}e"));
        assert!(host_lines("a"));
        assert!(!host_lines("a\nb c"));
        assert!(!host_lines("a\tb"));
        for (e, want) in [
            ("'127.0.0.1'", "127.0.0.1"),
            ("\"::1\"", "::1"),
            ("(<`10.0.0.1`>)", "10.0.0.1"),
            ("( ::1 )", "::1"),
            ("'a", "'a"),
            ("a'", "a'"),
            ("(a>", "(a>"),
            ("[::1]", "[::1]"),
            (" x ", "x"),
        ] {
            assert_eq!(list_element(e), want, "{e}");
        }
        for (e, want) in [
            ("example.com", true),
            ("St.", false),
            ("Mr..", false),
            ("db:5432", true),
            ("[::1]", true),
            ("a.b", false),
            ("a.io", true),
            ("a\\b", true),
            ("u@h", true),
            ("a%2e", true),
            ("Alice", false),
            ("10.0.0.1", true),
            ("fe80::", true),
            ("a.b", false),
            ("a.io", true),
            ("J.R.R.", false),
            ("e.g.", false),
            ("22.04", false),
            ("1.20.4", false),
            ("Attn:", false),
            ("Attn:x", true),
        ] {
            assert_eq!(network_element(e), want, "{e}");
        }
        for (e, want) in [
            ("127.0.0.1)", "127.0.0.1"),
            ("\"127.0.0.1'", "127.0.0.1"),
            (".~127.0.0.1", "127.0.0.1"),
            ("[::1]).", "[::1]"),
            ("::1", "::1"),
            ("/run/x.sock", "/run/x.sock"),
            ("\\\\share", "\\\\share"),
            ("h:", "h:"),
            ("#general", "general"),
            ("*", ""),
        ] {
            assert_eq!(host_core(e), want, "{e}");
        }
        assert_eq!(LIST_SEPARATORS, [',', ';', '|']);
    }

    /// git's scp-like remotes (#20 attack s49, F28).
    #[test]
    fn scp_like_remotes() {
        for (s, want) in [
            ("git@10.0.0.5:team/x.git", Some(("10.0.0.5", "team/x.git"))),
            ("10.0.0.5:x", Some(("10.0.0.5", "x"))),
            ("[::1]:x/y", Some(("[::1]", "x/y"))),
            ("a@b@localhost:x:y", Some(("localhost", "x:y"))),
            ("10.0.0.5:22/x", None),
            ("10.0.0.5:/srv/x", None),
            ("host", None),
            (":x", None),
            ("a/b:c", None),
            ("[127.0.0.1:22]:x.git", Some(("127.0.0.1", "x.git"))),
            ("[git@10.0.0.5]:repo", Some(("10.0.0.5", "repo"))),
            ("user@[10.0.0.5]:/srv", Some(("10.0.0.5", "/srv"))),
            ("[fe80::1%eth0]:x", Some(("[fe80::1]", "x"))),
            ("git@[::1]:22", Some(("[::1]", "22"))),
            ("[::1]:22", None),
            ("[x]", None),
            ("[]:x", None),
        ] {
            let got = scp_like(s);
            let got = got.as_ref().map(|p| (p.host.as_str(), p.path));
            assert_eq!(got, want, "{s}");
        }
    }

    /// The other name IDNA 2003 reads, exactly, and none where it reads
    /// the same.
    #[test]
    fn idna2003_names() {
        for (host, want) in [
            ("xn--zca.example.com", Some("ss.example.com")),
            ("xn--strae-oqa.example.com", Some("strasse.example.com")),
            ("xn--3xa.example.com", Some("xn--4xa.example.com")),
            ("xn--bcher-kva.example.com", None),
            ("example.com", None),
            ("xn--zz", None),
        ] {
            assert_eq!(idna2003_name(host).as_deref(), want, "{host}");
        }
        assert_eq!(
            transitional_form("a\u{200d}\u{200c}b").as_deref(),
            Some("ab")
        );
    }

    /// The host a lenient client reads in a text no URL parser reads
    /// (#20 attack s48), and hardware addresses.
    #[test]
    fn lenient_hosts() {
        let read = |s: &str| match lenient_host(s) {
            Some(LenientHost::Ipv6(a)) => format!("[{a}]"),
            Some(LenientHost::Name(n)) => n.to_owned(),
            None => "-".to_owned(),
        };
        for (s, want) in [
            ("[::1%1]:8003", "[::1]"),
            ("[::1]:+80/x", "[::1]"),
            ("u@[fe80::1%eth0]", "[fe80::1]"),
            ("::1%a:b", "[::1]"),
            ("::1:000080", "[::1]"),
            ("127.0.0.1:+80", "127.0.0.1"),
            ("a@127.0.0.1:8_003/x", "127.0.0.1"),
            ("h:1\\x:2", "h"),
            ("a:b:c", "-"),
            (":80", "-"),
            ("host", "-"),
            ("[x]:80", "-"),
        ] {
            assert_eq!(read(s), want, "{s}");
        }
        for (s, want) in [
            ("00:1a:2b:3c:4d:5e", true),
            ("00-1A-2B-3C-4D-5E", true),
            ("00:1a:2b:3c:4d", false),
            ("00:1a:2b:3c:4d:5e:6f", false),
            ("00:1a:2b:3c:4d:5g", false),
            ("000:1a:2b:3c:4d:5", false),
            ("00:1a-2b:3c:4d:5e", false),
        ] {
            assert_eq!(is_mac_address(s), want, "{s}");
        }
    }

    /// The elements of a host-named text, each vetted; a control character
    /// cuts an element; a count among words is no host.
    #[test]
    fn host_argument_elements() {
        let net = rules(&[], &[]);
        let vet = |text: &str, place: HostPlace| {
            host_argument(&net, text, "r", place, &mut || Ok(()))
                .map(|_| "ok")
                .unwrap_or_else(|r| r.code())
        };
        for (text, place, want) in [
            // Attack s77-A, F2: words of which one is a host: every dotted
            // word is a host; a single label stays a word.
            (
                "example.com kubernetes.default",
                HostPlace::Named,
                "ssrf.unknown_tld",
            ),
            (
                "kubernetes.default example.com",
                HostPlace::Named,
                "ssrf.unknown_tld",
            ),
            (
                "example.com\tkubernetes.default",
                HostPlace::Named,
                "ssrf.unknown_tld",
            ),
            (
                "a.example.com b.example.com vault.vault",
                HostPlace::Named,
                "ssrf.unknown_tld",
            ),
            ("8.8.8.8 vault.vault", HostPlace::Named, "ssrf.unknown_tld"),
            (
                "2606:4700::1111 vault.vault",
                HostPlace::Named,
                "ssrf.unknown_tld",
            ),
            ("example.com db", HostPlace::Named, "ok"),
            ("example.com 0.9", HostPlace::Named, "ok"),
            ("J.R.R. Tolkien", HostPlace::Named, "ok"),
            // A service name among words is a host (attack s78-A, B5).
            (
                "Ubuntu 22.04 vault.vault",
                HostPlace::Named,
                "ssrf.unknown_tld",
            ),
            ("Ubuntu 22.04 on Node.js", HostPlace::Named, "ok"),
            ("example.com vault.vault", HostPlace::Member, "ok"),
            (
                "example.com\u{1f}127.0.0.1",
                HostPlace::Named,
                "ssrf.loopback",
            ),
            (
                "a.example.com|10.0.0.1",
                HostPlace::Named,
                "ssrf.private_use",
            ),
            (
                "a.example.com\u{feff}10.0.0.1",
                HostPlace::Named,
                "ssrf.private_use",
            ),
            (
                "a.example.com\u{feff}10.0.0.1",
                HostPlace::Member,
                "ssrf.private_use",
            ),
            ("::ffff:127.0.0.1:8003", HostPlace::Named, "ssrf.loopback"),
            ("::1:123456", HostPlace::Named, "ssrf.loopback"),
            ("::1:", HostPlace::Named, "ssrf.loopback"),
            ("fe80::1%eth0:22", HostPlace::Named, "ssrf.link_local"),
            ("2606:4700::1111:443", HostPlace::Named, "ok"),
            ("x 127.0.0.1\u{0}y", HostPlace::Named, "ssrf.loopback"),
            ("127.0.0.1\u{0}y", HostPlace::Member, "ssrf.loopback"),
            ("example.com\u{0}y", HostPlace::Member, "ok"),
            ("my laptop 2", HostPlace::Named, "ok"),
            ("laptop 0.9", HostPlace::Named, "ok"),
            ("laptop 0", HostPlace::Named, "ssrf.unspecified"),
            ("laptop 0.0.0.0", HostPlace::Named, "ssrf.unspecified"),
            ("laptop 2:80", HostPlace::Named, "ssrf.this_network"),
            ("laptop 0x2", HostPlace::Named, "ssrf.this_network"),
            ("2", HostPlace::Member, "ok"),
            ("2", HostPlace::Named, "ssrf.this_network"),
            ("a\nb", HostPlace::Named, "ssrf.single_label_name"),
            ("a b", HostPlace::Named, "ok"),
            ("a, b", HostPlace::Named, "ok"),
            (
                "a, b.example.com",
                HostPlace::Named,
                "ssrf.single_label_name",
            ),
            ("a,b", HostPlace::Named, "ssrf.single_label_name"),
            ("a, b.example.com", HostPlace::Member, "ok"),
            // Every element gets the check the first gets: a bracketed
            // IPv6 address with a port after another (attack s80, 1).
            ("example.com, [::1]:2", HostPlace::Named, "ssrf.loopback"),
            ("example.com,[::1]:8080", HostPlace::Named, "ssrf.loopback"),
            ("example.com|[::1]:8080", HostPlace::Named, "ssrf.loopback"),
            ("example.com [::1]:2", HostPlace::Named, "ssrf.loopback"),
            ("[::1]:2", HostPlace::Named, "ssrf.loopback"),
            ("[::1]:2, example.com", HostPlace::Named, "ssrf.loopback"),
            (
                "example.com, [fe80::1]:22",
                HostPlace::Named,
                "ssrf.link_local",
            ),
            ("example.com, [::1]:2", HostPlace::Member, "ssrf.loopback"),
            ("example.com, [2606:4700::1111]:443", HostPlace::Named, "ok"),
            // Words none of which is a host, a file's name among them, as
            // the single word is read among words (attack s80, 4).
            ("Node.js, Deno", HostPlace::Named, "ok"),
            ("Node.js, Deno, Bun", HostPlace::Named, "ok"),
            (
                "Node.js, Deno, 10.0.0.1",
                HostPlace::Named,
                "ssrf.unknown_tld",
            ),
            ("Node.js, vault.vault", HostPlace::Named, "ssrf.unknown_tld"),
            ("Node.js, db", HostPlace::Named, "ok"),
            ("Node.js,Deno", HostPlace::Named, "ssrf.unknown_tld"),
        ] {
            assert_eq!(vet(text, place), want, "{text:?} {place:?}");
        }
    }

    #[test]
    fn scheme_less_forms_vetted_as_a_server_would_fetch_them() {
        let r = rules(&[], &[]);
        let mut wrong = Vec::new();
        for (text, want) in [
            ("//169.254.169.254/latest", "ssrf.cloud_metadata"),
            ("169.254.169.254/latest/meta-data", "ssrf.cloud_metadata"),
            ("\u{feff}http://127.0.0.1/", "ssrf.loopback"),
            ("[::1]:80/x", "ssrf.loopback"),
            ("10.0.0.1:8080", "ssrf.private_use"),
            ("0x7f.1/x", "url.ambiguous"),
            ("2852039166/latest", "url.ambiguous"),
            ("0xa9fea9fe/latest", "url.ambiguous"),
            ("2130706433:8080/x", "url.ambiguous"),
            ("//example.com/x", "ok"),
            ("///169.254.169.254/latest", "url.ambiguous"),
            ("\\\\\\127.0.0.1/x", "url.ambiguous"),
            ("127.0.1", "url.ambiguous"),
            ("0xa9fea9fe", "url.ambiguous"),
            ("93.184.216.34/x", "ok"),
            // Names only a local resolver answers.
            ("localhost", "ssrf.localhost_name"),
            ("localhost/admin", "ssrf.localhost_name"),
            ("LocalHost./admin", "ssrf.localhost_name"),
            ("app.localhost:3000/x", "url.scheme"),
            ("app.localhost/x", "ssrf.localhost_name"),
            ("ip6-localhost?x=1", "ssrf.localhost_name"),
            ("user@localhost/x", "url.userinfo"),
            (
                "metadata.google.internal/computeMetadata/v1/",
                "ssrf.metadata_name",
            ),
            ("metadata.google.internal", "ssrf.metadata_name"),
            ("Metadata.Tencentyun.com/latest", "ssrf.metadata_name"),
            ("metadata:80", "url.scheme"),
            ("instance-data.ec2.internal#x", "ssrf.metadata_name"),
            ("db.internal/admin", "ssrf.special_use_name"),
            ("printer.local\\queue", "url.ambiguous"),
            ("printer.local:631/queue", "url.scheme"),
            ("printer.local/queue", "ssrf.special_use_name"),
            ("git.corp/repo", "ssrf.private_name"),
            // Read as WHATWG reads them after `http://`: `\\` is `/`,
            // the host percent-decoded and UTS 46 mapped, a trailing dot
            // and an empty port are nothing (the core refuses every
            // non-canonical spelling as url.ambiguous).
            ("\\\\169.254.169.254\\latest", "url.ambiguous"),
            ("/\\169.254.169.254/latest", "url.ambiguous"),
            ("\\/127.0.0.2:8000/secret", "url.ambiguous"),
            ("\\\\localhost\\x", "url.ambiguous"),
            (
                "\\\\metadata.google.internal\\computeMetadata",
                "url.ambiguous",
            ),
            ("169.254.169.254\u{3002}/latest", "url.ambiguous"),
            (
                "169\u{ff0e}254\u{ff0e}169\u{ff0e}254/latest",
                "url.ambiguous",
            ),
            (
                "127\u{ff61}0\u{ff61}0\u{ff61}2:8000/secret",
                "url.ambiguous",
            ),
            ("\u{ff11}\u{ff12}\u{ff17}.0.0.1/x", "url.ambiguous"),
            ("localhost\u{3002}/admin", "ssrf.localhost_name"),
            (
                "\u{ff4c}\u{ff4f}\u{ff43}\u{ff41}\u{ff4c}\u{ff48}\u{ff4f}\u{ff53}\u{ff54}/admin",
                "ssrf.localhost_name",
            ),
            ("LOCALHOST%2e/x", "url.ambiguous"),
            ("%6c%6fcalhost/x", "url.ambiguous"),
            ("169.254.169.254.", "url.ambiguous"),
            ("1.2.3.4:", "ok"),
            ("localhost:", "ssrf.localhost_name"),
            ("a@169.254.169.254/x", "url.userinfo"),
            ("metadata.google.internal./x", "ssrf.metadata_name"),
        ] {
            let got = (looks_like_url(text), code(&r, text));
            if got != (true, want) {
                wrong.push(format!("{text:?}: {got:?}, want {want}"));
            }
        }
        assert!(wrong.is_empty(), "{wrong:#?}");
        // Words and relative paths that merely contain such a name.
        for text in [
            "metadata",
            "metadata/schema.json",
            "instance-data/x",
            "notes.local",
            "settings.internal",
            "db",
            "test/foo",
            "a localhost b",
            "localhost-ish",
            "mylocalhost/x",
            "example.com/x",
            "\\\\\\",
            "/\\ ",
            "a\\b",
            "ｆｕｌｌｗｉｄｔｈ prose/x",
            "e.g.%20this/x",
            "169.254.169.254 is the address/x",
        ] {
            assert!(!looks_like_url(text), "{text}");
        }
    }

    /// What `text` decides as any string argument: `ok` when it is no URL
    /// or a URL that passes.
    fn decided(r: &NetPolicy, text: &str) -> &'static str {
        if looks_like_url(text) {
            code(r, text)
        } else {
            "ok"
        }
    }

    /// curl's globs anywhere in a text, HTTPie's localhost shorthand and
    /// a package's direct reference are read as the URLs they stand for
    /// (attack s50: F30, F37, F38); a wildcard or template host passes
    /// (FP7); text with braces, brackets or `@` stays text.
    #[test]
    fn other_readings_round_s50() {
        let r = rules(&[], &[]);
        let mut wrong = Vec::new();
        for (text, want) in [
            // F30: a glob outside the host.
            ("{http,x}://127.0.0.1:8003/", "ssrf.loopback"),
            ("[h-h]ttp://127.0.0.1:8003/", "ssrf.loopback"),
            ("htt{p}://127.0.0.1:8003/", "ssrf.loopback"),
            ("127.0.0.[1-1]:8003/", "ssrf.loopback"),
            ("{,}127.0.0.1:8003/", "ssrf.loopback"),
            ("h{t}tp://localhost:8003/", "ssrf.localhost_name"),
            ("[g-i]ttp://169.254.169.254/latest", "url.scheme"),
            ("[h-i]ttp://169.254.169.254/latest", "ssrf.cloud_metadata"),
            ("{x,https}://10.0.0.[1-3]/", "ssrf.private_use"),
            ("http://93.184.216.[30-40]/", "ok"),
            ("http://1.2.3.[0-255]/", "ok"),
            ("http://1.2.3.[0-256]/", "url.ambiguous"),
            (
                "http://{a,b}{c,d}{e,f}{g,h}{i,j}{k,l}{m,n}{o,p}{q,r}.example.com/",
                "url.ambiguous",
            ),
            ("{http://127.0.0.1:8003/,x}", "ssrf.loopback"),
            ("http://{127.0.0.1}:8003/", "ssrf.loopback"),
            ("http://{example.com,127.0.0.1}:8003/", "ssrf.loopback"),
            ("http://127.0.0.1{,}:8003/", "ssrf.loopback"),
            ("{127.0.0.1}:8003/", "ssrf.loopback"),
            ("{loc,x}alhost/admin", "ssrf.localhost_name"),
            ("http://[::1]:8003/", "ssrf.loopback"),
            ("http://[a-z].example.com/", "ok"),
            // FP7: wildcard and template hosts.
            ("https://*.example.com", "ok"),
            ("https://*.vercel.app", "ok"),
            ("https://{tenant}.example.com/api", "ok"),
            ("https://{region}.api.example.com/v1", "ok"),
            ("{https,http}://example.com/", "ok"),
            ("https://example.com/{id}/items", "ok"),
            ("http://a!b.example.com/", "url.ambiguous"),
            // F37: HTTPie's localhost shorthand.
            (":8003/", "ssrf.localhost_name"),
            (":8003", "ssrf.localhost_name"),
            (":/admin", "ssrf.localhost_name"),
            (":8003/latest", "ssrf.localhost_name"),
            (":8003?x=1", "ssrf.localhost_name"),
            // F38: a package's direct reference.
            ("foo@http://127.0.0.1:8003/x.whl", "ssrf.loopback"),
            ("foo @ http://127.0.0.1:8003/x.whl", "ssrf.loopback"),
            ("foo@ http://169.254.169.254/x.whl", "ssrf.cloud_metadata"),
            ("foo[extra]@http://127.0.0.1:8003/x.whl", "ssrf.loopback"),
            ("@scope/foo@http://10.0.0.5/x.tgz", "ssrf.private_use"),
            ("foo@git+http://127.0.0.1:8003/x", "url.scheme"),
            ("foo @ file:///etc/passwd", "url.scheme"),
            ("foo @ https://example.com/foo-1.0.whl", "ok"),
            // Text.
            ("see {x} here", "ok"),
            ("{x}", "ok"),
            ("fn f() {}", "ok"),
            ("{\"a\":1,\"b\":2}", "ok"),
            ("[1-3] items", "ok"),
            ("[1-3]", "ok"),
            ("[link](https://example.com)", "ok"),
            ("^[0-9]{3}-[0-9]{4}$", "ok"),
            ("[A-Z][a-z]{2,}", "url.ambiguous"),
            ("[0-9]{1,3}\\.[0-9]{1,3}\\.[0-9]{1,3}\\.[0-9]{1,3}", "ok"),
            ("a@b.com", "ok"),
            ("@scope/pkg@1.2.3", "ok"),
            ("pkg@^1.2.0", "ok"),
            ("user@host", "ok"),
            ("node@20", "ok"),
            ("C:\\x", "ok"),
            ("12:30", "ok"),
            ("::", "ok"),
            ("::1", "ok"),
            (":)", "ok"),
            (":smile:", "ok"),
            (": word", "ok"),
            (":", "ok"),
            ("git@github.com:org/x.git", "ok"),
        ] {
            let got = decided(&r, text);
            if got != want {
                wrong.push(format!("{text:?}: {got}, want {want}"));
            }
        }
        assert!(wrong.is_empty(), "{wrong:#?}");
    }

    /// git's bracketed scp-like remotes and the host `0` are the hosts
    /// they name (attack s50, F31); a section number before `:` is text
    /// (FP10).
    #[test]
    fn scp_like_remotes_round_s50() {
        let r = rules(&[], &[]);
        let mut wrong = Vec::new();
        for (text, want) in [
            ("[127.0.0.1:22]:x.git", "ssrf.loopback"),
            ("[127.0.0.1]:x", "ssrf.loopback"),
            ("[169.254.169.254]:x", "ssrf.cloud_metadata"),
            ("[localhost:22]:x", "ssrf.localhost_name"),
            ("[git@10.0.0.5]:repo", "ssrf.private_use"),
            ("user@[10.0.0.5]:/srv", "ssrf.private_use"),
            ("[2130706433]:x", "url.ambiguous"),
            ("git@[2130706433]:x", "url.ambiguous"),
            ("git@2130706433:x", "url.ambiguous"),
            ("[127.0.0.1]::mod/x", "ssrf.loopback"),
            ("[127.1]:x", "url.ambiguous"),
            ("git@0:x", "url.ambiguous"),
            ("0:x/y.git", "url.ambiguous"),
            ("[0]:x", "url.ambiguous"),
            ("git@0.0.0.0:x", "ssrf.unspecified"),
            ("[git@localhost]:x", "ssrf.localhost_name"),
            ("git@[::1]:x", "ssrf.loopback"),
            ("[fe80::1]:x", "ssrf.link_local"),
            ("git@127.0.0.1:x", "ssrf.loopback"),
            ("git@0x7f.1:x", "url.ambiguous"),
            ("[::1]:80/x", "ssrf.loopback"),
            // Text.
            ("git@github.com:org/x.git", "ok"),
            ("[github.com]:org/x.git", "ok"),
            ("git@8.8.8.8:x.git", "ok"),
            ("10.1:Overview", "ok"),
            ("3.2:Results", "ok"),
            ("1.1:In the beginning", "ok"),
            ("100.64:foo", "ok"),
            ("12:30pm", "ok"),
            ("git@10.1:x", "ok"),
            ("00:30:15", "ok"),
            ("0:30pm", "ok"),
            ("00:00:00Z", "ok"),
            ("00:1a:2b:3c:4d:5e", "ok"),
            ("[1]: https://example.com", "ok"),
            ("[1]:x", "ok"),
            ("[127.0.0.1]:a b", "ok"),
        ] {
            let got = decided(&r, text);
            if got != want {
                wrong.push(format!("{text:?}: {got}, want {want}"));
            }
        }
        assert!(wrong.is_empty(), "{wrong:#?}");
    }

    /// The host names of a glob's expansions, a bracketed remote and a
    /// direct reference are returned for `--resolve` (attack s50, F39); a
    /// glob's pass when nothing resolves.
    #[test]
    fn names_of_other_readings() {
        let r = rules(&[], &[]);
        let hosts = |t: &str| {
            vet_url(&r, t, "t")
                .unwrap()
                .iter()
                .map(|n| (n.host().to_owned(), n.maybe_text()))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            hosts("{http,x}://loop.example.com/"),
            [("loop.example.com".to_owned(), true)]
        );
        assert_eq!(
            hosts("foo@http://loop.example.com/x.whl"),
            [("loop.example.com".to_owned(), false)]
        );
        let t = hosts("https://{a,b}.example.com/");
        assert!(t.contains(&("a.example.com".to_owned(), true)), "{t:?}");
        assert!(t.contains(&("b.example.com".to_owned(), true)), "{t:?}");
        for (text, want) in [
            ("git@loop.example.com:x/y.git", Some("loop.example.com")),
            ("[loop.example.com:2222]:x", Some("loop.example.com")),
            ("user@[loop.example.com]:/srv", Some("loop.example.com")),
            ("git@db:x", None),
            ("10.1:Overview", None),
            ("a@b.example.com", None),
            ("https://loop.example.com/", None),
        ] {
            let got = scp_name(&r, text);
            assert_eq!(got.as_ref().map(PendingName::host), want, "{text}");
            assert!(got.is_none_or(|n| n.maybe_text()), "{text}");
        }
        let names = scheme_less_name(&r, "{a,b}.example.com/x", "t").unwrap();
        assert!(
            names.iter().any(|n| n.host() == "b.example.com"),
            "{names:?}"
        );
    }

    fn code(r: &NetPolicy, u: &str) -> &'static str {
        vet_url(r, u, "t")
            .map(|_| "ok")
            .unwrap_or_else(|e| e.code())
    }

    #[test]
    fn core_verdicts_and_codes() {
        let r = NetPolicy::default();
        assert_eq!(
            code(&r, "http://169.254.169.254/latest"),
            "ssrf.cloud_metadata"
        );
        assert_eq!(code(&r, "http://0x7f.1/"), "url.ambiguous");
        assert_eq!(code(&r, "http://[::ffff:127.0.0.1]/"), "ssrf.loopback");
        assert_eq!(code(&r, "http://10.0.0.1/"), "ssrf.private_use");
        assert_eq!(code(&r, "ftp://example.com/"), "url.scheme");
        assert_eq!(code(&r, "file:///etc/passwd"), "url.scheme");
        assert_eq!(code(&r, "http://user@example.com/"), "url.userinfo");
        assert_eq!(code(&r, "http://93.184.216.34/"), "ok");
        let n = vet_url(&r, "https://Example.com:8443/x", "t")
            .unwrap()
            .pop()
            .unwrap();
        assert_eq!((n.host(), n.port()), ("example.com", 8443));
    }

    /// A word, a colon and prose reads as a URL of that word's scheme,
    /// whitespace or not (#20 FP: `Note:remember to call Bob` was
    /// `url.ambiguous`, `Answer:42` `url.scheme`); an `http(s)` URL, or a
    /// text whose scheme is not clean, stays ambiguous.
    #[test]
    fn word_colon_prose_is_a_scheme_refusal() {
        let r = NetPolicy::default();
        for text in [
            "Note:remember to call Bob",
            "Answer:42",
            "note:remember",
            "TODO:fix the build",
            "key:value with\ta tab",
            "javascript:alert(1) //x",
            "javascript:alert(1)\u{200b}",
            "mailto:a@b.example.com?subject=hi there",
            "file:///etc/pass wd",
            "c++:is\\fun",
        ] {
            assert!(looks_like_url(text), "{text:?}");
            let e = vet_url(&r, text, "t").unwrap_err();
            assert_eq!(e.code(), "url.scheme", "{text:?}: {e}");
        }
        let e = vet_url(&r, "Note:remember to call Bob", "t").unwrap_err();
        assert!(e.reason().contains("scheme `note`"), "{e}");
        let e = vet_url(&r, "Answer:42", "t").unwrap_err();
        assert!(e.reason().contains("scheme `answer`"), "{e}");
        // Real URLs refused today keep their code.
        for text in [
            "http://a b/",
            "https://example.com/a b",
            "HTTP://a b/",
            "http://example.com/\\x",
            "https:// example.com/",
            "ht tp://example.com/",
            "h ttps://169.254.169.254/",
            "jav\u{ad}ascript:alert(1)",
        ] {
            let e = vet_url(&r, text, "t").unwrap_err();
            assert_eq!(e.code(), "url.ambiguous", "{text:?}: {e}");
        }
        assert_eq!(code(&r, "ht\ttp://169.254.169.254/"), "ssrf.cloud_metadata");
        assert_eq!(code(&r, "https://example.com/a%20b"), "ok");
    }

    #[test]
    fn allow_lifts_ranges_never_metadata_and_deny_wins() {
        let r = rules(
            &["10.0.0.0/8", "169.254.0.0/16", "wiki.internal", "127.0.0.1"],
            &["10.9.0.0/16", "93.184.216.34", "bad.example.com"],
        );
        assert_eq!(code(&r, "http://10.1.2.3/"), "ok");
        assert_eq!(code(&r, "http://10.9.0.1/"), "ssrf.operator_deny");
        assert_eq!(code(&r, "http://127.0.0.1:8080/"), "ok");
        assert_eq!(code(&r, "http://127.0.0.2/"), "ssrf.loopback");
        assert_eq!(code(&r, "http://169.254.169.254/"), "ssrf.cloud_metadata");
        assert_eq!(code(&r, "http://169.254.1.1/"), "ok");
        assert_eq!(
            code(&r, "http://metadata.google.internal/"),
            "ssrf.metadata_name"
        );
        assert_eq!(code(&r, "http://wiki.internal/"), "ok");
        assert_eq!(code(&r, "http://93.184.216.34/"), "ssrf.operator_deny");
        assert_eq!(code(&r, "http://bad.example.com/"), "ssrf.operator_deny");
        assert_eq!(code(&r, "ftp://10.1.2.3/"), "url.scheme");
    }

    #[test]
    fn resolved_addresses() {
        let r = rules(&["10.0.0.0/8", "wiki.internal"], &["8.8.8.0/24"]);
        let name = |u: &str| vet_url(&r, u, "t").unwrap().pop().unwrap();
        let ips = |v: &[&str]| {
            v.iter()
                .map(|a| a.parse().unwrap())
                .collect::<Vec<IpAddr>>()
        };
        let code = |n: &PendingName, a: &[&str]| {
            vet_addresses(&r, n, &ips(a), "t")
                .map(|_| "ok")
                .unwrap_or_else(|e| e.code())
        };
        let public = name("https://a.example.com/");
        let wiki = name("https://wiki.internal/");
        assert_eq!(code(&public, &["93.184.216.34"]), "ok");
        assert_eq!(
            code(&public, &["93.184.216.34", "127.0.0.1"]),
            "ssrf.loopback"
        );
        assert_eq!(code(&public, &["10.1.1.1"]), "ok");
        assert_eq!(code(&public, &["192.168.1.1"]), "ssrf.private_use");
        assert_eq!(code(&wiki, &["192.168.1.1"]), "ok");
        assert_eq!(code(&wiki, &["169.254.169.254"]), "ssrf.cloud_metadata");
        assert_eq!(code(&public, &["8.8.8.8"]), "ssrf.operator_deny");
        assert_eq!(code(&public, &[]), "dns.no_address");
    }

    proptest::proptest! {
        /// `--resolve` vets every address of an answer however long: one
        /// refused address anywhere (the 65th, the 1000th) refuses the name.
        #[test]
        fn one_refused_address_anywhere_refuses_the_answer(
            public in 1usize..300,
            at in proptest::prelude::any::<proptest::sample::Index>(),
            bad in proptest::prop_oneof![
                proptest::prelude::Just("127.0.0.1"),
                proptest::prelude::Just("10.0.0.7"),
                proptest::prelude::Just("169.254.169.254"),
                proptest::prelude::Just("::1"),
            ],
        ) {
            let net = rules(&[], &[]);
            let name = vet_url(&net, "https://many.example.com/", "t").unwrap().pop().unwrap();
            let mut addrs: Vec<IpAddr> = (0..public)
                .map(|i| IpAddr::from([93, 184, (i / 256) as u8, (i % 256) as u8]))
                .collect();
            proptest::prop_assert!(vet_addresses(&net, &name, &addrs, "--resolve").is_ok());
            let pos = at.index(public + 1);
            addrs.insert(pos, bad.parse().unwrap());
            proptest::prop_assert!(vet_addresses(&net, &name, &addrs, "--resolve").is_err(), "at {}", pos);
        }
    }

    #[test]
    fn the_sixty_fifth_address_is_vetted() {
        let net = rules(&[], &[]);
        let name = vet_url(&net, "https://many.example.com/", "t")
            .unwrap()
            .pop()
            .unwrap();
        let mut addrs: Vec<IpAddr> = (0..64u8).map(|i| IpAddr::from([93, 184, 216, i])).collect();
        addrs.push(IpAddr::from([127, 0, 0, 1]));
        let r = vet_addresses(&net, &name, &addrs, "--resolve").unwrap_err();
        assert_eq!(r.code(), "ssrf.loopback");
    }
}
