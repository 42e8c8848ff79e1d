//! The extractor's error type: one stable `kind` string per failure class.

use serde::{Deserialize, Serialize};
use std::fmt;

use super::limits::Limit;
use super::message::shorten;

/// Why a PDF could not be extracted or described.
///
/// Serialized (serde, internally tagged) as `{"kind": "<kind>", ...fields}`;
/// the `kind` strings are stable and listed in docs/pdf.md.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum PdfError {
    /// The input does not start with a `%PDF-` header within its first
    /// [`super::limits::HEADER_SEARCH_BYTES`] bytes.
    NotPdf {
        /// What was found instead.
        detail: String,
    },
    /// The input is zero bytes long.
    EmptyInput,
    /// The file ends before its cross-reference data or trailer (cut off).
    Truncated {
        /// What is missing.
        detail: String,
    },
    /// The cross-reference table or stream is unreadable and could not be rebuilt.
    MalformedXref {
        /// lopdf's description.
        detail: String,
    },
    /// An object the document needs (catalog, page tree node) is missing or
    /// has the wrong type.
    MalformedStructure {
        /// What was wrong, and where (object number).
        detail: String,
    },
    /// The page tree loops back on itself and no page could be reached.
    PageTreeCycle {
        /// The object number where the loop was detected.
        object: u32,
    },
    /// A chain of indirect references loops back on itself.
    ReferenceCycle {
        /// The object number where the loop was detected.
        object: u32,
    },
    /// Objects or the page tree nest deeper than the named limit.
    NestingTooDeep {
        /// The nesting limit that was reached.
        limit: Limit,
        /// The limit's value.
        max: u64,
    },
    /// A resource limit was reached before a meaningful result could be given.
    LimitExceeded {
        /// Which limit (stable snake_case name, see [`Limit`]).
        limit: Limit,
        /// The limit's value, in the limit's unit.
        max: u64,
    },
    /// The document is encrypted with a security handler or algorithm that is
    /// not supported (anything but the Standard handler, RC4 and AES).
    UnsupportedEncryption {
        /// The security handler (`/Filter`) and version, as found.
        handler: String,
    },
    /// The document needs a user password: none was given, or the one given
    /// is wrong.
    PasswordRequired {
        /// True when a password was supplied and rejected.
        incorrect: bool,
    },
    /// Reading the input failed.
    Io {
        /// The operating system's message.
        detail: String,
    },
    /// The isolated worker process crashed, was killed (timeout, CPU or
    /// memory limit) or answered garbage. The caller is unaffected.
    WorkerFailed {
        /// What happened (signal, timeout, panic message, stderr tail).
        reason: String,
    },
    /// The requested page range lies outside the document.
    PageOutOfRange {
        /// First page requested (1-based).
        first: u32,
        /// Number of pages in the document.
        page_count: u32,
    },
}

impl PdfError {
    /// The stable machine-readable kind: `not_pdf`, `empty_input`, `truncated`,
    /// `malformed_xref`, `malformed_structure`, `page_tree_cycle`,
    /// `reference_cycle`, `nesting_too_deep`, `limit_exceeded`,
    /// `unsupported_encryption`, `password_required`, `io`, `worker_failed`,
    /// `page_out_of_range`.
    pub fn kind(&self) -> &'static str {
        match self {
            PdfError::NotPdf { .. } => "not_pdf",
            PdfError::EmptyInput => "empty_input",
            PdfError::Truncated { .. } => "truncated",
            PdfError::MalformedXref { .. } => "malformed_xref",
            PdfError::MalformedStructure { .. } => "malformed_structure",
            PdfError::PageTreeCycle { .. } => "page_tree_cycle",
            PdfError::ReferenceCycle { .. } => "reference_cycle",
            PdfError::NestingTooDeep { .. } => "nesting_too_deep",
            PdfError::LimitExceeded { .. } => "limit_exceeded",
            PdfError::UnsupportedEncryption { .. } => "unsupported_encryption",
            PdfError::PasswordRequired { .. } => "password_required",
            PdfError::Io { .. } => "io",
            PdfError::WorkerFailed { .. } => "worker_failed",
            PdfError::PageOutOfRange { .. } => "page_out_of_range",
        }
    }

    /// A [`PdfError::LimitExceeded`] for `limit` at its value `max`.
    pub fn limit(limit: Limit, max: usize) -> Self {
        PdfError::LimitExceeded {
            limit,
            max: u64::try_from(max).unwrap_or(u64::MAX),
        }
    }

    pub(crate) fn structure(detail: impl AsRef<str>) -> Self {
        PdfError::MalformedStructure {
            detail: shorten(detail.as_ref()),
        }
    }

    /// An [`PdfError::UnsupportedEncryption`] naming `handler` (as found
    /// in the file: made safe and bounded as every error's text is, see
    /// [`PdfError::bounded`]).
    pub(crate) fn unsupported_encryption(handler: impl AsRef<str>) -> Self {
        PdfError::UnsupportedEncryption {
            handler: shorten(handler.as_ref()),
        }
    }

    /// This error with every text it holds (a detail, a security handler,
    /// a worker's reason: each may quote the file) made safe to show and
    /// bounded: control, bidirectional and format characters escaped, and
    /// cut to [`crate::pdf::MAX_WARNING_CHARS`] characters with a note of how many were
    /// cut. Idempotent. Every error the extractor returns has passed
    /// through it, so the whole message ([`fmt::Display`]) is at most
    /// [`crate::pdf::MAX_WARNING_CHARS`] characters plus its fixed wording.
    #[must_use]
    pub fn bounded(self) -> Self {
        match self {
            PdfError::NotPdf { detail } => PdfError::NotPdf {
                detail: shorten(&detail),
            },
            PdfError::Truncated { detail } => PdfError::Truncated {
                detail: shorten(&detail),
            },
            PdfError::MalformedXref { detail } => PdfError::MalformedXref {
                detail: shorten(&detail),
            },
            PdfError::MalformedStructure { detail } => PdfError::structure(detail),
            PdfError::UnsupportedEncryption { handler } => {
                PdfError::unsupported_encryption(handler)
            }
            PdfError::Io { detail } => PdfError::Io {
                detail: shorten(&detail),
            },
            PdfError::WorkerFailed { reason } => PdfError::WorkerFailed {
                reason: shorten(&reason),
            },
            e @ (PdfError::EmptyInput
            | PdfError::PageTreeCycle { .. }
            | PdfError::ReferenceCycle { .. }
            | PdfError::NestingTooDeep { .. }
            | PdfError::LimitExceeded { .. }
            | PdfError::PasswordRequired { .. }
            | PdfError::PageOutOfRange { .. }) => e,
        }
    }
}

impl fmt::Display for PdfError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = self.kind();
        match self {
            PdfError::NotPdf { detail } => write!(f, "{kind}: not a PDF file ({detail})"),
            PdfError::EmptyInput => write!(f, "{kind}: the input is empty"),
            PdfError::Truncated { detail } => write!(f, "{kind}: the file is cut off ({detail})"),
            PdfError::MalformedXref { detail } => {
                write!(f, "{kind}: unreadable cross-reference data ({detail})")
            }
            PdfError::MalformedStructure { detail } => write!(f, "{kind}: {detail}"),
            PdfError::PageTreeCycle { object } => {
                write!(f, "{kind}: the page tree loops back to object {object}")
            }
            PdfError::ReferenceCycle { object } => {
                write!(f, "{kind}: references loop back to object {object}")
            }
            PdfError::NestingTooDeep { limit, max } => {
                write!(f, "{kind}: nesting deeper than {limit} = {max}")
            }
            PdfError::LimitExceeded { limit, max } => {
                write!(f, "{kind}: {limit} limit of {max} {} reached", limit.unit())
            }
            PdfError::UnsupportedEncryption { handler } => {
                write!(f, "{kind}: unsupported security handler {handler}")
            }
            PdfError::PasswordRequired { incorrect: true } => {
                write!(f, "{kind}: the password given is incorrect")
            }
            PdfError::PasswordRequired { incorrect: false } => {
                write!(f, "{kind}: the document needs a user password")
            }
            PdfError::Io { detail } => write!(f, "{kind}: {detail}"),
            PdfError::WorkerFailed { reason } => write!(f, "{kind}: {reason}"),
            PdfError::PageOutOfRange { first, page_count } => write!(
                f,
                "{kind}: page {first} requested, the document has {page_count} pages"
            ),
        }
    }
}

impl std::error::Error for PdfError {}
