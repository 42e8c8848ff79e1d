//! Bounded decoding of PDF stream data.
//!
//! INTERFACE CONTRACT (shared by the loader and the text interpreter):
//! `decode_stream(stream, max_out)` returns the stream's decoded bytes, or an
//! error when decoding fails or would produce more than `max_out` bytes.
//!
//! Each filter layer is decoded as a stream (lopdf 0.47 reads a decoder
//! through `Read::take(max + 1)`, a `Write` sink capped the same way for LZW),
//! so a flate bomb allocates at most `max_out + 1` bytes per layer before it is
//! refused; at most [`lopdf::Stream::MAX_FILTERS`] layers are decoded.
//!
//! On top of the per-stream cap, a per-call budget (see [`DecodeBudget`])
//! bounds the total decoded over a whole extraction, so a file with thousands
//! of small bombs is refused too.

use std::cell::Cell;

thread_local! {
    /// Bytes the current call may still decode; `None` outside a budget scope.
    static REMAINING: Cell<Option<usize>> = const { Cell::new(None) };
}

/// Why a stream could not be decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StreamError {
    /// Decoding would produce more than the allowed number of bytes.
    TooLarge {
        /// The cap that was hit, in bytes.
        limit: usize,
    },
    /// The call's total decoding budget is used up.
    BudgetExhausted {
        /// The total budget of the call, in bytes.
        limit: usize,
    },
    /// The filter chain is unsupported or the data is corrupt.
    Decode(String),
}

impl std::fmt::Display for StreamError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StreamError::TooLarge { limit } => write!(f, "stream decodes past {limit} bytes"),
            StreamError::BudgetExhausted { limit } => {
                write!(f, "total decoded bytes of this call past {limit}")
            }
            StreamError::Decode(m) => write!(f, "stream decode failed: {m}"),
        }
    }
}

impl std::error::Error for StreamError {}

/// Upper bound of deflate's expansion ratio (RFC 1951: a 258-byte match in
/// about two bits), used to charge the budget for a decode that failed.
pub const MAX_FLATE_RATIO: usize = 1032;

/// A per-call budget of decoded bytes, active on this thread while the guard
/// lives. Scopes do not nest: a new one replaces the old until dropped.
#[derive(Debug)]
pub struct DecodeBudget {
    total: usize,
    previous: Option<usize>,
    previous_total: Option<usize>,
}

thread_local! {
    static TOTAL: Cell<Option<usize>> = const { Cell::new(None) };
}

impl DecodeBudget {
    /// Starts a budget of `total` decoded bytes for this thread.
    pub fn start(total: usize) -> Self {
        let previous = REMAINING.with(|r| r.replace(Some(total)));
        let previous_total = TOTAL.with(|t| t.replace(Some(total)));
        Self {
            total,
            previous,
            previous_total,
        }
    }

    /// Bytes still available.
    pub fn remaining(&self) -> usize {
        REMAINING.with(|r| r.get()).unwrap_or(self.total)
    }
}

impl Drop for DecodeBudget {
    fn drop(&mut self) {
        REMAINING.with(|r| r.set(self.previous));
        TOTAL.with(|t| t.set(self.previous_total));
    }
}

/// Decodes `stream`'s data through its `/Filter` chain, producing at most
/// `max_out` bytes (and at most what is left of the thread's
/// [`DecodeBudget`], when one is active).
///
/// # Errors
/// [`StreamError::TooLarge`] past `max_out`; [`StreamError::BudgetExhausted`]
/// past the call's budget; [`StreamError::Decode`] on a corrupt or
/// unsupported filter chain.
pub fn decode_stream(stream: &lopdf::Stream, max_out: usize) -> Result<Vec<u8>, StreamError> {
    let remaining = REMAINING.with(|r| r.get());
    let total = TOTAL.with(|t| t.get()).unwrap_or(usize::MAX);
    let cap = match remaining {
        Some(left) => max_out.min(left),
        None => max_out,
    };
    let over = |cap: usize| {
        if remaining.is_some_and(|left| cap == left && left < max_out) {
            StreamError::BudgetExhausted { limit: total }
        } else {
            StreamError::TooLarge { limit: max_out }
        }
    };
    // A decode that fails still did up to `cap` bytes of work: charge that to
    // the call's budget, so that many references to one oversized or corrupt
    // stream cannot multiply the work past the total.
    let charge = |work: usize| {
        if let Some(left) = remaining {
            REMAINING.with(|r| r.set(Some(left.saturating_sub(work))));
        }
    };
    // Deflate expands at most about 1032:1, so a chain that failed part way
    // produced no more than that (and never more than `cap`).
    let failed_work = cap.min(stream.content.len().saturating_mul(MAX_FLATE_RATIO));
    if let Some(fault) = flate_header_fault(stream) {
        // lopdf would log it and try the bytes as raw deflate, giving an
        // empty or garbage result without an error.
        charge(failed_work.min(stream.content.len()));
        return Err(StreamError::Decode(fault));
    }
    let data = match stream.decompressed_content_with_limit(cap) {
        Ok(d) => d,
        Err(lopdf::Error::Decompress(lopdf::DecompressError::MemoryLimitExceeded { .. })) => {
            charge(cap);
            return Err(over(cap));
        }
        Err(e) => {
            charge(failed_work);
            return Err(StreamError::Decode(e.to_string()));
        }
    };
    if data.len() > cap {
        charge(cap);
        return Err(over(cap));
    }
    if let Some(left) = remaining {
        REMAINING.with(|r| r.set(Some(left.saturating_sub(data.len()))));
    }
    Ok(data)
}

/// Why the first `/FlateDecode` layer of `stream` cannot be zlib data
/// (RFC 1950 §2.2), as poppler checks before it inflates: a compression
/// method other than 8 (deflate), a header check (`FCHECK`) that fails, or
/// a preset dictionary (`FDICT`), which PDF never uses. It is the look of
/// data decrypted with the wrong key or crypt filter, or not decrypted at
/// all. `None` when the stream does not start with that filter, or its data
/// is shorter than a header (lopdf reads that as empty, as poppler does).
fn flate_header_fault(stream: &lopdf::Stream) -> Option<String> {
    let first = stream.filters().ok()?.into_iter().next()?;
    if first != b"FlateDecode" {
        return None;
    }
    let (&cmf, &flg) = (stream.content.first()?, stream.content.get(1)?);
    let fault = if cmf & 0x0f != 8 {
        format!("unknown compression method {} in flate stream", cmf & 0x0f)
    } else if (u16::from(cmf) << 8 | u16::from(flg)) % 31 != 0 {
        "bad FCHECK in flate stream".to_owned()
    } else if flg & 0x20 != 0 {
        "FDICT bit set in flate stream".to_owned()
    } else {
        return None;
    };
    Some(format!(
        "{fault}: the data is not zlib (encrypted with a key or crypt filter that could not be used, or corrupt)"
    ))
}

/// Why the first `/FlateDecode` layer of `stream`, whose zlib header is
/// sound (`flate_header_fault`), is not a whole deflate stream: data that
/// cannot be inflated (corrupt, or decrypted with the wrong key), or data
/// that ends before the last block (cut off). lopdf keeps what inflated
/// before the fault and says nothing; poppler says "Unexpected end of file
/// in flate stream". The checksum is not checked (poppler does not).
/// `None` when the layer is whole, is not first, or inflates past
/// `max_out` bytes (the decode's own cap speaks for that). Bounded: the
/// output goes through one fixed buffer, at most `max_out` bytes of it,
/// and every round consumes input or produces output.
pub fn flate_fault(stream: &lopdf::Stream, max_out: usize) -> Option<String> {
    use flate2::{Decompress, FlushDecompress, Status};
    let first = stream.filters().ok()?.into_iter().next()?;
    if first != b"FlateDecode" {
        return None;
    }
    // Past the two header bytes: raw deflate, as poppler reads it.
    let body = stream.content.get(2..)?;
    if body.is_empty() {
        return None;
    }
    let mut inflate = Decompress::new(false);
    let mut buf = vec![0u8; 32 << 10];
    let max_out = u64::try_from(max_out).unwrap_or(u64::MAX);
    loop {
        let (before_in, before_out) = (inflate.total_in(), inflate.total_out());
        let at = usize::try_from(before_in).unwrap_or(usize::MAX);
        let rest = body.get(at..).unwrap_or_default();
        match inflate.decompress(rest, &mut buf, FlushDecompress::None) {
            Ok(Status::StreamEnd) => return None,
            Ok(_) if inflate.total_out() > max_out => return None,
            Ok(_) if (inflate.total_in(), inflate.total_out()) == (before_in, before_out) => {
                return Some(format!(
                    "the flate stream ends early, after {} decoded bytes: the data is cut off",
                    inflate.total_out()
                ));
            }
            Ok(_) => {}
            Err(e) => {
                return Some(format!(
                    "the flate stream is corrupt after {} decoded bytes ({e}): encrypted with a key that could not be used, or damaged",
                    inflate.total_out()
                ));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lopdf::{dictionary, Stream};
    use std::io::Write;

    fn flate(data: &[u8]) -> Stream {
        let mut e = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
        e.write_all(data).unwrap();
        Stream::new(dictionary! {"Filter" => "FlateDecode"}, e.finish().unwrap())
    }

    #[test]
    fn bomb_is_refused_at_the_cap() {
        let s = flate(&vec![0u8; 4 << 20]);
        assert_eq!(
            decode_stream(&s, 1 << 20),
            Err(StreamError::TooLarge { limit: 1 << 20 })
        );
        assert_eq!(decode_stream(&s, 4 << 20).unwrap().len(), 4 << 20);
    }

    /// Regression (found by a fresh user): one oversized stream referenced by
    /// many pages was refused at the per-stream cap each time but never
    /// charged, so the call's total budget did not bound the work.
    #[test]
    fn refused_decodes_are_charged_to_the_budget() {
        let s = flate(&vec![0u8; 4000]);
        let b = DecodeBudget::start(2500);
        assert_eq!(
            decode_stream(&s, 1000),
            Err(StreamError::TooLarge { limit: 1000 })
        );
        assert_eq!(b.remaining(), 1500);
        assert!(decode_stream(&s, 1000).is_err());
        assert_eq!(b.remaining(), 500);
        assert!(decode_stream(&s, 1000).is_err());
        assert_eq!(b.remaining(), 0);
        assert_eq!(
            decode_stream(&s, 1000),
            Err(StreamError::BudgetExhausted { limit: 2500 })
        );
    }

    #[test]
    fn budget_bounds_the_total() {
        let s = flate(&vec![b'a'; 1000]);
        let _b = DecodeBudget::start(2500);
        assert!(decode_stream(&s, 10_000).is_ok());
        assert!(decode_stream(&s, 10_000).is_ok());
        assert_eq!(
            decode_stream(&s, 10_000),
            Err(StreamError::BudgetExhausted { limit: 2500 })
        );
    }

    /// Data that is not zlib (ciphertext of a key or crypt filter that could
    /// not be used, say) is an error naming the header fault, as poppler's,
    /// where lopdf returns an empty or garbage result; a stream that merely
    /// begins with another filter, or is shorter than a header, is lopdf's.
    #[test]
    fn flate_data_without_a_zlib_header_is_an_error() {
        let with =
            |content: &[u8]| Stream::new(dictionary! {"Filter" => "FlateDecode"}, content.to_vec());
        let good = flate(b"BT (x) Tj ET");
        assert_eq!(decode_stream(&good, 100).unwrap(), b"BT (x) Tj ET");
        let mut header = good.content.clone();
        for (cmf, flg, fault) in [
            (0x79, 0x9c, "unknown compression method 9"),
            (0x77, 0x9c, "unknown compression method 7"),
            (0x78, 0x9d, "bad FCHECK"),
            (0x78, 0xbb, "FDICT bit set"),
        ] {
            header[0] = cmf;
            header[1] = flg;
            match decode_stream(&with(&header), 100) {
                Err(StreamError::Decode(m)) => assert!(m.starts_with(fault), "{m}"),
                other => panic!("{cmf:#x} {flg:#x}: {other:?}"),
            }
        }
        // Every method-8 header with a right FCHECK and no FDICT passes.
        for cinfo in 0..8u8 {
            let cmf = cinfo << 4 | 8;
            let flg = (0..=0x1fu8)
                .find(|f| (u16::from(cmf) << 8 | u16::from(*f)) % 31 == 0)
                .unwrap();
            assert_eq!(
                flate_header_fault(&with(&[cmf, flg, 3, 0])),
                None,
                "{cmf:#x} {flg:#x}"
            );
        }
        assert_eq!(decode_stream(&with(b""), 100).unwrap(), b"");
        assert_eq!(flate_header_fault(&with(b"\xff")), None);
        let later = Stream::new(
            dictionary! {"Filter" => vec![lopdf::Object::Name(b"ASCIIHexDecode".to_vec()), lopdf::Object::Name(b"FlateDecode".to_vec())]},
            b"ff00>".to_vec(),
        );
        assert_eq!(flate_header_fault(&later), None);
        let budget = DecodeBudget::start(1000);
        let bad = with(&[0x79, 0x9c, 1, 2, 3, 4]);
        assert!(decode_stream(&bad, 100).is_err());
        assert_eq!(budget.remaining(), 994, "the refused bytes are charged");
    }

    /// A zlib header followed by data that does not inflate, or a flate
    /// stream cut off, is named; a whole stream, one past the cap, or one
    /// whose first filter is another, is not.
    #[test]
    fn flate_data_that_does_not_inflate_whole_is_named() {
        let whole = flate(&b"BT (Hello) Tj ET ".repeat(200));
        assert_eq!(flate_fault(&whole, 1 << 20), None);
        assert_eq!(flate_fault(&whole, 10), None, "past the cap");
        let mut cut = whole.clone();
        cut.content.truncate(whole.content.len() / 2);
        let f = flate_fault(&cut, 1 << 20).unwrap();
        assert!(f.contains("ends early"), "{f}");
        let mut garbage = whole.clone();
        garbage.content.truncate(2);
        garbage
            .content
            .extend((0..400u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8));
        let f = flate_fault(&garbage, 1 << 20).unwrap();
        assert!(f.contains("corrupt") || f.contains("ends early"), "{f}");
        // A bad checksum alone is not a fault (poppler reads past it).
        let mut sum = whole.clone();
        let n = sum.content.len();
        sum.content[n - 1] ^= 0xff;
        assert_eq!(flate_fault(&sum, 1 << 20), None);
        let raw = Stream::new(lopdf::Dictionary::new(), b"BT ET".to_vec());
        assert_eq!(flate_fault(&raw, 100), None);
    }

    #[test]
    fn unfiltered_stream_is_capped_too() {
        let s = Stream::new(lopdf::Dictionary::new(), vec![1; 100]);
        assert_eq!(
            decode_stream(&s, 99),
            Err(StreamError::TooLarge { limit: 99 })
        );
        assert_eq!(decode_stream(&s, 100).unwrap().len(), 100);
    }
}
