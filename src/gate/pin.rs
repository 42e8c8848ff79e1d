//! Tool pinning (`--pin FILE`): a SHA-256 of each tool's whole definition
//! (name, title, description, input and output schemas, annotations, and
//! any other member), taken over its RFC 8785 canonical JSON, so member
//! order and number spelling do not matter and every other change does.
//!
//! The server's `initialize` instructions are pinned too (`"instructions"`).
//!
//! The pin file is JSON: `{"version": 1, "tools": {"NAME": "sha256:HEX", ...},
//! "instructions": "sha256:HEX"}` (`instructions` optional),
//! written atomically (a temporary file renamed over it) with mode 0600.

use std::collections::BTreeMap;
use std::io::{self, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use super::owned::open_owned;

use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use crate::json::{parse_strict, Limits};

/// Largest pin file read, in bytes.
pub const MAX_PIN_FILE_BYTES: u64 = 16 * 1024 * 1024;

/// Most tools one listing (all pages) or pin file holds.
pub const MAX_TOOLS: usize = 10_000;

/// The hash of one tool definition: `sha256:` and 64 lower-case hex digits.
///
/// Over the definition's RFC 8785 canonical form, in which every number is
/// an IEEE double. An integer a double cannot hold exactly (past 2^53, as
/// 64-bit ids are) is forwarded to the client digit for digit, so its
/// exact value is pinned too: when a definition holds any, their RFC 6901
/// pointers and digits (a JSON array, after a line feed, which the
/// canonical form never holds) follow the canonical form; every other
/// definition hashes its canonical form alone.
///
/// A definition that cannot be canonicalized (it cannot happen for a value
/// that passed the strict JSON layer) hashes its plain serialization.
pub fn definition_hash(definition: &Value) -> String {
    let mut bytes = serde_json_canonicalizer::to_vec(definition)
        .or_else(|_| serde_json::to_vec(definition))
        .unwrap_or_default();
    let mut inexact = Vec::new();
    inexact_integers(definition, &mut String::new(), &mut inexact);
    if !inexact.is_empty() {
        bytes.push(b'\n');
        bytes.extend(serde_json::to_vec(&inexact).unwrap_or_default());
    }
    let digest = Sha256::digest(&bytes);
    let mut out = String::with_capacity(7 + 64);
    out.push_str("sha256:");
    for b in digest.iter() {
        use std::fmt::Write as _;
        let _ = write!(out, "{b:02x}");
    }
    out
}

/// Each integer in `value` that no IEEE double holds exactly, as its
/// RFC 6901 pointer (below `at`) and its digits, members in the order of
/// their names' bytes. Its depth is the value's, which the strict JSON
/// layer bounds.
fn inexact_integers(value: &Value, at: &mut String, out: &mut Vec<(String, String)>) {
    let len = at.len();
    match value {
        Value::Number(n) => {
            let exact = match (n.as_u64(), n.as_i64()) {
                (Some(u), _) => u128::from(u) == (u as f64) as u128,
                (None, Some(i)) => i128::from(i) == (i as f64) as i128,
                _ => true,
            };
            if !exact {
                out.push((at.clone(), n.to_string()));
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                at.push('/');
                at.push_str(&i.to_string());
                inexact_integers(item, at, out);
                at.truncate(len);
            }
        }
        Value::Object(members) => {
            let mut names: Vec<&String> = members.keys().collect();
            names.sort_unstable();
            for name in names {
                at.push('/');
                at.push_str(&name.replace('~', "~0").replace('/', "~1"));
                if let Some(member) = members.get(name) {
                    inexact_integers(member, at, out);
                }
                at.truncate(len);
            }
        }
        _ => {}
    }
}

/// The accepted definitions: tool name to hash.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Pins {
    tools: BTreeMap<String, String>,
    /// The hash of the server's `initialize` instructions (of `null` when
    /// it sent none), when pinned.
    instructions: Option<String>,
}

impl Pins {
    /// The pinned hash of `name`.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.tools.get(name).map(String::as_str)
    }

    /// Pins `name` to `hash`.
    pub fn insert(&mut self, name: String, hash: String) {
        self.tools.insert(name, hash);
    }

    /// Unpins `name`.
    pub fn remove(&mut self, name: &str) {
        self.tools.remove(name);
    }

    /// The pinned hash of the server's instructions.
    pub fn instructions(&self) -> Option<&str> {
        self.instructions.as_deref()
    }

    /// Pins the server's instructions to `hash`.
    pub fn set_instructions(&mut self, hash: String) {
        self.instructions = Some(hash);
    }

    /// Number of pinned tools.
    pub fn len(&self) -> usize {
        self.tools.len()
    }

    /// `true` when nothing is pinned.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    /// Reads a pin file; `Ok(None)` when it does not exist (trust on first use).
    /// The file is trusted only when nobody else could have written it: a
    /// regular file of one link, owned by the gateway's user, not writable
    /// by group or others, and not reached through a symbolic link.
    ///
    /// # Errors
    /// I/O errors, a file that fails those checks, a file over
    /// [`MAX_PIN_FILE_BYTES`], or content that is not a version-1 pin file
    /// (the error says what).
    pub fn load(path: &Path) -> io::Result<Option<Self>> {
        let file = match open_owned(path, std::fs::OpenOptions::new().read(true), PIN_FILE) {
            Ok(f) => f,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(e),
        };
        refuse_shared_write(&file)?;
        let mut bytes = Vec::new();
        io::Read::read_to_end(
            &mut io::Read::take(file, MAX_PIN_FILE_BYTES + 1),
            &mut bytes,
        )?;
        if bytes.len() as u64 > MAX_PIN_FILE_BYTES {
            return Err(bad(format!("over {MAX_PIN_FILE_BYTES} bytes")));
        }
        let limits = Limits {
            max_payload_bytes: MAX_PIN_FILE_BYTES as usize,
            ..Limits::default()
        };
        let v = parse_strict(&bytes, &limits).map_err(|e| bad(e.to_string()))?;
        if v.get("version") != Some(&json!(1)) {
            return Err(bad("`version` is not 1".into()));
        }
        let Some(tools) = v.get("tools").and_then(Value::as_object) else {
            return Err(bad("`tools` is not an object".into()));
        };
        if tools.len() > MAX_TOOLS {
            return Err(bad(format!("more than {MAX_TOOLS} tools")));
        }
        let mut pins = Pins::default();
        match v.get("instructions") {
            None => {}
            Some(Value::String(h)) if valid_hash(h) => pins.instructions = Some(h.clone()),
            Some(_) => return Err(bad("`instructions` is not sha256:<64 hex digits>".into())),
        }
        for (name, h) in tools {
            let Some(h) = h.as_str().filter(|h| valid_hash(h)) else {
                return Err(bad(format!(
                    "the hash of `{name}` is not sha256:<64 hex digits>"
                )));
            };
            pins.insert(name.clone(), h.to_owned());
        }
        Ok(Some(pins))
    }

    /// Writes the pin file atomically, mode 0600: a new file beside it
    /// (`FILE.tmp`), renamed over it.
    ///
    /// # Errors
    /// I/O errors creating, writing or renaming the file.
    pub fn save(&self, path: &Path) -> io::Result<()> {
        let mut doc = json!({"version": 1, "tools": self.tools});
        if let (Some(h), Some(m)) = (&self.instructions, doc.as_object_mut()) {
            m.insert("instructions".into(), json!(h));
        }
        // C1 and bidirectional controls in a tool's text escaped: the file
        // is for people to read and diff.
        let pretty = serde_json::to_string_pretty(&doc).map_err(io::Error::other)?;
        let text = crate::terminal::json_for_terminal(&pretty);
        let (tmp, mut f) = fresh_tmp(path)?;
        f.write_all(text.as_bytes())?;
        f.write_all(b"\n")?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    }

    /// Checks, before the session starts, that the pin file can be
    /// learned into `path`: what is there now passes [`Pins::load`]'s
    /// checks (its content aside), and a new file can be made beside it.
    ///
    /// # Errors
    /// The first check that fails (the gateway then does not start).
    pub fn check_writable(path: &Path) -> io::Result<()> {
        match open_owned(path, std::fs::OpenOptions::new().read(true), PIN_FILE) {
            Ok(f) => refuse_shared_write(&f)?,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
        }
        let (tmp, _) = fresh_tmp(path)?;
        std::fs::remove_file(tmp)
    }
}

/// How the pin file is named in errors.
const PIN_FILE: &str = "the pin file";

/// A new, empty file beside `path` (`FILE.tmp`), mode 0600: whatever was
/// at that path is removed first, and `O_EXCL` follows nothing and reuses
/// nothing.
fn fresh_tmp(path: &Path) -> io::Result<(PathBuf, std::fs::File)> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    match std::fs::remove_file(&tmp) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
        _ => {}
    }
    let file = open_owned(
        &tmp,
        std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600),
        PIN_FILE,
    )?;
    Ok((tmp, file))
}

/// A pin file that group or others can write is not trusted: its hashes
/// may not be the ones the gateway wrote.
fn refuse_shared_write(file: &std::fs::File) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let mode = file.metadata()?.permissions().mode();
    if mode & 0o022 != 0 {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "{PIN_FILE} can be written by group or others (mode {:o}): check its content, then chmod 600 it",
                mode & 0o7777
            ),
        ));
    }
    Ok(())
}

fn valid_hash(h: &str) -> bool {
    h.strip_prefix("sha256:").is_some_and(|hex| {
        hex.len() == 64
            && hex
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    })
}

fn bad(what: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, format!("pin file: {what}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 8785 §3.2.2 / Appendix: the canonical form of the RFC's example.
    #[test]
    fn canonical_form_matches_rfc8785() {
        let input = r#"{
  "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
  "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
  "literals": [null, true, false]
}"#;
        let v: Value = serde_json::from_str(input).unwrap();
        let out = String::from_utf8(serde_json_canonicalizer::to_vec(&v).unwrap()).unwrap();
        assert_eq!(
            out,
            r#"{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}"#
        );
        // §3.2.3: keys sorted by UTF-16 code units.
        let v: Value = serde_json::from_str(
            r#"{"\u20ac":"Euro Sign","\r":"Carriage Return","\ufb33":"Hebrew Letter Dalet With Dagesh","1":"One","\ud83d\ude00":"Emoji: Grinning Face","\u0080":"Control","\u00f6":"Latin Small Letter O With Diaeresis"}"#,
        )
        .unwrap();
        let out = String::from_utf8(serde_json_canonicalizer::to_vec(&v).unwrap()).unwrap();
        let keys: Vec<&str> = ["\r", "1", "\u{80}", "ö", "€", "😀", "\u{fb33}"].to_vec();
        let mut at = 0;
        for k in keys {
            let needle = serde_json::to_string(k).unwrap();
            let pos = out[at..].find(&needle).map(|p| p + at).unwrap();
            at = pos;
        }
    }

    /// Integers past 2^53 are forwarded digit for digit: their exact
    /// value is pinned (#20 re-attack s43, F1), where each is (a rug pull
    /// moving one between members is a change), while every definition
    /// without one keeps its RFC 8785 hash.
    #[test]
    fn hash_pins_integers_no_double_holds() {
        let schema = |n: &str| -> Value {
            serde_json::from_str(&format!(
                r#"{{"name":"pay","inputSchema":{{"properties":{{"to":{{"const":{n}}}}}}}}}"#
            ))
            .unwrap()
        };
        let pairs = [
            ("12345678901234568", "12345678901234567"),
            ("9007199254740992", "9007199254740993"),
            ("18446744073709551615", "18446744073709551614"),
            ("-9223372036854775807", "-9223372036854775806"),
        ];
        for (a, b) in pairs {
            assert_ne!(
                definition_hash(&schema(a)),
                definition_hash(&schema(b)),
                "{a} {b}"
            );
        }
        // Exact in a double: the canonical form alone, as RFC 8785 has it.
        for n in [
            "9007199254740992",
            "-9223372036854775808",
            "1",
            "1.5",
            "18446744073709551616",
        ] {
            let v = schema(n);
            let canonical = serde_json_canonicalizer::to_vec(&v).unwrap();
            let hex: String = Sha256::digest(&canonical)
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect();
            let expected = format!("sha256:{hex}");
            assert_eq!(definition_hash(&v), expected, "{n}");
        }
        // Where it is counts, in arrays and under escaped names too.
        let big = "12345678901234567";
        let at = |text: &str| definition_hash(&serde_json::from_str(text).unwrap());
        assert_ne!(
            at(&format!(r#"{{"a":[{big},1]}}"#)),
            at(&format!(r#"{{"a":[1,{big}]}}"#))
        );
        assert_ne!(
            at(&format!(r#"{{"a/b":{big},"a":{{"b":1}}}}"#)),
            at(&format!(r#"{{"a/b":1,"a":{{"b":{big}}}}}"#))
        );
        let mut found = Vec::new();
        let v: Value = serde_json::from_str(&format!(r#"{{"x~/y":[0,{{"z":{big}}}]}}"#)).unwrap();
        inexact_integers(&v, &mut String::new(), &mut found);
        assert_eq!(found, [("/x~0~1y/1/z".to_owned(), big.to_owned())]);
    }

    #[test]
    fn hash_ignores_order_and_spelling_not_content() {
        let a: Value =
            serde_json::from_str(r#"{"name":"t","inputSchema":{"type":"object","x":1.0}}"#)
                .unwrap();
        let b: Value =
            serde_json::from_str(r#"{"inputSchema":{"x":1,"type":"object"},"name":"t"}"#).unwrap();
        let c: Value =
            serde_json::from_str(r#"{"name":"t","inputSchema":{"type":"object","x":2}}"#).unwrap();
        assert_eq!(definition_hash(&a), definition_hash(&b));
        assert_ne!(definition_hash(&a), definition_hash(&c));
        assert!(valid_hash(&definition_hash(&a)));
    }

    #[test]
    fn file_round_trip_and_errors() {
        use std::os::unix::fs::PermissionsExt;
        let t = tempfile::tempdir().unwrap();
        let p = t.path().join("pins.json");
        assert_eq!(Pins::load(&p).unwrap(), None);
        let mut pins = Pins::default();
        pins.insert("a".into(), definition_hash(&json!({"name": "a"})));
        pins.save(&p).unwrap();
        assert_eq!(Pins::load(&p).unwrap(), Some(pins));
        let mode = std::fs::metadata(&p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        // A tool name with C1 and bidirectional controls is escaped in the
        // file, and read back as the same name.
        let name = "a\u{9b}2J\u{202e}\u{85}";
        let mut pins = Pins::default();
        pins.insert(name.into(), definition_hash(&json!({"name": name})));
        pins.save(&p).unwrap();
        let text = std::fs::read_to_string(&p).unwrap();
        assert!(
            !text
                .chars()
                .any(|c| (c.is_control() && c != '\n') || c == '\u{202e}'),
            "{text:?}"
        );
        assert_eq!(Pins::load(&p).unwrap(), Some(pins));
        for bad in [
            "{",
            r#"{"version":2,"tools":{}}"#,
            r#"{"version":1,"tools":[]}"#,
            r#"{"version":1,"tools":{"a":"md5:x"}}"#,
            r#"{"version":1,"version":1,"tools":{}}"#,
        ] {
            std::fs::write(&p, bad).unwrap();
            assert!(Pins::load(&p).is_err(), "{bad}");
        }
    }

    #[test]
    fn only_a_file_of_the_gateways_own_is_trusted() {
        use std::os::unix::fs::PermissionsExt;
        let t = tempfile::tempdir().unwrap();
        let p = t.path().join("pins.json");
        let mut pins = Pins::default();
        pins.insert("a".into(), definition_hash(&json!({"name": "a"})));
        pins.save(&p).unwrap();
        let mode = std::fs::metadata(&p).unwrap().permissions().mode() & 0o7777;
        assert_eq!(mode, 0o600);
        assert_eq!(Pins::load(&p).unwrap(), Some(pins.clone()));
        Pins::check_writable(&p).unwrap();
        for (mode, refused) in [(0o640, false), (0o604, false), (0o660, true), (0o602, true)] {
            std::fs::set_permissions(&p, std::fs::Permissions::from_mode(mode)).unwrap();
            assert_eq!(Pins::load(&p).is_err(), refused, "{mode:o}");
            assert_eq!(Pins::check_writable(&p).is_err(), refused, "{mode:o}");
        }
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o600)).unwrap();
        let link = t.path().join("link.json");
        std::os::unix::fs::symlink(&p, &link).unwrap();
        assert!(Pins::load(&link).is_err());
        assert!(Pins::check_writable(&link).is_err());
        // Not there: trust on first use, when a file can be made there.
        let none = t.path().join("none.json");
        assert_eq!(Pins::load(&none).unwrap(), None);
        Pins::check_writable(&none).unwrap();
        assert!(!none.exists() && !t.path().join("none.json.tmp").exists());
        assert!(Pins::check_writable(&t.path().join("no/dir/pins.json")).is_err());
        // A stale temporary file (or a link there) is replaced, not followed.
        let victim = t.path().join("victim");
        std::fs::write(&victim, "keep").unwrap();
        std::os::unix::fs::symlink(&victim, t.path().join("pins.json.tmp")).unwrap();
        pins.save(&p).unwrap();
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep");
        assert_eq!(Pins::load(&p).unwrap(), Some(pins));
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::default())]

        /// Two definitions that differ in one integer hash differently,
        /// whatever the integers (the client reads every digit).
        #[test]
        fn distinct_integers_hash_apart(a: i64, b: u64, wide: bool) {
            let b = if wide { b } else { b >> 11 };
            let x = json!({"name": "t", "inputSchema": {"const": a}});
            let y = json!({"name": "t", "inputSchema": {"const": b}});
            proptest::prop_assert_eq!(
                definition_hash(&x) == definition_hash(&y),
                i128::from(a) == i128::from(b)
            );
        }
    }
}
