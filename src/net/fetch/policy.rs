//! [`FetchPolicy`]: what a [`Fetcher`](super::Fetcher) may reach and how
//! much it may read, and the pure per-hop decisions ([`FetchPolicy::admit`],
//! [`FetchPolicy::next_hop`]) that the fetcher runs before every connection.

use super::code::FetchCode;
use super::error::FetchError;
use crate::net::{refuse_ambiguous_text, Admitted, NetPolicy};
use std::time::Duration;
use url::Url;

/// Most redirects followed for one fetch; one more is `fetch.too_many_redirects`.
pub const MAX_REDIRECTS: usize = 5;

/// Default body cap, in bytes (64 MiB, the size of the largest PDF the PDF
/// tools open).
pub const DEFAULT_MAX_BODY_BYTES: usize = 64 << 20;

/// Default cap on a response head (status line and header fields), in bytes.
pub const DEFAULT_MAX_HEADER_BYTES: usize = 64 << 10;

/// Smallest header cap a policy may set, in bytes.
pub const MIN_HEADER_BYTES: usize = 1024;

/// Most addresses taken from one DNS answer; a longer answer is `fetch.dns`.
pub const MAX_RESOLVED_ADDRS: usize = 32;

/// Default total deadline for one fetch, redirects included.
pub const DEFAULT_TOTAL_TIMEOUT: Duration = Duration::from_secs(60);

/// Default timeout for one TCP connect (and the TLS handshake after it).
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// Default timeout for one read (the response head, each body chunk).
pub const DEFAULT_READ_TIMEOUT: Duration = Duration::from_secs(30);

/// What a fetcher may reach and how much it may read. `Default` is the
/// secure setting: https only, no allow or deny entries, the default caps.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FetchPolicy {
    /// Let `http` URLs through (never an `https` to `http` redirect).
    pub allow_http: bool,
    /// The operator's allow and deny entries.
    pub net: NetPolicy,
    /// Body cap in bytes, enforced while streaming (the body is never held
    /// over it).
    pub max_body_bytes: usize,
    /// Response head cap in bytes (at least [`MIN_HEADER_BYTES`]).
    pub max_header_bytes: usize,
    /// Deadline for the whole fetch, every hop included.
    pub total_timeout: Duration,
    /// Timeout for one connect plus TLS handshake.
    pub connect_timeout: Duration,
    /// Timeout for one read.
    pub read_timeout: Duration,
}

impl Default for FetchPolicy {
    fn default() -> Self {
        Self {
            allow_http: false,
            net: NetPolicy::default(),
            max_body_bytes: DEFAULT_MAX_BODY_BYTES,
            max_header_bytes: DEFAULT_MAX_HEADER_BYTES,
            total_timeout: DEFAULT_TOTAL_TIMEOUT,
            connect_timeout: DEFAULT_CONNECT_TIMEOUT,
            read_timeout: DEFAULT_READ_TIMEOUT,
        }
    }
}

/// `scheme://host[:port]/path` of `url`: no userinfo, query or fragment,
/// so a reason never carries credentials or query strings.
pub(crate) fn redacted(url: &Url) -> String {
    let mut s = format!("{}://{}", url.scheme(), url.host_str().unwrap_or_default());
    if let Some(p) = url.port() {
        s.push(':');
        s.push_str(&p.to_string());
    }
    s.push_str(url.path());
    if url.query().is_some() {
        s.push_str("?…");
    }
    s
}

/// `true` for the statuses whose `Location` the fetcher follows.
pub(crate) fn is_redirect(status: u16) -> bool {
    matches!(status, 301 | 302 | 303 | 307 | 308)
}

impl FetchPolicy {
    /// Checks the policy's own values.
    ///
    /// # Errors
    /// `fetch.config` for a header cap under [`MIN_HEADER_BYTES`] or a zero timeout.
    pub fn validate(&self) -> Result<(), FetchError> {
        if self.max_header_bytes < MIN_HEADER_BYTES {
            return Err(FetchError::failed(
                FetchCode::Config,
                format!(
                    "max_header_bytes {} is under the minimum {MIN_HEADER_BYTES}",
                    self.max_header_bytes
                ),
            ));
        }
        if [self.total_timeout, self.connect_timeout, self.read_timeout].contains(&Duration::ZERO) {
            return Err(FetchError::failed(
                FetchCode::Config,
                "a timeout of zero lets no request through",
            ));
        }
        Ok(())
    }

    /// The first hop: the URL through [`NetPolicy::classify_url`], then the
    /// scheme rule (`https` only unless [`FetchPolicy::allow_http`]).
    ///
    /// # Errors
    /// The classifier's or the deny list's [`Denial`](crate::net::Denial), or
    /// `fetch.insecure_scheme`.
    pub fn admit(&self, url: &str) -> Result<Admitted, FetchError> {
        let dest = self.net.classify_url(url)?;
        if dest.url().scheme() == "http" && !self.allow_http {
            return Err(FetchError::failed(
                FetchCode::InsecureScheme,
                format!(
                    "{} is plain http: only https is fetched unless http is allowed",
                    redacted(dest.url())
                ),
            ));
        }
        Ok(dest)
    }

    /// The next hop of a redirect from `from` with the `Location` header
    /// value `location`: an absolute URL is classified as written, a relative
    /// one is resolved against `from` first; either way it is vetted from
    /// scratch as [`FetchPolicy::admit`] does, and an `https` to `http`
    /// redirect is refused even with `allow_http`.
    ///
    /// # Errors
    /// `url.*` for a location that is not UTF-8 text or does not parse;
    /// `fetch.downgrade`; otherwise as [`FetchPolicy::admit`].
    pub fn next_hop(&self, from: &Admitted, location: &[u8]) -> Result<Admitted, FetchError> {
        let text = std::str::from_utf8(location).map_err(|_| {
            crate::net::Denial::of(
                crate::net::DenialCode::Malformed,
                "the redirect Location is not UTF-8 text",
            )
        })?;
        refuse_ambiguous_text(text)?;
        let absolute = Url::parse(text).is_ok();
        let target = if absolute {
            None
        } else {
            Some(from.url().join(text).map_err(|e| {
                crate::net::Denial::of(
                    crate::net::DenialCode::Malformed,
                    format!("the redirect Location does not resolve against the current URL: {e}"),
                )
            })?)
        };
        let next_text = target.as_ref().map_or(text, Url::as_str);
        // Scheme first, from the parsed text: a downgrade is refused before
        // anything else is said about the target.
        let next_scheme = match &target {
            Some(u) => u.scheme().to_owned(),
            None => text
                .split_once(':')
                .map_or(String::new(), |(s, _)| s.to_ascii_lowercase()),
        };
        if from.url().scheme() == "https" && next_scheme == "http" {
            return Err(FetchError::failed(
                FetchCode::Downgrade,
                format!(
                    "{} redirects from https to http: refused",
                    redacted(from.url())
                ),
            ));
        }
        self.admit(next_text)
    }
}
