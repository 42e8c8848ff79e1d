//! One `tools/call` line through the core: the single-parse path (the call
//! kept from the message's one scan) beside the two-parse reference path
//! (`rpc::legacy`, the message parse then `parse_tool_call_with` on the same
//! bytes), in one group. Goal (issue 9): at least 1.3x the reference's
//! throughput.
use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use serde_json::json;
use toolgate::json::Limits;
use toolgate::rpc::legacy::{one_parse_tool_call, two_parse_tool_call};
use toolgate::rpc::ToolCall;

fn line() -> Vec<u8> {
    ToolCall::new("extract")
        .id(42)
        .arg("path", "reports/2026/q3 summary.pdf")
        .arg("pages", "1-3")
        .meta("progressToken", "tok-7f3a")
        .arg(
            "options",
            json!({"layout": true, "max_chars": 20000, "lang": ["en", "fr"], "ocr": false}),
        )
        .to_json()
        .into_bytes()
}

fn tool_call_line(c: &mut Criterion) {
    let bytes = line();
    let limits = Limits::default();
    let mut g = c.benchmark_group("tools_call_line");
    g.throughput(Throughput::Bytes(bytes.len() as u64));
    g.bench_function("two_parse_reference", |b| {
        b.iter(|| two_parse_tool_call(black_box(&bytes), &limits).map(|c| c.arguments()))
    });
    g.bench_function("one_parse", |b| {
        b.iter(|| one_parse_tool_call(black_box(&bytes), &limits).map(|c| c.arguments()))
    });
    g.finish();
}

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3))
}

criterion_group! { name = benches; config = config(); targets = tool_call_line }
criterion_main!(benches);
