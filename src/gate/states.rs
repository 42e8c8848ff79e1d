//! The `requestState` values the server issued (2026-07-28 multi
//! round-trip requests, SEP-2322).
//!
//! A server that needs more input before it can answer `tools/call`,
//! `prompts/get` or `resources/read` answers with an `input_required`
//! result (`"resultType": "input_required"`) carrying `inputRequests` and
//! an opaque `requestState`; the client retries the request with
//! `params.inputResponses` and `params.requestState`, the state echoed
//! verbatim. That state is the server's own text, not the model's: a
//! retry whose `requestState` equals, byte for byte, one the server issued
//! in a result the gateway passed to the client this session (in answer to
//! the same method naming the same tool, prompt or URI, [`state_subject`])
//! gets no argument checks on that member. Any other `requestState`
//! (forged, altered, issued for another method or another tool, or
//! forgotten) is checked as every undeclared params member is, and a retry
//! carrying it is a new request to a `rate` (attack s60, K11-A).
//!
//! A state may be echoed any number of times while it is remembered (a
//! retry may be repeated: a lost answer, a second round that keeps the
//! state): it only ever carries what the server wrote. The store is
//! bounded: at most [`MAX_REQUEST_STATES`] states of at most
//! [`MAX_REQUEST_STATE_BYTES`] together, the oldest forgotten first; a
//! state longer than [`MAX_REQUEST_STATE_BYTES`] is never remembered, so
//! its echo is checked (fail closed).

use std::borrow::Cow;
use std::collections::VecDeque;

use serde_json::Value;

use super::named::Named;

/// Most server-issued `requestState` values remembered at once (the
/// oldest is forgotten first).
pub const MAX_REQUEST_STATES: usize = 256;

/// Most bytes of server-issued `requestState` values remembered at once,
/// each with the name or URI it is bound to ([`state_subject`]); a longer
/// state is never remembered.
pub const MAX_REQUEST_STATE_BYTES: usize = 1 << 20;

/// The methods whose result may be `input_required` (2026-07-28), and so
/// whose retry may echo a `requestState`.
pub const INPUT_REQUIRED_METHODS: &[&str] = &["tools/call", "prompts/get", "resources/read"];

/// The `requestState` of a 2026-07-28 `input_required` result: `Some`
/// only for an object with `"resultType": "input_required"` and a string
/// `requestState`.
pub fn issued_state(result: &Value) -> Option<&str> {
    let m = result.as_object()?;
    if m.get("resultType").and_then(Value::as_str) != Some("input_required") {
        return None;
    }
    m.get("requestState").and_then(Value::as_str)
}

/// What a request names that a state it got is bound to: the tool,
/// prompt or resource URI of the request `method` with `params`
/// (`tools/call`, `prompts/get`, `resources/read`), else nothing (`""`).
pub fn state_subject<'a>(method: &str, params: Option<&'a Value>) -> &'a str {
    Named::of(method, params).subject()
}

/// One state the server issued.
#[derive(Debug)]
struct Held {
    /// The method it answered.
    method: &'static str,
    /// What that request named ([`state_subject`]).
    subject: String,
    state: String,
    /// Whether a retry has carried it since it was issued (its one
    /// continuation, [`IssuedStates::spend`]).
    spent: bool,
}

impl Held {
    fn bytes(&self) -> usize {
        self.subject.len().saturating_add(self.state.len())
    }
}

/// The `requestState` values the server issued this session, each with the
/// method it answered and what that request named ([`state_subject`]):
/// bounded by [`MAX_REQUEST_STATES`] and [`MAX_REQUEST_STATE_BYTES`].
#[derive(Debug, Default)]
pub struct IssuedStates {
    held: VecDeque<Held>,
    bytes: usize,
}

impl IssuedStates {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    /// Remembers `state`, issued in an `input_required` result of
    /// `method` (one of [`INPUT_REQUIRED_METHODS`]) to a request naming
    /// `subject` ([`state_subject`]), as the newest, forgetting the oldest
    /// as needed. Returns whether it is remembered (not for another method,
    /// nor for a state and subject over [`MAX_REQUEST_STATE_BYTES`]).
    pub fn remember(&mut self, method: &str, subject: &str, state: &str) -> bool {
        let Some(&method) = INPUT_REQUIRED_METHODS.iter().find(|m| **m == method) else {
            return false;
        };
        let new = Held {
            method,
            subject: subject.to_owned(),
            state: state.to_owned(),
            spent: false,
        };
        if new.bytes() > MAX_REQUEST_STATE_BYTES {
            return false;
        }
        if let Some(at) = self.position(method, subject, state) {
            if let Some(old) = self.held.remove(at) {
                self.bytes = self.bytes.saturating_sub(old.bytes());
            }
        }
        while self.held.len() >= MAX_REQUEST_STATES
            || self.bytes.saturating_add(new.bytes()) > MAX_REQUEST_STATE_BYTES
        {
            let Some(old) = self.held.pop_front() else {
                break;
            };
            self.bytes = self.bytes.saturating_sub(old.bytes());
        }
        self.bytes = self.bytes.saturating_add(new.bytes());
        self.held.push_back(new);
        true
    }

    fn position(&self, method: &str, subject: &str, state: &str) -> Option<usize> {
        self.held
            .iter()
            .position(|h| h.method == method && h.subject == subject && h.state == state)
    }

    /// Whether the server issued `state` in answer to `method` naming
    /// `subject` (and it is still remembered).
    pub fn issued(&self, method: &str, subject: &str, state: &str) -> bool {
        self.position(method, subject, state).is_some()
    }

    /// Whether `state`, issued for `method` naming `subject`, has not yet
    /// been carried by a retry since it was issued: that retry continues
    /// the request that got it, which a `rate` counted already. A state
    /// issued for another tool continues nothing.
    pub fn unspent(&self, method: &str, subject: &str, state: &str) -> bool {
        self.position(method, subject, state)
            .and_then(|at| self.held.get(at))
            .is_some_and(|h| !h.spent)
    }

    /// Marks `state` (issued for `method` naming `subject`) as carried by
    /// its retry: any later retry with it is a new request to `rate`, until
    /// the server issues it again. A client replaying one state cannot run
    /// a tool past its rate.
    pub fn spend(&mut self, method: &str, subject: &str, state: &str) {
        if let Some(at) = self.position(method, subject, state) {
            if let Some(entry) = self.held.get_mut(at) {
                entry.spent = true;
            }
        }
    }

    /// How many states are remembered.
    pub fn len(&self) -> usize {
        self.held.len()
    }

    /// Whether no state is remembered.
    pub fn is_empty(&self) -> bool {
        self.held.is_empty()
    }

    /// The bytes of the states remembered.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// A request's `params` as the argument checks read them: without its
    /// `requestState` member when the server issued that state for
    /// `method` naming what these `params` name ([`issued`](Self::issued));
    /// every other member (arguments,
    /// `inputResponses`, any other) stays, and any other `requestState` is
    /// left to be checked.
    pub fn to_check<'a>(&self, method: &str, params: Option<&'a Value>) -> Option<Cow<'a, Value>> {
        let p = params?;
        let echoed = p
            .get("requestState")
            .and_then(Value::as_str)
            .is_some_and(|s| self.issued(method, state_subject(method, params), s));
        if !echoed {
            return Some(Cow::Borrowed(p));
        }
        let mut p = p.clone();
        if let Some(m) = p.as_object_mut() {
            m.remove("requestState");
        }
        Some(Cow::Owned(p))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A state's one continuation: unspent once issued, spent by its
    /// first retry, unspent again when the server issues it again.
    #[test]
    fn a_state_is_continued_once_per_issue() {
        let mut s = IssuedStates::new();
        assert!(!s.unspent("tools/call", "", "a"));
        assert!(s.remember("tools/call", "", "a"));
        assert!(s.unspent("tools/call", "", "a"));
        assert!(!s.unspent("prompts/get", "", "a"));
        s.spend("tools/call", "", "a");
        assert!(!s.unspent("tools/call", "", "a"));
        assert!(s.issued("tools/call", "", "a"));
        assert!(s.remember("tools/call", "", "a"));
        assert!(s.unspent("tools/call", "", "a"));
    }

    /// A state is bound to what its request named (attack s60, K11-A): a
    /// state issued for one tool continues no call of another, and is
    /// checked there.
    #[test]
    fn states_are_bound_to_their_subject() {
        let mut s = IssuedStates::new();
        assert!(s.remember("tools/call", "free", "a"));
        assert!(s.unspent("tools/call", "free", "a"));
        assert!(!s.unspent("tools/call", "limited", "a"));
        assert!(!s.issued("tools/call", "limited", "a"));
        s.spend("tools/call", "limited", "a");
        assert!(s.unspent("tools/call", "free", "a"));
        let p = json!({"name": "limited", "requestState": "a"});
        assert!(matches!(
            s.to_check("tools/call", Some(&p)),
            Some(Cow::Borrowed(_))
        ));
        let p = json!({"name": "free", "requestState": "a"});
        assert!(matches!(
            s.to_check("tools/call", Some(&p)),
            Some(Cow::Owned(_))
        ));
        let subject = |m, p: Value| state_subject(m, Some(&p)).to_owned();
        assert_eq!(subject("resources/read", json!({"uri": "u"})), "u");
        assert_eq!(
            subject("prompts/get", json!({"name": "n", "uri": "u"})),
            "n"
        );
        assert_eq!(
            subject("resources/read", json!({"name": "n", "uri": "u"})),
            "u"
        );
        assert_eq!(subject("tools/call", json!({"name": 1})), "");
        assert_eq!(subject("ping", json!({"name": "n"})), "");
        assert_eq!(state_subject("tools/call", None), "");
        // The subject counts against the byte bound.
        let half = "h".repeat(MAX_REQUEST_STATE_BYTES / 2 + 1);
        assert!(!s.remember("tools/call", &half, &half));
        assert_eq!(s.bytes(), 5);
    }

    #[test]
    fn only_an_input_required_result_issues_a_state() {
        let r = json!({"resultType": "input_required", "requestState": "s", "inputRequests": {}});
        assert_eq!(issued_state(&r), Some("s"));
        for r in [
            json!({"resultType": "complete", "requestState": "s"}),
            json!({"requestState": "s", "inputRequests": {}}),
            json!({"resultType": "input_required", "requestState": 5}),
            json!({"resultType": "input_required"}),
            json!("s"),
        ] {
            assert_eq!(issued_state(&r), None, "{r}");
        }
    }

    #[test]
    fn states_are_bound_to_their_method() {
        let mut s = IssuedStates::new();
        assert!(s.remember("tools/call", "", "a"));
        assert!(!s.remember("completion/complete", "", "b"));
        assert!(s.issued("tools/call", "", "a"));
        assert!(!s.issued("prompts/get", "", "a"));
        assert!(!s.issued("completion/complete", "", "b"));
        assert!(!s.issued("tools/call", "", "a "));
        assert!(!s.issued("tools/call", "", ""));
        // Used any number of times.
        assert!(s.issued("tools/call", "", "a"));
        assert_eq!((s.len(), s.bytes()), (1, 1));
    }

    #[test]
    fn the_count_is_bounded_oldest_forgotten() {
        let mut s = IssuedStates::new();
        for i in 0..MAX_REQUEST_STATES {
            assert!(s.remember("tools/call", "", &i.to_string()));
        }
        assert_eq!(s.len(), MAX_REQUEST_STATES);
        assert!(s.issued("tools/call", "", "0"));
        // Remembered again: the newest, not a second entry.
        assert!(s.remember("tools/call", "", "0"));
        assert_eq!(s.len(), MAX_REQUEST_STATES);
        assert!(s.remember("tools/call", "", "one past"));
        assert_eq!(s.len(), MAX_REQUEST_STATES);
        assert!(s.issued("tools/call", "", "0") && s.issued("tools/call", "", "one past"));
        assert!(!s.issued("tools/call", "", "1"), "the oldest is forgotten");
        assert!(s.issued("tools/call", "", "2"));
        let total: usize = s.held.iter().map(Held::bytes).sum();
        assert_eq!(s.bytes(), total);
    }

    #[test]
    fn the_bytes_are_bounded() {
        let mut s = IssuedStates::new();
        let at = "a".repeat(MAX_REQUEST_STATE_BYTES);
        assert!(s.remember("tools/call", "", &at));
        assert_eq!(s.bytes(), MAX_REQUEST_STATE_BYTES);
        assert!(s.issued("tools/call", "", &at));
        let past = "b".repeat(MAX_REQUEST_STATE_BYTES + 1);
        assert!(!s.remember("tools/call", "", &past));
        assert!(!s.issued("tools/call", "", &past));
        assert!(
            s.issued("tools/call", "", &at),
            "a state too long forgets nothing"
        );
        // One byte more than the room left: the oldest goes.
        assert!(s.remember("prompts/get", "", "c"));
        assert!(!s.issued("tools/call", "", &at));
        assert_eq!((s.len(), s.bytes()), (1, 1));
        let half = "d".repeat(MAX_REQUEST_STATE_BYTES / 2);
        let rest = "e".repeat(MAX_REQUEST_STATE_BYTES - MAX_REQUEST_STATE_BYTES / 2 - 1);
        assert!(s.remember("tools/call", "", &half) && s.remember("tools/call", "", &rest));
        assert_eq!(s.bytes(), MAX_REQUEST_STATE_BYTES);
        assert_eq!(s.len(), 3, "exactly at the bound, nothing forgotten");
        assert!(s.remember("tools/call", "", "f"));
        assert!(!s.issued("prompts/get", "", "c") && s.issued("tools/call", "", &half));
        assert!(!s.is_empty());
    }

    #[test]
    fn only_an_issued_state_is_left_unchecked() {
        let mut s = IssuedStates::new();
        s.remember("tools/call", "echo", "v2:abc");
        let p =
            json!({"name": "echo", "arguments": {"u": "v2:abc"}, "requestState": "v2:abc", "x": 1});
        let checked = s.to_check("tools/call", Some(&p)).unwrap();
        assert_eq!(
            *checked,
            json!({"name": "echo", "arguments": {"u": "v2:abc"}, "x": 1})
        );
        for (method, p) in [
            ("prompts/get", p.clone()),
            ("tools/call", json!({"requestState": "v2:abd"})),
            ("tools/call", json!({"requestState": ["v2:abc"]})),
        ] {
            let checked = s.to_check(method, Some(&p)).unwrap();
            assert!(matches!(checked, Cow::Borrowed(_)));
            assert_eq!(*checked, p);
        }
        assert!(s.to_check("tools/call", None).is_none());
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::default())]

        /// Any state the server issued, echoed verbatim, is left out of
        /// the checks (its member only: the same text in `arguments`
        /// stays); any other string leaves the params as sent, decided as
        /// before.
        #[test]
        fn only_issued_states_are_exempt(
            issued in proptest::collection::vec("\\PC{0,12}", 0..8),
            probe in "\\PC{0,12}",
            pick in proptest::prelude::any::<proptest::sample::Index>(),
        ) {
            let mut s = IssuedStates::new();
            for st in &issued {
                proptest::prop_assert!(s.remember("tools/call", "echo", st));
            }
            let echoed = if issued.is_empty() { probe.clone() } else { pick.get(&issued).clone() };
            for state in [echoed, probe] {
                let p = json!({"name": "echo", "arguments": {"a": state}, "requestState": state});
                let checked = s.to_check("tools/call", Some(&p));
                let checked = checked.as_deref();
                if issued.contains(&state) {
                    let expected = json!({"name": "echo", "arguments": {"a": state}});
                    proptest::prop_assert_eq!(checked, Some(&expected));
                } else {
                    proptest::prop_assert_eq!(checked, Some(&p));
                }
                let other = s.to_check("prompts/get", Some(&p));
                proptest::prop_assert_eq!(other.as_deref(), Some(&p));
            }
            proptest::prop_assert!(s.len() <= MAX_REQUEST_STATES);
            proptest::prop_assert!(s.bytes() <= MAX_REQUEST_STATE_BYTES);
        }
    }
}
