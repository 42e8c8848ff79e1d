//! The worker's wire protocol (private: both ends are the same binary).
//!
//! * stdin: one JSON `Request` line, then exactly `data_len` bytes of
//!   PDF. The password travels here, never on the command line. The parent
//!   then keeps stdin open until it has the worker's exit status; end of
//!   file on it tells the worker its parent is gone ([`ORPHAN_EXIT_CODE`]).
//! * stdout: zero or more progress lines (none unless the request asks) (`progress_line`: `P DONE
//!   TOTAL`, at most [`MAX_PROGRESS_LINE`] bytes), then one JSON
//!   `Response` line; exit status 0.
//! * stderr: free text (panic messages), of which the parent keeps a tail.

use serde::{Deserialize, Serialize};

use super::super::error::PdfError;
use super::super::limits::Limits;
use super::super::PageRange;

/// Longest request header line, in bytes.
pub(super) const MAX_REQUEST_LINE: u64 = 64 << 10;
/// Longest password passed to the worker, in bytes. The Standard security
/// handler reads at most the first 32 bytes (revisions 2-4) or 127 bytes
/// (revision 6) of a password (ISO 32000-2 §7.6.4.3.2, §7.6.4.3.3), so a
/// longer one is cut here (on a character boundary) without changing its
/// meaning, and can never overflow the request line.
pub const MAX_PASSWORD_BYTES: usize = 1024;
/// Exit code of a worker that found its parent gone (stdin closed early).
pub const ORPHAN_EXIT_CODE: i32 = 4;
/// Longest progress line the parent reads as one, newline included.
pub const MAX_PROGRESS_LINE: usize = 32;
const PROGRESS_TAG: &[u8] = b"P ";

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(super) enum Op {
    Extract,
    Metadata,
}

#[derive(Debug, Serialize, Deserialize)]
pub(super) struct Request {
    pub(super) op: Op,
    pub(super) pages: Option<PageRange>,
    pub(super) password: Option<String>,
    pub(super) limits: Limits,
    pub(super) data_len: usize,
    /// Whether the caller watches progress: without it the worker writes
    /// no progress line (each would wake the parent for nothing).
    #[serde(default)]
    pub(super) progress: bool,
    /// The worker's address-space limit for this call, in bytes
    /// ([`super::worker_memory_for`]); it lowers its limit to this once the
    /// document is read.
    pub(super) memory: u64,
}

#[derive(Debug, Serialize, Deserialize)]
pub(super) struct Response<T> {
    pub(super) outcome: Result<T, PdfError>,
    pub(super) max_rss_kib: Option<u64>,
}

/// At most [`MAX_PASSWORD_BYTES`] of `p`, cut on a character boundary.
pub(super) fn cut_password(p: &str) -> String {
    let mut end = p.len().min(MAX_PASSWORD_BYTES);
    while !p.is_char_boundary(end) {
        end = end.saturating_sub(1);
    }
    p.get(..end).unwrap_or_default().to_owned()
}

/// The progress line `P DONE TOTAL\n`.
pub(super) fn progress_line(done: u32, total: u32) -> String {
    format!("P {done} {total}\n")
}

/// Reads a progress line; `None` for anything else (the answer).
pub(super) fn parse_progress(line: &[u8]) -> Option<(u32, u32)> {
    if line.len() > MAX_PROGRESS_LINE {
        return None;
    }
    let rest = line.strip_prefix(PROGRESS_TAG)?.strip_suffix(b"\n")?;
    let text = std::str::from_utf8(rest).ok()?;
    let (done, total) = text.split_once(' ')?;
    let number = |s: &str| {
        (!s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
            .then(|| s.parse::<u32>().ok())
            .flatten()
    };
    Some((number(done)?, number(total)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_lines_round_trip_and_nothing_else_reads_as_one() {
        assert_eq!(
            parse_progress(progress_line(3, 300).as_bytes()),
            Some((3, 300))
        );
        let max = progress_line(u32::MAX, u32::MAX);
        assert!(max.len() <= MAX_PROGRESS_LINE);
        assert_eq!(parse_progress(max.as_bytes()), Some((u32::MAX, u32::MAX)));
        for bad in [
            &b"P 1 2"[..],
            b"P 1\n",
            b"P -1 2\n",
            b"P +1 2\n",
            b"P 1 4294967296\n",
            b"P 1  2\n",
            b"{\"outcome\":1}\n",
            b"P 1 2 3\n",
        ] {
            assert_eq!(
                parse_progress(bad),
                None,
                "{}",
                String::from_utf8_lossy(bad)
            );
        }
    }

    #[test]
    fn passwords_are_cut_on_a_character_boundary() {
        let long = "é".repeat(MAX_PASSWORD_BYTES);
        let cut = cut_password(&long);
        assert!(cut.len() <= MAX_PASSWORD_BYTES && cut.len() >= MAX_PASSWORD_BYTES - 1);
        assert_eq!(cut_password("pw"), "pw");
    }
}
