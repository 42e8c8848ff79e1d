//! `tools/list` answers through the policy: every tool is recorded in the
//! [`ToolView`] (its hash and whether it is poisoned), decided by
//! [`Gatekeeper::tool_decision`] (the same call a `tools/call` gets), and
//! hidden, stripped or passed.

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use super::code::{GateCode, Refusal};
use super::decide::{Gatekeeper, ToolState};
use super::pin::{definition_hash, Pins, MAX_TOOLS};
use super::poison::{clean_value, Findings, PoisonMode};

/// The most bytes of tool definitions (as compact JSON, with their
/// hashes) whose [`tool_state`] one session keeps, so that a
/// definition the server lists again unchanged is not canonicalized,
/// hashed and screened again. When a new definition would pass it (or
/// [`MAX_TOOLS`] definitions are kept), the memo starts afresh; a
/// definition larger than the whole memo is never kept.
pub const MAX_TOOL_MEMO_BYTES: usize = 8 << 20;

/// Who asked for a listing: the client's and the gateway's own
/// (`--pin`, a call before any listing) are two listings, each with its
/// pages in progress, so that one's pages are never taken for the
/// other's (a name shown by both is not "listed twice").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lister {
    /// The client's `tools/list`.
    Client,
    /// The gateway's own.
    Gateway,
}

/// What the gateway last saw of each tool, from the child's listings.
#[derive(Debug, Clone, Default)]
pub struct ToolView {
    tools: HashMap<String, ToolState>,
    /// The client's listing in progress (its pages so far): each name's
    /// first definition hash. At most [`MAX_TOOLS`] names.
    listing: HashMap<String, String>,
    /// The gateway's own listing in progress, likewise.
    own_listing: HashMap<String, String>,
    /// States of definitions seen, by their exact compact JSON.
    memo: Memo,
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

    /// A client's listing starts (a `tools/list` without a cursor) or has
    /// ended (its last page): the next page begins a new one, in which
    /// each name may again be defined once.
    pub fn end_listing(&mut self) {
        self.end_listing_of(Lister::Client);
    }

    /// [`end_listing`](Self::end_listing) of `who`'s listing only.
    pub fn end_listing_of(&mut self, who: Lister) {
        self.in_progress(who).clear();
    }

    /// The pages so far of `who`'s listing in progress.
    fn in_progress(&mut self, who: Lister) -> &mut HashMap<String, String> {
        match who {
            Lister::Client => &mut self.listing,
            Lister::Gateway => &mut self.own_listing,
        }
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
        if !self.tools.contains_key(name) && self.tools.len() >= MAX_TOOLS {
            return false;
        }
        self.tools.insert(name.to_owned(), state);
        true
    }
}

/// Trust-on-first-use learning during one listing: the definitions of the
/// names it shows first are pinned in both maps (the pins enforced from
/// now on and the pins to be saved).
pub struct Learning<'a> {
    /// The pins the listing is decided against.
    pub pins: &'a mut Pins,
    /// The pins to be written to the pin file.
    pub learned: &'a mut Pins,
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
    /// Filters the `result` of one `tools/list` page in place (its `tools`
    /// array; other members untouched), recording each tool in `view`.
    ///
    /// A tool without a string `name` and a tool past [`MAX_TOOLS`] are
    /// hidden. A name the listing has already shown (on this page or an
    /// earlier one) is hidden; when its definition differs from the first,
    /// the name is also marked [`ToolState::conflicting`] (refused until a
    /// later listing defines it once) and never pinned. While `learning`,
    /// each name's first definition is pinned before it is decided.
    pub fn filter_tools_page(
        &self,
        result: &mut Value,
        view: &mut ToolView,
        pins: Option<&Pins>,
        learning: Option<Learning<'_>>,
    ) -> Vec<ListEvent> {
        self.filter_tools_page_of(Lister::Client, result, view, pins, learning)
    }

    /// [`filter_tools_page`](Self::filter_tools_page) of a page of `who`'s
    /// listing (the names it has shown are those of its own pages).
    pub fn filter_tools_page_of(
        &self,
        who: Lister,
        result: &mut Value,
        view: &mut ToolView,
        pins: Option<&Pins>,
        mut learning: Option<Learning<'_>>,
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
        for mut def in std::mem::take(tools) {
            let Some(name) = def.get("name").and_then(Value::as_str).map(str::to_owned) else {
                events.push(hide("?".into(), "a tool without a string name".into()));
                continue;
            };
            let state = view.state_of(&def);
            if let Some(first) = view.in_progress(who).get(&name).cloned() {
                let message = if first == state.hash {
                    format!("tool `{name}` is listed twice")
                } else {
                    if let Some(shown) = view.tools.get_mut(&name) {
                        shown.conflicting = true;
                        conflicted.insert(name.clone());
                    }
                    if let Some(l) = learning.as_mut() {
                        l.pins.remove(&name);
                        l.learned.remove(&name);
                    }
                    format!("tool `{name}` is listed twice with different definitions")
                };
                events.push(hide(name, message));
                continue;
            }
            if view.in_progress(who).len() >= MAX_TOOLS {
                events.push(hide(name, format!("more than {MAX_TOOLS} tools")));
                continue;
            }
            view.in_progress(who)
                .insert(name.clone(), state.hash.clone());
            let poisoned = state.poisoned;
            if let Some(l) = learning.as_mut() {
                l.pins.insert(name.clone(), state.hash.clone());
                l.learned.insert(name.clone(), state.hash.clone());
            }
            if !view.record(&name, state) {
                events.push(hide(name, format!("more than {MAX_TOOLS} tools")));
                continue;
            }
            let decided = match learning.as_ref() {
                Some(l) => self.tool_decision(&name, view.get(&name), Some(&*l.pins)),
                None => self.tool_decision(&name, view.get(&name), pins),
            };
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
        *tools = kept;
        events
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gate::policy::Policy;
    use serde_json::json;

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
        let events = g.filter_tools_page(&mut page, &mut view, None, None);
        // `read_file` twice, differently: neither is shown, and it is refused;
        // `ok` twice, the same: shown once.
        assert_eq!(page, json!({"tools": [{"name": "ok"}], "nextCursor": "c"}));
        assert_eq!(events.len(), 5, "{events:?}");
        assert!(view.get("write_file").is_some());
        assert!(view.get("read_file").unwrap().poisoned);
        assert!(view.get("read_file").unwrap().conflicting);
        assert!(g
            .tool_decision("read_file", view.get("read_file"), None)
            .is_err());
        assert!(!view.get("ok").unwrap().poisoned);
        assert!(!view.get("ok").unwrap().conflicting);
        // The next page of the same listing cannot redefine `ok`; a new
        // listing can.
        let mut next = json!({"tools": [{"name": "ok", "title": "Other"}]});
        g.filter_tools_page(&mut next, &mut view, None, None);
        assert_eq!(next, json!({"tools": []}));
        assert!(view.get("ok").unwrap().conflicting);
        view.end_listing();
        let mut again = json!({"tools": [{"name": "ok", "title": "Other"}]});
        g.filter_tools_page(&mut again, &mut view, None, None);
        assert_eq!(again, json!({"tools": [{"name": "ok", "title": "Other"}]}));
        assert!(!view.get("ok").unwrap().conflicting);
    }

    /// The gateway's own listing and the client's are two listings: a
    /// name both show is listed once in each, and the end of one does not
    /// end the other (#20 re-attack: a spurious "listed twice").
    #[test]
    fn own_and_client_listings_are_apart() {
        let g = Gatekeeper::default();
        let mut view = ToolView::default();
        let tools = json!({"tools": [{"name": "echo"}, {"name": "read"}], "nextCursor": "c"});
        let mut page = tools.clone();
        assert!(g
            .filter_tools_page(&mut page, &mut view, None, None)
            .is_empty());
        // The gateway's own listing, while the client's is in progress.
        let mut own = tools.clone();
        let events = g.filter_tools_page_of(Lister::Gateway, &mut own, &mut view, None, None);
        assert!(events.is_empty(), "{events:?}");
        assert_eq!(own, tools);
        let mut own_last = json!({"tools": [{"name": "late"}]});
        assert!(g
            .filter_tools_page_of(Lister::Gateway, &mut own_last, &mut view, None, None)
            .is_empty());
        view.end_listing_of(Lister::Gateway);
        assert!(!view.get("echo").unwrap().conflicting);
        // The client's listing goes on: its last page shows `late` (the
        // gateway's listing showed it, not the client's), and still may
        // not redefine a name of its first page.
        let mut last = json!({"tools": [{"name": "late"}, {"name": "echo", "title": "Other"}]});
        let events = g.filter_tools_page(&mut last, &mut view, None, None);
        assert_eq!(last, json!({"tools": [{"name": "late"}]}), "{events:?}");
        assert!(view.get("echo").unwrap().conflicting);
        // And the other way round: the client's pages do not end the
        // gateway's listing.
        let mut view = ToolView::default();
        let mut own = tools.clone();
        g.filter_tools_page_of(Lister::Gateway, &mut own, &mut view, None, None);
        view.end_listing();
        let mut own_again = json!({"tools": [{"name": "echo", "title": "Other"}]});
        g.filter_tools_page_of(Lister::Gateway, &mut own_again, &mut view, None, None);
        assert_eq!(own_again, json!({"tools": []}));
        assert!(view.get("echo").unwrap().conflicting);
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
        g.filter_tools_page(&mut page, &mut view, None, None);
        assert_eq!(view.get("echo").unwrap().hash, tool_state(&first).hash);
        view.end_listing();
        let mut page = json!({"tools": [changed.clone()]});
        g.filter_tools_page(&mut page, &mut view, None, None);
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
        let events = g.filter_tools_page(&mut page, &mut view, None, None);
        assert_eq!(
            page,
            json!({"tools": [{"name": "plain", "description": "Fine.", "title": "Plain"}]})
        );
        assert!(
            matches!(&events[0], ListEvent::Hidden { tool, refusal } if tool == "echo" && refusal.code() == "tool.poisoned"),
            "{events:?}"
        );
    }
}
