//! The `fetch.*` and `http.*` codes: why a fetch failed when no destination
//! policy refused it (a refusal keeps its [`DenialCode`](crate::net::DenialCode)).

use std::fmt;

/// Every stable reason a fetch fails other than a destination refusal.
///
/// The string ([`FetchCode::code`]) is the contract; the reason sentence is
/// for people and may change.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FetchCode {
    /// The final response is not 2xx (also a 3xx without a usable `Location`).
    Status,
    /// The response head is over [`FetchPolicy::max_header_bytes`](super::FetchPolicy::max_header_bytes)
    /// or holds too many header fields.
    HeadersTooLarge,
    /// The response is not valid HTTP/1.1.
    Malformed,
    /// The total deadline, the connect timeout or the read timeout passed.
    Timeout,
    /// No vetted address accepted a connection.
    Connect,
    /// The TLS handshake failed (certificate, name, protocol).
    Tls,
    /// The body is over the cap ([`FetchPolicy::max_body_bytes`](super::FetchPolicy::max_body_bytes)).
    TooLarge,
    /// The connection failed while reading the response.
    Io,
    /// More than [`MAX_REDIRECTS`](super::MAX_REDIRECTS) redirects.
    TooManyRedirects,
    /// A redirect from `https` to `http` (refused even with `allow_http`).
    Downgrade,
    /// An `http` URL without `allow_http`.
    InsecureScheme,
    /// A compressed body (`Content-Encoding` or `Transfer-Encoding` other
    /// than identity / chunked): refused, never inflated.
    Encoding,
    /// The connected peer is not the vetted address that was dialled.
    PeerMismatch,
    /// The name did not resolve, or resolved to more than
    /// [`MAX_RESOLVED_ADDRS`](super::MAX_RESOLVED_ADDRS) addresses.
    Dns,
    /// The fetcher could not be set up (bad [`FetchPolicy`](super::FetchPolicy), no runtime).
    Config,
    /// The body could not be written out (`toolgate fetch -o FILE`, stdout).
    Output,
}

impl FetchCode {
    /// Every code, in table order.
    pub const ALL: &'static [FetchCode] = &[
        Self::Status,
        Self::HeadersTooLarge,
        Self::Malformed,
        Self::Timeout,
        Self::Connect,
        Self::Tls,
        Self::TooLarge,
        Self::Io,
        Self::TooManyRedirects,
        Self::Downgrade,
        Self::InsecureScheme,
        Self::Encoding,
        Self::PeerMismatch,
        Self::Dns,
        Self::Config,
        Self::Output,
    ];

    /// The stable string, e.g. `fetch.timeout`.
    pub const fn code(self) -> &'static str {
        match self {
            Self::Status => "http.status",
            Self::HeadersTooLarge => "http.headers_too_large",
            Self::Malformed => "http.malformed",
            Self::Timeout => "fetch.timeout",
            Self::Connect => "fetch.connect",
            Self::Tls => "fetch.tls",
            Self::TooLarge => "fetch.too_large",
            Self::Io => "fetch.io",
            Self::TooManyRedirects => "fetch.too_many_redirects",
            Self::Downgrade => "fetch.downgrade",
            Self::InsecureScheme => "fetch.insecure_scheme",
            Self::Encoding => "fetch.encoding",
            Self::PeerMismatch => "fetch.peer_mismatch",
            Self::Dns => "fetch.dns",
            Self::Config => "fetch.config",
            Self::Output => "fetch.output",
        }
    }

    /// Where the meaning comes from.
    pub const fn source(self) -> &'static str {
        match self {
            Self::Status => "RFC 9110 §15",
            Self::HeadersTooLarge => "policy (max_header_bytes)",
            Self::Malformed => "RFC 9112",
            Self::Timeout => "policy (total, connect, read timeouts)",
            Self::Connect => "RFC 9293",
            Self::Tls => "RFC 8446; RFC 5280 (webpki)",
            Self::TooLarge => "policy (max_body_bytes)",
            Self::Io => "RFC 9112",
            Self::TooManyRedirects => "policy (MAX_REDIRECTS)",
            Self::Downgrade => "policy (no https to http redirect)",
            Self::InsecureScheme => "policy (https only unless allow_http)",
            Self::Encoding => "RFC 9110 §8.4; policy (Accept-Encoding: identity)",
            Self::PeerMismatch => "policy (connect only to the vetted address)",
            Self::Dns => "policy (MAX_RESOLVED_ADDRS); the resolver",
            Self::Config => "policy",
            Self::Output => "the output file or stdout",
        }
    }

    /// The code whose string is `s`, if any.
    pub fn from_code(s: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|c| c.code() == s)
    }
}

impl fmt::Display for FetchCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}
