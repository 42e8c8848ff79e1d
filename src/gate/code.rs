//! The gateway's stable codes (`policy.*`, `tool.*`, one `codes!` table as
//! the `net` module docs lay down) and the [`Refusal`] every policy
//! decision returns.
//!
//! The strings are the contract: a code never changes meaning. The codes
//! of the core (`ssrf.*`, `url.*`, `dns.*`, `path.outside_root`) travel
//! through a [`Refusal`] unchanged.

use std::fmt;

use serde_json::Value;

use crate::net::{Denial, DenialCode};
use crate::rpc::{refusal_error, Id};

crate::net::codes! {
    /// The gateway's own refusal codes: `policy.*` (the policy file and
    /// flags decided) and `tool.*` (something about the tool or the child's
    /// answer). Listed in `docs/codes.md` and `docs/gate.md`.
    pub enum GateCode {
        /// The tool is hidden by `[tools] allow` / `deny` (deny wins).
        ToolDenied => "policy.tool_denied", "policy file [tools] allow/deny";
        /// An argument is larger than an `[[args]]` rule's `max_bytes`.
        ArgTooLarge => "policy.arg_too_large", "policy file [[args]] max_bytes";
        /// An argument named by an `[[args]]` rule has the wrong JSON type for its `kind`.
        ArgKind => "policy.arg_kind", "policy file [[args]] kind";
        /// More strings in `arguments` than the gateway inspects
        /// ([`crate::gate::MAX_SCANNED_STRINGS`]): refused, not half-checked.
        ArgumentsTooComplex => "policy.arguments_too_complex", "gateway scan bound";
        /// The tool's `rate` (calls per minute) is used up.
        RateLimited => "policy.rate_limited", "policy file [[limits]] rate";
        /// The tool already has `max_concurrent` calls in flight.
        ConcurrencyLimited => "policy.concurrency_limited", "policy file [[limits]] max_concurrent";
        /// A method the gateway does not mediate, not in `[methods] allow`.
        MethodDenied => "policy.method_denied", "policy file [methods] allow";
        /// The prompt is hidden by `[prompts] allow` / `deny`, or its name
        /// carries invisible characters.
        PromptDenied => "policy.prompt_denied", "policy file [prompts] allow/deny";
        /// The audit log cannot be written: calls are refused (fail closed).
        AuditUnavailable => "policy.audit_unavailable", "--audit";
        /// The pins learned this session could not be saved: calls are
        /// refused (fail closed), since the next session would learn anew.
        PinUnavailable => "policy.pin_unavailable", "--pin";
        /// The tool's definition differs from its pin.
        DefinitionChanged => "tool.definition_changed", "--pin";
        /// The tool is not in the pin file (added after pinning).
        NotPinned => "tool.not_pinned", "--pin";
        /// The child has not listed the tool (the gateway cannot check its pin).
        NotListed => "tool.not_listed", "--pin";
        /// Invisible or deceptive characters in the tool's name or a
        /// resource's URI, or in a tool's definition under `--poison refuse`.
        Poisoned => "tool.poisoned", "--poison";
        /// Invisible or deceptive characters in a result under `--poison refuse`.
        ResultPoisoned => "tool.result_poisoned", "--poison refuse";
        /// No answer within `--call-timeout`.
        CallTimeout => "tool.call_timeout", "--call-timeout";
        /// The child exited before answering.
        ServerExited => "tool.server_exited", "gateway lifecycle";
        /// The child's answer was not a valid JSON-RPC message (size, JSON, envelope).
        BadResponse => "tool.bad_response", "--max-response-bytes; JSON-RPC 2.0";
    }
}

/// A refusal's code: the core's (a destination or a path) or the gateway's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AnyCode {
    /// `ssrf.*`, `url.*`, `dns.*`, `path.*`.
    Net(DenialCode),
    /// `policy.*`, `tool.*`.
    Gate(GateCode),
}

impl AnyCode {
    /// The stable string.
    pub fn code(self) -> &'static str {
        match self {
            Self::Net(c) => c.code(),
            Self::Gate(c) => c.code(),
        }
    }
}

/// Why the policy refused something: a stable code (the gateway's or the
/// core's), a human reason, and the rule that decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    code: AnyCode,
    reason: String,
    rule: String,
    subject: Option<String>,
}

impl Refusal {
    /// A refusal with one of the gateway's codes.
    pub fn new(code: GateCode, reason: impl Into<String>, rule: impl Into<String>) -> Self {
        Self {
            code: AnyCode::Gate(code),
            reason: reason.into(),
            rule: rule.into(),
            subject: None,
        }
    }

    /// A refusal carrying a core denial (`ssrf.*`, `url.*`, `path.outside_root`).
    pub fn from_denial(denial: &Denial, rule: impl Into<String>) -> Self {
        Self {
            code: AnyCode::Net(denial.kind()),
            reason: denial.reason().into_owned(),
            rule: rule.into(),
            subject: None,
        }
    }

    /// The same refusal, its reason after `prefix` (what it was found
    /// through).
    #[must_use]
    pub fn named_as(mut self, prefix: &str) -> Self {
        self.reason.insert_str(0, prefix);
        self
    }

    /// The same refusal, of `subject`: the one of a request's several
    /// entries it refused (a URI of a `subscriptions/listen`), which its
    /// audit line names.
    #[must_use]
    pub fn about(mut self, subject: &str) -> Self {
        self.subject = Some(subject.to_owned());
        self
    }

    /// The entry refused, when a request names several ([`Refusal::about`]).
    pub fn subject(&self) -> Option<&str> {
        self.subject.as_deref()
    }

    /// The stable code string.
    pub fn code(&self) -> &'static str {
        self.code.code()
    }

    /// The code as an enum.
    pub fn kind(&self) -> AnyCode {
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

    /// The reason with the rule, as sent to the client: each hidden
    /// character (tag, format, default-ignorable, bidi control, control
    /// but tab and line breaks, private use, unassigned) a name or URI in it carried
    /// written as `\u{…}`, so the gateway's own text carries none toward the
    /// model or the terminal (attack s71-B, F4: a refused prompt name
    /// ending in U+200B came back with it).
    pub fn message(&self) -> String {
        let message = format!("{} (rule: {})", self.reason, self.rule);
        if !message.chars().any(|c| super::hidden::class(c).is_some()) {
            return message;
        }
        let mut shown = String::with_capacity(message.len());
        for c in message.chars() {
            if super::hidden::class(c).is_some() {
                shown.push_str(&format!("\\u{{{:x}}}", u32::from(c)));
            } else {
                shown.push(c);
            }
        }
        shown
    }

    /// The -32001 error response ([`refusal_error`]: `error.data.code`).
    pub fn to_error(&self, id: &Id) -> Value {
        match self.code {
            AnyCode::Net(c) => refusal_error(id, c, &self.message()),
            AnyCode::Gate(c) => refusal_error(id, c, &self.message()),
        }
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // As sent: hidden characters escaped (a log line reaches a
        // terminal).
        write!(f, "{}: {}", self.code(), self.message())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the gateway writes itself carries no hidden character: a name
    /// in a refusal shows it escaped.
    #[test]
    fn messages_show_hidden_characters_escaped() {
        let r = Refusal::new(
            GateCode::Poisoned,
            "prompt `p\u{200B}` was hidden, \u{1B}[31m \u{E0041}",
            "x\u{202E}",
        );
        assert_eq!(
            r.message(),
            "prompt `p\\u{200b}` was hidden, \\u{1b}[31m \\u{e0041} (rule: x\\u{202e})"
        );
        let plain = Refusal::new(GateCode::Poisoned, "caf\u{E9}\tok", "r");
        assert_eq!(plain.message(), "caf\u{E9}\tok (rule: r)");
    }

    #[test]
    fn codes_are_unique_and_in_families() {
        let mut seen = std::collections::HashSet::new();
        for c in GateCode::ALL {
            assert!(seen.insert(c.code()), "{c} twice");
            let family = c.code().split('.').next().unwrap_or_default();
            assert!(["policy", "tool"].contains(&family), "{c}");
            assert!(!c.source().is_empty());
        }
    }
}
