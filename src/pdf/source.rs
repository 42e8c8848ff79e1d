//! Where the PDF bytes come from, read with the input cap applied first.

use std::io::Read;
use std::path::Path;

use super::error::PdfError;
use super::limits::Limit;

/// The input of a call: a file, or bytes already in memory.
#[derive(Debug, Clone, Copy)]
pub enum Source<'a> {
    /// A file path. The caller is responsible for confining it.
    Path(&'a Path),
    /// The PDF bytes.
    Bytes(&'a [u8]),
}

/// Reads the input, refusing more than `max_bytes` bytes without reading them.
///
/// # Errors
/// `io` when the file cannot be read; `limit_exceeded` (`input_bytes`) when it
/// is larger than `max_bytes`; `empty_input` when it is empty.
pub fn read_bounded(
    source: Source<'_>,
    max_bytes: usize,
) -> Result<std::borrow::Cow<'_, [u8]>, PdfError> {
    let data: std::borrow::Cow<'_, [u8]> = match source {
        Source::Bytes(b) => {
            if b.len() > max_bytes {
                return Err(PdfError::limit(Limit::InputBytes, max_bytes));
            }
            std::borrow::Cow::Borrowed(b)
        }
        Source::Path(p) => {
            let io = |e: std::io::Error| PdfError::Io {
                detail: format!("{}: {e}", p.display()),
            };
            let file = std::fs::File::open(p).map_err(io)?;
            let len = file.metadata().map_err(io)?.len();
            if len > u64::try_from(max_bytes).unwrap_or(u64::MAX) {
                return Err(PdfError::limit(Limit::InputBytes, max_bytes));
            }
            let mut buf = Vec::with_capacity(usize::try_from(len).unwrap_or(0).min(max_bytes));
            // The file may grow between the size check and the read.
            file.take(
                u64::try_from(max_bytes)
                    .unwrap_or(u64::MAX)
                    .saturating_add(1),
            )
            .read_to_end(&mut buf)
            .map_err(io)?;
            if buf.len() > max_bytes {
                return Err(PdfError::limit(Limit::InputBytes, max_bytes));
            }
            std::borrow::Cow::Owned(buf)
        }
    };
    if data.is_empty() {
        return Err(PdfError::EmptyInput);
    }
    Ok(data)
}
