//! `net::fetch` against its baseline in one group: a 10 MiB body from a
//! loopback origin through the vetted [`Fetcher`] and through the same
//! hyper HTTP/1.1 client with no vetting layer (connect, handshake, GET,
//! collect). Report the ratio; absolute times on a shared machine are noise.
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use http_body_util::{BodyExt, Empty};
use hyper_util::rt::TokioIo;
use std::io::{Read, Write};
use std::net::TcpListener;
use toolgate::net::fetch::{FetchPolicy, Fetcher};
use toolgate::net::NetPolicy;

const BODY: usize = 10 << 20;

/// A loopback origin answering every request with `BODY` bytes.
fn origin() -> std::net::SocketAddr {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = l.local_addr().unwrap();
    std::thread::spawn(move || {
        let body = vec![b'x'; BODY];
        for s in l.incoming() {
            let Ok(mut s) = s else { continue };
            let body = body.clone();
            std::thread::spawn(move || {
                let mut head = Vec::new();
                let mut b = [0u8; 1];
                while !head.ends_with(b"\r\n\r\n") {
                    if s.read(&mut b).unwrap_or(0) == 0 {
                        return;
                    }
                    head.push(b[0]);
                }
                let h = format!(
                    "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: {BODY}\r\n\r\n"
                );
                let _ = s.write_all(h.as_bytes()).and_then(|()| s.write_all(&body));
            });
        }
    });
    addr
}

fn bench(c: &mut Criterion) {
    let addr = origin();
    let url = format!("http://{addr}/big");
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let fetcher = Fetcher::new(FetchPolicy {
        allow_http: true,
        net: NetPolicy::parse(&[addr.to_string()], &[]).unwrap(),
        ..FetchPolicy::default()
    })
    .unwrap();
    let mut g = c.benchmark_group("fetch_10mib_loopback");
    g.throughput(Throughput::Bytes(BODY as u64));
    g.sample_size(20);
    g.bench_function("toolgate_fetcher", |b| {
        b.iter(|| {
            let got = rt.block_on(fetcher.fetch(&url)).unwrap();
            assert_eq!(got.body().len(), BODY);
        })
    });
    g.bench_function("baseline_hyper_http1", |b| {
        b.iter(|| {
            let n = rt.block_on(async {
                let s = tokio::net::TcpStream::connect(addr).await.unwrap();
                let (mut tx, conn) =
                    hyper::client::conn::http1::handshake::<_, Empty<bytes::Bytes>>(TokioIo::new(
                        s,
                    ))
                    .await
                    .unwrap();
                let task = tokio::spawn(conn);
                let req = hyper::Request::get("/big")
                    .header("host", addr.to_string())
                    .body(Empty::new())
                    .unwrap();
                let resp = tx.send_request(req).await.unwrap();
                let body = resp.into_body().collect().await.unwrap().to_bytes();
                task.abort();
                body.len()
            });
            assert_eq!(n, BODY);
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
