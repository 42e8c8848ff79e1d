//! MCP protocol revisions this server speaks, and what differs between them.

/// A protocol revision (the spec's date-named versions).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Revision {
    /// 2024-11-05: the first handshake revision.
    V2024_11_05,
    /// 2025-03-26: adds tool annotations and JSON-RPC batches.
    V2025_03_26,
    /// 2025-06-18: removes batches; adds `title`, `outputSchema`, `structuredContent`.
    V2025_06_18,
    /// 2025-11-25: the newest handshake revision.
    V2025_11_25,
    /// 2026-07-28: stateless; no handshake, `server/discover`, per-request `_meta`.
    V2026_07_28,
}

/// Revisions reachable through the `initialize` handshake, oldest first.
pub const HANDSHAKE_REVISIONS: &[Revision] = &[
    Revision::V2024_11_05,
    Revision::V2025_03_26,
    Revision::V2025_06_18,
    Revision::V2025_11_25,
];

/// Stateless revisions (version carried in every request's `_meta`).
pub const STATELESS_REVISIONS: &[Revision] = &[Revision::V2026_07_28];

/// The answer to an `initialize` offering a version we do not speak.
pub const LATEST_HANDSHAKE: Revision = Revision::V2025_11_25;

impl Revision {
    /// Parses the wire form, e.g. `"2025-11-25"`.
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "2024-11-05" => Self::V2024_11_05,
            "2025-03-26" => Self::V2025_03_26,
            "2025-06-18" => Self::V2025_06_18,
            "2025-11-25" => Self::V2025_11_25,
            "2026-07-28" => Self::V2026_07_28,
            _ => return None,
        })
    }

    /// The wire form.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::V2024_11_05 => "2024-11-05",
            Self::V2025_03_26 => "2025-03-26",
            Self::V2025_06_18 => "2025-06-18",
            Self::V2025_11_25 => "2025-11-25",
            Self::V2026_07_28 => "2026-07-28",
        }
    }

    /// Whether this revision uses the `initialize` handshake.
    pub fn is_handshake(self) -> bool {
        HANDSHAKE_REVISIONS.contains(&self)
    }

    /// JSON-RPC batches: only 2025-03-26 allows them.
    pub fn allows_batches(self) -> bool {
        self == Self::V2025_03_26
    }

    /// Tool `annotations` (readOnlyHint, ...): from 2025-03-26.
    pub fn has_tool_annotations(self) -> bool {
        self >= Self::V2025_03_26
    }

    /// Tool `title`, `outputSchema` and `structuredContent`: from 2025-06-18.
    pub fn has_structured_content(self) -> bool {
        self >= Self::V2025_06_18
    }

    /// Results carry `resultType` (and cacheable ones `ttlMs`/`cacheScope`).
    pub fn has_result_type(self) -> bool {
        self >= Self::V2026_07_28
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips() {
        for r in HANDSHAKE_REVISIONS.iter().chain(STATELESS_REVISIONS) {
            assert_eq!(Revision::parse(r.as_str()), Some(*r));
        }
        assert_eq!(Revision::parse("2024-10-07"), None);
        assert!(!Revision::V2026_07_28.is_handshake());
    }
}
