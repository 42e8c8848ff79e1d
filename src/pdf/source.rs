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
            // Opened without blocking (a FIFO with no writer would block
            // the open itself), then refused unless it is a regular file:
            // a FIFO or a character device never ends.
            let file = {
                use std::os::unix::fs::OpenOptionsExt;
                std::fs::OpenOptions::new()
                    .read(true)
                    .custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32)
                    .open(p)
                    .map_err(io)?
            };
            let meta = file.metadata().map_err(io)?;
            if !meta.is_file() {
                return Err(PdfError::Io {
                    detail: format!("{}: not a regular file", p.display()),
                });
            }
            let len = meta.len();
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

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// A FIFO with no writer, a directory or a device is refused at once
    /// (the CLI hung on a FIFO: the open itself blocked; found by a
    /// newcomer); a regular file is read.
    #[test]
    fn only_regular_files_are_read() {
        let t = tempfile::tempdir().unwrap();
        let fifo = t.path().join("f.pdf");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if made.is_ok_and(|s| s.success()) {
            let e = read_bounded(Source::Path(&fifo), 1024).unwrap_err();
            assert!(e.to_string().contains("not a regular file"), "{e}");
        }
        for p in [t.path(), Path::new("/dev/zero")] {
            let e = read_bounded(Source::Path(p), 1024).unwrap_err();
            assert!(e.to_string().contains("not a regular file"), "{e}");
        }
        let f = t.path().join("a.pdf");
        std::fs::write(&f, b"%PDF-1.0").unwrap();
        assert_eq!(&*read_bounded(Source::Path(&f), 1024).unwrap(), b"%PDF-1.0");
        assert_eq!(
            read_bounded(Source::Path(&f), 7).unwrap_err().kind(),
            "limit_exceeded"
        );
    }
}
