//! [`Fetcher`]: one GET, every hop vetted, the body capped while it streams.

use super::code::FetchCode;
use super::error::FetchError;
use super::policy::{is_redirect, redacted, FetchPolicy, MAX_REDIRECTS, MAX_RESOLVED_ADDRS};
use super::resolve::{Connector, Resolver, SystemResolver, TcpConnector};
use super::tls::client_config;
use crate::net::{Admitted, Denial, DenialCode};
use bytes::Bytes;
use http_body_util::{BodyExt, Empty};
use hyper::body::Incoming;
use hyper::header::{self, HeaderMap, HeaderName, HeaderValue};
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use rustls::pki_types::{CertificateDer, ServerName};
use rustls::ClientConfig;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpStream;
use tokio::time::timeout;
use url::{Position, Url};

/// A fetched body and where it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fetched {
    body: Vec<u8>,
    url: Url,
    status: u16,
    content_type: Option<String>,
    redirects: usize,
}

impl Fetched {
    /// The body bytes (never more than the policy's cap).
    pub fn body(&self) -> &[u8] {
        &self.body
    }

    /// The body, moved out.
    pub fn into_body(self) -> Vec<u8> {
        self.body
    }

    /// The URL the body came from, after redirects.
    pub fn final_url(&self) -> &Url {
        &self.url
    }

    /// The final status (2xx).
    pub fn status(&self) -> u16 {
        self.status
    }

    /// The `Content-Type` header, when present and text.
    pub fn content_type(&self) -> Option<&str> {
        self.content_type.as_deref()
    }

    /// How many redirects were followed (at most [`MAX_REDIRECTS`]).
    pub fn redirects(&self) -> usize {
        self.redirects
    }
}

/// Request headers a caller may not set: the fetcher owns framing, the
/// target host and the encoding.
const RESERVED_HEADERS: &[HeaderName] = &[
    header::HOST,
    header::CONNECTION,
    header::CONTENT_LENGTH,
    header::TRANSFER_ENCODING,
    header::TE,
    header::UPGRADE,
    header::ACCEPT_ENCODING,
    header::PROXY_AUTHORIZATION,
];

/// Request headers dropped when a redirect leaves the origin.
const CREDENTIAL_HEADERS: &[HeaderName] = &[header::AUTHORIZATION, header::COOKIE];

/// How one fetch takes its body: the cap, and who hears of its progress.
struct Body<'a> {
    /// Body cap in bytes.
    max: usize,
    /// Called with the bytes received so far and the declared length.
    progress: &'a mut (dyn FnMut(u64, Option<u64>) + Send),
}

/// Aborts the connection task when the exchange is over or abandoned.
struct ConnTask(tokio::task::JoinHandle<()>);

impl Drop for ConnTask {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// An SSRF-safe HTTP(S) GET client (see the [module docs](super)).
///
/// Cheap to share behind an `Arc`; each fetch opens its own connections
/// (no pool, no TLS session cache).
pub struct Fetcher {
    policy: FetchPolicy,
    resolver: Arc<dyn Resolver>,
    connector: Arc<dyn Connector>,
    tls: Arc<ClientConfig>,
}

impl std::fmt::Debug for Fetcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Fetcher")
            .field("policy", &self.policy)
            .finish_non_exhaustive()
    }
}

fn timed_out(what: &str, d: Duration) -> FetchError {
    FetchError::failed(
        FetchCode::Timeout,
        format!("{what} took longer than {} ms", d.as_millis()),
    )
}

/// The stable code of a hyper error.
fn hyper_error(e: &hyper::Error, dest: &Admitted) -> FetchError {
    let at = redacted(dest.url());
    // `is_parse_too_large` is only compiled with hyper's server half; its
    // message is stable and pinned by the tests.
    if e.is_parse() && e.to_string().contains("too large") {
        FetchError::failed(
            FetchCode::HeadersTooLarge,
            format!("the response head from {at} is over the header cap"),
        )
    } else if e.is_parse() || e.is_parse_status() {
        FetchError::failed(
            FetchCode::Malformed,
            format!("the response from {at} is not valid HTTP/1.1: {e}"),
        )
    } else if e.is_timeout() {
        FetchError::failed(FetchCode::Timeout, format!("reading from {at} timed out"))
    } else {
        FetchError::failed(FetchCode::Io, format!("reading from {at} failed: {e}"))
    }
}

impl Fetcher {
    /// A fetcher with the system resolver, plain TCP and the webpki roots.
    ///
    /// # Errors
    /// `fetch.config` when [`FetchPolicy::validate`] refuses the policy.
    pub fn new(policy: FetchPolicy) -> Result<Self, FetchError> {
        policy.validate()?;
        Ok(Self {
            policy,
            resolver: Arc::new(SystemResolver),
            connector: Arc::new(TcpConnector),
            tls: client_config(&[])?,
        })
    }

    /// Resolves names through `resolver` instead of the system's.
    pub fn with_resolver(mut self, resolver: Arc<dyn Resolver>) -> Self {
        self.resolver = resolver;
        self
    }

    /// Opens connections through `connector` (its peer is still checked).
    pub fn with_connector(mut self, connector: Arc<dyn Connector>) -> Self {
        self.connector = connector;
        self
    }

    /// Trusts `roots` besides the webpki roots (a private CA; the tests'
    /// own CA).
    ///
    /// # Errors
    /// `fetch.config` for a certificate rustls cannot use as a root.
    pub fn with_extra_roots(
        mut self,
        roots: &[CertificateDer<'static>],
    ) -> Result<Self, FetchError> {
        self.tls = client_config(roots)?;
        Ok(self)
    }

    /// The policy.
    pub fn policy(&self) -> &FetchPolicy {
        &self.policy
    }

    /// GETs `url`, following at most [`MAX_REDIRECTS`] redirects, each hop
    /// vetted from scratch, within the policy's total deadline.
    ///
    /// # Errors
    /// A [`FetchError`]: [`FetchError::Denied`] when a destination was
    /// refused (nothing was sent to it), else its [`FetchCode`].
    pub async fn fetch(&self, url: &str) -> Result<Fetched, FetchError> {
        self.fetch_with_headers(url, &[]).await
    }

    /// [`Fetcher::fetch`] with extra request headers (`Authorization`,
    /// `Cookie`, ...). `Authorization` and `Cookie` are dropped once a
    /// redirect leaves the first URL's origin; the framing headers (`Host`,
    /// `Connection`, `Accept-Encoding`, ...) cannot be set.
    ///
    /// # Errors
    /// As [`Fetcher::fetch`]; `fetch.config` for an invalid or reserved header.
    pub async fn fetch_with_headers(
        &self,
        url: &str,
        headers: &[(&str, &str)],
    ) -> Result<Fetched, FetchError> {
        let mut map = HeaderMap::new();
        for (name, value) in headers {
            let bad = |what: &str| {
                FetchError::failed(FetchCode::Config, format!("request header {what}"))
            };
            let n = HeaderName::from_bytes(name.as_bytes()).map_err(|_| bad("name is invalid"))?;
            if RESERVED_HEADERS.contains(&n) {
                return Err(bad("is set by the fetcher itself"));
            }
            let v = HeaderValue::from_str(value).map_err(|_| bad("value is invalid"))?;
            map.append(n, v);
        }
        let mut body = Body {
            max: self.policy.max_body_bytes,
            progress: &mut |_, _| {},
        };
        self.run_timed(url, map, &mut body).await
    }

    /// [`Fetcher::fetch`] with a body cap of at most `max_body_bytes` (the
    /// smaller of it and [`FetchPolicy::max_body_bytes`] applies), calling
    /// `progress(bytes received, Content-Length if declared)` as the body
    /// streams in: once per chunk read, never after the fetch returns.
    ///
    /// # Errors
    /// As [`Fetcher::fetch`].
    pub async fn fetch_reporting(
        &self,
        url: &str,
        max_body_bytes: usize,
        progress: &mut (dyn FnMut(u64, Option<u64>) + Send),
    ) -> Result<Fetched, FetchError> {
        let mut body = Body {
            max: max_body_bytes.min(self.policy.max_body_bytes),
            progress,
        };
        self.run_timed(url, HeaderMap::new(), &mut body).await
    }

    /// [`Fetcher::run`] inside the policy's total deadline.
    async fn run_timed(
        &self,
        url: &str,
        headers: HeaderMap,
        body: &mut Body<'_>,
    ) -> Result<Fetched, FetchError> {
        let total = self.policy.total_timeout;
        match timeout(total, self.run(url, headers, body)).await {
            Ok(r) => r,
            Err(_) => Err(timed_out("the whole fetch", total)),
        }
    }

    /// [`Fetcher::fetch`] on a current-thread runtime of its own, for
    /// callers without one.
    ///
    /// # Errors
    /// As [`Fetcher::fetch`]; `fetch.config` when no runtime can be built.
    ///
    /// # Panics
    /// When called from inside a tokio runtime (tokio refuses to nest).
    pub fn fetch_blocking(&self, url: &str) -> Result<Fetched, FetchError> {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| FetchError::failed(FetchCode::Config, format!("no runtime: {e}")))?;
        rt.block_on(self.fetch(url))
    }

    async fn run(
        &self,
        url: &str,
        mut headers: HeaderMap,
        sink: &mut Body<'_>,
    ) -> Result<Fetched, FetchError> {
        let mut dest = self.policy.admit(url)?;
        let mut redirects = 0;
        loop {
            let (resp, conn) = self.exchange(&dest, &headers).await?;
            let status = resp.status().as_u16();
            if is_redirect(status) {
                let Some(location) = resp.headers().get(header::LOCATION) else {
                    return Err(FetchError::Status {
                        status,
                        reason: format!("{} (a redirect without Location)", redacted(dest.url())),
                    });
                };
                if redirects == MAX_REDIRECTS {
                    return Err(FetchError::failed(
                        FetchCode::TooManyRedirects,
                        format!(
                            "{} redirects again after {MAX_REDIRECTS} redirects",
                            redacted(dest.url())
                        ),
                    ));
                }
                let next = self.policy.next_hop(&dest, location.as_bytes())?;
                if next.url().origin() != dest.url().origin() {
                    for h in CREDENTIAL_HEADERS {
                        headers.remove(h);
                    }
                }
                drop((resp, conn));
                dest = next;
                redirects += 1;
                continue;
            }
            if !(200..300).contains(&status) {
                return Err(FetchError::Status {
                    status,
                    reason: redacted(dest.url()),
                });
            }
            check_encoding(resp.headers(), &dest)?;
            let content_type = resp
                .headers()
                .get(header::CONTENT_TYPE)
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned);
            let body = self.read_body(resp, &dest, sink).await?;
            drop(conn);
            return Ok(Fetched {
                body,
                url: dest.url().clone(),
                status,
                content_type,
                redirects,
            });
        }
    }

    /// The vetted addresses for `dest`: its IP literal, or the whole DNS
    /// answer after [`NetPolicy::vet_resolved`](crate::net::NetPolicy::vet_resolved).
    async fn addresses(&self, dest: &Admitted) -> Result<Vec<IpAddr>, FetchError> {
        if let Some(ip) = dest.ip() {
            return Ok(vec![ip]);
        }
        let name = dest.domain().unwrap_or_default();
        let answer = self.resolver.resolve(name).await.map_err(|e| {
            FetchError::failed(FetchCode::Dns, format!("`{name}` did not resolve: {e}"))
        })?;
        if answer.len() > MAX_RESOLVED_ADDRS {
            return Err(FetchError::failed(
                FetchCode::Dns,
                format!("`{name}` resolved to more than {MAX_RESOLVED_ADDRS} addresses"),
            ));
        }
        self.policy.net.vet_resolved(dest, &answer)?;
        Ok(answer)
    }

    /// A connection to one of `addrs` (all vetted), tried in order, whose
    /// peer is the dialled address and passes the policy again.
    async fn dial(&self, dest: &Admitted, addrs: &[IpAddr]) -> Result<TcpStream, FetchError> {
        let connect_timeout = self.policy.connect_timeout;
        let mut last = FetchError::failed(FetchCode::Connect, "no address to connect to");
        for &ip in addrs {
            let addr = SocketAddr::new(ip, dest.port());
            match timeout(connect_timeout, self.connector.connect(addr)).await {
                Ok(Ok(stream)) => {
                    let peer = stream.peer_addr().map_err(|e| {
                        FetchError::failed(FetchCode::Connect, format!("no peer address: {e}"))
                    })?;
                    if peer != addr {
                        return Err(FetchError::failed(
                            FetchCode::PeerMismatch,
                            format!("dialled {addr} but connected to {peer}"),
                        ));
                    }
                    self.policy
                        .net
                        .check_addr(peer.ip(), peer.port(), dest.domain())?;
                    return Ok(stream);
                }
                Ok(Err(e)) => {
                    last = FetchError::failed(
                        FetchCode::Connect,
                        format!("connecting to {addr} failed: {e}"),
                    );
                }
                Err(_) => last = timed_out(&format!("connecting to {addr}"), connect_timeout),
            }
        }
        Err(last)
    }

    /// One request on a fresh, vetted connection: the response head, and
    /// the task driving the connection (the body is read from it after).
    async fn exchange(
        &self,
        dest: &Admitted,
        headers: &HeaderMap,
    ) -> Result<(Response<Incoming>, ConnTask), FetchError> {
        let addrs = self.addresses(dest).await?;
        let stream = self.dial(dest, &addrs).await?;
        let request = request_for(dest, headers)?;
        if dest.url().scheme() != "https" {
            return self.http1(TokioIo::new(stream), dest, request).await;
        }
        let name = match dest.ip() {
            Some(ip) => ServerName::IpAddress(ip.into()),
            None => {
                ServerName::try_from(dest.domain().unwrap_or_default().to_owned()).map_err(|e| {
                    Denial::of(DenialCode::Malformed, format!("not a TLS server name: {e}"))
                })?
            }
        };
        let connector = tokio_rustls::TlsConnector::from(Arc::clone(&self.tls));
        let tls = timeout(self.policy.connect_timeout, connector.connect(name, stream))
            .await
            .map_err(|_| timed_out("the TLS handshake", self.policy.connect_timeout))?
            .map_err(|e| {
                FetchError::failed(
                    FetchCode::Tls,
                    format!("TLS with {} failed: {e}", redacted(dest.url())),
                )
            })?;
        self.http1(TokioIo::new(tls), dest, request).await
    }

    async fn http1<T>(
        &self,
        io: T,
        dest: &Admitted,
        request: Request<Empty<Bytes>>,
    ) -> Result<(Response<Incoming>, ConnTask), FetchError>
    where
        T: hyper::rt::Read + hyper::rt::Write + Unpin + Send + 'static,
    {
        let (mut sender, conn) = hyper::client::conn::http1::Builder::new()
            .max_header_size(self.policy.max_header_bytes)
            .handshake::<_, Empty<Bytes>>(io)
            .await
            .map_err(|e| hyper_error(&e, dest))?;
        let task = ConnTask(tokio::spawn(async move {
            // Its errors reach the request or the body.
            let _ = conn.await;
        }));
        let read = self.policy.read_timeout;
        let resp = timeout(read, sender.send_request(request))
            .await
            .map_err(|_| timed_out("waiting for the response head", read))?
            .map_err(|e| hyper_error(&e, dest))?;
        Ok((resp, task))
    }

    /// Streams the body, refusing it as soon as it passes the cap.
    async fn read_body(
        &self,
        resp: Response<Incoming>,
        dest: &Admitted,
        sink: &mut Body<'_>,
    ) -> Result<Vec<u8>, FetchError> {
        let max = sink.max;
        let too_large = || {
            FetchError::failed(
                FetchCode::TooLarge,
                format!(
                    "the body of {} is over the {max}-byte cap",
                    redacted(dest.url())
                ),
            )
        };
        let declared = resp
            .headers()
            .get(header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse::<u64>().ok());
        if declared.is_some_and(|n| n > max as u64) {
            return Err(too_large());
        }
        let mut body: Vec<u8> = Vec::with_capacity(declared.map_or(0, |n| n as usize));
        let mut incoming = resp.into_body();
        let read = self.policy.read_timeout;
        while let Some(frame) = timeout(read, incoming.frame())
            .await
            .map_err(|_| timed_out("reading the body", read))?
        {
            let frame = frame.map_err(|e| hyper_error(&e, dest))?;
            let Ok(data) = frame.into_data() else {
                continue;
            };
            let len = body.len().saturating_add(data.len());
            if len > max {
                return Err(too_large());
            }
            if len > body.capacity() {
                // Grow geometrically, but never past the cap: the peak stays
                // near the cap, not twice it.
                let want = body.capacity().saturating_mul(2).clamp(len, max);
                body.reserve_exact(want - body.len());
            }
            body.extend_from_slice(&data);
            (sink.progress)(u64::try_from(body.len()).unwrap_or(u64::MAX), declared);
        }
        Ok(body)
    }
}

/// `GET` for `dest`: origin-form target, `Host`, identity encoding, one
/// request per connection, then the caller's headers.
fn request_for(dest: &Admitted, headers: &HeaderMap) -> Result<Request<Empty<Bytes>>, FetchError> {
    let url = dest.url();
    let target = &url[Position::BeforePath..Position::AfterQuery];
    let host = &url[Position::BeforeHost..Position::AfterPort];
    let mut builder = Request::get(target)
        .header(header::HOST, host)
        .header(header::ACCEPT_ENCODING, "identity")
        .header(header::CONNECTION, "close")
        .header(
            header::USER_AGENT,
            concat!("toolgate/", env!("CARGO_PKG_VERSION")),
        );
    for (name, value) in headers {
        builder = builder.header(name, value);
    }
    builder.body(Empty::new()).map_err(|e| {
        FetchError::Denied(Denial::of(
            DenialCode::Malformed,
            format!("not a valid HTTP request target: {e}"),
        ))
    })
}

/// Refuses a compressed body: only identity content and chunked framing.
fn check_encoding(h: &HeaderMap, dest: &Admitted) -> Result<(), FetchError> {
    let tokens = |name: HeaderName| {
        h.get_all(name)
            .iter()
            .flat_map(|v| v.to_str().unwrap_or("?").split(','))
            .map(|t| t.trim().to_ascii_lowercase())
            .filter(|t| !t.is_empty())
            .collect::<Vec<_>>()
    };
    let ce = tokens(header::CONTENT_ENCODING);
    let te = tokens(header::TRANSFER_ENCODING);
    let bad = ce.iter().find(|t| t.as_str() != "identity").or_else(|| {
        te.iter()
            .find(|t| !matches!(t.as_str(), "chunked" | "identity"))
    });
    match bad {
        Some(t) => Err(FetchError::failed(
            FetchCode::Encoding,
            format!(
                "{} sent a `{t}`-encoded body although identity was asked for: compressed bodies are refused",
                redacted(dest.url())
            ),
        )),
        None => Ok(()),
    }
}
