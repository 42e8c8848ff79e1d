//! `toolgate::net::fetch` (feature `fetch`): an SSRF-safe HTTP(S) GET.
//!
//! A [`Fetcher`] is built from a [`FetchPolicy`] (allow-http, the operator's
//! [`NetPolicy`](crate::net::NetPolicy) entries, caps and timeouts), a
//! [`Resolver`] (the system's by default) and a [`Connector`] (plain TCP by
//! default). [`Fetcher::fetch`] returns the body and the final URL
//! ([`Fetched`]), or a [`FetchError`] whose [`code`](FetchError::code) is the
//! denial code when a policy refused a destination, else a [`FetchCode`].
//!
//! # Every hop
//! 1. The URL goes through [`FetchPolicy::admit`]: the classifier
//!    ([`classify_url`](crate::net::classify_url)) with the allow and deny
//!    entries, then `https` only unless [`FetchPolicy::allow_http`]. An IP
//!    literal is classified as the address it is (also in a redirect).
//! 2. A name is resolved once through the [`Resolver`]; the whole answer is
//!    refused if any address is ([`NetPolicy::vet_resolved`](crate::net::NetPolicy::vet_resolved):
//!    a mixed answer is a rebinding attempt), and so is an answer of more
//!    than [`MAX_RESOLVED_ADDRS`].
//! 3. The [`Connector`] dials only those vetted addresses, one after the
//!    other; hyper is handed the connected socket and never resolves
//!    anything. The connected peer must be the dialled address and pass the
//!    policy again.
//! 4. `https`: rustls, the webpki roots (plus [`Fetcher::with_extra_roots`]),
//!    the URL's host as the name checked, session resumption off (nothing is
//!    shared between fetches).
//! 5. One `GET` per connection (`Connection: close`), `Accept-Encoding:
//!    identity`; a response head over [`FetchPolicy::max_header_bytes`] is
//!    `http.headers_too_large`.
//! 6. A 301/302/303/307/308 is followed by hand ([`FetchPolicy::next_hop`]),
//!    at most [`MAX_REDIRECTS`] times, the target vetted from step 1 again;
//!    `https` to `http` is `fetch.downgrade` even with `allow_http`;
//!    `Authorization` and `Cookie` are dropped once the origin changes.
//! 7. Any other non-2xx is `http.status`. A `Content-Encoding` other than
//!    identity (or a `Transfer-Encoding` other than chunked) is
//!    `fetch.encoding`: a compressed body is refused, never inflated. A body
//!    over [`FetchPolicy::max_body_bytes`] is `fetch.too_large`, found from
//!    `Content-Length` before reading or while streaming, before more than
//!    the cap is held.
//!
//! All of it runs inside [`FetchPolicy::total_timeout`]; each connect (and
//! TLS handshake) inside [`FetchPolicy::connect_timeout`], each read inside
//! [`FetchPolicy::read_timeout`].
//!
//! No proxy is ever used: the environment's `HTTP_PROXY`, `HTTPS_PROXY`,
//! `ALL_PROXY` (and lower-case forms) are not read, because a proxy resolves
//! names itself and would bypass every check above.
//!
//! # Why hyper
//! The fetcher uses hyper's low-level HTTP/1.1 client
//! (`hyper::client::conn::http1`) over a socket it connected itself. Every
//! decision above happens in this module before hyper sees a byte: hyper
//! has no resolver, no proxy support and no redirect logic to bypass or
//! disable, so no hook of a higher-level client has to be trusted (reqwest's
//! custom resolver, for one, never sees IP-literal hosts; ureq 3 sees every
//! hop but its resolver and connector API is not covered by its semver
//! promise). No `unsafe` and no fork: hyper, hyper-util's tokio adapter,
//! tokio-rustls and rustls are used through their public APIs. The
//! connection runs on the caller's tokio runtime ([`Fetcher::fetch_blocking`]
//! makes a current-thread one for synchronous callers).
//!
//! # Header field count
//! hyper's default of 100 header fields applies (more is
//! `http.headers_too_large`).

mod code;
mod error;
mod fetcher;
mod policy;
mod resolve;
mod tls;

pub use code::FetchCode;
pub use error::FetchError;
pub use fetcher::{Fetched, Fetcher};
pub use policy::{
    FetchPolicy, DEFAULT_CONNECT_TIMEOUT, DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_HEADER_BYTES,
    DEFAULT_READ_TIMEOUT, DEFAULT_TOTAL_TIMEOUT, MAX_REDIRECTS, MAX_RESOLVED_ADDRS,
    MIN_HEADER_BYTES,
};
pub use resolve::{BoxFuture, Connector, Resolver, SystemResolver, TcpConnector};
/// The certificate type [`Fetcher::with_extra_roots`] takes.
pub use rustls::pki_types::CertificateDer;
