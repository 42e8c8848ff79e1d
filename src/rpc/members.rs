//! The JSON-RPC 2.0 / MCP member table: which members the strict scan
//! records (JSON-RPC 2.0 §4 envelope, MCP `tools/call` params), as a
//! [`Sink`] for [`crate::json`]'s scanner, which knows no member names.
use crate::json::{Kind, Member, Sink, Slot, Span, NO_SLOT, ROOT};

// Slots of one envelope; a batch element's are the same plus `IN_ELEMENT`.
const JSONRPC: Slot = 2;
const ID: Slot = 3;
const METHOD: Slot = 4;
const PARAMS: Slot = 5;
const NAME: Slot = 6;
const ARGUMENTS: Slot = 7;
const META: Slot = 8;
const ELEMENT: Slot = 9;
const IN_ELEMENT: Slot = 0x10;

/// The members of one envelope the scan located.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Envelope {
    pub jsonrpc: Option<Member>,
    pub id: Option<Member>,
    /// How many top-level `id` members (more than one: no id can be trusted).
    pub id_count: usize,
    pub method: Option<Member>,
    pub params: Option<Member>,
    pub name: Option<Member>,
    pub arguments: Option<Member>,
    pub meta: Option<Member>,
}

impl Envelope {
    fn set(&mut self, slot: Slot, m: Member) {
        let dst = match slot {
            JSONRPC => &mut self.jsonrpc,
            ID => {
                self.id_count = self.id_count.saturating_add(1);
                &mut self.id
            }
            METHOD => &mut self.method,
            PARAMS => &mut self.params,
            NAME => &mut self.name,
            ARGUMENTS => &mut self.arguments,
            META => &mut self.meta,
            _ => return,
        };
        *dst = Some(m);
    }
}

/// What one scan of a line records: the top-level value, its envelope
/// members, and for a batch each element's span and envelope (at most
/// `max_elements`; `element_count` counts them all).
#[derive(Debug)]
pub(crate) struct Captured {
    pub top: Option<Member>,
    pub envelope: Envelope,
    pub elements: Vec<(Span, Envelope)>,
    pub element_count: usize,
    max_elements: usize,
}

impl Captured {
    pub(crate) fn new(max_elements: usize) -> Self {
        Self {
            top: None,
            envelope: Envelope::default(),
            elements: Vec::new(),
            element_count: 0,
            max_elements,
        }
    }

    /// The top-level value is an object.
    pub(crate) fn is_object(&self) -> bool {
        matches!(
            self.top,
            Some(Member {
                kind: Kind::Object,
                ..
            })
        )
    }
}

/// Envelope members by parent: the top level, then `params`.
fn envelope_member(parent: Slot, key: &[u8]) -> Slot {
    match (parent, key) {
        (ROOT, b"jsonrpc") => JSONRPC,
        (ROOT, b"id") => ID,
        (ROOT, b"method") => METHOD,
        (ROOT, b"params") => PARAMS,
        (PARAMS, b"name") => NAME,
        (PARAMS, b"arguments") => ARGUMENTS,
        (PARAMS, b"_meta") => META,
        _ => NO_SLOT,
    }
}

impl Sink for Captured {
    fn member(&mut self, parent: Slot, key: &[u8]) -> Slot {
        if parent == ELEMENT {
            return match envelope_member(ROOT, key) {
                NO_SLOT => NO_SLOT,
                s => s | IN_ELEMENT,
            };
        }
        if parent & IN_ELEMENT != 0 {
            return match envelope_member(parent & !IN_ELEMENT, key) {
                NO_SLOT => NO_SLOT,
                s => s | IN_ELEMENT,
            };
        }
        envelope_member(parent, key)
    }

    fn element(&mut self, parent: Slot) -> Slot {
        if parent != ROOT {
            return NO_SLOT;
        }
        self.element_count = self.element_count.saturating_add(1);
        if self.elements.len() >= self.max_elements {
            return NO_SLOT;
        }
        self.elements.push((Span::default(), Envelope::default()));
        ELEMENT
    }

    fn record(&mut self, slot: Slot, m: Member) {
        match slot {
            ROOT => self.top = Some(m),
            ELEMENT => {
                if let Some(last) = self.elements.last_mut() {
                    last.0 = m.span;
                }
            }
            s if s & IN_ELEMENT != 0 => {
                if let Some(last) = self.elements.last_mut() {
                    last.1.set(s & !IN_ELEMENT, m);
                }
            }
            s => self.envelope.set(s, m),
        }
    }
}
