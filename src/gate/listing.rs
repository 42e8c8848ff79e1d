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

/// What the gateway last saw of each tool, from the child's listings.
#[derive(Debug, Clone, Default)]
pub struct ToolView {
    tools: HashMap<String, ToolState>,
    /// The listing in progress (its pages so far): each name's first
    /// definition hash. At most [`MAX_TOOLS`] names.
    listing: HashMap<String, String>,
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

    /// A listing starts (a `tools/list` without a cursor) or has ended (its
    /// last page): the next page begins a new one, in which each name may
    /// again be defined once.
    pub fn end_listing(&mut self) {
        self.listing.clear();
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
            let state = tool_state(&def);
            if let Some(first) = view.listing.get(&name) {
                let message = if *first == state.hash {
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
            if view.listing.len() >= MAX_TOOLS {
                events.push(hide(name, format!("more than {MAX_TOOLS} tools")));
                continue;
            }
            view.listing.insert(name.clone(), state.hash.clone());
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
