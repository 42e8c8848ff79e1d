//! `toolgate::pdf` — the lopdf-based extractor (feature `pdf`). See DESIGN.md.
//!
//! Module map (each file has one job):
//! * `stream` — bounded stream decoding (decompression caps).
//! * `text` — content-stream interpreter: fonts, encodings, CMaps, text placement.
//! * the rest (document loading, page tree walk, metadata, worker isolation) is
//!   being written.

pub mod stream;
pub mod text;
