//! Criterion benches of the core JSON layer, each group with its baseline
//! (`serde_json::from_slice::<Value>`, unvetted) on the same bytes.
//! Goal (issue 2): vetted `parse_tool_call` >= 1.5x the baseline's throughput
//! at ~300 B, 64 KiB and 1 MiB.
use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use serde_json::{json, Value};
use toolgate::json::{depth_of, parse_strict, refuse_duplicate_json_keys, Limits};
use toolgate::rpc::{parse_tool_call, ToolCall};

/// A `tools/call` request of about `target` bytes: a realistic mix of
/// objects, arrays, short strings, numbers and booleans in `arguments`.
fn request(target: usize) -> Vec<u8> {
    let mut items = Vec::new();
    let mut call = ToolCall::new("extract")
        .id(42)
        .arg("path", "reports/2026/q3 summary.pdf")
        .arg("pages", "1-3");
    let mut bytes = call.to_json().into_bytes();
    let mut i = 0u64;
    while bytes.len() < target {
        items.push(json!({
            "id": i,
            "name": format!("item number {i}"),
            "tags": ["alpha", "beta", "gamma"],
            "score": (i as f64) * 0.25 + 0.5,
            "active": i.is_multiple_of(2),
            "note": "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod.",
            "dims": {"w": 210, "h": 297, "unit": "mm"}
        }));
        i += 1;
        // Grow geometrically, then settle on the exact item count.
        if items.len().is_power_of_two() || bytes.len() + 400 >= target / 2 {
            call = call.arg("items", Value::Array(items.clone()));
            bytes = call.to_json().into_bytes();
        }
    }
    if target < 1000 {
        // The ~300 B case: a typical small call.
        return ToolCall::new("extract")
            .id(42)
            .arg("path", "reports/2026/q3 summary.pdf")
            .arg("pages", "1-3")
            .meta("progressToken", "tok-7f3a")
            .arg(
                "options",
                json!({"layout": true, "max_chars": 20000, "lang": ["en", "fr"], "ocr": false}),
            )
            .arg("password", "hunter2")
            .arg("format", "text")
            .to_json()
            .into_bytes();
    }
    bytes
}

fn config() -> Criterion {
    Criterion::default()
        .sample_size(20)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3))
}

fn parse_tool_call_groups(c: &mut Criterion) {
    for (label, size) in [("300B", 300), ("64KiB", 64 * 1024), ("1MiB", 1024 * 1024)] {
        let bytes = request(size);
        assert!(parse_tool_call(&bytes).is_ok());
        let mut g = c.benchmark_group(format!("parse_tool_call/{label}"));
        g.throughput(Throughput::Bytes(bytes.len() as u64));
        g.bench_with_input(
            BenchmarkId::new("serde_json_value_baseline", bytes.len()),
            &bytes,
            |b, s| b.iter(|| serde_json::from_slice::<Value>(black_box(s)).unwrap()),
        );
        g.bench_with_input(
            BenchmarkId::new("parse_tool_call", bytes.len()),
            &bytes,
            |b, s| b.iter(|| parse_tool_call(black_box(s)).unwrap()),
        );
        g.finish();
    }
}

fn strict_layer_groups(c: &mut Criterion) {
    let bytes = request(64 * 1024);
    let value: Value = serde_json::from_slice(&bytes).unwrap();
    let mut g = c.benchmark_group("strict_layer/64KiB");
    g.throughput(Throughput::Bytes(bytes.len() as u64));
    g.bench_function("serde_json_value_baseline", |b| {
        b.iter(|| serde_json::from_slice::<Value>(black_box(&bytes)).unwrap())
    });
    g.bench_function("refuse_duplicate_json_keys", |b| {
        b.iter(|| refuse_duplicate_json_keys(black_box(&bytes)).unwrap())
    });
    g.bench_function("parse_strict", |b| {
        b.iter(|| parse_strict(black_box(&bytes), &Limits::default()).unwrap())
    });
    g.bench_function("depth_of", |b| b.iter(|| depth_of(black_box(&value))));
    g.finish();
}

criterion_group! {
    name = benches;
    config = config();
    targets = parse_tool_call_groups, strict_layer_groups
}
criterion_main!(benches);
