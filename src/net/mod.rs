//! `toolgate::net` — the SSRF classifier: URL / IP text in, a
//! [`Destination`] or a [`Denial`] with a stable code out.
//!
//! * [`classify_ip`]: which IANA special-purpose block (RFC 6890, RFC 8190
//!   registries) an address is in, looking through every IPv6 form that
//!   embeds an IPv4 address ([`Reach`]).
//! * [`classify_url`]: WHATWG parsing (the `url` crate) plus a conservative
//!   policy: only `http(s)://`, no userinfo, no ambiguous text, no
//!   non-canonical IPv4, no special-purpose IP literal, no `localhost` or
//!   cloud metadata names, no single-label or private-suffix names; other
//!   names need DNS.
//! * [`vet_resolved`]: every address of a DNS answer must be global.
//! * [`Entry`] and [`NetPolicy`]: an operator's allow and deny lists
//!   (`CIDR` or `host[:port]`) on top of the classifier.
//! * [`Denial`] carries its [`DenialCode`] (`code()` is the stable string)
//!   and `reason()` (a human sentence, formatted on demand).
//!
//! The tables ([`IPV4_BLOCKS`], [`IPV6_BLOCKS`], [`METADATA_ENDPOINTS`],
//! [`LOCALHOST_NAMES`], [`METADATA_NAMES`], [`SPECIAL_USE_SUFFIXES`],
//! [`PRIVATE_SUFFIXES`]) are
//! public so they can be audited.
//!
//! # Code families and where they live
//!
//! A stable code is a dotted lower-case string, `family.name`, that never
//! changes meaning once released. Each family is one `codes!` table in the
//! layer that raises it, so adding a code is one row in one file:
//!
//! | family | layer | table |
//! |---|---|---|
//! | `ssrf.*`, `url.*`, `dns.*`, `path.*` | `net` | [`DenialCode`] (`src/net/code.rs`) |
//! | `http.*`, `fetch.*` | `net::fetch` (feature `fetch`) | its own `codes!` table in `src/net/fetch/` |
//! | `policy.*`, `tool.*` | `gate` (feature `gate`) | its own `codes!` table in `src/gate/` |
//!
//! A refusal that is about a destination or a path (also when raised by the
//! gateway or the fetcher, e.g. a redirect to loopback) is a [`Denial`] with a
//! [`DenialCode`]; a family of its own is for what only that layer decides.
//! Every family renders on the wire the same way: the string in
//! `error.data.code` of a -32001 response ([`crate::rpc::refusal_error`]).
//! The JSON-RPC error kinds (`RpcError::code()`, e.g. `duplicate_key`) and
//! the PDF error kinds are plain `snake_case` names without a family.
//! A new family is a new `codes!` table plus a row here and in
//! `docs/codes.md`; never reuse another family's prefix.

mod code;
mod dest;
mod entry;
mod ip;
mod names;
mod registry;

#[cfg(feature = "fetch")]
pub mod fetch;

// For the `gate` and `net::fetch` code tables (see "Code families" above).
#[allow(unused_imports)]
pub(crate) use code::codes;
pub use code::{Denial, DenialCode, StableCode};
pub use dest::{
    classify_host, classify_url, refuse_ambiguous_text, vet_resolved, Destination, Target,
    MAX_URL_BYTES,
};
pub use entry::{
    Admitted, Entry, EntryError, EntryErrorKind, EntryHost, List, NetPolicy, PolicyError,
    MAX_ENTRIES, MAX_ENTRY_BYTES,
};
pub use ip::{classify_ip, classify_ipv4, classify_ipv6, embedded_ipv4, Embedding, Reach};
pub use names::{
    refused_name, LOCALHOST_NAMES, METADATA_NAMES, PRIVATE_SUFFIXES, SPECIAL_USE_SUFFIXES,
};
pub use registry::{Block, MetadataEndpoint, IPV4_BLOCKS, IPV6_BLOCKS, METADATA_ENDPOINTS};
