//! The audit log (`--audit FILE`): one JSON line per decision that refused
//! or changed something, and with `--audit-all` one per call too.
//!
//! Opened for appending only, never through a symbolic link (`O_NOFOLLOW`),
//! without blocking (`O_NONBLOCK`: a FIFO cannot hang the start), and only
//! when it is a regular file with one link, owned by the gateway's user; created with mode 0600, and an
//! existing file with any group or other permission is set to 0600 before
//! the first line. Each line is written whole with one `write` and no
//! buffer, under an advisory lock shared with other writers of the path
//! ([`Audit::write`]); a write that fails or falls short is cut back off the file
//! (never a torn line) and reported, and the gateway then refuses. Past `max_bytes` the file is
//! renamed to `FILE.1` (replacing an older one) and a new one started.
//! Argument values are never written: only their names and sizes.

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde::Serialize;
use serde_json::{Map, Value};

/// Default `--audit-max-bytes`: 64 MiB.
pub const DEFAULT_AUDIT_MAX_BYTES: u64 = 64 * 1024 * 1024;

/// The least `--audit-max-bytes` the gateway starts with: 1 MiB. Below it
/// a busy session would rotate every few lines, and with one generation
/// kept the trail would hold almost nothing (0 rotated on every line).
pub const MIN_AUDIT_MAX_BYTES: u64 = 1024 * 1024;

/// One audit record.
#[derive(Debug, Clone, Serialize)]
pub struct Record<'a> {
    /// RFC 3339 UTC time with milliseconds.
    pub time: String,
    /// `client->server` or `server->client`.
    pub direction: &'a str,
    /// The request id, when the message has one.
    pub id: Option<Value>,
    /// The method.
    pub method: Option<&'a str>,
    /// The tool.
    pub tool: Option<&'a str>,
    /// `refused`, `changed`, `allowed`.
    pub decision: &'a str,
    /// The stable code, when refused or changed.
    pub code: Option<&'a str>,
    /// The rule that decided.
    pub rule: Option<&'a str>,
    /// Argument names and their sizes in bytes (JSON text), never values.
    pub arguments: Option<Map<String, Value>>,
}

impl<'a> Record<'a> {
    /// A record, stamped now, of `decision` on a message going `direction`
    /// (`client->server`, `server->client`), every other field empty: fill
    /// them with struct update syntax.
    pub fn of(direction: &'a str, decision: &'a str) -> Self {
        Self {
            time: rfc3339_now(),
            direction,
            id: None,
            method: None,
            tool: None,
            decision,
            code: None,
            rule: None,
            arguments: None,
        }
    }
}

/// The names and JSON sizes of `arguments` (an object; `None` otherwise).
/// A name with a colon is kept as a URI is ([`audit_uri`]): a client may
/// send a URL as a name, with its password (attack s65, F1).
pub fn argument_sizes(arguments: &Value) -> Option<Map<String, Value>> {
    let m = arguments.as_object()?;
    Some(
        m.iter()
            .map(|(k, v)| {
                let size = serde_json::to_string(v).map_or(0, |s| s.len());
                (audit_name(k), Value::from(size))
            })
            .collect(),
    )
}

/// Most schemes an audit line looks through in a URI that wraps another
/// (`blob:`, `view-source:`, `demo:u:pw@…`, each one's opaque path read as
/// a URI of its own) before it keeps the rest as plain text
/// ([`audit_uri`]).
pub const MAX_AUDIT_URI_SCHEMES: usize = 4;

/// A resource URI or template as an audit line keeps it: without
/// userinfo, query or fragment (a password, a token), which the line never
/// holds ("never values"; attack s59, K12-A; s60, K12-C). A URI with a
/// host that the URL parser reads is kept as it serializes it; one with an
/// opaque path (`blob:`, `view-source:`, `mailto:`) keeps its scheme and
/// its path read the same way, up to [`MAX_AUDIT_URI_SCHEMES`] schemes
/// deep; a `data:` URI keeps its media type, never its parameters or
/// payload. A
/// template (with `{`) or a text the parser does not read is kept as
/// written up to its first `?` or `#`, without the userinfo of its
/// authority (through the authority's last `@`, read as a lenient parser
/// would: after `scheme:` and any slashes or backslashes) and without
/// anything after an `@` elsewhere. A URI whose compatibility forms spell
/// such punctuation (`＠`) is read in its NFKC form.
pub fn audit_uri(uri: &str) -> String {
    let mut kept = String::new();
    let mut rest = uri_punctuation_unfolded(uri).into_owned();
    for _ in 0..MAX_AUDIT_URI_SCHEMES {
        if rest.contains('{') {
            break;
        }
        let Ok(mut u) = url::Url::parse(&rest) else {
            break;
        };
        if !u.cannot_be_a_base() && u.host_str().is_none() && u.scheme() != "file" {
            // A path and no host (`demo:/\\u:pw@r/x`, whose backslash no
            // parser of a scheme it does not know takes for a slash, and a
            // lenient reader does): its path read as a text no parser reads.
            kept.push_str(u.scheme());
            kept.push(':');
            kept.push_str(&plain_uri(u.path()));
            return kept;
        }
        if !u.cannot_be_a_base() {
            let _ = u.set_username("");
            let _ = u.set_password(None);
            u.set_query(None);
            u.set_fragment(None);
            kept.push_str(u.as_str());
            return kept;
        }
        kept.push_str(u.scheme());
        kept.push(':');
        let path = u.path();
        if u.scheme() == "data" {
            // Its media type without parameters (a parameter may hold a
            // secret; s61, N1), and nothing of one without a `,`.
            if path.contains(',') {
                kept.push_str(path.split([';', ',']).next().unwrap_or_default());
            }
            return kept;
        }
        rest = path.to_owned();
    }
    kept.push_str(&plain_uri(&rest));
    kept
}

/// [`audit_uri`] of a text the URL parser does not read, or a template:
/// percent-decoded (up to [`MAX_PERCENT_DECODINGS`](super::MAX_PERCENT_DECODINGS)
/// times) when decoding shows a `@`, `?` or `#` the text hid, then kept up
/// to its first `?` or `#`, each authority in it (after any `scheme:` that
/// starts a word, wrapped or in prose, and its slashes or backslashes, up
/// to the next `/`, `\`, white space or closing bracket or quote) without
/// its userinfo (through its last `@`), and without anything after an `@`
/// elsewhere (attack s66, B-F1: `<https://u:pw@h/>`, `https%3A%2F%2Fu%3Apw%40h`).
fn plain_uri(uri: &str) -> String {
    let mut deepest = uri.to_owned();
    for _ in 0..super::MAX_PERCENT_DECODINGS {
        let decoded = percent_encoding::percent_decode_str(&deepest)
            .decode_utf8_lossy()
            .into_owned();
        if decoded == deepest {
            break;
        }
        deepest = decoded;
    }
    let hid = |c: char| deepest.matches(c).count() > uri.matches(c).count();
    let text = if ['@', '?', '#'].into_iter().any(hid) {
        deepest.as_str()
    } else {
        uri
    };
    let text = text.split(['?', '#']).next().unwrap_or_default();
    let text = text.strip_suffix('{').unwrap_or(text);
    let authority_end = |t: &str| {
        t.find(|c: char| c.is_whitespace() || "/\\>)]}\"'<".contains(c))
            .unwrap_or(t.len())
    };
    let mut out = String::with_capacity(text.len());
    // A text without a scheme starts with its authority (`u:pw@h/x` read
    // after `demo:`, `pw@h/x` after `u:`).
    let (lead, mut rest) = text.split_at(authority_end(text));
    if lead.contains(':') {
        rest = text;
    } else {
        out.push_str(lead.rsplit_once('@').map_or(lead, |(_, host)| host));
    }
    while let Some(start) = authority_start(rest) {
        let (before, after) = rest.split_at(start);
        out.push_str(before);
        let (authority, tail) = after.split_at(authority_end(after));
        out.push_str(
            authority
                .rsplit_once('@')
                .map_or(authority, |(_, host)| host),
        );
        rest = tail;
    }
    out.push_str(rest);
    match out.split_once('@') {
        Some((kept, _)) => kept.to_owned(),
        None => out,
    }
}

/// Where the authority of the first `scheme:` in `text` that starts a
/// word (at the start, or after a character that is not a letter, digit,
/// `+`, `-` or `.`) begins: after its `:` and any `/` or `\` following.
/// `None` when no such scheme is left.
fn authority_start(text: &str) -> Option<usize> {
    let scheme_char = |c: char| c.is_ascii_alphanumeric() || "+-.".contains(c);
    let mut word_start = None;
    let mut prev_in_word = false;
    for (at, c) in text.char_indices() {
        if c == ':' {
            if let Some(s) = word_start {
                let scheme = text.get(s..at).unwrap_or_default();
                if scheme.starts_with(|c: char| c.is_ascii_alphabetic()) {
                    let after = text.get(at + 1..).unwrap_or_default();
                    let slashes = after.len() - after.trim_start_matches(['/', '\\']).len();
                    return Some(at + 1 + slashes);
                }
            }
        }
        let in_word = scheme_char(c);
        if in_word && !prev_in_word {
            word_start = Some(at);
        }
        if !in_word {
            word_start = None;
        }
        prev_in_word = in_word;
    }
    None
}

/// The punctuation of a URI that [`audit_uri`] reads to find what may be
/// a secret (userinfo, query, fragment, percent-encoding).
const URI_PUNCTUATION: [char; 6] = [':', '@', '%', '?', '#', '/'];

/// `text`, or its NFKC form when folding it spells URI punctuation its
/// compatibility forms hid (`＠`, `：`, `？`, `／`: a reader that applies
/// NFKC, as Python's `urlsplit` checks for, reads `https://u:pw＠h/` as
/// userinfo; verification of s67). The form is kept otherwise.
fn uri_punctuation_unfolded(text: &str) -> std::borrow::Cow<'_, str> {
    let punctuation = |t: &str| t.matches(URI_PUNCTUATION).count();
    if text.is_ascii() {
        return text.into();
    }
    let folded = icu_normalizer::ComposingNormalizerBorrowed::new_nfkc().normalize(text);
    if punctuation(&folded) > punctuation(text) {
        folded.into_owned().into()
    } else {
        text.into()
    }
}

/// A tool, prompt or argument name as an audit line (and a log line)
/// keeps it: a name that holds a `:`, `@`, `%`, `?` or `#` (a URL used as
/// a name, perhaps wrapped or percent-encoded, `fetch?token=…`), also as
/// NFKC spells it (`＠`, `：`), as [`audit_uri`] keeps
/// a URI, without what may be a password or a token; any other as it is.
pub fn audit_name(name: &str) -> String {
    let name = uri_punctuation_unfolded(name);
    if name.contains([':', '@', '%', '?', '#']) {
        audit_uri(&name)
    } else {
        name.into_owned()
    }
}

/// Serialized JSON with every character the screen calls hidden
/// ([`super::hidden::class`]: tag characters, zero-width and other format
/// or default-ignorable characters, private use, unassigned) escaped as
/// `\uNNNN` (two for one outside the BMP): the same JSON value, in which
/// an operator sees `ec\u200bho` where a name only looks like `echo`, and
/// tag text cannot ride invisibly (attack s66, B-F3). Outside strings JSON
/// holds no such character, so escaping them everywhere is exact.
fn hidden_escaped(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        if c.is_ascii() || super::hidden::class(c).is_none() {
            out.push(c);
            continue;
        }
        let mut units = [0u16; 2];
        for unit in c.encode_utf16(&mut units) {
            out.push_str(&format!("\\u{unit:04x}"));
        }
    }
    out
}

/// The audit file.
#[derive(Debug)]
pub struct Audit {
    path: PathBuf,
    file: File,
    size: u64,
    max_bytes: u64,
}

fn open(path: &Path) -> io::Result<File> {
    use std::os::unix::fs::PermissionsExt;
    let file = super::owned::open_owned(
        path,
        OpenOptions::new()
            .read(true)
            .append(true)
            .create(true)
            .mode(0o600),
        "the audit file",
    )?;
    // Exactly 0600, set every time (one fchmod): no access for others, and
    // no setuid, setgid or sticky bit.
    file.set_permissions(std::fs::Permissions::from_mode(0o600))?;
    Ok(file)
}

impl Audit {
    /// Opens (or creates, mode 0600) `path` for appending.
    ///
    /// # Errors
    /// Any I/O error opening it.
    pub fn open(path: &Path, max_bytes: u64) -> io::Result<Self> {
        let file = open(path)?;
        let size = file.metadata()?.len();
        Ok(Self {
            path: path.to_owned(),
            file,
            size,
            max_bytes,
        })
    }

    /// Appends one record as a line, rotating first when it would pass the bound.
    ///
    /// Other processes may write the same file (several gateways given one
    /// `--audit` path, `logrotate`): each line is written under an
    /// exclusive advisory lock (`flock`) on the file, after checking that
    /// the path still names the file held (one renamed away, by another
    /// gateway's rotation or by hand, is let go and the path opened
    /// again, with the checks of [`Audit::open`]), at the size the file
    /// has then; a file whose last byte is no newline (a line another
    /// writer left torn) gets one first, so every record stays a line.
    ///
    /// # Errors
    /// Any I/O error, or the lock not taken within [`AUDIT_LOCK_WAIT`]:
    /// the caller refuses calls from then on (fail closed).
    pub fn write(&mut self, record: &Record<'_>) -> io::Result<()> {
        // The same JSON with C1 and bidirectional controls escaped: a row
        // quotes wire strings, and `tail -f` shows it on a terminal.
        // Whatever names the tool, prompt or resource, without what may be
        // a secret in it ([`audit_name`]), wherever the record was made.
        let tool = record.tool.map(audit_name);
        let record = Record {
            tool: tool.as_deref(),
            ..record.clone()
        };
        let json = serde_json::to_string(&record).map_err(io::Error::other)?;
        let mut line = hidden_escaped(&crate::terminal::json_for_terminal(&json)).into_bytes();
        line.push(b'\n');
        self.lock_current()?;
        let written = self.write_locked(line);
        let _ = rustix::fs::flock(&self.file, rustix::fs::FlockOperation::Unlock);
        written
    }

    /// Takes the lock on the file the path names now, opening it again
    /// when the file held was renamed away (at most [`AUDIT_REOPENS`]
    /// times: the path keeps changing under the gateway otherwise).
    fn lock_current(&mut self) -> io::Result<()> {
        use std::os::unix::fs::MetadataExt;
        for _ in 0..AUDIT_REOPENS {
            lock_within(&self.file, AUDIT_LOCK_WAIT)?;
            let held = self.file.metadata()?;
            let named = std::fs::symlink_metadata(&self.path);
            if named.is_ok_and(|n| n.dev() == held.dev() && n.ino() == held.ino()) {
                self.size = held.len();
                return Ok(());
            }
            let _ = rustix::fs::flock(&self.file, rustix::fs::FlockOperation::Unlock);
            self.file = open(&self.path)?;
        }
        Err(io::Error::other(format!(
            "the audit file was replaced {AUDIT_REOPENS} times while one line was written"
        )))
    }

    /// [`write`](Self::write) once the lock is held on the file the path
    /// names.
    fn write_locked(&mut self, mut line: Vec<u8>) -> io::Result<()> {
        use std::os::unix::fs::FileExt;
        if self.size > 0 && self.size + line.len() as u64 > self.max_bytes {
            let mut old = self.path.as_os_str().to_owned();
            old.push(".1");
            std::fs::rename(&self.path, PathBuf::from(old))?;
            let _ = rustix::fs::flock(&self.file, rustix::fs::FlockOperation::Unlock);
            self.file = open(&self.path)?;
            self.size = 0;
            self.lock_current()?;
        }
        if self.size > 0 {
            let mut last = [0u8];
            self.file.read_exact_at(&mut last, self.size - 1)?;
            if last != *b"\n" {
                line.insert(0, b'\n');
            }
        }
        let len = line.len() as u64;
        match self.file.write(&line) {
            Ok(n) if n == line.len() => {
                self.size += len;
                Ok(())
            }
            outcome => {
                // Cut a short write back off: no torn line stays.
                let _ = self.file.set_len(self.size);
                Err(match outcome {
                    Err(e) => e,
                    Ok(n) => io::Error::new(
                        io::ErrorKind::WriteZero,
                        format!("short write ({n} of {} bytes)", line.len()),
                    ),
                })
            }
        }
    }
}

/// Longest wait for the audit file's lock (another gateway writing a line
/// holds it for microseconds; one that holds it longer makes this one
/// refuse, fail closed, rather than wait on it).
pub const AUDIT_LOCK_WAIT: Duration = Duration::from_secs(1);

/// Most times one line's write opens the audit path again because the file
/// it held was renamed away.
pub const AUDIT_REOPENS: usize = 4;

/// Takes an exclusive `flock` on `file`, trying for at most `wait`.
fn lock_within(file: &File, wait: Duration) -> io::Result<()> {
    use rustix::fs::{flock, FlockOperation};
    let until = Instant::now() + wait;
    loop {
        match flock(file, FlockOperation::NonBlockingLockExclusive) {
            Ok(()) => return Ok(()),
            // A non-blocking `flock` is not interrupted: only a lock held
            // elsewhere is waited for.
            Err(e) if e == rustix::io::Errno::WOULDBLOCK => {
                if Instant::now() >= until {
                    return Err(io::Error::new(
                        io::ErrorKind::TimedOut,
                        format!(
                            "the audit file stayed locked by another writer for {} ms",
                            wait.as_millis()
                        ),
                    ));
                }
                std::thread::sleep(Duration::from_millis(1));
            }
            Err(e) => return Err(e.into()),
        }
    }
}

/// `now` as RFC 3339 UTC with milliseconds, e.g. `2026-12-01T10:20:30.123Z`.
pub fn rfc3339_now() -> String {
    rfc3339(SystemTime::now())
}

/// `t` as RFC 3339 UTC with milliseconds (times before 1970 read as 1970).
pub fn rfc3339(t: SystemTime) -> String {
    let d = t.duration_since(UNIX_EPOCH).unwrap_or_default();
    let secs = d.as_secs();
    let days = i64::try_from(secs / 86_400).unwrap_or(0);
    let rem = secs % 86_400;
    // Civil-from-days (H. Hinnant's algorithm, proleptic Gregorian).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3600,
        rem / 60 % 60,
        rem % 60,
        d.subsec_millis()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::time::Duration;

    /// An audit line keeps a URI without what may be a secret (s59, K12-A).
    #[test]
    fn argument_names_keep_no_url_secret() {
        let args =
            serde_json::json!({"url": "x", "http://u:pwSECRET@h/?k=SECRET2": 1, "a:b": "cd"});
        let names = argument_sizes(&args).unwrap();
        let keys: Vec<&str> = names.keys().map(String::as_str).collect();
        assert!(
            keys.contains(&"url") && keys.contains(&"http://h/"),
            "{keys:?}"
        );
        assert!(!keys.iter().any(|k| k.contains("SECRET")), "{keys:?}");
        assert_eq!(names["url"], 3);
    }

    #[test]
    fn audit_uris_drop_userinfo_query_and_fragment() {
        for (uri, kept) in [
            (
                "http://admin:hunter2@10.0.0.1/x?token=t#f",
                "http://10.0.0.1/x",
            ),
            ("https://example.com/doc", "https://example.com/doc"),
            ("demo://u@r/a?b", "demo://r/a"),
            ("file:///etc/passwd?x", "file:///etc/passwd"),
            ("../a@b?c", "../a"),
            ("/etc/x#y", "/etc/x"),
            // Not read by the URL parser (a bad IPv6 host, a port past
            // 65535): the userinfo still goes, whatever follows it.
            ("http://u:pw@[bad/x?t", "http://[bad/x"),
            ("http://u:pw@h:99999/x", "http://h:99999/x"),
            ("http:\\\\u:p@w@[h\\x@y", "http:\\\\[h\\x"),
            // Templates as written, without a query or fragment expression.
            ("file:///{path}", "file:///{path}"),
            ("http://u:p@h/{a}{?q}", "http://h/{a}"),
            ("db://{+rest}#f", "db://{+rest}"),
            // A URI wrapping another, and opaque ones (s60, K12-C).
            ("blob:http://u:pw@h/x?k#f", "blob:http://h/x"),
            ("view-source:https://u:pw@h/", "view-source:https://h/"),
            ("demo:u:pw@h/x", "demo:u:h/x"),
            ("mailto:someone@example.com?subject=s", "mailto:example.com"),
            ("data:text/plain;base64,U0VDUkVU", "data:text/plain"),
            ("data:text/plain;token=SECRET,x", "data:text/plain"),
            ("data:SECRET", "data:"),
            ("a:b:c:d:e:u:pw@h", "a:b:c:d:e:h"),
            ("blob:http://u:pw@[bad/x", "blob:http://[bad/x"),
            // Wrapped, in prose, percent-encoded (attack s66, B-F1).
            ("<https://u:S3CRET@example.com/>", "<https://example.com/>"),
            ("(https://u:S3CRET@e.com/)", "(https://e.com/)"),
            ("'https://u:S3CRET@e.com/'", "'https://e.com/'"),
            ("\"https://u:S3CRET@e.com/\"", "\"https://e.com/\""),
            ("[https://u:S3CRET@e.com/]", "[https://e.com/]"),
            ("see https://u:S3CRET@e.com/ now", "see https://e.com/ now"),
            (
                " <file://u:S3CRET@host/etc/passwd>",
                " <file://host/etc/passwd>",
            ),
            ("<demo://u:S3CRET@r/x>", "<demo://r/x>"),
            (
                "https%3A%2F%2Fu%3AS3CRET%40example.com%2F",
                "https://example.com/",
            ),
            (
                "https%3a//u%3aS3CRET%40example.com/",
                "https://example.com/",
            ),
            (
                "https%253A%252F%252Fu%253AS3CRET%2540e.com%252F",
                "https://e.com/",
            ),
            ("<https://e.com/?t=S3CRET>", "<https://e.com/"),
            ("a%20b", "a%20b"),
            ("demo:/\\u:S3CRET@r/x?t=1", "demo:/\\u:r/x"),
            ("demo:/x/y", "demo:/x/y"),
            ("https://u:S3CRET\u{FF20}h/", "https://h/"),
            ("demo://r/x\u{FF1F}t=S3CRET", "demo://r/x"),
            (
                "demo://r/\u{FF50}\u{FF41}\u{FF54}\u{FF48}",
                "demo://r/%EF%BD%90%EF%BD%81%EF%BD%94%EF%BD%88",
            ),
        ] {
            assert_eq!(audit_uri(uri), kept, "{uri}");
        }
    }

    /// Names: one that may be a URL (a `:`, `@` or `%` in it) kept as a
    /// URI is, any other as it is (attack s65, F1; s66, B-F1).
    #[test]
    fn audit_names_drop_what_may_be_a_secret() {
        for (name, kept) in [
            ("url", "url"),
            ("plain-name_1", "plain-name_1"),
            ("http://example.com/?t=S3CRET", "http://example.com/"),
            ("x:S3CRET@y", "x:y"),
            ("<https://u:S3CRET@h/>", "<https://h/>"),
            ("https%3A%2F%2Fu%3AS3CRET%40h%2F", "https://h/"),
            ("S3CRET@host", "host"),
            ("a%20b", "a%20b"),
            // Verification of s67: a query without a scheme, and the
            // compatibility forms NFKC folds into `@`, `:`, `?`.
            ("fetch?token=S3CRET", "fetch"),
            ("fetch#S3CRET", "fetch"),
            ("https://u:S3CRET\u{FF20}h/", "https://h/"),
            ("x\u{FF1A}S3CRET\u{FF20}y", "x:y"),
            ("fetch\u{FF1F}token=S3CRET", "fetch"),
            (
                "\u{FF46}\u{FF45}\u{FF54}\u{FF43}\u{FF48}",
                "\u{FF46}\u{FF45}\u{FF54}\u{FF43}\u{FF48}",
            ),
        ] {
            assert_eq!(audit_name(name), kept, "{name}");
        }
    }
    #[test]
    fn times() {
        assert_eq!(rfc3339(UNIX_EPOCH), "1970-01-01T00:00:00.000Z");
        let t = UNIX_EPOCH + Duration::from_millis(1_796_120_430_123);
        assert_eq!(rfc3339(t), "2026-12-01T10:20:30.123Z");
        let leap = UNIX_EPOCH + Duration::from_secs(951_782_400);
        assert_eq!(rfc3339(leap), "2000-02-29T00:00:00.000Z");
    }

    fn rec(code: &str) -> Record<'_> {
        Record {
            time: rfc3339_now(),
            direction: "client->server",
            id: Some(json!(1)),
            method: Some("tools/call"),
            tool: Some("t"),
            decision: "refused",
            code: Some(code),
            rule: Some("r"),
            arguments: argument_sizes(&json!({"secret": "hunter2", "n": 12})),
        }
    }

    #[test]
    fn lines_mode_rotation_and_no_values() {
        use std::os::unix::fs::PermissionsExt;
        let t = tempfile::tempdir().unwrap();
        let p = t.path().join("audit.jsonl");
        let mut a = Audit::open(&p, 400).unwrap();
        a.write(&rec("policy.tool_denied")).unwrap();
        let text = std::fs::read_to_string(&p).unwrap();
        assert!(!text.contains("hunter2"));
        let v: Value = serde_json::from_str(text.trim_end()).unwrap();
        assert_eq!(v["arguments"], json!({"secret": 9, "n": 2}));
        assert_eq!(v["code"], "policy.tool_denied");
        let mode = std::fs::metadata(&p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        for _ in 0..3 {
            a.write(&rec("x")).unwrap();
        }
        assert!(t.path().join("audit.jsonl.1").exists());
        assert!(std::fs::metadata(&p).unwrap().len() <= 400);
    }

    /// A wire string with C1, DEL and bidirectional controls is written as
    /// `\uNNNN` escapes: the same JSON value, inert under `tail -f`.
    #[test]
    fn rows_are_inert_on_a_terminal() {
        let t = tempfile::tempdir().unwrap();
        let p = t.path().join("audit.jsonl");
        let mut a = Audit::open(&p, 4000).unwrap();
        let tool = "t\u{9b}31m\u{7f}\u{202e}\u{2028}x\u{1b}";
        let mut r = rec("c");
        r.tool = Some(tool);
        a.write(&r).unwrap();
        let text = std::fs::read_to_string(&p).unwrap();
        assert!(
            !text
                .trim_end()
                .chars()
                .any(|c| c.is_control() || c == '\u{202e}'),
            "{text:?}"
        );
        assert!(
            text.contains("\\u009b") && text.contains("\\u202e"),
            "{text}"
        );
        let v: Value = serde_json::from_str(text.trim_end()).unwrap();
        assert_eq!(v["tool"], tool);
    }

    /// Attack s66, B-F3: every character the screen calls hidden (zero
    /// width, soft hyphen, byte order mark, tag characters, private use)
    /// is escaped: the row shows `ec\u200bho`, never what looks like
    /// `echo`; the JSON value is the same, and emoji stay as written.
    #[test]
    fn rows_show_hidden_characters_escaped() {
        let t = tempfile::tempdir().unwrap();
        let p = t.path().join("audit.jsonl");
        let mut a = Audit::open(&p, 4000).unwrap();
        let tool = "ec\u{200b}ho\u{ad}\u{feff}\u{e0041}\u{e0069}\u{e000}\u{2060}é✔";
        let mut r = rec("c");
        r.tool = Some(tool);
        a.write(&r).unwrap();
        let text = std::fs::read_to_string(&p).unwrap();
        for escaped in [
            "ec\\u200bho",
            "\\u00ad",
            "\\ufeff",
            "\\udb40\\udc41",
            "\\udb40\\udc69",
            "\\ue000",
            "\\u2060",
        ] {
            assert!(text.contains(escaped), "{escaped}: {text}");
        }
        assert!(text.contains("é✔"), "{text}");
        assert!(
            text.is_ascii()
                || !text
                    .chars()
                    .any(|c| crate::gate::hidden::class(c).is_some())
        );
        let v: Value = serde_json::from_str(text.trim_end()).unwrap();
        assert_eq!(v["tool"], tool);
    }

    #[test]
    fn no_symlink_and_mode_fixed() {
        use std::os::unix::fs::PermissionsExt;
        let t = tempfile::tempdir().unwrap();
        let target = t.path().join("elsewhere");
        std::fs::write(&target, "").unwrap();
        let link = t.path().join("audit.jsonl");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        assert!(Audit::open(&link, 1000).is_err());
        let dangling = t.path().join("dangling.jsonl");
        std::os::unix::fs::symlink(t.path().join("nothing"), &dangling).unwrap();
        assert!(Audit::open(&dangling, 1000).is_err());
        assert!(!t.path().join("nothing").exists());
        let e = Audit::open(t.path(), 1000).unwrap_err().to_string();
        assert!(!e.contains("FIFO") && !e.contains("symbolic"), "{e}");
        let p = t.path().join("open.jsonl");
        std::fs::write(&p, "").unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o644)).unwrap();
        let mut a = Audit::open(&p, 1000).unwrap();
        a.write(&rec("x")).unwrap();
        let mode = std::fs::metadata(&p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        // Special bits are cleared too.
        let q = t.path().join("setuid.jsonl");
        std::fs::write(&q, "").unwrap();
        std::fs::set_permissions(&q, std::fs::Permissions::from_mode(0o4600)).unwrap();
        Audit::open(&q, 1000).unwrap();
        let mode = std::fs::metadata(&q).unwrap().permissions().mode() & 0o7777;
        assert_eq!(mode, 0o600);
        // The error says what is at the path.
        let e = Audit::open(&link, 1000).unwrap_err().to_string();
        assert!(
            e.contains("(a symbolic link at the path of the audit file is refused)"),
            "{e}"
        );
        // A FIFO, a hard link, another owner: `owned::tests`.
    }

    /// Attack s55, F2: a file whose last line another writer left without
    /// its newline gets one before the first record.
    #[test]
    fn a_torn_last_line_is_ended_first() {
        let t = tempfile::tempdir().unwrap();
        let p = t.path().join("audit.jsonl");
        std::fs::write(&p, "partial-no-newline").unwrap();
        let mut a = Audit::open(&p, 100_000).unwrap();
        a.write(&rec("x")).unwrap();
        a.write(&rec("y")).unwrap();
        let text = std::fs::read_to_string(&p).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3, "{text}");
        assert_eq!(lines[0], "partial-no-newline");
        for l in &lines[1..] {
            serde_json::from_str::<Value>(l).unwrap();
        }
        assert!(text.ends_with("}\n"), "{text}");
    }

    /// Attack s55, F7: two writers of one path (two gateways, or a file
    /// rotated by hand): a writer whose file was renamed away writes to
    /// the file the path names now; no record is lost or written to a
    /// rotated or deleted file.
    #[test]
    fn writers_sharing_a_path_follow_its_rotation() {
        let t = tempfile::tempdir().unwrap();
        let p = t.path().join("audit.jsonl");
        let old = t.path().join("audit.jsonl.1");
        let mut a = Audit::open(&p, 600).unwrap();
        let mut b = Audit::open(&p, 600).unwrap();
        b.write(&rec("b-1")).unwrap();
        let mut a_lines = 0;
        while !old.exists() {
            a.write(&rec("a")).unwrap();
            a_lines += 1;
            assert!(a_lines < 100);
        }
        b.write(&rec("b-2")).unwrap();
        let now = std::fs::read_to_string(&p).unwrap();
        assert!(now.contains("b-2"), "{now}");
        // By hand: renamed away, the next line starts a new file.
        let by_hand = t.path().join("rotated-by-hand");
        std::fs::rename(&p, &by_hand).unwrap();
        b.write(&rec("b-3")).unwrap();
        assert!(std::fs::read_to_string(&p).unwrap().contains("b-3"));
        assert!(!std::fs::read_to_string(&by_hand).unwrap().contains("b-3"));
        // Every line of every file is a whole record.
        for f in [&p, &old, &by_hand] {
            for l in std::fs::read_to_string(f).unwrap().lines() {
                serde_json::from_str::<Value>(l).unwrap();
            }
        }
    }

    /// A lock another writer holds past [`AUDIT_LOCK_WAIT`] fails the
    /// write (the caller refuses), and the write goes through once it is
    /// let go.
    #[test]
    fn a_held_lock_fails_the_write() {
        let t = tempfile::tempdir().unwrap();
        let p = t.path().join("audit.jsonl");
        let mut a = Audit::open(&p, 100_000).unwrap();
        let other = File::open(&p).unwrap();
        rustix::fs::flock(&other, rustix::fs::FlockOperation::LockExclusive).unwrap();
        let e = a.write(&rec("x")).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::TimedOut, "{e}");
        rustix::fs::flock(&other, rustix::fs::FlockOperation::Unlock).unwrap();
        a.write(&rec("x")).unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap().lines().count(), 1);
    }

    /// A full disk: the write fails, is reported, and leaves no torn line.
    #[test]
    fn full_disk_leaves_no_torn_line() {
        if !Path::new("/dev/full").exists() {
            return;
        }
        let mut a = Audit {
            path: PathBuf::from("/dev/full"),
            file: OpenOptions::new().append(true).open("/dev/full").unwrap(),
            size: 0,
            max_bytes: u64::MAX,
        };
        assert!(a.write(&rec("x")).is_err());
        assert_eq!(a.size, 0);
    }

    #[test]
    fn failure_is_reported() {
        let t = tempfile::tempdir().unwrap();
        let p = t.path().join("audit.jsonl");
        let mut a = Audit::open(&p, 100).unwrap();
        a.write(&rec("x")).unwrap();
        // Rotation needs a rename; make the directory read-only... as root
        // that still works, so remove the directory instead.
        drop(t);
        assert!(a.write(&rec("y")).is_err());
    }
}
