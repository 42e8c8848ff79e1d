//! `toolgate::net` — the SSRF classifier: URL / IP text in, a
//! [`Destination`] or a [`Denial`] with a stable code out.
//!
//! * [`classify_ip`]: which IANA special-purpose block (RFC 6890, RFC 8190
//!   registries) an address is in, looking through every IPv6 form that
//!   embeds an IPv4 address ([`Reach`]).
//! * [`classify_url`]: WHATWG parsing (the `url` crate) plus a conservative
//!   policy: only `http(s)://`, no userinfo, no ambiguous text, no
//!   non-canonical IPv4, no special-purpose IP literal, no `localhost` or
//!   cloud metadata names; other names need DNS.
//! * [`vet_resolved`]: every address of a DNS answer must be global.
//! * [`Entry`] and [`NetPolicy`]: an operator's allow and deny lists
//!   (`CIDR` or `host[:port]`) on top of the classifier.
//! * [`Denial`] carries `code()` (stable, see [`DenialCode`] and the README table)
//!   and `reason()` (a human sentence).
//!
//! The tables ([`IPV4_BLOCKS`], [`IPV6_BLOCKS`], [`METADATA_ENDPOINTS`],
//! [`LOCALHOST_NAMES`], [`METADATA_NAMES`], [`SPECIAL_USE_SUFFIXES`]) are
//! public so they can be audited.

mod code;
mod dest;
mod entry;
mod ip;
mod names;
mod registry;

#[cfg(feature = "fetch")]
pub mod fetch;

pub use code::{Denial, DenialCode};
pub use dest::{
    classify_host, classify_url, refuse_ambiguous_text, vet_resolved, Destination, Target,
    MAX_URL_BYTES,
};
pub use entry::{
    Admitted, Entry, EntryError, EntryErrorKind, EntryHost, List, NetPolicy, PolicyError,
    MAX_ENTRIES, MAX_ENTRY_BYTES,
};
pub use ip::{classify_ip, classify_ipv4, classify_ipv6, embedded_ipv4, Embedding, Reach};
pub use names::{refused_name, LOCALHOST_NAMES, METADATA_NAMES, SPECIAL_USE_SUFFIXES};
pub use registry::{Block, MetadataEndpoint, IPV4_BLOCKS, IPV6_BLOCKS, METADATA_ENDPOINTS};
