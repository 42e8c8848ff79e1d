//! `toolgate::net` — URL / IP classifier (SSRF). See DESIGN.md. (being written)
//!
//! INTERFACE CONTRACT used by `rpc::denial_error` and the MCP server:
//! `Denial::code()` (stable machine-readable code such as `ssrf.loopback`)
//! and `Denial::reason()` (human-readable sentence).

/// A refused destination (or path): a stable code and a human reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Denial {
    code: &'static str,
    reason: String,
}

impl Denial {
    /// Builds a denial from a stable code and a reason.
    pub fn new(code: &'static str, reason: impl Into<String>) -> Self {
        Self {
            code,
            reason: reason.into(),
        }
    }

    /// The stable machine-readable code, e.g. `ssrf.loopback`.
    pub fn code(&self) -> &'static str {
        self.code
    }

    /// A human-readable sentence saying why.
    pub fn reason(&self) -> &str {
        &self.reason
    }
}
