//! [`Resolver`] (name to addresses, once per hop) and [`Connector`] (a TCP
//! connection to one vetted address): the two seams of the fetcher, so tests
//! and embedders can put a fake DNS or a recording dialler in.

use std::future::Future;
use std::io;
use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;
use tokio::net::TcpStream;

/// A boxed, sendable future (the shape the seams return).
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Resolves a host name to addresses. Called once per hop; the fetcher vets
/// the whole answer and connects only to addresses of it, so a resolver
/// cannot widen what is reached, only narrow it.
pub trait Resolver: Send + Sync {
    /// Every address `name` resolves to (a canonical, lower-case name).
    fn resolve<'a>(&'a self, name: &'a str) -> BoxFuture<'a, io::Result<Vec<IpAddr>>>;
}

/// The system resolver (`getaddrinfo` on a blocking thread, through tokio).
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemResolver;

impl Resolver for SystemResolver {
    fn resolve<'a>(&'a self, name: &'a str) -> BoxFuture<'a, io::Result<Vec<IpAddr>>> {
        Box::pin(async move {
            let addrs = tokio::net::lookup_host((name, 0)).await?;
            // Bounded by the caller (MAX_RESOLVED_ADDRS + 1 is enough to see
            // an answer is too long).
            Ok(addrs
                .map(|a| a.ip())
                .take(super::MAX_RESOLVED_ADDRS + 1)
                .collect())
        })
    }
}

/// Opens a TCP connection to exactly one address. The fetcher calls it only
/// with vetted addresses, then checks the connected peer again.
pub trait Connector: Send + Sync {
    /// A connection to `addr`.
    fn connect(&self, addr: SocketAddr) -> BoxFuture<'_, io::Result<TcpStream>>;
}

/// Plain TCP (`TCP_NODELAY` on).
#[derive(Debug, Clone, Copy, Default)]
pub struct TcpConnector;

impl Connector for TcpConnector {
    fn connect(&self, addr: SocketAddr) -> BoxFuture<'_, io::Result<TcpStream>> {
        Box::pin(async move {
            let s = TcpStream::connect(addr).await?;
            s.set_nodelay(true)?;
            Ok(s)
        })
    }
}
