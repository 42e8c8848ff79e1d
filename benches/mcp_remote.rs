//! `toolgate mcp --allow-remote`: one `extract` of a one-page PDF from a
//! loopback origin against the same file from disk, through the same
//! server session, interleaved (median of 20 calls each, one at a time,
//! 100 ms apart so the worker started ahead of need is ready). The ratio
//! is the fetch's cost on the call (issue #22); numbers go to docs/mcp.md.
//!
//! No packet leaves the machine: the server's fetcher dials through a
//! connector that refuses every non-loopback address without opening a
//! socket. Run: `cargo bench --bench mcp_remote`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use toolgate::engine::transport::stdio;
use toolgate::mcp::{Config, DefaultPdf, Server};
use toolgate::net::fetch::{BoxFuture, Connector, FetchPolicy, Fetcher};
use toolgate::net::NetPolicy;

const PDF: &[u8] = include_bytes!("../corpus/pdf/pypdf-minimal-document.pdf");
const INIT: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

/// Dials loopback only; refuses anything else without a socket.
struct LoopbackOnly;

impl Connector for LoopbackOnly {
    fn connect(&self, addr: SocketAddr) -> BoxFuture<'_, std::io::Result<tokio::net::TcpStream>> {
        Box::pin(async move {
            if !addr.ip().is_loopback() {
                return Err(std::io::Error::other(format!(
                    "bench connector refuses {addr}"
                )));
            }
            tokio::net::TcpStream::connect(addr).await
        })
    }
}

/// A loopback origin serving `PDF` for every request.
fn origin() -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        for conn in listener.incoming() {
            let Ok(mut conn) = conn else { continue };
            let mut head = Vec::new();
            let mut byte = [0u8; 1];
            while !head.ends_with(b"\r\n\r\n") && conn.read(&mut byte).unwrap_or(0) == 1 {
                head.push(byte[0]);
            }
            let _ = write!(
                conn,
                "HTTP/1.1 200 OK\r\nContent-Type: application/pdf\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                PDF.len()
            );
            let _ = conn.write_all(PDF);
        }
    });
    addr
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        println!("mcp_remote: bench");
        return;
    }
    let addr = origin();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("one.pdf"), PDF).unwrap();
    let policy = FetchPolicy {
        allow_http: true,
        net: NetPolicy::parse(&[format!("127.0.0.1:{}", addr.port())], &[]).unwrap(),
        ..FetchPolicy::default()
    };
    let fetcher = Fetcher::new(policy)
        .unwrap()
        .with_connector(Arc::new(LoopbackOnly));
    let config = Config {
        root: Some(dir.path().to_path_buf()),
        remote: Some(Arc::new(fetcher)),
        ..Config::default()
    };
    let backend = DefaultPdf::for_config(env!("CARGO_BIN_EXE_toolgate"), &config);
    let server = Server::new(config.clone(), backend).unwrap();
    let (in_rx, mut in_tx) = std::io::pipe().unwrap();
    let (out_rx, out_tx) = std::io::pipe().unwrap();
    let engine = config.engine();
    let serving = std::thread::spawn(move || {
        stdio::serve(server, engine, BufReader::new(in_rx), out_tx).unwrap();
    });
    let mut out = BufReader::new(out_rx);
    let mut send = move |line: &str| {
        writeln!(in_tx, "{line}").unwrap();
        in_tx.flush().unwrap();
    };
    let mut read_id = |id: u64| -> Value {
        loop {
            let mut line = String::new();
            out.read_line(&mut line).unwrap();
            let v: Value = serde_json::from_str(&line).unwrap();
            if v["id"] == id {
                return v;
            }
        }
    };
    send(INIT);
    read_id(0);
    send(INITIALIZED);
    let url = format!("http://{addr}/one.pdf");
    let (mut remote, mut disk) = (Vec::new(), Vec::new());
    let mut id = 0u64;
    for _ in 0..20 {
        for (path, into) in [(url.as_str(), &mut remote), ("one.pdf", &mut disk)] {
            std::thread::sleep(Duration::from_millis(100));
            id += 1;
            let call = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                "params": {"name": "extract", "arguments": {"path": path}}});
            let t = Instant::now();
            send(&call.to_string());
            let r = read_id(id);
            into.push(t.elapsed().as_secs_f64() * 1e3);
            assert_eq!(r["result"]["isError"], false, "{r}");
        }
    }
    drop(send);
    serving.join().unwrap();
    let (a, b) = (median(remote), median(disk));
    println!(
        "remote: one-page extract from a loopback origin {a:.3} ms vs from disk {b:.3} ms (median of 20, same session): {:.2}x",
        a / b
    );
}
