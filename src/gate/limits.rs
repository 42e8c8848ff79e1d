//! Per-tool `max_concurrent` and `rate` (`[[limits]]`): counters kept per
//! tool name as a server that folds case reads it ([`fold_name`]: `Slow`
//! and `slow` share theirs), every matching rule applied (the strictest
//! decides).
//!
//! The rate is a token bucket per tool: `rate` tokens, refilled at `rate`
//! per minute, one spent per call; so at most `rate` calls in any minute
//! after an idle one, and `rate` per minute sustained.

use std::collections::HashMap;
use std::time::Instant;

use super::code::{GateCode, Refusal};
use super::policy::{fold_name, LimitRule};

/// Most tool names tracked at once. A counter that holds no state (no
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
    tools: HashMap<String, Counter>,
}

/// The strictest limits applying to one tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Applied {
    max_concurrent: Option<(u32, usize)>,
    rate: Option<(u32, usize)>,
}

fn applied(rules: &[LimitRule], tool: &str) -> Applied {
    let mut a = Applied {
        max_concurrent: None,
        rate: None,
    };
    for r in rules.iter().filter(|r| r.applies_to(tool)) {
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
    match applied(rules, tool).max_concurrent {
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
    /// Takes a slot for a call of `tool` at `now`; pair each `Ok(true)`
    /// with one [`Limiter::release`] when the call ends. `Ok(false)`: no
    /// rule applies, nothing to release.
    ///
    /// # Errors
    /// `policy.concurrency_limited` or `policy.rate_limited`, naming the rule's line.
    pub fn acquire(
        &mut self,
        rules: &[LimitRule],
        tool: &str,
        now: Instant,
    ) -> Result<bool, Refusal> {
        let a = applied(rules, tool);
        if a.max_concurrent.is_none() && a.rate.is_none() {
            return Ok(false);
        }
        let key = fold_name(tool);
        if !self.tools.contains_key(&key) && self.tools.len() >= MAX_TRACKED_TOOLS {
            self.tools.retain(|_, c| !c.idle(now));
            if self.tools.len() >= MAX_TRACKED_TOOLS {
                return Err(Refusal::new(
                    GateCode::RateLimited,
                    format!("more than {MAX_TRACKED_TOOLS} tools are being limited at once"),
                    "builtin limit bound",
                ));
            }
        }
        let full = a.rate.map_or(0.0, |(r, _)| f64::from(r));
        let c = self.tools.entry(key).or_insert(Counter {
            inflight: 0,
            tokens: full,
            at: now,
            full,
        });
        if let Some((m, line)) = a.max_concurrent {
            if c.inflight >= m {
                return Err(Refusal::new(
                    GateCode::ConcurrencyLimited,
                    format!("tool `{tool}` already has {m} calls in flight"),
                    format!("limits max_concurrent = {m} (line {line})"),
                ));
            }
        }
        if let Some((r, line)) = a.rate {
            let elapsed = now.saturating_duration_since(c.at).as_secs_f64();
            c.tokens = (c.tokens + elapsed * f64::from(r) / 60.0).min(f64::from(r));
            c.at = now;
            if c.tokens < 1.0 {
                return Err(Refusal::new(
                    GateCode::RateLimited,
                    format!("tool `{tool}` is limited to {r} calls per minute"),
                    format!("limits rate = {r} (line {line})"),
                ));
            }
            c.tokens -= 1.0;
        }
        c.inflight += 1;
        Ok(true)
    }

    /// Ends a call that [`Limiter::acquire`] admitted with `Ok(true)`.
    pub fn release(&mut self, tool: &str) {
        if let Some(c) = self.tools.get_mut(&fold_name(tool)) {
            c.inflight = c.inflight.saturating_sub(1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gate::policy::Policy;
    use std::time::Duration;

    #[test]
    fn concurrency_and_rate() {
        let p = Policy::parse(
            "[[limits]]\ntool = \"*\"\nmax_concurrent = 2\n[[limits]]\ntool = \"f*\"\nrate = 3\nmax_concurrent = 5\n",
        )
        .unwrap();
        let mut l = Limiter::default();
        let t0 = Instant::now();
        let code = |r: Result<bool, Refusal>| r.map(|_| "ok").unwrap_or_else(|e| e.code());
        assert_eq!(code(l.acquire(&p.limits, "g", t0)), "ok");
        assert_eq!(code(l.acquire(&p.limits, "g", t0)), "ok");
        assert_eq!(
            code(l.acquire(&p.limits, "g", t0)),
            "policy.concurrency_limited"
        );
        l.release("g");
        assert_eq!(code(l.acquire(&p.limits, "g", t0)), "ok");
        for _ in 0..3 {
            assert_eq!(code(l.acquire(&p.limits, "f", t0)), "ok");
            l.release("f");
        }
        assert_eq!(code(l.acquire(&p.limits, "f", t0)), "policy.rate_limited");
        let later = t0 + Duration::from_secs(20);
        assert_eq!(code(l.acquire(&p.limits, "f", later)), "ok");
        assert_eq!(
            code(l.acquire(&p.limits, "f", later)),
            "policy.rate_limited"
        );
        assert_eq!(l.acquire(&[], "f", later), Ok(false));
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
        let code = |r: Result<bool, Refusal>| r.map(|_| "ok").unwrap_or_else(|e| e.code());
        assert_eq!(code(l.acquire(&p.limits, "t", t0)), "ok");
        l.release("t");
        assert_eq!(code(l.acquire(&p.limits, "t", t0)), "ok");
        l.release("t");
        assert_eq!(code(l.acquire(&p.limits, "t", t0)), "policy.rate_limited");
        for i in 0..MAX_TRACKED_TOOLS {
            let name = format!("x{i}");
            let got = code(l.acquire(&p.limits, &name, t0));
            l.release(&name);
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
        assert_eq!(code(l.acquire(&p.limits, "t", t0)), "policy.rate_limited");
        // Refilled after a minute: every counter is idle, a new name fits.
        let later = t0 + Duration::from_secs(60);
        assert_eq!(code(l.acquire(&p.limits, "new", later)), "ok");
        assert_eq!(l.tools.len(), 1);
        // Half a minute: one token back of two, not idle.
        let mut l = Limiter::default();
        assert_eq!(code(l.acquire(&p.limits, "a", t0)), "ok");
        l.release("a");
        assert!(!l.tools["a"].idle(t0 + Duration::from_secs(29)));
        assert!(l.tools["a"].idle(t0 + Duration::from_secs(30)));
        // A call in flight holds state, whatever its bucket.
        assert_eq!(code(l.acquire(&p.limits, "b", t0)), "ok");
        assert!(!l.tools["b"].idle(t0 + Duration::from_secs(600)));
    }

    /// A name spelt otherwise that a server folding case reads as the
    /// same tool shares its rule and its counters (#20 re-attack, N8).
    #[test]
    fn folded_names_share_rule_and_counters() {
        let p = Policy::parse("[[limits]]\ntool = \"slow\"\nmax_concurrent = 1\n").unwrap();
        let mut l = Limiter::default();
        let t0 = Instant::now();
        assert_eq!(l.acquire(&p.limits, "slow", t0), Ok(true));
        for twin in ["SLOW", "ſlow", "ｓｌｏｗ", "Slow"] {
            assert_eq!(
                l.acquire(&p.limits, twin, t0).map_err(|e| e.code()),
                Err("policy.concurrency_limited"),
                "{twin}"
            );
        }
        l.release("SLOW");
        assert_eq!(l.acquire(&p.limits, "ſlow", t0), Ok(true));
    }
}
