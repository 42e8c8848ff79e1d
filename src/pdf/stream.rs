//! Bounded decoding of PDF stream data.
//!
//! INTERFACE CONTRACT (shared by the loader and the text interpreter):
//! `decode_stream(stream, max_out)` returns the stream's decoded bytes, or an
//! error when decoding fails or would produce more than `max_out` bytes.
//! The current body is a placeholder; it will be replaced by a streaming,
//! bounded decoder (no allocation past `max_out`).

/// Why a stream could not be decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StreamError {
    /// Decoding would produce more than the allowed number of bytes.
    TooLarge {
        /// The cap that was hit, in bytes.
        limit: usize,
    },
    /// The filter chain is unsupported or the data is corrupt.
    Decode(String),
}

impl std::fmt::Display for StreamError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StreamError::TooLarge { limit } => write!(f, "stream decodes past {limit} bytes"),
            StreamError::Decode(m) => write!(f, "stream decode failed: {m}"),
        }
    }
}

impl std::error::Error for StreamError {}

/// Decodes `stream`'s data through its `/Filter` chain, producing at most
/// `max_out` bytes.
///
/// # Errors
/// [`StreamError::TooLarge`] past `max_out`; [`StreamError::Decode`] on a
/// corrupt or unsupported filter chain.
pub fn decode_stream(stream: &lopdf::Stream, max_out: usize) -> Result<Vec<u8>, StreamError> {
    let data = if stream.dict.get(b"Filter").is_ok() {
        stream
            .decompressed_content()
            .map_err(|e| StreamError::Decode(e.to_string()))?
    } else {
        stream.content.clone()
    };
    if data.len() > max_out {
        return Err(StreamError::TooLarge { limit: max_out });
    }
    Ok(data)
}
