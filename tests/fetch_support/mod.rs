//! Loopback-only fixtures for the fetch tests: an HTTP(S) origin on any
//! 127.0.0.0/8 address that counts connections and records request heads,
//! a connector that records every dial and refuses (without dialling)
//! anything that is not loopback, and a scripted resolver.
#![allow(dead_code)]

use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use std::collections::HashMap;
use std::io::{self, Read, Write};
use std::net::{IpAddr, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;
use toolgate::net::fetch::{BoxFuture, Connector, FetchPolicy, Fetcher, Resolver};
use toolgate::net::NetPolicy;

/// What the origin sends back for one request.
pub enum Reply {
    /// These bytes, then close.
    Raw(Vec<u8>),
    /// `head`, then `chunk` `times` times, then close.
    Stream {
        head: Vec<u8>,
        chunk: Vec<u8>,
        times: usize,
    },
    /// `head`, then one byte every `every`, `count` times.
    Trickle {
        head: Vec<u8>,
        every: Duration,
        count: usize,
    },
}

/// A complete response with `Content-Length` and `Connection: close`.
pub fn response(status: u16, headers: &[(&str, &str)], body: &[u8]) -> Reply {
    let mut r = format!(
        "HTTP/1.1 {status} X\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (k, v) in headers {
        r.push_str(&format!("{k}: {v}\r\n"));
    }
    r.push_str("\r\n");
    let mut bytes = r.into_bytes();
    bytes.extend_from_slice(body);
    Reply::Raw(bytes)
}

/// A redirect to `location`.
pub fn redirect(status: u16, location: &str) -> Reply {
    response(status, &[("Location", location)], b"")
}

type Handler = dyn Fn(&str) -> Reply + Send + Sync;

/// An origin on `ip`:0 (any 127/8 address binds on Linux without setup).
pub struct Origin {
    addr: SocketAddr,
    conns: Arc<AtomicUsize>,
    heads: Arc<Mutex<Vec<String>>>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Origin {
    /// A plain-HTTP origin.
    pub fn http(ip: &str, handler: impl Fn(&str) -> Reply + Send + Sync + 'static) -> Self {
        Self::start(ip, None, Arc::new(handler))
    }

    /// A TLS origin with `config`.
    pub fn https(
        ip: &str,
        config: Arc<rustls::ServerConfig>,
        handler: impl Fn(&str) -> Reply + Send + Sync + 'static,
    ) -> Self {
        Self::start(ip, Some(config), Arc::new(handler))
    }

    /// A listener that only counts connections (and answers 200).
    pub fn counter(ip: &str) -> Self {
        Self::http(ip, |_| response(200, &[], b"counted"))
    }

    fn start(ip: &str, tls: Option<Arc<rustls::ServerConfig>>, handler: Arc<Handler>) -> Self {
        let ip: IpAddr = ip.parse().unwrap();
        assert!(ip.is_loopback(), "test origins are loopback only");
        let listener = TcpListener::bind((ip, 0)).unwrap();
        listener.set_nonblocking(true).unwrap();
        let addr = listener.local_addr().unwrap();
        let conns = Arc::new(AtomicUsize::new(0));
        let heads = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let (c, h, s) = (conns.clone(), heads.clone(), stop.clone());
        let thread = std::thread::spawn(move || {
            while !s.load(Ordering::SeqCst) {
                match listener.accept() {
                    Ok((stream, _)) => {
                        c.fetch_add(1, Ordering::SeqCst);
                        let (h, handler, tls) = (h.clone(), handler.clone(), tls.clone());
                        std::thread::spawn(move || {
                            let _ = serve(stream, tls, &h, &*handler);
                        });
                    }
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                        std::thread::sleep(Duration::from_millis(2));
                    }
                    Err(_) => break,
                }
            }
        });
        Origin {
            addr,
            conns,
            heads,
            stop,
            thread: Some(thread),
        }
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    pub fn port(&self) -> u16 {
        self.addr.port()
    }

    /// `http://IP:PORT` (or https), no trailing slash.
    pub fn base(&self, scheme: &str) -> String {
        format!("{scheme}://{}", self.addr)
    }

    /// Connections accepted so far.
    pub fn connections(&self) -> usize {
        self.conns.load(Ordering::SeqCst)
    }

    /// The request heads received so far.
    pub fn heads(&self) -> Vec<String> {
        self.heads.lock().unwrap().clone()
    }
}

impl Drop for Origin {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn serve(
    tcp: TcpStream,
    tls: Option<Arc<rustls::ServerConfig>>,
    heads: &Mutex<Vec<String>>,
    handler: &Handler,
) -> io::Result<()> {
    tcp.set_nonblocking(false)?;
    tcp.set_read_timeout(Some(Duration::from_secs(10)))?;
    match tls {
        None => exchange(tcp, heads, handler),
        Some(cfg) => {
            let conn = rustls::ServerConnection::new(cfg).map_err(io::Error::other)?;
            let mut s = rustls::StreamOwned::new(conn, tcp);
            let r = exchange(&mut s, heads, handler);
            s.conn.send_close_notify();
            let _ = s.flush();
            r
        }
    }
}

fn exchange(
    mut s: impl Read + Write,
    heads: &Mutex<Vec<String>>,
    handler: &Handler,
) -> io::Result<()> {
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") && head.len() < 65536 {
        if s.read(&mut byte)? == 0 {
            return Ok(());
        }
        head.push(byte[0]);
    }
    let head = String::from_utf8_lossy(&head).into_owned();
    heads.lock().unwrap().push(head.clone());
    match handler(&head) {
        Reply::Raw(b) => s.write_all(&b)?,
        Reply::Stream { head, chunk, times } => {
            s.write_all(&head)?;
            for _ in 0..times {
                s.write_all(&chunk)?;
            }
        }
        Reply::Trickle { head, every, count } => {
            s.write_all(&head)?;
            s.flush()?;
            for _ in 0..count {
                std::thread::sleep(every);
                s.write_all(b"x")?;
                s.flush()?;
            }
        }
    }
    s.flush()
}

/// The request path of a recorded head (`GET /a HTTP/1.1` gives `/a`).
pub fn path_of(head: &str) -> &str {
    head.split(' ').nth(1).unwrap_or("")
}

/// Records every dial; dials loopback only, refuses anything else without
/// opening a socket (so a wrong fetcher can never send a packet out).
#[derive(Default)]
pub struct Guard {
    dials: Mutex<Vec<SocketAddr>>,
}

impl Guard {
    pub fn dials(&self) -> Vec<SocketAddr> {
        self.dials.lock().unwrap().clone()
    }
}

impl Connector for Guard {
    fn connect(&self, addr: SocketAddr) -> BoxFuture<'_, io::Result<tokio::net::TcpStream>> {
        self.dials.lock().unwrap().push(addr);
        Box::pin(async move {
            if !addr.ip().is_loopback() {
                return Err(io::Error::other(format!("test connector refuses {addr}")));
            }
            tokio::net::TcpStream::connect(addr).await
        })
    }
}

/// Scripted DNS: each name has a list of answers, one per lookup; the last
/// one repeats. Unknown names fail.
#[derive(Default)]
pub struct FakeDns {
    answers: Mutex<HashMap<String, Vec<Vec<IpAddr>>>>,
    lookups: Mutex<Vec<String>>,
}

impl FakeDns {
    pub fn set(&self, name: &str, answers: &[&[&str]]) {
        let v = answers
            .iter()
            .map(|a| a.iter().map(|s| s.parse().unwrap()).collect())
            .collect();
        self.answers.lock().unwrap().insert(name.to_owned(), v);
    }

    pub fn lookups(&self) -> Vec<String> {
        self.lookups.lock().unwrap().clone()
    }
}

impl Resolver for FakeDns {
    fn resolve<'a>(&'a self, name: &'a str) -> BoxFuture<'a, io::Result<Vec<IpAddr>>> {
        self.lookups.lock().unwrap().push(name.to_owned());
        let mut all = self.answers.lock().unwrap();
        let answer = match all.get_mut(name) {
            Some(v) if v.len() > 1 => Ok(v.remove(0)),
            Some(v) => Ok(v.first().cloned().unwrap_or_default()),
            None => Err(io::Error::new(io::ErrorKind::NotFound, "no such name")),
        };
        Box::pin(async move { answer })
    }
}

/// A test CA, and a server configuration for `names` (DNS names or IP
/// addresses) signed by it.
pub struct TestCa {
    pub root: CertificateDer<'static>,
    pub server: Arc<rustls::ServerConfig>,
}

pub fn test_ca(names: &[&str]) -> TestCa {
    let mut ca_params = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
    ca_params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    ca_params
        .distinguished_name
        .push(rcgen::DnType::CommonName, "toolgate test CA");
    let ca = rcgen::CertifiedIssuer::self_signed(ca_params, rcgen::KeyPair::generate().unwrap())
        .unwrap();
    let key = rcgen::KeyPair::generate().unwrap();
    let names: Vec<String> = names.iter().map(|s| s.to_string()).collect();
    let leaf = rcgen::CertificateParams::new(names)
        .unwrap()
        .signed_by(&key, &ca)
        .unwrap();
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let server = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(
            vec![leaf.der().clone()],
            PrivateKeyDer::Pkcs8(key.serialize_der().into()),
        )
        .unwrap();
    TestCa {
        root: ca.der().clone(),
        server: Arc::new(server),
    }
}

/// A fetcher allowing `allow` (plain http allowed, `tweak` applied to the
/// policy) that dials through a [`Guard`] and resolves through a [`FakeDns`].
pub struct Rig {
    pub fetcher: Fetcher,
    pub guard: Arc<Guard>,
    pub dns: Arc<FakeDns>,
}

pub fn rig(allow: &[String], tweak: impl FnOnce(&mut FetchPolicy)) -> Rig {
    let mut policy = FetchPolicy {
        allow_http: true,
        net: NetPolicy::parse(allow, &[]).unwrap(),
        ..FetchPolicy::default()
    };
    tweak(&mut policy);
    let guard = Arc::new(Guard::default());
    let dns = Arc::new(FakeDns::default());
    let fetcher = Fetcher::new(policy)
        .unwrap()
        .with_connector(guard.clone())
        .with_resolver(dns.clone());
    Rig {
        fetcher,
        guard,
        dns,
    }
}
