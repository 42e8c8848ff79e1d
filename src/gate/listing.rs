//! `tools/list` answers through the policy: every tool is recorded in the
//! [`ToolView`] (its hash and whether it is poisoned), decided by
//! [`Gatekeeper::tool_decision`] (the same call a `tools/call` gets), and
//! hidden, stripped or passed.

use std::collections::HashMap;

use serde_json::Value;

use super::code::{GateCode, Refusal};
use super::decide::{Gatekeeper, ToolState};
use super::pin::{definition_hash, Pins, MAX_TOOLS};
use super::poison::{clean_value, Findings, PoisonMode};

/// What the gateway last saw of each tool, from the child's listings.
#[derive(Debug, Clone, Default)]
pub struct ToolView {
    tools: HashMap<String, ToolState>,
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

    /// Records `name` (refused when the view is full and `name` is new).
    fn record(&mut self, name: &str, state: ToolState) -> bool {
        if !self.tools.contains_key(name) && self.tools.len() >= MAX_TOOLS {
            return false;
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
    }
}

impl Gatekeeper {
    /// Filters the `result` of one `tools/list` page in place (its `tools`
    /// array; other members untouched), recording each tool in `view`.
    /// A tool without a string `name`, a repeated name and a tool past
    /// [`MAX_TOOLS`] are hidden.
    pub fn filter_tools_page(
        &self,
        result: &mut Value,
        view: &mut ToolView,
        pins: Option<&Pins>,
    ) -> Vec<ListEvent> {
        let mut events = Vec::new();
        let Some(tools) = result.get_mut("tools").and_then(Value::as_array_mut) else {
            return events;
        };
        let mut seen = std::collections::HashSet::new();
        let mut kept = Vec::with_capacity(tools.len());
        for mut def in std::mem::take(tools) {
            let Some(name) = def.get("name").and_then(Value::as_str).map(str::to_owned) else {
                events.push(ListEvent::Hidden {
                    tool: "?".into(),
                    refusal: Refusal::new(
                        GateCode::BadResponse,
                        "a tool without a string name",
                        "builtin listing check",
                    ),
                });
                continue;
            };
            if !seen.insert(name.clone()) {
                events.push(ListEvent::Hidden {
                    refusal: Refusal::new(
                        GateCode::BadResponse,
                        format!("tool `{name}` is listed twice"),
                        "builtin listing check",
                    ),
                    tool: name,
                });
                continue;
            }
            let state = tool_state(&def);
            let poisoned = state.poisoned;
            if !view.record(&name, state) {
                events.push(ListEvent::Hidden {
                    refusal: Refusal::new(
                        GateCode::BadResponse,
                        format!("more than {MAX_TOOLS} tools"),
                        "builtin listing check",
                    ),
                    tool: name,
                });
                continue;
            }
            if let Err(refusal) = self.tool_decision(&name, view.get(&name), pins) {
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
            {"name": "ok"}
        ], "nextCursor": "c"});
        let mut view = ToolView::default();
        let events = g.filter_tools_page(&mut page, &mut view, None);
        assert_eq!(
            page,
            json!({"tools": [
            {"name": "read_file", "description": "Reads."},
            {"name": "ok"}
        ], "nextCursor": "c"})
        );
        assert_eq!(events.len(), 4);
        assert!(view.get("write_file").is_some());
        assert!(view.get("read_file").unwrap().poisoned);
        assert!(!view.get("ok").unwrap().poisoned);
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
        let events = g.filter_tools_page(&mut page, &mut view, None);
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
