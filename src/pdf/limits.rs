//! Named resource caps. Every loop and allocation driven by the input is
//! bounded by one of these; [`Limits`] lets a server tighten or loosen them.

use serde::{Deserialize, Serialize};
use std::fmt;

/// Largest input accepted, in bytes; checked before any parsing (64 MiB).
pub const MAX_INPUT_BYTES: usize = 64 << 20;
/// The `%PDF-` header must start within this many leading bytes (as in
/// Acrobat's implementation note: junk before the header is tolerated).
pub const HEADER_SEARCH_BYTES: usize = 1024;
/// Most bytes any one stream may decode to (object, xref, content, CMap,
/// XMP streams), per filter layer: 16 MiB. lopdf's own default is 256 MiB.
pub const MAX_STREAM_BYTES: usize = 16 << 20;
/// Most bytes decoded by [`super::stream::decode_stream`] over one call
/// (all pages, fonts, CMaps together): 64 MiB. A file of 40 flate bombs
/// that spends it all takes 0.3 s in a release build on the shared 2-core
/// machine (256 MiB took 2.4 s: over the 2 s); the real corpus
/// decodes far less per call.
pub const MAX_TOTAL_DECODED_BYTES: usize = 64 << 20;
/// Deepest page-tree nesting followed (levels of `/Kids`).
pub const MAX_PAGE_TREE_DEPTH: usize = 64;
/// Most page-tree nodes (intermediate and leaf) visited by the walk.
pub const MAX_PAGE_TREE_NODES: usize = 250_000;
/// Most pages (leaves) a document may have.
pub const MAX_PAGES: usize = 100_000;
/// Most pages whose text is extracted in one call.
pub const MAX_PAGES_PER_CALL: usize = 2_000;
/// Most characters of text returned by one call (all pages).
pub const MAX_OUTPUT_CHARS: usize = 8 << 20;
/// Most operands of one content-stream operation, every element of an
/// array or dictionary among them counted (`[(a) -120 (b)] TJ` is four):
/// lopdf's parser holds them all until the operator comes, some 100 bytes
/// each, so this bounds that memory to a few MiB. Real operations have a
/// handful (a long `TJ` array, a few thousand); poppler reads at most 33.
/// An operation past it is skipped (its text is lost), with a page warning.
pub const MAX_OPERANDS: usize = 65_536;
/// Most content-stream operators interpreted per page (all its streams).
pub const MAX_OPERATIONS_PER_PAGE: usize = 1_000_000;
/// Most glyphs placed on one page: each costs about 200 bytes until the page
/// is laid out, so this bounds the page's layout memory (about 50 MiB) and
/// time.
pub const MAX_GLYPHS_PER_PAGE: usize = 1 << 18;
/// Most units of interpretation work per call: one per content-stream
/// operator of every stream interpreted (page contents, Form XObjects at any
/// depth, annotation appearances), one per character code shown, and one per
/// font table entry built (CMap entries, widths). Shared by all pages of the
/// call (see `pdf::budget`); never exceeded. About 0.5 s of CPU in a
/// release build.
pub const MAX_OPERATIONS_PER_CALL: usize = 2_000_000;
/// Most CPU time, in milliseconds of the calling thread, spent interpreting
/// the pages of one call: 1 s. Read every `budget::OP_BATCH` units
/// of work, so exceeded by at most one batch. In a release build the
/// operations budget runs out first on every generated hostile file; this
/// bound catches work the operation count does not model. It is below the
/// worker's wall-clock timeout ([`super::worker::DEFAULT_TIMEOUT`]), so a
/// slow call returns truncated text instead of being killed.
pub const MAX_CALL_CPU_MS: u64 = 1_000;
/// Deepest nesting of Form XObjects followed.
pub const MAX_FORM_DEPTH: usize = 12;
/// Longest chain of indirect references followed to reach an object.
pub const MAX_REFERENCE_CHAIN: usize = 32;
/// Most Info dictionary entries reported.
pub const MAX_INFO_ENTRIES: usize = 256;
/// Most characters of one Info dictionary value reported.
pub const MAX_INFO_VALUE_CHARS: usize = 65_536;
/// Most bytes of XMP packet reported.
pub const MAX_XMP_BYTES: usize = 4 << 20;

/// Which limit an error or warning refers to (stable snake_case names).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Limit {
    /// [`MAX_INPUT_BYTES`].
    InputBytes,
    /// [`MAX_STREAM_BYTES`].
    StreamBytes,
    /// [`MAX_TOTAL_DECODED_BYTES`].
    TotalDecodedBytes,
    /// lopdf's cap on the number of filters of one stream.
    StreamFilters,
    /// [`MAX_PAGE_TREE_DEPTH`].
    PageTreeDepth,
    /// [`MAX_PAGE_TREE_NODES`].
    PageTreeNodes,
    /// [`MAX_PAGES`].
    Pages,
    /// [`MAX_PAGES_PER_CALL`].
    PagesPerCall,
    /// [`MAX_OUTPUT_CHARS`].
    OutputChars,
    /// [`MAX_OPERATIONS_PER_CALL`].
    OperationsPerCall,
    /// [`MAX_CALL_CPU_MS`].
    CallCpuTime,
    /// [`MAX_GLYPHS_PER_PAGE`].
    GlyphsPerPage,
    /// lopdf's cap on object nesting while parsing.
    ObjectNesting,
    /// [`MAX_REFERENCE_CHAIN`].
    ReferenceChain,
    /// [`MAX_INFO_ENTRIES`].
    InfoEntries,
    /// The worker's wall-clock timeout.
    WorkerTime,
    /// The worker's address-space limit.
    WorkerMemory,
}

impl Limit {
    /// The stable snake_case name.
    pub fn name(self) -> &'static str {
        match self {
            Limit::InputBytes => "input_bytes",
            Limit::StreamBytes => "stream_bytes",
            Limit::TotalDecodedBytes => "total_decoded_bytes",
            Limit::StreamFilters => "stream_filters",
            Limit::PageTreeDepth => "page_tree_depth",
            Limit::PageTreeNodes => "page_tree_nodes",
            Limit::Pages => "pages",
            Limit::PagesPerCall => "pages_per_call",
            Limit::OutputChars => "output_chars",
            Limit::OperationsPerCall => "operations_per_call",
            Limit::CallCpuTime => "call_cpu_time",
            Limit::GlyphsPerPage => "glyphs_per_page",
            Limit::ObjectNesting => "object_nesting",
            Limit::ReferenceChain => "reference_chain",
            Limit::InfoEntries => "info_entries",
            Limit::WorkerTime => "worker_time",
            Limit::WorkerMemory => "worker_memory",
        }
    }

    /// The unit the limit's value is in.
    pub fn unit(self) -> &'static str {
        match self {
            Limit::InputBytes
            | Limit::StreamBytes
            | Limit::TotalDecodedBytes
            | Limit::WorkerMemory => "bytes",
            Limit::StreamFilters => "filters",
            Limit::PageTreeDepth | Limit::ObjectNesting => "levels",
            Limit::PageTreeNodes => "nodes",
            Limit::Pages | Limit::PagesPerCall => "pages",
            Limit::OutputChars => "characters",
            Limit::GlyphsPerPage => "glyphs",
            Limit::OperationsPerCall => "operations",
            Limit::ReferenceChain => "references",
            Limit::InfoEntries => "entries",
            Limit::WorkerTime | Limit::CallCpuTime => "milliseconds",
        }
    }
}

impl fmt::Display for Limit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The caps applied to one call. `Default` uses the constants above.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Limits {
    /// [`MAX_INPUT_BYTES`].
    pub max_input_bytes: usize,
    /// [`MAX_STREAM_BYTES`].
    pub max_stream_bytes: usize,
    /// [`MAX_TOTAL_DECODED_BYTES`].
    pub max_total_decoded_bytes: usize,
    /// [`MAX_PAGE_TREE_DEPTH`].
    pub max_page_tree_depth: usize,
    /// [`MAX_PAGE_TREE_NODES`].
    pub max_page_tree_nodes: usize,
    /// [`MAX_PAGES`].
    pub max_pages: usize,
    /// [`MAX_PAGES_PER_CALL`].
    pub max_pages_per_call: usize,
    /// [`MAX_OUTPUT_CHARS`].
    pub max_output_chars: usize,
    /// [`MAX_OPERATIONS_PER_PAGE`].
    pub max_operations_per_page: usize,
    /// [`MAX_FORM_DEPTH`].
    pub max_form_depth: usize,
    /// [`MAX_OPERATIONS_PER_CALL`].
    pub max_operations_per_call: usize,
    /// [`MAX_CALL_CPU_MS`].
    pub max_call_cpu_ms: u64,
    /// [`MAX_GLYPHS_PER_PAGE`].
    pub max_glyphs_per_page: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_input_bytes: MAX_INPUT_BYTES,
            max_stream_bytes: MAX_STREAM_BYTES,
            max_total_decoded_bytes: MAX_TOTAL_DECODED_BYTES,
            max_page_tree_depth: MAX_PAGE_TREE_DEPTH,
            max_page_tree_nodes: MAX_PAGE_TREE_NODES,
            max_pages: MAX_PAGES,
            max_pages_per_call: MAX_PAGES_PER_CALL,
            max_output_chars: MAX_OUTPUT_CHARS,
            max_operations_per_page: MAX_OPERATIONS_PER_PAGE,
            max_form_depth: MAX_FORM_DEPTH,
            max_operations_per_call: MAX_OPERATIONS_PER_CALL,
            max_call_cpu_ms: MAX_CALL_CPU_MS,
            max_glyphs_per_page: MAX_GLYPHS_PER_PAGE,
        }
    }
}
