//! Each function runs one public API on arbitrary bytes and panics if an
//! invariant is violated. Panicking is the point here, so the lints that
//! keep library code total are lifted for this module only.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

pub mod json;
pub mod net;
pub mod net_reference;
pub mod net_structured;
pub mod numbers;
pub mod rpc;
pub mod rpc_structured;

#[cfg(feature = "pdf")]
pub mod pdf;
#[cfg(feature = "pdf")]
pub mod pdf_structured;

#[cfg(feature = "mcp")]
pub mod mcp;

#[cfg(feature = "fetch")]
pub mod fetch;

#[cfg(feature = "gate")]
pub mod gate;
#[cfg(feature = "gate")]
pub mod gate_arguments;
#[cfg(feature = "gate")]
pub mod gate_codecs;
#[cfg(feature = "http")]
pub mod http;

/// The one list of fuzz targets: `name => module::function`, each function a
/// harness in this module taking `&[u8]`. Everything else is generated from it
/// or checked against it: [`TARGETS`], [`run`], the per-target tests (a
/// `bolero::check!()` plus the corpus replay, in `tests/corpus_replay.rs`),
/// and, by the `targets_agree` test there, `fuzz/fuzz_targets/NAME.rs`, the
/// `[[bin]]` entries of `fuzz/Cargo.toml` and the `corpus/NAME/` directories.
///
/// Adding a target is one line here (with `#[cfg(feature = "...")]` when its
/// module needs a feature); then
/// `TOOLGATE_BLESS=1 cargo test --all-features --test corpus_replay targets_agree`
/// writes the cargo-fuzz target file and its `[[bin]]` entry (see
/// `docs/fuzzing.md`).
///
/// The macro calls `$callback! { ... }` with the list, so a test crate can
/// generate one item per target.
#[macro_export]
#[doc(hidden)]
macro_rules! for_each_fuzz_target {
    ($callback:ident) => {
        $callback! {
            parse_tool_call => rpc::parse_tool_call,
            parse_tool_call_structured => rpc_structured::parse_tool_call_structured,
            depth_of => json::depth_of,
            duplicate_keys => json::duplicate_keys,
            classify_url => net::classify_url,
            classify_ip => net::classify_ip,
            classify_url_differential => net::classify_url_differential,
            classify_url_structured => net_structured::classify_url_structured,
            #[cfg(feature = "pdf")]
            pdf_extract => pdf::pdf_extract,
            #[cfg(feature = "pdf")]
            pdf_structured => pdf_structured::pdf_structured,
            #[cfg(feature = "mcp")]
            mcp_session => mcp::mcp_session,
            #[cfg(feature = "fetch")]
            fetch_redirects => fetch::fetch_redirects,
            #[cfg(feature = "gate")]
            gate_session => gate::gate_session,
            #[cfg(feature = "gate")]
            gate_arguments => gate_arguments::gate_arguments,
            #[cfg(feature = "gate")]
            gate_codecs => gate_codecs::gate_codecs,
            #[cfg(feature = "http")]
            http_head => http::http_head,
        }
    };
}

macro_rules! define_targets {
    ($( $(#[$attr:meta])* $name:ident => $module:ident :: $func:ident ),* $(,)?) => {
        /// Every fuzz target compiled in (with the crate's features), in list order.
        pub const TARGETS: &[&str] = &[$( $(#[$attr])* stringify!($name) ),*];

        /// Every fuzz target of the list, whatever the features, each with
        /// the path of its harness function (`rpc::parse_tool_call`).
        pub const ALL_TARGETS: &[(&str, &str)] = &[$(
            (stringify!($name), concat!(stringify!($module), "::", stringify!($func)))
        ),*];

        /// Runs the harness of fuzz target `target` on `data`.
        /// Returns `false` when `target` is unknown (or not compiled in).
        pub fn run(target: &str, data: &[u8]) -> bool {
            match target {
                $( $(#[$attr])* stringify!($name) => $module::$func(data), )*
                _ => return false,
            }
            true
        }
    };
}

crate::for_each_fuzz_target!(define_targets);
