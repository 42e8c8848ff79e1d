//! Path arguments: which arguments are paths, and whether a path lands
//! inside one of the `--root` directories the way the child would resolve it.
//!
//! The check is the project's one confinement module
//! ([`crate::confine::Root::check_beneath`]): resolution beneath each root,
//! looking only at names inside it, every symbolic link followed (dangling
//! ones too; one that leaves the root refuses), a component that does not
//! exist taken as written. The result must lie under a canonical root.
//! And the path must land inside a root read *lexically* too (`..`
//! removing the component before it, as Node's `path.resolve` and Python's
//! `os.path.normpath` do, without looking at the disk): `link/../../x` is
//! refused when either reading leaves the roots. A path that is not in
//! Unicode NFC is refused (servers that normalise names, as the reference
//! filesystem server does for a missing one, would open another entry).
//!
//! What the gateway assumes about the child (stated in `docs/gate.md`):
//! * an absolute path is the path the child opens;
//! * a relative path is refused unless `[paths] relative` says how the child
//!   resolves it: `"each_root"` (the reference filesystem server resolves it
//!   against its allowed directories: it must land inside a root read from
//!   *every* root) or `"cwd"` (the child's working directory, the
//!   gateway's own);
//! * a path starting with `~` is refused unless `[paths] tilde = "home"`
//!   (Python servers expand it with `HOME`): then `~` and `~/…` are read
//!   under the child's `HOME`, and `~user/…` is always refused;
//! * a path naming an environment variable (`$NAME`, `${NAME}`) is refused
//!   unless `[paths] variables = "literal"` (the reference filesystem
//!   server never expands them): then it is checked as a plain name.
//!
//! A refused path gets `path.outside_root` with the same reason whether or
//! not it exists: the refusal is no existence oracle.
//!
//! What this cannot see: a child that changes its own working directory,
//! expands other notations, or a path swapped for a symbolic link between
//! this check and the child's open (see the threat model in `docs/gate.md`).

use std::io;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::code::Refusal;
use super::unquote::decodings;
use super::urls::lenient_form;
use crate::confine::Root;
use crate::net::Denial;

/// The words that make an argument name a path name wherever it appears in
/// `arguments` (compared without ASCII case): the name's last word, in
/// snake_case, kebab-case, dotted or camelCase (`path`, `file_path`,
/// `filePath`, `repo-path`, `sourceDir`, `workdir`); its value a string,
/// an array of strings, or a map whose keys are paths. Names such as
/// `target` or `output` are not among them (too often not paths): give
/// them an `[[args]] kind = "path"` rule.
pub const PATH_ARGUMENT_NAMES: &[&str] = &[
    "path",
    "paths",
    "pathname",
    "pathnames",
    "filepath",
    "filepaths",
    "file",
    "files",
    "filename",
    "filenames",
    "fname",
    "fnames",
    "dir",
    "foldername",
    "dirs",
    "dirname",
    "directory",
    "directories",
    "folder",
    "folders",
    "workdir",
    "cwd",
    "root",
    "roots",
    "src",
    "source",
    "sources",
    "dest",
    "dests",
    "dst",
    "dsts",
    "destination",
    "destinations",
    "srcs",
    "cwds",
    "workdirs",
    "attachment",
    "attachments",
    "pathspec",
    "pathspecs",
    "filespec",
    "filespecs",
    "home",
];

/// Abbreviations that make an argument name a path name as its whole
/// last snake_case, kebab-case or dotted segment, in any case (`fp`,
/// `input_fn`, `FP2`), never as the end of a camelCase word
/// (`callbackFn` is a function).
pub const PATH_ABBREVIATIONS: &[&str] = &["fp", "fps", "fn", "fns", "pth", "pths", "wd", "pwd"];

/// Words that name a place as a URI or a location (`uri`, `url`,
/// `href`, `location`, …), at the end of an argument name (separators
/// removed, lower case: `resourceUri`, `file_url`, `fileLocation`).
/// Such an argument's value gets the URL check as every string does;
/// when it is no URL it gets the path check if it reads as a path
/// (`{"uri": "/etc/passwd"}`), or whatever it looks like when one of
/// [`FILE_LOCATION_WORDS`] comes before the word (`file_uri`, `fileUrl`:
/// [`uri_name`]). A location word after a file word (`fileLocation`,
/// `dir_location`) makes a path name ([`is_path_name`]).
pub const URI_ARGUMENT_WORDS: &[&str] = &[
    "uri",
    "uris",
    "url",
    "urls",
    "urn",
    "href",
    "hrefs",
    "link",
    "links",
    "location",
    "locations",
    "loc",
    "locs",
    "locator",
    "locators",
];

/// Last words of an argument name that names a network host
/// ([`host_name`]: `host`, `hostName`, `api_endpoint`, `serverDomain`,
/// `bind_addr`).
pub const HOST_ARGUMENT_WORDS: &[&str] = &[
    "host",
    "hosts",
    "hostname",
    "hostnames",
    "endpoint",
    "endpoints",
    "server",
    "servers",
    "domain",
    "domains",
    "domainname",
    "domainnames",
    "origin",
    "origins",
    "website",
    "addr",
    "addrs",
    "fqdn",
    "fqdns",
];

/// Words written after a host word that keep its meaning, as one word
/// with it (`hostip`, `serverip`, `ipaddress`: [`host_name`]), besides
/// [`HOST_NAME_ENDINGS`] as words of their own.
pub const HOST_COMPOUND_ENDINGS: &[&str] = &["ip", "ips", "address", "addresses"];

/// Words that, written as one with `ip` or `ips` after them, name a host's
/// address ([`host_name`]: `srcip`, `remoteip`, `bindip`, as `src_ip` and
/// `remoteIp` do): where, or whose, an endpoint is. A word not here keeps
/// its own meaning (`zip`, `skip`, `tooltip`, `vip`).
pub const HOST_COMPOUND_HEADS: &[&str] = &[
    "src",
    "source",
    "dst",
    "dest",
    "destination",
    "remote",
    "local",
    "bind",
    "listen",
    "peer",
    "target",
    "client",
    "public",
    "private",
    "external",
    "internal",
    "gateway",
    "proxy",
    "upstream",
    "node",
    "device",
    "router",
    "nat",
    "wan",
    "lan",
    "static",
    "floating",
    "elastic",
    "primary",
    "secondary",
    "agent",
    "sender",
    "receiver",
    "user",
];

/// Endings of an argument name that names a text a program parses into
/// settings, hosts among them ([`settings_name`]): a connection string
/// (`dsn`, `conninfo`, `connection_string`, `odbc`), a program's arguments
/// (`args`, `argv`, `flags`), an environment (`env`). Configuration files
/// and queries are not among them (their `host=` is written to, or
/// searched for, not connected to), nor shell commands (`command`, `cmd`:
/// a shell reads anything into an address, quoting, `/dev/tcp/…`; a tool
/// that runs one is denied or trusted whole).
pub const SETTINGS_ARGUMENT_WORDS: &[&str] = &[
    "dsn",
    "conninfo",
    "connection",
    "connectionstring",
    "connstring",
    "connstr",
    "odbc",
    "args",
    "argv",
    "flags",
    "env",
    "environ",
    "environment",
];

/// Last words that name an IP address as a whole word, never as the end
/// of a longer one ([`host_name`]: `ip`, `clientIp`, `remote_IP`; `zip`
/// and `tooltip` name none; `ipv` is `ipv4` and `ipv6` without the digit
/// a name's last word drops).
pub const HOST_ADDRESS_WORDS: &[&str] = &["ip", "ips", "ipv", "ipv4s", "ipv6s"];

/// Last words that keep a host name's meaning after one of
/// [`HOST_ARGUMENT_WORDS`] or [`HOST_ADDRESS_WORDS`] ([`host_name`]:
/// `hostList`, `servers_array`, `server_address`, `hostIp`,
/// `ip_address`, `ipAddressList`). `address` alone names no host
/// (`email_address`, a postal address).
pub const HOST_NAME_ENDINGS: &[&str] = &[
    "list",
    "lists",
    "array",
    "arrays",
    "address",
    "addresses",
    "ip",
    "ips",
    "ipv",
    "csv",
    "str",
    "string",
    "spec",
    "json",
];

/// Words before `addr` that make it a hardware, bus or memory address,
/// no network host ([`host_name`]: `i2c_addr`, `regAddr`, `mem_addr`,
/// `modbus_addr`, `mac_addr`).
pub const HARDWARE_ADDRESS_WORDS: &[&str] = &[
    "i2c",
    "spi",
    "reg",
    "register",
    "mem",
    "memory",
    "slave",
    "modbus",
    "device",
    "mac",
    "hw",
    "hardware",
    "bluetooth",
    "ble",
    "eth",
    "ethernet",
    "phys",
    "physical",
    "virt",
    "virtual",
    "base",
    "offset",
    "start",
    "end",
    "load",
    "entry",
    "return",
    "ret",
    "stack",
    "heap",
    "func",
    "function",
    "symbol",
    "sym",
    "page",
    "bus",
    "pci",
    "usb",
    "eeprom",
    "flash",
    "rom",
    "ram",
    "dma",
    "io",
    "mmio",
    "gpio",
    "unit",
    "mbus",
    "lora",
    "zigbee",
    "nfc",
];

/// `true` for a name whose last word is `addr` or `addrs` after one of
/// [`HARDWARE_ADDRESS_WORDS`] (`i2c_addr`).
fn hardware_address(name: &str) -> bool {
    let word = last_word(name);
    let before = before_word(name, word);
    ["addr", "addrs"]
        .iter()
        .any(|a| a.eq_ignore_ascii_case(word))
        && !before.is_empty()
        && HARDWARE_ADDRESS_WORDS
            .iter()
            .any(|w| w.eq_ignore_ascii_case(last_word(before)))
}

/// `true` when an argument called `name` names a network host: its last
/// word, or its last words joined, is one of [`HOST_ARGUMENT_WORDS`]
/// (`host`, `target_host`, `hostName`, `apiEndpoint`), its last word one
/// of [`HOST_ADDRESS_WORDS`] (`ip`, `clientIp`), or either comes before
/// words of [`HOST_NAME_ENDINGS`] (`hostList`, `server_address`,
/// `ip_address`), but never `addr` after one of [`HARDWARE_ADDRESS_WORDS`]
/// (`i2c_addr`). Bounded by the name's length.
pub fn host_name(name: &str) -> bool {
    alternatives_of(name).iter().map(String::as_str).any(|alt| {
        let mut rest = alt;
        // The name, then without each of its last words that
        // `HOST_NAME_ENDINGS` holds (at most one per word of the name).
        loop {
            if hardware_address(rest) {
                return false;
            }
            let joined = joined_lower(rest);
            let word = last_word(rest);
            // `hostip`, `serverIp`, `ipaddress`: a host word and an
            // address word written as one.
            let compound = HOST_COMPOUND_ENDINGS.iter().any(|e| {
                joined.strip_suffix(e).is_some_and(|head| {
                    HOST_ARGUMENT_WORDS.iter().any(|w| head.ends_with(w))
                        || HOST_ADDRESS_WORDS.contains(&head)
                        || (e.starts_with("ip") && HOST_COMPOUND_HEADS.contains(&head))
                })
            });
            if compound
                || HOST_ARGUMENT_WORDS.iter().any(|w| joined.ends_with(w))
                || HOST_ADDRESS_WORDS
                    .iter()
                    .any(|w| w.eq_ignore_ascii_case(word))
                // `IPv4`, `hostIPv6` (a capital run before `v` is one word;
                // `RIPv2`, `MIPv6` are other words).
                || last_segment(rest).strip_suffix("IPv").is_some_and(|head| {
                    !head.ends_with(|c: char| c.is_uppercase())
                })
            {
                return true;
            }
            let before = before_word(rest, word);
            // `ip_v4`, `server_v2`: a version after the host word.
            let version = word.eq_ignore_ascii_case("v");
            if before.is_empty()
                || !(version
                    || HOST_NAME_ENDINGS
                        .iter()
                        .any(|e| e.eq_ignore_ascii_case(word)))
            {
                return false;
            }
            rest = before;
        }
    })
}

/// `true` when an argument called `name` holds settings text: its words
/// joined end with one of [`SETTINGS_ARGUMENT_WORDS`] (`pg_dsn`,
/// `connectionString`, `extra_args`, `docker_env`). Bounded by the name's
/// length.
pub fn settings_name(name: &str) -> bool {
    alternatives_of(name).iter().map(String::as_str).any(|alt| {
        let joined = joined_lower(alt);
        SETTINGS_ARGUMENT_WORDS.iter().any(|w| joined.ends_with(w))
    })
}

/// `true` when a member called `name`, in an object under a host-named
/// key, holds the host itself: its last word is one of
/// [`HOST_NAME_ENDINGS`] (`{"server": {"address": "127.1"}}`,
/// `{"proxy_host": {"ip": "10.1"}}`). Bounded by the name's length.
pub fn host_member_name(name: &str) -> bool {
    alternatives_of(name).iter().map(String::as_str).any(|alt| {
        let word = last_word(alt);
        HOST_NAME_ENDINGS
            .iter()
            .any(|e| e.eq_ignore_ascii_case(word))
    })
}

/// `true` when an argument called `name` names an address of any kind:
/// its last word is, or ends with, `address` or `addresses` (`address`,
/// `remote_address`, `bindAddress`, `bindaddress`, `ipv4address`;
/// `server_address` is a host name, [`host_name`]). Its text is read as the words of a host (an IP address
/// among them is one: `::1`, `127.1`), never as one name, as a postal or
/// e-mail address may be there (`1 Main St`, `a@example.com`). Bounded by
/// the name's length.
pub fn address_name(name: &str) -> bool {
    alternatives_of(name).iter().map(String::as_str).any(|alt| {
        let mut rest = alt;
        // The name, then without each last word of `HOST_NAME_ENDINGS`
        // or a version (`address_list`, `address_v6`).
        loop {
            let word = last_word(rest);
            let lower = word.to_ascii_lowercase();
            if lower.ends_with("address") || lower.ends_with("addresses") {
                return true;
            }
            let before = before_word(rest, word);
            let peeled = word.eq_ignore_ascii_case("v")
                || HOST_NAME_ENDINGS
                    .iter()
                    .any(|e| e.eq_ignore_ascii_case(word));
            if before.is_empty() || !peeled {
                return false;
            }
            rest = before;
        }
    })
}

/// `name` before its last word `word` (a slice of it), without the
/// separators at its end: `host_list` before `list` is `host`.
fn before_word<'a>(name: &'a str, word: &str) -> &'a str {
    let start = (word.as_ptr() as usize).saturating_sub(name.as_ptr() as usize);
    name.get(..start)
        .unwrap_or_default()
        .trim_end_matches(['_', '-', '.', ' '])
}

/// Words before one of [`URI_ARGUMENT_WORDS`] that make it a file's
/// location (`file_uri`, `fileUrl`, `localPath`, `dirLocation`).
pub const FILE_LOCATION_WORDS: &[&str] = &[
    "file",
    "files",
    "path",
    "paths",
    "dir",
    "dirs",
    "directory",
    "folder",
    "local",
    "fs",
    "disk",
];

/// What an argument name says of its value when it names a URI or a
/// location ([`URI_ARGUMENT_WORDS`]): `Some(true)` for a file's
/// (`file_uri`, `fileUrl`: a value that is no URL is a path), `Some(false)`
/// for any other (`uri`, `href`, `resourceUrl`: a value that is no URL is a
/// path when it reads as one). `None` for other names. Bounded by the
/// name's length.
pub fn uri_name(name: &str) -> Option<bool> {
    alternatives_of(name)
        .iter()
        .map(String::as_str)
        .filter_map(|alt| {
            let joined = joined_lower(alt);
            let base = URI_ARGUMENT_WORDS
                .iter()
                .find_map(|w| joined.strip_suffix(w))?;
            Some(FILE_LOCATION_WORDS.iter().any(|f| base.ends_with(f)))
        })
        .reduce(|a, b| a || b)
}

/// An identifier in lower case without its separators (`_`, `-`, `.`,
/// space) and trailing digits: `file_Path2` is `filepath`.
fn joined_lower(name: &str) -> String {
    name.trim_end_matches(|c: char| c.is_ascii_digit() || matches!(c, '_' | '-' | '.' | ' '))
        .chars()
        .filter(|c| !matches!(c, '_' | '-' | '.' | ' '))
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

/// Most symbolic links followed while resolving one path (Linux's own bound).
pub const MAX_SYMLINKS: usize = crate::confine::MAX_SYMLINK_FOLLOWS;

/// Longest path accepted, in bytes (Linux `PATH_MAX`).
pub const MAX_PATH_BYTES: usize = 4096;

/// The endings that make an argument name a path name whatever comes
/// before them, compared with the name's separators (`_`, `-`, `.`, space)
/// and its trailing digits removed, in ASCII lower case (`logfile`,
/// `basedir`, `fpath`, `mountPoint`, `config_file_path`), after one
/// collection word at its end (`list`, `array`: `filePathList`).
pub const PATH_NAME_ENDINGS: &[&str] = &[
    "path",
    "paths",
    "file",
    "files",
    "dir",
    "dirs",
    "directory",
    "directories",
    "folder",
    "folders",
    "mountpoint",
    "mountpoints",
    "pathlike",
    "pathlikes",
];

/// Names that end as [`PATH_NAME_ENDINGS`] do but name no file (compared
/// as the endings are, at the name's end: `userProfile`, `xpath`).
pub const NOT_PATH_NAME_ENDINGS: &[&str] = &[
    "profile",
    "profiles",
    "xpath",
    "xpaths",
    "jsonpath",
    "jsonpaths",
    "nadir",
];

/// What follows a leading drive letter or one-letter scheme (`C:`,
/// `a:`), the path a Windows server or a URL parser reads; `None` when the
/// text has none.
pub(crate) fn drive_rest(text: &str) -> Option<&str> {
    let mut chars = text.chars();
    match (chars.next(), chars.next()) {
        (Some(letter), Some(':')) if letter.is_ascii_alphabetic() => Some(chars.as_str()),
        _ => None,
    }
}

/// The readings of one form of a path argument that [`Roots::check`]
/// checks: as written; as a URL parser reads it ([`lenient_form`]: tab, CR
/// and LF deleted, C0 controls and spaces trimmed, so `\u{1}/etc/passwd`
/// and `a\t:/etc/passwd` are absolute); of each, as a server that drops
/// hidden characters and normalises compatibility forms reads it (NFKC
/// of [`super::hidden::shown`]: terminal escapes and the characters the
/// screen calls hidden dropped: `\u{AD}..`, `..\u{200B}`, `..\x1b[0m`,
/// `．．` and `․․` are `..`; attack s71-B, F3),
/// its dot segments as a lenient server reads them ([`dot_segments`]);
/// and of each of those, as a Windows server reads it, with every `\` a
/// separator (`..\..\x`), its dot segments read so too. At most eight.
fn readings(form: &str) -> Vec<std::borrow::Cow<'_, str>> {
    use std::borrow::Cow;
    let mut out = vec![Cow::Borrowed(form)];
    let lenient = lenient_form(form);
    if lenient != form {
        out.push(lenient);
    }
    let nfkc = icu_normalizer::ComposingNormalizerBorrowed::new_nfkc();
    let folded: Vec<String> = out
        .iter()
        .map(|r| {
            let shown = super::hidden::shown(r);
            let normal = nfkc.normalize(&shown);
            dot_segments(&normal).unwrap_or_else(|| normal.into_owned())
        })
        .collect();
    for f in folded {
        if out.iter().all(|r| *r != f) {
            out.push(Cow::Owned(f));
        }
    }
    let slashed: Vec<_> = out
        .iter()
        .filter(|r| r.contains('\\'))
        .map(|r| {
            let slashed = r.replace('\\', "/");
            Cow::Owned(dot_segments(&slashed).unwrap_or(slashed))
        })
        .collect();
    out.extend(slashed);
    out
}

/// `text` with each `/`-separated segment that a lenient server reads as
/// a dot segment written as one: a segment of dots among marks (`Mn`,
/// `Me`: `..\u{338}`, `\u{307}..`, which a server folding to ASCII drops),
/// hidden characters and white space (which Windows trims at a segment's
/// end: `.. `), or of three dots or more (`...`, which Windows trims to
/// nothing or reads as `..`), is `.` when it holds one dot and `..` when
/// more (attack s72-B, F5). `None` when no segment changes. A file or
/// directory named only with dots is so read as `..` (a false positive
/// the path check accepts: it fails closed).
fn dot_segments(text: &str) -> Option<String> {
    use icu_properties::{props::GeneralCategory, CodePointMapData};
    let categories = CodePointMapData::<GeneralCategory>::new();
    let read = |segment: &str| -> Option<&'static str> {
        let mut dots = 0_usize;
        for c in segment.chars() {
            if c == '.' {
                dots += 1;
            } else if !(c.is_whitespace()
                || super::hidden::class(c).is_some()
                || matches!(
                    categories.get(c),
                    GeneralCategory::NonspacingMark | GeneralCategory::EnclosingMark
                ))
            {
                return None;
            }
        }
        let read = match dots {
            0 => return None,
            1 => ".",
            _ => "..",
        };
        (read != segment).then_some(read)
    };
    if text.split('/').all(|segment| read(segment).is_none()) {
        return None;
    }
    let segments: Vec<&str> = text
        .split('/')
        .map(|segment| read(segment).unwrap_or(segment))
        .collect();
    Some(segments.join("/"))
}

/// `true` when an argument called `name` holds a path. A name of
/// alternatives (`path_or_url`, `pathOrUrl`, `filepath_or_buffer`: words
/// on both sides of a word `or`) holds a path when any alternative does:
/// a server reads the value either way. An alternative holds one when its
/// last word, its last two words joined (`fileName`, `file_name`,
/// `dir_name` are `filename`, `dirname`), or its whole last segment in any
/// case (`PaThS`) is one of [`PATH_ARGUMENT_NAMES`]; or when it ends with
/// one of [`PATH_NAME_ENDINGS`] and none of [`NOT_PATH_NAME_ENDINGS`],
/// before or after a last `name`/`names` (`directoryName`, `dir_names`,
/// `pathNameList`).
pub fn is_path_name(name: &str) -> bool {
    alternatives_of(name)
        .iter()
        .map(String::as_str)
        .any(is_one_path_name)
}

/// The alternatives ([`alternatives`]) of each reading of an argument
/// name ([`bare_names`]).
fn alternatives_of(name: &str) -> Vec<String> {
    bare_names(name)
        .iter()
        .flat_map(|bare| alternatives(bare).map(str::to_owned))
        .collect()
}

/// An argument name as [`is_path_name`] and [`uri_name`] read it: without
/// what a reader does not see ([`super::hidden::shown`]: `path\u{202E}`,
/// `path\x1b[31m` are `path`; attack s74-B, F2), in Unicode NFKC
/// (`ｐａｔｈ` is `path`), without the characters that are no letter or
/// digit around it (`path:`, `$path`, `@path`) and without a version
/// after it (`path_v2`, `pathV2`; attack s76-B, F4). A form field's name
/// (`paths[]`, `path[0]`, `opts[path]`, `files[0][path]`) is read two
/// ways, as the name before its brackets and as the last name in them
/// (the key a form parser such as `qs` gives the value), and holds what
/// either reading holds. Bounded by the name's length.
fn bare_names(name: &str) -> Vec<String> {
    // The key as written, and as a form parser (`qs`, PHP) or a C string
    // reads it: cut at a NUL, percent-decoded (attack s77-B, F2).
    // One step after another, as such a parser takes them (attack s78-B,
    // F4: `path%00x`).
    let cut = name.split('\0').next().unwrap_or(name);
    let decoded = percent_encoding::percent_decode_str(cut).decode_utf8_lossy();
    let decoded = decoded.split('\0').next().unwrap_or_default();
    let mut out: Vec<String> = Vec::new();
    for spelling in [name, cut, decoded] {
        for reading in spelling_readings(spelling) {
            if !out.contains(&reading) {
                out.push(reading);
            }
        }
    }
    out
}

/// [`bare_names`] of one spelling of a name: without what a reader does
/// not see, in NFKC, without text after a form field's last `]`, read
/// before its brackets and as the last name inside them, each without a
/// version after it and, as another reading, without qualifier words
/// ([`unqualified`]).
fn spelling_readings(name: &str) -> Vec<String> {
    let shown = super::hidden::shown(name);
    let nfkc = icu_normalizer::ComposingNormalizerBorrowed::new_nfkc().normalize(&shown);
    let mut bare: &str = &nfkc;
    // `qs` drops what follows a field's last `]` (`opts[path]x`).
    if let Some(close) = bare
        .rfind(']')
        .filter(|&c| bare.get(..c).is_some_and(|b| b.contains('[')))
    {
        bare = bare.get(..=close).unwrap_or(bare);
    }
    let mut field = None;
    while let Some(open) = bare.strip_suffix(']').and_then(|b| b.rfind('[')) {
        let inside = bare
            .get(open.saturating_add(1)..bare.len().saturating_sub(1))
            .unwrap_or_default();
        if field.is_none() && inside.chars().any(char::is_alphabetic) {
            field = Some(inside);
        }
        bare = bare.get(..open).unwrap_or_default();
    }
    let mut out = Vec::new();
    for reading in std::iter::once(bare).chain(field) {
        let plain = without_version(reading.trim_matches(|c: char| !c.is_alphanumeric()));
        out.push(plain.to_owned());
        if let Some(stem) = unqualified(plain) {
            out.push(stem);
        }
    }
    out
}

/// Words that qualify the word before them without changing what the
/// value is (`path_str`, `pathInput`, `path_new`, `path_glob`,
/// `paths_dict`): a name ending in them is read without them too
/// (attack s77-B, F1). Measures of a thing (`size`, `count`, `length`,
/// `exists`, `type`) are not among them: `file_size` holds no path. Nor
/// are words that name something of the thing (attack s80 on #20, 3):
/// `params` (`pathParams`, a URL path template's parameters), `version`
/// (`file_version`, a version id; a numbered version after a word,
/// `path_version2`, is a version, `unqualified`) and `prefix`
/// (`file_name_prefix`; after a path word a path's prefix is a path,
/// [`PATH_ROLE_WORDS`]: `path_prefix`).
pub const QUALIFIER_WORDS: &[&str] = &[
    "new",
    "old",
    "latest",
    "next",
    "prev",
    "previous",
    "current",
    "cur",
    "orig",
    "original",
    "str",
    "string",
    "value",
    "val",
    "arg",
    "args",
    "argument",
    "input",
    "glob",
    "globs",
    "set",
    "tuple",
    "seq",
    "dict",
    "map",
    "raw",
    "abs",
    "absolute",
    "rel",
    "relative",
    "full",
    "real",
    "resolved",
    "normalized",
    "norm",
    "spec",
    "opt",
    "option",
    "override",
    "default",
    "tmp",
    "temp",
    "beta",
    "alpha",
];

/// `name` without the qualifier words ([`QUALIFIER_WORDS`]) and versions
/// (`v2`, `v2beta`, `rc1`, `version2`, `ver2`, a `v2` written onto the
/// word before it, `pathv2`) at its end, when a word is left; `None` when
/// none is there. `version` and `ver` without a number are no version
/// (`file_version` holds a version id). Bounded by the name's length
/// (each turn drops a word).
fn unqualified(name: &str) -> Option<String> {
    let is_version = |w: &str| {
        let lower = w.to_ascii_lowercase();
        let numbered = |word: &str| {
            let r = lower.strip_prefix(word)?;
            let after = r.trim_start_matches(|c: char| c.is_ascii_digit());
            (after.len() < r.len()).then_some(after)
        };
        let rest = numbered("version").or_else(|| numbered("ver")).or_else(|| {
            lower
                .strip_prefix('v')
                .or_else(|| lower.strip_prefix("rc"))
                .map(|r| r.trim_start_matches(|c: char| c.is_ascii_digit()))
        });
        rest.is_some_and(|r| r.is_empty() || QUALIFIER_WORDS.contains(&r))
    };
    let mut rest = name;
    loop {
        let word = last_word(rest);
        let before = before_word(rest, word);
        let lower = word.to_ascii_lowercase();
        // The word with the digits after it (`version2`).
        let start = (word.as_ptr() as usize).saturating_sub(rest.as_ptr() as usize);
        let numbered = rest.get(start..).unwrap_or(word);
        if before.is_empty() || !(is_version(numbered) || QUALIFIER_WORDS.contains(&lower.as_str()))
        {
            break;
        }
        rest = before;
    }
    // A version written onto the last word: `pathv2`, `filepathv2` (a
    // stem of three letters or more: `dev2` stays).
    let head = rest.trim_end_matches(|c: char| c.is_ascii_digit());
    if head.len() < rest.len() {
        if let Some(stem) = head
            .strip_suffix(['v', 'V'])
            .filter(|s| s.len() >= 3 && s.ends_with(char::is_alphabetic))
        {
            rest = stem;
        }
    }
    (rest != name && !rest.is_empty()).then(|| rest.to_owned())
}

/// `name` without a version at its end: `_v2`, `-v2`, `.v2`, `V2` after a
/// lower-case letter. `dev2` and a name that is only a version stay.
fn without_version(name: &str) -> &str {
    let head = name.trim_end_matches(|c: char| c.is_ascii_digit());
    if head.len() == name.len() {
        return name;
    }
    let Some(before) = head.strip_suffix(['v', 'V']) else {
        return name;
    };
    match before.strip_suffix(['_', '-', '.', ' ']) {
        Some(stem) if !stem.is_empty() => stem,
        _ if head.ends_with('V') && before.ends_with(char::is_lowercase) => before,
        _ => name,
    }
}

/// The alternatives of an identifier: its parts between words `or` (any
/// case; a camelCase `Or` is a word when a capital or the end follows it).
/// The whole name when it has no such word. Bounded by the name's length.
fn alternatives(name: &str) -> impl Iterator<Item = &str> {
    let bytes = name.as_bytes();
    let is_sep = |b: u8| matches!(b, b'_' | b'-' | b'.' | b' ');
    // Byte ranges of the words `or`.
    let mut cuts = Vec::new();
    let mut i = 0;
    while i + 1 < bytes.len() {
        let (a, b) = (bytes.get(i).copied(), bytes.get(i + 1).copied());
        let starts = i == 0
            || bytes.get(i - 1).copied().is_some_and(is_sep)
            || (a == Some(b'O') && bytes.get(i - 1).is_some_and(u8::is_ascii_lowercase));
        let after = bytes.get(i + 2).copied();
        let ends = match after {
            None => true,
            Some(c) => is_sep(c) || (a == Some(b'O') && c.is_ascii_uppercase()),
        };
        if starts
            && ends
            && a.is_some_and(|c| c.eq_ignore_ascii_case(&b'o'))
            && b.is_some_and(|c| c.eq_ignore_ascii_case(&b'r'))
        {
            cuts.push((i, i + 2));
            i += 2;
        } else {
            i += 1;
        }
    }
    let mut parts = Vec::with_capacity(cuts.len() + 1);
    let mut from = 0;
    for (start, end) in cuts {
        parts.push(name.get(from..start).unwrap_or_default());
        from = end;
    }
    parts.push(name.get(from..).unwrap_or_default());
    parts
        .into_iter()
        .map(|p| p.trim_matches(['_', '-', '.', ' ']))
        .filter(|p| !p.is_empty())
}

/// Verbs whose `_to`, `_as` or `_into` names where a file goes
/// (`save_to`, `saveAs`, `export_to`, `download_into`: attack s79-B, F3).
pub const DESTINATION_VERBS: &[&str] = &[
    "save", "write", "export", "download", "output", "dump", "store", "extract", "unzip", "untar",
    "clone", "checkout", "render", "install", "upload", "mount",
];

/// Words before `source` or `src` that make it code, not a file
/// (`cell_source`, `code_src`: a notebook cell's text; attack s79-B, F5).
pub const CODE_SOURCE_WORDS: &[&str] = &[
    "cell", "code", "notebook", "snippet", "script", "sql", "query", "html", "markdown", "page",
    "template", "prompt", "shader", "function", "program",
];

/// Words before `source` or `sources` (not `src`) that make it the text
/// an edit replaces or writes, not a file (`new_source`, `old_source`:
/// a notebook cell's source, Claude Code's `NotebookEdit`; attack s80 on
/// #20, 3).
pub const EDITED_SOURCE_WORDS: &[&str] = &["new", "old"];

/// [`is_path_name`] of one alternative.
fn is_one_path_name(name: &str) -> bool {
    let is = |w: &str| {
        PATH_ARGUMENT_NAMES
            .iter()
            .any(|n| n.eq_ignore_ascii_case(w))
    };
    let word = last_word(name);
    let lower_words: Vec<String> = words(name).iter().map(|w| w.to_ascii_lowercase()).collect();
    let last_two = lower_words
        .len()
        .checked_sub(2)
        .and_then(|i| lower_words.get(i..));
    if let Some([before, last]) = last_two {
        if ["source", "sources", "src", "srcs"].contains(&last.as_str())
            && CODE_SOURCE_WORDS.contains(&before.as_str())
        {
            return false;
        }
        if ["source", "sources"].contains(&last.as_str())
            && EDITED_SOURCE_WORDS.contains(&before.as_str())
        {
            return false;
        }
        // `save_as`, `write_as` name a file; `export_as`, `download_as`
        // a format (attack s80-B, N5).
        let as_file = last == "as" && ["save", "write"].contains(&before.as_str());
        if (as_file || ["to", "into", "at"].contains(&last.as_str()))
            && DESTINATION_VERBS.contains(&before.as_str())
        {
            return true;
        }
    }
    let abbreviation = PATH_ABBREVIATIONS
        .iter()
        .any(|a| a.eq_ignore_ascii_case(last_segment(name)));
    // A plural of one (`homes`) as the one.
    let plural = word
        .strip_suffix(['s', 'S'])
        .is_some_and(|one| !one.is_empty() && is(one));
    if is(word) || plural || is(last_segment(name)) || abbreviation || has_path_ending(name) {
        return true;
    }
    // A location after a file word: `fileLocation`, `dir_loc`.
    if uri_name(name) == Some(true)
        && URI_ARGUMENT_WORDS
            .iter()
            .filter(|w| w.starts_with("loc"))
            .any(|w| joined_lower(name).ends_with(w))
    {
        return true;
    }
    let before = before_word(name, word);
    (!before.is_empty() && is(&format!("{}{word}", last_word(before))))
        || headed_by_a_path_word(name)
}

/// Words after a path word ([`PATH_NAME_ENDINGS`]) that name the file's
/// role or place among others, so the name still holds a path
/// (`path_a`, `path_left`, `file_target`, `path_optional`,
/// `path_entries`), besides [`QUALIFIER_WORDS`], a single letter and
/// digits; compared in lower case, a plural as its singular. Any other
/// word makes the name something of the file's (`fileKey`,
/// `folder_token`, `file_size`, `path_method`): a name that holds a path
/// under a word not listed here gets a `kind = "path"` rule.
pub const PATH_ROLE_WORDS: &[&str] = &[
    "prefix",
    "tgt",
    "bak",
    "cache",
    "active",
    "existing",
    "changed",
    "global",
    "project",
    "read",
    "write",
    "open",
    "load",
    "scan",
    "watch",
    "delete",
    "remove",
    "upload",
    "download",
    "save",
    "left",
    "right",
    "base",
    "head",
    "local",
    "remote",
    "in",
    "out",
    "src",
    "dst",
    "source",
    "target",
    "dest",
    "destination",
    "optional",
    "required",
    "req",
    "maybe",
    "nullable",
    "only",
    "here",
    "used",
    "given",
    "provided",
    "supplied",
    "requested",
    "candidate",
    "choice",
    "selection",
    "selected",
    "entry",
    "entries",
    "item",
    "element",
    "list",
    "array",
    "one",
    "two",
    "first",
    "second",
    "third",
    "last",
    "primary",
    "secondary",
    "main",
    "other",
    "extra",
    "alt",
    "backup",
    "output",
    "result",
    "results",
    "root",
    "home",
    "parent",
    "child",
    "from",
    "to",
    "hint",
    "like",
    "loc",
    "location",
    "on",
    "off",
    "obj",
    "object",
];

/// Words after a path word (`path`, `paths`, `filepath`, not `file`: a
/// file's text is its contents, a path's text is the path) that still
/// name the path (`path_text`, `path_data`, `path_info`, `pathStrings`).
pub const PATH_TEXT_WORDS: &[&str] = &["text", "data", "info", "strs", "strings", "chars", "name"];

/// Last words of a member name that holds what a file holds or says
/// (`content`, `newText`, `message`, `description`): in an object under a
/// path-named key (`{"files": [{"path": …, "content": …}]}`, GitHub's
/// `push_files`) such a member is text, not a member whose text may be a
/// path (attack s79-B, F2). Compared in lower case, a plural as its
/// singular.
pub const FILE_CONTENT_WORDS: &[&str] = &[
    "message",
    "msg",
    "code",
    "prompt",
    "content",
    "contents",
    "text",
    "data",
    "body",
    "bytes",
    "blob",
    "b64",
    "base64",
    "buffer",
    "stream",
    "chunk",
    "payload",
    "description",
    "desc",
    "summary",
    "title",
    "label",
    "caption",
    "comment",
    "note",
    "display",
    "tag",
    "meta",
    "metadata",
    "stat",
    "stats",
    "info",
    "listing",
    "preview",
    "snippet",
    "excerpt",
    "diff",
    "patch",
    "mime",
    "json",
    "yaml",
    "xml",
    "html",
    "csv",
    "markdown",
    "md",
    "upload",
    "binary",
    "encoded",
];

/// `true` when a word of `name` before its last is a path word (one of
/// [`PATH_NAME_ENDINGS`] ends it, none of [`NOT_PATH_NAME_ENDINGS`]:
/// `file`, `dirs`, `filepath`) followed by a preposition ([`PREPOSITIONS`]:
/// `file_to_read`, `path_in_repo`, `filesToRead`), or by words each of
/// which names the file's role or place ([`PATH_ROLE_WORDS`],
/// [`QUALIFIER_WORDS`], a single letter, digits: `path_a`, `fileA`,
/// `path_target`, `dir_entries`) or, after a path word, its text
/// ([`PATH_TEXT_WORDS`]: `path_text`, `path_data`) (attack s78-B, F3).
/// Any other word makes the name something of the file's (`fileKey`,
/// `folder_token`, `file_size`, `file_content`; attack s79-B, F1).
/// Bounded by the name's length.
fn headed_by_a_path_word(name: &str) -> bool {
    let words = words(name);
    let lower: Vec<String> = words.iter().map(|w| w.to_ascii_lowercase()).collect();
    let head = |w: &str| {
        let w = w.trim_end_matches(|c: char| c.is_ascii_digit());
        PATH_NAME_ENDINGS.iter().any(|e| w.ends_with(e))
            && !NOT_PATH_NAME_ENDINGS.iter().any(|e| w.ends_with(e))
    };
    let Some(at) = lower.iter().rposition(|w| head(w)) else {
        return false;
    };
    let Some(after) = lower.get(at.saturating_add(1)..).filter(|a| !a.is_empty()) else {
        return false;
    };
    if after
        .first()
        .is_some_and(|w| PREPOSITIONS.contains(&w.as_str()))
    {
        return true;
    }
    let path_word = lower.get(at).is_some_and(|w| {
        ["path", "paths", "pathlike", "pathlikes"].iter().any(|e| {
            w.trim_end_matches(|c: char| c.is_ascii_digit())
                .ends_with(e)
        })
    });
    let listed = |list: &[&str], w: &str| {
        let singular = w
            .strip_suffix("es")
            .filter(|s| list.contains(s))
            .or_else(|| w.strip_suffix('s'));
        list.contains(&w) || singular.is_some_and(|s| list.contains(&s))
    };
    after.iter().all(|w| {
        // A word and one digit (`path_left2`), not an encoding (`base64`).
        let bare = w.trim_end_matches(|c: char| c.is_ascii_digit());
        let word = if w.len() - bare.len() <= 1 {
            bare
        } else {
            w.as_str()
        };
        bare.is_empty()
            || bare.chars().count() == 1
            || listed(PATH_ROLE_WORDS, word)
            || listed(QUALIFIER_WORDS, word)
            || (path_word && listed(PATH_TEXT_WORDS, word))
    })
}

/// `true` when the last word of `name` ([`words`]) is one of
/// [`FILE_CONTENT_WORDS`] (`content`, `newText`, `commit_message`) and the
/// name is no path name. Bounded by the name's length.
pub(crate) fn content_name(name: &str) -> bool {
    // The last word as written, digits too (`base64`).
    let word = words(name)
        .last()
        .map(|w| w.to_ascii_lowercase())
        .unwrap_or_default();
    let singular = word.strip_suffix('s').unwrap_or(&word);
    !is_path_name(name)
        && (FILE_CONTENT_WORDS.contains(&word.as_str()) || FILE_CONTENT_WORDS.contains(&singular))
}

/// Prepositions after a path word that keep the name a path name (`file_to_read`,
/// `path_in_repo`: [`is_path_name`]).
pub const PREPOSITIONS: &[&str] = &[
    "to", "for", "in", "from", "with", "of", "on", "into", "under", "inside", "at",
];

/// The words of an identifier: split at `_`, `-`, `.`, space and any other
/// character that is no letter or digit, and in camelCase before each
/// capital after a lower-case letter or digit and before the last capital
/// of a run followed by a lower-case letter (`fileMIMEType` is `file`,
/// `MIME`, `Type`). Bounded by the name's length.
fn words(name: &str) -> Vec<&str> {
    let mut out = Vec::new();
    for segment in name.split(|c: char| !c.is_alphanumeric()) {
        let chars: Vec<(usize, char)> = segment.char_indices().collect();
        let mut start = 0;
        for (k, &(i, c)) in chars.iter().enumerate() {
            let prev = k.checked_sub(1).and_then(|p| chars.get(p)).map(|&(_, p)| p);
            let next = chars.get(k.saturating_add(1)).map(|&(_, n)| n);
            // An acronym's plural stays one word (`fileIDs`, `URLs`).
            let plural = next == Some('s')
                && chars
                    .get(k.saturating_add(2))
                    .is_none_or(|&(_, n)| n.is_uppercase());
            let boundary = c.is_uppercase()
                && prev.is_some_and(|p| {
                    p.is_lowercase()
                        || p.is_ascii_digit()
                        || (p.is_uppercase() && next.is_some_and(char::is_lowercase) && !plural)
                });
            if boundary && i > start {
                out.extend(segment.get(start..i));
                start = i;
            }
        }
        if start < segment.len() {
            out.extend(segment.get(start..));
        }
    }
    out
}

/// [`is_path_name`]'s ending rule. Bounded by the name's length.
fn has_path_ending(name: &str) -> bool {
    let joined = joined_lower(name);
    let base = ["list", "array"]
        .iter()
        .find_map(|w| joined.strip_suffix(w))
        .unwrap_or(&joined);
    // `directoryName`, `dir_names`: the ending before a last `name`.
    let named = ["names", "name"]
        .iter()
        .find_map(|w| base.strip_suffix(w))
        .filter(|b| !b.is_empty());
    let ends = |b: &str| {
        PATH_NAME_ENDINGS.iter().any(|e| b.ends_with(e))
            && !NOT_PATH_NAME_ENDINGS.iter().any(|e| b.ends_with(e))
    };
    ends(base) || named.is_some_and(ends)
}

/// The last segment of an identifier: after the last `_`, `-`, `.` or
/// space, digits and separators at its end aside.
fn last_segment(name: &str) -> &str {
    let base =
        name.trim_end_matches(|c: char| c.is_ascii_digit() || matches!(c, '_' | '-' | '.' | ' '));
    let base = if base.is_empty() { name } else { base };
    base.rsplit(['_', '-', '.', ' '])
        .find(|s| !s.is_empty())
        .unwrap_or(base)
}

/// The last word of an identifier, digits at its end aside (`file_path2`,
/// `path_1` → `path`): after the last `_`, `-`, `.` or space, and in
/// camelCase from its last capital (`filePath` → `Path`), a trailing run of
/// capitals being one word (`filePATH` → `PATH`; an all-capital segment is
/// one word: `FILE_PATH` → `PATH`).
fn last_word(name: &str) -> &str {
    let seg = last_segment(name);
    if !seg.chars().any(|c| c.is_lowercase()) {
        return seg;
    }
    let ends_upper = seg.chars().next_back().is_some_and(char::is_uppercase);
    let start = if ends_upper {
        // `filePATH`: the word starts after the last character that is not a capital.
        seg.char_indices()
            .rev()
            .find(|(_, c)| !c.is_uppercase())
            .map(|(i, c)| i.saturating_add(c.len_utf8()))
    } else {
        seg.char_indices()
            .rev()
            .find(|(_, c)| c.is_uppercase())
            .map(|(i, _)| i)
    };
    start.and_then(|i| seg.get(i..)).unwrap_or(seg)
}

/// How the child resolves a relative path (`[paths] relative`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RelativePaths {
    /// Unknown: refused (the default).
    #[default]
    Refuse,
    /// Against each of its allowed directories (the reference filesystem
    /// server): inside a root from every root.
    EachRoot,
    /// Against its working directory (the gateway's own).
    Cwd,
}

/// How the child treats a leading `~` (`[paths] tilde`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TildePaths {
    /// Unknown: refused (the default).
    #[default]
    Refuse,
    /// `~` and `~/…` expand to the child's `HOME`; `~user` is refused.
    Home,
}

/// How the child treats a path naming an environment variable
/// (`[paths] variables`): `$` before a letter, digit, `_` or `{`
/// (`$HOME/.ssh`, `${HOME}`, `/data/$RECYCLE.BIN`), as Python's
/// `os.path.expandvars` and the shells read one. Windows-style `%NAME%`
/// is not taken for a variable in either mode (POSIX `expandvars`, which a
/// child of this gateway runs, leaves it as written): a plain name in both.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum VariablePaths {
    /// Unknown: refused (the default), since a server that expands them
    /// would open another path.
    #[default]
    Refuse,
    /// Taken as written (the reference filesystem server): such a path is
    /// checked as a plain name, confined to the roots like any other.
    Literal,
}

/// `[paths] lists`: whether the child may read one path argument as
/// several paths (a list split at white space, `,`, `;`, `|`, or `:` in a
/// text starting at `/`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PathLists {
    /// It may (the default): each part such a split gives is checked too,
    /// so a path under a root whose own path holds such a character is
    /// refused (its first part names the root's neighbour).
    #[default]
    Split,
    /// It takes each path argument whole (the reference filesystem
    /// server): the text is checked as one path.
    Whole,
}

/// `true` when `root`'s path holds a character where a server taking
/// several paths in one string splits it ([`PathLists::Split`]): every
/// path under it is then refused unless `[paths] lists = "whole"`.
pub fn splits_a_path(root: &Path) -> bool {
    root.to_string_lossy().chars().any(|c| {
        c.is_whitespace()
            || ('\u{1c}'..='\u{1f}').contains(&c)
            || matches!(c, ',' | ';' | '|' | ':')
    })
}

/// The roots, held open, and what is assumed of the child's resolution.
#[derive(Debug, Clone)]
pub struct Roots {
    roots: std::sync::Arc<Vec<Root>>,
    /// Each root as given (absolute, lexically normalised) and canonical.
    lexical: Vec<PathBuf>,
    cwd: PathBuf,
    home: Option<PathBuf>,
    relative: RelativePaths,
    tilde: TildePaths,
    variables: VariablePaths,
}

impl Roots {
    /// Opens each root (each must be an existing directory; relative ones
    /// are taken from `cwd`). `home` is the child's `HOME` (one that is
    /// not absolute counts as none: `~` paths are then refused); `relative`,
    /// `tilde` and `variables` say how the child reads those forms
    /// (`[paths]` in the policy).
    ///
    /// # Errors
    /// The first root that does not exist or is not a directory, named.
    pub fn new(
        roots: &[PathBuf],
        cwd: PathBuf,
        home: Option<PathBuf>,
        relative: RelativePaths,
        tilde: TildePaths,
        variables: VariablePaths,
    ) -> io::Result<Self> {
        let mut open = Vec::with_capacity(roots.len());
        let mut lexical = Vec::with_capacity(roots.len().saturating_mul(2));
        for r in roots {
            let root = Root::new(&cwd.join(r))
                .map_err(|e| io::Error::new(e.kind(), format!("root {}: {e}", r.display())))?;
            lexical.push(normalize(&cwd.join(r)));
            lexical.push(root.path().to_path_buf());
            open.push(root);
        }
        Ok(Self {
            roots: std::sync::Arc::new(open),
            lexical,
            cwd,
            home: home.filter(|h| h.is_absolute()),
            relative,
            tilde,
            variables,
        })
    }

    /// The canonical roots.
    pub fn roots(&self) -> Vec<&Path> {
        self.roots.iter().map(Root::path).collect()
    }

    /// Checks one path argument, as written and as each of its
    /// decodings (a server may percent-decode `%2e%2e%2f` into `../`, or
    /// `unescape` `%u002e`), up to
    /// [`MAX_PERCENT_DECODINGS`](super::MAX_PERCENT_DECODINGS) of either
    /// kind in any order; each form also as a URL parser reads
    /// it ([`lenient_form`](super::lenient_form)), and of each, after a
    /// leading drive or one-letter scheme (`a:/etc/passwd`, `C:..`), as
    /// what follows it: every reading must pass.
    ///
    /// # Errors
    /// `path.outside_root` (one reason for every failure of a written path,
    /// existing or not; another for a form the policy does not resolve,
    /// for percent-encoding that decodes to no UTF-8, and for a path still
    /// encoded after [`MAX_PERCENT_DECODINGS`](super::MAX_PERCENT_DECODINGS) decodings).
    pub fn check(&self, text: &str, rule: &str) -> Result<(), Refusal> {
        let refuse = |why: &str| Err(Refusal::from_denial(&Denial::outside_root(why), rule));
        let decoded = decodings(text);
        // Which roots still name the directory held open, looked at once
        // for every reading of this path.
        let named: Vec<bool> = self.roots.iter().map(Root::still_named).collect();
        for form in decoded.forms() {
            for reading in readings(form) {
                let reading: &str = &reading;
                self.check_form(reading, &named, rule)?;
                // `a:/etc/passwd`, `C:..`: a URL parser reads a one-letter
                // scheme and hands the server the path after it, a Windows
                // server a drive: each reading stays inside too. Each step
                // takes two bytes off a text of at most MAX_PATH_BYTES.
                let mut rest: &str = reading;
                while let Some(after) = drive_rest(rest) {
                    self.check_form(after, &named, rule)?;
                    rest = after;
                }
            }
        }
        if decoded.not_utf8() {
            return refuse("a path whose percent-encoding decodes to no UTF-8");
        }
        if decoded.deeper().next().is_some() {
            return refuse("a path percent-encoded more times than the gateway decodes");
        }
        Ok(())
    }

    /// [`check`](Self::check) of one reading of the path; `named[i]` says
    /// whether root `i` still names the directory held open
    /// ([`Root::still_named`]): one re-pointed confines nothing.
    fn check_form(&self, text: &str, named: &[bool], rule: &str) -> Result<(), Refusal> {
        let refuse = |why: &str| Err(Refusal::from_denial(&Denial::outside_root(why), rule));
        if text.len() > MAX_PATH_BYTES || text.contains('\0') {
            return refuse("the path does not resolve inside any --root directory");
        }
        if !icu_normalizer::ComposingNormalizerBorrowed::new_nfc().is_normalized(text) {
            return refuse("a path not in Unicode NFC: a server that normalises names could open another entry");
        }
        if self.variables == VariablePaths::Refuse && names_a_variable(text) {
            return refuse(
                "a path naming an environment variable (`$NAME`, `${NAME}`): a server that expands them would open another path; the policy does not say the server takes them literally ([paths] variables)",
            );
        }
        // Inside a root on disk (links followed) and lexically (`..` taken
        // textually), each reading the way some server reads it.
        // Why a twin was assumed, when it was not found but not ruled out.
        let unsure = std::cell::Cell::new(None);
        let inside_any = |p: &str| {
            let lexical = normalize(Path::new(p));
            let twin = |path: &Path| match equivalent_entry(path) {
                None => false,
                Some(Twin::Found) => true,
                Some(other) => {
                    unsure.set(Some(other));
                    true
                }
            };
            self.lexical.iter().any(|r| lexical.starts_with(r))
                && self
                    .roots
                    .iter()
                    .zip(named)
                    .any(|(r, named)| *named && r.check_beneath(p).is_ok())
                && !twin(Path::new(p))
                && !twin(&normalize(Path::new(p)))
        };
        let ok = if let Some(rest) = text.strip_prefix('~') {
            let home = match (self.tilde, &self.home) {
                (TildePaths::Home, Some(h)) if rest.is_empty() || rest.starts_with('/') => h,
                (TildePaths::Home, Some(_)) => return refuse(
                    "a `~user` path: [paths] tilde = \"home\" says where the server's own home is, not another user's",
                ),
                (TildePaths::Home, None) => return refuse(
                    "a `~` path: [paths] tilde = \"home\", but the gateway's HOME is unset or not an absolute path",
                ),
                _ => return refuse(
                    "a `~` path: the policy does not say how the server expands it ([paths] tilde)",
                ),
            };
            inside_any(&home.join(rest.trim_start_matches('/')).to_string_lossy())
        } else if Path::new(text).has_root() {
            inside_any(text)
        } else {
            match self.relative {
                RelativePaths::Refuse => {
                    return refuse(
                        "a relative path: the policy does not say how the server resolves it ([paths] relative)",
                    )
                }
                RelativePaths::Cwd => inside_any(&self.cwd.join(text).to_string_lossy()),
                RelativePaths::EachRoot => {
                    !self.roots.is_empty()
                        && self.roots.iter().all(|base| {
                            inside_any(&base.path().join(text).to_string_lossy())
                        })
                }
            }
        };
        match (ok, unsure.get()) {
            (true, _) => Ok(()),
            (false, Some(Twin::TooBig)) => refuse(
                "a name missing from a directory of more entries than gate::MAX_DIR_ENTRIES_SCANNED: too many to rule out a Unicode twin of it (fail closed)",
            ),
            (false, Some(Twin::NotUtf8)) => refuse(
                "a missing name that is not UTF-8: a Unicode twin of it cannot be ruled out",
            ),
            (false, _) => refuse("the path does not resolve inside any --root directory"),
        }
    }
}

/// `true` when `text` names an environment variable as Python's
/// `os.path.expandvars` and the shells read one: `$` before a word
/// character or `{`, anywhere in the path.
fn names_a_variable(text: &str) -> bool {
    text.split('$')
        .skip(1)
        .any(|rest| rest.starts_with(|c: char| c.is_alphanumeric() || c == '_' || c == '{'))
}

/// Most entries of one directory read when looking for a Unicode twin of a
/// missing name; a bigger directory refuses the path (fail closed).
pub const MAX_DIR_ENTRIES_SCANNED: usize = 65_536;

/// Why a missing name may not be what the server opens
/// ([`equivalent_entry`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Twin {
    /// Another entry of its directory has the same NFC form.
    Found,
    /// The directory holds more than [`MAX_DIR_ENTRIES_SCANNED`] entries.
    TooBig,
    /// The name is not UTF-8.
    NotUtf8,
}

/// Whether the first component of `path` that does not exist may have a
/// twin in its directory: another entry with the same NFC form (the
/// reference filesystem server opens that entry for a missing name, so the
/// name taken as written is not what the server reads), or one that could
/// not be ruled out (the directory too big to read whole, the name not
/// UTF-8). `None` when every component exists or the name has no twin.
fn equivalent_entry(path: &Path) -> Option<Twin> {
    let nfc = icu_normalizer::ComposingNormalizerBorrowed::new_nfc();
    let mut prefix = PathBuf::new();
    for c in path.components() {
        let next = prefix.join(c.as_os_str());
        if std::fs::symlink_metadata(&next).is_ok() {
            prefix = next;
            continue;
        }
        let Some(name) = c.as_os_str().to_str() else {
            return Some(Twin::NotUtf8);
        };
        let want = nfc.normalize(name);
        let entries = std::fs::read_dir(&prefix).ok()?;
        for (i, entry) in entries.enumerate() {
            if i >= MAX_DIR_ENTRIES_SCANNED {
                return Some(Twin::TooBig);
            }
            let Ok(entry) = entry else { continue };
            let other = entry.file_name();
            match other.to_str() {
                Some(n) if n != name && nfc.normalize(n) == want => return Some(Twin::Found),
                _ => {}
            }
        }
        return None;
    }
    None
}

/// `path` with `.` and `..` resolved textually (`..` removes the component
/// before it; at the top it stays at `/`), without looking at the disk.
fn normalize(path: &Path) -> PathBuf {
    use std::path::Component;
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use proptest::prelude::Strategy as _;

    /// A path segment and how a lenient server reads it: a plain name (a
    /// name of only dots, three or more, reads `..`), or dots among white
    /// space, hidden characters and marks (one dot reads `.`, more `..`).
    fn segment() -> impl proptest::prelude::Strategy<Value = (String, String)> {
        proptest::prop_oneof![
            "[a-z0-9_.-]{0,5}".prop_map(|s| {
                let read = match s.len() {
                    n if n < 3 || s.chars().any(|c| c != '.') => s.clone(),
                    _ => "..".to_owned(),
                };
                (s, read)
            }),
            proptest::collection::vec(
                proptest::prop_oneof![
                    3 => proptest::prelude::Just("."),
                    1 => proptest::sample::select(vec![
                        " ", "\u{A0}", "\u{3000}", "\u{200B}", "\u{AD}", "\u{202E}", "\u{FE0F}",
                        "\u{338}", "\u{307}", "\u{20DD}", "\u{1}",
                    ]),
                ],
                1..8,
            )
            .prop_filter("dots among others", |parts| {
                parts.contains(&".") && parts.iter().any(|p| *p != ".")
            })
            .prop_map(|parts| {
                let dots = parts.iter().filter(|p| **p == ".").count();
                let read = if dots == 1 { "." } else { ".." };
                (parts.concat(), read.to_owned())
            }),
        ]
    }

    proptest::proptest! {
        /// Exact oracle: each segment is read as [`segment`] says; `None`
        /// exactly when no segment changes.
        #[test]
        fn dot_segments_read_as_a_lenient_server_does(
            segments in proptest::collection::vec(segment(), 1..6),
        ) {
            let text: Vec<&str> = segments.iter().map(|(t, _)| t.as_str()).collect();
            let text = text.join("/");
            let want: Vec<&str> = segments.iter().map(|(_, r)| r.as_str()).collect();
            let want = want.join("/");
            let got = super::dot_segments(&text);
            proptest::prop_assert_eq!(got.is_some(), want != text, "{:?}", text);
            proptest::prop_assert_eq!(got.unwrap_or_else(|| text.clone()), want, "{:?}", text);
        }

        /// Exact oracle: the words of a name joined in snake_case, in
        /// camelCase or in kebab-case are the words it was made of (the
        /// words lower-case letters, a first capital in camelCase), and
        /// a name made of a path word, a preposition and any words is a
        /// path name.
        #[test]
        fn words_are_what_a_name_was_made_of(
            parts in proptest::collection::vec("[a-z][a-z0-9]{1,6}", 1..5),
            style in 0..3_usize,
            rest in proptest::collection::vec("[a-z]{1,6}", 0..3),
        ) {
            let name = match style {
                0 => parts.join("_"),
                1 => parts.join("-"),
                _ => parts
                    .iter()
                    .enumerate()
                    .map(|(i, p)| {
                        if i == 0 {
                            p.clone()
                        } else {
                            let mut c = p.chars();
                            c.next().map(|f| f.to_ascii_uppercase().to_string() + c.as_str()).unwrap_or_default()
                        }
                    })
                    .collect(),
            };
            let got: Vec<String> = super::words(&name).iter().map(|w| w.to_ascii_lowercase()).collect();
            proptest::prop_assert_eq!(&got, &parts, "{}", name);
            let phrase = format!("file_to_{}", rest.join("_"));
            proptest::prop_assert!(is_path_name(&phrase), "{}", phrase);
        }
    }

    #[test]
    fn host_names() {
        for yes in [
            "host",
            "hostName",
            "target_host",
            "apiEndpoint",
            "serverDomain",
            "origin",
            "hosts[]",
            // Collections and addresses of hosts (#20 attack s46b, F3).
            "hostList",
            "host_list",
            "hosts_list",
            "serversArray",
            "hostIp",
            "host_ip",
            "host_addr",
            "hostAddress",
            "serverAddr",
            "server_address",
            "domain_name",
            "ip",
            "IP",
            "clientIp",
            "remote_IP",
            "ip_address",
            "ipAddr",
            "IPAddress",
            "ipAddressList",
            "bind_addr",
            "listenAddr2",
            "redis_addr",
            "peer_addrs",
            "macro_addr",
            // Names of IPv4 and IPv6 addresses, and of hosts written as
            // text (#20 attack s48, F17).
            "ipv4",
            "ipv6",
            "ipv4_address",
            "ipv6Address",
            "ipv6s",
            "host_ipv4",
            "hosts_csv",
            "host_str",
            "hostString",
            "host_spec",
            "hostsJson",
            // Attack s56, N1: the protocol's own spelling, a version after
            // the word, one-word compounds, a fully qualified name.
            "IPv4",
            "IPv6",
            "hostIPv6",
            "ipV4",
            "ip_v4",
            "ip_v6",
            "server_v2",
            "hostip",
            "serverip",
            "serverIps",
            "ipaddress",
            "hostaddress",
            "fqdn",
            "node_fqdn",
            // Review of s56: a qualifier and `ip` written as one.
            "srcip",
            "remoteip",
            "dstips",
            "bindip",
            "publicip",
        ] {
            assert!(host_name(yes), "{yes}");
        }
        for yes in [
            "address",
            "address_list",
            "addressList",
            "address_v6",
            "addressV6",
            "addresses_csv",
            "bindaddress",
            "remoteaddresses",
            "ipv4address",
            "Ipv6address",
        ] {
            assert!(address_name(yes), "{yes}");
        }
        for no in ["addr", "address_book_id", "v", "address_count"] {
            assert!(!address_name(no), "{no}");
        }
        for no in [
            // Hardware, bus and memory addresses (#20 attack s48, FP3).
            "i2c_addr",
            "regAddr",
            "mem_addr",
            "modbus_addr",
            "device_addr_list",
            "MAC_ADDR",
            "path",
            "url",
            "ghostwriter",
            "hostile_text",
            "note",
            "composite",
            "zip",
            "tooltip",
            "relationship",
            "email_address",
            "address",
            "zip_address",
            "list",
            "ip_list_name",
            "host_port",
            "json",
            "spec",
            "csv_string",
            "ipvx",
            "ship_address",
            "membership",
            "skip",
            "vip",
            "v",
            "v2",
            "tip_v2",
            "hostPort",
            "RIPv2",
            "MIPv6",
        ] {
            assert!(!host_name(no), "{no}");
        }
    }

    /// The member of an object under a host-named key that holds the
    /// host itself (#20 attack s47, F8).
    #[test]
    fn host_member_names() {
        for yes in [
            "address",
            "ipAddress",
            "ip",
            "IPS",
            "list",
            "primary_address",
        ] {
            assert!(host_member_name(yes), "{yes}");
        }
        for no in ["value", "version", "addressee", "port", "", "command"] {
            assert!(!host_member_name(no), "{no}");
        }
    }

    #[test]
    fn path_names_by_their_last_word() {
        for name in [
            "path",
            "PATH",
            "file_path",
            "filePath",
            "filepath",
            "pathname",
            "input_path",
            "repo_path",
            "sourcePath",
            "directory_path",
            "dirs",
            "folder",
            "workdir",
            "src",
            "dest",
            "repo-path",
            "FILE_PATH",
            "sourceDir",
            "outputFile",
            "paths_",
            "root",
            "filePATH",
            "sourceDIR",
            "file_path2",
            "path_1",
            "dir-2",
            "inputFilePath3",
            // The last two words joined (attack pass on #20, F5), any case.
            "fileName",
            "file_name",
            "FileName",
            "FILE_NAME",
            "pathName",
            "path_name",
            "dirName",
            "dir_name",
            "folderName",
            "output_file_name",
            "PaThS",
            // Joined words, abbreviations, collections (attack pass on #20, H).
            "logfile",
            "basedir",
            "fpath",
            "mountPoint",
            "mount_points",
            "filePathList",
            "dir_array",
            "keyfile",
            "config-file-path",
            "LOGFILE",
            "userProfilePath",
            "homedir2",
            // A last word that is no ending, in camelCase.
            "projectRoot",
            "backupDest",
            // Before a last `name`, and alternatives (attack pass on #20, F3).
            "directoryName",
            "directory_name",
            "dir_names",
            "fileNameList",
            "file_name_array",
            "pathNameList",
            "dir_name_list",
            "fname",
            "path_or_url",
            "pathOrUrl",
            "file_path_or_url",
            "local_path_or_url",
            "filepath_or_buffer",
            "url_or_path",
            "urlOrPath",
            "URL_OR_PATH",
            "or_path",
            "text-or-file",
            // Plurals and abbreviations (#20 re-attack, N3).
            "destinations",
            "dests",
            "srcs",
            "cwds",
            "dst",
            "output_dst",
            "pathspec",
            "fileSpecs",
            // Names of a file's location, and abbreviations (#20
            // re-attack, N3 rest).
            "fileLocation",
            "file_location",
            "dirLocation",
            "fileLocator",
            "FILE_LOC",
            "fp",
            "fn",
            "FP2",
            "input_fn",
            "out-fp",
            "pth",
            "wd",
            "pwd",
            "home",
            "home_dir",
            "homedir",
            // Form fields, punctuation around, NFKC twins, path-like.
            "paths[]",
            "path[0]",
            "files[][]",
            "path:",
            "$path",
            "@file",
            "__path__",
            "\u{ff50}\u{ff41}\u{ff54}\u{ff48}",
            "path\u{a0}",
            "pathlike",
            "path_like",
            "pathLike",
            // The key a form parser gives the value, and versions after
            // the name (attack s76-B, F4).
            "opts[path]",
            "files[0][path]",
            "a[b][filePath]",
            "opts[path][]",
            "path_v2",
            "file-path.v10",
            "pathV2",
            // Versions and qualifiers after the path word, and keys as a
            // form parser reads them (attack s77-B, F1, F2).
            "pathv2",
            "path_v2_1",
            "path_v2beta",
            "pathV2Beta",
            "path_version2",
            "path_ver2",
            "path_v",
            "filepathv2",
            "filePathV2Beta",
            "path_new",
            "pathStr",
            "path_value",
            "pathArg",
            "pathInput",
            "path_prefix",
            "path_glob",
            "paths_dict",
            "path_rc1",
            "opts[path]x",
            "opts[path]]x",
            "opts%5Bpath%5D",
            "opts%5bfile_path%5d",
            "opts[path%5D",
            "opts.%70ath",
            "path\u{0}x",
            "path%00",
            "path%00x",
            "opts[path%00x]",
            "opts%5Bpath%00x%5D",
            "homes",
            "workdirs",
            // Any other words after a path word (attack s78-B, F3).
            "file_to_read",
            "file_to_open",
            "dir_to_list",
            "path_to_search",
            "paths_to_read",
            "filesToRead",
            "dirs_to_scan",
            "path_for_output",
            "file_for_upload",
            "path_in_repo",
            "file_in_repo",
            "path_with_glob",
            "path_to",
            "pathTo",
            "pathFrom",
            "path_a",
            "pathB",
            "fileA",
            "dir_a",
            "path_left",
            "path_target",
            "path_optional",
            "path_required",
            "path_entries",
            "path_items",
            "path_values",
            "pathStrings",
            "path_texts",
            "path_data",
            "path_info",
            "path_obj",
            "path_hint",
            "path_candidates",
            "filepath_x",
            "pathX",
            "files_with_size",
            "file_path_new_a",
            // Files without a path word (attack s79-B, F3).
            "attachments",
            "attachment",
            "save_to",
            "saveAs",
            "export_to",
            "download_into",
            "outputTo",
            "save_at",
            "mount_at",
            "upload_to",
            "install_to",
            "file_upload",
            "file_tgt",
            "path_cache",
            "file_read",
            "dir_scan",
            "path_left2",
            // A version or a prefix of the path itself (attack s80 on
            // #20, finding 3: the names that stay path names).
            "file_version2",
            "path_ver3",
            "dir_prefix",
            "filePrefix",
            "paths_prefix",
            "new_src",
            "source_new",
        ] {
            assert!(is_path_name(name), "{name}");
        }
        for (name, readings) in [
            ("opts[path]", &["opts", "path"][..]),
            ("files[0][path]", &["files", "path"]),
            ("paths[]", &["paths"]),
            ("path[0]", &["path"]),
            ("path_v2", &["path"]),
            ("dev2", &["dev2"]),
            ("v2", &["v2"]),
            ("ipV6", &["ip"]),
            ("ENV2", &["ENV2"]),
        ] {
            assert_eq!(bare_names(name), readings, "{name}");
        }
        assert_eq!(uri_name("opts[fileUrl]"), Some(true));
        assert!(host_name("opts[host]"));
        // URI names: a file's, whose value is a path when it is no URL;
        // any other, whose value is one when it reads as a path.
        for (name, file) in [
            ("file_uri", true),
            ("fileUri", true),
            ("fileUrl", true),
            ("fileURL", true),
            ("file-href", true),
            ("localUri", true),
            ("path_url", true),
            ("uri", false),
            ("url", false),
            ("URL", false),
            ("href", false),
            ("resourceUri", false),
            ("link", false),
            ("location", false),
            ("save_location", false),
            ("url_or_uri", false),
            ("image_url_or_file_uri", true),
            ("\u{ff46}ile_uri[1]", true),
            ("uris[]", false),
        ] {
            assert_eq!(uri_name(name), Some(file), "{name}");
        }
        for name in [
            "name",
            "query",
            "file",
            "content",
            "fileContent",
            "callbackFn",
        ] {
            assert_eq!(uri_name(name), None, "{name}");
        }
        for name in [
            "url",
            "query",
            "profile",
            "target",
            "output",
            "text",
            "filter",
            "pathology",
            "rootless",
            "",
            "_",
            "fileContent",
            "file_content",
            "srcset",
            "PATHology",
            "userName",
            "file_size",
            "name",
            "123",
            "v2",
            "userProfile",
            "profiles",
            "xpath",
            "jsonpath",
            "list",
            "fileCount",
            "pathList_size",
            "username",
            "profile_name",
            "hostname",
            "url_or_text",
            "colorOrange",
            "or",
            "OR",
            "author_name",
            "error_file_count",
            "callbackFn",
            "fnName",
            "uri",
            "fileUrl",
            "location",
            "homepage",
            "wdth",
            "opts[size]",
            "dev2",
            "path_size",
            "pathCount",
            "path_exists",
            "file_type",
            "path_length_new",
            // Measures, attributes and contents after a path word (attack
            // s78-B, F3: its ordinary keys).
            "file_contents",
            "file_text",
            "file_data",
            "filesize",
            "fileType",
            "file_format",
            "file_count",
            "path_length",
            "pathLength",
            "file_mode",
            "file_hash",
            "file_id",
            "fileId",
            "file_ids",
            "dir_count",
            "path_cost",
            "file_description",
            "file_summary",
            "file_title",
            "folder_name_display",
            "path_pattern",
            "path_regex",
            "filePattern",
            "file_pattern",
            "path_filter",
            "file_filter",
            "file_extension",
            "file_ext",
            "file_encoding",
            "file_mime",
            "fileMimeType",
            "folder_id",
            "folderId",
            "dir_id",
            "filesystem",
            "fileSystem",
            "file_system",
            "file_statuses",
            "pathway",
            "pathways",
            "pathogen",
            "source_language",
            "root_cause",
            "home_team",
            "source_code",
            "sources_count",
            "profile_id",
            "xpath_query",
            "userProfile_name_x",
            "folder_color",
            "file_binary",
            "file_base64",
            "fileBase64",
            "export_as",
            "download_as",
            "move_to",
            "copy_to",
            "files_v2x",
            "pathOrange",
            "filesOrdered",
            // Words after a path word that name something of the file's
            // (attack s79-B, F1, F4).
            "fileKey",
            "folder_token",
            "folderToken",
            "file_token",
            "file_key",
            "file_message",
            "file_author",
            "file_branch",
            "file_password",
            "path_method",
            "pathMethod",
            "file_template",
            "file_code",
            "fileIDs",
            "folderIDs",
            "file_URLs",
            "path_description",
            "cell_source",
            "code_src",
            "save",
            "send_to",
            // Something of the path, not the path: a URL path template's
            // parameters, a file's version id, a prefix of a file's name,
            // a notebook cell's source text before and after an edit
            // (attack s80 on #20, finding 3).
            "pathParams",
            "path_params",
            "pathParam",
            "path_parameter",
            "file_version",
            "fileVersion",
            "file_ver",
            "file_name_prefix",
            "fileNamePrefix",
            "new_source",
            "old_source",
            "newSource",
            "new_sources",
        ] {
            assert!(!is_path_name(name), "{name}");
        }
    }

    use super::*;
    use std::os::unix::fs::symlink;

    fn setup(relative: RelativePaths, tilde: TildePaths) -> (tempfile::TempDir, Roots) {
        setup_with(relative, tilde, VariablePaths::Refuse)
    }

    fn setup_with(
        relative: RelativePaths,
        tilde: TildePaths,
        variables: VariablePaths,
    ) -> (tempfile::TempDir, Roots) {
        let t = tempfile::tempdir().unwrap();
        let base = t.path().canonicalize().unwrap();
        std::fs::create_dir_all(base.join("data/sub/deeper")).unwrap();
        std::fs::create_dir_all(base.join("outside")).unwrap();
        std::fs::write(base.join("data/a.txt"), "a").unwrap();
        std::fs::write(base.join("outside/secret"), "s").unwrap();
        symlink(base.join("outside"), base.join("data/escape")).unwrap();
        symlink("../outside/new", base.join("data/dangling")).unwrap();
        symlink("sub", base.join("data/inner")).unwrap();
        symlink("sub/deeper", base.join("data/deep")).unwrap();
        symlink("loop", base.join("data/loop")).unwrap();
        let roots = Roots::new(
            &[PathBuf::from("data")],
            base.clone(),
            Some(base.join("data")),
            relative,
            tilde,
            variables,
        )
        .unwrap();
        (t, roots)
    }

    #[test]
    fn inside_and_outside() {
        let (t, r) = setup(RelativePaths::Cwd, TildePaths::Home);
        let base = t.path().canonicalize().unwrap();
        let ok = |p: &str| r.check(p, "t").is_ok();
        assert!(ok("data/a.txt"));
        assert!(ok("data/missing/deeper.txt"));
        assert!(ok(&base.join("data/a.txt").to_string_lossy()));
        assert!(ok("data/inner/x"));
        assert!(ok("data"));
        assert!(ok("~/a.txt"));
        assert!(ok("~"));
        assert!(ok("data/missing/../a.txt"));
        assert!(!ok("~root/x"));
        // The refusal says why: another user's home, not a missing rule.
        let why = |p: &str| r.check(p, "t").unwrap_err().to_string();
        for p in ["~root/x", "~%2f..%2f..%2fetc"] {
            assert!(why(p).contains("another user's"), "{p}: {}", why(p));
        }
        assert!(!ok("~/../outside/secret"));
        assert!(!ok("outside/secret"));
        assert!(!ok("data/../outside/secret"));
        assert!(!ok("data/escape/secret"));
        assert!(!ok("data/escape/does-not-exist"));
        assert!(!ok("data/dangling"));
        assert!(!ok("data/loop"));
        assert!(!ok("/etc/passwd"));
        assert!(!ok("."));
        assert!(!ok("data/a\0b"));
        assert!(!ok(&"a/".repeat(3000)));
        assert!(!ok("data/missing/../../outside"));
        // `..` after a link: inside on disk (inner -> sub), outside when
        // read textually.
        assert!(ok("data/deep/../x"), "inside both ways");
        assert!(!ok("data/deep/../../outside/secret"), "inside on disk only");
        assert!(!ok("data/deep/../../../outside"));
        assert!(ok("data/inner/../a.txt"));
        // Not NFC: `cafe` + U+0301 could be opened as `café`.
        assert!(!ok("data/cafe\u{301}/x"));
        assert!(ok("data/caf\u{e9}/x"));
        // NFC, missing, with an NFD twin on disk that leaves the root: the
        // server would open the twin.
        symlink(base.join("outside"), base.join("data/li\u{308}nk")).unwrap();
        assert!(!ok("data/l\u{ef}nk/secret"));
        assert!(!ok("data/l\u{ef}nk"));
        std::fs::write(base.join("data/fi\u{308}le"), "").unwrap();
        assert!(
            !ok("data/f\u{ef}le"),
            "a twin inside the root is refused too"
        );
        assert!(ok("data/other-missing/x"));
        // The twin is found however the path reaches it: through a missing
        // component and `..` (read textually by the server), and through a
        // link followed by `..` (inner -> sub: on disk the parent is
        // `data/sub`, textually `data`).
        assert!(!ok("data/missing/../l\u{ef}nk/secret"));
        assert!(!ok("data/nope/../f\u{ef}le"));
        assert!(!ok("data/inner/../f\u{ef}le"));
        assert!(ok("data/missing/../a.txt"));
    }

    /// A root whose path is re-pointed after start-up (a symbolic link
    /// swapped, the directory renamed away and made again) confines
    /// nothing any more: every path under it is refused (attack s65, F2).
    #[test]
    fn a_root_re_pointed_after_start_up_refuses() {
        let t = tempfile::tempdir().unwrap();
        let base = t.path().canonicalize().unwrap();
        for d in ["v1", "v2", "outside"] {
            std::fs::create_dir(base.join(d)).unwrap();
        }
        std::fs::write(base.join("v1/a.txt"), "a").unwrap();
        std::fs::write(base.join("outside/secret"), "s").unwrap();
        symlink("v1", base.join("cur")).unwrap();
        std::fs::create_dir(base.join("root")).unwrap();
        let roots = Roots::new(
            &[PathBuf::from("cur"), PathBuf::from("root")],
            base.clone(),
            None,
            RelativePaths::Refuse,
            TildePaths::Refuse,
            VariablePaths::Refuse,
        )
        .unwrap();
        let ok = |p: &Path| roots.check(&p.to_string_lossy(), "t").is_ok();
        assert!(ok(&base.join("cur/a.txt")));
        assert!(ok(&base.join("v1/a.txt")));
        // The link swapped for one to `outside`.
        symlink("outside", base.join("cur.new")).unwrap();
        std::fs::rename(base.join("cur.new"), base.join("cur")).unwrap();
        assert!(!ok(&base.join("cur/secret")));
        assert!(!ok(&base.join("cur/a.txt")));
        // The other root renamed away and made again.
        assert!(ok(&base.join("root/new.txt")));
        std::fs::rename(base.join("root"), base.join("old-root")).unwrap();
        std::fs::create_dir(base.join("root")).unwrap();
        symlink("/etc", base.join("root/etc")).unwrap();
        assert!(!ok(&base.join("root/etc/passwd")));
        assert!(!ok(&base.join("root/new.txt")));
    }

    /// A name missing from a directory too big to read whole for its
    /// Unicode twins is refused (fail closed), and the refusal names the
    /// bound, not an escape (attack s63, N1); one entry fewer, it passes.
    #[test]
    fn a_directory_too_big_to_scan_refuses_new_names_saying_so() {
        let (t, r) = setup(RelativePaths::Cwd, TildePaths::Refuse);
        let big = t.path().canonicalize().unwrap().join("data/big");
        std::fs::create_dir(&big).unwrap();
        for i in 0..MAX_DIR_ENTRIES_SCANNED {
            std::fs::File::create(big.join(i.to_string())).unwrap();
        }
        let new = big.join("new.txt").to_string_lossy().into_owned();
        assert!(r.check(&new, "t").is_ok());
        std::fs::File::create(big.join("one-more")).unwrap();
        let why = r.check(&new, "t").unwrap_err().to_string();
        assert!(why.contains("MAX_DIR_ENTRIES_SCANNED"), "{why}");
        assert!(r.check(&big.join("7").to_string_lossy(), "t").is_ok());
    }

    /// With `tilde = "home"` and no absolute HOME (unset, empty,
    /// relative), a `~` path is refused, and the refusal says so rather
    /// than that the policy is silent (attack s61, N2).
    #[test]
    fn tilde_without_an_absolute_home_is_refused_saying_so() {
        let t = tempfile::tempdir().unwrap();
        let base = t.path().canonicalize().unwrap();
        std::fs::create_dir_all(base.join("data")).unwrap();
        for home in [None, Some(PathBuf::new()), Some(PathBuf::from("data"))] {
            let r = Roots::new(
                &[PathBuf::from("data")],
                base.clone(),
                home.clone(),
                RelativePaths::Cwd,
                TildePaths::Home,
                VariablePaths::Refuse,
            )
            .unwrap();
            assert!(r.check("data/x", "t").is_ok());
            for p in ["~", "~/x", "~/data/x"] {
                let why = r.check(p, "t").unwrap_err().to_string();
                assert!(
                    why.contains("HOME is unset or not an absolute path"),
                    "{home:?} {p}: {why}"
                );
            }
        }
    }

    /// Relative and `~` forms are refused unless the policy says how the
    /// server resolves them; `each_root` reads a relative path under every root.
    #[test]
    fn relative_and_tilde_need_a_policy() {
        let (t, r) = setup(RelativePaths::Refuse, TildePaths::Refuse);
        let base = t.path().canonicalize().unwrap();
        let ok = |r: &Roots, p: &str| r.check(p, "t").is_ok();
        for p in [
            "data/a.txt",
            "a.txt",
            "./a.txt",
            "~",
            "~/a.txt",
            "~user/a.txt",
        ] {
            assert!(!ok(&r, p), "{p}");
        }
        assert!(ok(&r, &base.join("data/a.txt").to_string_lossy()));
        let (_t2, each) = setup(RelativePaths::EachRoot, TildePaths::Refuse);
        assert!(ok(&each, "a.txt"));
        assert!(ok(&each, "sub/new.txt"));
        assert!(!ok(&each, "../outside/secret"));
        assert!(!ok(&each, "escape/secret"));
        assert!(!ok(&each, "~/a.txt"));
        // Environment variables, which `os.path.expandvars` would expand
        // (attack pass on #20, H), relative or not; a lone `$` is a name.
        let (_t3, cwd) = setup(RelativePaths::Cwd, TildePaths::Home);
        for r in [&each, &cwd] {
            let root = r.roots()[0].to_string_lossy().into_owned();
            for p in [
                "$HOME/.ssh/id_rsa".to_owned(),
                "${HOME}/.ssh/id_rsa".to_owned(),
                format!("{root}/$HOME"),
                format!("{root}/sub/$_x"),
                format!("{root}/${{X}}"),
                format!("{root}/$é"),
            ] {
                assert!(!ok(r, &p), "{p}");
            }
            for p in [
                format!("{root}/a.txt"),
                format!("{root}/price$"),
                format!("{root}/a$.txt"),
                format!("{root}/a$-b.txt"),
            ] {
                assert!(ok(r, &p), "{p}");
            }
        }
        assert!(ok(&each, "price$"));
    }

    /// `[paths] variables`: a `$` name is refused by default, naming the
    /// setting; under `literal` it is a plain name, still confined (#20
    /// FP: `D/$dollar.txt`, `$RECYCLE.BIN` with the reference filesystem
    /// server, which never expands them).
    #[test]
    fn variables_refused_unless_literal() {
        let names = |root: &str| {
            vec![
                "$dollar.txt".to_owned(),
                "a$b.txt".to_owned(),
                "$RECYCLE.BIN".to_owned(),
                "sub/${X}".to_owned(),
                "$_x/a.txt".to_owned(),
                "$é".to_owned(),
                format!("{root}/$dollar.txt"),
                format!("{root}/a$b.txt"),
                format!("{root}/$RECYCLE.BIN/x"),
                format!("{root}/sub/${{HOME}}"),
            ]
        };
        let (_t, refuse) = setup(RelativePaths::EachRoot, TildePaths::Refuse);
        let root = refuse.roots()[0].to_string_lossy().into_owned();
        for p in names(&root) {
            let e = refuse.check(&p, "t").unwrap_err();
            assert_eq!(e.code(), "path.outside_root", "{p}");
            assert!(e.to_string().contains("[paths] variables"), "{p}: {e}");
        }
        for (relative, tilde) in [
            (RelativePaths::EachRoot, TildePaths::Refuse),
            (RelativePaths::Cwd, TildePaths::Home),
        ] {
            let (t, lit) = setup_with(relative, tilde, VariablePaths::Literal);
            let base = t.path().canonicalize().unwrap();
            let root = lit.roots()[0].to_string_lossy().into_owned();
            let rel = |p: &str| {
                if relative == RelativePaths::Cwd {
                    format!("data/{p}")
                } else {
                    p.to_owned()
                }
            };
            std::fs::write(base.join("data/$dollar.txt"), "d").unwrap();
            for p in names(&root) {
                let p = if p.starts_with('/') { p } else { rel(&p) };
                assert!(lit.check(&p, "t").is_ok(), "{p}");
            }
            // Still confined: escapes through `..`, links and absolute
            // paths are refused whatever the `$`.
            for p in [
                rel("$x/../../etc/passwd"),
                rel("$x/../../../etc/passwd"),
                rel("${X}/../../outside/secret"),
                rel("escape/$x"),
                rel("$x/../escape/secret"),
                format!("{root}/$x/../../etc/passwd"),
                format!("{root}/$x/../../outside/secret"),
                format!("{root}/../outside/$secret"),
                "/etc/$x".to_owned(),
                rel("$HOME/../../outside/secret"),
                "/$HOME".to_owned(),
                "~root/$x".to_owned(),
            ] {
                let e = lit.check(&p, "t").unwrap_err();
                assert_eq!(e.code(), "path.outside_root", "{p}");
                assert!(!e.to_string().contains("[paths] variables"), "{p}: {e}");
            }
            // The other settings still apply to a `$` path.
            if relative == RelativePaths::Cwd {
                assert!(lit.check("~/$dollar.txt", "t").is_ok());
            } else {
                let e = lit.check("~/$dollar.txt", "t").unwrap_err();
                assert!(e.to_string().contains("[paths] tilde"), "{e}");
            }
        }
        let (_t, no_rel) = setup_with(
            RelativePaths::Refuse,
            TildePaths::Refuse,
            VariablePaths::Literal,
        );
        let e = no_rel.check("$dollar.txt", "t").unwrap_err();
        assert!(e.to_string().contains("[paths] relative"), "{e}");
        // `%NAME%` is no variable in either mode.
        let (_t, each) = setup(RelativePaths::EachRoot, TildePaths::Refuse);
        assert!(each.check("%HOMEPATH%.txt", "t").is_ok());
        assert!(each.check("%HOMEPATH%/../../outside/secret", "t").is_err());
    }

    /// Percent-encoded dot segments and separators, any case, once or
    /// twice encoded, get the refusal a literal `..` gets, relative
    /// (`each_root`) or absolute (#20 re-attack, `%2e%2e`).
    #[test]
    fn percent_encoded_traversal_is_refused() {
        let (_t, each) = setup(RelativePaths::EachRoot, TildePaths::Refuse);
        let root = each.roots()[0].to_string_lossy().into_owned();
        let (_t2, cwd) = setup(RelativePaths::Cwd, TildePaths::Refuse);
        let croot = cwd.roots()[0].to_string_lossy().into_owned();
        let ok = |r: &Roots, p: &str| r.check(p, "t").is_ok();
        for p in [
            "%2e%2e/outside/secret",
            "%2E%2E/outside/secret",
            "..%2foutside%2fsecret",
            "%2e%2e%2Foutside",
            "sub%2f..%2f..%2foutside",
            ".%2e/outside",
            "%252e%252e/outside/secret",
            "%25252e%25252e/x",
            "a%ff",
            "a%00b",
            // Both decodings, in either order (#20 re-attack s41, S4).
            "%u002e%u002e/outside/secret",
            "%u00252e%u00252e/x",
            "%25u002e%25u002e/x",
            "%u0025u002e%u0025u002e/x",
            "%u002525u002e%u002525u002e/x",
        ] {
            assert!(!ok(&each, p), "{p}");
            let refusal = each.check(p, "t").unwrap_err();
            assert_eq!(refusal.code(), "path.outside_root", "{p}");
        }
        for p in [
            format!("{croot}/%2e%2e/outside/secret"),
            format!("{croot}/sub/%2E%2E%2F%2e%2e/outside"),
            format!("{croot}%2f..%2f..%2fetc"),
        ] {
            assert!(!ok(&cwd, &p), "{p}");
        }
        for p in ["sub%2fnew.txt", "a%20b.txt", "100%.txt", "a%zz"] {
            assert!(ok(&each, p), "{p}");
        }
        // A component a normalising server reads as `..` (hidden
        // characters dropped, NFKC): attack s71-B, F3.
        for p in [
            "\u{AD}../outside/secret",
            "..\u{200B}/outside/secret",
            "\u{FF0E}\u{FF0E}/outside/secret",
            "\u{2024}\u{2024}/outside/secret",
            "sub/\u{FE0F}../../outside",
        ] {
            assert!(!ok(&each, p), "{p}");
            assert!(!ok(&cwd, &format!("{croot}/{p}")), "{p}");
        }
        // Dots among marks, hidden characters and white space, or three
        // dots or more: a segment a lenient server reads as `..` (attack
        // s72-B, F5).
        for p in [
            "..\u{338}/outside/secret",
            "\u{307}../outside/secret",
            ".\u{301}./outside/secret",
            ".../outside/secret",
            "sub/.... /../outside",
            ".. /outside/secret",
            "..\u{20DD}\\outside\\secret",
            "...\\outside\\secret",
        ] {
            assert!(!ok(&each, p), "{p}");
            assert!(!ok(&cwd, &format!("{croot}/{p}")), "{p}");
        }
        for p in [
            "sub/\u{FF21}.txt",
            "sub/caf\u{E9}.txt",
            "\u{2024}x",
            "sub/.../x",
            "sub/a..\u{338}b",
            "sub/\u{301}",
            "sub/notes...",
        ] {
            assert!(ok(&each, p), "{p}");
        }
        assert_eq!(dot_segments("a/.../b"), Some("a/../b".to_owned()));
        assert_eq!(dot_segments("./. \u{200B}/x"), Some("././x".to_owned()));
        assert_eq!(dot_segments("a/../b/./c"), None);
        assert_eq!(dot_segments("a/\u{301}/b"), None);
        assert!(ok(&cwd, &format!("{croot}/a%2etxt")));
        assert!(ok(&each, &format!("{root}/sub/x%2e%2e")));
    }

    #[test]
    fn no_existence_oracle() {
        let (_t, r) = setup(RelativePaths::Cwd, TildePaths::Refuse);
        let a = r.check("outside/secret", "t").unwrap_err();
        let b = r.check("outside/nothing-here", "t").unwrap_err();
        assert_eq!(a, b);
        assert_eq!(a.code(), "path.outside_root");
    }

    #[test]
    fn names() {
        for n in ["path", "PATH", "Paths", "cwd", "destination"] {
            assert!(is_path_name(n), "{n}");
        }
        assert!(!is_path_name("content"));
    }
}
