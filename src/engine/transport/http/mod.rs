//! Streamable HTTP (MCP "Transports"), for any [`Service`] on the engine
//! (feature `http`): one endpoint, [`ENDPOINT_PATH`], serving both eras.
//!
//! * **Handshake era** (2024-11-05 to 2025-11-25): `initialize` starts a
//!   session named by `Mcp-Session-Id` (128 random bits), bound to the
//!   credential that created it (another one gets 404, as an unknown id
//!   does); `MCP-Protocol-Version` must be a served revision (400) and,
//!   once the session agreed one, that one; `DELETE` ends the session.
//! * **Stateless era** (2026-07-28): every request stands alone, carrying
//!   its revision in `_meta`; `Mcp-Method`, `Mcp-Name` and
//!   `MCP-Protocol-Version` must equal the body byte for byte (400 with
//!   -32020, [`mirror`]); policy is decided on the body only. A client that
//!   closes the connection before the answer cancels the request.
//!
//! Each POST carries one message (a batch only in a 2025-03-26 session):
//! a request is answered with JSON, or with an event stream when the
//! client asked for progress and takes one; a notification or a response
//! gets 202. `GET` gets 405 (no stream of server-initiated messages is
//! offered).
//!
//! **Fail closed** ([`guard`]): `Host` must be listed and `Origin`, when
//! present, too (403; the default list is the loopback names with the
//! port, [`Allowlist::loopback`]; an empty list allows nothing); a
//! required bearer token is compared in constant time (401 with
//! `WWW-Authenticate`); `Content-Type` must be `application/json` (415)
//! and `Accept` must take JSON or an event stream (406). These hold on
//! every method and path.
//!
//! **Bounds**: the body at most the payload bound, enforced while it
//! streams in (413, with or without `Content-Length`); [`MAX_HEADERS`]
//! header fields of at most [`MAX_HEAD_BYTES`] in all; the head within
//! [`HEADER_READ_TIMEOUT`] and the body within [`BODY_READ_TIMEOUT`]
//! (slowloris); [`HttpConfig::max_connections`] connections,
//! [`HttpConfig::max_in_flight`] requests in flight and
//! [`HttpConfig::max_sessions`] sessions, 503 with `Retry-After` beyond
//! them.

mod exchange;
pub mod guard;
pub mod mirror;
pub mod refusal;
mod session;

use std::io;
use std::sync::Arc;
use std::time::Duration;

use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::AsyncWriteExt;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;

pub use guard::{Accepts, Allowlist, BearerToken};
pub use refusal::{Kind, Refusal, HEADER_MISMATCH};

use crate::engine::{EngineConfig, Service};

/// The endpoint's path.
pub const ENDPOINT_PATH: &str = "/mcp";
/// Where RFC 9728 protected-resource metadata is served (with
/// [`HttpConfig::issuer`]), also under `…/mcp`.
pub const RESOURCE_METADATA_PATH: &str = "/.well-known/oauth-protected-resource";
/// Most header fields in one request head.
pub const MAX_HEADERS: usize = 64;
/// Most bytes of one request head (hyper's read buffer; at least 8 KiB).
pub const MAX_HEAD_BYTES: usize = 16 * 1024;
/// Time to read a request head, from its first byte (and an idle
/// keep-alive connection's wait for the next).
pub const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);
/// Time to read a request body once its head is in.
pub const BODY_READ_TIMEOUT: Duration = Duration::from_secs(30);
/// Default of [`HttpConfig::max_connections`].
pub const DEFAULT_MAX_CONNECTIONS: usize = 256;
/// Default of [`HttpConfig::max_in_flight`].
pub const DEFAULT_MAX_IN_FLIGHT: usize = 64;
/// Default of [`HttpConfig::max_sessions`].
pub const DEFAULT_MAX_SESSIONS: usize = 128;
/// A session unused this long ends (its id then gets 404).
pub const SESSION_IDLE_TIMEOUT: Duration = Duration::from_secs(30 * 60);
/// `Retry-After` of a 503, in seconds.
pub const RETRY_AFTER_SECONDS: u32 = 1;

/// How the endpoint is served.
#[derive(Debug, Clone)]
pub struct HttpConfig {
    /// Names and origins allowed ([`guard::check_origin`]).
    pub allow: Allowlist,
    /// The bearer token every request must carry; `None`: none.
    pub token: Option<BearerToken>,
    /// An authorization server to name in RFC 9728 metadata at
    /// [`RESOURCE_METADATA_PATH`] (served only when set). The token is
    /// still checked against [`token`](Self::token) only: nothing is
    /// validated against the issuer.
    pub issuer: Option<String>,
    /// Each session's engine (its body bound is the payload bound).
    pub engine: EngineConfig,
    /// Connections open at once.
    pub max_connections: usize,
    /// Requests read and not yet answered, over all sessions.
    pub max_in_flight: usize,
    /// Handshake-era sessions kept at once.
    pub max_sessions: usize,
}

impl HttpConfig {
    /// The defaults around `allow` and `engine`.
    pub fn new(allow: Allowlist, engine: EngineConfig) -> Self {
        Self {
            allow,
            token: None,
            issuer: None,
            engine,
            max_connections: DEFAULT_MAX_CONNECTIONS,
            max_in_flight: DEFAULT_MAX_IN_FLIGHT,
            max_sessions: DEFAULT_MAX_SESSIONS,
        }
    }
}

/// Makes the service of each new session.
pub type MakeService<S> = Box<dyn Fn() -> io::Result<S> + Send + Sync>;

/// Serves MCP at [`ENDPOINT_PATH`] on `listener` until the returned future
/// is dropped; each session's service comes from `make`.
///
/// # Errors
/// Never returns on its own; accept errors (too many open files) are
/// logged and retried.
pub async fn serve<S: Service>(
    listener: TcpListener,
    make: MakeService<S>,
    config: HttpConfig,
) -> io::Result<()> {
    let connections = Arc::new(Semaphore::new(config.max_connections.max(1)));
    let shared = Arc::new(exchange::Shared::new(make, config));
    let mut http = http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(HEADER_READ_TIMEOUT)
        .max_headers(MAX_HEADERS)
        .max_buf_size(MAX_HEAD_BYTES);
    loop {
        let (stream, _) = match listener.accept().await {
            Ok(c) => c,
            Err(e) => {
                tracing::warn!(error = %e, "accept failed");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let Ok(permit) = Arc::clone(&connections).try_acquire_owned() else {
            tokio::spawn(refuse_connection(stream));
            continue;
        };
        let shared = Arc::clone(&shared);
        let conn = http.serve_connection(
            TokioIo::new(stream),
            service_fn(move |req| exchange::handle(Arc::clone(&shared), req)),
        );
        tokio::spawn(async move {
            if let Err(e) = conn.await {
                tracing::debug!(error = %e, "connection ended");
            }
            drop(permit);
        });
    }
}

/// A connection over the bound: one 503 (its JSON-RPC error body as every
/// refusal's) and the end.
async fn refuse_connection(mut stream: tokio::net::TcpStream) {
    let body = Refusal::new(Kind::Busy, "too many connections; retry later")
        .body()
        .to_string();
    let head = format!(
        "HTTP/1.1 503 Service Unavailable\r\nRetry-After: {RETRY_AFTER_SECONDS}\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = tokio::time::timeout(HEADER_READ_TIMEOUT, stream.write_all(head.as_bytes())).await;
    let _ = stream.shutdown().await;
}
