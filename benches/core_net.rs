//! `toolgate::net` benches. Goals (issue 3): `classify_ip` ≤ 15 ns per
//! address over a v4/v6 mix; `classify_url` ≤ 1.2× `url::Url::parse` alone
//! on the same inputs; issue 17 asks ≤ 1.05× on the mixed set (`classify_url` group;
//! measured in `docs/net.md`). Each group holds its baseline, so one run gives the ratio.
use criterion::{criterion_group, Criterion, Throughput};
use ipnet::IpNet;
use std::hint::black_box;
use std::net::IpAddr;
use toolgate::net::{classify_ip, classify_url, IPV4_BLOCKS, IPV6_BLOCKS};

/// A mix of public and special addresses, v4 and v6, including embedded forms.
fn addresses() -> Vec<IpAddr> {
    [
        "8.8.8.8",
        "93.184.215.14",
        "1.1.1.1",
        "151.101.1.69",
        "10.1.2.3",
        "192.168.1.1",
        "172.20.0.1",
        "127.0.0.1",
        "169.254.169.254",
        "100.64.0.1",
        "203.0.113.7",
        "224.0.0.1",
        "2606:4700:4700::1111",
        "2001:4860:4860::8888",
        "2a00:1450:4001:82a::200e",
        "::1",
        "fe80::1",
        "fd00:ec2::254",
        "::ffff:10.0.0.1",
        "64:ff9b::a9fe:a9fe",
        "2002:c0a8:101::",
        "2001:db8::1",
        "ff02::1",
        "2001:0:4136:e378:8000:63bf:3fff:fdd2",
    ]
    .iter()
    .map(|s| s.parse().unwrap())
    .collect()
}

fn urls() -> Vec<&'static str> {
    vec![
        "https://www.example.com/path/to/resource?query=1&b=2#frag",
        "https://api.github.com/repos/rust-lang/rust/issues?state=open",
        "http://8.8.8.8/",
        "https://[2606:4700:4700::1111]/dns-query",
        "http://169.254.169.254/latest/meta-data/iam/security-credentials/",
        "http://127.0.0.1:8080/admin",
        "http://0x7f.1/",
        "http://[::ffff:10.0.0.1]/",
        "https://docs.rs/url/latest/url/struct.Url.html",
        "http://metadata.google.internal/computeMetadata/v1/",
        "https://bücher.example/katalog",
        "gopher://localhost:25/",
    ]
}

fn bench_ip(c: &mut Criterion) {
    let addrs = addresses();
    let table: Vec<IpNet> = IPV4_BLOCKS
        .iter()
        .chain(IPV6_BLOCKS)
        .map(|b| IpNet::new(b.prefix, b.len).unwrap())
        .collect();
    let mut g = c.benchmark_group("classify_ip");
    g.throughput(Throughput::Elements(addrs.len() as u64));
    g.bench_function("classify_ip", |b| {
        b.iter(|| {
            for a in &addrs {
                black_box(classify_ip(black_box(*a)));
            }
        })
    });
    // Baseline: the obvious implementation, a linear ipnet scan of the same rows.
    g.bench_function("baseline_ipnet_scan", |b| {
        b.iter(|| {
            for a in &addrs {
                black_box(table.iter().find(|n| n.contains(black_box(a))));
            }
        })
    });
    g.finish();
}

/// One group per input set, each with `Url::parse` alone on the same inputs.
fn bench_url(c: &mut Criterion) {
    let all = urls();
    let allowed: Vec<&str> = all
        .iter()
        .copied()
        .filter(|u| classify_url(u).is_ok())
        .collect();
    let refused: Vec<&str> = all
        .iter()
        .copied()
        .filter(|u| classify_url(u).is_err())
        .collect();
    for (name, inputs) in [
        ("classify_url", all),
        ("classify_url_allowed", allowed),
        ("classify_url_refused", refused),
    ] {
        let mut g = c.benchmark_group(name);
        g.throughput(Throughput::Elements(inputs.len() as u64));
        g.bench_function("baseline_url_parse", |b| {
            b.iter(|| {
                for s in &inputs {
                    let _ = black_box(url::Url::parse(black_box(s)));
                }
            })
        });
        g.bench_function("classify_url", |b| {
            b.iter(|| {
                for s in &inputs {
                    let _ = black_box(classify_url(black_box(s)));
                }
            })
        });
        g.finish();
    }
}

criterion_group!(benches, bench_ip, bench_url);

/// `NET_COST=<none|parse|classify|ip|iploop> NET_COST_N=<loops> [NET_COST_SET=all|allowed|refused] target/release/deps/core_net-*`
/// runs one plain loop over the bench inputs instead of criterion, for
/// `valgrind --tool=callgrind` instruction counts (load-independent, unlike
/// wall time on a shared machine). Subtract the `none` run (setup) from the
/// others; the ratio `classify / parse` is the goal's ratio.
fn cost_driver(mode: &str) {
    let n: usize = std::env::var("NET_COST_N")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1000);
    let set = std::env::var("NET_COST_SET").unwrap_or_else(|_| "all".into());
    let all = urls();
    let inputs: Vec<&str> = match set.as_str() {
        "allowed" => all
            .into_iter()
            .filter(|u| classify_url(u).is_ok())
            .collect(),
        "refused" => all
            .into_iter()
            .filter(|u| classify_url(u).is_err())
            .collect(),
        _ => all,
    };
    let addrs = addresses();
    for _ in 0..n {
        match mode {
            "parse" => {
                for s in &inputs {
                    let _ = black_box(url::Url::parse(black_box(s)));
                }
            }
            "classify" => {
                for s in &inputs {
                    let _ = black_box(classify_url(black_box(s)));
                }
            }
            "ip" => {
                for a in &addrs {
                    black_box(classify_ip(black_box(*a)));
                }
            }
            // The same loop without the classification: its overhead.
            "iploop" => {
                for a in &addrs {
                    black_box(black_box(*a));
                }
            }
            _ => {}
        }
    }
}

fn main() {
    if let Ok(mode) = std::env::var("NET_COST") {
        cost_driver(&mode);
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
