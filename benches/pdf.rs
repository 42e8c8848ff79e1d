//! The whole PDF corpus extracted as the server does it (isolated worker per
//! file) beside poppler's `pdftotext` on the same files, in one run.
//! Goal (issue 4): total wall time <= 1.0x pdftotext's. Prints the ratio and
//! the workers' peak RSS; skips the baseline when `pdftotext` is absent.

use criterion::{criterion_group, criterion_main, Criterion};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use toolgate::pdf::worker::extract_isolated_with_stats;
use toolgate::pdf::{Isolation, Options, Source};

const PASSWORDS: &[(&str, &str)] = &[
    ("pypdf-libreoffice-password", "openpassword"),
    ("qpdf-enc-R2V1-U-view", "view"),
    ("qpdf-enc-R6V5-U-view", "view"),
    ("qpdf-20-pages", "user"),
];

fn corpus() -> Vec<(PathBuf, Option<&'static str>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/pdf");
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| d.filter_map(|e| e.ok()).map(|e| e.path()).collect())
        .unwrap_or_default();
    files.retain(|p| p.extension().is_some_and(|e| e == "pdf"));
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let stem = p
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            let pw = PASSWORDS.iter().find(|(n, _)| *n == stem).map(|(_, p)| *p);
            (p, pw)
        })
        .collect()
}

fn have_pdftotext() -> bool {
    Command::new("pdftotext")
        .arg("-v")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok()
}

/// Extracts every file through the worker; returns the largest worker RSS (KiB).
fn toolgate_corpus(files: &[(PathBuf, Option<&str>)], iso: &Isolation) -> u64 {
    let mut peak = 0;
    for (path, pw) in files {
        let options = Options {
            password: pw.map(str::to_owned),
            ..Options::default()
        };
        let (r, stats) = extract_isolated_with_stats(Source::Path(path), None, &options, iso);
        std::hint::black_box(&r);
        peak = peak.max(stats.max_rss_kib.unwrap_or(0));
    }
    peak
}

fn pdftotext_corpus(files: &[(PathBuf, Option<&str>)]) {
    for (path, pw) in files {
        let mut cmd = Command::new("pdftotext");
        cmd.arg("-q").arg("-enc").arg("UTF-8");
        if let Some(pw) = pw {
            cmd.arg("-upw").arg(pw);
        }
        let _ = cmd.arg(path).arg("-").stdout(Stdio::null()).status();
    }
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v.get(v.len() / 2).copied().unwrap_or_default()
}

fn bench(c: &mut Criterion) {
    let files = corpus();
    let iso = Isolation::new(env!("CARGO_BIN_EXE_toolgate"));
    let baseline = have_pdftotext();
    let mut group = c.benchmark_group("pdf_corpus");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(20));
    group.bench_function("toolgate_extract_isolated", |b| {
        b.iter(|| toolgate_corpus(&files, &iso))
    });
    if baseline {
        group.bench_function("pdftotext", |b| b.iter(|| pdftotext_corpus(&files)));
    } else {
        eprintln!("pdftotext not found: baseline skipped");
    }
    group.finish();

    // One summary line with the ratio, from interleaved runs of both.
    let (mut ours, mut theirs, mut peak) = (Vec::new(), Vec::new(), 0);
    for _ in 0..5 {
        let t = Instant::now();
        peak = peak.max(toolgate_corpus(&files, &iso));
        ours.push(t.elapsed());
        if baseline {
            let t = Instant::now();
            pdftotext_corpus(&files);
            theirs.push(t.elapsed());
        }
    }
    let (o, t) = (median(ours), median(theirs));
    eprintln!(
        "pdf_corpus summary: {} files; toolgate (isolated) {:.1} ms, pdftotext {}; ratio {}; worker peak RSS {:.1} MiB",
        files.len(),
        o.as_secs_f64() * 1e3,
        if baseline { format!("{:.1} ms", t.as_secs_f64() * 1e3) } else { "skipped".into() },
        if baseline { format!("{:.2}x", o.as_secs_f64() / t.as_secs_f64()) } else { "n/a".into() },
        peak as f64 / 1024.0
    );
}

criterion_group!(benches, bench);
criterion_main!(benches);
