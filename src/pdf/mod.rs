//! `toolgate::pdf` — the lopdf-based extractor (feature `pdf`). See docs/pdf.md
//! and README section `pdf`.
//!
//! Two entry points, each in two flavours:
//! * [`extract_isolated`] / [`metadata_isolated`]: what servers and the CLI
//!   use. The work runs in a worker subprocess (`toolgate pdf-worker`) that
//!   limits its own address space and CPU time; a crash, abort, timeout or
//!   memory overrun becomes [`PdfError::WorkerFailed`] and the caller carries on.
//! * [`extract_in_process`] / [`metadata_in_process`]: the same work in the
//!   calling process (fuzzing, embedding where a subprocess is impossible).
//!   Bounded by [`Limits`], but an abort inside lopdf would take the caller down.
//!
//! Module map (each file has one job):
//! * [`error`] — [`PdfError`] and its stable kinds.
//! * [`limits`] — the named caps and [`Limits`].
//! * [`source`] — reading the input under the size cap.
//! * [`stream`] — bounded stream decoding (per stream and per call).
//! * `message` — [`MAX_WARNING_CHARS`]: every message quoting the file made safe and bounded.
//! * `budget` — the per-call work budget (operations, CPU time) every interpreted stream draws from.
//! * [`load`] — lopdf loading, error mapping.
//! * [`encryption`] — the `/Encrypt` dictionary: handler, malformed dictionaries.
//! * [`pagetree`] — our bounded page-tree walk.
//! * [`salvage`] — what lopdf drops from damaged files: a lost `/Info`, unparsable pages.
//! * [`mod@metadata`] — [`Metadata`].
//! * `object` — lopdf object accessors (references, numbers, typed entries).
//! * [`mod@extract`] — [`Extraction`].
//! * [`text`] — content-stream interpreter: fonts, encodings, CMaps, text placement.
//! * [`textstring`] — PDF text strings (PDFDocEncoding, UTF-16BE).
//! * [`worker`] — the isolated worker process and its parent side.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

mod budget;
pub mod encryption;
pub mod error;
pub mod extract;
mod filewalk;
pub mod limits;
pub mod load;
mod message;
pub mod metadata;
mod nesting;
mod object;
pub mod pagetree;
pub mod perms;
pub mod salvage;
pub mod source;
pub mod stream;
pub mod text;
pub mod textstring;
pub mod worker;

pub use error::PdfError;
pub use extract::{Extraction, Page};
pub use limits::{Limit, Limits};
pub use load::Encryption;
pub(crate) use message::{quote_name, shorten, shorten_to};
pub use message::{MAX_NAME_CHARS, MAX_WARNING_CHARS};
pub use metadata::Metadata;
pub use source::Source;
pub use worker::{extract_isolated, metadata_isolated, Isolation, WorkerStats};

/// Something that could not be read, beside a (partial) result.
///
/// The same page warning (without a limit) on several pages is given
/// once per call: `page` is the first page it concerns, and its message
/// ends with a note naming the others, ` (and page 9)`, ` (and pages 4 to
/// 300)` when they follow one another, else ` (and 12 more pages from 4 to
/// 300)` (see [`MAX_WARNINGS`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Warning {
    /// The 1-based page it concerns (the first one, for a warning given
    /// for several pages); `None` for the whole document.
    pub page: Option<u32>,
    /// The limit that was reached, when that is the reason.
    pub limit: Option<Limit>,
    /// For humans.
    pub message: String,
}

/// Most warnings without a limit (a damaged font, a refused stream, …) one
/// call returns; past it one more warning says how many were left out.
/// Warnings naming a limit are always kept (one per limit and call). Of
/// them, at most [`MAX_MINOR_WARNINGS`] are minor, so that room is left for
/// warnings that text was lost on later pages. A page warning the same as
/// one kept for an earlier page takes no room: the kept one names its page
/// too (see [`Warning`]).
pub const MAX_WARNINGS: usize = 256;

/// Most minor page warnings (a font read with a stand-in: the text is still
/// there) one call returns (see [`MAX_WARNINGS`]).
pub const MAX_MINOR_WARNINGS: usize = 192;

/// Most distinct warnings one page gives; past it one more says how many
/// were left out. Of them, at most [`MAX_PAGE_MINOR_WARNINGS`] are minor
/// (a font read with a stand-in: the text is still there), so that room
/// is left for warnings that text was lost (a stream that could not be
/// decoded or parsed, content that is not PDF content, a limit).
pub const MAX_PAGE_WARNINGS: usize = 64;

/// Most minor warnings one page gives (see [`MAX_PAGE_WARNINGS`]).
pub const MAX_PAGE_MINOR_WARNINGS: usize = 48;

impl Warning {
    pub(crate) fn doc(message: impl Into<String>) -> Self {
        Self {
            page: None,
            limit: None,
            message: shorten(&message.into()),
        }
    }

    pub(crate) fn limit(limit: Limit, message: impl Into<String>) -> Self {
        Self {
            page: None,
            limit: Some(limit),
            message: shorten(&message.into()),
        }
    }
}

/// A call's warnings, at most [`MAX_WARNINGS`] without a limit, each
/// message at most [`MAX_WARNING_CHARS`] characters; page warnings the
/// same as one kept are merged into it.
#[derive(Debug, Default)]
pub(crate) struct Warnings {
    list: Vec<Warning>,
    /// The page warnings kept without a limit, by message (at most
    /// [`MAX_WARNINGS`]), and the later pages that gave the same.
    same: std::collections::HashMap<String, Same>,
    unlimited: usize,
    minor: usize,
    left_out: usize,
    /// The first and last page of the warnings left out.
    left_out_pages: Option<(u32, u32)>,
}

/// A kept page warning given again for later pages.
#[derive(Debug)]
struct Same {
    /// Where it is in the list.
    index: usize,
    /// Its page (the first).
    page: u32,
    /// The later pages that gave it: how many, the first and the last;
    /// and its message cut to leave room for the note naming them.
    more: Option<(u32, u32, u32, String)>,
}

/// Room kept in a merged warning's message for the note naming its other
/// pages (` (and 999999 more pages from 1000000 to 1000000)` is 48
/// characters).
const SAME_NOTE_CHARS: usize = 64;

impl Warnings {
    /// Adds `warning`, or counts it as left out when it has no limit and
    /// [`MAX_WARNINGS`] such warnings are already kept. A page warning the
    /// same as one kept for an earlier page is merged into that one.
    pub(crate) fn push(&mut self, warning: Warning) {
        if self.merged(&warning) {
            return;
        }
        if warning.limit.is_none() {
            if self.unlimited >= MAX_WARNINGS {
                self.leave_out(warning.page);
                return;
            }
            self.unlimited = self.unlimited.saturating_add(1);
        }
        let message = shorten(&warning.message);
        if let (Some(page), None) = (warning.page, warning.limit) {
            let index = self.list.len();
            self.same.insert(
                message.clone(),
                Same {
                    index,
                    page,
                    more: None,
                },
            );
        }
        self.list.push(Warning { message, ..warning });
    }

    /// Adds a minor `warning` (without a limit), or counts it as left out
    /// when [`MAX_MINOR_WARNINGS`] minor ones, or [`MAX_WARNINGS`] in all,
    /// are already kept; merged as [`Self::push`] merges.
    pub(crate) fn push_minor(&mut self, warning: Warning) {
        if self.merged(&warning) {
            return;
        }
        if self.minor >= MAX_MINOR_WARNINGS || self.unlimited >= MAX_WARNINGS {
            self.leave_out(warning.page);
            return;
        }
        self.minor = self.minor.saturating_add(1);
        self.push(warning);
    }

    /// True when `warning` is a page warning without a limit the same as
    /// one kept: its page is then counted in the kept one's.
    fn merged(&mut self, warning: &Warning) -> bool {
        let (Some(page), None) = (warning.page, warning.limit) else {
            return false;
        };
        let Some(same) = self.same.get_mut(&shorten(&warning.message)) else {
            return false;
        };
        match &mut same.more {
            _ if page <= same.page => {}
            Some((_, _, last, _)) if page <= *last => {}
            Some((count, _, last, _)) => {
                *count = count.saturating_add(1);
                *last = page;
            }
            more @ None => {
                let head = shorten_to(
                    &warning.message,
                    MAX_WARNING_CHARS.saturating_sub(SAME_NOTE_CHARS),
                );
                *more = Some((1, page, page, head));
            }
        }
        true
    }

    /// Counts a warning left out, and its page.
    fn leave_out(&mut self, page: Option<u32>) {
        self.left_out = self.left_out.saturating_add(1);
        if let Some(p) = page {
            let (first, last) = self.left_out_pages.unwrap_or((p, p));
            self.left_out_pages = Some((first.min(p), last.max(p)));
        }
    }

    /// The warnings kept (a merged one with its note naming its other
    /// pages), then one saying how many were left out, and of which pages
    /// (their text may be incomplete).
    pub(crate) fn finish(mut self) -> Vec<Warning> {
        for same in self.same.into_values() {
            let Some((count, first, last, head)) = same.more else {
                continue;
            };
            let note = if count == 1 {
                format!(" (and page {last})")
            } else if last.checked_sub(first).and_then(|d| d.checked_add(1)) == Some(count) {
                format!(" (and pages {first} to {last})")
            } else {
                format!(" (and {count} more pages from {first} to {last})")
            };
            if let Some(w) = self.list.get_mut(same.index) {
                w.message = head + &note;
            }
        }
        if self.left_out > 0 {
            let pages = match self.left_out_pages {
                Some((first, last)) if first == last => format!(", of page {first}"),
                Some((first, last)) => format!(", of pages {first} to {last}"),
                None => String::new(),
            };
            self.list.push(Warning::doc(format!(
                "{} more warnings were left out{pages} (at most {MAX_WARNINGS} per call, {MAX_MINOR_WARNINGS} of them about fonts and other minor faults)",
                self.left_out
            )));
        }
        self.list
    }
}

impl Extend<Warning> for Warnings {
    fn extend<I: IntoIterator<Item = Warning>>(&mut self, iter: I) {
        for w in iter {
            self.push(w);
        }
    }
}

/// A 1-based, inclusive page range: `N`, `N-M` or `N-` (to the end).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PageRange {
    /// First page, ≥ 1.
    pub first: u32,
    /// Last page, ≥ `first`; `None` for the last page of the document. A last
    /// page past the end is clamped to it.
    pub last: Option<u32>,
}

/// Largest page number a page range may name (PDF viewers' practical limit
/// is far lower; this only keeps arithmetic on input in range). The MCP
/// tools' `pages` argument and the CLI's `--pages` are both parsed by
/// [`PageRange`]'s `FromStr`.
pub const MAX_PAGE_NUMBER: u32 = 1_000_000;

/// Why a page range did not parse: the text and what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageRangeError {
    text: String,
    fault: PageRangeFault,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PageRangeFault {
    /// Not `N`, `N-M` or `N-` in ASCII digits.
    Form,
    /// A number 0 or past [`MAX_PAGE_NUMBER`].
    OutOfRange,
    /// `N-M` with `M < N`.
    Reversed,
}

impl fmt::Display for PageRangeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = &self.text;
        match self.fault {
            PageRangeFault::Form => write!(
                f,
                "invalid page range {text:?}: expected \"N\", \"N-M\" or \"N-\" in digits"
            ),
            PageRangeFault::OutOfRange => write!(
                f,
                "invalid page range {text:?}: page numbers are 1-based and at most {MAX_PAGE_NUMBER}"
            ),
            PageRangeFault::Reversed => write!(
                f,
                "invalid page range {text:?}: the first page must not exceed the last"
            ),
        }
    }
}

impl std::error::Error for PageRangeError {}

impl PageRange {
    /// Pages `first..=last`.
    ///
    /// # Errors
    /// When `first` is 0, a number is past [`MAX_PAGE_NUMBER`] or
    /// `last < first`.
    pub fn new(first: u32, last: Option<u32>) -> Result<Self, PageRangeError> {
        let fault = if first == 0 || first.max(last.unwrap_or(first)) > MAX_PAGE_NUMBER {
            Some(PageRangeFault::OutOfRange)
        } else if last.is_some_and(|l| l < first) {
            Some(PageRangeFault::Reversed)
        } else {
            None
        };
        match fault {
            Some(fault) => Err(PageRangeError {
                text: format!("{first}-{}", last.map_or(String::new(), |l| l.to_string())),
                fault,
            }),
            None => Ok(Self { first, last }),
        }
    }
}

impl FromStr for PageRange {
    type Err = PageRangeError;

    /// `N`, `N-M` (inclusive) or `N-` (to the last page), ASCII digits
    /// only: no sign, no space.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = |fault| PageRangeError {
            text: s.to_owned(),
            fault,
        };
        let num = |t: &str| {
            if t.is_empty() || !t.bytes().all(|b| b.is_ascii_digit()) {
                return Err(bad(PageRangeFault::Form));
            }
            // Past u32 is past the bound as well.
            t.parse::<u32>()
                .map_err(|_| bad(PageRangeFault::OutOfRange))
        };
        let (first, last) = match s.split_once('-') {
            None => {
                let n = num(s)?;
                (n, Some(n))
            }
            Some((a, "")) => (num(a)?, None),
            Some((a, b)) => (num(a)?, Some(num(b)?)),
        };
        PageRange::new(first, last).map_err(|e| bad(e.fault))
    }
}

impl fmt::Display for PageRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.last {
            Some(l) if l == self.first => write!(f, "{l}"),
            Some(l) => write!(f, "{}-{l}", self.first),
            None => write!(f, "{}-", self.first),
        }
    }
}

/// Per-call options: a password and the caps.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Options {
    /// User (or owner) password for encrypted files; the empty user password
    /// is always tried first.
    pub password: Option<String>,
    /// The caps of this call.
    pub limits: Limits,
}

/// Extracts the text of `pages` (all when `None`) in the calling process.
///
/// # Errors
/// `empty_input`, `not_pdf`, `truncated`, `malformed_xref`,
/// `malformed_structure`, `page_tree_cycle`, `reference_cycle`,
/// `nesting_too_deep`, `limit_exceeded`, `unsupported_encryption`,
/// `password_required`, `io`, `page_out_of_range`. Limits reached while
/// extracting text are warnings beside a truncated result.
pub fn extract_in_process(
    source: Source<'_>,
    pages: Option<PageRange>,
    options: &Options,
) -> Result<Extraction, PdfError> {
    let data =
        source::read_bounded(source, options.limits.max_input_bytes).map_err(PdfError::bounded)?;
    extract::extract_from_bytes(&data, pages, options.password.as_deref(), &options.limits)
}

/// Reads the metadata in the calling process.
///
/// # Errors
/// As [`extract_in_process`], without `page_out_of_range`.
pub fn metadata_in_process(source: Source<'_>, options: &Options) -> Result<Metadata, PdfError> {
    let data =
        source::read_bounded(source, options.limits.max_input_bytes).map_err(PdfError::bounded)?;
    metadata::metadata_from_bytes(&data, options.password.as_deref(), &options.limits)
}

/// [`extract_in_process`] with default options (no password, default limits).
///
/// # Errors
/// As [`extract_in_process`].
pub fn extract(source: Source<'_>, pages: Option<PageRange>) -> Result<Extraction, PdfError> {
    extract_in_process(source, pages, &Options::default())
}

/// [`metadata_in_process`] with default options.
///
/// # Errors
/// As [`metadata_in_process`].
pub fn metadata(source: Source<'_>) -> Result<Metadata, PdfError> {
    metadata_in_process(source, &Options::default())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_ranges() {
        assert_eq!(
            "3".parse(),
            Ok(PageRange {
                first: 3,
                last: Some(3)
            })
        );
        assert_eq!(
            "2-5".parse(),
            Ok(PageRange {
                first: 2,
                last: Some(5)
            })
        );
        assert_eq!(
            "2-".parse(),
            Ok(PageRange {
                first: 2,
                last: None
            })
        );
        for bad in [
            "0",
            "5-2",
            "",
            "-",
            "a",
            "1-b",
            "-3",
            " 1",
            "+1",
            "1 - 2",
            "1-2-3",
            "0-",
            "2-1000001",
        ] {
            assert!(bad.parse::<PageRange>().is_err(), "{bad}");
        }
        // The bound is inclusive, and a number past u32 is past it too.
        assert!("1000000".parse::<PageRange>().is_ok());
        assert!("1000000-".parse::<PageRange>().is_ok());
        for (bad, says) in [
            ("2-4294967296", "at most 1000000"),
            ("1000001", "at most 1000000"),
            ("0", "1-based"),
            ("5-2", "must not exceed"),
            ("1 - 2", "\"N-\""),
        ] {
            let e = bad.parse::<PageRange>().unwrap_err().to_string();
            assert!(e.contains(says), "{bad}: {e}");
        }
    }

    /// Minor warnings fill at most `MAX_MINOR_WARNINGS` of the call's
    /// room: warnings that text was lost, coming after them, are kept; the
    /// note counts every warning left out, minor or not.
    #[test]
    fn minor_warnings_leave_room_for_lost_text() {
        let mut w = Warnings::default();
        for i in 0..MAX_WARNINGS + 50 {
            w.push_minor(Warning::doc(format!("font {i}")));
        }
        for i in 0..MAX_WARNINGS - MAX_MINOR_WARNINGS + 5 {
            w.push(Warning::doc(format!("lost {i}")));
        }
        let list = w.finish();
        let count = |p: &str| list.iter().filter(|x| x.message.starts_with(p)).count();
        assert_eq!(count("font "), MAX_MINOR_WARNINGS);
        assert_eq!(count("lost "), MAX_WARNINGS - MAX_MINOR_WARNINGS);
        assert_eq!(list.len(), MAX_WARNINGS + 1);
        let left = MAX_WARNINGS + 50 - MAX_MINOR_WARNINGS + 5;
        // (no page: doc warnings)
        assert!(
            list[MAX_WARNINGS]
                .message
                .starts_with(&format!("{left} more warnings were left out")),
            "{:?}",
            list[MAX_WARNINGS]
        );
        // A full call takes no more minor ones either.
        let mut w = Warnings::default();
        for i in 0..MAX_WARNINGS {
            w.push(Warning::doc(format!("lost {i}")));
        }
        w.push_minor(Warning::doc("font"));
        assert_eq!(w.finish().len(), MAX_WARNINGS + 1);
    }

    /// The note names the pages whose warnings it counts.
    #[test]
    fn the_note_names_the_pages_left_out() {
        let mut w = Warnings::default();
        for p in 1..=(MAX_WARNINGS as u32 + 3) {
            w.push(Warning {
                page: Some(p),
                limit: None,
                message: format!("lost {p}"),
            });
        }
        w.push(Warning::doc("doc"));
        let last = w.finish().pop().unwrap().message;
        assert!(
            last.starts_with(&format!(
                "4 more warnings were left out, of pages {} to {} (",
                MAX_WARNINGS + 1,
                MAX_WARNINGS + 3
            )),
            "{last}"
        );
        let mut w = Warnings::default();
        for i in 0..=MAX_WARNINGS {
            w.push_minor(Warning {
                page: Some(7),
                limit: None,
                message: format!("font {i}"),
            });
        }
        let last = w.finish().pop().unwrap().message;
        assert!(last.contains("left out, of page 7 ("), "{last}");
    }

    /// Regression (attack pass on #22, F4): the same warning on 300 pages
    /// filled the call's cap and hid a later page's other warning. Page
    /// warnings the same as one kept are merged into it, whose note names
    /// their pages; a warning with a limit, a document warning and a
    /// message cut at the bound are never merged away or overlong.
    #[test]
    fn the_same_page_warning_is_given_once_with_its_pages() {
        let page = |p: u32, message: &str| Warning {
            page: Some(p),
            limit: None,
            message: message.into(),
        };
        let mut w = Warnings::default();
        for p in 1..=300 {
            w.push(page(p, "lost"));
            w.push(page(p, "lost"));
            w.push_minor(page(p, "font"));
        }
        w.push(page(301, "other"));
        w.push_minor(page(9, "font"));
        w.push(page(302, "font"));
        w.push(page(5, "seldom"));
        w.push(page(7, "seldom"));
        w.push(page(8, "twice"));
        w.push(page(20, "twice"));
        w.push(page(40, "twice"));
        w.push(Warning::doc("doc"));
        w.push(Warning::doc("doc"));
        w.push(Warning {
            page: Some(301),
            limit: Some(Limit::OutputChars),
            message: "lost".into(),
        });
        let long = "é".repeat(MAX_WARNING_CHARS + 3);
        w.push(page(1, &long));
        w.push(page(2, &long));
        let list = w.finish();
        let shown: Vec<(Option<u32>, &str)> =
            list.iter().map(|w| (w.page, w.message.as_str())).collect();
        let cut = shorten_to(&long, MAX_WARNING_CHARS - SAME_NOTE_CHARS) + " (and page 2)";
        assert_eq!(
            shown,
            [
                (Some(1), "lost (and pages 2 to 300)"),
                (Some(1), "font (and 300 more pages from 2 to 302)"),
                (Some(301), "other"),
                (Some(5), "seldom (and page 7)"),
                (Some(8), "twice (and 2 more pages from 20 to 40)"),
                (None, "doc"),
                (None, "doc"),
                (Some(301), "lost"),
                (Some(1), cut.as_str()),
            ]
        );
        assert!(list
            .iter()
            .all(|w| w.message.chars().count() <= MAX_WARNING_CHARS));
        // The cut note counts exactly what the merged message left out.
        let kept = cut.chars().filter(|c| *c == 'é').count();
        let note = format!(
            "… ({} more characters cut) (and page 2)",
            MAX_WARNING_CHARS + 3 - kept
        );
        assert!(cut.ends_with(&note), "{cut}");
    }

    /// At most `MAX_WARNINGS` warnings without a limit, then one note of how
    /// many were left out; warnings naming a limit always kept; every
    /// message cut at `MAX_WARNING_CHARS` characters with a note.
    #[test]
    fn warnings_are_bounded_in_number_and_length() {
        let mut w = Warnings::default();
        for i in 0..MAX_WARNINGS + 10 {
            w.push(Warning::doc(format!("w{i}")));
        }
        w.push(Warning::limit(Limit::OutputChars, "cut"));
        w.push(Warning {
            page: Some(1),
            limit: None,
            message: "é".repeat(MAX_WARNING_CHARS + 3),
        });
        let list = w.finish();
        assert_eq!(list.len(), MAX_WARNINGS + 2);
        assert_eq!(list.iter().filter(|x| x.limit.is_some()).count(), 1);
        assert_eq!(
            list[MAX_WARNINGS - 1].message,
            format!("w{}", MAX_WARNINGS - 1)
        );
        assert_eq!(
            list.last().unwrap().message,
            format!("11 more warnings were left out, of page 1 (at most {MAX_WARNINGS} per call, {MAX_MINOR_WARNINGS} of them about fonts and other minor faults)")
        );
        let long = shorten(&"é".repeat(MAX_WARNING_CHARS + 3));
        assert!((MAX_WARNING_CHARS - 2..=MAX_WARNING_CHARS).contains(&long.chars().count()));
        assert!(long.ends_with(" more characters cut)"), "{long}");
        let mut none = Warnings::default();
        none.push(Warning::doc("only"));
        assert_eq!(none.finish().len(), 1);
    }
}
