//! Per-tool and per-prompt `max_concurrent` and `rate` (`[[limits]]`):
//! counters kept per name as a server that folds case reads it
//! ([`fold_name`]: `Slow` and `slow` share theirs), a tool's apart from a
//! prompt's of the same name, every matching rule applied (the strictest
//! decides). A `tools/call` counts against its tool's rules, a
//! `prompts/get` against its prompt's (a prompt may do a tool's work:
//! `mcp-server-fetch`'s `fetch` prompt fetches its URL).
//!
//! The rate is a token bucket per name: `rate` tokens, refilled at `rate`
//! per minute, one spent per request; so at most `rate` requests in any
//! minute after an idle one, and `rate` per minute sustained.

use std::collections::HashMap;
use std::time::Instant;

use super::code::{GateCode, Refusal};
use super::policy::{fold_name, LimitRule};

/// What a `[[limits]]` rule counts: calls of tools (`tool = GLOB`) or
/// gets of prompts (`prompt = GLOB`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Subject {
    /// `tools/call`, by `params.name`.
    Tool,
    /// `prompts/get`, by `params.name`.
    Prompt,
}

impl Subject {
    /// The word for it in refusals.
    fn noun(self) -> &'static str {
        match self {
            Self::Tool => "tool",
            Self::Prompt => "prompt",
        }
    }

    /// The requests it counts, in refusals.
    fn requests(self) -> &'static str {
        match self {
            Self::Tool => "calls",
            Self::Prompt => "gets",
        }
    }
}

/// A place [`Limiter::acquire`] took for one request: give it back with
/// [`Limiter::release`] when the request ends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Slot {
    subject: Subject,
    key: String,
}

/// Most tool and prompt names tracked at once. A counter that holds no state (no
/// call in flight, its bucket full again) is dropped to make room; when
/// none can be, a call of a tool not tracked is refused
/// (`policy.rate_limited`): a flood of other names never resets a
/// limited tool's counters.
pub const MAX_TRACKED_TOOLS: usize = 4096;

#[derive(Debug, Clone)]
struct Counter {
    inflight: u32,
    tokens: f64,
    at: Instant,
    /// The bucket's size (its rule's `rate`; 0 without one).
    full: f64,
}

impl Counter {
    /// `true` when the counter holds nothing a new one would not: no call
    /// in flight and its bucket refilled by `now`.
    fn idle(&self, now: Instant) -> bool {
        let elapsed = now.saturating_duration_since(self.at).as_secs_f64();
        self.inflight == 0 && self.tokens + elapsed * self.full / 60.0 >= self.full
    }
}

/// The counters of the `[[limits]]` rules.
#[derive(Debug, Default)]
pub struct Limiter {
    counters: HashMap<(Subject, String), Counter>,
}

/// The strictest limits applying to one tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Applied {
    max_concurrent: Option<(u32, usize)>,
    rate: Option<(u32, usize)>,
}

fn applied(rules: &[LimitRule], subject: Subject, name: &str) -> Applied {
    let mut a = Applied {
        max_concurrent: None,
        rate: None,
    };
    let rules = rules.iter().filter(|r| r.subject == subject);
    for r in rules.filter(|r| r.applies_to(name)) {
        if let Some(m) = r.max_concurrent {
            if a.max_concurrent.is_none_or(|(x, _)| m < x) {
                a.max_concurrent = Some((m, r.line));
            }
        }
        if let Some(m) = r.rate {
            if a.rate.is_none_or(|(x, _)| m < x) {
                a.rate = Some((m, r.line));
            }
        }
    }
    a
}

/// Refuses a task-augmented call (`params.task`, MCP 2025-11-25) of a tool
/// under a `max_concurrent` rule: the server answers such a call at once
/// with a task handle and goes on working, so the slot the answer frees
/// would not bound the work running. `Ok` when no such rule applies.
///
/// # Errors
/// `policy.concurrency_limited`, naming the rule's line.
pub fn refuse_task_augmented(rules: &[LimitRule], tool: &str) -> Result<(), Refusal> {
    match applied(rules, Subject::Tool, tool).max_concurrent {
        None => Ok(()),
        Some((max, line)) => Err(Refusal::new(
            GateCode::ConcurrencyLimited,
            format!(
                "tool `{tool}` allows {max} calls at once, and a task-augmented call (`params.task`) runs on after its answer frees the slot: call it without `task`"
            ),
            format!("limits max_concurrent = {max} (line {line})"),
        )),
    }
}

impl Limiter {
    /// Takes a place for a request of `subject` `name` at `now`; pair each
    /// `Ok(Some(slot))` with one [`Limiter::release`] when the request
    /// ends. `Ok(None)`: no rule applies, nothing to release. A
    /// `continuation` (a 2026-07-28 retry carrying the `requestState` the
    /// server issued for the request before it, once) spends no `rate`
    /// token: it is the same operation's next round.
    ///
    /// # Errors
    /// `policy.concurrency_limited` or `policy.rate_limited`, naming the
    /// rule's line; `policy.rate_limited` too when [`MAX_TRACKED_TOOLS`]
    /// counters hold state and `name` has none.
    pub fn acquire(
        &mut self,
        rules: &[LimitRule],
        subject: Subject,
        name: &str,
        now: Instant,
        continuation: bool,
    ) -> Result<Option<Slot>, Refusal> {
        let a = applied(rules, subject, name);
        if a.max_concurrent.is_none() && a.rate.is_none() {
            return Ok(None);
        }
        let key = (subject, fold_name(name));
        if !self.counters.contains_key(&key) && self.counters.len() >= MAX_TRACKED_TOOLS {
            self.counters.retain(|_, c| !c.idle(now));
            if self.counters.len() >= MAX_TRACKED_TOOLS {
                return Err(Refusal::new(
                    GateCode::RateLimited,
                    format!(
                        "more than {MAX_TRACKED_TOOLS} tools and prompts are being limited at once"
                    ),
                    "builtin limit bound",
                ));
            }
        }
        let full = a.rate.map_or(0.0, |(r, _)| f64::from(r));
        let c = self.counters.entry(key.clone()).or_insert(Counter {
            inflight: 0,
            tokens: full,
            at: now,
            full,
        });
        let (noun, requests) = (subject.noun(), subject.requests());
        if let Some((m, line)) = a.max_concurrent {
            if c.inflight >= m {
                return Err(Refusal::new(
                    GateCode::ConcurrencyLimited,
                    format!("{noun} `{name}` already has {m} {requests} in flight"),
                    format!("limits max_concurrent = {m} (line {line})"),
                ));
            }
        }
        if let Some((r, line)) = a.rate.filter(|_| !continuation) {
            let elapsed = now.saturating_duration_since(c.at).as_secs_f64();
            c.tokens = (c.tokens + elapsed * f64::from(r) / 60.0).min(f64::from(r));
            c.at = now;
            if c.tokens < 1.0 {
                return Err(Refusal::new(
                    GateCode::RateLimited,
                    format!("{noun} `{name}` is limited to {r} {requests} per minute"),
                    format!("limits rate = {r} (line {line})"),
                ));
            }
            c.tokens -= 1.0;
        }
        c.inflight += 1;
        Ok(Some(Slot {
            subject: key.0,
            key: key.1,
        }))
    }

    /// Ends a request that [`Limiter::acquire`] admitted with `slot`.
    pub fn release(&mut self, slot: &Slot) {
        if let Some(c) = self.counters.get_mut(&(slot.subject, slot.key.clone())) {
            c.inflight = c.inflight.saturating_sub(1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gate::policy::Policy;
    use std::time::Duration;

    /// The slot a tool's call named `name` takes.
    fn tool_slot(name: &str) -> Slot {
        Slot {
            subject: Subject::Tool,
            key: fold_name(name),
        }
    }

    #[test]
    fn concurrency_and_rate() {
        let p = Policy::parse(
            "[[limits]]\ntool = \"*\"\nmax_concurrent = 2\n[[limits]]\ntool = \"f*\"\nrate = 3\nmax_concurrent = 5\n",
        )
        .unwrap();
        let mut l = Limiter::default();
        let t0 = Instant::now();
        let code = |r: Result<Option<Slot>, Refusal>| r.map(|_| "ok").unwrap_or_else(|e| e.code());
        assert_eq!(
            code(l.acquire(&p.limits, Subject::Tool, "g", t0, false)),
            "ok"
        );
        assert_eq!(
            code(l.acquire(&p.limits, Subject::Tool, "g", t0, false)),
            "ok"
        );
        assert_eq!(
            code(l.acquire(&p.limits, Subject::Tool, "g", t0, false)),
            "policy.concurrency_limited"
        );
        l.release(&tool_slot("g"));
        assert_eq!(
            code(l.acquire(&p.limits, Subject::Tool, "g", t0, false)),
            "ok"
        );
        for _ in 0..3 {
            assert_eq!(
                code(l.acquire(&p.limits, Subject::Tool, "f", t0, false)),
                "ok"
            );
            l.release(&tool_slot("f"));
        }
        assert_eq!(
            code(l.acquire(&p.limits, Subject::Tool, "f", t0, false)),
            "policy.rate_limited"
        );
        let later = t0 + Duration::from_secs(20);
        assert_eq!(
            code(l.acquire(&p.limits, Subject::Tool, "f", later, false)),
            "ok"
        );
        assert_eq!(
            code(l.acquire(&p.limits, Subject::Tool, "f", later, false)),
            "policy.rate_limited"
        );
        assert_eq!(l.acquire(&[], Subject::Tool, "f", later, false), Ok(None));
    }

    /// Attack s55, F8: calls of [`MAX_TRACKED_TOOLS`] other names do not
    /// evict a bucket that is still limiting (it would come back full);
    /// a new name is refused while every counter holds state, and takes
    /// the place of one whose bucket has refilled.
    #[test]
    fn a_flood_of_names_keeps_a_limited_bucket() {
        let p = Policy::parse("[[limits]]\ntool = \"*\"\nrate = 2\n").unwrap();
        let mut l = Limiter::default();
        let t0 = Instant::now();
        let code = |r: Result<Option<Slot>, Refusal>| r.map(|_| "ok").unwrap_or_else(|e| e.code());
        assert_eq!(
            code(l.acquire(&p.limits, Subject::Tool, "t", t0, false)),
            "ok"
        );
        l.release(&tool_slot("t"));
        assert_eq!(
            code(l.acquire(&p.limits, Subject::Tool, "t", t0, false)),
            "ok"
        );
        l.release(&tool_slot("t"));
        assert_eq!(
            code(l.acquire(&p.limits, Subject::Tool, "t", t0, false)),
            "policy.rate_limited"
        );
        for i in 0..MAX_TRACKED_TOOLS {
            let name = format!("x{i}");
            let got = code(l.acquire(&p.limits, Subject::Tool, &name, t0, false));
            l.release(&tool_slot(&name));
            assert_eq!(
                got,
                if i + 1 < MAX_TRACKED_TOOLS {
                    "ok"
                } else {
                    "policy.rate_limited"
                },
                "{i}"
            );
        }
        assert_eq!(
            code(l.acquire(&p.limits, Subject::Tool, "t", t0, false)),
            "policy.rate_limited"
        );
        // Refilled after a minute: every counter is idle, a new name fits.
        let later = t0 + Duration::from_secs(60);
        assert_eq!(
            code(l.acquire(&p.limits, Subject::Tool, "new", later, false)),
            "ok"
        );
        assert_eq!(l.counters.len(), 1);
        // Half a minute: one token back of two, not idle.
        let mut l = Limiter::default();
        assert_eq!(
            code(l.acquire(&p.limits, Subject::Tool, "a", t0, false)),
            "ok"
        );
        l.release(&tool_slot("a"));
        assert!(!l.counters[&(Subject::Tool, fold_name("a"))].idle(t0 + Duration::from_secs(29)));
        assert!(l.counters[&(Subject::Tool, fold_name("a"))].idle(t0 + Duration::from_secs(30)));
        // A call in flight holds state, whatever its bucket.
        assert_eq!(
            code(l.acquire(&p.limits, Subject::Tool, "b", t0, false)),
            "ok"
        );
        assert!(!l.counters[&(Subject::Tool, fold_name("b"))].idle(t0 + Duration::from_secs(600)));
    }

    /// A name spelt otherwise that a server folding case reads as the
    /// same tool shares its rule and its counters (#20 re-attack, N8).
    #[test]
    fn folded_names_share_rule_and_counters() {
        let p = Policy::parse("[[limits]]\ntool = \"slow\"\nmax_concurrent = 1\n").unwrap();
        let mut l = Limiter::default();
        let t0 = Instant::now();
        assert!(matches!(
            l.acquire(&p.limits, Subject::Tool, "slow", t0, false),
            Ok(Some(_))
        ));
        for twin in ["SLOW", "ſlow", "ｓｌｏｗ", "Slow"] {
            assert_eq!(
                l.acquire(&p.limits, Subject::Tool, twin, t0, false)
                    .map_err(|e| e.code()),
                Err("policy.concurrency_limited"),
                "{twin}"
            );
        }
        l.release(&tool_slot("SLOW"));
        assert!(matches!(
            l.acquire(&p.limits, Subject::Tool, "ſlow", t0, false),
            Ok(Some(_))
        ));
    }

    /// N3 (#20): `prompt = GLOB` rules count `prompts/get` of the prompts
    /// they name, apart from a tool of the same name, and `tool` rules
    /// count no prompt.
    #[test]
    fn prompt_rules_count_prompts_apart_from_tools() {
        let p = Policy::parse(
            "[[limits]]\nprompt = \"fetch\"\nrate = 1\n[[limits]]\ntool = \"*\"\nmax_concurrent = 1\n",
        )
        .unwrap();
        let mut l = Limiter::default();
        let t0 = Instant::now();
        let prompt = l.acquire(&p.limits, Subject::Prompt, "FETCH", t0, false);
        let Ok(Some(slot)) = prompt else {
            panic!("{prompt:?}")
        };
        l.release(&slot);
        let again = l.acquire(&p.limits, Subject::Prompt, "fetch", t0, false);
        let refusal = again.unwrap_err();
        assert_eq!(refusal.code(), "policy.rate_limited");
        assert!(
            refusal
                .message()
                .starts_with("prompt `fetch` is limited to 1 gets per minute"),
            "{}",
            refusal.message()
        );
        // The tool `fetch` has its own counter, under the tool rule only.
        assert!(matches!(
            l.acquire(&p.limits, Subject::Tool, "fetch", t0, false),
            Ok(Some(_))
        ));
        assert_eq!(
            l.acquire(&p.limits, Subject::Tool, "fetch", t0, false)
                .map_err(|e| e.code()),
            Err("policy.concurrency_limited")
        );
        // No prompt rule names `summarize`: nothing counted.
        assert_eq!(
            l.acquire(&p.limits, Subject::Prompt, "summarize", t0, false),
            Ok(None)
        );
    }
}
