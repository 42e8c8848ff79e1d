//! The `fetch.*` and `http.*` codes: why a fetch failed when no destination
//! policy refused it (a refusal keeps its [`DenialCode`](crate::net::DenialCode)).

crate::net::codes! {
    /// Every stable reason a fetch fails other than a destination refusal.
    ///
    /// The string ([`FetchCode::code`]) is the contract; the reason sentence
    /// is for people and may change. `docs/codes.md` lists every code (a test
    /// keeps it complete).
    pub enum FetchCode {
        /// The final response is not 2xx (also a 3xx without a `Location`).
        Status => "http.status", "RFC 9110 §15";
        /// The response head is over [`FetchPolicy::max_header_bytes`](super::FetchPolicy::max_header_bytes)
        /// or holds more than 100 header fields.
        HeadersTooLarge => "http.headers_too_large", "policy (max_header_bytes)";
        /// The response is not valid HTTP/1.1.
        Malformed => "http.malformed", "RFC 9112";
        /// The total deadline, the connect timeout or the read timeout passed.
        Timeout => "fetch.timeout", "policy (total, connect, read timeouts)";
        /// No vetted address accepted a connection.
        Connect => "fetch.connect", "RFC 9293";
        /// The TLS handshake failed (certificate, name, protocol).
        Tls => "fetch.tls", "RFC 8446; RFC 5280 (webpki)";
        /// The body is over the cap ([`FetchPolicy::max_body_bytes`](super::FetchPolicy::max_body_bytes)).
        TooLarge => "fetch.too_large", "policy (max_body_bytes)";
        /// The connection failed while reading the response.
        Io => "fetch.io", "RFC 9112";
        /// More than [`MAX_REDIRECTS`](super::MAX_REDIRECTS) redirects.
        TooManyRedirects => "fetch.too_many_redirects", "policy (MAX_REDIRECTS)";
        /// A redirect from `https` to `http` (refused even with `allow_http`).
        Downgrade => "fetch.downgrade", "policy (no https to http redirect)";
        /// An `http` URL without `allow_http`.
        InsecureScheme => "fetch.insecure_scheme", "policy (https only unless allow_http)";
        /// A compressed body (`Content-Encoding` other than identity,
        /// `Transfer-Encoding` other than chunked): refused, never inflated.
        Encoding => "fetch.encoding", "RFC 9110 §8.4; policy (Accept-Encoding: identity)";
        /// The connected peer is not the vetted address that was dialled.
        PeerMismatch => "fetch.peer_mismatch", "policy (connect only to the vetted address)";
        /// The name did not resolve, or resolved to more than
        /// [`MAX_RESOLVED_ADDRS`](super::MAX_RESOLVED_ADDRS) addresses.
        Dns => "fetch.dns", "the resolver; policy (MAX_RESOLVED_ADDRS)";
        /// The fetcher could not be set up (bad [`FetchPolicy`](super::FetchPolicy),
        /// a reserved request header, no runtime).
        Config => "fetch.config", "policy";
        /// The body could not be written out (`toolgate fetch -o FILE`, stdout).
        Output => "fetch.output", "the output file or stdout";
    }
}
