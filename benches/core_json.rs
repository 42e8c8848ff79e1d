//! Criterion benches of the core JSON layer: one group per goal, each with
//! its unvetted `serde_json` baseline on the same bytes, so one run gives
//! the ratio. Goals (issue 17; the ratios are in `docs/json.md`):
//!
//! * `parse_tool_call/{64KiB,1MiB}`: at least 1.0x the throughput of
//!   `serde_json::from_slice::<IgnoredAny>` (validate only);
//!   `parse_tool_call/300B`: at least 2.5x `serde_json::from_slice::<Value>`.
//! * `parse_strict/{64KiB,1MiB}`: at least 1.0x `from_slice::<Value>`.
//! * `refuse_duplicate_json_keys/{64KiB,1MiB}`: at least 1.0x `IgnoredAny`.
//!
//! Watched without a goal: `value_units/{64KiB,1MiB}` (the pass every
//! parse makes first, to bound the values it builds) against `IgnoredAny`,
//! and `depth_of`.
//!
//! `JSON_COST=<none|ignored|value|tool_call|strict|dup|units> JSON_COST_SIZE=<bytes>
//! JSON_COST_N=<loops> target/release/deps/core_json-*` runs one plain loop
//! instead of criterion, for `valgrind --tool=callgrind
//! --toggle-collect='*cost_loop*'` profiles and instruction counts.
use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, BenchmarkId, Criterion, Throughput};
use serde::de::IgnoredAny;
use serde_json::{json, Value};
use toolgate::json::{
    depth_of, parse_strict, refuse_duplicate_json_keys, value_units, Limits, MAX_JSON_VALUES,
};
use toolgate::rpc::{parse_tool_call, ToolCall};

/// A `tools/call` request of about `target` bytes: a realistic mix of
/// objects, arrays, short strings, numbers and booleans in `arguments`.
/// Built in one pass (each item serialized once to count its bytes), so a
/// 1 MiB input is quick to build under callgrind too.
fn request(target: usize) -> Vec<u8> {
    let call = ToolCall::new("extract")
        .id(42)
        .arg("path", "reports/2026/q3 summary.pdf")
        .arg("pages", "1-3");
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
    let mut items = Vec::new();
    // `"items":[]` and the comma before it, then each item and its comma.
    let mut len = call.to_json().len() + r#","items":[]"#.len();
    let mut i = 0u64;
    while len < target {
        let item = json!({
            "id": i,
            "name": format!("item number {i}"),
            "tags": ["alpha", "beta", "gamma"],
            "score": (i as f64) * 0.25 + 0.5,
            "active": i.is_multiple_of(2),
            "note": "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod.",
            "dims": {"w": 210, "h": 297, "unit": "mm"}
        });
        len += item.to_string().len() + usize::from(!items.is_empty());
        items.push(item);
        i += 1;
    }
    call.arg("items", Value::Array(items))
        .to_json()
        .into_bytes()
}

fn config() -> Criterion {
    Criterion::default()
        .sample_size(20)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3))
}

const SIZES: [(&str, usize); 3] = [("300B", 300), ("64KiB", 64 * 1024), ("1MiB", 1024 * 1024)];

fn ignored_any(s: &[u8]) -> IgnoredAny {
    serde_json::from_slice::<IgnoredAny>(black_box(s)).unwrap()
}

fn serde_value(s: &[u8]) -> Value {
    serde_json::from_slice::<Value>(black_box(s)).unwrap()
}

/// Goal 1: the fully vetted call against both serde_json baselines.
fn parse_tool_call_groups(c: &mut Criterion) {
    for (label, size) in SIZES {
        let bytes = request(size);
        assert!(parse_tool_call(&bytes).is_ok());
        let mut g = c.benchmark_group(format!("parse_tool_call/{label}"));
        g.throughput(Throughput::Bytes(bytes.len() as u64));
        g.bench_with_input(
            BenchmarkId::new("serde_json_value_baseline", bytes.len()),
            &bytes,
            |b, s| b.iter(|| serde_value(s)),
        );
        g.bench_with_input(
            BenchmarkId::new("serde_json_ignored_any_baseline", bytes.len()),
            &bytes,
            |b, s| b.iter(|| ignored_any(s)),
        );
        g.bench_with_input(
            BenchmarkId::new("parse_tool_call", bytes.len()),
            &bytes,
            |b, s| b.iter(|| parse_tool_call(black_box(s)).unwrap()),
        );
        g.finish();
    }
}

/// Goal 2: the vetted `Value` against serde_json's unvetted one.
fn parse_strict_groups(c: &mut Criterion) {
    for (label, size) in &SIZES[1..] {
        let bytes = request(*size);
        let mut g = c.benchmark_group(format!("parse_strict/{label}"));
        g.throughput(Throughput::Bytes(bytes.len() as u64));
        g.bench_with_input(
            BenchmarkId::new("serde_json_value_baseline", bytes.len()),
            &bytes,
            |b, s| b.iter(|| serde_value(s)),
        );
        g.bench_with_input(
            BenchmarkId::new("parse_strict", bytes.len()),
            &bytes,
            |b, s| b.iter(|| parse_strict(black_box(s), &Limits::default()).unwrap()),
        );
        g.finish();
    }
}

/// Goal 3: duplicate-key detection alone against serde_json's validation.
fn duplicate_key_groups(c: &mut Criterion) {
    for (label, size) in &SIZES[1..] {
        let bytes = request(*size);
        let mut g = c.benchmark_group(format!("refuse_duplicate_json_keys/{label}"));
        g.throughput(Throughput::Bytes(bytes.len() as u64));
        g.bench_with_input(
            BenchmarkId::new("serde_json_ignored_any_baseline", bytes.len()),
            &bytes,
            |b, s| b.iter(|| ignored_any(s)),
        );
        g.bench_with_input(
            BenchmarkId::new("refuse_duplicate_json_keys", bytes.len()),
            &bytes,
            |b, s| b.iter(|| refuse_duplicate_json_keys(black_box(s)).unwrap()),
        );
        g.finish();
    }
}

/// `value_units`, the pass before every strict parse that bounds the
/// values it builds, against `IgnoredAny` (no goal; kept to watch its
/// share of a parse).
fn value_units_groups(c: &mut Criterion) {
    for (label, size) in &SIZES[1..] {
        let bytes = request(*size);
        let mut g = c.benchmark_group(format!("value_units/{label}"));
        g.throughput(Throughput::Bytes(bytes.len() as u64));
        g.bench_with_input(
            BenchmarkId::new("serde_json_ignored_any_baseline", bytes.len()),
            &bytes,
            |b, s| b.iter(|| ignored_any(s)),
        );
        g.bench_with_input(
            BenchmarkId::new("value_units", bytes.len()),
            &bytes,
            |b, s| b.iter(|| value_units(black_box(s), MAX_JSON_VALUES).unwrap()),
        );
        g.finish();
    }
}

/// `depth_of` on a built value (no goal; kept to watch it).
fn depth_group(c: &mut Criterion) {
    let bytes = request(64 * 1024);
    let value: Value = serde_json::from_slice(&bytes).unwrap();
    let mut g = c.benchmark_group("depth_of/64KiB");
    g.throughput(Throughput::Bytes(bytes.len() as u64));
    g.bench_function("depth_of", |b| b.iter(|| depth_of(black_box(&value))));
    g.finish();
}

criterion_group! {
    name = benches;
    config = config();
    targets = parse_tool_call_groups, parse_strict_groups, duplicate_key_groups, value_units_groups, depth_group
}

/// One plain loop for callgrind (see the module docs).
fn cost_driver(mode: &str) {
    let env = |k: &str, d: usize| {
        std::env::var(k)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(d)
    };
    let bytes = request(env("JSON_COST_SIZE", 64 * 1024));
    cost_loop(mode, &bytes, env("JSON_COST_N", 100));
}

/// The measured loop alone (`valgrind --tool=callgrind
/// --toggle-collect='*cost_loop*'` counts nothing else).
#[inline(never)]
fn cost_loop(mode: &str, bytes: &[u8], n: usize) {
    let limits = Limits::default();
    for _ in 0..n {
        match mode {
            "ignored" => drop(black_box(ignored_any(bytes))),
            "value" => drop(black_box(serde_value(bytes))),
            "tool_call" => drop(black_box(parse_tool_call(black_box(bytes)))),
            "strict" => drop(black_box(parse_strict(black_box(bytes), &limits))),
            "dup" => drop(black_box(refuse_duplicate_json_keys(black_box(bytes)))),
            "units" => drop(black_box(value_units(black_box(bytes), MAX_JSON_VALUES))),
            _ => {}
        }
    }
}

fn main() {
    if let Ok(mode) = std::env::var("JSON_COST") {
        cost_driver(&mode);
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
