//! Prompts, resources and resource templates that `--poison` hides from
//! their listings, remembered per session so that every request naming
//! one is refused ([`HiddenEntries`]).

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use super::audit::{audit_name, audit_uri};
use super::code::{GateCode, Refusal};
use super::decide::completion_uris;
use super::listing::listing_members;
use super::named::Named;
use super::pin::MAX_TOOLS;
use super::poison::{clean_value, PoisonMode};
use super::policy::fold_name;
use super::urls::lenient_form;

/// Most prompts, resources and resource templates one session remembers
/// as hidden for what their definitions carry ([`HiddenEntries`]). Past
/// it, a poisoned entry is left in its page, whose screen then refuses the
/// whole answer (fail closed: never shown, never forgotten).
pub const MAX_HIDDEN_ENTRIES: usize = MAX_TOOLS;

/// What a prompt, resource or resource template listing entry is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum EntryKind {
    Prompt,
    Resource,
    Template,
}

impl EntryKind {
    /// The kind a listing method lists, its array member and the key
    /// naming each entry.
    fn of_listing(method: &str) -> Option<(Self, &'static str, &'static str)> {
        let kind = match method {
            "prompts/list" => Self::Prompt,
            "resources/list" => Self::Resource,
            "resources/templates/list" => Self::Template,
            _ => return None,
        };
        let (member, key) = listing_members(method)?;
        Some((kind, member, key))
    }

    fn noun(self) -> &'static str {
        match self {
            Self::Prompt => "prompt",
            Self::Resource => "resource",
            Self::Template => "resource template",
        }
    }

    /// How a message names the entry `name`: a prompt by its name, a URI
    /// or template without what may be a secret ([`audit_uri`]), as the
    /// audit file does (attack s61, N3: the log quoted a password).
    fn shown(self, name: &str) -> String {
        match self {
            Self::Prompt => audit_name(name),
            Self::Resource | Self::Template => audit_uri(name),
        }
    }

    /// What an entry named `text` is known by: a prompt name as a server
    /// that folds names reads it ([`fold_name`]); a URI or template as a
    /// lenient URL parser reads it ([`lenient_form`]), serialized by the
    /// URL parser when it parses (case of scheme and host, dot segments,
    /// percent-encoding) and without its fragment.
    fn key(self, text: &str) -> String {
        match self {
            Self::Prompt => fold_name(text),
            Self::Resource | Self::Template => {
                let form = lenient_form(text);
                match url::Url::parse(&form) {
                    Ok(mut u) => {
                        u.set_fragment(None);
                        u.to_string()
                    }
                    Err(_) => form.into_owned(),
                }
            }
        }
    }
}

/// A resource URI or template key ([`EntryKind::key`]) as a server may
/// read it: percent-decoded; without its query and fragment (a server
/// that routes on the path serves `…/r?` and `…/r?x=1` as `…/r`: attack
/// s71-B, F2; a template's `{?q}` is an expression, not a query) and
/// without the parameters of its last path segment (`…/r;x`, which
/// Python's `urlparse` takes out of the path); folded as a name is
/// ([`fold_name`]: NFKC, case, hidden characters, white space at either
/// end); its host without userinfo and trailing dots; its path with `\`
/// a separator, dot segments resolved, each segment without trailing
/// dots and spaces and each run of `/` as one; decoded up to
/// [`MAX_PERCENT_DECODINGS`](super::MAX_PERCENT_DECODINGS) times. Two URIs equal so may name one resource, and so may two equal
/// but for a trailing `/` (`demo://r/one/`, which a server reading the
/// path opens as `demo://r/one`: attack s62).
fn comparable(key: &str) -> String {
    // Decoded as many times as a path argument is (`%252e` is `.`; attack
    // s72-B, F3).
    let mut decoded = std::borrow::Cow::Borrowed(key);
    for _ in 0..super::MAX_PERCENT_DECODINGS {
        if !decoded.contains('%') {
            break;
        }
        let once = percent_encoding::percent_decode_str(&decoded)
            .decode_utf8_lossy()
            .into_owned();
        decoded = std::borrow::Cow::Owned(once);
    }
    // The query and fragment: from the first `?` or `#` outside `{…}`.
    let mut depth = 0_usize;
    let end = decoded
        .char_indices()
        .find(|&(_, c)| {
            match c {
                '{' => depth = depth.saturating_add(1),
                '}' => depth = depth.saturating_sub(1),
                _ => {}
            }
            depth == 0 && matches!(c, '?' | '#')
        })
        .map_or(decoded.len(), |(i, _)| i);
    let mut without = decoded.get(..end).unwrap_or_default();
    // The last segment's parameters (`;…`), past the authority.
    let path_from = without.find("://").map_or(0, |i| i + 3);
    if let Some(last) = without.rfind('/').filter(|&i| i >= path_from) {
        if let Some(semi) = without.get(last..).and_then(|seg| seg.find(';')) {
            without = without.get(..last + semi).unwrap_or(without);
        }
    }
    let folded = fold_name(without);
    // The host without its trailing dots, the path with its runs of `/`
    // as one (`https://example.com.//t` is `https://example.com/t`).
    let (scheme, rest) = folded.split_once("://").unwrap_or(("", &folded));
    let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    // Without its userinfo, which names no other resource to a server
    // that routes on the host and path.
    let authority = authority
        .rsplit_once('@')
        .map_or(authority, |(_, host)| host);
    let authority = match authority.rsplit_once(':') {
        Some((host, port)) if port.chars().all(|c| c.is_ascii_digit()) => {
            format!("{}:{port}", host.trim_end_matches('.'))
        }
        _ => authority.trim_end_matches('.').to_owned(),
    };
    let mut out = String::with_capacity(folded.len());
    if !scheme.is_empty() {
        out.push_str(scheme);
        out.push_str("://");
    }
    out.push_str(&authority);
    // The path as a server that decodes it and then normalises it reads
    // it (attack s72-B, F1, F2, F3: `ok/..%2fevil`, `ok/..%5cevil`,
    // `evil.`, `ev%0Ail`): tab, CR and LF deleted, `\` a separator, dot
    // segments resolved, each segment without the
    // dots and spaces a Windows file name drops at its end, runs of `/`
    // as one.
    let slashed = path.replace('\\', "/").replace(['\t', '\n', '\r'], "");
    let mut segments: Vec<&str> = Vec::new();
    for segment in slashed.split('/') {
        match segment {
            "" | "." => {}
            ".." => {
                segments.pop();
            }
            s => segments.push(s.trim_end_matches(['.', ' '])),
        }
    }
    for segment in segments.iter().filter(|s| !s.is_empty()) {
        out.push('/');
        out.push_str(segment);
    }
    // A path that ended in `/` keeps it (a template's `{x}/`).
    if slashed.ends_with('/') && !out.ends_with('/') {
        out.push('/');
    }
    out
}

/// `true` when the URI template `template` (RFC 6570, both
/// [`comparable`]) may expand to `uri`: each expression (`{…}`) stands for
/// any text, `/` and `?` included, and the text between them is matched as
/// written. One left-to-right pass of substring searches (an expression
/// matches the shortest text that lets the next literal match, which finds
/// a match when there is one).
fn expands_to(template: &str, uri: &str) -> bool {
    let mut literals = Vec::new();
    let mut rest = template;
    while let Some((before, after)) = rest.split_once('{') {
        match after.split_once('}') {
            Some((_, next)) => {
                literals.push(before);
                rest = next;
            }
            None => break,
        }
    }
    if literals.is_empty() {
        return template == uri;
    }
    let Some((first, middle)) = literals.split_first() else {
        return template == uri;
    };
    let Some(mut left) = uri.strip_prefix(first) else {
        return false;
    };
    for literal in middle {
        match left.find(literal) {
            Some(at) => {
                left = left
                    .get(at.saturating_add(literal.len())..)
                    .unwrap_or_default()
            }
            None => return false,
        }
    }
    left.ends_with(rest)
}

/// The prompts, resources and resource templates a listing hid for what
/// their definitions carry (under `--poison refuse`, hidden characters
/// anywhere in an entry; under `strip`, keys equal once stripped), so that
/// nothing hidden from a list is reachable by any method: `prompts/get`,
/// `completion/complete` naming it in its `ref`, `resources/read`,
/// `resources/subscribe` and `resources/unsubscribe` are refused
/// (`tool.poisoned`), as a poisoned tool's `tools/call` is. An entry a
/// later listing shows clean is forgotten. At most [`MAX_HIDDEN_ENTRIES`].
#[derive(Debug, Clone, Default)]
pub struct HiddenEntries {
    /// Each entry hidden, by kind and key ([`EntryKind::key`]), with why
    /// (the code, the reason and the rule that hid it) and its key's form
    /// compared with URIs.
    hidden: HashMap<(EntryKind, String), Hidden>,
    /// The entries hidden since their kind's listing began (a subset of
    /// `hidden`): one listed again later in the same listing stays hidden,
    /// whatever its new definition (attack s50 F40).
    this_listing: HashSet<(EntryKind, String)>,
    /// The kinds whose last page had a `nextCursor`: their next page goes
    /// on with the same listing.
    open: HashSet<EntryKind>,
    /// The kinds of which an entry to hide was not remembered (past
    /// [`MAX_HIDDEN_ENTRIES`]): every request naming an entry of such a
    /// kind is refused from then on (fail closed at the bound).
    overflowed: HashSet<EntryKind>,
    /// The resource templates listings showed (the client's, or the
    /// gateway's own), each once, at most [`MAX_HIDDEN_ENTRIES`]: what a
    /// server takes out of a URI of its own scheme is read by them
    /// ([`HiddenEntries::templates`]).
    templates: Vec<String>,
    /// More templates were listed than remembered.
    templates_overflowed: bool,
}

/// One entry [`HiddenEntries`] remembers.
#[derive(Debug, Clone)]
struct Hidden {
    /// Why it was hidden.
    why: Refusal,
    /// A resource's or template's key as URIs naming it are compared
    /// ([`comparable`]), made once when remembered rather than for every
    /// request; empty for a prompt.
    form: String,
}

impl Hidden {
    fn new(entry: &(EntryKind, String), why: Refusal) -> Self {
        let form = match entry.0 {
            EntryKind::Prompt => String::new(),
            EntryKind::Resource | EntryKind::Template => comparable(&entry.1),
        };
        Hidden { why, form }
    }
}

impl HiddenEntries {
    /// Number of entries remembered.
    pub fn len(&self) -> usize {
        self.hidden.len()
    }

    /// `true` when none is remembered.
    pub fn is_empty(&self) -> bool {
        self.hidden.is_empty()
    }

    /// Filters one page of `prompts/list`, `resources/list` or
    /// `resources/templates/list` (`method`; any other is left alone) in
    /// place under `mode`: each entry whose definition carries what `mode`
    /// hides (`refuse`: any finding; `strip`: keys equal once stripped,
    /// which stripping would merge; `keep`: nothing) is taken out and
    /// remembered, and each entry shown is forgotten. Clean entries stay.
    /// An entry without its string key is left to
    /// [`Gatekeeper::filter_list_page`](super::Gatekeeper::filter_list_page). Returns each
    /// entry hidden, by its key's text (a prompt's `name`, a resource's
    /// `uri`, a template's `uriTemplate`), with why.
    ///
    /// `policy_hidden` are the entries the policy hid from the page
    /// ([`Gatekeeper::filter_list_page`](super::Gatekeeper::filter_list_page)),
    /// each [remembered](Self::remember) as hidden by this listing: an
    /// entry with the same key shown clean on this page or a later one of
    /// the same listing stays hidden with it (a prompt `fetch` beside one
    /// hidden for its name `fetch\u{200B}`, which a server stripping the
    /// character reads as `fetch`), never forgetting it.
    pub fn filter_page(
        &mut self,
        method: &str,
        result: &mut Value,
        mode: PoisonMode,
        policy_hidden: &[(&str, &Refusal)],
    ) -> Vec<(String, Refusal)> {
        self.filter(method, result, mode, true, policy_hidden)
    }

    /// [`filter_page`](Self::filter_page) for a page of the gateway's own
    /// listing (never shown): it remembers each entry to hide and forgets
    /// none, and leaves the client's listing in progress as it was (what a
    /// client's listing shows is that listing's to decide).
    pub fn filter_own_page(
        &mut self,
        method: &str,
        result: &mut Value,
        mode: PoisonMode,
        policy_hidden: &[(&str, &Refusal)],
    ) -> Vec<(String, Refusal)> {
        self.filter(method, result, mode, false, policy_hidden)
    }

    /// The filter of a client's page (`shown`), or of the gateway's own,
    /// from which the policy hid `policy_hidden`.
    fn filter(
        &mut self,
        method: &str,
        result: &mut Value,
        mode: PoisonMode,
        shown: bool,
        policy_hidden: &[(&str, &Refusal)],
    ) -> Vec<(String, Refusal)> {
        let mut why = Vec::new();
        let Some((kind, member, key)) = EntryKind::of_listing(method) else {
            return why;
        };
        if shown {
            self.track_listing(kind, result);
        }
        for &(name, refusal) in policy_hidden {
            self.remember(method, name, refusal);
            let entry = (kind, kind.key(name));
            if shown && self.hidden.contains_key(&entry) {
                self.this_listing.insert(entry);
            }
        }
        let Some(items) = result.get_mut(member).and_then(Value::as_array_mut) else {
            return why;
        };
        let Self {
            hidden,
            this_listing,
            overflowed,
            templates,
            templates_overflowed,
            ..
        } = self;
        items.retain(|item| {
            let Some(name) = item.get(key).and_then(Value::as_str) else {
                return true;
            };
            if kind == EntryKind::Template && !templates.iter().any(|t| t == name) {
                if templates.len() < MAX_HIDDEN_ENTRIES {
                    templates.push(name.to_owned());
                } else {
                    *templates_overflowed = true;
                }
            }
            let found = clean_value(&mut item.clone(), false);
            let (hide, rule) = match mode {
                PoisonMode::Refuse => (!found.is_clean(), "--poison refuse"),
                PoisonMode::Strip => (found.collisions > 0, "--poison strip"),
                PoisonMode::Keep => (false, "--poison keep"),
            };
            let entry = (kind, kind.key(name));
            if !hide && !shown {
                return true;
            }
            if !hide {
                if let Some(earlier) = this_listing
                    .contains(&entry)
                    .then(|| hidden.get(&entry))
                    .flatten()
                    .map(|h| &h.why)
                {
                    why.push((
                        name.to_owned(),
                        earlier.clone().named_as(&format!(
                            "{} `{}` is listed again after a page of this listing hid it: ",
                            kind.noun(),
                            kind.shown(name)
                        )),
                    ));
                    return false;
                }
                hidden.remove(&entry);
                return true;
            }
            if !hidden.contains_key(&entry) && hidden.len() >= MAX_HIDDEN_ENTRIES {
                // Not remembered: left for the screen, which refuses the
                // whole answer, and its kind refused by name from now on.
                overflowed.insert(kind);
                return true;
            }
            let message = format!(
                "the definition of {} `{}` carries {}",
                kind.noun(),
                kind.shown(name),
                found.summary()
            );
            let refusal = Refusal::new(GateCode::Poisoned, message, rule);
            why.push((name.to_owned(), refusal.clone()));
            hidden.insert(entry.clone(), Hidden::new(&entry, refusal));
            if shown {
                this_listing.insert(entry);
            }
            false
        });
        why
    }

    /// Remembers `name`, a resource or template the policy hid from a page
    /// of its listing ([`Gatekeeper::filter_list_page`](super::Gatekeeper::filter_list_page)), with
    /// `why`: a URI a server reads as it, or one a hidden template may
    /// expand to, is refused by every method that can name it, as for an
    /// entry hidden for its definition (attack s66, A-F2: a template with
    /// a variable in its host is hidden, and every URI it expands to is
    /// refused with it). A prompt too, by its name folded ([`fold_name`]):
    /// one hidden for hidden characters in its name is refused under the
    /// name a server stripping them reads (attack s70-A, N2). Within
    /// [`MAX_HIDDEN_ENTRIES`], as [`filter_page`](Self::filter_page)
    /// remembers.
    pub fn remember(&mut self, method: &str, name: &str, why: &Refusal) {
        let Some((kind, _, _)) = EntryKind::of_listing(method) else {
            return;
        };
        let entry = (kind, kind.key(name));
        if !self.hidden.contains_key(&entry) && self.hidden.len() >= MAX_HIDDEN_ENTRIES {
            self.overflowed.insert(kind);
            return;
        }
        let remembered = Hidden::new(&entry, why.clone());
        self.hidden.insert(entry, remembered);
    }

    /// The resource templates listed so far (each once, the first
    /// [`MAX_HIDDEN_ENTRIES`]), and whether more were listed than that.
    pub fn templates(&self) -> (&[String], bool) {
        (&self.templates, self.templates_overflowed)
    }

    /// Follows the client's listing of `kind` a `result` page belongs to:
    /// a page after one with a `nextCursor` goes on with its listing.
    fn track_listing(&mut self, kind: EntryKind, result: &Value) {
        if !self.open.contains(&kind) {
            self.this_listing.retain(|(k, _)| *k != kind);
        }
        if result.get("nextCursor").is_some_and(|c| !c.is_null()) {
            self.open.insert(kind);
        } else {
            self.open.remove(&kind);
        }
    }

    /// The refusal of a client's request `method` whose `params` name an
    /// entry hidden ([`HiddenEntries::filter_page`]): `prompts/get`
    /// (`name`), `completion/complete` (`ref.name` of a `ref/prompt`,
    /// `ref.uri` of a `ref/resource`, a resource or a template),
    /// `resources/read`, `resources/subscribe`, `resources/unsubscribe`
    /// (`uri`, a resource or a template), `subscriptions/listen` (each
    /// URI of `notifications.resourceSubscriptions`, 2026-07-28); a
    /// completion on a resource template under each URI its values expand
    /// it to (as the completion decision expands it). `None`
    /// for any other. Once an
    /// entry of a kind could not be remembered (past
    /// [`MAX_HIDDEN_ENTRIES`]), every such request naming an entry of that
    /// kind is refused.
    pub fn refusal(&self, method: &str, params: Option<&Value>) -> Option<Refusal> {
        if self.hidden.is_empty() && self.overflowed.is_empty() {
            return None;
        }
        const RESOURCES: &[EntryKind] = &[EntryKind::Resource, EntryKind::Template];
        match Named::of(method, params) {
            Named::Prompt(name) => self.refusal_of(&[EntryKind::Prompt], name),
            // A completion on a resource template names each URI its
            // values expand it to (attack s73-B, F1: `…/{p}` with `p` =
            // `evil` reached the hidden `…/evil`); too many expansions are
            // the completion decision's to refuse.
            Named::Resource(template)
                if method == "completion/complete" && template.contains(['{', '}']) =>
            {
                let uris = completion_uris(template, params.and_then(Value::as_object));
                self.refusal_of(RESOURCES, template).or_else(|| {
                    uris.ok()?
                        .iter()
                        .find_map(|uri| self.refusal_of(RESOURCES, uri).map(|r| r.about(uri)))
                })
            }
            Named::Resource(uri) => self.refusal_of(RESOURCES, uri),
            Named::Subscriptions(uris) => uris
                .iter()
                .filter_map(Value::as_str)
                .find_map(|uri| self.refusal_of(RESOURCES, uri).map(|r| r.about(uri))),
            Named::Tool(_) | Named::UnknownRef(_) | Named::Nothing => None,
        }
    }

    /// The refusal of `name`, an entry of one of `kinds`, when hidden.
    fn refusal_of(&self, kinds: &[EntryKind], name: &str) -> Option<Refusal> {
        let exact = kinds
            .iter()
            .find_map(|&kind| self.hidden.get_key_value(&(kind, kind.key(name))));
        let found = exact.or_else(|| {
            // A URI a server reads as a hidden resource (percent-decoded,
            // any case) or one a hidden template expands to.
            let uri = comparable(&EntryKind::Resource.key(name));
            self.hidden.iter().find(|((kind, _), h)| match kind {
                EntryKind::Prompt => false,
                EntryKind::Resource => {
                    kinds.contains(kind)
                        && h.form.trim_end_matches('/') == uri.trim_end_matches('/')
                }
                // An expression may expand to nothing: `…/t/{x}` is
                // `…/t/`, which a server reading the path opens as `…/t`
                // (attack s72-B, F4).
                EntryKind::Template => {
                    kinds.contains(kind)
                        && (expands_to(&h.form, &uri) || expands_to(&h.form, &format!("{uri}/")))
                }
            })
        });
        let refusal = found.map(|((kind, _), h)| {
            h.why.clone().named_as(&format!(
                "{} `{}` was hidden from its list: ",
                kind.noun(),
                kind.shown(name)
            ))
        });
        refusal.or_else(|| {
            let kind = kinds.iter().find(|k| self.overflowed.contains(k))?;
            Some(Refusal::new(
                GateCode::Poisoned,
                format!(
                    "more than {MAX_HIDDEN_ENTRIES} entries were hidden from lists in this session: {} `{}` may be one the gateway could not remember",
                    kind.noun(),
                    kind.shown(name)
                ),
                "builtin hidden-entry bound",
            ))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The requests that name prompt `name`, and resource (or template) `uri`.
    fn naming(kind: &str, text: &str) -> Vec<(&'static str, Value)> {
        let arg = json!({"name": "a", "value": "b"});
        if kind == "prompts" {
            vec![
                ("prompts/get", json!({"name": text})),
                (
                    "completion/complete",
                    json!({"ref": {"type": "ref/prompt", "name": text}, "argument": arg}),
                ),
            ]
        } else {
            vec![
                ("resources/read", json!({"uri": text})),
                ("resources/subscribe", json!({"uri": text})),
                ("resources/unsubscribe", json!({"uri": text})),
                (
                    "completion/complete",
                    json!({"ref": {"type": "ref/resource", "uri": text}, "argument": arg}),
                ),
            ]
        }
    }

    /// A hidden resource's or template's URI is named in messages (the
    /// log's reason, the refusal of a request naming it) without its
    /// userinfo, query or fragment (attack s61, N3); a prompt by its name.
    #[test]
    fn messages_name_a_hidden_uri_without_its_secrets() {
        for (method, member, key, kind, bad, shown) in [
            (
                "resources/list",
                "resources",
                "uri",
                "resources",
                "demo://u:pwSECRET1@r1/?k=SECRET2#SECRET3",
                "demo://r1/",
            ),
            (
                "resources/templates/list",
                "resourceTemplates",
                "uriTemplate",
                "resources",
                "demo://u:pwSECRET1@t/{x}?k=SECRET2",
                "demo://t/{x}",
            ),
            ("prompts/list", "prompts", "name", "prompts", "p1", "p1"),
        ] {
            let mut hidden = HiddenEntries::default();
            let mut page = json!({member: [{key: bad, "description": "x\u{200b}"}]});
            let why = hidden.filter_page(method, &mut page, PoisonMode::Refuse, &[]);
            assert_eq!(why.len(), 1, "{method}");
            let mut messages = vec![why[0].1.message().to_owned()];
            for (m, params) in naming(kind, bad) {
                let r = hidden.refusal(m, Some(&params));
                messages.push(r.map(|r| r.message().to_owned()).unwrap_or_default());
            }
            for text in messages {
                assert!(text.contains(&format!("`{shown}`")), "{method}: {text}");
                assert!(!text.contains("SECRET"), "{method}: {text}");
            }
        }
    }

    /// F19 (attack s49): a poisoned prompt, resource or template is hidden
    /// alone under `refuse` (a colliding one under `strip`, none under
    /// `keep`), and every method naming it is refused until a listing
    /// shows it clean.
    #[test]
    fn poisoned_entries_are_hidden_alone_and_refused() {
        for (method, member, key, bad, good) in [
            ("prompts/list", "prompts", "name", "bad", "good"),
            (
                "resources/list",
                "resources",
                "uri",
                "https://example.com/b",
                "https://example.com/a",
            ),
            (
                "resources/templates/list",
                "resourceTemplates",
                "uriTemplate",
                "https://example.com/b/{x}",
                "https://example.com/a/{x}",
            ),
        ] {
            let kind = if member == "prompts" {
                "prompts"
            } else {
                "resources"
            };
            let page = |poisoned: bool| {
                let mut bad_entry = json!({key: bad, "description": "fine"});
                if poisoned {
                    bad_entry["description"] = json!("x\u{200b}");
                }
                json!({member: [{key: good, "description": "fine"}, bad_entry]})
            };
            // refuse: the poisoned one alone.
            let mut hidden = HiddenEntries::default();
            let mut p = page(true);
            let why = hidden.filter_page(method, &mut p, PoisonMode::Refuse, &[]);
            assert_eq!(why.len(), 1, "{method}");
            assert_eq!(why[0].1.code(), "tool.poisoned");
            // By the entry it hid (s59, K12-B).
            assert_eq!(why[0].0, bad, "{method}");
            assert_eq!(p[member].as_array().map(Vec::len), Some(1), "{p}");
            assert_eq!(p[member][0][key], good, "{p}");
            for (m, params) in naming(kind, bad) {
                let r = hidden.refusal(m, Some(&params));
                assert_eq!(r.map(|r| r.code()), Some("tool.poisoned"), "{m} {params}");
            }
            for (m, params) in naming(kind, good) {
                assert!(hidden.refusal(m, Some(&params)).is_none(), "{m} {params}");
            }
            // Listed clean again: forgotten.
            let mut p = page(false);
            assert!(hidden
                .filter_page(method, &mut p, PoisonMode::Refuse, &[])
                .is_empty());
            assert_eq!(p[member].as_array().map(Vec::len), Some(2), "{p}");
            assert!(hidden.is_empty());
            // keep and strip leave a merely poisoned entry to the screen.
            for mode in [PoisonMode::Keep, PoisonMode::Strip] {
                let mut p = page(true);
                assert!(hidden.filter_page(method, &mut p, mode, &[]).is_empty());
                assert_eq!(p[member].as_array().map(Vec::len), Some(2), "{p}");
            }
            // strip hides an entry whose keys collide once stripped.
            let mut p = json!({member: [{key: good}, {key: bad, "description": "x", "description\u{200b}": "y"}]});
            assert_eq!(
                hidden
                    .filter_page(method, &mut p, PoisonMode::Strip, &[])
                    .len(),
                1
            );
            assert_eq!(p[member].as_array().map(Vec::len), Some(1), "{p}");
            assert_eq!(hidden.len(), 1);
        }
    }

    /// A completion on a resource template names every URI its values
    /// expand it to: one that expands to a hidden resource, or to a URI a
    /// hidden template expands to, is refused as reading it would be
    /// (attack s73-B, F1); one that expands to nothing hidden is not.
    #[test]
    fn completions_are_refused_for_what_their_templates_expand_to() {
        let mut hidden = HiddenEntries::default();
        let mut p = json!({"resourceTemplates": [
            {"uriTemplate": "https://example.com/t/{x}", "name": "tpl", "description": "x\u{200b}"},
        ]});
        hidden.filter_page("resources/templates/list", &mut p, PoisonMode::Refuse, &[]);
        let mut p = json!({"resources": [
            {"uri": "https://example.com/evil", "name": "evil", "description": "x\u{200b}"},
        ]});
        hidden.filter_page("resources/list", &mut p, PoisonMode::Refuse, &[]);
        let complete = |uri: &str, argument: Value, context: Option<Value>| {
            let mut params =
                json!({"ref": {"type": "ref/resource", "uri": uri}, "argument": argument});
            if let Some(c) = context {
                params["context"] = json!({ "arguments": c });
            }
            hidden.refusal("completion/complete", Some(&params))
        };
        for (uri, argument, context) in [
            (
                "https://example.com/{p}",
                json!({"name": "p", "value": "evil"}),
                None,
            ),
            (
                "https://example.com/e{p}",
                json!({"name": "p", "value": "vil"}),
                None,
            ),
            (
                "https://example.com/evil{?q}",
                json!({"name": "q", "value": "1"}),
                None,
            ),
            (
                "https://example.com/t{/x}",
                json!({"name": "x", "value": "a"}),
                None,
            ),
            (
                "https://example.com/t{/x}",
                json!({"name": "x", "value": ""}),
                None,
            ),
            (
                "https://example.com{/p}{/x}",
                json!({"name": "x", "value": "a"}),
                Some(json!({"p": "t"})),
            ),
            (
                "https://example.com/{+p}",
                json!({"name": "p", "value": "t/a"}),
                None,
            ),
            (
                "https://example.com/t{/x,y}",
                json!({"name": "x", "value": "a"}),
                Some(json!({"y": "b"})),
            ),
            (
                "https://example.com/{p}",
                json!({"name": "p", "value": "%65vil"}),
                None,
            ),
        ] {
            let refusal = complete(uri, argument.clone(), context);
            assert!(refusal.is_some(), "{uri} {argument}");
            assert_eq!(refusal.unwrap().code(), "tool.poisoned", "{uri}");
        }
        for (uri, argument) in [
            (
                "https://example.com/ok/{p}",
                json!({"name": "p", "value": "fine"}),
            ),
            (
                "https://example.com/{p}",
                json!({"name": "p", "value": "good"}),
            ),
            (
                "https://example.com/fine",
                json!({"name": "p", "value": "evil"}),
            ),
        ] {
            assert!(
                complete(uri, argument.clone(), None).is_none(),
                "{uri} {argument}"
            );
        }
    }

    /// F40 (attack s50): a hidden template's expansions and a hidden
    /// resource's other spellings (percent-encoded, another case) are
    /// refused too; a URI no hidden template expands to is not.
    #[test]
    fn hidden_templates_and_resources_refuse_their_other_spellings() {
        let mut hidden = HiddenEntries::default();
        let mut p = json!({"resourceTemplates": [
            {"uriTemplate": "https://example.com/t/{x}", "name": "tpl", "description": "x\u{200b}"},
            {"uriTemplate": "file:///logs/{day}/{+rest}.txt", "name": "logs", "description": "x\u{200b}"},
            {"uriTemplate": "https://example.com/s{?q}", "name": "search", "description": "x\u{200b}"},
        ]});
        assert_eq!(
            hidden
                .filter_page("resources/templates/list", &mut p, PoisonMode::Refuse, &[])
                .len(),
            3
        );
        let mut p = json!({"resources": [{"uri": "https://example.com/b", "name": "b", "description": "x\u{200b}"}]});
        assert_eq!(
            hidden
                .filter_page("resources/list", &mut p, PoisonMode::Refuse, &[])
                .len(),
            1
        );
        for uri in [
            "https://example.com/t/zzz",
            "https://example.com/t/",
            "https://EXAMPLE.com/t/a/b?c",
            "https://example.com/%74/z",
            "file:///logs/monday/a/b.txt",
            "https://example.com/%62",
            "https://example.com/B",
            "https://example.com/b#x",
            "https://example.com//t/zzz",
            "https://example.com/.//t/zzz",
            "https://example.com./t/zzz",
            "https://example.com.:443//b",
            "https://example.com/b/",
            "https://example.com/b//",
            // Attack s71-B, F2: what a server routing on the path reads
            // as the same resource.
            "https://example.com/b?",
            "https://example.com/b?x=1",
            "https://example.com/b;",
            "https://example.com/b;x=1",
            "https://example.com/b%20",
            "https://example.com/b%E3%80%80",
            "https://example.com/\u{FF22}",
            "https://example.com/b\u{200B}",
            "https://example.com/s?q=1",
            "https://example.com/s",
            "https://user@example.com/b",
            "https://user:pw@example.com:443/b",
            // Attack s72-B, F1-F4: encoded separators and dots, trailing
            // dots, decoded twice, a template's empty expansion.
            "https://example.com/ok/..%2fb",
            "https://example.com/ok/%2e%2e%2fb",
            "https://example.com/ok%2f..%2fb",
            "https://example.com/ok/..%5cb",
            "https://example.com/ok/%252e%252e/b",
            "https://example.com/b.",
            "https://example.com/b..",
            "https://example.com/b%2e",
            "https://example.com/b./",
            "https://example.com/b%20.",
            "https://example.com/t",
            "https://example.com/%09b",
            "https://example.com/%0Ab%0D",
        ] {
            for (m, params) in naming("resources", uri) {
                let r = hidden.refusal(m, Some(&params));
                assert_eq!(r.map(|r| r.code()), Some("tool.poisoned"), "{m} {uri}");
            }
        }
        for uri in [
            "https://example.com/u/zzz",
            "https://example.org/t/zzz",
            "file:///logs/monday.txt",
            "file:///logs/monday/a/b.md",
            "https://example.com/bb",
            "https://example.com/bc?b",
            "https://example.com/b.c",
            "https://example.com/ok/b",
            "https://example.com/c;b",
            "https://example.com/a/b?",
        ] {
            for (m, params) in naming("resources", uri) {
                assert!(hidden.refusal(m, Some(&params)).is_none(), "{m} {uri}");
            }
        }
    }

    #[test]
    fn template_expansion_matching() {
        for (template, uri, want) in [
            ("a{x}b", "ab", true),
            ("a{x}b", "axxb", true),
            ("a{x}b", "axxbc", false),
            ("{x}", "", true),
            ("{x}{y}", "anything", true),
            ("a{x}b{y}c", "abbc", true),
            ("a{x}b{y}c", "acb", false),
            ("a{x}bb", "abb", true),
            ("a{x}bb", "ab", false),
            ("plain", "plain", true),
            ("plain", "plainer", false),
            ("a{unclosed", "a{unclosed", true),
            ("a{unclosed", "ab", false),
        ] {
            assert_eq!(expands_to(template, uri), want, "{template} {uri}");
        }
    }

    /// Attack s66, A-F2: a template the policy hid (a variable in its
    /// host) is remembered like one `--poison` hid: every URI it may
    /// expand to is refused by every method naming a resource, with the
    /// listing's reason; a URI it cannot expand to is not. A prompt is
    /// remembered by its folded name (attack s70-A, N2).
    #[test]
    fn templates_the_policy_hid_refuse_their_expansions() {
        let mut hidden = HiddenEntries::default();
        let why = Refusal::new(
            GateCode::BadResponse,
            "a resource template with a variable in its scheme or host",
            "builtin listing check",
        );
        hidden.remember("resources/templates/list", "demo://{host}/page", &why);
        hidden.remember("prompts/list", "p\u{200B}q", &why);
        assert_eq!(hidden.len(), 2);
        for uri in [
            "demo://169.254.169.254/page",
            "demo://127.0.0.2:8765/page",
            "DEMO://intranet.corp/page",
        ] {
            for (method, params) in naming("resources", uri) {
                let r = hidden.refusal(method, Some(&params));
                let r = r.unwrap_or_else(|| panic!("{method} {uri}"));
                assert_eq!(r.code(), "tool.bad_response", "{method} {uri}");
                assert!(
                    r.reason()
                        .contains("was hidden from its list: a resource template with a variable"),
                    "{r}"
                );
            }
        }
        for (method, params) in naming("resources", "demo://fixed/other") {
            assert!(hidden.refusal(method, Some(&params)).is_none(), "{method}");
        }
        for name in ["pq", "PQ", "p\u{200B}q", "\u{FF50}q"] {
            assert!(
                hidden
                    .refusal("prompts/get", Some(&json!({ "name": name })))
                    .is_some(),
                "{name:?}"
            );
        }
        assert!(hidden
            .refusal("prompts/get", Some(&json!({"name": "p"})))
            .is_none());
    }

    /// What the policy hid is remembered within `MAX_HIDDEN_ENTRIES`: one
    /// more new entry marks its kind overflowed (every resource request
    /// refused from then on); the same entry again at the bound does not.
    #[test]
    fn templates_the_policy_hid_are_bounded() {
        let why = Refusal::new(GateCode::BadResponse, "x", "builtin listing check");
        let mut hidden = HiddenEntries::default();
        for i in 0..MAX_HIDDEN_ENTRIES {
            hidden.remember(
                "resources/templates/list",
                &format!("demo://{{h}}/{i}"),
                &why,
            );
        }
        assert_eq!(hidden.len(), MAX_HIDDEN_ENTRIES);
        hidden.remember("resources/templates/list", "demo://{h}/0", &why);
        let clean = json!({"uri": "demo://fixed/other"});
        assert!(hidden.refusal("resources/read", Some(&clean)).is_none());
        hidden.remember("resources/templates/list", "demo://{h}/new", &why);
        assert_eq!(hidden.len(), MAX_HIDDEN_ENTRIES);
        let r = hidden.refusal("resources/read", Some(&clean)).unwrap();
        assert!(r.reason().contains("more than"), "{r}");
    }

    /// F40 (attack s50): an entry hidden on a page stays hidden when a
    /// later page of the same listing lists it again clean; a new listing
    /// that shows it clean forgets it.
    #[test]
    fn hidden_on_one_page_stays_hidden_on_the_next() {
        let mut hidden = HiddenEntries::default();
        let mut p1 = json!({"prompts": [{"name": "good"}, {"name": "bad", "description": "x\u{200b}"}], "nextCursor": "p2"});
        assert_eq!(
            hidden
                .filter_page("prompts/list", &mut p1, PoisonMode::Refuse, &[])
                .len(),
            1
        );
        let mut p2 = json!({"prompts": [{"name": "BAD", "description": "clean now"}]});
        assert_eq!(
            hidden
                .filter_page("prompts/list", &mut p2, PoisonMode::Refuse, &[])
                .len(),
            1
        );
        assert_eq!(p2["prompts"].as_array().map(Vec::len), Some(0), "{p2}");
        let r = hidden.refusal("prompts/get", Some(&json!({"name": "bad"})));
        assert_eq!(r.map(|r| r.code()), Some("tool.poisoned"));
        // Another kind's listing does not end this one's.
        let mut other = json!({"resources": []});
        hidden.filter_page("resources/list", &mut other, PoisonMode::Refuse, &[]);
        // The listing ended with page 2: a new one showing it clean forgets it.
        let mut again = json!({"prompts": [{"name": "bad", "description": "clean now"}]});
        assert!(hidden
            .filter_page("prompts/list", &mut again, PoisonMode::Refuse, &[])
            .is_empty());
        assert_eq!(again["prompts"].as_array().map(Vec::len), Some(1));
        assert!(hidden
            .refusal("prompts/get", Some(&json!({"name": "bad"})))
            .is_none());
    }

    /// An entry the policy hid from a page is hidden by that listing: one
    /// of the same key shown clean on the page or on a later page of the
    /// listing is hidden with it, not a reason to forget it; a new listing
    /// showing only the clean one forgets it.
    #[test]
    fn what_the_policy_hid_is_not_forgotten_for_a_clean_twin() {
        let why = Refusal::new(GateCode::Poisoned, "its name", "builtin");
        let refused = |h: &HiddenEntries, name: &str| {
            h.refusal("prompts/get", Some(&json!({ "name": name })))
                .map(|r| r.code())
        };
        let mut hidden = HiddenEntries::default();
        // The policy took `fetch\u{200B}` out already; its clean twin is
        // left.
        let mut page = json!({"prompts": [{"name": "fetch"}], "nextCursor": "2"});
        let policy = [("fetch\u{200B}", &why)];
        let shown = hidden.filter_page("prompts/list", &mut page, PoisonMode::Refuse, &policy);
        assert_eq!(shown.len(), 1, "{shown:?}");
        assert_eq!(page["prompts"].as_array().map(Vec::len), Some(0), "{page}");
        assert_eq!(refused(&hidden, "fetch"), Some("tool.poisoned"));
        assert_eq!(refused(&hidden, "fetch\u{200B}"), Some("tool.poisoned"));
        // The listing's next page shows it clean again: still hidden.
        let mut next = json!({"prompts": [{"name": "fetch"}]});
        hidden.filter_page("prompts/list", &mut next, PoisonMode::Refuse, &[]);
        assert_eq!(next["prompts"].as_array().map(Vec::len), Some(0), "{next}");
        assert_eq!(refused(&hidden, "fetch"), Some("tool.poisoned"));
        // A new listing without the poisoned one: forgotten.
        let mut again = json!({"prompts": [{"name": "fetch"}]});
        assert!(hidden
            .filter_page("prompts/list", &mut again, PoisonMode::Refuse, &[])
            .is_empty());
        assert_eq!(refused(&hidden, "fetch"), None);
        // The gateway's own listing remembers it, and leaves the client's
        // listing as it was.
        let mut hidden = HiddenEntries::default();
        let mut own = json!({"prompts": [{"name": "fetch"}]});
        hidden.filter_own_page(
            "prompts/list",
            &mut own,
            PoisonMode::Refuse,
            &[("fetch\u{200B}", &why)],
        );
        assert_eq!(refused(&hidden, "fetch"), Some("tool.poisoned"));
        let mut page = json!({"prompts": [{"name": "fetch"}]});
        hidden.filter_page("prompts/list", &mut page, PoisonMode::Refuse, &[]);
        assert_eq!(page["prompts"].as_array().map(Vec::len), Some(1), "{page}");
    }

    /// The gateway's own listing (never shown) remembers what it hides and
    /// forgets nothing: the client's listing in progress goes on as it was
    /// (what it hid stays hidden on its next page), and only a listing the
    /// client sees forgets an entry it shows clean.
    #[test]
    fn the_gateways_own_listing_adds_and_never_forgets() {
        let mut hidden = HiddenEntries::default();
        let refused = |h: &HiddenEntries, name: &str| {
            h.refusal("prompts/get", Some(&json!({ "name": name })))
                .map(|r| r.code())
        };
        let mut p1 =
            json!({"prompts": [{"name": "bad", "description": "x\u{200b}"}], "nextCursor": "p2"});
        hidden.filter_page("prompts/list", &mut p1, PoisonMode::Refuse, &[]);
        let mut own = json!({"prompts": [{"name": "bad", "description": "clean"}, {"name": "x", "description": "y\u{200b}"}]});
        let why = hidden.filter_own_page("prompts/list", &mut own, PoisonMode::Refuse, &[]);
        assert_eq!(why.len(), 1, "{why:?}");
        assert_eq!(refused(&hidden, "bad"), Some("tool.poisoned"));
        assert_eq!(refused(&hidden, "x"), Some("tool.poisoned"));
        // The client's listing goes on: `bad`, hidden on its first page,
        // stays hidden on the second.
        let mut p2 = json!({"prompts": [{"name": "bad", "description": "clean"}]});
        assert_eq!(
            hidden
                .filter_page("prompts/list", &mut p2, PoisonMode::Refuse, &[])
                .len(),
            1
        );
        assert_eq!(p2["prompts"].as_array().map(Vec::len), Some(0), "{p2}");
        // A new listing the client sees shows both clean: both forgotten.
        let mut again = json!({"prompts": [{"name": "bad"}, {"name": "x"}]});
        assert!(hidden
            .filter_page("prompts/list", &mut again, PoisonMode::Refuse, &[])
            .is_empty());
        assert_eq!(refused(&hidden, "bad"), None);
        assert_eq!(refused(&hidden, "x"), None);
    }

    /// Past [`MAX_HIDDEN_ENTRIES`] a poisoned entry stays in its page (for
    /// the screen to refuse the whole answer).
    #[test]
    fn hidden_entries_are_bounded() {
        let mut hidden = HiddenEntries::default();
        let entries: Vec<Value> = (0..=MAX_HIDDEN_ENTRIES)
            .map(|i| json!({"name": format!("p{i}"), "description": "x\u{200b}"}))
            .collect();
        let mut p = json!({ "prompts": entries });
        let why = hidden.filter_page("prompts/list", &mut p, PoisonMode::Refuse, &[]);
        assert_eq!(why.len(), MAX_HIDDEN_ENTRIES);
        assert_eq!(hidden.len(), MAX_HIDDEN_ENTRIES);
        assert_eq!(p["prompts"].as_array().map(Vec::len), Some(1), "{p}");
        assert!(!clean_value(&mut p, false).is_clean());
        // Attack s55 F4: the entry not remembered is refused by name, as
        // is every prompt from then on; resources are not.
        let last = format!("p{MAX_HIDDEN_ENTRIES}");
        for name in [last.as_str(), "p0", "anything"] {
            for (m, params) in naming("prompts", name) {
                let r = hidden.refusal(m, Some(&params));
                assert_eq!(r.map(|r| r.code()), Some("tool.poisoned"), "{m} {params}");
            }
        }
        for (m, params) in naming("resources", "https://example.com/r") {
            assert!(hidden.refusal(m, Some(&params)).is_none(), "{m} {params}");
        }
        // Below the bound nothing is refused that was not hidden.
        let fresh = HiddenEntries::default();
        assert!(fresh
            .refusal("prompts/get", Some(&json!({"name": "anything"})))
            .is_none());
    }

    proptest::proptest! {
        /// Nothing hidden from a list is reachable: over pages of listings
        /// of prompts and resources, some poisoned, some with a
        /// `nextCursor` (the listing of their kind goes on), each request
        /// naming an entry is refused exactly when it was hidden by the
        /// last listing that showed or hid it (hidden anywhere in a
        /// listing, it stays hidden to its end).
        #[test]
        fn nothing_hidden_is_reachable(
            pages in proptest::collection::vec(
                (
                    proptest::bool::ANY,
                    proptest::bool::weighted(0.3),
                    proptest::collection::vec((0u8..6, proptest::bool::weighted(0.3)), 0..6),
                ),
                1..8,
            ),
        ) {
            let mut hidden = HiddenEntries::default();
            let mut last: HashMap<(bool, u8), bool> = HashMap::new();
            let mut open: HashSet<bool> = HashSet::new();
            let mut this_listing: HashSet<(bool, u8)> = HashSet::new();
            for (prompts, more, entries) in &pages {
                let (method, member, key) = if *prompts {
                    ("prompts/list", "prompts", "name")
                } else {
                    ("resources/list", "resources", "uri")
                };
                let text = |n: u8| if *prompts { format!("p{n}") } else { format!("https://example.com/{n}") };
                let items: Vec<Value> = entries
                    .iter()
                    .map(|(n, bad)| json!({key: text(*n), "description": if *bad { "x\u{E0041}" } else { "ok" }}))
                    .collect();
                let mut page = json!({ member: items });
                if *more {
                    page["nextCursor"] = json!("next");
                }
                hidden.filter_page(method, &mut page, PoisonMode::Refuse, &[]);
                proptest::prop_assert!(clean_value(&mut page, false).is_clean());
                if !open.contains(prompts) {
                    this_listing.retain(|(p, _)| p != prompts);
                }
                for (n, bad) in entries {
                    let stays = this_listing.contains(&(*prompts, *n));
                    last.insert((*prompts, *n), *bad || stays);
                    if *bad {
                        this_listing.insert((*prompts, *n));
                    }
                }
                if *more {
                    open.insert(*prompts);
                } else {
                    open.remove(prompts);
                }
            }
            for ((prompts, n), bad) in last {
                let (kind, text) = if prompts {
                    ("prompts", format!("p{n}"))
                } else {
                    ("resources", format!("https://example.com/{n}"))
                };
                for (m, params) in naming(kind, &text) {
                    proptest::prop_assert_eq!(hidden.refusal(m, Some(&params)).is_some(), bad, "{} {}", m, params);
                }
            }
        }
    }
}
