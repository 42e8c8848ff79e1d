//! The policy file (TOML) and its validated form, [`Policy`].
//!
//! ```toml
//! [tools]
//! allow = ["read_*", "list_directory"]   # when present, only these tools
//! deny  = ["*write*"]                    # deny wins over allow
//!
//! [[args]]                 # one rule per argument to vet specially
//! tool = "fetch"           # tool-name glob
//! pointer = "/url"         # RFC 6901 pointer into `arguments`
//! kind = "url"             # url | path | text
//! max_bytes = 2048         # optional bound on the value (UTF-8 bytes; JSON text for non-strings)
//!
//! [net]
//! allow = ["10.1.0.0/16", "wiki.corp:443"]   # lifted through the range checks
//! deny  = ["10.1.9.0/24"]                    # wins over every allow
//! resolve = false                            # resolve and vet names at the gateway
//!
//! [[limits]]
//! tool = "fetch*"
//! max_concurrent = 2       # calls in flight per tool
//! rate = 30                # calls per minute per tool
//!
//! [paths]
//! roots = ["/data"]        # as many --root
//! relative = "each_root"   # refuse (default) | each_root | cwd
//! tilde = "home"           # refuse (default) | home
//! variables = "literal"    # refuse (default) | literal: `$NAME` taken as written
//! lists = "whole"          # split (default) | whole: a path argument is one path
//! ```
//!
//! Globs are `globset` globs over the whole tool name (`*`, `?`, `[ab]`,
//! `{a,b}`; `*` also matches `/`); a `deny` glob, and the tool glob of an
//! `[[args]]` or `[[limits]]` rule, matches a name as written or as
//! [`fold_name`] reads it (`WRITE_FILE`, `wrıte_file`, `ſecret`:
//! a server may fold case or normalise compatibility characters); an
//! `allow` glob only as written. `kind = "url"`: the value must be a string
//! (or an array of strings) and a URL the net policy lets through;
//! `kind = "path"`: a path that must resolve inside a root (roots are then
//! required); `kind = "text"`: the value, a string or an array of strings
//! as for the other kinds, is exempt from the URL and path-name checks
//! (for an argument such as a file's content). Every
//! matching `[[limits]]` rule applies (the strictest wins).
//!
//! Any error (syntax, an unknown key, a bad glob, pointer or entry) names
//! its line and is a start-up error.

use std::fmt;
use std::ops::Range;
use std::path::PathBuf;

use globset::{Glob, GlobBuilder, GlobMatcher, GlobSet, GlobSetBuilder};
use serde::Deserialize;
use toml::Spanned;

use super::limits::Subject;
use super::paths::{PathLists, RelativePaths, TildePaths, VariablePaths};
use crate::net::{Entry, NetPolicy};

/// Largest policy file read, in bytes.
pub const MAX_POLICY_BYTES: usize = 1024 * 1024;

/// Most entries in any one list of the policy (globs, rules, entries, roots).
pub const MAX_POLICY_ENTRIES: usize = 4096;

/// A policy file that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PolicyError {
    /// 1-based line of the fault (`0` when it has no place, e.g. too large).
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for PolicyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            write!(f, "{}", self.message)
        } else {
            write!(f, "line {}: {}", self.line, self.message)
        }
    }
}

impl std::error::Error for PolicyError {}

/// How an `[[args]]` rule treats its value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ArgKind {
    /// A URL (string or array of strings) vetted by the net policy.
    Url,
    /// A path (string or array of strings) confined to the roots.
    Path,
    /// Free text: exempt from the URL and path-name checks.
    Text,
}

/// A name as a server that folds case or normalises compatibility
/// characters may read it: Unicode NFKC, then full upper case (`ı` is `I`,
/// `ſ` is `S`), then full case folding (`ẞ` is `ss`, the Kelvin sign `k`),
/// with `i` and a combining dot above taken as `i` (`İ`, which Turkish
/// lower-casing makes `i`), then NFKC again, without the hidden characters
/// a server that strips them would drop (format, default-ignorable, tag,
/// `Bidi_Control`, control characters: `read\u{200B}_file` is
/// `read_file`; dropped before NFKC and after: `cafe\u{34F}\u{301}` is
/// `café`), and without white space at either end (Unicode `White_Space`:
/// `" read_file\u{3000}"` is `read_file`). Deny globs and rule globs are folded the same way, so a
/// name whose fold equals a denied one is denied (`wrıte_file`,
/// `WRİTE_FILE`, `ＷＲＩＴＥ_file`, `ſecret`, `write\u{200B}_file`).
/// Bounded by the name's length.
pub fn fold_name(name: &str) -> String {
    // Dropped first too: a hidden character between a letter and its
    // combining mark (U+034F) keeps NFKC from composing them, as the
    // server that strips it first would (attack s70-A, N3).
    let shown = |s: &str| -> String {
        s.chars()
            .filter(|c| super::hidden::class(*c).is_none())
            .collect()
    };
    let nfkc = icu_normalizer::ComposingNormalizerBorrowed::new_nfkc();
    let upper = nfkc.normalize(&shown(name)).to_uppercase();
    let folded = icu_casemap::CaseMapper::new()
        .fold_string(&upper)
        .replace("i\u{307}", "i");
    // White space at either end, which a server that trims the name
    // (`str.strip()`, `String.prototype.trim()`) drops (attack s71-B, F1:
    // `"write_file "` and `"\u{3000}write_file"` ran a denied tool).
    shown(&nfkc.normalize(&folded))
        .trim_matches(char::is_whitespace)
        .to_owned()
}

/// A tool glob of a rule: matched as written, and folded ([`fold_name`])
/// against the folded name.
#[derive(Debug, Clone)]
struct RuleGlob {
    written: GlobMatcher,
    folded: GlobMatcher,
}

impl RuleGlob {
    fn is_match(&self, name: &str) -> bool {
        self.written.is_match(name) || self.folded.is_match(fold_name(name))
    }
}

/// One validated `[[args]]` rule.
#[derive(Debug, Clone)]
pub struct ArgRule {
    /// The tool glob as written.
    pub tool: String,
    matcher: RuleGlob,
    /// The RFC 6901 pointer into `arguments`.
    pub pointer: String,
    /// The kind.
    pub kind: ArgKind,
    /// Bound on the value in bytes.
    pub max_bytes: Option<usize>,
    /// The rule's line in the policy file.
    pub line: usize,
}

impl ArgRule {
    /// `true` when the rule applies to tool `name`: its glob matches the
    /// name as written or folded ([`fold_name`]). What the rule requires
    /// (its kind's check, `max_bytes`) holds for every name it applies to.
    pub fn applies_to(&self, name: &str) -> bool {
        self.matcher.is_match(name)
    }

    /// `true` when the rule's glob matches tool `name` as written. Only
    /// then does the rule also lift the default checks of the value it
    /// names (`kind = "text"` both, `kind = "url"` the path check): an
    /// exemption, like an `allow` glob, is not given to another tool
    /// whose name merely folds as the named one's (`Notes`, `ｎｏｔｅｓ` on a
    /// case-sensitive server are other tools).
    pub fn exempts(&self, name: &str) -> bool {
        self.matcher.written.is_match(name)
    }

    /// The rule's label in refusals and the audit log.
    pub fn label(&self) -> String {
        format!(
            "args \"{}\" {} (line {})",
            self.tool, self.pointer, self.line
        )
    }
}

/// One validated `[[limits]]` rule.
#[derive(Debug, Clone)]
pub struct LimitRule {
    /// What it counts: `tool = GLOB` (calls) or `prompt = GLOB` (gets).
    pub subject: Subject,
    /// The glob as written.
    pub glob: String,
    matcher: RuleGlob,
    /// Requests in flight per name.
    pub max_concurrent: Option<u32>,
    /// Requests per minute per name.
    pub rate: Option<u32>,
    /// The rule's line.
    pub line: usize,
}

impl LimitRule {
    /// `true` when the rule's glob matches `name` (a tool's or a
    /// prompt's, as [`LimitRule::subject`] says).
    pub fn applies_to(&self, name: &str) -> bool {
        self.matcher.is_match(name)
    }
}

/// A list of globs with their text, matched as one set; a folding list
/// (a deny list) also matches a name as [`fold_name`] reads it against
/// its globs folded the same way.
#[derive(Debug, Clone)]
pub struct GlobList {
    set: GlobSet,
    folded: Option<GlobSet>,
    texts: Vec<String>,
}

impl GlobList {
    fn empty() -> Self {
        Self {
            set: GlobSet::empty(),
            folded: None,
            texts: Vec::new(),
        }
    }

    /// The first glob (as written) matching `name`, as written or folded.
    pub fn first_match(&self, name: &str) -> Option<&str> {
        let mut hits = self.set.matches(name);
        if let (true, Some(folded)) = (hits.is_empty(), &self.folded) {
            hits = folded.matches(fold_name(name));
        }
        hits.first()
            .and_then(|&i| self.texts.get(i))
            .map(String::as_str)
    }

    /// The globs as written.
    pub fn texts(&self) -> &[String] {
        &self.texts
    }
}

/// A validated policy.
#[derive(Debug, Clone)]
pub struct Policy {
    /// `[tools] allow`: when `Some`, only matching tools exist.
    pub tools_allow: Option<GlobList>,
    /// `[tools] deny`.
    pub tools_deny: GlobList,
    /// `[prompts] allow`: when `Some`, only matching prompts exist.
    pub prompts_allow: Option<GlobList>,
    /// `[prompts] deny`.
    pub prompts_deny: GlobList,
    /// `[methods] allow`: methods the gateway does not know that may pass
    /// (their params still get the URL and path checks).
    pub methods_allow: GlobList,
    /// `[[args]]` rules, in file order.
    pub args: Vec<ArgRule>,
    /// `[net] allow` / `deny`.
    pub net: NetPolicy,
    /// `[net] resolve`.
    pub resolve: bool,
    /// `[[limits]]` rules.
    pub limits: Vec<LimitRule>,
    /// `[paths] roots`, as written.
    pub roots: Vec<PathBuf>,
    /// `[paths] relative`: how the child resolves a relative path.
    pub relative: RelativePaths,
    /// `[paths] tilde`: how the child treats a leading `~`.
    pub tilde: TildePaths,
    /// `[paths] variables`: whether the child expands `$NAME` in a path.
    pub variables: VariablePaths,
    /// `[paths] lists`: whether the child may read one path argument as
    /// several.
    pub lists: PathLists,
    /// `[resources] schemes`: URI schemes that are the server's own names
    /// for its resources (`test`, `note`, `memo`), lower case: a URI of one
    /// of them is an opaque name the server resolves itself, exempt from
    /// the URL check wherever it appears. Never `http(s)` nor a scheme of
    /// [`super::URL_SCHEMES`].
    pub resource_schemes: Vec<String>,
}

impl Default for Policy {
    /// The zero-configuration policy: every tool, no rules, no roots.
    fn default() -> Self {
        Self {
            tools_allow: None,
            tools_deny: GlobList::empty(),
            prompts_allow: None,
            prompts_deny: GlobList::empty(),
            methods_allow: GlobList::empty(),
            args: Vec::new(),
            net: NetPolicy::default(),
            resolve: false,
            limits: Vec::new(),
            roots: Vec::new(),
            relative: RelativePaths::default(),
            tilde: TildePaths::default(),
            variables: VariablePaths::default(),
            lists: PathLists::default(),
            resource_schemes: Vec::new(),
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileTop {
    #[serde(default)]
    tools: Option<FileTools>,
    #[serde(default)]
    prompts: Option<FileTools>,
    #[serde(default)]
    methods: Option<FileMethods>,
    #[serde(default)]
    args: Vec<Spanned<FileArg>>,
    #[serde(default)]
    net: Option<FileNet>,
    #[serde(default)]
    limits: Vec<Spanned<FileLimit>>,
    #[serde(default)]
    paths: Option<FilePaths>,
    #[serde(default)]
    resources: Option<FileResources>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileResources {
    #[serde(default)]
    schemes: Vec<Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileTools {
    allow: Option<Vec<Spanned<String>>>,
    #[serde(default)]
    deny: Vec<Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileMethods {
    #[serde(default)]
    allow: Vec<Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileArg {
    tool: Spanned<String>,
    pointer: Spanned<String>,
    kind: ArgKind,
    max_bytes: Option<Spanned<i64>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileNet {
    #[serde(default)]
    allow: Vec<Spanned<String>>,
    #[serde(default)]
    deny: Vec<Spanned<String>>,
    #[serde(default)]
    resolve: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileLimit {
    tool: Option<Spanned<String>>,
    prompt: Option<Spanned<String>>,
    max_concurrent: Option<Spanned<i64>>,
    rate: Option<Spanned<i64>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FilePaths {
    #[serde(default)]
    roots: Vec<Spanned<String>>,
    #[serde(default)]
    relative: RelativePaths,
    #[serde(default)]
    tilde: TildePaths,
    #[serde(default)]
    variables: VariablePaths,
    #[serde(default)]
    lists: PathLists,
}

/// 1-based line holding byte `at` of `text`.
fn line_of(text: &str, at: usize) -> usize {
    text.as_bytes()
        .get(..at.min(text.len()))
        .map_or(0, |b| b.iter().filter(|&&c| c == b'\n').count())
        + 1
}

struct Ctx<'a> {
    text: &'a str,
}

impl Ctx<'_> {
    fn err(&self, span: Range<usize>, message: impl Into<String>) -> PolicyError {
        PolicyError {
            line: line_of(self.text, span.start),
            message: message.into(),
        }
    }

    fn bounded<T>(&self, list: &[T], what: &str) -> Result<(), PolicyError> {
        if list.len() > MAX_POLICY_ENTRIES {
            return Err(PolicyError {
                line: 0,
                message: format!(
                    "{what} has {} entries, over {MAX_POLICY_ENTRIES}",
                    list.len()
                ),
            });
        }
        Ok(())
    }

    fn glob(&self, g: &Spanned<String>, any_case: bool) -> Result<Glob, PolicyError> {
        self.glob_of(g, g.get_ref(), any_case)
    }

    /// The glob `text` (`g` itself, or `g` folded), its errors on `g`'s line.
    fn glob_of(
        &self,
        g: &Spanned<String>,
        text: &str,
        any_case: bool,
    ) -> Result<Glob, PolicyError> {
        GlobBuilder::new(text)
            .literal_separator(false)
            .backslash_escape(true)
            .case_insensitive(any_case)
            .build()
            .map_err(|e| {
                let folded = if text == g.get_ref() {
                    String::new()
                } else {
                    format!(" (folded: `{text}`)")
                };
                self.err(
                    g.span(),
                    format!("bad glob `{}`{folded}: {}", g.get_ref(), e.kind()),
                )
            })
    }

    /// The glob `g` folded as names are ([`fold_name`]).
    fn folded_glob(&self, g: &Spanned<String>) -> Result<Glob, PolicyError> {
        self.glob_of(g, &fold_name(g.get_ref()), true)
    }

    /// The tool glob of a rule, matched as written and folded.
    fn rule_glob(&self, g: &Spanned<String>) -> Result<RuleGlob, PolicyError> {
        Ok(RuleGlob {
            written: self.glob(g, false)?.compile_matcher(),
            folded: self.folded_glob(g)?.compile_matcher(),
        })
    }

    /// The globs of `list`; a deny list (`fold`) matches names in any
    /// case and as [`fold_name`] reads them, so that `WRITE_FILE` and
    /// `wrıte_file` are refused with `write_file` for a server that folds
    /// case.
    fn globs(
        &self,
        list: &[Spanned<String>],
        what: &str,
        fold: bool,
    ) -> Result<GlobList, PolicyError> {
        self.bounded(list, what)?;
        let mut b = GlobSetBuilder::new();
        let mut f = GlobSetBuilder::new();
        for g in list {
            b.add(self.glob(g, fold)?);
            if fold {
                f.add(self.folded_glob(g)?);
            }
        }
        let built = |b: GlobSetBuilder| {
            b.build().map_err(|e| PolicyError {
                line: 0,
                message: format!("{what}: {e}"),
            })
        };
        Ok(GlobList {
            set: built(b)?,
            folded: if fold { Some(built(f)?) } else { None },
            texts: list.iter().map(|g| g.get_ref().clone()).collect(),
        })
    }

    fn entries(&self, list: &[Spanned<String>], what: &str) -> Result<Vec<Entry>, PolicyError> {
        self.bounded(list, what)?;
        list.iter()
            .map(|e| {
                Entry::parse(e.get_ref())
                    .map_err(|m| self.err(e.span(), format!("{what}: `{}`: {m}", e.get_ref())))
            })
            .collect()
    }

    fn positive(&self, v: &Spanned<i64>, what: &str) -> Result<u64, PolicyError> {
        u64::try_from(*v.get_ref())
            .ok()
            .filter(|&n| n > 0)
            .ok_or_else(|| self.err(v.span(), format!("{what} must be a positive integer")))
    }
}

/// Checks an RFC 6901 pointer: empty, or `/`-separated tokens in which `~`
/// is only ever `~0` or `~1`.
pub fn valid_pointer(p: &str) -> bool {
    if p.is_empty() {
        return true;
    }
    if !p.starts_with('/') {
        return false;
    }
    let b = p.as_bytes();
    b.iter()
        .enumerate()
        .all(|(i, &c)| c != b'~' || matches!(b.get(i + 1), Some(b'0' | b'1')))
}

impl Policy {
    /// Parses and validates a policy file's text.
    ///
    /// # Errors
    /// A [`PolicyError`] naming the line: TOML syntax, an unknown key or
    /// section, a wrong type, a bad glob, pointer, net entry or number, a
    /// list over [`MAX_POLICY_ENTRIES`], a file over [`MAX_POLICY_BYTES`].
    pub fn parse(text: &str) -> Result<Self, PolicyError> {
        if text.len() > MAX_POLICY_BYTES {
            return Err(PolicyError {
                line: 0,
                message: format!(
                    "the policy is {} bytes, over {MAX_POLICY_BYTES}",
                    text.len()
                ),
            });
        }
        let top: FileTop = toml::from_str(text).map_err(|e| PolicyError {
            line: e.span().map_or(0, |s| line_of(text, s.start)),
            message: e.message().to_owned(),
        })?;
        let cx = Ctx { text };
        let mut p = Policy::default();
        if let Some(t) = &top.tools {
            if let Some(a) = &t.allow {
                p.tools_allow = Some(cx.globs(a, "tools.allow", false)?);
            }
            p.tools_deny = cx.globs(&t.deny, "tools.deny", true)?;
        }
        if let Some(t) = &top.prompts {
            if let Some(a) = &t.allow {
                p.prompts_allow = Some(cx.globs(a, "prompts.allow", false)?);
            }
            p.prompts_deny = cx.globs(&t.deny, "prompts.deny", true)?;
        }
        if let Some(m) = &top.methods {
            p.methods_allow = cx.globs(&m.allow, "methods.allow", false)?;
        }
        cx.bounded(&top.args, "args")?;
        for a in &top.args {
            let line = line_of(text, a.span().start);
            let r = a.get_ref();
            if !valid_pointer(r.pointer.get_ref()) {
                return Err(cx.err(
                    r.pointer.span(),
                    format!(
                        "`{}` is not an RFC 6901 JSON Pointer (empty, or starting with `/`; `~` only as `~0` or `~1`)",
                        r.pointer.get_ref()
                    ),
                ));
            }
            let max_bytes = match &r.max_bytes {
                Some(m) => {
                    Some(usize::try_from(cx.positive(m, "max_bytes")?).unwrap_or(usize::MAX))
                }
                None => None,
            };
            p.args.push(ArgRule {
                tool: r.tool.get_ref().clone(),
                matcher: cx.rule_glob(&r.tool)?,
                pointer: r.pointer.get_ref().clone(),
                kind: r.kind,
                max_bytes,
                line,
            });
        }
        if let Some(r) = &top.resources {
            cx.bounded(&r.schemes, "resources.schemes")?;
            for sch in &r.schemes {
                let name = sch.get_ref().to_ascii_lowercase();
                let syntax = name.len() >= 2
                    && name.starts_with(|c: char| c.is_ascii_alphabetic())
                    && name
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
                if !syntax {
                    return Err(cx.err(
                        sch.span(),
                        format!("resources.schemes: `{}` is not a URI scheme of two or more characters (RFC 3986)", sch.get_ref()),
                    ));
                }
                if super::URL_SCHEMES.contains(&name.as_str()) {
                    return Err(cx.err(
                        sch.span(),
                        format!("resources.schemes: `{name}` is a network or file scheme, never a server's own names"),
                    ));
                }
                p.resource_schemes.push(name);
            }
        }
        if let Some(n) = &top.net {
            let allow = cx.entries(&n.allow, "net.allow")?;
            let deny = cx.entries(&n.deny, "net.deny")?;
            p.net = NetPolicy::new(allow, deny).map_err(|e| {
                let span = match &e {
                    crate::net::PolicyError::Metadata { index, .. }
                    | crate::net::PolicyError::Unspecified { index, .. } => {
                        n.allow.get(*index).map(Spanned::span)
                    }
                    _ => None,
                };
                PolicyError {
                    line: span.map_or(0, |s| line_of(text, s.start)),
                    message: format!("net: {e}"),
                }
            })?;
            p.resolve = n.resolve;
        }
        cx.bounded(&top.limits, "limits")?;
        for l in &top.limits {
            let line = line_of(text, l.span().start);
            let r = l.get_ref();
            let num = |v: &Option<Spanned<i64>>, what| -> Result<Option<u32>, PolicyError> {
                match v {
                    Some(v) => Ok(Some(
                        u32::try_from(cx.positive(v, what)?).unwrap_or(u32::MAX),
                    )),
                    None => Ok(None),
                }
            };
            let max_concurrent = num(&r.max_concurrent, "max_concurrent")?;
            let rate = num(&r.rate, "rate")?;
            if max_concurrent.is_none() && rate.is_none() {
                return Err(PolicyError {
                    line,
                    message: "a [[limits]] rule needs max_concurrent or rate".into(),
                });
            }
            let (subject, glob) = match (&r.tool, &r.prompt) {
                (Some(g), None) => (Subject::Tool, g),
                (None, Some(g)) => (Subject::Prompt, g),
                _ => {
                    return Err(PolicyError {
                        line,
                        message: "a [[limits]] rule needs one of tool or prompt".into(),
                    })
                }
            };
            p.limits.push(LimitRule {
                subject,
                glob: glob.get_ref().clone(),
                matcher: cx.rule_glob(glob)?,
                max_concurrent,
                rate,
                line,
            });
        }
        if let Some(paths) = &top.paths {
            cx.bounded(&paths.roots, "paths.roots")?;
            for r in &paths.roots {
                if r.get_ref().is_empty() {
                    return Err(cx.err(r.span(), "an empty root"));
                }
                p.roots.push(PathBuf::from(r.get_ref()));
            }
            p.relative = paths.relative;
            p.tilde = paths.tilde;
            p.variables = paths.variables;
            p.lists = paths.lists;
        }
        Ok(p)
    }

    /// The line of the first `kind = "path"` rule, when there is one (such a
    /// rule needs roots).
    pub fn first_path_rule(&self) -> Option<usize> {
        self.args
            .iter()
            .find(|a| a.kind == ArgKind::Path)
            .map(|a| a.line)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const EXAMPLE: &str = r#"
[tools]
allow = ["read_*", "list_directory", "fetch"]
deny = ["*write*"]

[[args]]
tool = "fetch"
pointer = "/url"
kind = "url"
max_bytes = 2048

[net]
allow = ["10.1.0.0/16", "wiki.corp:443"]
deny = ["10.1.9.0/24"]
resolve = true

[[limits]]
tool = "fetch*"
max_concurrent = 2
rate = 30

[paths]
roots = ["/data"]
"#;

    /// A name folds as a server that strips hidden characters, normalises
    /// and folds case reads it, whichever it does first (attack s70-A,
    /// N3): the hidden characters go before NFKC and after.
    #[test]
    fn fold_name_drops_hidden_characters_before_and_after_normalising() {
        for (a, b) in [
            ("read\u{200B}_file", "read_file"),
            ("cafe\u{34F}\u{301}", "caf\u{E9}"),
            ("CAFE\u{2060}\u{301}", "caf\u{E9}"),
            ("\u{1100}\u{200B}\u{1161}", "\u{AC00}"),
            ("ta\u{E0041}g\u{202E}s", "tags"),
            ("fi\u{200B}\u{307}le", "fi\u{307}le"),
            ("\u{FB01}le\u{FE0F}", "file"),
            // White space at either end, as a server trimming the name
            // reads it (attack s71-B, F1).
            ("write_file ", "write_file"),
            ("\u{3000}write_file", "write_file"),
            ("\twrite_file\n", "write_file"),
            ("\u{A0}write_file\u{2028}", "write_file"),
            (" \u{200B} write_file", "write_file"),
        ] {
            assert_eq!(fold_name(a), fold_name(b), "{a:?} {b:?}");
        }
        assert_ne!(fold_name("cafe"), fold_name("caf\u{E9}"));
        // White space inside a name stays.
        assert_ne!(fold_name("write file"), fold_name("writefile"));
    }

    #[test]
    fn example_parses() {
        let p = Policy::parse(EXAMPLE).unwrap();
        let allow = p.tools_allow.as_ref().unwrap();
        assert_eq!(allow.first_match("read_file"), Some("read_*"));
        assert_eq!(allow.first_match("write_file"), None);
        assert_eq!(p.tools_deny.first_match("read_write"), Some("*write*"));
        assert_eq!(p.args.len(), 1);
        assert_eq!(p.args[0].line, 6);
        assert_eq!(p.args[0].max_bytes, Some(2048));
        assert!(p.args[0].applies_to("fetch"));
        assert_eq!(p.net.allow().len(), 2);
        assert!(p.resolve);
        assert_eq!(p.limits[0].rate, Some(30));
        assert_eq!(p.roots, vec![PathBuf::from("/data")]);
        let empty = Policy::parse("").unwrap();
        assert!(empty.tools_allow.is_none());
    }

    #[test]
    fn errors_name_the_line() {
        let cases = [
            ("[tools]\nallow = [\"[\"]\n", 2, "bad glob"),
            ("[tools]\nbogus = 1\n", 2, "unknown field"),
            ("[nope]\n", 1, "unknown field"),
            (
                "[[limits]]\ntool = \"a\"\nprompt = \"b\"\nrate = 1\n",
                1,
                "one of tool or prompt",
            ),
            ("\n[[limits]]\nrate = 1\n", 2, "one of tool or prompt"),
            (
                "\n\n[[args]]\ntool = \"x\"\npointer = \"url\"\nkind = \"url\"\n",
                5,
                "RFC 6901",
            ),
            (
                "[[args]]\ntool = \"x\"\npointer = \"/a~2\"\nkind = \"url\"\n",
                3,
                "RFC 6901",
            ),
            (
                "[[args]]\ntool = \"x\"\npointer = \"/a\"\nkind = \"blob\"\n",
                4,
                "unknown variant",
            ),
            (
                "[[args]]\ntool = \"x\"\npointer = \"/a\"\nkind = \"url\"\nmax_bytes = 0\n",
                5,
                "positive",
            ),
            (
                "[net]\nallow = [\"ok.example\",\n \"not a host\"]\n",
                3,
                "net.allow",
            ),
            ("[net]\ndeny = [\"10.0.0.0/33\"]\n", 2, "net.deny"),
            ("\n[[limits]]\ntool = \"x\"\n", 2, "max_concurrent or rate"),
            ("[[limits]]\ntool = \"x\"\nrate = -1\n", 3, "positive"),
            ("[tools]\nallow = \"x\"\n", 2, "invalid type"),
            ("a = [\n", 1, ""),
            ("[paths]\nroots = [\"\"]\n", 2, "empty root"),
            (
                "[paths]\nroots = [\"/d\"]\nvariables = \"expand\"\n",
                3,
                "unknown variant",
            ),
            ("[paths]\nvariables = true\n", 2, "wanted string"),
            (
                "[net]\nallow = [\"10.0.0.0/8\",\n \"169.254.169.254\"]\n",
                3,
                "metadata",
            ),
        ];
        for (text, line, want) in cases {
            let e = Policy::parse(text).unwrap_err();
            assert_eq!(e.line, line, "{text:?}: {e}");
            assert!(e.message.contains(want), "{text:?}: {e}");
        }
        let big = "#".repeat(MAX_POLICY_BYTES + 1);
        assert_eq!(Policy::parse(&big).unwrap_err().line, 0);
    }

    #[test]
    fn paths_settings() {
        let p = Policy::parse("[paths]\nroots = [\"/d\"]\n").unwrap();
        assert_eq!(p.relative, RelativePaths::Refuse);
        assert_eq!(p.tilde, TildePaths::Refuse);
        assert_eq!(p.variables, VariablePaths::Refuse);
        assert_eq!(Policy::default().variables, VariablePaths::Refuse);
        for (text, want) in [
            ("refuse", VariablePaths::Refuse),
            ("literal", VariablePaths::Literal),
        ] {
            let p = Policy::parse(&format!(
                "[paths]\nrelative = \"each_root\"\ntilde = \"home\"\nvariables = \"{text}\"\n"
            ))
            .unwrap();
            assert_eq!(p.variables, want, "{text}");
            assert_eq!(p.relative, RelativePaths::EachRoot);
            assert_eq!(p.tilde, TildePaths::Home);
        }
        for bad in ["Literal", "expand", ""] {
            let e = Policy::parse(&format!("\n[paths]\nvariables = \"{bad}\"\n")).unwrap_err();
            assert_eq!(e.line, 3, "{bad}: {e}");
            assert!(e.message.contains("unknown variant"), "{bad}: {e}");
            assert!(e.message.contains("literal"), "{bad}: {e}");
        }
    }

    #[test]
    fn pointers() {
        for ok in ["", "/", "/a", "/a~0b/~1c", "/0/x"] {
            assert!(valid_pointer(ok), "{ok}");
        }
        for bad in ["a", "/~", "/~2", "/a~"] {
            assert!(!valid_pointer(bad), "{bad}");
        }
    }
}
