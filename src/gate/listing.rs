//! `tools/list` answers through the policy: every tool is recorded in the
//! [`ToolView`] (its hash and whether it is poisoned), decided by
//! [`Gatekeeper::tool_decision`] (the same call a `tools/call` gets), and
//! hidden, stripped or passed. Prompts, resources and resource templates
//! whose definitions `--poison` hides are remembered in
//! [`HiddenEntries`](super::HiddenEntries),
//! which refuses every request that names one.

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use super::code::{GateCode, Refusal};
use super::decide::{Gatekeeper, ToolState};
use super::pin::{definition_hash, Pins, MAX_TOOLS};
use super::poison::{clean_value, Findings, PoisonMode};
use super::policy::fold_name;

/// The most bytes of tool definitions (as compact JSON, with their
/// hashes) whose [`tool_state`] one session keeps, so that a
/// definition the server lists again unchanged is not canonicalized,
/// hashed and screened again. When a new definition would pass it (or
/// [`MAX_TOOLS`] definitions are kept), the memo starts afresh; a
/// definition larger than the whole memo is never kept.
pub const MAX_TOOL_MEMO_BYTES: usize = 8 << 20;

/// Most of the client's listings one session keeps in progress at once:
/// each `tools/list` without a cursor starts one, and each page whose
/// `nextCursor` the next request names goes on with it. Past this,
/// starting another drops the oldest (a page of it that comes later is
/// decided as one of a listing that did not start at its first page:
/// never learned from, completing nothing, taking no place). A request
/// at a cursor no listing awaits takes no place either, and the gateway's
/// own listing (one at a time) is kept beside these. Each holds at most
/// [`MAX_TOOLS`] names.
pub const MAX_LISTINGS_IN_PROGRESS: usize = 4;

/// Which page a client's `tools/list` request asks for
/// ([`ToolView::listing_for`]), by its `params.cursor`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PageAsked<'a> {
    /// No cursor (absent or `null`): the first page.
    First,
    /// A string cursor: the page after the one that gave it.
    Cursor(&'a str),
    /// A cursor that is not a string: no page a listing gave.
    NotText,
}

impl<'a> PageAsked<'a> {
    /// The page a request's `params.cursor` asks for (`None` when it has
    /// none, or `null`).
    pub fn of(cursor: Option<&'a serde_json::Value>) -> Self {
        match cursor {
            None | Some(serde_json::Value::Null) => PageAsked::First,
            Some(c) => c.as_str().map_or(PageAsked::NotText, PageAsked::Cursor),
        }
    }
}

/// One listing of a session's [`ToolView`]: the pages the child sent for
/// one `tools/list` that started without a cursor, and for each request
/// after it naming the `nextCursor` its last page gave (or the gateway's
/// own listing). Pages are bound to their listing by the request they
/// answer, so two listings in progress at once never mix their pages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ListingId(u64);

/// A listing in progress.
#[derive(Debug, Clone, Default)]
struct Listing {
    /// Each name's first definition hash, over its pages so far.
    shown: HashMap<String, String>,
    /// Names its pages defined twice, differently: never learned.
    conflicted: HashSet<String>,
    /// It started at the first page (a request without a cursor): its
    /// last page completes a listing.
    from_start: bool,
    /// The `nextCursor` of its last page, until a request names it.
    awaiting: Option<String>,
    /// A page of it has been asked for and not answered yet.
    pending: bool,
    /// The cursor that page was asked at (none for its first page).
    asked: Option<String>,
    /// The gateway's own listing (never dropped, never continued by a
    /// client's request).
    own: bool,
}

/// What the gateway last saw of each tool, from the child's listings.
#[derive(Debug, Clone, Default)]
pub struct ToolView {
    tools: HashMap<String, ToolState>,
    /// The names of `tools` by their fold ([`fold_name`]): names a server
    /// that folds names may read as one (at most [`MAX_TOOLS`] names).
    folds: HashMap<String, Vec<String>>,
    /// The listings in progress (at most [`MAX_LISTINGS_IN_PROGRESS`]),
    /// by their number (the oldest has the lowest).
    listings: std::collections::BTreeMap<u64, Listing>,
    /// The number of the next listing.
    next_listing: u64,
    /// States of definitions seen, by their exact compact JSON.
    memo: Memo,
    /// A listing held a tool past [`MAX_TOOLS`]: the view no longer knows
    /// every tool the child has, so a tool it does not hold is refused
    /// ([`ToolView::overflowed`]).
    overflowed: bool,
}

/// [`tool_state`] of definitions already seen, keyed by their compact
/// JSON (equal texts are equal definitions: the key is exact, not a hash
/// a server could collide). At most [`MAX_TOOL_MEMO_BYTES`] and
/// [`MAX_TOOLS`] entries.
#[derive(Debug, Clone, Default)]
struct Memo {
    states: HashMap<Vec<u8>, ToolState>,
    bytes: usize,
}

impl ToolView {
    /// The state of `name`, when listed.
    pub fn get(&self, name: &str) -> Option<&ToolState> {
        self.tools.get(name)
    }

    /// The other tools seen whose names fold ([`fold_name`]) as `name`
    /// does, with their states: the tools a server that folds case or
    /// normalises compatibility characters may run when `name` is called
    /// (`evil`, `ＥＶＩＬ` for `Evil`; `file_x` for `ﬁle_x`).
    pub fn twins<'a>(&'a self, name: &'a str) -> impl Iterator<Item = (&'a str, &'a ToolState)> {
        self.folds
            .get(&fold_name(name))
            .into_iter()
            .flatten()
            .filter(move |n| n.as_str() != name)
            .filter_map(|n| self.tools.get_key_value(n.as_str()))
            .map(|(n, s)| (n.as_str(), s))
    }

    /// `true` once a listing held a tool past [`MAX_TOOLS`] (hidden): from
    /// then on a call of a tool the
    /// view does not hold is refused (`tool.not_listed`), as its definition
    /// was never decided (fail closed at the bound).
    pub fn overflowed(&self) -> bool {
        self.overflowed
    }

    /// Number of tools seen.
    pub fn len(&self) -> usize {
        self.tools.len()
    }

    /// `true` when no tool has been seen.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    /// Every tool seen, with its state.
    pub fn iter(&self) -> impl Iterator<Item = (&String, &ToolState)> {
        self.tools.iter()
    }

    /// The listing a client's `tools/list` request continues: for a
    /// [`PageAsked::Cursor`], the one (the newest, when several: a client
    /// that started over has left the one before) whose last page gave
    /// that cursor as its `nextCursor` and that no request has named
    /// since; otherwise (the [`PageAsked::First`] page, a cursor no
    /// listing awaits, or a [`PageAsked::NotText`] cursor) a new listing,
    /// complete only when it started from the first page (one that did not
    /// is decided page by page and never kept).
    pub fn listing_for(&mut self, asked: PageAsked<'_>) -> ListingId {
        if let PageAsked::Cursor(c) = asked {
            let waiting = self
                .listings
                .iter_mut()
                .rev()
                .find(|(_, l)| !l.own && l.awaiting.as_deref() == Some(c));
            if let Some((&n, l)) = waiting {
                l.asked = l.awaiting.take();
                l.pending = true;
                return ListingId(n);
            }
        }
        if asked != PageAsked::First {
            return self.next_id();
        }
        self.start(false)
    }

    /// A new listing of the gateway's own, from its first page; one of its
    /// own in progress before ends.
    pub fn own_listing(&mut self) -> ListingId {
        self.listings.retain(|_, l| !l.own);
        self.start(true)
    }

    /// Ends `listing` wherever it is (the gateway's own, given up).
    pub fn end_listing(&mut self, listing: ListingId) {
        self.listings.remove(&listing.0);
    }

    /// A page of `listing` was asked for and will not come (an error
    /// answer, a timeout, a request not sent): a request naming the same
    /// cursor again goes on with it, and a listing whose first page did
    /// not come ends (nothing can go on with it). Nothing changes for a
    /// page already answered.
    pub fn page_failed(&mut self, listing: ListingId) {
        let Some(l) = self.listings.get_mut(&listing.0) else {
            return;
        };
        if !std::mem::take(&mut l.pending) {
            return;
        }
        match l.asked.take() {
            Some(c) => l.awaiting = Some(c),
            None => {
                self.listings.remove(&listing.0);
            }
        }
    }

    /// Ends one page of `listing`, whose `result` has been filtered. On its
    /// last page (no `nextCursor`, `null` or `""`, as clients take them)
    /// the listing ends, and
    /// when it started at its first page it is complete: its definitions
    /// (each name shown once, by its hash; names it defined twice
    /// differently left out) are returned, for trust on first use to
    /// learn. A page whose `nextCursor` is no string ends the listing
    /// incomplete.
    pub fn end_page(
        &mut self,
        listing: ListingId,
        result: &Value,
    ) -> Option<HashMap<String, String>> {
        if listing_entries("tools/list", result).is_err() {
            self.listings.remove(&listing.0);
            return None;
        }
        match next_cursor(result) {
            Ok(Some(c)) => {
                if let Some(l) = self.listings.get_mut(&listing.0) {
                    l.awaiting = Some(c.to_owned());
                    l.asked = None;
                    l.pending = false;
                }
                None
            }
            Ok(None) => {
                let l = self.listings.remove(&listing.0)?;
                let Listing {
                    mut shown,
                    conflicted,
                    from_start,
                    ..
                } = l;
                shown.retain(|name, _| !conflicted.contains(name));
                from_start.then_some(shown)
            }
            Err(_) => {
                self.listings.remove(&listing.0);
                None
            }
        }
    }

    /// A number no listing has had.
    fn next_id(&mut self) -> ListingId {
        let n = self.next_listing;
        self.next_listing = self.next_listing.wrapping_add(1);
        ListingId(n)
    }

    /// Starts a listing at its first page, the client's (dropping the
    /// client's oldest when [`MAX_LISTINGS_IN_PROGRESS`] are in progress)
    /// or the gateway's `own`.
    fn start(&mut self, own: bool) -> ListingId {
        if !own {
            let clients = self.listings.values().filter(|l| !l.own).count();
            if clients >= MAX_LISTINGS_IN_PROGRESS {
                let oldest = self.listings.iter().find(|(_, l)| !l.own).map(|(&n, _)| n);
                if let Some(n) = oldest {
                    self.listings.remove(&n);
                }
            }
        }
        let id = self.next_id();
        self.listings.insert(
            id.0,
            Listing {
                from_start: true,
                own,
                pending: true,
                ..Listing::default()
            },
        );
        id
    }

    /// [`tool_state`] of `def`, from the memo when this session has seen
    /// the same definition (the state as [`tool_state`] gives it: never
    /// [`ToolState::conflicting`]).
    fn state_of(&mut self, def: &Value) -> ToolState {
        let Ok(key) = serde_json::to_vec(def) else {
            return tool_state(def);
        };
        if let Some(state) = self.memo.states.get(&key) {
            return state.clone();
        }
        let state = tool_state(def);
        let size = key.len().saturating_add(state.hash.len());
        if size > MAX_TOOL_MEMO_BYTES {
            return state;
        }
        if self.memo.bytes.saturating_add(size) > MAX_TOOL_MEMO_BYTES
            || self.memo.states.len() >= MAX_TOOLS
        {
            self.memo = Memo::default();
        }
        self.memo.bytes = self.memo.bytes.saturating_add(size);
        self.memo.states.insert(key, state.clone());
        state
    }

    /// Records `name` (refused when the view is full and `name` is new).
    fn record(&mut self, name: &str, state: ToolState) -> bool {
        if !self.tools.contains_key(name) {
            if self.tools.len() >= MAX_TOOLS {
                return false;
            }
            self.folds
                .entry(fold_name(name))
                .or_default()
                .push(name.to_owned());
        }
        self.tools.insert(name.to_owned(), state);
        true
    }
}

/// Something the filter did to one tool of a listing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ListEvent {
    /// Removed from the listing.
    Hidden {
        /// The tool name (or `?` when it had none).
        tool: String,
        /// Why.
        refusal: Refusal,
    },
    /// Shown, with invisible or deceptive characters removed (`--poison strip`).
    Stripped {
        /// The tool name.
        tool: String,
        /// What was removed.
        findings: Findings,
    },
    /// Shown unchanged although poisoned (`--poison keep`).
    Flagged {
        /// The tool name.
        tool: String,
        /// What was found.
        findings: Findings,
    },
}

/// The member a page of listing `method` lists its entries under and the
/// key naming each entry, as MCP's schema has them: `tools/list` (`tools`,
/// `name`), `prompts/list` (`prompts`, `name`), `resources/list`
/// (`resources`, `uri`), `resources/templates/list` (`resourceTemplates`,
/// `uriTemplate`); `None` for any other method (not a listing). The one
/// table every listing reader takes these from.
pub(crate) fn listing_members(method: &str) -> Option<(&'static str, &'static str)> {
    match method {
        "tools/list" => Some(("tools", "name")),
        "prompts/list" => Some(("prompts", "name")),
        "resources/list" => Some(("resources", "uri")),
        "resources/templates/list" => Some(("resourceTemplates", "uriTemplate")),
        _ => None,
    }
}

/// Checks the entries of a page of listing `method` (its member,
/// [`listing_members`]; any other method is not a listing): the member
/// must be an array of objects, as MCP's schema has it.
///
/// # Errors
/// What is wrong: a page without the array (`null`, absent, a map) or
/// with an entry that is no object lists nothing a client can read, and
/// never completes a listing (its `tools` would pin or decide an empty
/// set).
pub(crate) fn listing_entries(method: &str, result: &Value) -> Result<(), String> {
    let Some((member, _)) = listing_members(method) else {
        return Ok(());
    };
    match result.get(member) {
        Some(Value::Array(items)) => match items.iter().position(|i| !i.is_object()) {
            None => Ok(()),
            Some(at) => Err(format!("its /{member}/{at} is not an object")),
        },
        _ => Err(format!("its `{member}` is not an array")),
    }
}

/// Longest `nextCursor` a listing goes on with, in bytes: the gateway
/// holds the cursor of each listing in progress for the session and sends
/// it back in its own page requests (attack s75-A, F1, F2: a 4.3 MB cursor
/// left a call waiting for room for its own page request; 8 MB cursors
/// were held for the session). A page with a longer one ends its listing
/// incomplete.
pub const MAX_CURSOR_BYTES: usize = 16 * 1024;

/// The cursor of the next page of a listing: `Ok(Some)` for a non-empty
/// string, `Ok(None)` on the last page (no `nextCursor`, `null` or `""`,
/// as clients take them).
///
/// # Errors
/// A `nextCursor` of another type (MCP's schema has a string; the
/// TypeScript SDK refuses the page), or longer than [`MAX_CURSOR_BYTES`]:
/// the listing neither goes on nor is complete.
pub(crate) fn next_cursor(result: &Value) -> Result<Option<&str>, &'static str> {
    match result.get("nextCursor") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(c)) if c.is_empty() => Ok(None),
        Some(Value::String(c)) if c.len() > MAX_CURSOR_BYTES => {
            Err("its nextCursor is longer than gate::MAX_CURSOR_BYTES")
        }
        Some(Value::String(c)) => Ok(Some(c)),
        Some(_) => Err("its nextCursor is not a string"),
    }
}

/// The state of one definition: its hash over the whole definition, and
/// whether anything but its name is poisoned.
pub fn tool_state(def: &Value) -> ToolState {
    let mut rest = def.clone();
    if let Some(m) = rest.as_object_mut() {
        m.remove("name");
    }
    let found = clean_value(&mut rest, false);
    // Collisions over the whole definition: a twin of `name` collides with it.
    let collisions = clean_value(&mut def.clone(), false).collisions;
    ToolState {
        hash: definition_hash(def),
        poisoned: !found.is_clean(),
        colliding: collisions > 0,
        conflicting: false,
    }
}

impl Gatekeeper {
    /// Filters the `result` of one page of `listing` in place (its
    /// `tools` array; other members untouched), recording each tool in
    /// `view` and deciding it against `pins` (none while trust on first
    /// use learns: what a complete listing shows is what gets pinned,
    /// from [`ToolView::end_page`]).
    ///
    /// A tool without a string `name` and a tool past [`MAX_TOOLS`] are
    /// hidden; past the bound the view has
    /// [`overflowed`](ToolView::overflowed) (a call of a tool it does not
    /// hold is refused from then on). A name the listing has already shown (on this page or an
    /// earlier one of the same listing) is hidden; when its definition
    /// differs from the first, the name is also marked
    /// [`ToolState::conflicting`] (refused until a later listing defines
    /// it once) and never learned. A tool whose name folds as another
    /// tool's does ([`ToolView::twins`]) is hidden when that twin is
    /// refused by its state, wherever on the page the twin comes.
    pub fn filter_tools_page(
        &self,
        listing: ListingId,
        result: &mut Value,
        view: &mut ToolView,
        pins: Option<&Pins>,
    ) -> Vec<ListEvent> {
        let mut events = Vec::new();
        let Some(tools) = result.get_mut("tools").and_then(Value::as_array_mut) else {
            return events;
        };
        let hide = |tool: String, message: String| ListEvent::Hidden {
            tool,
            refusal: Refusal::new(GateCode::BadResponse, message, "builtin listing check"),
        };
        let mut kept = Vec::with_capacity(tools.len());
        // Names this page defined twice, differently: their first definition
        // is taken out of the page too (at most one per kept tool).
        let mut conflicted = HashSet::new();
        // A name of this page folds as another seen does: the tools kept
        // are decided again once the page is recorded (a twin later on the
        // page, poisoned or defined twice, refuses them too).
        let mut twinned = false;
        // The listing, out of the view for this page (a listing not kept:
        // this page's names only).
        let kept_listing = view.listings.remove(&listing.0);
        let is_kept = kept_listing.is_some();
        let mut this = kept_listing.unwrap_or_default();
        for mut def in std::mem::take(tools) {
            let Some(name) = def.get("name").and_then(Value::as_str).map(str::to_owned) else {
                events.push(hide("?".into(), "a tool without a string name".into()));
                continue;
            };
            let state = view.state_of(&def);
            if let Some(first) = this.shown.get(&name).cloned() {
                let message = if first == state.hash {
                    format!("tool `{name}` is listed twice")
                } else {
                    if let Some(shown) = view.tools.get_mut(&name) {
                        shown.conflicting = true;
                        conflicted.insert(name.clone());
                    }
                    this.conflicted.insert(name.clone());
                    format!("tool `{name}` is listed twice with different definitions")
                };
                events.push(hide(name, message));
                continue;
            }
            let (poisoned, hash) = (state.poisoned, state.hash.clone());
            if this.shown.len() >= MAX_TOOLS || !view.record(&name, state) {
                // Past the bound: hidden, and from now on refused. (The
                // view holds no other name then: this listing's names are
                // all it holds, so no older state of it is kept.)
                view.overflowed = true;
                events.push(hide(name, format!("more than {MAX_TOOLS} tools")));
                continue;
            }
            // Only a name recorded is the listing's (to be learned).
            this.shown.insert(name.clone(), hash);
            twinned |= view.twins(&name).next().is_some();
            let decided = self.tool_decision(&name, view, pins);
            if let Err(refusal) = decided {
                events.push(ListEvent::Hidden {
                    tool: name,
                    refusal,
                });
                continue;
            }
            if poisoned {
                match self.poison {
                    PoisonMode::Strip => {
                        // A definition whose keys collide once stripped was
                        // refused by `tool_decision` above (`ToolState::colliding`).
                        let findings = clean_value(&mut def, true);
                        events.push(ListEvent::Stripped {
                            tool: name,
                            findings,
                        });
                    }
                    PoisonMode::Keep | PoisonMode::Refuse => {
                        let mut probe = def.clone();
                        let findings = clean_value(&mut probe, false);
                        events.push(ListEvent::Flagged {
                            tool: name,
                            findings,
                        });
                    }
                }
            }
            kept.push(def);
        }
        if !conflicted.is_empty() {
            kept.retain(|d| {
                d.get("name")
                    .and_then(Value::as_str)
                    .is_none_or(|n| !conflicted.contains(n))
            });
        }
        if twinned {
            let mut decided = Vec::with_capacity(kept.len());
            for def in kept {
                let name = def.get("name").and_then(Value::as_str).unwrap_or_default();
                match self.tool_decision(name, view, pins) {
                    Ok(()) => decided.push(def),
                    Err(refusal) => events.push(ListEvent::Hidden {
                        tool: name.to_owned(),
                        refusal,
                    }),
                }
            }
            kept = decided;
        }
        *tools = kept;
        if is_kept {
            view.listings.insert(listing.0, this);
        }
        events
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gate::policy::Policy;
    use serde_json::json;
    use std::collections::BTreeSet;

    /// A tool hidden by its state is refused under every name that folds
    /// as its name does (case, fullwidth, ligatures), as hidden prompts
    /// are; a twin shown beside it, before or after it on the page, is
    /// hidden too (#20 attack s52 A18).
    /// A page is an array of objects under its method's member, or no
    /// page (attack s58, K10-1).
    #[test]
    fn listing_entries_are_an_array_of_objects() {
        use serde_json::json;
        assert!(listing_entries("tools/list", &json!({"tools": []})).is_ok());
        assert!(listing_entries("prompts/list", &json!({"prompts": [{"name": "a"}]})).is_ok());
        assert!(listing_entries("ping", &json!({})).is_ok());
        for (method, page) in [
            ("tools/list", json!({"tools": null})),
            ("tools/list", json!({})),
            ("tools/list", json!({"prompts": []})),
            ("resources/list", json!({"resources": {"a": {}}})),
            (
                "resources/templates/list",
                json!({"resourceTemplates": [{}, 1]}),
            ),
        ] {
            assert!(listing_entries(method, &page).is_err(), "{method} {page}");
        }
        let mut view = ToolView::default();
        let l = view.own_listing();
        assert!(view.end_page(l, &json!({"tools": null})).is_none());
    }

    #[test]
    fn tools_hidden_by_state_are_refused_under_folded_names() {
        let g = Gatekeeper {
            poison: PoisonMode::Refuse,
            ..Gatekeeper::default()
        };
        let mut page = json!({"tools": [
            {"name": "t"},
            {"name": "evil"},
            {"name": "Evil", "description": "Reads.\u{E0049}"},
            {"name": "\u{FB01}le_x", "description": "x\u{E0049}"},
            {"name": "twice"},
            {"name": "Twice"},
            {"name": "Twice", "title": "other"},
        ]});
        let mut view = ToolView::default();
        let first = view.listing_for(PageAsked::First);
        g.filter_tools_page(first, &mut page, &mut view, None);
        assert_eq!(page, json!({"tools": [{"name": "t"}]}));
        let call = |n: &str| {
            g.check_call(n, &view, None, &json!({}))
                .map(|_| "ok")
                .unwrap_or_else(|e| e.code())
        };
        for n in [
            "Evil",
            "evil",
            "EVIL",
            "\u{FF25}\u{FF36}\u{FF29}\u{FF2C}",
            "\u{FF45}vil",
            "file_x",
            "FILE_X",
            "\u{FB01}le_x",
        ] {
            assert_eq!(call(n), "tool.poisoned", "{n:?}");
        }
        for n in ["twice", "TWICE", "Twice"] {
            assert_eq!(call(n), "tool.bad_response", "{n:?}");
        }
        assert_eq!(call("t"), "ok");
        assert_eq!(call("T"), "ok", "a name no tool is refused by its state");
        // The message names the twin.
        let r = g.check_call("evil", &view, None, &json!({})).unwrap_err();
        assert!(r.reason().contains("`Evil`"), "{r}");
        // In keep mode the poisoned twin is shown, and so callable.
        let keep = Gatekeeper::default();
        assert!(keep.check_call("evil", &view, None, &json!({})).is_ok());
    }

    /// A tool whose name carries hidden characters is hidden in every
    /// `--poison` mode, and refused under the name a server stripping
    /// them would read, as under its own (newcomer, s69).
    #[test]
    fn tools_hidden_for_their_names_are_refused_under_the_stripped_name() {
        for poison in [PoisonMode::Refuse, PoisonMode::Strip] {
            let g = Gatekeeper {
                poison,
                ..Gatekeeper::default()
            };
            let mut page = json!({"tools": [
                {"name": "t"},
                {"name": "read\u{200B}_file"},
                {"name": "\u{202E}write_file"},
                {"name": "tag\u{E0041}s"},
            ]});
            let mut view = ToolView::default();
            let first = view.listing_for(PageAsked::First);
            g.filter_tools_page(first, &mut page, &mut view, None);
            assert_eq!(page, json!({"tools": [{"name": "t"}]}), "{poison:?}");
            for n in [
                "read_file",
                "READ_FILE",
                "read\u{200B}_file",
                "re\u{2060}ad_file",
                "write_file",
                "tags",
            ] {
                let r = g.check_call(n, &view, None, &json!({}));
                assert!(r.is_err(), "{poison:?} {n:?}");
            }
            assert!(g.check_call("t", &view, None, &json!({})).is_ok());
        }
    }

    #[test]
    fn page_filtered_and_view_recorded() {
        let g = Gatekeeper {
            policy: Policy::parse("[tools]\ndeny = [\"write_*\"]\n").unwrap(),
            ..Gatekeeper::default()
        };
        let mut page = json!({"tools": [
            {"name": "read_file", "description": "Reads.\u{200B}"},
            {"name": "write_file", "description": "Writes."},
            {"name": "read_file", "description": "again"},
            {"description": "nameless"},
            {"name": "ok"},
            {"name": "ok"}
        ], "nextCursor": "c"});
        let mut view = ToolView::default();
        let first = view.listing_for(PageAsked::First);
        let events = g.filter_tools_page(first, &mut page, &mut view, None);
        // `read_file` twice, differently: neither is shown, and it is refused;
        // `ok` twice, the same: shown once.
        assert_eq!(page, json!({"tools": [{"name": "ok"}], "nextCursor": "c"}));
        assert_eq!(events.len(), 5, "{events:?}");
        assert!(view.get("write_file").is_some());
        assert!(view.get("read_file").unwrap().poisoned);
        assert!(view.get("read_file").unwrap().conflicting);
        assert!(g.tool_decision("read_file", &view, None).is_err());
        assert!(!view.get("ok").unwrap().poisoned);
        assert!(!view.get("ok").unwrap().conflicting);
        // The next page of the same listing cannot redefine `ok`; a new
        // listing can.
        assert_eq!(view.end_page(first, &page), None);
        assert_eq!(view.listing_for(PageAsked::Cursor("c")), first);
        let mut next = json!({"tools": [{"name": "ok", "title": "Other"}]});
        g.filter_tools_page(first, &mut next, &mut view, None);
        assert_eq!(next, json!({"tools": []}));
        assert!(view.get("ok").unwrap().conflicting);
        // Complete: the names defined twice differently are not learned.
        let learned = view.end_page(first, &next).unwrap();
        assert_eq!(
            learned.keys().collect::<BTreeSet<_>>(),
            BTreeSet::from([&"write_file".to_owned()])
        );
        let again_listing = view.listing_for(PageAsked::First);
        let mut again = json!({"tools": [{"name": "ok", "title": "Other"}]});
        g.filter_tools_page(again_listing, &mut again, &mut view, None);
        assert_eq!(again, json!({"tools": [{"name": "ok", "title": "Other"}]}));
        assert!(!view.get("ok").unwrap().conflicting);
    }

    /// The gateway's own listing and the client's are two listings: a
    /// name both show is listed once in each, and the end of one does not
    /// end the other (#20 re-attack: a spurious "listed twice"); a client's
    /// cursor never continues the gateway's listing.
    #[test]
    fn own_and_client_listings_are_apart() {
        let g = Gatekeeper::default();
        let mut view = ToolView::default();
        let tools = json!({"tools": [{"name": "echo"}, {"name": "read"}], "nextCursor": "c"});
        let client = view.listing_for(PageAsked::First);
        let mut page = tools.clone();
        assert!(g
            .filter_tools_page(client, &mut page, &mut view, None)
            .is_empty());
        assert_eq!(view.end_page(client, &page), None);
        // The gateway's own listing, while the client's is in progress.
        let own = view.own_listing();
        let mut own_page = tools.clone();
        let events = g.filter_tools_page(own, &mut own_page, &mut view, None);
        assert!(events.is_empty(), "{events:?}");
        assert_eq!(own_page, tools);
        assert_eq!(view.end_page(own, &own_page), None);
        let mut own_last = json!({"tools": [{"name": "late"}]});
        assert!(g
            .filter_tools_page(own, &mut own_last, &mut view, None)
            .is_empty());
        let learned = view.end_page(own, &own_last).unwrap();
        assert_eq!(learned.len(), 3);
        assert!(!view.get("echo").unwrap().conflicting);
        // The client's listing goes on: its last page shows `late` (the
        // gateway's listing showed it, not the client's), and still may
        // not redefine a name of its first page.
        assert_eq!(view.listing_for(PageAsked::Cursor("c")), client);
        let mut last = json!({"tools": [{"name": "late"}, {"name": "echo", "title": "Other"}]});
        let events = g.filter_tools_page(client, &mut last, &mut view, None);
        assert_eq!(last, json!({"tools": [{"name": "late"}]}), "{events:?}");
        assert!(view.get("echo").unwrap().conflicting);
        let learned = view.end_page(client, &last).unwrap();
        assert_eq!(
            learned.keys().collect::<BTreeSet<_>>(),
            BTreeSet::from([&"late".to_owned(), &"read".to_owned()])
        );
        // And the other way round: a client's request naming the cursor
        // the gateway's page gave starts a listing of its own.
        let mut view = ToolView::default();
        let own = view.own_listing();
        let mut own_page = tools.clone();
        g.filter_tools_page(own, &mut own_page, &mut view, None);
        view.end_page(own, &own_page);
        let stranger = view.listing_for(PageAsked::Cursor("c"));
        assert_ne!(stranger, own);
        let last = json!({"tools": [{"name": "late"}]});
        assert_eq!(view.end_page(stranger, &last), None, "not complete");
        let mut own_again = json!({"tools": [{"name": "echo", "title": "Other"}]});
        g.filter_tools_page(own, &mut own_again, &mut view, None);
        assert_eq!(own_again, json!({"tools": []}));
        assert!(view.get("echo").unwrap().conflicting);
    }

    /// Two listings in progress at once (a client that asks again before
    /// the first answer, #20 re-attack F4) keep their pages apart: the
    /// same names on both are listed once in each, each cursor continues
    /// the newest listing awaiting it, and each completes on its own.
    #[test]
    fn listings_at_once_keep_their_pages_apart() {
        let g = Gatekeeper::default();
        let mut view = ToolView::default();
        let first_page = json!({"tools": [{"name": "echo"}], "nextCursor": "c"});
        let (a, b) = (
            view.listing_for(PageAsked::First),
            view.listing_for(PageAsked::First),
        );
        assert_ne!(a, b);
        for l in [a, b] {
            let mut page = first_page.clone();
            assert!(g
                .filter_tools_page(l, &mut page, &mut view, None)
                .is_empty());
            assert_eq!(page, first_page);
            assert_eq!(view.end_page(l, &page), None);
        }
        assert_eq!(view.listing_for(PageAsked::Cursor("c")), b);
        assert_eq!(view.listing_for(PageAsked::Cursor("c")), a);
        // Asked for a third time: no listing awaits it any more.
        let third = view.listing_for(PageAsked::Cursor("c"));
        assert!(third != a && third != b);
        for l in [b, a, third] {
            let mut page = json!({"tools": [{"name": "late"}]});
            assert!(g
                .filter_tools_page(l, &mut page, &mut view, None)
                .is_empty());
            let complete = view.end_page(l, &page);
            if l == third {
                assert_eq!(complete, None, "started at a cursor: not complete");
            } else {
                let names = complete.unwrap();
                assert_eq!(names.len(), 2);
                assert_eq!(names["echo"], tool_state(&json!({"name": "echo"})).hash);
            }
        }
    }

    /// Only a listing from its first page to its last completes: one that
    /// starts at a cursor (a string no listing awaits, or no string), one
    /// whose page gives a `nextCursor` that is no string, and one
    /// abandoned for another teach nothing; what the completing listing
    /// showed is what it gives.
    /// A request's `params.cursor`: absent or `null` asks for the first
    /// page, a string for the page after it, anything else for none.
    #[test]
    fn the_page_a_cursor_asks_for() {
        let (null, five, text) = (json!(null), json!(5), json!("c"));
        assert_eq!(PageAsked::of(None), PageAsked::First);
        assert_eq!(PageAsked::of(Some(&null)), PageAsked::First);
        assert_eq!(PageAsked::of(Some(&text)), PageAsked::Cursor("c"));
        assert_eq!(PageAsked::of(Some(&five)), PageAsked::NotText);
        assert_eq!(PageAsked::of(Some(&json!({}))), PageAsked::NotText);
    }

    /// A cursor of at most `MAX_CURSOR_BYTES` goes on; a longer one ends
    /// the listing (attack s75-A, F1, F2).
    #[test]
    fn cursors_are_bounded_in_bytes() {
        let at = "c".repeat(MAX_CURSOR_BYTES);
        let page = json!({"tools": [], "nextCursor": at});
        assert_eq!(next_cursor(&page), Ok(Some(at.as_str())));
        let over = json!({"tools": [], "nextCursor": "c".repeat(MAX_CURSOR_BYTES + 1)});
        assert!(next_cursor(&over).unwrap_err().contains("MAX_CURSOR_BYTES"));
        let mut view = ToolView::default();
        let l = view.listing_for(PageAsked::First);
        assert_eq!(view.end_page(l, &over), None);
        // The listing ended: a page asked with the cursor is no page of it.
        assert_eq!(view.listings.len(), 0);
    }

    #[test]
    fn only_a_whole_listing_completes() {
        let g = Gatekeeper::default();
        let mut view = ToolView::default();
        for cursor in [PageAsked::Cursor("x"), PageAsked::NotText] {
            let l = view.listing_for(cursor);
            let mut page = json!({"tools": [{"name": "late"}]});
            g.filter_tools_page(l, &mut page, &mut view, None);
            assert_eq!(view.end_page(l, &page), None, "{cursor:?}");
        }
        let l = view.listing_for(PageAsked::First);
        let mut page = json!({"tools": [{"name": "echo"}], "nextCursor": 5});
        g.filter_tools_page(l, &mut page, &mut view, None);
        assert_eq!(view.end_page(l, &page), None);
        assert_eq!(view.end_page(l, &json!({"tools": []})), None, "ended");
        // Abandoned after its first page, for a listing that shows `echo`
        // otherwise: the completing one is learned.
        let abandoned = view.listing_for(PageAsked::First);
        let mut page = json!({"tools": [{"name": "echo", "title": "First"}], "nextCursor": "c"});
        g.filter_tools_page(abandoned, &mut page, &mut view, None);
        assert_eq!(view.end_page(abandoned, &page), None);
        let whole = view.listing_for(PageAsked::First);
        let second = json!({"name": "echo", "title": "Second"});
        let mut page = json!({"tools": [second.clone()], "nextCursor": ""});
        assert!(g
            .filter_tools_page(whole, &mut page, &mut view, None)
            .is_empty());
        let learned = view.end_page(whole, &page).unwrap();
        assert_eq!(
            learned,
            HashMap::from([("echo".to_owned(), tool_state(&second).hash)])
        );
        // `null` ends a listing too.
        let l = view.listing_for(PageAsked::First);
        assert!(view
            .end_page(l, &json!({"tools": [], "nextCursor": null}))
            .is_some());
    }

    /// A page that gets no answer can be asked for again with the same
    /// cursor; once a page is answered, its cursor is spent. A listing
    /// whose first page gets no answer ends (it holds no place).
    #[test]
    fn a_failed_page_can_be_asked_again() {
        let mut view = ToolView::default();
        let gone = view.listing_for(PageAsked::First);
        view.page_failed(gone);
        assert!(view.listings.is_empty());
        assert_eq!(view.end_page(gone, &json!({"tools": []})), None);
        let l = view.listing_for(PageAsked::First);
        let first = json!({"tools": [], "nextCursor": "c"});
        assert_eq!(view.end_page(l, &first), None);
        view.page_failed(l);
        assert_eq!(
            view.listing_for(PageAsked::Cursor("c")),
            l,
            "answered: no change"
        );
        view.page_failed(l);
        assert_eq!(view.listing_for(PageAsked::Cursor("c")), l);
        assert_eq!(
            view.end_page(l, &json!({"tools": [], "nextCursor": "d"})),
            None
        );
        view.page_failed(l);
        assert_ne!(view.listing_for(PageAsked::Cursor("c")), l, "spent");
        assert_eq!(view.listing_for(PageAsked::Cursor("d")), l);
        assert!(view.end_page(l, &json!({"tools": []})).is_some());
    }

    /// At most [`MAX_LISTINGS_IN_PROGRESS`] of the client's listings are
    /// kept: another drops the oldest (whose cursor then continues
    /// nothing, and whose later page completes nothing). Nothing else
    /// drops one (#20 re-attack s43, F2 and F3): a late page of a dropped
    /// listing, a cursor no listing awaits and the gateway's own listing
    /// (which ends when the gateway gives it up) take no place.
    #[test]
    fn listings_in_progress_are_bounded() {
        let g = Gatekeeper::default();
        let mut view = ToolView::default();
        let own = view.own_listing();
        view.end_page(own, &json!({"tools": [], "nextCursor": "o"}));
        let mut started = Vec::new();
        for i in 0..=MAX_LISTINGS_IN_PROGRESS {
            let l = view.listing_for(PageAsked::First);
            let mut page =
                json!({"tools": [{"name": format!("t{i}")}], "nextCursor": format!("c{i}")});
            g.filter_tools_page(l, &mut page, &mut view, None);
            view.end_page(l, &page);
            started.push(l);
        }
        assert_eq!(view.listings.len(), MAX_LISTINGS_IN_PROGRESS + 1);
        assert!(view.listings.contains_key(&own.0));
        assert!(!view.listings.contains_key(&started[0].0), "the oldest");
        // The dropped listing's cursor continues nothing, and its late page
        // is decided, completes nothing and takes no place.
        let stray = view.listing_for(PageAsked::Cursor("c0"));
        assert_ne!(stray, started[0]);
        for l in [started[0], stray] {
            let mut last = json!({"tools": [{"name": "t0"}, {"name": "t0"}]});
            let events = g.filter_tools_page(l, &mut last, &mut view, None);
            assert_eq!(events.len(), 1, "listed twice on its page");
            assert_eq!(view.end_page(l, &last), None);
        }
        assert_eq!(view.listings.len(), MAX_LISTINGS_IN_PROGRESS + 1);
        // Every live one completes.
        for (i, &l) in started.iter().enumerate().skip(1) {
            assert_eq!(view.listing_for(PageAsked::Cursor(&format!("c{i}"))), l);
            let learned = view.end_page(l, &json!({"tools": []})).unwrap();
            assert_eq!(learned.keys().collect::<Vec<_>>(), [&format!("t{i}")]);
        }
        // The gateway's own, given up, ends.
        view.end_listing(own);
        assert!(view.listings.is_empty());
        assert_eq!(view.end_page(own, &json!({"tools": []})), None);
    }

    /// A tool the listing could not record (the view full) is hidden and
    /// not learned (#20 re-attack s43, F4); one the policy hides is
    /// learned (it was defined so).
    #[test]
    fn only_recorded_tools_are_learned() {
        let g = Gatekeeper {
            policy: Policy::parse("[tools]\ndeny = [\"denied\"]\n").unwrap(),
            ..Gatekeeper::default()
        };
        let mut view = ToolView::default();
        let junk = view.listing_for(PageAsked::First);
        let names: Vec<Value> = (0..MAX_TOOLS)
            .map(|i| json!({"name": format!("j{i}")}))
            .collect();
        let mut page = json!({"tools": names, "nextCursor": "c"});
        g.filter_tools_page(junk, &mut page, &mut view, None);
        assert_eq!(view.len(), MAX_TOOLS);
        let l = view.listing_for(PageAsked::First);
        let mut page = json!({"tools": [{"name": "echo"}, {"name": "j1"}]});
        let events = g.filter_tools_page(l, &mut page, &mut view, None);
        assert_eq!(page, json!({"tools": [{"name": "j1"}]}), "{events:?}");
        let learned = view.end_page(l, &page).unwrap();
        assert_eq!(learned.keys().collect::<Vec<_>>(), ["j1"]);
        let mut view = ToolView::default();
        let l = view.listing_for(PageAsked::First);
        let mut page = json!({"tools": [{"name": "denied"}]});
        assert_eq!(g.filter_tools_page(l, &mut page, &mut view, None).len(), 1);
        assert!(view.end_page(l, &page).unwrap().contains_key("denied"));
    }

    /// Attack s55, F3: a tool past [`MAX_TOOLS`] is hidden and refused,
    /// in the listing that overflows and in a later one (the bound is the
    /// session's), never callable for being unknown.
    #[test]
    fn tools_past_the_bound_are_refused() {
        let g = Gatekeeper {
            poison: PoisonMode::Refuse,
            ..Gatekeeper::default()
        };
        let code = |view: &ToolView, n: &str| {
            g.tool_decision(n, view, None)
                .map_or_else(|r| r.code(), |()| "ok")
        };
        let mut view = ToolView::default();
        let l = view.listing_for(PageAsked::First);
        let mut tools: Vec<Value> = (0..MAX_TOOLS)
            .map(|i| json!({"name": format!("f{i}")}))
            .collect();
        tools.push(json!({"name": "evil", "description": "x\u{E0041}"}));
        tools.push(json!({"name": "t"}));
        let mut page = json!({ "tools": tools });
        g.filter_tools_page(l, &mut page, &mut view, None);
        assert_eq!(page["tools"].as_array().map(Vec::len), Some(MAX_TOOLS));
        assert!(view.overflowed());
        for n in ["evil", "EVIL", "t", "never_listed"] {
            assert_eq!(code(&view, n), "tool.not_listed", "{n}");
        }
        assert_eq!(code(&view, "f1"), "ok");
        // A later listing of new names: past the view's bound, refused; a
        // name the view holds is decided on its new definition.
        let l = view.listing_for(PageAsked::First);
        let mut tools: Vec<Value> = (0..3).map(|i| json!({"name": format!("g{i}")})).collect();
        tools.push(json!({"name": "f1", "description": "x\u{E0041}"}));
        let mut page = json!({ "tools": tools });
        g.filter_tools_page(l, &mut page, &mut view, None);
        assert_eq!(page, json!({"tools": []}));
        assert_eq!(code(&view, "g0"), "tool.not_listed");
        assert_eq!(code(&view, "f1"), "tool.poisoned");
        assert_eq!(code(&view, "f2"), "ok");
        // Below the bound nothing overflows: an unlisted tool is the
        // server's to refuse.
        let view = ToolView::default();
        assert!(!view.overflowed());
        assert_eq!(code(&view, "never_listed"), "ok");
    }

    /// The memo gives what [`tool_state`] gives, the first time and the
    /// next, for clean, poisoned, colliding and numerically different
    /// definitions alike.
    #[test]
    fn a_remembered_state_is_the_state() {
        let defs = [
            json!({"name": "a", "description": "Plain."}),
            json!({"name": "a", "description": "Hidden\u{E0041}."}),
            json!({"name": "a", "name\u{200B}": "b"}),
            json!({"name": "a", "inputSchema": {"maximum": 1}}),
            json!({"name": "a", "inputSchema": {"maximum": 1.0}}),
            json!({"name": "a", "inputSchema": {"maximum": -0.0}}),
        ];
        let mut view = ToolView::default();
        for _ in 0..2 {
            for def in &defs {
                assert_eq!(view.state_of(def), tool_state(def), "{def}");
            }
        }
        assert_eq!(view.memo.states.len(), defs.len());
    }

    /// A definition changed between two listings (a rug pull) is seen as
    /// changed, whatever the memo holds of the first.
    #[test]
    fn a_changed_definition_is_seen_past_the_memo() {
        let g = Gatekeeper::default();
        let mut view = ToolView::default();
        let first = json!({"name": "echo", "description": "Echoes."});
        let changed = json!({"name": "echo", "description": "Echoes!"});
        let mut page = json!({"tools": [first.clone()]});
        g.filter_tools_page(
            view.listing_for(PageAsked::First),
            &mut page,
            &mut view,
            None,
        );
        assert_eq!(view.get("echo").unwrap().hash, tool_state(&first).hash);
        let mut page = json!({"tools": [changed.clone()]});
        g.filter_tools_page(
            view.listing_for(PageAsked::First),
            &mut page,
            &mut view,
            None,
        );
        assert_eq!(view.get("echo").unwrap().hash, tool_state(&changed).hash);
        assert_ne!(tool_state(&first).hash, tool_state(&changed).hash);
    }

    /// The memo holds at most [`MAX_TOOLS`] definitions and
    /// [`MAX_TOOL_MEMO_BYTES`]: past either it starts afresh, and a
    /// definition larger than all of it is never kept.
    #[test]
    fn the_memo_is_bounded() {
        let mut view = ToolView::default();
        for i in 0..MAX_TOOLS {
            view.state_of(&json!({"name": format!("t{i}")}));
        }
        assert_eq!(view.memo.states.len(), MAX_TOOLS);
        view.state_of(&json!({"name": "one more"}));
        assert_eq!(view.memo.states.len(), 1);

        // A definition of exactly `size` memo bytes (its JSON and hash).
        let hash = tool_state(&json!({})).hash.len();
        let sized = |c: &str, size: usize| {
            let base = serde_json::to_vec(&json!({"name": c, "description": ""})).unwrap();
            json!({"name": c, "description": c.repeat(size - base.len() - hash)})
        };
        let half = MAX_TOOL_MEMO_BYTES / 2;
        let mut view = ToolView::default();
        view.state_of(&sized("a", half));
        view.state_of(&sized("b", MAX_TOOL_MEMO_BYTES - half));
        assert_eq!(view.memo.states.len(), 2, "exactly full: both kept");
        assert_eq!(view.memo.bytes, MAX_TOOL_MEMO_BYTES);
        let c = sized("c", 100);
        assert_eq!(view.state_of(&c), tool_state(&c));
        assert_eq!(view.memo.states.len(), 1, "one byte more: afresh");
        assert_eq!(view.memo.bytes, 100);

        let mut view = ToolView::default();
        view.state_of(&sized("w", MAX_TOOL_MEMO_BYTES));
        assert_eq!(view.memo.states.len(), 1, "the whole memo's size is kept");
        let mut view = ToolView::default();
        let over = sized("w", MAX_TOOL_MEMO_BYTES + 1);
        assert_eq!(view.state_of(&over), tool_state(&over));
        assert!(
            view.memo.states.is_empty(),
            "larger than the memo: never kept"
        );
        assert_eq!(view.memo.bytes, 0);
    }

    /// Under `--poison strip` a definition whose keys would merge once
    /// stripped (`"name\u{200B}"` beside `"name"`) is hidden, not shown
    /// with the hidden member's value.
    #[test]
    fn a_definition_whose_keys_collide_is_hidden() {
        let g = Gatekeeper {
            policy: Policy::parse("[tools]\ndeny = [\"delete_all\"]\n").unwrap(),
            ..Gatekeeper::default()
        };
        let mut page = json!({"tools": [
            {"name": "echo", "name\u{200B}": "delete_all", "description": "Echoes."},
            {"name": "plain", "description": "Fine.\u{200B}", "title\u{200B}": "Plain"}
        ]});
        let mut view = ToolView::default();
        let listing = view.listing_for(PageAsked::First);
        let events = g.filter_tools_page(listing, &mut page, &mut view, None);
        assert_eq!(
            page,
            json!({"tools": [{"name": "plain", "description": "Fine.", "title": "Plain"}]})
        );
        assert!(
            matches!(&events[0], ListEvent::Hidden { tool, refusal } if tool == "echo" && refusal.code() == "tool.poisoned"),
            "{events:?}"
        );
    }

    /// One step of a client's listings, for the property below.
    #[derive(Debug, Clone)]
    enum Step {
        /// A `tools/list` for the first page (`None`) or at cursor `c{n}`.
        Ask(Option<u8>),
        /// The child answers an outstanding ask (picked by index) with a
        /// page of tools `(name, version)` and a `nextCursor` (`None`: the
        /// last page).
        Answer(usize, Vec<(u8, u8)>, Option<u8>),
        /// An outstanding ask gets no page.
        Fail(usize),
    }

    fn step() -> impl proptest::strategy::Strategy<Value = Step> {
        use proptest::prelude::*;
        prop_oneof![
            proptest::option::of(0u8..3).prop_map(Step::Ask),
            (
                any::<usize>(),
                proptest::collection::vec((0u8..5, 0u8..2), 0..4),
                proptest::option::of(0u8..3)
            )
                .prop_map(|(k, t, n)| Step::Answer(k, t, n)),
            any::<usize>().prop_map(Step::Fail),
        ]
    }

    fn def(name: u8, version: u8) -> Value {
        json!({"name": format!("t{name}"), "description": format!("v{version}")})
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::default())]

        /// Whatever the order of asks, pages and failures: a listing that
        /// completes is one chain of pages, its first asked for without a
        /// cursor and each next one at the cursor the page before gave;
        /// what it gives is exactly the first definition of each name its
        /// pages showed, names defined twice differently left out; a name
        /// is hidden as "listed twice" only when the same listing showed
        /// it before. With one listing at a time, every listing that is
        /// followed to its last page completes.
        #[test]
        fn a_completed_listing_is_one_chain_of_pages(
            steps in proptest::collection::vec(step(), 0..40),
            one_at_a_time in proptest::prelude::any::<bool>(),
        ) {
            use proptest::prelude::*;
            let g = Gatekeeper::default();
            let mut view = ToolView::default();
            // Asks without an answer: the listing and the cursor asked at.
            let mut outstanding: Vec<(ListingId, Option<String>)> = Vec::new();
            // Each listing's answered pages: (cursor asked, tools, next).
            type Page = (Option<String>, Vec<(u8, u8)>, Option<String>);
            let mut log: HashMap<ListingId, Vec<Page>> = HashMap::new();
            // The cursor the last answered page gave (one at a time).
            let mut next_at: Option<String> = None;
            for s in steps {
                match s {
                    Step::Ask(c) => {
                        if one_at_a_time && !outstanding.is_empty() {
                            continue;
                        }
                        let c = if one_at_a_time {
                            if c.is_some() { next_at.clone() } else { None }
                        } else {
                            c.map(|n| format!("c{n}"))
                        };
                        let l = view.listing_for(c.as_deref().map_or(PageAsked::First, PageAsked::Cursor));
                        outstanding.push((l, c));
                    }
                    Step::Fail(k) if !outstanding.is_empty() => {
                        let (l, _) = outstanding.remove(k % outstanding.len());
                        view.page_failed(l);
                    }
                    Step::Answer(k, tools, next) if !outstanding.is_empty() => {
                        let (l, asked) = outstanding.remove(k % outstanding.len());
                        let next = next.map(|n| format!("c{n}"));
                        let mut page = json!({
                            "tools": tools.iter().map(|&(n, v)| def(n, v)).collect::<Vec<_>>(),
                            "nextCursor": next,
                        });
                        let earlier: Vec<(u8, u8)> = log
                            .get(&l)
                            .map(|p| p.iter().flat_map(|(_, t, _)| t.clone()).collect())
                            .unwrap_or_default();
                        let events = g.filter_tools_page(l, &mut page, &mut view, None);
                        // Hidden: a name this listing showed before (on
                        // an earlier page or earlier on this one), and no
                        // other (none spuriously "listed twice").
                        let mut seen: HashSet<u8> = earlier.iter().map(|&(n, _)| n).collect();
                        let expected: Vec<String> = tools
                            .iter()
                            .filter(|&&(n, _)| !seen.insert(n))
                            .map(|&(n, _)| format!("t{n}"))
                            .collect();
                        let hidden: Vec<String> = events
                            .iter()
                            .map(|e| match e {
                                ListEvent::Hidden { tool, refusal } => {
                                    assert!(refusal.message().contains("listed twice"), "{e:?}");
                                    tool.clone()
                                }
                                _ => panic!("{e:?}"),
                            })
                            .collect();
                        if one_at_a_time {
                            prop_assert_eq!(&hidden, &expected);
                        } else {
                            // A listing dropped for newer ones forgets its
                            // pages: it may hide less, never more.
                            prop_assert!(hidden.iter().all(|h| expected.contains(h)), "{hidden:?} {expected:?}");
                        }
                        log.entry(l).or_default().push((asked, tools, next.clone()));
                        next_at = next;
                        let complete = view.end_page(l, &page);
                        let pages = log.get(&l).cloned().unwrap_or_default();
                        if let Some(learned) = complete {
                            // One chain from the first page.
                            prop_assert_eq!(&pages[0].0, &None);
                            for w in pages.windows(2) {
                                prop_assert!(w[0].2.is_some());
                                prop_assert_eq!(&w[1].0, &w[0].2);
                            }
                            prop_assert_eq!(&pages[pages.len() - 1].2, &None);
                            // Exactly the first definitions, conflicts out.
                            let mut first: HashMap<u8, u8> = HashMap::new();
                            let mut twice = HashSet::new();
                            for &(n, v) in pages.iter().flat_map(|(_, t, _)| t) {
                                match first.get(&n) {
                                    Some(&f) if f != v => {
                                        twice.insert(n);
                                    }
                                    Some(_) => {}
                                    None => {
                                        first.insert(n, v);
                                    }
                                }
                            }
                            let expected: HashMap<String, String> = first
                                .into_iter()
                                .filter(|(n, _)| !twice.contains(n))
                                .map(|(n, v)| (format!("t{n}"), tool_state(&def(n, v)).hash))
                                .collect();
                            prop_assert_eq!(learned, expected);
                            log.remove(&l);
                        } else {
                            // One listing at a time, each page asked at the
                            // cursor the page before gave: every last page
                            // completes its listing.
                            prop_assert!(!(one_at_a_time && next_at.is_none()), "{pages:?}");
                        }
                        if next_at.is_none() {
                            log.remove(&l);
                        }
                    }
                    _ => {}
                }
            }
        }
    }
}
