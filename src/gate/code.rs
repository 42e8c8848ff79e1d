//! The gateway's stable refusal codes (`policy.*`, `tool.*`) and its own
//! error codes (`gate.*`), and the [`Refusal`] every policy decision returns.
//!
//! The strings are the contract: a code never changes meaning. The codes
//! of the core (`ssrf.*`, `url.*`, `dns.*`, `path.outside_root`) travel
//! through a [`Refusal`] unchanged.

use std::fmt;

use crate::net::Denial;

/// A refusal code owned by the gateway.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum GateCode {
    /// The tool is hidden by `[tools] allow` / `deny`.
    ToolDenied,
    /// An argument is larger than an `[[args]]` rule's `max_bytes`.
    ArgTooLarge,
    /// An argument named by an `[[args]]` rule has the wrong JSON type for its `kind`.
    ArgKind,
    /// The arguments hold more strings or nesting than the gateway inspects
    /// ([`crate::gate::MAX_SCANNED_STRINGS`]): refused rather than half-checked.
    ArgumentsTooComplex,
    /// The tool's `rate` (calls per minute) is used up.
    RateLimited,
    /// The tool already has `max_concurrent` calls in flight.
    ConcurrencyLimited,
    /// The audit log could not be written: calls are refused (fail closed).
    AuditUnavailable,
    /// The tool's definition differs from its pin (`--pin`).
    DefinitionChanged,
    /// The tool is not in the pin file (`--pin`): added after pinning.
    NotPinned,
    /// The gateway has not seen the tool in a `tools/list` of the child.
    NotListed,
    /// The tool's name or definition carries invisible or deceptive
    /// characters and `--poison refuse` is set (or the name itself does).
    Poisoned,
    /// A tool result carried invisible or deceptive characters under `--poison refuse`.
    ResultPoisoned,
    /// The call took longer than `--call-timeout`.
    CallTimeout,
    /// The child process exited before answering.
    ChildExited,
    /// The child's answer was not a valid JSON-RPC message (size, JSON, envelope).
    BadResponse,
    /// More requests are pending at the child than the gateway holds.
    Busy,
}

impl GateCode {
    /// Every code, in the order of the table in `docs/gate.md`.
    pub const ALL: &'static [GateCode] = &[
        Self::ToolDenied,
        Self::ArgTooLarge,
        Self::ArgKind,
        Self::ArgumentsTooComplex,
        Self::RateLimited,
        Self::ConcurrencyLimited,
        Self::AuditUnavailable,
        Self::DefinitionChanged,
        Self::NotPinned,
        Self::NotListed,
        Self::Poisoned,
        Self::ResultPoisoned,
        Self::CallTimeout,
        Self::ChildExited,
        Self::BadResponse,
        Self::Busy,
    ];

    /// The stable string, e.g. `policy.tool_denied`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::ToolDenied => "policy.tool_denied",
            Self::ArgTooLarge => "policy.arg_too_large",
            Self::ArgKind => "policy.arg_kind",
            Self::ArgumentsTooComplex => "policy.arguments_too_complex",
            Self::RateLimited => "policy.rate_limited",
            Self::ConcurrencyLimited => "policy.concurrency_limited",
            Self::AuditUnavailable => "policy.audit_unavailable",
            Self::DefinitionChanged => "tool.definition_changed",
            Self::NotPinned => "tool.not_pinned",
            Self::NotListed => "tool.not_listed",
            Self::Poisoned => "tool.poisoned",
            Self::ResultPoisoned => "tool.result_poisoned",
            Self::CallTimeout => "gate.call_timeout",
            Self::ChildExited => "gate.child_exited",
            Self::BadResponse => "gate.bad_response",
            Self::Busy => "gate.busy",
        }
    }

    /// One line saying when the code is given (the docs table).
    pub const fn meaning(self) -> &'static str {
        match self {
            Self::ToolDenied => "hidden by `[tools] allow`/`deny` (deny wins)",
            Self::ArgTooLarge => "an argument over an `[[args]]` rule's `max_bytes`",
            Self::ArgKind => "an argument of the wrong JSON type for its `[[args]]` kind",
            Self::ArgumentsTooComplex => "more strings in `arguments` than the gateway inspects",
            Self::RateLimited => "the tool's `rate` (calls per minute) is used up",
            Self::ConcurrencyLimited => "the tool's `max_concurrent` calls are in flight",
            Self::AuditUnavailable => "the audit log cannot be written (fail closed)",
            Self::DefinitionChanged => "the definition differs from its pin (`--pin`)",
            Self::NotPinned => "a tool missing from the pin file (`--pin`)",
            Self::NotListed => "a tool the child has not listed (`--pin`)",
            Self::Poisoned => "invisible or deceptive characters in a tool's name or definition",
            Self::ResultPoisoned => {
                "invisible or deceptive characters in a result (`--poison refuse`)"
            }
            Self::CallTimeout => "no answer within `--call-timeout`",
            Self::ChildExited => "the child exited before answering",
            Self::BadResponse => "the child's answer was not valid JSON-RPC",
            Self::Busy => "too many requests pending at the child",
        }
    }
}

impl fmt::Display for GateCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why the policy refused something: a stable code (the gateway's or the
/// core's), a human reason, and the rule that decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    code: &'static str,
    reason: String,
    rule: String,
}

impl Refusal {
    /// A refusal with one of the gateway's codes.
    pub fn new(code: GateCode, reason: impl Into<String>, rule: impl Into<String>) -> Self {
        Self {
            code: code.as_str(),
            reason: reason.into(),
            rule: rule.into(),
        }
    }

    /// A refusal carrying a core denial (`ssrf.*`, `url.*`, `path.outside_root`).
    pub fn from_denial(denial: &Denial, rule: impl Into<String>) -> Self {
        Self {
            code: denial.code(),
            reason: denial.reason().into_owned(),
            rule: rule.into(),
        }
    }

    /// The stable code string.
    pub fn code(&self) -> &'static str {
        self.code
    }

    /// The human reason.
    pub fn reason(&self) -> &str {
        &self.reason
    }

    /// The rule that decided, e.g. `tools.deny "write_*"` or `builtin url scan`.
    pub fn rule(&self) -> &str {
        &self.rule
    }

    /// As a core [`Denial`], for [`crate::rpc::denial_error`].
    pub fn to_denial(&self) -> Denial {
        Denial::new(self.code, format!("{} (rule: {})", self.reason, self.rule))
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {} (rule: {})", self.code, self.reason, self.rule)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique_and_in_families() {
        let mut seen = std::collections::HashSet::new();
        for c in GateCode::ALL {
            assert!(seen.insert(c.as_str()), "{c} twice");
            let family = c.as_str().split('.').next().unwrap_or_default();
            assert!(["policy", "tool", "gate"].contains(&family), "{c}");
            assert!(!c.meaning().is_empty());
        }
    }
}
